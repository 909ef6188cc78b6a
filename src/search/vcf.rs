//! Threat search: VCF, victory by continuous fours.
//!
//! The attacker only plays fours; the defender's reply is forced (the one point that
//! stops the five). The tree is narrow and deep: it runs at the root before the main
//! search and at the leaves as the quiescence search. Renju on both sides: Black's fours
//! must be legal points, and a four whose only defence is forbidden for Black wins for
//! White. A direct-mapped cache remembers positions already shown to have no VCF.
//! After its first four the attacker only plays fours that use its last stone (see
//! `shares_a_line`): a heuristic that may miss a win, never invents one.

use crate::board::pattern::Threat;
use crate::board::{Board, PointSet, Pos};
use crate::rules;

const CACHE_SIZE: usize = 1 << 16;
const POLL_INTERVAL: u64 = 256;

/// Nodes a threat search may visit, and the caller's clock, asked every
/// `POLL_INTERVAL` nodes: when it says stop, the budget counts as spent.
pub struct Budget<'a> {
    nodes_left: u64,
    interrupted: &'a dyn Fn() -> bool,
    nodes: u64,
}

impl<'a> Budget<'a> {
    pub fn new(nodes: u64, interrupted: &'a dyn Fn() -> bool) -> Budget<'a> {
        Budget {
            nodes_left: nodes,
            interrupted,
            nodes: 0,
        }
    }

    /// Takes one node; false once the budget is spent.
    pub fn spend(&mut self) -> bool {
        if self.nodes_left == 0 {
            return false;
        }
        self.nodes_left -= 1;
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_INTERVAL) && (self.interrupted)() {
            self.nodes_left = 0;
        }
        true
    }

    pub fn is_spent(&self) -> bool {
        self.nodes_left == 0
    }

    /// Nodes visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// A budget of `nodes` for a search nested in this one, on the same clock.
    pub fn nested(&self, nodes: u64) -> Budget<'a> {
        Budget::new(nodes.min(self.nodes_left), self.interrupted)
    }

    /// Counts the nodes a nested search visited, and looks at the clock if they carried
    /// the count past a polling point.
    pub fn absorb(&mut self, nested: &Budget<'_>) {
        let before = self.nodes;
        self.nodes += nested.nodes;
        self.nodes_left = self.nodes_left.saturating_sub(nested.nodes);
        if before / POLL_INTERVAL != self.nodes / POLL_INTERVAL && (self.interrupted)() {
            self.nodes_left = 0;
        }
    }
}

/// Positions (attacker to move) proven to have no VCF within a number of fours.
pub struct VcfCache {
    entries: Vec<(u64, u8)>,
}

impl Default for VcfCache {
    fn default() -> VcfCache {
        VcfCache {
            entries: vec![(0, 0); CACHE_SIZE],
        }
    }
}

impl VcfCache {
    fn slot(key: u64) -> usize {
        (key as usize) & (CACHE_SIZE - 1)
    }

    fn refuted(&self, key: u64, depth: u32) -> bool {
        let (stored, refuted_depth) = self.entries[Self::slot(key)];
        stored == key && refuted_depth as u32 >= depth
    }

    fn remember(&mut self, key: u64, depth: u32) {
        self.entries[Self::slot(key)] = (key, depth.min(u8::MAX as u32) as u8);
    }

    pub fn clear(&mut self) {
        self.entries.fill((0, 0));
    }
}

/// A proven VCF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Win {
    /// Attacker and defender moves, from the first four to the five or the unstoppable
    /// four.
    pub line: Vec<Pos>,
    /// Plies from the position until the five stands on the board.
    pub plies: usize,
}

/// A search for one position, bounded in fours, in nodes, and by the caller's clock.
pub struct Vcf<'a, 'b> {
    cache: &'a mut VcfCache,
    pub budget: Budget<'b>,
    /// Moves of the line being tried: attacker, defender, attacker, ….
    line: Vec<Pos>,
    ends_in_five: bool,
}

impl<'a, 'b> Vcf<'a, 'b> {
    pub fn new(cache: &'a mut VcfCache, budget: Budget<'b>) -> Vcf<'a, 'b> {
        Vcf {
            cache,
            budget,
            line: Vec::new(),
            ends_in_five: false,
        }
    }

    /// The winning line of the side to move (its moves and the forced replies, ending
    /// with the move that makes five or an unstoppable four), if one exists within
    /// `max_fours` fours.
    pub fn find(&mut self, board: &mut Board, max_fours: u32) -> Option<Win> {
        self.line.clear();
        self.ends_in_five = false;
        self.attack(board, max_fours).then(|| Win {
            line: self.line.clone(),
            // A line that ends in an unstoppable four needs the defender's move and the five.
            plies: self.line.len() + if self.ends_in_five { 0 } else { 2 },
        })
    }

    fn attack(&mut self, board: &mut Board, depth: u32) -> bool {
        let me = board.to_move();
        let opponent = me.opponent();
        if let Some(five) = board.five_points(me).iter().next() {
            self.line.push(five);
            self.ends_in_five = true;
            return true;
        }
        if depth == 0 || self.cache.refuted(board.hash(), depth) || !self.budget.spend() {
            return false;
        }
        // A copy, not a list: the board's set changes as fours are tried.
        let (candidates, last) = match board.five_points(opponent).first_two() {
            // Fours that do not use the last attacking stone could have come earlier;
            // trying them at every step made failing searches on a crowded board spend
            // their whole budget.
            (None, _) => (
                *board.four_points(me),
                self.line.len().checked_sub(2).map(|i| self.line[i]),
            ),
            (Some(block), None) if board.threat(block, me).makes_four() => {
                let mut only = PointSet::default();
                only.insert(block);
                (only, None)
            }
            _ => return false,
        };
        // Board order: trying four-three points first played no better.
        let candidates = candidates.iter();
        for four in candidates.filter(|&p| last.is_none_or(|l| shares_a_line(p, l))) {
            if self.try_four(board, four, depth) {
                return true;
            }
        }
        // A search cut short by the budget proves nothing.
        if !self.budget.is_spent() {
            self.cache.remember(board.hash(), depth);
        }
        false
    }

    /// Plays the four `four`, lets the defender block, and goes on.
    fn try_four(&mut self, board: &mut Board, four: Pos, depth: u32) -> bool {
        let me = board.to_move();
        if !rules::is_legal(board, four, me) {
            return false;
        }
        let unstoppable = board.threat(four, me) == Threat::Flex4;
        self.line.push(four);
        board.play(four);
        let won = match board.five_points(me).first_two() {
            _ if unstoppable => true,
            (Some(_), Some(_)) => true,
            (Some(block), None) => {
                if rules::is_legal(board, block, me.opponent()) {
                    self.line.push(block);
                    board.play(block);
                    let won = self.attack(board, depth - 1);
                    board.undo();
                    if !won {
                        self.line.pop();
                    }
                    won
                } else {
                    true
                }
            }
            (None, _) => false,
        };
        board.undo();
        if !won {
            self.line.pop();
        }
        won
    }
}

/// Whether `a` and `b` lie on one line within four points of each other: only then can
/// a four at `a` use the stone at `b`.
fn shares_a_line(a: Pos, b: Pos) -> bool {
    let (dx, dy) = (a.x().abs_diff(b.x()), a.y().abs_diff(b.y()));
    (dx == 0 || dy == 0 || dx == dy) && dx.max(dy) <= 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::board::testing::picture;
    use crate::rules::Rule;

    fn vcf(board: &mut Board) -> Option<Vec<Pos>> {
        let mut cache = VcfCache::default();
        Vcf::new(&mut cache, Budget::new(100_000, &|| false))
            .find(board, 20)
            .map(|win| win.line)
    }

    #[test]
    fn finds_a_four_three_through_a_forcing_four() {
        // (6,3) makes fours in row 3 and column 6 at once.
        let mut board = picture(
            Rule::Freestyle,
            &[
                "...............",
                "...............",
                "...............",
                "..OXXX.........",
                "...............",
                "......X........",
                "......X........",
                "......X........",
                "......O........",
            ],
            Color::Black,
        );
        let line = vcf(&mut board).expect("a VCF exists");
        assert_eq!(line, [Pos::new(6, 3)]);
        assert_eq!(board.threat(line[0], Color::Black), Threat::Flex4);
        let mut cache = VcfCache::default();
        let win = Vcf::new(&mut cache, Budget::new(1000, &|| false))
            .find(&mut board, 20)
            .unwrap();
        assert_eq!(win.plies, 3, "four, any reply, five");
    }

    #[test]
    fn a_four_can_follow_only_on_a_line_through_the_last_stone() {
        let last = Pos::new(7, 7);
        let follows = [(3, 3), (11, 11), (7, 3), (11, 7), (3, 11), (9, 5)];
        let unrelated = [(2, 2), (12, 7), (8, 9), (5, 6)];
        for (x, y) in follows {
            assert!(shares_a_line(Pos::new(x, y), last), "{x},{y}");
        }
        for (x, y) in unrelated {
            assert!(!shares_a_line(Pos::new(x, y), last), "{x},{y}");
        }
    }

    #[test]
    fn no_vcf_without_fours() {
        let mut board = picture(
            Rule::Freestyle,
            &[
                "...............",
                "....XX.........",
                "...............",
                ".....O.........",
            ],
            Color::Black,
        );
        assert_eq!(vcf(&mut board), None);
    }

    #[test]
    fn white_wins_when_blacks_only_defence_is_forbidden() {
        // White's four (5,4)..(5,7) can only be stopped at (5,3), an overline for Black.
        let mut board = picture(
            Rule::Renju,
            &[
                "...............",
                "...............",
                ".....X.........",
                "OXXXX.X........",
                ".....O.........",
                ".....O.........",
                ".....O.........",
                "...............",
                ".....X.........",
            ],
            Color::White,
        );
        let line = vcf(&mut board).expect("white wins");
        assert_eq!(line, [Pos::new(5, 7)]);
    }

    #[test]
    fn black_may_not_win_through_a_forbidden_four() {
        // (4,4) would give Black two fours, a win anywhere but under renju, where it is
        // a double-four; Black's other fours lead nowhere.
        let mut board = picture(
            Rule::Renju,
            &[
                "...............",
                "....X..........",
                "....X..........",
                "....X..........",
                ".XXX...........",
                "O...O..........",
                "..............O",
            ],
            Color::Black,
        );
        assert!(rules::is_forbidden(&mut board, Pos::new(4, 4)));
        assert_eq!(vcf(&mut board), None);
    }
}

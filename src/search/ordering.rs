//! Move generation and ordering.
//!
//! Candidates are the empty points within two of a stone. Threats narrow them first: a
//! five point of our own wins at once; an opponent five point must be blocked; an
//! opponent point that makes an unstoppable four leaves only our own fours and the
//! points on that four's lines. For threat searches an opponent four-three point narrows
//! them the same way, keeping also our threes that would make the block of its four a
//! four of ours. Black never gets a forbidden point under renju.
//!
//! A defence that stops the threat but leaves the opponent a four-three or a double
//! three is not left out, only put last ([`Situation::Forced`]'s `holding`): such a
//! threat loses only if the defender has no fours to turn it, which the patterns cannot
//! tell, and a search that proved a loss without trying it proved nothing.

use super::params::KILLER_VALUE;
use crate::board::pattern::{Pattern, Threat};
use crate::board::{Board, Cell, Color, DIRECTIONS, Pos};
use crate::move_values;
use crate::rules::{self, Rule};

/// What the side to move faces.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Situation {
    /// Playing this point wins at once.
    Win(Pos),
    /// The opponent wins whatever we do: two five points, or one we may not block.
    Lost,
    /// The moves are the only sensible ones (a block of a five, or defences). The first
    /// `holding` of them hold as far as the patterns tell; the rest stop the threat but
    /// leave the opponent a four-three or better, so a search tries them only once every
    /// holding move has lost.
    Forced { holding: usize },
    /// The moves are every candidate.
    Open,
}

impl Situation {
    /// How many of the `count` moves generated hold (see [`Situation::Forced`]): all of
    /// them unless forced.
    pub fn holding(self, count: usize) -> usize {
        match self {
            Situation::Forced { holding } => holding.min(count),
            _ => count,
        }
    }
}

/// Takes `pos` out of `moves`, keeping the order and the count of the first `holding`;
/// false if it was not there.
pub fn take_out(moves: &mut Vec<Pos>, pos: Pos, holding: &mut usize) -> bool {
    let Some(i) = moves.iter().position(|&p| p == pos) else {
        return false;
    };
    moves.remove(i);
    if i < *holding {
        *holding -= 1;
    }
    true
}

/// Keeps the moves `keep` accepts, in order, and returns how many of the first
/// `holding` are left.
pub fn retain(moves: &mut Vec<Pos>, holding: usize, keep: impl Fn(Pos) -> bool) -> usize {
    let left = moves[..holding].iter().filter(|&&p| keep(p)).count();
    moves.retain(|&p| keep(p));
    left
}

/// Whether [`generate`] could answer anything but [`Situation::Open`]: a five point for
/// either side, or an opponent point making an unstoppable four.
pub fn threatened(board: &Board) -> bool {
    let me = board.to_move();
    !board.five_points(me).is_empty()
        || !board.five_points(me.opponent()).is_empty()
        || board.threat_count(me.opponent(), Threat::Flex4) > 0
}

/// Fills `moves` with the moves worth searching and says why.
pub fn generate(board: &mut Board, moves: &mut Vec<Pos>) -> Situation {
    generate_with(board, moves, false)
}

/// As [`generate`], and an opponent four-three point also leaves only the moves that
/// stop it: how a threat search defends, where a four-three point is a threat like a
/// three. (The main search does without: it gained nothing in games.)
pub fn generate_replies(board: &mut Board, moves: &mut Vec<Pos>) -> Situation {
    generate_with(board, moves, true)
}

fn generate_with(board: &mut Board, moves: &mut Vec<Pos>, four_threes: bool) -> Situation {
    moves.clear();
    let me = board.to_move();
    let opponent = me.opponent();
    if let Some(win) = board.five_points(me).iter().next() {
        return Situation::Win(win);
    }
    let (block, another) = board.five_points(opponent).first_two();
    if let Some(block) = block {
        if another.is_some() || !rules::is_legal(board, block, me) {
            return Situation::Lost;
        }
        moves.push(block);
        return Situation::Forced { holding: 1 };
    }
    if board.threat_count(opponent, Threat::Flex4) > 0 {
        let menaces = menaces(board, Threat::Flex4);
        let found = defences(board, moves, &menaces, Threat::Flex4);
        if !moves.is_empty() {
            // With no real defence, every point on those lines delays the loss alike.
            if found.kept == 0 {
                return Situation::Forced {
                    holding: moves.len(),
                };
            }
            moves.truncate(found.stopping);
            return Situation::Forced {
                holding: found.kept,
            };
        }
    }
    if four_threes
        && board.threat_count(opponent, Threat::Block4Flex3) > 0
        && let Some(holding) = four_three_defences(board, moves)
    {
        return Situation::Forced { holding };
    }
    move_values::add_candidate_points(board, moves);
    if board.rule() == Rule::Renju && me == Color::Black {
        moves.retain(|&pos| !rules::is_forbidden(board, pos));
        // Black must move and a forbidden move loses: with every empty point
        // forbidden (a nearly full board), Black has lost, not drawn.
        if moves.is_empty() && rules::only_forbidden_points_left(board) {
            return Situation::Lost;
        }
    }
    Situation::Open
}

/// The points the candidates leave out that may still defend: empty points up to four
/// along a line from an opponent stone and more than two from every stone, legal for
/// the side to move. Taking such a point ahead of the opponent's four can be the only
/// defence against a threat sequence, so a root whose every move lost tries them
/// before it reports the loss.
pub fn far_points(board: &mut Board, out: &mut Vec<Pos>) {
    let me = board.to_move();
    let mut found = Vec::new();
    for stone in board.history() {
        if stone.cell != Cell::Stone(me.opponent()) {
            continue;
        }
        for d in 0..DIRECTIONS.len() {
            board.empty_points_along(stone.pos, d, 4, |pos, _| {
                if !board.empty_near_stones().contains(pos) && !found.contains(&pos) {
                    found.push(pos);
                }
            });
        }
    }
    out.extend(
        found
            .into_iter()
            .filter(|&pos| rules::is_legal(board, pos, me)),
    );
}

/// The points where `color` makes `threat`, one of the threats that make a four.
fn four_threat_points(board: &Board, color: Color, threat: Threat) -> Vec<Pos> {
    board
        .four_points(color)
        .iter()
        .filter(|&p| board.threat(p, color) == threat)
        .collect()
}

/// The opponent's points of the given four-making threat that it may legally play.
fn menaces(board: &mut Board, threat: Threat) -> Vec<Pos> {
    let opponent = board.to_move().opponent();
    four_threat_points(board, opponent, threat)
        .into_iter()
        .filter(|&p| rules::is_legal(board, p, opponent))
        .collect()
}

/// How [`defences`] filled the move list: our own fours (`..fours`), the real defences
/// (`..kept`), the points that stop every menace's threat but leave one a double three
/// or better (`..stopping`), and the points that stop nothing.
struct Defences {
    fours: usize,
    kept: usize,
    stopping: usize,
}

/// Fills `moves` with our own fours, then the empty points on the lines through the
/// opponent's `menaces` (points where it makes `threat`; within five of them, on lines
/// where they make a four, or a three against a four-three) sorted as [`Defences`] says.
fn defences(board: &mut Board, moves: &mut Vec<Pos>, menaces: &[Pos], threat: Threat) -> Defences {
    let line = if threat == Threat::Flex4 {
        Pattern::Block4
    } else {
        Pattern::Flex3
    };
    moves.clear();
    let me = board.to_move();
    let opponent = me.opponent();
    let mut marked = crate::board::PointSet::default();
    let mut add = |board: &mut Board, pos: Pos, moves: &mut Vec<Pos>| {
        if !marked.contains(pos) && board.is_empty(pos) {
            marked.insert(pos);
            if rules::is_legal(board, pos, me) {
                moves.push(pos);
            }
        }
    };
    let own_fours: Vec<Pos> = board.four_points(me).iter().collect();
    for pos in own_fours {
        add(board, pos, moves);
    }
    let fours = moves.len();
    for &menace in menaces {
        add(board, menace, moves);
        for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            if board.pattern(menace, opponent, d) < line {
                continue;
            }
            for step in (-5..=5).filter(|&s| s != 0) {
                if let Some(pos) = board.offset(menace, dx * step, dy * step) {
                    add(board, pos, moves);
                }
            }
        }
    }
    // What each point leaves the menaces, worked out once for both partitions.
    let mut left: Vec<(Threat, Pos)> = moves[fours..]
        .iter()
        .map(|&block| {
            let worst = menaces
                .iter()
                .filter(|&&menace| menace != block)
                .map(|&menace| board.threat_after_block(menace, opponent, block))
                .max();
            (worst.unwrap_or(Threat::None), block)
        })
        .collect();
    let real = partition(&mut left, |worst| worst < Threat::Flex3x2);
    let stopping = real + partition(&mut left[real..], |worst| worst < threat);
    for (slot, (_, block)) in moves[fours..].iter_mut().zip(left) {
        *slot = block;
    }
    Defences {
        fours,
        kept: fours + real,
        stopping: fours + stopping,
    }
}

/// Moves to the front of `points` those whose threat `first` accepts; returns how many.
fn partition(points: &mut [(Threat, Pos)], first: impl Fn(Threat) -> bool) -> usize {
    let mut front = 0;
    for i in 0..points.len() {
        if first(points[i].0) {
            points.swap(front, i);
            front += 1;
        }
    }
    front
}

/// Against the opponent's four-three points, each a win unless met now: our own fours,
/// the points that stop every one of them, and the threes that turn them (see
/// [`add_countering_threes`]); then the points on their lines that leave one of them a
/// double three or better. How many come before those; `None`, with `moves` empty, when
/// no point stops them, or when blocking a four there would already make a four of our
/// own, which may turn the tables.
fn four_three_defences(board: &mut Board, moves: &mut Vec<Pos>) -> Option<usize> {
    let me = board.to_move();
    let menaces = menaces(board, Threat::Block4Flex3);
    if menaces.is_empty() || menaces.iter().any(|&menace| countered(board, menace, me)) {
        return None;
    }
    let found = defences(board, moves, &menaces, Threat::Block4Flex3);
    if found.kept == found.fours {
        moves.clear();
        return None;
    }
    moves.truncate(found.stopping);
    let doubtful = moves.split_off(found.kept);
    add_countering_threes(board, moves, &menaces);
    let holding = moves.len();
    for pos in doubtful {
        if !moves[..holding].contains(&pos) {
            moves.push(pos);
        }
    }
    Some(holding)
}

/// Whether `defender`, blocking the four its opponent would make at `menace`, would make
/// a four of its own.
fn countered(board: &Board, menace: Pos, defender: Color) -> bool {
    completion_points(board, menace, defender.opponent())
        .any(|block| board.threat(block, defender) >= Threat::Block4)
}

/// Appends to `moves` our threes (of any kind, not yet in `moves`) after which each of
/// the opponent's four-three `menaces` is stopped or [`countered`]: the opponent's four
/// would then have to be blocked with a four of ours.
fn add_countering_threes(board: &mut Board, moves: &mut Vec<Pos>, menaces: &[Pos]) {
    let me = board.to_move();
    let opponent = me.opponent();
    let threes: Vec<Pos> = board
        .empty_near_stones()
        .iter()
        .filter(|&p| {
            let threat = board.threat(p, me);
            threat >= Threat::Block3 && !threat.makes_four() && !moves.contains(&p)
        })
        .collect();
    for three in threes {
        if !rules::is_legal(board, three, me) {
            continue;
        }
        board.play(three);
        let turns_them = menaces.iter().all(|&menace| {
            board.threat(menace, opponent) < Threat::Flex3x2 || countered(board, menace, me)
        });
        board.undo();
        if turns_them {
            moves.push(three);
        }
    }
}

/// The empty points within four of `owner`'s `menace` that make a four with it on one of
/// its four lines: where `owner`'s opponent would have to block once it is played.
fn completion_points(board: &Board, menace: Pos, owner: Color) -> impl Iterator<Item = Pos> + '_ {
    DIRECTIONS
        .iter()
        .enumerate()
        .filter(move |&(d, _)| board.pattern(menace, owner, d) >= Pattern::Block4)
        .flat_map(move |(d, &(dx, dy))| {
            (-4..=4)
                .filter(|&s| s != 0)
                .filter_map(move |s| board.offset(menace, dx * s, dy * s))
                .filter(move |&p| {
                    board.is_empty(p) && board.pattern(p, owner, d) >= Pattern::Block4
                })
        })
}

/// Whether `color` has a legal point making an unstoppable four.
pub fn has_winning_four(board: &mut Board, color: Color) -> Option<Pos> {
    if board.threat_count(color, Threat::Flex4) == 0 {
        return None;
    }
    four_threat_points(board, color, Threat::Flex4)
        .into_iter()
        .find(|&p| rules::is_legal(board, p, color))
}

/// Scores `moves` into `scored` for [`pick`]: the first `holding` of them (see
/// [`Situation::Forced`]) before the rest, and within each part by
/// [`move_values::MoveValues`] (killers get a bonus) and history; ties go to the lower
/// point index, so the order is fully defined. The history only breaks ties: the fitted
/// values already order well, and adding the history to them played no better.
pub fn score(
    board: &Board,
    moves: &[Pos],
    holding: usize,
    killers: &[Option<Pos>; 2],
    history: &[i32],
    scored: &mut Vec<(i64, Pos)>,
) {
    /// Below every key a holding move can have: values and history stay under 2^50.
    const LAST_RESORT: i64 = 1 << 60;
    scored.clear();
    let values = move_values::MoveValues::new(board);
    scored.extend(moves.iter().enumerate().map(|(i, &pos)| {
        let killer = if killers.contains(&Some(pos)) {
            KILLER_VALUE
        } else {
            0
        };
        let value = (values.of(pos) + killer) as i64;
        let key =
            (value << 30) + ((history[pos.index()] as i64) << 10) + (1023 - pos.index() as i64);
        (if i < holding { key } else { key - LAST_RESORT }, pos)
    }));
}

/// The `i`-th best move: one selection step over the unsorted rest, since most nodes
/// cut off after a few moves and a full sort would be wasted.
pub fn pick(scored: &mut [(i64, Pos)], i: usize) -> Pos {
    let best = (i..scored.len())
        .max_by_key(|&j| scored[j].0)
        .expect("i < len");
    scored.swap(i, best);
    scored[i].1
}

/// Sorts `moves` best first by the [`score`] order, the first `holding` before the rest.
pub fn order(board: &Board, moves: &mut [Pos], holding: usize, history: &[i32]) {
    let mut scored = Vec::with_capacity(moves.len());
    score(board, moves, holding, &[None; 2], history, &mut scored);
    scored.sort_unstable_by_key(|&(key, _)| std::cmp::Reverse(key));
    for (slot, (_, pos)) in moves.iter_mut().zip(scored) {
        *slot = pos;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::testing::stones;
    use crate::rules::Rule;

    #[test]
    fn a_five_point_wins_and_an_opponent_five_forces_the_block() {
        let mut moves = Vec::new();
        let mut b = stones(
            Rule::Freestyle,
            &[(3, 3), (4, 3), (5, 3), (6, 3)],
            &[(2, 3), (9, 9)],
            Color::Black,
        );
        assert_eq!(generate(&mut b, &mut moves), Situation::Win(Pos::new(7, 3)));
        b.set_to_move(Color::White);
        assert_eq!(
            generate(&mut b, &mut moves),
            Situation::Forced { holding: 1 }
        );
        assert_eq!(moves, [Pos::new(7, 3)]);
    }

    #[test]
    fn two_opponent_fives_or_a_forbidden_block_lose() {
        let mut moves = Vec::new();
        let mut b = stones(
            Rule::Freestyle,
            &[(3, 3), (4, 3), (5, 3), (6, 3)],
            &[(9, 9)],
            Color::White,
        );
        assert_eq!(generate(&mut b, &mut moves), Situation::Lost);
        // White's five point (5,3) is an overline for Black.
        let black = [(1, 3), (2, 3), (3, 3), (4, 3), (6, 3), (5, 8)];
        let white = [(0, 3), (5, 4), (5, 5), (5, 6), (5, 7)];
        let mut b = stones(Rule::Renju, &black, &white, Color::Black);
        assert_eq!(generate(&mut b, &mut moves), Situation::Lost);
    }

    #[test]
    fn an_open_three_leaves_only_defences_and_own_fours() {
        let mut moves = Vec::new();
        let black = [(5, 7), (6, 7), (7, 7)];
        let white = [(5, 5), (6, 5), (7, 5), (0, 0)];
        let mut b = stones(Rule::Freestyle, &black, &white, Color::White);
        assert_eq!(
            generate(&mut b, &mut moves),
            Situation::Forced { holding: 6 }
        );
        let mut expected =
            [(4, 7), (8, 7), (3, 5), (4, 5), (8, 5), (9, 5)].map(|(x, y)| Pos::new(x, y));
        moves.sort_by_key(|p| p.index());
        expected.sort_by_key(|p| p.index());
        // (3,7) and (9,7) leave Black an open four at the other end; (6,9) is quiet.
        assert_eq!(moves, expected);
    }

    #[test]
    fn a_block_that_leaves_a_four_three_comes_last() {
        let mut moves = Vec::new();
        // White's open three on row 5; (8,5) would also make a three on column 8.
        let white = [(5, 5), (6, 5), (7, 5), (8, 6), (8, 7)];
        let black = [(0, 0), (14, 14), (0, 14), (14, 0), (0, 7), (12, 12)];
        let mut b = stones(Rule::Freestyle, &black, &white, Color::Black);
        let situation = generate(&mut b, &mut moves);
        let Situation::Forced { holding } = situation else {
            panic!("{situation:?}");
        };
        // (4,5) stops the open four but leaves White a four-three at (8,5); (3,5) and
        // (9,5) stop nothing.
        assert_eq!(&moves[holding..], [Pos::new(4, 5)]);
        assert!(moves[..holding].contains(&Pos::new(8, 5)));
        assert!(!moves.contains(&Pos::new(3, 5)) && !moves.contains(&Pos::new(9, 5)));
    }

    #[test]
    fn a_three_with_a_gap_is_blocked_in_the_gap_or_at_either_end() {
        let mut moves = Vec::new();
        let black = [(5, 7), (7, 7), (8, 7)];
        let white = [(0, 0), (14, 14), (0, 14)];
        let mut b = stones(Rule::Freestyle, &black, &white, Color::White);
        assert_eq!(
            generate(&mut b, &mut moves),
            Situation::Forced { holding: 3 }
        );
        moves.sort_by_key(|p| p.index());
        let expected = [(4, 7), (6, 7), (9, 7)].map(|(x, y)| Pos::new(x, y));
        assert_eq!(moves, expected);
    }

    /// Black's (8,5) makes a four on row 5 and a flex three on column 8.
    const FOUR_THREE: [(usize, usize); 5] = [(5, 5), (6, 5), (7, 5), (8, 6), (8, 7)];

    #[test]
    fn a_four_three_point_leaves_only_the_moves_that_stop_it() {
        let mut moves = Vec::new();
        let white = [(4, 5), (0, 0), (14, 14)];
        let mut b = stones(Rule::Freestyle, &FOUR_THREE, &white, Color::White);
        assert_eq!(b.threat(Pos::new(8, 5), Color::Black), Threat::Block4Flex3);
        assert_eq!(generate(&mut b, &mut moves), Situation::Open);
        assert_eq!(
            generate_replies(&mut b, &mut moves),
            Situation::Forced { holding: 4 }
        );
        moves.sort_by_key(|p| p.index());
        // (8,3) and (8,9) leave Black a straight four on column 8.
        let expected = [(8, 4), (8, 5), (9, 5), (8, 8)].map(|(x, y)| Pos::new(x, y));
        assert_eq!(moves, expected);
    }

    #[test]
    fn a_four_three_point_leaves_every_move_when_the_block_would_make_our_four() {
        let mut moves = Vec::new();
        let white = [(4, 5), (9, 6), (9, 7), (9, 8), (0, 0)];
        let mut b = stones(Rule::Freestyle, &FOUR_THREE, &white, Color::White);
        assert!(b.threat(Pos::new(9, 5), Color::White) >= Threat::Block4);
        assert_eq!(generate_replies(&mut b, &mut moves), Situation::Open);
    }

    #[test]
    fn a_three_that_would_make_the_block_a_four_defends_a_four_three_point() {
        let mut moves = Vec::new();
        // White's (9,6) makes a three on column 9 whose four point (9,5) is where
        // Black's four on row 5 must be blocked.
        let white = [(4, 5), (9, 7), (9, 8), (0, 0)];
        let mut b = stones(Rule::Freestyle, &FOUR_THREE, &white, Color::White);
        let situation = generate_replies(&mut b, &mut moves);
        assert!(matches!(situation, Situation::Forced { .. }));
        let holding = &moves[..situation.holding(moves.len())];
        assert!(holding.contains(&Pos::new(9, 6)), "{moves:?}");
        assert!(!moves.contains(&Pos::new(12, 12)));
    }

    #[test]
    fn four_three_points_no_point_can_stop_leave_every_candidate_once() {
        let mut moves = Vec::new();
        // A second four-three point at (7,11): a four on row 11, a three on column 7.
        let black = [
            FOUR_THREE.as_slice(),
            &[(9, 11), (10, 11), (11, 11), (7, 12), (7, 13)],
        ];
        let white = [(4, 5), (12, 11), (0, 0), (14, 14)];
        let mut b = stones(Rule::Freestyle, &black.concat(), &white, Color::White);
        assert_eq!(b.threat(Pos::new(7, 11), Color::Black), Threat::Block4Flex3);
        assert_eq!(generate_replies(&mut b, &mut moves), Situation::Open);
        let mut unique = moves.clone();
        unique.sort_by_key(|p| p.index());
        unique.dedup();
        assert_eq!(unique.len(), moves.len());
        assert_eq!(unique, move_values::candidate_points(&b));
    }

    #[test]
    fn with_no_defence_and_no_four_every_line_point_stays() {
        let mut moves = Vec::new();
        // Two open threes crossing at nothing Black needs: one block cannot stop both.
        let black = [(5, 7), (6, 7), (7, 7), (10, 3), (10, 4), (10, 5)];
        let white = [(0, 0), (14, 14), (0, 14), (14, 0), (0, 7)];
        let mut b = stones(Rule::Freestyle, &black, &white, Color::White);
        let situation = generate(&mut b, &mut moves);
        assert_eq!(
            situation,
            Situation::Forced {
                holding: moves.len()
            }
        );
        assert!(moves.contains(&Pos::new(4, 7)) && moves.contains(&Pos::new(10, 2)));
    }
}

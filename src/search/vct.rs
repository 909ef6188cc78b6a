//! Threat search with threes: VCT, victory by continuous threats, run at the root.
//!
//! The attacker plays fours, threes (moves after which it can make an unstoppable four)
//! and quieter moves that leave it a four-three point; the defender answers a four at its
//! one completion point, and a three or a four-three point with every move
//! [`ordering::generate_replies`] offers against it: the points on its lines that stop it,
//! the defender's own fours, and against a four-three point the defender's threes that
//! would make the four's block a four. A line counts as won when every defence loses. Each
//! attacking step first asks the [`Vcf`] whether fours alone already win.
//!
//! The search deepens one attacking move at a time, so the shortest win is found first
//! and a budget spent on a long line still leaves every shorter one tried, and it
//! remembers each position it has settled (won within n threats, or not within n), since
//! threat sequences reach the same position in many orders.
//!
//! [`ordering::generate_replies`]: super::ordering::generate_replies

use super::ordering::{self, Situation};
use super::params::{VCT_ATTACK_BREADTH, VCT_INNER_VCF_FOURS, VCT_INNER_VCF_NODES};
use super::vcf::{Budget, Vcf, VcfCache};
use crate::board::pattern::Threat;
use crate::board::{Board, Pos};
use crate::rules;
use std::collections::HashMap;

pub struct Vct<'a, 'b> {
    cache: &'a mut VcfCache,
    pub budget: Budget<'b>,
    /// Settled attacking positions by key.
    settled: HashMap<u64, Settled>,
}

/// What is known of an attacking position: a win within `won_within` threats (with its
/// first move), and no win within `lost_within`.
#[derive(Clone, Copy, Default)]
struct Settled {
    won_within: Option<(u32, Pos)>,
    lost_within: u32,
}

impl<'a, 'b> Vct<'a, 'b> {
    pub fn new(cache: &'a mut VcfCache, budget: Budget<'b>) -> Vct<'a, 'b> {
        Vct {
            cache,
            budget,
            settled: HashMap::new(),
        }
    }

    /// The first move of a win by threats within `max_threats` attacking moves.
    pub fn find(&mut self, board: &mut Board, max_threats: u32) -> Option<Pos> {
        for threats in 1..=max_threats {
            let mut first = None;
            if self.attack(board, threats, &mut first) {
                return first;
            }
            if self.budget.is_spent() {
                break;
            }
        }
        None
    }

    /// Whether the side to move wins by threats; `first` gets the winning move.
    fn attack(&mut self, board: &mut Board, depth: u32, first: &mut Option<Pos>) -> bool {
        let key = board.hash();
        let known = self.settled.get(&key).copied().unwrap_or_default();
        if let Some((within, pos)) = known.won_within
            && within <= depth
        {
            *first = Some(pos);
            return true;
        }
        if known.lost_within >= depth {
            return false;
        }
        let won = self.search_attack(board, depth, first);
        let entry = self.settled.entry(key).or_default();
        match *first {
            Some(pos) if won => entry.won_within = Some((depth, pos)),
            // A line cut short by the budget proves nothing.
            _ if !won && !self.budget.is_spent() => {
                entry.lost_within = entry.lost_within.max(depth)
            }
            _ => {}
        }
        won
    }

    fn search_attack(&mut self, board: &mut Board, depth: u32, first: &mut Option<Pos>) -> bool {
        let me = board.to_move();
        if let Some(five) = board.five_points(me).iter().next() {
            *first = Some(five);
            return true;
        }
        if depth == 0 || !self.budget.spend() {
            return false;
        }
        // Facing a four the attacker must block, and only a block that is itself a four
        // keeps the initiative: the VCF tries those.
        let facing_four = !board.five_points(me.opponent()).is_empty();
        if !facing_four && let Some(four) = ordering::has_winning_four(board, me) {
            *first = Some(four);
            return true;
        }
        let mut vcf = Vcf::new(self.cache, self.budget.nested(VCT_INNER_VCF_NODES));
        let win = vcf.find(board, VCT_INNER_VCF_FOURS);
        self.budget.absorb(&vcf.budget);
        if let Some(win) = win {
            *first = win.line.first().copied();
            return true;
        }
        if facing_four {
            return false;
        }
        for threat in self.threats(board) {
            board.play(threat);
            let won = self.defend(board, depth - 1);
            board.undo();
            if won {
                *first = Some(threat);
                return true;
            }
        }
        false
    }

    /// The attacker's legal fours and threes, strongest first, then the quieter moves
    /// that leave it a four-three point.
    fn threats(&self, board: &mut Board) -> Vec<Pos> {
        let me = board.to_move();
        let mut threats: Vec<(Threat, Pos)> = board
            .empty_near_stones()
            .iter()
            .map(|p| (board.threat(p, me), p))
            .filter(|&(t, _)| t >= Threat::Flex2x2)
            .collect();
        threats.sort_by_key(|&(t, p)| (std::cmp::Reverse(t), p));
        let mut legal = Vec::with_capacity(VCT_ATTACK_BREADTH);
        for (t, p) in threats {
            if legal.len() == VCT_ATTACK_BREADTH {
                break;
            }
            if t < Threat::Flex3 && !Self::makes_four_three(board, p) {
                continue;
            }
            if rules::is_legal(board, p, me) {
                legal.push(p);
            }
        }
        legal
    }

    /// Whether playing `pos` gives the side to move a four-three point.
    fn makes_four_three(board: &mut Board, pos: Pos) -> bool {
        let me = board.to_move();
        board.play(pos);
        let made = board.threat_count(me, Threat::Block4Flex3) > 0;
        board.undo();
        made
    }

    /// With the defender to move after a threat: whether every defence loses.
    fn defend(&mut self, board: &mut Board, depth: u32) -> bool {
        let mut defences = Vec::new();
        match ordering::generate_replies(board, &mut defences) {
            Situation::Lost => return true,
            Situation::Win(_) | Situation::Open => return false,
            Situation::Forced { .. } => {}
        }
        for defence in defences {
            board.play(defence);
            let mut ignored = None;
            let won = self.attack(board, depth, &mut ignored);
            board.undo();
            if !won {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::testing;
    use crate::board::{Cell, Color};
    use crate::rules::Rule;

    fn picture(rows: &[&str], to_move: Color) -> Board {
        testing::picture(Rule::Freestyle, rows, to_move)
    }

    fn vct(board: &mut Board) -> Option<Pos> {
        let mut cache = VcfCache::default();
        Vct::new(&mut cache, Budget::new(200_000, &|| false)).find(board, 6)
    }

    #[test]
    fn finds_a_double_three() {
        let mut board = picture(&testing::DOUBLE_THREE, Color::Black);
        assert_eq!(vct(&mut board), Some(Pos::new(6, 6)));
    }

    #[test]
    fn no_win_from_scattered_stones() {
        let mut board = picture(
            &[
                "...............",
                "..X.....X......",
                "...............",
                "....O...O......",
            ],
            Color::Black,
        );
        assert_eq!(vct(&mut board), None);
    }

    #[test]
    fn a_move_that_makes_a_four_three_point_is_a_threat() {
        // (6,5) makes a blocked three, after which (7,5) is a four on row 5 and a three
        // on column 7.
        let mut board = testing::stones(
            Rule::Freestyle,
            &[(4, 5), (5, 5), (7, 6), (7, 7), (10, 10), (11, 10)],
            &[(3, 5), (9, 10), (0, 14), (14, 14), (14, 0), (0, 0)],
            Color::Black,
        );
        let cache = &mut VcfCache::default();
        let threats = Vct::new(cache, Budget::new(1000, &|| false)).threats(&mut board);
        assert!(threats.contains(&Pos::new(6, 5)), "{threats:?}");
        // (12,10) makes a blocked three too, but its four would stand alone.
        assert_eq!(board.threat(Pos::new(12, 10), Color::Black), Threat::Block3);
        assert!(!threats.contains(&Pos::new(12, 10)), "{threats:?}");
    }

    #[test]
    fn wins_through_four_three_points_where_threes_alone_do_not() {
        // White to move in a game lost to pisq; Rapfi saw this win at 1 s/turn.
        let moves = "8,9 10,8 11,12 9,10 10,10 11,9 11,8 12,10 9,7 13,9 12,9 13,10 13,11 \
                     14,10 15,10 14,8 15,7";
        let mut board = Board::new(20, 20, Rule::Freestyle);
        for (x, y) in crate::analyze::parse_position(moves).expect("x,y moves") {
            board.play(Pos::new(x as usize, y as usize));
        }
        assert!(vct(&mut board).is_some());
    }

    #[test]
    fn an_open_three_of_the_defender_refutes_a_slower_threat() {
        // Black's double three at (6,6) would win, but White's open three becomes an
        // open four first.
        let mut board = picture(&testing::DOUBLE_THREE, Color::Black);
        for x in 9..12 {
            board.put(Pos::new(x, 11), Cell::Stone(Color::White));
        }
        assert_eq!(vct(&mut board), None);
    }
}

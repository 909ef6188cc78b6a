//! Threat search with threes: VCT, victory by continuous threats, run at the root.
//!
//! The attacker plays fours and threes (moves after which it can make an unstoppable
//! four); the defender answers a four at its one completion point and a three with every
//! move [`ordering::generate`] offers against it: the points on the three's lines and the
//! defender's own fours. A line counts as won when every defence loses. Each attacking
//! step first asks the [`Vcf`] whether fours alone already win.
//!
//! The search deepens one attacking move at a time, so the shortest win is found first
//! and a budget spent on a long line still leaves every shorter one tried, and it
//! remembers each position it has settled (won within n threats, or not within n), since
//! threat sequences reach the same position in many orders.
//!
//! [`ordering::generate`]: super::ordering::generate

use super::ordering::{self, Situation};
use super::vcf::{Budget, Vcf, VcfCache};
use crate::board::pattern::Threat;
use crate::board::{Board, Pos};
use crate::rules;
use std::collections::HashMap;

/// Threes and fours tried per attacking move, best first.
const ATTACK_BREADTH: usize = 12;
/// Fours each VCF inside the VCT may play, and its node budget.
const INNER_VCF_FOURS: u32 = 12;
const INNER_VCF_NODES: u64 = 500;

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
        let mut vcf = Vcf::new(self.cache, self.budget.nested(INNER_VCF_NODES));
        let win = vcf.find(board, INNER_VCF_FOURS);
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

    /// The attacker's legal fours and threes, strongest first.
    fn threats(&self, board: &mut Board) -> Vec<Pos> {
        let me = board.to_move();
        let mut threats: Vec<(Threat, Pos)> = board
            .empty_near_stones()
            .iter()
            .map(|p| (board.threat(p, me), p))
            .filter(|&(t, _)| t >= Threat::Flex3 && t != Threat::Forbidden)
            .collect();
        threats.sort_by_key(|&(t, p)| (std::cmp::Reverse(t), p));
        let mut legal = Vec::with_capacity(ATTACK_BREADTH);
        for (_, p) in threats {
            if legal.len() == ATTACK_BREADTH {
                break;
            }
            if rules::is_legal(board, p, me) {
                legal.push(p);
            }
        }
        legal
    }

    /// With the defender to move after a threat: whether every defence loses.
    fn defend(&mut self, board: &mut Board, depth: u32) -> bool {
        let mut defences = Vec::new();
        match ordering::generate(board, &mut defences) {
            Situation::Lost => return true,
            Situation::Win(_) | Situation::Open => return false,
            Situation::Forced => {}
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

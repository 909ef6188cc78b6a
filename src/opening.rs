//! Opening decisions that are not a single best move: the swap2 choices, and the
//! balancing moves of Yixin-Board's YXBALANCEONE and YXBALANCETWO.
//!
//! Each choice is made by searching the candidate positions (a few plies each, within
//! the turn's time): the opener looks for a balanced position, the chooser takes the
//! side that stands better, and proposes a balancing pair when neither does; a
//! balancing move is the one whose position searches closest to the score asked for.
//! The static evaluation only preselects which candidates are worth a search. Points
//! blocked by YXBLOCK are never proposed.

use crate::board::{Board, Pos};
use crate::eval;
use crate::move_values;
use crate::search::{Engine, Limits, Silent};
use std::sync::atomic::AtomicBool;

/// Scores within this margin of zero count as balanced.
const BALANCE_MARGIN: i32 = 300;
/// Candidate positions searched per decision, after the static preselection.
const SEARCHED_CANDIDATES: usize = 12;
/// Replies tried per side when looking for a balancing pair of stones in swap2.
const PAIR_BREADTH: usize = 6;
/// For YXBALANCETWO: first stones tried, and replies to each. The replies reach far
/// down the ranking: a balancing reply is often a modest one, which the six best of
/// swap2 leave out (with them, a renju opening stayed 400 from even).
const BALANCE_FIRST_STONES: usize = 8;
const BALANCE_REPLIES: usize = 40;
/// Depth of the search that scores one candidate position.
const CANDIDATE_DEPTH: u32 = 6;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap2Answer {
    /// Take the other colour.
    Swap,
    /// Stones to add, in move order.
    Stones(Vec<Pos>),
}

/// Searches candidate positions within `limits` (its deadline covers the whole
/// decision).
pub struct Swap2<'a> {
    engine: &'a mut Engine,
    /// For scoring candidate positions, where no point is blocked.
    limits: Limits,
    /// The points the caller blocked: no stone proposed takes one.
    blocked: Vec<Pos>,
    stop: &'a AtomicBool,
}

impl<'a> Swap2<'a> {
    pub fn new(engine: &'a mut Engine, limits: &Limits, stop: &'a AtomicBool) -> Swap2<'a> {
        let depth = limits
            .max_depth
            .unwrap_or(CANDIDATE_DEPTH)
            .min(CANDIDATE_DEPTH);
        Swap2 {
            engine,
            limits: Limits {
                max_depth: Some(depth),
                soft_deadline: None,
                blocked: Vec::new(),
                ..limits.clone()
            },
            blocked: limits.blocked.clone(),
            stop,
        }
    }

    /// The answer to a swap2 position of 0, 3 or 5 stones (the caller checks the count).
    pub fn answer(&mut self, board: &Board) -> Swap2Answer {
        let mut board = board.clone();
        match board.stone_count() {
            0 => Swap2Answer::Stones(self.balanced_opening(&mut board)),
            3 => self.choose_after_three(&mut board),
            _ => self.choose_after_five(&mut board),
        }
    }

    /// The side to move's stone that leaves the position closest to `bias` (YXBALANCEONE),
    /// or with `stones` 2 its stone and the opponent's reply (YXBALANCETWO). `bias` is
    /// the score wanted for the side to move now, after the stones, in the search's
    /// units. `None` when no legal point is free.
    pub fn balance(&mut self, board: &Board, stones: usize, bias: i32) -> Option<Vec<Pos>> {
        let mut board = board.clone();
        let candidates = if stones == 1 {
            self.own_moves(&mut board, usize::MAX)
                .into_iter()
                .map(|pos| vec![pos])
                .collect()
        } else {
            self.pairs(&mut board, BALANCE_FIRST_STONES, BALANCE_REPLIES)
        };
        self.most_balanced(&mut board, candidates, bias)
    }

    /// The side to move's searched best move, blocked points left out, and its score.
    fn best_own_move(&mut self, board: &Board) -> Option<(Pos, i32)> {
        let limits = Limits {
            blocked: self.blocked.clone(),
            ..self.limits.clone()
        };
        let moves = self
            .engine
            .best_moves(board, 1, &limits, self.stop, &mut Silent);
        moves.first().map(|m| (m.pos, m.score))
    }

    /// The searched score of the side to move.
    fn score(&mut self, board: &Board) -> i32 {
        let moves = self
            .engine
            .best_moves(board, 1, &self.limits, self.stop, &mut Silent);
        moves.first().map_or(0, |m| m.score)
    }

    /// Up to `count` legal moves of the side to move that are not blocked, best first by
    /// the move ordering; on an empty board every point, since then all look alike.
    fn own_moves(&self, board: &mut Board, count: usize) -> Vec<Pos> {
        let moves: Vec<Pos> = if board.stone_count() == 0 {
            board.empty_points().collect()
        } else {
            move_values::ranked_moves(board)
                .into_iter()
                .map(|(pos, _)| pos)
                .collect()
        };
        moves
            .into_iter()
            .filter(|p| !self.blocked.contains(p))
            .take(count)
            .collect()
    }

    /// The side to move's `firsts` best moves, each with the opponent's `replies` best
    /// replies.
    fn pairs(&self, board: &mut Board, firsts: usize, replies: usize) -> Vec<Vec<Pos>> {
        let mut pairs = Vec::new();
        for first in self.own_moves(board, firsts) {
            board.play(first);
            for second in self.own_moves(board, replies) {
                pairs.push(vec![first, second]);
            }
            board.undo();
        }
        pairs
    }

    /// Of `candidates` (stones to add), the one whose position searches closest to
    /// `bias` for the side that places the first stone, after preselecting the
    /// statically closest ones.
    fn most_balanced(
        &mut self,
        board: &mut Board,
        candidates: Vec<Vec<Pos>>,
        bias: i32,
    ) -> Option<Vec<Pos>> {
        let distance = |board: &mut Board, stones: &[Pos], score: &mut dyn FnMut(&Board) -> i32| {
            stones.iter().for_each(|&p| board.play(p));
            // The side to move after an odd number of stones is the placer's opponent.
            let sign = if stones.len().is_multiple_of(2) {
                1
            } else {
                -1
            };
            let value = (sign * score(board) - bias).abs();
            stones.iter().for_each(|_| {
                board.undo();
            });
            value
        };
        let mut preselected: Vec<(i32, Vec<Pos>)> = candidates
            .into_iter()
            .filter(|stones| stones.iter().all(|p| !self.blocked.contains(p)))
            .map(|stones| (distance(board, &stones, &mut eval::evaluate), stones))
            .collect();
        preselected.sort_by_key(|(value, _)| *value);
        preselected.truncate(SEARCHED_CANDIDATES);
        let mut searched = |b: &Board| self.score(b);
        preselected
            .into_iter()
            .map(|(_, stones)| (distance(board, &stones, &mut searched), stones))
            .min_by_key(|(value, _)| *value)
            .map(|(_, stones)| stones)
    }

    fn balanced_opening(&mut self, board: &mut Board) -> Vec<Pos> {
        let centre = board.centre();
        let mut candidates = Vec::new();
        for (wx, wy) in ring(1) {
            let Some(white) = board.offset(centre, wx, wy) else {
                continue;
            };
            for (bx, by) in ring(1).chain(ring(2)) {
                if let Some(black) = board.offset(centre, bx, by)
                    && black != white
                {
                    candidates.push(vec![centre, white, black]);
                }
            }
        }
        self.most_balanced(board, candidates, 0)
            .expect("a 5x5 board has room for an opening")
    }

    fn choose_after_three(&mut self, board: &mut Board) -> Swap2Answer {
        let Some((best, score)) = self.best_own_move(board) else {
            return Swap2Answer::Swap;
        };
        if score < -BALANCE_MARGIN {
            return Swap2Answer::Swap;
        }
        if score > BALANCE_MARGIN {
            return Swap2Answer::Stones(vec![best]);
        }
        let pairs = self.pairs(board, PAIR_BREADTH, PAIR_BREADTH);
        match self.most_balanced(board, pairs, 0) {
            Some(pair) => Swap2Answer::Stones(pair),
            None => Swap2Answer::Swap,
        }
    }

    fn choose_after_five(&mut self, board: &mut Board) -> Swap2Answer {
        match self.best_own_move(board) {
            Some((pos, score)) if score >= 0 => Swap2Answer::Stones(vec![pos]),
            _ => Swap2Answer::Swap,
        }
    }
}

/// Offsets at Chebyshev distance exactly `radius`.
fn ring(radius: i32) -> impl Iterator<Item = (i32, i32)> {
    (-radius..=radius)
        .flat_map(move |dy| (-radius..=radius).map(move |dx| (dx, dy)))
        .filter(move |&(dx, dy)| dx.abs().max(dy.abs()) == radius)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn board_with(moves: &[(usize, usize)]) -> Board {
        let mut board = Board::new(15, 15, Rule::Freestyle);
        for &(x, y) in moves {
            board.play(Pos::new(x, y));
        }
        board
    }

    fn test_limits() -> Limits {
        Limits {
            max_depth: Some(4),
            ..Limits::default()
        }
    }

    fn swap2(board: &Board) -> Swap2Answer {
        let mut engine = Engine::new(1 << 20);
        Swap2::new(&mut engine, &test_limits(), &AtomicBool::new(false)).answer(board)
    }

    #[test]
    fn opener_places_three_distinct_stones_near_the_centre() {
        let Swap2Answer::Stones(stones) = swap2(&board_with(&[])) else {
            panic!("expected stones");
        };
        assert_eq!(stones.len(), 3);
        assert_eq!(stones[0], Pos::new(7, 7));
        assert!(stones[1] != stones[2] && stones[1] != stones[0] && stones[2] != stones[0]);
    }

    #[test]
    fn chooser_swaps_into_a_strong_black_position() {
        // Black has an open three and White a lone stone far away.
        let board = board_with(&[(6, 7), (0, 0), (7, 7), (14, 14), (8, 7)]);
        assert_eq!(swap2(&board), Swap2Answer::Swap);
    }

    #[test]
    fn chooser_stays_white_when_white_stands_better() {
        let board = board_with(&[(0, 0), (6, 7), (14, 0), (7, 7), (0, 14)]);
        assert!(matches!(swap2(&board), Swap2Answer::Stones(s) if s.len() == 1));
    }

    /// White's searched score at the test depth.
    fn white_score(board: &Board) -> i32 {
        let mut engine = Engine::new(1 << 20);
        let moves = engine.best_moves(
            board,
            1,
            &test_limits(),
            &AtomicBool::new(false),
            &mut Silent,
        );
        moves[0].score
    }

    /// The score, for the side to move in `board`, after `stones` are played.
    fn placer_score(board: &Board, stones: &[Pos]) -> i32 {
        let mut after = board.clone();
        stones.iter().for_each(|&p| after.play(p));
        let sign = if stones.len().is_multiple_of(2) {
            1
        } else {
            -1
        };
        sign * white_score(&after)
    }

    fn balance(board: &Board, stones: usize, bias: i32, blocked: &[Pos]) -> Vec<Pos> {
        let mut engine = Engine::new(1 << 20);
        let limits = Limits {
            blocked: blocked.to_vec(),
            ..test_limits()
        };
        let stop = AtomicBool::new(false);
        let found = Swap2::new(&mut engine, &limits, &stop).balance(board, stones, bias);
        found.expect("room to balance")
    }

    #[test]
    fn balancing_stones_follow_the_bias_and_avoid_blocked_points() {
        let board = board_with(&[(7, 7), (8, 8), (7, 8)]);
        for stones in [1, 2] {
            let high = balance(&board, stones, 5000, &[]);
            let low = balance(&board, stones, -5000, &[]);
            assert_eq!(high.len(), stones);
            assert!(
                placer_score(&board, &high) > placer_score(&board, &low),
                "{high:?} {low:?}"
            );
            let even = balance(&board, stones, 0, &[]);
            let elsewhere = balance(&board, stones, 0, &even[..1]);
            assert!(!elsewhere.contains(&even[0]), "{even:?} {elsewhere:?}");
        }
    }

    #[test]
    fn chooser_after_three_swaps_plays_or_balances_by_the_searched_score() {
        // Black's two stones face a White stone in the corner: Black is far better.
        assert_eq!(
            swap2(&board_with(&[(7, 7), (0, 0), (8, 8)])),
            Swap2Answer::Swap
        );
        // White in the centre, Black in two corners: White plays on.
        let white_better = board_with(&[(0, 0), (7, 7), (14, 14)]);
        assert!(matches!(swap2(&white_better), Swap2Answer::Stones(s) if s.len() == 1));
        // Close to even: two stones that bring it closer still.
        let even = board_with(&[(7, 7), (7, 8), (11, 11)]);
        let Swap2Answer::Stones(pair) = swap2(&even) else {
            panic!("expected a pair");
        };
        let mut balanced = even.clone();
        pair.iter().for_each(|&p| balanced.play(p));
        assert!(white_score(&balanced).abs() <= white_score(&even).abs());
    }
}

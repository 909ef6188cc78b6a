//! Opening decisions that are not a single move: the swap2 choices.
//!
//! Each choice is made by searching the candidate positions (a few plies each, within
//! the turn's time): the opener looks for a balanced position, the chooser takes the
//! side that stands better, and proposes a balancing pair when neither does. The
//! static evaluation only preselects which candidates are worth a search.

use crate::board::{Board, Color, Pos};
use crate::eval;
use crate::move_values;
use crate::search::{Engine, Limits, Silent};
use std::sync::atomic::AtomicBool;

/// Scores within this margin of zero count as balanced.
const BALANCE_MARGIN: i32 = 300;
/// Candidate positions searched per decision, after the static preselection.
const SEARCHED_CANDIDATES: usize = 12;
/// Replies tried per side when looking for a balancing pair of stones.
const PAIR_BREADTH: usize = 6;
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
    limits: Limits,
    stop: &'a AtomicBool,
}

impl<'a> Swap2<'a> {
    pub fn new(engine: &'a mut Engine, limits: &Limits, stop: &'a AtomicBool) -> Swap2<'a> {
        let depth = limits
            .max_depth
            .unwrap_or(CANDIDATE_DEPTH)
            .min(CANDIDATE_DEPTH);
        let limits = Limits {
            max_depth: Some(depth),
            soft_deadline: None,
            ..limits.clone()
        };
        Swap2 {
            engine,
            limits,
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

    /// White's best move and its searched score (White is to move after 3 and 5 stones).
    fn search(&mut self, board: &Board) -> Option<(Pos, i32)> {
        debug_assert_eq!(board.to_move(), Color::White);
        let moves = self
            .engine
            .best_moves(board, 1, &self.limits, self.stop, &mut Silent);
        moves.first().map(|m| (m.pos, m.score))
    }

    /// Of `candidates` (stones to add), the one whose position searches closest to
    /// even, after preselecting the statically most even ones.
    fn most_balanced(&mut self, board: &mut Board, candidates: Vec<Vec<Pos>>) -> Option<Vec<Pos>> {
        let imbalance =
            |board: &mut Board, stones: &[Pos], score: &mut dyn FnMut(&Board) -> i32| {
                stones.iter().for_each(|&p| board.play(p));
                let value = score(board).abs();
                stones.iter().for_each(|_| {
                    board.undo();
                });
                value
            };
        let mut preselected: Vec<(i32, Vec<Pos>)> = candidates
            .into_iter()
            .map(|stones| (imbalance(board, &stones, &mut eval::evaluate), stones))
            .collect();
        preselected.sort_by_key(|(value, _)| *value);
        preselected.truncate(SEARCHED_CANDIDATES);
        let mut searched = |b: &Board| self.search(b).map_or(0, |(_, score)| score);
        preselected
            .into_iter()
            .map(|(_, stones)| (imbalance(board, &stones, &mut searched), stones))
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
        self.most_balanced(board, candidates)
            .expect("a 5x5 board has room for an opening")
    }

    fn choose_after_three(&mut self, board: &mut Board) -> Swap2Answer {
        let Some((best, score)) = self.search(board) else {
            return Swap2Answer::Swap;
        };
        if score < -BALANCE_MARGIN {
            return Swap2Answer::Swap;
        }
        if score > BALANCE_MARGIN {
            return Swap2Answer::Stones(vec![best]);
        }
        let mut pairs = Vec::new();
        for (white, _) in move_values::ranked_moves(board)
            .into_iter()
            .take(PAIR_BREADTH)
        {
            board.play(white);
            for (black, _) in move_values::ranked_moves(board)
                .into_iter()
                .take(PAIR_BREADTH)
            {
                pairs.push(vec![white, black]);
            }
            board.undo();
        }
        match self.most_balanced(board, pairs) {
            Some(pair) => Swap2Answer::Stones(pair),
            None => Swap2Answer::Swap,
        }
    }

    fn choose_after_five(&mut self, board: &mut Board) -> Swap2Answer {
        match self.search(board) {
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

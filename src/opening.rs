//! Opening decisions that are not a single move: the swap2 choices.
//!
//! Each choice is made by evaluating the candidate positions with [`eval::evaluate`]:
//! the opener looks for a balanced position, the chooser takes the side that stands
//! better, and proposes a balancing pair when neither does.

use crate::board::{Board, Color, Pos};
use crate::eval;

/// Evaluations within this margin of zero count as balanced.
const BALANCE_MARGIN: i32 = 300;
/// Replies tried per side when looking for a balancing pair of stones.
const PAIR_BREADTH: usize = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap2Answer {
    /// Take the other colour.
    Swap,
    /// Stones to add, in move order.
    Stones(Vec<Pos>),
}

/// The answer to a swap2 position of 0, 3 or 5 stones (the caller checks the count).
pub fn swap2(board: &Board) -> Swap2Answer {
    let mut board = board.clone();
    match board.stone_count() {
        0 => Swap2Answer::Stones(balanced_opening(&mut board)),
        3 => choose_after_three(&mut board),
        _ => choose_after_five(&mut board),
    }
}

/// Evaluation for White, who is to move after 3 and 5 stones.
fn white_view(board: &mut Board) -> i32 {
    debug_assert_eq!(board.to_move(), Color::White);
    eval::evaluate(board)
}

fn balanced_opening(board: &mut Board) -> Vec<Pos> {
    let centre = board.centre();
    board.play(centre);
    let mut best: Option<(i32, Vec<Pos>)> = None;
    for (wx, wy) in ring(1) {
        let Some(white) = board.offset(centre, wx, wy) else {
            continue;
        };
        board.play(white);
        for (bx, by) in ring(1).chain(ring(2)) {
            let Some(black) = board.offset(centre, bx, by) else {
                continue;
            };
            if !board.is_empty(black) {
                continue;
            }
            board.play(black);
            let imbalance = white_view(board).abs();
            board.undo();
            if best.as_ref().is_none_or(|(b, _)| imbalance < *b) {
                best = Some((imbalance, vec![centre, white, black]));
            }
        }
        board.undo();
    }
    best.expect("a 5x5 board has room for an opening").1
}

/// Offsets at Chebyshev distance exactly `radius`.
fn ring(radius: i32) -> impl Iterator<Item = (i32, i32)> {
    (-radius..=radius)
        .flat_map(move |dy| (-radius..=radius).map(move |dx| (dx, dy)))
        .filter(move |&(dx, dy)| dx.abs().max(dy.abs()) == radius)
}

fn best_move(board: &mut Board) -> Option<Pos> {
    eval::best_static_move(board).map(|(pos, _)| pos)
}

fn choose_after_three(board: &mut Board) -> Swap2Answer {
    let score = white_view(board);
    if score < -BALANCE_MARGIN {
        return Swap2Answer::Swap;
    }
    if score > BALANCE_MARGIN {
        return Swap2Answer::Stones(best_move(board).into_iter().collect());
    }
    let mut best: Option<(i32, Vec<Pos>)> = None;
    for (white, _) in eval::ranked_moves(board).into_iter().take(PAIR_BREADTH) {
        board.play(white);
        for (black, _) in eval::ranked_moves(board).into_iter().take(PAIR_BREADTH) {
            board.play(black);
            let imbalance = white_view(board).abs();
            board.undo();
            if best.as_ref().is_none_or(|(b, _)| imbalance < *b) {
                best = Some((imbalance, vec![white, black]));
            }
        }
        board.undo();
    }
    match best {
        Some((_, pair)) => Swap2Answer::Stones(pair),
        None => Swap2Answer::Swap,
    }
}

fn choose_after_five(board: &mut Board) -> Swap2Answer {
    match best_move(board) {
        Some(pos) if white_view(board) >= 0 => Swap2Answer::Stones(vec![pos]),
        _ => Swap2Answer::Swap,
    }
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
}

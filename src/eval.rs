//! Pattern codes → scores. Reads the board, never changes it.
//!
//! A point's *threat value* for one side combines its four line patterns: a five, an
//! unstoppable four (straight four or two fours), a four-three and a double three are
//! classes of their own; below that the per-line weights add up.

use crate::board::pattern::Pattern;
use crate::board::{Board, Color, Pos};
use crate::rules::{self, Rule};

pub const WIN_VALUE: i32 = 1_000_000;
const OPEN_FOUR_VALUE: i32 = 100_000;
const FOUR_THREE_VALUE: i32 = 40_000;
const DOUBLE_THREE_VALUE: i32 = 15_000;

/// Weight of one line pattern, indexed by `Pattern as usize`.
const LINE_WEIGHTS: [i32; 12] = [
    0,    // None
    0,    // Overline
    2,    // Block1
    12,   // Flex1
    30,   // Block2
    150,  // Flex2
    120,  // Block3
    1200, // Flex3
    900,  // Block4
    OPEN_FOUR_VALUE,
    OPEN_FOUR_VALUE,
    WIN_VALUE,
];

/// What playing `pos` is worth to the side whose patterns these are.
pub fn threat_value(patterns: [Pattern; 4]) -> i32 {
    let fours: u32 = patterns.iter().map(|p| p.four_count()).sum();
    let flex_threes = patterns.iter().filter(|&&p| p == Pattern::Flex3).count();
    let lines: i32 = patterns.iter().map(|&p| LINE_WEIGHTS[p as usize]).sum();
    let class = if patterns.contains(&Pattern::Five) {
        WIN_VALUE
    } else if fours >= 2 {
        OPEN_FOUR_VALUE
    } else if fours == 1 && flex_threes >= 1 {
        FOUR_THREE_VALUE
    } else if flex_threes >= 2 {
        DOUBLE_THREE_VALUE
    } else {
        0
    };
    class.max(lines)
}

/// Threat value of `pos` for `color`, zero where Black may not play under renju.
pub fn point_value(board: &mut Board, pos: Pos, color: Color) -> i32 {
    let value = threat_value(board.patterns(pos, color));
    let may_play = color == Color::White
        || board.rule() != Rule::Renju
        || value < LINE_WEIGHTS[Pattern::Flex3 as usize]
        || !rules::is_forbidden(board, pos);
    if may_play { value } else { 0 }
}

/// Points worth considering: empty points within two of a stone, or the centre of an
/// empty board.
pub fn candidate_points(board: &Board) -> Vec<Pos> {
    if board
        .history()
        .iter()
        .all(|m| m.cell == crate::board::Cell::Wall)
    {
        let centre = board.centre();
        if board.is_empty(centre) {
            return vec![centre];
        }
    }
    let near: Vec<Pos> = board
        .empty_points()
        .filter(|&p| board.has_neighbour(p, 2))
        .collect();
    if near.is_empty() {
        board.empty_points().collect()
    } else {
        near
    }
}

/// Value of playing `pos` now for the side to move: its own threat plus most of the
/// opponent's threat it takes away.
pub fn move_value(board: &mut Board, pos: Pos) -> i32 {
    let me = board.to_move();
    let attack = point_value(board, pos, me);
    let defence = point_value(board, pos, me.opponent());
    attack + defence * 3 / 4
}

/// Every legal point by [`move_value`], best first; ties keep board order. Falls back to
/// any legal point when no candidate is legal.
pub fn ranked_moves(board: &mut Board) -> Vec<(Pos, i32)> {
    let me = board.to_move();
    let mut ranked = Vec::new();
    for pos in candidate_points(board) {
        if rules::is_legal(board, pos, me) {
            ranked.push((pos, move_value(board, pos)));
        }
    }
    if ranked.is_empty() {
        let empties: Vec<Pos> = board.empty_points().collect();
        ranked.extend(
            empties
                .into_iter()
                .find(|&p| rules::is_legal(board, p, me))
                .map(|p| (p, 0)),
        );
    }
    ranked.sort_by_key(|&(_, value)| std::cmp::Reverse(value));
    ranked
}

pub fn best_static_move(board: &mut Board) -> Option<(Pos, i32)> {
    ranked_moves(board).first().copied()
}

/// A static score of the position for the side to move: the best threat it can make
/// against the best the opponent could make, plus the sum of smaller threats. A whole-
/// board loop; used for opening decisions, not inside the search.
pub fn evaluate(board: &mut Board) -> i32 {
    let me = board.to_move();
    let mut totals = [0i64; 2];
    let mut best = [0i32; 2];
    for pos in candidate_points(board) {
        for (side, color) in [me, me.opponent()].into_iter().enumerate() {
            let value = point_value(board, pos, color);
            totals[side] += value.min(OPEN_FOUR_VALUE) as i64;
            best[side] = best[side].max(value);
        }
    }
    // The side to move realises its best threat first.
    if best[0] >= WIN_VALUE {
        return WIN_VALUE;
    }
    if best[1] >= WIN_VALUE {
        return -(OPEN_FOUR_VALUE);
    }
    let spread = (totals[0] - totals[1] * 9 / 10) / 8;
    (best[0] - best[1] * 3 / 4).saturating_add(spread.clamp(-50_000, 50_000) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Cell;

    fn board(
        rule: Rule,
        black: &[(usize, usize)],
        white: &[(usize, usize)],
        to_move: Color,
    ) -> Board {
        let mut board = Board::new(15, 15, rule);
        for &(x, y) in black {
            board.put(Pos::new(x, y), Cell::Stone(Color::Black));
        }
        for &(x, y) in white {
            board.put(Pos::new(x, y), Cell::Stone(Color::White));
        }
        board.set_to_move(to_move);
        board
    }

    #[test]
    fn empty_board_gets_the_centre() {
        let mut b = Board::new(15, 15, Rule::Freestyle);
        assert_eq!(best_static_move(&mut b).unwrap().0, Pos::new(7, 7));
        let mut r = Board::new(20, 13, Rule::Freestyle);
        assert_eq!(best_static_move(&mut r).unwrap().0, Pos::new(10, 6));
    }

    #[test]
    fn wins_before_blocking_and_blocks_before_building() {
        let black = [(3, 3), (4, 3), (5, 3), (6, 3)];
        let white = [(3, 8), (4, 8), (5, 8), (6, 8)];
        let mut b = board(Rule::Freestyle, &black, &white, Color::White);
        let (pos, _) = best_static_move(&mut b).unwrap();
        assert!(
            pos == Pos::new(2, 8) || pos == Pos::new(7, 8),
            "win, got {pos}"
        );
        let mut b = board(Rule::Freestyle, &black, &white[..3], Color::White);
        let (pos, _) = best_static_move(&mut b).unwrap();
        assert!(
            pos == Pos::new(2, 3) || pos == Pos::new(7, 3),
            "block, got {pos}"
        );
    }

    #[test]
    fn blocks_an_open_three() {
        let mut b = board(
            Rule::Freestyle,
            &[(5, 5), (6, 5), (7, 5)],
            &[(5, 6), (9, 9)],
            Color::White,
        );
        let (pos, _) = best_static_move(&mut b).unwrap();
        assert!([4, 8, 3, 9].contains(&pos.x()) && pos.y() == 5, "got {pos}");
    }

    #[test]
    fn black_never_plays_a_foul_even_to_block() {
        // White's only five point (5,3) would be an overline for Black.
        let black = [(1, 3), (2, 3), (3, 3), (4, 3), (6, 3), (5, 8)];
        let white = [(0, 3), (5, 4), (5, 5), (5, 6), (5, 7)];
        let mut b = board(Rule::Renju, &black, &white, Color::Black);
        assert!(rules::is_forbidden(&mut b, Pos::new(5, 3)));
        let (pos, _) = best_static_move(&mut b).unwrap();
        assert_ne!(pos, Pos::new(5, 3));
        b.set_to_move(Color::White);
        assert_eq!(best_static_move(&mut b).unwrap().0, Pos::new(5, 3));
    }

    #[test]
    fn evaluation_favours_the_side_with_threats() {
        let mut b = board(
            Rule::Freestyle,
            &[(5, 5), (6, 5), (7, 5)],
            &[(5, 6)],
            Color::Black,
        );
        assert!(evaluate(&mut b) > 1000);
        b.set_to_move(Color::White);
        assert!(evaluate(&mut b) < 0);
    }
}

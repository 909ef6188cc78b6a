//! Boards for tests, drawn or listed.

use super::Rule;
use super::{Board, Cell, Color, Pos};

/// Black to move can make two open threes at (6,6): a win that needs threes, not fours.
pub const DOUBLE_THREE: [&str; 10] = [
    "...............",
    "...............",
    "...............",
    "...............",
    "......X........",
    "......X........",
    "....XX.........",
    "...............",
    "O.............O",
    "..............O",
];

/// A 15×15 board from a picture: `X` black, `O` white, anything else empty, rows from
/// the top; `to_move` plays next.
pub fn picture(rule: Rule, rows: &[&str], to_move: Color) -> Board {
    picture_of_size(15, rule, rows, to_move)
}

/// As [`picture`], on a `size`×`size` board.
pub fn picture_of_size(size: usize, rule: Rule, rows: &[&str], to_move: Color) -> Board {
    let mut black = Vec::new();
    let mut white = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            match c {
                'X' => black.push((x, y)),
                'O' => white.push((x, y)),
                _ => {}
            }
        }
    }
    with_stones(Board::new(size, size, rule), &black, &white, to_move)
}

/// A 15×15 board with these black and white stones; `to_move` plays next.
pub fn stones(
    rule: Rule,
    black: &[(usize, usize)],
    white: &[(usize, usize)],
    to_move: Color,
) -> Board {
    with_stones(Board::new(15, 15, rule), black, white, to_move)
}

fn with_stones(
    mut board: Board,
    black: &[(usize, usize)],
    white: &[(usize, usize)],
    to_move: Color,
) -> Board {
    for (points, color) in [(black, Color::Black), (white, Color::White)] {
        for &(x, y) in points {
            board.put(Pos::new(x, y), Cell::Stone(color));
        }
    }
    board.set_to_move(to_move);
    board
}

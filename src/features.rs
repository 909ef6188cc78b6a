//! Line features for the learned evaluation (`docs/learned-eval.md`): what a codebook is
//! indexed by at a point, in one direction, for one side.
//!
//! The board keeps a key for every point and direction: the ten cells around it, two
//! bits each. A codebook over those keys would have a million rows a direction; the
//! feature keeps the four cells each side, seen from one side's view (its stone, the
//! opponent's or the edge, empty: a wall blocks like an opponent stone), which leaves
//! 3^8 = 6 561 lines, and names a line and its mirror image alike, since a point's
//! value does not depend on which way a line is read: [`FEATURES`] classes.

use crate::board::Color;
use crate::board::pattern::{CODE_BLACK, CODE_EMPTY, CODE_WHITE, key_shift};
use std::sync::OnceLock;

/// Cells each side of the point that a feature sees.
pub const REACH: i32 = 4;
/// Lines of `2 * REACH` cells, three states each.
const LINES: usize = 3usize.pow(2 * REACH as u32);

/// A line's cells from one side's view, nearest first on each side: 0 empty, 1 own, 2
/// opponent or edge.
fn cells(key: u32, me: Color) -> [[u8; REACH as usize]; 2] {
    let own = if me == Color::Black {
        CODE_BLACK
    } else {
        CODE_WHITE
    };
    let state = |offset: i32| match (key >> key_shift(offset)) & 3 {
        CODE_EMPTY => 0,
        code if code == own => 1,
        _ => 2,
    };
    std::array::from_fn(|side| {
        let sign = if side == 0 { -1 } else { 1 };
        std::array::from_fn(|i| state(sign * (i as i32 + 1)))
    })
}

/// The base-3 number of a line read from one end: the far cells of side 0 first.
fn line_number(sides: &[[u8; REACH as usize]; 2]) -> usize {
    let mut number = 0;
    for &c in sides[0].iter().rev().chain(sides[1].iter()) {
        number = number * 3 + usize::from(c);
    }
    number
}

/// Each line number's class: a line and its mirror image share one, numbered densely.
fn classes() -> &'static (Vec<u16>, usize) {
    static CLASSES: OnceLock<(Vec<u16>, usize)> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let mut class = vec![u16::MAX; LINES];
        let mut next = 0u16;
        for number in 0..LINES {
            if class[number] != u16::MAX {
                continue;
            }
            // The cells of `number`, then the same line read from the other end.
            let mut digits = [0u8; 2 * REACH as usize];
            let mut rest = number;
            for d in digits.iter_mut().rev() {
                *d = (rest % 3) as u8;
                rest /= 3;
            }
            let mirror = digits.iter().rev().fold(0, |n, &d| n * 3 + usize::from(d));
            class[number] = next;
            class[mirror] = next;
            next += 1;
        }
        (class, usize::from(next))
    })
}

/// The feature class of a line key for side `me`.
pub fn line_feature(key: u32, me: Color) -> u16 {
    classes().0[line_number(&cells(key, me))]
}

/// Bits of the cells a feature sees: those at distances 1..=[`REACH`] of a line key.
const NEAR_BITS: u32 = 4 * REACH as u32;

/// The cells of `key` at distances 1..=[`REACH`], side 0 in the low half.
fn near_cells(key: u32) -> usize {
    let half = (1 << (NEAR_BITS / 2)) - 1;
    (((key >> key_shift(-REACH)) & half) | (((key >> key_shift(1)) & half) << (NEAR_BITS / 2)))
        as usize
}

/// [`line_feature`] for Black and for White, by one look-up: the network's hot path.
/// A table over the cells a feature sees (65 536 pairs, 256 KiB).
pub fn features(key: u32) -> [u16; 2] {
    static TABLE: OnceLock<Vec<[u16; 2]>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let half = (1 << (NEAR_BITS / 2)) - 1;
        (0..1u32 << NEAR_BITS)
            .map(|near| {
                let key = ((near & half) << key_shift(-REACH))
                    | ((near >> (NEAR_BITS / 2)) << key_shift(1));
                [Color::Black, Color::White].map(|me| line_feature(key, me))
            })
            .collect()
    });
    table[near_cells(key)]
}

/// How many feature classes there are (a codebook's rows per direction): 3 321, as 6 561
/// lines pair up with their mirror images but for the 81 that are their own.
pub const FEATURES: usize = (LINES + 3usize.pow(REACH as u32)) / 2;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::testing::picture;
    use crate::board::{Pos, Rule};

    /// The feature in direction 0 at (x, 0) of the one-row picture `row`, for `me`.
    fn feature_in_row(row: &str, x: usize, me: Color) -> u16 {
        let board = picture(Rule::Freestyle, &[row], Color::Black);
        line_feature(board.line_key(Pos::new(x, 0), 0), me)
    }

    #[test]
    fn the_table_agrees_with_the_definition_on_every_key_of_a_game() {
        let mut board = crate::board::Board::new(9, 9, Rule::Freestyle);
        let mut rng = 0x9e37_79b9_u64;
        let mut checked = 0;
        while !board.is_full() {
            for pos in board.points() {
                for d in 0..4 {
                    let key = board.line_key(pos, d);
                    for me in [Color::Black, Color::White] {
                        assert_eq!(features(key)[me.index()], line_feature(key, me));
                        checked += 1;
                    }
                }
            }
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let empty: Vec<Pos> = board.empty_points().collect();
            board.play(empty[(rng >> 33) as usize % empty.len()]);
        }
        assert_eq!(checked, 81 * 81 * 4 * 2);
    }

    #[test]
    fn classes_are_dense_and_mirror_images_share_one() {
        assert_eq!(classes().1, FEATURES);
        let black = |row, x| feature_in_row(row, x, Color::Black);
        // Around (6,0) and (4,0): the same line read the other way.
        assert_eq!(black("....XX.O.......", 6), black("...O.XX........", 4));
        assert_ne!(
            black("....XX.O.......", 6),
            feature_in_row("....XX.O.......", 6, Color::White)
        );
        assert_ne!(black("....XX.O.......", 6), black("....XX.O.......", 8));
    }

    #[test]
    fn a_side_sees_its_own_stones_as_the_other_sees_the_other_s() {
        for x in 0..15 {
            assert_eq!(
                feature_in_row("..XX.O.X.......", x, Color::Black),
                feature_in_row("..OO.X.O.......", x, Color::White)
            );
        }
    }

    #[test]
    fn the_edge_blocks_like_an_opponent_stone_and_far_cells_are_not_seen() {
        let black = |row, x| feature_in_row(row, x, Color::Black);
        assert_eq!(black("XX.............", 2), black("OXX............", 3));
        assert_eq!(black("......X........", 5), black("......X....X...", 5));
        assert_ne!(black("......X........", 5), black("......X........", 4));
    }
}

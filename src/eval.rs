//! Threats → scores. Reads the board, never changes it.
//!
//! The board keeps, per colour, how many empty points give each [`Threat`]; the position
//! score is a weighted difference of those counts from the side to move's view, so an
//! evaluation costs two short dot products, never a loop over the board.

use crate::board::Board;
use crate::board::pattern::{THREAT_KINDS, Threat};

/// How much each threat point is worth, indexed by `Threat as usize`, for the side to
/// move (`own`) and against it (`opponent`), plus a bonus for having the move, and an
/// `initiative` term by the two sides' [`initiative`] sets (side to move first): which
/// kinds of threat each side holds at all decide who keeps the initiative, which a sum
/// over points cannot express. `tune` fits these to game results.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    pub own: [i32; THREAT_KINDS],
    pub opponent: [i32; THREAT_KINDS],
    pub tempo: i32,
    pub initiative: [[i32; INITIATIVE_SETS]; INITIATIVE_SETS],
}

/// Static score of the position for the side to move.
pub fn evaluate(board: &Board) -> i32 {
    let me = board.to_move();
    WEIGHTS.score(board.threat_counts(me), board.threat_counts(me.opponent()))
}

/// Groups of threats that [`initiative`] looks for, one bit each: an unstoppable four,
/// a four with more (a three or a lesser line beside it), a plain four, two threes or a
/// three with more, an open three.
const INITIATIVE_GROUPS: [&[Threat]; 5] = [
    &[Threat::Flex4],
    &[Threat::Block4Flex3, Threat::Block4Plus],
    &[Threat::Block4],
    &[Threat::Flex3x2, Threat::Flex3Plus],
    &[Threat::Flex3],
];
pub const INITIATIVE_SETS: usize = 1 << INITIATIVE_GROUPS.len();

/// Which of the `INITIATIVE_GROUPS` a side holds, as a bit set, from its threat counts.
pub fn initiative(counts: &[u16; THREAT_KINDS]) -> usize {
    INITIATIVE_GROUPS
        .iter()
        .enumerate()
        .filter(|(_, group)| group.iter().any(|&t| counts[t as usize] > 0))
        .map(|(bit, _)| 1 << bit)
        .sum()
}

/// The threat weights were fitted by `tune` to 88 342 quiet positions, the tempo and the
/// initiative table by `tune --initiative` to 297 233. The renju forbidden-point
/// weights are half the fitted ones: as fitted, one forbidden point swung the score by
/// some 4 000 between Black's turn and White's. How each was judged, and what was tried
/// instead, is in `docs/experiments.md`.
/// Threat order: None, Forbidden, One, Block2, Flex2, Flex2x2, Block3, Block3Plus,
/// Flex3, Flex3Plus, Block4, Block4Plus, Flex3x2, Block4Flex3, Flex4, Five.
pub const WEIGHTS: Weights = Weights {
    own: [
        0, -1087, -5, 2, 0, 22, 12, 97, 66, 159, 111, 382, 229, 4173, 400, 800,
    ],
    opponent: [
        0, -906, -5, -2, 0, 14, 20, 70, 35, 104, 140, 316, 32, 733, 448, 800,
    ],
    tempo: 128,
    initiative: [
        [
            0, 0, 193, -17, -74, 604, 399, 692, 53, 0, 17, -13, -224, -24, -229, 31, -147, 0, -83,
            66, 262, 608, 479, 635, -105, 0, 64, -81, -33, 400, -16, 408,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -158, 0, -52, 0, 43, 31, 230, 3, 70, 0, 0, 0, -113, 10, -33, -51, -39, 0, 62, -21, 24,
            103, -24, -30, -247, 0, -83, 74, 52, -252, -315, -115,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -76, 0, 107, 5, 134, 398, -31, 204, -227, 0, -3, 29, 26, 80, -13, -46, 237, 0, -1, 61,
            15, 432, 98, 210, -361, 0, -309, 341, -328, -70, -326, -158,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -290, 0, 63, 142, -12, 313, -133, 478, -123, 0, -170, 78, -109, -250, -81, 19, -284, 0,
            22, -179, -314, 214, 10, 280, -401, 0, -47, 197, -356, -139, -238, -50,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            298, 0, 31, 37, 244, 524, 86, 177, 127, 0, 10, -44, 46, -42, 124, -48, 63, 0, 70, 0,
            115, 185, 132, 130, 393, 0, 12, -56, 83, -177, 215, -537,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            5, 0, 29, 0, 0, 0, 52, 77, 1, 0, 0, 0, 9, -61, -130, 48, -37, 0, 0, 0, 0, 0, 97, 27,
            297, 0, 112, 211, -28, -249, -57, -75,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            79, 0, 39, 41, 103, 255, 384, 263, 57, 0, 80, 0, 75, -5, 90, -61, 43, 0, 73, 0, 31,
            -43, 221, 221, -76, 0, 338, -12, 157, -313, 286, -216,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -117, 0, 20, 1, -19, -52, 188, 84, 87, 0, 66, 33, 26, -44, 198, -20, -15, 0, 97, 87, 4,
            -70, 120, 27, 678, 0, 514, 633, 471, -141, 300, 337,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -104, 0, 120, 175, 351, 451, 400, 714, -158, 0, -11, 0, -52, 38, -10, 20, 361, 0, 57,
            27, 137, 281, 283, 478, -266, 0, 114, 92, -137, 148, -165, 290,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -159, 0, -35, 0, -40, 99, 53, 80, 39, 0, 0, -30, 17, 0, -33, -55, 35, 0, 0, 0, -114,
            -2, 28, -12, -265, 0, 52, 16, -208, -309, -50, 29,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -254, 0, -55, -28, 154, 101, 215, 627, 26, 0, -35, -12, -79, 0, -177, -20, -112, 0,
            -84, -17, -17, 400, 245, 434, -257, 0, -119, 71, -118, 0, -42, 0,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -278, 0, 94, 45, 19, 377, 101, 434, -57, 0, -173, -22, -278, 34, -77, 220, -236, 0,
            -205, 9, -103, 71, 12, 146, -398, 0, 100, 617, -273, -21, -40, 333,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -134, 0, 259, 236, 486, 908, 587, 587, 165, 0, 192, -121, 95, 168, 390, -412, 57, 0,
            269, 237, 382, 440, 423, 159, 98, 0, 320, -690, 322, -86, 115, -819,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -160, 0, 24, 65, 75, 161, 37, -29, 55, 0, 29, -14, 49, -194, -178, -561, -5, 0, 34, 65,
            -3, 106, -152, -412, 632, 0, 361, 920, 422, -561, -78, -221,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -95, 0, 61, 263, 287, 705, 456, 552, -22, 0, 226, -68, 326, -330, 235, -176, 181, 0,
            234, 313, 160, 434, 336, 262, 164, 0, 442, 166, 294, -327, 225, -353,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
        [
            -282, 0, 191, 74, 320, 775, 450, 226, 53, 0, 166, 53, 201, -409, 212, -125, -243, 0,
            181, 118, -32, 374, 186, 45, 453, 0, 599, 1025, 457, -257, 207, 38,
        ],
        [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0,
        ],
    ],
};

impl Weights {
    /// The score for the side to move, given its threat counts and its opponent's.
    pub fn score(&self, own: &[u16; THREAT_KINDS], opponent: &[u16; THREAT_KINDS]) -> i32 {
        let dot = |weights: &[i32; THREAT_KINDS], counts: &[u16; THREAT_KINDS]| -> i32 {
            weights
                .iter()
                .zip(counts)
                .map(|(&w, &c)| w * c as i32)
                .sum()
        };
        dot(&self.own, own) - dot(&self.opponent, opponent)
            + self.tempo
            + self.initiative[initiative(own)][initiative(opponent)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::board::testing::stones;
    use crate::rules::Rule;

    #[test]
    fn initiative_sets_a_bit_per_group_of_threats_held() {
        let mut counts = [0; THREAT_KINDS];
        counts[Threat::Block3Plus as usize] = 5;
        assert_eq!(initiative(&counts), 0);
        counts[Threat::Flex3 as usize] = 2;
        assert_eq!(initiative(&counts), 0b10000);
        counts[Threat::Block4Plus as usize] = 1;
        assert_eq!(initiative(&counts), 0b10010);
        counts[Threat::Block4Flex3 as usize] = 1;
        counts[Threat::Flex4 as usize] = 1;
        assert_eq!(initiative(&counts), 0b10011);
    }

    #[test]
    fn evaluation_favours_the_side_with_threats() {
        let mut b = stones(
            Rule::Freestyle,
            &[(5, 5), (6, 5), (7, 5)],
            &[(5, 6)],
            Color::Black,
        );
        assert!(evaluate(&b) > 1000);
        b.set_to_move(Color::White);
        assert!(evaluate(&b) < 0);
    }
}

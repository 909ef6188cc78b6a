//! Threats → scores. Reads the board, never changes it.
//!
//! The board keeps, per colour, how many empty points give each [`Threat`]; the position
//! score is a weighted difference of those counts from the side to move's view, so an
//! evaluation costs two short dot products, never a loop over the board.

use crate::board::pattern::THREAT_KINDS;
use crate::board::{Board, Pos};
use crate::rules;

/// How much each threat point is worth, indexed by `Threat as usize`, for the side to
/// move (`own`) and against it (`opponent`), plus a bonus for having the move. `tune`
/// fits these to game results.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    pub own: [i32; THREAT_KINDS],
    pub opponent: [i32; THREAT_KINDS],
    pub tempo: i32,
}

/// Fitted by `tune` to 88 342 quiet positions: Lianzhu's self-play and matches against
/// pisq, AIWine and Rapfi, and 600 Rapfi self-play games at 0.1 s/turn. Games
/// at 0.3 s/turn, freestyle 20x20: the previous fit (40 932 positions, no Rapfi games)
/// lost 75-125 to these; it had beaten the hand-set symmetric weights 48-32.
/// Order: None, Forbidden, One, Block2, Flex2, Flex2x2, Block3, Block3Plus, Flex3,
/// Flex3Plus, Block4, Block4Plus, Flex3x2, Block4Flex3, Flex4, Five.
pub const WEIGHTS: Weights = Weights {
    own: [
        0, -2174, -5, 2, 0, 22, 12, 97, 66, 159, 111, 382, 229, 4173, 400, 800,
    ],
    opponent: [
        0, -1812, -5, -2, 0, 14, 20, 70, 35, 104, 140, 316, 32, 733, 448, 800,
    ],
    tempo: 203,
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
        dot(&self.own, own) - dot(&self.opponent, opponent) + self.tempo
    }
}

/// Move-ordering value of a point for its attacker and for its defender.
const ATTACK_ORDER: [i32; THREAT_KINDS] = [
    0, -100, 1, 4, 12, 30, 10, 35, 80, 100, 60, 110, 600, 1000, 5000, 20000,
];
const DEFEND_ORDER: [i32; THREAT_KINDS] = [
    0, 0, 1, 3, 10, 25, 8, 30, 60, 80, 45, 90, 400, 700, 3000, 10000,
];

/// Static score of the position for the side to move.
pub fn evaluate(board: &Board) -> i32 {
    let me = board.to_move();
    WEIGHTS.score(board.threat_counts(me), board.threat_counts(me.opponent()))
}

/// How promising `pos` looks for the side to move: its own threat there plus the
/// opponent's threat it takes away. For move ordering; fouls are not checked.
pub fn move_value(board: &Board, pos: Pos) -> i32 {
    let me = board.to_move();
    ATTACK_ORDER[board.threat(pos, me) as usize]
        + DEFEND_ORDER[board.threat(pos, me.opponent()) as usize]
}

/// Points worth considering: empty points within two of a stone, or the centre of an
/// empty board (or any empty point when nothing is near a stone).
pub fn candidate_points(board: &Board) -> Vec<Pos> {
    let mut points = Vec::new();
    add_candidate_points(board, &mut points);
    points
}

/// Appends the [`candidate_points`] to `out`.
pub fn add_candidate_points(board: &Board, out: &mut Vec<Pos>) {
    let start = out.len();
    out.extend(board.empty_points().filter(|&p| board.is_near_stones(p)));
    if out.len() == start {
        let centre = board.centre();
        if board.is_empty(centre) {
            out.push(centre);
        } else {
            out.extend(board.empty_points());
        }
    }
}

/// Every legal candidate by [`move_value`], best first; ties keep board order. Falls
/// back to any legal point when no candidate is legal.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::board::testing::stones;
    use crate::rules::Rule;

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
        let mut b = stones(Rule::Freestyle, &black, &white, Color::White);
        let (pos, _) = best_static_move(&mut b).unwrap();
        assert!(
            pos == Pos::new(2, 8) || pos == Pos::new(7, 8),
            "win, got {pos}"
        );
        let mut b = stones(Rule::Freestyle, &black, &white[..3], Color::White);
        let (pos, _) = best_static_move(&mut b).unwrap();
        assert!(
            pos == Pos::new(2, 3) || pos == Pos::new(7, 3),
            "block, got {pos}"
        );
    }

    #[test]
    fn blocks_an_open_three() {
        let mut b = stones(
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
        let mut b = stones(Rule::Renju, &black, &white, Color::Black);
        assert!(rules::is_forbidden(&mut b, Pos::new(5, 3)));
        let (pos, _) = best_static_move(&mut b).unwrap();
        assert_ne!(pos, Pos::new(5, 3));
        b.set_to_move(Color::White);
        assert_eq!(best_static_move(&mut b).unwrap().0, Pos::new(5, 3));
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

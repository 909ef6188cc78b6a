//! Move values for ordering: what move ordering reads at an empty point
//! ([`OrderFeatures`]), the weights fitted to a strong engine's moves
//! ([`ORDER_WEIGHTS`]), the tables built from them once per process, the fast lookup a
//! search node uses ([`MoveValues`]), and the points worth considering at all. The
//! position's score is [`crate::eval`]'s.

use crate::board::pattern::{self, PATTERN_KINDS, Pattern, THREAT_KINDS, Threat};
use crate::board::{Board, Move, Pos};
use crate::rules;
use std::sync::OnceLock;

/// How many of the last stones played move ordering measures a point's distance to.
pub const RECENT_STONES: usize = 6;
/// Where a point lies from a stone, see `proximity_class`.
pub const PROXIMITY_CLASSES: usize = 8;

/// What move ordering reads at an empty point, for the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderFeatures {
    pub own_threat: Threat,
    pub opponent_threat: Threat,
    pub own_patterns: [Pattern; 4],
    pub opponent_patterns: [Pattern; 4],
    /// The `proximity_class` to each of the last stones, the latest first (the
    /// opponent's last, then ours, and so on); `None` before that many were played.
    pub proximity: [Option<usize>; RECENT_STONES],
}

impl OrderFeatures {
    pub fn of(board: &Board, pos: Pos) -> OrderFeatures {
        let me = board.to_move();
        OrderFeatures {
            own_threat: board.threat(pos, me),
            opponent_threat: board.threat(pos, me.opponent()),
            own_patterns: board.patterns(pos, me),
            opponent_patterns: board.patterns(pos, me.opponent()),
            proximity: recent_stones(board).map(|stone| stone.map(|s| proximity_class(pos, s))),
        }
    }
}

/// The last [`RECENT_STONES`] stones played, the latest first.
fn recent_stones(board: &Board) -> [Option<Pos>; RECENT_STONES] {
    let history = board.history();
    std::array::from_fn(|back| Some(history[history.len().checked_sub(back + 1)?].pos))
}

/// Where `pos` lies from `stone`: next to it (0); two, three or four away, on one of its
/// four lines or off them (1 to 6); farther (7). Whether a point shares a line with a
/// recent stone is what the line patterns miss while both lines are still short.
fn proximity_class(pos: Pos, stone: Pos) -> usize {
    offset_class(pos.x().abs_diff(stone.x()), pos.y().abs_diff(stone.y()))
}

/// The `proximity_class` of a point `dx` and `dy` away from a stone.
fn offset_class(dx: usize, dy: usize) -> usize {
    let distance = dx.max(dy);
    let aligned = dx == 0 || dy == 0 || dx == dy;
    match distance {
        0 | 1 => 0,
        2..=4 => 1 + (distance - 2) * 2 + usize::from(!aligned),
        _ => PROXIMITY_CLASSES - 1,
    }
}

/// Move-ordering weights, in hundredths of a logit of how likely a strong player picks
/// the point (`tune --ordering` fits them to Rapfi's choices): by the threat each side
/// makes there, by its patterns line by line, and by where it lies from the last stones.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderWeights {
    pub own_threat: [i32; THREAT_KINDS],
    pub opponent_threat: [i32; THREAT_KINDS],
    pub own_pattern: [i32; PATTERN_KINDS],
    pub opponent_pattern: [i32; PATTERN_KINDS],
    pub recent: [[i32; PROXIMITY_CLASSES]; RECENT_STONES],
}

impl OrderWeights {
    pub fn value(&self, features: &OrderFeatures) -> i32 {
        point_value(
            &self.own_threat,
            &self.own_pattern,
            features.own_threat,
            &features.own_patterns,
        ) + point_value(
            &self.opponent_threat,
            &self.opponent_pattern,
            features.opponent_threat,
            &features.opponent_patterns,
        ) + self.recent_value(&features.proximity)
    }

    fn recent_value(&self, proximity: &[Option<usize>; RECENT_STONES]) -> i32 {
        self.recent
            .iter()
            .zip(proximity)
            .map(|(weights, class)| class.map_or(0, |c| weights[c]))
            .sum()
    }
}

/// One side's threat and line-pattern terms of an [`OrderWeights`] value.
fn point_value(
    threat_weights: &[i32; THREAT_KINDS],
    pattern_weights: &[i32; PATTERN_KINDS],
    threat: Threat,
    patterns: &[Pattern; 4],
) -> i32 {
    threat_weights[threat as usize]
        + patterns
            .iter()
            .map(|&p| pattern_weights[p as usize])
            .sum::<i32>()
}

/// The two sides' [`point_value`] under [`ORDER_WEIGHTS`] for every entry of
/// [`pattern::threat_table`]: the board keeps each point's entry, so scoring a
/// candidate, which the search does for dozens of points per node, takes two lookups
/// instead of ten weights.
struct PointValues {
    own: Vec<i16>,
    opponent: Vec<i16>,
    recent: RecentValues,
}

/// Offsets up to this far apart in x and in y tell every proximity class apart.
const PROXIMITY_REACH: usize = 5;
/// The `recent` weight of a point by how long ago the stone was played and by the
/// point's offsets from it, each capped at [`PROXIMITY_REACH`].
type RecentValues = [[[i16; PROXIMITY_REACH + 1]; PROXIMITY_REACH + 1]; RECENT_STONES];

fn point_values() -> &'static PointValues {
    static VALUES: OnceLock<PointValues> = OnceLock::new();
    VALUES.get_or_init(|| {
        let table = pattern::threat_table();
        let values = |threat_weights, pattern_weights| {
            let entry = |(i, &threat): (usize, &Threat)| {
                let patterns = pattern::combination_patterns(i % pattern::COMBINATIONS);
                let value = point_value(threat_weights, pattern_weights, threat, &patterns);
                i16::try_from(value).expect("ordering values fit in 16 bits")
            };
            table.iter().enumerate().map(entry).collect()
        };
        let weights = &ORDER_WEIGHTS;
        let recent = |back: usize, dx: usize, dy: usize| {
            let value = weights.recent[back][offset_class(dx, dy)];
            i16::try_from(value).expect("ordering values fit in 16 bits")
        };
        PointValues {
            own: values(&weights.own_threat, &weights.own_pattern),
            opponent: values(&weights.opponent_threat, &weights.opponent_pattern),
            recent: std::array::from_fn(|back| {
                std::array::from_fn(|dx| std::array::from_fn(|dy| recent(back, dx, dy)))
            }),
        }
    })
}

/// Builds the tables that [`MoveValues`] reads, so that no search pays for it.
pub fn build_tables() {
    point_values();
}

/// Fitted by `tune --ordering` to 12 253 choices of Rapfi in 480 of its self-play games
/// (400 renju 15x15, 200 freestyle 20x20, 0.1 s/turn). On 3 112 choices in the other
/// 120 games, Rapfi's move comes first 36.6 % of the time, among our first 8 87.1 % and
/// among 16 95.5 % (mean rank 3.29 from 0); with the distances to the last two stones
/// alone before, 35.8 %, 84.8 %, 94.3 % and 3.76, counting ties against it.
pub const ORDER_WEIGHTS: OrderWeights = OrderWeights {
    own_threat: [
        -164, 0, -166, -147, -172, -135, -166, -142, 76, 109, -134, -108, 363, 358, 676, 10000,
    ],
    opponent_threat: [
        -239, -98, -99, -95, -132, -192, -133, -159, 44, 19, 62, 72, 186, 291, 220, 5000,
    ],
    own_pattern: [-86, 0, -66, -62, -66, 22, 55, -19, 245, 438, 1077, 0],
    opponent_pattern: [-19, -644, -9, -10, -23, 44, 62, 23, 54, 59, 156, 0],
    recent: [
        [49, 19, 7, -10, 19, -3, -4, -37],
        [36, 6, 14, -39, -9, -7, -19, -30],
        [14, -7, -7, -28, -5, -4, 0, -2],
        [29, 1, 12, -42, 7, -17, -13, -22],
        [8, -7, -9, -23, -5, 3, 0, 2],
        [20, 7, 21, -23, 8, 4, -7, -18],
    ],
};

/// How promising points look for the side to move, see [`OrderWeights`]. For move
/// ordering; fouls are not checked. What depends only on the position (the side to
/// move's tables, the last six stones) is read once for all the points scored.
pub struct MoveValues<'a> {
    board: &'a Board,
    own: &'static [i16],
    opponent: &'static [i16],
    recent_values: &'static RecentValues,
    /// The last [`RECENT_STONES`] moves (fewer early on), the latest last.
    recent: &'a [Move],
}

impl<'a> MoveValues<'a> {
    pub fn new(board: &'a Board) -> MoveValues<'a> {
        let me = board.to_move();
        let values = point_values();
        let history = board.history();
        let part = |table: &'static [i16], color| {
            let start = board.threat_table_half(color) * pattern::COMBINATIONS;
            &table[start..start + pattern::COMBINATIONS]
        };
        MoveValues {
            board,
            own: part(&values.own, me),
            opponent: part(&values.opponent, me.opponent()),
            recent_values: &values.recent,
            recent: &history[history.len().saturating_sub(RECENT_STONES)..],
        }
    }

    pub fn of(&self, pos: Pos) -> i32 {
        let me = self.board.to_move();
        let offset = |a: usize, b: usize| a.abs_diff(b).min(PROXIMITY_REACH);
        // The latest stone is the last move and takes the first table.
        let values = self.recent_values[..self.recent.len()].iter().rev();
        // Summed in 32 bits: the table checks only that each entry fits in 16.
        let recent: i32 = (values.zip(self.recent))
            .map(|(values, stone)| {
                i32::from(values[offset(pos.x(), stone.pos.x())][offset(pos.y(), stone.pos.y())])
            })
            .sum();
        i32::from(self.own[self.board.combination(pos, me) as usize])
            + i32::from(self.opponent[self.board.combination(pos, me.opponent()) as usize])
            + recent
    }
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
    out.extend(board.empty_near_stones().iter());
    if out.len() == start {
        let centre = board.centre();
        if board.is_empty(centre) {
            out.push(centre);
        } else {
            out.extend(board.empty_points());
        }
    }
}

/// Every legal candidate by [`MoveValues`], best first; ties keep board order. Falls
/// back to any legal point when no candidate is legal.
pub fn ranked_moves(board: &mut Board) -> Vec<(Pos, i32)> {
    let me = board.to_move();
    let mut legal = candidate_points(board);
    legal.retain(|&pos| rules::is_legal(board, pos, me));
    let values = MoveValues::new(board);
    let mut ranked: Vec<(Pos, i32)> = legal.into_iter().map(|p| (p, values.of(p))).collect();
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
    fn move_values_from_the_tables_equal_the_weighted_features() {
        use rand::{RngExt, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(5);
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
            let mut board = Board::new(15, 15, rule);
            for _ in 0..120 {
                let empties: Vec<Pos> = board.empty_points().collect();
                let values = MoveValues::new(&board);
                for &pos in &empties {
                    let features = OrderFeatures::of(&board, pos);
                    assert_eq!(values.of(pos), ORDER_WEIGHTS.value(&features));
                }
                board.play(empties[rng.random_range(0..empties.len())]);
            }
        }
    }

    #[test]
    fn proximity_tells_distance_and_whether_the_point_is_on_the_stone_s_lines() {
        let stone = Pos::new(7, 7);
        let class = |x, y| proximity_class(Pos::new(x, y), stone);
        assert_eq!([class(8, 8), class(6, 7)], [0, 0]);
        assert_eq!([class(9, 7), class(9, 8)], [1, 2]);
        assert_eq!([class(4, 4), class(4, 5)], [3, 4]);
        assert_eq!([class(7, 11), class(11, 9)], [5, 6]);
        assert_eq!([class(12, 7), class(0, 0)], [7, 7]);
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
}

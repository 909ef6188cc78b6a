//! The four Gomocup rules: who wins with what, and renju's forbidden points for Black.
//!
//! Wins are read from the pattern tables (a point whose pattern is `Five` in some
//! direction wins for that side); [`five_through`] scans the stones directly and is the
//! independent check used when validating positions and in tests. Renju fouls follow
//! RIF: overline, double-four, and double-three where a three counts only if one of its
//! straight-four points is itself not forbidden, checked recursively.

pub use crate::board::rule::{Rule, RuleSetting};

use crate::board::pattern::{LineRule, Pattern};
use crate::board::{Board, Cell, Color, DIRECTIONS, Pos};

/// Why a point is forbidden for Black under renju.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Foul {
    Overline,
    DoubleFour,
    DoubleThree,
}

impl Foul {
    /// The code used by the test data: 6, 44 or 33.
    pub fn code(self) -> &'static str {
        match self {
            Foul::Overline => "6",
            Foul::DoubleFour => "44",
            Foul::DoubleThree => "33",
        }
    }
}

/// Whether `color` playing the empty point `pos` makes a winning line.
pub fn is_winning_move(board: &Board, pos: Pos, color: Color) -> bool {
    board.patterns(pos, color).contains(&Pattern::Five)
}

/// Whether `color` may play `pos`: empty, and not a renju foul for Black.
pub fn is_legal(board: &mut Board, pos: Pos, color: Color) -> bool {
    board.is_empty(pos) && !(color == Color::Black && is_forbidden(board, pos))
}

pub fn is_forbidden(board: &mut Board, pos: Pos) -> bool {
    foul(board, pos).is_some()
}

/// The foul Black commits by playing the empty point `pos`, if the rule is renju.
pub fn foul(board: &mut Board, pos: Pos) -> Option<Foul> {
    if board.rule() != Rule::Renju || !board.is_empty(pos) {
        return None;
    }
    let patterns = board.patterns(pos, Color::Black);
    if patterns.contains(&Pattern::Five) {
        return None;
    }
    if patterns.contains(&Pattern::Overline) {
        return Some(Foul::Overline);
    }
    if patterns.iter().map(|p| p.four_count()).sum::<u32>() >= 2 {
        return Some(Foul::DoubleFour);
    }
    let is_three = |d: &usize| patterns[*d] == Pattern::Flex3;
    if (0..4).filter(is_three).count() < 2 {
        return None;
    }
    board.put(pos, Cell::Stone(Color::Black));
    let real_threes = (0..4)
        .filter(is_three)
        .filter(|&d| is_real_three(board, pos, d))
        .count();
    // Not `undo`, which would hand the move to Black when White is to move.
    board.lift_last();
    (real_threes >= 2).then_some(Foul::DoubleThree)
}

/// With a black stone just put on `pos`: whether some empty point on line `d` turns it
/// into a straight four that contains `pos`, and is not itself forbidden.
fn is_real_three(board: &mut Board, pos: Pos, d: usize) -> bool {
    let (dx, dy) = DIRECTIONS[d];
    for side in [-1, 1] {
        for distance in 1..=4 {
            let Some(point) = board.offset(pos, side * dx * distance, side * dy * distance) else {
                break;
            };
            match board.cell(point) {
                Cell::Stone(Color::Black) => continue,
                Cell::Empty
                    if board.pattern(point, Color::Black, d) == Pattern::Flex4
                        && !is_forbidden(board, point) =>
                {
                    return true;
                }
                _ => {}
            }
            // A straight four through `pos` and `point` needs every cell between them
            // black, so the first non-black cell ends this side.
            break;
        }
    }
    false
}

/// Every point forbidden for Black, with its foul (empty unless renju).
pub fn forbidden_points(board: &mut Board) -> Vec<(Pos, Foul)> {
    let points: Vec<Pos> = board.empty_points().collect();
    points
        .into_iter()
        .filter_map(|p| foul(board, p).map(|f| (p, f)))
        .collect()
}

/// Whether the board has empty points and Black may play none of them (renju, a
/// nearly full board): Black's forced move is a foul, which loses.
pub fn only_forbidden_points_left(board: &mut Board) -> bool {
    let empty: Vec<Pos> = board.empty_points().collect();
    !empty.is_empty() && empty.into_iter().all(|pos| is_forbidden(board, pos))
}

/// Whether the stone on `pos` is part of a winning line, found by walking the board.
pub fn five_through(board: &Board, pos: Pos) -> bool {
    let Cell::Stone(color) = board.cell(pos) else {
        return false;
    };
    DIRECTIONS.iter().any(|&(dx, dy)| {
        let reach = |sign: i32| {
            let mut steps = 0;
            while board
                .offset(pos, sign * dx * (steps + 1), sign * dy * (steps + 1))
                .is_some_and(|p| board.cell(p) == Cell::Stone(color))
            {
                steps += 1;
            }
            steps
        };
        let (back, forward) = (reach(-1), reach(1));
        let length = back + forward + 1;
        let end_is_opponent = |steps: i32| {
            board
                .offset(pos, dx * steps, dy * steps)
                .is_some_and(|p| board.cell(p) == Cell::Stone(color.opponent()))
        };
        match board.rule().line_rule(color) {
            LineRule::Free => length >= 5,
            LineRule::Exact | LineRule::Renju => length == 5,
            LineRule::Caro => {
                length >= 6
                    || (length == 5
                        && !(end_is_opponent(-back - 1) && end_is_opponent(forward + 1)))
            }
        }
    })
}

/// How a game that `winner` won (None: drawn) ended for `side`: 1 won, 0 lost, 0.5 drawn.
pub fn result_for(winner: Option<Color>, side: Color) -> f32 {
    match winner {
        Some(winner) if winner == side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// The colour that has a winning line on the board, if any (a full scan).
pub fn winner(board: &Board) -> Option<Color> {
    board
        .points()
        .find(|&p| five_through(board, p))
        .map(|p| match board.cell(p) {
            Cell::Stone(color) => color,
            _ => unreachable!("five_through is false on non-stones"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::testing;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    fn parse_point(board: &Board, text: &str) -> Pos {
        let (x, y) = text.split_once(',').expect("x,y");
        board
            .pos(x.parse().unwrap(), y.parse().unwrap())
            .expect("on board")
    }

    /// Checks every position of the renju sample (oracle-checked against two other
    /// engines, see the file's header): all fouls, and no others.
    #[test]
    fn renju_fouls_match_the_sample() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/renju_foul_sample.txt"
        );
        let data =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let mut checked = 0;
        for line in data
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let (setup, expected) = line.split_once('|').expect("SIZE MOVES | FOULS");
            let mut words = setup.split_whitespace();
            let size: usize = words.next().unwrap().parse().unwrap();
            let mut board = Board::new(size, size, Rule::Renju);
            for word in words {
                let pos = parse_point(&board, word);
                board.play(pos);
            }
            let found: Vec<String> = forbidden_points(&mut board)
                .into_iter()
                .map(|(p, f)| format!("{p}:{}", f.code()))
                .collect();
            let found = if found.is_empty() {
                "-".to_string()
            } else {
                found.join(" ")
            };
            assert_eq!(found, expected.trim(), "position: {setup}\n{board}");
            checked += 1;
        }
        assert!(checked >= 100, "only {checked} positions read");
    }

    #[test]
    fn a_five_beats_a_foul_and_an_overline_is_one() {
        // (4,0) makes a five across and fours down and down-left.
        let mut board = testing::picture(
            Rule::Renju,
            &[
                "XXXX.......",
                "...XX......",
                "..X.X......",
                ".X..X......",
                "...........",
            ],
            Color::Black,
        );
        let pos = Pos::new(4, 0);
        assert!(is_winning_move(&board, pos, Color::Black));
        assert_eq!(foul(&mut board, pos), None);
        let mut overline = testing::picture(Rule::Renju, &["XXX.XX....."], Color::Black);
        assert_eq!(foul(&mut overline, Pos::new(3, 0)), Some(Foul::Overline));
        assert!(!is_winning_move(&overline, Pos::new(3, 0), Color::Black));
    }

    #[test]
    fn double_four_on_one_line_is_a_foul() {
        let mut board = testing::picture(Rule::Renju, &["X.XX..X...."], Color::Black);
        assert_eq!(foul(&mut board, Pos::new(4, 0)), Some(Foul::DoubleFour));
        assert_eq!(foul(&mut board, Pos::new(5, 0)), None);
    }

    #[test]
    fn three_whose_only_four_point_is_forbidden_does_not_count() {
        // (7,7) makes a vertical three and a split horizontal three X.** whose only
        // straight-four point (6,7) is a double-four once (7,7) is down.
        let stones = [(5, 7), (8, 7), (6, 8), (6, 9), (6, 10), (7, 5), (7, 6)];
        let mut board = testing::stones(Rule::Renju, &stones, &[], Color::Black);
        assert_eq!(foul(&mut board, Pos::new(7, 7)), None);
        // Without (6,10) the point (6,7) is a four-three, legal, so the three is real.
        let fewer: Vec<_> = stones[..4].iter().chain(&stones[5..]).copied().collect();
        let mut board = testing::stones(Rule::Renju, &fewer, &[], Color::Black);
        assert_eq!(foul(&mut board, Pos::new(7, 7)), Some(Foul::DoubleThree));
    }

    #[test]
    fn checking_a_foul_on_whites_turn_leaves_white_to_move() {
        let mut board = testing::picture(Rule::Renju, &testing::DOUBLE_THREE, Color::White);
        let hash = board.hash();
        assert_eq!(foul(&mut board, Pos::new(6, 6)), Some(Foul::DoubleThree));
        assert_eq!(board.to_move(), Color::White);
        assert_eq!(board.hash(), hash);
    }

    #[test]
    fn white_and_other_rules_have_no_fouls() {
        let rows = ["..XX.XX...."];
        let mut renju = testing::picture(Rule::Renju, &rows, Color::Black);
        assert!(is_legal(&mut renju, Pos::new(4, 0), Color::White));
        let mut free = testing::picture(Rule::Freestyle, &["X.XX..X...."], Color::Black);
        assert_eq!(foul(&mut free, Pos::new(4, 0)), None);
    }

    #[test]
    fn each_rule_judges_fives_and_overlines() {
        use Rule::*;
        // (row, rule, who wins by playing (5,0))
        let cases = [
            ("XXXX.X....", Freestyle, true),
            ("XXXX.X....", Standard, false),
            ("XXXX.X....", Renju, false),
            ("XXXX.X....", Caro, true),
            ("OOOO.O....", Renju, true),
            (".XXXX.O...", Caro, true),
            ("OXXXX.O...", Caro, false),
            ("OXXXX.XO..", Caro, true),
        ];
        for (row, rule, wins) in cases {
            let board = testing::picture(rule, &[row], Color::Black);
            let color = if row.contains("XX") {
                Color::Black
            } else {
                Color::White
            };
            let pos = if row.starts_with("XXXX") || row.starts_with("OOOO") {
                Pos::new(4, 0)
            } else {
                Pos::new(5, 0)
            };
            assert_eq!(is_winning_move(&board, pos, color), wins, "{rule:?} {row}");
            let mut played = board.clone();
            played.put(pos, Cell::Stone(color));
            assert_eq!(five_through(&played, pos), wins, "scan {rule:?} {row}");
        }
    }

    #[derive(PartialEq)]
    enum LineOutcome {
        Short,
        Win,
        Overline,
        Blocked,
    }

    /// How the rule judges `color`'s run through the stone on `pos` along direction `d`,
    /// walking the board cell by cell.
    fn line_outcome(board: &Board, pos: Pos, d: usize, color: Color) -> LineOutcome {
        let (dx, dy) = DIRECTIONS[d];
        let reach = |sign: i32| {
            (1..)
                .take_while(|&k| {
                    board
                        .offset(pos, sign * dx * k, sign * dy * k)
                        .is_some_and(|p| board.cell(p) == Cell::Stone(color))
                })
                .count() as i32
        };
        let (back, forward) = (reach(-1), reach(1));
        let length = back + forward + 1;
        let opponent_at = |k: i32| {
            board
                .offset(pos, dx * k, dy * k)
                .is_some_and(|p| board.cell(p) == Cell::Stone(color.opponent()))
        };
        match (board.rule().line_rule(color), length) {
            (_, 0..=4) => LineOutcome::Short,
            (LineRule::Exact | LineRule::Renju, 6..) => LineOutcome::Overline,
            (LineRule::Caro, 5) if opponent_at(-back - 1) && opponent_at(forward + 1) => {
                LineOutcome::Blocked
            }
            _ => LineOutcome::Win,
        }
    }

    /// Offsets on line `d` where one more stone wins through `pos`, as a pattern.
    fn fours(board: &mut Board, pos: Pos, d: usize, color: Color) -> Pattern {
        let (dx, dy) = DIRECTIONS[d];
        let mut found = Vec::new();
        for k in (-4..=4).filter(|&k| k != 0) {
            let Some(q) = board.offset(pos, dx * k, dy * k) else {
                continue;
            };
            if board.is_empty(q) {
                board.put(q, Cell::Stone(color));
                if line_outcome(board, pos, d, color) == LineOutcome::Win {
                    found.push(k);
                }
                board.undo();
            }
        }
        match found.as_slice() {
            [] => Pattern::None,
            [_] => Pattern::Block4,
            [a, b] if b - a == 5 => Pattern::Flex4,
            _ => Pattern::Double4,
        }
    }

    /// The pattern `color` makes at the empty `pos` along `d`, by brute force on the
    /// board, down to threes (anything weaker is `None`).
    fn brute_pattern(board: &mut Board, pos: Pos, d: usize, color: Color) -> Pattern {
        board.put(pos, Cell::Stone(color));
        let result = match line_outcome(board, pos, d, color) {
            LineOutcome::Win => Pattern::Five,
            LineOutcome::Overline => Pattern::Overline,
            LineOutcome::Blocked => Pattern::None,
            LineOutcome::Short => match fours(board, pos, d, color) {
                Pattern::None => {
                    let (dx, dy) = DIRECTIONS[d];
                    let mut best = Pattern::None;
                    for k in (-4..=4).filter(|&k| k != 0) {
                        let Some(q) = board.offset(pos, dx * k, dy * k) else {
                            continue;
                        };
                        if board.is_empty(q) {
                            board.put(q, Cell::Stone(color));
                            let four = fours(board, pos, d, color);
                            // Two fours on one line are Black's foul under renju.
                            let foul = four == Pattern::Double4
                                && board.rule().line_rule(color) == LineRule::Renju;
                            if line_outcome(board, pos, d, color) == LineOutcome::Short && !foul {
                                best = best.max(four.one_stone_short());
                            }
                            board.undo();
                        }
                    }
                    best
                }
                four => four,
            },
        };
        board.undo();
        result
    }

    #[test]
    fn tables_agree_with_brute_force_down_to_threes() {
        let mut rng = StdRng::seed_from_u64(5);
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
            for _ in 0..12 {
                let mut board = Board::new(13, 13, rule);
                for _ in 0..rng.random_range(20..100) {
                    let empties: Vec<Pos> = board.empty_points().collect();
                    board.play(empties[rng.random_range(0..empties.len())]);
                }
                for pos in board.empty_points().collect::<Vec<_>>() {
                    for color in [Color::Black, Color::White] {
                        for d in 0..4 {
                            let table = board.pattern(pos, color, d);
                            let strong = table >= Pattern::Block3 || table == Pattern::Overline;
                            let table = if strong { table } else { Pattern::None };
                            let brute = brute_pattern(&mut board, pos, d, color);
                            assert_eq!(table, brute, "{rule:?} {pos} {color:?} d{d}\n{board}");
                        }
                    }
                }
            }
        }
    }

    /// The tables agree with a direct scan of the board on random positions.
    #[test]
    fn table_fives_agree_with_board_scan() {
        let mut rng = StdRng::seed_from_u64(11);
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
            for _ in 0..30 {
                let mut board = Board::new(12, 12, rule);
                for _ in 0..rng.random_range(10..90) {
                    let empties: Vec<Pos> = board.empty_points().collect();
                    board.play(empties[rng.random_range(0..empties.len())]);
                }
                for pos in board.empty_points().collect::<Vec<_>>() {
                    for color in [Color::Black, Color::White] {
                        let by_table = is_winning_move(&board, pos, color);
                        let mut played = board.clone();
                        played.put(pos, Cell::Stone(color));
                        assert_eq!(
                            by_table,
                            five_through(&played, pos),
                            "{rule:?} {pos}\n{board}"
                        );
                    }
                }
            }
        }
    }
}

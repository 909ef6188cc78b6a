//! Stones, side to move, Zobrist key, move history, and the incremental lines from whose
//! keys every pattern is read.
//!
//! Layout: a point is `y * STRIDE + x` with `STRIDE = 32`, so every board up to 32×32
//! shares one fixed-size array; points outside `width × height` are never touched.
//! Each line of the board (per direction) is one word of two-bit cell codes, walls off
//! the board. The line key of point `p` in direction `d` (see [`pattern`]), its ten
//! neighbours at distances 1..=5, is a shift of its line's word, so placing or removing
//! a stone rewrites two bits of four words, and reading a pattern is one table look-up.
//!
//! Derived from the keys and kept up to date on every change, for the evaluation and the
//! move generator: each empty point's four patterns and combined [`Threat`] per colour,
//! the number of empty points of each threat per colour, the set of five points per
//! colour, and how many stones lie within two of each point.
//!
//! Placing a stone saves what it overwrites of that derived state, point by point, and
//! lifting it puts the saved values back: an undo needs no table look-up. Undo had cost
//! as much as the placement it reverses.

mod color;
pub mod pattern;
pub mod rule;

pub use color::Color;
pub use rule::{Rule, RuleSetting};

#[cfg(test)]
pub mod testing;

use pattern::{
    CODE_BLACK, CODE_EMPTY, CODE_WALL, CODE_WHITE, HALF_LINE, PairTable, Pattern, THREAT_KINDS,
    Threat, key_shift,
};
use std::fmt;
use std::sync::OnceLock;

pub const MAX_SIZE: usize = 32;
pub const MIN_SIZE: usize = 5;
const STRIDE: usize = MAX_SIZE;
/// Every [`Pos::index`] is below this: the size of a table by point.
pub const POINTS: usize = STRIDE * MAX_SIZE;

/// The four line directions as (dx, dy): horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// The colours in [`Color::index`] order.
pub const COLORS: [Color; 2] = [Color::Black, Color::White];

/// A set of points as a bitmap.
#[derive(Clone, Copy, Default)]
pub struct PointSet([u64; POINTS / 64]);

impl PointSet {
    fn set(&mut self, pos: Pos, on: bool) {
        let (word, bit) = (pos.index() / 64, pos.index() % 64);
        if on {
            self.0[word] |= 1 << bit;
        } else {
            self.0[word] &= !(1 << bit);
        }
    }

    pub fn insert(&mut self, pos: Pos) {
        self.set(pos, true);
    }

    pub fn contains(&self, pos: Pos) -> bool {
        self.0[pos.index() / 64] >> (pos.index() % 64) & 1 == 1
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The first two members in board order: enough to tell none, one and several.
    pub fn first_two(&self) -> (Option<Pos>, Option<Pos>) {
        let mut members = self.iter();
        (members.next(), members.next())
    }

    pub fn iter(&self) -> impl Iterator<Item = Pos> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    Pos((i * 64 + bit) as u16)
                })
            })
        })
    }
}

/// What occupies a point. `Wall` is a stone that belongs to nobody: field 3 of BOARD.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Cell {
    Empty,
    Stone(Color),
    Wall,
}

impl Cell {
    fn code(self) -> u32 {
        match self {
            Cell::Empty => CODE_EMPTY,
            Cell::Stone(Color::Black) => CODE_BLACK,
            Cell::Stone(Color::White) => CODE_WHITE,
            Cell::Wall => CODE_WALL,
        }
    }
}

/// A point of the board, `x` the column and `y` the row, both from 0.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub struct Pos(u16);

impl Pos {
    pub fn new(x: usize, y: usize) -> Pos {
        debug_assert!(x < MAX_SIZE && y < MAX_SIZE);
        Pos((y * STRIDE + x) as u16)
    }

    pub fn x(self) -> usize {
        self.0 as usize % STRIDE
    }

    pub fn y(self) -> usize {
        self.0 as usize / STRIDE
    }

    pub fn index(self) -> usize {
        // The mask changes nothing and lets the compiler drop bounds checks on
        // [`PerPoint`] arrays.
        self.0 as usize & (POINTS - 1)
    }

    /// The point whose [`Pos::index`] is `index`.
    pub fn from_index(index: usize) -> Pos {
        debug_assert!(index < POINTS);
        Pos(index as u16)
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x(), self.y())
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Move {
    pub pos: Pos,
    pub cell: Cell,
}

/// The derived state of one point before a placement overwrote it.
#[derive(Clone, Copy)]
struct Overwritten {
    pos: Pos,
    patterns: [[Pattern; 4]; 2],
    combinations: [u16; 2],
    threats: [Threat; 2],
}

/// The whole-board summaries before a placement, and where its [`Overwritten`] points
/// start.
#[derive(Clone, Copy)]
struct Placement {
    first_overwritten: usize,
    threat_counts: [[u16; THREAT_KINDS]; 2],
    fives: [PointSet; 2],
    fours: [PointSet; 2],
}

struct Zobrist {
    /// One key per point for black, white and wall.
    points: [[u64; POINTS]; 3],
    white_to_move: u64,
}

fn zobrist() -> &'static Zobrist {
    static KEYS: OnceLock<Box<Zobrist>> = OnceLock::new();
    KEYS.get_or_init(|| {
        // SplitMix64 from a fixed seed: the same keys in every run and every build.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut keys = Box::new(Zobrist {
            points: [[0; POINTS]; 3],
            white_to_move: 0,
        });
        for table in keys.points.iter_mut() {
            for key in table.iter_mut() {
                *key = next();
            }
        }
        keys.white_to_move = next();
        keys
    })
}

/// One value per point, indexed by [`Pos::index`].
type PerPoint<T> = Box<[T; POINTS]>;

fn per_point<T: Clone>(value: T) -> PerPoint<T> {
    vec![value; POINTS]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("POINTS values"))
}

/// Lines per direction: the diagonals of the largest board.
const LINES: usize = 2 * MAX_SIZE - 1;

/// Where a point lies in its line of one direction: the line, and the index along it
/// (`x`, or `y` for columns). The cell at index `i` takes bits `2 (i + LINE_PADDING)` of
/// the line's word: walls below the first cell and above the last fill every window
/// that reaches past the board, and the windows of all the points that see one cell
/// lie in one 64-bit shift of the word (see `Board::refresh_observers`).
#[derive(Clone, Copy, Default)]
struct LineSpot {
    line: u8,
    index: u8,
}

impl LineSpot {
    fn of(pos: Pos, d: usize) -> LineSpot {
        let (x, y) = (pos.x(), pos.y());
        let (line, index) = match DIRECTIONS[d] {
            (1, 0) => (y, x),
            (0, 1) => (x, y),
            (1, 1) => (x + MAX_SIZE - 1 - y, x),
            _ => (x + y, x),
        };
        LineSpot {
            line: line as u8,
            index: index as u8,
        }
    }

    /// `code` in this point's cell of its line's word.
    fn cell_bits(self, code: u32) -> u128 {
        u128::from(code) << (2 * (u32::from(self.index) + LINE_PADDING))
    }

    /// The cells from `index - 2 * HALF_LINE` on, two bits each, lowest first.
    fn neighbourhood(self, line: u128) -> u64 {
        (line >> (2 * u32::from(self.index))) as u64
    }
}

/// Walls below a line's first cell: enough for the neighbourhood of the first cell.
const LINE_PADDING: u32 = 2 * HALF_LINE as u32;

/// The line key of the point `offset` cells before the centre of a
/// [`LineSpot::neighbourhood`]: its cells from `-5` to `+5`, the centre left out.
fn key_in_neighbourhood(neighbourhood: u64, offset: i32) -> u32 {
    const HALF_BITS: u32 = 2 * HALF_LINE as u32;
    const HALF_MASK: u32 = (1 << HALF_BITS) - 1;
    let window = (neighbourhood >> (2 * (HALF_LINE as i32 - offset))) as u32;
    (window & HALF_MASK) | ((window >> (HALF_BITS + 2)) & HALF_MASK) << HALF_BITS
}

/// See [`Board::threat_table_half`].
fn threat_table_half(rule: Rule, color: Color) -> usize {
    usize::from(rule == Rule::Renju && color == Color::Black)
}

#[derive(Clone)]
pub struct Board {
    width: usize,
    height: usize,
    rule: Rule,
    cells: PerPoint<Cell>,
    /// `lines[d][l]`: the cells of line `l` in direction `d`, see [`LineSpot`].
    lines: [[u128; LINES]; 4],
    /// Where each point lies in its line of each direction.
    spots: PerPoint<[LineSpot; 4]>,
    hash: u64,
    to_move: Color,
    history: Vec<Move>,
    pattern_pairs: &'static PairTable,
    /// `patterns[p][colour][d]`, kept for empty points.
    patterns: PerPoint<[[Pattern; 4]; 2]>,
    /// `combinations[p][colour]`: the four patterns as one code, see
    /// [`pattern::combination_weight`].
    combinations: PerPoint<[u16; 2]>,
    /// Per colour, the threat of each combination code: its part of
    /// [`pattern::threat_table`].
    threat_tables: [&'static [Threat]; 2],
    /// `threats[p][colour]`: `Threat::None` on occupied points.
    threats: PerPoint<[Threat; 2]>,
    threat_counts: [[u16; THREAT_KINDS]; 2],
    fives: [PointSet; 2],
    /// Points where the colour makes a four (or better), see [`Threat::makes_four`].
    fours: [PointSet; 2],
    /// Per direction, the range of offsets at which the point lies from the points
    /// that see it (see `refresh_observers`).
    observer_offsets: PerPoint<[(i8, i8); 4]>,
    /// Stones within Chebyshev distance two.
    near: PerPoint<u8>,
    /// The empty points with `near` above zero.
    empty_near: PointSet,
    /// What the stones of `history` overwrote, oldest first, one [`Placement`] per stone.
    overwritten: Vec<Overwritten>,
    placements: Vec<Placement>,
}

impl Board {
    /// An empty board, Black to move. Sizes must lie in `MIN_SIZE..=MAX_SIZE`.
    pub fn new(width: usize, height: usize, rule: Rule) -> Board {
        assert!((MIN_SIZE..=MAX_SIZE).contains(&width) && (MIN_SIZE..=MAX_SIZE).contains(&height));
        let threat_table = |color| {
            let start = threat_table_half(rule, color) * pattern::COMBINATIONS;
            &pattern::threat_table()[start..start + pattern::COMBINATIONS]
        };
        let mut board = Board {
            width,
            height,
            rule,
            cells: per_point(Cell::Empty),
            lines: [[u128::MAX; LINES]; 4],
            spots: per_point([LineSpot::default(); 4]),
            hash: 0,
            to_move: Color::Black,
            history: Vec::new(),
            pattern_pairs: rule.pattern_pairs(),
            patterns: per_point([[Pattern::None; 4]; 2]),
            combinations: per_point([0; 2]),
            threat_tables: COLORS.map(threat_table),
            threats: per_point([Threat::None; 2]),
            threat_counts: [[0; THREAT_KINDS]; 2].map(|mut counts| {
                counts[Threat::None as usize] = POINTS as u16;
                counts
            }),
            fives: Default::default(),
            fours: Default::default(),
            observer_offsets: per_point([(0, 0); 4]),
            near: per_point(0),
            empty_near: PointSet::default(),
            overwritten: Vec::new(),
            placements: Vec::new(),
        };
        board.init_lines();
        board.init_observer_offsets();
        for pos in board.points() {
            board.refresh_point(pos);
        }
        board
    }

    /// Every line starts as walls; the points of the board are emptied.
    fn init_lines(&mut self) {
        for pos in self.points() {
            for d in 0..4 {
                let spot = LineSpot::of(pos, d);
                self.spots[pos.index()][d] = spot;
                self.lines[d][spot.line as usize] &= !spot.cell_bits(CODE_WALL);
            }
        }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Changes the rule; stones, history and side to move stay. The board is rebuilt
    /// stone by stone, so that what each stone overwrote is saved under the new rule.
    pub fn set_rule(&mut self, rule: Rule) {
        if rule == self.rule {
            return;
        }
        let mut rebuilt = Board::new(self.width, self.height, rule);
        for m in &self.history {
            rebuilt.put(m.pos, m.cell);
        }
        rebuilt.set_to_move(self.to_move);
        *self = rebuilt;
    }

    fn pattern_at_key(&self, key: u32, color: Color) -> Pattern {
        self.pattern_pairs.at(key).get(color)
    }

    fn set_threat(&mut self, pos: Pos, color: Color, threat: Threat) {
        let c = color.index();
        let old = std::mem::replace(&mut self.threats[pos.index()][c], threat);
        if old == threat {
            return;
        }
        self.threat_counts[c][old as usize] -= 1;
        self.threat_counts[c][threat as usize] += 1;
        // Most changes are between threats below a four, which no point set holds.
        if old.max(threat) < Threat::Block4 {
            return;
        }
        if (old == Threat::Five) != (threat == Threat::Five) {
            self.fives[c].set(pos, threat == Threat::Five);
        }
        let four = threat.makes_four() && threat != Threat::Five;
        if (old.makes_four() && old != Threat::Five) != four {
            self.fours[c].set(pos, four);
        }
    }

    fn threat_of_combination(&self, color: Color, combination: u16) -> Threat {
        self.threat_tables[color.index()][combination as usize]
    }

    /// Re-reads the pattern of the empty `pos` along `d` and its threats, saving the
    /// point's state first if they change.
    fn refresh_line(&mut self, pos: Pos, d: usize, key: u32) {
        let i = pos.index();
        let pair = self.pattern_pairs.at(key);
        let unchanged = COLORS
            .iter()
            .all(|&color| pair.get(color) == self.patterns[i][color.index()][d]);
        if unchanged {
            return;
        }
        self.save(pos);
        for color in COLORS {
            let c = color.index();
            let new = pair.get(color);
            let old = std::mem::replace(&mut self.patterns[i][c][d], new);
            if old != new {
                let weight = pattern::combination_weight(d);
                let combination =
                    self.combinations[i][c] + new as u16 * weight - old as u16 * weight;
                self.combinations[i][c] = combination;
                let threat = self.threat_of_combination(color, combination);
                self.set_threat(pos, color, threat);
            }
        }
    }

    fn save(&mut self, pos: Pos) {
        let i = pos.index();
        self.overwritten.push(Overwritten {
            pos,
            patterns: self.patterns[i],
            combinations: self.combinations[i],
            threats: self.threats[i],
        });
    }

    fn restore(&mut self, saved: Overwritten) {
        let i = saved.pos.index();
        self.patterns[i] = saved.patterns;
        self.combinations[i] = saved.combinations;
        self.threats[i] = saved.threats;
    }

    /// Reads all patterns and threats of the empty `pos` from its keys.
    fn refresh_point(&mut self, pos: Pos) {
        let i = pos.index();
        for color in COLORS {
            let c = color.index();
            let mut combination = 0;
            for d in 0..4 {
                let pattern = self.pattern_at_key(self.line_key(pos, d), color);
                self.patterns[i][c][d] = pattern;
                combination += pattern as u16 * pattern::combination_weight(d);
            }
            self.combinations[i][c] = combination;
            let threat = self.threat_of_combination(color, combination);
            self.set_threat(pos, color, threat);
        }
    }

    fn clear_threats(&mut self, pos: Pos) {
        for color in COLORS {
            self.set_threat(pos, color, Threat::None);
        }
    }

    /// What `color` makes by playing the empty point `pos` (`None` when occupied).
    pub fn threat(&self, pos: Pos, color: Color) -> Threat {
        self.threats[pos.index()][color.index()]
    }

    /// The combination code of the empty `pos`'s patterns for `color`, see
    /// [`pattern::combination_weight`].
    pub fn combination(&self, pos: Pos, color: Color) -> u16 {
        self.combinations[pos.index()][color.index()]
    }

    /// Which half of [`pattern::threat_table`] classifies `color`'s combinations: the
    /// second, with fouls, for Black under renju.
    pub fn threat_table_half(&self, color: Color) -> usize {
        threat_table_half(self.rule, color)
    }

    /// What `color` would make by playing the empty `pos` once its opponent had played
    /// the empty `stone`, read from the tables without playing: only the pattern along
    /// the line through both points changes.
    pub fn threat_after_block(&self, pos: Pos, color: Color, stone: Pos) -> Threat {
        let (dx, dy) = (
            stone.x() as i32 - pos.x() as i32,
            stone.y() as i32 - pos.y() as i32,
        );
        let steps = dx.abs().max(dy.abs());
        if steps == 0 || steps > HALF_LINE as i32 {
            return self.threat(pos, color);
        }
        let line = DIRECTIONS.iter().enumerate().find_map(|(d, &(ux, uy))| {
            [steps, -steps]
                .into_iter()
                .find(|&k| ux * k == dx && uy * k == dy)
                .map(|k| (d, k))
        });
        let Some((d, offset)) = line else {
            return self.threat(pos, color);
        };
        let (i, c) = (pos.index(), color.index());
        let blocker = Cell::Stone(color.opponent()).code();
        let key = self.line_key(pos, d) | (blocker << key_shift(offset));
        let old = self.patterns[i][c][d] as u16;
        let new = self.pattern_at_key(key, color) as u16;
        let weight = pattern::combination_weight(d);
        self.threat_of_combination(color, self.combinations[i][c] + new * weight - old * weight)
    }

    /// How many empty points give `color` the threat `threat`.
    pub fn threat_count(&self, color: Color, threat: Threat) -> u16 {
        self.threat_counts[color.index()][threat as usize]
    }

    /// How many empty points give `color` each kind of threat, indexed by `Threat as usize`.
    pub fn threat_counts(&self, color: Color) -> &[u16; THREAT_KINDS] {
        &self.threat_counts[color.index()]
    }

    /// The empty points where `color` would complete a winning line.
    pub fn five_points(&self, color: Color) -> &PointSet {
        &self.fives[color.index()]
    }

    /// The empty points where `color` makes a four but not a five.
    pub fn four_points(&self, color: Color) -> &PointSet {
        &self.fours[color.index()]
    }

    /// Whether a stone lies within two points of `pos`.
    fn is_near_stones(&self, pos: Pos) -> bool {
        self.near[pos.index()] > 0
    }

    /// The empty points within two points of a stone, in board order.
    pub fn empty_near_stones(&self) -> &PointSet {
        &self.empty_near
    }

    fn update_near(&mut self, pos: Pos, added: bool) {
        let (x, y) = (pos.x(), pos.y());
        let columns = x.saturating_sub(2)..(x + 3).min(self.width);
        let step = if added { 1 } else { u8::MAX };
        for row in y.saturating_sub(2)..(y + 3).min(self.height) {
            for i in row * STRIDE + columns.start..row * STRIDE + columns.end {
                let count = self.near[i].wrapping_add(step);
                self.near[i] = count;
                if count == u8::from(added) && self.cells[i] == Cell::Empty {
                    self.empty_near.set(Pos(i as u16), added);
                }
            }
        }
    }

    pub fn to_move(&self) -> Color {
        self.to_move
    }

    pub fn set_to_move(&mut self, color: Color) {
        if color != self.to_move {
            self.to_move = color;
            self.hash ^= zobrist().white_to_move;
        }
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn history(&self) -> &[Move] {
        &self.history
    }

    pub fn stone_count(&self) -> usize {
        self.history.len()
    }

    pub fn last_move(&self) -> Option<Move> {
        self.history.last().copied()
    }

    /// The point at `(x, y)` if it lies on the board.
    pub fn pos(&self, x: i64, y: i64) -> Option<Pos> {
        let on_board = (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y);
        on_board.then(|| Pos::new(x as usize, y as usize))
    }

    /// The point `(dx, dy)` away from `pos`, if on the board.
    pub fn offset(&self, pos: Pos, dx: i32, dy: i32) -> Option<Pos> {
        self.pos(pos.x() as i64 + dx as i64, pos.y() as i64 + dy as i64)
    }

    pub fn cell(&self, pos: Pos) -> Cell {
        self.cells[pos.index()]
    }

    pub fn is_empty(&self, pos: Pos) -> bool {
        self.cell(pos) == Cell::Empty
    }

    /// Every point of the board, row by row.
    pub fn points(&self) -> impl Iterator<Item = Pos> + use<> {
        let width = self.width;
        (0..self.height).flat_map(move |y| (0..width).map(move |x| Pos::new(x, y)))
    }

    pub fn empty_points(&self) -> impl Iterator<Item = Pos> + '_ {
        self.points().filter(|&p| self.is_empty(p))
    }

    pub fn is_full(&self) -> bool {
        self.empty_points().next().is_none()
    }

    /// Plays a stone of the side to move; the other side is then to move.
    pub fn play(&mut self, pos: Pos) {
        let color = self.to_move;
        self.put(pos, Cell::Stone(color));
        self.set_to_move(color.opponent());
    }

    /// Takes back the last stone; its owner is then to move.
    pub fn undo(&mut self) -> Option<Move> {
        let last = self.lift_last()?;
        if let Cell::Stone(color) = last.cell {
            self.set_to_move(color);
        }
        Some(last)
    }

    /// Takes back the last stone as [`Board::put`] placed it: the side to move stays.
    pub fn lift_last(&mut self) -> Option<Move> {
        let last = self.history.pop()?;
        self.lift(last.pos, last.cell);
        Some(last)
    }

    /// Puts any cell value on an empty point without changing the side to move (set-up of
    /// a BOARD position). Panics on an occupied point: callers check first.
    pub fn put(&mut self, pos: Pos, cell: Cell) {
        assert!(self.is_empty(pos) && cell != Cell::Empty, "put on {pos}");
        self.placements.push(Placement {
            first_overwritten: self.overwritten.len(),
            threat_counts: self.threat_counts,
            fives: self.fives,
            fours: self.fours,
        });
        self.save(pos);
        self.cells[pos.index()] = cell;
        self.hash ^= Self::point_key(pos, cell);
        self.clear_threats(pos);
        self.empty_near.set(pos, false);
        self.set_line_cells(pos, cell.code());
        self.refresh_observers(pos);
        if cell != Cell::Wall {
            self.update_near(pos, true);
        }
        self.history.push(Move { pos, cell });
    }

    /// Removes the stone at `pos` wherever it lies in the history; its owner is then to
    /// move. Returns false when `pos` is empty.
    pub fn remove(&mut self, pos: Pos) -> bool {
        let Some(at) = self.history.iter().rposition(|m| m.pos == pos) else {
            return false;
        };
        let mut later = Vec::with_capacity(self.history.len() - at - 1);
        while self.history.len() > at + 1 {
            later.push(self.undo().expect("history is longer than at + 1"));
        }
        let removed = self.undo().expect("history holds the removed stone");
        for m in later.into_iter().rev() {
            self.put(m.pos, m.cell);
        }
        if let Cell::Stone(color) = removed.cell {
            self.set_to_move(color);
        }
        true
    }

    fn lift(&mut self, pos: Pos, cell: Cell) {
        self.cells[pos.index()] = Cell::Empty;
        self.hash ^= Self::point_key(pos, cell);
        self.set_line_cells(pos, CODE_EMPTY);
        if cell != Cell::Wall {
            self.update_near(pos, false);
        }
        self.empty_near.set(pos, self.is_near_stones(pos));
        let placement = self.placements.pop().expect("a placement per stone");
        while self.overwritten.len() > placement.first_overwritten {
            let saved = self
                .overwritten
                .pop()
                .expect("longer than the placement's start");
            self.restore(saved);
        }
        self.threat_counts = placement.threat_counts;
        self.fives = placement.fives;
        self.fours = placement.fours;
    }

    fn point_key(pos: Pos, cell: Cell) -> u64 {
        let table = match cell {
            Cell::Stone(Color::Black) => 0,
            Cell::Stone(Color::White) => 1,
            Cell::Wall => 2,
            Cell::Empty => unreachable!("empty cells have no key"),
        };
        zobrist().points[table][pos.index()]
    }

    /// Writes `code` into `pos`'s cell of its four lines.
    fn set_line_cells(&mut self, pos: Pos, code: u32) {
        for d in 0..4 {
            let spot = self.spots[pos.index()][d];
            let line = &mut self.lines[d][spot.line as usize];
            *line = *line & !spot.cell_bits(CODE_WALL) | spot.cell_bits(code);
        }
    }

    /// Re-reads the patterns of the empty points that see `pos`.
    fn refresh_observers(&mut self, pos: Pos) {
        for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            let step = dy * STRIDE as i32 + dx;
            let spot = self.spots[pos.index()][d];
            let neighbourhood = spot.neighbourhood(self.lines[d][spot.line as usize]);
            // `pos` lies `offset` steps from the point `observer`. Offset 0, `pos`
            // itself, is occupied and skipped like any stone.
            let (lowest, highest) = self.observer_offsets[pos.index()][d];
            for offset in i32::from(lowest)..i32::from(highest) + 1 {
                let observer = Pos((pos.index() as i32 - offset * step) as u16);
                if self.is_empty(observer) {
                    self.refresh_line(observer, d, key_in_neighbourhood(neighbourhood, offset));
                }
            }
        }
    }

    /// The offsets, along each direction, at which `pos` lies from the points that see
    /// it: kept per point since every stone placed and lifted needs them.
    fn init_observer_offsets(&mut self) {
        for pos in self.points() {
            self.observer_offsets[pos.index()] = std::array::from_fn(|d| {
                let (dx, dy) = DIRECTIONS[d];
                (
                    -self.reach(pos, dx, dy) as i8,
                    self.reach(pos, -dx, -dy) as i8,
                )
            });
        }
    }

    /// How many steps of `(dx, dy)` from `pos` stay on the board, up to the reach of
    /// the patterns: a stone farther away changes none.
    fn reach(&self, pos: Pos, dx: i32, dy: i32) -> i32 {
        let room = |at: usize, delta: i32, size: usize| match delta {
            1 => size - 1 - at,
            -1 => at,
            _ => HALF_LINE,
        };
        room(pos.x(), dx, self.width)
            .min(room(pos.y(), dy, self.height))
            .min(self.pattern_pairs.reach()) as i32
    }

    /// Calls `visit` with each empty point at most `reach` (up to the patterns' reach)
    /// steps from `pos` along direction `d`, with its line key in that direction: the
    /// points whose key in `d` a stone on `pos` changes. One read of the line serves
    /// them all.
    pub fn empty_points_along(
        &self,
        pos: Pos,
        d: usize,
        reach: i32,
        mut visit: impl FnMut(Pos, u32),
    ) {
        let (dx, dy) = DIRECTIONS[d];
        let step = dy * STRIDE as i32 + dx;
        let spot = self.spots[pos.index()][d];
        let neighbourhood = spot.neighbourhood(self.lines[d][spot.line as usize]);
        let (lowest, highest) = self.observer_offsets[pos.index()][d];
        for offset in i32::from(lowest).max(-reach)..=i32::from(highest).min(reach) {
            let observer = Pos((pos.index() as i32 - offset * step) as u16);
            if offset != 0 && self.is_empty(observer) {
                visit(observer, key_in_neighbourhood(neighbourhood, offset));
            }
        }
    }

    /// The line key of `pos` in direction `d`.
    pub fn line_key(&self, pos: Pos, d: usize) -> u32 {
        let spot = self.spots[pos.index()][d];
        key_in_neighbourhood(spot.neighbourhood(self.lines[d][spot.line as usize]), 0)
    }

    /// What `color` makes along direction `d` by playing the empty point `pos`.
    pub fn pattern(&self, pos: Pos, color: Color, d: usize) -> Pattern {
        self.pattern_at_key(self.line_key(pos, d), color)
    }

    /// The four patterns of the empty point `pos` for `color`, as kept up to date
    /// (meaningless on an occupied point).
    pub fn patterns(&self, pos: Pos, color: Color) -> [Pattern; 4] {
        self.patterns[pos.index()][color.index()]
    }

    pub fn centre(&self) -> Pos {
        Pos::new(self.width / 2, self.height / 2)
    }
}

impl fmt::Display for Board {
    /// A picture of the board: `X` black, `O` white, `#` wall, `.` empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for y in 0..self.height {
            let row: String = (0..self.width)
                .map(|x| match self.cell(Pos::new(x, y)) {
                    Cell::Empty => '.',
                    Cell::Stone(Color::Black) => 'X',
                    Cell::Stone(Color::White) => 'O',
                    Cell::Wall => '#',
                })
                .collect();
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    fn random_game(rng: &mut StdRng, board: &mut Board, moves: usize) {
        for _ in 0..moves {
            let empties: Vec<Pos> = board.empty_points().collect();
            if empties.is_empty() {
                break;
            }
            let pos = empties[rng.random_range(0..empties.len())];
            if rng.random_range(0..20) == 0 {
                board.put(pos, Cell::Wall);
            } else {
                board.play(pos);
            }
        }
    }

    /// The key of `pos` read cell by cell from the board, with no incremental state.
    fn scanned_key(board: &Board, pos: Pos, d: usize) -> u32 {
        let (dx, dy) = DIRECTIONS[d];
        let mut key = 0;
        for offset in -(HALF_LINE as i32)..=HALF_LINE as i32 {
            if offset != 0 {
                let code = board
                    .offset(pos, dx * offset, dy * offset)
                    .map_or(CODE_WALL, |p| board.cell(p).code());
                key |= code << key_shift(offset);
            }
        }
        key
    }

    fn assert_keys_match_scan(board: &Board) {
        let mut counts = [[0u16; THREAT_KINDS]; 2];
        for pos in board.points() {
            for d in 0..4 {
                assert_eq!(
                    board.line_key(pos, d),
                    scanned_key(board, pos, d),
                    "{pos} d{d}"
                );
            }
            for color in COLORS {
                let expected = if board.is_empty(pos) {
                    let renju_black = board.rule() == Rule::Renju && color == Color::Black;
                    let patterns = std::array::from_fn(|d| board.pattern(pos, color, d));
                    assert_eq!(board.patterns(pos, color), patterns, "{pos} {color:?}");
                    Threat::classify(patterns, renju_black)
                } else {
                    Threat::None
                };
                assert_eq!(board.threat(pos, color), expected, "{pos} {color:?}");
                assert_eq!(
                    board.five_points(color).contains(pos),
                    expected == Threat::Five
                );
                let four = expected.makes_four() && expected != Threat::Five;
                assert_eq!(board.four_points(color).contains(pos), four);
                counts[color.index()][expected as usize] += 1;
            }
            let near = (-2..=2).any(|dy| {
                (-2..=2).any(|dx| {
                    board
                        .offset(pos, dx, dy)
                        .is_some_and(|p| matches!(board.cell(p), Cell::Stone(_)))
                })
            });
            assert_eq!(board.is_near_stones(pos), near, "{pos}");
            assert_eq!(
                board.empty_near_stones().contains(pos),
                near && board.is_empty(pos),
                "{pos}"
            );
        }
        for color in COLORS {
            let (kept, counted) = (&board.threat_counts[color.index()], &counts[color.index()]);
            assert_eq!(kept[1..], counted[1..], "{color:?}");
        }
    }

    #[test]
    fn place_and_undo_restore_keys_and_hash_over_random_games() {
        let mut rng = StdRng::seed_from_u64(7);
        for game in 0..40 {
            let (w, h) = (rng.random_range(5..=32), rng.random_range(5..=32));
            let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro][game % 4];
            let mut board = Board::new(w, h, rule);
            let empty_hash = board.hash();
            let mut hashes = vec![board.hash()];
            let moves = rng.random_range(1..=(w * h).min(120));
            for _ in 0..moves {
                random_game(&mut rng, &mut board, 1);
                hashes.push(board.hash());
            }
            assert_keys_match_scan(&board);
            while board.undo().is_some() {
                hashes.pop();
                assert_eq!(board.hash(), *hashes.last().unwrap(), "game {game}");
                if hashes.len() % 25 == 0 {
                    assert_keys_match_scan(&board);
                }
            }
            assert_eq!(board.hash(), empty_hash);
            assert_eq!(board.to_move(), Color::Black);
            assert_keys_match_scan(&board);
            assert_eq!(
                board.line_key(board.centre(), 0),
                scanned_key(&board, board.centre(), 0)
            );
        }
    }

    #[test]
    fn undo_after_a_rule_change_restores_the_new_rules_patterns() {
        let mut rng = StdRng::seed_from_u64(5);
        let mut board = Board::new(15, 15, Rule::Freestyle);
        random_game(&mut rng, &mut board, 41);
        let (hash, to_move) = (board.hash(), board.to_move());
        board.set_rule(Rule::Renju);
        assert_eq!((board.hash(), board.to_move()), (hash, to_move));
        assert_keys_match_scan(&board);
        random_game(&mut rng, &mut board, 20);
        for _ in 0..35 {
            board.undo();
        }
        assert_eq!(board.rule(), Rule::Renju);
        assert_eq!(board.stone_count(), 26);
        assert_keys_match_scan(&board);
    }

    #[test]
    fn threat_after_block_matches_playing_the_block() {
        let mut rng = StdRng::seed_from_u64(11);
        for game in 0..24 {
            let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro][game % 4];
            let mut board = Board::new(15, 15, rule);
            let moves = rng.random_range(10..=90);
            random_game(&mut rng, &mut board, moves);
            let empties: Vec<Pos> = board.empty_points().collect();
            for _ in 0..200 {
                let pos = empties[rng.random_range(0..empties.len())];
                // Mostly points within a line's reach of `pos`, where the answer changes.
                let near: Vec<Pos> = empties
                    .iter()
                    .copied()
                    .filter(|p| p.x().abs_diff(pos.x()).max(p.y().abs_diff(pos.y())) <= 6)
                    .collect();
                let stone = near[rng.random_range(0..near.len())];
                if stone == pos {
                    continue;
                }
                let color = COLORS[rng.random_range(0..2)];
                let predicted = board.threat_after_block(pos, color, stone);
                board.put(stone, Cell::Stone(color.opponent()));
                let played = board.threat(pos, color);
                board.lift_last();
                assert_eq!(predicted, played, "game {game}: {pos} after {stone}");
            }
        }
    }

    #[test]
    fn hash_depends_on_position_not_move_order() {
        let mut a = Board::new(15, 15, Rule::Freestyle);
        let mut b = Board::new(15, 15, Rule::Freestyle);
        for (x, y) in [(7, 7), (8, 8), (6, 6), (9, 9)] {
            a.play(Pos::new(x, y));
        }
        for (x, y) in [(6, 6), (9, 9), (7, 7), (8, 8)] {
            b.play(Pos::new(x, y));
        }
        assert_eq!(a.hash(), b.hash());
        a.undo();
        assert_ne!(a.hash(), b.hash());
    }

    #[test]
    fn remove_takes_a_stone_from_the_middle_of_the_history() {
        let mut board = Board::new(15, 15, Rule::Freestyle);
        for (x, y) in [(7, 7), (8, 8), (6, 6)] {
            board.play(Pos::new(x, y));
        }
        let mut expected = Board::new(15, 15, Rule::Freestyle);
        expected.play(Pos::new(7, 7));
        expected.set_to_move(Color::White);
        expected.put(Pos::new(6, 6), Cell::Stone(Color::Black));
        assert!(board.remove(Pos::new(8, 8)));
        assert_eq!(board.hash(), expected.hash());
        assert_eq!(board.to_move(), Color::White);
        assert!(!board.remove(Pos::new(0, 0)));
        assert_keys_match_scan(&board);
    }
}

//! Line patterns: what a stone on an empty point would make along one line.
//!
//! The board keeps, for every point and each of the four directions, a *line key*: the
//! ten neighbours at distances 1..=5 on both sides, two bits each (see [`Board`]'s
//! layout note). Five cells on each side are exactly what is needed to tell an exact
//! five from an overline and a caro five blocked at both ends.
//!
//! A table maps each of the 2^20 keys to the [`Pattern`] the side gets by playing the
//! centre. Tables are built once per [`LineRule`] on first use, by a memoised recursion
//! over the same key space: a line is a four when one more stone makes five through the
//! centre, a three when one more stone makes a four, and so on down to ones. The board
//! reads both colours at once from a [`PairTable`]; the board update is bound by these
//! reads, so the pairs sit side by side and freestyle's table drops the key bits it
//! never needs.
//!
//! [`Board`]: super::Board

use super::color::Color;
use std::sync::OnceLock;

/// Cells on each side of the centre that a line key covers.
pub const HALF_LINE: usize = 5;
const LINE_LEN: usize = 2 * HALF_LINE + 1;
const CENTRE: usize = HALF_LINE;
/// Number of distinct line keys (ten cells, two bits each).
pub const KEY_COUNT: usize = 1 << (4 * HALF_LINE);

/// Two-bit cell codes inside a line key.
pub const CODE_EMPTY: u32 = 0;
pub const CODE_BLACK: u32 = 1;
pub const CODE_WHITE: u32 = 2;
/// Off the board, or a stone that belongs to nobody (field 3 of BOARD).
pub const CODE_WALL: u32 = 3;

/// Bit offset, inside a line key, of the cell at `offset` (-5..=5, not 0) from the centre.
pub const fn key_shift(offset: i32) -> u32 {
    let index = offset + HALF_LINE as i32;
    let slot = if offset < 0 { index } else { index - 1 };
    2 * slot as u32
}

/// What playing the centre point makes along one line, for one side. Pictures show the
/// side's stones as `X`, the opponent as `O`, empty as `.`, the new stone as `*`.
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum Pattern {
    /// No five can ever be made through the centre on this line (`O.*..O`).
    None = 0,
    /// Six or more in a row where only an exact five wins (`XX*XXX`).
    Overline,
    /// One more stone makes a `Block2` (`O*....`).
    Block1,
    /// One more stone makes a `Flex2` (`...*...`).
    Flex1,
    /// One more stone makes a `Block3` (`OX*...`).
    Block2,
    /// One more stone makes a `Flex3` (`..X*..`).
    Flex2,
    /// One more stone makes a `Block4` (`OXX*..`).
    Block3,
    /// One more stone makes a straight four, or two fours on the line (`..XX*..`).
    Flex3,
    /// Exactly one point completes a five (`OXXX*.`, `XX.*X`).
    Block4,
    /// A straight four: two completion points five apart (`.XXX*.`).
    Flex4,
    /// Two fours on one line (`X.X*X.X`): two completion points, not a straight four.
    Double4,
    /// A winning five through the centre.
    Five,
}

impl Pattern {
    const ALL: [Pattern; 12] = [
        Pattern::None,
        Pattern::Overline,
        Pattern::Block1,
        Pattern::Flex1,
        Pattern::Block2,
        Pattern::Flex2,
        Pattern::Block3,
        Pattern::Flex3,
        Pattern::Block4,
        Pattern::Flex4,
        Pattern::Double4,
        Pattern::Five,
    ];

    fn from_u8(value: u8) -> Pattern {
        Pattern::ALL[value as usize]
    }

    /// The pattern one stone short of this one: what a line is when its best next stone
    /// makes `self`.
    pub fn one_stone_short(self) -> Pattern {
        match self {
            Pattern::Flex4 | Pattern::Double4 => Pattern::Flex3,
            Pattern::Block4 => Pattern::Block3,
            Pattern::Flex3 => Pattern::Flex2,
            Pattern::Block3 => Pattern::Block2,
            Pattern::Flex2 => Pattern::Flex1,
            Pattern::Block2 => Pattern::Block1,
            _ => Pattern::None,
        }
    }

    /// Number of fours this pattern makes, as renju counts them.
    pub fn four_count(self) -> u32 {
        match self {
            Pattern::Block4 | Pattern::Flex4 => 1,
            Pattern::Double4 => 2,
            _ => 0,
        }
    }
}

/// Number of [`LineRule`]s, which index the tables in declaration order.
const LINE_RULES: usize = 4;

/// What a run of stones through the centre is worth; differs between rules and colours.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum LineRule {
    /// Five or more wins.
    Free,
    /// Exactly five wins; six or more is an overline.
    Exact,
    /// Five or more wins, except an exact five with opponent stones on both ends.
    Caro,
    /// Black's under renju: as `Exact`, and two fours on one line are a foul, so a stone
    /// that would make them is no way forward (`X..*X.XO` is no three: the one stone that
    /// gives it two completion points makes `X.XXX.XO`, two fours).
    Renju,
}

/// Outcome of the run through the centre of a line whose centre holds the side's stone.
#[derive(PartialEq, Eq)]
enum RunOutcome {
    Short,
    Win,
    Overline,
    BlockedFive,
}

type Line = [u32; LINE_LEN];

fn decode(key: usize) -> Line {
    let mut line = [CODE_EMPTY; LINE_LEN];
    for offset in -(HALF_LINE as i32)..=HALF_LINE as i32 {
        let index = (offset + HALF_LINE as i32) as usize;
        line[index] = if offset == 0 {
            CODE_BLACK
        } else {
            (key as u32 >> key_shift(offset)) & 3
        };
    }
    line
}

fn run_outcome(line: &Line, rule: LineRule) -> RunOutcome {
    let mut start = CENTRE;
    while start > 0 && line[start - 1] == CODE_BLACK {
        start -= 1;
    }
    let mut end = CENTRE;
    while end + 1 < LINE_LEN && line[end + 1] == CODE_BLACK {
        end += 1;
    }
    let length = end - start + 1;
    match (rule, length) {
        (_, 0..=4) => RunOutcome::Short,
        (LineRule::Free, _) => RunOutcome::Win,
        (LineRule::Exact | LineRule::Renju, 5) => RunOutcome::Win,
        (LineRule::Exact | LineRule::Renju, _) => RunOutcome::Overline,
        // A five through the centre never touches the window's ends, so both neighbours
        // are inside the line.
        (LineRule::Caro, 5) if line[start - 1] == CODE_WHITE && line[end + 1] == CODE_WHITE => {
            RunOutcome::BlockedFive
        }
        (LineRule::Caro, _) => RunOutcome::Win,
    }
}

/// Cells a five through the centre can use: distance 1..=4.
fn inner_cells() -> impl Iterator<Item = (usize, i32)> {
    (-4..=4)
        .filter(|&offset| offset != 0)
        .map(|offset| ((offset + HALF_LINE as i32) as usize, offset))
}

struct Builder {
    rule: LineRule,
    memo: Vec<u8>,
}

const UNKNOWN: u8 = u8::MAX;

impl Builder {
    /// Pattern of a line whose centre already holds the side's stone.
    fn classify(&mut self, key: usize) -> Pattern {
        if self.memo[key] != UNKNOWN {
            return Pattern::from_u8(self.memo[key]);
        }
        let pattern = self.classify_uncached(key);
        self.memo[key] = pattern as u8;
        pattern
    }

    fn classify_uncached(&mut self, key: usize) -> Pattern {
        let mut line = decode(key);
        match run_outcome(&line, self.rule) {
            RunOutcome::Win => return Pattern::Five,
            RunOutcome::Overline => return Pattern::Overline,
            RunOutcome::BlockedFive => return Pattern::None,
            RunOutcome::Short => {}
        }
        // The cells that complete a five, by count and the first two (no allocation:
        // this runs for each of a million keys at START).
        let (mut completions, mut first, mut second) = (0, 0, 0);
        for (index, _) in inner_cells() {
            if line[index] == CODE_EMPTY {
                line[index] = CODE_BLACK;
                if run_outcome(&line, self.rule) == RunOutcome::Win {
                    completions += 1;
                    match completions {
                        1 => first = index,
                        2 => second = index,
                        _ => {}
                    }
                }
                line[index] = CODE_EMPTY;
            }
        }
        match completions {
            1 => return Pattern::Block4,
            2 if second - first == 5 => return Pattern::Flex4,
            2.. => return Pattern::Double4,
            _ => {}
        }
        let mut best = Pattern::None;
        for (index, offset) in inner_cells() {
            if line[index] == CODE_EMPTY {
                let next = self.classify(key | (CODE_BLACK << key_shift(offset)) as usize);
                if !(self.rule == LineRule::Renju && next == Pattern::Double4) {
                    best = best.max(next.one_stone_short());
                }
            }
        }
        best
    }
}

/// Exchanges the black and white codes of a key; walls and empties stay.
pub const fn swap_colours(key: u32) -> u32 {
    const LOW_BITS: u32 = 0x5_5555;
    ((key & LOW_BITS) << 1) | ((key >> 1) & LOW_BITS)
}

/// What Black makes by playing the centre of each key under `rule` (White's pattern at a
/// key is Black's at the key with the colours swapped). Built on first use.
fn black_table(rule: LineRule) -> &'static [Pattern] {
    static TABLES: [OnceLock<Box<[Pattern]>>; LINE_RULES] = [const { OnceLock::new() }; LINE_RULES];
    TABLES[rule as usize].get_or_init(|| {
        let mut builder = Builder {
            rule,
            memo: vec![UNKNOWN; KEY_COUNT],
        };
        (0..KEY_COUNT).map(|key| builder.classify(key)).collect()
    })
}

/// Both colours' patterns at one line key, side by side: a board update reads the two
/// with one memory access.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PatternPair([Pattern; 2]);

impl PatternPair {
    fn new(black: Pattern, white: Pattern) -> PatternPair {
        PatternPair([black, white])
    }

    pub fn get(self, color: Color) -> Pattern {
        self.0[color.index()]
    }
}

/// Both colours' pattern at every line key, under one rule for each colour.
pub struct PairTable {
    pairs: Box<[PatternPair]>,
    /// `pairs` index: the key shifted right by `shift` and masked.
    shift: u32,
    mask: u32,
    /// How far from a point a cell can change its patterns.
    reach: usize,
}

impl PairTable {
    pub fn at(&self, key: u32) -> PatternPair {
        self.pairs[((key >> self.shift) & self.mask) as usize]
    }

    /// How many cells on each side of a point its patterns read: [`HALF_LINE`], or one
    /// fewer when the table drops the outermost cells.
    pub fn reach(&self) -> usize {
        self.reach
    }
}

/// Key bits of the cells at distances 1..=4, the only cells a five-or-more line through
/// the centre can use.
const INNER_SHIFT: u32 = 2;
const INNER_MASK: u32 = (1 << (4 * (HALF_LINE - 1))) - 1;

/// The [`PairTable`] of Black's lines judged by `black` and White's by `white`, built
/// on first use and shared for the life of the process. When both sides win with five
/// or more, the outermost cells never matter, and the table drops them: 2^16 entries
/// instead of 2^20, which stay in cache.
pub fn pairs(black: LineRule, white: LineRule) -> &'static PairTable {
    static TABLES: [OnceLock<PairTable>; LINE_RULES * LINE_RULES] =
        [const { OnceLock::new() }; LINE_RULES * LINE_RULES];
    TABLES[black as usize * LINE_RULES + white as usize].get_or_init(|| {
        let (blacks, whites) = (black_table(black), black_table(white));
        let pair =
            |key: u32| PatternPair::new(blacks[key as usize], whites[swap_colours(key) as usize]);
        if black == LineRule::Free && white == LineRule::Free {
            PairTable {
                pairs: (0..=INNER_MASK)
                    .map(|inner| pair(inner << INNER_SHIFT))
                    .collect(),
                shift: INNER_SHIFT,
                mask: INNER_MASK,
                reach: HALF_LINE - 1,
            }
        } else {
            PairTable {
                pairs: (0..KEY_COUNT as u32).map(pair).collect(),
                shift: 0,
                mask: KEY_COUNT as u32 - 1,
                reach: HALF_LINE,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Key of a picture drawn from Black's side: `X` black, `O` white, `#` wall, `.` empty,
    /// `*` the centre; the picture is padded with walls to five cells on each side.
    fn key_of(picture: &str) -> usize {
        let centre = picture.find('*').expect("picture has a centre");
        let mut key = 0u32;
        for offset in -(HALF_LINE as i32)..=HALF_LINE as i32 {
            if offset == 0 {
                continue;
            }
            let index = centre as i32 + offset;
            let code = match picture.as_bytes().get(index as usize) {
                _ if index < 0 => CODE_WALL,
                Some(b'X') => CODE_BLACK,
                Some(b'O') => CODE_WHITE,
                Some(b'.') => CODE_EMPTY,
                _ => CODE_WALL,
            };
            key |= code << key_shift(offset);
        }
        key as usize
    }

    fn black(rule: LineRule, picture: &str) -> Pattern {
        black_table(rule)[key_of(picture)]
    }

    #[test]
    fn pictures_classify_as_drawn() {
        use LineRule::*;
        use Pattern as P;
        let cases = [
            (Free, "..XX*XX..", P::Five),
            (Free, ".XXX*XX.", P::Five),
            (Exact, ".XXX*XX.", P::Overline),
            (Exact, "..XX*XX..", P::Five),
            (Caro, "OXX*XXO", P::None),
            (Caro, "#XX*XXO", P::Five),
            (Caro, "OXX*XXXO", P::Five),
            (Free, "...XX*X...", P::Flex4),
            (Free, "..OXX*X...", P::Block4),
            (Exact, "..X.XX*...", P::Block4),
            (Exact, "X.XX*.X", P::Double4),
            (Exact, "..X.XX*.X.", P::Double4),
            (Exact, ".X.XX*.", P::Block4),
            (Free, "....X*X....", P::Flex3),
            (Free, "...OX*X....", P::Block3),
            (Free, "....*X.....", P::Flex2),
            (Free, "....*......", P::Flex1),
            (Free, "O*...O", P::None),
            (Free, "O*....", P::Block1),
            (Exact, "X.X*X.X", P::Double4),
            (Exact, "XX.X*.XX", P::Double4),
            (Exact, ".XXXX.*....", P::Block1),
            (Renju, "X.XX*.X", P::Double4),
            (Exact, "X..*X.XO", P::Flex3),
            (Renju, "X..*X.XO", P::Block3),
            (Renju, "..X*X...", P::Flex3),
            (Free, ".XXXX.*....", P::Block4),
        ];
        for (rule, picture, expected) in cases {
            assert_eq!(black(rule, picture), expected, "{rule:?} {picture}");
        }
    }

    #[test]
    fn pairs_read_white_as_black_with_colours_swapped_under_its_own_rule() {
        let renju = pairs(LineRule::Renju, LineRule::Free);
        let black_five = key_of("O.XX*XX.O") as u32;
        assert_eq!(renju.at(black_five).get(Color::Black), Pattern::Five);
        assert_eq!(renju.at(black_five).get(Color::White), Pattern::None);
        let white_five = swap_colours(black_five);
        assert_eq!(renju.at(white_five).get(Color::White), Pattern::Five);
        let six = key_of("XX*XXX") as u32;
        assert_eq!(renju.at(six).get(Color::Black), Pattern::Overline);
        assert_eq!(renju.at(swap_colours(six)).get(Color::White), Pattern::Five);
    }

    #[test]
    fn freestyle_pairs_read_every_key_as_the_full_tables_do() {
        let free = pairs(LineRule::Free, LineRule::Free);
        let table = black_table(LineRule::Free);
        for key in 0..KEY_COUNT as u32 {
            let expected = PatternPair::new(table[key as usize], table[swap_colours(key) as usize]);
            assert_eq!(free.at(key), expected, "key {key:#x}");
        }
    }

    #[test]
    fn swap_colours_is_an_involution_keeping_walls() {
        for key in [0u32, 0xF_FFFF, 0x1_2345, 0xA_BCDE] {
            assert_eq!(swap_colours(swap_colours(key)), key);
        }
        assert_eq!(swap_colours(CODE_WALL), CODE_WALL);
        assert_eq!(swap_colours(CODE_BLACK), CODE_WHITE);
    }
}

/// What playing a point makes for one side, all four lines together, weakest first.
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash, Default)]
pub enum Threat {
    /// Nothing, or an occupied point.
    #[default]
    None = 0,
    /// Black may not play here under renju: an overline or two fours, and no five.
    Forbidden,
    One,
    Block2,
    Flex2,
    Flex2x2,
    Block3,
    Block3Plus,
    Flex3,
    Flex3Plus,
    Block4,
    Block4Plus,
    /// Two flex threes (never for Black under renju, where they are a foul or hide a
    /// false three).
    Flex3x2,
    /// A four and a flex three.
    Block4Flex3,
    /// A four that cannot be stopped: straight four, or two fours.
    Flex4,
    Five,
}

pub const THREAT_KINDS: usize = Threat::Five as usize + 1;

/// Number of line patterns, the base of a point's pattern combination code.
pub const PATTERN_KINDS: usize = Pattern::Five as usize + 1;
/// Distinct combinations of four line patterns.
pub const COMBINATIONS: usize = PATTERN_KINDS.pow(4);

/// Weight of direction `d` in a combination code `Σ pattern[d] · PATTERN_KINDS^d`.
/// Read from a table: `pow` with a run-time exponent loops, on the board's hottest path.
pub const fn combination_weight(d: usize) -> u16 {
    const WEIGHTS: [u16; 4] = {
        let base = PATTERN_KINDS as u16;
        [1, base, base * base, base * base * base]
    };
    WEIGHTS[d]
}

/// The four line patterns a combination code stands for.
pub fn combination_patterns(code: usize) -> [Pattern; 4] {
    std::array::from_fn(|d| {
        Pattern::from_u8((code / PATTERN_KINDS.pow(d as u32) % PATTERN_KINDS) as u8)
    })
}

/// [`Threat::classify`] of every combination code: the first `COMBINATIONS` entries
/// without renju fouls, the next with them (for Black under renju).
pub fn threat_table() -> &'static [Threat] {
    static TABLE: OnceLock<Vec<Threat>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Vec::with_capacity(2 * COMBINATIONS);
        for renju_black in [false, true] {
            for code in 0..COMBINATIONS {
                table.push(Threat::classify(combination_patterns(code), renju_black));
            }
        }
        table
    })
}

impl Threat {
    /// Whether playing here makes at least one four (or five).
    pub fn makes_four(self) -> bool {
        self >= Threat::Block4 && self != Threat::Flex3x2
    }

    /// Combines the four line patterns of a point. `renju_black` marks overlines and
    /// double-fours as forbidden, and a double three as one three.
    pub fn classify(patterns: [Pattern; 4], renju_black: bool) -> Threat {
        let mut count = [0u8; PATTERN_KINDS];
        for p in patterns {
            count[p as usize] += 1;
        }
        let n = |p: Pattern| count[p as usize];
        let fours = n(Pattern::Block4) + n(Pattern::Flex4) + 2 * n(Pattern::Double4);
        if n(Pattern::Five) > 0 {
            return Threat::Five;
        }
        if renju_black && (n(Pattern::Overline) > 0 || fours >= 2) {
            return Threat::Forbidden;
        }
        let threes = n(Pattern::Flex3);
        let minor = n(Pattern::Block3) + n(Pattern::Flex2);
        match (fours, threes) {
            (2.., _) => Threat::Flex4,
            _ if n(Pattern::Flex4) > 0 => Threat::Flex4,
            (1, 1..) => Threat::Block4Flex3,
            // Black's two threes under renju are a foul, unless one is false (its four
            // would be a foul): at most one real three either way.
            (0, 2..) if renju_black => Threat::Flex3Plus,
            (0, 2..) => Threat::Flex3x2,
            (1, 0) if minor > 0 => Threat::Block4Plus,
            (1, 0) => Threat::Block4,
            (0, 1) if minor > 0 => Threat::Flex3Plus,
            (0, 1) => Threat::Flex3,
            _ if n(Pattern::Block3) >= 2 || (n(Pattern::Block3) == 1 && n(Pattern::Flex2) > 0) => {
                Threat::Block3Plus
            }
            _ if n(Pattern::Block3) == 1 => Threat::Block3,
            _ if n(Pattern::Flex2) >= 2 => Threat::Flex2x2,
            _ if n(Pattern::Flex2) == 1 => Threat::Flex2,
            _ if n(Pattern::Block2) > 0 => Threat::Block2,
            _ if n(Pattern::Flex1) + n(Pattern::Block1) > 0 => Threat::One,
            _ => Threat::None,
        }
    }
}

#[cfg(test)]
mod threat_tests {
    use super::Pattern as P;
    use super::*;

    #[test]
    fn threats_combine_lines() {
        let t = |p: [Pattern; 4]| Threat::classify(p, false);
        assert_eq!(t([P::Five, P::None, P::None, P::None]), Threat::Five);
        assert_eq!(t([P::Block4, P::Block4, P::None, P::None]), Threat::Flex4);
        assert_eq!(t([P::Double4, P::None, P::None, P::None]), Threat::Flex4);
        assert_eq!(
            t([P::Block4, P::Flex3, P::None, P::None]),
            Threat::Block4Flex3
        );
        assert_eq!(t([P::Flex3, P::Flex3, P::None, P::None]), Threat::Flex3x2);
        assert_eq!(
            t([P::Flex3, P::Block3, P::None, P::None]),
            Threat::Flex3Plus
        );
        assert_eq!(t([P::Block2, P::Flex1, P::None, P::None]), Threat::Block2);
        assert_eq!(
            t([P::Overline, P::Block4, P::None, P::None]),
            Threat::Block4
        );
        let renju = |p: [Pattern; 4]| Threat::classify(p, true);
        assert_eq!(
            renju([P::Overline, P::Block4, P::None, P::None]),
            Threat::Forbidden
        );
        assert_eq!(
            renju([P::Block4, P::Block4, P::None, P::None]),
            Threat::Forbidden
        );
        assert_eq!(
            renju([P::Five, P::Overline, P::None, P::None]),
            Threat::Five
        );
        assert_eq!(
            renju([P::Flex3, P::Flex3, P::None, P::None]),
            Threat::Flex3Plus
        );
        assert!(Threat::Block4.makes_four() && !Threat::Flex3x2.makes_four());
    }
}

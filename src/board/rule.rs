//! The rule a board is played under: which lines win for each colour, and the Gomocup
//! rule mask that names it. It lives with the board, which judges lines by it; what a
//! rule forbids (renju's fouls) is decided in the `rules` module.

use super::color::Color;
use super::pattern::{self, LineRule, PairTable};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Rule {
    /// Five or more wins.
    Freestyle,
    /// Exactly five wins, for both sides.
    Standard,
    /// White wins with five or more, Black with exactly five; Black has forbidden points.
    Renju,
    /// Five or more wins, except an exact five blocked by opponent stones at both ends.
    Caro,
}

/// A `rule` value of INFO decoded: the rule and whether the game is continuous.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RuleSetting {
    pub rule: Rule,
    pub continuous: bool,
}

impl RuleSetting {
    /// Decodes the bit mask of `INFO rule`; a bare 2 means renju, as Yixin-Board sends it.
    pub fn from_mask(mask: u64) -> Option<RuleSetting> {
        if mask == 2 {
            return Some(RuleSetting {
                rule: Rule::Renju,
                continuous: false,
            });
        }
        let rule = match mask & !2 {
            0 => Rule::Freestyle,
            1 => Rule::Standard,
            4 => Rule::Renju,
            8 => Rule::Caro,
            _ => return None,
        };
        Some(RuleSetting {
            rule,
            continuous: mask & 2 != 0,
        })
    }
}

impl Rule {
    /// The rule's number in `INFO rule` (without the continuous bit).
    pub fn number(self) -> u8 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
        }
    }

    /// How a run through a new stone of `color` is judged.
    pub fn line_rule(self, color: Color) -> LineRule {
        match (self, color) {
            (Rule::Freestyle, _) | (Rule::Renju, Color::White) => LineRule::Free,
            (Rule::Standard, _) => LineRule::Exact,
            (Rule::Renju, Color::Black) => LineRule::Renju,
            (Rule::Caro, _) => LineRule::Caro,
        }
    }

    /// Both colours' pattern at each line key under this rule, see [`pattern::pairs`].
    pub fn pattern_pairs(self) -> &'static PairTable {
        pattern::pairs(self.line_rule(Color::Black), self.line_rule(Color::White))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_s_number_decodes_back_to_it() {
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
            let setting = RuleSetting::from_mask(u64::from(rule.number())).unwrap();
            assert_eq!((setting.rule, setting.continuous), (rule, false));
        }
    }

    #[test]
    fn rule_masks_decode_as_documented() {
        let rule = |mask| RuleSetting::from_mask(mask).map(|s| (s.rule, s.continuous));
        assert_eq!(rule(0), Some((Rule::Freestyle, false)));
        assert_eq!(rule(1), Some((Rule::Standard, false)));
        assert_eq!(rule(2), Some((Rule::Renju, false)));
        assert_eq!(rule(3), Some((Rule::Standard, true)));
        assert_eq!(rule(4), Some((Rule::Renju, false)));
        assert_eq!(rule(6), Some((Rule::Renju, true)));
        assert_eq!(rule(8), Some((Rule::Caro, false)));
        assert_eq!(rule(5), None);
        assert_eq!(rule(16), None);
    }
}

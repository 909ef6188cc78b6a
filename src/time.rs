//! INFO time settings → how long to think: a soft budget (start no new iteration after
//! it) and a hard limit (stop at once). Pure arithmetic on durations, so tests need no
//! clock.
//!
//! The hard limit never exceeds `timeout_turn` less a safety margin for process and
//! pipe latency, nor a quarter of `time_left`. The soft budget is that same limit when
//! the turn alone limits, and with a match clock a fair share of the time left for the
//! moves still expected.

use std::time::Duration;

/// Kept back from every limit for reading the command, writing the answer and the
/// manager's own latency: a fixed part plus 3 % of the turn, at most 250 ms. Measured
/// by c-gomoku-cli with both cores busy (two games at once): of 19 070 answers at
/// 0.3 s/turn none came 30 ms or more after the hard limit, and of 1 400 at 1 s/turn
/// 85 % within 10 ms. With this margin (a hard limit of 261 ms at 0.3 s) and the machine
/// loaded beyond its two cores, 99 % of 19 845 answers came within 274 ms, 10 after
/// 300 ms, the longest at 359 ms. Managers allow for more: c-gomoku-cli 1 s past the
/// turn by default, Piskvork a tolerance of 1 s.
const FIXED_MARGIN_MS: i64 = 30;
const MARGIN_PERCENT: i64 = 3;
const MAX_PROPORTIONAL_MARGIN_MS: i64 = 250;
/// `time_left` at or above this means no match limit (what Piskvork sends then).
const UNLIMITED_MS: i64 = i32::MAX as i64;
/// With `timeout_turn 0`: answer from a shallow search at once.
const INSTANT_MS: i64 = 30;
pub const INSTANT_DEPTH: u32 = 4;
/// Moves assumed still to come when sharing out the match time: one per this many
/// empty points, at least `MIN_MOVES_TO_GO`. Half our games against pisq, AIWine and
/// Rapfi end within 40 plies and nine in ten within about 90, so 20x20 starts with 39
/// moves to go.
const EMPTY_POINTS_PER_MOVE: i64 = 10;
const MIN_MOVES_TO_GO: i64 = 12;
/// With a match clock, the soft budget is at most this share of the turn limit. When the
/// turn alone limits, time not spent is lost and an unfinished iteration may still find
/// a better move, so the soft budget is the whole turn.
const SOFT_PERCENT: i64 = 45;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeSettings {
    pub turn_ms: i64,
    pub match_ms: i64,
    pub left_ms: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft: Duration,
    pub hard: Duration,
    /// Set when the search must stay shallow (`timeout_turn 0`).
    pub max_depth: Option<u32>,
}

fn ms(value: i64) -> Duration {
    Duration::from_millis(value.max(1) as u64)
}

/// The budget for one move with `empty_points` empty points left on the board.
pub fn budget(settings: TimeSettings, empty_points: usize) -> Budget {
    if settings.turn_ms == 0 {
        return Budget {
            soft: ms(INSTANT_MS / 2),
            hard: ms(INSTANT_MS),
            max_depth: Some(INSTANT_DEPTH),
        };
    }
    let proportional = (settings.turn_ms * MARGIN_PERCENT / 100).min(MAX_PROPORTIONAL_MARGIN_MS);
    let turn_limit = settings.turn_ms - FIXED_MARGIN_MS - proportional;
    let mut hard = turn_limit;
    let mut soft = turn_limit;
    let match_limited = settings.match_ms > 0 && settings.left_ms < UNLIMITED_MS;
    if match_limited {
        let left = settings.left_ms.max(0);
        let moves_to_go = (empty_points as i64 / EMPTY_POINTS_PER_MOVE).max(MIN_MOVES_TO_GO);
        hard = hard.min(left / 4 - FIXED_MARGIN_MS);
        soft = (turn_limit * SOFT_PERCENT / 100).min(left / moves_to_go);
    }
    Budget {
        soft: ms(soft.min(hard)),
        hard: ms(hard),
        max_depth: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn_only(turn_ms: i64) -> Budget {
        budget(
            TimeSettings {
                turn_ms,
                match_ms: 0,
                left_ms: UNLIMITED_MS,
            },
            200,
        )
    }

    #[test]
    fn a_turn_limit_keeps_a_margin() {
        let b = turn_only(1000);
        assert_eq!(b.hard, Duration::from_millis(940));
        assert_eq!(b.soft, b.hard);
        assert_eq!(turn_only(5000).hard, Duration::from_millis(4820));
        assert!(turn_only(10).hard >= Duration::from_millis(1));
    }

    #[test]
    fn zero_turn_time_means_a_shallow_instant_answer() {
        let b = turn_only(0);
        assert!(b.hard <= Duration::from_millis(INSTANT_MS as u64));
        assert_eq!(b.max_depth, Some(INSTANT_DEPTH));
    }

    fn match_clock(turn_ms: i64, match_ms: i64, left_ms: i64) -> TimeSettings {
        TimeSettings {
            turn_ms,
            match_ms,
            left_ms,
        }
    }

    #[test]
    fn little_match_time_left_caps_the_move() {
        let settings = match_clock(5000, 180_000, 400);
        let b = budget(settings, 150);
        assert!(b.hard <= Duration::from_millis(100), "{b:?}");
        let broke = budget(match_clock(5000, 180_000, -50), 150);
        assert_eq!(broke.hard, Duration::from_millis(1));
    }

    #[test]
    fn match_time_is_shared_over_the_moves_to_come() {
        let settings = match_clock(30_000, 120_000, 120_000);
        let b = budget(settings, 400);
        assert_eq!(b.soft, Duration::from_millis(3000));
        assert_eq!(b.hard, Duration::from_millis(29_720));
        assert!(
            budget(settings, 40).soft > b.soft,
            "fewer moves to come, more each"
        );
    }

    #[test]
    fn with_a_match_clock_the_soft_budget_keeps_below_the_turn_limit() {
        let b = budget(match_clock(5000, 120_000, 60_000), 40);
        assert_eq!(b.hard, Duration::from_millis(4820));
        assert_eq!(b.soft, Duration::from_millis(4820 * 45 / 100));
    }
}

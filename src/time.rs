//! INFO time settings → how long to think: a soft budget (start no new iteration after
//! it) and a hard limit (stop at once). Pure arithmetic on durations, so tests need no
//! clock.
//!
//! The hard limit never exceeds `timeout_turn` less a safety margin for process and
//! pipe latency, nor a quarter of `time_left` less a small reserve for the moves that
//! may still have to be made. The soft budget is that same limit, or with a match clock
//! a fair share of that time for the moves still expected if that is less.

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
/// empty points, at least `MIN_MOVES_TO_GO`, so 20x20 starts with 26 moves to go and
/// 15x15 with 15. Half our games against pisq, AIWine and Rapfi end within 40 plies,
/// and over half of a side's answers are forced or found by threat search in a few
/// milliseconds (in renju self-play at 12 s/match and 0.5 s/turn, 53 % within 50 ms),
/// so the time a game's thinking moves may take is the match time spread over fewer
/// moves than the game will last.
const EMPTY_POINTS_PER_MOVE: i64 = 15;
const MIN_MOVES_TO_GO: i64 = 12;
/// Kept back from the match clock for each move this side may still have to make (half
/// the empty points): an answer costs a few milliseconds however little it thinks
/// (c-gomoku-cli timed instant ones at 3-4 ms), so a long game must not spend the clock
/// down to nothing. Without it, renju self-play at 12 s/match and 0.5 s/turn lost 2 of
/// 1 092 games on time, after 181 and 200 moves.
const RESERVE_PER_MOVE_MS: i64 = 5;

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
        let reserve = RESERVE_PER_MOVE_MS * ((empty_points as i64 + 1) / 2);
        let usable = (settings.left_ms - reserve).max(0);
        let moves_to_go = (empty_points as i64 / EMPTY_POINTS_PER_MOVE).max(MIN_MOVES_TO_GO);
        hard = hard.min(usable / 4 - FIXED_MARGIN_MS);
        soft = turn_limit.min(usable / moves_to_go);
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
        assert_eq!(b.soft, Duration::from_millis((120_000 - 1000) / 26));
        assert_eq!(b.hard, Duration::from_millis(29_720));
        assert!(
            budget(settings, 40).soft > b.soft,
            "fewer moves to come, more each"
        );
    }

    #[test]
    fn with_a_match_clock_to_spare_the_whole_turn_is_used() {
        let b = budget(match_clock(5000, 120_000, 120_000), 225);
        assert_eq!(b.hard, Duration::from_millis(4820));
        assert_eq!(b.soft, b.hard);
        let later = budget(match_clock(5000, 120_000, 30_000), 150);
        assert_eq!(later.soft, Duration::from_millis((30_000 - 375) / 12));
    }

    /// A game that fills the board, each answer taking its whole hard limit and 4 ms
    /// more on the way back to the manager, ends with time on the clock.
    #[test]
    fn the_clock_lasts_a_game_that_fills_the_board() {
        for (turn_ms, match_ms, size) in [(500, 12_000, 15), (5000, 120_000, 20), (100, 2000, 15)] {
            let mut left = match_ms;
            for empty_points in (1..size * size).rev().step_by(2) {
                let b = budget(match_clock(turn_ms, match_ms, left), empty_points);
                left -= b.hard.as_millis() as i64 + 4;
                assert!(
                    left > 0,
                    "{turn_ms}/{match_ms} ms ran out at {empty_points} empty points"
                );
            }
        }
    }
}

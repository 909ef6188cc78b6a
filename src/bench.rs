//! `pbrain-lianzhu bench`: fixed positions searched to a fixed depth on one thread with a
//! fresh table. The node count is the same on every run and every machine; a change
//! that alters it changes what the search does.

use crate::board::{Board, Pos};
use crate::net::Network;
use crate::rules::Rule;
use crate::search::{Engine, LastProgress, Limits, Progress};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

pub const DEFAULT_DEPTH: u32 = 6;
const TABLE_BYTES: usize = 16 << 20;

/// (rule, board size, moves in order from the empty board): an opening and a middle
/// game (from self-play, undecided at depth 6) for freestyle 15 and 20, standard, renju
/// and caro, and a renju middle game with White to move where the search checks Black's
/// fouls on White's turn.
const POSITIONS: [(Rule, usize, &str); 10] = [
    (Rule::Freestyle, 15, "7,7 8,8"),
    (
        Rule::Freestyle,
        15,
        "7,7 8,8 9,6 9,7 7,6 7,8 8,5 10,6 7,9 10,8",
    ),
    (Rule::Freestyle, 20, "10,10 11,9 9,11"),
    (
        Rule::Freestyle,
        20,
        "10,10 11,9 9,11 9,9 8,9 10,8 8,10 9,7 12,10",
    ),
    (Rule::Standard, 15, "7,7 7,8 9,7 6,7 8,8 9,9"),
    (Rule::Renju, 15, "7,7 8,7 8,9"),
    (
        Rule::Renju,
        15,
        "7,7 8,7 8,9 8,6 7,9 7,6 6,6 9,9 9,8 8,5 8,4 6,7 9,4 7,5 4,9",
    ),
    (
        Rule::Renju,
        15,
        "6,8 7,5 6,5 8,6 9,7 7,6 7,4 6,7 8,5 9,6 6,6 4,7 7,7 5,8 6,9 5,5 5,9",
    ),
    (
        Rule::Caro,
        15,
        "7,7 6,8 5,6 5,7 7,6 7,8 6,5 4,6 3,5 4,8 8,8 6,6",
    ),
    (Rule::Caro, 15, "7,7 6,8"),
];

/// The bench positions as boards.
pub fn positions() -> Vec<Board> {
    POSITIONS
        .iter()
        .map(|&(rule, size, moves)| {
            let mut board = Board::new(size, size, rule);
            for text in moves.split_whitespace() {
                let (x, y) = text.split_once(',').expect("x,y");
                let pos = Pos::new(x.parse().expect("x"), y.parse().expect("y"));
                board.play(pos);
            }
            board
        })
        .collect()
}

pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

impl BenchResult {
    pub fn nodes_per_second(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches every position to `depth`; `each` hears about every position searched.
/// Only the searches are timed: building the pattern tables and allocating the
/// transposition tables are left out, so nodes per second measure the search.
/// Positions of a rule that one of `networks` is for are scored by it.
pub fn run(
    depth: u32,
    networks: &[Arc<Network>],
    mut each: impl FnMut(usize, &Progress),
) -> BenchResult {
    let mut elapsed = Duration::ZERO;
    let mut nodes = 0;
    for (index, board) in positions().iter().enumerate() {
        let mut engine = Engine::new(TABLE_BYTES);
        engine.use_networks(networks.to_vec());
        let limits = Limits {
            max_depth: Some(depth),
            ..Limits::default()
        };
        let mut last = LastProgress::default();
        let started = Instant::now();
        engine.best_moves(board, 1, &limits, &AtomicBool::new(false), &mut last);
        elapsed += started.elapsed();
        if let Some(progress) = last.0 {
            nodes += progress.nodes;
            each(index, &progress);
        }
    }
    BenchResult { nodes, elapsed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules;

    #[test]
    fn positions_are_legal_and_undecided() {
        for board in positions() {
            assert_eq!(rules::winner(&board), None, "\n{board}");
        }
    }

    #[test]
    fn a_shallow_bench_repeats_its_node_count() {
        let first = run(3, &[], |_, _| {}).nodes;
        assert!(first > 0);
        assert_eq!(run(3, &[], |_, _| {}).nodes, first);
    }
}

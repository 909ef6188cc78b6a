//! Choosing a move. Never prints and never reads input: progress goes to a [`Reporter`],
//! and a shared stop flag ends the thinking early.
//!
//! For now the choice is the static one-ply ranking of [`eval`]: win, block a five,
//! make or stop a four, otherwise the best pattern point.

use crate::board::{Board, Pos};
use crate::eval;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What the caller allows this search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub deadline: Option<Instant>,
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
}

/// One line of progress, sent after each finished iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub depth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Pos>,
}

pub trait Reporter {
    fn progress(&mut self, progress: &Progress);
}

/// A scored move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredMove {
    pub pos: Pos,
    pub score: i32,
}

/// The `count` best legal moves for the side to move, best first; empty when the side
/// has no legal move.
pub fn best_moves(
    board: &Board,
    count: usize,
    _limits: &Limits,
    _stop: &AtomicBool,
    reporter: &mut dyn Reporter,
) -> Vec<ScoredMove> {
    let started = Instant::now();
    let mut board = board.clone();
    let ranked: Vec<ScoredMove> = eval::ranked_moves(&mut board)
        .into_iter()
        .take(count.max(1))
        .map(|(pos, score)| ScoredMove { pos, score })
        .collect();
    if let Some(best) = ranked.first() {
        reporter.progress(&Progress {
            depth: 1,
            score: best.score,
            nodes: ranked.len() as u64,
            elapsed: started.elapsed(),
            pv: vec![best.pos],
        });
    }
    ranked
}

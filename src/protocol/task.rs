//! Work for the worker thread: a search for moves, a swap2 decision, balancing stones,
//! or pondering, and what each hands back.

use crate::board::{Board, Pos};
use crate::opening::{Swap2, Swap2Answer};
use crate::search::{Engine, Limits, Progress, Reporter, RootEvent, ScoredMove};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

/// Work for the worker thread.
#[derive(Clone)]
pub enum Task {
    /// Find the `count` best moves of the side to move; with `play`, play the best.
    Think {
        engine: Arc<Mutex<Engine>>,
        board: Board,
        count: usize,
        play: bool,
        limits: Limits,
        /// Yixin-Board's realtime marks are wanted (`INFO show_detail` 1 or 3).
        realtime: bool,
    },
    Swap2 {
        engine: Arc<Mutex<Engine>>,
        board: Board,
        limits: Limits,
    },
    /// YXBALANCEONE / YXBALANCETWO: `stones` stones (1 or 2) that leave the position
    /// closest to `bias` for the side to move.
    Balance {
        engine: Arc<Mutex<Engine>>,
        board: Board,
        limits: Limits,
        stones: usize,
        bias: i32,
    },
    /// Think on the opponent's time (`INFO pondering 1`) until stopped, only to fill
    /// the table for the next search; nothing is reported.
    Ponder {
        engine: Arc<Mutex<Engine>>,
        board: Board,
        limits: Limits,
    },
}

/// Passes every report on, and keeps the depth of the last finished iteration.
struct DepthReached<'a> {
    reporter: &'a mut dyn Reporter,
    depth: u32,
}

impl Reporter for DepthReached<'_> {
    fn progress(&mut self, progress: &Progress) {
        self.depth = progress.depth;
        self.reporter.progress(progress);
    }

    fn root_event(&mut self, event: &RootEvent) {
        self.reporter.root_event(event);
    }
}

/// What the worker hands back.
#[derive(Debug)]
pub enum TaskResult {
    Moves {
        moves: Vec<ScoredMove>,
        count: usize,
        play: bool,
        /// The depth of the last finished iteration (0 when none was needed).
        depth: u32,
    },
    Swap2(Swap2Answer),
    /// The balancing stones, in move order; `None` when no legal point is free.
    Balance(Option<Vec<Pos>>),
    Pondered,
}

impl Task {
    /// Carries the task out; runs on the worker thread.
    pub fn run(self, stop: &AtomicBool, reporter: &mut dyn Reporter) -> TaskResult {
        match self {
            Task::Think {
                engine,
                board,
                count,
                play,
                limits,
                ..
            } => {
                let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
                let mut depth = DepthReached { reporter, depth: 0 };
                let moves = engine.best_moves(&board, count, &limits, stop, &mut depth);
                TaskResult::Moves {
                    moves,
                    count,
                    play,
                    depth: depth.depth,
                }
            }
            Task::Swap2 {
                engine,
                board,
                limits,
            } => {
                let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
                TaskResult::Swap2(Swap2::new(&mut engine, &limits, stop).answer(&board))
            }
            Task::Balance {
                engine,
                board,
                limits,
                stones,
                bias,
            } => {
                let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
                let mut balancer = Swap2::new(&mut engine, &limits, stop);
                TaskResult::Balance(balancer.balance(&board, stones, bias))
            }
            Task::Ponder {
                engine,
                board,
                limits,
            } => {
                let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
                engine.ponder(&board, &limits, stop);
                TaskResult::Pondered
            }
        }
    }

    /// Whether the task only uses idle time and gives way to the next command.
    pub fn is_ponder(&self) -> bool {
        matches!(self, Task::Ponder { .. })
    }

    /// Whether the search should show its root moves as it goes.
    pub fn wants_realtime(&self) -> bool {
        matches!(self, Task::Think { realtime: true, .. })
    }
}

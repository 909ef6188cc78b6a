//! Lazy SMP: helper threads run the same iterative deepening as the main thread,
//! sharing the table, and the answer is a vote of every thread's last finished
//! iteration.

use super::common::*;
use super::worker::{Search, Shared, ThreadState};
use crate::board::{Board, Pos};
use std::sync::atomic::{AtomicBool, Ordering};

/// Runs `main` beside one helper search thread per state in `helpers`; `main` gets a
/// function that stops the helpers and returns their last finished iterations.
pub(super) fn with_helpers<R>(
    shared: &Shared,
    helpers: &mut [ThreadState],
    board: &Board,
    limits: &Limits,
    main: impl FnOnce(&mut dyn FnMut() -> Vec<Finished>) -> R,
) -> R {
    let helpers_stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let mut handles: Vec<_> = helpers
            .iter_mut()
            .enumerate()
            .map(|(i, state)| {
                let helpers_stop = &helpers_stop;
                scope.spawn(move || {
                    let mut search = Search::new(shared, state, board, limits, helpers_stop);
                    search.help(2 + i as i32 % 2)
                })
            })
            .collect();
        let mut finish_helpers = || {
            helpers_stop.store(true, Ordering::Relaxed);
            handles
                .drain(..)
                .filter_map(|h| h.join().expect("a search thread panicked"))
                .collect()
        };
        let result = main(&mut finish_helpers);
        helpers_stop.store(true, Ordering::Relaxed);
        result
    })
}

/// The move the threads agree on: the quickest proven win if a thread found one, else,
/// among the moves not proven lost (if any), the one whose voters finished the most
/// depth in all. A later vote wins a tie, so the main thread votes last.
pub(super) fn elect(votes: &[Finished]) -> Option<Finished> {
    let won = votes.iter().filter(|v| is_mate(v.score) && v.score > 0);
    if let Some(win) = won.max_by_key(|v| v.score) {
        return Some(*win);
    }
    let lost = |v: &&Finished| is_mate(v.score) && v.score < 0;
    let all_lost = votes.iter().all(|v| lost(&v));
    let weight = |pos: Pos| -> i32 { votes.iter().filter(|v| v.pos == pos).map(|v| v.depth).sum() };
    votes
        .iter()
        .filter(|v| all_lost || !lost(v))
        .max_by_key(|v| (weight(v.pos), v.depth))
        .copied()
}

/// A search thread's last finished iteration.
#[derive(Clone, Copy, Debug)]
pub(super) struct Finished {
    pub(super) pos: Pos,
    pub(super) score: i32,
    pub(super) depth: i32,
}

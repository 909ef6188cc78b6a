//! The engine facade: what lives from move to move (the table, each thread's history
//! and VCF cache, the expected reply for pondering), memory sizing, and the entry points
//! [`Engine::best_moves`] and [`Engine::ponder`].

use super::common::*;
use super::smp::with_helpers;
use super::tt::TranspositionTable;
use super::worker::{Search, Shared, ThreadState};
use crate::board::{Board, Pos};
use crate::net::Network;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The search state kept between moves: the table, shared by all search threads, and
/// each thread's history and VCF cache (the first is the main thread's).
pub struct Engine {
    pub(super) tt: TranspositionTable,
    pub(super) threads: Vec<ThreadState>,
    /// Set by [`Engine::ponder`]: the next search continues it, in the same table
    /// generation, so the pondered entries are current for the replacement policy.
    pub(super) pondered: bool,
    /// The opponent's reply the last search expects (the second move of its principal
    /// variation), with the hash of the position it is expected in.
    pub(super) expected_reply: Option<(u64, Pos)>,
    /// The learned evaluations in use, no two scoring the same boards (see
    /// [`Network::overlaps`]); a board none fits is scored by the classical evaluation.
    networks: Vec<Arc<Network>>,
    /// Whether a search has stored scores in the table since it was last emptied; an
    /// empty table needs no clearing (a cleared table is a fresh allocation).
    table_written: bool,
}

/// Most search threads `INFO thread_num` may ask for.
pub const MAX_THREADS: usize = 64;
/// Memory a search thread needs besides the shared table: VCF cache, move lists, stack.
pub(super) const THREAD_BYTES: u64 = 3 << 20;

/// The whole process's budget when `INFO max_memory` is 0 or absent.
pub const DEFAULT_PROCESS_BYTES: u64 = 350 << 20;
/// What the process needs besides the table: pattern tables, boards, stacks, code.
pub(super) const PROCESS_OVERHEAD_BYTES: u64 = 24 << 20;
pub(super) const MIN_TABLE_BYTES: u64 = 1 << 20;

/// Table size that keeps the whole process within `max_memory` bytes (0: the default)
/// with `threads` search threads.
pub fn table_bytes_for(max_memory: u64, threads: usize) -> usize {
    let budget = if max_memory == 0 {
        DEFAULT_PROCESS_BYTES
    } else {
        max_memory
    };
    let threads = threads.clamp(1, MAX_THREADS) as u64;
    budget
        .saturating_sub(PROCESS_OVERHEAD_BYTES + (threads - 1) * THREAD_BYTES)
        .max(MIN_TABLE_BYTES) as usize
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(table_bytes_for(0, 1))
    }
}

impl Engine {
    pub fn new(table_bytes: usize) -> Engine {
        Engine {
            tt: TranspositionTable::new(table_bytes),
            threads: vec![ThreadState::new()],
            pondered: false,
            expected_reply: None,
            networks: Vec::new(),
            table_written: false,
        }
    }

    /// Scores the boards `network` fits with it from the next search on, in place of
    /// any network for some of the same boards. The table is cleared, its scores came
    /// from another evaluation, unless the network is one already in use: a manager sends the same file before every game, and a
    /// cleared table is a fresh allocation, slow to release and to fault in again.
    pub fn set_network(&mut self, network: Arc<Network>) {
        if self.networks.iter().any(|n| **n == *network) {
            return;
        }
        self.networks.retain(|n| !n.overlaps(&network));
        self.networks.push(network);
        self.forget_scores();
    }

    /// Goes back to the classical evaluation for every rule (the table is cleared).
    pub fn clear_networks(&mut self) {
        self.use_networks(Vec::new());
    }

    /// Scores with `networks` (no two for the same boards) and the classical evaluation
    /// for the boards none fits from the next search on; the table is cleared unless
    /// they are those in use.
    pub fn use_networks(&mut self, networks: Vec<Arc<Network>>) {
        let in_use = networks.len() == self.networks.len()
            && (networks.iter()).all(|n| self.networks.iter().any(|m| **m == **n));
        if !in_use {
            self.networks = networks;
            self.forget_scores();
        }
    }

    /// Empties the table, whose scores came from another evaluation, if it holds any.
    fn forget_scores(&mut self) {
        if std::mem::take(&mut self.table_written) {
            self.tt.clear();
        }
    }

    /// The network that scores `board`, if any.
    pub fn network(&self, board: &Board) -> Option<&Arc<Network>> {
        self.networks.iter().find(|n| n.fits(board))
    }

    /// Searches with `threads` threads (1 to [`MAX_THREADS`]) from the next move on; a
    /// new thread starts with an empty history and VCF cache.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads
            .resize_with(threads.clamp(1, MAX_THREADS), ThreadState::new);
    }

    /// Replaces the table by one of `bytes` bytes (the old entries are lost).
    pub fn resize_table(&mut self, bytes: usize) {
        if bytes != self.tt.size_bytes() {
            self.tt = TranspositionTable::new(bytes);
            self.table_written = false;
        }
    }

    /// The table's size in bytes, and how full it is in thousandths.
    pub fn table_usage(&self) -> (usize, u32) {
        (self.tt.size_bytes(), self.tt.usage_permill())
    }

    /// Forgets everything learnt: table, histories and VCF caches.
    pub fn clear(&mut self) {
        self.forget_scores();
        for thread in &mut self.threads {
            thread.history.iter_mut().for_each(|h| h.fill(0));
            thread.vcf_cache.clear();
        }
    }

    /// The `count` best legal moves for the side to move, best first; empty when it has
    /// no legal move. Progress goes to `reporter` after each iteration.
    ///
    /// With more than one thread and `count` 1 the search is Lazy SMP: helper threads
    /// run the same iterative deepening, starting at depth 2 or 3, sharing the table,
    /// and the answer is a vote of all threads' last finished iterations.
    pub fn best_moves(
        &mut self,
        board: &Board,
        count: usize,
        limits: &Limits,
        stop: &AtomicBool,
        reporter: &mut dyn Reporter,
    ) -> Vec<ScoredMove> {
        if !std::mem::take(&mut self.pondered) {
            self.tt.new_search();
        }
        self.table_written = true;
        for thread in &mut self.threads {
            for history in &mut thread.history {
                history.iter_mut().for_each(|h| *h /= 2);
            }
        }
        let network = self.network(board);
        let shared = Shared::new(&self.tt, network.cloned());
        let (main, helpers) = self.threads.split_first_mut().expect("a main thread");
        let mut main = Search::new(&shared, main, board, limits, stop);
        let (moves, reply) = if count != 1 || helpers.is_empty() {
            main.run(count, reporter, &mut Vec::new)
        } else {
            with_helpers(&shared, helpers, board, limits, |finish_helpers| {
                main.run(count, reporter, finish_helpers)
            })
        };
        self.expected_reply = reply.zip(moves.first()).map(|(reply, best)| {
            let mut after = board.clone();
            after.play(best.pos);
            (after.hash(), reply)
        });
        moves
    }

    /// Thinks on the opponent's time until stopped, for the table only: on the position
    /// after the reply the last search expects (the second move of its principal
    /// variation), where the next search most likely starts, or on `board` itself when
    /// it expects none.
    pub fn ponder(&mut self, board: &Board, limits: &Limits, stop: &AtomicBool) {
        let mut expected = board.clone();
        let opponent = board.to_move();
        if let Some((hash, reply)) = self.expected_reply
            && hash == board.hash()
            && crate::rules::is_legal(&mut expected, reply, opponent)
        {
            expected.play(reply);
        }
        self.best_moves(&expected, 1, limits, stop, &mut Silent);
        self.pondered = true;
    }
}

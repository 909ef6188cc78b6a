//! One search thread's state ([`Search`]): its board, counters, killers, principal
//! variations and move buffers, and the polling of the clock, node limit and stop flag;
//! what a thread keeps from move to move ([`ThreadState`]) and what the threads of one
//! search share ([`Shared`]). The root search is in [`super::root`], the tree below it
//! in [`super::node`].

use super::common::*;
use super::ordering::threatened;
use super::params::*;
use super::tt::TranspositionTable;
use super::vcf::VcfCache;
use crate::board::{Board, POINTS, Pos};
use crate::eval;
use crate::net::{Accumulator, Network};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// What one search thread keeps from move to move.
pub(super) struct ThreadState {
    pub(super) history: [Vec<i32>; 2],
    pub(super) vcf_cache: VcfCache,
}

impl ThreadState {
    pub(super) fn new() -> ThreadState {
        ThreadState {
            history: [vec![0; POINTS], vec![0; POINTS]],
            vcf_cache: VcfCache::default(),
        }
    }
}

/// What the threads of one search share: the table, the count of all their nodes and
/// the network that scores positions (none: the classical evaluation).
pub(super) struct Shared<'a> {
    pub(super) tt: &'a TranspositionTable,
    pub(super) nodes: AtomicU64,
    pub(super) network: Option<Arc<Network>>,
}

impl<'a> Shared<'a> {
    pub(super) fn new(tt: &'a TranspositionTable, network: Option<Arc<Network>>) -> Shared<'a> {
        Shared {
            tt,
            nodes: AtomicU64::new(0),
            network,
        }
    }
}

pub(super) struct Search<'a> {
    pub(super) tt: &'a TranspositionTable,
    /// Nodes of every thread, this one's added at each poll.
    pub(super) all_nodes: &'a AtomicU64,
    /// This thread's nodes already added to `all_nodes`.
    pub(super) counted: u64,
    pub(super) history: &'a mut [Vec<i32>; 2],
    pub(super) vcf_cache: &'a mut VcfCache,
    pub(super) board: Board,
    /// The network's sums for `board`, kept up to date by [`Search::play`] and
    /// [`Search::undo`]; none with the classical evaluation.
    pub(super) accumulator: Option<Accumulator>,
    pub(super) limits: &'a Limits,
    pub(super) stop: &'a AtomicBool,
    pub(super) started: Instant,
    pub(super) nodes: u64,
    /// Node count at which [`Search::poll`] next looks at the clock.
    pub(super) next_poll: u64,
    pub(super) stopped: bool,
    pub(super) killers: [[Option<Pos>; 2]; MAX_PLY + 1],
    /// `static_evals[ply]`: the static score of the node at `ply`, `None` when a threat
    /// forces its moves (the score does not stand there).
    pub(super) static_evals: [Option<i32>; MAX_PLY + 1],
    /// `pv[ply]`: the principal variation from the node at `ply`.
    pub(super) pv: Vec<Vec<Pos>>,
    pub(super) move_lists: Vec<MoveLists>,
    /// `excluded[ply]`: the move the node at `ply` leaves out while it tests whether
    /// that move is singular.
    pub(super) excluded: [Option<Pos>; MAX_PLY + 1],
    /// The depth of the current iteration: extensions stop at twice as many plies.
    pub(super) root_depth: i32,
}

/// The move buffers of one ply, reused from node to node.
#[derive(Default, Clone)]
pub(super) struct MoveLists {
    pub(super) moves: Vec<Pos>,
    pub(super) scored: Vec<(i64, Pos)>,
}

/// A stop test for threat searches: a share of the time left before `deadline`, or the
/// stop flag.
pub(super) fn interruption(
    deadline: Option<Instant>,
    share_percent: u32,
    stop: &AtomicBool,
) -> impl Fn() -> bool + '_ {
    let now = Instant::now();
    let deadline = deadline.map(|d| now + d.saturating_duration_since(now) * share_percent / 100);
    move || deadline.is_some_and(|d| Instant::now() >= d) || stop.load(Ordering::Relaxed)
}

impl<'a> Search<'a> {
    pub(super) fn new(
        shared: &'a Shared<'a>,
        state: &'a mut ThreadState,
        board: &Board,
        limits: &'a Limits,
        stop: &'a AtomicBool,
    ) -> Search<'a> {
        Search {
            tt: shared.tt,
            all_nodes: &shared.nodes,
            counted: 0,
            history: &mut state.history,
            vcf_cache: &mut state.vcf_cache,
            board: board.clone(),
            accumulator: shared
                .network
                .clone()
                .map(|net| Accumulator::new(net, board)),
            limits,
            stop,
            started: Instant::now(),
            nodes: 0,
            next_poll: 0,
            stopped: false,
            killers: [[None; 2]; MAX_PLY + 1],
            static_evals: [None; MAX_PLY + 1],
            pv: vec![Vec::new(); MAX_PLY + 1],
            move_lists: vec![MoveLists::default(); MAX_PLY + 1],
            excluded: [None; MAX_PLY + 1],
            root_depth: 0,
        }
    }

    /// Plays `pos` for the side to move, in the board and the network's sums.
    pub(super) fn play(&mut self, pos: Pos) {
        self.board.play(pos);
        if let Some(accumulator) = &mut self.accumulator {
            accumulator.placed(pos);
        }
    }

    /// Takes back the last [`Search::play`].
    pub(super) fn undo(&mut self) {
        let last = self.board.undo();
        if let (Some(accumulator), Some(last)) = (&mut self.accumulator, last) {
            accumulator.lifted(&self.board, last.pos);
        }
    }

    /// The static score of the position for the side to move: the network's where it has
    /// one, except where a threat narrows the moves, which the trainer leaves out
    /// (`train::is_fitted`) and where the classical score, which weighs threats, played
    /// better.
    pub(super) fn evaluate(&mut self) -> i32 {
        self.leaf_score(-INFINITY, INFINITY)
    }

    /// [`Search::evaluate`] where only how the score compares with the window
    /// `alpha..beta` matters much (see [`Search::score_within`]).
    pub(super) fn leaf_score(&mut self, alpha: i32, beta: i32) -> i32 {
        self.score_within(alpha, beta, threatened)
    }

    /// A node's static score where it already knows whether a threat forces its moves:
    /// none if one does (the score of such a node means nothing to its pruning).
    pub(super) fn static_eval(&mut self, threatened: bool, alpha: i32, beta: i32) -> Option<i32> {
        (!threatened).then(|| self.score_within(alpha, beta, |_| false))
    }

    /// [`Search::evaluate`], lazily: where the classical score lies [`LAZY_MARGIN`]
    /// outside the window `alpha..beta`, that score, since the network's correction
    /// would not bring it back and the network's update is the node's largest cost.
    /// `threatened` is asked only where the network would be.
    fn score_within(
        &mut self,
        alpha: i32,
        beta: i32,
        threatened: impl FnOnce(&Board) -> bool,
    ) -> i32 {
        let classical = eval::evaluate(&self.board);
        match &mut self.accumulator {
            Some(accumulator)
                if classical < beta.saturating_add(LAZY_MARGIN)
                    && classical > alpha.saturating_sub(LAZY_MARGIN)
                    && !threatened(&self.board) =>
            {
                accumulator.evaluate_given(&self.board, classical)
            }
            _ => classical,
        }
    }

    pub(super) fn progress(&self, depth: u32, score: i32, pv: Vec<Pos>) -> Progress {
        Progress {
            depth,
            score,
            nodes: self.all_nodes.load(Ordering::Relaxed) + self.nodes - self.counted,
            elapsed: self.started.elapsed(),
            pv,
        }
    }

    pub(super) fn past_soft_deadline(&self) -> bool {
        self.limits
            .soft_deadline
            .is_some_and(|d| Instant::now() >= d)
    }

    /// Looks at the clock, the node limit and the stop flag once every `POLL_INTERVAL`
    /// nodes, counting the nodes of leaf threat searches too.
    pub(super) fn poll(&mut self) {
        if self.nodes < self.next_poll {
            return;
        }
        self.next_poll = self.nodes + POLL_INTERVAL;
        let new_nodes = self.nodes - self.counted;
        self.counted = self.nodes;
        let all_nodes = self.all_nodes.fetch_add(new_nodes, Ordering::Relaxed) + new_nodes;
        let out_of_time = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
        let out_of_nodes = self.limits.max_nodes.is_some_and(|n| all_nodes >= n);
        if out_of_time || out_of_nodes || self.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
    }
}

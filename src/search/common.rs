//! The search's vocabulary, shared by all its files: scores and mates, depth units,
//! what a caller allows a search ([`Limits`]) and what it hears back ([`Progress`],
//! [`Reporter`], [`ScoredMove`]).

use crate::board::Pos;
use std::time::{Duration, Instant};

/// Score of a win on the board now; a win `n` plies ahead scores `MATE - n`.
pub const MATE: i32 = 1_000_000;
/// Deepest ply the search reaches (forced moves extend beyond the nominal depth).
pub const MAX_PLY: usize = 128;
/// Scores at or beyond this magnitude are mates: no line is longer than [`MAX_PLY`].
pub(super) const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
pub(super) const INFINITY: i32 = MATE + 1;
/// Deepest nominal depth of an iteration.
pub const MAX_DEPTH: u32 = 60;
/// Depth below the root counts in fractions of a ply, so that an extension or a
/// reduction can be smaller than a ply.
pub(super) const ONE_PLY: i32 = 32;
/// Score of a win found by the root VCT, whose length is not counted.
pub(super) const VCT_WIN: i32 = MATE - 100;

/// The score of the node at `ply` whose side to move makes five with its next move: no
/// line from that node scores more.
pub(super) fn win_next_move(ply: usize) -> i32 {
    MATE - ply as i32 - 1
}

/// The score of the node at `ply` whose opponent makes five after its next move
/// whatever it plays: no line from that node scores less.
pub(super) fn lost_after_next_move(ply: usize) -> i32 {
    -(MATE - ply as i32 - 2)
}

/// `plies` as a search depth.
pub(super) const fn plies(plies: i32) -> i32 {
    plies * ONE_PLY
}

/// The whole plies in a search depth, the part ply dropped.
pub(super) fn whole_plies(depth: i32) -> i32 {
    depth / ONE_PLY
}

/// `per_ply` for every whole ply of `depth`, and in proportion for a part ply.
pub(super) fn per_depth(per_ply: i32, depth: i32) -> i32 {
    per_ply * depth / ONE_PLY
}

/// What the caller allows this search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop at once when reached.
    pub deadline: Option<Instant>,
    /// Start no new iteration after this.
    pub soft_deadline: Option<Instant>,
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    /// Moves the root may neither play nor report (Yixin-Board's YXBLOCK); the tree
    /// below the root is not affected.
    pub blocked: Vec<Pos>,
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

/// Where the search tells what it found.
pub trait Reporter {
    /// Each finished iteration.
    fn progress(&mut self, progress: &Progress);

    /// What the main thread's root is doing, for a GUI's live display (Yixin-Board's
    /// realtime marks); most reporters ignore it.
    fn root_event(&mut self, _event: &RootEvent) {}
}

/// One step of the root move loop, with the iteration's depth and the time since the
/// search started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootEvent {
    pub kind: RootEventKind,
    pub pos: Pos,
    pub depth: u32,
    pub elapsed: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootEventKind {
    /// The root starts searching this move.
    Searching,
    /// It has finished it.
    Searched,
    /// The move is the best so far of this iteration.
    Best,
    /// The move proved lost.
    Lost,
}

/// A scored move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredMove {
    pub pos: Pos,
    pub score: i32,
}

/// Whether a score is a proven win or loss.
pub fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// A proven result, with its length in plies when the search counted it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    Win(Option<u32>),
    Loss(Option<u32>),
}

/// The proven result a score stands for, if any. A win the root VCT found scores
/// `VCT_WIN` whatever its length, so it has none.
pub fn proof(score: i32) -> Option<Proof> {
    if !is_mate(score) {
        return None;
    }
    let plies = (score.abs() != VCT_WIN).then(|| (MATE - score.abs()) as u32);
    Some(if score > 0 {
        Proof::Win(plies)
    } else {
        Proof::Loss(plies)
    })
}

/// A reporter that drops the progress (helper threads, games without output).
pub struct Silent;

impl Reporter for Silent {
    fn progress(&mut self, _: &Progress) {}
}

/// A reporter that keeps only the latest progress.
#[derive(Default)]
pub struct LastProgress(pub Option<Progress>);

impl Reporter for LastProgress {
    fn progress(&mut self, progress: &Progress) {
        self.0 = Some(progress.clone());
    }
}

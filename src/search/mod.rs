//! Choosing a move: iterative deepening over a principal-variation search (NegaScout)
//! with a transposition table, threat-aware move generation, and threat searches (VCF,
//! VCT) at the root and VCF at the leaves.
//!
//! The files, after Stockfish's `search`/`movepick`/`tt` and Rapfi's `search/ab` beside
//! its `parameter.h`:
//! - `engine.rs`: [`Engine`], what lives from move to move, memory sizing, the entry
//!   points; `smp.rs`: Lazy SMP helper threads and their vote;
//! - `worker.rs`: one thread's search state and its polling of the limits;
//! - `root.rs`: answers without search, deepening, aspiration, the root move loop;
//! - `node.rs`: the tree below the root (PVS, pruning, reductions, extensions,
//!   quiescence);
//! - `params.rs`: every tunable, with why it has its value;
//! - `ordering.rs`: move generation and order; `tt.rs`: the table; `vcf.rs`, `vct.rs`:
//!   threat searches.
//!
//! Quiet nodes are pruned or reduced: late-move reduction at every quiet node; at
//! null-window nodes, move-count pruning, a fail-high reduction, futility pruning and
//! razoring. Deep nodes extend a table move that alone holds the node's score (singular
//! extension). What was tried besides, with its games, is in `docs/experiments.md`.
//!
//! Never prints and never reads input: each finished iteration goes to a [`Reporter`],
//! and a shared stop flag (with the deadline and node limit) ends the thinking early.
//! The answer is then the best move of the last finished iteration, or of the unfinished
//! one if its first move was searched and something better was found.

mod common;
pub mod engine;
mod node;
pub mod ordering;
mod params;
mod root;
mod smp;
pub mod tt;
pub mod vcf;
pub mod vct;
mod worker;

pub use common::{
    LastProgress, Limits, MATE, MAX_DEPTH, MAX_PLY, Progress, Proof, Reporter, RootEvent,
    RootEventKind, ScoredMove, Silent, is_mate, proof,
};
pub use engine::{DEFAULT_PROCESS_BYTES, Engine, MAX_THREADS, table_bytes_for};
pub use params::MAX_QUIET_BREADTH;

#[cfg(test)]
mod tests;

//! Every tunable of the search in one place, each with why it has its value (Rapfi's
//! `parameter.h`). The games behind each value, and the values tried instead, are in
//! `docs/experiments.md`. Memory sizes live with the engine ([`super::engine`]), time
//! management's margins in `crate::time`, swap2's in `crate::opening`, the evaluation's
//! weights in `crate::eval` and the move-ordering weights in `crate::move_values`.

use super::common::*;
use std::sync::OnceLock;

// Limits

/// Nodes between two looks at the clock and the stop flag: a millisecond or so, well
/// inside the 30 ms time margin.
pub(super) const POLL_INTERVAL: u64 = 1024;

// Threat searches

/// Fours a leaf's VCF may play: leaves are many, so only short wins are looked for.
pub(super) const LEAF_VCF_FOURS: u32 = 8;
/// A leaf VCF's node budget: a fraction of what the leaf's subtree would cost.
pub(super) const LEAF_VCF_NODES: u64 = 200;
/// Fours the root VCF may play: one search per move, so long wins are worth finding.
pub(super) const ROOT_VCF_FOURS: u32 = 30;
/// The root VCF's node budget: it runs once per move, so long wins are affordable.
pub(super) const ROOT_VCF_NODES: u64 = 200_000;
/// The root VCT's node budget: its tree widens with every three, so a tenth of the VCF's.
pub(super) const ROOT_VCT_NODES: u64 = 20_000;
/// Attacking moves the root VCT tries at each of its nodes.
pub(super) const ROOT_VCT_THREATS: u32 = 8;
/// Share of the time to the hard deadline the root VCT may take: the main search needs
/// the rest.
pub(super) const ROOT_VCT_TIME_PERCENT: u32 = 12;
/// Best root moves checked for an opponent win by threats after them.
pub(super) const VCT_CHECKED_MOVES: usize = 4;
/// Node budget of each of those checks.
pub(super) const CHECK_VCT_NODES: u64 = 6_000;
/// Attacking moves each check tries at each node.
pub(super) const CHECK_VCT_THREATS: u32 = 6;
/// Share of the time left that the checks may take: they run after the main search.
pub(super) const CHECK_VCT_TIME_PERCENT: u32 = 50;
/// Threes and fours a VCT tries per attacking move, best first.
pub(super) const VCT_ATTACK_BREADTH: usize = 12;
/// Fours each VCF inside a VCT may play.
pub(super) const VCT_INNER_VCF_FOURS: u32 = 12;
/// Node budget of each VCF inside a VCT.
pub(super) const VCT_INNER_VCF_NODES: u64 = 500;

// Leaf scores

/// Leaf bonus of the side to move for a double three the opponent cannot meet with a
/// four: it almost always wins, which the threat counts alone undervalue.
pub(super) const DOUBLE_THREE_BONUS: i32 = 2000;

/// How far outside a node's window the classical score must lie to stand without the
/// network's correction: at 10 plies most positions lie farther, and the score of a
/// network fitted to 2 000 games crossed the window at 2 of 84 315 such positions in
/// `bench 10` (0 at 600, 15 at 300).
pub(super) const LAZY_MARGIN: i32 = 400;

// Move ordering

/// Ordering bonus of a killer move, in the hundredths of a logit of the move values:
/// set by hand, since the fit sees games, not the search's cutoffs.
pub(super) const KILLER_VALUE: i32 = 150;

// Move-count pruning

/// Moves searched below the root when no threat forces the choice: Rapfi's move is
/// among the first 16 of our ordering 95.5 % of the time.
pub const MAX_QUIET_BREADTH: usize = 16;
/// Moves a null-window quiet node searches at `depth`: 3 + plies^1.32, rounded, up to
/// [`MAX_QUIET_BREADTH`].
pub(super) fn quiet_breadth(depth: i32) -> usize {
    const BY_PLIES: [usize; 8] = [4, 4, 5, 7, 9, 11, 13, MAX_QUIET_BREADTH];
    BY_PLIES[whole_plies(depth).clamp(0, 7) as usize]
}

// Futility pruning and razoring

/// Deepest remaining depth, in plies, where futility pruning applies.
pub(super) const FUTILITY_DEPTH: i32 = 3;
/// Futility margin per ply: the margins are not where the tree is cut (halved, or
/// futility to 6 plies, bench nodes moved by a few per cent).
pub(super) const FUTILITY_MARGIN: i32 = 200;
/// Deepest remaining depth, in plies, where razoring applies.
pub(super) const RAZOR_DEPTH: i32 = 2;
/// Razoring margin per ply.
pub(super) const RAZOR_MARGIN: i32 = 300;

// Fail-high reduction

/// How far per ply of depth the static score must lie above beta for a null-window
/// node's moves that make no four to be searched a ply shallower.
pub(super) const FAIL_HIGH_MARGIN: i32 = 50;

// Late-move reduction

/// Moves searched at full depth before reductions start: the first three carry most
/// cutoffs.
pub(super) const LMR_FIRST_MOVE: usize = 3;
/// The reduction is ln(plies) · ln(move number) / this, in plies: 2.5 reduced too much.
pub(super) const LMR_DIVISOR: f64 = 3.0;
/// Depths past this many plies reduce as much as this one (the table's size).
pub(super) const LMR_MAX_PLIES: usize = 64;

/// The late-move reduction of the move at `index` (from 0) of a node at `depth`.
pub(super) fn late_move_reduction(depth: i32, index: usize) -> i32 {
    type Table = [[i32; MAX_QUIET_BREADTH]; LMR_MAX_PLIES];
    static TABLE: OnceLock<Table> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        std::array::from_fn(|plies| {
            std::array::from_fn(|index| {
                let reduction = (plies.max(1) as f64).ln() * ((index + 1) as f64).ln();
                (reduction / LMR_DIVISOR * ONE_PLY as f64).round() as i32
            })
        })
    });
    let plies = (whole_plies(depth).max(0) as usize).min(LMR_MAX_PLIES - 1);
    table[plies][index.min(MAX_QUIET_BREADTH - 1)]
}

// Aspiration windows

/// Half-width of the first aspiration window: successive iterations' scores differ by
/// about 215 on average, and a window of 60 failed in three iterations of four.
pub(super) const ASPIRATION: i32 = 200;

// Singular extension

/// Depth, in plies, from which the table's move is tested for singularity: from 5 it
/// took 50 % more nodes and played no better.
pub(super) const SINGULAR_DEPTH: i32 = 7;
/// How far per ply below the table's score every other move must fall.
pub(super) const SINGULAR_MARGIN: i32 = 4;
/// How much shallower, in plies, than the node the table's entry may be and still be
/// trusted.
pub(super) const SINGULAR_ENTRY_SLACK: i32 = 2;

//! Every tunable of the search in one place, each with why it has its value. Memory
//! sizes live with the engine ([`super::engine`]), the evaluation's weights in
//! [`crate::eval`]. The games behind each value are in `docs/experiments.md`.

use super::common::*;
use std::sync::OnceLock;

/// Nodes between two looks at the clock and the stop flag.
pub(super) const POLL_INTERVAL: u64 = 1024;
/// Fours a leaf's VCF may play, and its node budget.
pub(super) const LEAF_VCF_FOURS: u32 = 8;
pub(super) const LEAF_VCF_NODES: u64 = 200;
pub(super) const ROOT_VCF_FOURS: u32 = 30;
pub(super) const ROOT_VCF_NODES: u64 = 200_000;
/// Root VCT: node budget, attacking moves, and share of the time to the hard deadline.
pub(super) const ROOT_VCT_NODES: u64 = 20_000;
pub(super) const ROOT_VCT_THREATS: u32 = 8;
pub(super) const ROOT_VCT_TIME_PERCENT: u32 = 12;
/// The opponent-VCT check of the best root moves: how many, and its budgets.
pub(super) const VCT_CHECKED_MOVES: usize = 4;
pub(super) const CHECK_VCT_NODES: u64 = 6_000;
pub(super) const CHECK_VCT_THREATS: u32 = 6;
pub(super) const CHECK_VCT_TIME_PERCENT: u32 = 50;
/// Leaf bonus of the side to move for a double three the opponent cannot meet with a four.
pub(super) const DOUBLE_THREE_BONUS: i32 = 2000;
/// Moves searched below the root when no threat forces the choice.
pub const MAX_QUIET_BREADTH: usize = 16;
/// Moves a null-window quiet node searches at `depth`: 3 + plies^1.32, rounded, up to
/// [`MAX_QUIET_BREADTH`].
pub(super) fn quiet_breadth(depth: i32) -> usize {
    const BY_PLIES: [usize; 8] = [4, 4, 5, 7, 9, 11, 13, MAX_QUIET_BREADTH];
    BY_PLIES[whole_plies(depth).clamp(0, 7) as usize]
}

/// Futility pruning and razoring: deepest remaining depth, and margins per ply. They
/// are not where the tree is cut: halving both margins changed depth-9 bench nodes by
/// +1 %, and futility down to 6 plies by -3 %.
pub(super) const FUTILITY_DEPTH: i32 = 3;
pub(super) const FUTILITY_MARGIN: i32 = 200;
pub(super) const RAZOR_DEPTH: i32 = 2;
pub(super) const RAZOR_MARGIN: i32 = 300;

/// Fail-high reduction: how far per ply of depth the static score must lie above beta.
pub(super) const FAIL_HIGH_MARGIN: i32 = 50;

/// Late-move reduction: from the fourth move on, the moves of an open node that make
/// neither an open three nor a four are searched ln(plies) · ln(move number) /
/// `LMR_DIVISOR` plies shallower, with a null window, and again at full depth if they
/// beat alpha. Integer reductions of a ply or more, on move number alone, were neutral
/// or worse (sessions 24-27). At null-window nodes only, this one cut depth-9 bench
/// nodes by 16 % and measured +21.9 Elo (95 %: +1.3 to +42.6) over 358 pairs in renju
/// 15x15 and +19.0 (-19.6 to +58.1) over 128 in freestyle 20x20; at principal-variation
/// nodes too, it cut them by 6 % more and measured +29.0 (+7.9 to +50.4) over 354
/// pairs in renju and +38.2 (+8.2 to +68.7) over 192 in freestyle 20x20 (sharp
/// openings, 12 s + 0.5 s/turn). Reducing the later defences of a forced node as well
/// measured +7.0 (-22.7 to +36.8) over 198 pairs in renju, and the later root moves
/// +6.8 (-23.1 to +36.7) over 180: neither kept. Against this one, in renju: half a ply
/// more at nodes not improving, +8.9 (-15.7 to +33.6) over 274 pairs; a divisor of 2.5,
/// -12.8 (-44.6 to +18.7) over 149; a ply more for the moves other than killers at
/// expected cut nodes (Stockfish's node types), -22.6 (-58.6 to +13.0) over 131; half a
/// ply less at nodes on a principal variation now or when the table last kept them (a
/// mark in the entry, as Rapfi keeps), +9.8 (-5.7 to +25.4) over 656; that mark and,
/// besides, up to half a ply more or less by how far the move's ordering value lies
/// below the node's first scored move (none at 2 logits, a ply per 4), +4.1 (-11.6 to
/// +19.7) over 682: none kept. Searching a reduced move that beat alpha again a ply
/// deeper when it beat alpha by 40 + 12 per ply of reduction, two when by 320 + 26 per
/// ply, and a ply shallower when it beat the node's best by less than a point per ply
/// (Rapfi's re-search extension) took 11 % more depth-9 bench nodes and measured +5.0
/// (-17.6 to +27.6) over 347 pairs in renju: not kept.
pub(super) const LMR_FIRST_MOVE: usize = 3;
pub(super) const LMR_DIVISOR: f64 = 3.0;
/// Depths past this many plies reduce as much as this one.
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

/// Half-width of the first aspiration window. Successive iterations' scores differ by
/// about 215 on average: a window of 60 failed in three iterations of four, and played
/// weaker than this one (see the commit).
pub(super) const ASPIRATION: i32 = 200;
/// Singular extension: at this depth or more, the table's move of a node whose entry is
/// exact or a lower bound is searched a ply deeper when every other move, searched to
/// half the depth, falls more than `SINGULAR_MARGIN` per ply below its score. From
/// depth 5 it took 50 % more nodes to depth 6 and measured -8.5 Elo (95 %: -31 to +14)
/// over 246 game pairs (renju 15x15, 12 s + 0.5 s/turn).
pub(super) const SINGULAR_DEPTH: i32 = 7;
pub(super) const SINGULAR_MARGIN: i32 = 4;
/// How much shallower than the node the table's entry may be and still be trusted.
pub(super) const SINGULAR_ENTRY_SLACK: i32 = 2;

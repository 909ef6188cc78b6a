//! Choosing a move: iterative deepening over a principal-variation search (NegaScout)
//! with a transposition table, threat-aware move generation, and a VCF threat search at
//! the root and at the leaves.
//!
//! Quiet nodes are pruned or reduced, each rule kept for the games it won (see the
//! commits):
//! - late-move reduction, at every quiet node: the later moves that make neither an
//!   open three nor a four are searched shallower, the more so the later the move and
//!   the deeper the node;
//!
//! and at null-window nodes only:
//! - move-count pruning: they search fewer moves the shallower they are, and half as
//!   many when the static score has not risen since the side to move last moved;
//! - fail-high reduction: with the static score far above beta, the moves that make no
//!   four are searched a ply shallower;
//! - near the leaves, a static score far above beta stands when no opponent attack
//!   brews (futility pruning), and one far below alpha leaves only the leaf's VCF
//!   (razoring).
//!
//! Deep nodes extend instead: a table move that alone holds the node's score (every
//! other move, searched to half the depth, falls clearly below it) is searched a ply
//! deeper (singular extension).
//!
//! Never prints and never reads input: each finished iteration goes to a [`Reporter`],
//! and a shared stop flag (with the deadline and node limit) ends the thinking early.
//! The answer is then the best move of the last finished iteration, or of the unfinished
//! one if its first move was searched and something better was found.

pub mod ordering;
pub mod tt;
pub mod vcf;
pub mod vct;

use crate::board::pattern::Threat;
use crate::board::{Board, Color, POINTS, Pos};
use crate::eval;
use ordering::Situation;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tt::{Bound, Hit, TranspositionTable};
use vcf::{Budget, Vcf, VcfCache};
use vct::Vct;

/// Score of a win on the board now; a win `n` plies ahead scores `MATE - n`.
pub const MATE: i32 = 1_000_000;
/// Deepest ply the search reaches (forced moves extend beyond the nominal depth).
pub const MAX_PLY: usize = 128;
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
const INFINITY: i32 = MATE + 1;
/// Deepest nominal depth of an iteration.
pub const MAX_DEPTH: u32 = 60;
/// Depth below the root counts in fractions of a ply, so that an extension or a
/// reduction can be smaller than a ply.
const ONE_PLY: i32 = 32;
/// Nodes between two looks at the clock and the stop flag.
const POLL_INTERVAL: u64 = 1024;
/// Fours a leaf's VCF may play, and its node budget.
const LEAF_VCF_FOURS: u32 = 8;
const LEAF_VCF_NODES: u64 = 200;
const ROOT_VCF_FOURS: u32 = 30;
const ROOT_VCF_NODES: u64 = 200_000;
/// Root VCT: node budget, attacking moves, and share of the time to the hard deadline.
const ROOT_VCT_NODES: u64 = 20_000;
const ROOT_VCT_THREATS: u32 = 8;
const ROOT_VCT_TIME_PERCENT: u32 = 12;
/// Score of a win found by the root VCT, whose length is not counted.
const VCT_WIN: i32 = MATE - 100;
/// The opponent-VCT check of the best root moves: how many, and its budgets.
const VCT_CHECKED_MOVES: usize = 4;
const CHECK_VCT_NODES: u64 = 6_000;
const CHECK_VCT_THREATS: u32 = 6;
const CHECK_VCT_TIME_PERCENT: u32 = 50;
/// Leaf bonus of the side to move for a double three the opponent cannot meet with a four.
const DOUBLE_THREE_BONUS: i32 = 2000;
/// Moves searched below the root when no threat forces the choice.
pub const MAX_QUIET_BREADTH: usize = 16;
/// Moves a null-window quiet node searches at `depth`: 3 + plies^1.32, rounded, up to
/// [`MAX_QUIET_BREADTH`].
fn quiet_breadth(depth: i32) -> usize {
    const BY_PLIES: [usize; 8] = [4, 4, 5, 7, 9, 11, 13, MAX_QUIET_BREADTH];
    BY_PLIES[whole_plies(depth).clamp(0, 7) as usize]
}

/// `plies` as a search depth.
const fn plies(plies: i32) -> i32 {
    plies * ONE_PLY
}

/// The whole plies in a search depth, the part ply dropped.
fn whole_plies(depth: i32) -> i32 {
    depth / ONE_PLY
}

/// `per_ply` for every whole ply of `depth`, and in proportion for a part ply.
fn per_depth(per_ply: i32, depth: i32) -> i32 {
    per_ply * depth / ONE_PLY
}

/// Futility pruning and razoring: deepest remaining depth, and margins per ply. They
/// are not where the tree is cut: halving both margins changed depth-9 bench nodes by
/// +1 %, and futility down to 6 plies by -3 %.
const FUTILITY_DEPTH: i32 = 3;
const FUTILITY_MARGIN: i32 = 200;
const RAZOR_DEPTH: i32 = 2;
const RAZOR_MARGIN: i32 = 300;

/// Fail-high reduction: how far per ply of depth the static score must lie above beta.
const FAIL_HIGH_MARGIN: i32 = 50;

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
const LMR_FIRST_MOVE: usize = 3;
const LMR_DIVISOR: f64 = 3.0;
/// Depths past this many plies reduce as much as this one.
const LMR_MAX_PLIES: usize = 64;

/// The late-move reduction of the move at `index` (from 0) of a node at `depth`.
fn late_move_reduction(depth: i32, index: usize) -> i32 {
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
const ASPIRATION: i32 = 200;
/// Singular extension: at this depth or more, the table's move of a node whose entry is
/// exact or a lower bound is searched a ply deeper when every other move, searched to
/// half the depth, falls more than `SINGULAR_MARGIN` per ply below its score. From
/// depth 5 it took 50 % more nodes to depth 6 and measured -8.5 Elo (95 %: -31 to +14)
/// over 246 game pairs (renju 15x15, 12 s + 0.5 s/turn).
const SINGULAR_DEPTH: i32 = 7;
const SINGULAR_MARGIN: i32 = 4;
/// How much shallower than the node the table's entry may be and still be trusted.
const SINGULAR_ENTRY_SLACK: i32 = 2;

/// What the caller allows this search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop at once when reached.
    pub deadline: Option<Instant>,
    /// Start no new iteration after this.
    pub soft_deadline: Option<Instant>,
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
/// [`VCT_WIN`] whatever its length, so it has none.
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

/// The search state kept between moves: the table, shared by all search threads, and
/// each thread's history and VCF cache (the first is the main thread's).
pub struct Engine {
    tt: TranspositionTable,
    threads: Vec<ThreadState>,
    /// Set by [`Engine::ponder`]: the next search continues it, in the same table
    /// generation, so the pondered entries are current for the replacement policy.
    pondered: bool,
    /// The opponent's reply the last search expects (the second move of its principal
    /// variation), with the hash of the position it is expected in.
    expected_reply: Option<(u64, Pos)>,
}

/// What one search thread keeps from move to move.
struct ThreadState {
    history: [Vec<i32>; 2],
    vcf_cache: VcfCache,
}

impl ThreadState {
    fn new() -> ThreadState {
        ThreadState {
            history: [vec![0; POINTS], vec![0; POINTS]],
            vcf_cache: VcfCache::default(),
        }
    }
}

/// Most search threads `INFO thread_num` may ask for.
pub const MAX_THREADS: usize = 64;
/// Memory a search thread needs besides the shared table: VCF cache, move lists, stack.
const THREAD_BYTES: u64 = 3 << 20;

/// The whole process's budget when `INFO max_memory` is 0 or absent.
pub const DEFAULT_PROCESS_BYTES: u64 = 350 << 20;
/// What the process needs besides the table: pattern tables, boards, stacks, code.
const PROCESS_OVERHEAD_BYTES: u64 = 24 << 20;
const MIN_TABLE_BYTES: u64 = 1 << 20;

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
        }
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
        }
    }

    /// Forgets everything learnt: table, histories and VCF caches.
    pub fn clear(&mut self) {
        self.tt.clear();
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
        for thread in &mut self.threads {
            for history in &mut thread.history {
                history.iter_mut().for_each(|h| *h /= 2);
            }
        }
        let shared = Shared::new(&self.tt);
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

/// Runs `main` beside one helper search thread per state in `helpers`; `main` gets a
/// function that stops the helpers and returns their last finished iterations.
fn with_helpers<R>(
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
fn elect(votes: &[Finished]) -> Option<Finished> {
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

/// A search thread's last finished iteration.
#[derive(Clone, Copy, Debug)]
struct Finished {
    pos: Pos,
    score: i32,
    depth: i32,
}

/// What the threads of one search share: the table and the count of all their nodes.
struct Shared<'a> {
    tt: &'a TranspositionTable,
    nodes: AtomicU64,
}

impl<'a> Shared<'a> {
    fn new(tt: &'a TranspositionTable) -> Shared<'a> {
        Shared {
            tt,
            nodes: AtomicU64::new(0),
        }
    }
}

struct Search<'a> {
    tt: &'a TranspositionTable,
    /// Nodes of every thread, this one's added at each poll.
    all_nodes: &'a AtomicU64,
    /// This thread's nodes already added to `all_nodes`.
    counted: u64,
    history: &'a mut [Vec<i32>; 2],
    vcf_cache: &'a mut VcfCache,
    board: Board,
    limits: &'a Limits,
    stop: &'a AtomicBool,
    started: Instant,
    nodes: u64,
    /// Node count at which [`Search::poll`] next looks at the clock.
    next_poll: u64,
    stopped: bool,
    killers: [[Option<Pos>; 2]; MAX_PLY + 1],
    /// `static_evals[ply]`: the static score of the node at `ply`, `None` when a threat
    /// forces its moves (the score does not stand there).
    static_evals: [Option<i32>; MAX_PLY + 1],
    /// `pv[ply]`: the principal variation from the node at `ply`.
    pv: Vec<Vec<Pos>>,
    move_lists: Vec<MoveLists>,
    /// `excluded[ply]`: the move the node at `ply` leaves out while it tests whether
    /// that move is singular.
    excluded: [Option<Pos>; MAX_PLY + 1],
    /// The depth of the current iteration: extensions stop at twice as many plies.
    root_depth: i32,
}

/// The move buffers of one ply, reused from node to node.
#[derive(Default, Clone)]
struct MoveLists {
    moves: Vec<Pos>,
    scored: Vec<(i64, Pos)>,
}

/// A stop test for threat searches: a share of the time left before `deadline`, or the
/// stop flag.
fn interruption(
    deadline: Option<Instant>,
    share_percent: u32,
    stop: &AtomicBool,
) -> impl Fn() -> bool + '_ {
    let now = Instant::now();
    let deadline = deadline.map(|d| now + d.saturating_duration_since(now) * share_percent / 100);
    move || deadline.is_some_and(|d| Instant::now() >= d) || stop.load(Ordering::Relaxed)
}

struct RootMove {
    pos: Pos,
    score: i32,
    pv: Vec<Pos>,
}

impl<'a> Search<'a> {
    fn new(
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

    /// The main thread's search. `finish_helpers` stops the helper threads and returns
    /// their last finished iterations, once the main iterations are over.
    fn run(
        &mut self,
        count: usize,
        reporter: &mut dyn Reporter,
        finish_helpers: &mut dyn FnMut() -> Vec<Finished>,
    ) -> (Vec<ScoredMove>, Option<Pos>) {
        let mut roots = match self.root_moves(count, reporter) {
            Ok(roots) => roots,
            Err(answer) => return (answer, None),
        };
        let (depth, score) = self.deepen(&mut roots, 1, count, reporter);
        let mut votes = finish_helpers();
        if depth > 0 {
            votes.push(Finished {
                pos: roots[0].pos,
                score,
                depth,
            });
        }
        if let Some(elected) = elect(&votes)
            && elected.pos != roots[0].pos
            && let Some(i) = roots.iter().position(|r| r.pos == elected.pos)
        {
            roots[..=i].rotate_right(1);
            roots[0].score = elected.score;
        }
        if count == 1 && !is_mate(roots[0].score) {
            self.avoid_opponent_vct(&mut roots);
        }
        // A move no iteration has scored (the search was stopped first) gets the static
        // score of the position.
        let unsearched = eval::evaluate(&self.board);
        let moves = roots
            .iter()
            .take(count.max(1))
            .map(|r| ScoredMove {
                pos: r.pos,
                score: if r.score == -INFINITY {
                    unsearched
                } else {
                    r.score
                },
            })
            .collect();
        (moves, roots[0].pv.get(1).copied())
    }

    /// A helper thread's search: iterative deepening from `first_depth`, reporting to no
    /// one, until stopped. Its last finished iteration, if any.
    fn help(&mut self, first_depth: i32) -> Option<Finished> {
        let mut moves = Vec::new();
        if !matches!(
            ordering::generate(&mut self.board, &mut moves),
            Situation::Forced | Situation::Open
        ) || moves.len() < 2
        {
            return None;
        }
        let mut roots = self.ordered_roots(&moves);
        let (depth, score) = self.deepen(&mut roots, first_depth, 1, &mut Silent);
        (depth > 0).then(|| Finished {
            pos: roots[0].pos,
            score,
            depth,
        })
    }

    /// The root moves in their static order, or (`Err`) the answer when no search is
    /// needed: a forced or lost position, a single move, or a threat-search win.
    fn root_moves(
        &mut self,
        count: usize,
        reporter: &mut dyn Reporter,
    ) -> Result<Vec<RootMove>, Vec<ScoredMove>> {
        let mut moves = Vec::new();
        match ordering::generate(&mut self.board, &mut moves) {
            Situation::Win(pos) => {
                return Err(self.immediate(reporter, pos, MATE - 1));
            }
            // Lost anyway: block what can be blocked, or play anything legal.
            Situation::Lost => {
                let pos = self
                    .legal_block()
                    .or_else(|| eval::best_static_move(&mut self.board).map(|m| m.0));
                return Err(match pos {
                    Some(pos) => self.immediate(reporter, pos, -(MATE - 2)),
                    None => Vec::new(),
                });
            }
            Situation::Forced | Situation::Open => {}
        }
        if moves.is_empty() {
            return Err(Vec::new());
        }
        if moves.len() == 1 && count == 1 {
            return Err(self.immediate(reporter, moves[0], eval::evaluate(&self.board)));
        }
        if count == 1
            && let Some(win) = self.root_vcf()
        {
            let score = MATE - win.plies as i32;
            reporter.progress(&self.progress(1, score, win.line.clone()));
            return Err(vec![ScoredMove {
                pos: win.line[0],
                score,
            }]);
        }
        if count == 1
            && let Some(pos) = self.root_vct()
        {
            reporter.progress(&self.progress(1, VCT_WIN, vec![pos]));
            return Err(vec![ScoredMove {
                pos,
                score: VCT_WIN,
            }]);
        }
        Ok(self.ordered_roots(&moves))
    }

    fn ordered_roots(&self, moves: &[Pos]) -> Vec<RootMove> {
        let mut order = moves.to_vec();
        let history = &self.history[self.board.to_move().index()];
        ordering::order(&self.board, &mut order, history);
        order
            .into_iter()
            .map(|pos| RootMove {
                pos,
                score: -INFINITY,
                pv: vec![pos],
            })
            .collect()
    }

    /// Iterative deepening from `first_depth`, reporting each finished iteration; leaves
    /// `roots` best first. The last finished depth (0 if none) and its score.
    fn deepen(
        &mut self,
        roots: &mut [RootMove],
        first_depth: i32,
        count: usize,
        reporter: &mut dyn Reporter,
    ) -> (i32, i32) {
        let max_depth = self
            .limits
            .max_depth
            .unwrap_or(MAX_DEPTH)
            .clamp(1, MAX_DEPTH) as i32;
        let (mut finished, mut best_score) = (0, 0);
        for depth in first_depth.min(max_depth)..=max_depth {
            let score = self.aspiration(roots, depth, best_score, count);
            // A stopped iteration counts only at depth 1, and only once it has searched a
            // root move: before that it knows nothing, not a loss.
            if self.stopped && (depth > 1 || score == -INFINITY) {
                break;
            }
            (finished, best_score) = (depth, score);
            reporter.progress(&self.progress(depth as u32, score, roots[0].pv.clone()));
            if self.stopped || is_mate(score) || self.past_soft_deadline() {
                break;
            }
        }
        (finished, best_score)
    }

    /// One of the opponent's five points that the side to move may occupy.
    fn legal_block(&mut self) -> Option<Pos> {
        let me = self.board.to_move();
        let fives: Vec<Pos> = self.board.five_points(me.opponent()).iter().collect();
        fives
            .into_iter()
            .find(|&p| crate::rules::is_legal(&mut self.board, p, me))
    }

    fn immediate(&mut self, reporter: &mut dyn Reporter, pos: Pos, score: i32) -> Vec<ScoredMove> {
        reporter.progress(&self.progress(0, score, vec![pos]));
        vec![ScoredMove { pos, score }]
    }

    fn progress(&self, depth: u32, score: i32, pv: Vec<Pos>) -> Progress {
        Progress {
            depth,
            score,
            nodes: self.all_nodes.load(Ordering::Relaxed) + self.nodes - self.counted,
            elapsed: self.started.elapsed(),
            pv,
        }
    }

    fn past_soft_deadline(&self) -> bool {
        self.limits
            .soft_deadline
            .is_some_and(|d| Instant::now() >= d)
    }

    fn root_vct(&mut self) -> Option<Pos> {
        let interrupted = interruption(self.limits.deadline, ROOT_VCT_TIME_PERCENT, self.stop);
        let mut vct = Vct::new(self.vcf_cache, Budget::new(ROOT_VCT_NODES, &interrupted));
        let first = vct.find(&mut self.board, ROOT_VCT_THREATS);
        self.nodes += vct.budget.nodes();
        first
    }

    /// Moves the first of the best few root moves after which the opponent has no win by
    /// threats to the front: the main search may not reach that far.
    ///
    /// When the soft budget is the whole turn (the turn alone limits, or the match clock
    /// has time to spare), the main search runs to the hard limit and leaves this check
    /// no time, so it keeps the first move. Giving it 8 % of the turn was
    /// measured at 0.3 s/turn, renju 15x15: it changed the move in none of 72 positions
    /// from games, and against the build without it scored 78-73-2, no gain.
    fn avoid_opponent_vct(&mut self, roots: &mut [RootMove]) {
        let interrupted = interruption(self.limits.deadline, CHECK_VCT_TIME_PERCENT, self.stop);
        for i in 0..roots.len().min(VCT_CHECKED_MOVES) {
            self.board.play(roots[i].pos);
            let budget = Budget::new(CHECK_VCT_NODES, &interrupted);
            let mut vct = Vct::new(self.vcf_cache, budget);
            let refuted = vct.find(&mut self.board, CHECK_VCT_THREATS).is_some();
            self.nodes += vct.budget.nodes();
            self.board.undo();
            if !refuted {
                roots[..=i].rotate_right(1);
                return;
            }
        }
    }

    fn root_vcf(&mut self) -> Option<vcf::Win> {
        let interrupted = interruption(self.limits.deadline, 100, self.stop);
        let mut vcf = Vcf::new(self.vcf_cache, Budget::new(ROOT_VCF_NODES, &interrupted));
        let win = vcf.find(&mut self.board, ROOT_VCF_FOURS);
        self.nodes += vcf.budget.nodes();
        win
    }

    /// One iteration, first in a narrow window around the last score.
    fn aspiration(&mut self, roots: &mut [RootMove], depth: i32, guess: i32, count: usize) -> i32 {
        if depth >= 4 && count == 1 && !is_mate(guess) {
            let (alpha, beta) = (guess - ASPIRATION, guess + ASPIRATION);
            let score = self.root(roots, depth, alpha, beta, count);
            if self.stopped || (score > alpha && score < beta) {
                return score;
            }
        }
        self.root(roots, depth, -INFINITY, INFINITY, count)
    }

    /// Searches every root move; leaves `roots` sorted best first. With `count` above one
    /// every move gets a full window, so the first `count` scores are exact. If the
    /// search is stopped, the previous order stands, except that a move that has already
    /// proved better than the first goes in front.
    fn root(
        &mut self,
        roots: &mut [RootMove],
        depth: i32,
        alpha: i32,
        beta: i32,
        count: usize,
    ) -> i32 {
        let previous: Vec<Pos> = roots.iter().map(|r| r.pos).collect();
        self.root_depth = depth;
        self.static_evals[0] =
            (!ordering::threatened(&self.board)).then(|| eval::evaluate(&self.board));
        let mut alpha = alpha;
        let mut best = -INFINITY;
        let mut new_best = None;
        for (i, root) in roots.iter_mut().enumerate() {
            let pos = root.pos;
            self.board.play(pos);
            let score = if count > 1 {
                -self.pvs(plies(depth - 1), -INFINITY, INFINITY, 1)
            } else if i == 0 {
                -self.pvs(plies(depth - 1), -beta, -alpha, 1)
            } else {
                let probe = -self.pvs(plies(depth - 1), -alpha - 1, -alpha, 1);
                if probe > alpha && probe < beta && !self.stopped {
                    -self.pvs(plies(depth - 1), -beta, -alpha, 1)
                } else {
                    probe
                }
            };
            self.board.undo();
            if self.stopped {
                break;
            }
            let raises = score > alpha;
            let scored = raises || i == 0 || count > 1;
            root.score = if scored { score } else { -INFINITY };
            if scored {
                root.pv = std::iter::once(pos)
                    .chain(self.pv[1].iter().copied())
                    .collect();
            }
            best = best.max(score);
            if raises && count == 1 {
                if i > 0 {
                    new_best = Some(pos);
                }
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
        if self.stopped {
            let front = new_best
                .into_iter()
                .chain(previous.into_iter().filter(|&p| Some(p) != new_best));
            let order: Vec<Pos> = front.collect();
            roots.sort_by_key(|r| order.iter().position(|&p| p == r.pos));
        } else {
            // Stable: moves that failed low keep their previous order.
            roots.sort_by_key(|r| std::cmp::Reverse(r.score));
        }
        best
    }

    /// Looks at the clock, the node limit and the stop flag once every `POLL_INTERVAL`
    /// nodes, counting the nodes of leaf threat searches too.
    fn poll(&mut self) {
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

    /// Principal-variation search, fail-soft, from the side to move's view; `depth` is in
    /// units of [`ONE_PLY`].
    fn pvs(&mut self, depth: i32, alpha: i32, beta: i32, ply: usize) -> i32 {
        // Each ply reuses its own move list instead of allocating one per node.
        let mut lists = std::mem::take(&mut self.move_lists[ply]);
        let score = self.pvs_node(&mut lists, depth, alpha, beta, ply);
        self.move_lists[ply] = lists;
        score
    }

    fn pvs_node(
        &mut self,
        lists: &mut MoveLists,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        let MoveLists { moves, scored } = lists;
        self.nodes += 1;
        self.pv[ply].clear();
        self.poll();
        if self.stopped {
            return 0;
        }
        let threatened = ordering::threatened(&self.board);
        // A quiet leaf needs no move list: nothing forces a reply, so the quiescence
        // search decides.
        if depth <= 0 && ply < MAX_PLY - 2 && !threatened {
            return self.quiesce(ply);
        }
        // A null window only tests a bound: it may be cut short, pruned and reduced.
        let null_window = beta - alpha == 1;
        let key = self.board.hash();
        // A search that leaves a move out is not the node's own: the table neither
        // answers it nor keeps its result.
        let excluded = self.excluded[ply];
        let hit = if excluded.is_some() {
            None
        } else {
            self.tt.probe(key, ply)
        };
        if let Some(hit) = hit
            && hit.depth >= depth
            && null_window
        {
            let cutoff = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => hit.score >= beta,
                Bound::Upper => hit.score <= alpha,
            };
            if cutoff {
                return hit.score;
            }
        }
        // Rapfi searches a PV node shallower, by 0.28 of the plies its table entry
        // lacks (up to 3.6), when the entry has a move. That cut depth-9 bench nodes by
        // 13 % and measured -53.6 Elo (95 %: -92 to -16) over 111 pairs (renju, sharp
        // openings, 12 s + 0.5 s/turn).
        let static_eval = (!threatened).then(|| eval::evaluate(&self.board));
        self.static_evals[ply] = static_eval;
        // Decided before the move list is built, which a pruned node never needs.
        if null_window
            && depth > 0
            && !is_mate(beta)
            && excluded.is_none()
            && let Some(static_eval) = static_eval
            && let Some(score) = self.prune_shallow(static_eval, depth, alpha, beta, ply)
        {
            return score;
        }
        let situation = ordering::generate(&mut self.board, moves);
        match situation {
            Situation::Win(_) => return MATE - ply as i32 - 1,
            Situation::Lost => return -(MATE - ply as i32 - 2),
            _ if moves.is_empty() => return 0,
            _ => {}
        }
        if let Some(excluded) = excluded {
            moves.retain(|&p| p != excluded);
            // The left-out move was the only one: it is singular.
            if moves.is_empty() {
                return alpha;
            }
        }
        if ply >= MAX_PLY - 2 {
            return eval::evaluate(&self.board);
        }
        // A forced single reply costs no depth. Letting up to three defences against a
        // three cost none either (a line of threes then costs the attacker's plies
        // only) took 3.2 times the depth-9 bench nodes and measured -33 Elo over 95
        // game pairs in renju and -15 over 91 in freestyle 20x20 (sharp openings,
        // 12 s + 0.5 s/turn); half a ply each took 10 % more depth-9 bench nodes and
        // measured -6.8 (95 %: -43 to +29) over 154 pairs in renju. Searching the
        // forced reply 0.3 ply deeper, as Rapfi does, took 41 % more depth-9 bench
        // nodes and measured -8.1 Elo (95 %: -45 to +29) over 129 pairs (renju, sharp
        // openings, 12 s + 0.5 s/turn).
        let forced = moves.len() == 1;
        if depth <= 0 && !forced {
            return self.quiesce(ply);
        }
        let color = self.board.to_move();
        let me = color.index();
        // The moves after one that raised alpha keep this depth. Rapfi searches them a
        // ply shallower; here that cut depth-9 bench nodes by 35 % and measured -3.7 Elo
        // over 285 pairs (renju 15x15, 12 s + 0.5 s/turn).
        let child_depth = if forced { depth } else { depth - ONE_PLY };
        // Far above beta, a null-window node most likely fails high whatever it plays:
        // its moves that make no four are searched a ply shallower. A ply and a half
        // cut depth-9 bench nodes by 3 % and measured +3.5 Elo (95 %: -22 to +29) over
        // 249 pairs (renju, sharp openings, 12 s + 0.5 s/turn).
        let likely_fail_high = null_window
            && static_eval.is_some_and(|score| score >= beta + per_depth(FAIL_HIGH_MARGIN, depth));
        let count = moves.len();
        // Quiet positions search only their most promising moves, fewer the shallower
        // a null-window node is; forced ones all.
        let breadth = match situation {
            Situation::Open if null_window && self.improving(ply) => quiet_breadth(depth),
            Situation::Open if null_window => quiet_breadth(depth).div_ceil(2),
            Situation::Open => MAX_QUIET_BREADTH,
            _ => count,
        }
        .min(count);
        // The table's move goes first, before the others are scored: it often cuts off
        // alone, and scoring every candidate costs more than searching it.
        // Taken out of `moves` (whose order scoring ignores) if it is one of them.
        // Searching it deeper, as Rapfi does (a quarter ply at a PV node, a twelfth
        // elsewhere), took 34 % more depth-9 bench nodes and measured -12.3 Elo
        // (95 %: -48 to +23) over 141 pairs (renju, sharp openings, 12 s + 0.5 s/turn).
        let hash_move = hit
            .and_then(|h| h.best)
            .and_then(|m| moves.iter().position(|&p| p == m))
            .map(|i| moves.swap_remove(i));
        let mut extended = None;
        if let (Some(hit), Some(hash_move)) = (hit, hash_move)
            && self.singular_candidate(&hit, depth, count, ply)
        {
            let singular_beta = hit.score - per_depth(SINGULAR_MARGIN, depth);
            self.excluded[ply] = Some(hash_move);
            let others = self.pvs(
                plies(whole_plies(depth) / 2),
                singular_beta - 1,
                singular_beta,
                ply,
            );
            self.excluded[ply] = None;
            if self.stopped {
                return 0;
            }
            if others < singular_beta {
                extended = Some(hash_move);
            } else if singular_beta >= beta {
                // Even without the table's move the node fails high.
                return singular_beta;
            }
        }
        let mut scored_yet = false;
        let (original_alpha, mut alpha) = (alpha, alpha);
        let mut best = -INFINITY;
        let mut best_move = None;
        for i in 0..count {
            // Past the breadth only while every move so far loses.
            if i >= breadth && best > -MATE_BOUND {
                break;
            }
            let pos = match hash_move {
                Some(hash_move) if i == 0 => hash_move,
                _ => {
                    if !scored_yet {
                        let history = &self.history[me];
                        ordering::score(&self.board, moves, &self.killers[ply], history, scored);
                        scored_yet = true;
                    }
                    ordering::pick(scored, i - usize::from(hash_move.is_some()))
                }
            };
            let threat = self.board.threat(pos, color);
            let reduction =
                if situation == Situation::Open && i >= LMR_FIRST_MOVE && threat < Threat::Flex3 {
                    late_move_reduction(depth, i)
                } else {
                    0
                };
            let move_depth = if extended == Some(pos) {
                child_depth + ONE_PLY
            } else if likely_fail_high && !threat.makes_four() {
                child_depth - ONE_PLY
            } else {
                child_depth
            };
            self.board.play(pos);
            let score = if i == 0 {
                -self.pvs(move_depth, -beta, -alpha, ply + 1)
            } else {
                let reduced = move_depth - reduction;
                let mut probe = -self.pvs(reduced, -alpha - 1, -alpha, ply + 1);
                if reduced < move_depth && probe > alpha && !self.stopped {
                    probe = -self.pvs(move_depth, -alpha - 1, -alpha, ply + 1);
                }
                if probe > alpha && probe < beta && !self.stopped {
                    -self.pvs(move_depth, -beta, -alpha, ply + 1)
                } else {
                    probe
                }
            };
            self.board.undo();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(pos);
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(pos);
                    head[ply].extend_from_slice(&tail[0]);
                    if alpha >= beta {
                        self.reward(pos, depth, ply);
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded.is_none() {
            self.tt
                .store(key, ply, depth.max(0), best, bound, best_move);
        }
        best
    }

    /// Whether the table's move at this node is worth testing for singularity: the
    /// node is deep enough, has a choice, and its entry is exact or a lower bound, deep
    /// enough to trust, short of a mate; and extensions have not yet doubled the
    /// iteration's depth.
    fn singular_candidate(&self, hit: &Hit, depth: i32, count: usize, ply: usize) -> bool {
        depth >= plies(SINGULAR_DEPTH)
            && count > 1
            && hit.bound != Bound::Upper
            && hit.depth >= depth - plies(SINGULAR_ENTRY_SLACK)
            && !is_mate(hit.score)
            && (ply as i32) < 2 * self.root_depth
    }

    /// A quiet null-window node near the leaves whose static score is far from the
    /// window: far above beta with no opponent attack brewing, that score stands
    /// (futility pruning); far below alpha with no attack of our own, only the leaf's
    /// threat search could save it (razoring). Rapfi uses the table's score instead of
    /// the static one where the table's bound says more. Doing so here, and for the
    /// fail-high reduction, cut depth-6 bench nodes by 15 % but measured -15.6 Elo
    /// (95 %: -42 to +11) over 178 game pairs (renju 15x15, 12 s + 0.5 s/turn). Half a
    /// ply less futility margin at an improving node, as Rapfi has, measured -25.6
    /// (-74 to +22) over 68 pairs (renju, sharp openings).
    fn prune_shallow(
        &mut self,
        score: i32,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Option<i32> {
        if depth > plies(FUTILITY_DEPTH) {
            return None;
        }
        let me = self.board.to_move();
        if score - per_depth(FUTILITY_MARGIN, depth) >= beta && !self.attack_brewing(me.opponent())
        {
            return Some(score);
        }
        if depth <= plies(RAZOR_DEPTH)
            && score + per_depth(RAZOR_MARGIN, depth) < alpha
            && !self.attack_brewing(me)
        {
            return Some(self.quiesce(ply));
        }
        None
    }

    /// Whether the static score of the node at `ply` rose since the side to move last
    /// moved; true when either score is unknown. A node that is not improving is less
    /// likely to need its later moves.
    fn improving(&self, ply: usize) -> bool {
        match (self.static_evals[ply], ply.checked_sub(2)) {
            (Some(now), Some(before)) => self.static_evals[before].is_none_or(|b| now > b),
            _ => true,
        }
    }

    /// Whether `color` has a point making an open four, a double four, a four-three or
    /// a double three: a static score does not see where those lead.
    fn attack_brewing(&self, color: Color) -> bool {
        [
            Threat::Flex4,
            Threat::Block4Plus,
            Threat::Block4Flex3,
            Threat::Flex3x2,
        ]
        .iter()
        .any(|&t| self.board.threat_count(color, t) > 0)
    }

    /// A cutoff move becomes a killer and earns history.
    fn reward(&mut self, pos: Pos, depth: i32, ply: usize) {
        let killers = &mut self.killers[ply];
        if killers[0] != Some(pos) {
            killers[1] = killers[0];
            killers[0] = Some(pos);
        }
        let me = self.board.to_move().index();
        let entry = &mut self.history[me][pos.index()];
        let reward = whole_plies(depth).pow(2);
        *entry = (*entry + reward).min(1 << 18);
    }

    /// The leaf: an unstoppable four or a short VCF wins; otherwise the static score.
    /// Letting the side to move also play up to two fours here (each answered by its
    /// block, then the better of that and the static score) cost 0.2 ply and measured
    /// -12.6 Elo over 165 game pairs in renju and +0.9 (95 %: -19.7 to +21.5) over 373
    /// in freestyle 20x20 (12 s + 0.5 s/turn): the VCF already finds what matters.
    /// The weight of a four-three point assumes it wins, yet here it counts only when
    /// the VCF found no win from it (a counter-four answers it, or a foul spoils
    /// Black's three). Scoring such points as fours with more then cut depth-9 bench
    /// nodes by 5 % and measured -1.6 Elo (95 %: -21.1 to +17.8) over 428 pairs (renju,
    /// sharp openings, 12 s + 0.5 s/turn).
    fn quiesce(&mut self, ply: usize) -> i32 {
        let me = self.board.to_move();
        if ordering::has_winning_four(&mut self.board, me).is_some() {
            return MATE - ply as i32 - 3;
        }
        let has_fours = self.board.four_points(me).iter().next().is_some();
        if has_fours
            && self.board.threat_count(me.opponent(), Threat::Flex4) + self.four_threes(me) > 0
        {
            let never = || false;
            let mut vcf = Vcf::new(self.vcf_cache, Budget::new(LEAF_VCF_NODES, &never));
            let win = vcf.find(&mut self.board, LEAF_VCF_FOURS);
            self.nodes += vcf.budget.nodes();
            if let Some(win) = win {
                return MATE - (ply + win.plies) as i32;
            }
        }
        // A double three with no opponent four to interpose almost always wins (Black
        // has none under renju, see `Threat::classify`).
        let double_three = self.board.threat_count(me, Threat::Flex3x2) > 0;
        if double_three && self.board.four_points(me.opponent()).is_empty() {
            return eval::evaluate(&self.board) + DOUBLE_THREE_BONUS;
        }
        eval::evaluate(&self.board)
    }

    /// Four-three points of `color`, from which a VCF is likely. A four beside a lesser
    /// line (`Block4Plus`) is common on a crowded board and rarely leads to one: leaf
    /// VCFs started for it spent their whole budget in vain.
    fn four_threes(&self, color: Color) -> u16 {
        self.board.threat_count(color, Threat::Block4Flex3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::testing::{self, picture};
    use crate::rules::Rule;

    fn best(board: &Board, depth: u32) -> ScoredMove {
        best_with_threads(board, depth, 1)
    }

    fn best_with_threads(board: &Board, depth: u32, threads: usize) -> ScoredMove {
        let limits = Limits {
            max_depth: Some(depth),
            ..Limits::default()
        };
        let mut engine = Engine::new(1 << 20);
        engine.set_threads(threads);
        engine.best_moves(board, 1, &limits, &AtomicBool::new(false), &mut Silent)[0]
    }

    #[test]
    fn a_proof_has_a_length_unless_the_root_vct_found_it() {
        assert_eq!(proof(MATE - 3), Some(Proof::Win(Some(3))));
        assert_eq!(proof(-(MATE - 4)), Some(Proof::Loss(Some(4))));
        assert_eq!(proof(VCT_WIN), Some(Proof::Win(None)));
        assert_eq!(proof(900), None);
    }

    #[test]
    fn helper_threads_reach_the_same_conclusions() {
        let board = picture(Rule::Freestyle, &testing::DOUBLE_THREE, Color::Black);
        let m = best_with_threads(&board, 5, 3);
        assert!(is_mate(m.score) && m.score > 0, "{m:?}");
        let board = picture(
            Rule::Freestyle,
            &["...............", "....XXX........", "...........O..."],
            Color::White,
        );
        let m = best_with_threads(&board, 4, 2);
        assert!(m.pos.y() == 1 && [2, 3, 7, 8].contains(&m.pos.x()), "{m:?}");
    }

    #[test]
    fn white_wins_with_a_four_whose_block_is_a_foul() {
        // From a game: (8,7) makes White's four O.OOO on row 7; Black's block at (6,7)
        // would make a four and two threes, a double-three foul.
        let board = picture(
            Rule::Renju,
            &[
                "",
                "",
                "",
                "",
                ".........X",
                "....X....O",
                "....OXXXXO",
                ".....O.O.O",
                "......XXOO",
                ".......X.XO",
                ".........OX",
            ],
            Color::White,
        );
        let m = best_with_threads(&board, 3, 1);
        assert_eq!((m.pos, m.score), (Pos::new(8, 7), MATE - 3), "{m:?}");
    }

    #[test]
    fn pondering_on_the_expected_reply_saves_the_next_search_most_of_its_work() {
        let start = picture(
            Rule::Freestyle,
            &["", "", "", "", "", "", "......OX", ".......X", "......O."],
            Color::Black,
        );
        let depth = |d| Limits {
            max_depth: Some(d),
            ..Limits::default()
        };
        // Deep enough that the main search outweighs the root threat searches, which
        // every search runs afresh.
        let nodes_after = |ponder: bool| {
            let mut engine = Engine::new(1 << 22);
            let stop = AtomicBool::new(false);
            let ours = engine.best_moves(&start, 1, &depth(5), &stop, &mut Silent)[0];
            let (_, reply) = engine.expected_reply.expect("a principal variation");
            let mut board = start.clone();
            board.play(ours.pos);
            if ponder {
                engine.ponder(&board, &depth(10), &stop);
            }
            board.play(reply);
            let mut last = LastProgress::default();
            engine.best_moves(&board, 1, &depth(10), &stop, &mut last);
            last.0.expect("an iteration").nodes
        };
        let (pondered, fresh) = (nodes_after(true), nodes_after(false));
        assert!(
            pondered * 2 < fresh,
            "{pondered} nodes after pondering, {fresh} without"
        );
    }

    #[test]
    fn the_vote_prefers_wins_then_depth_and_avoids_losses() {
        let vote = |x: usize, score: i32, depth: i32| Finished {
            pos: Pos::new(x, 0),
            score,
            depth,
        };
        let elected = |votes: &[Finished]| elect(votes).unwrap().pos.x();
        // Two helpers agreeing outvote a deeper main thread.
        assert_eq!(elected(&[vote(1, 5, 7), vote(1, 9, 7), vote(2, 5, 9)]), 1);
        // A tie goes to the last voter, the main thread.
        assert_eq!(elected(&[vote(1, 5, 8), vote(2, 5, 8)]), 2);
        // The quickest proven win beats every vote.
        assert_eq!(
            elected(&[vote(1, MATE - 9, 3), vote(2, MATE - 5, 2), vote(3, 0, 20)]),
            2
        );
        // A move proven lost is not chosen while another is not.
        assert_eq!(elected(&[vote(1, 0, 3), vote(2, -(MATE - 4), 12)]), 1);
        assert_eq!(elected(&[vote(1, -(MATE - 2), 3)]), 1);
        assert!(elect(&[]).is_none());
    }

    #[test]
    fn blocks_an_open_three_when_it_has_no_attack() {
        let board = picture(
            Rule::Freestyle,
            &[
                "...............",
                "...............",
                "....XXX........",
                "...........O...",
                "...............",
            ],
            Color::White,
        );
        let m = best(&board, 4);
        assert!(
            [
                Pos::new(3, 2),
                Pos::new(7, 2),
                Pos::new(2, 2),
                Pos::new(8, 2)
            ]
            .contains(&m.pos),
            "{m:?}"
        );
    }

    /// `check` run on a fresh search of `board`, with its own table.
    fn with_search<R>(board: &Board, check: impl FnOnce(&mut Search) -> R) -> R {
        let tt = TranspositionTable::new(1 << 16);
        let shared = Shared::new(&tt);
        let mut state = ThreadState::new();
        let (limits, stop) = (Limits::default(), AtomicBool::new(false));
        check(&mut Search::new(&shared, &mut state, board, &limits, &stop))
    }

    #[test]
    fn a_node_improves_when_its_score_rose_since_its_side_last_moved() {
        with_search(&Board::new(15, 15, Rule::Freestyle), |search| {
            search.static_evals[3] = Some(100);
            search.static_evals[4] = Some(-500);
            search.static_evals[5] = Some(90);
            assert!(!search.improving(5));
            search.static_evals[5] = Some(110);
            assert!(search.improving(5));
            search.static_evals[5] = None;
            assert!(search.improving(5), "a forced node");
            search.static_evals[3] = None;
            search.static_evals[5] = Some(-1000);
            assert!(search.improving(5), "nothing to compare with");
            search.static_evals[1] = Some(0);
            assert!(search.improving(1), "the root has no score two plies up");
        });
    }

    #[test]
    fn a_search_that_leaves_a_move_out_neither_plays_it_nor_touches_the_table() {
        let board = picture(
            Rule::Freestyle,
            &["", "", "..X.....X", "", "", "....O", "", "..X.....X"],
            Color::White,
        );
        let key = board.hash();
        let best = with_search(&board, |search| {
            search.pvs(plies(3), -INFINITY, INFINITY, 1);
            assert!(search.tt.probe(key, 1).is_some());
            search.pv[1][0]
        });
        with_search(&board, |search| {
            search.excluded[1] = Some(best);
            search.pvs(plies(3), -INFINITY, INFINITY, 1);
            assert_ne!(search.pv[1].first(), Some(&best));
            assert!(search.tt.probe(key, 1).is_none());
        });
    }

    #[test]
    fn futility_pruning_keeps_the_static_score_unless_an_attack_brews() {
        let prune = |board: &Board| {
            with_search(board, |search| {
                let score = eval::evaluate(board);
                let beta = score - FUTILITY_MARGIN * 2;
                search.prune_shallow(score, 2, beta - 1, beta, 3)
            })
        };
        // White to move, Black scattered: nothing brews, the static score stands.
        let quiet = picture(
            Rule::Freestyle,
            &["", "", "..X.....X", "", "", "....O", "", "..X.....X"],
            Color::White,
        );
        assert_eq!(prune(&quiet), Some(eval::evaluate(&quiet)));
        // Black has a four-three point at (4,4): White's static score means nothing.
        let brewing = picture(
            Rule::Freestyle,
            &[
                "", "", "....X", "....X", ".....XX", "", "....X", "", "O.....O",
            ],
            Color::White,
        );
        assert_eq!(
            brewing.threat(Pos::new(4, 4), Color::Black),
            Threat::Block4Flex3
        );
        assert_eq!(prune(&brewing), None);
    }

    #[test]
    fn finds_a_win_by_double_three_that_vcf_alone_cannot() {
        // Black to move: (6,6) makes two open threes with (4,6)(5,6) and (6,4)(6,5).
        let board = picture(Rule::Freestyle, &testing::DOUBLE_THREE, Color::Black);
        let m = best(&board, 5);
        assert!(is_mate(m.score) && m.score > 0, "{m:?}");
    }

    #[test]
    fn stop_flag_ends_the_search_with_a_legal_move() {
        let board = picture(
            Rule::Freestyle,
            &["...............", ".......X.......", "......O........"],
            Color::Black,
        );
        let mut engine = Engine::new(1 << 20);
        let mut last = LastProgress::default();
        let moves = engine.best_moves(
            &board,
            1,
            &Limits::default(),
            &AtomicBool::new(true),
            &mut last,
        );
        assert_eq!(moves.len(), 1);
        assert!(board.is_empty(moves[0].pos));
        // Stopped before any root move was searched, it knows of no win or loss.
        assert!(!is_mate(moves[0].score), "{:?}", moves[0]);
        assert!(
            last.0.as_ref().is_none_or(|p| !is_mate(p.score)),
            "{:?}",
            last.0
        );
    }

    #[test]
    fn late_moves_of_deep_nodes_are_reduced_most() {
        assert_eq!(late_move_reduction(plies(1), 10), 0, "a ply deep: nothing");
        assert_eq!(
            late_move_reduction(plies(8), 0),
            0,
            "the first move: nothing"
        );
        let eighth_at_eight = late_move_reduction(plies(8), 7);
        assert!((ONE_PLY..2 * ONE_PLY).contains(&eighth_at_eight));
        assert!(late_move_reduction(plies(8), 3) < eighth_at_eight);
        assert!(late_move_reduction(plies(4), 7) < eighth_at_eight);
        assert_eq!(
            late_move_reduction(plies(500), 500),
            late_move_reduction(plies(LMR_MAX_PLIES as i32 - 1), MAX_QUIET_BREADTH - 1)
        );
    }

    #[test]
    fn node_counts_repeat_exactly() {
        let board = picture(
            Rule::Renju,
            &[
                "...............",
                ".......X.......",
                "......OX.......",
                "......O........",
            ],
            Color::Black,
        );
        let run = || {
            let mut engine = Engine::new(1 << 20);
            let limits = Limits {
                max_depth: Some(5),
                ..Limits::default()
            };
            let mut nodes = 0;
            struct Count<'a>(&'a mut u64);
            impl Reporter for Count<'_> {
                fn progress(&mut self, p: &Progress) {
                    *self.0 = p.nodes;
                }
            }
            let m = engine.best_moves(
                &board,
                1,
                &limits,
                &AtomicBool::new(false),
                &mut Count(&mut nodes),
            );
            (m, nodes)
        };
        assert_eq!(run(), run());
    }
}

//! The network's board sums, kept up to date as stones are placed and lifted.
//!
//! Per empty point and colour it keeps the feature classes of the four lines and their
//! codebook rows' sum; a stone changes the key of one line of each point within
//! [`REACH`] on its four lines, so an update re-reads those keys and moves each changed
//! point's sum by the difference of two rows, and the board sum by the difference of
//! the point's clipped values. Integer arithmetic, so an update and its reverse cancel
//! exactly and the sums always equal those recomputed from the board.
//!
//! Under renju a point where Black may not play counts for nothing in Black's view: its
//! lines may look like two fours, but they are worth nothing to Black. Whether it is
//! one is the board's threat of the point, which depends on its lines' keys, of
//! [`HALF_LINE`] cells a side, so a stone re-reads that far under renju.
//!
//! Updates wait until a score is asked for: a search takes back many moves whose
//! position it never scores (a table cut, a threat search's answer), and a move taken
//! back before its update costs nothing. Waiting moves are brought in against the board
//! as it is then, which already holds them all: a point a later stone covered is
//! skipped and then leaves the sums with the value they hold for it, so the result is
//! the same as updating move by move.
//!
//! Stones brought in together save what their updates overwrite (the totals and the
//! points they re-read), and taking back the newest of them copies that back, which
//! leaves the sums as they were before any of them, and puts the others back to wait:
//! the board still holds them. (Copying back only what the newest stone's own update
//! saved would be wrong: the points the earlier ones re-read already saw it.) A stone
//! placed before the sums were made is taken back by re-reading its lines.

use super::network::{DIM, HIDDEN, Network, ONE, counts, first_row, head_inputs};
use crate::board::pattern::HALF_LINE;
use crate::board::{Board, COLORS, Color, POINTS, Pos, Rule};
use crate::features::{REACH, features};
use std::sync::Arc;

/// One point's pre-activation: the sum of its four rows.
type Row = [i16; DIM];

/// The network's codebook as the updates read it: where each colour's rows start
/// worked out once, not at every row.
#[derive(Clone)]
struct Codebook {
    net: Arc<Network>,
    first_rows: [usize; 2],
}

impl Codebook {
    fn new(net: Arc<Network>) -> Codebook {
        let rows = net.codebook.len();
        Codebook {
            first_rows: [0, 1].map(|c| first_row(rows, c)),
            net,
        }
    }

    fn row(&self, c: usize, class: u16) -> &Row {
        &self.net.codebook[self.first_rows[c] + usize::from(class)]
    }
}

#[derive(Clone)]
pub struct Accumulator {
    codebook: Codebook,
    /// Per point, current for empty points.
    points: Vec<Point>,
    /// Per colour, the clipped sums of all counted empty points.
    totals: [[i32; DIM]; 2],
    /// Whether a point's counting can change: only under renju, whose stones' updates
    /// then reach farther (see the module's notes).
    masks_fouls: bool,
    /// Stones placed since the sums were last brought up to date, oldest first.
    waiting: Vec<Pos>,
    /// Per batch of stones brought in together, newest last: how to take it back.
    batches: Vec<Batch>,
    /// The stones of `batches`, oldest first.
    brought_in: Vec<Pos>,
    /// The points the stones of `batches` re-read, as they were before.
    saved: Vec<(Pos, Point)>,
}

/// What the sums hold for one empty point, per colour's view.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) struct Point {
    /// The feature classes of its four lines.
    classes: [[u16; 4]; 2],
    /// Whether it counts in that view (not a renju foul for Black).
    counted: [bool; 2],
    /// The four classes' rows summed.
    sums: [Row; 2],
}

impl Point {
    const EMPTY: Point = Point {
        classes: [[0; 4]; 2],
        counted: [true; 2],
        sums: [[0; DIM]; 2],
    };

    /// Moves the sums to the classes of `key` along `d` (and the counting to
    /// `counted`), and adds the change of the clipped values to `change`.
    fn reread_line(
        &mut self,
        codebook: &Codebook,
        d: usize,
        key: u32,
        counted: impl Fn(usize) -> bool,
        change: &mut [Row; 2],
    ) {
        for (c, class) in features(key).into_iter().enumerate() {
            let old = self.classes[c][d];
            let was_counted = self.counted[c];
            let counted = counted(c);
            if old == class && counted == was_counted {
                continue;
            }
            self.classes[c][d] = class;
            self.counted[c] = counted;
            let new_row = codebook.row(c, class);
            let old_row = codebook.row(c, old);
            let sum = &mut self.sums[c];
            let value = |v: i16, counted: bool| if counted { clipped(v) } else { 0 };
            for k in 0..DIM {
                let before = sum[k];
                let after = before + new_row[k] - old_row[k];
                sum[k] = after;
                change[c][k] += value(after, counted) - value(before, was_counted);
            }
        }
    }
}

/// Stones brought into the sums together: what the sums were before them.
#[derive(Clone)]
struct Batch {
    totals: [[i32; DIM]; 2],
    /// Where its points start in `Accumulator::saved`.
    saved_from: usize,
    /// Where its stones start in `Accumulator::brought_in`.
    stones_from: usize,
}

/// A point's value in one of its numbers: its rows' sum clipped to `0..=ONE`.
fn clipped(value: i16) -> i16 {
    value.clamp(0, ONE as i16)
}

fn add_clipped(total: &mut [i32; DIM], row: &Row, sign: i32) {
    for (t, &v) in total.iter_mut().zip(row) {
        *t += sign * i32::from(clipped(v));
    }
}

impl Accumulator {
    /// The sums of `board`, computed point by point.
    pub fn new(net: Arc<Network>, board: &Board) -> Accumulator {
        let mut accumulator = Accumulator {
            codebook: Codebook::new(net),
            points: vec![Point::EMPTY; POINTS],
            totals: [[0; DIM]; 2],
            masks_fouls: board.rule() == Rule::Renju,
            waiting: Vec::new(),
            batches: Vec::new(),
            brought_in: Vec::new(),
            saved: Vec::new(),
        };
        for pos in board.empty_points() {
            accumulator.read_point(board, pos);
        }
        accumulator
    }

    /// Reads every line of the empty `pos` and adds the point to the totals.
    fn read_point(&mut self, board: &Board, pos: Pos) {
        let point = &mut self.points[pos.index()];
        let keys: [u32; 4] = std::array::from_fn(|d| board.line_key(pos, d));
        for (c, color) in COLORS.into_iter().enumerate() {
            let mut sum = [0i16; DIM];
            for (d, &key) in keys.iter().enumerate() {
                let class = features(key)[c];
                point.classes[c][d] = class;
                for (s, &v) in sum.iter_mut().zip(self.codebook.row(c, class)) {
                    *s += v;
                }
            }
            point.sums[c] = sum;
            point.counted[c] = counts(board, pos, color);
            if point.counted[c] {
                add_clipped(&mut self.totals[c], &sum, 1);
            }
        }
    }

    /// How far along its lines a stone changes what the sums hold.
    fn reach(&self) -> i32 {
        if self.masks_fouls {
            HALF_LINE as i32
        } else {
            REACH
        }
    }

    /// A stone was placed on `pos`.
    pub fn placed(&mut self, pos: Pos) {
        self.waiting.push(pos);
    }

    /// The stone on `pos`, the last placed, was lifted; `board` is without it.
    pub fn lifted(&mut self, board: &Board, pos: Pos) {
        if let Some(waiting) = self.waiting.pop() {
            debug_assert_eq!(waiting, pos, "lifted in another order");
            return;
        }
        let Some(batch) = self.batches.pop() else {
            // Placed before the sums were made.
            self.update(board, pos, false);
            return;
        };
        for (pos, point) in self.saved.drain(batch.saved_from..).rev() {
            self.points[pos.index()] = point;
        }
        self.totals = batch.totals;
        debug_assert_eq!(
            self.brought_in.last(),
            Some(&pos),
            "lifted in another order"
        );
        self.brought_in.pop();
        self.waiting
            .extend(self.brought_in.drain(batch.stones_from..));
    }

    /// Brings in the waiting stones, as one batch.
    fn catch_up(&mut self, board: &Board) {
        if self.waiting.is_empty() {
            return;
        }
        self.batches.push(Batch {
            totals: self.totals,
            saved_from: self.saved.len(),
            stones_from: self.brought_in.len(),
        });
        for i in 0..self.waiting.len() {
            self.update(board, self.waiting[i], true);
        }
        self.brought_in.append(&mut self.waiting);
    }

    /// Takes the point `pos`'s values out of the totals.
    fn remove_point(&mut self, pos: Pos) {
        let point = &self.points[pos.index()];
        for c in 0..2 {
            if point.counted[c] {
                add_clipped(&mut self.totals[c], &point.sums[c], -1);
            }
        }
    }

    /// Brings the sums up to date after a stone was placed on or lifted from `pos`,
    /// saving the points it re-reads if `save`.
    ///
    /// The points' changes are summed in 16 bits, which vectorises twice as wide as
    /// 32, and added to the totals once: at most `1 + 8 * HALF_LINE` points change, each
    /// by at most `ONE`, well inside an `i16`.
    fn update(&mut self, board: &Board, pos: Pos, save: bool) {
        if board.is_empty(pos) {
            self.read_point(board, pos);
        } else {
            self.remove_point(pos);
        }
        let mut change = [[0i16; DIM]; 2];
        let reach = self.reach();
        let Accumulator {
            codebook,
            points,
            saved,
            masks_fouls,
            ..
        } = self;
        for d in 0..4 {
            board.empty_points_along(pos, d, reach, |near, key| {
                let point = &mut points[near.index()];
                if save {
                    saved.push((near, *point));
                }
                let counted = |c| !*masks_fouls || counts(board, near, COLORS[c]);
                point.reread_line(codebook, d, key, counted, &mut change);
            });
        }
        for (total, change) in self.totals.iter_mut().zip(&change) {
            for (t, &v) in total.iter_mut().zip(change) {
                *t += i32::from(v);
            }
        }
    }

    /// The network's score of `board` (whose stones these sums follow) for the side
    /// to move, in the search's units.
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        self.evaluate_given(board, crate::eval::evaluate(board))
    }

    /// [`Accumulator::evaluate`] where the caller already has the classical score of
    /// `board`, one of the network's inputs.
    pub fn evaluate_given(&mut self, board: &Board, classical: i32) -> i32 {
        let logit = self.logit_given(board, classical);
        self.codebook.net.score(logit)
    }

    /// The network's win logit for the side to move.
    pub fn logit(&mut self, board: &Board) -> f32 {
        self.logit_given(board, crate::eval::evaluate(board))
    }

    fn logit_given(&mut self, board: &Board, classical: i32) -> f32 {
        self.catch_up(board);
        let me = board.to_move();
        let (own, other) = (
            &self.totals[me.index()],
            &self.totals[me.opponent().index()],
        );
        let unit = ONE as f32;
        let inputs = head_inputs(
            |k| own[k] as f32 / unit,
            |k| other[k] as f32 / unit,
            me == Color::Black,
            classical,
        );
        self.codebook.net.head.forward(&inputs, &mut [0.0; HIDDEN])
    }

    /// The totals, for tests that compare them with a fresh computation.
    #[cfg(test)]
    pub(super) fn totals(&mut self, board: &Board) -> [[i32; DIM]; 2] {
        self.catch_up(board);
        self.totals
    }

    /// What the sums hold for each empty point, for tests that compare it with a fresh
    /// computation.
    #[cfg(test)]
    pub(super) fn empty_points(&mut self, board: &Board) -> Vec<Point> {
        self.catch_up(board);
        (board.empty_points())
            .map(|pos| self.points[pos.index()])
            .collect()
    }
}

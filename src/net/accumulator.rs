//! The network's board sums, kept up to date as stones are placed and lifted.
//!
//! Per empty point and colour it keeps the feature classes of the four lines and their
//! codebook rows' sum; a stone changes the key of one line of each point within
//! [`REACH`] on its four lines, so an update re-reads those keys and moves each changed
//! point's sum by the difference of two rows, and the board sum by the difference of
//! the point's clipped values. Integer arithmetic, so an update and its reverse cancel
//! exactly and the sums always equal those recomputed from the board.

use super::network::{DIM, HIDDEN, Network, ONE, head_inputs};
use crate::board::{Board, Color, DIRECTIONS, POINTS, Pos};
use crate::features::{REACH, feature};
use std::sync::Arc;

const COLORS: [Color; 2] = [Color::Black, Color::White];

/// One point's pre-activation: the sum of its four rows.
type Row = [i16; DIM];

#[derive(Clone)]
pub struct Accumulator {
    net: Arc<Network>,
    /// `classes[p][colour][d]`, current for empty points.
    classes: Vec<[[u16; 4]; 2]>,
    /// `sums[p][colour]`: the four rows summed, current for empty points.
    sums: Vec<[Row; 2]>,
    /// Per colour, the clipped sums of all empty points.
    totals: [[i32; DIM]; 2],
}

fn clipped(value: i16) -> i32 {
    i32::from(value).clamp(0, ONE)
}

fn add_clipped(total: &mut [i32; DIM], row: &Row, sign: i32) {
    for (t, &v) in total.iter_mut().zip(row) {
        *t += sign * clipped(v);
    }
}

impl Accumulator {
    /// The sums of `board`, computed point by point.
    pub fn new(net: Arc<Network>, board: &Board) -> Accumulator {
        let mut accumulator = Accumulator {
            net,
            classes: vec![[[0; 4]; 2]; POINTS],
            sums: vec![[[0; DIM]; 2]; POINTS],
            totals: [[0; DIM]; 2],
        };
        for pos in board.empty_points() {
            accumulator.read_point(board, pos);
        }
        accumulator
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// Reads every line of the empty `pos` and adds the point to the totals.
    fn read_point(&mut self, board: &Board, pos: Pos) {
        let i = pos.index();
        for (c, &color) in COLORS.iter().enumerate() {
            let mut sum = [0i16; DIM];
            for d in 0..4 {
                let class = feature(board.line_key(pos, d), color);
                self.classes[i][c][d] = class;
                for (s, &v) in sum.iter_mut().zip(&self.net.codebook[usize::from(class)]) {
                    *s += v;
                }
            }
            self.sums[i][c] = sum;
            add_clipped(&mut self.totals[c], &sum, 1);
        }
    }

    /// Re-reads line `d` of the empty `pos`.
    fn read_line(&mut self, board: &Board, pos: Pos, d: usize) {
        let i = pos.index();
        let key = board.line_key(pos, d);
        for (c, &color) in COLORS.iter().enumerate() {
            let class = feature(key, color);
            let old = std::mem::replace(&mut self.classes[i][c][d], class);
            if old == class {
                continue;
            }
            let before = self.sums[i][c];
            let (new_row, old_row) = (
                &self.net.codebook[usize::from(class)],
                &self.net.codebook[usize::from(old)],
            );
            let mut after = before;
            for k in 0..DIM {
                after[k] += new_row[k] - old_row[k];
            }
            for k in 0..DIM {
                self.totals[c][k] += clipped(after[k]) - clipped(before[k]);
            }
            self.sums[i][c] = after;
        }
    }

    /// Brings the sums up to date after a stone was placed on or lifted from `pos`.
    pub fn update(&mut self, board: &Board, pos: Pos) {
        if board.is_empty(pos) {
            self.read_point(board, pos);
        } else {
            for c in 0..2 {
                add_clipped(&mut self.totals[c], &self.sums[pos.index()][c], -1);
            }
        }
        for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            for distance in 1..=REACH {
                for sign in [-1, 1] {
                    let step = sign * distance;
                    if let Some(near) = board.offset(pos, step * dx, step * dy)
                        && board.is_empty(near)
                    {
                        self.read_line(board, near, d);
                    }
                }
            }
        }
    }

    /// The network's score of `board` (whose stones these sums follow) for the side
    /// to move, in the search's units.
    pub fn evaluate(&self, board: &Board) -> i32 {
        self.net.score(self.logit(board))
    }

    /// The network's win logit for the side to move.
    pub fn logit(&self, board: &Board) -> f32 {
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
        );
        self.net.head.forward(&inputs, &mut [0.0; HIDDEN])
    }

    /// The totals, for tests that compare them with a fresh computation.
    #[cfg(test)]
    pub(super) fn totals(&self) -> &[[i32; DIM]; 2] {
        &self.totals
    }
}

//! The network in floating point, as the trainer fits it: the forward pass over a
//! board from scratch, and its gradient written out by hand.

use crate::board::{Board, Color};
use crate::features::{FEATURES, features};
use crate::net::{DIM, HIDDEN, Head, INPUTS, Network, ONE, counts, first_row, head_inputs};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The trainer's network: the codebook in units of 1.0 (`FEATURES` rows of `DIM`, or
/// twice that with a codebook per colour, as [`crate::net::first_row`] lays them out).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub codebook: Vec<f32>,
    pub head: Head,
}

/// One point seen from one view: its rows in the codebook and their sum.
struct PointView {
    view: usize,
    rows: [u16; 4],
    sum: [f32; DIM],
}

/// What the forward pass keeps for the backward one.
pub struct Activations {
    points: Vec<PointView>,
    inputs: Vec<f32>,
    hidden: [f32; HIDDEN],
}

// Written out: arrays derive `Default` only up to 32 long.
impl Default for Activations {
    fn default() -> Activations {
        Activations {
            points: Vec::new(),
            inputs: Vec::new(),
            hidden: [0.0; HIDDEN],
        }
    }
}

impl Model {
    /// Small random weights, every point inside the codebook's linear range, and the
    /// classical score's weight `classical_weight`: the model starts close to the
    /// classical evaluation. `codebooks`: 1 shared by both colours, or 2, one each.
    pub fn random(seed: u64, classical_weight: f32, codebooks: usize) -> Model {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut uniform = |low: f32, high: f32, n: usize| -> Vec<f32> {
            (0..n).map(|_| rng.random_range(low..high)).collect()
        };
        let bound = 1.0 / (INPUTS as f32).sqrt();
        let codebook = uniform(-0.05, 0.2, codebooks * FEATURES * DIM);
        let hidden_weights = uniform(-bound, bound, HIDDEN * INPUTS);
        let output_weights = uniform(-0.05, 0.05, HIDDEN);
        Model {
            codebook,
            head: Head {
                hidden_weights,
                hidden_bias: vec![0.1; HIDDEN],
                output_weights,
                output_bias: 0.0,
                classical_weight,
            },
        }
    }

    /// The model of an engine network (the codebook as the engine rounded it).
    pub fn from_network(net: &Network) -> Model {
        Model {
            codebook: net
                .codebook
                .iter()
                .flatten()
                .map(|&v| f32::from(v) / ONE as f32)
                .collect(),
            head: net.head.clone(),
        }
    }

    /// This model with its hidden layer's part of the logit (the output weights and
    /// bias: its correction to the classical score) multiplied by `factor`.
    pub fn with_correction_scaled(&self, factor: f32) -> Model {
        let mut scaled = self.clone();
        scaled
            .head
            .output_weights
            .iter_mut()
            .for_each(|w| *w *= factor);
        scaled.head.output_bias *= factor;
        scaled
    }

    /// The engine's network of this model.
    pub fn to_network(
        &self,
        rule: crate::board::Rule,
        board_size: Option<usize>,
        scale: f32,
    ) -> Network {
        Network {
            board_size,
            ..Network::quantised(rule, scale, &self.codebook, self.head.clone())
        }
    }

    /// The win logit of `board` for the side to move; `activations` keeps what the
    /// gradient needs.
    pub fn forward(&self, board: &Board, activations: &mut Activations) -> f32 {
        let me = board.to_move();
        let views = [me, me.opponent()];
        let mut totals = [[0.0f32; DIM]; 2];
        // At most 2 * FEATURES rows: inside a u16.
        let first_rows = [0, 1].map(|c| first_row(self.codebook.len() / DIM, c) as u16);
        activations.points.clear();
        for pos in board.empty_points() {
            let pair_classes: [[u16; 2]; 4] =
                std::array::from_fn(|d| features(board.line_key(pos, d)));
            for (view, &color) in views.iter().enumerate() {
                if !counts(board, pos, color) {
                    continue;
                }
                let c = color.index();
                let rows = pair_classes.map(|pair| first_rows[c] + pair[c]);
                let mut sum = [0.0f32; DIM];
                for &row in &rows {
                    let row = &self.codebook[usize::from(row) * DIM..][..DIM];
                    for (s, &v) in sum.iter_mut().zip(row) {
                        *s += v;
                    }
                }
                for (t, &s) in totals[view].iter_mut().zip(&sum) {
                    *t += s.clamp(0.0, 1.0);
                }
                activations.points.push(PointView { view, rows, sum });
            }
        }
        let inputs = head_inputs(
            |k| totals[0][k],
            |k| totals[1][k],
            me == Color::Black,
            crate::eval::evaluate(board),
        );
        let logit = self.head.forward(&inputs, &mut activations.hidden);
        activations.inputs = inputs.to_vec();
        logit
    }

    /// Adds to `gradient` the gradient of the loss whose derivative by the logit of the
    /// last [`Model::forward`] is `d_logit`.
    pub fn backward(&self, activations: &Activations, d_logit: f32, gradient: &mut Model) {
        let (head, grad) = (&self.head, &mut gradient.head);
        grad.output_bias += d_logit;
        grad.classical_weight += d_logit * activations.inputs[crate::net::CLASSICAL_INPUT];
        let d_hidden: [f32; HIDDEN] = std::array::from_fn(|j| {
            let hidden = activations.hidden[j];
            grad.output_weights[j] += d_logit * hidden;
            if hidden > 0.0 {
                d_logit * head.output_weights[j]
            } else {
                0.0
            }
        });
        for (g, d) in grad.hidden_bias.iter_mut().zip(&d_hidden) {
            *g += d;
        }
        let mut d_inputs = [0.0f32; INPUTS];
        let rows = head.hidden_weights.chunks_exact(HIDDEN);
        let grad_rows = grad.hidden_weights.chunks_exact_mut(HIDDEN);
        for (((row, grad_row), &x), d_input) in rows
            .zip(grad_rows)
            .zip(&activations.inputs)
            .zip(&mut d_inputs)
        {
            for ((g, &w), &d) in grad_row.iter_mut().zip(row).zip(&d_hidden) {
                *g += d * x;
                *d_input += d * w;
            }
        }
        let d_totals: [[f32; DIM]; 2] = std::array::from_fn(|view| {
            std::array::from_fn(|k| d_inputs[view * DIM + k] / crate::net::SUM_DIVISOR)
        });
        for point in &activations.points {
            let d_sum: [f32; DIM] = std::array::from_fn(|k| {
                let inside = point.sum[k] > 0.0 && point.sum[k] < 1.0;
                if inside { d_totals[point.view][k] } else { 0.0 }
            });
            for &row in &point.rows {
                let row = &mut gradient.codebook[usize::from(row) * DIM..][..DIM];
                for (g, &d) in row.iter_mut().zip(&d_sum) {
                    *g += d;
                }
            }
        }
    }

    /// All weights in one list, codebook first: the optimiser's view.
    pub fn to_flat(&self) -> Vec<f64> {
        let head = &self.head;
        self.codebook
            .iter()
            .chain(&head.hidden_weights)
            .chain(&head.hidden_bias)
            .chain(&head.output_weights)
            .chain([&head.output_bias, &head.classical_weight])
            .map(|&v| f64::from(v))
            .collect()
    }

    /// Where the codebook, the hidden weights and the output weights lie in
    /// [`Model::to_flat`]'s list: the weights that decay.
    pub fn decayed_ranges(&self) -> [std::ops::Range<usize>; 2] {
        let hidden_end = self.codebook.len() + HIDDEN * INPUTS;
        let output_start = hidden_end + HIDDEN;
        [0..hidden_end, output_start..output_start + HIDDEN]
    }

    /// The model of a list from [`Model::to_flat`] (the head's size tells the
    /// codebook's).
    pub fn from_flat(flat: &[f64]) -> Model {
        let mut rest = flat.iter().map(|&v| v as f32);
        let mut take = |n: usize| -> Vec<f32> { rest.by_ref().take(n).collect() };
        let codebook = take(flat.len() - crate::net::HEAD_WEIGHTS);
        let hidden_weights = take(HIDDEN * INPUTS);
        let hidden_bias = take(HIDDEN);
        let output_weights = take(HIDDEN);
        let output_bias = take(1)[0];
        let classical_weight = take(1)[0];
        Model {
            codebook,
            head: Head {
                hidden_weights,
                hidden_bias,
                output_weights,
                output_bias,
                classical_weight,
            },
        }
    }

    /// A model of zeros of this one's shape, to sum gradients in.
    pub fn zeroed_like(&self) -> Model {
        Model {
            codebook: vec![0.0; self.codebook.len()],
            head: Head::zeroed(),
        }
    }

    /// Sets every weight to zero.
    pub fn fill_zero(&mut self) {
        let head = &mut self.head;
        for weights in [
            &mut self.codebook,
            &mut head.hidden_weights,
            &mut head.hidden_bias,
            &mut head.output_weights,
        ] {
            weights.fill(0.0);
        }
        head.output_bias = 0.0;
        head.classical_weight = 0.0;
    }

    /// Adds `other` to this model, weight by weight.
    pub fn add(&mut self, other: &Model) {
        let pairs = [
            (&mut self.codebook, &other.codebook),
            (&mut self.head.hidden_weights, &other.head.hidden_weights),
            (&mut self.head.hidden_bias, &other.head.hidden_bias),
            (&mut self.head.output_weights, &other.head.output_weights),
        ];
        for (mine, theirs) in pairs {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
        self.head.output_bias += other.head.output_bias;
        self.head.classical_weight += other.head.classical_weight;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Rule;
    use crate::net::Accumulator;
    use std::sync::Arc;

    /// Positions of the bundled self-play games, every fifth.
    fn positions() -> Vec<Board> {
        let text = include_str!("../../testdata/selfplay-freestyle-15.txt");
        let games = crate::selfplay::read_games(text).expect("the bundled games");
        let mut boards = Vec::new();
        for game in &games {
            game.replay(|board, sample| {
                if sample.ply % 5 == 0 {
                    boards.push(board.clone());
                }
            })
            .expect("a legal game");
        }
        boards
    }

    #[test]
    fn the_engine_s_score_is_the_trainer_s_within_the_rounding_of_the_codebook() {
        for codebooks in [1, 2] {
            let model = Model::random(5, 0.5, codebooks);
            let net = Arc::new(model.to_network(Rule::Freestyle, None, 400.0));
            let mut activations = Activations::default();
            let (mut largest_gap, mut logits) = (0.0f32, Vec::new());
            for board in positions() {
                let trainer = model.forward(&board, &mut activations);
                let engine = Accumulator::new(net.clone(), &board).logit(&board);
                largest_gap = largest_gap.max((trainer - engine).abs());
                logits.push(trainer);
            }
            let spread = logits.iter().cloned().fold(f32::MIN, f32::max)
                - logits.iter().cloned().fold(f32::MAX, f32::min);
            assert!(
                largest_gap < 0.01,
                "{codebooks} codebooks: gap {largest_gap}"
            );
            assert!(
                spread > 0.1,
                "the positions' logits barely differ: {spread}"
            );
        }
    }

    #[test]
    fn scaling_the_correction_scales_what_the_network_adds_to_the_classical_score() {
        let model = Model::random(4, 0.5, 1);
        let logit = |factor: f32, board: &Board| {
            let scaled = model.with_correction_scaled(factor);
            scaled.forward(board, &mut Activations::default())
        };
        for board in positions().iter().step_by(7) {
            let (none, half, all) = (logit(0.0, board), logit(0.5, board), logit(1.0, board));
            let classical = crate::eval::evaluate(board) as f32 / crate::net::CLASSICAL_UNIT;
            let classical =
                classical.clamp(-crate::net::CLASSICAL_LIMIT, crate::net::CLASSICAL_LIMIT);
            assert!((none - 0.5 * classical).abs() < 1e-5, "{none} {classical}");
            assert!(
                (half - (none + all) / 2.0).abs() < 1e-4,
                "{none} {half} {all}"
            );
        }
    }

    #[test]
    fn the_gradient_is_the_slope_of_the_logit() {
        let model = Model::random(9, 0.5, 2);
        let board = positions().swap_remove(7);
        let mut activations = Activations::default();
        model.forward(&board, &mut activations);
        let mut gradient = model.zeroed_like();
        model.backward(&activations, 1.0, &mut gradient);
        let flat = model.to_flat();
        let analytic = gradient.to_flat();
        // The used codebook entries with the largest gradients, and every head weight.
        let mut checked: Vec<usize> = (0..FEATURES * DIM)
            .filter(|&i| analytic[i].abs() > 1e-3)
            .take(40)
            .collect();
        // And White's, from the second codebook.
        checked.extend(
            (FEATURES * DIM..2 * FEATURES * DIM)
                .filter(|&i| analytic[i].abs() > 1e-3)
                .take(40),
        );
        checked.extend(2 * FEATURES * DIM..flat.len());
        assert!(checked.len() > 80 + HIDDEN * INPUTS);
        let logit_at = |i: usize, delta: f64| {
            let mut moved = flat.clone();
            moved[i] += delta;
            f64::from(Model::from_flat(&moved).forward(&board, &mut Activations::default()))
        };
        for i in checked {
            let h = 1e-2;
            let numeric = (logit_at(i, h) - logit_at(i, -h)) / (2.0 * h);
            assert!(
                (numeric - analytic[i]).abs() < 2e-2 * (1.0 + numeric.abs()),
                "weight {i}: numeric {numeric}, analytic {}",
                analytic[i]
            );
        }
    }
}

//! The network's weights and the arithmetic the trainer and the engine share: the
//! shapes, the codebook's integer units, and the dense head.

use crate::board::pattern::Threat;
use crate::board::{Board, Color, Pos, Rule};
use crate::features::FEATURES;

/// Width of a codebook row: numbers per point and view. 32 searched 10 % slower; the
/// rounds in `docs/experiments.md` from the control on are all 16 wide.
pub const DIM: usize = 16;
/// Rectifiers in the head's hidden layer: the head runs once a node, so its width
/// costs little; not yet varied.
pub const HIDDEN: usize = 32;
/// The head's inputs: both views' board sums, 1 when Black is to move (renju's sides
/// differ), and the classical evaluation's score (see [`CLASSICAL_INPUT`]).
pub const INPUTS: usize = 2 * DIM + 2;
/// Where the classical score sits among the inputs, in thousands of its units, within
/// [`CLASSICAL_LIMIT`]. It also reaches the logit directly, through
/// [`Head::classical_weight`]: the network learns what to add to the classical
/// evaluation, which a search already plays well with, and starts from it.
pub const CLASSICAL_INPUT: usize = 2 * DIM + 1;
pub const CLASSICAL_UNIT: f32 = 1000.0;
pub const CLASSICAL_LIMIT: f32 = 8.0;
/// The head's numbers: hidden weights and biases, output weights, output bias and
/// the classical score's weight.
pub const HEAD_WEIGHTS: usize = HIDDEN * INPUTS + 2 * HIDDEN + 2;
/// Codebook units per 1.0: a point's clipped value lies in `0..=ONE`.
pub const ONE: i32 = 256;
/// Codebook entries are kept within this, in units of 1.0, so that four rows summed
/// stay inside an `i16`.
pub const CODEBOOK_LIMIT: f32 = 31.0;
/// Board sums are divided by this before the head: a 20×20 board's sums stay of the
/// order of a few units.
pub const SUM_DIVISOR: f32 = 64.0;
/// Scores the network may give, in the search's units: below every proven result.
pub const MAX_SCORE: i32 = 20_000;

/// The dense layers on top of the board sums, in floating point (the engine runs them
/// once a node; the codebook is the hot part).
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    /// `INPUTS` rows of `HIDDEN`: input by input, so that the forward pass adds whole
    /// rows and vectorises.
    pub hidden_weights: Vec<f32>,
    pub hidden_bias: Vec<f32>,
    pub output_weights: Vec<f32>,
    pub output_bias: f32,
    /// Logit per unit of the classical input, added to the output.
    pub classical_weight: f32,
}

impl Head {
    pub fn zeroed() -> Head {
        Head {
            hidden_weights: vec![0.0; HIDDEN * INPUTS],
            hidden_bias: vec![0.0; HIDDEN],
            output_weights: vec![0.0; HIDDEN],
            output_bias: 0.0,
            classical_weight: 0.0,
        }
    }

    /// The win logit of `inputs`; `hidden` receives the rectified hidden layer.
    pub fn forward(&self, inputs: &[f32; INPUTS], hidden: &mut [f32; HIDDEN]) -> f32 {
        hidden.copy_from_slice(&self.hidden_bias);
        for (row, &x) in self.hidden_weights.chunks_exact(HIDDEN).zip(inputs) {
            for (h, &w) in hidden.iter_mut().zip(row) {
                *h += x * w;
            }
        }
        let mut logit = self.output_bias + self.classical_weight * inputs[CLASSICAL_INPUT];
        for (h, &w) in hidden.iter_mut().zip(&self.output_weights) {
            *h = h.max(0.0);
            logit += w * *h;
        }
        logit
    }
}

/// Whether the empty `pos` counts in `color`'s view of the board sums: not where Black
/// may not play under renju (a double four or an overline), whose lines look like
/// Black's best but are worth nothing to Black.
pub fn counts(board: &Board, pos: Pos, color: Color) -> bool {
    board.threat(pos, color) != Threat::Forbidden
}

/// The head's inputs from the two views' board sums, in units of 1.0 (the side to
/// move's view first), and the classical score.
pub fn head_inputs(
    own: impl Fn(usize) -> f32,
    other: impl Fn(usize) -> f32,
    black_to_move: bool,
    classical: i32,
) -> [f32; INPUTS] {
    let mut inputs = [0.0; INPUTS];
    for i in 0..DIM {
        inputs[i] = own(i) / SUM_DIVISOR;
        inputs[DIM + i] = other(i) / SUM_DIVISOR;
    }
    inputs[2 * DIM] = f32::from(u8::from(black_to_move));
    inputs[CLASSICAL_INPUT] =
        (classical as f32 / CLASSICAL_UNIT).clamp(-CLASSICAL_LIMIT, CLASSICAL_LIMIT);
    inputs
}

/// The first row of colour `c`'s view (0 Black, 1 White) in a codebook of `rows`
/// rows: `FEATURES` (shared) or `2 * FEATURES` (Black's, then White's).
pub fn first_row(rows: usize, c: usize) -> usize {
    if rows == 2 * FEATURES {
        c * FEATURES
    } else {
        0
    }
}

/// A network as the engine runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// The rule it was trained for.
    pub rule: Rule,
    /// The square board's side it was trained on, if one: the head reads sums over the
    /// whole board, which grow with it, so such a network scores boards of that size
    /// only.
    pub board_size: Option<usize>,
    /// Search units per logit: the network's logit times this is its score.
    pub scale: f32,
    /// `FEATURES` rows, in units of `1 / ONE`, shared by both colours' views; or
    /// `2 * FEATURES`, Black's rows then White's (see [`Network::rows`]).
    pub codebook: Vec<[i16; DIM]>,
    pub head: Head,
}

impl Network {
    /// The network with `codebook` (`FEATURES` or `2 * FEATURES` rows of `DIM`, units
    /// of 1.0) rounded to the engine's integers.
    pub fn quantised(rule: Rule, scale: f32, codebook: &[f32], head: Head) -> Network {
        assert!(
            [1, 2].map(|n| n * FEATURES * DIM).contains(&codebook.len()),
            "a codebook of {} numbers",
            codebook.len()
        );
        let codebook = codebook
            .chunks_exact(DIM)
            .map(|row| {
                std::array::from_fn(|i| {
                    (row[i].clamp(-CODEBOOK_LIMIT, CODEBOOK_LIMIT) * ONE as f32).round() as i16
                })
            })
            .collect();
        Network {
            rule,
            board_size: None,
            scale,
            codebook,
            head,
        }
    }

    /// The codebook rows of colour `c`'s view (0 Black, 1 White), indexed by class:
    /// with a codebook per colour a line is valued as the colour it belongs to sees it
    /// (renju's Black, whose fouls bar some of its lines, and White differ).
    pub fn rows(&self, c: usize) -> &[[i16; DIM]] {
        &self.codebook[first_row(self.codebook.len(), c)..][..FEATURES]
    }

    /// What it scores, for people: its rule and board size.
    pub fn scope(&self) -> String {
        match self.board_size {
            Some(size) => format!("{:?} on {size}x{size} boards", self.rule),
            None => format!("{:?} on boards of any size", self.rule),
        }
    }

    /// Whether it scores positions of `board`: of its rule and, if it has one, its size.
    pub fn fits(&self, board: &Board) -> bool {
        self.rule == board.rule()
            && self
                .board_size
                .is_none_or(|size| board.width() == size && board.height() == size)
    }

    /// Whether the two score some of the same boards: the same rule, and the same
    /// board size or either one of any size.
    pub fn overlaps(&self, other: &Network) -> bool {
        self.rule == other.rule
            && (self.board_size.is_none()
                || other.board_size.is_none()
                || self.board_size == other.board_size)
    }

    /// The network whose score is the classical evaluation's, as long as that stays
    /// within [`CLASSICAL_LIMIT`] thousand: zero weights but the classical skip. It
    /// costs what any network costs, so a match against it measures a trained
    /// network's weights alone.
    pub fn control(rule: Rule) -> Network {
        let mut head = Head::zeroed();
        head.classical_weight = 1.0;
        Network::quantised(rule, CLASSICAL_UNIT, &vec![0.0; FEATURES * DIM], head)
    }

    /// The same network with its scale set so that the classical skip passes the
    /// classical score through unchanged: its scores are then in the classical
    /// evaluation's units, like the scores of the positions the search does not ask it
    /// for and the margins the search prunes by. None if that weight is not positive.
    pub fn in_classical_units(&self) -> Option<Network> {
        let weight = self.head.classical_weight;
        (weight > 0.0).then(|| Network {
            scale: CLASSICAL_UNIT / weight,
            ..self.clone()
        })
    }

    /// The score of a logit, in the search's units.
    pub fn score(&self, logit: f32) -> i32 {
        ((logit * self.scale).round() as i32).clamp(-MAX_SCORE, MAX_SCORE)
    }
}

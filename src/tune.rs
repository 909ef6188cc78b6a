//! `pbrain-lianzhu tune GAMES.sgf...`: fits the evaluation weights to game results by
//! Texel's method. Every quiet position of every game becomes a sample (the threat
//! counts of both sides and the result for the side to move); a fifth of the games is
//! held out, to show whether a fit generalises. The weights are moved to
//! minimise the squared error between `sigmoid(score / scale)` and the result, with the
//! scale first fitted to the current weights so the units stay those of the search.
//! `tune --initiative` moves only the tempo and the initiative table. The table has
//! 1 024 entries, many seldom seen, so its weights decay towards zero.

use crate::board::pattern::{THREAT_KINDS, Threat};
use crate::board::{Board, Color, Pos};
use crate::eval::{self, INITIATIVE_SETS, Weights};
use crate::rules;

pub mod labels;
pub mod ordering;

pub use crate::sgf::Game;

/// One position: the threat counts of the side to move and of its opponent, and how the
/// game ended for the side to move (1 won, 0 lost, 0.5 drawn).
#[derive(Clone, Debug)]
pub struct Sample {
    pub own: [u16; THREAT_KINDS],
    pub opponent: [u16; THREAT_KINDS],
    pub result: f64,
    pub to_move: Color,
}

impl Game {
    /// Whether the game belongs to the fifth held out of a fit. Games that start alike
    /// (an opening played with both colours) teach alike, so the split follows the
    /// first ten moves: no held-out game starts as a fitted one does.
    pub fn held_out(&self) -> bool {
        let start = &self.moves[..self.moves.len().min(10)];
        // FNV-1a over the coordinates: the same split on every machine and release.
        let hash = start
            .iter()
            .fold(0xcbf2_9ce4_8422_2325_u64, |hash, &(x, y)| {
                let hash = (hash ^ x as u64).wrapping_mul(0x100_0000_01b3);
                (hash ^ y as u64).wrapping_mul(0x100_0000_01b3)
            });
        hash.is_multiple_of(5)
    }
}

/// Replays `game` from the empty board, showing `visit` each position with the move
/// played in it; stops at the first move off the board, on a stone or illegal. The
/// board after the last move, if every move was played.
fn replay(game: &Game, mut visit: impl FnMut(&mut Board, Pos)) -> Option<Board> {
    let mut board = Board::new(game.size, game.size, game.setting.rule);
    for &(x, y) in &game.moves {
        let pos = board.pos(x as i64, y as i64)?;
        let me = board.to_move();
        if !board.is_empty(pos) || !rules::is_legal(&mut board, pos, me) {
            return None;
        }
        visit(&mut board, pos);
        board.play(pos);
    }
    Some(board)
}

/// The quiet positions of `game`: a position where either side can make a five, or
/// the side to move can make a straight four, is settled by the search, not the
/// evaluation, and is left out.
pub fn samples(game: &Game) -> Vec<Sample> {
    let mut out = Vec::new();
    replay(game, |board, _| {
        let result = rules::result_for(game.winner, board.to_move());
        out.extend(Sample::of_quiet(board, f64::from(result)));
    });
    out
}

impl Sample {
    /// The sample of `board` with `result` for the side to move, if the board is quiet.
    fn of_quiet(board: &Board, result: f64) -> Option<Sample> {
        let me = board.to_move();
        is_quiet(board).then(|| Sample {
            own: *board.threat_counts(me),
            opponent: *board.threat_counts(me.opponent()),
            result,
            to_move: me,
        })
    }
}

fn is_quiet(board: &Board) -> bool {
    let me = board.to_move();
    board.threat_count(me, Threat::Five) == 0
        && board.threat_count(me.opponent(), Threat::Five) == 0
        && board.threat_count(me, Threat::Flex4) == 0
}

/// What [`fit`] found.
pub struct Fit {
    pub weights: Weights,
    pub scale: f64,
    pub loss_before: f64,
    pub loss_after: f64,
}

pub const ITERATIONS: usize = 1500;
const INITIATIVE_DECAY: f64 = 1e-5;
const LEARNING_RATE: f64 = 2.0;

/// Which weights a [`fit`] moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    All,
    /// The tempo and the initiative table; the threat weights stay.
    Initiative,
    /// The threat weights and the tempo; the initiative table stays.
    Threats,
}

/// Fits the scale to `start` (unless `scale` gives it), then the weights in `scope`
/// (Adam on the mean squared error, full batch). `None` and `Five` (never present in quiet samples) stay as they
/// are.
pub fn fit(
    samples: &[Sample],
    start: &Weights,
    scope: Scope,
    scale: Option<f64>,
    on_step: &mut dyn FnMut(),
) -> Fit {
    let scale = scale.unwrap_or_else(|| fit_scale(samples, start));
    let kept = to_params(start);
    let mut params = kept.clone();
    let loss_before = loss(samples, &params, scale);
    let mut adam = crate::adam::Adam::new(params.len(), LEARNING_RATE);
    for _ in 0..ITERATIONS {
        let mut gradient = gradient(samples, &params, scale);
        // Weight decay on the initiative table, in logits: a combination seen too
        // rarely to pay for its own weight stays near zero instead of taking a wild one
        // that the search would then seek out.
        for k in INITIATIVE_START..params.len() {
            gradient[k] += 2.0 * INITIATIVE_DECAY * params[k] / (scale * scale);
        }
        adam.step(&mut params, &gradient);
        params[Threat::None as usize] = kept[Threat::None as usize];
        params[THREAT_KINDS + Threat::None as usize] = kept[THREAT_KINDS + Threat::None as usize];
        // The tempo already is the constant: the table's first entry stays 0.
        params[INITIATIVE_START] = 0.0;
        match scope {
            Scope::All => {}
            Scope::Initiative => params[..TEMPO].copy_from_slice(&kept[..TEMPO]),
            Scope::Threats => params[INITIATIVE_START..].copy_from_slice(&kept[INITIATIVE_START..]),
        }
        on_step();
    }
    Fit {
        weights: from_params(&params),
        scale,
        loss_before,
        loss_after: loss(samples, &params, scale),
    }
}

const TEMPO: usize = 2 * THREAT_KINDS;
const INITIATIVE_START: usize = TEMPO + 1;

/// Parameters as one vector: own weights, opponent weights, tempo, initiative table row
/// by row.
fn to_params(weights: &Weights) -> Vec<f64> {
    let own = weights.own.iter().map(|&w| w as f64);
    let opponent = weights.opponent.iter().map(|&w| w as f64);
    let initiative = weights.initiative.iter().flatten().map(|&w| w as f64);
    own.chain(opponent)
        .chain([weights.tempo as f64])
        .chain(initiative)
        .collect()
}

fn from_params(params: &[f64]) -> Weights {
    let round = |k: usize| params[k].round() as i32;
    Weights {
        own: std::array::from_fn(round),
        opponent: std::array::from_fn(|k| round(THREAT_KINDS + k)),
        tempo: round(TEMPO),
        initiative: std::array::from_fn(|own| {
            std::array::from_fn(|opponent| round(initiative_index(own, opponent)))
        }),
    }
}

fn initiative_index(own: usize, opponent: usize) -> usize {
    INITIATIVE_START + own * INITIATIVE_SETS + opponent
}

fn sample_initiative_index(sample: &Sample) -> usize {
    initiative_index(
        eval::initiative(&sample.own),
        eval::initiative(&sample.opponent),
    )
}

fn score(sample: &Sample, params: &[f64]) -> f64 {
    let own: f64 = (0..THREAT_KINDS)
        .map(|k| params[k] * sample.own[k] as f64)
        .sum();
    let opponent: f64 = (0..THREAT_KINDS)
        .map(|k| params[THREAT_KINDS + k] * sample.opponent[k] as f64)
        .sum();
    own - opponent + params[TEMPO] + params[sample_initiative_index(sample)]
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn loss(samples: &[Sample], params: &[f64], scale: f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| (sigmoid(score(s, params) / scale) - s.result).powi(2))
        .sum();
    total / samples.len().max(1) as f64
}

fn gradient(samples: &[Sample], params: &[f64], scale: f64) -> Vec<f64> {
    let mut gradient = vec![0.0; params.len()];
    for s in samples {
        let p = sigmoid(score(s, params) / scale);
        let factor = 2.0 * (p - s.result) * p * (1.0 - p) / scale;
        for k in 0..THREAT_KINDS {
            gradient[k] += factor * s.own[k] as f64;
            gradient[THREAT_KINDS + k] -= factor * s.opponent[k] as f64;
        }
        gradient[TEMPO] += factor;
        gradient[sample_initiative_index(s)] += factor;
    }
    let n = samples.len().max(1) as f64;
    gradient.iter_mut().for_each(|g| *g /= n);
    gradient
}

/// The loss of `weights` on `samples` at the scale that suits them best.
pub fn fit_loss(samples: &[Sample], weights: &Weights) -> f64 {
    loss(samples, &to_params(weights), fit_scale(samples, weights))
}

/// The scale (score units per logit) that best fits `weights` to the results.
fn fit_scale(samples: &[Sample], weights: &Weights) -> f64 {
    let params = to_params(weights);
    best_scale(|scale| loss(samples, &params, scale))
}

/// The scale with the least `loss`, found by golden-section search.
pub(crate) fn best_scale(loss: impl Fn(f64) -> f64) -> f64 {
    let (mut low, mut high) = (10.0_f64, 10_000.0_f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if loss(a) < loss(b) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

/// `weights` as Rust source for `eval.rs`.
pub fn format_weights(weights: &Weights) -> String {
    let list = |w: &[i32; THREAT_KINDS]| {
        w.iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rows: Vec<String> = weights
        .initiative
        .iter()
        .map(|row| format!("    {row:?},"))
        .collect();
    format!(
        "own: [{}],\nopponent: [{}],\ntempo: {},\ninitiative: [\n{}\n],",
        list(&weights.own),
        list(&weights.opponent),
        weights.tempo,
        rows.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::WEIGHTS;
    use crate::rules::RuleSetting;

    #[test]
    fn a_fifth_of_the_games_is_held_out_by_their_first_ten_moves() {
        let game = |first: usize, later: usize| Game {
            setting: RuleSetting::from_mask(0).unwrap(),
            size: 20,
            moves: [(first % 20, 0), (first / 20, 1)]
                .into_iter()
                .chain((2..10).map(|i| (7, i)))
                .chain([(19, later)])
                .collect(),
            winner: None,
        };
        let held_out = (0..400).filter(|&g| game(g, 0).held_out()).count();
        assert!((50..=110).contains(&held_out), "{held_out} of 400");
        assert!((0..20).all(|later| game(3, later).held_out() == game(3, 0).held_out()));
    }

    #[test]
    fn samples_skip_positions_with_a_five_to_make_or_stop() {
        // Black's four stones in a row: once Black has a five point, White's position
        // before its forced block is not quiet.
        let game = Game {
            setting: RuleSetting::from_mask(0).unwrap(),
            size: 15,
            moves: vec![
                (3, 3),
                (3, 9),
                (4, 3),
                (4, 9),
                (5, 3),
                (6, 10),
                (6, 3),
                (9, 9),
            ],
            winner: Some(Color::Black),
        };
        let samples = samples(&game);
        // The six positions before plies 1..=6 are quiet; before ply 7 Black, to move,
        // can make a straight four, and before ply 8 White must stop a five.
        assert_eq!(samples.len(), 6);
        assert_eq!(samples[0].result, 1.0);
        assert_eq!(samples[1].result, 0.0);
        assert_eq!(
            (samples[0].to_move, samples[1].to_move),
            (Color::Black, Color::White)
        );
    }

    /// Synthetic results: the side with more Flex3 points wins.
    fn flex3_decides() -> Vec<Sample> {
        let mut samples = Vec::new();
        for i in 0..200u16 {
            let (mine, theirs) = (i % 4, (i / 4) % 4);
            let mut own = [0; THREAT_KINDS];
            let mut opponent = [0; THREAT_KINDS];
            own[Threat::Flex3 as usize] = mine;
            opponent[Threat::Flex3 as usize] = theirs;
            own[Threat::One as usize] = 10;
            opponent[Threat::One as usize] = 10;
            let result = match mine.cmp(&theirs) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => 0.5,
            };
            samples.push(Sample {
                own,
                opponent,
                result,
                to_move: Color::Black,
            });
        }
        samples
    }

    #[test]
    fn fitting_lowers_the_loss_and_learns_which_threat_wins() {
        let samples = flex3_decides();
        let fitted = fit(&samples, &WEIGHTS, Scope::All, None, &mut || {});
        assert!(fitted.loss_after < fitted.loss_before * 0.8);
        let flex3 = Threat::Flex3 as usize;
        assert!(fitted.weights.own[flex3] > WEIGHTS.own[flex3]);
        assert!(fitted.weights.opponent[flex3] > WEIGHTS.opponent[flex3]);
    }

    #[test]
    fn threats_fit_moves_the_threat_weights_and_keeps_the_initiative_table() {
        let fitted = fit(&flex3_decides(), &WEIGHTS, Scope::Threats, None, &mut || {});
        assert!(fitted.loss_after < fitted.loss_before);
        let flex3 = Threat::Flex3 as usize;
        assert!(fitted.weights.own[flex3] > WEIGHTS.own[flex3]);
        assert_eq!(fitted.weights.initiative, WEIGHTS.initiative);
    }

    #[test]
    fn initiative_fit_moves_the_table_and_keeps_the_threat_weights() {
        // Synthetic results: the side to move wins exactly when it holds an open three.
        let samples: Vec<Sample> = (0..200u16)
            .map(|i| {
                let mut own = [0; THREAT_KINDS];
                own[Threat::One as usize] = 10;
                own[Threat::Flex3 as usize] = i % 2;
                Sample {
                    own,
                    opponent: own.map(|_| 0),
                    result: (i % 2) as f64,
                    to_move: Color::Black,
                }
            })
            .collect();
        let fitted = fit(&samples, &WEIGHTS, Scope::Initiative, None, &mut || {});
        assert!(fitted.loss_after < fitted.loss_before);
        assert_eq!(fitted.weights.own, WEIGHTS.own);
        assert_eq!(fitted.weights.opponent, WEIGHTS.opponent);
        let open_three = eval::initiative(&samples[1].own);
        assert!(fitted.weights.initiative[open_three][0] > WEIGHTS.initiative[open_three][0]);
    }
}

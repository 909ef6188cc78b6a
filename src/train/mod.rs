//! `pbrain-lianzhu train`: fits the network (`crate::net`) to self-play games
//! (`crate::selfplay`).
//!
//! A sample is a position before a searched move that the search would score with
//! the evaluation (see `is_fitted`). Its target is a win probability: the search's
//! score read through the logistic scale that best fits the scores to the results
//! (that scale, search units per logit, is also how the engine turns the network's
//! logit into a score), blended with the next move's search score by
//! [`Options::next_weight`] and with the game's result by [`Options::result_weight`].
//! Games are held out, whole, to measure the fit ([`HoldOut`]). The
//! network starts as the classical evaluation (its correction small), and the one
//! written has its correction scaled by [`Options::correction_scale`].
//!
//! Batches come from [`STREAMS`] games replayed side by side, one sample from each
//! per step, so that a batch is not one game's run of like positions and no sample
//! needs a board rebuilt from nothing. Boards advance in one thread and the gradient
//! is summed in a fixed order, so a run is the same whatever the number of threads.

pub mod model;

use crate::board::{Board, Pos};
use crate::eval;
use crate::net::Accumulator;
use crate::net::Network;
use crate::search::is_mate;
use crate::search::ordering::threatened;
use crate::selfplay::{Game, Sample};
use anyhow::Context;
use model::{Activations, Model};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::sync::Arc;

/// Games replayed side by side: a batch's samples.
pub const STREAMS: usize = 256;
/// A batch's gradient is summed in this many fixed parts, in order, whatever the
/// number of threads: floating-point sums then come out the same.
const GRADIENT_PARTS: usize = 16;

#[derive(Clone, Debug)]
pub struct Options {
    /// Passes over the training samples.
    pub epochs: usize,
    /// Adam's step size at the start; it falls linearly to a tenth by the end.
    pub rate: f64,
    /// Weight decay of the codebook and the head's weights (not the biases, not the
    /// classical score's weight), per unit of step size: what the samples do not
    /// hold up shrinks towards the classical evaluation.
    pub decay: f64,
    /// The written network's correction to the classical score (its hidden layer's
    /// part of the logit) is multiplied by this: the correction that fits the
    /// samples best is too bold for a search (see `docs/experiments.md`).
    pub correction_scale: f32,
    /// Weight of the game's result in the target; the search scores have the rest.
    pub result_weight: f32,
    /// Weight of the next move's search score (the opponent's, one ply further along
    /// the game) in the search scores' part of the target; the sample's own has the
    /// rest. After the last move the result stands in for it.
    pub next_weight: f32,
    /// The games that measure the fit.
    pub hold_out: HoldOut,
    pub seed: u64,
    pub threads: usize,
    /// Start from this network instead of random weights.
    pub start: Option<Network>,
    /// Codebooks of a network started from random weights: 1 shared by both colours'
    /// views, 2 one per colour.
    pub codebooks: usize,
    /// Write the network in the classical evaluation's units
    /// ([`Network::in_classical_units`]) instead of the search scores' scale.
    pub classical_units: bool,
}

/// The games that measure the fit.
#[derive(Clone, Debug)]
pub enum HoldOut {
    /// Every this-many-th game of those given, not trained on.
    EveryNth(usize),
    /// These games, which the caller keeps apart from those given: all of those are
    /// trained on. Two networks trained on different games (labels from searches of
    /// different depths, say) are compared on the same ones.
    Games(Vec<Game>),
}

impl HoldOut {
    /// `games` split into the games trained on and those that measure the fit.
    pub fn split(&self, games: &[Game]) -> anyhow::Result<(Vec<Game>, Vec<Game>)> {
        match self {
            HoldOut::EveryNth(n) => {
                anyhow::ensure!(*n >= 2, "hold out every 2nd game or fewer");
                let (validation, training): (Vec<_>, Vec<_>) =
                    games.iter().enumerate().partition(|(i, _)| i % n == 0);
                let strip = |pairs: Vec<(usize, &Game)>| {
                    pairs.into_iter().map(|(_, g)| g.clone()).collect()
                };
                Ok((strip(training), strip(validation)))
            }
            HoldOut::Games(held_out) => {
                anyhow::ensure!(!held_out.is_empty(), "no games to measure the fit on");
                Ok((games.to_vec(), held_out.clone()))
            }
        }
    }
}

/// How well a model predicts the held-out samples.
#[derive(Clone, Copy, Debug)]
pub struct Fit {
    /// Mean cross-entropy against the targets.
    pub loss: f64,
    /// Mean squared error of the win probability against the results alone.
    pub result_error: f64,
}

/// What a finished epoch reports.
#[derive(Clone, Copy, Debug)]
pub struct Epoch {
    pub number: usize,
    pub training_loss: f64,
    pub validation: Fit,
    pub seconds: f64,
}

/// What [`run`] found.
pub struct Trained {
    pub network: Network,
    pub training_samples: usize,
    pub validation_samples: usize,
    /// Search units per logit fitted to the training scores and results.
    pub scale: f64,
    /// The classical evaluation on the held-out samples, at its own best scale.
    pub classical: Fit,
    /// Search units per logit that best fit the classical evaluation to the held-out targets.
    pub classical_scale: f64,
    pub epochs: Vec<Epoch>,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// What a sample's target is made of.
#[derive(Clone, Copy, Debug)]
struct Labels {
    score: i32,
    next_score: Option<i32>,
    result: f32,
}

impl From<&Sample> for Labels {
    fn from(sample: &Sample) -> Labels {
        Labels {
            score: sample.score,
            next_score: sample.next_score,
            result: sample.result,
        }
    }
}

impl Options {
    /// A sample's target: the blend of its result and search scores, read as win
    /// probabilities at `scale`.
    fn target(&self, labels: Labels, scale: f64) -> f32 {
        let probability = |score: i32| sigmoid(f64::from(score) / scale) as f32;
        let next = labels.next_score.map_or(labels.result, probability);
        let searched =
            (1.0 - self.next_weight) * probability(labels.score) + self.next_weight * next;
        self.result_weight * labels.result + (1.0 - self.result_weight) * searched
    }
}

fn cross_entropy(p: f64, target: f64) -> f64 {
    let p = p.clamp(1e-7, 1.0 - 1e-7);
    -(target * p.ln() + (1.0 - target) * (1.0 - p).ln())
}

/// Whether a sample is one the trainer fits: a position the search scores with the
/// network (no five to make or stop, no unstoppable four against the side to move: the
/// search scores those classically) and whose search score is not a proven result,
/// which the evaluation is never asked for and which would teach it the threat
/// search's work.
fn is_fitted(board: &Board, score: i32) -> bool {
    !threatened(board) && !is_mate(score)
}

/// Replays `game` and shows `visit` the samples the trainer fits.
fn replay_fitted(game: &Game, mut visit: impl FnMut(&Board, &Sample)) -> anyhow::Result<()> {
    game.replay(|board, sample| {
        if is_fitted(board, sample.score) {
            visit(board, sample);
        }
    })
}

/// Every fitted sample's score and result, for fitting the scale.
fn scores_and_results(games: &[Game]) -> anyhow::Result<Vec<(i32, f32)>> {
    let mut samples = Vec::new();
    for game in games {
        replay_fitted(game, |_, sample| {
            samples.push((sample.score, sample.result))
        })?;
    }
    Ok(samples)
}

fn mean_squared(pairs: &[(f64, f64)]) -> f64 {
    pairs.iter().map(|(p, r)| (p - r).powi(2)).sum::<f64>() / pairs.len().max(1) as f64
}

/// The scale at which `sigmoid(score / scale)` best fits the results.
fn fit_scale(pairs: &[(i32, f32)]) -> f64 {
    crate::tune::best_scale(|scale| {
        let predicted: Vec<(f64, f64)> = pairs
            .iter()
            .map(|&(score, result)| (sigmoid(f64::from(score) / scale), f64::from(result)))
            .collect();
        mean_squared(&predicted)
    })
}

/// The classical evaluation's fit to the held-out samples at its best scale, and that
/// scale.
fn classical_fit(games: &[Game], scale: f64, options: &Options) -> anyhow::Result<(Fit, f64)> {
    let mut samples = Vec::new();
    for game in games {
        replay_fitted(game, |board, sample| {
            let target = options.target(sample.into(), scale);
            samples.push((eval::evaluate(board), target, sample.result));
        })?;
    }
    let fit_at = |eval_scale: f64| {
        fit_of(
            samples
                .iter()
                .map(|&(e, t, r)| (f64::from(e) / eval_scale, t, r)),
        )
    };
    let best = crate::tune::best_scale(|s| fit_at(s).loss);
    Ok((fit_at(best), best))
}

/// The fit of (logit, target, result) triples.
fn fit_of(samples: impl Iterator<Item = (f64, f32, f32)>) -> Fit {
    let (mut loss, mut error, mut count) = (0.0, 0.0, 0usize);
    for (logit, target, result) in samples {
        let p = sigmoid(logit);
        loss += cross_entropy(p, f64::from(target));
        error += (p - f64::from(result)).powi(2);
        count += 1;
    }
    let count = count.max(1) as f64;
    Fit {
        loss: loss / count,
        result_error: error / count,
    }
}

/// The model's fit to the held-out games, spread over `threads`.
fn validate(model: &Model, games: &[Game], scale: f64, options: &Options) -> anyhow::Result<Fit> {
    let chunk = games.len().div_ceil(options.threads.max(1)).max(1);
    let parts: Vec<anyhow::Result<Vec<(f64, f32, f32)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = games
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut activations = Activations::default();
                    let mut triples = Vec::new();
                    for game in part {
                        replay_fitted(game, |board, sample| {
                            let logit = model.forward(board, &mut activations);
                            let target = options.target(sample.into(), scale);
                            triples.push((f64::from(logit), target, sample.result));
                        })?;
                    }
                    Ok(triples)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a validation thread"))
            .collect()
    });
    let mut all = Vec::new();
    for part in parts {
        all.extend(part?);
    }
    Ok(fit_of(all.into_iter()))
}

/// A static evaluation as [`one_ply_agreement`] drives it.
pub trait Scorer {
    /// A new position.
    fn start(&mut self, board: &Board);
    /// A stone was placed on `pos`.
    fn placed(&mut self, board: &Board, pos: Pos);
    /// The stone on `pos` was lifted.
    fn lifted(&mut self, board: &Board, pos: Pos);
    /// The score for the side to move.
    fn score(&mut self, board: &Board) -> i32;
}

/// The classical evaluation, which reads the board's own counts.
pub struct Classical;

impl Scorer for Classical {
    fn start(&mut self, _: &Board) {}
    fn placed(&mut self, _: &Board, _: Pos) {}
    fn lifted(&mut self, _: &Board, _: Pos) {}
    fn score(&mut self, board: &Board) -> i32 {
        eval::evaluate(board)
    }
}

/// A network, its sums kept as the engine keeps them.
pub struct NetworkScorer {
    network: Arc<Network>,
    accumulator: Option<Accumulator>,
}

impl NetworkScorer {
    pub fn new(network: Arc<Network>) -> NetworkScorer {
        NetworkScorer {
            network,
            accumulator: None,
        }
    }
}

impl Scorer for NetworkScorer {
    fn start(&mut self, board: &Board) {
        self.accumulator = Some(Accumulator::new(self.network.clone(), board));
    }
    fn placed(&mut self, _: &Board, pos: Pos) {
        if let Some(accumulator) = &mut self.accumulator {
            accumulator.placed(pos);
        }
    }
    fn lifted(&mut self, board: &Board, pos: Pos) {
        if let Some(accumulator) = &mut self.accumulator {
            accumulator.lifted(board, pos);
        }
    }
    fn score(&mut self, board: &Board) -> i32 {
        self.accumulator.as_mut().map_or(0, |a| a.evaluate(board))
    }
}

/// How often the move a one-ply search picks with `scorer` (the lowest score for the
/// opponent after the move, among the legal points near stones) is the move the game
/// went on with: a cheap view of what a search gets from an evaluation, which the loss
/// does not show (it scores positions; a search compares siblings).
pub fn one_ply_agreement(games: &[Game], scorer: &mut dyn Scorer) -> anyhow::Result<f64> {
    let (mut agreed, mut total) = (0usize, 0usize);
    for game in games {
        replay_fitted(game, |board, sample| {
            let mut board = board.clone();
            scorer.start(&board);
            let me = board.to_move();
            let candidates: Vec<Pos> = board.empty_near_stones().iter().collect();
            let mut best: Option<(i32, Pos)> = None;
            for pos in candidates {
                if !crate::rules::is_legal(&mut board, pos, me) {
                    continue;
                }
                board.play(pos);
                scorer.placed(&board, pos);
                let score = scorer.score(&board);
                board.undo();
                scorer.lifted(&board, pos);
                if best.is_none_or(|(b, _)| score < b) {
                    best = Some((score, pos));
                }
            }
            total += 1;
            agreed += usize::from(best.is_some_and(|(_, pos)| pos == sample.played));
        })?;
    }
    Ok(agreed as f64 / total.max(1) as f64)
}

/// One game being replayed for training.
struct Stream {
    board: Board,
    game: usize,
    ply: usize,
}

/// Hands out training games in a fresh shuffle every pass.
struct Schedule {
    order: Vec<usize>,
    next: usize,
    rng: StdRng,
}

impl Schedule {
    fn next_game(&mut self) -> usize {
        if self.next == self.order.len() {
            self.order.shuffle(&mut self.rng);
            self.next = 0;
        }
        self.next += 1;
        self.order[self.next - 1]
    }
}

impl Stream {
    /// Moves on to the next sample position, starting a new game when this one ends.
    fn advance_to_sample(&mut self, games: &[Game], schedule: &mut Schedule) {
        loop {
            let game = &games[self.game];
            if self.ply == game.moves.len() {
                self.game = schedule.next_game();
                self.board = Board::new(
                    games[self.game].size,
                    games[self.game].size,
                    games[self.game].rule,
                );
                self.ply = 0;
                continue;
            }
            if self.ply >= game.opening && is_fitted(&self.board, game.moves[self.ply].1) {
                return;
            }
            self.play(games);
        }
    }

    fn play(&mut self, games: &[Game]) {
        self.board.play(games[self.game].moves[self.ply].0);
        self.ply += 1;
    }

    /// The labels of the sample at the stream's position, for the side to move.
    fn labels(&self, games: &[Game]) -> Labels {
        let game = &games[self.game];
        Labels {
            score: game.moves[self.ply].1,
            next_score: game.next_score(self.ply),
            result: game.result_for(self.board.to_move()),
        }
    }
}

/// The summed gradient of the samples at `streams`' positions, into `gradient`, and
/// their summed loss.
fn part_gradient(
    model: &Model,
    streams: &[Stream],
    training: &[Game],
    scale: f64,
    options: &Options,
    gradient: &mut Model,
) -> f64 {
    gradient.fill_zero();
    let mut activations = Activations::default();
    let mut loss = 0.0;
    for stream in streams {
        let target = options.target(stream.labels(training), scale);
        let logit = model.forward(&stream.board, &mut activations);
        let p = sigmoid(f64::from(logit));
        loss += cross_entropy(p, f64::from(target));
        let d_logit = (p as f32 - target) / STREAMS as f32;
        model.backward(&activations, d_logit, gradient);
    }
    loss
}

/// Fits a network to `games` (all of one rule), calling `on_epoch` after each pass.
pub fn run(
    games: &[Game],
    options: &Options,
    on_epoch: &mut dyn FnMut(&Epoch),
) -> anyhow::Result<Trained> {
    let rule = games
        .first()
        .map(|g| g.rule)
        .ok_or_else(|| anyhow::anyhow!("no games to train on"))?;
    anyhow::ensure!(
        games.iter().all(|g| g.rule == rule),
        "the games mix rules: a network is trained for one"
    );
    // Games of one board size make a network of that size; mixed ones, of any.
    let board_size = Some(games[0].size).filter(|&size| games.iter().all(|g| g.size == size));
    let (training, validation) = options.hold_out.split(games)?;
    anyhow::ensure!(
        validation.iter().all(|g| g.rule == rule),
        "the held-out games are of another rule than those trained on"
    );
    anyhow::ensure!(
        !training.is_empty(),
        "no games left to train on after the hold-out"
    );
    let training_pairs = scores_and_results(&training)?;
    let validation_samples = scores_and_results(&validation)?.len();
    let scale = fit_scale(&training_pairs);
    let (classical, classical_scale) = classical_fit(&validation, scale, options)?;

    let mut model = match &options.start {
        Some(net) => Model::from_network(net),
        None => Model::random(
            options.seed,
            crate::net::CLASSICAL_UNIT / classical_scale as f32,
            options.codebooks,
        ),
    };
    let mut flat = model.to_flat();
    let mut adam = crate::adam::Adam::new(flat.len(), options.rate);
    let steps_per_epoch = training_pairs.len().div_ceil(STREAMS);
    let total_steps = steps_per_epoch * options.epochs;
    let mut schedule = Schedule {
        order: (0..training.len()).collect(),
        next: training.len(),
        rng: StdRng::seed_from_u64(options.seed ^ 0x5eed),
    };
    let mut streams: Vec<Stream> = (0..STREAMS)
        .map(|_| {
            let game = schedule.next_game();
            Stream {
                board: Board::new(
                    training[game].size,
                    training[game].size,
                    training[game].rule,
                ),
                game,
                ply: 0,
            }
        })
        .collect();
    let threads = options.threads.max(1);
    let mut epochs = Vec::new();
    // Kept from step to step: allocating them anew cost a tenth of the time in page faults.
    let mut part_gradients: Vec<Model> = (0..GRADIENT_PARTS).map(|_| model.zeroed_like()).collect();
    for number in 1..=options.epochs {
        let started = std::time::Instant::now();
        let mut loss_sum = 0.0;
        for step in 0..steps_per_epoch {
            let done = ((number - 1) * steps_per_epoch + step) as f64 / total_steps as f64;
            let adam_rate = options.rate * (1.0 - 0.9 * done);
            adam.set_rate(adam_rate);
            for stream in &mut streams {
                stream.advance_to_sample(&training, &mut schedule);
            }
            let parts: Vec<&[Stream]> = streams.chunks(STREAMS / GRADIENT_PARTS).collect();
            let per_thread = GRADIENT_PARTS.div_ceil(threads);
            let losses: Vec<f64> = std::thread::scope(|scope| {
                let handles: Vec<_> = part_gradients
                    .chunks_mut(per_thread)
                    .enumerate()
                    .map(|(t, gradients)| {
                        let (model, training, parts) = (&model, &training, &parts);
                        scope.spawn(move || {
                            let mut losses = Vec::new();
                            for (k, gradient) in gradients.iter_mut().enumerate() {
                                let streams = parts[t * per_thread + k];
                                losses.push(part_gradient(
                                    model, streams, training, scale, options, gradient,
                                ));
                            }
                            losses
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("a training thread"))
                    .collect()
            });
            loss_sum += losses.iter().sum::<f64>();
            let mut gradient = model.zeroed_like();
            for part in &part_gradients {
                gradient.add(part);
            }
            adam.step(&mut flat, &gradient.to_flat());
            let shrink = 1.0 - adam_rate * options.decay;
            for range in model.decayed_ranges() {
                flat[range].iter_mut().for_each(|w| *w *= shrink);
            }
            model = Model::from_flat(&flat);
            for stream in &mut streams {
                stream.play(&training);
            }
        }
        let epoch = Epoch {
            number,
            training_loss: loss_sum / (steps_per_epoch * STREAMS) as f64,
            validation: validate(&model, &validation, scale, options)?,
            seconds: started.elapsed().as_secs_f64(),
        };
        on_epoch(&epoch);
        epochs.push(epoch);
    }
    let mut network = model
        .with_correction_scaled(options.correction_scale)
        .to_network(rule, board_size, scale as f32);
    if options.classical_units {
        network = network.in_classical_units().context(
            "the fitted network gives the classical score no positive weight, so it has no \
             scale in classical units",
        )?;
    }
    Ok(Trained {
        network,
        training_samples: training_pairs.len(),
        validation_samples,
        scale,
        classical,
        classical_scale,
        epochs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled_games() -> Vec<Game> {
        let text = include_str!("../../testdata/selfplay-freestyle-15.txt");
        crate::selfplay::read_games(text).expect("the bundled games")
    }

    fn options(threads: usize) -> Options {
        Options {
            epochs: 6,
            rate: 0.01,
            decay: 0.0,
            correction_scale: 1.0,
            result_weight: 0.5,
            next_weight: 0.0,
            hold_out: HoldOut::EveryNth(5),
            seed: 3,
            threads,
            start: None,
            codebooks: 1,
            classical_units: false,
        }
    }

    #[test]
    fn training_fits_the_games_and_does_not_depend_on_the_threads() {
        let games = bundled_games();
        let one = run(&games, &options(1), &mut |_| {}).expect("trains");
        let (first, last) = (one.epochs[0], one.epochs[5]);
        assert!(
            last.training_loss < first.training_loss - 0.02,
            "{first:?} -> {last:?}"
        );
        // Of the 666 positions before a searched move, those neither threatened nor
        // proven.
        assert_eq!(one.training_samples + one.validation_samples, 413);
        let three = run(&games, &options(3), &mut |_| {}).expect("trains");
        assert!(
            one.network == three.network,
            "three threads trained another network"
        );
    }

    #[test]
    fn held_out_games_measure_the_fit_and_every_game_given_is_trained_on() {
        let mut games = bundled_games();
        let held_out = games.split_off(games.len() - 3);
        let measured_apart = Options {
            hold_out: HoldOut::Games(held_out.clone()),
            ..options(2)
        };
        let trained = run(&games, &measured_apart, &mut |_| {}).expect("trains");
        let fitted = |games: &[Game]| scores_and_results(games).expect("replays").len();
        assert_eq!(trained.training_samples, fitted(&games));
        assert_eq!(trained.validation_samples, fitted(&held_out));
        assert!(trained.validation_samples > 0);
        let (training, validation) = measured_apart.hold_out.split(&games).expect("splits");
        assert_eq!((training, validation), (games.clone(), held_out));
        let mut renju = bundled_games();
        renju[0].rule = crate::board::Rule::Renju;
        let other_rule = Options {
            hold_out: HoldOut::Games(renju),
            ..options(1)
        };
        let error = run(&games, &other_rule, &mut |_| {})
            .err()
            .expect("refused");
        assert!(error.to_string().contains("another rule"), "{error}");
    }

    #[test]
    fn a_codebook_per_colour_trains_both_colours_rows() {
        let games = bundled_games();
        let options = Options {
            codebooks: 2,
            ..options(2)
        };
        let trained = run(&games, &options, &mut |_| {}).expect("trains");
        let (first, last) = (trained.epochs[0], trained.epochs[5]);
        assert!(
            last.training_loss < first.training_loss - 0.02,
            "{first:?} -> {last:?}"
        );
        let net = &trained.network;
        assert_eq!(net.codebook.len(), 2 * crate::features::FEATURES);
        assert_ne!(net.rows(0), net.rows(1));
    }

    #[test]
    fn in_classical_units_only_the_written_scale_changes() {
        let games = bundled_games();
        let searched = run(&games, &options(2), &mut |_| {}).expect("trains");
        let options = Options {
            classical_units: true,
            ..options(2)
        };
        let classical = run(&games, &options, &mut |_| {}).expect("trains");
        let (searched, classical) = (searched.network, classical.network);
        assert_eq!(classical.head, searched.head);
        assert_eq!(classical.codebook, searched.codebook);
        let weight = classical.head.classical_weight;
        assert!(weight > 0.0);
        assert_ne!(classical.scale, searched.scale);
        assert!((classical.scale * weight - crate::net::CLASSICAL_UNIT).abs() < 1e-3);
    }

    #[test]
    fn the_target_blends_the_next_score_and_the_result_as_weighted() {
        let scale = 100.0;
        let even = |next_score| Labels {
            score: 0,
            next_score,
            result: 1.0,
        };
        let weights = |result_weight, next_weight| Options {
            result_weight,
            next_weight,
            ..options(1)
        };
        let close = |a: f32, b: f32| (a - b).abs() < 1e-4;
        let own = weights(0.0, 0.0);
        assert!(close(own.target(even(Some(-10_000)), scale), 0.5));
        let half = weights(0.0, 0.5);
        assert!(close(half.target(even(Some(-10_000)), scale), 0.25));
        assert!(close(half.target(even(Some(0)), scale), 0.5));
        // After the last move the result stands in for the next score.
        assert!(close(half.target(even(None), scale), 0.75));
        let both = weights(0.5, 0.5);
        assert!(close(both.target(even(Some(10_000)), scale), 0.875));
        let next = bundled_games()[0]
            .next_score(10)
            .expect("a move after ply 10");
        assert_eq!(next, -bundled_games()[0].moves[11].1);
    }

    #[test]
    fn games_of_two_rules_are_refused() {
        let mut games = bundled_games();
        games[3].rule = crate::board::Rule::Renju;
        let error = run(&games, &options(1), &mut |_| {})
            .err()
            .expect("refused");
        assert!(error.to_string().contains("mix rules"), "{error}");
        assert!(run(&[], &options(1), &mut |_| {}).is_err());
    }
}

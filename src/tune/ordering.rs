//! `tune --ordering`: move-ordering weights fitted to the moves a strong player chose.
//! Every position of a game that leaves a choice (no five to make or to stop) becomes
//! a choice among the moves our search would try; the weights are moved to maximise the
//! likelihood of the move played under a softmax of the ordering values.

use super::{Game, ITERATIONS, replay};
use crate::adam::Adam;
use crate::board::pattern::{PATTERN_KINDS, THREAT_KINDS, Threat};
use crate::board::{Board, Pos};
use crate::move_values::{OrderFeatures, OrderWeights, PROXIMITY_CLASSES, RECENT_STONES};
use crate::search;
use crate::search::ordering::{self, Situation};
use crate::selfplay;

/// One position: the features of every candidate, and which of them was played.
#[derive(Clone)]
pub struct Choice {
    pub candidates: Vec<OrderFeatures>,
    pub played: usize,
}

/// Where each group of weights starts in the parameter vector, in [`OrderWeights`]
/// field order.
const OWN_THREAT: usize = 0;
const OPPONENT_THREAT: usize = OWN_THREAT + THREAT_KINDS;
const OWN_PATTERN: usize = OPPONENT_THREAT + THREAT_KINDS;
const OPPONENT_PATTERN: usize = OWN_PATTERN + PATTERN_KINDS;
const RECENT: usize = OPPONENT_PATTERN + PATTERN_KINDS;
const PARAMS: usize = RECENT + RECENT_STONES * PROXIMITY_CLASSES;

/// Adam's step, in hundredths of a logit.
const LEARNING_RATE: f64 = 5.0;

/// The positions of `game` where the search chooses among several moves (no five to
/// make or to stop) and the move played was one of them, from the fifth stone on: the
/// opening places three, and the first reply to it is left out with them.
pub fn choices(game: &Game) -> Vec<Choice> {
    let mut out = Vec::new();
    let mut moves = Vec::new();
    replay(game, |board, pos| {
        if board.stone_count() > 3 {
            out.extend(choice(board, pos, &mut moves));
        }
    });
    out
}

/// [`choices`] of a self-play game: every searched move (the opening's stones were
/// not chosen). Empty if a move cannot be played.
pub fn self_play_choices(game: &selfplay::Game) -> Vec<Choice> {
    let mut out = Vec::new();
    let mut moves = Vec::new();
    let replayed = game.replay(|board, sample| {
        out.extend(choice(&mut board.clone(), sample.played, &mut moves));
    });
    if replayed.is_err() {
        out.clear();
    }
    out
}

/// The choice of `played` in `board`, if the search would choose among several moves
/// there and `played` is one of them.
fn choice(board: &mut Board, played: Pos, moves: &mut Vec<Pos>) -> Option<Choice> {
    let situation = ordering::generate(board, moves);
    let open = matches!(situation, Situation::Open | Situation::Forced { .. });
    // The fit orders what a search tries first.
    moves.truncate(situation.holding(moves.len()));
    let played = moves.iter().position(|&m| m == played)?;
    (open && moves.len() > 1).then(|| Choice {
        candidates: moves.iter().map(|&m| OrderFeatures::of(board, m)).collect(),
        played,
    })
}

/// The parameters a candidate's value sums (a line pattern counts once per line).
fn indices(features: &OrderFeatures) -> Vec<usize> {
    let mut out = vec![
        OWN_THREAT + features.own_threat as usize,
        OPPONENT_THREAT + features.opponent_threat as usize,
    ];
    out.extend(
        features
            .own_patterns
            .iter()
            .map(|&p| OWN_PATTERN + p as usize),
    );
    out.extend(
        features
            .opponent_patterns
            .iter()
            .map(|&p| OPPONENT_PATTERN + p as usize),
    );
    out.extend(
        (features.proximity.iter().enumerate())
            .filter_map(|(back, class)| class.map(|c| RECENT + back * PROXIMITY_CLASSES + c)),
    );
    out
}

fn from_params(params: &[f64]) -> OrderWeights {
    fn group<const N: usize>(params: &[f64], start: usize) -> [i32; N] {
        std::array::from_fn(|i| params[start + i].round() as i32)
    }
    OrderWeights {
        own_threat: group(params, OWN_THREAT),
        opponent_threat: group(params, OPPONENT_THREAT),
        own_pattern: group(params, OWN_PATTERN),
        opponent_pattern: group(params, OPPONENT_PATTERN),
        recent: std::array::from_fn(|back| group(params, RECENT + back * PROXIMITY_CLASSES)),
    }
}

/// Choices as the fit sees them: each candidate's parameter indices.
struct Data {
    candidates: Vec<Vec<Vec<usize>>>,
    played: Vec<usize>,
}

impl Data {
    fn new(choices: &[Choice]) -> Data {
        Data {
            candidates: choices
                .iter()
                .map(|c| c.candidates.iter().map(indices).collect())
                .collect(),
            played: choices.iter().map(|c| c.played).collect(),
        }
    }

    /// Mean negative log-likelihood of the played moves, and its gradient.
    fn loss_and_gradient(&self, params: &[f64]) -> (f64, Vec<f64>) {
        let mut gradient = vec![0.0; params.len()];
        let mut loss = 0.0;
        for (candidates, &played) in self.candidates.iter().zip(&self.played) {
            // Values are in hundredths of a logit.
            let logits: Vec<f64> = candidates
                .iter()
                .map(|c| c.iter().map(|&i| params[i]).sum::<f64>() / 100.0)
                .collect();
            let max = logits.iter().copied().fold(f64::MIN, f64::max);
            let exps: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
            let total: f64 = exps.iter().sum();
            loss -= (exps[played] / total).ln();
            for (k, candidate) in candidates.iter().enumerate() {
                let excess = exps[k] / total - f64::from(u8::from(k == played));
                for &i in candidate {
                    gradient[i] += excess / 100.0;
                }
            }
        }
        let n = self.played.len().max(1) as f64;
        gradient.iter_mut().for_each(|g| *g /= n);
        (loss / n, gradient)
    }
}

/// What [`fit`] found.
pub struct Fit {
    pub weights: OrderWeights,
    pub loss_before: f64,
    pub loss_after: f64,
}

/// Weights no choice can teach (the search never orders a five, to play or to block),
/// set so that the static mover ([`crate::move_values::ranked_moves`]) wins first, then blocks.
fn pinned() -> [(usize, f64); 2] {
    [
        (OWN_THREAT + Threat::Five as usize, 10_000.0),
        (OPPONENT_THREAT + Threat::Five as usize, 5_000.0),
    ]
}

/// Fits the weights from zero but the `pinned` ones (Adam, full batch), so a fit is
/// reproducible.
pub fn fit(choices: &[Choice], on_step: &mut dyn FnMut()) -> Fit {
    let data = Data::new(choices);
    let mut params = vec![0.0; PARAMS];
    let pin = |params: &mut [f64]| pinned().iter().for_each(|&(i, w)| params[i] = w);
    pin(&mut params);
    let loss_before = data.loss_and_gradient(&params).0;
    let mut adam = Adam::new(PARAMS, LEARNING_RATE);
    for _ in 0..ITERATIONS {
        let (_, gradient) = data.loss_and_gradient(&params);
        adam.step(&mut params, &gradient);
        pin(&mut params);
        on_step();
    }
    Fit {
        weights: from_params(&params),
        loss_before,
        loss_after: data.loss_and_gradient(&params).0,
    }
}

/// The ranks [`accuracy`] reports on. The last is the search's widest quiet breadth: a
/// move ranked below it is searched only at the root.
const RANK_LIMITS: [usize; 4] = [1, 4, 8, search::MAX_QUIET_BREADTH];

/// How often the played move is among the first 1, 4, 8 and 16 by `weights` (ties count
/// against it), and its mean rank from 0.
pub fn accuracy(choices: &[Choice], weights: &OrderWeights) -> String {
    let mut within = [0usize; RANK_LIMITS.len()];
    let mut ranks = 0;
    for choice in choices {
        let values: Vec<i32> = choice.candidates.iter().map(|c| weights.value(c)).collect();
        let played = values[choice.played];
        let rank = values.iter().filter(|&&v| v >= played).count() - 1;
        ranks += rank;
        for (count, limit) in within.iter_mut().zip(RANK_LIMITS) {
            *count += usize::from(rank < limit);
        }
    }
    let n = choices.len().max(1) as f64;
    let shares: Vec<String> = RANK_LIMITS
        .iter()
        .zip(within)
        .map(|(&limit, count)| {
            let label = if limit == 1 {
                "first".to_string()
            } else {
                format!("among {limit}")
            };
            format!("{label} {:.3}", count as f64 / n)
        })
        .collect();
    format!("{}, mean rank {:.2}", shares.join(", "), ranks as f64 / n)
}

/// `weights` as Rust source for `eval.rs`.
pub fn format_weights(weights: &OrderWeights) -> String {
    let list = |w: &[i32]| {
        let items: Vec<String> = w.iter().map(|v| v.to_string()).collect();
        items.join(", ")
    };
    let recent: Vec<String> = weights
        .recent
        .iter()
        .map(|w| format!("[{}]", list(w)))
        .collect();
    format!(
        "own_threat: [{}],\nopponent_threat: [{}],\nown_pattern: [{}],\n\
         opponent_pattern: [{}],\nrecent: [{}],",
        list(&weights.own_threat),
        list(&weights.opponent_threat),
        list(&weights.own_pattern),
        list(&weights.opponent_pattern),
        recent.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::pattern::Pattern;
    use crate::move_values::ORDER_WEIGHTS;
    use crate::rules::RuleSetting;

    fn to_params(weights: &OrderWeights) -> Vec<f64> {
        let groups: [&[i32]; 4] = [
            &weights.own_threat,
            &weights.opponent_threat,
            &weights.own_pattern,
            &weights.opponent_pattern,
        ];
        let recent = weights.recent.iter().map(|w| w.as_slice());
        groups
            .into_iter()
            .chain(recent)
            .flat_map(|g| g.iter().map(|&w| w as f64))
            .collect()
    }

    fn quiet_point() -> OrderFeatures {
        OrderFeatures {
            own_threat: Threat::One,
            opponent_threat: Threat::One,
            own_patterns: [Pattern::Flex1; 4],
            opponent_patterns: [Pattern::Flex1; 4],
            proximity: [Some(PROXIMITY_CLASSES - 1); RECENT_STONES],
        }
    }

    #[test]
    fn parameters_round_trip_through_the_weights() {
        assert_eq!(from_params(&to_params(&ORDER_WEIGHTS)), ORDER_WEIGHTS);
        let params = to_params(&ORDER_WEIGHTS);
        let mut features = quiet_point();
        features.proximity[1] = Some(2);
        let summed: f64 = indices(&features).iter().map(|&i| params[i]).sum();
        assert_eq!(summed, ORDER_WEIGHTS.value(&features) as f64);
    }

    #[test]
    fn fitting_learns_that_the_player_answers_next_to_the_last_stone() {
        // Candidates alike but for where they lie from the opponent's last stone; the
        // player always answers next to it.
        let choice = || Choice {
            candidates: (0..PROXIMITY_CLASSES)
                .map(|c| {
                    let mut features = quiet_point();
                    features.proximity[0] = Some(c);
                    features
                })
                .collect(),
            played: 0,
        };
        let choices: Vec<Choice> = (0..50).map(|_| choice()).collect();
        let fitted = fit(&choices, &mut || {});
        assert!(fitted.loss_after < fitted.loss_before * 0.5);
        let near = fitted.weights.recent[0];
        assert!(near[1..].iter().all(|&w| near[0] > w), "{near:?}");
        assert!(accuracy(&choices, &fitted.weights).starts_with("first 1.000"));
    }

    #[test]
    fn choices_skip_the_opening_and_single_replies_but_keep_the_blocks() {
        let game = Game {
            setting: RuleSetting::from_mask(0).unwrap(),
            size: 15,
            // Black's open three at move 5 forces White's move 6.
            moves: vec![(7, 7), (7, 8), (8, 7), (8, 8), (9, 7), (6, 7), (10, 7)],
            winner: None,
        };
        let choices = choices(&game);
        // Before the 5th, 6th and 7th stone; the 6th chooses among the blocks.
        assert_eq!(choices.len(), 3);
        assert!(choices.iter().all(|c| c.played < c.candidates.len()));
        // The same game from self-play, two opening stones: every searched move is a
        // choice, the last three the same as the record's.
        let line = "0 15 D 2 7,7:0 7,8:0 8,7:5 8,8:-3 9,7:10 6,7:-20 10,7:30";
        let played = selfplay::Game::from_line(line).unwrap();
        let from_self_play = self_play_choices(&played);
        assert_eq!(from_self_play.len(), 5);
        for (a, b) in from_self_play[2..].iter().zip(&choices) {
            assert_eq!((a.played, &a.candidates), (b.played, &b.candidates));
        }
        let unplayable = selfplay::Game::from_line("0 15 D 2 7,7:0 7,8:0 7,7:5").unwrap();
        assert!(self_play_choices(&unplayable).is_empty());
    }
}

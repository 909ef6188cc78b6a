//! `pbrain-lianzhu tune --labels LABELS...`: fits the evaluation weights to a stronger
//! engine's scores of positions (written by `scripts/label_positions.py`) instead of
//! game results. A game's result says little about a position thirty moves before
//! the end; a judge's score speaks of that position.
//!
//! The judge's units are its own: its scale (units per logit) is fitted to the games'
//! results first, and each position's target is then `sigmoid(score / scale)`.

use super::{Game, Sample, best_scale, replay, sigmoid};
use crate::rules::RuleSetting;
use anyhow::{Context, bail};

/// One position as the judge saw it: the moves from the empty board, its score for the
/// side to move, and how the game ended for that side.
pub struct Label {
    game: Game,
    score: f64,
    result: f64,
}

/// The lines of a labels file: rule, size, score, result, then the moves as `x,y`.
pub fn read_labels(text: &str) -> anyhow::Result<Vec<Label>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| read_label(line).with_context(|| format!("line {}", i + 1)))
        .collect()
}

fn read_label(line: &str) -> anyhow::Result<Label> {
    let mut fields = line.split_whitespace();
    let mut next = |what: &str| fields.next().with_context(|| format!("no {what}"));
    let rule: u64 = next("rule")?.parse()?;
    let setting = RuleSetting::from_mask(rule).with_context(|| format!("rule {rule}"))?;
    let size: usize = next("size")?.parse()?;
    let score: f64 = next("score")?.parse()?;
    let result: f64 = next("result")?.parse()?;
    if !(0.0..=1.0).contains(&result) {
        bail!("result {result} is not 0, 0.5 or 1");
    }
    let moves = fields
        .map(|m| {
            let (x, y) = m
                .split_once(',')
                .with_context(|| format!("bad move {m:?}"))?;
            Ok((x.parse()?, y.parse()?))
        })
        .collect::<anyhow::Result<Vec<(usize, usize)>>>()?;
    Ok(Label {
        game: Game {
            setting,
            size,
            moves,
            winner: None,
        },
        score,
        result,
    })
}

impl Label {
    /// Whether the label's game is among those held out of a fit, see [`Game::held_out`].
    pub fn held_out(&self) -> bool {
        self.game.held_out()
    }
}

/// The judge's units per logit that best predict the games' results from its scores.
pub fn judge_scale(labels: &[Label]) -> f64 {
    best_scale(|scale| {
        let total: f64 = labels
            .iter()
            .map(|l| (sigmoid(l.score / scale) - l.result).powi(2))
            .sum();
        total / labels.len().max(1) as f64
    })
}

/// The quiet labelled positions as samples whose result is the judge's expectation.
pub fn samples(labels: &[Label], judge_scale: f64) -> Vec<Sample> {
    quiet_samples(labels, |label| sigmoid(label.score / judge_scale))
}

/// The same positions with the games' results, to check a fit against them.
pub fn result_samples(labels: &[Label]) -> Vec<Sample> {
    quiet_samples(labels, |label| label.result)
}

fn quiet_samples(labels: &[Label], target: impl Fn(&Label) -> f64) -> Vec<Sample> {
    labels
        .iter()
        .filter_map(|label| {
            // A position with a move off the board, on a stone or illegal is dropped.
            let board = replay(&label.game, |_, _| {})?;
            Sample::of_quiet(&board, target(label))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    #[test]
    fn reads_labels_and_refuses_bad_lines() {
        let labels = read_labels("4 15 -120 0 7,7 8,8 7,8\n\n0 20 35 0.5\n").unwrap();
        assert_eq!(labels.len(), 2);
        assert_eq!(labels[0].game.setting.rule, Rule::Renju);
        assert_eq!(labels[0].game.moves, vec![(7, 7), (8, 8), (7, 8)]);
        assert_eq!((labels[0].score, labels[0].result), (-120.0, 0.0));
        assert!(labels[1].game.moves.is_empty());
        for bad in ["0 20 35", "0 20 35 2 1,1", "0 20 35 1 1;1", "9 20 35 1"] {
            assert!(read_labels(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_judge_scale_follows_its_units_and_targets_follow_the_scores() {
        // Results drawn as a judge with 100 units per logit predicts them: the fitted
        // scale is 100, and 200 for a judge whose scores are twice as large.
        let labels = |units: i32| -> String {
            let mut text = String::new();
            for step in -2..=2 {
                let wins = (100.0 * sigmoid(step as f64)).round() as usize;
                for game in 0..100 {
                    let result = (game < wins) as u8;
                    text += &format!("0 15 {} {result} 7,7\n", step * units);
                }
            }
            text
        };
        let single = read_labels(&labels(100)).unwrap();
        let double = read_labels(&labels(200)).unwrap();
        let scale = judge_scale(&single);
        assert!((scale - 100.0).abs() < 5.0, "{scale}");
        assert!((judge_scale(&double) / scale - 2.0).abs() < 0.05);
        let samples = samples(&single, scale);
        assert_eq!(samples.len(), 500);
        assert!(samples[0].result < 0.2 && samples[499].result > 0.8);
        assert_eq!(result_samples(&single)[499].result, 0.0);
        // Every label here has the same first moves, so all fall on one side of the split.
        assert!(single.iter().all(|l| l.held_out() == single[0].held_out()));
        // An illegal or off-board move drops the position.
        let broken = read_labels("0 15 10 1 7,7 7,7\n0 15 10 1 20,20\n").unwrap();
        assert!(super::samples(&broken, 100.0).is_empty());
    }
}

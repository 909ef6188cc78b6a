//! `pbrain-lianzhu analyze`: one position from the command line, searched, and the
//! result printed for people or (with `--json`) for scripts.
//!
//! A position is a move list, Black first, either in pos notation (`h8i9j10`: a letter
//! for x from `a`, a number for y + 1) or as Gomocup `x,y` moves separated by spaces.

use crate::board::{Board, POINTS, Pos};
use crate::cli::AnalyzeArgs;
use crate::move_values;
use crate::rules::{self, Rule};
use crate::search::ordering::{self, Situation};
use crate::search::{self, Engine, LastProgress, Limits, Progress, Proof};
use anyhow::{Context, ensure};
use serde::Serialize;
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Depth searched when neither a time nor a depth is given.
const DEFAULT_DEPTH: u32 = 10;

/// `x,y` moves, or pos notation; an error says which word or letter is wrong.
pub fn parse_position(text: &str) -> anyhow::Result<Vec<(i64, i64)>> {
    let text = text.trim();
    if text.contains(',') {
        return text
            .split_whitespace()
            .map(|word| {
                let number = |part: &str| part.trim().parse::<i64>().ok();
                match word.split_once(',').map(|(x, y)| (number(x), number(y))) {
                    Some((Some(x), Some(y))) => Ok((x, y)),
                    _ => anyhow::bail!("'{word}' is not a move x,y such as 7,7"),
                }
            })
            .collect();
    }
    let mut moves = Vec::new();
    let mut chars = text.chars().filter(|c| !c.is_whitespace()).peekable();
    while let Some(letter) = chars.next() {
        ensure!(
            letter.is_ascii_lowercase(),
            "'{letter}' in '{text}' is not a column letter a to z (pos notation: h8i9j10)"
        );
        let mut digits = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        let row: i64 = digits.parse().ok().with_context(|| {
            format!("column '{letter}' in '{text}' has no row number (pos notation: h8i9j10)")
        })?;
        moves.push(((letter as u8 - b'a') as i64, row - 1));
    }
    Ok(moves)
}

/// The board after `moves`, or why the position cannot be analysed.
pub fn build_board(moves: &[(i64, i64)], size: usize, rule: Rule) -> anyhow::Result<Board> {
    let mut board = Board::new(size, size, rule);
    for (ply, &(x, y)) in moves.iter().enumerate() {
        let pos = board.pos(x, y).with_context(|| {
            format!("move {} ({x},{y}) is off the {size}x{size} board", ply + 1)
        })?;
        ensure!(
            board.is_empty(pos),
            "move {} ({x},{y}) is on an occupied point",
            ply + 1
        );
        ensure!(
            rules::winner(&board).is_none(),
            "move {} ({x},{y}) comes after the game was already won",
            ply + 1
        );
        let color = board.to_move();
        ensure!(
            rules::is_legal(&mut board, pos, color),
            "move {} ({x},{y}) is forbidden for Black under renju",
            ply + 1
        );
        board.play(pos);
    }
    ensure!(
        rules::winner(&board).is_none(),
        "the position already has a five"
    );
    Ok(board)
}

/// A point in pos notation.
pub fn pos_notation(pos: Pos) -> String {
    format!("{}{}", (b'a' + pos.x() as u8) as char, pos.y() + 1)
}

/// What `analyze` prints: a search's result or a move ordering, as text or JSON.
#[derive(Serialize, Debug)]
#[serde(untagged)]
pub enum Report {
    Search(Analysis),
    Order(MoveOrder),
}

/// The result of searching one position.
#[derive(Serialize, Debug)]
pub struct Analysis {
    /// The best move, `x,y`.
    #[serde(rename = "move")]
    pub best: String,
    /// The best move in pos notation.
    pub pos: String,
    pub score: i32,
    /// `win` or `loss` when the search proved the result, else absent (null).
    pub proven: Option<&'static str>,
    /// Plies to the end of a proven result, positive for a win, negative for a loss;
    /// null when not proven or when the threat search proved it without counting.
    pub mate_in_plies: Option<i32>,
    pub depth: u32,
    pub nodes: u64,
    pub time_ms: u128,
    pub pv: Vec<String>,
}

/// The moves a search node would try, best first.
#[derive(Serialize, Debug)]
pub struct MoveOrder {
    /// `win` (a five at once), `lost` (no defence), `forced` (only the blocks and
    /// defences are listed) or `open`.
    pub situation: &'static str,
    pub moves: Vec<RankedMove>,
    /// How many of the moves, at the end, a search tries only once all the others have
    /// lost: defences that leave the opponent a four-three or better.
    pub last_resort: usize,
}

#[derive(Serialize, Debug)]
pub struct RankedMove {
    #[serde(rename = "move")]
    pub at: String,
    pub pos: String,
    pub value: i32,
}

impl Report {
    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report is plain data")
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Report::Search(a) => {
                let score = match (a.proven, a.mate_in_plies) {
                    (Some(_), Some(plies)) if plies > 0 => format!("win in {plies} plies"),
                    (Some(_), Some(plies)) => format!("loss in {} plies", -plies),
                    (Some(result), None) => format!("{result}, proven by the threat search"),
                    (None, _) => a.score.to_string(),
                };
                write!(
                    f,
                    "best move {} ({})\nscore {score}\ndepth {}  nodes {}  time {} ms\npv {}",
                    a.best,
                    a.pos,
                    a.depth,
                    a.nodes,
                    a.time_ms,
                    a.pv.join(" ")
                )
            }
            Report::Order(order) => {
                write!(f, "{}: {} moves", order.situation, order.moves.len())?;
                if order.last_resort > 0 {
                    write!(
                        f,
                        ", the last {} only once the others lose",
                        order.last_resort
                    )?;
                }
                for (rank, m) in order.moves.iter().enumerate() {
                    write!(f, "\n{:>3}  {:<6} {:<4} {}", rank + 1, m.at, m.pos, m.value)?;
                }
                Ok(())
            }
        }
    }
}

/// Searches the position (or with `--order`, ranks its moves).
pub fn run(args: &AnalyzeArgs, position: &str) -> anyhow::Result<Report> {
    let moves = parse_position(position)?;
    let mut board = build_board(&moves, args.game.size, args.game.rule)?;
    if args.order {
        return Ok(Report::Order(move_order(&mut board)));
    }
    let now = Instant::now();
    let time = args.time.map(Duration::from_millis);
    let limits = Limits {
        deadline: time.map(|t| now + t),
        soft_deadline: time.map(|t| now + t / 2),
        max_depth: args.depth.or(time.is_none().then_some(DEFAULT_DEPTH)),
        ..Limits::default()
    };
    let mut engine = Engine::new(64 << 20);
    let evaluation = &args.evaluation;
    engine.use_networks(crate::net::builtin::chosen(
        evaluation.classical,
        &evaluation.networks,
    )?);
    let mut last = LastProgress::default();
    let best = engine.best_moves(&board, 1, &limits, &AtomicBool::new(false), &mut last);
    let best = best.first().context("no legal move: the board is full")?;
    let progress = last.0.unwrap_or(Progress {
        depth: 0,
        score: best.score,
        nodes: 0,
        elapsed: now.elapsed(),
        pv: vec![best.pos],
    });
    let (proven, mate_in_plies) = match search::proof(best.score) {
        Some(Proof::Win(plies)) => (Some("win"), plies.map(|p| p as i32)),
        Some(Proof::Loss(plies)) => (Some("loss"), plies.map(|p| -(p as i32))),
        None => (None, None),
    };
    Ok(Report::Search(Analysis {
        best: best.pos.to_string(),
        pos: pos_notation(best.pos),
        score: best.score,
        proven,
        mate_in_plies,
        depth: progress.depth,
        nodes: progress.nodes,
        time_ms: now.elapsed().as_millis(),
        pv: progress.pv.iter().map(|p| p.to_string()).collect(),
    }))
}

/// The moves a search node would try here, best first by the move ordering with no
/// history or killers, each with its ordering value; a win at once or a lost position
/// is said as such. Below the root the search tries at most
/// [`search::MAX_QUIET_BREADTH`] of them when nothing forces the choice.
fn move_order(board: &mut Board) -> MoveOrder {
    let mut moves = Vec::new();
    let situation = ordering::generate(board, &mut moves);
    let label = match situation {
        Situation::Win(pos) => {
            moves = vec![pos];
            "win"
        }
        Situation::Lost => "lost",
        Situation::Forced { .. } => "forced",
        Situation::Open => "open",
    };
    let holding = situation.holding(moves.len());
    ordering::order(board, &mut moves, holding, &[0; POINTS]);
    let values = move_values::MoveValues::new(board);
    MoveOrder {
        situation: label,
        last_resort: moves.len() - holding,
        moves: (moves.iter())
            .map(|&m| RankedMove {
                at: m.to_string(),
                pos: pos_notation(m),
                value: values.of(m),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn args(text: &str) -> AnalyzeArgs {
        let line = format!("pbrain-lianzhu analyze {text}");
        match Cli::try_parse_from(line.split_whitespace())
            .unwrap()
            .command
        {
            Some(Command::Analyze(args)) => args,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn both_notations_give_the_same_moves() {
        assert_eq!(parse_position("h8i9j10").unwrap(), [(7, 7), (8, 8), (9, 9)]);
        assert_eq!(
            parse_position("7,7 8,8 9,9").unwrap(),
            [(7, 7), (8, 8), (9, 9)]
        );
        let error = |text| parse_position(text).unwrap_err().to_string();
        assert!(error("hello").contains("column 'h' in 'hello' has no row"));
        assert!(error("H8").contains("'H' in 'H8' is not a column letter"));
        assert!(error("7,7 8,x").contains("'8,x' is not a move"));
    }

    #[test]
    fn bad_positions_are_refused_with_a_reason() {
        let refuse =
            |moves: &str, rule| match build_board(&parse_position(moves).unwrap(), 15, rule) {
                Ok(_) => panic!("{moves} was accepted"),
                Err(error) => error.to_string(),
            };
        assert!(refuse("h8h8", Rule::Freestyle).contains("occupied"));
        assert!(refuse("p8", Rule::Freestyle).contains("off the"));
        assert!(refuse("a1a2b1b2c1c2d1d2e1", Rule::Freestyle).contains("five"));
        // Black's fifth move makes a double three under renju.
        assert!(refuse("f8a1g8a3h6a5h7a7h8", Rule::Renju).contains("forbidden"));
    }

    #[test]
    fn the_order_lists_only_the_real_blocks_when_forced() {
        // White must stop Black's open three next to it: a block one point farther
        // leaves Black a straight four.
        let text = run(&args("--order"), "h8a1i8a15j8").unwrap().to_string();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("forced: 2 moves"), "{text}");
        let mut blocks: Vec<&str> = lines
            .map(|l| l.split_whitespace().nth(1).unwrap())
            .collect();
        blocks.sort();
        assert_eq!(blocks, ["10,7", "6,7"], "{text}");
        let text = run(&args("--order --json"), "h8").unwrap().to_json();
        assert!(
            text.starts_with("{\"situation\":\"open\",\"moves\":[{\"move\":"),
            "{text}"
        );
        assert_eq!(text.matches("\"move\"").count(), 24, "{text}");
    }

    #[test]
    fn a_win_the_threat_search_proved_is_not_given_a_length() {
        let report = |mate_in_plies| {
            Report::Search(Analysis {
                best: "7,7".into(),
                pos: "h8".into(),
                score: 999_900,
                proven: Some("win"),
                mate_in_plies,
                depth: 1,
                nodes: 10,
                time_ms: 1,
                pv: vec!["7,7".into()],
            })
        };
        assert!(
            report(None)
                .to_string()
                .contains("score win, proven by the threat search")
        );
        assert!(report(None).to_json().contains("\"mate_in_plies\":null"));
        assert!(report(Some(7)).to_string().contains("score win in 7 plies"));
    }

    #[test]
    fn a_win_in_one_is_reported_as_such() {
        let text = run(&args("--depth 3 --json"), "a1a2b1b2c1c2d1d2")
            .unwrap()
            .to_json();
        assert!(
            text.contains("\"move\":\"4,0\"") && text.contains("\"mate_in_plies\":1"),
            "{text}"
        );
    }
}

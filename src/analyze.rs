//! `pbrain-lianzhu analyze`: one position from the command line, searched, and the
//! result printed for people or (with `--json`) for scripts.
//!
//! A position is a move list, Black first, either in pos notation (`h8i9j10`: a letter
//! for x from `a`, a number for y + 1) or as Gomocup `x,y` moves separated by spaces.

use crate::board::{Board, POINTS, Pos};
use crate::eval;
use crate::rules::{self, Rule, RuleSetting};
use crate::search::ordering::{self, Situation};
use crate::search::{self, Engine, LastProgress, Limits, MATE, Progress};
use anyhow::{Context, bail, ensure};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

#[derive(Debug, PartialEq)]
pub struct Request {
    pub rule: Rule,
    pub size: usize,
    pub time: Option<Duration>,
    pub depth: Option<u32>,
    pub json: bool,
    /// List the moves in move-ordering order instead of searching.
    pub order: bool,
    pub position: Option<String>,
}

const USAGE: &str = "usage: pbrain-lianzhu analyze [--rule 0|1|4|8] [--size N] [--time MS | --depth N | --order] [--json] [POSITION]";

/// Parses the arguments after `analyze`.
pub fn parse_args(args: &[String]) -> anyhow::Result<Request> {
    let mut request = Request {
        rule: Rule::Freestyle,
        size: 15,
        time: None,
        depth: None,
        json: false,
        order: false,
        position: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> anyhow::Result<u64> {
            let text = args
                .next()
                .with_context(|| format!("{name} needs a value\n{USAGE}"))?;
            text.parse()
                .with_context(|| format!("{name} {text}: not a number\n{USAGE}"))
        };
        match arg.as_str() {
            "--rule" => {
                let mask = value("--rule")?;
                request.rule = RuleSetting::from_mask(mask)
                    .with_context(|| format!("--rule {mask}: use 0, 1, 4 or 8"))?
                    .rule;
            }
            "--size" => request.size = value("--size")? as usize,
            "--time" => request.time = Some(Duration::from_millis(value("--time")?)),
            "--depth" => request.depth = Some(value("--depth")? as u32),
            "--json" => request.json = true,
            "--order" => request.order = true,
            other if other.starts_with("--") => bail!("unknown option {other}\n{USAGE}"),
            position => {
                let joined = request
                    .position
                    .take()
                    .map_or(position.to_string(), |p| p + " " + position);
                request.position = Some(joined);
            }
        }
    }
    ensure!(
        (5..=32).contains(&request.size),
        "--size {}: sizes 5 to 32 are supported",
        request.size
    );
    Ok(request)
}

/// `x,y` moves, or pos notation.
pub fn parse_position(text: &str) -> anyhow::Result<Vec<(i64, i64)>> {
    let text = text.trim();
    if text.contains(',') {
        return text
            .split_whitespace()
            .map(|word| {
                let (x, y) = word
                    .split_once(',')
                    .with_context(|| format!("'{word}' is not x,y"))?;
                Ok((x.trim().parse()?, y.trim().parse()?))
            })
            .collect::<anyhow::Result<_>>()
            .with_context(|| format!("cannot read the moves '{text}'"));
    }
    let mut moves = Vec::new();
    let mut chars = text.chars().filter(|c| !c.is_whitespace()).peekable();
    while let Some(letter) = chars.next() {
        ensure!(
            letter.is_ascii_lowercase(),
            "pos notation: '{letter}' is not a column letter a.."
        );
        let mut digits = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        let row: i64 = digits
            .parse()
            .with_context(|| format!("pos notation: column {letter} has no row"))?;
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

/// Searches the request's position (or with `order`, ranks its moves) and returns the
/// text to print.
pub fn run(request: &Request, position: &str) -> anyhow::Result<String> {
    let moves = parse_position(position)?;
    let mut board = build_board(&moves, request.size, request.rule)?;
    if request.order {
        return Ok(move_order(&mut board, request.json));
    }
    let now = Instant::now();
    let limits = Limits {
        deadline: request.time.map(|t| now + t),
        soft_deadline: request.time.map(|t| now + t / 2),
        max_depth: request.depth.or(if request.time.is_none() {
            Some(10)
        } else {
            None
        }),
        max_nodes: None,
    };
    let mut engine = Engine::new(64 << 20);
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
    let mate = search::is_mate(best.score).then(|| {
        let plies = MATE - best.score.abs();
        if best.score > 0 { plies } else { -plies }
    });
    let pv: Vec<String> = progress.pv.iter().map(|p| p.to_string()).collect();
    Ok(if request.json {
        let quoted: Vec<String> = pv.iter().map(|m| format!("\"{m}\"")).collect();
        format!(
            "{{\"move\":\"{}\",\"pos\":\"{}\",\"score\":{},\"mate_in_plies\":{},\"depth\":{},\"nodes\":{},\"time_ms\":{},\"pv\":[{}]}}",
            best.pos,
            pos_notation(best.pos),
            best.score,
            mate.map_or("null".to_string(), |m| m.to_string()),
            progress.depth,
            progress.nodes,
            now.elapsed().as_millis(),
            quoted.join(",")
        )
    } else {
        let score = match mate {
            Some(m) if m > 0 => format!("win in {m} plies"),
            Some(m) => format!("loss in {} plies", -m),
            None => best.score.to_string(),
        };
        format!(
            "best move {} ({})\nscore {score}\ndepth {}  nodes {}  time {} ms\npv {}",
            best.pos,
            pos_notation(best.pos),
            progress.depth,
            progress.nodes,
            now.elapsed().as_millis(),
            pv.join(" ")
        )
    })
}

/// The moves a search node would try here, best first by the move ordering with no
/// history or killers, each with its ordering value; a win at once or a lost position
/// is said as such. Below the root the search tries at most
/// [`search::MAX_QUIET_BREADTH`] of them when nothing forces the choice.
fn move_order(board: &mut Board, json: bool) -> String {
    let mut moves = Vec::new();
    let situation = ordering::generate(board, &mut moves);
    let label = match situation {
        Situation::Win(pos) => {
            moves = vec![pos];
            "win"
        }
        Situation::Lost => "lost",
        Situation::Forced => "forced",
        Situation::Open => "open",
    };
    ordering::order(board, &mut moves, &[0; POINTS]);
    let values = eval::MoveValues::new(board);
    if json {
        let items: Vec<String> = (moves.iter())
            .map(|&m| {
                format!(
                    "{{\"move\":\"{m}\",\"pos\":\"{}\",\"value\":{}}}",
                    pos_notation(m),
                    values.of(m)
                )
            })
            .collect();
        return format!(
            "{{\"situation\":\"{label}\",\"moves\":[{}]}}",
            items.join(",")
        );
    }
    let lines: Vec<String> = (moves.iter().enumerate())
        .map(|(rank, &m)| {
            format!(
                "{:>3}  {:<6} {:<4} {}",
                rank + 1,
                m.to_string(),
                pos_notation(m),
                values.of(m)
            )
        })
        .collect();
    format!("{label}: {} moves\n{}", moves.len(), lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn both_notations_give_the_same_moves() {
        assert_eq!(parse_position("h8i9j10").unwrap(), [(7, 7), (8, 8), (9, 9)]);
        assert_eq!(
            parse_position("7,7 8,8 9,9").unwrap(),
            [(7, 7), (8, 8), (9, 9)]
        );
        assert!(parse_position("h8i").is_err());
        assert!(parse_position("H8").is_err());
    }

    #[test]
    fn options_parse_and_bad_ones_are_refused() {
        let request = parse_args(&args("--rule 4 --size 15 --depth 3 --json h8 i9")).unwrap();
        assert_eq!(request.rule, Rule::Renju);
        assert_eq!(request.depth, Some(3));
        assert!(request.json);
        assert_eq!(request.position.as_deref(), Some("h8 i9"));
        assert!(parse_args(&args("--rule 5")).is_err());
        assert!(parse_args(&args("--size 40")).is_err());
        assert!(parse_args(&args("--depth")).is_err());
        assert!(parse_args(&args("--bogus")).is_err());
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
        let request = parse_args(&args("--order")).unwrap();
        // White must stop Black's open three next to it: a block one point farther
        // leaves Black a straight four.
        let text = run(&request, "h8a1i8a15j8").unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("forced: 2 moves"), "{text}");
        let mut blocks: Vec<&str> = lines
            .map(|l| l.split_whitespace().nth(1).unwrap())
            .collect();
        blocks.sort();
        assert_eq!(blocks, ["10,7", "6,7"], "{text}");
        let request = parse_args(&args("--order --json")).unwrap();
        let text = run(&request, "h8").unwrap();
        assert!(
            text.starts_with("{\"situation\":\"open\",\"moves\":[{\"move\":"),
            "{text}"
        );
        assert_eq!(text.matches("\"move\"").count(), 24, "{text}");
    }

    #[test]
    fn a_win_in_one_is_reported_as_such() {
        let request = parse_args(&args("--depth 3 --json")).unwrap();
        let text = run(&request, "a1a2b1b2c1c2d1d2").unwrap();
        assert!(
            text.contains("\"move\":\"4,0\"") && text.contains("\"mate_in_plies\":1"),
            "{text}"
        );
    }
}

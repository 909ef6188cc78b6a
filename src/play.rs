//! `pbrain-lianzhu play`: a game against the engine in a terminal, for people without a
//! Gomocup GUI. The board is drawn with pos-notation coordinates (columns `a`.., rows
//! `1`.. from the top); moves are typed as `h8` or `7,7`; `undo` takes back the last
//! pair of moves, `quit` ends.

use crate::analyze::{parse_position, pos_notation};
use crate::board::{Board, Cell, Color, Pos};
use crate::net::Network;
use crate::rules::{self, Rule};
use crate::search::{Engine, Limits, Silent};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

pub struct Options {
    pub rule: Rule,
    pub size: usize,
    pub think: Duration,
    /// The person plays White (the engine opens).
    pub human_white: bool,
    /// The networks that score positions of their rules.
    pub networks: Vec<Arc<Network>>,
}

/// The board as text, with coordinates and the last move in brackets.
pub fn draw(board: &Board) -> String {
    let last = board.last_move().map(|m| m.pos);
    let letters: String = (0..board.width())
        .map(|x| format!(" {}", (b'a' + x as u8) as char))
        .collect();
    let mut text = format!("   {letters}\n");
    for y in 0..board.height() {
        text.push_str(&format!("{:>3}", y + 1));
        let mut after_last = false;
        for x in 0..board.width() {
            let pos = Pos::new(x, y);
            let separator = match (Some(pos) == last, after_last) {
                (true, _) => '[',
                (false, true) => ']',
                (false, false) => ' ',
            };
            after_last = Some(pos) == last;
            text.push(separator);
            text.push(match board.cell(pos) {
                Cell::Stone(Color::Black) => 'X',
                Cell::Stone(Color::White) => 'O',
                Cell::Wall => '#',
                Cell::Empty => '.',
            });
        }
        if after_last {
            text.push(']');
        }
        text.push('\n');
    }
    text
}

fn engine_move(engine: &mut Engine, board: &mut Board, think: Duration) -> Option<Pos> {
    let now = Instant::now();
    let limits = Limits {
        deadline: Some(now + think),
        soft_deadline: Some(now + think / 2),
        ..Limits::default()
    };
    let best = engine.best_moves(board, 1, &limits, &AtomicBool::new(false), &mut Silent);
    let pos = best.first()?.pos;
    board.play(pos);
    Some(pos)
}

/// Whether the game is over, with the line that says so.
fn game_over(board: &Board) -> Option<String> {
    match rules::winner(board) {
        Some(Color::Black) => Some("Black (X) wins.".into()),
        Some(Color::White) => Some("White (O) wins.".into()),
        None if board.is_full() => Some("The board is full: a draw.".into()),
        None => None,
    }
}

/// Plays one game on `input` and `output`.
pub fn run(options: &Options, input: impl BufRead, output: &mut impl Write) -> std::io::Result<()> {
    let mut board = Board::new(options.size, options.size, options.rule);
    let mut engine = Engine::new(64 << 20);
    engine.use_networks(options.networks.clone());
    let human = if options.human_white {
        Color::White
    } else {
        Color::Black
    };
    writeln!(
        output,
        "You play {}. Moves like h8 or 7,7; 'undo', 'quit'.",
        if human == Color::Black {
            "Black (X)"
        } else {
            "White (O)"
        }
    )?;
    if board.to_move() != human {
        engine_move(&mut engine, &mut board, options.think);
    }
    write!(output, "{}> ", draw(&board))?;
    output.flush()?;
    for line in input.lines() {
        let line = line?;
        let text = line.trim();
        match text {
            "quit" | "exit" => return Ok(()),
            "undo" => {
                board.undo();
                if board.to_move() != human {
                    board.undo();
                }
            }
            "" => {}
            _ => match human_move(&mut board, text) {
                Err(message) => writeln!(output, "{message}")?,
                Ok(()) => {
                    if game_over(&board).is_none()
                        && let Some(reply) = engine_move(&mut engine, &mut board, options.think)
                    {
                        writeln!(output, "Lianzhu plays {} ({reply})", pos_notation(reply))?;
                    }
                }
            },
        }
        write!(output, "{}", draw(&board))?;
        if let Some(result) = game_over(&board) {
            writeln!(output, "{result}")?;
            return Ok(());
        }
        write!(output, "> ")?;
        output.flush()?;
    }
    Ok(())
}

fn human_move(board: &mut Board, text: &str) -> Result<(), String> {
    let moves = parse_position(text).map_err(|e| format!("{e:#}"))?;
    let &[(x, y)] = moves.as_slice() else {
        return Err("type one move, like h8 or 7,7".into());
    };
    let pos = board
        .pos(x, y)
        .ok_or_else(|| format!("{text} is off the board"))?;
    if !board.is_empty(pos) {
        return Err(format!("{text} is taken"));
    }
    let color = board.to_move();
    if !rules::is_legal(board, pos, color) {
        return Err(format!("{text} is forbidden for Black under renju"));
    }
    board.play(pos);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(script: &str, human_white: bool) -> String {
        let options = Options {
            rule: Rule::Renju,
            size: 15,
            think: Duration::from_millis(30),
            human_white,
            networks: Vec::new(),
        };
        let mut output = Vec::new();
        run(&options, script.as_bytes(), &mut output).unwrap();
        String::from_utf8(output).unwrap()
    }

    #[test]
    fn the_engine_answers_and_bad_moves_are_refused() {
        let text = play("h8\nh8\nz99\nquit\n", false);
        assert!(text.contains("Lianzhu plays"), "{text}");
        assert!(text.contains("h8 is taken"), "{text}");
        assert!(
            text.contains("off the board") || text.contains("column"),
            "{text}"
        );
        assert!(
            text.contains("[X]") || text.contains("[O]"),
            "the last move is marked:\n{text}"
        );
    }

    #[test]
    fn the_engine_opens_when_the_person_plays_white() {
        let text = play("quit\n", true);
        assert!(text.contains("[X]"), "{text}");
    }

    #[test]
    fn a_drawn_board_has_coordinates() {
        let board = Board::new(5, 5, Rule::Freestyle);
        let text = draw(&board);
        assert!(text.starts_with("    a b c d e\n"), "{text}");
        assert!(text.ends_with("  5 . . . . .\n"), "{text}");
    }
}

//! `pbrain-lianzhu selfplay`: games of the engine against itself, written as training
//! data for a learned evaluation.
//!
//! Each game starts from a randomised opening (a few stones of both colours dropped
//! near the centre, legal, with no five and no four on the board; with a balance
//! margin, drawn again until a search of it scores it near even: most random openings
//! are won within ten moves, and such games teach little about the even positions
//! games between engines are about), or from the next of
//! a file of balanced openings (`scripts/openings/`, offsets from the centre, Black
//! first; game i takes line i modulo their number), then every move is
//! a search with a fixed node budget, so that a game depends only on its seed: the same
//! seed and options give the same file, whatever the number of threads. For the first
//! plies after the opening the move is drawn among the two best when their scores are
//! close, so that games from one opening part ways. A game ends at a five, at a win the
//! search proved (the prover is the winner), on a full board or at the ply limit.
//!
//! The format, one game a line, text:
//!
//! ```text
//! RULE SIZE RESULT OPENING MOVE:SCORE MOVE:SCORE ...
//! ```
//!
//! RULE is the Gomocup rule number (0, 1, 4, 8), SIZE the board's side, RESULT `B`, `W`
//! or `D` (Black won, White won, a draw: the board filled or the ply limit reached).
//! OPENING is the number of opening stones; the first OPENING moves are those, with
//! score 0, and every later move is the searched one with its search's score, from the
//! mover's view, in the search's units (a win in n plies is 1000000 - n). Moves are
//! `x,y` from 0, Black first. Every position before a searched move is a training
//! sample: the stones so far, the side to move, the score and the move, and the result.

use crate::board::{Board, Color, Pos, Rule, RuleSetting};
use crate::net::Network;
use crate::rules;
use crate::search::{self, Engine, Limits, Proof, Silent};
use anyhow::Context;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Plies after the opening whose move may be the second best, for variety.
const VARIED_PLIES: usize = 8;
/// The second best is a candidate only this close to the best, in the search's units.
const VARIETY_MARGIN: i32 = 60;
/// Table per game thread: node budgets are small, so a small table serves.
const TABLE_BYTES: usize = 16 << 20;
/// Random openings drawn at most for one game under a balance margin; the last is
/// played whatever its score, so that a margin no opening meets cannot stall a run.
const BALANCE_TRIES: usize = 100;

/// What to play.
#[derive(Clone, Debug)]
pub struct Options {
    pub rule: Rule,
    pub size: usize,
    pub games: usize,
    /// Nodes per move (all of the search's nodes).
    pub nodes: u64,
    /// Opening stones: from 2 to this many, drawn per game.
    pub max_opening: usize,
    /// Games end as draws after this many plies.
    pub max_plies: usize,
    pub seed: u64,
    pub threads: usize,
    /// Balanced openings as offsets from the centre; none: random ones.
    pub openings: Vec<Vec<(i32, i32)>>,
    /// Random openings are kept only if a search of them (`nodes`) scores within this
    /// of even.
    pub balanced_within: Option<i32>,
    /// The networks that score positions of their rules; the classical evaluation
    /// scores the rest.
    pub networks: Vec<Arc<Network>>,
}

impl Options {
    /// An engine that plays these games.
    fn engine(&self) -> Engine {
        let mut engine = Engine::new(TABLE_BYTES);
        engine.use_networks(self.networks.clone());
        engine
    }
}

/// Openings in the offset notation of `scripts/openings/` (`dx,dy, dx,dy, ...` a line).
pub fn read_openings(text: &str) -> anyhow::Result<Vec<Vec<(i32, i32)>>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            let numbers: Vec<i32> = line
                .split(',')
                .map(|n| n.trim().parse())
                .collect::<Result<_, _>>()
                .map_err(|_| anyhow::anyhow!("line {}: not offsets dx,dy, ...", number + 1))?;
            anyhow::ensure!(
                !numbers.is_empty() && numbers.len().is_multiple_of(2),
                "line {}: an odd count of numbers",
                number + 1
            );
            Ok(numbers.chunks(2).map(|c| (c[0], c[1])).collect())
        })
        .collect()
}

/// The opening `offsets` on an empty board, or why it cannot be played there.
fn fixed_opening(rule: Rule, size: usize, offsets: &[(i32, i32)]) -> anyhow::Result<Board> {
    let mut board = Board::new(size, size, rule);
    let centre = board.centre();
    for &(dx, dy) in offsets {
        let pos = board
            .offset(centre, dx, dy)
            .ok_or_else(|| anyhow::anyhow!("{dx},{dy} is off a {size}x{size} board"))?;
        let me = board.to_move();
        anyhow::ensure!(
            rules::is_legal(&mut board, pos, me) && !rules::is_winning_move(&board, pos, me),
            "{dx},{dy} is taken, forbidden or wins"
        );
        board.play(pos);
    }
    Ok(board)
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub rule: Rule,
    pub size: usize,
    pub winner: Option<Color>,
    pub opening: usize,
    /// Every move with its score from the mover's view (0 for opening stones).
    pub moves: Vec<(Pos, i32)>,
}

/// One training sample: a position before a searched move, seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Moves played before it.
    pub ply: usize,
    /// The search's score for the side to move.
    pub score: i32,
    /// The next move's search score, for this side to move (negated): a search of the
    /// same budget one ply further along the game. None after the last move.
    pub next_score: Option<i32>,
    /// The move the game went on with.
    pub played: Pos,
    /// How the game ended for the side to move: 1 won, 0 lost, 0.5 drawn.
    pub result: f32,
}

impl Game {
    /// Replays the game from the empty board and shows `visit` every sample with its
    /// position (the opening's positions are not samples). A move that cannot be played
    /// is an error that names it.
    pub fn replay(&self, mut visit: impl FnMut(&Board, &Sample)) -> anyhow::Result<()> {
        let mut board = Board::new(self.size, self.size, self.rule);
        for (ply, &(pos, score)) in self.moves.iter().enumerate() {
            let me = board.to_move();
            anyhow::ensure!(
                rules::is_legal(&mut board, pos, me),
                "move {} ({pos}) cannot be played",
                ply + 1
            );
            if ply >= self.opening {
                let sample = Sample {
                    ply,
                    score,
                    next_score: self.next_score(ply),
                    played: pos,
                    result: self.result_for(me),
                };
                visit(&board, &sample);
            }
            board.play(pos);
        }
        Ok(())
    }

    /// How the game ended for `side`: 1 won, 0 lost, 0.5 drawn.
    pub fn result_for(&self, side: Color) -> f32 {
        rules::result_for(self.winner, side)
    }

    /// The search score of the move after `ply`, for the side to move at `ply`.
    pub fn next_score(&self, ply: usize) -> Option<i32> {
        self.moves.get(ply + 1).map(|&(_, score)| -score)
    }

    /// The game as one line of the format above (no line ending).
    pub fn to_line(&self) -> String {
        let result = match self.winner {
            Some(Color::Black) => 'B',
            Some(Color::White) => 'W',
            None => 'D',
        };
        let mut line = format!(
            "{} {} {result} {}",
            self.rule.number(),
            self.size,
            self.opening
        );
        for (pos, score) in &self.moves {
            let _ = write!(line, " {pos}:{score}");
        }
        line
    }

    /// Reads a line of the format back.
    pub fn from_line(line: &str) -> anyhow::Result<Game> {
        let mut words = line.split_whitespace();
        let mut next = |what: &str| {
            words
                .next()
                .ok_or_else(|| anyhow::anyhow!("the line ends before its {what}"))
        };
        let word = next("rule")?;
        let rule = (word.parse().ok())
            .and_then(RuleSetting::from_mask)
            .map(|setting| setting.rule)
            .filter(|rule| rule.number().to_string() == word)
            .ok_or_else(|| anyhow::anyhow!("rule '{word}' is not 0, 1, 4 or 8"))?;
        let size: usize = next("size")?.parse()?;
        let winner = match next("result")? {
            "B" => Some(Color::Black),
            "W" => Some(Color::White),
            "D" => None,
            other => anyhow::bail!("result '{other}' is not B, W or D"),
        };
        let opening: usize = next("opening")?.parse()?;
        let moves = words
            .map(|word| {
                let parse = || -> Option<(Pos, i32)> {
                    let (at, score) = word.split_once(':')?;
                    let (x, y) = at.split_once(',')?;
                    let (x, y): (usize, usize) = (x.parse().ok()?, y.parse().ok()?);
                    (x < size && y < size).then_some((Pos::new(x, y), score.parse().ok()?))
                };
                parse().ok_or_else(|| anyhow::anyhow!("'{word}' is not x,y:score"))
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(Game {
            rule,
            size,
            winner,
            opening,
            moves,
        })
    }
}

/// A random legal opening of 2 to `max` stones within 3 of the centre, with no five
/// and no four for either side; retried until one is found.
fn opening(rule: Rule, size: usize, max: usize, rng: &mut StdRng) -> Board {
    loop {
        let mut board = Board::new(size, size, rule);
        let stones = rng.random_range(2..=max.max(2));
        let centre = board.centre();
        let mut placed = 0;
        for _ in 0..stones * 20 {
            let (dx, dy) = (rng.random_range(-3..=3), rng.random_range(-3..=3));
            let Some(pos) = board.offset(centre, dx, dy) else {
                continue;
            };
            let me = board.to_move();
            if rules::is_legal(&mut board, pos, me) && !rules::is_winning_move(&board, pos, me) {
                board.play(pos);
                placed += 1;
                if placed == stones {
                    break;
                }
            }
        }
        let quiet = [Color::Black, Color::White]
            .iter()
            .all(|&c| board.four_points(c).is_empty());
        if placed == stones && quiet {
            return board;
        }
    }
}

/// Plays game number `index` of `options`.
pub fn play_game(options: &Options, index: usize, engine: &mut Engine) -> Game {
    let mut rng =
        StdRng::seed_from_u64(options.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let limits = Limits {
        max_nodes: Some(options.nodes),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let mut board = match options.openings.get(index % options.openings.len().max(1)) {
        Some(offsets) => fixed_opening(options.rule, options.size, offsets)
            .expect("openings are checked before the games start"),
        None => {
            let mut tries = 0;
            loop {
                let board = opening(options.rule, options.size, options.max_opening, &mut rng);
                tries += 1;
                let balanced = |margin| opening_score(engine, &board, &limits, &stop) <= margin;
                if tries == BALANCE_TRIES || options.balanced_within.is_none_or(balanced) {
                    break board;
                }
            }
        }
    };
    let opening_moves: Vec<(Pos, i32)> = board.history().iter().map(|m| (m.pos, 0)).collect();
    let opening = opening_moves.len();
    let mut moves = opening_moves;
    engine.clear();
    let mut winner = None;
    while moves.len() < options.max_plies && !board.is_full() {
        let me = board.to_move();
        let varied = moves.len() < opening + VARIED_PLIES;
        let count = if varied { 2 } else { 1 };
        let found = engine.best_moves(&board, count, &limits, &stop, &mut Silent);
        let Some(&best) = found.first() else {
            // No legal move: Black has only fouls left under renju.
            winner = Some(me.opponent());
            break;
        };
        let chosen = match found.get(1) {
            Some(&second)
                if best.score - second.score <= VARIETY_MARGIN && rng.random_bool(0.5) =>
            {
                second
            }
            _ => best,
        };
        let wins = rules::is_winning_move(&board, chosen.pos, me);
        board.play(chosen.pos);
        moves.push((chosen.pos, chosen.score));
        // A win the search proved ends the game: what follows teaches nothing new.
        if wins || matches!(search::proof(chosen.score), Some(Proof::Win(_))) {
            winner = Some(me);
            break;
        }
    }
    Game {
        rule: options.rule,
        size: options.size,
        winner,
        opening,
        moves,
    }
}

/// How far from even a search of `board` with `limits` scores it, from a clear table
/// (so that the answer depends on the position alone).
fn opening_score(engine: &mut Engine, board: &Board, limits: &Limits, stop: &AtomicBool) -> i32 {
    engine.clear();
    let found = engine.best_moves(board, 1, limits, stop, &mut Silent);
    found
        .first()
        .map_or(i32::MAX, |best| best.score.saturating_abs())
}

/// Checks that every opening of `options` can be played on its board.
fn check_openings(options: &Options) -> anyhow::Result<()> {
    for (number, offsets) in options.openings.iter().enumerate() {
        fixed_opening(options.rule, options.size, offsets)
            .map_err(|e| anyhow::anyhow!("opening {}: {e}", number + 1))?;
    }
    Ok(())
}

/// Plays every game on `options.threads` threads and hands each finished game's line to
/// `write` in game order; `on_game` hears of each game as it ends. The positions
/// written (searched moves); an opening that cannot be played is an error before any
/// game starts.
pub fn run(
    options: &Options,
    write: impl FnMut(&str) -> std::io::Result<()> + Send,
    on_game: &(dyn Fn() + Sync),
) -> anyhow::Result<u64> {
    check_openings(options)?;
    let next = AtomicUsize::new(0);
    let output = Mutex::new(InOrder {
        write,
        next: 0,
        waiting: BTreeMap::new(),
        positions: 0,
        failed: None,
    });
    std::thread::scope(|scope| {
        for _ in 0..options.threads.max(1) {
            scope.spawn(|| {
                let mut engine = options.engine();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= options.games {
                        return;
                    }
                    let game = play_game(options, index, &mut engine);
                    if !output.lock().expect("no panic").add(index, &game) {
                        return;
                    }
                    on_game();
                }
            });
        }
    });
    let output = output.into_inner().expect("no panic");
    match output.failed {
        Some(error) => Err(error.into()),
        None => Ok(output.positions),
    }
}

/// Writes games in game order as they finish out of order.
struct InOrder<W> {
    write: W,
    /// The next game to write; later ones wait.
    next: usize,
    waiting: BTreeMap<usize, String>,
    /// Searched positions of the games written.
    positions: u64,
    failed: Option<std::io::Error>,
}

impl<W: FnMut(&str) -> std::io::Result<()>> InOrder<W> {
    /// Takes game `index` and writes every game now due; false once a write failed.
    fn add(&mut self, index: usize, game: &Game) -> bool {
        if self.failed.is_some() {
            return false;
        }
        self.positions += (game.moves.len() - game.opening) as u64;
        self.waiting.insert(index, game.to_line());
        while let Some(line) = self.waiting.remove(&self.next) {
            self.next += 1;
            if let Err(error) = (self.write)(&line) {
                self.failed = Some(error);
                return false;
            }
        }
        true
    }
}

/// The games of a self-play file's text, one a line; blank lines are skipped.
pub fn read_games(text: &str) -> anyhow::Result<Vec<Game>> {
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    lines
        .map(|(number, line)| Game::from_line(line).with_context(|| format!("line {}", number + 1)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(threads: usize) -> Options {
        Options {
            rule: Rule::Renju,
            size: 15,
            games: 3,
            nodes: 300,
            max_opening: 6,
            max_plies: 40,
            seed: 7,
            threads,
            openings: Vec::new(),
            balanced_within: None,
            networks: Vec::new(),
        }
    }

    #[test]
    fn the_networks_given_score_the_games() {
        let classical = options(1);
        let scored = Options {
            networks: vec![Arc::new(crate::net::testing::random_network(
                Rule::Renju,
                3,
            ))],
            ..classical.clone()
        };
        assert_ne!(lines(&scored), lines(&classical));
    }

    fn lines(options: &Options) -> Vec<String> {
        let mut out = Vec::new();
        run(
            options,
            |line| {
                out.push(line.to_string());
                Ok(())
            },
            &|| {},
        )
        .unwrap();
        out
    }

    #[test]
    fn the_same_seed_gives_the_same_games_on_any_number_of_threads() {
        let one = lines(&options(1));
        assert_eq!(one.len(), 3);
        assert_eq!(one, lines(&options(3)));
        let other = Options {
            seed: 8,
            ..options(1)
        };
        assert_ne!(one, lines(&other));
    }

    /// How far from even the search scores each game's opening.
    fn opening_scores(options: &Options) -> Vec<i32> {
        let mut engine = options.engine();
        let limits = Limits {
            max_nodes: Some(options.nodes),
            ..Limits::default()
        };
        let stop = AtomicBool::new(false);
        (lines(options).iter())
            .map(|line| {
                let game = Game::from_line(line).unwrap();
                let mut board = Board::new(game.size, game.size, game.rule);
                for &(pos, _) in &game.moves[..game.opening] {
                    board.play(pos);
                }
                opening_score(&mut engine, &board, &limits, &stop)
            })
            .collect()
    }

    #[test]
    fn a_balance_margin_keeps_only_openings_a_search_scores_near_even() {
        let random = Options {
            games: 8,
            rule: Rule::Freestyle,
            ..options(2)
        };
        let margin = 100;
        let unbalanced = opening_scores(&random);
        assert!(unbalanced.iter().any(|&s| s > margin), "{unbalanced:?}");
        let balanced = opening_scores(&Options {
            balanced_within: Some(margin),
            ..random
        });
        assert!(balanced.iter().all(|&s| s <= margin), "{balanced:?}");
    }

    #[test]
    fn a_file_reads_game_by_game_and_a_bad_line_is_named() {
        let lines = lines(&options(2));
        let text = format!("{}\n\n{}\n", lines[0], lines[1]);
        let games = read_games(&text).unwrap();
        assert_eq!(
            games.iter().map(Game::to_line).collect::<Vec<_>>(),
            lines[..2]
        );
        let damaged = format!("{}\n\n{} x\n", lines[0], lines[1]);
        let error = format!("{:#}", read_games(&damaged).unwrap_err());
        assert!(error.starts_with("line 3: "), "{error}");
    }

    #[test]
    fn a_result_is_read_for_either_side() {
        let won = Game::from_line("0 15 W 2 7,7:0 8,8:0 9,9:10").unwrap();
        assert_eq!(won.result_for(Color::White), 1.0);
        assert_eq!(won.result_for(Color::Black), 0.0);
        let drawn = Game::from_line("0 15 D 2 7,7:0 8,8:0 9,9:10").unwrap();
        assert_eq!(drawn.result_for(Color::White), 0.5);
        assert_eq!(drawn.result_for(Color::Black), 0.5);
    }

    #[test]
    fn a_game_line_reads_back_and_replays_legally() {
        for line in lines(&options(2)) {
            let game = Game::from_line(&line).unwrap();
            assert_eq!(game.to_line(), line);
            let mut samples = Vec::new();
            game.replay(|board, sample| {
                assert_eq!(board.history().len(), sample.ply);
                assert!(board.is_empty(sample.played));
                samples.push(*sample);
            })
            .unwrap();
            assert_eq!(samples.len(), game.moves.len() - game.opening);
            // The winner's samples say won, the loser's lost, turn about.
            if game.winner.is_some() {
                let last = samples.last().expect("a won game has moves");
                assert_eq!(last.result, 1.0, "{line}");
                assert!(samples.windows(2).all(|w| w[0].result + w[1].result == 1.0));
            }
            assert!((2..=6).contains(&game.opening), "{line}");
            let mut board = Board::new(15, 15, Rule::Renju);
            for (i, &(pos, score)) in game.moves.iter().enumerate() {
                let me = board.to_move();
                assert!(rules::is_legal(&mut board, pos, me), "{line}");
                assert!(i >= game.opening || score == 0);
                board.play(pos);
            }
            // A five, or a win the winner's last search proved.
            if let Some(winner) = game.winner {
                let (_, last) = game.moves[game.moves.len() - 1];
                let proved = matches!(search::proof(last), Some(Proof::Win(_)));
                assert!(rules::winner(&board) == Some(winner) || proved, "{line}");
            }
        }
        let balanced = Options {
            openings: read_openings("-1,2, 1,-2, 1,0\n0,-2, 3,3, 2,1\n").unwrap(),
            ..options(2)
        };
        let games: Vec<Game> = (lines(&balanced).iter())
            .map(|l| Game::from_line(l).unwrap())
            .collect();
        assert_eq!(
            games[0].moves[..3].iter().map(|m| m.0).collect::<Vec<_>>(),
            [Pos::new(6, 9), Pos::new(8, 5), Pos::new(8, 7)]
        );
        assert_eq!(
            games[2].moves[0].0,
            Pos::new(6, 9),
            "the first opening again"
        );
        assert!(read_openings("1,2, 3").is_err());
        let off_board = Options {
            openings: read_openings("9,9").unwrap(),
            ..options(1)
        };
        assert!(check_openings(&off_board).is_err());
        assert!(Game::from_line("4 15 X 2").is_err());
        let replayed_twice = Game::from_line("0 15 D 0 7,7:5 7,7:0").unwrap();
        assert!(replayed_twice.replay(|_, _| {}).is_err());
        assert!(Game::from_line("4 15 B 2 7,7:0 99,1:0").is_err());
    }
}

//! The command line, typed with clap's derive: each subcommand is a struct whose fields
//! are its options, so `--help`, `--version`, refusing what a subcommand does not take
//! and the usage in every error come from one declaration. With no subcommand the
//! binary speaks the Gomocup protocol, which is what managers start it for.

use crate::rules::{Rule, RuleSetting};
use crate::{bench, search};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "pbrain-lianzhu",
    version,
    propagate_version = true,
    // The protocol's own options given before a subcommand would be dropped unread.
    args_conflicts_with_subcommands = true,
    about = "Lianzhu (连珠): a Gomoku and Renju engine for the Gomocup protocol",
    long_about = "Lianzhu (连珠): a Gomoku and Renju engine.\n\n\
        With no subcommand it speaks the Gomocup (Piskvork) protocol on stdin and stdout, \
        as Gomocup managers, Piskvork, Yixin-Board and c-gomoku-cli expect: load the binary \
        there as an engine. The subcommands are for people and scripts."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// For the protocol (no subcommand)
    #[command(flatten)]
    pub evaluation: EvaluationArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Search one position and print the best move, its score and the principal variation
    Analyze(AnalyzeArgs),
    /// Play a game against the engine in the terminal
    Play(PlayArgs),
    /// Search fixed positions to a fixed depth and print the node count
    Bench(BenchArgs),
    /// Fit the evaluation or move-ordering weights to finished games
    Tune(TuneArgs),
    /// Play the engine against itself and write the games as training data
    Selfplay(SelfplayArgs),
    /// Fit the learned evaluation (a network) to self-play games and write its weights
    Train(TrainArgs),
}

/// The rule and board of a position.
#[derive(Args, Debug)]
pub struct GameArgs {
    /// Rule: 0 freestyle, 1 standard, 4 renju, 8 caro (Gomocup rule numbers)
    #[arg(long, value_name = "RULE", default_value = "0", value_parser = parse_rule)]
    pub rule: Rule,
    /// Board size, 5 to 32 (square)
    #[arg(long, value_name = "N", default_value_t = 15, value_parser = parse_size)]
    pub size: usize,
}

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub evaluation: EvaluationArgs,
    /// Think for this many milliseconds (by default: search to depth 10)
    #[arg(long, value_name = "MS", value_parser = parse_millis, conflicts_with_all = ["depth", "order"])]
    pub time: Option<u64>,
    /// Search to this depth
    #[arg(long, value_name = "N", value_parser = parse_depth, conflicts_with = "order")]
    pub depth: Option<u32>,
    /// Search nothing: list the moves a search node would try, best first; with no
    /// POSITION, read one position a line from stdin and answer each
    #[arg(long)]
    pub order: bool,
    /// Print one JSON object (errors too) instead of text
    #[arg(long)]
    pub json: bool,
    /// Moves, Black first: pos notation (h8i9j10: letter = x from a, number = y + 1) or
    /// x,y pairs (7,7 8,8); read from stdin when absent
    #[arg(value_name = "POSITION")]
    pub position: Vec<String>,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// The engine's thinking time per move, in milliseconds
    #[arg(long, value_name = "MS", default_value_t = 2000, value_parser = parse_millis)]
    pub time: u64,
    /// Play White: the engine opens
    #[arg(long)]
    pub white: bool,
    #[command(flatten)]
    pub evaluation: EvaluationArgs,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Search depth
    #[arg(value_name = "DEPTH", default_value_t = bench::DEFAULT_DEPTH, value_parser = parse_depth)]
    pub depth: u32,
    #[command(flatten)]
    pub evaluation: EvaluationArgs,
}

/// Which evaluation scores positions.
#[derive(Args, Debug, Default)]
pub struct EvaluationArgs {
    /// Score positions of the file's rule (and board size, if it has one) with this
    /// network (`pbrain-lianzhu train`) instead of the built-in one; repeat for others
    #[arg(long = "net", value_name = "FILE")]
    pub networks: Vec<PathBuf>,
    /// Score with the classical evaluation, not the built-in networks (freestyle on
    /// 20x20 and on 15x15 boards); a --net still applies
    #[arg(long)]
    pub classical: bool,
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Fit only the tempo and the initiative table; keep the threat weights
    #[arg(long, group = "mode")]
    pub initiative: bool,
    /// FILEs are positions scored by a stronger engine (scripts/label_positions.py);
    /// fit to those scores instead of the games' results
    #[arg(long, group = "mode")]
    pub labels: bool,
    /// Fit the move-ordering weights to the moves played (give it a strong engine's games,
    /// or self-play files)
    #[arg(long, group = "mode")]
    pub ordering: bool,
    /// Fit only the threat weights and the tempo; keep the initiative table
    #[arg(long, group = "mode")]
    pub threats: bool,
    /// Fit to the positions with this side to move only
    #[arg(long, value_enum, conflicts_with_all = ["labels", "ordering"])]
    pub to_move: Option<SideArg>,
    /// Score units per logit of the fit, instead of the scale that best suits the current
    /// weights: fits that must share units give the same one
    #[arg(long, value_parser = parse_scale, conflicts_with_all = ["labels", "ordering"])]
    pub scale: Option<f64>,
    /// SGF files of finished games as c-gomoku-cli writes them (with --labels: label files;
    /// with --ordering also self-play files)
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

/// A side, as `tune --to-move` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SideArg {
    Black,
    White,
}

impl From<SideArg> for crate::board::Color {
    fn from(side: SideArg) -> Self {
        match side {
            SideArg::Black => crate::board::Color::Black,
            SideArg::White => crate::board::Color::White,
        }
    }
}

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Games to play
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub games: usize,
    /// Search nodes per move (a fixed budget keeps every game reproducible)
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub nodes: u64,
    /// Opening stones: from 2 to this many, drawn per game
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(2..=20))]
    pub max_opening: u32,
    /// Seed of the openings and of the choices among close moves
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (default: every core)
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Balanced openings to start from, offsets from the centre a line as in
    /// scripts/openings/ (default: random openings)
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Keep a random opening only if a search of it (the move's node budget) scores it
    /// within this many units of even; others are drawn again
    #[arg(long, value_name = "UNITS", conflicts_with = "openings")]
    pub balanced_within: Option<u32>,
    /// File to write, one game a line (the format is in `src/selfplay.rs`)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub evaluation: EvaluationArgs,
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Passes over the training samples
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub epochs: u32,
    /// Adam's step size at the start (it falls linearly to a tenth)
    #[arg(long, value_name = "X", default_value_t = 0.002)]
    pub rate: f64,
    /// Multiplies the written network's correction to the classical score (0.5: half
    /// of what fits the samples best, which played better)
    #[arg(long, value_name = "X", default_value_t = 0.5, value_parser = parse_fraction)]
    pub correction_scale: f32,
    /// Weight decay of the codebook and the head's weights, per unit of step size
    #[arg(long, value_name = "X", default_value_t = 0.0)]
    pub decay: f64,
    /// Weight of the game's result in the target, 0 to 1 (the search's score has the rest)
    #[arg(long, value_name = "X", default_value_t = 0.0, value_parser = parse_fraction)]
    pub result_weight: f32,
    /// Weight of the next move's search score (the opponent's, one ply on) in the
    /// search scores' part of the target, 0 to 1 (the sample's own score has the rest)
    #[arg(long, value_name = "X", default_value_t = 0.0, value_parser = parse_fraction)]
    pub next_weight: f32,
    /// Hold out every Nth game to measure the fit
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..))]
    pub hold_out: u32,
    /// Measure the fit on this file's games instead, and train on every game of the
    /// files given (networks trained on different games are then compared on the same
    /// ones); repeat for more
    #[arg(long, value_name = "FILE", conflicts_with_all = ["hold_out", "control"])]
    pub validate_on: Vec<PathBuf>,
    /// Seed of the first weights and of the order of the games
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Threads (default: every core)
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Start from this network instead of random weights
    #[arg(long, value_name = "FILE")]
    pub start: Option<PathBuf>,
    /// A codebook for each colour's view instead of one for both (twice the rows, the
    /// same speed): renju's Black and White value the same line differently
    #[arg(long, conflicts_with = "start")]
    pub codebook_per_colour: bool,
    /// Write the network's scores in the classical evaluation's units (its classical
    /// input passed through unchanged), as the search's margins and its classically
    /// scored positions are, instead of at the search scores' scale
    #[arg(long)]
    pub classical_units: bool,
    /// Weights file to write (the format is in `src/net/file.rs`)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Write, instead of training, the control network of this rule: its score is
    /// exactly the classical evaluation's, at a network's cost in speed (the opponent
    /// that tells what a trained network's weights are worth)
    #[arg(long, value_name = "RULE", value_parser = parse_rule, conflicts_with_all = ["files", "start"])]
    pub control: Option<Rule>,
    /// Self-play files (`pbrain-lianzhu selfplay`), all of one rule
    #[arg(value_name = "FILE", required_unless_present = "control")]
    pub files: Vec<PathBuf>,
}

fn parse_scale(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (10.0..=10_000.0).contains(&x) => Ok(x),
        _ => Err(format!("{text} is not a number from 10 to 10000")),
    }
}

fn parse_fraction(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{text} is not a number from 0 to 1")),
    }
}

/// What [`TuneArgs`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuneMode {
    Results,
    Initiative,
    Threats,
    Labels,
    Ordering,
}

impl TuneArgs {
    pub fn mode(&self) -> TuneMode {
        if self.initiative {
            TuneMode::Initiative
        } else if self.threats {
            TuneMode::Threats
        } else if self.labels {
            TuneMode::Labels
        } else if self.ordering {
            TuneMode::Ordering
        } else {
            TuneMode::Results
        }
    }
}

/// The text of a usage error, always with the usage of the subcommand it is about
/// (clap leaves it out of some errors, such as a bad value).
pub fn usage_error_text(error: &clap::Error, subcommand: Option<&str>) -> String {
    let text = error.render().to_string();
    if text.contains("Usage:") {
        return text;
    }
    let mut command = <Cli as clap::CommandFactory>::command();
    // Building names each subcommand's usage after the binary.
    command.build();
    let usage = match subcommand.and_then(|name| command.find_subcommand_mut(name)) {
        Some(sub) => sub.render_usage(),
        None => command.render_usage(),
    };
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    format!("{first}\n\n{usage}\n{rest}")
}

fn parse_rule(text: &str) -> Result<Rule, String> {
    text.parse()
        .ok()
        .and_then(RuleSetting::from_mask)
        .map(|setting| setting.rule)
        .ok_or_else(|| {
            format!(
                "'{text}' is not a rule: use 0 (freestyle), 1 (standard), 4 (renju) or 8 (caro)"
            )
        })
}

fn parse_size(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(size) if (crate::board::MIN_SIZE..=crate::board::MAX_SIZE).contains(&size) => Ok(size),
        _ => Err(format!(
            "'{text}' is not a board size: use {} to {}",
            crate::board::MIN_SIZE,
            crate::board::MAX_SIZE
        )),
    }
}

fn parse_millis(text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("'{text}' is not a time: give whole milliseconds, e.g. 1000"))
}

fn parse_depth(text: &str) -> Result<u32, String> {
    match text.parse() {
        Ok(depth) if (1..=search::MAX_DEPTH).contains(&depth) => Ok(depth),
        _ => Err(format!(
            "'{text}' is not a depth: use 1 to {}",
            search::MAX_DEPTH
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("pbrain-lianzhu").chain(line.split_whitespace()))
    }

    fn error(line: &str) -> (ErrorKind, String) {
        let error = parse(line).unwrap_err();
        (error.kind(), error.render().to_string())
    }

    #[test]
    fn the_declaration_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_subcommand_is_the_protocol() {
        assert!(parse("").unwrap().command.is_none());
    }

    #[test]
    fn analyze_options_parse() {
        let Some(Command::Analyze(args)) =
            parse("analyze --rule 4 --size 20 --depth 3 --json h8 i9")
                .unwrap()
                .command
        else {
            panic!("not analyze");
        };
        assert_eq!(args.game.rule, Rule::Renju);
        assert_eq!(args.game.size, 20);
        assert_eq!(args.depth, Some(3));
        assert!(args.json && !args.order);
        assert_eq!(args.position, ["h8", "i9"]);
    }

    #[test]
    fn help_and_version_answer_for_the_binary_and_each_subcommand() {
        assert_eq!(error("--help").0, ErrorKind::DisplayHelp);
        assert_eq!(error("-h").0, ErrorKind::DisplayHelp);
        assert_eq!(error("--version").0, ErrorKind::DisplayVersion);
        assert_eq!(error("bench --version").0, ErrorKind::DisplayVersion);
        for subcommand in ["analyze", "play", "bench", "tune", "selfplay", "train"] {
            let (kind, text) = error(&format!("{subcommand} --help"));
            assert_eq!(kind, ErrorKind::DisplayHelp, "{subcommand}");
            assert!(
                text.contains(&format!("pbrain-lianzhu {subcommand}")),
                "{text}"
            );
        }
        let (kind, text) = error("help play");
        assert_eq!(kind, ErrorKind::DisplayHelp);
        assert!(text.contains("--white"), "{text}");
    }

    #[test]
    fn what_a_subcommand_does_not_take_is_refused_with_its_usage() {
        let (kind, text) = error("play --json");
        assert_eq!(kind, ErrorKind::UnknownArgument);
        assert!(text.contains("Usage: pbrain-lianzhu play"), "{text}");
        assert_eq!(error("play --depth 3").0, ErrorKind::UnknownArgument);
        assert_eq!(error("play h8").0, ErrorKind::UnknownArgument);
        assert_eq!(
            error("analyze --time 10 --depth 3").0,
            ErrorKind::ArgumentConflict
        );
        assert_eq!(
            error("tune --labels --ordering a.sgf").0,
            ErrorKind::ArgumentConflict
        );
        assert_eq!(error("tune").0, ErrorKind::MissingRequiredArgument);
        assert_eq!(
            error("train --out n --hold-out 5 --validate-on v.txt t.txt").0,
            ErrorKind::ArgumentConflict
        );
        assert_eq!(error("frobnicate").0, ErrorKind::InvalidSubcommand);
        let (kind, text) = error("--classical bench");
        assert_eq!(kind, ErrorKind::ArgumentConflict);
        assert!(text.contains("--classical"), "{text}");
        let Some(Command::Bench(args)) = parse("bench --classical").unwrap().command else {
            panic!("not bench");
        };
        assert!(args.evaluation.classical);
        assert!(parse("--classical").unwrap().evaluation.classical);
    }

    #[test]
    fn bad_values_are_named_in_plain_words() {
        let (kind, text) = error("analyze --time abc");
        assert_eq!(kind, ErrorKind::ValueValidation);
        assert!(
            text.contains("'abc' is not a time") && text.contains("--time"),
            "{text}"
        );
        let (_, text) = error("analyze --rule 5");
        assert!(text.contains("use 0 (freestyle)"), "{text}");
        let (_, text) = error("analyze --size 40");
        assert!(text.contains("5 to 32"), "{text}");
        let (_, text) = error("bench --depth");
        assert!(text.contains("Usage: pbrain-lianzhu bench"), "{text}");
        let (_, text) = error("bench x");
        assert!(text.contains("'x' is not a depth"), "{text}");
    }

    #[test]
    fn every_usage_error_shows_the_usage_of_its_subcommand() {
        let text = usage_error_text(&parse("analyze --time abc").unwrap_err(), Some("analyze"));
        assert!(text.starts_with("error: invalid value 'abc'"), "{text}");
        assert!(
            text.contains("Usage: pbrain-lianzhu analyze [OPTIONS]"),
            "{text}"
        );
        let text = usage_error_text(&parse("play --json").unwrap_err(), Some("play"));
        assert_eq!(text.matches("Usage:").count(), 1, "{text}");
    }

    #[test]
    fn tune_modes_are_exclusive_flags() {
        let mode = |line: &str| match parse(line).unwrap().command {
            Some(Command::Tune(args)) => args.mode(),
            _ => panic!("not tune"),
        };
        assert_eq!(mode("tune a.sgf b.sgf"), TuneMode::Results);
        assert_eq!(mode("tune --initiative a.sgf"), TuneMode::Initiative);
        assert_eq!(mode("tune --threats a.sgf"), TuneMode::Threats);
        assert_eq!(mode("tune --labels l.txt"), TuneMode::Labels);
        assert_eq!(mode("tune --ordering a.sgf"), TuneMode::Ordering);
    }

    #[test]
    fn tune_takes_a_side_and_a_scale_for_fits_of_results_only() {
        let Some(Command::Tune(args)) = parse("tune --threats --to-move white --scale 780 a.sgf")
            .unwrap()
            .command
        else {
            panic!("not tune");
        };
        assert_eq!(
            (args.to_move, args.scale),
            (Some(SideArg::White), Some(780.0))
        );
        assert_eq!(
            error("tune --to-move green a.sgf").0,
            ErrorKind::InvalidValue
        );
        assert_eq!(error("tune --scale 5 a.sgf").0, ErrorKind::ValueValidation);
        assert_eq!(
            error("tune --labels --to-move black l.txt").0,
            ErrorKind::ArgumentConflict
        );
    }
}

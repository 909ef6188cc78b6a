//! `pbrain-lianzhu`: with no subcommand, the Gomocup protocol on stdin/stdout; the
//! subcommands (`analyze`, `play`, `bench`, `tune`) are declared in [`lianzhu::cli`].
//! Usage errors exit with status 2 (a bad position given to `analyze` is one), other
//! failures with 1.

use anyhow::Context;
use clap::Parser;
use lianzhu::board::Color;
use lianzhu::cli::{
    self, AnalyzeArgs, BenchArgs, Cli, Command, PlayArgs, SelfplayArgs, TrainArgs, TuneArgs,
    TuneMode,
};
use lianzhu::progress::Progress;
use lianzhu::{analyze, bench, eval, move_values, net, play, protocol, selfplay, sgf, train, tune};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::exit;
use std::time::Duration;

const USAGE_ERROR: i32 = 2;
const FAILURE: i32 = 1;

fn main() {
    lianzhu::logging::init();
    let args: Vec<_> = std::env::args_os().collect();
    // Known before parsing, so that even a usage error of `analyze --json` comes as JSON.
    let json = args.get(1).is_some_and(|a| a == "analyze") && args.iter().any(|a| a == "--json");
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) if json && error.use_stderr() => {
            let text = error.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            say_json_error(first.trim_start_matches("error: "));
            exit(USAGE_ERROR)
        }
        Err(error) if error.use_stderr() => {
            let subcommand = args.get(1).and_then(|a| a.to_str());
            eprint!("{}", cli::usage_error_text(&error, subcommand));
            exit(USAGE_ERROR)
        }
        Err(help_or_version) => help_or_version.exit(),
    };
    let (result, code) = match cli.command {
        None => (run_protocol(&cli.evaluation), FAILURE),
        Some(Command::Analyze(args)) => (run_analyze(&args), USAGE_ERROR),
        Some(Command::Play(args)) => (run_play(&args), FAILURE),
        Some(Command::Bench(args)) => (run_bench(&args), FAILURE),
        Some(Command::Tune(args)) => (run_tune(&args), FAILURE),
        Some(Command::Selfplay(args)) => (run_selfplay(&args), FAILURE),
        Some(Command::Train(args)) => (run_train(&args), FAILURE),
    };
    if let Err(error) = result {
        if json {
            say_json_error(&format!("{error:#}"));
        } else {
            eprintln!("error: {error:#}");
        }
        exit(code);
    }
}

fn run_protocol(evaluation: &cli::EvaluationArgs) -> anyhow::Result<()> {
    let networks = load_networks(evaluation)?;
    lianzhu::tables::prepare();
    let stdin = io::BufReader::new(io::stdin());
    protocol::run(stdin, io::stdout().lock(), networks)?;
    Ok(())
}

/// Writes one line of a subcommand's output. A reader that has gone away (`| head`)
/// ends the program quietly, as it does other command-line tools.
fn say(text: impl std::fmt::Display) {
    if let Err(error) = writeln!(io::stdout(), "{text}") {
        if error.kind() == io::ErrorKind::BrokenPipe {
            exit(0);
        }
        eprintln!("error: writing the output: {error}");
        exit(FAILURE);
    }
}

fn say_json_error(message: &str) {
    say(serde_json::json!({ "error": message }));
}

fn run_analyze(args: &AnalyzeArgs) -> anyhow::Result<()> {
    let answer = |position: &str| -> anyhow::Result<()> {
        let report = analyze::run(args, position)?;
        if args.json {
            say(report.to_json());
        } else {
            say(report);
        }
        Ok(())
    };
    if !args.position.is_empty() {
        return answer(&args.position.join(" "));
    }
    // Ranking moves takes no time, so a script may send many positions, one a line.
    if args.order {
        for line in io::stdin().lines() {
            answer(&line.context("reading positions from stdin")?)?;
        }
        return Ok(());
    }
    answer(&io::read_to_string(io::stdin()).context("reading the position from stdin")?)
}

fn run_play(args: &PlayArgs) -> anyhow::Result<()> {
    let options = play::Options {
        rule: args.game.rule,
        size: args.game.size,
        think: Duration::from_millis(args.time),
        human_white: args.white,
        networks: load_networks(&args.evaluation)?,
    };
    play::run(&options, io::stdin().lock(), &mut io::stdout())?;
    Ok(())
}

fn run_bench(args: &BenchArgs) -> anyhow::Result<()> {
    let networks = load_networks(&args.evaluation)?;
    let result = bench::run(args.depth, &networks, |index, p| {
        let pv: Vec<String> = p.pv.iter().map(|m| m.to_string()).collect();
        eprintln!(
            "position {}: depth {} score {} nodes {} pv {}",
            index + 1,
            p.depth,
            p.score,
            p.nodes,
            pv.join(" ")
        );
    });
    say(format!(
        "Bench: {} nodes {} nps",
        result.nodes,
        result.nodes_per_second()
    ));
    Ok(())
}

fn run_selfplay(args: &SelfplayArgs) -> anyhow::Result<()> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let openings = match &args.openings {
        Some(path) => selfplay::read_openings(&read_text(path)?)
            .with_context(|| path.display().to_string())?,
        None => Vec::new(),
    };
    let options = selfplay::Options {
        rule: args.game.rule,
        size: args.game.size,
        games: args.games,
        nodes: args.nodes,
        max_opening: args.max_opening as usize,
        max_plies: args.game.size * args.game.size,
        seed: args.seed,
        threads,
        openings,
        balanced_within: args.balanced_within.map(|units| units as i32),
        networks: load_networks(&args.evaluation)?,
    };
    let file = std::fs::File::create(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut out = io::BufWriter::new(file);
    let progress = Progress::new("selfplay", args.games as u64);
    let started = std::time::Instant::now();
    // Each game goes out whole as it ends (a game takes seconds), so a run stopped
    // early leaves a file of whole games that `train` reads.
    let written = |line: &str| {
        writeln!(out, "{line}")?;
        out.flush()
    };
    let positions = selfplay::run(&options, written, &|| progress.step())
        .with_context(|| format!("selfplay to {}", args.out.display()))?;
    (out.flush()).with_context(|| format!("writing {}", args.out.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    progress.finish(&format!(
        "{positions} positions, {:.0} positions/s on {threads} thread{}, to {}",
        positions as f64 / seconds.max(1e-9),
        if threads == 1 { "" } else { "s" },
        args.out.display()
    ));
    Ok(())
}

fn load_networks(args: &cli::EvaluationArgs) -> anyhow::Result<Vec<std::sync::Arc<net::Network>>> {
    net::builtin::chosen(args.classical, &args.networks)
}

/// The games of self-play files, in order.
fn read_selfplay_files(files: &[std::path::PathBuf]) -> anyhow::Result<Vec<selfplay::Game>> {
    let mut games = Vec::new();
    for file in files {
        let text = read_text(file)?;
        games.extend(selfplay::read_games(&text).with_context(|| file.display().to_string())?);
    }
    Ok(games)
}

fn run_train(args: &TrainArgs) -> anyhow::Result<()> {
    if let Some(rule) = args.control {
        net::file::save(&net::Network::control(rule), &args.out)?;
        eprintln!(
            "wrote the control network for {rule:?} to {}",
            args.out.display()
        );
        return Ok(());
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let games = read_selfplay_files(&args.files)?;
    let hold_out = if args.validate_on.is_empty() {
        train::HoldOut::EveryNth(args.hold_out as usize)
    } else {
        train::HoldOut::Games(read_selfplay_files(&args.validate_on)?)
    };
    let start = match &args.start {
        Some(path) => Some(net::file::load(path)?),
        None => None,
    };
    let options = train::Options {
        epochs: args.epochs as usize,
        rate: args.rate,
        decay: args.decay,
        correction_scale: args.correction_scale,
        result_weight: args.result_weight,
        next_weight: args.next_weight,
        hold_out,
        seed: args.seed,
        threads,
        start,
        codebooks: if args.codebook_per_colour { 2 } else { 1 },
        classical_units: args.classical_units,
    };
    let started = std::time::Instant::now();
    let mut on_epoch = |epoch: &train::Epoch| {
        eprintln!(
            "epoch {}: training loss {:.4}, validation loss {:.4}, result error {:.4} ({:.0} s)",
            epoch.number,
            epoch.training_loss,
            epoch.validation.loss,
            epoch.validation.result_error,
            epoch.seconds
        )
    };
    let trained = train::run(&games, &options, &mut on_epoch)?;
    let (_, held_out) = options.hold_out.split(&games)?;
    let network = std::sync::Arc::new(trained.network.clone());
    eprintln!(
        "one-ply agreement with the moves played, held-out games: network {:.1} %, classical {:.1} %",
        100.0 * train::one_ply_agreement(&held_out, &mut train::NetworkScorer::new(network))?,
        100.0 * train::one_ply_agreement(&held_out, &mut train::Classical)?
    );
    net::file::save(&trained.network, &args.out)?;
    eprintln!(
        "{} games: {} training samples, {} held out; scale {:.1} units per logit fitted, {:.1} \
         written; classical evaluation on the held-out samples: loss {:.4}, result error {:.4} (at scale {:.1}); \
         {:.0} s on {threads} thread{}; wrote {} ({})",
        games.len(),
        trained.training_samples,
        trained.validation_samples,
        trained.scale,
        trained.network.scale,
        trained.classical.loss,
        trained.classical.result_error,
        trained.classical_scale,
        started.elapsed().as_secs_f64(),
        if threads == 1 { "" } else { "s" },
        args.out.display(),
        trained.network.scope()
    );
    Ok(())
}

fn read_text(file: &PathBuf) -> anyhow::Result<String> {
    std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))
}

fn read_games(files: &[PathBuf]) -> anyhow::Result<Vec<sgf::Game>> {
    let mut games = Vec::new();
    for file in files {
        games.extend(
            sgf::read_games(&read_text(file)?).with_context(|| file.display().to_string())?,
        );
    }
    Ok(games)
}

fn run_tune(args: &TuneArgs) -> anyhow::Result<()> {
    match args.mode() {
        TuneMode::Results => run_tune_results(args, tune::Scope::All),
        TuneMode::Initiative => run_tune_results(args, tune::Scope::Initiative),
        TuneMode::Threats => run_tune_results(args, tune::Scope::Threats),
        TuneMode::Labels => run_tune_labels(&args.files),
        TuneMode::Ordering => run_tune_ordering(&read_choices(&args.files)?),
    }
}

/// Fits the evaluation weights with a progress bar, and says how the loss moved.
fn fit_with_progress(
    samples: &[tune::Sample],
    scope: tune::Scope,
    scale: Option<f64>,
) -> tune::Fit {
    let progress = Progress::new("fitting the evaluation", tune::ITERATIONS as u64);
    let fitted = tune::fit(samples, &eval::WEIGHTS, scope, scale, &mut || {
        progress.step()
    });
    progress.finish(&format!(
        "{} positions, loss {:.6} -> {:.6}",
        samples.len(),
        fitted.loss_before,
        fitted.loss_after
    ));
    fitted
}

fn run_tune_results(args: &TuneArgs, scope: tune::Scope) -> anyhow::Result<()> {
    let games = read_games(&args.files)?;
    let to_move = args.to_move.map(Color::from);
    let (held_out_games, fitted_games): (Vec<_>, Vec<_>) =
        games.into_iter().partition(tune::Game::held_out);
    let quiet_positions = |games: &[tune::Game]| -> Vec<tune::Sample> {
        games
            .iter()
            .flat_map(tune::samples)
            .filter(|s| to_move.is_none_or(|side| s.to_move == side))
            .collect()
    };
    let samples = quiet_positions(&fitted_games);
    let held_out = quiet_positions(&held_out_games);
    anyhow::ensure!(!samples.is_empty(), "no quiet positions in the games");
    let fitted = fit_with_progress(&samples, scope, args.scale);
    say(format!(
        "samples {} fitted, {} held out",
        samples.len(),
        held_out.len()
    ));
    say(format!("scale {:.0}", fitted.scale));
    say(format!(
        "loss before {:.6} after {:.6}; held out: before {:.6} after {:.6}",
        fitted.loss_before,
        fitted.loss_after,
        tune::fit_loss(&held_out, &eval::WEIGHTS),
        tune::fit_loss(&held_out, &fitted.weights)
    ));
    say(tune::format_weights(&fitted.weights));
    Ok(())
}

/// Fits every weight to a judge's scores on four games in five, and reports the loss on
/// the fifth against the judge and against the games' results.
fn run_tune_labels(files: &[PathBuf]) -> anyhow::Result<()> {
    use tune::labels;
    let mut all = Vec::new();
    for file in files {
        let text = read_text(file)?;
        all.extend(labels::read_labels(&text).with_context(|| file.display().to_string())?);
    }
    let judge_scale = labels::judge_scale(&all);
    let (held_out, fitted_on): (Vec<_>, Vec<_>) = all.into_iter().partition(|l| l.held_out());
    let samples = labels::samples(&fitted_on, judge_scale);
    anyhow::ensure!(!samples.is_empty(), "no quiet labelled positions");
    let (held_out_judge, held_out_results) = (
        labels::samples(&held_out, judge_scale),
        labels::result_samples(&held_out),
    );
    let fitted = fit_with_progress(&samples, tune::Scope::All, None);
    say(format!(
        "samples {} fitted, {} held out",
        samples.len(),
        held_out_judge.len()
    ));
    say(format!(
        "judge scale {judge_scale:.0}, our scale {:.0}",
        fitted.scale
    ));
    say(format!(
        "loss against the judge: before {:.6} after {:.6}",
        fitted.loss_before, fitted.loss_after
    ));
    let report = |name: &str, samples: &[tune::Sample]| {
        say(format!(
            "held out, loss against {name}: before {:.6} after {:.6}",
            tune::fit_loss(samples, &eval::WEIGHTS),
            tune::fit_loss(samples, &fitted.weights)
        ))
    };
    report("the judge", &held_out_judge);
    report("the games' results", &held_out_results);
    say(tune::format_weights(&fitted.weights));
    Ok(())
}

/// Fits on four games in five and reports the accuracy on the fifth, held out.
/// The move-ordering choices of every game of `files`, game by game: SGF collections
/// or self-play files (`selfplay`), told apart by their first character.
fn read_choices(files: &[PathBuf]) -> anyhow::Result<Vec<Vec<tune::ordering::Choice>>> {
    use tune::ordering;
    let mut games = Vec::new();
    for file in files {
        let text = read_text(file)?;
        if text.trim_start().starts_with('(') {
            let records = sgf::read_games(&text).with_context(|| file.display().to_string())?;
            games.extend(records.iter().map(ordering::choices));
        } else {
            let played = selfplay::read_games(&text).with_context(|| file.display().to_string())?;
            games.extend(played.iter().map(ordering::self_play_choices));
        }
    }
    Ok(games)
}

fn run_tune_ordering(games: &[Vec<tune::ordering::Choice>]) -> anyhow::Result<()> {
    use tune::ordering;
    let (mut fitted_on, mut held_out) = (Vec::new(), Vec::new());
    for (i, choices) in games.iter().enumerate() {
        let set = if i % 5 == 4 {
            &mut held_out
        } else {
            &mut fitted_on
        };
        set.extend_from_slice(choices);
    }
    anyhow::ensure!(
        !fitted_on.is_empty(),
        "no position in the games leaves a choice"
    );
    say(format!(
        "choices {} fitted, {} held out",
        fitted_on.len(),
        held_out.len()
    ));
    let current = &move_values::ORDER_WEIGHTS;
    say(format!(
        "held out, current: {}",
        ordering::accuracy(&held_out, current)
    ));
    let progress = Progress::new("fitting the move ordering", tune::ITERATIONS as u64);
    let fit = ordering::fit(&fitted_on, &mut || progress.step());
    progress.finish(&format!(
        "{} choices, loss {:.4} -> {:.4}",
        fitted_on.len(),
        fit.loss_before,
        fit.loss_after
    ));
    say(format!(
        "held out, fitted:  {}",
        ordering::accuracy(&held_out, &fit.weights)
    ));
    say(format!(
        "loss before {:.4} after {:.4}",
        fit.loss_before, fit.loss_after
    ));
    say(ordering::format_weights(&fit.weights));
    Ok(())
}

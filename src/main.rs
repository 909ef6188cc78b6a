//! `pbrain-lianzhu`: with no arguments, the Gomocup protocol on stdin/stdout.
//! `pbrain-lianzhu bench [DEPTH]`: the fixed-depth benchmark.
//! `pbrain-lianzhu analyze [OPTIONS] [POSITION]`: search one position and print the result.
//! `pbrain-lianzhu play [--rule R] [--size N] [--time MS] [--white]`: a game in the terminal.
//! `pbrain-lianzhu tune GAMES.sgf...`: evaluation weights fitted to the results of four
//! games in five, with the loss on the fifth, held out.
//! `pbrain-lianzhu tune --initiative GAMES.sgf...`: only the tempo and the initiative
//! table fitted, the threat weights kept.
//! `pbrain-lianzhu tune --labels LABELS...`: evaluation weights fitted to a stronger
//! engine's scores of positions (see scripts/label_positions.py).
//! `pbrain-lianzhu tune --ordering GAMES.sgf...`: move-ordering weights fitted to the moves
//! played (give it games of a strong engine).

use anyhow::Context;
use lianzhu::{analyze, bench, eval, play, protocol, tune};
use std::io::{self, Write};

fn main() {
    lianzhu::logging::init();
    if let Err(error) = run() {
        eprintln!("error: {error:#}");
        std::process::exit(2);
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            protocol::driver::prepare_tables();
            let stdin = io::BufReader::new(io::stdin());
            protocol::driver::run(stdin, io::stdout().lock())?;
            Ok(())
        }
        Some("bench") => run_bench(args.get(1)),
        Some("analyze") => run_analyze(&args[1..]),
        Some("play") => run_play(&args[1..]),
        Some("tune") => run_tune(&args[1..]),
        Some(other) => anyhow::bail!(
            "unknown subcommand '{other}'; run with no arguments for the protocol, \
             'bench [DEPTH]', 'analyze [OPTIONS] [POSITION]', 'play [OPTIONS]', 'tune [--ordering | --initiative] GAMES.sgf...' or 'tune --labels LABELS...'"
        ),
    }
}

/// Writes one line of a subcommand's output. A reader that has gone away (`| head`)
/// ends the program quietly, as it does other command-line tools.
fn say(text: impl std::fmt::Display) {
    if let Err(error) = writeln!(io::stdout(), "{text}") {
        if error.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing the output: {error}");
        std::process::exit(2);
    }
}

fn run_analyze(args: &[String]) -> anyhow::Result<()> {
    let request = analyze::parse_args(args)?;
    // Ranking moves takes no time, so a script may send many positions, one a line.
    if request.order && request.position.is_none() {
        for line in io::stdin().lines() {
            let line = line.context("reading positions from stdin")?;
            say(analyze::run(&request, &line)?);
        }
        return Ok(());
    }
    let position = match &request.position {
        Some(position) => position.clone(),
        None => io::read_to_string(io::stdin()).context("reading the position from stdin")?,
    };
    say(analyze::run(&request, &position)?);
    Ok(())
}

fn run_play(args: &[String]) -> anyhow::Result<()> {
    // The analysis options (--rule, --size, --time) mean the same here; --white too.
    let white = args.iter().any(|a| a == "--white");
    let rest: Vec<String> = args.iter().filter(|a| *a != "--white").cloned().collect();
    let request = analyze::parse_args(&rest)?;
    anyhow::ensure!(request.position.is_none(), "play takes no position");
    let options = play::Options {
        rule: request.rule,
        size: request.size,
        think: request.time.unwrap_or(std::time::Duration::from_secs(2)),
        human_white: white,
    };
    play::run(&options, io::stdin().lock(), &mut io::stdout())?;
    Ok(())
}

fn read_games(files: &[String]) -> anyhow::Result<Vec<tune::Game>> {
    anyhow::ensure!(!files.is_empty(), "tune needs SGF files of finished games");
    let mut games = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
        games.extend(tune::read_games(&text).with_context(|| file.clone())?);
    }
    Ok(games)
}

fn run_tune(args: &[String]) -> anyhow::Result<()> {
    match args.first().map(String::as_str) {
        Some("--ordering") => return run_tune_ordering(&read_games(&args[1..])?),
        Some("--labels") => return run_tune_labels(&args[1..]),
        _ => {}
    }
    let (scope, files) = match args.first().map(String::as_str) {
        Some("--initiative") => (tune::Scope::Initiative, &args[1..]),
        _ => (tune::Scope::All, args),
    };
    let (held_out_games, fitted_games): (Vec<_>, Vec<_>) = read_games(files)?
        .into_iter()
        .partition(tune::Game::held_out);
    let quiet_positions = |games: &[tune::Game]| -> Vec<tune::Sample> {
        games.iter().flat_map(tune::samples).collect()
    };
    let samples = quiet_positions(&fitted_games);
    let held_out = quiet_positions(&held_out_games);
    anyhow::ensure!(!samples.is_empty(), "no quiet positions in the games");
    let fitted = tune::fit(&samples, &eval::WEIGHTS, scope);
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
fn run_tune_labels(files: &[String]) -> anyhow::Result<()> {
    use tune::labels;
    anyhow::ensure!(
        !files.is_empty(),
        "tune --labels needs files of labelled positions"
    );
    let mut all = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).with_context(|| file.clone())?;
        all.extend(labels::read_labels(&text).with_context(|| file.clone())?);
    }
    let judge_scale = labels::judge_scale(&all);
    let (held_out, fitted_on): (Vec<_>, Vec<_>) = all.into_iter().partition(|l| l.held_out());
    let samples = labels::samples(&fitted_on, judge_scale);
    anyhow::ensure!(!samples.is_empty(), "no quiet labelled positions");
    let (held_out_judge, held_out_results) = (
        labels::samples(&held_out, judge_scale),
        labels::result_samples(&held_out),
    );
    let fitted = tune::fit(&samples, &eval::WEIGHTS, tune::Scope::All);
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
fn run_tune_ordering(games: &[tune::Game]) -> anyhow::Result<()> {
    use tune::ordering;
    let (mut fitted_on, mut held_out) = (Vec::new(), Vec::new());
    for (i, game) in games.iter().enumerate() {
        let set = if i % 5 == 4 {
            &mut held_out
        } else {
            &mut fitted_on
        };
        set.extend(ordering::choices(game));
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
    let current = &eval::ORDER_WEIGHTS;
    say(format!(
        "held out, current: {}",
        ordering::accuracy(&held_out, current)
    ));
    let fit = ordering::fit(&fitted_on);
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

fn run_bench(depth: Option<&String>) -> anyhow::Result<()> {
    let depth = match depth {
        Some(text) => text
            .parse()
            .with_context(|| format!("bench depth '{text}' is not a number"))?,
        None => bench::DEFAULT_DEPTH,
    };
    let result = bench::run(depth, |index, p| {
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

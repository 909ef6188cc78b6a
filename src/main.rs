//! `pbrain-lianzhu`: with no arguments, the Gomocup protocol on stdin/stdout.
//! `pbrain-lianzhu bench [DEPTH]`: the fixed-depth benchmark.

use anyhow::Context;
use lianzhu::{bench, protocol};
use std::io;

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            protocol::driver::prepare_tables();
            let stdin = io::BufReader::new(io::stdin());
            protocol::driver::run(stdin, io::stdout().lock())?;
            Ok(())
        }
        Some("bench") => run_bench(args.get(1)),
        Some(other) => anyhow::bail!(
            "unknown subcommand '{other}'; run with no arguments for the protocol, or 'bench [DEPTH]'"
        ),
    }
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
    println!(
        "Bench: {} nodes {} nps",
        result.nodes,
        result.nodes_per_second()
    );
    Ok(())
}

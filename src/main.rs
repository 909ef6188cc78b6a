//! `pbrain-lianzhu`: with no arguments, the Gomocup protocol on stdin/stdout.

use std::io;

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            let stdin = io::BufReader::new(io::stdin());
            lianzhu::protocol::driver::run(stdin, io::stdout().lock())?;
            Ok(())
        }
        Some(other) => {
            anyhow::bail!("unknown subcommand '{other}'; run with no arguments for the protocol")
        }
    }
}

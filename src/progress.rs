//! Progress of long commands on stderr: a bar when stderr is a terminal (with
//! `indicatif`, which redraws in place and hides itself otherwise), and one summary line
//! when the work is done whatever stderr is, so a log or a script sees the figures too.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

pub struct Progress {
    bar: ProgressBar,
    what: String,
    started: Instant,
}

impl Progress {
    /// A bar for `total` steps of `what` (e.g. "fitting the weights").
    pub fn new(what: &str, total: u64) -> Progress {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} {elapsed} (eta {eta})")
                .expect("a fixed template")
                .progress_chars("=> "),
        );
        bar.set_message(what.to_string());
        Progress {
            bar,
            what: what.to_string(),
            started: Instant::now(),
        }
    }

    pub fn step(&self) {
        self.bar.inc(1);
    }

    /// Clears the bar and writes `what: N steps in S s` and `summary` as one line.
    pub fn finish(self, summary: &str) {
        self.bar.finish_and_clear();
        eprintln!(
            "{}: {} steps in {:.1} s{}{summary}",
            self.what,
            self.bar.position(),
            self.started.elapsed().as_secs_f64(),
            if summary.is_empty() { "" } else { "; " }
        );
    }
}

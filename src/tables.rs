//! The tables built once per process: the line-pattern tables of every rule and the
//! move-ordering values. The protocol starts building them at launch and START waits
//! for the rest, because START is the one command whose time managers do not count.

use crate::rules::Rule;
use std::thread;

/// Starts building every table on a background thread.
pub fn prepare() {
    thread::spawn(build);
}

/// Builds every table not built yet; a call while another thread builds them waits for
/// it.
pub fn build() {
    for rule in [Rule::Freestyle, Rule::Renju, Rule::Standard, Rule::Caro] {
        rule.pattern_pairs();
    }
    crate::move_values::build_tables();
}

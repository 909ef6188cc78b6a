//! Lianzhu (连珠): a Gomoku and Renju engine for the Gomocup protocol.
//!
//! The binary `pbrain-lianzhu` is a thin shell around [`protocol::run`] and [`cli`]; everything a
//! test or a subcommand needs is reachable from here.

pub mod adam;
pub mod analyze;
pub mod bench;
pub mod board;
pub mod cli;
pub mod database;
pub mod eval;
pub mod features;
pub mod logging;
pub mod move_values;
pub mod net;
pub mod opening;
pub mod play;
pub mod progress;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod selfplay;
pub mod sgf;
pub mod tables;
pub mod time;
pub mod train;
pub mod tune;

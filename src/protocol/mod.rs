//! The Gomocup protocol: [`parse`] turns lines into commands, [`session`] owns the game
//! and answers, [`setup`] builds BOARD and SWAP2BOARD positions, [`task`] is the work
//! handed to the worker thread, [`database`] answers the position-database commands,
//! and [`io`] wires it all to stdin and stdout. None of
//! them knows how the search works; they meet it through tasks, a reporter and a stop
//! flag.

pub mod database;
pub mod io;
pub mod parse;
pub mod session;
pub mod setup;
pub mod task;

#[cfg(test)]
mod fuzz;

pub use io::{progress_line, run};

//! The Gomocup protocol: [`parse`] turns lines into commands, [`driver`] owns the game and
//! answers. Neither knows how the search works; they meet it through tasks, a reporter
//! and a stop flag.

pub mod driver;
pub mod parse;

//! The learned evaluation: a pattern-codebook network (`docs/learned-eval.md`).
//!
//! Every empty point is described, for each colour's view, by the [`crate::features::line_feature`]
//! classes of its four lines; a codebook (one shared by both colours' views, or one
//! per colour) maps each class to a vector of [`DIM`] numbers, and the point's vector
//! is the sum of its four rows, clipped to `[0, 1]`.
//! The clipped vectors are summed over the board, per view, and a small dense head
//! (one hidden layer of [`HIDDEN`] rectifiers) turns the two sums, the side to move's
//! first, and whether Black is to move into a win logit. A stone changes the classes of
//! the points on its four lines only, so the engine keeps the sums up to date as stones
//! come and go ([`Accumulator`]); the codebook is 16-bit integers, the sums 32-bit.
//!
//! The trainer (`crate::train`) fits the same network in floating point and writes it
//! in the format of [`mod@file`], quantised as the engine reads it.

mod accumulator;
pub mod builtin;
pub mod file;
mod network;

pub use accumulator::Accumulator;
pub use network::*;

#[cfg(test)]
pub mod testing;
#[cfg(test)]
mod tests;

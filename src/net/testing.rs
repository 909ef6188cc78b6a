//! Networks for tests, here and in the search's.

use super::*;
use crate::board::Rule;
use crate::features::FEATURES;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// A network of random weights, codebook entries of both signs so that points cross
/// both ends of the clipped range.
pub fn random_network(rule: Rule, seed: u64) -> Network {
    random_network_with(rule, seed, 1)
}

/// [`random_network`] with `codebooks` codebooks: 1 shared, 2 one per colour.
pub fn random_network_with(rule: Rule, seed: u64, codebooks: usize) -> Network {
    let mut rng = StdRng::seed_from_u64(seed);
    let codebook: Vec<f32> = (0..codebooks * FEATURES * DIM)
        .map(|_| rng.random_range(-0.6..0.9))
        .collect();
    let mut uniform = |n| {
        (0..n)
            .map(|_| rng.random_range(-0.5f32..0.5))
            .collect::<Vec<_>>()
    };
    let head = Head {
        hidden_weights: uniform(HIDDEN * INPUTS),
        hidden_bias: uniform(HIDDEN),
        output_weights: uniform(HIDDEN),
        output_bias: 0.25,
        classical_weight: 0.4,
    };
    Network::quantised(rule, 300.0, &codebook, head)
}

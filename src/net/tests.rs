use super::testing::random_network;
use super::*;
use crate::board::{Board, Pos, Rule};
use crate::rules;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

fn random_legal_move(board: &mut Board, rng: &mut StdRng) -> Option<Pos> {
    let me = board.to_move();
    let moves: Vec<Pos> = board.empty_points().collect::<Vec<_>>();
    let legal: Vec<Pos> = moves
        .into_iter()
        .filter(|&p| rules::is_legal(board, p, me))
        .collect();
    (!legal.is_empty()).then(|| legal[rng.random_range(0..legal.len())])
}

#[test]
fn incremental_sums_equal_recomputed_ones_through_moves_and_takebacks() {
    for (rule, size, seed) in [
        (Rule::Freestyle, 15, 1),
        (Rule::Renju, 15, 2),
        (Rule::Caro, 9, 3),
    ] {
        let net = Arc::new(random_network(rule, seed));
        let mut rng = StdRng::seed_from_u64(seed);
        let mut board = Board::new(size, size, rule);
        let mut accumulator = Accumulator::new(net.clone(), &board);
        let mut scores = std::collections::HashSet::new();
        for _ in 0..600 {
            let take_back = board.stone_count() > 0
                && (rng.random_range(0..3) == 0 || rules::winner(&board).is_some());
            if take_back {
                let last = board.undo().expect("a stone to take back");
                accumulator.lifted(&board, last.pos);
            } else if let Some(pos) = random_legal_move(&mut board, &mut rng) {
                board.play(pos);
                accumulator.placed(pos);
            }
            // Scored now and then, so that several moves wait at times.
            if rng.random_range(0..3) == 0 {
                let mut fresh = Accumulator::new(net.clone(), &board);
                assert_eq!(
                    accumulator.totals(&board),
                    fresh.totals(&board),
                    "{rule:?}\n{board}"
                );
                let score = accumulator.evaluate(&board);
                assert_eq!(score, fresh.evaluate(&board));
                scores.insert(score);
            }
        }
        assert!(
            scores.len() > 50,
            "{rule:?}: the score hardly moves: {scores:?}"
        );
    }
}

#[test]
fn a_network_survives_its_file_and_every_damage_is_refused() {
    let net = random_network(Rule::Renju, 7);
    let bytes = file::to_bytes(&net);
    assert_eq!(file::from_bytes(&bytes).expect("its own file"), net);
    let refusal = |bytes: &[u8]| format!("{:#}", file::from_bytes(bytes).expect_err("damaged"));
    for len in [0, 3, 7, 20, 30, bytes.len() / 2, bytes.len() - 1] {
        let message = refusal(&bytes[..len]);
        assert!(
            message.contains("truncated") || message.contains("magic"),
            "{len}: {message}"
        );
    }
    let mut flipped = bytes.clone();
    flipped[1000] ^= 0x10;
    assert!(refusal(&flipped).contains("checksum"));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(refusal(&longer).contains("bytes"));
    let mut version = bytes.clone();
    version[4] = 9;
    assert!(refusal(&version).contains("version 9"));
    let mut shape = bytes.clone();
    shape[10] = 7;
    assert!(refusal(&shape).contains("codebook width 7"));
    assert!(refusal(b"PK\x03\x04 a zip file").contains("magic"));
}

#[test]
fn the_control_network_scores_as_the_classical_evaluation() {
    let mut board = Board::new(15, 15, Rule::Freestyle);
    let mut accumulator = Accumulator::new(Arc::new(Network::control(Rule::Freestyle)), &board);
    let mut rng = StdRng::seed_from_u64(11);
    let mut scores = std::collections::HashSet::new();
    for _ in 0..40 {
        let pos = random_legal_move(&mut board, &mut rng).expect("room on the board");
        board.play(pos);
        accumulator.placed(pos);
        let classical = crate::eval::evaluate(&board);
        if classical.abs() < 8000 {
            assert_eq!(accumulator.evaluate(&board), classical, "\n{board}");
            scores.insert(classical);
        }
    }
    assert!(scores.len() > 10, "{scores:?}");
}

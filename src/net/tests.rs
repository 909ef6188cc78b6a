use super::testing::{random_network, random_network_with};
use super::*;
use crate::board::pattern::Threat;
use crate::board::testing::picture;
use crate::board::{Board, Color, Pos, Rule};
use crate::features::features;
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
    for (rule, size, seed, codebooks) in [
        (Rule::Freestyle, 15, 1, 1),
        (Rule::Renju, 15, 2, 1),
        (Rule::Caro, 9, 3, 1),
        (Rule::Renju, 15, 4, 2),
    ] {
        let net = Arc::new(random_network_with(rule, seed, codebooks));
        let mut rng = StdRng::seed_from_u64(seed);
        let mut board = Board::new(size, size, rule);
        let mut accumulator = Accumulator::new(net.clone(), &board);
        let mut scores = std::collections::HashSet::new();
        let mut fouls_seen = 0;
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
                assert!(
                    accumulator.empty_points(&board) == fresh.empty_points(&board),
                    "{rule:?}: a point's sums differ\n{board}"
                );
                let score = accumulator.evaluate(&board);
                assert_eq!(score, fresh.evaluate(&board));
                scores.insert(score);
                fouls_seen += (board.empty_points())
                    .filter(|&p| !counts(&board, p, Color::Black))
                    .count();
            }
        }
        assert!(
            scores.len() > 50,
            "{rule:?}: the score hardly moves: {scores:?}"
        );
        assert_eq!(fouls_seen > 0, rule == Rule::Renju, "{rule:?}");
    }
}

#[test]
fn a_renju_foul_counts_for_nothing_in_blacks_view() {
    let rows = [
        "", "", "", "", "......X", "......X", "......X", "...XXX", "", "O.O.O.O",
    ];
    let net = Arc::new(random_network(Rule::Renju, 5));
    let totals = |rule| {
        let board = picture(rule, &rows, Color::White);
        Accumulator::new(net.clone(), &board).totals(&board)
    };
    let renju = picture(Rule::Renju, &rows, Color::White);
    let fouls: Vec<Pos> = (renju.empty_points())
        .filter(|&p| renju.threat(p, Color::Black) == Threat::Forbidden)
        .collect();
    let double_four = Pos::new(6, 7);
    assert_eq!(fouls, [double_four]);
    let row_sum = |k: usize| -> i32 {
        let classes = (0..4).map(|d| features(renju.line_key(double_four, d))[0]);
        let sum: i32 = classes
            .map(|c| i32::from(net.rows(0)[usize::from(c)][k]))
            .sum();
        sum.clamp(0, ONE)
    };
    let (freestyle, renju) = (totals(Rule::Freestyle), totals(Rule::Renju));
    assert_eq!(freestyle[1], renju[1], "White's view");
    let left_out: Vec<i32> = (0..DIM).map(|k| freestyle[0][k] - renju[0][k]).collect();
    assert_eq!(left_out, (0..DIM).map(row_sum).collect::<Vec<_>>());
    assert!(left_out.iter().any(|&v| v > 0));
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
    let mut size = bytes.clone();
    size[7] = 4;
    assert!(refusal(&size).contains("board size 4"));
    let mut rows = bytes.clone();
    rows[8..10].copy_from_slice(&3u16.to_le_bytes());
    assert!(refusal(&rows).contains("3 codebook rows"));
    let per_colour = random_network_with(Rule::Renju, 8, 2);
    let read = file::from_bytes(&file::to_bytes(&per_colour)).expect("its own file");
    assert_eq!(read, per_colour);
}

#[test]
fn with_a_codebook_per_colour_each_view_reads_its_own_colour_s_rows() {
    let (black, white) = (
        random_network(Rule::Renju, 5),
        random_network(Rule::Renju, 6),
    );
    let both = Network {
        codebook: [&black.codebook[..], &white.codebook[..]].concat(),
        ..black.clone()
    };
    assert_eq!(both.rows(1), &white.codebook[..]);
    let board = picture(
        Rule::Renju,
        &["", "", "...XX.O", "....OX", "...O.X", "", "..X"],
        Color::White,
    );
    let totals = |net: &Network| Accumulator::new(Arc::new(net.clone()), &board).totals(&board);
    let (black_totals, white_totals, both_totals) = (totals(&black), totals(&white), totals(&both));
    assert_eq!(both_totals, [black_totals[0], white_totals[1]]);
    assert_ne!(black_totals[1], white_totals[1]);
}

#[test]
fn a_networks_board_size_survives_its_file_and_limits_what_it_scores() {
    let sized = Network {
        board_size: Some(20),
        ..random_network(Rule::Freestyle, 7)
    };
    let read = file::from_bytes(&file::to_bytes(&sized)).expect("its own file");
    assert_eq!(read.board_size, Some(20));
    assert!(read.fits(&Board::new(20, 20, Rule::Freestyle)));
    assert!(!read.fits(&Board::new(15, 15, Rule::Freestyle)));
    assert!(!read.fits(&Board::new(20, 15, Rule::Freestyle)));
    assert!(!read.fits(&Board::new(20, 20, Rule::Standard)));
    let any = random_network(Rule::Freestyle, 7);
    assert!(any.fits(&Board::new(15, 15, Rule::Freestyle)));
    assert!(any.fits(&Board::new(20, 15, Rule::Freestyle)));
}

/// Asserts that `net` scores positions of random games as the classical evaluation
/// does, wherever that lies inside the network's input.
fn assert_scores_as_classical(net: Network, seed: u64) {
    let mut board = Board::new(15, 15, net.rule);
    let mut accumulator = Accumulator::new(Arc::new(net), &board);
    let mut rng = StdRng::seed_from_u64(seed);
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

#[test]
fn the_control_network_scores_as_the_classical_evaluation() {
    assert_scores_as_classical(Network::control(Rule::Freestyle), 11);
}

#[test]
fn in_classical_units_a_network_without_a_correction_scores_as_the_classical_evaluation() {
    let mut net = random_network(Rule::Freestyle, 12);
    net.head.output_weights.fill(0.0);
    net.head.output_bias = 0.0;
    // At its own scale its scores are the classical ones times 0.12.
    assert_eq!(net.head.classical_weight * net.scale / CLASSICAL_UNIT, 0.12);
    let units = net
        .in_classical_units()
        .expect("a positive classical weight");
    assert_eq!(units.head, net.head);
    assert_scores_as_classical(units, 12);
    net.head.classical_weight = 0.0;
    assert!(net.in_classical_units().is_none());
}

use super::common::*;
use super::engine::Engine;
use super::ordering;
use super::params::*;
use super::smp::{Finished, elect};
use super::tt::TranspositionTable;
use super::worker::{Search, Shared, ThreadState};
use crate::board::pattern::Threat;
use crate::board::testing::{self, picture};
use crate::board::{Board, Color, Pos};
use crate::eval;
use crate::net::{Accumulator, Network, testing::random_network};
use crate::rules::Rule;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn best(board: &Board, depth: u32) -> ScoredMove {
    best_with_threads(board, depth, 1)
}

fn best_with_threads(board: &Board, depth: u32, threads: usize) -> ScoredMove {
    let limits = Limits {
        max_depth: Some(depth),
        ..Limits::default()
    };
    let mut engine = Engine::new(1 << 20);
    engine.set_threads(threads);
    engine.best_moves(board, 1, &limits, &AtomicBool::new(false), &mut Silent)[0]
}

#[test]
fn a_proof_has_a_length_unless_the_root_vct_found_it() {
    assert_eq!(proof(MATE - 3), Some(Proof::Win(Some(3))));
    assert_eq!(proof(-(MATE - 4)), Some(Proof::Loss(Some(4))));
    assert_eq!(proof(VCT_WIN), Some(Proof::Win(None)));
    assert_eq!(proof(900), None);
}

#[test]
fn helper_threads_reach_the_same_conclusions() {
    let board = picture(Rule::Freestyle, &testing::DOUBLE_THREE, Color::Black);
    let m = best_with_threads(&board, 5, 3);
    assert!(is_mate(m.score) && m.score > 0, "{m:?}");
    let board = picture(
        Rule::Freestyle,
        &["...............", "....XXX........", "...........O..."],
        Color::White,
    );
    let m = best_with_threads(&board, 4, 2);
    assert!(m.pos.y() == 1 && [2, 3, 7, 8].contains(&m.pos.x()), "{m:?}");
}

#[test]
fn white_wins_with_a_four_whose_block_is_a_foul() {
    // From a game: (8,7) makes White's four O.OOO on row 7; Black's block at (6,7)
    // would make a four and two threes, a double-three foul.
    let board = picture(
        Rule::Renju,
        &[
            "",
            "",
            "",
            "",
            ".........X",
            "....X....O",
            "....OXXXXO",
            ".....O.O.O",
            "......XXOO",
            ".......X.XO",
            ".........OX",
        ],
        Color::White,
    );
    let m = best_with_threads(&board, 3, 1);
    assert_eq!((m.pos, m.score), (Pos::new(8, 7), MATE - 3), "{m:?}");
}

#[test]
fn pondering_on_the_expected_reply_saves_the_next_search_most_of_its_work() {
    let start = picture(
        Rule::Freestyle,
        &["", "", "", "", "", "", "......OX", ".......X", "......O."],
        Color::Black,
    );
    let depth = |d| Limits {
        max_depth: Some(d),
        ..Limits::default()
    };
    // Deep enough that the main search outweighs the root threat searches, which
    // every search runs afresh.
    let nodes_after = |ponder: bool| {
        let mut engine = Engine::new(1 << 22);
        let stop = AtomicBool::new(false);
        let ours = engine.best_moves(&start, 1, &depth(5), &stop, &mut Silent)[0];
        let (_, reply) = engine.expected_reply.expect("a principal variation");
        let mut board = start.clone();
        board.play(ours.pos);
        if ponder {
            engine.ponder(&board, &depth(10), &stop);
        }
        board.play(reply);
        let mut last = LastProgress::default();
        engine.best_moves(&board, 1, &depth(10), &stop, &mut last);
        last.0.expect("an iteration").nodes
    };
    let (pondered, fresh) = (nodes_after(true), nodes_after(false));
    assert!(
        pondered * 2 < fresh,
        "{pondered} nodes after pondering, {fresh} without"
    );
}

#[test]
fn the_vote_prefers_wins_then_depth_and_avoids_losses() {
    let vote = |x: usize, score: i32, depth: i32| Finished {
        pos: Pos::new(x, 0),
        score,
        depth,
    };
    let elected = |votes: &[Finished]| elect(votes).unwrap().pos.x();
    // Two helpers agreeing outvote a deeper main thread.
    assert_eq!(elected(&[vote(1, 5, 7), vote(1, 9, 7), vote(2, 5, 9)]), 1);
    // A tie goes to the last voter, the main thread.
    assert_eq!(elected(&[vote(1, 5, 8), vote(2, 5, 8)]), 2);
    // The quickest proven win beats every vote.
    assert_eq!(
        elected(&[vote(1, MATE - 9, 3), vote(2, MATE - 5, 2), vote(3, 0, 20)]),
        2
    );
    // A move proven lost is not chosen while another is not.
    assert_eq!(elected(&[vote(1, 0, 3), vote(2, -(MATE - 4), 12)]), 1);
    assert_eq!(elected(&[vote(1, -(MATE - 2), 3)]), 1);
    assert!(elect(&[]).is_none());
}

#[test]
fn a_defence_that_leaves_a_four_three_is_tried_before_a_loss_is_proven() {
    // From a game against Rapfi (freestyle 20x20, moved up and left): White's open
    // three on the diagonal (4,6)-(6,8) is met at (3,5), which leaves White a four-three
    // at (7,9) that Black's fours on row 9 turn. Leaving (3,5) out, the search proved
    // Black lost at depth 3 and Rapfi won the game from here.
    let board = picture(
        Rule::Freestyle,
        &[
            "",
            "",
            "",
            "",
            "...X.....X",
            "....OX..O",
            "...XOOOOX",
            "....XOO..X",
            ".....OOOX",
            "....X.X.X",
        ],
        Color::Black,
    );
    for depth in 2..=4 {
        let m = best(&board, depth);
        assert!(!(is_mate(m.score) && m.score < 0), "depth {depth}: {m:?}");
    }
}

#[test]
fn a_lost_root_tries_the_points_its_candidates_leave_out() {
    // From a renju game against Rapfi (s51, game 78): every point within two of a stone
    // loses for White to Black's threats, and the search announced the loss at depth 2;
    // (1,2), three from the nearest stone, takes the point where Black's diagonal
    // (2,3)-(5,6) would need its five. Rapfi played it and won.
    let board = picture(
        Rule::Renju,
        &[
            "",
            "",
            "",
            ".....O",
            "....O",
            "O.X.XXO",
            ".XXXOXXXO",
            "..XOX.O",
            ".OOXOO.X",
            ".XXOXXO",
            ".O...O",
        ],
        Color::White,
    );
    for depth in [2, 4] {
        let m = best(&board, depth);
        assert_eq!(m.pos, Pos::new(1, 2), "depth {depth}: {m:?}");
        assert!(!is_mate(m.score), "depth {depth}: {m:?}");
    }
}

#[test]
fn blocks_an_open_three_when_it_has_no_attack() {
    let board = picture(
        Rule::Freestyle,
        &[
            "...............",
            "...............",
            "....XXX........",
            "...........O...",
            "...............",
        ],
        Color::White,
    );
    let m = best(&board, 4);
    assert!(
        [
            Pos::new(3, 2),
            Pos::new(7, 2),
            Pos::new(2, 2),
            Pos::new(8, 2)
        ]
        .contains(&m.pos),
        "{m:?}"
    );
}

/// `check` run on a fresh search of `board`, with its own table.
fn with_search<R>(board: &Board, check: impl FnOnce(&mut Search) -> R) -> R {
    with_search_scored_by(None, board, check)
}

/// As [`with_search`], the positions scored by `network` if given.
fn with_search_scored_by<R>(
    network: Option<Arc<Network>>,
    board: &Board,
    check: impl FnOnce(&mut Search) -> R,
) -> R {
    let tt = TranspositionTable::new(1 << 16);
    let shared = Shared::new(&tt, network);
    let mut state = ThreadState::new();
    let (limits, stop) = (Limits::default(), AtomicBool::new(false));
    check(&mut Search::new(&shared, &mut state, board, &limits, &stop))
}

#[test]
fn a_node_improves_when_its_score_rose_since_its_side_last_moved() {
    with_search(&Board::new(15, 15, Rule::Freestyle), |search| {
        search.static_evals[3] = Some(100);
        search.static_evals[4] = Some(-500);
        search.static_evals[5] = Some(90);
        assert!(!search.improving(5));
        search.static_evals[5] = Some(110);
        assert!(search.improving(5));
        search.static_evals[5] = None;
        assert!(search.improving(5), "a forced node");
        search.static_evals[3] = None;
        search.static_evals[5] = Some(-1000);
        assert!(search.improving(5), "nothing to compare with");
        search.static_evals[1] = Some(0);
        assert!(search.improving(1), "the root has no score two plies up");
    });
}

#[test]
fn a_search_that_leaves_a_move_out_neither_plays_it_nor_touches_the_table() {
    let board = quiet_position();
    let key = board.hash();
    let best = with_search(&board, |search| {
        search.pvs(plies(3), -INFINITY, INFINITY, 1);
        assert!(search.tt.probe(key, 1).is_some());
        search.pv[1][0]
    });
    with_search(&board, |search| {
        search.excluded[1] = Some(best);
        search.pvs(plies(3), -INFINITY, INFINITY, 1);
        assert_ne!(search.pv[1].first(), Some(&best));
        assert!(search.tt.probe(key, 1).is_none());
    });
}

#[test]
fn a_window_beyond_the_nearest_mates_is_decided_without_a_move() {
    let board = quiet_position();
    let ply = 5;
    // No line from ply 5 wins sooner than a five on the next move.
    let soonest_win = win_next_move(ply);
    assert_eq!(soonest_win, MATE - 6);
    with_search(&board, |search| {
        let score = search.pvs(plies(4), soonest_win, soonest_win + 1, ply);
        assert_eq!((score, search.nodes), (soonest_win, 1));
    });
    // Nor loses sooner than the opponent's five after the next move.
    let soonest_loss = lost_after_next_move(ply);
    assert_eq!(soonest_loss, -(MATE - 7));
    with_search(&board, |search| {
        let score = search.pvs(plies(4), soonest_loss - 1, soonest_loss, ply);
        assert_eq!((score, search.nodes), (soonest_loss, 1));
    });
    with_search(&board, |search| {
        search.pvs(plies(2), soonest_loss, soonest_loss + 1, ply);
        assert!(search.nodes > 1, "a window a line can reach is searched");
    });
}

#[test]
fn futility_pruning_keeps_the_static_score_unless_an_attack_brews() {
    let prune = |board: &Board| {
        with_search(board, |search| {
            let score = eval::evaluate(board);
            let beta = score - FUTILITY_MARGIN * 2;
            search.prune_shallow(score, 2, beta - 1, beta, 3)
        })
    };
    // White to move, Black scattered: nothing brews, the static score stands.
    let quiet = quiet_position();
    assert_eq!(prune(&quiet), Some(eval::evaluate(&quiet)));
    // Black has a four-three point at (4,4): White's static score means nothing.
    let brewing = picture(
        Rule::Freestyle,
        &[
            "", "", "....X", "....X", ".....XX", "", "....X", "", "O.....O",
        ],
        Color::White,
    );
    assert_eq!(
        brewing.threat(Pos::new(4, 4), Color::Black),
        Threat::Block4Flex3
    );
    assert_eq!(prune(&brewing), None);
}

#[test]
fn finds_a_win_by_double_three_that_vcf_alone_cannot() {
    // Black to move: (6,6) makes two open threes with (4,6)(5,6) and (6,4)(6,5).
    let board = picture(Rule::Freestyle, &testing::DOUBLE_THREE, Color::Black);
    let m = best(&board, 5);
    assert!(is_mate(m.score) && m.score > 0, "{m:?}");
}

#[test]
fn stop_flag_ends_the_search_with_a_legal_move() {
    let board = picture(
        Rule::Freestyle,
        &["...............", ".......X.......", "......O........"],
        Color::Black,
    );
    let mut engine = Engine::new(1 << 20);
    let mut last = LastProgress::default();
    let moves = engine.best_moves(
        &board,
        1,
        &Limits::default(),
        &AtomicBool::new(true),
        &mut last,
    );
    assert_eq!(moves.len(), 1);
    assert!(board.is_empty(moves[0].pos));
    // Stopped before any root move was searched, it knows of no win or loss.
    assert!(!is_mate(moves[0].score), "{:?}", moves[0]);
    assert!(
        last.0.as_ref().is_none_or(|p| !is_mate(p.score)),
        "{:?}",
        last.0
    );
}

#[test]
fn late_moves_of_deep_nodes_are_reduced_most() {
    assert_eq!(late_move_reduction(plies(1), 10), 0, "a ply deep: nothing");
    assert_eq!(
        late_move_reduction(plies(8), 0),
        0,
        "the first move: nothing"
    );
    let eighth_at_eight = late_move_reduction(plies(8), 7);
    assert!((ONE_PLY..2 * ONE_PLY).contains(&eighth_at_eight));
    assert!(late_move_reduction(plies(8), 3) < eighth_at_eight);
    assert!(late_move_reduction(plies(4), 7) < eighth_at_eight);
    assert_eq!(
        late_move_reduction(plies(500), 500),
        late_move_reduction(plies(LMR_MAX_PLIES as i32 - 1), MAX_QUIET_BREADTH - 1)
    );
}

#[test]
fn node_counts_repeat_exactly() {
    let board = picture(
        Rule::Renju,
        &[
            "...............",
            ".......X.......",
            "......OX.......",
            "......O........",
        ],
        Color::Black,
    );
    let run = || searched_to_depth(&mut Engine::new(1 << 20), &board, 5);
    assert_eq!(run(), run());
}

/// The best move and score of a search of `board` to `depth`, and its nodes.
fn searched_to_depth(engine: &mut Engine, board: &Board, depth: u32) -> (Pos, i32, u64) {
    let limits = Limits {
        max_depth: Some(depth),
        ..Limits::default()
    };
    let mut nodes = 0;
    struct Count<'a>(&'a mut u64);
    impl Reporter for Count<'_> {
        fn progress(&mut self, p: &Progress) {
            *self.0 = p.nodes;
        }
    }
    let best = engine.best_moves(
        board,
        1,
        &limits,
        &AtomicBool::new(false),
        &mut Count(&mut nodes),
    )[0];
    (best.pos, best.score, nodes)
}

#[test]
fn a_network_of_another_board_size_leaves_the_classical_score() {
    let board = picture(
        Rule::Freestyle,
        &["", "", "", "", "", ".......X", "......OX", "......O"],
        Color::Black,
    );
    let with = |network: Option<Network>| {
        let mut engine = Engine::new(1 << 20);
        if let Some(network) = network {
            engine.set_network(Arc::new(network));
        }
        searched_to_depth(&mut engine, &board, 6)
    };
    let sized = |board_size| Network {
        board_size,
        ..random_network(Rule::Freestyle, 5)
    };
    let classical = with(None);
    assert_eq!(with(Some(sized(Some(20)))), classical);
    assert_ne!(with(Some(sized(Some(15)))), classical);
    assert_ne!(with(Some(sized(None))), classical);
}

#[test]
fn the_same_network_again_keeps_the_table_and_another_clears_it() {
    let mut engine = Engine::new(1 << 20);
    let mut board = Board::new(15, 15, Rule::Freestyle);
    for (x, y) in [(7, 7), (8, 8), (7, 8)] {
        board.play(Pos::new(x, y));
    }
    let search = |engine: &mut Engine| {
        let limits = Limits {
            max_depth: Some(8),
            ..Limits::default()
        };
        engine.best_moves(&board, 1, &limits, &AtomicBool::new(false), &mut Silent);
    };
    engine.set_network(Arc::new(Network::control(Rule::Freestyle)));
    search(&mut engine);
    let used = engine.table_usage().1;
    assert!(used > 0);
    engine.set_network(Arc::new(Network::control(Rule::Freestyle)));
    assert_eq!(engine.table_usage().1, used);
    let mut other = Network::control(Rule::Freestyle);
    other.head.output_bias = 0.5;
    engine.set_network(Arc::new(other));
    assert_eq!(engine.table_usage().1, 0);
}

#[test]
fn an_engine_that_has_not_searched_keeps_its_table_when_given_a_network() {
    let mut engine = Engine::new(1 << 20);
    let fresh = engine.tt.storage();
    engine.set_network(Arc::new(Network::control(Rule::Freestyle)));
    engine.use_networks(vec![Arc::new(Network::control(Rule::Renju))]);
    assert_eq!(engine.tt.storage(), fresh);
    engine.best_moves(
        &Board::new(15, 15, Rule::Renju),
        1,
        &Limits {
            max_depth: Some(2),
            ..Limits::default()
        },
        &AtomicBool::new(false),
        &mut Silent,
    );
    engine.clear_networks();
    assert_ne!(engine.tt.storage(), fresh);
}

#[test]
fn a_network_of_one_board_size_leaves_the_other_sizes_networks_in_place() {
    let sized = |size: Option<usize>, bias: f32| {
        let mut network = Network::control(Rule::Freestyle);
        network.board_size = size;
        network.head.output_bias = bias;
        Arc::new(network)
    };
    let mut engine = Engine::new(1 << 20);
    let (fifteen, twenty) = (sized(Some(15), 0.1), sized(Some(20), 0.2));
    engine.set_network(fifteen.clone());
    engine.set_network(twenty.clone());
    let board = |size| Board::new(size, size, Rule::Freestyle);
    assert_eq!(engine.network(&board(15)), Some(&fifteen));
    assert_eq!(engine.network(&board(20)), Some(&twenty));
    assert_eq!(engine.network(&board(19)), None);
    assert_eq!(engine.network(&Board::new(15, 15, Rule::Renju)), None);
    let newer = sized(Some(15), 0.3);
    engine.set_network(newer.clone());
    assert_eq!(engine.network(&board(15)), Some(&newer));
    assert_eq!(engine.network(&board(20)), Some(&twenty));
    let any_size = sized(None, 0.4);
    engine.set_network(any_size.clone());
    for size in [15, 19, 20] {
        assert_eq!(engine.network(&board(size)), Some(&any_size));
    }
}

/// A position no threat narrows, which a network scores.
fn quiet_position() -> Board {
    picture(
        Rule::Freestyle,
        &["", "", "..X.....X", "", "", "....O", "", "..X.....X"],
        Color::White,
    )
}

#[test]
fn a_classical_score_far_outside_the_window_stands_without_the_network() {
    let network = Arc::new(random_network(Rule::Freestyle, 3));
    let quiet = quiet_position();
    let classical = eval::evaluate(&quiet);
    let network_score = Accumulator::new(network.clone(), &quiet).evaluate(&quiet);
    assert_ne!(network_score, classical);
    let leaf_score = |alpha: i32, beta: i32| {
        with_search_scored_by(Some(network.clone()), &quiet, |search| {
            search.leaf_score(alpha, beta)
        })
    };
    let far_above = classical - LAZY_MARGIN;
    assert_eq!(leaf_score(far_above - 1, far_above), classical);
    assert_eq!(leaf_score(far_above, far_above + 1), network_score);
    let far_below = classical + LAZY_MARGIN;
    assert_eq!(leaf_score(far_below, far_below + 1), classical);
    assert_eq!(leaf_score(far_below - 2, far_below - 1), network_score);
    assert_eq!(leaf_score(-INFINITY, INFINITY), network_score);
}

#[test]
fn a_network_scores_only_positions_no_threat_narrows() {
    let network = Arc::new(random_network(Rule::Freestyle, 3));
    let score = |board: &Board| {
        with_search_scored_by(Some(network.clone()), board, |search| search.evaluate())
    };
    let quiet = quiet_position();
    let network_score = Accumulator::new(network.clone(), &quiet).evaluate(&quiet);
    assert_ne!(network_score, eval::evaluate(&quiet));
    assert_eq!(score(&quiet), network_score);
    // Black's open three: White must answer it, and the classical score stands.
    let three = picture(
        Rule::Freestyle,
        &["", "", "", "...XXX", "", "", "......O", "", "........O"],
        Color::White,
    );
    assert!(ordering::threatened(&three));
    assert_ne!(
        Accumulator::new(network.clone(), &three).evaluate(&three),
        eval::evaluate(&three)
    );
    assert_eq!(score(&three), eval::evaluate(&three));
}

#[test]
fn black_with_only_forbidden_points_left_has_lost() {
    // A full board but for (2, 0), where Black's stone makes six in a row: a referee
    // scores the forced move as lost, not the game as drawn.
    let rows = [
        "XX.XXXO", "XXXOOXX", "XOXOXXO", "OOXXOOX", "XXOXOOX", "OXOOXOO", "OOXOOOO",
    ];
    let board = testing::picture_of_size(7, Rule::Renju, &rows, Color::Black);
    assert!(crate::rules::is_forbidden(
        &mut board.clone(),
        Pos::new(2, 0)
    ));
    with_search(&board, |search| {
        let score = search.pvs(plies(2), -INFINITY, INFINITY, 1);
        assert!(is_mate(score) && score < 0, "{score}");
    });
    // Under freestyle the same point is a move like any other.
    let board = testing::picture_of_size(7, Rule::Freestyle, &rows, Color::Black);
    assert_eq!(best(&board, 2).pos, Pos::new(2, 0));
}

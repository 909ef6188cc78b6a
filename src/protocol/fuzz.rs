//! Random and mutated command streams: nothing panics, every answer is well formed, and
//! a command answered only by ERROR or UNKNOWN leaves the session exactly as it was.
//! `LIANZHU_FUZZ_LINES` sets how many lines (3000 by default).

use super::session::Session;
use super::session::testing::{feed_one, snapshot};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const WORDS: [&str; 33] = [
    "START",
    "RECTSTART",
    "RESTART",
    "BEGIN",
    "TURN",
    "BOARD",
    "YXBOARD",
    "SWAP2BOARD",
    "DONE",
    "TAKEBACK",
    "PLAY",
    "ABOUT",
    "INFO",
    "YXSHOWFORBID",
    "YXNBEST",
    "YXHASHCLEAR",
    "YXBLOCK",
    "YXBLOCKUNDO",
    "YXBLOCKRESET",
    "YXSHOWINFO",
    "YXBALANCEONE",
    "YXQUERYDATABASEALL",
    "YXDELETEDATABASEALL",
    "YXBALANCETWO",
    "YXSHOWHASHUSAGE",
    "STOP",
    "YXSTOP",
    "SUGGEST",
    "FOO",
    "",
    "1,2",
    "3,4,1",
    "-1,5",
];
const INFO_KEYS: [&str; 14] = [
    "timeout_turn",
    "timeout_match",
    "time_left",
    "max_memory",
    "hash_size",
    "rule",
    "game_type",
    "folder",
    "thread_num",
    "max_depth",
    "max_node",
    "pondering",
    "evaluate",
    "evalfile",
];

fn number(rng: &mut StdRng) -> String {
    match rng.random_range(0..6) {
        0 => rng.random_range(-3..40).to_string(),
        1 => rng.random_range(0..16).to_string(),
        2 => "x".into(),
        3 => "99999999999999999999".into(),
        4 => String::new(),
        _ => rng.random_range(0..9).to_string(),
    }
}

fn random_line(rng: &mut StdRng) -> String {
    let word = WORDS[rng.random_range(0..WORDS.len())];
    let mut line = match word {
        "INFO" => {
            let key = INFO_KEYS[rng.random_range(0..INFO_KEYS.len())];
            format!("INFO {key} {}", number(rng))
        }
        "START" | "YXNBEST" => format!("{word} {}", number(rng)),
        "RECTSTART" | "TURN" | "TAKEBACK" | "PLAY" => {
            format!("{word} {},{}", number(rng), number(rng))
        }
        "1,2" | "3,4,1" => {
            format!("{},{},{}", number(rng), number(rng), rng.random_range(0..5))
        }
        _ => word.to_string(),
    };
    if rng.random_range(0..4) == 0 {
        line = line.to_lowercase();
    }
    if rng.random_range(0..8) == 0 {
        let at = rng.random_range(0..=line.len());
        if line.is_char_boundary(at) {
            line.insert(at, [' ', ',', '\t', 'é', '7'][rng.random_range(0..5)]);
        }
    }
    line
}

fn well_formed(answer: &str) -> bool {
    let coordinate = |s: &str| {
        s.split_once(',')
            .is_some_and(|(x, y)| x.parse::<u32>().is_ok() && y.parse::<u32>().is_ok())
    };
    [
        "OK", "ERROR ", "UNKNOWN ", "MESSAGE ", "FORBID ", "name=", "SWAP",
    ]
    .iter()
    .any(|p| answer.starts_with(p))
        || answer.split(' ').all(coordinate)
}

#[test]
fn random_command_streams_never_break_the_session() {
    let lines: usize = std::env::var("LIANZHU_FUZZ_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut rng = StdRng::seed_from_u64(2026);
    let mut session = Session::new();
    feed_one(&mut session, "INFO max_node 300");
    let mut rejected = 0;
    for _ in 0..lines {
        let line = random_line(&mut rng);
        // Keep searches tiny whatever the stream sets.
        if line.to_ascii_lowercase().contains("max_node")
            || line.to_ascii_lowercase().contains("max_depth")
        {
            continue;
        }
        let in_block = session.in_block();
        let before = snapshot(&session);
        let answers = feed_one(&mut session, &line);
        for answer in &answers {
            assert!(well_formed(answer), "{line:?} → {answer:?}");
        }
        let refused = !answers.is_empty()
            && answers
                .iter()
                .all(|a| a.starts_with("ERROR") || a.starts_with("UNKNOWN"));
        if refused && !in_block {
            rejected += 1;
            assert_eq!(
                snapshot(&session),
                before,
                "{line:?} was refused but changed the session"
            );
        }
    }
    assert!(
        rejected > lines / 10,
        "the stream exercised too few refusals: {rejected}"
    );
}

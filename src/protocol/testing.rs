//! Helpers for the protocol's tests: feeding a session lines, and a snapshot of all it
//! holds, to compare before and after a rejected command.

use super::session::Session;
use std::sync::atomic::AtomicBool;

/// Everything the session holds, as text.
pub fn snapshot(session: &Session) -> String {
    let board = session.board().map(|b| {
        (
            b.width(),
            b.height(),
            b.rule(),
            b.to_move(),
            b.hash(),
            b.history().to_vec(),
        )
    });
    format!("{:?} {:?}", session.settings(), board)
}

/// Handles one line and, if it starts a task, runs the task and takes its result.
pub fn feed_one(session: &mut Session, line: &str) -> Vec<String> {
    let output = session.handle_line(line);
    let mut answers = output.lines;
    if let Some(task) = output.task {
        let result = task.run(&AtomicBool::new(false), &mut crate::search::Silent);
        answers.extend(session.finish(result).lines);
    }
    answers
}

/// Feeds every line in turn; all the answers.
pub fn feed(session: &mut Session, lines: &[&str]) -> Vec<String> {
    lines
        .iter()
        .flat_map(|line| feed_one(session, line))
        .collect()
}

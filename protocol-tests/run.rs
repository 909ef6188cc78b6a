//! Runs every transcript in `protocol-tests/` against the built engine.
//!
//! Transcript lines:
//! - `# …` a comment; blank lines are skipped.
//! - `> text` sends `text` and a LF. `\r`, `\n`, `\t` and `\\` are escapes, and `$1`, `$2` …
//!   are the groups of the last `< ~regex` match that had groups.
//! - `>> text` sends `text` with escapes and no line ending.
//! - `< text` expects the next output line to be exactly `text`.
//! - `< ~regex` expects the next output line to match `regex` as a whole.
//!   `MESSAGE` and `DEBUG` lines that an expectation does not match are skipped, as a
//!   manager ignores them; every other line must match in order.
//! - `< EOF` expects the engine to close its output and exit successfully.
//! - `! close` closes the engine's input.
//! - `! restart` ends the engine as `< EOF` does, then starts a new one.
//! - `$T` in a sent line is a folder of the transcript's own, empty at its start and
//!   removed at its end (for files the engine writes).
//! - `! control-network RULE FILE` writes the control network of the Gomocup rule
//!   number RULE (`train --control`) to `$T/FILE`; `! truncate FILE BYTES` cuts
//!   `$T/FILE` to its first BYTES bytes.
//!
//! After the last line the input is closed, and the engine must exit without printing
//! anything more: a stray line fails the transcript.

use lianzhu::board::RuleSetting;
use lianzhu::net::Network;
use regex::Regex;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

struct Engine {
    child: Child,
    input: Option<ChildStdin>,
    output: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-lianzhu"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("engine starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (lines, output) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let input = child.stdin.take();
        Engine {
            child,
            input,
            output,
        }
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        let input = self.input.as_mut().ok_or("input already closed")?;
        input
            .write_all(bytes)
            .and_then(|_| input.flush())
            .map_err(|e| format!("engine input: {e}"))
    }

    /// The next output line that `wanted` accepts, skipping MESSAGE and DEBUG lines it
    /// does not; any other line is returned for the caller to judge.
    fn next_line(&self, wanted: impl Fn(&str) -> bool) -> Result<String, String> {
        match self.output.recv_timeout(ANSWER_TIMEOUT) {
            Ok(line)
                if !wanted(&line) && (line.starts_with("MESSAGE") || line.starts_with("DEBUG")) =>
            {
                self.next_line(wanted)
            }
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err("no answer within the time limit".into()),
            Err(RecvTimeoutError::Disconnected) => Err("engine closed its output".into()),
        }
    }

    fn expect_exit(&mut self) -> Result<(), String> {
        self.input = None;
        match self.output.recv_timeout(ANSWER_TIMEOUT) {
            Ok(line) => return Err(format!("unexpected output line '{line}'")),
            Err(RecvTimeoutError::Timeout) => return Err("engine did not exit".into()),
            Err(RecvTimeoutError::Disconnected) => {}
        }
        let status = self.child.wait().map_err(|e| e.to_string())?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("engine exited with {status}"))
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unescape(text: &str, groups: &[String], folder: &Path) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().copied()) {
            ('\\', Some(e @ ('r' | 'n' | 't' | '\\'))) => {
                chars.next();
                out.push(match e {
                    'r' => '\r',
                    'n' => '\n',
                    't' => '\t',
                    _ => '\\',
                });
            }
            ('$', Some('T')) => {
                chars.next();
                out.push_str(&folder.display().to_string());
            }
            ('$', Some(d)) if d.is_ascii_digit() => {
                chars.next();
                let index = d.to_digit(10).unwrap() as usize;
                out.push_str(groups.get(index).map_or("", String::as_str));
            }
            _ => out.push(c),
        }
    }
    out
}

/// Runs one transcript; the error names the failing line.
fn run_transcript(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let name = path.file_stem().unwrap_or_default().to_string_lossy();
    let folder = std::env::temp_dir().join(format!("lianzhu-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let result = run_lines(&text, &folder);
    let _ = std::fs::remove_dir_all(&folder);
    result
}

fn run_lines(text: &str, folder: &Path) -> Result<(), String> {
    let mut engine = Engine::start();
    let mut groups: Vec<String> = Vec::new();
    let mut exited = false;
    for (number, line) in text.lines().enumerate() {
        let fail = |why: String| format!("line {}: {line}\n  {why}", number + 1);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(raw) = line.strip_prefix(">> ") {
            engine
                .send(unescape(raw, &groups, folder).as_bytes())
                .map_err(fail)?;
        } else if let Some(command) = line.strip_prefix("> ") {
            let bytes = unescape(command, &groups, folder) + "\n";
            engine.send(bytes.as_bytes()).map_err(fail)?;
        } else if line == "< EOF" {
            engine.expect_exit().map_err(fail)?;
            exited = true;
        } else if let Some(pattern) = line.strip_prefix("< ~") {
            let regex = Regex::new(&format!("^(?:{pattern})$")).map_err(|e| fail(e.to_string()))?;
            let got = engine.next_line(|l| regex.is_match(l)).map_err(fail)?;
            let captures = regex
                .captures(&got)
                .ok_or_else(|| fail(format!("got '{got}'")))?;
            if captures.len() > 1 {
                groups = captures
                    .iter()
                    .map(|m| m.map_or(String::new(), |m| m.as_str().to_string()))
                    .collect();
            }
        } else if let Some(expected) = line.strip_prefix("< ") {
            let expected = unescape(expected, &groups, folder);
            let got = engine.next_line(|l| l == expected).map_err(fail)?;
            if got != expected {
                return Err(fail(format!("got '{got}'")));
            }
        } else if line == "! close" {
            engine.input = None;
        } else if let Some(args) = line.strip_prefix("! control-network ") {
            let (rule, file) = args
                .split_once(' ')
                .ok_or_else(|| fail("RULE FILE".into()))?;
            let rule = rule.parse().ok().and_then(RuleSetting::from_mask);
            let rule = rule.ok_or_else(|| fail("not a rule number".into()))?.rule;
            lianzhu::net::file::save(&Network::control(rule), &folder.join(file))
                .map_err(|e| fail(e.to_string()))?;
        } else if let Some(args) = line.strip_prefix("! truncate ") {
            let (file, bytes) = args
                .split_once(' ')
                .ok_or_else(|| fail("FILE BYTES".into()))?;
            let bytes: u64 = bytes.parse().map_err(|_| fail("not a byte count".into()))?;
            let handle = std::fs::OpenOptions::new()
                .write(true)
                .open(folder.join(file));
            handle
                .and_then(|f| f.set_len(bytes))
                .map_err(|e| fail(e.to_string()))?;
        } else if line == "! restart" {
            engine.expect_exit().map_err(fail)?;
            engine = Engine::start();
            exited = false;
        } else {
            return Err(fail("not a transcript line".into()));
        }
    }
    if !exited {
        engine
            .expect_exit()
            .map_err(|why| format!("after the last line: {why}"))?;
    }
    Ok(())
}

fn transcripts() -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-tests");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("protocol-tests is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_transcript_passes() {
    let paths = transcripts();
    assert!(paths.len() >= 10, "transcripts are missing: {paths:?}");
    let failures: Vec<String> = thread::scope(|scope| {
        let runs: Vec<_> = paths
            .iter()
            .map(|path| {
                scope.spawn(move || {
                    run_transcript(path).map_err(|e| format!("{}: {e}", path.display()))
                })
            })
            .collect();
        runs.into_iter()
            .filter_map(|run| run.join().expect("transcript thread").err())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} transcript(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_huge_line_gets_one_answer_and_changes_nothing() {
    let mut engine = Engine::start();
    engine.send(b"INFO timeout_turn 100\nSTART 15\n").unwrap();
    assert_eq!(engine.next_line(|_| false).unwrap(), "OK");
    let mut huge = "TURN ".to_string() + &"7".repeat(100_000);
    huge.push('\n');
    engine.send(huge.as_bytes()).unwrap();
    assert!(engine.next_line(|_| false).unwrap().starts_with("ERROR "));
    let garbage = "x".repeat(3 << 20) + "\n";
    engine.send(garbage.as_bytes()).unwrap();
    assert!(engine.next_line(|_| false).unwrap().starts_with("ERROR "));
    engine.send(b"TURN 7,7\n").unwrap();
    let answer = engine.next_line(|_| false).unwrap();
    assert!(
        Regex::new(r"^\d+,\d+$").unwrap().is_match(&answer),
        "{answer}"
    );
    engine.expect_exit().unwrap();
}

#[test]
fn end_while_thinking_exits_within_a_second() {
    let mut engine = Engine::start();
    engine.send(b"INFO timeout_turn 60000\nSTART 15\n").unwrap();
    assert_eq!(engine.next_line(|_| false).unwrap(), "OK");
    engine.send(b"TURN 7,7\n").unwrap();
    thread::sleep(Duration::from_millis(300));
    let sent = std::time::Instant::now();
    engine.send(b"END\n").unwrap();
    loop {
        match engine.output.recv_timeout(ANSWER_TIMEOUT) {
            Ok(line) => assert!(line.starts_with("MESSAGE"), "answered '{line}' after END"),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => panic!("the engine did not exit after END"),
        }
    }
    let status = engine.child.wait().unwrap();
    let took = sent.elapsed();
    assert!(status.success(), "{status}");
    assert!(took < Duration::from_secs(1), "END took {took:?}");
}

#[test]
fn a_stop_sent_right_behind_a_search_command_stops_that_search() {
    // Without the STOPs each search would think for most of a minute.
    let mut engine = Engine::start();
    let sent = std::time::Instant::now();
    engine
        .send(b"INFO timeout_turn 60000\nINFO thread_num 2\nSTART 15\nTURN 7,7\nSTOP\nTURN 9,9\nSTOP\n")
        .unwrap();
    assert_eq!(engine.next_line(|_| false).unwrap(), "OK");
    let coordinate = Regex::new(r"^\d+,\d+$").unwrap();
    for _ in 0..2 {
        let answer = engine.next_line(|_| false).unwrap();
        assert!(coordinate.is_match(&answer), "answered '{answer}'");
    }
    let took = sent.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "two stopped searches took {took:?}"
    );
}

#[test]
fn a_turn_sent_while_pondering_is_answered_in_time() {
    // 300 ms a turn, checked with a second and a half of slack for a machine loaded by
    // the other tests: a ponder that did not give way would go on for minutes.
    let mut engine = Engine::start();
    engine
        .send(b"INFO pondering 1\nINFO timeout_turn 300\nSTART 20\nBEGIN\n")
        .unwrap();
    assert_eq!(engine.next_line(|_| false).unwrap(), "OK");
    let coordinate = Regex::new(r"^\d+,\d+$").unwrap();
    let mut occupied = vec![engine.next_line(|_| false).unwrap()];
    assert!(coordinate.is_match(&occupied[0]));
    // The engine's replies depend on how far it got, so each turn takes a point it has
    // not played.
    for _ in 0..2 {
        let turn = ["9,9", "11,9", "9,11", "11,11"]
            .into_iter()
            .find(|p| !occupied.iter().any(|o| o == p))
            .unwrap();
        occupied.push(turn.to_string());
        thread::sleep(Duration::from_millis(1500));
        let pondering_said = engine.output.try_recv();
        assert!(pondering_said.is_err(), "pondering said {pondering_said:?}");
        let sent = std::time::Instant::now();
        engine.send(format!("TURN {turn}\n").as_bytes()).unwrap();
        let answer = engine.next_line(|_| false).unwrap();
        let took = sent.elapsed();
        assert!(coordinate.is_match(&answer), "answered '{answer}'");
        assert!(
            took < Duration::from_millis(1800),
            "TURN {turn} took {took:?}"
        );
        occupied.push(answer);
    }
}

/// Peak resident memory of the engine (Linux), read before it exits.
fn peak_rss_bytes(engine: &Engine) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", engine.child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[test]
fn peak_memory_stays_under_max_memory() {
    let coordinate = Regex::new(r"^\d+,\d+$").unwrap();
    for limit in [40u64 << 20, 350 << 20] {
        let mut engine = Engine::start();
        let setup = format!("INFO max_memory {limit}\nINFO timeout_turn 1500\nSTART 20\n");
        engine.send(setup.as_bytes()).unwrap();
        assert_eq!(engine.next_line(|_| false).unwrap(), "OK");
        // Two long thinks fill a table that ignored the limit far past 40 MiB.
        for turn in ["TURN 10,10\n", "TURN 12,11\n"] {
            engine.send(turn.as_bytes()).unwrap();
            let answer = engine.next_line(|_| false).unwrap();
            assert!(coordinate.is_match(&answer), "{answer}");
        }
        let Some(peak) = peak_rss_bytes(&engine) else {
            return; // no /proc: nothing to measure here
        };
        assert!(
            peak < limit,
            "peak {} MiB over the {} MiB limit",
            peak >> 20,
            limit >> 20
        );
        engine.expect_exit().unwrap();
    }
}

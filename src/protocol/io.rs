//! The protocol's I/O: a reader thread turns input into lines, a worker thread runs
//! each task, and the main loop ([`run`]) serialises everything through one channel and
//! is the only writer to stdout, so `END`, `STOP` and `YXSTOP` are seen within
//! milliseconds even while the worker thinks. The worker's reporter turns the search's
//! root events into Yixin-Board's realtime marks when the task asks for them.

use super::parse::{self, Command};
use super::session::{Output, Session};
use super::task::TaskResult;
use crate::board::Pos;
use crate::net::Network;
use crate::search::{Progress, Reporter, RootEvent, RootEventKind};
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::Duration;

/// Input lines longer than this are cut and answered with an error.
const MAX_LINE_BYTES: usize = 1 << 20;

/// Events of the main loop.
enum Event {
    Line(String),
    TooLong(usize),
    Eof,
    Progress(Progress),
    /// Lines to print as they are, from the worker (realtime marks).
    Lines(Vec<String>),
    Done(Result<TaskResult, String>),
}

/// Yixin-Board's realtime marks (`INFO show_detail` 1 or 3) start once an iteration is
/// this deep and the search this old, so that a quick search prints none and a long one
/// a few lines a second at most.
const REALTIME_MIN_DEPTH: u32 = 5;
const REALTIME_MIN_ELAPSED: Duration = Duration::from_millis(200);
/// A root move is shown as searched (`POS`, then `DONE`) only when this long has passed
/// since the last one shown: at most some 40 lines a second, however fast moves go.
const REALTIME_POS_INTERVAL: Duration = Duration::from_millis(50);

/// Sends the worker's reports to the main loop, the realtime marks only when asked for.
struct ChannelReporter {
    events: Sender<Event>,
    realtime: bool,
    /// The root move shown as being searched, and when the last one was shown.
    shown: Option<Pos>,
    last_shown: Option<Duration>,
}

impl ChannelReporter {
    fn send(&self, event: Event) {
        // The main loop may be gone after END; nothing is lost then.
        let _ = self.events.send(event);
    }
}

impl Reporter for ChannelReporter {
    fn progress(&mut self, progress: &Progress) {
        self.send(Event::Progress(progress.clone()));
        if self.realtime
            && progress.depth >= REALTIME_MIN_DEPTH
            && let Some(best) = progress.pv.first()
        {
            self.send(Event::Lines(vec![
                "MESSAGE REALTIME REFRESH".into(),
                format!("MESSAGE REALTIME BEST {best}"),
            ]));
        }
    }

    fn root_event(&mut self, event: &RootEvent) {
        if !self.realtime
            || event.depth < REALTIME_MIN_DEPTH
            || event.elapsed < REALTIME_MIN_ELAPSED
        {
            return;
        }
        let show = match event.kind {
            RootEventKind::Searching => {
                let due = self
                    .last_shown
                    .is_none_or(|at| event.elapsed >= at + REALTIME_POS_INTERVAL);
                if due {
                    self.shown = Some(event.pos);
                    self.last_shown = Some(event.elapsed);
                }
                due
            }
            RootEventKind::Searched => self.shown.take_if(|pos| *pos == event.pos).is_some(),
            RootEventKind::Best | RootEventKind::Lost => true,
        };
        if show {
            self.send(Event::Lines(vec![realtime_line(event)]))
        }
    }
}

/// One root event as Yixin-Board's realtime line.
pub fn realtime_line(event: &RootEvent) -> String {
    let word = match event.kind {
        RootEventKind::Searching => "POS",
        RootEventKind::Searched => "DONE",
        RootEventKind::Best => "BEST",
        RootEventKind::Lost => "LOST",
    };
    format!("MESSAGE REALTIME {word} {}", event.pos)
}

/// Formats one progress report as a MESSAGE line.
pub fn progress_line(p: &Progress) -> String {
    let millis = p.elapsed.as_millis();
    let nps = (p.nodes as u128 * 1000)
        .checked_div(millis)
        .unwrap_or(p.nodes as u128);
    let pv: Vec<String> = p.pv.iter().map(|m| m.to_string()).collect();
    format!(
        "MESSAGE depth {} ev {} n {} nps {} tm {} pv {}",
        p.depth,
        p.score,
        p.nodes,
        nps,
        millis,
        pv.join(" ")
    )
}

/// Splits raw input into lines at CR, LF or CR LF, and sends them to the main loop.
fn read_lines(mut input: impl BufRead, events: Sender<Event>) {
    let mut line: Vec<u8> = Vec::new();
    let mut dropped = 0usize;
    loop {
        let buffer = match input.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(buffer) => buffer,
        };
        let length = buffer.len();
        for &byte in buffer {
            if byte == b'\r' || byte == b'\n' {
                let event = if dropped > 0 {
                    Event::TooLong(line.len() + dropped)
                } else {
                    Event::Line(String::from_utf8_lossy(&line).into_owned())
                };
                line.clear();
                dropped = 0;
                if events.send(event).is_err() {
                    return;
                }
            } else if line.len() < MAX_LINE_BYTES {
                line.push(byte);
            } else {
                dropped += 1;
            }
        }
        input.consume(length);
    }
    if !line.is_empty() {
        let _ = events.send(Event::Line(String::from_utf8_lossy(&line).into_owned()));
    }
    let _ = events.send(Event::Eof);
}

struct Worker {
    stop: Arc<AtomicBool>,
    /// Pondering gives way to whatever comes next, the end of input included.
    pondering: bool,
}

impl Worker {
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Runs the protocol on `input` and `output` until END, or until the input has ended and
/// every command read before its end has been answered. `networks` score the positions
/// of their rules until `INFO evalfile` says otherwise.
pub fn run(
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
    networks: Vec<Arc<Network>>,
) -> std::io::Result<()> {
    let (events, inbox) = mpsc::channel();
    let reader_events = events.clone();
    thread::spawn(move || read_lines(input, reader_events));
    let mut session = Session::with_networks(networks);
    let mut worker: Option<Worker> = None;
    let mut queued: VecDeque<String> = VecDeque::new();
    let mut input_ended = false;
    loop {
        let event = if let (None, Some(line)) = (&worker, queued.front()) {
            let line = line.clone();
            queued.pop_front();
            Event::Line(line)
        } else if worker.is_none() && input_ended {
            return Ok(());
        } else {
            inbox.recv().unwrap_or(Event::Eof)
        };
        let answer = match event {
            Event::Line(line) if let Some(busy) = &worker => {
                match parse::command(line.trim()) {
                    Ok(Command::End) => return Ok(()),
                    // A STOP behind queued commands is for a search they start.
                    Ok(Command::Stop) if queued.is_empty() => busy.stop(),
                    _ => {
                        if busy.pondering {
                            busy.stop();
                        }
                        queued.push_back(line);
                    }
                }
                continue;
            }
            Event::Line(line) => {
                log::debug!("< {line}");
                session.handle_line(&line)
            }
            Event::TooLong(bytes) => {
                Output::error(format!("input line of {bytes} bytes is too long"))
            }
            Event::Eof => {
                input_ended = true;
                if let Some(busy) = worker.as_ref().filter(|w| w.pondering) {
                    busy.stop();
                }
                continue;
            }
            Event::Progress(progress) => Output::line(progress_line(&progress)),
            Event::Lines(lines) => Output {
                lines,
                ..Output::default()
            },
            Event::Done(result) => {
                worker = None;
                match result {
                    Ok(result) => session.finish(result),
                    Err(reason) => {
                        Output::error(format!("internal error while thinking: {reason}"))
                    }
                }
            }
        };
        for line in &answer.lines {
            log::debug!("> {line}");
            writeln!(output, "{line}")?;
        }
        output.flush()?;
        if answer.exit {
            return Ok(());
        }
        if let Some(task) = answer.task {
            // Input already waiting leaves no idle time to ponder in.
            if task.is_ponder() && (!queued.is_empty() || input_ended) {
                continue;
            }
            let (pondering, realtime) = (task.is_ponder(), task.wants_realtime());
            let job =
                move |stop: &AtomicBool, reporter: &mut dyn Reporter| task.run(stop, reporter);
            let started = start_worker(job, pondering, realtime, events.clone());
            while queued
                .front()
                .is_some_and(|line| matches!(parse::command(line.trim()), Ok(Command::Stop)))
            {
                queued.pop_front();
                started.stop();
            }
            worker = Some(started);
        }
    }
}

/// Runs `job` on a new thread. A panic in it is caught and reported as `Done(Err(…))`,
/// so the main loop answers ERROR and keeps serving instead of waiting forever.
fn start_worker<J>(job: J, pondering: bool, realtime: bool, events: Sender<Event>) -> Worker
where
    J: FnOnce(&AtomicBool, &mut dyn Reporter) -> TaskResult + Send + 'static,
{
    let stop = Arc::new(AtomicBool::new(false));
    let worker_stop = Arc::clone(&stop);
    thread::spawn(move || {
        let mut reporter = ChannelReporter {
            events: events.clone(),
            realtime,
            shown: None,
            last_shown: None,
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| job(&worker_stop, &mut reporter)))
            .map_err(|payload| panic_text(payload.as_ref()));
        let _ = events.send(Event::Done(result));
    });
    Worker { stop, pondering }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines a reporter sends for `events`.
    fn realtime_lines(realtime: bool, events: &[(RootEventKind, u32, u32, u64)]) -> Vec<String> {
        let (sender, inbox) = mpsc::channel();
        let mut reporter = ChannelReporter {
            events: sender,
            realtime,
            shown: None,
            last_shown: None,
        };
        for &(kind, x, depth, millis) in events {
            reporter.root_event(&RootEvent {
                kind,
                pos: Pos::new(x as usize, 0),
                depth,
                elapsed: Duration::from_millis(millis),
            });
        }
        drop(reporter);
        inbox
            .iter()
            .flat_map(|event| match event {
                Event::Lines(lines) => lines,
                _ => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn realtime_marks_come_only_when_asked_deep_enough_and_not_too_often() {
        use RootEventKind::*;
        let events = [
            (Searching, 1, 4, 900),
            (Searching, 1, 5, 100),
            (Searching, 1, 5, 300),
            (Searched, 1, 5, 301),
            (Best, 1, 5, 301),
            (Searching, 2, 5, 320),
            (Searched, 2, 5, 330),
            (Searching, 3, 5, 360),
            (Searched, 3, 5, 370),
            (Lost, 3, 5, 370),
        ];
        assert!(realtime_lines(false, &events).is_empty());
        assert_eq!(
            realtime_lines(true, &events),
            [
                "MESSAGE REALTIME POS 1,0",
                "MESSAGE REALTIME DONE 1,0",
                "MESSAGE REALTIME BEST 1,0",
                "MESSAGE REALTIME POS 3,0",
                "MESSAGE REALTIME DONE 3,0",
                "MESSAGE REALTIME LOST 3,0",
            ]
        );
    }
    use crate::protocol::session::ABOUT;

    #[test]
    fn a_panicking_worker_is_reported_not_fatal() {
        let (events, inbox) = mpsc::channel();
        start_worker(
            |_: &AtomicBool, _: &mut dyn Reporter| panic!("boom"),
            false,
            false,
            events,
        );
        match inbox.recv_timeout(std::time::Duration::from_secs(5)) {
            Ok(Event::Done(Err(reason))) => assert_eq!(reason, "boom"),
            _ => panic!("the worker's panic was not reported"),
        }
    }

    #[test]
    fn moves_come_from_the_reader_in_every_line_ending() {
        let input = b"start 15\r\nABOUT\rINFO timeout_turn 50\n\n  TURN 7,7  \r\n".to_vec();
        let mut output = Vec::new();
        run(std::io::Cursor::new(input), &mut output, Vec::new()).unwrap();
        let text = String::from_utf8(output).unwrap();
        let answers: Vec<&str> = text.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
        assert_eq!(answers.len(), 3, "{text}");
        assert_eq!(answers[0], "OK");
        assert_eq!(answers[1], ABOUT);
        assert!(answers[2].contains(','));
    }
}

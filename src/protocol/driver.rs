//! The protocol driver: owns the game and the settings, turns commands into answers, runs
//! the thinking on a worker thread, and is the only writer to stdout.
//!
//! Two parts. [`Session`] is the synchronous state machine: a line in, answer lines and
//! at most one [`Task`] out; a command it rejects leaves it exactly as it was. [`run`]
//! wires it to the world: a reader thread turns input into lines, a worker thread runs
//! each task, and the main loop serialises everything through one channel, so `END`,
//! `STOP` and `YXSTOP` are seen within milliseconds even while the worker thinks.

use super::parse::{self, BlockKind, BlockLine, Command, Coord, Info, ParseError};
use crate::board::{Board, Cell, Color, MAX_SIZE, MIN_SIZE, Pos};
use crate::logging;
use crate::opening::{Swap2, Swap2Answer};
use crate::rules::{self, Rule, RuleSetting};
use crate::search::{self, Engine, Limits, Progress, Reporter, ScoredMove};
use crate::time::{self, TimeSettings};
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Instant;

pub const ABOUT: &str = concat!(
    "name=\"Lianzhu\", version=\"",
    env!("CARGO_PKG_VERSION"),
    "\", author=\"The Lianzhu developers\", country=\"-\", www=\"-\""
);

/// Input lines longer than this are cut and answered with an error.
const MAX_LINE_BYTES: usize = 1 << 20;

/// Settings from INFO, kept across games.
#[derive(Clone, Debug)]
pub struct Settings {
    pub rule: RuleSetting,
    pub timeout_turn_ms: i64,
    pub timeout_match_ms: i64,
    pub time_left_ms: i64,
    pub max_memory: u64,
    pub game_type: i64,
    pub folder: Option<String>,
    pub threads: u32,
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    pub pondering: bool,
    pub caution_factor: i64,
    pub show_detail: i64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            rule: RuleSetting {
                rule: Rule::Freestyle,
                continuous: false,
            },
            timeout_turn_ms: 30_000,
            timeout_match_ms: 1_000_000_000,
            time_left_ms: i64::from(i32::MAX),
            max_memory: 0,
            game_type: 1,
            folder: None,
            threads: 1,
            max_depth: None,
            max_nodes: None,
            pondering: false,
            caution_factor: 0,
            show_detail: 0,
        }
    }
}

/// Work for the worker thread.
#[derive(Clone)]
pub enum Task {
    /// Find the `count` best moves of the side to move; with `play`, play the best.
    Think {
        engine: Arc<Mutex<Engine>>,
        board: Board,
        count: usize,
        play: bool,
        limits: Limits,
    },
    Swap2 {
        engine: Arc<Mutex<Engine>>,
        board: Board,
        limits: Limits,
    },
    /// Think on the opponent's time (`INFO pondering 1`) until stopped, only to fill
    /// the table for the next search; nothing is reported.
    Ponder {
        engine: Arc<Mutex<Engine>>,
        board: Board,
        limits: Limits,
    },
}

/// What the worker hands back.
#[derive(Debug)]
pub enum TaskResult {
    Moves {
        moves: Vec<ScoredMove>,
        count: usize,
        play: bool,
    },
    Swap2(Swap2Answer),
    Pondered,
}

impl Task {
    /// Carries the task out; runs on the worker thread.
    pub fn run(self, stop: &AtomicBool, reporter: &mut dyn Reporter) -> TaskResult {
        match self {
            Task::Think {
                engine,
                board,
                count,
                play,
                limits,
            } => {
                let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
                TaskResult::Moves {
                    moves: engine.best_moves(&board, count, &limits, stop, reporter),
                    count,
                    play,
                }
            }
            Task::Swap2 {
                engine,
                board,
                limits,
            } => {
                let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
                TaskResult::Swap2(Swap2::new(&mut engine, &limits, stop).answer(&board))
            }
            Task::Ponder {
                engine,
                board,
                limits,
            } => {
                let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
                engine.ponder(&board, &limits, stop);
                TaskResult::Pondered
            }
        }
    }

    /// Whether the task only uses idle time and gives way to the next command.
    pub fn is_ponder(&self) -> bool {
        matches!(self, Task::Ponder { .. })
    }
}

/// What a line asks of the outside.
#[derive(Default)]
pub struct Output {
    pub lines: Vec<String>,
    pub task: Option<Task>,
    pub exit: bool,
}

impl Output {
    fn line(text: impl Into<String>) -> Output {
        Output {
            lines: vec![text.into()],
            ..Output::default()
        }
    }

    fn error(text: impl AsRef<str>) -> Output {
        Output::line(format!("ERROR {}", text.as_ref()))
    }

    fn task(task: Task) -> Output {
        Output {
            task: Some(task),
            ..Output::default()
        }
    }
}

struct OpenBlock {
    kind: BlockKind,
    stones: Vec<(Coord, Option<i64>)>,
    /// The first bad line, reported at DONE.
    error: Option<String>,
}

/// The game state and settings, driven one line at a time.
#[derive(Default)]
pub struct Session {
    settings: Settings,
    board: Option<Board>,
    block: Option<OpenBlock>,
    /// Shared with the worker while it thinks; never locked here meanwhile, because
    /// commands wait in the queue until the worker is done.
    engine: Arc<Mutex<Engine>>,
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    /// Handles one input line (without its line ending).
    pub fn handle_line(&mut self, raw: &str) -> Output {
        let line = raw.trim();
        if line.is_empty() {
            return Output::default();
        }
        if self.block.is_some() {
            return self.block_line(line);
        }
        match parse::command(line) {
            Ok(command) => self.command(command),
            Err(ParseError::Unknown(text)) => Output::line(format!("UNKNOWN command '{text}'")),
            Err(ParseError::Malformed(text)) => Output::error(text),
        }
    }

    fn command(&mut self, command: Command) -> Output {
        match command {
            Command::Start { width, height } => self.start(width, height),
            Command::Restart => match &self.board {
                Some(board) => {
                    let (w, h) = (board.width(), board.height());
                    self.board = Some(Board::new(w, h, self.settings.rule.rule));
                    Output::line("OK")
                }
                None => Output::error("RESTART before START: no board size known"),
            },
            Command::Begin => self.with_board(|board, _| match board.history().len() {
                0 => Ok(()),
                1 => Err("BEGIN needs an empty board; this one has a stone".into()),
                stones => Err(format!(
                    "BEGIN needs an empty board; this one has {stones} stones"
                )),
            }),
            Command::Turn(at) => self.turn(at),
            Command::Takeback(at) => self.takeback(at),
            Command::Play(at) => self.play(at),
            Command::Block(kind) => {
                self.block = Some(OpenBlock {
                    kind,
                    stones: Vec::new(),
                    error: None,
                });
                Output::default()
            }
            Command::About => Output::line(ABOUT),
            Command::End => Output {
                exit: true,
                ..Output::default()
            },
            Command::Info(info) => self.info(info),
            Command::ShowForbid => self.show_forbid(),
            Command::NBest(count) => self.nbest(count),
            Command::HashClear => {
                self.engine().clear();
                Output::default()
            }
            Command::Stop => Output::default(),
        }
    }

    fn start(&mut self, width: i64, height: i64) -> Output {
        let range = MIN_SIZE as i64..=MAX_SIZE as i64;
        if !range.contains(&width) || !range.contains(&height) {
            return Output::error(format!(
                "unsupported board size {width}x{height}: sizes {MIN_SIZE} to {MAX_SIZE} are supported"
            ));
        }
        // START is the one command whose time the manager does not count: finish every
        // rule's tables here, or a later `INFO rule` would build them on the clock of
        // the first move (a renju move took 1 027 ms at 1 s/turn that way).
        build_tables();
        self.board = Some(Board::new(
            width as usize,
            height as usize,
            self.settings.rule.rule,
        ));
        Output::line("OK")
    }

    fn engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Limits for a search starting now on `board`.
    fn limits(&self, board: &Board) -> Limits {
        let settings = &self.settings;
        let time_settings = TimeSettings {
            turn_ms: settings.timeout_turn_ms,
            match_ms: settings.timeout_match_ms,
            left_ms: settings.time_left_ms,
        };
        let budget = time::budget(time_settings, board.empty_points().count());
        let now = Instant::now();
        let max_depth = match (settings.max_depth, budget.max_depth) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Limits {
            deadline: Some(now + budget.hard),
            soft_deadline: Some(now + budget.soft),
            max_depth,
            max_nodes: settings.max_nodes,
        }
    }

    fn think_task(&self, board: Board, count: usize, play: bool) -> Task {
        let threads = self.settings.threads as usize;
        let table_bytes = search::table_bytes_for(self.settings.max_memory, threads);
        let mut engine = self.engine();
        engine.resize_table(table_bytes);
        engine.set_threads(threads);
        drop(engine);
        Task::Think {
            engine: Arc::clone(&self.engine),
            limits: self.limits(&board),
            board,
            count,
            play,
        }
    }

    /// Applies `change` to a copy of the board and, if it succeeds, [`Self::answer`]s it.
    /// Otherwise nothing changes.
    fn with_board(
        &mut self,
        change: impl FnOnce(&mut Board, &Settings) -> Result<(), String>,
    ) -> Output {
        let Some(board) = &self.board else {
            return Output::error("no board: send START first");
        };
        let mut board = board.clone();
        if let Err(message) = change(&mut board, &self.settings) {
            return Output::error(message);
        }
        self.answer(board, 1, true)
    }

    /// Keeps `board` and asks for its best `count` moves, the first played if `play`.
    /// With no empty point left that is an error and nothing changes. When every empty
    /// point is a foul for Black under renju, there is no legal move and the protocol has
    /// no pass: the answer is a foul at once, which loses as any answer would, instead of
    /// silence until the manager's timeout.
    fn answer(&mut self, mut board: Board, count: usize, play: bool) -> Output {
        let empties: Vec<Pos> = board.empty_points().collect();
        let Some(&foul) = empties.first() else {
            return Output::error("no legal move left: the board is full");
        };
        let me = board.to_move();
        if empties.iter().all(|&p| !rules::is_legal(&mut board, p, me)) {
            if play {
                board.play(foul);
            }
            self.board = Some(board);
            return Output {
                lines: vec![
                    "MESSAGE every empty point is forbidden for Black: a foul is the only answer"
                        .into(),
                    foul.to_string(),
                ],
                ..Output::default()
            };
        }
        self.board = Some(board.clone());
        Output::task(self.think_task(board, count, play))
    }

    fn turn(&mut self, at: Coord) -> Output {
        self.with_board(|board, _| {
            let pos = empty_point(board, at)?;
            board.play(pos);
            Ok(())
        })
    }

    fn takeback(&mut self, at: Coord) -> Output {
        let Some(board) = &mut self.board else {
            return Output::error("no board: send START first");
        };
        match board.pos(at.x, at.y) {
            None => Output::error(format!(
                "TAKEBACK {at} is off the {}x{} board",
                board.width(),
                board.height()
            )),
            Some(pos) if board.remove(pos) => Output::line("OK"),
            Some(_) => Output::error(format!("TAKEBACK {at}: the square is empty")),
        }
    }

    fn play(&mut self, at: Coord) -> Output {
        let Some(board) = &mut self.board else {
            return Output::error("no board: send START first");
        };
        let pos = match empty_point(board, at) {
            Ok(pos) => pos,
            Err(message) => return Output::error(message),
        };
        if !rules::is_legal(board, pos, board.to_move()) {
            return Output::error(format!("PLAY {at} is forbidden for Black under renju"));
        }
        board.play(pos);
        Output::line(pos.to_string())
    }

    fn info(&mut self, info: Info) -> Output {
        let settings = &mut self.settings;
        match info {
            Info::TimeoutTurn(ms) => settings.timeout_turn_ms = ms,
            Info::TimeoutMatch(ms) => settings.timeout_match_ms = ms,
            Info::TimeLeft(ms) => settings.time_left_ms = ms,
            Info::MaxMemory(bytes) => settings.max_memory = bytes,
            Info::GameType(kind) => settings.game_type = kind,
            Info::Rule(mask) => {
                let Some(rule) = RuleSetting::from_mask(mask) else {
                    return Output::error(format!(
                        "INFO rule {mask} is not supported: use 0, 1, 4 or 8, plus 2 for a continuous game"
                    ));
                };
                settings.rule = rule;
                if let Some(board) = &mut self.board {
                    board.set_rule(rule.rule);
                }
            }
            Info::Folder(folder) => {
                match logging::log_to_folder(Path::new(&folder)) {
                    Ok(path) => log::info!("logging to {}", path.display()),
                    Err(error) => log::warn!("cannot log under {folder}: {error}"),
                }
                settings.folder = Some(folder);
            }
            Info::ThreadNum(threads) => {
                let clamped = threads.clamp(1, search::MAX_THREADS as u32);
                if clamped != threads {
                    log::warn!(
                        "INFO thread_num {threads}: using {clamped} (1 to {})",
                        search::MAX_THREADS
                    );
                }
                settings.threads = clamped;
            }
            Info::MaxDepth(depth) => settings.max_depth = (depth > 0).then_some(depth),
            Info::MaxNode(nodes) => settings.max_nodes = (nodes > 0).then_some(nodes),
            Info::Pondering(on) => settings.pondering = on,
            Info::CautionFactor(value) => settings.caution_factor = value,
            Info::ShowDetail(value) => settings.show_detail = value,
            Info::Ignored => {}
        }
        Output::default()
    }

    fn show_forbid(&mut self) -> Output {
        let Some(board) = &mut self.board else {
            return Output::error("no board: send START first");
        };
        let mut text = String::from("FORBID ");
        if board.to_move() == Color::Black {
            for (pos, _) in rules::forbidden_points(board) {
                text.push_str(&format!("{:02}{:02}", pos.x(), pos.y()));
            }
        }
        text.push('.');
        Output::line(text)
    }

    fn nbest(&mut self, count: i64) -> Output {
        let Some(board) = &mut self.board else {
            return Output::error("no board: send START first");
        };
        if count < 1 {
            return Output::error(format!("YXNBEST {count}: the count must be at least 1"));
        }
        let count = count.min(board.width() as i64 * board.height() as i64) as usize;
        let board = board.clone();
        self.answer(board, count, false)
    }

    fn block_line(&mut self, line: &str) -> Output {
        let block = self.block.as_mut().expect("called inside a block");
        match parse::block_line(line) {
            Ok(BlockLine::Done) => {
                let block = self.block.take().expect("inside a block");
                self.finish_block(block)
            }
            Ok(BlockLine::Stone { at, field }) => {
                block.stones.push((at, field));
                Output::default()
            }
            Err(_) if parse::looks_like_command(line) => {
                let name = block.kind.name();
                self.block = None;
                let mut output = self.handle_line(line);
                output.lines.insert(
                    0,
                    format!(
                        "ERROR {name} abandoned: no DONE before '{}'",
                        parse::quote(line)
                    ),
                );
                output
            }
            Err(ParseError::Malformed(text) | ParseError::Unknown(text)) => {
                block.error.get_or_insert(text);
                Output::default()
            }
        }
    }

    fn finish_block(&mut self, block: OpenBlock) -> Output {
        let name = block.kind.name();
        let Some(current) = &self.board else {
            return Output::error(format!("{name} before START: no board"));
        };
        if let Some(error) = block.error {
            return Output::error(format!("{name} rejected: {error}"));
        }
        let mut board = Board::new(current.width(), current.height(), self.settings.rule.rule);
        let setup = match block.kind {
            BlockKind::Swap2Board => set_up_swap2(&mut board, &block.stones),
            BlockKind::Board | BlockKind::YxBoard => {
                set_up_position(&mut board, &block.stones, self.settings.rule.rule)
            }
        };
        if let Err(message) = setup {
            return Output::error(format!("{name} rejected: {message}"));
        }
        match block.kind {
            BlockKind::YxBoard => {
                self.board = Some(board);
                Output::default()
            }
            BlockKind::Board => self.answer(board, 1, true),
            BlockKind::Swap2Board => {
                self.board = Some(board.clone());
                Output::task(Task::Swap2 {
                    engine: Arc::clone(&self.engine),
                    limits: self.limits(&board),
                    board,
                })
            }
        }
    }

    /// Takes the worker's result: answer lines, and the engine's move played on the board.
    pub fn finish(&mut self, result: TaskResult) -> Output {
        match result {
            TaskResult::Moves { moves, count, play } => self.finish_moves(moves, count, play),
            TaskResult::Swap2(answer) => self.finish_swap2(answer),
            TaskResult::Pondered => Output::default(),
        }
    }

    fn finish_moves(&mut self, moves: Vec<ScoredMove>, count: usize, play: bool) -> Output {
        let Some(best) = moves.first() else {
            return Output::error("no legal move");
        };
        let mut output = Output::default();
        if count > 1 {
            for (rank, m) in moves.iter().enumerate() {
                output.lines.push(format!(
                    "MESSAGE nbest {} {} ev {}",
                    rank + 1,
                    m.pos,
                    m.score
                ));
            }
        }
        if play && let Some(board) = &mut self.board {
            board.play(best.pos);
        }
        output.lines.push(best.pos.to_string());
        if play {
            output.task = self.ponder_task();
        }
        output
    }

    /// With `INFO pondering 1`: a search of the position the opponent faces, with no
    /// deadline, while the game goes on.
    fn ponder_task(&self) -> Option<Task> {
        let board = self.board.as_ref()?;
        if !self.settings.pondering || board.is_full() {
            return None;
        }
        Some(Task::Ponder {
            engine: Arc::clone(&self.engine),
            board: board.clone(),
            limits: Limits {
                max_depth: self.settings.max_depth,
                max_nodes: self.settings.max_nodes,
                ..Limits::default()
            },
        })
    }

    fn finish_swap2(&mut self, answer: Swap2Answer) -> Output {
        let board = self.board.as_mut().expect("swap2 runs on a board");
        match answer {
            Swap2Answer::Swap => Output::line("SWAP"),
            Swap2Answer::Stones(stones) => {
                for &pos in &stones {
                    board.play(pos);
                }
                let text: Vec<String> = stones.iter().map(|p| p.to_string()).collect();
                Output::line(text.join(" "))
            }
        }
    }
}

fn empty_point(board: &Board, at: Coord) -> Result<Pos, String> {
    let pos = board
        .pos(at.x, at.y)
        .ok_or_else(|| format!("{at} is off the {}x{} board", board.width(), board.height()))?;
    if board.is_empty(pos) {
        Ok(pos)
    } else {
        Err(format!("{at} is already occupied"))
    }
}

/// Fills an empty board from BOARD lines: field 1 the engine's stones, 2 the opponent's,
/// 3 a stone of nobody's. The engine is to move: Black with as many stones as the
/// opponent, White with one fewer (any other count is refused only under renju).
fn set_up_position(
    board: &mut Board,
    stones: &[(Coord, Option<i64>)],
    rule: Rule,
) -> Result<(), String> {
    let count = |field| stones.iter().filter(|(_, f)| *f == Some(field)).count();
    let (own, opponent) = (count(1), count(2));
    let own_color = if own == opponent {
        Color::Black
    } else if own + 1 == opponent {
        Color::White
    } else if rule == Rule::Renju {
        return Err(format!(
            "{own} own and {opponent} opponent stones cannot occur under renju"
        ));
    } else if own < opponent {
        Color::White
    } else {
        Color::Black
    };
    for &(at, field) in stones {
        let cell = match field {
            Some(1) => Cell::Stone(own_color),
            Some(2) => Cell::Stone(own_color.opponent()),
            Some(3) => Cell::Wall,
            Some(other) => return Err(format!("stone {at}: field {other} is not 1, 2 or 3")),
            None => return Err(format!("stone {at}: the field X,Y,F is missing")),
        };
        let pos = empty_point(board, at).map_err(|e| format!("stone {e}"))?;
        board.put(pos, cell);
    }
    board.set_to_move(own_color);
    Ok(())
}

/// Fills an empty board from SWAP2BOARD lines: stones in move order, Black first; a
/// field, if given, is ignored since the order fixes the colours.
fn set_up_swap2(board: &mut Board, stones: &[(Coord, Option<i64>)]) -> Result<(), String> {
    if ![0, 3, 5].contains(&stones.len()) {
        return Err(format!(
            "{} stones: swap2 positions have 0, 3 or 5",
            stones.len()
        ));
    }
    for &(at, _) in stones {
        let pos = empty_point(board, at).map_err(|e| format!("stone {e}"))?;
        board.play(pos);
    }
    Ok(())
}

/// Starts building the pattern tables of every rule on a background thread at launch;
/// START then waits for the rest.
pub fn prepare_tables() {
    thread::spawn(build_tables);
}

/// The pattern tables of every rule and the move-ordering values, built once per
/// process; a call while another thread builds them waits for it.
fn build_tables() {
    for rule in [Rule::Freestyle, Rule::Renju, Rule::Standard, Rule::Caro] {
        rule.pattern_pairs();
    }
    crate::eval::build_tables();
}

/// Events of the main loop.
enum Event {
    Line(String),
    TooLong(usize),
    Eof,
    Progress(Progress),
    Done(Result<TaskResult, String>),
}

struct ChannelReporter(Sender<Event>);

impl Reporter for ChannelReporter {
    fn progress(&mut self, progress: &Progress) {
        // The main loop may be gone after END; nothing is lost then.
        let _ = self.0.send(Event::Progress(progress.clone()));
    }
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
/// every command read before its end has been answered.
pub fn run(input: impl BufRead + Send + 'static, mut output: impl Write) -> std::io::Result<()> {
    let (events, inbox) = mpsc::channel();
    let reader_events = events.clone();
    thread::spawn(move || read_lines(input, reader_events));
    let mut session = Session::new();
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
            let pondering = task.is_ponder();
            let job =
                move |stop: &AtomicBool, reporter: &mut dyn Reporter| task.run(stop, reporter);
            let started = start_worker(job, pondering, events.clone());
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
fn start_worker<J>(job: J, pondering: bool, events: Sender<Event>) -> Worker
where
    J: FnOnce(&AtomicBool, &mut dyn Reporter) -> TaskResult + Send + 'static,
{
    let stop = Arc::new(AtomicBool::new(false));
    let worker_stop = Arc::clone(&stop);
    thread::spawn(move || {
        let mut reporter = ChannelReporter(events.clone());
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
    use super::tests_support::{feed_one, snapshot};
    use super::*;

    fn feed(session: &mut Session, lines: &[&str]) -> Vec<String> {
        lines
            .iter()
            .flat_map(|line| feed_one(session, line))
            .collect()
    }

    #[test]
    fn a_panicking_worker_is_reported_not_fatal() {
        let (events, inbox) = mpsc::channel();
        start_worker(
            |_: &AtomicBool, _: &mut dyn Reporter| panic!("boom"),
            false,
            events,
        );
        match inbox.recv_timeout(std::time::Duration::from_secs(5)) {
            Ok(Event::Done(Err(reason))) => assert_eq!(reason, "boom"),
            _ => panic!("the worker's panic was not reported"),
        }
    }

    #[test]
    fn rejected_commands_leave_the_session_unchanged() {
        let mut session = Session::new();
        feed(
            &mut session,
            &[
                "INFO timeout_turn 50",
                "INFO rule 4",
                "START 15",
                "TURN 7,7",
                "TURN 9,9",
            ],
        );
        let before = snapshot(&session);
        let bad_inputs: &[&[&str]] = &[
            &["START 4"],
            &["START 33"],
            &["RECTSTART 3,40"],
            &["TURN 7,7"],
            &["TURN 15,1"],
            &["TURN a,b"],
            &["TAKEBACK 0,0"],
            &["TAKEBACK 99,99"],
            &["PLAY 7,7"],
            &["INFO rule 5"],
            &["INFO timeout_turn x"],
            &["YXNBEST 0"],
            &["BOARD", "1,1,1", "1,1,2", "DONE"],
            &["BOARD", "1,1,1", "DONE"],
            &["YXBOARD", "1,1,1", "1,x,1", "DONE"],
            &["SWAP2BOARD", "1,1", "DONE"],
            &["FROBNICATE"],
            &["BEGIN now"],
            &["BEGIN"],
        ];
        for lines in bad_inputs {
            let answers = feed(&mut session, lines);
            assert!(
                answers
                    .iter()
                    .any(|a| a.starts_with("ERROR") || a.starts_with("UNKNOWN")),
                "{lines:?} → {answers:?}"
            );
            assert_eq!(snapshot(&session), before, "{lines:?} changed the session");
        }
    }

    #[test]
    fn out_of_range_thread_counts_are_clamped() {
        let mut session = Session::new();
        feed(&mut session, &["INFO thread_num 0"]);
        assert_eq!(session.settings().threads, 1);
        feed(&mut session, &["INFO thread_num 100"]);
        assert_eq!(session.settings().threads, search::MAX_THREADS as u32);
    }

    #[test]
    fn a_turn_on_the_last_empty_point_is_refused_whole() {
        let mut session = Session::new();
        feed(&mut session, &["INFO timeout_turn 50", "START 5"]);
        let mut setup = vec!["YXBOARD".to_string()];
        let mut field = 1;
        for y in 0..5 {
            for x in 0..5 {
                if (x, y) != (4, 4) {
                    setup.push(format!("{x},{y},{field}"));
                    field = 3 - field;
                }
            }
        }
        setup.push("DONE".into());
        let lines: Vec<&str> = setup.iter().map(String::as_str).collect();
        assert!(feed(&mut session, &lines).is_empty());
        let before = snapshot(&session);
        let answers = feed(&mut session, &["TURN 4,4"]);
        assert_eq!(answers, ["ERROR no legal move left: the board is full"]);
        assert_eq!(snapshot(&session), before);
    }

    #[test]
    fn moves_come_from_the_reader_in_every_line_ending() {
        let input = b"start 15\r\nABOUT\rINFO timeout_turn 50\n\n  TURN 7,7  \r\n".to_vec();
        let mut output = Vec::new();
        run(std::io::Cursor::new(input), &mut output).unwrap();
        let text = String::from_utf8(output).unwrap();
        let answers: Vec<&str> = text.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
        assert_eq!(answers.len(), 3, "{text}");
        assert_eq!(answers[0], "OK");
        assert_eq!(answers[1], ABOUT);
        assert!(answers[2].contains(','));
    }
}

/// Random and mutated command streams: nothing panics, every answer is well formed, and
/// a command answered only by ERROR or UNKNOWN leaves the session exactly as it was.
/// `LIANZHU_FUZZ_LINES` sets how many lines (3000 by default).
#[cfg(test)]
mod fuzz {
    use super::tests_support::{feed_one, snapshot};
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    const WORDS: [&str; 24] = [
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
        "STOP",
        "YXSTOP",
        "SUGGEST",
        "FOO",
        "",
        "1,2",
        "3,4,1",
        "-1,5",
    ];
    const INFO_KEYS: [&str; 12] = [
        "timeout_turn",
        "timeout_match",
        "time_left",
        "max_memory",
        "rule",
        "game_type",
        "folder",
        "thread_num",
        "max_depth",
        "max_node",
        "pondering",
        "evaluate",
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
            let in_block = session.block.is_some();
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
}

#[cfg(test)]
mod tests_support {
    use super::*;

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
}

//! The session: the synchronous state machine of the protocol. A line in, answer lines
//! and at most one [`Task`] out; a command it rejects leaves it exactly as it was. It
//! owns the game and the settings; [`super::io`] wires it to stdin, stdout and the
//! worker thread.

use super::database::DatabaseSession;
use super::parse::{self, BlockKind, BlockLine, Command, Coord, DbRequest, Info, ParseError};
use super::setup::{empty_point, set_up_position, set_up_swap2};
use super::task::{Task, TaskResult};
use crate::board::{Board, Color, MAX_SIZE, MIN_SIZE, Pos};
use crate::logging;
use crate::net::{self, Network};
use crate::opening::Swap2Answer;
use crate::rules::{self, Rule, RuleSetting};
use crate::search::{self, Engine, Limits, ScoredMove};
use crate::tables;
use crate::time::{self, TimeSettings};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

pub const ABOUT: &str = concat!(
    "name=\"Lianzhu\", version=\"",
    env!("CARGO_PKG_VERSION"),
    "\", author=\"The Lianzhu developers\", country=\"-\", www=\"-\""
);

/// The lines of an answer, or its one ERROR line.
fn answered(answer: Result<Vec<String>, String>) -> Output {
    match answer {
        Ok(lines) => Output {
            lines,
            ..Output::default()
        },
        Err(message) => Output::error(message),
    }
}

/// The largest table `INFO hash_size` may ask for, as Yixin-Board's handshake gives it:
/// the base-2 logarithm of its size in KiB (2^24 KiB = 16 GiB).
const MAX_HASH_SIZE_LOG2: u32 = 24;

/// Settings from INFO, kept across games.
#[derive(Clone, Debug)]
pub struct Settings {
    pub rule: RuleSetting,
    pub timeout_turn_ms: i64,
    pub timeout_match_ms: i64,
    pub time_left_ms: i64,
    pub max_memory: u64,
    /// The table's size in KiB from `INFO hash_size`; 0 sizes it by `max_memory`.
    pub hash_kib: u64,
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
            hash_kib: 0,
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

/// What a line asks of the outside.
#[derive(Default)]
pub struct Output {
    pub lines: Vec<String>,
    pub task: Option<Task>,
    pub exit: bool,
}

impl Output {
    pub(super) fn line(text: impl Into<String>) -> Output {
        Output {
            lines: vec![text.into()],
            ..Output::default()
        }
    }

    pub(super) fn error(text: impl AsRef<str>) -> Output {
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
    /// For a database command: what to do with the position.
    request: Option<DbRequest>,
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
    /// Points the engine may not answer with (YXBLOCK), until YXBLOCKRESET or START.
    blocked: Vec<Pos>,
    /// The position database and how it is used.
    database: DatabaseSession,
    /// Shared with the worker while it thinks; never locked here meanwhile, because
    /// commands wait in the queue until the worker is done.
    engine: Arc<Mutex<Engine>>,
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    /// A session whose engine scores the positions of each network's rule with it.
    pub fn with_networks(networks: Vec<Arc<Network>>) -> Session {
        let session = Session::default();
        session.engine().use_networks(networks);
        session
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Whether a BOARD, YXBOARD or SWAP2BOARD block is open (its lines are being read).
    pub fn in_block(&self) -> bool {
        self.block.is_some()
    }

    /// The points the engine may not answer with.
    pub fn blocked(&self) -> &[Pos] {
        &self.blocked
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
            Command::Block(kind) => self.open_block(kind, None),
            Command::DatabaseBlock(request) => self.open_block(BlockKind::Database, Some(request)),
            Command::SetDatabase(path) => answered(self.database.set_path(&path)),
            Command::SaveDatabase => answered(self.database.save()),
            Command::ExportDatabase { path, all } => {
                let only = (self.board.as_ref())
                    .filter(|_| !all)
                    .map(|b| (b.rule(), b.width(), b.height()));
                answered(self.database.export(&path, only))
            }
            Command::ImportDatabase(path) => answered(self.database.import(&path)),
            Command::About => Output::line(ABOUT),
            Command::End => Output {
                exit: true,
                ..Output::default()
            },
            Command::Info(info) => self.info(info),
            Command::ShowForbid => self.show_forbid(),
            Command::NBest(count) => self.nbest(count),
            Command::BlockReset => {
                self.blocked.clear();
                Output::default()
            }
            Command::ShowInfo => Output {
                lines: vec![
                    format!("MESSAGE Lianzhu {}", env!("CARGO_PKG_VERSION")),
                    format!("MESSAGE INFO MAX_THREAD_NUM {}", search::MAX_THREADS),
                    format!("MESSAGE INFO MAX_HASH_SIZE {MAX_HASH_SIZE_LOG2}"),
                ],
                ..Output::default()
            },
            Command::Balance { stones, bias } => self.balance(stones, bias as i32),
            Command::ShowHashUsage => {
                let (bytes, permill) = self.engine().table_usage();
                Output::line(format!(
                    "MESSAGE table usage {}.{}% of {} KiB",
                    permill / 10,
                    permill % 10,
                    bytes >> 10
                ))
            }
            Command::HashClear => {
                self.engine().clear();
                Output::default()
            }
            Command::Stop => Output::default(),
        }
    }

    fn open_block(&mut self, kind: BlockKind, request: Option<DbRequest>) -> Output {
        self.block = Some(OpenBlock {
            kind,
            request,
            stones: Vec::new(),
            error: None,
        });
        Output::default()
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
        tables::build();
        self.blocked.clear();
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
            blocked: self.blocked.clone(),
        }
    }

    fn think_task(&self, board: Board, count: usize, play: bool) -> Task {
        let threads = self.settings.threads as usize;
        let table_bytes = match self.settings.hash_kib {
            0 => search::table_bytes_for(self.settings.max_memory, threads),
            kib => (kib as usize).saturating_mul(1024),
        };
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
            realtime: matches!(self.settings.show_detail, 1 | 3),
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
        // The first legal point not blocked, and whether any point is legal at all;
        // checking stops at the first free one, as renju fouls cost to check.
        let mut any_legal = false;
        let free = empties.iter().copied().find(|&p| {
            let legal = rules::is_legal(&mut board, p, me);
            any_legal |= legal;
            legal && !self.blocked.contains(&p)
        });
        if any_legal && free.is_none() {
            return Output::error(format!(
                "every legal move is blocked: {} points by YXBLOCK",
                self.blocked.len()
            ));
        }
        if !any_legal {
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
        if count == 1
            && play
            && let Some(pos) = self.database.book_move(&board, &self.blocked)
        {
            board.play(pos);
            self.board = Some(board);
            return Output {
                lines: vec![format!("MESSAGE database: {pos} wins"), pos.to_string()],
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
            Info::MaxMemory(bytes) => {
                settings.max_memory = bytes;
                settings.hash_kib = 0;
            }
            Info::HashSize(kib) => {
                let clamped = kib.min(1 << MAX_HASH_SIZE_LOG2);
                if clamped != kib {
                    log::warn!("INFO hash_size {kib}: using {clamped} KiB, the largest table");
                }
                settings.hash_kib = clamped;
            }
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
            Info::UseDatabase(on) => return answered(self.database.set_use(on)),
            Info::DatabaseReadonly(on) => return answered(self.database.set_readonly(on)),
            Info::CautionFactor(value) => settings.caution_factor = value,
            Info::ShowDetail(value) => settings.show_detail = value,
            Info::EvalFile(file) if file.eq_ignore_ascii_case("classical") => {
                self.engine().clear_networks();
                log::info!("classical evaluation for every rule");
            }
            Info::EvalFile(file) if file.eq_ignore_ascii_case("builtin") => {
                self.engine().use_networks(net::builtin::networks());
                log::info!("the built-in networks");
            }
            Info::EvalFile(file) => match net::file::load(Path::new(&file)) {
                Ok(network) => {
                    log::info!("{file}: the network for {}", network.scope());
                    let network = Arc::new(network);
                    self.engine().set_network(network.clone());
                    if let Some(board) = &self.board
                        && board.rule() == network.rule
                        && !network.fits(board)
                    {
                        let scored_by = match self.engine().network(board) {
                            Some(other) => format!("the network for {}", other.scope()),
                            None => "the classical evaluation".to_string(),
                        };
                        log::warn!(
                            "{file} scores {}: this {}x{} board keeps {scored_by}",
                            network.scope(),
                            board.width(),
                            board.height()
                        );
                    }
                }
                Err(error) => {
                    return Output::error(format!(
                        "INFO evalfile: {error:#}; the evaluation is unchanged"
                    ));
                }
            },
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
        if matches!(block.kind, BlockKind::YxBlock | BlockKind::YxBlockUndo) {
            return self.change_blocked(block);
        }
        if block.kind == BlockKind::Database {
            return self.database_request(block);
        }
        let mut board = Board::new(current.width(), current.height(), self.settings.rule.rule);
        let setup = match block.kind {
            BlockKind::Swap2Board => set_up_swap2(&mut board, &block.stones),
            _ => set_up_position(&mut board, &block.stones, self.settings.rule.rule),
        };
        if let Err(message) = setup {
            return Output::error(format!("{name} rejected: {message}"));
        }
        match block.kind {
            BlockKind::Board => self.answer(board, 1, true),
            BlockKind::Swap2Board => {
                self.board = Some(board.clone());
                Output::task(Task::Swap2 {
                    engine: Arc::clone(&self.engine),
                    limits: self.limits(&board),
                    board,
                })
            }
            _ => {
                self.board = Some(board);
                Output::default()
            }
        }
    }

    /// A database command on the position its lines give, as moves from the empty
    /// board; the game's own board is not touched.
    fn database_request(&mut self, block: OpenBlock) -> Output {
        let current = self.board.as_ref().expect("checked by the caller");
        let mut board = Board::new(current.width(), current.height(), self.settings.rule.rule);
        for &(at, _) in &block.stones {
            match empty_point(&board, at) {
                Ok(pos) => board.play(pos),
                Err(message) => return Output::error(format!("database position: {message}")),
            }
        }
        let request = block.request.expect("a database block has its request");
        answered(self.database.request(&request, &board))
    }

    /// YXBLOCK adds its points to the blocked ones, YXBLOCKUNDO takes them off; a point
    /// off the board rejects the whole block.
    fn change_blocked(&mut self, block: OpenBlock) -> Output {
        let name = block.kind.name();
        let board = self.board.as_ref().expect("checked by the caller");
        let mut points = Vec::new();
        for &(at, _) in &block.stones {
            match board.pos(at.x, at.y) {
                Some(pos) => points.push(pos),
                None => {
                    return Output::error(format!(
                        "{name} rejected: {at} is off the {}x{} board",
                        board.width(),
                        board.height()
                    ));
                }
            }
        }
        for pos in points {
            let known = self.blocked.contains(&pos);
            match block.kind {
                BlockKind::YxBlock if !known => self.blocked.push(pos),
                BlockKind::YxBlockUndo => self.blocked.retain(|&p| p != pos),
                _ => {}
            }
        }
        Output::default()
    }

    /// YXBALANCEONE / YXBALANCETWO: searches for the stones, which are played when found.
    fn balance(&mut self, stones: usize, bias: i32) -> Output {
        let Some(board) = &self.board else {
            return Output::error("no board: send START first");
        };
        if board.empty_points().count() < stones {
            return Output::error(format!("no room for {stones} stones: the board is full"));
        }
        let board = board.clone();
        Output::task(Task::Balance {
            engine: Arc::clone(&self.engine),
            limits: self.limits(&board),
            board,
            stones,
            bias,
        })
    }

    /// Takes the worker's result: answer lines, and the engine's move played on the board.
    pub fn finish(&mut self, result: TaskResult) -> Output {
        match result {
            TaskResult::Moves {
                moves,
                count,
                play,
                depth,
            } => {
                if count == 1
                    && let (Some(board), Some(&best)) = (&self.board, moves.first())
                {
                    self.database.record(board, best, depth);
                }
                self.finish_moves(moves, count, play)
            }
            TaskResult::Swap2(answer) => self.finish_swap2(answer),
            TaskResult::Balance(None) => Output::error("no legal point is free to balance with"),
            TaskResult::Balance(Some(stones)) => self.play_stones(&stones),
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
        match answer {
            Swap2Answer::Swap => Output::line("SWAP"),
            Swap2Answer::Stones(stones) => self.play_stones(&stones),
        }
    }

    /// Plays the engine's `stones` in order and answers them on one line.
    fn play_stones(&mut self, stones: &[Pos]) -> Output {
        let board = self.board.as_mut().expect("the worker ran on a board");
        for &pos in stones {
            board.play(pos);
        }
        let text: Vec<String> = stones.iter().map(|p| p.to_string()).collect();
        Output::line(text.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{feed, snapshot};
    use super::*;

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

    /// A session on a 5x5 board whose points `walled` are walls and whose other points
    /// but `empty` hold stones of both colours in turn, all set up by YXBOARD.
    fn crowded_5x5(walled: impl Fn(usize, usize) -> bool, empty: &[(usize, usize)]) -> Session {
        let mut session = Session::new();
        feed(&mut session, &["INFO timeout_turn 50", "START 5"]);
        let mut setup = vec!["YXBOARD".to_string()];
        let mut field = 1;
        for y in 0..5 {
            for x in 0..5 {
                if walled(x, y) {
                    setup.push(format!("{x},{y},3"));
                } else if !empty.contains(&(x, y)) {
                    setup.push(format!("{x},{y},{field}"));
                    field = 3 - field;
                }
            }
        }
        setup.push("DONE".into());
        let lines: Vec<&str> = setup.iter().map(String::as_str).collect();
        assert!(feed(&mut session, &lines).is_empty());
        session
    }

    #[test]
    fn a_search_with_every_legal_move_blocked_is_refused_whole() {
        let walled = |x, y| y < 3 || (y == 3 && x < 2);
        let mut session = crowded_5x5(walled, &[(4, 4), (3, 4)]);
        assert!(feed(&mut session, &["YXBLOCK", "4,4", "3,4", "DONE"]).is_empty());
        let before = snapshot(&session);
        let answers = feed(&mut session, &["YXNBEST 1"]);
        assert_eq!(
            answers,
            ["ERROR every legal move is blocked: 2 points by YXBLOCK"]
        );
        assert_eq!(snapshot(&session), before);
        let answers = feed(&mut session, &["YXBLOCKUNDO", "3,4", "DONE", "YXNBEST 1"]);
        assert_eq!(
            answers.last().map(String::as_str),
            Some("3,4"),
            "{answers:?}"
        );
    }

    #[test]
    fn a_turn_on_the_last_empty_point_is_refused_whole() {
        let mut session = crowded_5x5(|_, _| false, &[(4, 4)]);
        let before = snapshot(&session);
        let answers = feed(&mut session, &["TURN 4,4"]);
        assert_eq!(answers, ["ERROR no legal move left: the board is full"]);
        assert_eq!(snapshot(&session), before);
    }
}

/// Helpers for the protocol's tests: feeding a session lines, and a snapshot of all it
/// holds, to compare before and after a rejected command.
#[cfg(test)]
pub(super) mod testing {
    use super::Session;
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
        format!(
            "{:?} {:?} {:?} {}",
            session.settings(),
            board,
            session.blocked(),
            session.database.describe()
        )
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
}

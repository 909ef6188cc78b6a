//! One protocol line → a typed [`Command`], or why not. Pure: no state, no output.
//!
//! Command words and INFO keys match in any letter case; surrounding white space is
//! ignored. Coordinates are parsed as plain numbers here; whether they lie on the board
//! is the driver's question.

use std::fmt;

/// A point as the manager wrote it, not yet checked against the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coord {
    pub x: i64,
    pub y: i64,
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// The commands that are followed by `X,Y[,F]` lines up to `DONE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Board,
    YxBoard,
    Swap2Board,
    /// Points the engine may not answer with (Yixin-Board): added.
    YxBlock,
    /// Points taken off that list.
    YxBlockUndo,
    /// A position for a database command, as moves from the empty board.
    Database,
}

impl BlockKind {
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Board => "BOARD",
            BlockKind::YxBoard => "YXBOARD",
            BlockKind::Swap2Board => "SWAP2BOARD",
            BlockKind::YxBlock => "YXBLOCK",
            BlockKind::YxBlockUndo => "YXBLOCKUNDO",
            BlockKind::Database => "database command",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Info {
    TimeoutTurn(i64),
    TimeoutMatch(i64),
    TimeLeft(i64),
    MaxMemory(u64),
    /// Yixin-Board's table size, in KiB.
    HashSize(u64),
    GameType(i64),
    Rule(u64),
    Folder(String),
    ThreadNum(u32),
    MaxDepth(u32),
    MaxNode(u64),
    Pondering(bool),
    UseDatabase(bool),
    DatabaseReadonly(bool),
    CautionFactor(i64),
    ShowDetail(i64),
    /// A weights file whose network scores positions of its rule, or `classical`.
    EvalFile(String),
    /// `evaluate` and keys we do not know: accepted and ignored.
    Ignored,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Start {
        width: i64,
        height: i64,
    },
    Restart,
    Begin,
    Turn(Coord),
    Takeback(Coord),
    Play(Coord),
    Block(BlockKind),
    About,
    End,
    Info(Info),
    ShowForbid,
    NBest(i64),
    HashClear,
    /// YXBLOCKRESET: no point is blocked any more.
    BlockReset,
    /// YXSHOWINFO: Yixin-Board's handshake.
    ShowInfo,
    /// YXSHOWHASHUSAGE: how full the table is.
    ShowHashUsage,
    /// YXBALANCEONE (1 stone) or YXBALANCETWO (2) with its bias.
    Balance {
        stones: usize,
        bias: i64,
    },
    /// YXSETDATABASE PATH: use the database at PATH.
    SetDatabase(String),
    /// YXSAVEDATABASE.
    SaveDatabase,
    /// YXDBTOTXT PATH (the current rule and size) or YXDBTOTXTALL PATH.
    ExportDatabase {
        path: String,
        all: bool,
    },
    /// YXTXTTODB PATH: read back what YXDBTOTXT wrote.
    ImportDatabase(String),
    /// A database command; its position follows as `X,Y` lines up to `DONE`.
    DatabaseBlock(DbRequest),
    Stop,
}

/// What a database command does with the position that follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbRequest {
    /// YXQUERYDATABASEALL: the records of the moves from the position.
    QueryAll,
    /// YXQUERYDATABASEONE: the position's record.
    QueryOne,
    /// YXQUERYDATABASETEXT: the position's comment.
    QueryText,
    /// YXEDITTVDDATABASE MASK LABEL VALUE DEPTH: `mask` picks which of label (1),
    /// value (2) and depth (4) to write.
    EditTvd {
        mask: i64,
        label: i64,
        value: i64,
        depth: i64,
    },
    /// YXEDITTEXTDATABASE "TEXT": the position's comment.
    EditText(String),
    /// YXEDITLABELDATABASE X,Y TEXT: the text shown on the board at the move X,Y.
    EditLabel { at: Coord, text: String },
    /// YXDELETEDATABASEONE: the position's record.
    DeleteOne,
    /// YXDELETEDATABASEALL: every record below the position.
    DeleteAll,
}

/// A line inside a BOARD, YXBOARD or SWAP2BOARD block.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockLine {
    Stone { at: Coord, field: Option<i64> },
    Done,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParseError {
    /// Not a command we know: answered `UNKNOWN`.
    Unknown(String),
    /// A known command with bad arguments: answered `ERROR`.
    Malformed(String),
}

/// Longest stretch of the offending input quoted back in an answer.
const QUOTE_LIMIT: usize = 40;

/// `text` shortened for quoting in an answer line.
pub fn quote(text: &str) -> String {
    if text.chars().count() <= QUOTE_LIMIT {
        text.to_string()
    } else {
        let head: String = text.chars().take(QUOTE_LIMIT).collect();
        format!("{head}... ({} characters)", text.chars().count())
    }
}

fn malformed(what: impl Into<String>) -> ParseError {
    ParseError::Malformed(what.into())
}

fn number(text: &str, what: &str) -> Result<i64, ParseError> {
    text.trim()
        .parse()
        .map_err(|_| malformed(format!("{what}: '{}' is not a number", quote(text.trim()))))
}

/// `X,Y` with optional spaces around the comma.
pub fn coord(text: &str) -> Result<Coord, ParseError> {
    let numbers = numbers(text, 2, "coordinates X,Y")?;
    Ok(Coord {
        x: numbers[0],
        y: numbers[1],
    })
}

fn numbers(text: &str, count: usize, what: &str) -> Result<Vec<i64>, ParseError> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != count {
        return Err(malformed(format!(
            "expected {what}, got '{}'",
            quote(text.trim())
        )));
    }
    parts.iter().map(|p| number(p, what)).collect()
}

/// Largest bias a balance command takes: beyond it every position is far from even.
const MAX_BALANCE_BIAS: i64 = 100_000;

/// A number within -max..=max.
fn bounded_number(text: &str, what: &str, max: i64) -> Result<i64, ParseError> {
    let n = number(text, what)?;
    if (-max..=max).contains(&n) {
        Ok(n)
    } else {
        Err(malformed(format!(
            "{what}: {n} is out of range -{max}..={max}"
        )))
    }
}

fn path(name: &str, rest: &str) -> Result<String, ParseError> {
    if rest.is_empty() {
        Err(malformed(format!("{name} needs a file path")))
    } else {
        Ok(rest.to_string())
    }
}

fn database(name: &str, rest: &str, request: DbRequest) -> Result<Command, ParseError> {
    no_argument(name, rest, Command::DatabaseBlock(request))
}

/// `"text"` with backslash escapes, as Yixin-Board quotes a comment.
fn quoted(name: &str, rest: &str) -> Result<String, ParseError> {
    let inner = (rest.len() >= 2)
        .then(|| rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
        .flatten()
        .ok_or_else(|| {
            malformed(format!(
                "{name} needs a \"quoted\" text, got '{}'",
                quote(rest)
            ))
        })?;
    let mut text = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        text.push(if c == '\\' {
            chars.next().unwrap_or('\\')
        } else {
            c
        });
    }
    Ok(text)
}

fn no_argument(name: &str, rest: &str, command: Command) -> Result<Command, ParseError> {
    if rest.is_empty() {
        Ok(command)
    } else {
        Err(malformed(format!(
            "{name} takes no argument, got '{}'",
            quote(rest)
        )))
    }
}

/// Parses one non-empty, trimmed command line.
pub fn command(line: &str) -> Result<Command, ParseError> {
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    let name = word.to_ascii_uppercase();
    match name.as_str() {
        "START" => {
            let size = number(rest, "START size")?;
            Ok(Command::Start {
                width: size,
                height: size,
            })
        }
        "RECTSTART" => {
            let size = numbers(rest, 2, "RECTSTART width,height")?;
            Ok(Command::Start {
                width: size[0],
                height: size[1],
            })
        }
        "RESTART" => no_argument(&name, rest, Command::Restart),
        "BEGIN" => no_argument(&name, rest, Command::Begin),
        "TURN" => Ok(Command::Turn(coord(rest)?)),
        "TAKEBACK" => Ok(Command::Takeback(coord(rest)?)),
        "PLAY" => Ok(Command::Play(coord(rest)?)),
        "BOARD" => no_argument(&name, rest, Command::Block(BlockKind::Board)),
        "YXBOARD" => no_argument(&name, rest, Command::Block(BlockKind::YxBoard)),
        "SWAP2BOARD" => no_argument(&name, rest, Command::Block(BlockKind::Swap2Board)),
        "YXBLOCK" => no_argument(&name, rest, Command::Block(BlockKind::YxBlock)),
        "YXBLOCKUNDO" => no_argument(&name, rest, Command::Block(BlockKind::YxBlockUndo)),
        "YXBLOCKRESET" => no_argument(&name, rest, Command::BlockReset),
        "ABOUT" => no_argument(&name, rest, Command::About),
        "END" => Ok(Command::End),
        "INFO" => Ok(Command::Info(info(rest)?)),
        "YXSHOWFORBID" => no_argument(&name, rest, Command::ShowForbid),
        "YXNBEST" => Ok(Command::NBest(number(rest, "YXNBEST count")?)),
        "YXHASHCLEAR" => no_argument(&name, rest, Command::HashClear),
        "YXSHOWINFO" => no_argument(&name, rest, Command::ShowInfo),
        "YXSETDATABASE" => Ok(Command::SetDatabase(path(&name, rest)?)),
        "YXSAVEDATABASE" => no_argument(&name, rest, Command::SaveDatabase),
        "YXDBTOTXT" | "YXDBTOTXTALL" => Ok(Command::ExportDatabase {
            path: path(&name, rest)?,
            all: name == "YXDBTOTXTALL",
        }),
        "YXTXTTODB" => Ok(Command::ImportDatabase(path(&name, rest)?)),
        "YXQUERYDATABASEALL" => database(&name, rest, DbRequest::QueryAll),
        "YXQUERYDATABASEONE" => database(&name, rest, DbRequest::QueryOne),
        "YXQUERYDATABASETEXT" => database(&name, rest, DbRequest::QueryText),
        "YXDELETEDATABASEONE" => database(&name, rest, DbRequest::DeleteOne),
        "YXDELETEDATABASEALL" => database(&name, rest, DbRequest::DeleteAll),
        "YXEDITTVDDATABASE" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let [mask, label, value, depth] = words[..] else {
                return Err(malformed(format!(
                    "{name} needs MASK LABEL VALUE DEPTH, got '{}'",
                    quote(rest)
                )));
            };
            Ok(Command::DatabaseBlock(DbRequest::EditTvd {
                mask: number(mask, "database mask")?,
                label: number(label, "database label")?,
                value: number(value, "database value")?,
                depth: number(depth, "database depth")?,
            }))
        }
        "YXEDITTEXTDATABASE" => Ok(Command::DatabaseBlock(DbRequest::EditText(quoted(
            &name, rest,
        )?))),
        "YXEDITLABELDATABASE" => {
            let (at, text) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            Ok(Command::DatabaseBlock(DbRequest::EditLabel {
                at: coord(at)?,
                text: text.trim().to_string(),
            }))
        }
        "YXBALANCEONE" | "YXBALANCETWO" => Ok(Command::Balance {
            stones: if name == "YXBALANCEONE" { 1 } else { 2 },
            bias: bounded_number(rest, &format!("{name} bias"), MAX_BALANCE_BIAS)?,
        }),
        "YXSHOWHASHUSAGE" => no_argument(&name, rest, Command::ShowHashUsage),
        "STOP" | "YXSTOP" => no_argument(&name, rest, Command::Stop),
        _ => Err(ParseError::Unknown(quote(line))),
    }
}

fn info(text: &str) -> Result<Info, ParseError> {
    let (key, value) = match text.split_once(char::is_whitespace) {
        Some((key, value)) => (key, value.trim()),
        None => (text, ""),
    };
    if key.is_empty() {
        return Err(malformed("INFO needs a key and a value"));
    }
    let key = key.to_ascii_lowercase();
    let what = format!("INFO {key}");
    let int = |value: &str| number(value, &what);
    let bounded = |value: &str, max: i64| {
        let n = int(value)?;
        if (0..=max).contains(&n) {
            Ok(n)
        } else {
            Err(malformed(format!("{what}: {n} is out of range 0..={max}")))
        }
    };
    Ok(match key.as_str() {
        "timeout_turn" => Info::TimeoutTurn(bounded(value, i64::MAX)?),
        "timeout_match" => Info::TimeoutMatch(bounded(value, i64::MAX)?),
        "time_left" => Info::TimeLeft(int(value)?),
        "max_memory" => Info::MaxMemory(bounded(value, i64::MAX)? as u64),
        "hash_size" => Info::HashSize(bounded(value, i64::MAX)? as u64),
        "game_type" => Info::GameType(int(value)?),
        "rule" => Info::Rule(bounded(value, i64::MAX)? as u64),
        "folder" => Info::Folder(value.to_string()),
        "thread_num" => Info::ThreadNum(bounded(value, 1024)? as u32),
        "max_depth" => Info::MaxDepth(bounded(value, i64::from(u32::MAX))? as u32),
        "max_node" => Info::MaxNode(bounded(value, i64::MAX)? as u64),
        "pondering" => Info::Pondering(bounded(value, 1)? == 1),
        "usedatabase" => Info::UseDatabase(bounded(value, 1)? == 1),
        "database_readonly" => Info::DatabaseReadonly(bounded(value, 1)? == 1),
        "caution_factor" => Info::CautionFactor(int(value)?),
        "show_detail" => Info::ShowDetail(int(value)?),
        "evalfile" if value.is_empty() => {
            return Err(malformed(
                "INFO evalfile needs a weights file, 'classical' for the classical evaluation \
                 or 'builtin' for the built-in networks",
            ));
        }
        "evalfile" => Info::EvalFile(value.to_string()),
        _ => Info::Ignored,
    })
}

/// Parses a line inside a block: `DONE`, `X,Y` or `X,Y,F`.
pub fn block_line(line: &str) -> Result<BlockLine, ParseError> {
    if line.eq_ignore_ascii_case("DONE") {
        return Ok(BlockLine::Done);
    }
    match line.split(',').count() {
        2 => Ok(BlockLine::Stone {
            at: coord(line)?,
            field: None,
        }),
        _ => {
            let n = numbers(line, 3, "a stone X,Y,F")?;
            Ok(BlockLine::Stone {
                at: Coord { x: n[0], y: n[1] },
                field: Some(n[2]),
            })
        }
    }
}

/// Whether a line inside a block looks like a command rather than a stone, so that the
/// block is abandoned instead of swallowing it.
pub fn looks_like_command(line: &str) -> bool {
    line.starts_with(|c: char| c.is_ascii_alphabetic()) && !line.eq_ignore_ascii_case("DONE")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_in_any_case_with_spaces() {
        assert_eq!(
            command("start 15"),
            Ok(Command::Start {
                width: 15,
                height: 15
            })
        );
        assert_eq!(
            command("RectStart 20, 10"),
            Ok(Command::Start {
                width: 20,
                height: 10
            })
        );
        assert_eq!(
            command("turn 3 , 4"),
            Ok(Command::Turn(Coord { x: 3, y: 4 }))
        );
        assert_eq!(command("YxStop"), Ok(Command::Stop));
        assert_eq!(
            command("INFO Timeout_Turn 500"),
            Ok(Command::Info(Info::TimeoutTurn(500)))
        );
        assert_eq!(
            command("INFO evaluate 3,4"),
            Ok(Command::Info(Info::Ignored))
        );
        assert_eq!(
            command("INFO whatever 1 2 3"),
            Ok(Command::Info(Info::Ignored))
        );
        assert_eq!(
            command("INFO folder C:\\My Games\\x"),
            Ok(Command::Info(Info::Folder("C:\\My Games\\x".into())))
        );
        assert_eq!(
            command("INFO time_left -20"),
            Ok(Command::Info(Info::TimeLeft(-20)))
        );
    }

    #[test]
    fn bad_arguments_are_malformed_and_strangers_unknown() {
        for line in [
            "START",
            "START x",
            "START 99999999999999999999999",
            "TURN 3",
            "TURN 3,4,5",
            "TURN a,b",
            "BEGIN now",
            "INFO",
            "INFO timeout_turn -5",
            "INFO timeout_turn",
            "INFO pondering 2",
            "RECTSTART 10",
        ] {
            assert!(
                matches!(command(line), Err(ParseError::Malformed(_))),
                "{line}"
            );
        }
        assert!(matches!(command("HELLO"), Err(ParseError::Unknown(_))));
        assert!(matches!(command("10,10,1"), Err(ParseError::Unknown(_))));
    }

    #[test]
    fn block_lines_take_both_stone_forms() {
        assert_eq!(
            block_line("3,4"),
            Ok(BlockLine::Stone {
                at: Coord { x: 3, y: 4 },
                field: None
            })
        );
        assert_eq!(
            block_line("3,4,2"),
            Ok(BlockLine::Stone {
                at: Coord { x: 3, y: 4 },
                field: Some(2)
            })
        );
        assert_eq!(block_line("done"), Ok(BlockLine::Done));
        assert!(block_line("3,4,2,1").is_err());
        assert!(block_line("3").is_err());
    }

    #[test]
    fn long_input_is_quoted_short() {
        let long = "x".repeat(100_000);
        let ParseError::Unknown(text) = command(&long).unwrap_err() else {
            panic!("expected unknown");
        };
        assert!(text.len() < 80, "{text}");
    }
}

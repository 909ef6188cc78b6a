//! The database commands of Yixin-Board, answered as Rapfi answers them: which file is
//! used and how, queries and edits of a position's record (the position comes as moves
//! from the empty board, up to `DONE`), export and import as text; and, for the game,
//! the book move of a proven win and the recording of finished searches.
//!
//! A database that cannot be opened, read or written gives an error line, and the
//! engine goes on without it (or with the one it had).

use super::parse::DbRequest;
use crate::board::{Board, Pos, Rule};
use crate::database::{BOUND_EXACT, Database, LABEL_LOSS, LABEL_WIN, Record};
use crate::rules;
use crate::search::{self, Proof, ScoredMove};
use std::path::{Path, PathBuf};

/// The file `INFO usedatabase 1` opens when no YXSETDATABASE named another, in the
/// engine's working folder.
const DEFAULT_PATH: &str = "lianzhu.db";
/// Searches at least this deep record their result: shallower ones say little that a
/// new search would not find at once.
const RECORD_DEPTH: u32 = 10;

pub struct DatabaseSession {
    database: Option<Database>,
    path: PathBuf,
    readonly: bool,
}

impl Default for DatabaseSession {
    fn default() -> DatabaseSession {
        DatabaseSession {
            database: None,
            path: PathBuf::from(DEFAULT_PATH),
            readonly: false,
        }
    }
}

type Answer = Result<Vec<String>, String>;

fn message(text: impl Into<String>) -> Vec<String> {
    vec![format!("MESSAGE {}", text.into())]
}

impl DatabaseSession {
    /// What the session holds, for tests that compare before and after.
    #[cfg(test)]
    pub fn describe(&self) -> String {
        format!(
            "{} {} {}",
            self.path.display(),
            self.readonly,
            self.database.is_some()
        )
    }

    fn open(&self, path: &Path, readonly: bool) -> Result<Database, String> {
        Database::open(path, readonly).map_err(|e| format!("database: {e:#}"))
    }

    /// `INFO usedatabase`: opens the file named last (or the default), or closes it.
    pub fn set_use(&mut self, on: bool) -> Answer {
        if !on {
            self.database = None;
            return Ok(Vec::new());
        }
        if self.database.is_none() {
            self.database = Some(self.open(&self.path, self.readonly)?);
        }
        Ok(Vec::new())
    }

    /// `INFO database_readonly`: an open database is opened again in the new mode.
    pub fn set_readonly(&mut self, readonly: bool) -> Answer {
        if self.database.is_some() && readonly != self.readonly {
            self.database = Some(self.open(&self.path, readonly)?);
        }
        self.readonly = readonly;
        Ok(Vec::new())
    }

    /// `YXSETDATABASE PATH`: opens PATH, which is used from now on.
    pub fn set_path(&mut self, path: &str) -> Answer {
        let path = PathBuf::from(path);
        self.database = Some(self.open(&path, self.readonly)?);
        self.path = path;
        Ok(message(format!("database {}", self.path.display())))
    }

    fn database(&self) -> Result<&Database, String> {
        self.database
            .as_ref()
            .ok_or_else(|| "no database: send INFO usedatabase 1 or YXSETDATABASE PATH".into())
    }

    fn writable(&mut self) -> Result<&mut Database, String> {
        match &mut self.database {
            None => Err("no database: send INFO usedatabase 1 or YXSETDATABASE PATH".into()),
            Some(db) if db.is_readonly() => Err("the database is read-only".into()),
            Some(db) => Ok(db),
        }
    }

    /// `YXSAVEDATABASE`: every write is already committed.
    pub fn save(&self) -> Answer {
        self.database()?;
        Ok(message(
            "database saved: every change is committed as it is made",
        ))
    }

    /// `YXDBTOTXT` / `YXDBTOTXTALL`: the records as text, one JSON object a line.
    pub fn export(&self, path: &str, only: Option<(Rule, usize, usize)>) -> Answer {
        let text = self
            .database()?
            .export(only)
            .map_err(|e| format!("{e:#}"))?;
        std::fs::write(path, &text).map_err(|e| format!("cannot write {path}: {e}"))?;
        Ok(message(format!(
            "wrote {} records to {path}",
            text.lines().count()
        )))
    }

    /// `YXTXTTODB`: reads back what an export wrote, all or nothing.
    pub fn import(&mut self, path: &str) -> Answer {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let count = (self.writable()?.import(&text)).map_err(|e| format!("{path}: {e:#}"))?;
        Ok(message(format!("read {count} records from {path}")))
    }

    /// A database command on `board`, the position that followed it.
    pub fn request(&mut self, request: &DbRequest, board: &Board) -> Answer {
        let failed = |e: anyhow::Error| format!("database: {e:#}");
        match request {
            DbRequest::QueryAll => self.query_all(board),
            DbRequest::QueryOne => self.query_one(board),
            DbRequest::QueryText => {
                let record = self.database()?.get(board).map_err(failed)?;
                let text = record.map(|r| r.text).unwrap_or_default();
                Ok(message(format!("DATABASE TEXT {}", quote(&text))))
            }
            &DbRequest::EditTvd {
                mask,
                label,
                value,
                depth,
            } => {
                let db = self.writable()?;
                let mut record = db.get(board).map_err(failed)?.unwrap_or_default();
                if mask & 1 != 0 {
                    record.label = u8::try_from(label)
                        .map_err(|_| format!("label {label} is not a character code"))?;
                }
                if mask & 2 != 0 {
                    record.value = value.clamp(-search::MATE as i64, search::MATE as i64) as i32;
                }
                if mask & 4 != 0 {
                    record.depth = depth.clamp(0, i64::from(i32::MAX)) as i32;
                    record.bound = BOUND_EXACT;
                }
                db.put(board, &record).map_err(failed)?;
                self.query_one(board)
            }
            DbRequest::EditText(text) => {
                let db = self.writable()?;
                let mut record = db.get(board).map_err(failed)?.unwrap_or_default();
                record.text = text.clone();
                db.put(board, &record).map_err(failed)?;
                Ok(Vec::new())
            }
            DbRequest::EditLabel { at, text } => {
                let pos = board
                    .pos(at.x, at.y)
                    .filter(|&p| board.is_empty(p))
                    .ok_or_else(|| format!("{at} is not an empty point of the position"))?;
                let db = self.writable()?;
                let mut child = board.clone();
                child.play(pos);
                let mut record = db.get(&child).map_err(failed)?.unwrap_or_default();
                record.board_text = text.clone();
                db.put(&child, &record).map_err(failed)?;
                Ok(Vec::new())
            }
            DbRequest::DeleteOne => {
                self.writable()?.delete(board).map_err(failed)?;
                Ok(Vec::new())
            }
            DbRequest::DeleteAll => {
                let count = self.writable()?.delete_below(board).map_err(failed)?;
                let mut lines = message(format!("deleted {count} records"));
                lines.extend(self.query_all(board)?);
                Ok(lines)
            }
        }
    }

    /// `MESSAGE DATABASE X Y LABEL VALUE DEPTH BOUND HAS_TEXT BOARD_TEXT` for each move
    /// from `board` that has a record, between REFRESH and DONE.
    fn query_all(&self, board: &Board) -> Answer {
        let children = (self.database()?.children(board)).map_err(|e| format!("{e:#}"))?;
        let mut lines = message("DATABASE REFRESH");
        for (pos, record) in children {
            let label = if record.label == 0 {
                -1
            } else {
                i32::from(record.label)
            };
            lines.extend(message(format!(
                "DATABASE {} {} {label} {} {} {} {} {}",
                pos.x(),
                pos.y(),
                record.value,
                record.depth,
                record.bound,
                i32::from(!record.text.is_empty()),
                record.board_text
            )));
        }
        lines.extend(message("DATABASE DONE"));
        Ok(lines)
    }

    /// `MESSAGE DATABASE ONE LABEL VALUE DEPTH BOUND`, all 0 without a record.
    fn query_one(&self, board: &Board) -> Answer {
        let record = (self.database()?.get(board)).map_err(|e| format!("{e:#}"))?;
        let r = record.unwrap_or_default();
        Ok(message(format!(
            "DATABASE ONE {} {} {} {}",
            r.label, r.value, r.depth, r.bound
        )))
    }

    /// The winning move the database knows for the side to move, if it is legal and not
    /// blocked: the search then needs not run.
    pub fn book_move(&self, board: &Board, blocked: &[Pos]) -> Option<Pos> {
        let record = self.database.as_ref()?.get(board).ok()??;
        let best = record.best?;
        let mut board = board.clone();
        let me = board.to_move();
        (record.label == LABEL_WIN
            && !blocked.contains(&best)
            && rules::is_legal(&mut board, best, me))
        .then_some(best)
    }

    /// Keeps a finished search's result for `board`, when it went deep enough or proved
    /// the result; its comment and board text stay. A failure is only logged: the game
    /// goes on.
    pub fn record(&mut self, board: &Board, best: ScoredMove, depth: u32) {
        let proof = search::proof(best.score);
        if depth < RECORD_DEPTH && proof.is_none() {
            return;
        }
        let Ok(db) = self.writable() else {
            return;
        };
        let result = db.get(board).and_then(|old| {
            let old = old.unwrap_or_default();
            let record = Record {
                label: match proof {
                    Some(Proof::Win(_)) => LABEL_WIN,
                    Some(Proof::Loss(_)) => LABEL_LOSS,
                    None => old.label,
                },
                value: best.score,
                depth: depth as i32,
                bound: BOUND_EXACT,
                best: Some(best.pos),
                ..old
            };
            db.put(board, &record)
        });
        if let Err(error) = result {
            log::warn!("database: cannot record a search: {error:#}");
        }
    }
}

/// `text` in double quotes, with `"` and `\` escaped by a backslash.
fn quote(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

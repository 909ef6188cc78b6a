//! A persistent position database, as Yixin-Board uses one for analysis: a record per
//! position (a label, a value with its depth and bound, the best move, a comment, and
//! the text shown on the parent's board at the move that leads here), kept in SQLite.
//!
//! SQLite (through `rusqlite`, with its bundled build so that nothing needs installing)
//! is the embedded database the Rust world uses: one file, transactional writes (a
//! killed engine loses nothing that was committed), and a clear error for a file that
//! is corrupt, locked or read-only.
//!
//! A position is stored once for all the symmetries of its board (eight on a square
//! board, four on another): its key is the smallest encoding of the stones over those
//! symmetries, with the side to move, the rule and the board size, and a record's best
//! move is kept in the key's frame and turned back on the way out.

use crate::board::{Board, Cell, Color, Pos, Rule};
use anyhow::{Context, bail};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

/// How long a write waits for another process that holds the file, before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_millis(500);

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS positions (
    rule INTEGER NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    stones BLOB NOT NULL,
    label INTEGER NOT NULL DEFAULT 0,
    value INTEGER NOT NULL DEFAULT 0,
    depth INTEGER NOT NULL DEFAULT 0,
    bound INTEGER NOT NULL DEFAULT 0,
    best INTEGER,
    text TEXT NOT NULL DEFAULT '',
    board_text TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (rule, width, height, stones)
)";

/// What is known of one position, from the side to move's view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// A character code (`W` win, `L` loss, `D` draw, `X` blocked, or a user's own
    /// mark), 0 for none.
    pub label: u8,
    pub value: i32,
    pub depth: i32,
    /// 0 none, 1 upper, 2 lower, 3 exact.
    pub bound: u8,
    pub best: Option<Pos>,
    /// The comment on this position.
    pub text: String,
    /// The text shown on the parent position's board at the move that leads here.
    pub board_text: String,
}

pub const LABEL_WIN: u8 = b'W';
pub const LABEL_LOSS: u8 = b'L';
pub const BOUND_EXACT: u8 = 3;

/// A position's key and the symmetry that takes its points into the key's frame.
struct Key {
    rule: i64,
    width: i64,
    height: i64,
    stones: Vec<u8>,
    symmetry: usize,
}

/// The symmetries of a `width` x `height` board: where each takes (x, y).
fn transform(
    symmetry: usize,
    (x, y): (usize, usize),
    width: usize,
    height: usize,
) -> (usize, usize) {
    let (fx, fy) = (width - 1 - x, height - 1 - y);
    match symmetry {
        0 => (x, y),
        1 => (fx, y),
        2 => (x, fy),
        3 => (fx, fy),
        // Only on a square board, where width = height.
        4 => (y, x),
        5 => (height - 1 - y, x),
        6 => (y, width - 1 - x),
        _ => (fy, fx),
    }
}

fn symmetries(board: &Board) -> usize {
    if board.width() == board.height() {
        8
    } else {
        4
    }
}

fn key(board: &Board) -> Key {
    let (width, height) = (board.width(), board.height());
    let mut stones = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let code = match board.cell(Pos::new(x, y)) {
                Cell::Empty => continue,
                Cell::Stone(Color::Black) => 1,
                Cell::Stone(Color::White) => 2,
                Cell::Wall => 3,
            };
            stones.push((x, y, code));
        }
    }
    let to_move = board.to_move().index() as u8;
    let encode = |symmetry: usize| {
        let mut moved: Vec<(usize, usize, u8)> = (stones.iter())
            .map(|&(x, y, code)| {
                let (x, y) = transform(symmetry, (x, y), width, height);
                (x, y, code)
            })
            .collect();
        moved.sort_unstable();
        let mut bytes = vec![to_move];
        bytes.extend(
            moved
                .iter()
                .flat_map(|&(x, y, code)| [x as u8, y as u8, code]),
        );
        bytes
    };
    let (symmetry, stones) = (0..symmetries(board))
        .map(|s| (s, encode(s)))
        .min_by(|a, b| a.1.cmp(&b.1))
        .expect("at least the identity");
    Key {
        rule: i64::from(board.rule().number()),
        width: width as i64,
        height: height as i64,
        stones,
        symmetry,
    }
}

impl Key {
    fn frame_index(&self, pos: Pos) -> i64 {
        let (w, h) = (self.width as usize, self.height as usize);
        let (x, y) = transform(self.symmetry, (pos.x(), pos.y()), w, h);
        (y * w + x) as i64
    }

    fn frame_point(&self, index: i64) -> Option<Pos> {
        let (w, h) = (self.width as usize, self.height as usize);
        let index = usize::try_from(index).ok()?;
        let target = (index % w, index / w);
        (0..w * h)
            .map(|i| (i % w, i / w))
            .find(|&p| transform(self.symmetry, p, w, h) == target)
            .map(|(x, y)| Pos::new(x, y))
    }
}

/// One record as a line of text, in a frame of its own (`YXDBTOTXT`): enough to put it
/// back with [`Database::import`].
#[derive(Serialize, Deserialize)]
struct Line {
    rule: i64,
    width: i64,
    height: i64,
    stones: String,
    label: u8,
    value: i32,
    depth: i32,
    bound: u8,
    best: Option<i64>,
    text: String,
    board_text: String,
}

pub struct Database {
    connection: Connection,
    readonly: bool,
}

impl Database {
    /// Opens (or creates) the database at `path`; `readonly` opens it for reading only.
    pub fn open(path: &Path, readonly: bool) -> anyhow::Result<Database> {
        let flags = if readonly {
            OpenFlags::SQLITE_OPEN_READ_ONLY
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
        };
        let connection = Connection::open_with_flags(path, flags)
            .with_context(|| format!("cannot open {}", path.display()))?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        if !readonly {
            connection
                .execute(SCHEMA, [])
                .with_context(|| format!("{} is not a usable database", path.display()))?;
        }
        // Reading the table proves the file is a database of ours, whatever the mode.
        connection
            .query_row("SELECT count(*) FROM positions", [], |row| {
                row.get::<_, i64>(0)
            })
            .with_context(|| format!("{} is not a usable database", path.display()))?;
        Ok(Database {
            connection,
            readonly,
        })
    }

    pub fn is_readonly(&self) -> bool {
        self.readonly
    }

    fn writable(&self) -> anyhow::Result<()> {
        if self.readonly {
            bail!("the database is read-only");
        }
        Ok(())
    }

    /// The record of `board`'s position, if any.
    pub fn get(&self, board: &Board) -> anyhow::Result<Option<Record>> {
        let key = key(board);
        let row = self
            .connection
            .query_row(
                "SELECT label, value, depth, bound, best, text, board_text FROM positions
                 WHERE rule = ?1 AND width = ?2 AND height = ?3 AND stones = ?4",
                params![key.rule, key.width, key.height, key.stones],
                |row| {
                    Ok((
                        row.get::<_, u8>(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get::<_, u8>(3)?,
                        row.get::<_, Option<i64>>(4)?,
                        row.get(5)?,
                        row.get(6)?,
                    ))
                },
            )
            .optional()?;
        Ok(row.map(
            |(label, value, depth, bound, best, text, board_text)| Record {
                label,
                value,
                depth,
                bound,
                best: best.and_then(|b| key.frame_point(b)),
                text,
                board_text,
            },
        ))
    }

    /// Writes `record` as `board`'s, in one transaction.
    pub fn put(&self, board: &Board, record: &Record) -> anyhow::Result<()> {
        self.writable()?;
        let key = key(board);
        let line = Line {
            rule: key.rule,
            width: key.width,
            height: key.height,
            stones: hex(&key.stones),
            label: record.label,
            value: record.value,
            depth: record.depth,
            bound: record.bound,
            best: record.best.map(|b| key.frame_index(b)),
            text: record.text.clone(),
            board_text: record.board_text.clone(),
        };
        insert(&self.connection, &line)
    }

    /// Deletes `board`'s record; whether there was one.
    pub fn delete(&self, board: &Board) -> anyhow::Result<bool> {
        self.writable()?;
        let key = key(board);
        let deleted = self.connection.execute(
            "DELETE FROM positions WHERE rule = ?1 AND width = ?2 AND height = ?3 AND stones = ?4",
            params![key.rule, key.width, key.height, key.stones],
        )?;
        Ok(deleted > 0)
    }

    /// The records of the positions one move after `board`, with that move.
    pub fn children(&self, board: &Board) -> anyhow::Result<Vec<(Pos, Record)>> {
        let mut board = board.clone();
        let empties: Vec<Pos> = board.empty_points().collect();
        let mut found = Vec::new();
        for pos in empties {
            board.play(pos);
            let record = self.get(&board);
            board.undo();
            if let Some(record) = record? {
                found.push((pos, record));
            }
        }
        Ok(found)
    }

    /// Deletes every record below `board` (its children, theirs, and so on), keeping
    /// `board`'s own, in one transaction; how many.
    pub fn delete_below(&mut self, board: &Board) -> anyhow::Result<usize> {
        self.writable()?;
        let transaction = self.connection.transaction()?;
        let mut deleted = 0;
        let mut stack = vec![board.clone()];
        while let Some(mut parent) = stack.pop() {
            let empties: Vec<Pos> = parent.empty_points().collect();
            for pos in empties {
                parent.play(pos);
                let key = key(&parent);
                let gone = transaction.execute(
                    "DELETE FROM positions
                     WHERE rule = ?1 AND width = ?2 AND height = ?3 AND stones = ?4",
                    params![key.rule, key.width, key.height, key.stones],
                )?;
                if gone > 0 {
                    deleted += gone;
                    stack.push(parent.clone());
                }
                parent.undo();
            }
        }
        transaction.commit()?;
        Ok(deleted)
    }

    /// Every record (of one rule and board size, if given) as JSON lines.
    pub fn export(&self, only: Option<(Rule, usize, usize)>) -> anyhow::Result<String> {
        let mut statement = self.connection.prepare(
            "SELECT rule, width, height, stones, label, value, depth, bound, best, text, board_text
             FROM positions ORDER BY rule, width, height, stones",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(Line {
                rule: row.get(0)?,
                width: row.get(1)?,
                height: row.get(2)?,
                stones: hex(&row.get::<_, Vec<u8>>(3)?),
                label: row.get(4)?,
                value: row.get(5)?,
                depth: row.get(6)?,
                bound: row.get(7)?,
                best: row.get(8)?,
                text: row.get(9)?,
                board_text: row.get(10)?,
            })
        })?;
        let mut text = String::new();
        for line in rows {
            let line = line?;
            if let Some((rule, width, height)) = only
                && (line.rule, line.width, line.height)
                    != (i64::from(rule.number()), width as i64, height as i64)
            {
                continue;
            }
            text.push_str(&serde_json::to_string(&line)?);
            text.push('\n');
        }
        Ok(text)
    }

    /// Puts back the records of an [`Database::export`], in one transaction; how many.
    pub fn import(&mut self, text: &str) -> anyhow::Result<usize> {
        self.writable()?;
        let transaction = self.connection.transaction()?;
        let mut count = 0;
        for (number, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let line: Line = serde_json::from_str(line)
                .with_context(|| format!("line {} is not a record", number + 1))?;
            insert(&transaction, &line).with_context(|| format!("line {}", number + 1))?;
            count += 1;
        }
        transaction.commit()?;
        Ok(count)
    }
}

/// Writes one record, replacing the position's old one.
fn insert(connection: &Connection, line: &Line) -> anyhow::Result<()> {
    let stones = unhex(&line.stones).context("the stones are not hex")?;
    connection.execute(
        "INSERT OR REPLACE INTO positions
         (rule, width, height, stones, label, value, depth, bound, best, text, board_text)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            line.rule,
            line.width,
            line.height,
            stones,
            line.label,
            line.value,
            line.depth,
            line.bound,
            line.best,
            line.text,
            line.board_text
        ],
    )?;
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_path(name: &str) -> std::path::PathBuf {
        let unique = format!("lianzhu-db-{name}-{}.sqlite", std::process::id());
        let path = std::env::temp_dir().join(unique);
        let _ = std::fs::remove_file(&path);
        path
    }

    fn board(moves: &[(usize, usize)]) -> Board {
        let mut board = Board::new(15, 15, Rule::Renju);
        moves.iter().for_each(|&(x, y)| board.play(Pos::new(x, y)));
        board
    }

    #[test]
    fn a_record_survives_closing_and_is_shared_by_every_symmetry() {
        let path = temp_path("symmetry");
        let record = Record {
            label: LABEL_WIN,
            value: 999_990,
            depth: 12,
            bound: BOUND_EXACT,
            best: Some(Pos::new(9, 6)),
            text: "a \"quoted\" comment".into(),
            board_text: String::new(),
        };
        {
            let db = Database::open(&path, false).unwrap();
            db.put(&board(&[(7, 7), (8, 6)]), &record).unwrap();
        }
        let db = Database::open(&path, true).unwrap();
        assert_eq!(
            db.get(&board(&[(7, 7), (8, 6)])).unwrap(),
            Some(record.clone())
        );
        // Mirrored left to right: x → 14 - x; the best move turns with it.
        let mirrored = db.get(&board(&[(7, 7), (6, 6)])).unwrap().unwrap();
        assert_eq!(mirrored.best, Some(Pos::new(5, 6)));
        // Rotated a quarter turn: (x, y) → (y, 14 - x).
        let rotated = db.get(&board(&[(7, 7), (6, 6 + 2)])).unwrap();
        assert_eq!(rotated.map(|r| r.value), Some(999_990));
        assert_eq!(db.get(&board(&[(7, 7), (9, 9)])).unwrap(), None);
        assert!(db.put(&board(&[]), &record).is_err(), "read-only");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn children_deletion_export_and_import() {
        let path = temp_path("children");
        let mut db = Database::open(&path, false).unwrap();
        let root = board(&[(7, 7)]);
        let note = |text: &str| Record {
            text: text.into(),
            ..Record::default()
        };
        db.put(&board(&[(7, 7), (8, 8)]), &note("child")).unwrap();
        db.put(&board(&[(7, 7), (8, 8), (9, 9)]), &note("grandchild"))
            .unwrap();
        db.put(&root, &note("root")).unwrap();
        let children = db.children(&root).unwrap();
        // (8,8) and its mirror images around (7,7) are the same position.
        assert!(children.iter().all(|(_, r)| r.text == "child"));
        assert_eq!(children.len(), 4);
        let text = db.export(None).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert_eq!(db.delete_below(&root).unwrap(), 2);
        assert_eq!(db.get(&root).unwrap().map(|r| r.text), Some("root".into()));
        assert_eq!(db.import(&text).unwrap(), 3);
        assert_eq!(db.children(&root).unwrap().len(), 4);
        assert!(db.import("{not json").is_err());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_file_that_is_not_a_database_is_refused_clearly() {
        let path = temp_path("corrupt");
        std::fs::write(
            &path,
            b"this is not SQLite, not at all, not even close......",
        )
        .unwrap();
        let error = format!("{:#}", Database::open(&path, false).err().unwrap());
        assert!(error.contains("is not a usable database"), "{error}");
        let _ = std::fs::remove_file(&path);
        let missing = format!(
            "{:#}",
            Database::open(Path::new("/nonexistent/dir/x.db"), false)
                .err()
                .unwrap()
        );
        assert!(missing.contains("cannot open"), "{missing}");
    }
}

//! Logging: `log` records through env_logger (filter from `RUST_LOG`, default `warn`) to
//! stderr — never stdout, which belongs to the protocol — and, once the manager names a
//! folder with `INFO folder`, also to `<folder>/lianzhu/lianzhu.log`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

static LOG_FILE: Mutex<Option<File>> = Mutex::new(None);

/// Copies every log record to stderr and to the log file, if one is open.
struct Tee;

impl Write for Tee {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // A log line that cannot be written is dropped: logging must never stop play.
        let _ = io::stderr().write_all(buf);
        if let Some(file) = LOG_FILE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            let _ = file.write_all(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = io::stderr().flush();
        if let Some(file) = LOG_FILE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            let _ = file.flush();
        }
        Ok(())
    }
}

/// Installs the logger; call once, first thing.
pub fn init() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Pipe(Box::new(Tee)))
        .init();
}

/// From now on, also log to `<folder>/lianzhu/lianzhu.log` (appending); returns its path.
/// The folder must exist: only the sub-folder is created.
pub fn log_to_folder(folder: &Path) -> io::Result<PathBuf> {
    if !folder.is_dir() {
        return Err(io::Error::new(io::ErrorKind::NotFound, "no such folder"));
    }
    let directory = folder.join("lianzhu");
    fs::create_dir_all(&directory)?;
    let path = directory.join("lianzhu.log");
    let file = OpenOptions::new().create(true).append(true).open(&path)?;
    *LOG_FILE.lock().unwrap_or_else(PoisonError::into_inner) = Some(file);
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_go_to_the_folder_log_once_it_is_named() {
        let folder = std::env::temp_dir().join(format!("lianzhu-log-test-{}", std::process::id()));
        assert!(
            log_to_folder(&folder).is_err(),
            "a missing folder is not created"
        );
        fs::create_dir_all(&folder).unwrap();
        let path = log_to_folder(&folder).unwrap();
        assert_eq!(path, folder.join("lianzhu").join("lianzhu.log"));
        Tee.write_all(b"a logged line\n").unwrap();
        Tee.flush().unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains("a logged line"), "{text}");
        *LOG_FILE.lock().unwrap() = None;
        fs::remove_dir_all(&folder).unwrap();
    }
}

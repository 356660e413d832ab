//! An exclusive lock held on a side file (`flock`, through the standard
//! library's `File::try_lock`) for as long as a process works on what the
//! file guards, with who holds it written into the file for people.
//!
//! The kernel releases the lock when its holder exits, however it exits
//! (`kill -9` included): a lock is never left behind by a dead process,
//! and no one needs to "unlock" after a crash. The file is opened
//! close-on-exec (the standard library's default), so a child process
//! does not keep it. The file itself stays (it is the lock's name); what
//! it says of the holder is only a description, never what decides.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Who holds a lock, as its holder wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The process id.
    pub pid: u32,
    /// The host name.
    pub host: String,
    /// When it took the lock, seconds since the Unix epoch.
    pub since: u64,
}

impl Holder {
    /// This process, now.
    #[must_use]
    pub fn current() -> Holder {
        Holder {
            pid: std::process::id(),
            host: host_name(),
            since: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_secs()),
        }
    }

    fn line(&self) -> String {
        format!("pid={} host={} since={}\n", self.pid, self.host, self.since)
    }

    fn parse(text: &str) -> Option<Holder> {
        let mut pid = None;
        let mut host = None;
        let mut since = None;
        for field in text.split_whitespace() {
            match field.split_once('=') {
                Some(("pid", value)) => pid = value.parse().ok(),
                Some(("host", value)) => host = Some(value.to_owned()),
                Some(("since", value)) => since = value.parse().ok(),
                _ => {}
            }
        }
        Some(Holder {
            pid: pid?,
            host: host?,
            since: since?,
        })
    }
}

/// The machine's host name (`/proc/sys/kernel/hostname`, else `localhost`).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// Why a lock was not taken.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it (what it wrote of itself, when readable).
    Held(Option<Holder>),
    /// The lock file cannot be opened or locked.
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Held(Some(holder)) => write!(
                f,
                "held by process {} on {} since {}",
                holder.pid,
                holder.host,
                humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(holder.since))
            ),
            LockError::Held(None) => write!(f, "held by another process"),
            LockError::Io(path, error) => write!(
                f,
                "cannot lock `{}`: {}",
                path.display(),
                strata_syntax::lowercase_first(&error.to_string())
            ),
        }
    }
}

impl std::error::Error for LockError {}

/// A lock held; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct LockFile {
    file: File,
    path: PathBuf,
}

impl LockFile {
    /// Takes the lock on `path` (created when missing, with its folder),
    /// waiting up to `wait` for a holder that is going away, and writes
    /// `holder` into it.
    ///
    /// # Errors
    /// [`LockError::Held`] when another process still holds it after
    /// `wait`; [`LockError::Io`] when the file cannot be opened.
    pub fn acquire(path: &Path, holder: &Holder, wait: Duration) -> Result<LockFile, LockError> {
        let failed = |error| LockError::Io(path.to_owned(), error);
        if let Some(folder) = path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
        {
            std::fs::create_dir_all(folder).map_err(failed)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(failed)?;
        let deadline = Instant::now() + wait;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(25));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    let mut text = String::new();
                    let _ = file.read_to_string(&mut text);
                    return Err(LockError::Held(Holder::parse(&text)));
                }
                Err(std::fs::TryLockError::Error(error)) => return Err(failed(error)),
            }
        }
        let described = (|| {
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            file.write_all(holder.line().as_bytes())?;
            file.sync_all()
        })();
        described.map_err(failed)?;
        Ok(LockFile {
            file,
            path: path.to_owned(),
        })
    }

    /// Who holds the lock on `path`, as the holder wrote it, when someone
    /// does (`None`: free, or unreadable).
    #[must_use]
    pub fn holder(path: &Path) -> Option<Holder> {
        let file = OpenOptions::new().read(true).write(true).open(path).ok()?;
        if let Ok(()) = file.try_lock() {
            None
        } else {
            let mut text = String::new();
            let mut file = file;
            file.read_to_string(&mut text).ok()?;
            Holder::parse(&text)
        }
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        // What the file says is only for people; the kernel's lock goes
        // with the descriptor.
        let _ = self.file.set_len(0);
    }
}

#[cfg(test)]
mod tests {
    use super::{Holder, LockError, LockFile};
    use std::time::Duration;

    #[test]
    fn a_second_taker_is_told_who_holds_it_until_it_is_released() {
        let root = std::env::temp_dir().join(format!("strata-lock-{}", std::process::id()));
        let path = root.join("state.db.lock");
        let first = Holder {
            pid: 4242,
            host: "builder".to_owned(),
            since: 1_700_000_000,
        };
        let held = LockFile::acquire(&path, &first, Duration::ZERO).unwrap();
        let refused = LockFile::acquire(&path, &Holder::current(), Duration::from_millis(60));
        assert!(matches!(refused, Err(LockError::Held(Some(ref holder))) if *holder == first));
        assert_eq!(LockFile::holder(&path), Some(first));
        drop(held);
        assert_eq!(LockFile::holder(&path), None);
        LockFile::acquire(&path, &Holder::current(), Duration::ZERO).unwrap();
        std::fs::remove_dir_all(root).unwrap();
    }
}

//! What a tree answered, to ask again later.
//!
//! [`Recorded`] is a [`Files`] tree over another that notes every answer
//! it gives, and [`Recorded::changed`] asks every question again and names
//! the first answered differently now. A service that reloads files while
//! they may be edited reads them through one, waits a moment, and keeps
//! what it read only when nothing changed meanwhile: a file caught in the
//! middle of a rewrite (truncated, half written) is answered differently a
//! moment later, unless its writer pauses for longer than that moment in
//! the middle of writing. [`Recorded::settled`] does the waiting and the
//! asking beside the reader, as soon as its reads pause, so that what the
//! reader does with the files afterwards (parse, check) does not widen the
//! window in which another edit makes the reading start again.
//!
//! A read is noted with the file's [`Stamp`], taken before reading, and a
//! SHA-256 digest of what was read: the digest sees a rewrite that keeps
//! the size and lands within the file system's timestamp granularity, the
//! stamp sees a rewrite back to the same text (a file truncated again:
//! empty then, empty now). A listing is noted with the files and skipped
//! entries it gave, so a file that appears or goes is seen too; `is_file`
//! and `subtree` with what they answered (a subtree is recorded into the
//! same log).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest as _, Sha256};

use crate::{Files, FsError, Listing};

/// What a file on disk is beyond its text: its device and inode, its size,
/// and its modification and status-change times. The stamp changes when
/// the file is replaced or written, to within the file system's timestamp
/// granularity (a few milliseconds at worst).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    device: u64,
    inode: u64,
    size: u64,
    modified: Option<SystemTime>,
    changed: (i64, i64),
}

impl Stamp {
    /// The stamp of what `path` leads to (symlinks followed), if it exists.
    #[must_use]
    pub fn of_path(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt as _;
        let metadata = std::fs::metadata(path).ok()?;
        Some(Stamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.len(),
            modified: metadata.modified().ok(),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        })
    }
}

/// A tree that notes every answer it gives (see the module docs).
pub struct Recorded {
    inner: Arc<dyn Files>,
    log: Arc<Mutex<Log>>,
}

#[derive(Default)]
struct Log {
    answers: Vec<Answer>,
    latest: Option<Instant>,
}

/// One answer: the tree asked (the root's or a subtree's), the question,
/// and what was answered.
struct Answer {
    files: Arc<dyn Files>,
    question: Question,
    seen: Seen,
}

enum Question {
    Read(PathBuf, usize),
    List(Vec<String>),
    IsFile(PathBuf),
    Subtree(PathBuf),
}

/// An answer as noted: the file's stamp (for a read) and a digest.
#[derive(PartialEq, Eq)]
struct Seen {
    stamp: Option<Stamp>,
    digest: [u8; 32],
}

impl Recorded {
    /// Records what `inner` answers.
    #[must_use]
    pub fn new(inner: Arc<dyn Files>) -> Recorded {
        Recorded {
            inner,
            log: Arc::default(),
        }
    }

    /// Waits until `settle` has passed since the latest answer, asks every
    /// answer again ([`Recorded::changed`]), and does the same after any
    /// answer given later, for as long as `reading` holds (another thread
    /// still reads through the tree) and once more after. Names the first
    /// answer that changed; `None` when every answer was the same `settle`
    /// after the latest.
    #[must_use]
    pub fn settled(&self, settle: Duration, reading: &AtomicBool) -> Option<String> {
        /// How often the end of the reading is looked for.
        const POLL: Duration = Duration::from_millis(5);
        let mut asked = 0;
        loop {
            // Read before the log: what the reader noted before it stopped
            // is in the log then.
            let still_reading = reading.load(Ordering::Acquire);
            let (count, latest) = {
                let log = self.log();
                (log.answers.len(), log.latest)
            };
            if count > asked {
                let wait = latest.map_or(Duration::ZERO, |at| settle.saturating_sub(at.elapsed()));
                if wait.is_zero() {
                    let changed = self.changed();
                    if changed.is_some() {
                        return changed;
                    }
                    asked = count;
                } else {
                    std::thread::sleep(wait);
                }
            } else if still_reading {
                std::thread::sleep(POLL);
            } else {
                return None;
            }
        }
    }

    /// Asks every question again, in the order they were asked, and names
    /// the first answered differently now ([`Files::display`] of its path;
    /// a listing names the folder listed). `None` when every answer is
    /// the same.
    #[must_use]
    pub fn changed(&self) -> Option<String> {
        let log = self.log();
        log.answers.iter().find_map(|answer| {
            let files = answer.files.as_ref();
            (answer.question.ask(files) != answer.seen)
                .then(|| files.display(answer.question.path()))
        })
    }

    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn note(&self, question: Question, seen: Seen) {
        let mut log = self.log();
        log.answers.push(Answer {
            files: self.inner.clone(),
            question,
            seen,
        });
        log.latest = Some(Instant::now());
    }
}

impl std::fmt::Debug for Recorded {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Recorded")
            .field("answers", &self.log().answers.len())
            .finish_non_exhaustive()
    }
}

impl Files for Recorded {
    fn read(&self, path: &Path, limit: usize) -> Result<String, FsError> {
        let stamp = self.inner.stamp(path);
        let text = self.inner.read(path, limit);
        self.note(
            Question::Read(path.to_path_buf(), limit),
            read_seen(stamp, &text),
        );
        text
    }

    fn list(&self, extensions: &[&str]) -> Result<Listing, FsError> {
        let listing = self.inner.list(extensions);
        let extensions = extensions.iter().map(|&ext| ext.to_owned()).collect();
        self.note(Question::List(extensions), listing_seen(&listing));
        listing
    }

    fn display(&self, path: &Path) -> String {
        self.inner.display(path)
    }

    fn is_file(&self, path: &Path) -> bool {
        let is_file = self.inner.is_file(path);
        self.note(Question::IsFile(path.to_path_buf()), flag_seen(is_file));
        is_file
    }

    fn subtree(&self, folder: &Path) -> Result<Arc<dyn Files>, FsError> {
        let subtree = self.inner.subtree(folder);
        self.note(
            Question::Subtree(folder.to_path_buf()),
            subtree_seen(&subtree),
        );
        Ok(Arc::new(Recorded {
            inner: subtree?,
            log: self.log.clone(),
        }))
    }

    fn stamp(&self, path: &Path) -> Option<Stamp> {
        self.inner.stamp(path)
    }

    fn on_disk(&self, path: &Path) -> Option<std::path::PathBuf> {
        self.inner.on_disk(path)
    }
}

impl Question {
    /// Asks `files` again.
    fn ask(&self, files: &dyn Files) -> Seen {
        match self {
            Question::Read(path, limit) => read_seen(files.stamp(path), &files.read(path, *limit)),
            Question::List(extensions) => {
                let extensions: Vec<&str> = extensions.iter().map(String::as_str).collect();
                listing_seen(&files.list(&extensions))
            }
            Question::IsFile(path) => flag_seen(files.is_file(path)),
            Question::Subtree(folder) => subtree_seen(&files.subtree(folder)),
        }
    }

    /// What the question is about: a file, or the folder listed.
    fn path(&self) -> &Path {
        match self {
            Question::Read(path, _) | Question::IsFile(path) | Question::Subtree(path) => path,
            Question::List(_) => Path::new(""),
        }
    }
}

fn read_seen(stamp: Option<Stamp>, text: &Result<String, FsError>) -> Seen {
    let seen = match text {
        Ok(text) => digest([&b"ok"[..], text.as_bytes()]),
        Err(error) => error_seen(error),
    };
    Seen { stamp, ..seen }
}

fn flag_seen(flag: bool) -> Seen {
    digest([if flag { &b"yes"[..] } else { b"no" }])
}

fn error_seen(error: &FsError) -> Seen {
    digest([&b"error"[..], error.to_string().as_bytes()])
}

fn listing_seen(listing: &Result<Listing, FsError>) -> Seen {
    match listing {
        Ok(listing) => {
            let skipped: Vec<String> = listing.skipped.iter().map(ToString::to_string).collect();
            let files = listing
                .files
                .iter()
                .map(|file| file.as_os_str().as_encoded_bytes());
            digest(
                std::iter::once(&b"ok"[..])
                    .chain(files)
                    .chain(std::iter::once(&b"skipped"[..]))
                    .chain(skipped.iter().map(String::as_bytes)),
            )
        }
        Err(error) => error_seen(error),
    }
}

fn subtree_seen(subtree: &Result<Arc<dyn Files>, FsError>) -> Seen {
    match subtree {
        Ok(_) => digest([&b"ok"[..]]),
        Err(error) => error_seen(error),
    }
}

/// SHA-256 over `parts`, each prefixed with its length, so that no two
/// sequences of parts give the same bytes.
fn digest<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> Seen {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    Seen {
        stamp: None,
        digest: hasher.finalize().into(),
    }
}

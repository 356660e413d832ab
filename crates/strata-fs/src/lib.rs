//! Confined file access.
//!
//! Outputs are written whole through [`write_atomically`].
//!
//! Dialects read catalogues, includes and imports only through [`Files`],
//! whose paths are relative to a root the caller chose. Two guarantees:
//!
//! - **Lexical confinement**: [`join`] resolves a reference against the
//!   file that makes it (`!include ../common/base.yaml`) and normalises `.`
//!   and `..`; a path that climbs above the root, or an absolute one, is
//!   [`FsError::Escapes`].
//! - **Physical confinement** ([`RootFs`]): the real path of every file read
//!   or folder listed, symlinks resolved, must lie below the real root, so a
//!   symlink cannot lead out either. Symlinks that stay inside are followed
//!   (Kubernetes ConfigMap mounts are made of them).
//!
//! Listing skips hidden entries (names starting with `.`), which also skips
//! a ConfigMap mount's `..data` and `..2024_..` folders, and is sorted so
//! every run sees files in the same order. An entry that a listing would
//! have taken but cannot (a symlink leading outside the root, or nowhere)
//! is skipped and named in [`Listing::skipped`], for a warning
//! ([`FsError::skipped`]). Reads are bounded in size, and [`RootFs`] reads
//! only regular files: a FIFO, a socket or a device in a tree is
//! [`FsError::NotAFile`] before it is opened, so nothing blocks on it or
//! reads from it without end.
//!
//! [`MemoryFs`] holds files in memory, for tests and for callers that
//! already have the text. [`OverlayFs`] lays such files over another tree,
//! as an editor's unsaved buffers lie over the files on disk: what the
//! user sees is what is read. [`PlainFs`] reads the paths a person names on the
//! command line as they are, unconfined, within the same size bound.
//!
//! [`Recorded`] notes what a tree answered, so that a caller can ask again
//! a moment later whether the files it read were settled or caught in the
//! middle of a rewrite; [`Files::stamp`] tells two versions of a file on
//! disk apart beyond their text.
//!
//! Every [`FsError`] becomes one diagnostic ([`FsError::diagnostic`]) with
//! one of the [`codes`]; a file larger than the bound is `syntax/too-large`,
//! the loader's own code for the same bound.

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use strata_syntax::{Diagnostic, Span, SyntaxError, lowercase_first};

pub mod codes;
mod lock;
mod recorded;
mod write;

pub use lock::{Holder, LockError, LockFile};
pub use recorded::{Recorded, Stamp};
pub use write::{
    WriteError, remove_stale_temporaries, write_atomically, write_atomically_with_mode,
};

/// Why a file could not be had.
#[derive(Debug)]
pub enum FsError {
    /// The path leads outside the root.
    Escapes(PathBuf),
    /// The file is larger than the bound given.
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes, as far as it is known (at least `limit + 1`).
        size: usize,
        /// The bound, in bytes.
        limit: usize,
    },
    /// The file is not UTF-8 text.
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The text before the first byte that is not UTF-8.
        before: String,
        /// That byte.
        byte: u8,
    },
    /// The path names something other than a regular file or folder.
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead (`a FIFO`, `a socket`, `a device`).
        kind: &'static str,
    },
    /// The operating system refused.
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FsError::Escapes(path) => {
                write!(f, "`{}` is outside the root", path.display())
            }
            FsError::TooLarge { path, limit, .. } => {
                write!(f, "`{}` is larger than {limit} bytes", path.display())
            }
            FsError::NotUtf8 { path, before, byte } => {
                let line = before.matches('\n').count() + 1;
                let column = before
                    .rsplit('\n')
                    .next()
                    .map_or(0, |last| last.chars().count())
                    + 1;
                write!(
                    f,
                    "`{}` is not valid utf-8 text: the byte 0x{byte:02x} at line {line}, column {column} is not utf-8",
                    path.display()
                )
            }
            FsError::NotAFile { path, kind } => write!(
                f,
                "`{}` is {kind}, not a regular file, and is not read",
                path.display()
            ),
            FsError::Io(path, error) => write!(
                f,
                "cannot read `{}`: {}",
                path.display(),
                lowercase_first(&error.to_string())
            ),
        }
    }
}

impl std::error::Error for FsError {}

impl FsError {
    /// The problem as a diagnostic at `span`, with one of the [`codes`]:
    /// the start of the file, or the reference that asked for it (an
    /// include, an import).
    #[must_use]
    pub fn diagnostic(&self, span: Span) -> Diagnostic {
        match self {
            FsError::TooLarge { size, limit, .. } => SyntaxError::TooLarge {
                span,
                size: *size,
                limit: *limit,
            }
            .into(),
            FsError::NotUtf8 { .. } => Diagnostic::error(codes::NOT_UTF8, self.to_string(), span)
                .with_help("save the file as utf-8"),
            FsError::Escapes(_) => Diagnostic::error(codes::OUTSIDE_ROOT, self.to_string(), span),
            FsError::NotAFile { .. } => {
                Diagnostic::error(codes::NOT_A_FILE, self.to_string(), span)
            }
            FsError::Io(..) => Diagnostic::error(codes::READ, self.to_string(), span),
        }
    }

    /// An entry a listing skipped (one of [`Listing::skipped`]), as a
    /// warning at `span` (the entry's own placeholder, so it is named).
    #[must_use]
    pub fn skipped(&self, span: Span) -> Diagnostic {
        let why = match self {
            FsError::Escapes(_) => "it is a symlink leading outside the root".to_owned(),
            FsError::Io(_, error) => format!(
                "it cannot be followed ({})",
                lowercase_first(&error.to_string())
            ),
            other => other.to_string(),
        };
        let path = self.path().display();
        Diagnostic::warning(codes::SKIPPED, format!("`{path}` is skipped: {why}"), span)
    }

    /// The path the problem is about.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            FsError::Escapes(path)
            | FsError::NotUtf8 { path, .. }
            | FsError::Io(path, _)
            | FsError::TooLarge { path, .. }
            | FsError::NotAFile { path, .. } => path,
        }
    }
}

/// What a listing found: the files, sorted, and the entries it would have
/// taken but could not.
#[derive(Debug, Default)]
pub struct Listing {
    /// The files, relative to the root.
    pub files: Vec<PathBuf>,
    /// Entries skipped (a symlink leading outside the root or nowhere),
    /// each with why.
    pub skipped: Vec<FsError>,
}

/// Read-only files below a root. Paths are relative to the root.
pub trait Files: Send + Sync {
    /// The text of a file, at most `limit` bytes.
    fn read(&self, path: &Path, limit: usize) -> Result<String, FsError>;

    /// Every file below the root whose name ends in one of `extensions`
    /// (without the dot; every file when empty), hidden entries skipped,
    /// sorted; and the entries it could not take.
    fn list(&self, extensions: &[&str]) -> Result<Listing, FsError>;

    /// How to show a path to a person (the root joined, for real files).
    fn display(&self, path: &Path) -> String;

    /// Whether `path` is a file below the root (false for anything outside
    /// it, however reached): import resolution tries candidates in order.
    fn is_file(&self, path: &Path) -> bool;

    /// The files below the folder `folder`, as a tree of their own whose
    /// root is that folder: nothing outside it can be read through it,
    /// symlinks included.
    fn subtree(&self, folder: &Path) -> Result<std::sync::Arc<dyn Files>, FsError>;

    /// The [`Stamp`] of the file at `path` as it is now, when the tree is
    /// on disk and `path` leads to something below its root; `None`
    /// otherwise (a tree in memory changes only through its owner).
    fn stamp(&self, path: &Path) -> Option<Stamp> {
        let _ = path;
        None
    }

    /// Where `path` is on disk, when the tree is on disk and `path` leads
    /// below its root: for a program that runs there (a data source's
    /// command). `None` otherwise.
    fn on_disk(&self, path: &Path) -> Option<PathBuf> {
        let _ = path;
        None
    }
}

/// Reads at most `limit` bytes of `reader` as UTF-8 text, the errors about
/// `path`; `known_size` (the file's size, when the caller knows it) refuses
/// a file over the bound before reading it, with its exact size. For
/// [`Files`] of other sources (standard input).
pub fn read_bounded(
    path: &Path,
    reader: impl Read,
    known_size: Option<u64>,
    limit: usize,
) -> Result<String, FsError> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    // A file known to be too large is refused without reading it: reading
    // up to the bound first cost a 100 MB file 200 MB of memory.
    if let Some(size) = known_size.filter(|size| *size >= cap) {
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            size: usize::try_from(size).unwrap_or(usize::MAX),
            limit,
        });
    }
    let mut bytes = Vec::new();
    reader
        .take(cap)
        .read_to_end(&mut bytes)
        .map_err(|error| FsError::Io(path.to_path_buf(), error))?;
    if bytes.len() > limit {
        let size = known_size
            .and_then(|size| usize::try_from(size).ok())
            .unwrap_or(bytes.len());
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit,
        });
    }
    String::from_utf8(bytes).map_err(|error| {
        let valid = error.utf8_error().valid_up_to();
        let mut bytes = error.into_bytes();
        let byte = bytes.get(valid).copied().unwrap_or_default();
        bytes.truncate(valid);
        FsError::NotUtf8 {
            path: path.to_path_buf(),
            before: String::from_utf8(bytes).unwrap_or_default(),
            byte,
        }
    })
}

/// Resolves `reference` against the folder of `from` (both relative to the
/// root), normalising `.` and `..`. Absolute references and references that
/// climb above the root are errors.
pub fn join(from: &Path, reference: &str) -> Result<PathBuf, FsError> {
    let reference_path = Path::new(reference);
    if reference_path.is_absolute() {
        return Err(FsError::Escapes(reference_path.to_path_buf()));
    }
    let base = from.parent().unwrap_or(Path::new(""));
    normalise(&base.join(reference_path))
}

/// Removes `.` and `..` from a relative path without touching the disk.
pub fn normalise(path: &Path) -> Result<PathBuf, FsError> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(FsError::Escapes(path.to_path_buf()));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(FsError::Escapes(path.to_path_buf()));
            }
        }
    }
    Ok(parts.iter().collect())
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    extensions.is_empty()
        || path
            .extension()
            .and_then(|ext| ext.to_str())
            .is_some_and(|ext| extensions.contains(&ext))
}

/// What a file that is neither a regular file nor a folder is, for messages.
fn special_kind(file_type: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_block_device() || file_type.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

fn is_fifo(file_type: std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    file_type.is_fifo()
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|name| name.starts_with('.'))
}

/// Files on disk below a root folder.
#[derive(Debug, Clone)]
pub struct RootFs {
    root: PathBuf,
    real_root: PathBuf,
    /// The real path of each folder looked up, for a reader as short-lived
    /// as one check ([`RootFs::for_one_pass`]); `None`: every path is
    /// resolved whole each time.
    folders: Option<Arc<Mutex<HashMap<PathBuf, PathBuf>>>>,
}

impl RootFs {
    /// Confines access to `root`, which must be an existing folder (an
    /// empty path is the working directory, and paths display as given).
    pub fn new(root: impl Into<PathBuf>) -> Result<RootFs, FsError> {
        let root = root.into();
        let real_root = if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            root.as_path()
        }
        .canonicalize()
        .map_err(|error| FsError::Io(root.clone(), error))?;
        if !real_root.is_dir() {
            let error = std::io::Error::from(std::io::ErrorKind::NotADirectory);
            return Err(FsError::Io(root, error));
        }
        Ok(RootFs {
            root,
            real_root,
            folders: None,
        })
    }

    /// As [`RootFs::new`], for one pass over the tree (a command's run, a
    /// language server's check): the real path of each folder is resolved
    /// once and kept, and
    /// a file in it that is not a symbolic link is confined by that alone
    /// (one `lstat` instead of resolving every component of its path
    /// again). A link is resolved whole, as always. Kept for as long as
    /// the value lives, so a folder replaced by a link while it lives is
    /// not seen: not for a reader that lives long (a service).
    ///
    /// # Errors
    /// As [`RootFs::new`].
    pub fn for_one_pass(root: impl Into<PathBuf>) -> Result<RootFs, FsError> {
        Ok(RootFs {
            folders: Some(Arc::default()),
            ..RootFs::new(root)?
        })
    }

    /// The root as given.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The real path of `path`, checked to lie below the real root.
    fn confine(&self, path: &Path) -> Result<PathBuf, FsError> {
        self.confine_looked_at(path).map(|(real, _)| real)
    }

    /// The real path of `path`, checked to lie below the real root, and
    /// its metadata when confining it looked at it (a file that is no link
    /// in a folder already resolved: [`RootFs::for_one_pass`]).
    fn confine_looked_at(
        &self,
        path: &Path,
    ) -> Result<(PathBuf, Option<std::fs::Metadata>), FsError> {
        let lexical = normalise(path)?;
        if let Some((real, metadata)) = self.confined_in_known_folder(&lexical)? {
            return Ok((real, Some(metadata)));
        }
        let joined = self.real_root.join(&lexical);
        let real = joined
            .canonicalize()
            .map_err(|error| FsError::Io(lexical.clone(), error))?;
        if real.starts_with(&self.real_root) {
            Ok((real, None))
        } else {
            Err(FsError::Escapes(lexical))
        }
    }

    /// With folders kept ([`RootFs::for_one_pass`]): the real path of
    /// `lexical` from its folder's, and its metadata, when it is no link
    /// (`None` when it is one, or folders are not kept).
    fn confined_in_known_folder(
        &self,
        lexical: &Path,
    ) -> Result<Option<(PathBuf, std::fs::Metadata)>, FsError> {
        let (Some(folders), Some(parent), Some(name)) =
            (&self.folders, lexical.parent(), lexical.file_name())
        else {
            return Ok(None);
        };
        let known = folders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(parent)
            .cloned();
        let real_parent = if let Some(real) = known {
            real
        } else {
            let real = self
                .real_root
                .join(parent)
                .canonicalize()
                .map_err(|error| FsError::Io(lexical.to_path_buf(), error))?;
            if !real.starts_with(&self.real_root) {
                return Err(FsError::Escapes(lexical.to_path_buf()));
            }
            folders
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(parent.to_path_buf(), real.clone());
            real
        };
        let candidate = real_parent.join(name);
        let metadata = std::fs::symlink_metadata(&candidate)
            .map_err(|error| FsError::Io(lexical.to_path_buf(), error))?;
        Ok((!metadata.file_type().is_symlink()).then_some((candidate, metadata)))
    }

    fn walk(
        &self,
        relative: &Path,
        extensions: &[&str],
        seen: &mut HashSet<PathBuf>,
        found: &mut Listing,
    ) -> Result<(), FsError> {
        let real = self.confine(relative)?;
        // A symlinked folder may point back up; visit each real folder once.
        if !seen.insert(real.clone()) {
            return Ok(());
        }
        let entries =
            std::fs::read_dir(&real).map_err(|error| FsError::Io(relative.to_path_buf(), error))?;
        let mut names: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.file_name())
            .filter(|name| !is_hidden(name))
            .collect();
        names.sort();
        for name in names {
            let child = relative.join(&name);
            let (real_child, looked_at) = match self.confine_looked_at(&child) {
                Ok(confined) => confined,
                Err(error) => {
                    // Links leading outside the root, or dangling, are not
                    // part of the tree; one that would have been taken (a
                    // folder, or a name with the extension) is named.
                    let would_take =
                        self.real_root.join(&child).is_dir() || has_extension(&child, extensions);
                    if would_take {
                        found.skipped.push(error);
                    }
                    continue;
                }
            };
            let is_dir =
                looked_at.map_or_else(|| real_child.is_dir(), |metadata| metadata.is_dir());
            if is_dir {
                self.walk(&child, extensions, seen, found)?;
            } else if has_extension(&child, extensions) {
                // Whatever it is: reading a FIFO or a device is refused, by name.
                found.files.push(child);
            }
        }
        Ok(())
    }
}

impl Files for RootFs {
    fn read(&self, path: &Path, limit: usize) -> Result<String, FsError> {
        let (real, looked_at) = self.confine_looked_at(path)?;
        // Before opening: opening a FIFO blocks until a writer comes, and a
        // device can be read without end.
        let metadata = match looked_at {
            Some(metadata) => metadata,
            None => {
                std::fs::metadata(&real).map_err(|error| FsError::Io(path.to_path_buf(), error))?
            }
        };
        if !metadata.is_file() && !metadata.is_dir() {
            return Err(FsError::NotAFile {
                path: path.to_path_buf(),
                kind: special_kind(metadata.file_type()),
            });
        }
        let file =
            std::fs::File::open(&real).map_err(|error| FsError::Io(path.to_path_buf(), error))?;
        read_bounded(path, file, Some(metadata.len()), limit)
    }

    fn list(&self, extensions: &[&str]) -> Result<Listing, FsError> {
        let mut found = Listing::default();
        self.walk(Path::new(""), extensions, &mut HashSet::new(), &mut found)?;
        Ok(found)
    }

    fn display(&self, path: &Path) -> String {
        self.root.join(path).display().to_string()
    }

    fn is_file(&self, path: &Path) -> bool {
        self.confine(path).is_ok_and(|real| real.is_file())
    }

    fn subtree(&self, folder: &Path) -> Result<std::sync::Arc<dyn Files>, FsError> {
        // Confined first: a folder reached through a symlink leading out is refused.
        self.confine(folder)?;
        Ok(std::sync::Arc::new(RootFs::new(
            self.root.join(normalise(folder)?),
        )?))
    }

    fn stamp(&self, path: &Path) -> Option<Stamp> {
        Stamp::of_path(&self.confine(path).ok()?)
    }

    fn on_disk(&self, path: &Path) -> Option<PathBuf> {
        self.confine(path).ok()
    }
}

/// Files named as a person names them on the command line: relative to the
/// working folder or absolute, unconfined, but read within the size bound;
/// `-` is standard input (shown as [`STDIN_NAME`]). Listing finds nothing
/// (there is no tree to walk).
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainFs;

/// What standard input is shown as.
pub const STDIN_NAME: &str = "<stdin>";

/// Whether `path` names standard input.
fn is_stdin(path: &Path) -> bool {
    path == Path::new("-")
}

impl Files for PlainFs {
    fn read(&self, path: &Path, limit: usize) -> Result<String, FsError> {
        if is_stdin(path) {
            return read_bounded(Path::new(STDIN_NAME), std::io::stdin().lock(), None, limit);
        }
        // Before opening: a device can be read without end, and its size
        // says nothing. A FIFO is read: a person who names one on the
        // command line (`--state <(...)`) means it.
        let metadata =
            std::fs::metadata(path).map_err(|error| FsError::Io(path.to_path_buf(), error))?;
        let file_type = metadata.file_type();
        if !metadata.is_file() && !metadata.is_dir() && !is_fifo(file_type) {
            return Err(FsError::NotAFile {
                path: path.to_path_buf(),
                kind: special_kind(file_type),
            });
        }
        let file =
            std::fs::File::open(path).map_err(|error| FsError::Io(path.to_path_buf(), error))?;
        let size = metadata.is_file().then_some(metadata.len());
        read_bounded(path, file, size, limit)
    }

    fn list(&self, _extensions: &[&str]) -> Result<Listing, FsError> {
        Ok(Listing::default())
    }

    fn display(&self, path: &Path) -> String {
        if is_stdin(path) {
            STDIN_NAME.to_owned()
        } else {
            path.display().to_string()
        }
    }

    fn is_file(&self, path: &Path) -> bool {
        is_stdin(path) || path.is_file()
    }

    fn subtree(&self, folder: &Path) -> Result<std::sync::Arc<dyn Files>, FsError> {
        Ok(std::sync::Arc::new(RootFs::new(folder)?))
    }

    fn stamp(&self, path: &Path) -> Option<Stamp> {
        Stamp::of_path(path)
    }

    fn on_disk(&self, path: &Path) -> Option<PathBuf> {
        Some(path.to_path_buf())
    }
}

/// Files held in memory, keyed by their relative path.
#[derive(Debug, Clone, Default)]
pub struct MemoryFs {
    files: BTreeMap<PathBuf, String>,
}

impl MemoryFs {
    /// An empty tree.
    #[must_use]
    pub fn new() -> MemoryFs {
        MemoryFs::default()
    }

    /// Adds (or replaces) a file.
    #[must_use]
    pub fn with(mut self, path: &str, text: &str) -> MemoryFs {
        self.files.insert(PathBuf::from(path), text.to_owned());
        self
    }

    /// The files below `folder`, their paths relative to it; a folder that
    /// holds none does not exist.
    fn within(&self, folder: &Path) -> Result<MemoryFs, FsError> {
        let folder = normalise(folder)?;
        let files = self
            .files
            .iter()
            .filter_map(|(path, text)| {
                let inner = path.strip_prefix(&folder).ok()?;
                Some((inner.to_path_buf(), text.clone()))
            })
            .collect::<BTreeMap<_, _>>();
        if files.is_empty() {
            let error = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(FsError::Io(folder, error));
        }
        Ok(MemoryFs { files })
    }
}

impl Files for MemoryFs {
    fn read(&self, path: &Path, limit: usize) -> Result<String, FsError> {
        let path = normalise(path)?;
        let text = self.files.get(&path).ok_or_else(|| {
            FsError::Io(
                path.clone(),
                std::io::Error::from(std::io::ErrorKind::NotFound),
            )
        })?;
        if text.len() > limit {
            return Err(FsError::TooLarge {
                path,
                size: text.len(),
                limit,
            });
        }
        Ok(text.clone())
    }

    fn list(&self, extensions: &[&str]) -> Result<Listing, FsError> {
        let files = self
            .files
            .keys()
            .filter(|path| path.components().all(|c| !is_hidden(c.as_os_str())))
            .filter(|path| has_extension(path, extensions))
            .cloned()
            .collect();
        Ok(Listing {
            files,
            skipped: Vec::new(),
        })
    }

    fn display(&self, path: &Path) -> String {
        path.display().to_string()
    }

    fn is_file(&self, path: &Path) -> bool {
        normalise(path).is_ok_and(|path| self.files.contains_key(&path))
    }

    fn subtree(&self, folder: &Path) -> Result<std::sync::Arc<dyn Files>, FsError> {
        Ok(std::sync::Arc::new(self.within(folder)?))
    }
}

/// A tree seen through edits: files held in memory ([`MemoryFs`], an
/// editor's unsaved buffers) over a base tree. A buffer replaces the base's
/// file of the same path, or adds one the base does not have; everything
/// else is read from the base, with its confinement.
#[derive(Clone)]
pub struct OverlayFs {
    base: std::sync::Arc<dyn Files>,
    buffers: MemoryFs,
}

impl OverlayFs {
    /// `buffers` over `base`; their paths are relative to the same root.
    #[must_use]
    pub fn new(base: std::sync::Arc<dyn Files>, buffers: MemoryFs) -> OverlayFs {
        OverlayFs { base, buffers }
    }
}

impl fmt::Debug for OverlayFs {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("OverlayFs")
            .field("buffers", &self.buffers)
            .finish_non_exhaustive()
    }
}

impl Files for OverlayFs {
    fn read(&self, path: &Path, limit: usize) -> Result<String, FsError> {
        if self.buffers.is_file(path) {
            self.buffers.read(path, limit)
        } else {
            self.base.read(path, limit)
        }
    }

    fn list(&self, extensions: &[&str]) -> Result<Listing, FsError> {
        let mut listing = self.base.list(extensions)?;
        listing.files.extend(self.buffers.list(extensions)?.files);
        listing.files.sort();
        listing.files.dedup();
        Ok(listing)
    }

    fn display(&self, path: &Path) -> String {
        self.base.display(path)
    }

    fn is_file(&self, path: &Path) -> bool {
        self.buffers.is_file(path) || self.base.is_file(path)
    }

    fn subtree(&self, folder: &Path) -> Result<std::sync::Arc<dyn Files>, FsError> {
        let buffers = self.buffers.within(folder).ok();
        match (self.base.subtree(folder), buffers) {
            (Ok(base), buffers) => Ok(std::sync::Arc::new(OverlayFs {
                base,
                buffers: buffers.unwrap_or_default(),
            })),
            // A folder of unsaved buffers only: there is nothing on disk.
            (Err(_), Some(buffers)) => Ok(std::sync::Arc::new(buffers)),
            (Err(error), None) => Err(error),
        }
    }

    fn stamp(&self, path: &Path) -> Option<Stamp> {
        if self.buffers.is_file(path) {
            None
        } else {
            self.base.stamp(path)
        }
    }

    fn on_disk(&self, path: &Path) -> Option<PathBuf> {
        self.base.on_disk(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_resolves_against_the_referring_file_and_stays_inside() {
        let from = Path::new("teams/python.yaml");
        assert_eq!(
            join(from, "../common/base.yaml").unwrap(),
            PathBuf::from("common/base.yaml")
        );
        assert_eq!(
            join(from, "./x.yaml").unwrap(),
            PathBuf::from("teams/x.yaml")
        );
        assert!(matches!(
            join(from, "../../etc/passwd"),
            Err(FsError::Escapes(_))
        ));
        assert!(matches!(
            join(from, "/etc/passwd"),
            Err(FsError::Escapes(_))
        ));
    }

    #[test]
    fn memory_listing_skips_hidden_entries_and_sorts() {
        let fs = MemoryFs::new()
            .with("b.yaml", "")
            .with("a/c.yml", "")
            .with("..data/d.yaml", "")
            .with(".strata.yaml", "")
            .with("notes.txt", "");
        let listed = fs.list(&["yaml", "yml"]).unwrap();
        assert_eq!(
            listed.files,
            [PathBuf::from("a/c.yml"), PathBuf::from("b.yaml")]
        );
        assert!(matches!(fs.read(Path::new(".strata.yaml"), 10), Ok(text) if text.is_empty()));
        assert!(matches!(
            MemoryFs::new().with("x", "12345").read(Path::new("x"), 4),
            Err(FsError::TooLarge { .. })
        ));
        assert!(fs.is_file(Path::new("a/./c.yml")));
        assert!(!fs.is_file(Path::new("a")));
        assert!(!fs.is_file(Path::new("../b.yaml")));
    }

    #[test]
    fn a_subtree_reads_only_below_its_folder() {
        let fs = MemoryFs::new()
            .with("windsor.yaml", "a")
            .with("contexts/_template/blueprint.yaml", "b");
        let template = fs.subtree(Path::new("contexts/_template")).unwrap();
        assert_eq!(template.read(Path::new("blueprint.yaml"), 10).unwrap(), "b");
        assert!(matches!(
            template.read(Path::new("../../windsor.yaml"), 10),
            Err(FsError::Escapes(_))
        ));
        assert!(fs.subtree(Path::new("missing")).is_err());
    }

    #[test]
    fn every_error_is_a_diagnostic_with_its_code() {
        let span = Span::default();
        let too_large = MemoryFs::new()
            .with("x", "12345")
            .read(Path::new("x"), 4)
            .unwrap_err()
            .diagnostic(span);
        assert_eq!(too_large.code, "syntax/too-large");
        assert_eq!(
            too_large.message,
            "input is 5 bytes, more than the limit of 4 bytes"
        );
        let missing = MemoryFs::new().read(Path::new("a.yaml"), 4).unwrap_err();
        assert_eq!(missing.diagnostic(span).code, codes::READ);
        let escapes = join(Path::new("a"), "../../b").unwrap_err();
        assert_eq!(escapes.diagnostic(span).code, codes::OUTSIDE_ROOT);
        let bytes: &[u8] = b"name: a\nimage: caf\xc3\xa9 \xff\n";
        let not_text = read_bounded(Path::new("dir/a.yaml"), bytes, None, 100)
            .unwrap_err()
            .diagnostic(span);
        assert_eq!(
            (not_text.code, not_text.message.as_str()),
            (
                codes::NOT_UTF8,
                "`dir/a.yaml` is not valid utf-8 text: the byte 0xff at line 2, column 13 is not utf-8"
            )
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_device_named_on_the_command_line_is_not_a_file() {
        let error = PlainFs.read(Path::new("/dev/zero"), 100).unwrap_err();
        assert_eq!(
            error.diagnostic(Span::default()).message,
            "`/dev/zero` is a device, not a regular file, and is not read"
        );
        // A FIFO is read: `--state <(...)` names one.
        let scratch = std::env::temp_dir().join(format!("strata-fs-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        let fifo = scratch.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, "a: 1\n").unwrap())
        };
        assert_eq!(PlainFs.read(&fifo, 100).unwrap(), "a: 1\n");
        writer.join().unwrap();
        std::fs::remove_dir_all(scratch).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn on_disk_a_file_outside_the_root_is_no_file() {
        let scratch =
            std::env::temp_dir().join(format!("strata-fs-is-file-{}", std::process::id()));
        let root = scratch.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/in.txt"), "x").unwrap();
        std::fs::write(scratch.join("out.txt"), "x").unwrap();
        std::os::unix::fs::symlink(scratch.join("out.txt"), root.join("link.txt")).unwrap();
        let fs = RootFs::new(&root).unwrap();
        assert!(fs.is_file(Path::new("sub/in.txt")));
        assert!(!fs.is_file(Path::new("sub")));
        assert!(!fs.is_file(Path::new("../out.txt")));
        assert!(!fs.is_file(Path::new("link.txt")));
        std::os::unix::fs::symlink(&scratch, root.join("up")).unwrap();
        assert!(matches!(
            fs.subtree(Path::new("up")),
            Err(FsError::Escapes(_))
        ));
        let sub = fs.subtree(Path::new("sub")).unwrap();
        assert_eq!(sub.read(Path::new("in.txt"), 10).unwrap(), "x");
        assert_eq!(PlainFs.read(&root.join("sub/in.txt"), 10).unwrap(), "x");
        std::fs::remove_dir_all(&scratch).unwrap();
    }
}

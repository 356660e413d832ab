//! Writing a file so that a reader never sees half of it: the bytes go to
//! a temporary file in the same folder, which is synced and renamed over
//! the target, and the folder is synced so that the rename survives a
//! crash. Missing parent folders are created. A failure leaves the target
//! as it was and removes the temporary file.

use std::fs::{self, File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use strata_syntax::{Diagnostic, Span};

use crate::codes;

/// Why a file could not be written.
#[derive(Debug)]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// What the operating system said.
    pub error: std::io::Error,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot write `{}`: {}",
            self.path.display(),
            strata_syntax::lowercase_first(&self.error.to_string())
        )
    }
}

impl std::error::Error for WriteError {}

impl WriteError {
    /// The problem as an `io/write` diagnostic at `span` (where the path
    /// was named).
    #[must_use]
    pub fn diagnostic(&self, span: Span) -> Diagnostic {
        Diagnostic::error(codes::WRITE, self.to_string(), span)
    }
}

/// Writes `bytes` to `path` atomically (see the module documentation).
///
/// # Errors
/// The folder cannot be created, or the file cannot be written, synced or
/// renamed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomically_with_mode(path, bytes, None)
}

/// The folder `path` is written in: its parent, the working directory for
/// a bare name.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    }
}

/// [`write_atomically`], the file given the permission bits `mode`
/// (`0o640`) before it takes the target's name, when given.
///
/// # Errors
/// As [`write_atomically`], or the permissions cannot be set.
pub fn write_atomically_with_mode(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<(), WriteError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let failed = |error| WriteError {
        path: path.to_owned(),
        error,
    };
    let folder = folder_of(path);
    fs::create_dir_all(folder).map_err(failed)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = folder.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        file.write_all(bytes)?;
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt as _;
            file.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        file.sync_all()?;
        fs::rename(&temporary, path)?;
        File::open(folder)?.sync_all()
    })();
    if written.is_err() {
        // Nothing to report beyond the first failure: the file may not
        // exist, or the rename may have happened.
        let _ = fs::remove_file(&temporary);
    }
    written.map_err(failed)
}

/// Removes what an interrupted [`write_atomically`] of `path` left beside
/// it (its temporary files, `.<name>.<pid>.<n>.tmp`), so that a folder
/// holds only the files written whole. For a caller that alone writes
/// `path` (under a lock): another process's write in progress would lose
/// its temporary file.
///
/// # Errors
/// The folder cannot be listed, or a temporary file cannot be removed.
pub fn remove_stale_temporaries(path: &Path) -> Result<(), WriteError> {
    let failed = |error| WriteError {
        path: path.to_owned(),
        error,
    };
    let folder = folder_of(path);
    let Some(name) = path.file_name().map(|name| name.to_string_lossy()) else {
        return Ok(());
    };
    let prefix = format!(".{name}.");
    let entries = match fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(failed(error)),
    };
    for entry in entries {
        let entry = entry.map_err(failed)?;
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        let temporary = file_name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(|middle| {
                middle.split('.').count() == 2
                    && middle
                        .split('.')
                        .all(|part| part.bytes().all(|b| b.is_ascii_digit()))
            });
        if temporary {
            fs::remove_file(entry.path()).map_err(failed)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{remove_stale_temporaries, write_atomically};

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_file_remains() {
        let root = std::env::temp_dir().join(format!("strata-write-{}", std::process::id()));
        let target = root.join("out/app.yaml");
        write_atomically(&target, b"one\n").unwrap();
        write_atomically(&target, b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "two\n");
        let names: Vec<_> = std::fs::read_dir(root.join("out"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["app.yaml"]);
        let error = write_atomically(&target.join("below-a-file"), b"x").unwrap_err();
        assert!(error.to_string().starts_with("cannot write `"), "{error}");
        std::fs::write(root.join("out/.app.yaml.99.0.tmp"), "half").unwrap();
        std::fs::write(root.join("out/.app.yaml.notes"), "kept").unwrap();
        remove_stale_temporaries(&target).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(root.join("out"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, [".app.yaml.notes", "app.yaml"]);
        std::fs::remove_dir_all(root).unwrap();
    }
}

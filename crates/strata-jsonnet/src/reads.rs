//! What evaluations read: the imports made, file to file, so a caller
//! that keeps an evaluation's result knows which files it depends on.
//!
//! A [`Vm::recording`](crate::Vm::recording) notes every import it
//! resolves (`import`, `importstr`, `importbin`) as edges from the
//! importing file (the empty path for code that is no file: an external
//! variable's or a top-level argument's) to every place it looked: those
//! where no file was (a file appearing there would change where the import
//! leads, or make a failed one succeed) and the file found, and marks as *volatile* what no
//! file's text decides: a `data://` source (a command's output), a
//! `glob-import` (a folder's listing) and `expandHelmTemplate` (a
//! process). A VM keeps the values of the files it imported, so a
//! second file importing a library does not import the library's own
//! imports again; the edges noted by every evaluation of one log still
//! give the whole graph, and a file's dependencies are everything its
//! edges reach ([`ImportLog::reach`]).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// The imports of the evaluations that share it.
#[derive(Debug, Default)]
pub struct ImportLog {
    /// The files each file imported, and whether it read something
    /// volatile.
    edges: Mutex<HashMap<PathBuf, Imports>>,
    /// A Helm chart was expanded: its output depends on a process, and
    /// which file called it is not known.
    helm: AtomicBool,
}

/// What one file imported.
#[derive(Debug, Default)]
struct Imports {
    files: HashSet<PathBuf>,
    volatile: bool,
}

impl ImportLog {
    /// Notes that `from` looked for an import at `imported` (a file, or
    /// nothing there).
    pub(crate) fn file(&self, from: &Path, imported: &Path) {
        let mut edges = self.edges.lock().unwrap_or_else(PoisonError::into_inner);
        let imports = edges.entry(from.to_path_buf()).or_default();
        if !imports.files.contains(imported) {
            imports.files.insert(imported.to_path_buf());
        }
    }

    /// Notes that `from` read something no file's text decides.
    pub(crate) fn volatile(&self, from: &Path) {
        let mut edges = self.edges.lock().unwrap_or_else(PoisonError::into_inner);
        edges.entry(from.to_path_buf()).or_default().volatile = true;
    }

    /// Notes that a Helm chart was expanded.
    pub(crate) fn helm(&self) {
        self.helm.store(true, Ordering::Relaxed);
    }

    /// Every path `roots` reach through the imports noted (files, and
    /// places where none was), the roots included, and what code that is
    /// no file imported (a variable's code, which any of them may read);
    /// `None` when one of them read something volatile (or a Helm chart
    /// was expanded), so that no result reading it is kept.
    #[must_use]
    pub fn reach(&self, roots: &[&Path]) -> Option<BTreeSet<PathBuf>> {
        if self.helm.load(Ordering::Relaxed) {
            return None;
        }
        let edges = self.edges.lock().unwrap_or_else(PoisonError::into_inner);
        let mut reached: BTreeSet<PathBuf> = BTreeSet::new();
        let no_file = Path::new("");
        let mut stack: Vec<&Path> = roots.iter().copied().chain([no_file]).collect();
        while let Some(file) = stack.pop() {
            if !reached.insert(file.to_path_buf()) {
                continue;
            }
            if let Some(imports) = edges.get(file) {
                if imports.volatile {
                    return None;
                }
                stack.extend(imports.files.iter().map(PathBuf::as_path));
            }
        }
        reached.remove(no_file);
        Some(reached)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reaches_what_its_imports_import() {
        let log = ImportLog::default();
        log.file(Path::new("c.jsonnet"), Path::new("lib/k.libsonnet"));
        log.file(
            Path::new("lib/k.libsonnet"),
            Path::new("lib/util.libsonnet"),
        );
        log.file(
            Path::new("lib/util.libsonnet"),
            Path::new("lib/k.libsonnet"),
        );
        log.file(Path::new("other.jsonnet"), Path::new("lib/data.json"));
        let reached = log.reach(&[Path::new("c.jsonnet")]).unwrap_or_default();
        let names: Vec<&str> = reached.iter().filter_map(|path| path.to_str()).collect();
        assert_eq!(
            names,
            ["c.jsonnet", "lib/k.libsonnet", "lib/util.libsonnet"]
        );
        // What a variable's code imports is reached from every file.
        log.file(Path::new(""), Path::new("lib/size.libsonnet"));
        let reached = log.reach(&[Path::new("other.jsonnet")]).unwrap_or_default();
        let names: Vec<&str> = reached.iter().filter_map(|path| path.to_str()).collect();
        assert_eq!(
            names,
            ["lib/data.json", "lib/size.libsonnet", "other.jsonnet"]
        );
        log.volatile(Path::new("lib/util.libsonnet"));
        assert_eq!(log.reach(&[Path::new("c.jsonnet")]), None);
        assert!(log.reach(&[Path::new("other.jsonnet")]).is_some());
        log.helm();
        assert_eq!(log.reach(&[Path::new("other.jsonnet")]), None);
    }
}

//! Component results kept from one render of an application to the next,
//! as an editor checks it again after every change.
//!
//! A Jsonnet component's result (its objects as text, its problems, its
//! failure and traces) is a function of what its render gives every
//! component (the environment, the external variables, the library
//! paths, the labels and filters asked for, the post-processors), of its
//! top-level arguments, and of the text of the files its evaluation read:
//! its own file and everything it imports, transitively, as a recording VM
//! notes them ([`strata_jsonnet::reads`]), the post-processors' files with
//! theirs, and of the places an import looked at where no file was (one
//! appearing there changes where the import leads). A result is kept under the first two, with a fingerprint of
//! each file's text; a later render with the same inputs whose files
//! still hash the same reuses it instead of evaluating. A result that read
//! something no file decides (a data source, a glob, a Helm chart) is not
//! kept. JSON and YAML components are read when the application is
//! opened: nothing to keep.
//!
//! The cache lives with the application and passes to the application
//! reopened from it ([`strata_dialect::Dialect::reopen`]); a render of the
//! command line opens once and never finds anything in it. Its text is
//! bounded: past [`MAX_BYTES`] it is emptied.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use strata_jsonnet::imports::Import;
use strata_syntax::{SourceId, Span};

use crate::workers::Evaluated;

/// The most text (objects) the cache holds before it is emptied.
pub(crate) const MAX_BYTES: usize = 256 << 20;

/// A hash of what `value` prints as (`Debug`): the render inputs are
/// plain data whose debug form is complete.
pub(crate) fn fingerprint(value: &impl std::fmt::Debug) -> u64 {
    let mut hasher = DefaultHasher::new();
    format!("{value:?}").hash(&mut hasher);
    hasher.finish()
}

/// A hash of a file's text.
pub(crate) fn text_hash(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// The results kept, by render inputs and component, and the imports
/// each Jsonnet text writes (the outline reads them after every change).
#[derive(Debug, Default)]
pub(crate) struct Cache {
    entries: Mutex<Entries>,
    imports: Mutex<HashMap<u64, Vec<Import>>>,
}

/// The most texts whose imports are kept before they are forgotten.
const MAX_IMPORT_TEXTS: usize = 20_000;

#[derive(Debug, Default)]
struct Entries {
    by_key: HashMap<Key, Arc<Entry>>,
    bytes: usize,
}

/// What a result depends on besides its files.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    /// The fingerprint of what the render gives every component.
    pub(crate) render: u64,
    /// The component, and the fingerprint of its top-level arguments.
    pub(crate) component: String,
    pub(crate) arguments: u64,
}

#[derive(Debug)]
struct Entry {
    /// Each file read, with the hash of its text then (`None`: a place an
    /// import looked at where no file was).
    files: Vec<(PathBuf, Option<u64>)>,
    /// The source the result's spans point into (the component's file
    /// as that render registered it).
    source: SourceId,
    evaluated: Evaluated,
}

impl Cache {
    /// The imports of each of `texts`, found by `parse` for the texts not
    /// seen before (all of those in one call).
    pub(crate) fn imports(
        &self,
        texts: &[&str],
        parse: impl FnOnce(&[&str]) -> Vec<Vec<Import>>,
    ) -> Vec<Vec<Import>> {
        let hashes: Vec<u64> = texts.iter().map(|text| text_hash(text)).collect();
        let mut known = self.imports.lock().unwrap_or_else(PoisonError::into_inner);
        let unseen: Vec<&str> = texts
            .iter()
            .zip(&hashes)
            .filter(|(_, hash)| !known.contains_key(hash))
            .map(|(text, _)| *text)
            .collect();
        if !unseen.is_empty() {
            if known.len() + unseen.len() > MAX_IMPORT_TEXTS {
                known.clear();
            }
            for (text, found) in unseen.iter().zip(parse(&unseen)) {
                known.insert(text_hash(text), found);
            }
        }
        hashes
            .iter()
            .map(|hash| known.get(hash).cloned().unwrap_or_default())
            .collect()
    }

    /// The result kept for `key` whose files all still hash as they did
    /// (`hash` gives a file's hash now, `None` when it cannot be read),
    /// its spans moved to `span`'s source.
    pub(crate) fn get(
        &self,
        key: &Key,
        span: Span,
        hash: impl Fn(&PathBuf) -> Option<u64>,
    ) -> Option<Evaluated> {
        // Files are read outside the lock: the other workers look up theirs
        // meanwhile.
        let entry = self
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .by_key
            .get(key)?
            .clone();
        let unchanged = entry.files.iter().all(|(file, then)| hash(file) == *then);
        if !unchanged {
            return None;
        }
        let mut evaluated = entry.evaluated.clone();
        evaluated.move_spans(entry.source, span.source);
        Some(evaluated)
    }

    /// Keeps `evaluated`, made with `files` (each with its hash, `None`
    /// for no file there) for `key`, its spans in `span`'s source.
    pub(crate) fn put(
        &self,
        key: Key,
        files: Vec<(PathBuf, Option<u64>)>,
        span: Span,
        evaluated: &Evaluated,
    ) {
        let bytes = text_bytes(evaluated);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.bytes + bytes > MAX_BYTES {
            *entries = Entries::default();
        }
        let entry = Entry {
            files,
            source: span.source,
            evaluated: evaluated.clone(),
        };
        if let Some(replaced) = entries.by_key.insert(key, Arc::new(entry)) {
            entries.bytes -= text_bytes(&replaced.evaluated);
        }
        entries.bytes += bytes;
    }
}

/// The bytes of the objects' text a result holds.
fn text_bytes(evaluated: &Evaluated) -> usize {
    evaluated
        .objects
        .iter()
        .map(|object| object.text.len())
        .sum()
}

//! Reading one file the way every dialect does: through [`Files`] (so the
//! path is confined and the size bounded), registered in a [`SourceDb`]
//! (so diagnostics point into it), parsed within the [`Limits`], every
//! problem reported.
//!
//! A file that cannot be read is reported at the start of an empty source
//! registered under its name, or, for a file another file asks for (an
//! include), at the reference that asked ([`Reader::included`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_fs::{Files, FsError};
use strata_syntax::{
    Diagnostic, Format, Limits, Mapping, Node, Outcome, SourceDb, SourceId, Span, Value,
};

use crate::codes;

/// One file as [`Reader::all_documents_reusing`] parsed it: the source it
/// was registered as, its text, and what parsing gave.
#[derive(Debug, Clone)]
pub struct Parsed {
    source: SourceId,
    text: Arc<str>,
    outcome: Outcome<Vec<Node>>,
}

/// What an opening parsed, by path, for the next opening to reuse where
/// a file's text and source did not change.
#[derive(Debug, Clone, Default)]
pub struct Parses(HashMap<PathBuf, Parsed>);

impl Parses {
    /// Keeps the parse of `path`.
    pub fn keep(&mut self, path: PathBuf, parsed: Parsed) {
        self.0.insert(path, parsed);
    }
}

/// Reads files of one tree into one database.
pub struct Reader<'a> {
    fs: &'a dyn Files,
    db: &'a mut SourceDb,
    limits: Limits,
}

impl<'a> Reader<'a> {
    /// Reads below `fs`'s root into `db`, within `limits`.
    pub fn new(fs: &'a dyn Files, db: &'a mut SourceDb, limits: Limits) -> Reader<'a> {
        Reader { fs, db, limits }
    }

    /// The files read.
    #[must_use]
    pub fn fs(&self) -> &'a dyn Files {
        self.fs
    }

    /// The database files are registered in.
    #[must_use]
    pub fn db(&self) -> &SourceDb {
        self.db
    }

    /// The database, to register what is not a file (a command-line value).
    pub fn db_mut(&mut self) -> &mut SourceDb {
        self.db
    }

    /// The bounds every file is read within.
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Registers an empty source named after `path`, for a problem about
    /// the file as a whole (it is missing, two components share it).
    pub fn placeholder(&mut self, path: &Path) -> Span {
        Span::file_start(self.db.add(self.fs.display(path), ""))
    }

    /// Every file below the root whose name ends in one of `extensions`,
    /// sorted. An entry the listing skipped (a symlink leading outside the
    /// root, or nowhere) is a warning that names it; a listing that fails
    /// is an error at `folder`, the part of the tree being listed.
    pub fn list(&mut self, extensions: &[&str], folder: &Path) -> Outcome<Vec<PathBuf>> {
        match self.fs.list(extensions) {
            Ok(listing) => {
                let warnings = self.skipped(&listing.skipped);
                Outcome::new(Some(listing.files), warnings)
            }
            Err(error) => Outcome::failed(vec![error.diagnostic(self.placeholder(folder))]),
        }
    }

    /// The entries a listing skipped, each a warning that names it.
    pub fn skipped(&mut self, skipped: &[FsError]) -> Vec<Diagnostic> {
        skipped
            .iter()
            .map(|entry| entry.skipped(self.placeholder(entry.path())))
            .collect()
    }

    /// Reads and registers a file's text.
    pub fn text(&mut self, path: &Path) -> Outcome<SourceId> {
        self.text_reported_at(path, None)
    }

    /// Reads, registers and parses a file into its documents. The documents
    /// come back even when the parse reported errors (as far as they were
    /// built), for callers that look for more problems.
    pub fn documents(&mut self, path: &Path, format: Format) -> Outcome<Vec<Node>> {
        self.parsed(path, format, None)
            .map(|(_, documents)| documents)
    }

    /// A file that must hold exactly one document. No value when the file
    /// cannot be read, does not parse, or holds another number of documents.
    pub fn document(&mut self, path: &Path, format: Format) -> Outcome<Node> {
        self.single(path, format, None)
    }

    /// A settings file that may be empty but holds at most one document:
    /// an empty file stands for an empty mapping at its start.
    pub fn document_or_empty(&mut self, path: &Path, format: Format) -> Outcome<Node> {
        let outcome = self.parsed(path, format, None);
        if outcome.has_errors() {
            return Outcome::failed(outcome.diagnostics);
        }
        let mut diagnostics = outcome.diagnostics;
        let Some((id, mut documents)) = outcome.value else {
            return Outcome::failed(diagnostics);
        };
        if documents.len() > 1 {
            let span = documents[1].span;
            let name = self.fs.display(path);
            diagnostics.push(count_error(&name, documents.len(), "at most one", span));
            return Outcome::failed(diagnostics);
        }
        let document = documents
            .pop()
            .unwrap_or_else(|| Node::new(Value::Map(Mapping::default()), Span::file_start(id)));
        Outcome::new(Some(document), diagnostics)
    }

    /// A file another file refers to at `at` (an `!include`), which must
    /// hold exactly one document: a failed read and a wrong count are
    /// reported at the reference.
    pub fn included(&mut self, path: &Path, format: Format, at: Span) -> Outcome<Node> {
        self.single(path, format, Some(at))
    }

    /// The one document of `path`, whose documents were already read; a
    /// wrong count is reported at `at`.
    pub fn expect_one(&self, path: &Path, mut documents: Vec<Node>, at: Span) -> Outcome<Node> {
        if documents.len() == 1 {
            return Outcome::new(documents.pop(), Vec::new());
        }
        let name = self.fs.display(path);
        Outcome::error(count_error(&name, documents.len(), "exactly one", at))
    }

    fn single(&mut self, path: &Path, format: Format, at: Option<Span>) -> Outcome<Node> {
        let outcome = self.parsed(path, format, at);
        if outcome.has_errors() {
            return Outcome::failed(outcome.diagnostics);
        }
        let mut diagnostics = outcome.diagnostics;
        let Some((id, documents)) = outcome.value else {
            return Outcome::failed(diagnostics);
        };
        let at = at
            .or_else(|| documents.get(1).map(|second| second.span))
            .unwrap_or_else(|| Span::file_start(id));
        let one = self
            .expect_one(path, documents, at)
            .report(&mut diagnostics);
        Outcome::new(one, diagnostics)
    }

    fn text_reported_at(&mut self, path: &Path, at: Option<Span>) -> Outcome<SourceId> {
        match self.fs.read(path, self.limits.max_bytes) {
            Ok(text) => Outcome::ok(self.db.add(self.fs.display(path), text)),
            Err(error) => {
                let span = at.unwrap_or_else(|| self.unread_at(path, &error));
                Outcome::error(error.diagnostic(span))
            }
        }
    }

    /// Where a file that could not be read is reported when no other file
    /// asked for it: at its first byte that is not UTF-8 (the text before
    /// it registered under the file's name), else at the start of an empty
    /// source named after it.
    fn unread_at(&mut self, path: &Path, error: &FsError) -> Span {
        match error {
            FsError::NotUtf8 { before, .. } => {
                let id = self.db.add(self.fs.display(path), before.as_str());
                Span::new(id, before.len(), before.len())
            }
            _ => self.placeholder(path),
        }
    }

    /// [`Reader::documents`] of every file of `paths`, in order: the texts
    /// are read and registered one by one, then parsed on every core
    /// ([`map_ordered`](crate::map_ordered)).
    pub fn all_documents(&mut self, paths: &[PathBuf], format: Format) -> Vec<Outcome<Vec<Node>>> {
        self.documents_of(paths, format, None)
            .into_iter()
            .map(|(outcome, _)| outcome)
            .collect()
    }

    /// [`Reader::all_documents`], reusing the parse of `previous` for a
    /// file read again with the same text into the same source (a
    /// reopening: the spans of the parse are still right); each outcome
    /// comes with what a later reading may reuse of it ([`Parses::keep`]).
    pub fn all_documents_reusing(
        &mut self,
        paths: &[PathBuf],
        format: Format,
        previous: &Parses,
    ) -> Vec<(Outcome<Vec<Node>>, Option<Parsed>)> {
        self.documents_of(paths, format, Some(previous))
    }

    /// Every file of `paths` read, registered and parsed on every core;
    /// with `previous`, reusing its parses and keeping each new one (a
    /// copy of the text and the trees, paid only by a reader that reopens).
    fn documents_of(
        &mut self,
        paths: &[PathBuf],
        format: Format,
        previous: Option<&Parses>,
    ) -> Vec<(Outcome<Vec<Node>>, Option<Parsed>)> {
        let texts: Vec<(&PathBuf, Outcome<SourceId>)> =
            paths.iter().map(|path| (path, self.text(path))).collect();
        let (db, limits) = (&*self.db, &self.limits);
        crate::map_ordered(&texts, |(path, text)| {
            let Some(id) = text.value else {
                return (Outcome::failed(text.diagnostics.clone()), None);
            };
            let source = db.get(id).text();
            let reused = previous
                .and_then(|previous| previous.0.get(*path))
                .filter(|parsed| parsed.source == id && *parsed.text == *source);
            if let Some(parsed) = reused {
                let outcome = text.clone().and_then(|_| parsed.outcome.clone());
                return (outcome, Some(parsed.clone()));
            }
            let parsed = strata_syntax::parse(db, id, format, limits);
            let outcome = Outcome::new(Some(parsed.documents), parsed.diagnostics);
            let kept = previous.map(|_| Parsed {
                source: id,
                text: Arc::from(source),
                outcome: outcome.clone(),
            });
            (text.clone().and_then(|_| outcome), kept)
        })
    }

    /// As [`Reader::documents`], with the file's source (to point at a file
    /// that holds no document).
    pub fn source_documents(
        &mut self,
        path: &Path,
        format: Format,
    ) -> Outcome<(SourceId, Vec<Node>)> {
        self.parsed(path, format, None)
    }

    /// The file's source and documents.
    fn parsed(
        &mut self,
        path: &Path,
        format: Format,
        at: Option<Span>,
    ) -> Outcome<(SourceId, Vec<Node>)> {
        self.text_reported_at(path, at).and_then(|id| {
            let parsed = strata_syntax::parse(self.db, id, format, &self.limits);
            Outcome::new(Some((id, parsed.documents)), parsed.diagnostics)
        })
    }
}

/// Why text in memory gave no document ([`parse_document`]).
#[derive(Debug)]
pub enum Unparsed {
    /// The text, or what its aliases expand to, is larger than the limits
    /// allow.
    TooLarge(Vec<Diagnostic>),
    /// The text is not one valid document.
    Invalid(Vec<Diagnostic>),
}

impl Unparsed {
    /// The problems found.
    #[must_use]
    pub fn diagnostics(self) -> Vec<Diagnostic> {
        match self {
            Unparsed::TooLarge(diagnostics) | Unparsed::Invalid(diagnostics) => diagnostics,
        }
    }
}

/// Registers `text` (already in memory: a request body, a command-line
/// value) under `name` and parses it as exactly one document.
pub fn parse_document(
    db: &mut SourceDb,
    name: &str,
    text: &str,
    format: Format,
    limits: &Limits,
) -> Result<Node, Unparsed> {
    let id = db.add(name, text);
    let mut parsed = strata_syntax::parse(db, id, format, limits);
    if parsed.too_large {
        return Err(Unparsed::TooLarge(parsed.diagnostics));
    }
    if parsed.has_errors() {
        return Err(Unparsed::Invalid(parsed.diagnostics));
    }
    if parsed.documents.len() == 1
        && let Some(document) = parsed.documents.pop()
    {
        return Ok(document);
    }
    let at = parsed
        .documents
        .get(1)
        .map_or_else(|| Span::file_start(id), |second| second.span);
    let count = parsed.documents.len();
    parsed
        .diagnostics
        .push(count_error(name, count, "exactly one", at));
    Err(Unparsed::Invalid(parsed.diagnostics))
}

fn count_error(name: &str, count: usize, expected: &str, span: Span) -> Diagnostic {
    let holds = match count {
        0 => "none".to_owned(),
        1 => "one".to_owned(),
        n => n.to_string(),
    };
    Diagnostic::error(
        codes::DOCUMENT_COUNT,
        format!("`{name}` must hold {expected} document, it holds {holds}"),
        span,
    )
}

#[cfg(test)]
mod tests {
    use strata_fs::MemoryFs;

    use super::*;

    fn read<T>(
        fs: &MemoryFs,
        read: impl FnOnce(&mut Reader<'_>) -> Outcome<T>,
    ) -> (SourceDb, Outcome<T>) {
        let mut db = SourceDb::new();
        let outcome = read(&mut Reader::new(fs, &mut db, Limits::default()));
        (db, outcome)
    }

    fn codes<T>(db: &SourceDb, outcome: &Outcome<T>) -> Vec<String> {
        outcome
            .diagnostics
            .iter()
            .map(|d| {
                let record = d.record(db);
                format!(
                    "{}@{}:{}:{}",
                    record.code, record.file, record.line, record.column
                )
            })
            .collect()
    }

    #[test]
    fn documents_are_read_registered_and_parsed() {
        let fs = MemoryFs::new().with("a.yaml", "x: 1\n---\ny: [\n");
        let (db, outcome) = read(&fs, |r| r.documents(Path::new("a.yaml"), Format::Yaml));
        assert_eq!(codes(&db, &outcome), ["syntax/yaml@a.yaml:4:1"]);
        assert!(outcome.value.is_some_and(|documents| !documents.is_empty()));
        let (db, outcome) = read(&fs, |r| r.documents(Path::new("b.yaml"), Format::Yaml));
        assert_eq!(codes(&db, &outcome), ["io/read@b.yaml:1:1"]);
        assert!(outcome.value.is_none());
    }

    #[test]
    fn single_documents_are_counted_with_one_code() {
        let fs = MemoryFs::new()
            .with("one.yaml", "a: 1\n")
            .with("two.yaml", "a: 1\n---\nb: 2\n")
            .with("none.yaml", "# nothing\n");
        let (_, one) = read(&fs, |r| r.document(Path::new("one.yaml"), Format::Yaml));
        assert!(one.value.is_some() && one.diagnostics.is_empty());
        let (db, two) = read(&fs, |r| r.document(Path::new("two.yaml"), Format::Yaml));
        assert_eq!(codes(&db, &two), ["io/document-count@two.yaml:3:1"]);
        assert_eq!(
            two.diagnostics[0].message,
            "`two.yaml` must hold exactly one document, it holds 2"
        );
        let (db, none) = read(&fs, |r| r.document(Path::new("none.yaml"), Format::Yaml));
        assert_eq!(codes(&db, &none), ["io/document-count@none.yaml:1:1"]);
        let (_, empty) = read(&fs, |r| {
            r.document_or_empty(Path::new("none.yaml"), Format::Yaml)
        });
        assert!(
            empty
                .value
                .is_some_and(|node| node.as_map().is_some_and(Mapping::is_empty))
        );
        let (db, two) = read(&fs, |r| {
            r.document_or_empty(Path::new("two.yaml"), Format::Yaml)
        });
        assert_eq!(codes(&db, &two), ["io/document-count@two.yaml:3:1"]);
    }

    #[test]
    fn text_in_memory_is_one_document_too() {
        let mut db = SourceDb::new();
        let limits = Limits::default();
        let invalid = |outcome| match outcome {
            Err(Unparsed::Invalid(diagnostics)) => diagnostics,
            other => panic!("not refused as invalid: {other:?}"),
        };
        let json = invalid(parse_document(
            &mut db,
            "body",
            "a: 1\n",
            Format::Json,
            &limits,
        ));
        assert_eq!(json[0].code, "syntax/json");
        assert!(parse_document(&mut db, "body", "a: 1\n", Format::Yaml, &limits).is_ok());
        let none = invalid(parse_document(&mut db, "body", "", Format::Yaml, &limits));
        assert_eq!(
            codes(&db, &Outcome::<()>::failed(none)),
            ["io/document-count@body:1:1"]
        );
        let tight = Limits {
            max_alias_bytes: 4,
            ..limits
        };
        let aliased = parse_document(
            &mut db,
            "body",
            "a: &a xyz\nb: *a\nc: *a\n",
            Format::Yaml,
            &tight,
        );
        assert!(matches!(aliased, Err(Unparsed::TooLarge(_))), "{aliased:?}");
    }

    #[test]
    fn included_files_are_reported_at_the_reference() {
        let fs = MemoryFs::new().with("main.yaml", "x: !include part.yaml\n");
        let (db, outcome) = read(&fs, |r| {
            let main = r.text(Path::new("main.yaml")).value.unwrap();
            r.included(Path::new("part.yaml"), Format::Yaml, Span::new(main, 3, 21))
        });
        assert_eq!(codes(&db, &outcome), ["io/read@main.yaml:1:4"]);
    }
}

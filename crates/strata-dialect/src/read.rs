//! Reading one file the way every dialect does: through [`Files`] (so the
//! path is confined and the size bounded), registered in a [`SourceDb`]
//! (so diagnostics point into it), parsed within the [`Limits`], held to
//! what the caller expects of it, every problem reported.
//!
//! There is one call, [`Reader::read`]: a path, its format, an [`Expect`]
//! (every document, exactly one, at most one, exactly one of a `kind`, or
//! one as far as the parse built it) and a [`Place`] (the file itself, or
//! the reference that named it). It gives a [`Read`]: the source the text
//! was registered as, the documents, and the anchors, aliases and tags the
//! parse saw; [`Reader::read_handing_off`] reads the same while work runs
//! on the entries of one section as the parse completes each. Text that
//! did not come from the tree (a fetched remote
//! include, a command-line value that is YAML) goes through the same
//! expectation with [`Reader::read_text`], and documents already read
//! (a listing parsed on every core, [`Reader::all_documents`]) with
//! [`Reader::expect`], so no dialect registers, parses or counts on its
//! own.
//!
//! Where problems are reported:
//!
//! - A file that cannot be read is reported at the start of an empty
//!   source registered under its name (at its first byte that is not
//!   UTF-8, the text before it registered), or, for a file another file
//!   names ([`Place::Reference`], [`Place::UnreadAt`]), at the reference.
//! - A file that holds another number of documents than expected is one
//!   error, `io/document-count`, at its second document (or its start when
//!   it holds none), or at the reference ([`Place::Reference`]). A file
//!   whose parse reported an error is not counted (the count of a broken
//!   parse is not the file's), except as [`Expect::OneAsParsed`] says.
//! - Parse problems are `strata-syntax`'s; they are all errors.
//!
//! The value: [`Expect::All`] and [`Expect::OneAsParsed`] give what the
//! parse built even when it reported errors (for callers that look for
//! more problems; `Outcome::valid` for one that must not); the other
//! expectations give a value only when the file is what they expect, its
//! one document in [`Read::documents`] ([`Read::into_document`]).

use std::path::{Path, PathBuf};

use strata_fs::{Files, FsError};
use strata_syntax::{
    Code, Diagnostic, Format, HandedEntry, Handoff, Limits, Mapping, Node, NodeProperty, Outcome,
    Parsed, SourceDb, SourceId, Span, Value,
};

use crate::codes;

/// What a file must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect<'k> {
    /// Every document, as far as the parse built them: a value whenever
    /// the file was read, even when the parse reported errors.
    All,
    /// Exactly one document. No value when the file does not parse (and
    /// then no count) or holds another number of documents.
    One,
    /// At most one document, for a settings file that may be empty: an
    /// empty file stands for an empty mapping at its start. No value when
    /// the file does not parse or holds more.
    AtMostOne,
    /// Exactly one document whose top-level `kind` is `kind`, in a file
    /// that may hold documents of any kind (empty ones are left out by the
    /// parse). Each document of another kind is an error with the
    /// dialect's code `wrong`, at its `kind`, naming the kind found; a
    /// document without a `kind` counts as one of `kind`, for the schema to
    /// report. Only when no document is of another kind is the number
    /// counted. No value when the file does not parse or any of this fails.
    OneOfKind {
        /// The kind required.
        kind: &'k str,
        /// The dialect's code for a document of another kind.
        wrong: Code,
    },
    /// Exactly one document, for a file its dialect checks as far as it
    /// parses (a spec blueprint): a value whenever the file was read, with
    /// every document the parse built, even when it reported errors or
    /// built another number ([`Read::into_document`] gives the one there
    /// is). A wrong count is reported unless the parse built no document
    /// and reported an error (a file that does not parse has its syntax
    /// error, not also "no document").
    OneAsParsed,
}

/// Where a failed read and a wrong count are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In the file: a failed read at its start, a wrong count at its second
    /// document (or its start).
    File,
    /// A file another file names at the span (an `!include`, an
    /// environment file): a failed read and a wrong count are reported at
    /// the reference.
    Reference(Span),
    /// A file another file names at the span whose contents are its own
    /// to answer for (a spec blueprint's include): a failed read is
    /// reported at the reference, a wrong count in the file, as for
    /// [`Place::File`].
    UnreadAt(Span),
}

/// Where the problems of a listing ([`Reader::list`]) are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed<'p> {
    /// A folder of the tree: a listing that fails is reported at the start
    /// of an empty source named after it; each entry the listing skipped is
    /// a warning that names it.
    Folder(&'p Path),
    /// A value that names what is listed (a components folder): a listing
    /// that fails is reported at it; each entry skipped is a warning.
    Reference(Span),
    /// A glob written at the span, matched against the listing: a listing
    /// that fails is reported at it, and the entries it skipped are not
    /// (a glob names files; the tree's own listing reports what it skips,
    /// once).
    Glob(Span),
}

/// A file read: the source its text was registered as, its documents as
/// the expectation gives them, and the anchors, aliases and tags the parse
/// saw (aliases are expanded in the documents), for a dialect whose files
/// may not use them.
#[derive(Debug, Clone)]
pub struct Read {
    /// The source the text was registered as.
    pub source: SourceId,
    /// The documents, in order.
    pub documents: Vec<Node>,
    /// Every anchor, alias and tag written, in the order written.
    pub properties: Vec<NodeProperty>,
}

impl Read {
    /// The one document, when there is exactly one (always, in a value of
    /// [`Expect::One`], [`Expect::AtMostOne`] and [`Expect::OneOfKind`]).
    #[must_use]
    pub fn into_document(self) -> Option<Node> {
        let mut documents = self.documents;
        if documents.len() == 1 {
            documents.pop()
        } else {
            None
        }
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

    /// The database files are registered in.
    #[must_use]
    pub fn db(&self) -> &SourceDb {
        self.db
    }

    /// The bounds every file is read within.
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Whether `path` is a file of the tree (an optional file is read only
    /// when it is there).
    #[must_use]
    pub fn is_file(&self, path: &Path) -> bool {
        self.fs.is_file(path)
    }

    /// How `path` is shown to a person: the name its source is registered
    /// under.
    #[must_use]
    pub fn display(&self, path: &Path) -> String {
        self.fs.display(path)
    }

    /// Registers `text` that is not a file (a command-line value, a
    /// setting given in code) as a source of its own, so a diagnostic about
    /// it points at it.
    pub fn register(&mut self, name: &str, text: &str) -> SourceId {
        self.db.add(name, text)
    }

    /// Registers an empty source named after `path`, for a problem about
    /// the file as a whole (it is missing, two components share it).
    pub fn placeholder(&mut self, path: &Path) -> Span {
        Span::file_start(self.db.add(self.fs.display(path), ""))
    }

    /// Every file below the root whose name ends in one of `extensions`,
    /// sorted; where its problems go, [`Listed`] says.
    pub fn list(&mut self, extensions: &[&str], listed: Listed<'_>) -> Outcome<Vec<PathBuf>> {
        match self.fs.list(extensions) {
            Ok(listing) => {
                let warnings = match listed {
                    Listed::Folder(_) | Listed::Reference(_) => self.skipped(&listing.skipped),
                    Listed::Glob(_) => Vec::new(),
                };
                Outcome::new(Some(listing.files), warnings)
            }
            Err(error) => {
                let at = match listed {
                    Listed::Folder(folder) => self.placeholder(folder),
                    Listed::Reference(at) | Listed::Glob(at) => at,
                };
                Outcome::error(error.diagnostic(at))
            }
        }
    }

    /// The entries a listing skipped, each a warning that names it.
    fn skipped(&mut self, skipped: &[FsError]) -> Vec<Diagnostic> {
        skipped
            .iter()
            .map(|entry| entry.skipped(self.placeholder(entry.path())))
            .collect()
    }

    /// Reads `path`, registers its text, parses it as `format` and holds
    /// it to `expect`; `place` says where a failed read and a wrong count
    /// are reported (the module docs say what each gives).
    pub fn read(
        &mut self,
        path: &Path,
        format: Format,
        expect: Expect<'_>,
        place: Place,
    ) -> Outcome<Read> {
        let unread_at = match place {
            Place::File => None,
            Place::Reference(at) | Place::UnreadAt(at) => Some(at),
        };
        self.text(path, unread_at)
            .and_then(|source| self.parse(source, format, expect, place))
    }

    /// As [`Reader::read`] of a file itself ([`Place::File`]), with `work`
    /// done on each entry of the top-level mapping `section` (given the
    /// sources, the file's registered) on the machine's other cores as the
    /// parse completes it ([`strata_syntax::parse_handing_off`]): each
    /// value's span with its result, in the order written. The documents
    /// are what [`Reader::read`] gives; an entry the parse did not hand
    /// out (JSON, a duplicate key, an anchored section) has no result.
    pub fn read_handing_off<R: Send>(
        &mut self,
        path: &Path,
        format: Format,
        expect: Expect<'_>,
        section: &str,
        work: impl Fn(&SourceDb, &HandedEntry) -> R + Sync,
    ) -> (Outcome<Read>, Vec<(Span, R)>) {
        let mut results = Vec::new();
        let read = self.text(path, None).and_then(|source| {
            let db: &SourceDb = self.db;
            let (mut parsed, done) = crate::parallel::hand_off(
                |give| {
                    let handoff = Handoff { section, give };
                    strata_syntax::parse_handing_off(db, source, format, &self.limits, handoff)
                },
                |entry| work(db, entry),
            );
            let (entries, worked): (Vec<HandedEntry>, _) = done
                .into_iter()
                .map(|(entry, result)| {
                    let span = entry.value.span;
                    (entry, (span, result))
                })
                .unzip();
            results = worked;
            parsed.restore(section, entries);
            held(db, source, parsed, expect, Place::File)
        });
        (read, results)
    }

    /// As [`Reader::read`], for `text` that did not come from the tree (a
    /// remote include fetched, a command-line value written in YAML),
    /// registered under `name`; its problems are reported in it.
    pub fn read_text(
        &mut self,
        name: &str,
        text: &str,
        format: Format,
        expect: Expect<'_>,
    ) -> Outcome<Read> {
        let source = self.db.add(name, text);
        self.parse(source, format, expect, Place::File)
    }

    /// Holds documents already read (a listing's, [`Reader::all_documents`])
    /// to `expect`, as [`Reader::read`] would a file that parsed: its parse
    /// problems were reported where it was read.
    pub fn expect(&self, read: Read, expect: Expect<'_>, place: Place) -> Outcome<Read> {
        hold(self.db, read, Vec::new(), expect, place)
    }

    /// Reads and registers the text of every file of `paths`, in order:
    /// its source, or its problem reported. A dialect that reopens
    /// compares a text with the one it parsed before and parses only the
    /// files whose text changed ([`Reader::parse_all`]).
    pub fn sources(&mut self, paths: &[PathBuf]) -> Vec<Outcome<SourceId>> {
        // Read on every core, registered in order.
        let (fs, limit) = (self.fs, self.limits.max_bytes);
        let texts = crate::map_ordered(paths, |path| fs.read(path, limit));
        paths
            .iter()
            .zip(texts)
            .map(|(path, text)| self.register_read(path, text, None))
            .collect()
    }

    /// Every registered source of `sources` parsed as a file in `format`
    /// and held to `expect`, in order, on every core
    /// ([`map_ordered`](crate::map_ordered)).
    #[must_use]
    pub fn parse_all(
        &self,
        sources: &[SourceId],
        format: Format,
        expect: Expect<'_>,
    ) -> Vec<Outcome<Read>> {
        let (db, limits) = (&*self.db, &self.limits);
        crate::map_ordered(sources, |source| {
            parse(db, *source, format, limits, expect, Place::File)
        })
    }

    /// Parses a registered source ([`Reader::source`]) as `format` and
    /// holds it to `expect`, as [`Reader::read`] would the file.
    pub fn parse(
        &self,
        source: SourceId,
        format: Format,
        expect: Expect<'_>,
        place: Place,
    ) -> Outcome<Read> {
        parse(self.db, source, format, &self.limits, expect, place)
    }

    /// Reads and registers a file that is not a document (Jsonnet code, a
    /// string value): its source, or its problem reported.
    pub fn source(&mut self, path: &Path) -> Outcome<SourceId> {
        self.text(path, None)
    }

    /// Reads and registers a file's text; a failed read is reported at
    /// `unread_at` when another file named it there.
    fn text(&mut self, path: &Path, unread_at: Option<Span>) -> Outcome<SourceId> {
        let text = self.fs.read(path, self.limits.max_bytes);
        self.register_read(path, text, unread_at)
    }

    /// Registers the text read from `path`, or reports why it could not be
    /// read (at `unread_at` when another file named it there).
    fn register_read(
        &mut self,
        path: &Path,
        text: Result<String, FsError>,
        unread_at: Option<Span>,
    ) -> Outcome<SourceId> {
        match text {
            Ok(text) => Outcome::ok(self.db.add(self.fs.display(path), text)),
            Err(error) => {
                let span = unread_at.unwrap_or_else(|| self.unread_at(path, &error));
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
}

/// Parses the registered `source` and holds it to `expect`.
fn parse(
    db: &SourceDb,
    source: SourceId,
    format: Format,
    limits: &Limits,
    expect: Expect<'_>,
    place: Place,
) -> Outcome<Read> {
    held(
        db,
        source,
        strata_syntax::parse(db, source, format, limits),
        expect,
        place,
    )
}

/// What the parse of `source` gave, held to `expect`.
fn held(
    db: &SourceDb,
    source: SourceId,
    parsed: Parsed,
    expect: Expect<'_>,
    place: Place,
) -> Outcome<Read> {
    let read = Read {
        source,
        documents: parsed.documents,
        properties: parsed.properties,
    };
    hold(db, read, parsed.diagnostics, expect, place)
}

/// Holds `read`, whose parse reported `diagnostics`, to `expect`: the one
/// place documents are counted.
fn hold(
    db: &SourceDb,
    mut read: Read,
    mut diagnostics: Vec<Diagnostic>,
    expect: Expect<'_>,
    place: Place,
) -> Outcome<Read> {
    let unparsed = diagnostics.iter().any(Diagnostic::is_error);
    let name = db.get(read.source).name();
    let file = Span::file_start(read.source);
    // A wrong count: at the reference, else at the second of `documents`
    // (the one too many), else at the file's start (there is none).
    let count_at = |documents: &[Node]| match place {
        Place::Reference(at) => at,
        Place::File | Place::UnreadAt(_) => documents.get(1).map_or(file, |second| second.span),
    };
    match expect {
        Expect::All => Outcome::new(Some(read), diagnostics),
        Expect::OneAsParsed => {
            let count = read.documents.len();
            if count != 1 && !(unparsed && count == 0) {
                let at = count_at(&read.documents);
                diagnostics.push(count_error(name, count, "exactly one", at));
            }
            Outcome::new(Some(read), diagnostics)
        }
        Expect::One | Expect::AtMostOne | Expect::OneOfKind { .. } if unparsed => {
            Outcome::failed(diagnostics)
        }
        Expect::One => {
            let count = read.documents.len();
            if count != 1 {
                let at = count_at(&read.documents);
                diagnostics.push(count_error(name, count, "exactly one", at));
                return Outcome::failed(diagnostics);
            }
            Outcome::new(Some(read), diagnostics)
        }
        Expect::AtMostOne => {
            let count = read.documents.len();
            if count > 1 {
                let at = count_at(&read.documents);
                diagnostics.push(count_error(name, count, "at most one", at));
                return Outcome::failed(diagnostics);
            }
            if count == 0 {
                read.documents
                    .push(Node::new(Value::Map(Mapping::default()), file));
            }
            Outcome::new(Some(read), diagnostics)
        }
        Expect::OneOfKind { kind, wrong } => {
            let mut found = Vec::new();
            let mut problems = Vec::new();
            for document in std::mem::take(&mut read.documents) {
                match document.get("kind").and_then(Node::as_str) {
                    Some(text) if text != kind => problems.push(Diagnostic::error(
                        wrong,
                        format!("expected a document of kind `{kind}`, found `{text}`"),
                        document.get("kind").map_or(document.span, |n| n.span),
                    )),
                    _ => found.push(document),
                }
            }
            // A document of another kind is the file's problem; counting
            // what is left would say the same thing again.
            if found.len() != 1 && problems.is_empty() {
                problems.push(Diagnostic::error(
                    codes::DOCUMENT_COUNT,
                    format!(
                        "the file must hold exactly one `{kind}` document, it holds {}",
                        found.len()
                    ),
                    count_at(&found),
                ));
            }
            diagnostics.extend(problems);
            read.documents = found.into_iter().take(1).collect();
            Outcome::new(Some(read), diagnostics).valid()
        }
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
/// value) under `name` and parses it as exactly one document
/// ([`Expect::One`]), telling a text too large from an invalid one (a
/// service answers them differently).
pub fn parse_document(
    db: &mut SourceDb,
    name: &str,
    text: &str,
    format: Format,
    limits: &Limits,
) -> Result<Node, Unparsed> {
    let source = db.add(name, text);
    let parsed = strata_syntax::parse(db, source, format, limits);
    if parsed.too_large {
        return Err(Unparsed::TooLarge(parsed.diagnostics));
    }
    let read = Read {
        source,
        documents: parsed.documents,
        properties: parsed.properties,
    };
    let outcome = hold(db, read, parsed.diagnostics, Expect::One, Place::File);
    let invalid = outcome.has_errors();
    match outcome.value.and_then(Read::into_document) {
        Some(document) if !invalid => Ok(document),
        _ => Err(Unparsed::Invalid(outcome.diagnostics)),
    }
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

    const KIND: Expect<'static> = Expect::OneOfKind {
        kind: "Profile",
        wrong: Code::new("test/wrong-kind"),
    };

    fn read<T>(
        fs: &MemoryFs,
        read: impl FnOnce(&mut Reader<'_>) -> Outcome<T>,
    ) -> (SourceDb, Outcome<T>) {
        let mut db = SourceDb::new();
        let outcome = read(&mut Reader::new(fs, &mut db, Limits::default()));
        (db, outcome)
    }

    fn file(fs: &MemoryFs, path: &str, expect: Expect<'_>) -> (SourceDb, Outcome<Read>) {
        read(fs, |r| {
            r.read(Path::new(path), Format::Yaml, expect, Place::File)
        })
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

    fn count(outcome: &Outcome<Read>) -> Option<usize> {
        outcome.value.as_ref().map(|read| read.documents.len())
    }

    #[test]
    fn documents_are_read_registered_and_parsed() {
        let fs = MemoryFs::new().with("a.yaml", "x: 1\n---\ny: [\n");
        let (db, outcome) = file(&fs, "a.yaml", Expect::All);
        assert_eq!(codes(&db, &outcome), ["syntax/yaml@a.yaml:4:1"]);
        assert!(count(&outcome).is_some_and(|n| n > 0), "as far as parsed");
        let (db, outcome) = file(&fs, "b.yaml", Expect::All);
        assert_eq!(codes(&db, &outcome), ["io/read@b.yaml:1:1"]);
        assert!(outcome.value.is_none());
    }

    #[test]
    fn single_documents_are_counted_with_one_code() {
        let fs = MemoryFs::new()
            .with("one.yaml", "a: 1\n")
            .with("two.yaml", "a: 1\n---\nb: 2\n")
            .with("none.yaml", "# nothing\n")
            .with("broken.yaml", "a: 1\n---\nb: 2\nb: 3\n");
        let (_, one) = file(&fs, "one.yaml", Expect::One);
        assert!(one.diagnostics.is_empty());
        assert!(one.value.and_then(Read::into_document).is_some());
        let (db, two) = file(&fs, "two.yaml", Expect::One);
        assert_eq!(codes(&db, &two), ["io/document-count@two.yaml:3:1"]);
        assert_eq!(
            two.diagnostics[0].message,
            "`two.yaml` must hold exactly one document, it holds 2"
        );
        assert!(two.value.is_none());
        let (db, none) = file(&fs, "none.yaml", Expect::One);
        assert_eq!(codes(&db, &none), ["io/document-count@none.yaml:1:1"]);
        // The count of a broken parse is not the file's.
        let (db, broken) = file(&fs, "broken.yaml", Expect::One);
        assert_eq!(
            codes(&db, &broken),
            ["syntax/duplicate-key@broken.yaml:4:1"]
        );
        let (_, empty) = file(&fs, "none.yaml", Expect::AtMostOne);
        assert!(
            empty
                .value
                .and_then(Read::into_document)
                .is_some_and(|node| node.as_map().is_some_and(Mapping::is_empty))
        );
        let (db, two) = file(&fs, "two.yaml", Expect::AtMostOne);
        assert_eq!(codes(&db, &two), ["io/document-count@two.yaml:3:1"]);
        assert_eq!(
            two.diagnostics[0].message,
            "`two.yaml` must hold at most one document, it holds 2"
        );
    }

    #[test]
    fn one_as_parsed_is_counted_and_given_as_far_as_it_parses() {
        let fs = MemoryFs::new()
            .with("two.yaml", "a: 1\n---\nb: 2\n")
            .with("broken.yaml", "a: 1\n---\nb: 2\nb: 3\n")
            .with("dup.yaml", "a: &x 1\nb: *x\na: 2\n")
            .with("unparsed.yaml", "a: [\n");
        let (db, two) = file(&fs, "two.yaml", Expect::OneAsParsed);
        assert_eq!(codes(&db, &two), ["io/document-count@two.yaml:3:1"]);
        assert_eq!(count(&two), Some(2));
        let (db, broken) = file(&fs, "broken.yaml", Expect::OneAsParsed);
        assert_eq!(
            codes(&db, &broken),
            [
                "syntax/duplicate-key@broken.yaml:4:1",
                "io/document-count@broken.yaml:3:1"
            ]
        );
        let (db, dup) = file(&fs, "dup.yaml", Expect::OneAsParsed);
        assert_eq!(codes(&db, &dup), ["syntax/duplicate-key@dup.yaml:3:1"]);
        let dup = dup.value.expect("read");
        assert_eq!(dup.properties.len(), 2, "the anchor and the alias");
        assert!(dup.into_document().is_some());
        let (db, unparsed) = file(&fs, "unparsed.yaml", Expect::OneAsParsed);
        assert_eq!(codes(&db, &unparsed), ["syntax/yaml@unparsed.yaml:2:1"]);
        assert_eq!(count(&unparsed), Some(0));
    }

    #[test]
    fn a_read_handing_off_gives_the_read_and_each_entry_worked_on() {
        let fs = MemoryFs::new()
            .with(
                "bp.yaml",
                "resources:\n  a: {type: t}\n  b: [1, 2]\n  a: dup\nother: {c: 1}\n",
            )
            .with("bp.json", r#"{"resources": {"a": 1}}"#);
        let mut db = SourceDb::new();
        let mut reader = Reader::new(&fs, &mut db, Limits::default());
        let (handed, worked) = reader.read_handing_off(
            Path::new("bp.yaml"),
            Format::Yaml,
            Expect::OneAsParsed,
            "resources",
            |_, entry| entry.value.value.kind_name(),
        );
        let plain = reader.read(
            Path::new("bp.yaml"),
            Format::Yaml,
            Expect::OneAsParsed,
            Place::File,
        );
        assert_eq!(codes(&db, &handed), codes(&db, &plain));
        assert_eq!(codes(&db, &handed), ["syntax/duplicate-key@bp.yaml:4:3"]);
        let handed = handed.value.and_then(Read::into_document).expect("read");
        let plain = plain.value.and_then(Read::into_document).expect("read");
        // The same tree, but for the source each reading registered.
        assert_eq!(
            strata_syntax::emit::to_yaml(&handed),
            strata_syntax::emit::to_yaml(&plain)
        );
        let entries = handed
            .get("resources")
            .and_then(Node::as_map)
            .expect("resources");
        let spans: Vec<_> = entries.values().map(|entry| entry.value.span).collect();
        assert_eq!(
            worked,
            vec![(spans[0], "mapping"), (spans[1], "sequence")],
            "the duplicate is not worked on"
        );
        let mut db = SourceDb::new();
        let mut reader = Reader::new(&fs, &mut db, Limits::default());
        let (json, worked) = reader.read_handing_off(
            Path::new("bp.json"),
            Format::Json,
            Expect::One,
            "resources",
            |_, _| (),
        );
        assert!(json.diagnostics.is_empty() && worked.is_empty());
        let (missing, worked) = reader.read_handing_off(
            Path::new("none.yaml"),
            Format::Yaml,
            Expect::One,
            "resources",
            |_, _| (),
        );
        assert_eq!(codes(&db, &missing), ["io/read@none.yaml:1:1"]);
        assert!(worked.is_empty());
    }

    #[test]
    fn one_of_kind_names_the_kind_found() {
        let fs = MemoryFs::new()
            .with("ok.yaml", "kind: Other\n---\nkind: Profile\n")
            .with("mixed.yaml", "kind: Profile\n---\nkind: Other\n")
            .with("two.yaml", "kind: Profile\n---\nname: x\n")
            .with("none.yaml", "");
        let (db, ok) = file(&fs, "ok.yaml", KIND);
        assert_eq!(codes(&db, &ok), ["test/wrong-kind@ok.yaml:1:7"]);
        assert_eq!(
            ok.diagnostics[0].message,
            "expected a document of kind `Profile`, found `Other`"
        );
        assert!(ok.value.is_none());
        let (db, mixed) = file(&fs, "mixed.yaml", KIND);
        assert_eq!(codes(&db, &mixed), ["test/wrong-kind@mixed.yaml:3:7"]);
        let (db, two) = file(&fs, "two.yaml", KIND);
        assert_eq!(codes(&db, &two), ["io/document-count@two.yaml:3:1"]);
        assert_eq!(
            two.diagnostics[0].message,
            "the file must hold exactly one `Profile` document, it holds 2"
        );
        let (db, none) = file(&fs, "none.yaml", KIND);
        assert_eq!(codes(&db, &none), ["io/document-count@none.yaml:1:1"]);
        let fs = MemoryFs::new().with("one.yaml", "kind: Profile\nname: x\n");
        let (_, one) = file(&fs, "one.yaml", KIND);
        assert!(one.diagnostics.is_empty());
        assert!(one.value.and_then(Read::into_document).is_some());
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
        let fs = MemoryFs::new();
        let (db, fetched) = read(&fs, |r| {
            r.read_text("remote:x", "a: 1\n---\nb: 2\n", Format::Yaml, Expect::One)
        });
        assert_eq!(codes(&db, &fetched), ["io/document-count@remote:x:3:1"]);
    }

    #[test]
    fn included_files_are_reported_at_the_reference() {
        let fs = MemoryFs::new()
            .with("main.yaml", "x: !include part.yaml\n")
            .with("two.yaml", "a: 1\n---\nb: 2\n");
        let at =
            |db: &mut SourceDb| Span::new(db.add("main.yaml", "x: !include part.yaml\n"), 3, 21);
        let mut db = SourceDb::new();
        let span = at(&mut db);
        let mut reader = Reader::new(&fs, &mut db, Limits::default());
        let missing = reader.read(
            Path::new("part.yaml"),
            Format::Yaml,
            Expect::One,
            Place::Reference(span),
        );
        let two = reader.read(
            Path::new("two.yaml"),
            Format::Yaml,
            Expect::One,
            Place::Reference(span),
        );
        let unread = reader.read(
            Path::new("part.yaml"),
            Format::Yaml,
            Expect::One,
            Place::UnreadAt(span),
        );
        let counted = reader.read(
            Path::new("two.yaml"),
            Format::Yaml,
            Expect::One,
            Place::UnreadAt(span),
        );
        assert_eq!(codes(&db, &missing), ["io/read@main.yaml:1:4"]);
        assert_eq!(codes(&db, &two), ["io/document-count@main.yaml:1:4"]);
        assert_eq!(codes(&db, &unread), ["io/read@main.yaml:1:4"]);
        assert_eq!(codes(&db, &counted), ["io/document-count@two.yaml:3:1"]);
    }

    #[test]
    fn documents_already_read_are_held_to_an_expectation() {
        let fs = MemoryFs::new().with("a.yaml", "a: 1\n---\nb: 2\n");
        let mut db = SourceDb::new();
        let mut reader = Reader::new(&fs, &mut db, Limits::default());
        let sources = reader.sources(&[PathBuf::from("a.yaml")]);
        let source = sources[0].value.expect("registered");
        let mut all = reader.parse_all(&[source], Format::Yaml, Expect::All);
        let listed = all.remove(0).value.expect("read");
        let one = reader.expect(listed.clone(), Expect::One, Place::File);
        let all = reader.expect(listed, Expect::All, Place::File);
        assert_eq!(codes(&db, &one), ["io/document-count@a.yaml:3:1"]);
        assert_eq!(count(&all), Some(2));
    }
}

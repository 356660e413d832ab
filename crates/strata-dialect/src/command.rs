//! What a dialect's command-line verbs share, short of printing: the
//! sources read and the problems found in one run ([`Session`]), how the
//! run was asked for ([`Invocation`]), and how it ends ([`Done`], or a
//! [`Usage`] error). Each dialect states its verbs ([`Describe::command`]
//! and [`Describe::run`]: its arguments, how they become a request, what
//! is written); the binary parses, calls, and prints what a run gives.
//!
//! Files named on the command line are read through [`PlainFs`] (paths as
//! given, `-` for standard input) and the shared [`Reader`], as the
//! dialects read theirs; a dialect folder is opened through its
//! [`Dialect`] contract ([`Session::open`]).
//!
//! [`Describe::command`]: crate::Describe::command
//! [`Describe::run`]: crate::Describe::run

use std::path::Path;
use std::sync::Arc;

use strata_fs::{Files, PlainFs, RootFs};
use strata_syntax::{Diagnostic, Format, Limits, Node, Outcome, Severity, SourceDb, Span};

use crate::{Dialect, Expect, Options, Place, Read, Reader};

/// How a command was asked for: the bounds on its inputs, the output
/// format named with `-o`, and whether warnings are errors.
#[derive(Debug, Clone, Copy, Default)]
pub struct Invocation {
    /// Bounds on every file read.
    pub limits: Limits,
    /// The format `-o` names, when it names one.
    pub output: Option<OutputFormat>,
    /// `--strict`: every warning is an error.
    pub strict: bool,
}

impl Invocation {
    /// A usage error when `-o dot` is asked of a verb that draws no graph
    /// (every verb but `spec graph`).
    pub fn refuse_dot(&self) -> Result<(), Usage> {
        if self.output == Some(OutputFormat::Dot) {
            return Err(Usage(
                "`-o dot` is the output of `spec graph` only".to_owned(),
            ));
        }
        Ok(())
    }
}

/// The formats `-o` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// YAML (a multi-document stream for several documents).
    Yaml,
    /// JSON (an array for several documents).
    Json,
    /// Graphviz DOT (graphs only).
    Dot,
}

/// The formats a document is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentFormat {
    /// YAML.
    Yaml,
    /// JSON.
    Json,
}

/// A command asked for something it cannot do (a usage error, exit status
/// 2): what to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage(pub String);

/// How a run ended: every source its diagnostics point into, the
/// diagnostics, the text to write on standard output (only when no
/// diagnostic is an error), and the exit status.
#[derive(Debug)]
#[must_use = "a run's diagnostics and output must be written"]
pub struct Done {
    /// Every source read.
    pub db: SourceDb,
    /// Every problem found.
    pub diagnostics: Vec<Diagnostic>,
    /// What to write, when nothing failed: parts written one after the
    /// other (a render's documents are not copied into one text first).
    pub text: Option<Vec<String>>,
    /// The exit status: 1 when a diagnostic is an error, else 0 (or what
    /// the command says for a successful run: [`Done::succeeding_with`]).
    pub status: u8,
}

impl Done {
    /// With `status` when the run succeeded (`spec plan
    /// --detailed-exitcode`'s 2 when there are changes).
    pub fn succeeding_with(mut self, status: u8) -> Done {
        if self.status == 0 {
            self.status = status;
        }
        self
    }
}

/// One run of a command: the sources read and the problems found.
#[derive(Debug)]
pub struct Session {
    /// Every source read (the command line's values too, [`command_line`]).
    pub db: SourceDb,
    /// Every problem found so far.
    pub diagnostics: Vec<Diagnostic>,
    /// How the command was asked for.
    pub invocation: Invocation,
}

impl Session {
    /// A run asked for as `invocation`, nothing read yet.
    #[must_use]
    pub fn new(invocation: Invocation) -> Session {
        Session {
            db: SourceDb::new(),
            diagnostics: Vec::new(),
            invocation,
        }
    }

    /// Whether any error has been found.
    #[must_use]
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The bounds on every file read.
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.invocation.limits
    }

    /// The document format `-o` names, else `default`; `-o dot` is a
    /// usage error (only graphs are drawn).
    pub fn document_format(&self, default: DocumentFormat) -> Result<DocumentFormat, Usage> {
        self.invocation.refuse_dot()?;
        Ok(match self.invocation.output {
            Some(OutputFormat::Yaml) => DocumentFormat::Yaml,
            Some(OutputFormat::Json) => DocumentFormat::Json,
            Some(OutputFormat::Dot) | None => default,
        })
    }

    /// The document format of a verb that takes `--explain` (YAML unless
    /// `-o` names another): annotations are YAML comments, so `--explain`
    /// with `-o json` is a usage error.
    pub fn explained_format(&self, explain: bool) -> Result<DocumentFormat, Usage> {
        let format = self.document_format(DocumentFormat::Yaml)?;
        if explain && format == DocumentFormat::Json {
            return Err(Usage(
                "`--explain` annotates YAML output; it cannot be combined with `-o json`"
                    .to_owned(),
            ));
        }
        Ok(format)
    }

    /// Opens the dialect `D` on the folder `dir`; its sources become the
    /// session's first ones, its diagnostics the session's. As much of the
    /// dialect as could be opened, errors or not: the caller decides
    /// whether to go on (and [`Session::has_errors`] says).
    pub fn open<D: Dialect>(&mut self, dir: &Path, settings: D::Settings) -> Option<D> {
        // One command is one pass over the tree: each folder's real path
        // is looked up once.
        let fs = match RootFs::for_one_pass(dir) {
            Ok(fs) => fs,
            Err(error) => {
                let id = self.db.add(dir.display().to_string(), "");
                self.diagnostics
                    .push(error.diagnostic(Span::file_start(id)));
                return None;
            }
        };
        self.open_in::<D>(Arc::new(fs), settings)
    }

    /// Opens the dialect `D` on the files named on the command line (paths
    /// as given, `-` for standard input), for a dialect opened on one file.
    pub fn open_command_line<D: Dialect>(&mut self, settings: D::Settings) -> Option<D> {
        self.open_in::<D>(Arc::new(PlainFs), settings)
    }

    fn open_in<D: Dialect>(&mut self, files: Arc<dyn Files>, settings: D::Settings) -> Option<D> {
        let opened = D::open(files, Options::new(self.limits(), settings));
        // Nothing was registered before the dialect's sources.
        debug_assert!(self.db.is_empty());
        self.db = SourceDb::extending(opened.sources);
        opened.outcome.report(&mut self.diagnostics)
    }

    /// Checks everything `dialect` can check on its own
    /// ([`Dialect::check`]: every request it can make), collecting the
    /// diagnostics. Nothing when opening found an error, which the
    /// session already holds.
    pub fn check<D: Dialect>(&mut self, dialect: &D) {
        if self.has_errors() {
            return;
        }
        let problems = dialect.check(&mut self.db);
        self.diagnostics.extend(problems);
    }

    /// Renders `request`, registering in the session's sources and
    /// collecting the diagnostics; the result when there was no error.
    pub fn render<D: Dialect>(&mut self, dialect: &D, request: &D::Request) -> Option<D::Rendered> {
        dialect
            .render(request, &mut self.db)
            .valid()
            .report(&mut self.diagnostics)
    }

    /// Reads a file named on the command line (`-` for standard input;
    /// YAML, or JSON by its extension) into the session's sources, held to
    /// `expect` ([`Reader::read`]); its problems are reported in it. The
    /// caller takes the value and records the problems
    /// (`.report(&mut session.diagnostics)`, after `.valid()` for a file
    /// that must parse).
    pub fn read(&mut self, path: &str, expect: Expect<'_>) -> Outcome<Read> {
        let limits = self.limits();
        Reader::new(&PlainFs, &mut self.db, limits).read(
            Path::new(path),
            Format::from_name(path),
            expect,
            Place::File,
        )
    }

    /// The text of a file named on the command line that is not a
    /// document (`-` for standard input), registered in the session's
    /// sources ([`Reader::source`]); `None`, its problem recorded, when it
    /// cannot be read.
    pub fn read_text(&mut self, path: &str) -> Option<String> {
        let limits = self.limits();
        let source = Reader::new(&PlainFs, &mut self.db, limits)
            .source(Path::new(path))
            .report(&mut self.diagnostics)?;
        Some(self.db.get(source).text().to_owned())
    }

    /// A JSON value written in `format`.
    pub fn write_value(
        &mut self,
        value: &serde_json::Value,
        format: DocumentFormat,
    ) -> Option<String> {
        self.write_document(&Node::from_json_value(value), format)
    }

    /// A document written in `format`; a document JSON cannot hold is
    /// reported.
    pub fn write_document(&mut self, node: &Node, format: DocumentFormat) -> Option<String> {
        match format {
            DocumentFormat::Yaml => Some(strata_syntax::emit::to_yaml(node)),
            DocumentFormat::Json => strata_syntax::emit::to_json(node)
                .map_err(|problem| self.diagnostics.push(problem))
                .ok(),
        }
    }

    /// Ends the run: repeats are dropped, with `--strict` every warning
    /// becomes an error; when no diagnostic is an error, `output` gives the
    /// text to write.
    pub fn finish(self, output: impl FnOnce(&mut Session) -> Option<String>) -> Done {
        self.finish_in_parts(|session| output(session).map(|text| vec![text]))
    }

    /// As [`Session::finish`], with the text in parts written one after
    /// the other.
    pub fn finish_in_parts(
        mut self,
        output: impl FnOnce(&mut Session) -> Option<Vec<String>>,
    ) -> Done {
        if self.invocation.strict {
            for diagnostic in &mut self.diagnostics {
                if diagnostic.severity == Severity::Warning {
                    diagnostic.severity = Severity::Error;
                }
            }
        }
        let text = if self.has_errors() {
            None
        } else {
            output(&mut self)
        };
        // A diagnostic met twice whole (at opening and again by a render)
        // is told once; the same problem in two contexts keeps both notes.
        let mut seen = std::collections::HashSet::new();
        self.diagnostics
            .retain(|d| seen.insert((d.code, d.primary.span, d.message.clone(), d.notes.clone())));
        let status = u8::from(self.has_errors());
        Done {
            db: self.db,
            diagnostics: self.diagnostics,
            text,
            status,
        }
    }
}

/// The name of the source a command-line value is registered under.
const COMMAND_LINE: &str = "<command line>";

/// Registers `flag value` in `db` as a source of its own and spans the
/// value, so that a diagnostic about a value given on the command line
/// points at it (`<command line>:1:7`).
pub fn command_line(db: &mut SourceDb, flag: &str, value: &str) -> Span {
    let text = format!("{flag} {value}");
    let id = db.add(COMMAND_LINE, text.as_str());
    Span::new(id, flag.len() + 1, text.len())
}

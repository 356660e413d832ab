//! What every command shares: the sources read, the diagnostics collected
//! and the decision of what to print and with which exit status.
//!
//! Files named on the command line are read through [`CommandLineFs`] and
//! the shared [`Reader`], as the dialects read theirs; a dialect folder is
//! opened through its [`Dialect`] contract ([`Session::open`]).

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use strata_dialect::{Dialect, Options, Reader};
use strata_fs::{Files, FsError, Listing, PlainFs, RootFs};
use strata_syntax::{Diagnostic, Format, Limits, Node, Severity, SourceDb, Span};

use crate::{GlobalArgs, render};

/// The name standard input is shown under.
const STDIN_NAME: &str = "<stdin>";

/// One run of a command.
pub struct Session<'a> {
    /// Every source read.
    pub db: SourceDb,
    /// Every problem found so far.
    pub diagnostics: Vec<Diagnostic>,
    /// The global options.
    pub global: &'a GlobalArgs,
    limits: Limits,
}

impl<'a> Session<'a> {
    pub fn new(global: &'a GlobalArgs) -> Session<'a> {
        Session {
            db: SourceDb::new(),
            diagnostics: Vec::new(),
            global,
            limits: global.limits(),
        }
    }

    /// Whether any error has been found.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Opens the dialect `D` on the folder `dir`; its sources become the
    /// session's first ones, its diagnostics the session's. As much of the
    /// dialect as could be opened, errors or not: the caller decides
    /// whether to go on (and [`Session::has_errors`] says).
    pub fn open<D: Dialect>(&mut self, dir: &Path, settings: D::Settings) -> Option<D> {
        let fs = match RootFs::new(dir) {
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
        self.open_in::<D>(Arc::new(CommandLineFs), settings)
    }

    fn open_in<D: Dialect>(&mut self, files: Arc<dyn Files>, settings: D::Settings) -> Option<D> {
        let opened = D::open(files, Options::new(self.limits, settings));
        // Nothing was registered before the dialect's sources.
        debug_assert!(self.db.is_empty());
        self.db = SourceDb::extending(opened.sources);
        opened.outcome.report(&mut self.diagnostics)
    }

    /// Renders `request`, registering in the session's sources and
    /// collecting the diagnostics; the result when there was no error.
    pub fn render<D: Dialect>(&mut self, dialect: &D, request: &D::Request) -> Option<D::Rendered> {
        dialect
            .render(request, &mut self.db)
            .valid()
            .report(&mut self.diagnostics)
    }

    /// Reads and parses a file (`-` for standard input) into its documents,
    /// recording every problem. A file that cannot be read gives none.
    pub fn load(&mut self, path: &str) -> Vec<Node> {
        let read = self
            .reader()
            .documents(Path::new(path), Format::from_name(path));
        read.report(&mut self.diagnostics).unwrap_or_default()
    }

    /// As [`Session::load`], with the start of the file, for a problem
    /// with the file as a whole. `None` when it cannot be read or parsed.
    pub fn load_source(&mut self, path: &str) -> Option<(Span, Vec<Node>)> {
        let read = self
            .reader()
            .source_documents(Path::new(path), Format::from_name(path));
        let (source, documents) = read.valid().report(&mut self.diagnostics)?;
        Some((Span::file_start(source), documents))
    }

    /// Reads a file (`-` for standard input) that must hold exactly one document.
    pub fn load_document(&mut self, path: &str) -> Option<Node> {
        let read = self
            .reader()
            .document(Path::new(path), Format::from_name(path));
        read.report(&mut self.diagnostics)
    }

    /// Reads the files named on the command line into the session's sources.
    fn reader(&mut self) -> Reader<'_> {
        Reader::new(&CommandLineFs, &mut self.db, self.limits)
    }

    /// Prints the diagnostics and, when there is no error, `output` on
    /// standard output; returns the exit status.
    pub fn finish(self, output: impl FnOnce(&mut Self) -> Option<String>) -> ExitCode {
        let mut session = self;
        if session.global.strict {
            // `--strict`: every warning is an error.
            for diagnostic in &mut session.diagnostics {
                if diagnostic.severity == Severity::Warning {
                    diagnostic.severity = Severity::Error;
                }
            }
        }
        let text = if session.has_errors() {
            None
        } else {
            output(&mut session)
        };
        render::print(&session.db, &session.diagnostics, session.global);
        if session.has_errors() {
            return ExitCode::from(1);
        }
        if let Some(text) = text {
            let mut stdout = io::stdout().lock();
            if let Err(error) = stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
            {
                // A closed pipe (`strata ... | head`) is not a failure of the input.
                if error.kind() != io::ErrorKind::BrokenPipe {
                    eprintln!("error: cannot write output: {error}");
                    return ExitCode::from(1);
                }
            }
        }
        ExitCode::SUCCESS
    }
}

/// The files a person names on the command line: paths as given, and `-`
/// for standard input (shown as `<stdin>`).
struct CommandLineFs;

impl Files for CommandLineFs {
    fn read(&self, path: &Path, limit: usize) -> Result<String, FsError> {
        if path == Path::new("-") {
            strata_fs::read_bounded(Path::new(STDIN_NAME), io::stdin().lock(), None, limit)
        } else {
            PlainFs.read(path, limit)
        }
    }

    fn list(&self, extensions: &[&str]) -> Result<Listing, FsError> {
        PlainFs.list(extensions)
    }

    fn display(&self, path: &Path) -> String {
        if path == Path::new("-") {
            STDIN_NAME.to_owned()
        } else {
            PlainFs.display(path)
        }
    }

    fn is_file(&self, path: &Path) -> bool {
        path == Path::new("-") || PlainFs.is_file(path)
    }

    fn subtree(&self, folder: &Path) -> Result<Arc<dyn Files>, FsError> {
        PlainFs.subtree(folder)
    }
}

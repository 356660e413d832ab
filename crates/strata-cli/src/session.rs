//! What every command shares: the sources read, the diagnostics collected
//! and the decision of what to print and with which exit status.

use std::io::{self, Read, Write};
use std::process::ExitCode;

use strata_syntax::{
    Diagnostic, Format, Limits, Node, SourceDb, SourceId, Span, SyntaxError, lowercase_first,
};

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
            limits: Limits {
                max_bytes: global.max_input_bytes,
                max_depth: global.max_depth,
                ..Limits::default()
            },
        }
    }

    /// The bounds on every input.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Records that the folder `dir` cannot be opened, as `code`.
    pub fn folder_error(
        &mut self,
        code: &'static str,
        dir: &std::path::Path,
        error: &impl std::fmt::Display,
    ) {
        let id = self.db.add(dir.display().to_string(), "");
        self.diagnostics.push(Diagnostic::error(
            code,
            error.to_string(),
            Span::file_start(id),
        ));
    }

    /// Whether any error has been found.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Reads and parses a file (`-` for standard input) into its documents,
    /// recording every problem. A file that cannot be read gives none.
    pub fn load(&mut self, path: &str) -> Vec<Node> {
        let Some(id) = self.read(path) else {
            return Vec::new();
        };
        let format = Format::from_name(path);
        let parsed = strata_syntax::parse(&self.db, id, format, &self.limits);
        self.diagnostics.extend(parsed.diagnostics);
        parsed.documents
    }

    /// Reads a file within the size limit and registers it.
    fn read(&mut self, path: &str) -> Option<SourceId> {
        let name = if path == "-" { STDIN_NAME } else { path };
        match read_bounded(path, self.limits.max_bytes) {
            Ok(Bounded::Text(text)) => Some(self.db.add(name, text)),
            Ok(Bounded::TooLarge(size)) => {
                let id = self.db.add(name, "");
                self.diagnostics.push(
                    SyntaxError::TooLarge {
                        span: Span::file_start(id),
                        size,
                        limit: self.limits.max_bytes,
                    }
                    .into(),
                );
                None
            }
            Err(error) => {
                let id = self.db.add(name, "");
                let (code, message) = if error.kind() == io::ErrorKind::InvalidData {
                    ("io/not-utf8", "file is not valid utf-8 text".to_owned())
                } else {
                    (
                        "io/read",
                        format!(
                            "cannot read `{name}`: {}",
                            lowercase_first(&error.to_string())
                        ),
                    )
                };
                self.diagnostics
                    .push(Diagnostic::error(code, message, Span::file_start(id)));
                None
            }
        }
    }

    /// Prints the diagnostics and, when there is no error, `output` on
    /// standard output; returns the exit status.
    pub fn finish(self, output: impl FnOnce(&mut Self) -> Option<String>) -> ExitCode {
        let mut session = self;
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

enum Bounded {
    Text(String),
    TooLarge(usize),
}

/// Reads at most `limit` bytes; a larger input is reported with its size
/// (or `limit + 1` when the size cannot be known, as for a pipe).
fn read_bounded(path: &str, limit: usize) -> io::Result<Bounded> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::new();
    let known_size = if path == "-" {
        io::stdin().lock().take(cap).read_to_end(&mut bytes)?;
        None
    } else {
        let file = std::fs::File::open(path)?;
        let size = file.metadata().ok().map(|m| m.len());
        file.take(cap).read_to_end(&mut bytes)?;
        size
    };
    if bytes.len() > limit {
        let size = known_size
            .and_then(|s| usize::try_from(s).ok())
            .unwrap_or(bytes.len());
        return Ok(Bounded::TooLarge(size));
    }
    String::from_utf8(bytes)
        .map(Bounded::Text)
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}

//! How diagnostics look: rustc-style text through `codespan-reporting`, or
//! one JSON object per line.
//!
//! Human form: `error[code]: message`, the `file:line:col` arrow, the source
//! line with a caret under the primary span (and secondary spans labelled),
//! then `= field: path`, the notes and `= help: ...`.

use std::io::{self, Write};
use std::ops::Range;

use codespan_reporting::diagnostic::{
    Diagnostic as Report, Label as ReportLabel, LabelStyle, Severity as ReportSeverity,
};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, termcolor};
use strata_syntax::{Diagnostic, Severity, SourceDb, SourceId, Span};

use crate::{ColorChoice, DiagnosticFormat, GlobalArgs};

/// Writes every diagnostic to standard error in the chosen format.
pub(crate) fn print(db: &SourceDb, diagnostics: &[Diagnostic], global: &GlobalArgs) {
    match global.diagnostics {
        DiagnosticFormat::Json => {
            let mut stderr = io::stderr().lock();
            for diagnostic in diagnostics {
                let line = serde_json::to_string(&diagnostic.record(db)).unwrap_or_default();
                let _ = writeln!(stderr, "{line}");
            }
        }
        DiagnosticFormat::Human => {
            // Written whole, once: standard error is unbuffered, and the
            // renderer writes a diagnostic in many small pieces.
            let writer = termcolor::BufferWriter::stderr(color_choice(global.color));
            let mut stream = writer.buffer();
            let config = term::Config::default();
            let files = SourceFiles(db);
            for diagnostic in diagnostics {
                let report = to_report(db, diagnostic);
                if term::emit_to_write_style(&mut stream, &config, &files, &report).is_err() {
                    // The span no longer fits its source: fall back to the bare message.
                    let _ = writeln!(
                        stream,
                        "{}[{}]: {}",
                        severity_word(diagnostic.severity),
                        diagnostic.code,
                        diagnostic.message
                    );
                }
            }
            let _ = writer.print(&stream);
        }
    }
}

fn color_choice(choice: ColorChoice) -> termcolor::ColorChoice {
    if choice.colors_stderr() {
        termcolor::ColorChoice::Always
    } else {
        termcolor::ColorChoice::Never
    }
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn to_report(db: &SourceDb, diagnostic: &Diagnostic) -> Report<SourceId> {
    let severity = match diagnostic.severity {
        Severity::Error => ReportSeverity::Error,
        Severity::Warning => ReportSeverity::Warning,
        Severity::Note => ReportSeverity::Note,
    };
    let primary = &diagnostic.primary;
    let mut notes = Vec::new();
    // A file that could not be read has no text to show: the message names
    // it. Text that may hold a secret is not shown: a note says where.
    let mut labels = if db.get(primary.span.source).text().is_empty() {
        Vec::new()
    } else if diagnostic.conceals_source {
        let (file, at) = db.locate(primary.span);
        notes.push(format!(
            "at {file}:{}:{} (the line is not shown: it may hold a secret value)",
            at.line, at.column
        ));
        Vec::new()
    } else {
        vec![
            ReportLabel::new(
                LabelStyle::Primary,
                primary.span.source,
                first_line(db, primary.span),
            )
            .with_message(&primary.message),
        ]
    };
    labels.extend(diagnostic.secondary.iter().map(|label| {
        ReportLabel::new(
            LabelStyle::Secondary,
            label.span.source,
            first_line(db, label.span),
        )
        .with_message(&label.message)
    }));
    if let Some(path) = &diagnostic.path {
        notes.push(format!("field: {path}"));
    }
    notes.extend(diagnostic.notes.iter().map(|note| format!("note: {note}")));
    if let Some(help) = &diagnostic.help {
        notes.push(format!("help: {help}"));
    }
    Report::new(severity)
        .with_code(diagnostic.code)
        .with_message(&diagnostic.message)
        .with_labels(labels)
        .with_notes(notes)
}

/// The part of `span` on its first line. A label is drawn with every line
/// it covers, and a span can cover a whole file (a document of the wrong
/// shape): a diagnostic shows the line where a problem starts, never the
/// rest of a file that may not be the user's (an include of
/// `/etc/passwd`) or may hold secrets.
fn first_line(db: &SourceDb, span: Span) -> Range<usize> {
    let range = span.range();
    let text = db.get(span.source).text();
    let end = text
        .get(range.clone())
        .and_then(|covered| covered.find('\n'))
        .map_or(range.end, |newline| range.start + newline);
    range.start..end
}

/// The source database seen through `codespan-reporting`'s `Files`.
struct SourceFiles<'a>(&'a SourceDb);

impl<'a> Files<'a> for SourceFiles<'a> {
    type FileId = SourceId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: SourceId) -> Result<&'a str, FilesError> {
        Ok(self.0.get(id).name())
    }

    fn source(&'a self, id: SourceId) -> Result<&'a str, FilesError> {
        Ok(self.0.get(id).text())
    }

    fn line_index(&'a self, id: SourceId, byte_index: usize) -> Result<usize, FilesError> {
        let starts = self.0.get(id).line_starts();
        Ok(starts.partition_point(|&start| start as usize <= byte_index) - 1)
    }

    fn line_range(&'a self, id: SourceId, line_index: usize) -> Result<Range<usize>, FilesError> {
        let file = self.0.get(id);
        let starts = file.line_starts();
        let start = *starts.get(line_index).ok_or(FilesError::LineTooLarge {
            given: line_index,
            max: starts.len() - 1,
        })? as usize;
        let end = starts
            .get(line_index + 1)
            .map_or(file.text().len(), |&next| next as usize);
        Ok(start..end)
    }
}

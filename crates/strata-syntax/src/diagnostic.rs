//! Diagnostics: what every phase reports, independent of how it is shown.
//!
//! A [`Diagnostic`] has a severity, a stable code (`syntax/duplicate-key`,
//! `merge/missing-merge-key`) that tests and tools match on, a lowercase
//! message without a trailing period, a primary labelled span, optional
//! secondary spans, notes, a help line and the field path of the node it is
//! about. Phases build diagnostics from their own error enums; the command
//! line decides how they look. [`Diagnostic::record`] resolves one against a
//! [`SourceDb`] into the flat, serialisable form used for JSON output.

use serde::Serialize;

use crate::code::Code;
use crate::path::FieldPath;
use crate::source::{SourceDb, Span};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; does not change the verdict.
    Note,
    /// Suspicious but accepted.
    Warning,
    /// The input is invalid.
    Error,
}

/// A span with a message explaining its part in a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is there; may be empty.
    pub message: String,
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// The stable code, `phase/kind`.
    pub code: Code,
    /// Lowercase, no trailing period.
    pub message: String,
    /// The place the problem is.
    pub primary: Label,
    /// Other places involved (the first definition of a duplicate, ...).
    pub secondary: Vec<Label>,
    /// Extra facts, each a sentence fragment.
    pub notes: Vec<String>,
    /// What to do about it (did-you-mean and the like).
    pub help: Option<String>,
    /// The field path of the node concerned, when there is one.
    pub path: Option<FieldPath>,
    /// The text under the labels may hold secret material (a secret
    /// variable's value in a variables file): renderers say where, never
    /// show the text.
    pub conceals_source: bool,
}

impl Diagnostic {
    /// Moves every label `by` bytes ([`Span::moved`]): the same problem
    /// about text an edit before it moved.
    pub fn move_by(&mut self, by: i64) {
        for label in std::iter::once(&mut self.primary).chain(&mut self.secondary) {
            label.span = label.span.moved(by);
        }
    }

    /// An error at `span`.
    #[must_use]
    pub fn error(code: Code, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            primary: Label {
                span,
                message: String::new(),
            },
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
            path: None,
            conceals_source: false,
        }
    }

    /// A warning at `span`.
    #[must_use]
    pub fn warning(code: Code, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span)
        }
    }

    /// A note at `span`: worth knowing, not a problem.
    #[must_use]
    pub fn note(code: Code, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(code, message, span)
        }
    }

    /// Sets the primary label's message.
    #[must_use]
    pub fn with_label(mut self, message: impl Into<String>) -> Diagnostic {
        self.primary.message = message.into();
        self
    }

    /// Adds a secondary span.
    #[must_use]
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a note.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Sets the help line to a did-you-mean, when `candidates` has a name near `name`.
    #[must_use]
    pub fn with_suggestion<'a>(
        self,
        name: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Diagnostic {
        match did_you_mean(name, candidates) {
            Some(near) => self.with_help(format!("did you mean `{near}`?")),
            None => self,
        }
    }

    /// Sets the field path.
    #[must_use]
    pub fn with_path(mut self, path: FieldPath) -> Diagnostic {
        self.path = Some(path);
        self
    }

    /// With the text under its labels never shown (see
    /// [`Diagnostic::conceals_source`]).
    #[must_use]
    pub fn concealing_source(mut self) -> Diagnostic {
        self.conceals_source = true;
        self
    }

    /// Whether the diagnostic makes the input invalid.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The diagnostic resolved to file, line and column, ready to serialise.
    #[must_use]
    pub fn record(&self, db: &SourceDb) -> DiagnosticRecord {
        let (file, start) = db.locate(self.primary.span);
        let end = db
            .get(self.primary.span.source)
            .line_col(self.primary.span.end);
        DiagnosticRecord {
            code: self.code,
            severity: self.severity,
            message: self.message.clone(),
            file: file.to_owned(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            path: self.path.as_ref().map(ToString::to_string),
            notes: self.notes.clone(),
            help: self.help.clone(),
        }
    }
}

/// A diagnostic resolved against its sources: the JSON form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticRecord {
    /// The stable code.
    pub code: Code,
    /// How serious it is.
    pub severity: Severity,
    /// The message.
    pub message: String,
    /// The file of the primary span.
    pub file: String,
    /// 1-based line of the primary span's start.
    pub line: u32,
    /// 1-based column (characters) of the primary span's start.
    pub column: u32,
    /// 1-based line of the primary span's end.
    pub end_line: u32,
    /// 1-based column of the primary span's end.
    pub end_column: u32,
    /// The field path, when the diagnostic is about a node.
    pub path: Option<String>,
    /// Extra facts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// `diagnostics` without repeats (the same code, place and message), the
/// first of each kept in order: a problem in a shared part (a parent
/// blueprint, a Jsonnet file two expressions call) is reported once.
#[must_use]
pub fn dedupe(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    diagnostics
        .into_iter()
        .filter(|d| seen.insert((d.code, d.primary.span, d.message.clone())))
        .collect()
}

/// `text` with its first letter lowercased: messages from other libraries
/// (`No such file or directory`) follow the house style this way.
#[must_use]
pub fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

/// The candidate nearest to `name`, when one is near enough to be a likely typo.
///
/// Near means a Jaro-Winkler similarity of at least 0.8, or the same name in
/// another case. Ties go to the earliest candidate, so the answer is stable.
#[must_use]
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(&str, f64)> = None;
    for candidate in candidates {
        if candidate == name {
            continue;
        }
        let score = if candidate.eq_ignore_ascii_case(name) {
            1.0
        } else {
            strsim::jaro_winkler(name, candidate)
        };
        if score >= 0.8 && best.is_none_or(|(_, best_score)| score > best_score) {
            best = Some((candidate, score));
        }
    }
    best.map(|(candidate, _)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_finds_near_names_only() {
        let keys = ["accessModes", "resources", "storageClassName"];
        assert_eq!(did_you_mean("accesModes", keys), Some("accessModes"));
        assert_eq!(did_you_mean("ACCESSMODES", keys), Some("accessModes"));
        assert_eq!(did_you_mean("volumeMode", keys), None);
    }

    #[test]
    fn records_resolve_positions_and_paths() {
        let mut db = SourceDb::new();
        let id = db.add("x.yaml", "a:\n  b: 1\n");
        let diagnostic = Diagnostic::error(
            crate::Code::new("test/code"),
            "bad value",
            Span::new(id, 8, 9),
        )
        .with_path(FieldPath::root().key("a").key("b"));
        let record = diagnostic.record(&db);
        assert_eq!((record.line, record.column), (2, 6));
        assert_eq!((record.end_line, record.end_column), (2, 7));
        assert_eq!(record.path.as_deref(), Some("a.b"));
    }
}

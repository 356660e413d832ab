//! [`ExprError`]: a problem with an expression language's text (the
//! features conditions of `strata-cond`, the spec's `${..}` of
//! `strata-subst`), at a byte range of that text. One type for every
//! language, so a dialect reports any of them the same way:
//! [`ExprError::diagnostic`] places it at the exact character of the file
//! when the scalar is written so that the text can be found there
//! ([`SourceDb::span_in_scalar`]), else at the whole scalar.

use std::ops::Range;

use crate::code::Code;
use crate::diagnostic::Diagnostic;
use crate::source::{SourceDb, Span};

/// A problem with an expression, at a byte range of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// The stable code (the language's `codes`).
    pub code: Code,
    /// What went wrong.
    pub message: String,
    /// Where, in the expression's (or template's) text.
    pub range: Range<usize>,
    /// What to do about it.
    pub help: Option<String>,
    /// Extra facts.
    pub notes: Vec<String>,
    /// The failure of code a host ran for the expression (a `jsonnet()`
    /// file), reported where that code failed.
    pub cause: Option<Box<Diagnostic>>,
}

impl ExprError {
    /// A problem at `range`.
    #[must_use]
    pub fn new(code: Code, message: impl Into<String>, range: Range<usize>) -> ExprError {
        ExprError {
            code,
            message: message.into(),
            range,
            help: None,
            notes: Vec::new(),
            cause: None,
        }
    }

    /// With a hint.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> ExprError {
        self.help = Some(help.into());
        self
    }

    /// With a note.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> ExprError {
        self.notes.push(note.into());
        self
    }

    /// Moved by `offset` bytes (an expression inside a larger text).
    #[must_use]
    pub fn shifted(mut self, offset: usize) -> ExprError {
        self.range = self.range.start + offset..self.range.end + offset;
        self
    }

    /// A diagnostic in the file: at the range inside the scalar whose value
    /// is `text` and which is written at `scalar`, or at the whole scalar
    /// when the text cannot be found as written. A host's failure is
    /// reported where it happened, with the call as a secondary place.
    #[must_use]
    pub fn diagnostic(&self, db: &SourceDb, scalar: Span, text: &str) -> Diagnostic {
        let span = db
            .span_in_scalar(scalar, text, self.range.clone())
            .unwrap_or(scalar);
        if let Some(cause) = &self.cause {
            return (**cause).clone().with_secondary(span, "called here");
        }
        let mut diagnostic = Diagnostic::error(self.code, self.message.clone(), span);
        for note in &self.notes {
            diagnostic = diagnostic.with_note(note.clone());
        }
        if let Some(help) = &self.help {
            diagnostic = diagnostic.with_help(help.clone());
        }
        diagnostic
    }
}

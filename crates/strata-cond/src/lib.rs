//! The condition and interpolation language of the `features` dialect: the
//! subset of [expr](https://expr-lang.org) that Windsor blueprints use, in
//! `when:` conditions and in `${..}` inside strings.
//!
//! ```text
//! provider == 'aws' && (cluster.enabled ?? false)
//! cluster.workers.count * 2
//! "${dns.domain}-config"
//! ${jsonnet("talos.jsonnet").worker_config_patches}
//! ```
//!
//! - [`parse`](mod@parse): literals (`null`/`nil`, `true`/`false`, integers, floats,
//!   single- and double-quoted strings, `[lists]`), names, `.field`,
//!   `[index]`, calls, prefix `!`/`not`/`-`, and the binary operators with
//!   expr's precedence (module docs there). Every node keeps its byte range.
//! - [`evaluate`]: the semantics (module docs in [`eval`]): a missing key
//!   anywhere in a path is `null`, `??` replaces `null`, and the functions
//!   `values`, `jsonnet` and `file`, the last two through a [`Host`] that
//!   the dialect supplies (it confines paths).
//! - [`Template`]: `${..}` inside strings (module docs in [`template`]).
//!
//! Errors carry the byte range inside the expression's text;
//! [`CondError::diagnostic`] turns one into a diagnostic at the exact
//! character in the file when the scalar is written so that the text can be
//! found there (see [`strata_syntax::SourceDb::span_in_scalar`]).
//!
//! The diagnostic codes are listed in [`codes`].

#![forbid(unsafe_code)]

pub mod codes;
pub mod eval;
pub mod parse;
pub mod template;

use std::ops::Range;

use strata_syntax::{Diagnostic, SourceDb, Span};

pub use eval::{Host, HostError, equal, evaluate};
pub use parse::{Expr, parse};
pub use template::Template;

/// The longest expression or template accepted, in bytes.
pub const MAX_LENGTH: usize = 64 * 1024;

/// A problem with an expression, at a byte range of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CondError {
    /// What went wrong.
    pub message: String,
    /// Where, in the expression's (or template's) text.
    pub range: Range<usize>,
    /// Whether the text failed to parse (else evaluation failed).
    pub parse: bool,
    /// What to do about it.
    pub help: Option<String>,
    /// Extra facts.
    pub notes: Vec<String>,
    /// The failure of code a host ran for the expression (a `jsonnet()`
    /// file), reported where that code failed.
    pub cause: Option<Box<Diagnostic>>,
}

impl CondError {
    /// A problem at `range`.
    #[must_use]
    pub fn new(message: impl Into<String>, range: Range<usize>) -> CondError {
        CondError {
            message: message.into(),
            range,
            parse: true,
            help: None,
            notes: Vec::new(),
            cause: None,
        }
    }

    /// A host's failure for the call at `range`.
    #[must_use]
    pub fn host(error: HostError, range: Range<usize>) -> CondError {
        match error {
            HostError::Call(message) => CondError::eval(message, range),
            HostError::Failed(cause) => CondError {
                cause: Some(cause),
                ..CondError::eval("the called code failed", range)
            },
        }
    }

    /// A problem evaluating, at `range`.
    #[must_use]
    pub fn eval(message: impl Into<String>, range: Range<usize>) -> CondError {
        CondError {
            parse: false,
            ..CondError::new(message, range)
        }
    }

    /// With a hint.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> CondError {
        self.help = Some(help.into());
        self
    }

    /// With a note.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> CondError {
        self.notes.push(note.into());
        self
    }

    /// Moved by `offset` bytes (an expression inside a larger text).
    #[must_use]
    pub fn shifted(mut self, offset: usize) -> CondError {
        self.range = self.range.start + offset..self.range.end + offset;
        self
    }

    /// A diagnostic in the file: at the range inside the scalar whose value
    /// is `text` and which is written at `scalar`, or at the whole scalar
    /// when the text cannot be found as written.
    #[must_use]
    pub fn diagnostic(&self, db: &SourceDb, scalar: Span, text: &str) -> Diagnostic {
        let span = db
            .span_in_scalar(scalar, text, self.range.clone())
            .unwrap_or(scalar);
        if let Some(cause) = &self.cause {
            return (**cause).clone().with_secondary(span, "called here");
        }
        let code = if self.parse {
            codes::PARSE
        } else {
            codes::EVAL
        };
        let mut diagnostic = Diagnostic::error(code, self.message.clone(), span);
        for note in &self.notes {
            diagnostic = diagnostic.with_note(note.clone());
        }
        if let Some(help) = &self.help {
            diagnostic = diagnostic.with_help(help.clone());
        }
        diagnostic
    }
}

/// Parses and evaluates a `when:` condition: `true`, `false`, or `null`
/// (which counts as false); any other result is an error at the expression.
pub fn condition(
    text: &str,
    scope: &strata_syntax::Node,
    host: &dyn Host,
) -> Result<bool, CondError> {
    if text.len() > MAX_LENGTH {
        return Err(CondError::new(
            format!("the condition is longer than {MAX_LENGTH} bytes"),
            0..text.len(),
        ));
    }
    let expr = parse(text)?;
    let value = evaluate(&expr, scope, host)?;
    match value.value {
        strata_syntax::Value::Bool(b) => Ok(b),
        strata_syntax::Value::Null => Ok(false),
        other => Err(CondError::eval(
            format!(
                "a condition must be true or false, found {}",
                other.kind_name()
            ),
            expr.range,
        )),
    }
}

//! The condition and interpolation language of the `features` dialect:
//! [expr](https://expr-lang.org) v1.17, the version Windsor v0.8.1 pins,
//! whole, in `when:` conditions and in `${..}` inside strings.
//!
//! ```text
//! provider == 'aws' && (cluster.enabled ?? false)
//! let pools = cluster.workers.nodes | map(.pool) | uniq(); len(pools) > 1
//! "${dns.domain}-config"
//! ${jsonnet("talos.jsonnet").worker_config_patches}
//! ```
//!
//! - [`parse`](mod@parse): expr's grammar and precedence (module docs
//!   there); every node keeps its byte range.
//! - [`evaluate`]: the semantics (module docs in [`eval`]): a missing key
//!   anywhere in a path is `null`, `??` replaces `null`; the builtins in
//!   [`functions`] and [`time`]; `jsonnet` and `file` through a [`Host`]
//!   that the dialect supplies (it confines paths). Every evaluation is
//!   bounded in work and memory.
//! - [`Template`]: `${..}` inside strings (module docs in [`template`]).
//!
//! Where Strata differs from expr on purpose (a missing path is `null`,
//! sorted `keys`, no `now()`, …), the manual's "Coming from Windsor" page
//! lists it; `tests/expr-cases.yaml` is the language point by point.
//!
//! Errors carry the byte range inside the expression's text;
//! [`ExprError::diagnostic`] turns one into a diagnostic at the exact
//! character in the file when the scalar is written so that the text can be
//! found there (see [`strata_syntax::SourceDb::span_in_scalar`]).
//!
//! The diagnostic codes are listed in [`codes`].

#![forbid(unsafe_code)]

pub mod codes;
pub mod eval;
pub mod functions;
pub mod go;
pub mod lex;
pub mod parse;
pub mod predicates;
pub mod template;
pub mod time;

use std::ops::Range;

use strata_syntax::ExprError;

pub use eval::{Host, HostError, equal, evaluate};
pub use parse::{Expr, parse};
pub use template::Template;

/// The stack a parse or evaluation step needs left before it recurses.
const STACK_RED_ZONE: usize = 64 * 1024;
/// The stack segment added when less is left.
const STACK_SEGMENT: usize = 1024 * 1024;

/// The longest expression or template accepted, in bytes.
pub const MAX_LENGTH: usize = 64 * 1024;

/// A problem with an expression, at a byte range of its text: the
/// expression languages' one error type; its code is [`codes::PARSE`] or
/// [`codes::EVAL`].
pub type CondError = ExprError;

/// A problem parsing, at `range` (`cond/parse`).
#[must_use]
pub fn parse_error(message: impl Into<String>, range: Range<usize>) -> CondError {
    ExprError::new(codes::PARSE, message, range)
}

/// A problem evaluating, at `range` (`cond/eval`).
#[must_use]
pub fn eval_error(message: impl Into<String>, range: Range<usize>) -> CondError {
    ExprError::new(codes::EVAL, message, range)
}

/// A host's failure for the call at `range`.
#[must_use]
pub fn host_error(error: HostError, range: Range<usize>) -> CondError {
    match error {
        HostError::Call(message) => eval_error(message, range),
        HostError::Failed(cause) => CondError {
            cause: Some(cause),
            ..eval_error("the called code failed", range)
        },
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
        return Err(crate::parse_error(
            format!("the condition is longer than {MAX_LENGTH} bytes"),
            0..text.len(),
        ));
    }
    let expr = parse(text)?;
    eval::evaluate_with(&expr, scope, host, |value| match value.value {
        strata_syntax::Value::Bool(b) => Ok(b),
        strata_syntax::Value::Null => Ok(false),
        ref other => Err(crate::eval_error(
            format!(
                "a condition must be true or false, found {}",
                other.kind_name()
            ),
            expr.range.clone(),
        )),
    })?
}

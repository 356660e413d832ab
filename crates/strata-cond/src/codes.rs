//! The diagnostic codes of the features expression language.
//!
//! | code | when |
//! |---|---|
//! | `cond/parse` | the text is not an expression, or a `${` is malformed |
//! | `cond/eval` | evaluation failed: types, overflow, a function's error |
//!
//! A `jsonnet()` file that fails is reported where it failed, with the
//! host's code (`jsonnet/eval`), the expression as its secondary place.

/// The text is not an expression, or a `${` is malformed.
pub const PARSE: &str = "cond/parse";
/// Evaluation failed.
pub const EVAL: &str = "cond/eval";

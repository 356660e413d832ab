//! The diagnostic codes of CEL expressions.
//!
//! | code | when | where |
//! |---|---|---|
//! | `cel/parse` | the expression does not parse | the offending character when it can be mapped, else the scalar |
//! | `cel/limit` | a cost bound below was hit | the scalar (or the character, for nesting) |
//! | `cel/eval` | evaluation failed: no such key, no matching overload, unknown variable or function, division by zero, ... (the `cel` crate's message, lowercased) | the scalar |
//! | `cel/env-disabled` | `env()` was called without [`CelOptions::allow_env`](crate::CelOptions::allow_env) | the scalar |
//! | `cel/result` | the value cannot be put in the tree (see the crate docs) | the scalar |
//! | `cel/not-a-string` | `!cel` tags a mapping, a sequence or a non-string scalar | the node |

/// `env()` was called without [`CelOptions::allow_env`](crate::CelOptions::allow_env).
pub const ENV_DISABLED: &str = "cel/env-disabled";
/// Evaluation failed: no such key, no matching overload, unknown variable or function, division by zero, ... (the `cel` crate's message, lowercased).
pub const EVAL: &str = "cel/eval";
/// A cost bound below was hit.
pub const LIMIT: &str = "cel/limit";
/// `!cel` tags a mapping, a sequence or a non-string scalar.
pub const NOT_A_STRING: &str = "cel/not-a-string";
/// The expression does not parse.
pub const PARSE: &str = "cel/parse";
/// The value cannot be put in the tree (see the crate docs).
pub const RESULT: &str = "cel/result";

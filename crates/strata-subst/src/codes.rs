//! The diagnostic codes of the `${..}` substitution language.
//!
//! | code | when |
//! |---|---|
//! | `subst/syntax` | the text inside `${..}` does not follow the grammar |
//! | `subst/unclosed` | a `${` has no closing `}` |
//! | `subst/empty` | `${}` holds nothing |
//! | `subst/too-long` | a field text is longer than the bound |
//! | `subst/too-deep` | calls are nested deeper than the bound |
//! | `subst/reference` | a reference has a shape its kind does not allow (`variables.x.y`, `datasources.d.f.g`, `children.c` alone) |
//! | `subst/unknown-function` | a call names no function |
//! | `subst/arity` | a call passes too few or too many arguments |
//! | `subst/argument-type` | an argument's type is known and is not one the parameter takes |
//! | `subst/named-argument` | a named argument given to a function other than `object`, or a name repeated |
//! | `subst/function-value` | a function where a value is expected, or a value where a function is |
//! | `subst/datetime-format` | `datetime` is given a format other than `unix`, `rfc3339`, `tag`, `tagcompact` |
//! | `subst/complex-interpolation` | an array or mapping inside a string interpolation |
//! | `subst/eval` | evaluating failed: a function's error, an index out of range, a missing field, an overflow |
//! | `subst/step-limit` | evaluation took more steps than the render's budget ([`crate::Steps`]) |

/// The text inside `${..}` does not follow the grammar.
pub const SYNTAX: &str = "subst/syntax";
/// A `${` has no closing `}`.
pub const UNCLOSED: &str = "subst/unclosed";
/// `${}` holds nothing.
pub const EMPTY: &str = "subst/empty";
/// A field text is longer than the bound.
pub const TOO_LONG: &str = "subst/too-long";
/// Calls are nested deeper than the bound.
pub const TOO_DEEP: &str = "subst/too-deep";
/// A reference has a shape its kind does not allow.
pub const REFERENCE: &str = "subst/reference";
/// A call names no function.
pub const UNKNOWN_FUNCTION: &str = "subst/unknown-function";
/// A call passes too few or too many arguments.
pub const ARITY: &str = "subst/arity";
/// An argument's known type is not one the parameter takes.
pub const ARGUMENT_TYPE: &str = "subst/argument-type";
/// A named argument where none is taken, or a repeated name.
pub const NAMED_ARGUMENT: &str = "subst/named-argument";
/// A function where a value is expected, or the reverse.
pub const FUNCTION_VALUE: &str = "subst/function-value";
/// An unknown `datetime` format.
pub const DATETIME_FORMAT: &str = "subst/datetime-format";
/// An array or mapping inside a string interpolation.
pub const COMPLEX_INTERPOLATION: &str = "subst/complex-interpolation";
/// Evaluating failed.
pub const EVAL: &str = "subst/eval";
/// Evaluation took more steps than the render's budget.
pub const STEP_LIMIT: &str = "subst/step-limit";

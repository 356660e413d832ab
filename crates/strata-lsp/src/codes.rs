//! The diagnostic codes of the language server itself: a check stopped at
//! its budget. Every other diagnostic it publishes is a dialect's.
//!
//! | code | when |
//! |---|---|
//! | `lsp/check-memory` | a check's evaluation held more memory than its budget (`strata lsp --check-memory`) and was stopped; reported at the step it was running (a component, a `jsonnet()` file) |
//! | `lsp/check-time` | a check's evaluation ran longer than its budget (`strata lsp --check-time`) and was stopped; reported at the step it was running |

/// A check's evaluation held more memory than its budget and was stopped.
pub const CHECK_MEMORY: &str = "lsp/check-memory";
/// A check's evaluation ran longer than its budget and was stopped.
pub const CHECK_TIME: &str = "lsp/check-time";

//! The diagnostic codes of the command line itself.
//!
//! | code | when |
//! |---|---|
//! | `run/memory-limit` | the run held more resident memory than `--memory-limit` and was stopped |

/// The run held more resident memory than `--memory-limit` and was stopped.
pub const MEMORY_LIMIT: &str = "run/memory-limit";

//! The diagnostic codes of Jsonnet evaluation.
//!
//! | code | when |
//! |---|---|
//! | `jsonnet/eval` | an evaluation failed (a component, a variable's code, a post-processor, a `jsonnet()` call) or did not finish in time |
//! | `jsonnet/trace` | a `std.trace` message (a note), where it was called |

/// An evaluation failed or did not finish in time.
pub const EVAL: &str = "jsonnet/eval";
/// A `std.trace` message.
pub const TRACE: &str = "jsonnet/trace";

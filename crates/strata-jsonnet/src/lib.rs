//! Jsonnet for the dialects, on jrsonnet (pinned to one pre-release, with its
//! sibling crates; see the workspace manifest for why `0.5.0-pre97`).
//!
//! - `vm`: a fresh VM per evaluation with the standard library, external
//!   variables, top-level arguments, imports confined to a [`strata_fs`]
//!   root (relative to the importing file, then along library folders),
//!   `std.trace` collected instead of printed, and failures returned as
//!   plain data with their traces ([`Failure`]), so they can cross threads
//!   and become diagnostics with positions.
//! - `glob`: qbec's `glob-import:` and `glob-importstr:` imports.
//! - `natives`: qbec's `std.native` functions (`parseJson`, `parseYaml`,
//!   `renderYaml`, `escapeStringRegex`, `regexMatch`, `regexSubst`,
//!   `labelsMatchSelector`), available in every VM.
//! - [`value`]: Jsonnet values to and from spanned trees, depth-bounded.
//! - [`TraceSources`]: failures and `std.trace` messages as diagnostics
//!   with positions ([`codes`]), for every dialect that evaluates Jsonnet.
//!
//! A jrsonnet `State` is not `Send`: a [`Vm`] lives and dies on one thread;
//! [`Setup`] is plain data shared by the threads that make VMs.

#![forbid(unsafe_code)]

pub mod codes;
pub mod data;
mod glob;
pub mod imports;
mod natives;
mod report;
pub mod stdlib;
pub mod value;
mod vm;

pub use report::TraceSources;
pub use vm::{
    EVALUATION_STACK_BYTES, Failure, Frame, Input, Inputs, MAX_CALL_DEPTH, Setup, Traced, Vm,
    on_evaluation_stack, resolve_import,
};

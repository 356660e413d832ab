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
//! - [`helm`]: qbec's `expandHelmTemplate` native and the documents
//!   `helm template` writes; [`process`]: the programs a render runs for
//!   them and for data sources, bounded in time and output.
//! - [`value`]: Jsonnet values to and from spanned trees, depth-bounded.
//! - [`TraceSources`]: failures and `std.trace` messages as diagnostics
//!   with positions ([`codes`]), for every dialect that evaluates Jsonnet.
//!
//! A jrsonnet `State` is not `Send`: a [`Vm`] lives and dies on one thread;
//! [`Setup`] is plain data shared by the threads that make VMs.

#![forbid(unsafe_code)]

/// `jrsonnet_parser::SourcePathT` for a type that names an import that is
/// not a file on disk (a glob, a data source): no path, hashed and
/// compared as itself. The type is `Debug`, `Eq`, `Hash` and `Trace`.
macro_rules! virtual_source_path {
    ($type:ty) => {
        impl jrsonnet_parser::SourcePathT for $type {
            fn is_default(&self) -> bool {
                false
            }

            fn path(&self) -> Option<&std::path::Path> {
                None
            }

            fn as_any(&self) -> &dyn std::any::Any {
                self
            }

            fn dyn_hash(&self, mut hasher: &mut dyn std::hash::Hasher) {
                std::hash::Hash::hash(self, &mut hasher);
            }

            fn dyn_eq(&self, other: &dyn jrsonnet_parser::SourcePathT) -> bool {
                other
                    .as_any()
                    .downcast_ref::<$type>()
                    .is_some_and(|other| self == other)
            }

            fn dyn_debug(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(self, f)
            }
        }
    };
}

pub mod codes;
pub mod data;
mod glob;
pub mod helm;
pub mod imports;
mod natives;
pub mod process;
pub mod reads;
mod report;
pub mod stdlib;
pub mod value;
mod vm;

pub use report::TraceSources;
pub use vm::{
    EVALUATION_STACK_BYTES, Failure, Frame, Input, Inputs, MAX_CALL_DEPTH, Setup, Traced, Vm,
    on_evaluation_stack, resolve_import,
};

//! The diagnostic codes of the features dialect.
//!
//! | code | when |
//! |---|---|
//! | `features/not-a-mapping` | `windsor.yaml`, a context's block or `values.yaml` is not a mapping |
//! | `features/unknown-context` | no `contexts.<NAME>` (the known ones are listed) |
//! | `features/invalid-set` | a malformed `--set`, or a path through a non-mapping |
//! | `features/duplicate-feature` | two features share a name (both files named) |
//! | `features/duplicate-entry` | one file gives the same component or kustomization twice |
//! | `features/missing-path` | a composed kustomization has no `path` |
//! | `features/source-mismatch` | a warning: a feature's component has an existing one's `path` but another `source`, so it is added, not merged |
//! | `features/unknown-dependency` | a warning: a `dependsOn` entry names nothing in this blueprint (did-you-mean; another context may provide it) |
//! | `features/dependency-cycle` | a `dependsOn` graph has a cycle; the message prints it (`a -> b -> a`) |
//!
//! Expressions report `cond/parse` and `cond/eval` (`strata-cond`), a
//! failing `jsonnet()` file `jsonnet/eval` (`strata-jsonnet`), files that
//! cannot be read or hold several documents `io/*`, the files' structure
//! `schema/*`.

/// `windsor.yaml`, a context's block or `values.yaml` is not a mapping.
pub const NOT_A_MAPPING: &str = "features/not-a-mapping";
/// No `contexts.<NAME>`.
pub const UNKNOWN_CONTEXT: &str = "features/unknown-context";
/// A malformed `--set`, or a path through a non-mapping.
pub const INVALID_SET: &str = "features/invalid-set";
/// Two features share a name.
pub const DUPLICATE_FEATURE: &str = "features/duplicate-feature";
/// One file gives the same component or kustomization twice.
pub const DUPLICATE_ENTRY: &str = "features/duplicate-entry";
/// A composed kustomization has no `path`.
pub const MISSING_PATH: &str = "features/missing-path";
/// A warning: same `path`, another `source`: added, not merged.
pub const SOURCE_MISMATCH: &str = "features/source-mismatch";
/// A `dependsOn` entry names nothing.
pub const UNKNOWN_DEPENDENCY: &str = "features/unknown-dependency";
/// A `dependsOn` graph has a cycle.
pub const DEPENDENCY_CYCLE: &str = "features/dependency-cycle";

//! The diagnostic codes of the components dialect.
//!
//! | code | when |
//! |---|---|
//! | `components/duplicate-component` | two components share a name |
//! | `components/unknown-component` | `excludes`, `includes`, a top-level argument's `components` or `--component` names no component |
//! | `components/invalid-path` | `componentsDir`, a `libPaths` or `envFiles` entry or `postProcessor` leaves the root, an `envFiles` entry is a URL or a glob matching nothing, or the post-processor is missing |
//! | `components/duplicate-var` | a variable is declared twice |
//! | `components/unsupported` | `paramsFile`, `dataSources`, `dsExamples` |
//! | `components/invalid-name` | the application's or an environment's name, or `--app-tag`, is not a label value, an environment is named `_`, or there is no environment |
//! | `components/invalid-environment` | an environment names neither or both of `server` and `context`, or a context starting with `__` |
//! | `components/overridden-environment` | a warning: an environment file defines an environment again, replacing the earlier definition (as qbec) |
//! | `components/include-exclude` | an environment, or the command line (`-c` and `-C`), both includes and excludes a component |
//! | `components/no-components` | a warning: `componentsDir` matches no folder holding a component (nothing is rendered, as qbec) |
//! | `components/unknown-environment` | `--env` names no environment (the known ones are listed) |
//! | `components/excluded` | a note: `--component` names a component the environment excludes |
//! | `components/undeclared-var` | a variable given on the command line is not declared (a warning, an error with `--strict-vars`) |
//! | `components/missing-var` | a component reads a declared external variable that has no value and no default, or `--strict-vars` and a declared variable or argument is not given |
//! | `components/post-processor` | a post-processor did not return an object with a name, or two post-processors share a file name |
//! | `components/duplicate-object` | two objects share kind, namespace and name |
//! | `components/not-an-object` | a scalar where an output is expected |
//! | `components/invalid-list` | a `List` without an `items` array |
//! | `components/no-name` | an object without `metadata.name` or `generateName` |
//! | `components/invalid-metadata` | `metadata`, its `labels` or its `annotations` is not a mapping |
//!
//! Evaluation failures and `std.trace` are `jsonnet/eval` and
//! `jsonnet/trace` (`strata-jsonnet`); files that cannot be read or hold
//! the wrong number of documents, `io/*` (`strata-fs`, `strata-dialect`);
//! `qbec.yaml`'s structure, `schema/*`.

/// Two components share a name.
pub const DUPLICATE_COMPONENT: &str = "components/duplicate-component";
/// A list in `qbec.yaml` or `--component` names no component.
pub const UNKNOWN_COMPONENT: &str = "components/unknown-component";
/// A path in `qbec.yaml` leaves the root, or the post-processor is missing.
pub const INVALID_PATH: &str = "components/invalid-path";
/// A variable is declared twice.
pub const DUPLICATE_VAR: &str = "components/duplicate-var";
/// A field of qbec this engine does not support.
pub const UNSUPPORTED: &str = "components/unsupported";
/// A name that becomes a label value is not one, or there is no environment.
pub const INVALID_NAME: &str = "components/invalid-name";
/// An environment, or the command line, both includes and excludes a component.
pub const INCLUDE_EXCLUDE: &str = "components/include-exclude";
/// An environment names neither or both of `server` and `context`, or a
/// reserved context.
pub const INVALID_ENVIRONMENT: &str = "components/invalid-environment";
/// A warning: an environment file defines an environment again.
pub const OVERRIDDEN_ENVIRONMENT: &str = "components/overridden-environment";
/// `componentsDir` holds no component.
pub const NO_COMPONENTS: &str = "components/no-components";
/// `--env` names no environment.
pub const UNKNOWN_ENVIRONMENT: &str = "components/unknown-environment";
/// A note: `--component` names a component the environment excludes.
pub const EXCLUDED: &str = "components/excluded";
/// A variable given on the command line is not declared.
pub const UNDECLARED_VAR: &str = "components/undeclared-var";
/// A declared external variable has no value and no default.
pub const MISSING_VAR: &str = "components/missing-var";
/// The post-processor did not return an object with a name.
pub const POST_PROCESSOR: &str = "components/post-processor";
/// Two objects share kind, namespace and name.
pub const DUPLICATE_OBJECT: &str = "components/duplicate-object";
/// A scalar where an output is expected.
pub const NOT_AN_OBJECT: &str = "components/not-an-object";
/// A `List` without an `items` array.
pub const INVALID_LIST: &str = "components/invalid-list";
/// An object without `metadata.name` or `generateName`.
pub const NO_NAME: &str = "components/no-name";
/// `metadata`, its `labels` or its `annotations` is not a mapping.
pub const INVALID_METADATA: &str = "components/invalid-metadata";

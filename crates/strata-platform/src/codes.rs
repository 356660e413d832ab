//! The diagnostic codes of the platform dialect.
//!
//! | code | when |
//! |---|---|
//! | `platform/blueprint-mismatch` | `--blueprint` and the repository's `template` name different blueprints |
//! | `platform/blueprint-not-allowed` | the caller may not use the blueprint asked for, whether it exists or not |
//! | `platform/duplicate-name` | two blueprints share a name (both files named) |
//! | `platform/include-cycle` | includes form a cycle (the chain is printed) |
//! | `platform/include-escapes` | an `!include` path leaves the catalogue folder |
//! | `platform/include-in-repo` | a repository file uses `!include` |
//! | `platform/include-invalid` | `!include` on something other than a path string |
//! | `platform/invalid-cidr` | `network.allowEgressToCIDRs` entries are CIDRs (`10.0.0.0/8`, `fd00::/8`) |
//! | `platform/invalid-env-name` | environment variable names are letters, digits, `_`, `-`, `.`, not starting with a digit |
//! | `platform/invalid-file` | a catalogue file's document is not a blueprint, a list of them, `blueprint:` or `blueprints:` |
//! | `platform/invalid-hostname` | `hostname` and `subdomain` are plain DNS names |
//! | `platform/invalid-path` | storage paths and `extFiles` keys are absolute |
//! | `platform/invalid-repo` | a repository file is not `blueprint: {template: NAME, ...}`, or has other keys |
//! | `platform/invalid-scope` | a `--scope` file is not `user`, `workspaceName` and `metadata` of the right types |
//! | `platform/invalid-strategy` | a strategy in `.strata.yaml` or the settings is not a strategy, or its path is not a pattern |
//! | `platform/invalid-template` | `template` is not a string |
//! | `platform/missing-field` | an enabled storage has an absolute `path`; an enabled `shared` storage has `existingClaim`; enabled podman has `image` |
//! | `platform/missing-name` | a blueprint has no `name`, or it is not a non-empty string |
//! | `platform/no-blueprint` | a render names no blueprint and has no repository file naming one |
//! | `platform/repo-key-not-allowed` | a repository sets a key outside the ones a repository may set |
//! | `platform/security-context` | `runAsUser`/`runAsGroup` are 0, `runAsNonRoot` and `readOnlyRootFilesystem` are not true, `allowPrivilegeEscalation` is not false, and `CHOWN`, `SETUID`, `SETGID` are not dropped (`drop: [ALL]` drops them unless `add` restores them) |
//! | `platform/size-limit-not-allowed` | `sizeLimit` only on `emptyDir` and `memory` storages |
//! | `platform/template-cycle` | a chain of templates is a cycle (printed) |
//! | `platform/template-too-deep` | a blueprint's chain of templates is deeper than [`MAX_TEMPLATE_DEPTH`](crate::MAX_TEMPLATE_DEPTH) (reported once, at the first blueprint beyond it) |
//! | `platform/template-not-composable` | the blueprint asked for is a template |
//! | `platform/test-scope` | a note: no `--scope` was given, so the synthetic test scope was used |
//! | `platform/unknown-blueprint` | no blueprint has the name asked for (did-you-mean among the usable ones) |
//! | `platform/unknown-storage` | `podman.parentStorages` name storages of the blueprint |
//! | `platform/unknown-template` | `template` names no blueprint |

/// `--blueprint` and the repository's `template` name different blueprints.
pub const BLUEPRINT_MISMATCH: &str = "platform/blueprint-mismatch";
/// The caller may not use the blueprint asked for, whether it exists or not.
pub const BLUEPRINT_NOT_ALLOWED: &str = "platform/blueprint-not-allowed";
/// Two blueprints share a name (both files named).
pub const DUPLICATE_NAME: &str = "platform/duplicate-name";
/// Includes form a cycle (the chain is printed).
pub const INCLUDE_CYCLE: &str = "platform/include-cycle";
/// An `!include` path leaves the catalogue folder.
pub const INCLUDE_ESCAPES: &str = "platform/include-escapes";
/// A repository file uses `!include`.
pub const INCLUDE_IN_REPO: &str = "platform/include-in-repo";
/// `!include` on something other than a path string.
pub const INCLUDE_INVALID: &str = "platform/include-invalid";
/// `network.allowEgressToCIDRs` entries are CIDRs (`10.0.0.0/8`, `fd00::/8`).
pub const INVALID_CIDR: &str = "platform/invalid-cidr";
/// Environment variable names are letters, digits, `_`, `-`, `.`, not starting with a digit.
pub const INVALID_ENV_NAME: &str = "platform/invalid-env-name";
/// A catalogue file's document is not a blueprint, a list of them, `blueprint:` or `blueprints:`.
pub const INVALID_FILE: &str = "platform/invalid-file";
/// `hostname` and `subdomain` are plain DNS names.
pub const INVALID_HOSTNAME: &str = "platform/invalid-hostname";
/// Storage paths and `extFiles` keys are absolute.
pub const INVALID_PATH: &str = "platform/invalid-path";
/// A repository file is not `blueprint: {template: NAME, ...}`, or has other keys.
pub const INVALID_REPO: &str = "platform/invalid-repo";
/// A `--scope` file is not `user`, `workspaceName` and `metadata` of the right types.
pub const INVALID_SCOPE: &str = "platform/invalid-scope";
/// A strategy in `.strata.yaml` or the settings is not a strategy, or its path is not a pattern.
pub const INVALID_STRATEGY: &str = "platform/invalid-strategy";
/// `template` is not a string.
pub const INVALID_TEMPLATE: &str = "platform/invalid-template";
/// An enabled storage has an absolute `path`; an enabled `shared` storage has `existingClaim`; enabled podman has `image`.
pub const MISSING_FIELD: &str = "platform/missing-field";
/// A blueprint has no `name`, or it is not a non-empty string.
pub const MISSING_NAME: &str = "platform/missing-name";
/// A render names no blueprint and has no repository file naming one.
pub const NO_BLUEPRINT: &str = "platform/no-blueprint";
/// A repository sets a key outside the ones a repository may set.
pub const REPO_KEY_NOT_ALLOWED: &str = "platform/repo-key-not-allowed";
/// `runAsUser`/`runAsGroup` are 0, `runAsNonRoot` and `readOnlyRootFilesystem` are not true, `allowPrivilegeEscalation` is not false, and `CHOWN`, `SETUID`, `SETGID` are not dropped (`drop: [ALL]` drops them unless `add` restores them).
pub const SECURITY_CONTEXT: &str = "platform/security-context";
/// `sizeLimit` only on `emptyDir` and `memory` storages.
pub const SIZE_LIMIT_NOT_ALLOWED: &str = "platform/size-limit-not-allowed";
/// A chain of templates is a cycle (printed).
pub const TEMPLATE_CYCLE: &str = "platform/template-cycle";
/// A blueprint's chain of templates is deeper than the limit (reported once,
/// at the first blueprint beyond it).
pub const TEMPLATE_TOO_DEEP: &str = "platform/template-too-deep";
/// The blueprint asked for is a template.
pub const TEMPLATE_NOT_COMPOSABLE: &str = "platform/template-not-composable";
/// A note: no `--scope` was given, so the synthetic test scope was used.
pub const TEST_SCOPE: &str = "platform/test-scope";
/// No blueprint has the name asked for (did-you-mean among the usable ones).
pub const UNKNOWN_BLUEPRINT: &str = "platform/unknown-blueprint";
/// `podman.parentStorages` name storages of the blueprint.
pub const UNKNOWN_STORAGE: &str = "platform/unknown-storage";
/// `template` names no blueprint.
pub const UNKNOWN_TEMPLATE: &str = "platform/unknown-template";

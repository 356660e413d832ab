//! The dialects Strata serves, as one [`Registry`]: the command line and
//! the language server iterate it, and know no dialect otherwise.
//!
//! | name | dialect | claims |
//! |---|---|---|
//! | `platform` | k8shell platform catalogues ([`strata_platform`]) | a folder holding `.strata.yaml` |
//! | `components` | qbec applications ([`strata_components`]) | a folder holding `qbec.yaml` |
//! | `features` | Windsor projects ([`strata_features`]) | a folder holding `windsor.yaml` |
//! | `capabilities` | Kure launcher packages ([`strata_capabilities`]) | `app.yaml` or `definitions/*` saying `apiVersion: launcher.gokure.dev/…` |
//! | `spec` | Blueprint Specification blueprints ([`strata_spec`]) | a file saying `version: 2023-04-20` |
//!
//! Adding a dialect is its crate, which implements
//! [`strata_dialect::Describe`], and one line in [`registry`] (and its
//! codes' table in [`explanations`]).
//!
//! [`explanations`] is every code the dialects and the core crates they
//! read and evaluate with can report, with what it means: what `strata
//! explain` prints.

#![forbid(unsafe_code)]

pub use strata_dialect::{Entry, Registry};
use strata_syntax::Explanation;

/// Every dialect, in the order a face asks them (within one folder, the
/// first dialect whose marker is there wins).
#[must_use]
pub fn registry() -> Registry {
    Registry::new(vec![
        Entry::of::<strata_platform::Catalogue>(),
        Entry::of::<strata_components::Application>(),
        Entry::of::<strata_features::Project>(),
        Entry::of::<strata_capabilities::Package>(),
        Entry::of::<strata_spec::Spec>(),
    ])
}

/// The codes of the dialects and of the core crates they use (syntax,
/// files, the contract, merging, schemas, Kubernetes names, and the
/// expression languages), crate by crate, each table in its declared
/// order.
#[must_use]
pub fn explanations() -> Vec<(&'static str, &'static [Explanation])> {
    vec![
        ("strata-syntax", strata_syntax::codes::TABLE),
        ("strata-fs", strata_fs::codes::TABLE),
        ("strata-dialect", strata_dialect::codes::TABLE),
        ("strata-merge", strata_merge::codes::TABLE),
        ("strata-schema", strata_schema::codes::TABLE),
        ("strata-k8s", strata_k8s::codes::TABLE),
        ("strata-cel", strata_cel::codes::TABLE),
        ("strata-cond", strata_cond::codes::TABLE),
        ("strata-jsonnet", strata_jsonnet::codes::TABLE),
        ("strata-subst", strata_subst::codes::TABLE),
        ("strata-platform", strata_platform::codes::TABLE),
        ("strata-components", strata_components::codes::TABLE),
        ("strata-features", strata_features::codes::TABLE),
        ("strata-capabilities", strata_capabilities::codes::TABLE),
        ("strata-spec", strata_spec::codes::TABLE),
    ]
}

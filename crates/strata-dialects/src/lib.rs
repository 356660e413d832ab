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
//! [`strata_dialect::Describe`], and one line in [`registry`].

#![forbid(unsafe_code)]

pub use strata_dialect::{Entry, Registry};

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

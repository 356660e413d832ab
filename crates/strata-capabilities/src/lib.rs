//! The `capabilities` dialect: the Kure launcher's cluster
//! profiles, the typed rendering schemas of its capability-aware handlers
//! and `CapabilityDefinition` documents for custom capabilities.
//!
//! What is here:
//!
//! - [`model`]: the documents as typed structs ([`ClusterProfile`],
//!   [`CapabilityDefinition`], [`Application`] and their parts), strict,
//!   with their JSON Schemas.
//! - `handlers`: the [`Registry`] of component and trait handlers, Kure's
//!   built-ins and the ones a library user registers ([`Handler`]); a
//!   capability-aware handler without a rendering schema is refused
//!   ([`RegistryError`]), Kure's startup assertion as an error.
//! - `rendering`: the typed rendering schemas ([`Rendering`], [`Typed`]) of
//!   `expose`, `certificate`, `external-secret`, `pvc`, `volsync`, and the
//!   key-less `configmap`, `networkpolicy`, `cilium-networkpolicy`: strict
//!   decode, conditional rules, branch-specific defaults.
//! - `definitions`: custom capabilities' schemas ([`Definitions`]) and the
//!   validation of a binding against one.
//! - `profile`: [`evaluate_profile`], validate-and-default of every binding
//!   before any Application is looked at.
//! - `application`: [`Dispatch`], an [`Application`] checked against the
//!   handlers and the evaluated profile, with each trait's effective
//!   properties.
//!
//! - `package`: a [`Package`] as a [`Dialect`]: opened from its folder,
//!   rendered against a cluster profile (the request).
//! - `params`: `kurel.yaml`'s typed parameters and the `${name}`
//!   placeholders of `app.yaml` resolved with the values given
//!   ([`Supplied`]).
//!
//! - `build`: [`build`], the Kubernetes objects of a checked Application
//!   ([`Manifests`]), as Kure's `kurel build` writes them.
//!
//! - `properties`: typed property schemas of `expose`, `configmap`, `pvc`,
//!   `certificate` and `external-secret`, checked on effective properties.
//!
//! Every diagnostic code is listed in [`codes`].

#![forbid(unsafe_code)]

mod application;
mod build;
mod cli;
pub mod codes;
mod definitions;
mod handlers;
pub mod model;
mod names;
mod navigate;
mod package;
mod params;
mod profile;
mod properties;
mod rendering;

pub use application::Dispatch;
pub use build::{BuildOptions, Manifests, build, component_schema};
pub use definitions::{Defined, Definitions};
pub use handlers::{Handler, HandlerKind, PassThroughTrait, Registry, RegistryError, TraitInput};
pub use model::{API_VERSION, Application, CapabilityDefinition, ClusterProfile};
pub use package::{APP_FILE, DEFINITIONS_DIR, Package, RenderRequest, Rendered, Settings};
pub use params::{PACKAGE_FILE, Supplied};
pub use profile::{EffectiveProfile, evaluate as evaluate_profile};
pub use rendering::{Rendering, Typed};
pub use strata_dialect::{Dialect, Opened, Options, Outcome};

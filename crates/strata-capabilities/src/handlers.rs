//! The handler registry: every component and trait type an Application may
//! use, Kure's built-ins and the ones a library user registers.
//!
//! A handler says its type, its kind, whether it is capability-aware (it may
//! take a binding from the cluster profile), whether a binding is required,
//! and, when capability-aware, its [`Rendering`] schema. The registry
//! refuses a capability-aware handler without a rendering schema, and a
//! second handler of one type: the counterpart of Kure's startup assertion,
//! as an error a caller sees instead of a panic.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, LazyLock};

use strata_syntax::{Diagnostic, Node};

use crate::rendering::{
    CertificateRendering, ExposeRendering, ExternalSecretRendering, NoKeys, PvcRendering,
    Rendering, Typed, VolsyncRendering,
};

/// What a handler makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HandlerKind {
    /// A component type (`webservice`).
    Component,
    /// A trait type (`expose`).
    Trait,
}

impl HandlerKind {
    /// `component` or `trait`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            HandlerKind::Component => "component",
            HandlerKind::Trait => "trait",
        }
    }
}

/// A component or trait handler, as the registry knows it.
pub trait Handler: Send + Sync {
    /// The type Applications name it by.
    fn type_name(&self) -> &str;

    /// A component or a trait.
    fn kind(&self) -> HandlerKind;

    /// The schema of its capability binding's rendering, when it is
    /// capability-aware (it may take one).
    fn rendering(&self) -> Option<&dyn Rendering> {
        None
    }

    /// Whether it cannot work without a binding in the profile.
    fn capability_required(&self) -> bool {
        false
    }

    /// Whether it is capability-aware.
    fn capability_aware(&self) -> bool {
        self.capability_required() || self.rendering().is_some()
    }

    /// The problems of a trait's effective `properties` against its typed
    /// property schema (paths relative to them; an unknown property a
    /// warning unless `strict`); `None` when it has no schema and takes
    /// its properties as they are.
    fn check_properties(&self, _properties: &Node, _strict: bool) -> Option<Vec<Diagnostic>> {
        None
    }

    /// The objects a custom trait adds to `capabilities build`, after its
    /// component's (built-in traits are built by the build itself); the
    /// error says why it cannot, and is reported at the trait. A handler
    /// that only passes its rendering through adds none.
    ///
    /// # Errors
    /// Why the trait cannot be built (a message, lowercase).
    fn build(&self, input: &TraitInput<'_>) -> Result<Vec<serde_json::Value>, String> {
        let _ = input;
        Ok(Vec::new())
    }
}

/// What a custom trait handler builds from.
#[derive(Debug, Clone, Copy)]
pub struct TraitInput<'a> {
    /// The component's name.
    pub component: &'a str,
    /// The component's type.
    pub component_type: &'a str,
    /// The build's namespace.
    pub namespace: &'a str,
    /// The trait's effective properties: the profile's binding's rendering
    /// merged under what the author wrote (passed through as bound, checked
    /// only by a `CapabilityDefinition`).
    pub properties: &'a serde_json::Value,
}

/// A built-in handler: a name, a kind and, when capability-aware, a schema.
struct Builtin {
    name: &'static str,
    kind: HandlerKind,
    rendering: Option<Box<dyn Rendering>>,
    required: bool,
}

impl Handler for Builtin {
    fn type_name(&self) -> &str {
        self.name
    }

    fn kind(&self) -> HandlerKind {
        self.kind
    }

    fn rendering(&self) -> Option<&dyn Rendering> {
        self.rendering.as_deref()
    }

    fn capability_required(&self) -> bool {
        self.required
    }

    fn check_properties(&self, properties: &Node, strict: bool) -> Option<Vec<Diagnostic>> {
        crate::properties::check(self.name, properties, strict)
    }
}

/// A trait handler registered only so that Applications can use the type:
/// its rendering, if the profile binds one, passes through (validated only
/// by a `CapabilityDefinition`). `--custom-trait TYPE` stands for the
/// handler a downstream build embeds.
#[derive(Debug, Clone)]
pub struct PassThroughTrait {
    name: String,
}

impl PassThroughTrait {
    /// A pass-through trait handler for `name`.
    #[must_use]
    pub fn new(name: impl Into<String>) -> PassThroughTrait {
        PassThroughTrait { name: name.into() }
    }
}

impl Handler for PassThroughTrait {
    fn type_name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> HandlerKind {
        HandlerKind::Trait
    }
}

/// The component types Kure's launcher knows.
pub(crate) const BUILTIN_COMPONENTS: &[&str] = &[
    "webservice",
    "worker",
    "cronjob",
    "daemonset",
    "statefulset",
    "postgresql",
    "helmchart",
    "passthrough",
    "crd",
    "manifests",
    "oci",
];

/// The trait types Kure's launcher knows.
pub(crate) const BUILTIN_TRAITS: &[&str] = &[
    "ingress",
    "httproute",
    "expose",
    "certificate",
    "scaler",
    "pvc",
    "external-secret",
    "configmap",
    "networkpolicy",
    "cilium-networkpolicy",
    "volsync",
    "rbac",
    "fluxcd-patches",
    "fluxcd-postbuild",
    "prune-protection",
    "security-context",
];

/// The rendering schema of a built-in trait, for the capability-aware ones,
/// and whether a binding is required.
fn builtin_rendering(name: &str) -> Option<(Box<dyn Rendering>, bool)> {
    let rendering: Box<dyn Rendering> = match name {
        "expose" => Box::new(Typed::<ExposeRendering>::new()),
        "certificate" => Box::new(Typed::<CertificateRendering>::new()),
        "external-secret" => Box::new(Typed::<ExternalSecretRendering>::new()),
        "pvc" => Box::new(Typed::<PvcRendering>::new()),
        "volsync" => Box::new(Typed::<VolsyncRendering>::new()),
        "configmap" | "networkpolicy" | "cilium-networkpolicy" => Box::new(Typed::<NoKeys>::new()),
        _ => return None,
    };
    // `expose` cannot produce anything without the platform's controller.
    Some((rendering, name == "expose"))
}

/// Why a handler was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    /// A capability-aware handler without a rendering schema.
    NoRenderingSchema(String),
    /// A second handler of one type.
    Duplicate(String),
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::NoRenderingSchema(name) => write!(
                f,
                "the handler `{name}` needs a capability binding but declares no rendering schema"
            ),
            RegistryError::Duplicate(name) => write!(f, "two handlers are registered for `{name}`"),
        }
    }
}

impl std::error::Error for RegistryError {}

/// Handlers by type.
#[derive(Clone)]
pub struct Registry {
    handlers: BTreeMap<String, Arc<dyn Handler>>,
}

static BUILTINS: LazyLock<Registry> = LazyLock::new(|| {
    let mut registry = Registry {
        handlers: BTreeMap::new(),
    };
    let kinds = BUILTIN_COMPONENTS
        .iter()
        .map(|name| (*name, HandlerKind::Component))
        .chain(
            BUILTIN_TRAITS
                .iter()
                .map(|name| (*name, HandlerKind::Trait)),
        );
    for (name, kind) in kinds {
        let (rendering, required) = builtin_rendering(name).unzip();
        let handler = Builtin {
            name,
            kind,
            rendering,
            required: required.unwrap_or(false),
        };
        registry.handlers.insert(name.to_owned(), Arc::new(handler));
    }
    registry
});

impl Registry {
    /// Kure's built-in handlers.
    #[must_use]
    pub fn builtin() -> Registry {
        BUILTINS.clone()
    }

    /// The registry with `handler` added, or why it cannot be.
    pub fn register(&mut self, handler: Arc<dyn Handler>) -> Result<(), RegistryError> {
        let name = handler.type_name().to_owned();
        if handler.capability_aware() && handler.rendering().is_none() {
            return Err(RegistryError::NoRenderingSchema(name));
        }
        if self.handlers.contains_key(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        self.handlers.insert(name, handler);
        Ok(())
    }

    /// The handler of `type_name`.
    #[must_use]
    pub fn get(&self, type_name: &str) -> Option<&dyn Handler> {
        self.handlers.get(type_name).map(AsRef::as_ref)
    }

    /// Whether `type_name` is one of Kure's built-ins.
    #[must_use]
    pub fn is_builtin(type_name: &str) -> bool {
        BUILTIN_COMPONENTS.contains(&type_name) || BUILTIN_TRAITS.contains(&type_name)
    }

    /// Every handler, by type.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Handler> {
        self.handlers.values().map(AsRef::as_ref)
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.handlers.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A handler that needs a binding but has no schema for it.
    struct Careless;

    impl Handler for Careless {
        fn type_name(&self) -> &'static str {
            "careless"
        }
        fn kind(&self) -> HandlerKind {
            HandlerKind::Trait
        }
        fn capability_required(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_capability_aware_handler_without_a_schema_is_refused() {
        let mut registry = Registry::builtin();
        assert_eq!(
            registry.register(Arc::new(Careless)),
            Err(RegistryError::NoRenderingSchema("careless".to_owned()))
        );
        assert!(registry.get("careless").is_none());
        assert_eq!(
            registry.register(Arc::new(PassThroughTrait::new("expose"))),
            Err(RegistryError::Duplicate("expose".to_owned()))
        );
        registry
            .register(Arc::new(PassThroughTrait::new("redis-sidecar")))
            .unwrap();
        assert!(!registry.get("redis-sidecar").unwrap().capability_aware());
    }

    #[test]
    fn every_builtin_is_registered_and_the_aware_ones_have_schemas() {
        let registry = Registry::builtin();
        assert_eq!(
            registry.iter().count(),
            BUILTIN_COMPONENTS.len() + BUILTIN_TRAITS.len()
        );
        let aware: Vec<&str> = registry
            .iter()
            .filter(|h| h.capability_aware())
            .map(Handler::type_name)
            .collect();
        assert_eq!(
            aware,
            [
                "certificate",
                "cilium-networkpolicy",
                "configmap",
                "expose",
                "external-secret",
                "networkpolicy",
                "pvc",
                "volsync"
            ]
        );
        for handler in registry.iter().filter(|h| h.capability_aware()) {
            assert!(handler.rendering().is_some(), "{}", handler.type_name());
        }
        let expose = registry.get("expose").unwrap();
        assert!(expose.capability_required());
        assert_eq!(expose.rendering().unwrap().keys()[0], "controllerType");
    }
}

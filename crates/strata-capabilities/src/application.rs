//! An Application dispatched against the handlers and an evaluated profile.
//!
//! - The document decodes strictly; component names are unique DNS-1123
//!   labels, policy names unique; the `scaler` trait goes only on
//!   `webservice` and `worker` components.
//! - Every component and trait type must have a registered handler of its
//!   kind (a did-you-mean otherwise), with or without a definition.
//! - A trait's binding is `<type>.<scope>` when its `properties.scope` is
//!   set, else `<type>`; a trait whose handler requires a binding and finds
//!   none is an error naming the trait, the component and the profile.
//! - Platform-reserved properties (on `expose`, `ingress`, `httproute`)
//!   only the profile may supply: an author who sets one gets an error.
//! - A custom capability the Application uses, bound by the profile, with
//!   no `CapabilityDefinition` passes through unvalidated: a warning, an
//!   error with `strict_capabilities`.
//! - The effective properties of typed built-in traits are checked against
//!   their property schema (`properties`).
//! - The effective properties of a trait are the binding's rendering merged
//!   shallowly under the authored properties (top-level keys; what the
//!   author wrote wins), as Kure's code merges them (its design note speaks
//!   of a deep merge; the code does not, and authors rely on the code).
//!   `scope` is not passed on.

use std::collections::HashMap;
use std::sync::LazyLock;

use strata_schema::{Decoder, rebase};
use strata_syntax::{Diagnostic, FieldPath, Mapping, Node, Outcome, Span, Value};

use crate::codes;
use crate::definitions::Definitions;
use crate::handlers::{HandlerKind, Registry};
use crate::model::Application;
use crate::names::{self, Grammar};
use crate::profile::EffectiveProfile;

static APPLICATION: LazyLock<Decoder<Application>> = LazyLock::new(Decoder::new);

/// The JSON Schema of an `Application`.
#[must_use]
pub(crate) fn application_schema() -> &'static serde_json::Value {
    APPLICATION.schema()
}

/// The properties only a cluster profile may supply, by trait type.
pub(crate) const PLATFORM_RESERVED: &[(&str, &[&str])] = &[
    (
        "expose",
        &[
            "controllerType",
            "certManagerClusterIssuer",
            "allowedHostnameWildcard",
            "gatewayName",
            "gatewayNamespace",
            "authURL",
            "authResponseHeaders",
            "networkPolicy",
        ],
    ),
    ("ingress", &["allowedHostnameWildcard", "networkPolicy"]),
    ("httproute", &["networkPolicy"]),
];

/// The component types a `scaler` trait may go on.
const SCALABLE: &[&str] = &["webservice", "worker"];

/// What dispatch needs besides the documents.
pub struct Dispatch<'a> {
    /// The handlers.
    pub registry: &'a Registry,
    /// The custom capabilities' definitions.
    pub definitions: &'a Definitions,
    /// The evaluated profile. Without one (an editor has none), nothing
    /// that depends on a binding is checked: whether a trait needs one,
    /// whether a bound custom capability has a definition, and a trait's
    /// properties (the binding's rendering completes what the author
    /// wrote, so the author's alone may lack what is required); the
    /// effective properties are then the authored ones.
    pub profile: Option<&'a EffectiveProfile>,
    /// Whether an unvalidated custom capability is an error.
    pub strict_capabilities: bool,
    /// Whether an unknown property of a typed built-in trait is an error.
    pub strict_properties: bool,
}

impl Dispatch<'_> {
    /// Checks the Application `tree` and gives it with every trait's
    /// effective properties; no value when any diagnostic is an error.
    pub fn application(&self, tree: &Node) -> Outcome<Node> {
        // Structure and semantics both: the rules below read the tree and
        // pass over what the schema already reported (a missing `type`).
        let mut problems = APPLICATION.validate(tree);
        let metadata = FieldPath::root().key("metadata");
        for (key, what, grammar) in [
            ("name", "the application name", Grammar::Subdomain),
            ("namespace", "the namespace", Grammar::Label),
        ] {
            if let Some(node) = tree.get("metadata").and_then(|m| m.get(key))
                && let Some(text) = node.as_str()
            {
                problems.extend(names::check(
                    what,
                    text,
                    grammar,
                    node.span,
                    metadata.clone().key(key),
                ));
            }
        }
        let mut effective = tree.clone();
        let components = FieldPath::root().key("spec").key("components");
        let written = tree
            .at(components.segments())
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for (index, component) in written.iter().enumerate() {
            let path = components.index(index);
            let name = component
                .get("name")
                .and_then(Node::as_str)
                .unwrap_or_default();
            if let Some(name_node) = component.get("name") {
                problems.extend(names::check(
                    "the component name",
                    name,
                    Grammar::Label,
                    name_node.span,
                    path.key("name"),
                ));
            }
            let component_type = self
                .handled(component, HandlerKind::Component, &path, &mut problems)
                .unwrap_or_default();
            let traits = component
                .get("traits")
                .and_then(Node::as_seq)
                .unwrap_or_default();
            for (position, written_trait) in traits.iter().enumerate() {
                let trait_path = path.key("traits").index(position);
                let Some(trait_type) = self.handled(
                    written_trait,
                    HandlerKind::Trait,
                    &trait_path,
                    &mut problems,
                ) else {
                    continue;
                };
                if trait_type == "scaler" && !SCALABLE.contains(&component_type) {
                    problems.push(
                        Diagnostic::error(
                            codes::TRAIT_NOT_ALLOWED,
                            format!("the `scaler` trait goes only on `webservice` and `worker` components, not on `{component_type}`"),
                            type_span(written_trait),
                        )
                        .with_path(trait_path.key("type")),
                    );
                }
                let properties =
                    self.properties(name, written_trait, trait_type, &trait_path, &mut problems);
                if let Some(target) = effective.at_mut(trait_path.segments()) {
                    target.insert("properties", properties);
                }
            }
        }
        problems.extend(unique_names(tree, "components"));
        problems.extend(unique_names(tree, "policies"));
        Outcome::new(Some(effective), problems).valid()
    }

    /// The type of `node` (a component or a trait) when a handler of `kind`
    /// is registered for it; an unknown type is reported (a missing one is
    /// the schema's to report). Without a profile (an editor), a
    /// downstream build's own trait handlers (`--custom-trait`) are not
    /// known: a trait the definitions define is taken as one, and any
    /// other unknown trait is only a warning.
    fn handled<'n>(
        &self,
        node: &'n Node,
        kind: HandlerKind,
        path: &FieldPath,
        problems: &mut Vec<Diagnostic>,
    ) -> Option<&'n str> {
        let type_name = node.get("type").and_then(Node::as_str)?;
        if self
            .registry
            .get(type_name)
            .is_some_and(|h| h.kind() == kind)
        {
            return Some(type_name);
        }
        let maybe_custom = self.profile.is_none() && kind == HandlerKind::Trait;
        if maybe_custom && self.definitions.get(type_name).is_some() {
            return Some(type_name);
        }
        let code = match kind {
            HandlerKind::Component => codes::UNKNOWN_COMPONENT,
            HandlerKind::Trait => codes::UNKNOWN_TRAIT,
        };
        let candidates: Vec<&str> = self
            .registry
            .iter()
            .filter(|h| h.kind() == kind)
            .map(crate::handlers::Handler::type_name)
            .collect();
        let message = format!("no {} handler is registered for `{type_name}`", kind.name());
        let diagnostic = if maybe_custom {
            Diagnostic::warning(code, message, type_span(node)).with_help(
                "checked without a cluster profile, only the built-in traits and those the package defines are known; a build's own is given with `--custom-trait`",
            )
        } else {
            Diagnostic::error(code, message, type_span(node))
        };
        problems.push(
            diagnostic
                .with_path(path.key("type"))
                .with_suggestion(type_name, candidates),
        );
        None
    }

    /// The effective properties of a trait of `component`.
    fn properties(
        &self,
        component: &str,
        written: &Node,
        trait_type: &str,
        path: &FieldPath,
        problems: &mut Vec<Diagnostic>,
    ) -> Node {
        let authored = written
            .get("properties")
            .cloned()
            .unwrap_or_else(|| Node::new(Value::Map(Mapping::default()), written.span));
        let reserved = PLATFORM_RESERVED
            .iter()
            .find(|(name, _)| *name == trait_type)
            .map_or(&[][..], |(_, keys)| *keys);
        if let Some(entries) = authored.as_map() {
            for key in reserved.iter().filter(|key| entries.contains_key(**key)) {
                problems.push(
                    Diagnostic::error(
                        codes::RESERVED_PROPERTY,
                        format!("`{key}` of `{trait_type}` is the platform's: only the cluster profile may set it"),
                        entries[*key].key_span,
                    )
                    .with_path(path.key("properties").key(key)),
                );
            }
        }
        let Some(profile) = self.profile else {
            return authored;
        };
        let scope = authored.get("scope").and_then(Node::as_str);
        let bindings = &profile.tree;
        let binding_of = |key: &str| {
            bindings.at(FieldPath::root()
                .key("spec")
                .key("capabilities")
                .key(key)
                .segments())
        };
        let binding = scope
            .and_then(|scope| binding_of(&format!("{trait_type}.{scope}")))
            .or_else(|| binding_of(trait_type));
        let handler = self.registry.get(trait_type);
        if binding.is_none() && handler.is_some_and(crate::handlers::Handler::capability_required) {
            let wanted = scope.map_or_else(
                || format!("`{trait_type}`"),
                |scope| format!("`{trait_type}.{scope}` or `{trait_type}`"),
            );
            problems.push(
                Diagnostic::error(
                    codes::MISSING_BINDING,
                    format!(
                        "the `{trait_type}` trait of component `{component}` needs a capability binding, and the profile `{}` has none ({wanted})",
                        profile.profile.metadata.name
                    ),
                    type_span(written),
                )
                .with_path(path.key("type")),
            );
        }
        if binding.is_some()
            && !Registry::is_builtin(trait_type)
            && self.definitions.get(trait_type).is_none()
        {
            let message = format!(
                "the custom capability `{trait_type}` has no CapabilityDefinition: its rendering passes through unvalidated"
            );
            let at = type_span(written);
            let diagnostic = if self.strict_capabilities {
                Diagnostic::error(codes::UNVALIDATED_CAPABILITY, message, at)
            } else {
                Diagnostic::warning(codes::UNVALIDATED_CAPABILITY, message, at)
            };
            problems.push(
                diagnostic
                    .with_path(path.key("type"))
                    .with_help("ship a CapabilityDefinition in `definitions/`, or give one with `--capability-def`"),
            );
        }
        // The binding's rendering under what the author wrote.
        let mut merged = binding
            .and_then(|b| b.get("rendering"))
            .and_then(Node::as_map)
            .cloned()
            .unwrap_or_default();
        if let Some(entries) = authored.as_map() {
            for (key, entry) in entries.iter().filter(|(key, _)| key.as_str() != "scope") {
                merged.insert(key.clone(), entry.clone());
            }
        }
        let effective = Node {
            value: Value::Map(merged),
            ..authored
        };
        let checked = handler.and_then(|h| h.check_properties(&effective, self.strict_properties));
        if let Some(mut found) = checked {
            rebase(&mut found, &path.key("properties"));
            problems.extend(found);
        }
        effective
    }
}

/// Where a component's or a trait's `type` is written.
fn type_span(node: &Node) -> Span {
    node.get("type").map_or(node.span, |n| n.span)
}

/// The names of `spec.<list>` (components, policies) are unique.
fn unique_names(tree: &Node, list: &str) -> Vec<Diagnostic> {
    let base = FieldPath::root().key("spec").key(list);
    let written = tree
        .at(base.segments())
        .and_then(Node::as_seq)
        .unwrap_or_default();
    let mut seen: HashMap<&str, Span> = HashMap::new();
    let mut problems = Vec::new();
    for (index, item) in written.iter().enumerate() {
        let Some(name) = item.get("name") else {
            continue;
        };
        let text = name.as_str().unwrap_or_default();
        if let Some(first) = seen.insert(text, name.span) {
            problems.push(
                Diagnostic::error(
                    codes::DUPLICATE_NAME,
                    format!("two {list} are named `{text}`"),
                    name.span,
                )
                .with_secondary(first, "the first one")
                .with_path(base.index(index).key("name")),
            );
        }
    }
    problems
}

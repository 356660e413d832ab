//! Evaluating a cluster profile: every binding validated and completed once,
//! before any Application is looked at.
//!
//! - The profile decodes strictly; `metadata.name` is a DNS-1123 subdomain;
//!   an absent or empty `gitopsEngine` is `fluxcd` in the effective profile.
//! - A binding key is `<traitType>` or `<traitType>.<scope>`.
//! - A binding of a built-in capability-aware trait is validated and
//!   defaulted by the trait's typed rendering schema; a binding of a custom
//!   capability with a `CapabilityDefinition`, by the definition. Any other
//!   binding passes through: whether an Application uses it decides
//!   whether that deserves a word.
//! - The completed rendering replaces the written one in the effective
//!   profile. Every problem carries the profile's file, line and the field
//!   path from the document's root.

use std::sync::LazyLock;

use strata_schema::{Decoder, rebase};
use strata_syntax::{Diagnostic, FieldPath, Mapping, Node, Outcome, Span, Value};

use crate::codes;
use crate::definitions::{self, Definitions};
use crate::handlers::Registry;
use crate::model::ClusterProfile;
use crate::names::{self, Grammar};

static PROFILE: LazyLock<Decoder<ClusterProfile>> = LazyLock::new(Decoder::new);

/// The JSON Schema of a `ClusterProfile`.
#[must_use]
pub(crate) fn profile_schema() -> &'static serde_json::Value {
    PROFILE.schema()
}

/// A profile with its defaults applied.
#[derive(Debug, Clone)]
pub struct EffectiveProfile {
    /// The profile, decoded.
    pub profile: ClusterProfile,
    /// The effective document: `gitopsEngine` set, every rendering
    /// completed; spans point into the written profile (defaults at the
    /// mapping that received them).
    pub tree: Node,
}

/// Evaluates the profile document `tree`: its effective form when no
/// diagnostic is an error, and every problem found.
pub fn evaluate(
    tree: &Node,
    registry: &Registry,
    definitions: &Definitions,
) -> Outcome<EffectiveProfile> {
    let mut problems = PROFILE.validate(tree);
    if let Some(name) = tree.get("metadata").and_then(|m| m.get("name"))
        && let Some(text) = name.as_str()
    {
        problems.extend(names::check(
            "the profile name",
            text,
            Grammar::Subdomain,
            name.span,
            FieldPath::root().key("metadata").key("name"),
        ));
    }
    let mut effective = tree.clone();
    let empty = Mapping::default();
    let bindings = tree
        .at(capabilities_path().segments())
        .and_then(Node::as_map)
        .unwrap_or(&empty);
    for (key, binding) in bindings {
        let base = capabilities_path().key(key);
        let Some(trait_type) = trait_type(key) else {
            problems.push(
                Diagnostic::error(
                    codes::INVALID_BINDING_KEY,
                    format!("`{key}` is not `<traitType>` or `<traitType>.<scope>`"),
                    binding.key_span,
                )
                .with_path(base)
                .with_help("the trait type and the scope are DNS-1123 labels: lowercase letters, digits and `-`"),
            );
            continue;
        };
        let absent = empty_mapping(binding.value.span);
        let rendering = binding.value.get("rendering").unwrap_or(&absent);
        if !matches!(rendering.value, Value::Map(_)) {
            // The schema reports a rendering that is not a mapping.
            continue;
        }
        let checked = match (
            registry.get(trait_type).and_then(|h| h.rendering()),
            definitions.get(trait_type),
        ) {
            (Some(schema), _) => schema.validate_and_default(rendering),
            (None, Some(defined)) => {
                definitions::validate(&defined.definition.spec.rendering, rendering)
            }
            (None, None) => continue,
        };
        let mut diagnostics = checked.diagnostics;
        rebase(&mut diagnostics, &base.clone().key("rendering"));
        problems.extend(diagnostics);
        if let Some(completed) = checked.value {
            set_rendering(&mut effective, key, completed);
        }
    }
    set_gitops_engine(&mut effective);
    if problems.iter().any(Diagnostic::is_error) {
        return Outcome::failed(problems);
    }
    // The written profile decoded and every rendering was validated: the
    // effective one decodes without a second schema pass.
    match strata_schema::from_node::<ClusterProfile>(&effective) {
        Ok(profile) => Outcome::new(
            Some(EffectiveProfile {
                profile,
                tree: effective,
            }),
            problems,
        ),
        Err(error) => {
            let message = strata_syntax::lowercase_first(&error.to_string());
            problems.push(Diagnostic::error(
                strata_schema::codes::DECODE,
                message,
                tree.span,
            ));
            Outcome::failed(problems)
        }
    }
}

/// `spec.capabilities`.
fn capabilities_path() -> FieldPath {
    FieldPath::root().key("spec").key("capabilities")
}

/// The trait type of a binding key: `<traitType>` or `<traitType>.<scope>`,
/// each part a DNS-1123 label.
fn trait_type(key: &str) -> Option<&str> {
    let (trait_type, scope) = match key.split_once('.') {
        Some((trait_type, scope)) => (trait_type, Some(scope)),
        None => (key, None),
    };
    let labels = Grammar::Label.accepts(trait_type)
        && scope.is_none_or(|scope| Grammar::Label.accepts(scope));
    labels.then_some(trait_type)
}

fn empty_mapping(span: Span) -> Node {
    Node::new(Value::Map(Mapping::default()), span)
}

/// Puts `rendering` in the binding `key` of the effective profile (a
/// binding written `null` becomes a mapping).
fn set_rendering(effective: &mut Node, key: &str, rendering: Node) {
    let path = capabilities_path().key(key);
    if let Some(binding) = effective.at_mut(path.segments()) {
        if matches!(binding.value, Value::Null) {
            binding.value = Value::Map(Mapping::default());
        }
        binding.insert("rendering", rendering);
    }
}

/// `spec.gitopsEngine: fluxcd` when it is absent or empty.
fn set_gitops_engine(effective: &mut Node) {
    let Some(spec) = effective.at_mut(FieldPath::root().key("spec").segments()) else {
        return;
    };
    let written = spec.get("gitopsEngine");
    if written.is_some_and(|engine| !engine.as_str().is_some_and(str::is_empty)) {
        return;
    }
    let span = written.map_or(spec.span, |engine| engine.span);
    spec.insert(
        "gitopsEngine",
        Node::new(Value::String("fluxcd".to_owned()), span),
    );
}

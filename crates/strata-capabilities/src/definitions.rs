//! `CapabilityDefinition` documents: the rendering schemas of custom
//! capabilities, and the validation of a binding against one.
//!
//! Every document of every file is read (Kure reads only a file's first);
//! documents of another kind are skipped. Two definitions of one trait type
//! that say the same (properties, types, required flags, defaults) are one;
//! two that differ are an error naming both places. A definition for a
//! built-in handler's type is an error: Kure silently ignores it, so its
//! author would believe it validates something. A default must have its
//! property's type.
//!
//! A binding validated against a definition: unknown keys (with a
//! did-you-mean), missing required keys (checked before defaults), values
//! of the wrong type (an integer-valued float counts as an integer); then
//! the defaults of the keys left out.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use strata_schema::Decoder;
use strata_syntax::{Diagnostic, FieldPath, Node, Outcome, Span};

use crate::codes;
use crate::handlers::Registry;
use crate::model::{CapabilityDefinition, RenderingSpec};
use crate::names::{self, Grammar};
use crate::rendering::set_default;

static DEFINITION: LazyLock<Decoder<CapabilityDefinition>> = LazyLock::new(Decoder::new);

/// The JSON Schema of a `CapabilityDefinition`.
#[must_use]
pub(crate) fn definition_schema() -> &'static serde_json::Value {
    DEFINITION.schema()
}

/// One definition, and where its name is written.
#[derive(Debug, Clone)]
pub struct Defined {
    /// The definition.
    pub definition: CapabilityDefinition,
    /// Where `metadata.name` is written.
    pub at: Span,
}

/// The custom capabilities' definitions, by trait type.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    by_type: BTreeMap<String, Defined>,
}

impl Definitions {
    /// No definition.
    #[must_use]
    pub fn new() -> Definitions {
        Definitions::default()
    }

    /// Adds the definitions among `documents` (others are skipped),
    /// reporting what is wrong with each.
    pub fn add_documents(&mut self, documents: &[Node]) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        for document in documents.iter().filter(|d| is_definition(d)) {
            match DEFINITION.decode(document) {
                Ok(definition) => problems.extend(self.add(definition, document)),
                Err(invalid) => problems.extend(invalid),
            }
        }
        problems
    }

    fn add(&mut self, definition: CapabilityDefinition, document: &Node) -> Vec<Diagnostic> {
        let name = definition.metadata.name.clone();
        let at = document
            .get("metadata")
            .and_then(|m| m.get("name"))
            .map_or(document.span, |n| n.span);
        let mut problems = defaults_have_their_types(&definition, document);
        if let Some(invalid) = names::check(
            "the capability name",
            &name,
            Grammar::Label,
            at,
            FieldPath::root().key("metadata").key("name"),
        ) {
            problems.push(invalid);
            return problems;
        }
        if Registry::is_builtin(&name) {
            problems.push(
                Diagnostic::error(
                    codes::BUILTIN_DEFINITION,
                    format!("`{name}` is a built-in handler: its rendering schema is built in"),
                    at,
                )
                .with_help("a CapabilityDefinition describes a custom capability; remove this one"),
            );
            return problems;
        }
        match self.by_type.get(&name) {
            Some(first) if first.definition.spec.rendering == definition.spec.rendering => {}
            Some(first) => problems.push(
                Diagnostic::error(
                    codes::CONFLICTING_DEFINITION,
                    format!("`{name}` is defined twice with different rendering schemas"),
                    at,
                )
                .with_secondary(first.at, "the other definition"),
            ),
            None => {
                self.by_type.insert(name, Defined { definition, at });
            }
        }
        problems
    }

    /// The definition of `type_name`.
    #[must_use]
    pub fn get(&self, type_name: &str) -> Option<&Defined> {
        self.by_type.get(type_name)
    }

    /// Every definition, by trait type.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Defined)> {
        self.by_type
            .iter()
            .map(|(name, defined)| (name.as_str(), defined))
    }
}

/// Whether `document` says it is a `CapabilityDefinition`.
fn is_definition(document: &Node) -> bool {
    document.get("kind").and_then(Node::as_str) == Some("CapabilityDefinition")
}

/// Each default has its property's type.
fn defaults_have_their_types(
    definition: &CapabilityDefinition,
    document: &Node,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for (key, property) in &definition.spec.rendering.properties {
        let (Some(kind), Some(default)) = (property.kind, &property.default) else {
            continue;
        };
        if !kind.admits(default) {
            let path = FieldPath::root()
                .key("spec")
                .key("rendering")
                .key("properties")
                .key(key)
                .key("default");
            let span = document
                .at(path.segments())
                .map_or(document.span, |n| n.span);
            problems.push(
                Diagnostic::error(
                    codes::INVALID_DEFINITION,
                    format!("the default of `{key}` is not of type `{}`", kind.name()),
                    span,
                )
                .with_path(path),
            );
        }
    }
    problems
}

/// Checks `rendering` against `spec` and gives it with the defaults of the
/// keys it leaves out. Paths are relative to `rendering`.
pub(crate) fn validate(spec: &RenderingSpec, rendering: &Node) -> Outcome<Node> {
    let mut problems = Vec::new();
    let known: Vec<&str> = spec.properties.keys().map(String::as_str).collect();
    let empty = strata_syntax::Mapping::default();
    let entries = rendering.as_map().unwrap_or(&empty);
    for (key, entry) in entries {
        let path = FieldPath::root().key(key);
        let Some(property) = spec.properties.get(key) else {
            problems.push(
                Diagnostic::error(
                    strata_schema::codes::UNKNOWN_KEY,
                    format!("unknown key `{key}`"),
                    entry.key_span,
                )
                .with_path(path)
                .with_suggestion(key, known.iter().copied()),
            );
            continue;
        };
        if let Some(kind) = property.kind
            && !kind.admits(&entry.value.to_json_value())
        {
            problems.push(
                Diagnostic::error(
                    strata_schema::codes::TYPE,
                    format!(
                        "expected {}, found {}",
                        kind.name(),
                        entry.value.value.kind_name()
                    ),
                    entry.value.span,
                )
                .with_path(path),
            );
        }
    }
    for (key, property) in &spec.properties {
        if property.required && !entries.contains_key(key) {
            problems.push(
                Diagnostic::error(
                    strata_schema::codes::REQUIRED,
                    format!("missing required key `{key}`"),
                    rendering.span,
                )
                .with_path(FieldPath::root()),
            );
        }
    }
    if !problems.is_empty() {
        return Outcome::failed(problems);
    }
    let mut completed = rendering.clone();
    for (key, property) in &spec.properties {
        if let Some(default) = &property.default {
            set_default(&mut completed, &[key.as_str()], default);
        }
    }
    Outcome::ok(completed)
}

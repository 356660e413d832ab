//! What an editor shows of a package ([`strata_dialect::navigate`]).
//!
//! - **Symbols**: each component of the Application (at its `name`) and
//!   each capability definition of `definitions/` (at `metadata.name`).
//! - **References**: a component's, trait's or policy's `type` that names
//!   one of the package's definitions, to the definition.
//! - **Schemas**: `app.yaml` and the files of `definitions/`.
//! - **Hover** on a component's or a trait's `type`: the objects it
//!   builds (kind and name), as `capabilities build` builds them without a
//!   profile's bindings; for `expose`, what each controller type gives.

use std::path::Path;

use std::fmt::Write as _;

use strata_dialect::{Category, Outline, Reference, Symbol, SymbolKind};
use strata_syntax::{FieldPath, Node, Segment, Span, Value};

use crate::application::application_schema;
use crate::build::{BuildOptions, build_application};
use crate::definitions::definition_schema;
use crate::{APP_FILE, DEFINITIONS_DIR, Package};

/// A capability.
pub(crate) const CAPABILITY_KIND: SymbolKind = SymbolKind::new("capability", Category::Interface);
/// A component.
pub(crate) const COMPONENT_KIND: SymbolKind = SymbolKind::new("component", Category::File);

/// Every kind of symbol the dialect defines.
pub(crate) const SYMBOL_KINDS: &[SymbolKind] = &[CAPABILITY_KIND, COMPONENT_KIND];

/// The kinds a `type` may name in a package.
const CAPABILITIES: &[SymbolKind] = &[CAPABILITY_KIND];

/// The schema of the package file at `path`.
pub(crate) fn schema_of(path: &Path) -> Option<&'static serde_json::Value> {
    if path == Path::new(APP_FILE) {
        Some(application_schema())
    } else if path.parent() == Some(Path::new(DEFINITIONS_DIR)) {
        Some(definition_schema())
    } else {
        None
    }
}

impl Package {
    /// [`strata_dialect::Dialect::outline`].
    pub(crate) fn outline(&self) -> Outline {
        let mut outline = Outline {
            naming_keys: vec![("type", CAPABILITIES)],
            ..Outline::default()
        };
        for definition in self.definitions.iter().flatten() {
            let name = definition
                .get("metadata")
                .and_then(|metadata| metadata.get("name"));
            if let Some((name, text)) = name.and_then(|name| Some((name, name.as_str()?))) {
                outline.symbols.push(Symbol {
                    name: text.to_owned(),
                    kind: CAPABILITY_KIND,
                    span: definition.span,
                    name_span: name.span,
                    detail: definition
                        .get("spec")
                        .and_then(|spec| spec.get("description"))
                        .and_then(Node::as_str)
                        .map(str::to_owned),
                });
            }
        }
        let spec = self
            .application
            .as_ref()
            .and_then(|application| application.get("spec"));
        let components = spec.map_or(&[][..], |spec| spec.items("components"));
        for component in components {
            if let Some(name) = component.get("name")
                && let Some(text) = name.as_str()
            {
                outline.symbols.push(Symbol {
                    name: text.to_owned(),
                    kind: COMPONENT_KIND,
                    span: component.span,
                    name_span: name.span,
                    detail: component
                        .get("type")
                        .and_then(Node::as_str)
                        .map(|kind| format!("of type `{kind}`")),
                });
            }
        }
        let typed = components
            .iter()
            .chain(
                components
                    .iter()
                    .flat_map(|component| component.items("traits")),
            )
            .chain(spec.map_or(&[][..], |spec| spec.items("policies")));
        for node in typed.filter_map(|entry| entry.get("type")) {
            if let Some(target) = node
                .as_str()
                .and_then(|name| outline.target_of(name, CAPABILITIES))
            {
                outline.references.push(Reference {
                    span: node.span,
                    target,
                });
            }
        }
        outline
    }
}

impl Package {
    /// [`strata_dialect::Dialect::explain`]: on the `type` of a component
    /// or a trait, the objects it builds.
    pub(crate) fn explain(&self, at: Span) -> Option<String> {
        let application = self.application.as_ref()?;
        let path = application.path_to(at)?;
        let origin = match path.segments() {
            [
                Segment::Key(spec),
                Segment::Key(components),
                Segment::Index(_),
                rest @ ..,
            ] if spec == "spec" && components == "components" => match rest {
                [Segment::Key(key)] if key == "type" => {
                    FieldPath::from(path.segments()[..3].to_vec())
                }
                [Segment::Key(traits), Segment::Index(_), Segment::Key(key)]
                    if traits == "traits" && key == "type" =>
                {
                    FieldPath::from(path.segments()[..5].to_vec())
                }
                _ => return None,
            },
            _ => return None,
        };
        let kind = application
            .at(origin.segments())
            .and_then(|node| node.get("type"))
            .and_then(Node::as_str)?;
        if kind != "expose" {
            let objects = produced(application, &origin);
            return Some(format!("`{kind}` builds:\n{}", listed(&objects)));
        }
        let mut text = String::from("`expose` builds, by the profile's `controllerType`:");
        for controller in ["ingress", "gateway"] {
            let mut variant = application.clone();
            let properties = origin.clone().key("properties");
            if variant.at(properties.segments()).is_none()
                && let Some(node) = variant.at_mut(origin.segments())
            {
                node.insert("properties", Node::mapping(Vec::<(&str, Node)>::new()));
            }
            if let Some(node) = variant.at_mut(properties.segments()) {
                node.insert(
                    "controllerType",
                    Node::new(Value::String(controller.to_owned()), node.span),
                );
            }
            let objects = produced(&variant, &origin);
            let _ = write!(text, "\n\n`{controller}`:\n{}", listed(&objects));
        }
        Some(text)
    }
}

/// The kind and name of each object the component or trait at `origin`
/// builds.
fn produced(application: &Node, origin: &FieldPath) -> Vec<(String, String)> {
    let Some(manifests) = build_application(application, &BuildOptions::default()).value else {
        return Vec::new();
    };
    manifests
        .objects
        .iter()
        .zip(&manifests.origins)
        .filter(|(_, from)| *from == origin)
        .map(|(object, _)| {
            let text = |value: &serde_json::Value| value.as_str().unwrap_or_default().to_owned();
            (text(&object["kind"]), text(&object["metadata"]["name"]))
        })
        .collect()
}

/// A Markdown list of objects, or a line saying there are none of its own.
fn listed(objects: &[(String, String)]) -> String {
    if objects.is_empty() {
        return "- no objects of its own (it changes the component's, or its properties are incomplete)".to_owned();
    }
    objects
        .iter()
        .map(|(kind, name)| format!("- {kind} `{name}`"))
        .collect::<Vec<_>>()
        .join("\n")
}

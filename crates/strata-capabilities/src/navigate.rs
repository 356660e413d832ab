//! What an editor shows of a package ([`strata_dialect::navigate`]).
//!
//! - **Symbols**: each component of the Application (at its `name`) and
//!   each capability definition of `definitions/` (at `metadata.name`).
//! - **References**: a component's, trait's or policy's `type` that names
//!   one of the package's definitions, to the definition.
//! - **Schemas**: `app.yaml` and the files of `definitions/`.

use std::path::Path;

use strata_dialect::{Category, Outline, Reference, Symbol, SymbolKind};
use strata_syntax::Node;

use crate::application::application_schema;
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

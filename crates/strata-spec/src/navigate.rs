//! What an editor shows of a spec blueprint ([`strata_dialect::navigate`]).
//!
//! - **Symbols**: every variable, value, child (`include`), resource, data
//!   source and export, at its name, with its type.
//! - **References**: each `${variables.x}`, `${values.x}`,
//!   `${resources.x…}`, `${datasources.x…}`, `${children.x…}` (and the
//!   element a `link(..)` names) to the definition; the references are the
//!   ones the checks found, so a hover or a jump follows what ordering and
//!   the cycle check follow.
//! - **Explain**: a field text with `${..}`, its static type (checked as
//!   the checks check it, against the blueprint's definitions).
//! - **Functions**: the 50 core functions with their signatures.
//! - **Schema**: the blueprint file, by the same rules opening checks.

use strata_dialect::{Category, FunctionDoc, Outline, Reference, Symbol, SymbolKind};
use strata_syntax::{Node, Span};

use crate::load::Loaded;
use crate::validate::Element;

/// A resource.
pub(crate) const RESOURCE_KIND: SymbolKind = SymbolKind::new("resource", Category::Object);
/// A variable.
pub(crate) const VARIABLE_KIND: SymbolKind = SymbolKind::new("variable", Category::Variable);
/// A value.
pub(crate) const VALUE_KIND: SymbolKind = SymbolKind::new("value", Category::Constant);
/// A data source.
pub(crate) const DATA_SOURCE_KIND: SymbolKind = SymbolKind::new("data source", Category::Struct);
/// A child blueprint.
pub(crate) const CHILD_KIND: SymbolKind = SymbolKind::new("child blueprint", Category::Module);
/// A export.
pub(crate) const EXPORT_KIND: SymbolKind = SymbolKind::new("export", Category::Property);

/// Every kind of symbol the dialect defines.
pub(crate) const SYMBOL_KINDS: &[SymbolKind] = &[
    RESOURCE_KIND,
    VARIABLE_KIND,
    VALUE_KIND,
    DATA_SOURCE_KIND,
    CHILD_KIND,
    EXPORT_KIND,
];

/// Every symbol of `loaded`'s blueprint and every reference to one.
pub(crate) fn outline(loaded: &Loaded) -> Outline {
    let blueprint = &loaded.blueprint;
    let mut symbols = Vec::new();
    let mut add = |section: &str, kind: SymbolKind, name: &str, name_span: Span, detail: String| {
        let span = loaded
            .tree
            .get(section)
            .and_then(|definitions| definitions.get(name))
            .map_or(name_span, |definition| definition.span);
        symbols.push(Symbol {
            name: name.to_owned(),
            kind,
            span,
            name_span,
            detail: Some(detail),
        });
    };
    for (name, variable) in &blueprint.variables {
        let mut detail = format!("variable of type {}", variable.variable_type.value.name());
        if let Some(description) = &variable.description {
            detail = format!("{detail}: {}", description.value);
        }
        add("variables", VARIABLE_KIND, name, variable.name_span, detail);
    }
    for (name, value) in &blueprint.values {
        let detail = format!("value of type {}", value.value_type.value);
        add("values", VALUE_KIND, name, value.name_span, detail);
    }
    for (name, include) in &blueprint.include {
        let detail = format!("child blueprint at `{}`", include_path(&loaded.tree, name));
        add("include", CHILD_KIND, name, include.name_span, detail);
    }
    for (name, resource) in &blueprint.resources {
        let detail = format!("resource of type `{}`", resource.resource_type.value);
        add("resources", RESOURCE_KIND, name, resource.name_span, detail);
    }
    for (name, datasource) in &blueprint.datasources {
        let detail = format!("data source of type `{}`", datasource.datasource_type.value);
        add(
            "datasources",
            DATA_SOURCE_KIND,
            name,
            datasource.name_span,
            detail,
        );
    }
    for (name, export) in &blueprint.exports {
        let detail = format!(
            "export of type {}: `{}`",
            export.export_type.value, export.field.value
        );
        add("exports", EXPORT_KIND, name, export.name_span, detail);
    }
    let references = references(loaded);
    Outline {
        symbols,
        references,
        naming_keys: Vec::new(),
    }
}

/// Every reference the checks found, to the name of its definition.
fn references(loaded: &Loaded) -> Vec<Reference> {
    let blueprint = &loaded.blueprint;
    let name_span = |element: &Element| -> Option<Span> {
        match element {
            Element::Variable(name) => blueprint.variables.get(name).map(|v| v.name_span),
            Element::Value(name) => blueprint.values.get(name).map(|v| v.name_span),
            Element::Datasource(name) => blueprint.datasources.get(name).map(|d| d.name_span),
            Element::Child(name) => blueprint.include.get(name).map(|i| i.name_span),
            Element::Resource(name) => blueprint.resources.get(name).map(|r| r.name_span),
            Element::Export(name) => blueprint.exports.get(name).map(|e| e.name_span),
            Element::Metadata => None,
        }
    };
    loaded
        .references
        .edges
        .iter()
        .filter_map(|edge| {
            Some(Reference {
                span: edge.span,
                target: name_span(&edge.to)?,
            })
        })
        .collect()
}

/// The `path` of `include.<name>`, as written.
fn include_path<'a>(tree: &'a Node, name: &str) -> &'a str {
    tree.get("include")
        .and_then(|include| include.get(name))
        .and_then(|child| child.get("path"))
        .and_then(Node::as_str)
        .unwrap_or_default()
}

/// The static type of the field text with `${..}` written at `at`.
pub(crate) fn explain(loaded: &Loaded, at: Span) -> Option<String> {
    let path = loaded.tree.path_to(at)?;
    let text = loaded.tree.at(path.segments())?.as_str()?;
    if !strata_syntax::substitution::has_opening(text) {
        return None;
    }
    let template = strata_subst::parse_template(text).ok()?;
    let (types, errors) = crate::validate::check_text(&loaded.blueprint, &template);
    // A text that reads `elem` or `i` is typed only inside its resource.
    (errors.is_empty()).then(|| format!("**`{path}`**: of type {types}"))
}

/// The core functions, for hovers and completion.
pub(crate) fn functions() -> Vec<FunctionDoc> {
    strata_subst::functions::all()
        .iter()
        .map(|def| FunctionDoc::new(def.name, def.signature(), def.summary))
        .collect()
}

//! What an editor shows of a catalogue ([`strata_dialect::navigate`]).
//!
//! - **Symbols**: every blueprint, a template as such, at its `name`.
//! - **References**: each `template:` to the blueprint it names, each
//!   `!include` to its file.
//! - **Explain**: for a value written in a blueprint, what the blueprint
//!   composes there (the winning value, its blueprint, file and line),
//!   what it overrides up the template chain, and which blueprints that
//!   inherit it override it in turn; for a `!cel` expression, its value
//!   against the test scope (the user, repository and workspace every
//!   blueprint is checked with on loading), or why it has none.
//! - **Functions**: the CEL functions a `!cel` expression calls most.
//! - **Schemas**: a blueprint file as its author writes it (inheriting, so
//!   only `name` is required; `!cel`/`!include` strings anywhere; the
//!   `blueprint:`/`blueprints:` wrappers and lists), and `.strata.yaml`.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::LazyLock;

use strata_dialect::{
    Category, FunctionDoc, Outline, Reference, Symbol, SymbolKind, describe_value, place,
};
use strata_schema::{Authored, file_shapes};
use strata_syntax::{Node, SourceDb, Span};

use crate::{BLUEPRINT, Catalogue, SETTINGS, SETTINGS_FILE, Scope};

/// A blueprint.
pub(crate) const BLUEPRINT_KIND: SymbolKind = SymbolKind::new("blueprint", Category::Class);
/// A template.
pub(crate) const TEMPLATE_KIND: SymbolKind = SymbolKind::new("template", Category::Interface);

/// Every kind of symbol the dialect defines.
pub(crate) const SYMBOL_KINDS: &[SymbolKind] = &[BLUEPRINT_KIND, TEMPLATE_KIND];

/// How many inheriting blueprints a hover lists before it says how many more.
const MAX_LISTED: usize = 10;

/// The kinds `template:` may name.
const PARENTS: &[SymbolKind] = &[TEMPLATE_KIND, BLUEPRINT_KIND];

/// The functions a `!cel` expression calls most, with what Strata adds
/// (`max`, `min`, `env`): name, signature, summary. The rest of CEL's
/// standard library and extensions work too (`strata_cel`'s docs).
const CEL_FUNCTIONS: &[(&str, &str, &str)] = &[
    (
        "size",
        "size(string | list | map) -> int",
        "the length in characters, items or keys",
    ),
    (
        "contains",
        "string.contains(string) -> bool",
        "whether the text holds the other",
    ),
    (
        "startsWith",
        "string.startsWith(string) -> bool",
        "whether the text starts with the other",
    ),
    (
        "endsWith",
        "string.endsWith(string) -> bool",
        "whether the text ends with the other",
    ),
    (
        "matches",
        "string.matches(regex) -> bool",
        "whether the text matches the RE2 expression",
    ),
    (
        "lowerAscii",
        "string.lowerAscii() -> string",
        "the text with ASCII letters in lower case",
    ),
    (
        "upperAscii",
        "string.upperAscii() -> string",
        "the text with ASCII letters in upper case",
    ),
    (
        "replace",
        "string.replace(old, new) -> string",
        "the text with every `old` replaced",
    ),
    (
        "split",
        "string.split(separator) -> list",
        "the parts between separators",
    ),
    (
        "join",
        "list.join(separator?) -> string",
        "the texts of a list joined",
    ),
    (
        "trim",
        "string.trim() -> string",
        "the text without surrounding white space",
    ),
    (
        "substring",
        "string.substring(start, end?) -> string",
        "the characters from `start` to `end`",
    ),
    (
        "format",
        "string.format(list) -> string",
        "the text with `%s`, `%d`, ... filled from the list",
    ),
    ("int", "int(value) -> int", "the value as an integer"),
    ("string", "string(value) -> string", "the value as text"),
    ("has", "has(map.field) -> bool", "whether the field is set"),
    (
        "all",
        "list.all(x, predicate) -> bool",
        "whether every item satisfies the predicate",
    ),
    (
        "exists",
        "list.exists(x, predicate) -> bool",
        "whether some item satisfies the predicate",
    ),
    (
        "map",
        "list.map(x, expression) -> list",
        "each item transformed",
    ),
    (
        "filter",
        "list.filter(x, predicate) -> list",
        "the items that satisfy the predicate",
    ),
    (
        "max",
        "max(values... | list) -> value",
        "the greatest argument, or item of one list; null for none (Strata)",
    ),
    (
        "min",
        "min(values... | list) -> value",
        "the least argument, or item of one list; null for none (Strata)",
    ),
    (
        "env",
        "env(name) -> string | null",
        "the process environment variable, null when unset; only with `cel.allowEnv` (Strata)",
    ),
];

/// The functions a `!cel` expression may call; see [`CEL_FUNCTIONS`].
pub(crate) fn functions() -> Vec<FunctionDoc> {
    CEL_FUNCTIONS
        .iter()
        .map(|(name, signature, summary)| FunctionDoc::new(name, *signature, summary))
        .collect()
}

/// A catalogue file as its author writes it; see the module docs.
static BLUEPRINT_FILE: LazyLock<serde_json::Value> = LazyLock::new(|| {
    let authored = Authored {
        layered: true,
        keep_required: &["name"],
        tagged: true,
    }
    .apply(BLUEPRINT.schema());
    file_shapes(&authored, "blueprint", "blueprints")
});

/// The JSON Schema of a catalogue file as its author writes it.
#[must_use]
pub fn blueprint_file_schema() -> &'static serde_json::Value {
    &BLUEPRINT_FILE
}

/// The schema of the catalogue file at `path`.
pub(crate) fn schema_of(path: &Path) -> Option<&'static serde_json::Value> {
    if path == Path::new(SETTINGS_FILE) {
        return Some(SETTINGS.schema());
    }
    let yaml = path
        .extension()
        .is_some_and(|extension| extension == "yaml" || extension == "yml");
    yaml.then(blueprint_file_schema)
}

impl Catalogue {
    /// [`strata_dialect::Dialect::outline`].
    pub(crate) fn outline(&self) -> Outline {
        let mut outline = Outline {
            naming_keys: vec![("template", PARENTS)],
            ..Outline::default()
        };
        for (name, definition) in &self.definitions {
            let template = self
                .resolved
                .get(name)
                .is_some_and(crate::Resolved::is_template);
            let name_span = definition
                .node
                .get("name")
                .map_or(definition.node.span, |node| node.span);
            outline.symbols.push(Symbol {
                name: name.clone(),
                kind: if template {
                    TEMPLATE_KIND
                } else {
                    BLUEPRINT_KIND
                },
                span: definition.node.span,
                name_span,
                detail: definition
                    .node
                    .get("description")
                    .and_then(Node::as_str)
                    .map(str::to_owned),
            });
        }
        for definition in self.definitions.values() {
            if let Some(parent) = definition.node.get("template")
                && let Some(target) = parent
                    .as_str()
                    .and_then(|name| outline.target_of(name, PARENTS))
            {
                outline.references.push(Reference {
                    span: parent.span,
                    target,
                });
            }
        }
        outline.references.extend(self.includes.iter().copied());
        outline
    }

    /// [`strata_dialect::Dialect::explain`].
    pub(crate) fn explain(&self, db: &SourceDb, at: Span) -> Option<String> {
        let (definition, path) = self
            .definitions
            .values()
            .find_map(|definition| Some((definition, definition.node.path_to(at)?)))?;
        if path.segments().is_empty() {
            return None;
        }
        let name = &definition.name;
        let resolved = self.resolved.get(name)?;
        let layers = resolved.chain.names();
        let mut text = format!("**`{path}`** in blueprint `{name}`\n\n");
        if let Some(written) = definition.node.at(path.segments())
            && written
                .tag
                .as_ref()
                .is_some_and(|tag| tag.as_str() == "!cel")
        {
            let _ = writeln!(text, "- {}", self.test_value(written, name));
        }
        if let Some(composed) = resolved.node.at(path.segments()) {
            let from = composed
                .layer
                .and_then(|layer| layers.get(layer.0 as usize))
                .unwrap_or(name);
            let _ = writeln!(
                text,
                "- composed: {} from `{from}` ({})",
                describe_value(composed),
                place(db, composed.span)
            );
        }
        // Up the chain: what this blueprint's value overrides.
        for parent in resolved.chain.upwards().skip(1) {
            if let Some(node) = self
                .definitions
                .get(parent)
                .and_then(|parent| parent.node.at(path.segments()))
            {
                let _ = writeln!(
                    text,
                    "- overrides: {} from `{parent}` ({})",
                    describe_value(node),
                    place(db, node.span)
                );
            }
        }
        // Down: the blueprints that inherit this one and set the value again.
        let overriding: Vec<(&str, &Node)> = self
            .resolved
            .iter()
            .filter(|(child, chain)| {
                *child != name && chain.chain.upwards().any(|link| link == name)
            })
            .filter_map(|(child, _)| {
                let node = self.definitions.get(child)?.node.at(path.segments())?;
                Some((child.as_str(), node))
            })
            .collect();
        for (child, node) in overriding.iter().take(MAX_LISTED) {
            let _ = writeln!(
                text,
                "- overridden in `{child}`: {} ({})",
                describe_value(node),
                place(db, node.span)
            );
        }
        if overriding.len() > MAX_LISTED {
            let _ = writeln!(
                text,
                "- and in {} more blueprints",
                overriding.len() - MAX_LISTED
            );
        }
        Some(text)
    }

    /// What the `!cel` scalar `written` gives in blueprint `name` against
    /// the test scope.
    fn test_value(&self, written: &Node, name: &str) -> String {
        let scope = Scope::test().cel_scope(name);
        let (value, problems) = self.programs.evaluate_tree(written.clone(), &scope);
        match problems.first() {
            Some(problem) => format!("against the test scope: fails, {}", problem.message),
            None => format!("against the test scope: {}", describe_value(&value)),
        }
    }
}

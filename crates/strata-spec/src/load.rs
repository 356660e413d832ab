//! Loading a blueprint file: parse (YAML, or JSON by extension), refuse
//! YAML anchors, aliases and tags, check where substitutions stand, check
//! the structure against the schema, build the typed model and check its
//! rules. Every phase runs on what the earlier ones could read, and every
//! problem is reported.

use std::path::Path;
use std::sync::LazyLock;

use strata_dialect::Reader;
use strata_schema::Decoder;
use strata_syntax::{Diagnostic, FieldPath, Format, Node, NodeProperty, Outcome, SourceDb, Span};

use crate::codes;
use crate::model::{Blueprint, Builder};
use crate::placement;
use crate::schema::BlueprintSchema;
use crate::validate::{References, validate};

/// The decoder of the blueprint schema, built once.
pub(crate) static DECODER: LazyLock<Decoder<BlueprintSchema>> = LazyLock::new(Decoder::new);

/// A blueprint read and checked: the model, its references, and the tree
/// it was built from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The typed model.
    pub blueprint: Blueprint,
    /// Every reference, for ordering and cycle checks.
    pub references: References,
    /// The document as parsed.
    pub tree: Node,
}

/// Reads and checks the blueprint at `path`.
pub(crate) fn read(reader: &mut Reader<'_>, path: &Path) -> Outcome<Loaded> {
    let name = path.to_string_lossy();
    let format = if name == "-" {
        Format::Yaml
    } else {
        Format::from_name(&name)
    };
    let mut problems = Vec::new();
    let Some(source) = reader.text(path).report(&mut problems) else {
        return Outcome::failed(problems);
    };
    let parsed = strata_syntax::parse(reader.db(), source, format, &reader.limits());
    problems.extend(parsed.diagnostics);
    problems.extend(parsed.properties.iter().map(|property| match property {
        NodeProperty::Anchor(span) | NodeProperty::Alias(span) => Diagnostic::error(
            codes::YAML_ALIAS,
            "YAML anchors and aliases are not part of blueprints (v2023-04-20)",
            *span,
        )
        .with_help("write the value out, or compute it once in `values` and reference it with `${values.NAME}`"),
        NodeProperty::Tag(tag, span) => Diagnostic::error(
            codes::YAML_TAG,
            format!("YAML tags are not part of blueprints (v2023-04-20): `{tag}`"),
            *span,
        )
        .with_help("remove the tag; `${..}` substitutions and functions compute values"),
    }));
    let mut documents = parsed.documents;
    let root = match documents.len() {
        1 => documents.remove(0),
        _ => {
            let at = documents
                .get(1)
                .map_or(Span::file_start(source), |second| second.span);
            let one = reader.expect_one(path, documents, at).report(&mut problems);
            let Some(root) = one else {
                return Outcome::failed(problems);
            };
            root
        }
    };
    let checked = check(&root, reader.db());
    problems.extend(checked.diagnostics);
    match checked.value {
        Some((blueprint, references)) => Outcome::new(
            Some(Loaded {
                blueprint,
                references,
                tree: root,
            }),
            problems,
        ),
        None => Outcome::failed(problems),
    }
}

/// Checks a parsed blueprint document.
pub fn check(root: &Node, db: &SourceDb) -> Outcome<(Blueprint, References)> {
    let mut problems = placement::check(root);
    // A forbidden `${..}` in a field the schema also constrains (an enum)
    // is reported once, as the placement problem.
    let placed: Vec<Span> = problems
        .iter()
        .map(|problem| problem.primary.span)
        .collect();
    let structural = DECODER.validate(root);
    problems.extend(
        structural
            .into_iter()
            .filter(|problem| !placed.contains(&problem.primary.span)),
    );
    if root.as_map().is_none() {
        return Outcome::failed(problems);
    }
    if root
        .get("resources")
        .and_then(Node::as_map)
        .is_none_or(indexmap::IndexMap::is_empty)
    {
        let at = root.get("resources").map_or(root.span, |node| node.span);
        problems.push(
            Diagnostic::error(
                codes::NO_RESOURCES,
                "the blueprint defines no resources: version 2023-04-20 requires at least one",
                at,
            )
            .with_help("add a `resources` mapping with at least one resource"),
        );
    }
    problems.extend(condition_shapes(root));
    let mut text_problems = Vec::new();
    let blueprint = Builder {
        problems: &mut text_problems,
    }
    .blueprint(root);
    for (error, node) in text_problems {
        let text = node.as_str().unwrap_or_default();
        problems.push(error.diagnostic(db, node.span, text));
    }
    let (references, rules) = validate(&blueprint, db);
    problems.extend(rules);
    Outcome::new(
        Some((blueprint, references)),
        strata_syntax::dedupe(problems),
    )
}

/// Condition objects with other than exactly one of `and`, `or`, `not`.
fn condition_shapes(root: &Node) -> Vec<Diagnostic> {
    fn walk(node: &Node, path: &FieldPath, found: &mut Vec<Diagnostic>) {
        let Some(map) = node.as_map() else {
            return;
        };
        let operators: Vec<&str> = ["and", "or", "not"]
            .into_iter()
            .filter(|key| map.contains_key(*key))
            .collect();
        if operators.len() != 1 {
            let message = if operators.is_empty() {
                "a condition object needs one of `and`, `or`, `not`".to_owned()
            } else {
                format!(
                    "a condition object takes exactly one of `and`, `or`, `not`, not {}",
                    operators.join(" and ")
                )
            };
            found.push(
                Diagnostic::error(codes::CONDITION, message, node.span).with_path(path.clone()),
            );
        }
        for key in operators {
            let path = path.key(key);
            match map.get(key).map(|entry| &entry.value) {
                Some(Node {
                    value: strata_syntax::Value::Seq(items),
                    ..
                }) => {
                    for (index, item) in items.iter().enumerate() {
                        walk(item, &path.index(index), found);
                    }
                }
                Some(inner) => walk(inner, &path, found),
                None => {}
            }
        }
    }
    let mut found = Vec::new();
    for (name, entry) in root
        .get("resources")
        .and_then(Node::as_map)
        .into_iter()
        .flatten()
    {
        if let Some(condition) = entry.value.get("condition") {
            let path = FieldPath::root()
                .key("resources")
                .key(name)
                .key("condition");
            walk(condition, &path, &mut found);
        }
    }
    found
}

//! Go's leniency with scalars: a number, boolean or null written where the
//! schema takes only a string reads as that string's text, as Go's YAML
//! decoders (gopkg.in/yaml.v3) read `cpu: 4` into a string field as `"4"`.
//!
//! The tree is walked beside the closed schema (`$ref`, `anyOf`/`oneOf`/
//! `allOf`, `properties`, `additionalProperties`, `items`). A scalar is
//! rewritten only where every branch that could take the position takes a
//! string and none takes the scalar's own type; a position the schema
//! leaves open (`{}`, a `serde_json::Value`) is left alone. Integers are
//! written in decimal, floats as Go's `%v` writes them, booleans as
//! `true`/`false`, null as the empty string.

use serde_json::Value as Json;
use strata_syntax::{Diagnostic, FieldPath, Node, Segment, Value, go_float};

use crate::codes;

/// How many `$ref`s and branches are followed for one position.
const MAX_DEPTH: usize = 16;

/// Rewrites, in `node`, every scalar the schema takes only as a string,
/// with a note for each (`schema/scalar-as-string`) at the value.
pub(crate) fn read_as_strings(
    root: &Json,
    node: &mut Node,
    path: &mut FieldPath,
    notes: &mut Vec<Diagnostic>,
) {
    let schemas = branches(root, root, 0);
    walk(root, &schemas, node, path, notes);
}

fn walk(
    root: &Json,
    schemas: &[&Json],
    node: &mut Node,
    path: &mut FieldPath,
    notes: &mut Vec<Diagnostic>,
) {
    match &mut node.value {
        Value::Map(entries) => {
            for (key, entry) in entries.iter_mut() {
                let children: Vec<&Json> = schemas
                    .iter()
                    .filter_map(|schema| property(schema, key))
                    .flat_map(|child| branches(root, child, 0))
                    .collect();
                if children.is_empty() {
                    continue;
                }
                path.push(Segment::Key(key.clone()));
                walk(root, &children, &mut entry.value, path, notes);
                path.pop();
            }
        }
        Value::Seq(items) => {
            let children: Vec<&Json> = schemas
                .iter()
                .filter_map(|schema| schema.get("items"))
                .flat_map(|child| branches(root, child, 0))
                .collect();
            if children.is_empty() {
                return;
            }
            for (index, item) in items.iter_mut().enumerate() {
                path.push(Segment::Index(index));
                walk(root, &children, item, path, notes);
                path.pop();
            }
        }
        scalar => {
            let kind = match scalar {
                Value::Int(_) => "integer",
                Value::Float(_) => "number",
                Value::Bool(_) => "boolean",
                Value::Null => "null",
                _ => return,
            };
            if !only_string(schemas, kind) {
                return;
            }
            let text = match scalar {
                Value::Int(int) => int.to_string(),
                Value::Float(float) => go_float(*float),
                Value::Bool(boolean) => boolean.to_string(),
                _ => String::new(),
            };
            notes.push(
                Diagnostic::note(
                    codes::SCALAR_AS_STRING,
                    format!(
                        "this {kind} is read as the string {text:?}, as Go's YAML decoder reads it"
                    ),
                    node.span,
                )
                .with_path(path.clone()),
            );
            *scalar = Value::String(text);
        }
    }
}

/// The schemas `schema` stands for at one position: itself, or, through
/// `$ref`, `anyOf`, `oneOf` and `allOf`, the schemas it is made of.
fn branches<'s>(root: &'s Json, schema: &'s Json, depth: usize) -> Vec<&'s Json> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    if let Some(target) = schema.get("$ref").and_then(Json::as_str) {
        return target
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .map(|resolved| branches(root, resolved, depth + 1))
            .unwrap_or_default();
    }
    let mut found = vec![schema];
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(parts) = schema.get(keyword).and_then(Json::as_array) {
            found.extend(
                parts
                    .iter()
                    .flat_map(|part| branches(root, part, depth + 1)),
            );
        }
    }
    found
}

/// The schema of `key` in an object schema: its property, else its
/// `additionalProperties` when that is a schema.
fn property<'s>(schema: &'s Json, key: &str) -> Option<&'s Json> {
    schema
        .get("properties")
        .and_then(|properties| properties.get(key))
        .or_else(|| {
            schema
                .get("additionalProperties")
                .filter(|extra| extra.is_object())
        })
}

/// Whether the schemas that say what type a position takes all take a
/// string and none takes `kind`, and at least one says so.
fn only_string(schemas: &[&Json], kind: &str) -> bool {
    let mut saw_string = false;
    for schema in schemas {
        if schema.as_bool() == Some(true)
            || schema.as_object().is_some_and(serde_json::Map::is_empty)
        {
            return false;
        }
        let Some(types) = schema.get("type") else {
            continue;
        };
        let types: Vec<&str> = match types {
            Json::String(one) => vec![one.as_str()],
            Json::Array(many) => many.iter().filter_map(Json::as_str).collect(),
            _ => continue,
        };
        let takes = |wanted: &str| {
            types
                .iter()
                .any(|t| *t == wanted || (wanted == "integer" && *t == "number"))
        };
        if takes(kind) {
            return false;
        }
        saw_string |= takes("string");
    }
    saw_string
}

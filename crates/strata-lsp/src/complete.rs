//! Completion: keys and values from the file's JSON Schema, names of the
//! project's definitions, and functions inside expressions.
//!
//! The text being typed is rarely valid YAML, so the place of the cursor
//! is read from the lines themselves ([`Place::at`]): the keys of the
//! enclosing blocks by indentation (a `- ` item counts as one level), and
//! whether the cursor is where a key goes or after `key: `. Then:
//!
//! - inside `${` (not yet closed) or on a `!cel` line: the functions of the
//!   dialect's expressions, with their signatures;
//! - after a key (or in a `- ` item of a list under it) that names
//!   definitions (`template:`, `dependsOn:`, `includes:`): their names;
//! - after a key whose schema has an `enum` (or is a boolean): its values;
//! - where a key goes: the keys the schema allows there that the mapping
//!   does not have yet, with their descriptions.
//!
//! The schema is walked through `$ref`, `anyOf`, `oneOf` and `allOf`, so
//! the authored schemas ([`strata_schema::Authored`]) complete as the
//! decoding ones.

use std::collections::BTreeSet;

use lsp_types::{CompletionItem, CompletionItemKind, Documentation};
use serde_json::Value;

use crate::check::View;

/// One step of the path from the document's root to the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// Under a key.
    Key(String),
    /// In an item of a list.
    Item,
}

/// Where the cursor is, read from the lines.
#[derive(Debug, PartialEq, Eq)]
struct Place {
    /// The enclosing blocks, root first.
    path: Vec<Step>,
    /// After `key: ` (the value of `path`'s last key), else where a key goes.
    value: bool,
    /// The keys the enclosing mapping has on other lines, at the cursor's
    /// indentation.
    siblings: BTreeSet<String>,
}

/// The column where `line`'s content starts after any `- ` markers, the
/// number of markers, and the content.
fn split_line(line: &str) -> (usize, usize, &str) {
    let mut content = line.trim_start_matches(' ');
    let mut items = 0;
    loop {
        if let Some(rest) = content.strip_prefix("- ") {
            content = rest.trim_start_matches(' ');
        } else if content == "-" {
            content = "";
        } else {
            break;
        }
        items += 1;
    }
    (line.len() - content.len(), items, content)
}

/// The key a line starts (`key:` or `key: value`), unquoted.
fn key_of(content: &str) -> Option<&str> {
    let (key, rest) = content.split_once(':')?;
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty() && !key.starts_with('#')).then_some(key)
}

impl Place {
    /// The place of the cursor after `before` (the text of the document up
    /// to the cursor) in a document whose whole text is `text`.
    fn at(text: &str, before: &str) -> Place {
        let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
        let line = &before[line_start..];
        let (column, items, content) = split_line(line);
        let written = key_of(content);
        let value = written.is_some();
        let mut path: Vec<Step> = written
            .map(|key| Step::Key(key.to_owned()))
            .into_iter()
            .collect();
        // A `- ` before the cursor puts it in an item of the list above.
        path.extend(std::iter::repeat_n(Step::Item, items));
        let mut indent = if items > 0 {
            line.len() - line.trim_start_matches(' ').len()
        } else {
            column
        };
        let mut siblings = BTreeSet::new();
        // Whether a line above has been found to enclose the cursor's.
        let mut ascended = false;
        for previous in before[..line_start].lines().rev() {
            let (column, items, content) = split_line(previous);
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let dash = previous.len() - previous.trim_start_matches(' ').len();
            if items > 0 && dash < indent {
                // The item the cursor's mapping is in: its first key is
                // on this line.
                if !ascended
                    && column == indent
                    && let Some(key) = key_of(content)
                {
                    siblings.insert(key.to_owned());
                }
                path.extend(std::iter::repeat_n(Step::Item, items));
                indent = dash;
                ascended = true;
            } else if column < indent {
                let Some(key) = key_of(content) else {
                    continue;
                };
                path.push(Step::Key(key.to_owned()));
                indent = column;
                ascended = true;
            } else if !ascended
                && column == indent
                && let Some(key) = key_of(content)
            {
                siblings.insert(key.to_owned());
            }
            if indent == 0 {
                break;
            }
        }
        // Keys on the lines after the cursor, in the same mapping.
        let after = &text[before.len().min(text.len())..];
        for next in after.lines().skip(1) {
            let (next_column, _, content) = split_line(next);
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            if next_column < column {
                break;
            }
            if next_column == column
                && let Some(key) = key_of(content)
            {
                siblings.insert(key.to_owned());
            }
        }
        path.reverse();
        Place {
            path,
            value,
            siblings,
        }
    }
}

/// The completions at the end of `before` in a file of `view`'s project
/// whose schema is `schema`.
#[must_use]
pub(crate) fn complete(
    view: &View,
    schema: Option<&Value>,
    text: &str,
    before: &str,
) -> Vec<CompletionItem> {
    let line = before.rsplit('\n').next().unwrap_or_default();
    if in_expression(line) {
        return view
            .functions
            .iter()
            .map(|function| CompletionItem {
                label: function.name.clone(),
                kind: Some(CompletionItemKind::FUNCTION),
                detail: Some(function.signature.clone()),
                documentation: Some(Documentation::String(function.summary.clone())),
                ..CompletionItem::default()
            })
            .collect();
    }
    let place = Place::at(text, before);
    let naming_key = place.path.iter().rev().find_map(|step| match step {
        Step::Key(key) => Some(key.as_str()),
        Step::Item => None,
    });
    let names_at_value = place.value || place.path.last() == Some(&Step::Item);
    if names_at_value
        && let Some((_, kinds)) = view
            .outline
            .naming_keys
            .iter()
            .find(|(key, _)| Some(*key) == naming_key)
    {
        let names: BTreeSet<&str> = view
            .outline
            .symbols
            .iter()
            .filter(|symbol| kinds.contains(&symbol.kind))
            .map(|symbol| symbol.name.as_str())
            .collect();
        return names
            .into_iter()
            .map(|name| CompletionItem {
                label: name.to_owned(),
                kind: Some(CompletionItemKind::REFERENCE),
                ..CompletionItem::default()
            })
            .collect();
    }
    let Some(schema) = schema else {
        return Vec::new();
    };
    let at = descend(schema, schema, &place.path);
    if place.value {
        return values(schema, &at);
    }
    keys(schema, &at, &place.siblings)
}

/// Whether the cursor, at the end of `line`, is inside an expression: an
/// unclosed `${`, or a `!cel` scalar.
fn in_expression(line: &str) -> bool {
    let opened = line.rfind("${");
    let closed = line.rfind('}');
    matches!((opened, closed), (Some(open), Some(close)) if open > close)
        || matches!((opened, closed), (Some(_), None))
        || line.contains("!cel ")
}

/// The subschemas `schema` stands for: itself, through `$ref`, and the
/// branches of `anyOf`, `oneOf` and `allOf`, each once.
fn alternatives<'a>(root: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    let mut found: Vec<&Value> = Vec::new();
    let mut pending = vec![schema];
    while let Some(schema) = pending.pop() {
        if found.len() > 256 || found.iter().any(|seen| std::ptr::eq(*seen, schema)) {
            continue;
        }
        found.push(schema);
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            pending.push(target);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                pending.extend(branches.iter().rev());
            }
        }
    }
    found
}

/// The subschemas at `path` below `schema`.
fn descend<'a>(root: &'a Value, schema: &'a Value, path: &[Step]) -> Vec<&'a Value> {
    let mut here = vec![schema];
    for step in path {
        let mut next = Vec::new();
        for schema in here.iter().flat_map(|schema| alternatives(root, schema)) {
            let child = match step {
                Step::Key(key) => schema
                    .get("properties")
                    .and_then(|properties| properties.get(key))
                    .or_else(|| schema.get("additionalProperties").filter(|v| v.is_object())),
                Step::Item => schema.get("items").filter(|items| items.is_object()),
            };
            next.extend(child);
        }
        here = next;
    }
    here
}

/// The keys the schemas `at` allow, less `present`.
fn keys(root: &Value, at: &[&Value], present: &BTreeSet<String>) -> Vec<CompletionItem> {
    let mut seen = BTreeSet::new();
    let mut items = Vec::new();
    for schema in at.iter().flat_map(|schema| alternatives(root, schema)) {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (key, property) in properties {
            if present.contains(key) || !seen.insert(key.clone()) {
                continue;
            }
            let description = alternatives(root, property)
                .into_iter()
                .find_map(|schema| schema.get("description").and_then(Value::as_str));
            items.push(CompletionItem {
                label: key.clone(),
                kind: Some(CompletionItemKind::PROPERTY),
                documentation: description.map(|text| Documentation::String(text.to_owned())),
                insert_text: Some(format!("{key}: ")),
                ..CompletionItem::default()
            });
        }
    }
    items
}

/// The values the schemas `at` list: `enum`s, `const`s, booleans.
fn values(root: &Value, at: &[&Value]) -> Vec<CompletionItem> {
    let mut seen = BTreeSet::new();
    let mut items = Vec::new();
    let mut add = |value: &Value| {
        let label = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        if seen.insert(label.clone()) {
            items.push(CompletionItem {
                label,
                kind: Some(CompletionItemKind::ENUM_MEMBER),
                ..CompletionItem::default()
            });
        }
    };
    for schema in at.iter().flat_map(|schema| alternatives(root, schema)) {
        schema
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .for_each(&mut add);
        if let Some(constant) = schema.get("const") {
            add(constant);
        }
        let boolean = match schema.get("type") {
            Some(Value::String(kind)) => kind == "boolean",
            Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "boolean"),
            _ => false,
        };
        if boolean {
            add(&Value::Bool(true));
            add(&Value::Bool(false));
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(text: &str) -> Place {
        let cursor = text.find('|').unwrap_or(text.len());
        let text = text.replacen('|', "", 1);
        Place::at(&text, &text[..cursor])
    }

    fn keys(steps: &[&str]) -> Vec<Step> {
        steps
            .iter()
            .map(|step| match *step {
                "-" => Step::Item,
                key => Step::Key(key.to_owned()),
            })
            .collect()
    }

    #[test]
    fn a_key_under_nested_blocks() {
        let found = place("name: a\npodman:\n  enabled: true\n  im|\nb: 1\n");
        assert_eq!(found.path, keys(&["podman"]));
        assert!(!found.value);
        assert_eq!(found.siblings, BTreeSet::from(["enabled".to_owned()]));
    }

    #[test]
    fn a_value_after_a_key() {
        let found = place("name: a\ntemplate: g|\n");
        assert_eq!(found.path, keys(&["template"]));
        assert!(found.value);
    }

    #[test]
    fn an_item_of_a_list_in_an_item() {
        let found = place("kustomize:\n  - name: a\n    dependsOn:\n      - |\n");
        assert_eq!(found.path, keys(&["kustomize", "-", "dependsOn", "-"]));
        assert!(!found.value);
    }

    #[test]
    fn a_key_in_an_item_beside_its_first_key() {
        let found = place("terraform:\n  - path: a\n    |\n");
        assert_eq!(found.path, keys(&["terraform", "-"]));
        assert_eq!(found.siblings, BTreeSet::from(["path".to_owned()]));
    }

    #[test]
    fn expressions_are_found_until_they_close() {
        assert!(in_expression("  host: ${var"));
        assert!(!in_expression("  host: ${variables.a} and"));
        assert!(in_expression("hostname: !cel \"meta"));
        assert!(!in_expression("hostname: plain"));
    }

    #[test]
    fn schemas_are_walked_through_references_and_branches() {
        let schema = serde_json::json!({
            "anyOf": [{"$ref": "#/$defs/B"}, {"type": "array", "items": {"$ref": "#/$defs/B"}}],
            "$defs": {"B": {"type": "object", "properties": {
                "pull": {"description": "When to pull.", "enum": ["Always", "Never"]},
                "on": {"type": "boolean"},
                "podman": {"type": "object", "properties": {"image": {"type": "string"}}}
            }}}
        });
        let labels = |items: Vec<CompletionItem>| -> Vec<String> {
            items.into_iter().map(|item| item.label).collect()
        };
        let root = descend(&schema, &schema, &[]);
        assert_eq!(
            labels(super::keys(
                &schema,
                &root,
                &BTreeSet::from(["on".to_owned()])
            )),
            ["pull", "podman"]
        );
        let pull = descend(&schema, &schema, &keys(&["pull"]));
        assert_eq!(labels(values(&schema, &pull)), ["Always", "Never"]);
        let on = descend(&schema, &schema, &keys(&["-", "on"]));
        assert_eq!(labels(values(&schema, &on)), ["true", "false"]);
        let podman = descend(&schema, &schema, &keys(&["podman"]));
        assert_eq!(
            labels(super::keys(&schema, &podman, &BTreeSet::new())),
            ["image"]
        );
    }
}

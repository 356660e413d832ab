//! Schemas of files as people write them, for editors.
//!
//! A [`Decoder`](crate::Decoder)'s schema describes the value the dialect
//! decodes: composed, expressions evaluated, includes expanded. A file
//! before all that differs, and an editor that knows only a schema
//! (yaml-language-server) must not mark what the dialect accepts:
//!
//! - a layer that inherits need not hold what a parent supplies, so
//!   [`Authored::layered`] drops `required` everywhere but the keys named
//!   (a blueprint's `name`);
//! - a tag (`!cel`, `!include`) puts a string where any value may go, so
//!   [`Authored::tagged`] lets every property value, item and map value
//!   that is not text already (a number, a boolean, a mapping, a list) be
//!   a string too; the dialect checks the value the tag gives. Text keeps
//!   its constraints, enums included: a misspelt enum value is worth more
//!   to catch in an editor than a tag in an enum field, rare, is worth
//!   letting through;
//! - a file may hold one document in several shapes (`blueprint: {...}`,
//!   a list), which [`file_shapes`] states around the document's schema.
//!
//! Descriptions, defaults and enums stay on each value, so completion and
//! hover still offer them.

use serde_json::{Map, Value, json};

/// How a file is written, relative to the value a decoder reads.
#[derive(Debug, Clone, Default)]
pub struct Authored {
    /// Whether layers inherit: `required` is dropped except for
    /// [`Authored::keep_required`] at the root.
    pub layered: bool,
    /// Root keys every layer writes itself (a blueprint's `name`).
    pub keep_required: &'static [&'static str],
    /// Whether a tag may put a string where any value goes.
    pub tagged: bool,
}

impl Authored {
    /// `schema` (a decoder's) as a person writes the file.
    #[must_use]
    pub fn apply(&self, schema: &Value) -> Value {
        let original = schema;
        let mut schema = schema.clone();
        self.rewrite(original, &mut schema, true);
        if let Some(definitions) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
            for definition in definitions.values_mut() {
                self.rewrite(original, definition, false);
            }
        }
        schema
    }

    /// Rewrites one subschema and every subschema it holds in place;
    /// `original` resolves references.
    fn rewrite(&self, original: &Value, schema: &mut Value, root: bool) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        if self.layered {
            if root {
                let kept: Vec<Value> = self
                    .keep_required
                    .iter()
                    .map(|key| Value::from(*key))
                    .collect();
                if object.contains_key("required") {
                    object.insert("required".to_owned(), Value::Array(kept));
                }
            } else {
                object.remove("required");
            }
        }
        if let Some(properties) = object.get_mut("properties").and_then(Value::as_object_mut) {
            for property in properties.values_mut() {
                self.rewrite(original, property, false);
                self.allow_tag(original, property);
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(value) = object.get_mut(key)
                && value.is_object()
            {
                self.rewrite(original, value, false);
                self.allow_tag(original, value);
            }
        }
        for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            if let Some(branches) = object.get_mut(key).and_then(Value::as_array_mut) {
                for branch in branches {
                    self.rewrite(original, branch, false);
                }
            }
        }
        for key in ["if", "then", "else", "not"] {
            if let Some(value) = object.get_mut(key) {
                self.rewrite(original, value, false);
            }
        }
    }

    /// Lets a tagged string stand for the value `schema` describes,
    /// keeping its description (and default) where an editor shows them.
    fn allow_tag(&self, original: &Value, schema: &mut Value) {
        if !self.tagged || !schema.is_object() || is_text(original, schema, 0) {
            return;
        }
        let mut wrapper = Map::new();
        if let Some(object) = schema.as_object() {
            for key in ["description", "default", "title"] {
                if let Some(value) = object.get(key) {
                    wrapper.insert(key.to_owned(), value.clone());
                }
            }
        }
        let original = std::mem::take(schema);
        wrapper.insert(
            "anyOf".to_owned(),
            json!([original, {"type": "string", "description": "a tagged value: `!cel EXPRESSION` or `!include PATH`"}]),
        );
        *schema = Value::Object(wrapper);
    }
}

/// Whether `schema` describes text (a string type, a string enum), or
/// nothing at all, following references into `root` and the branches of
/// `anyOf` and `oneOf`: such a value takes a tag's string as it is, or
/// should keep its constraints.
fn is_text(root: &Value, schema: &Value, depth: usize) -> bool {
    let Some(object) = schema.as_object() else {
        return true;
    };
    if depth > 16 {
        return true;
    }
    match object.get("type") {
        Some(Value::String(kind)) => return kind == "string",
        Some(Value::Array(kinds)) => return kinds.iter().any(|kind| kind == "string"),
        _ => {}
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        return values.iter().any(Value::is_string);
    }
    if let Some(target) = object
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        return is_text(root, target, depth + 1);
    }
    let branches: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| object.get(*key).and_then(Value::as_array))
        .flatten()
        .filter(|branch| branch.get("type") != Some(&Value::from("null")))
        .collect();
    if branches.is_empty() {
        // No constraint on the type: a string is already taken.
        return !object.contains_key("properties") && !object.contains_key("items");
    }
    branches
        .iter()
        .any(|branch| is_text(root, branch, depth + 1))
}

/// A schema for a file whose document is one `item` as `schema` describes
/// it, or `{wrapper: item}`, or `{wrappers: [item, ...]}`, or a list of
/// items; the `$defs` and `$schema` stay at the root.
#[must_use]
pub fn file_shapes(schema: &Value, wrapper: &str, wrappers: &str) -> Value {
    let mut item = schema.clone();
    let mut root = Map::new();
    if let Some(object) = item.as_object_mut() {
        for key in ["$schema", "$defs"] {
            if let Some(value) = object.remove(key) {
                root.insert(key.to_owned(), value);
            }
        }
        if let Some(title) = object.get("title") {
            root.insert("title".to_owned(), title.clone());
        }
    }
    root.insert(
        "anyOf".to_owned(),
        json!([
            item,
            {"type": "object", "properties": {wrapper: item}, "required": [wrapper], "additionalProperties": false},
            {"type": "object", "properties": {wrappers: {"type": "array", "items": item}}, "required": [wrappers], "additionalProperties": false},
            {"type": "array", "items": item},
        ]),
    );
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blueprint() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "required": ["name", "image"],
            "properties": {
                "name": {"type": "string"},
                "image": {"type": "string", "minLength": 1},
                "uid": {"type": "integer", "description": "The user id."},
                "podman": {"$ref": "#/$defs/Podman"},
                "pull": {"$ref": "#/$defs/Pull"}
            },
            "additionalProperties": false,
            "$defs": {
                "Podman": {"type": "object", "required": ["image"], "properties": {"image": {"type": "string"}}},
                "Pull": {"enum": ["Always", "Never"]}
            }
        })
    }

    #[test]
    fn layered_files_keep_only_the_named_required_keys() {
        let authored = Authored {
            layered: true,
            keep_required: &["name"],
            tagged: false,
        }
        .apply(&blueprint());
        assert_eq!(authored["required"], json!(["name"]));
        assert_eq!(authored["$defs"]["Podman"].get("required"), None);
    }

    #[test]
    fn tagged_values_may_be_strings_and_keep_their_description() {
        let authored = Authored {
            tagged: true,
            ..Authored::default()
        }
        .apply(&blueprint());
        let uid = &authored["properties"]["uid"];
        assert_eq!(uid["description"], "The user id.");
        assert_eq!(uid["anyOf"][0]["type"], "integer");
        assert_eq!(uid["anyOf"][1]["type"], "string");
        // Text takes a tag's string already, and keeps its constraints.
        assert_eq!(authored["properties"]["name"], json!({"type": "string"}));
        assert_eq!(
            authored["properties"]["pull"],
            json!({"$ref": "#/$defs/Pull"})
        );
        assert!(authored["properties"]["podman"]["anyOf"].is_array());
    }

    #[test]
    fn file_shapes_accept_the_wrappers_and_a_list() {
        let shaped = file_shapes(&blueprint(), "blueprint", "blueprints");
        assert!(shaped.get("$defs").is_some());
        let branches = shaped["anyOf"].as_array().map(Vec::len);
        assert_eq!(branches, Some(4));
        assert_eq!(shaped["anyOf"][1]["required"], json!(["blueprint"]));
    }
}

//! Closing a generated schema: unknown keys become errors.
//!
//! schemars leaves object schemas open (`additionalProperties` absent), as
//! serde ignores unknown keys. Closing walks every subschema (properties,
//! items, `$defs`, applicator branches, ...) and gives each object schema
//! that lists `properties` and says nothing about extra keys
//! `additionalProperties: false`. Maps (`additionalProperties: {..}`) and
//! schemas that already decide (`deny_unknown_fields`) keep theirs.
//!
//! Composition needs care, because `additionalProperties` only sees the
//! `properties` next to it:
//! - an object schema with `properties` and an applicator (`allOf`, `anyOf`,
//!   `oneOf`, `$ref`), as `#[serde(flatten)]` and internally tagged enums
//!   produce, gets `unevaluatedProperties: false` instead, which also sees
//!   the keys its branches declare;
//! - the branches of such a schema are not closed themselves (they describe
//!   part of the object only), though everything below them is;
//! - a `$ref` beside `properties` is replaced by an `allOf` holding a copy of
//!   the definition, so that the definition can stay closed where it is used
//!   on its own.

use serde_json::{Map, Value};

/// How deep copies of definitions may nest inside each other.
const MAX_INLINE_DEPTH: usize = 32;

/// Keywords whose value is a map from names to subschemas.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is one subschema describing another instance.
const SCHEMA_SINGLES: [&str; 8] = [
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
];

/// Keywords whose subschemas describe the same instance as their parent.
const APPLICATORS: [&str; 3] = ["allOf", "anyOf", "oneOf"];

/// Closes `schema` in place (see the module docs).
pub(crate) fn close(schema: &mut Value) {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    walk(schema, true, &defs, 0);
}

/// Closes one subschema. `standalone` is false for the branches of a schema
/// that has `properties` of its own.
fn walk(schema: &mut Value, standalone: bool, defs: &Map<String, Value>, inlined: usize) {
    let Value::Object(object) = schema else {
        return;
    };
    let has_properties = object.contains_key("properties");
    let mut inlined = inlined;
    if has_properties
        && inlined < MAX_INLINE_DEPTH
        && let Some(definition) = local_ref(object).and_then(|name| defs.get(name))
    {
        let definition = definition.clone();
        object.remove("$ref");
        if let Some(Value::Array(all)) = object.get_mut("allOf") {
            all.push(definition);
        } else {
            object.insert("allOf".to_owned(), Value::Array(vec![definition]));
        }
        inlined += 1;
    }
    let composed = APPLICATORS
        .iter()
        .chain(&["$ref"])
        .any(|key| object.contains_key(*key));
    let open = !object.contains_key("additionalProperties")
        && !object.contains_key("unevaluatedProperties");
    if standalone && has_properties && open {
        let keyword = if composed {
            "unevaluatedProperties"
        } else {
            "additionalProperties"
        };
        object.insert(keyword.to_owned(), Value::Bool(false));
    }
    for (keyword, child) in object.iter_mut() {
        let keyword = keyword.as_str();
        if SCHEMA_MAPS.contains(&keyword) {
            if let Value::Object(children) = child {
                for child in children.values_mut() {
                    walk(child, true, defs, inlined);
                }
            }
        } else if SCHEMA_SINGLES.contains(&keyword) {
            walk(child, true, defs, inlined);
        } else if keyword == "prefixItems" {
            for child in child.as_array_mut().into_iter().flatten() {
                walk(child, true, defs, inlined);
            }
        } else if APPLICATORS.contains(&keyword) {
            for child in child.as_array_mut().into_iter().flatten() {
                walk(child, !has_properties, defs, inlined);
            }
        } else if matches!(keyword, "if" | "then" | "else") {
            walk(child, !has_properties, defs, inlined);
        }
    }
}

/// The definition name of a `$ref` to `#/$defs/<name>`, when the schema has one.
fn local_ref(object: &Map<String, Value>) -> Option<&str> {
    object.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::close;

    #[test]
    fn plain_objects_close_and_maps_stay_open() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                "items": {"type": "array", "items": {"properties": {"a": {}}}},
                "fixed": {"const": {"properties": {}}}
            },
            "$defs": {"Inner": {"properties": {"x": {}}}}
        });
        close(&mut schema);
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(
            schema["properties"]["env"]["additionalProperties"],
            json!({"type": "string"})
        );
        assert_eq!(
            schema["properties"]["items"]["items"]["additionalProperties"],
            json!(false)
        );
        assert_eq!(
            schema["$defs"]["Inner"]["additionalProperties"],
            json!(false)
        );
        assert_eq!(
            schema["properties"]["fixed"]["const"],
            json!({"properties": {}}),
            "values are not schemas"
        );
    }

    #[test]
    fn composed_objects_close_with_unevaluated_properties() {
        let mut schema = json!({
            "properties": {"name": {}},
            "oneOf": [{"properties": {"kind": {"const": "a"}, "deep": {"properties": {}}}}],
            "$defs": {
                "Variant": {"properties": {"kind": {}}, "$ref": "#/$defs/Shared"},
                "Shared": {"properties": {"x": {}}}
            }
        });
        close(&mut schema);
        assert_eq!(schema["unevaluatedProperties"], json!(false));
        assert_eq!(schema.get("additionalProperties"), None);
        let branch = &schema["oneOf"][0];
        assert_eq!(branch.get("additionalProperties"), None);
        assert_eq!(
            branch["properties"]["deep"]["additionalProperties"],
            json!(false)
        );
        let variant = &schema["$defs"]["Variant"];
        assert_eq!(variant.get("$ref"), None);
        assert_eq!(variant["unevaluatedProperties"], json!(false));
        assert_eq!(variant["allOf"][0]["properties"], json!({"x": {}}));
        assert_eq!(variant["allOf"][0].get("additionalProperties"), None);
        assert_eq!(
            schema["$defs"]["Shared"]["additionalProperties"],
            json!(false)
        );
    }
}

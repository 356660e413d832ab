//! `PersistentVolumeClaimSpec`, decoded strictly.

use std::sync::LazyLock;

use k8s_openapi::api::core::v1::PersistentVolumeClaimSpec;
use serde_json::{Value, json};
use strata_schema::{Decoder, rebase};
use strata_syntax::{Diagnostic, FieldPath, Node};

use crate::quantity::check_quantity;

/// The access modes a claim may ask for.
pub const ACCESS_MODES: [&str; 4] = [
    "ReadWriteOnce",
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOncePod",
];

/// The volume modes a claim may ask for.
pub const VOLUME_MODES: [&str; 2] = ["Filesystem", "Block"];

static PVC_SPEC: LazyLock<Decoder<PersistentVolumeClaimSpec>> = LazyLock::new(|| {
    Decoder::with_schema_edit(|schema| {
        if let Some(items) = schema.pointer_mut("/properties/accessModes/items") {
            items["enum"] = json!(ACCESS_MODES);
        }
        if let Some(mode) = schema.pointer_mut("/properties/volumeMode") {
            mode["enum"] = json!(VOLUME_MODES);
        }
        optional_accepts_null(schema);
    })
});

/// Lets every property that an object schema does not require also be
/// `null`, as `k8s-openapi` (whose optional fields are `Option`s) and the
/// API server read it: absent. Layered configuration needs it, since an
/// upper layer removes a lower layer's value by writing `null`.
///
/// Each such property schema `s` becomes `{"anyOf": [s, {"type": "null"}]}`
/// (its description kept outside), which leaves its `enum` free of `null`.
fn optional_accepts_null(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|name| name.as_str().map(str::to_owned))
        .collect();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            optional_accepts_null(property);
            if !required.contains(name) {
                let description = property
                    .as_object_mut()
                    .and_then(|property| property.remove("description"));
                let inner = property.take();
                *property = json!({"anyOf": [inner, {"type": "null"}]});
                if let Some(description) = description {
                    property["description"] = description;
                }
            }
        }
    }
    if let Some(Value::Object(defs)) = object.get_mut("$defs") {
        defs.values_mut().for_each(optional_accepts_null);
    }
    for keyword in ["items", "additionalProperties"] {
        if let Some(child) = object.get_mut(keyword) {
            optional_accepts_null(child);
        }
    }
}

/// The decoder behind [`decode_pvc_spec`], built on first use: for its
/// [`schema`](Decoder::schema) (`accessModes` and `volumeMode` restricted to
/// their values; quantities left to [`check_quantity`]).
#[must_use]
pub fn pvc_spec_decoder() -> &'static Decoder<PersistentVolumeClaimSpec> {
    &PVC_SPEC
}

/// Decodes a `PersistentVolumeClaimSpec` strictly, with paths relative to
/// `node`. See the crate docs for what is checked.
pub fn decode_pvc_spec(node: &Node) -> Result<PersistentVolumeClaimSpec, Vec<Diagnostic>> {
    PVC_SPEC.decode_with(node, check_resources)
}

/// [`decode_pvc_spec`] for a spec found at `base` (`storages.home.claimSpec`):
/// diagnostic paths start with `base`.
pub fn decode_pvc_spec_at(
    node: &Node,
    base: &FieldPath,
) -> Result<PersistentVolumeClaimSpec, Vec<Diagnostic>> {
    decode_pvc_spec(node).map_err(|mut diagnostics| {
        rebase(&mut diagnostics, base);
        diagnostics
    })
}

/// `k8s/invalid-quantity` for every value of `resources.requests` and
/// `resources.limits` that is not a quantity (the schema accepts anything there).
fn check_resources(spec: &Node) -> Vec<Diagnostic> {
    let Some(resources) = spec.get("resources") else {
        return Vec::new();
    };
    let mut diagnostics = Vec::new();
    for list in ["limits", "requests"] {
        let Some(quantities) = resources.get(list).and_then(Node::as_map) else {
            continue;
        };
        let path = FieldPath::root().key("resources").key(list);
        for (name, entry) in quantities {
            if let Err(diagnostic) = check_quantity(&entry.value, path.key(name)) {
                diagnostics.push(diagnostic);
            }
        }
    }
    diagnostics
}

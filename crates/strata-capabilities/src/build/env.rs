//! A container's environment: `env` (values and the five kinds of
//! `valueFrom`) and `envFrom`, checked as Kure's launcher checks them
//! (`parseEnv`, `parseEnvFrom`).

use serde_json::{Map, Value, json};
use strata_k8s::names::{is_dns1123_label, is_dns1123_subdomain};
use strata_syntax::FieldPath;

use super::codes;
use super::pod::quantity;
use super::report::Report;
use super::spec::{
    EnvFrom, EnvSource, EnvVar, FieldRef, FileKeyRef, QuantityValue, ResourceFieldRef,
};

/// The pod fields an env `fieldRef` may name.
const FIELD_PATHS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// The container environment, in order.
pub(crate) fn env_list(report: &mut Report<'_>, env: &[EnvVar], path: &FieldPath) -> Vec<Value> {
    let mut written = Vec::new();
    for (index, variable) in env.iter().enumerate() {
        let at = path.index(index);
        if variable.name.is_empty() {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key("name"),
                "an environment variable needs a name",
            );
            continue;
        }
        let mut entry = Map::new();
        entry.insert("name".into(), json!(variable.name));
        let value = variable.value.as_deref().filter(|value| !value.is_empty());
        if let Some(value) = value {
            entry.insert("value".into(), json!(value));
        }
        if let Some(source) = &variable.value_from {
            if value.is_some() {
                report.error(
                    codes::INVALID_PROPERTY,
                    &at.key("valueFrom"),
                    format!(
                        "`{}` has both a `value` and a `valueFrom`; give one",
                        variable.name
                    ),
                );
            }
            if let Some(source) = env_source(report, source, &at.key("valueFrom")) {
                entry.insert("valueFrom".into(), source);
            }
        }
        written.push(Value::Object(entry));
    }
    written
}

fn env_source(report: &mut Report<'_>, source: &EnvSource, path: &FieldPath) -> Option<Value> {
    let mut chosen = Vec::new();
    if let Some(key_ref) = &source.secret_key_ref {
        chosen.push((
            "secretKeyRef",
            key_ref_value(&key_ref.name, &key_ref.key, key_ref.optional),
        ));
    }
    if let Some(key_ref) = &source.config_map_key_ref {
        chosen.push((
            "configMapKeyRef",
            key_ref_value(&key_ref.name, &key_ref.key, key_ref.optional),
        ));
    }
    if let Some(field) = &source.field_ref {
        chosen.push(("fieldRef", field_ref(report, field, &path.key("fieldRef"))));
    }
    if let Some(resource) = &source.resource_field_ref {
        let written = resource_field_ref(report, resource, &path.key("resourceFieldRef"));
        chosen.push(("resourceFieldRef", written));
    }
    if let Some(file) = &source.file_key_ref {
        chosen.push((
            "fileKeyRef",
            file_key_ref(report, file, &path.key("fileKeyRef")),
        ));
    }
    match chosen.len() {
        1 => {
            let (key, value) = chosen.remove(0);
            Some(json!({ key: value }))
        }
        0 => {
            report.error(codes::INVALID_PROPERTY, path, "`valueFrom` needs one of `secretKeyRef`, `configMapKeyRef`, `fieldRef`, `resourceFieldRef`, `fileKeyRef`");
            None
        }
        _ => {
            let names: Vec<&str> = chosen.iter().map(|(key, _)| *key).collect();
            report.error(
                codes::INVALID_PROPERTY,
                path,
                format!("`valueFrom` takes one source, not {}", names.join(" and ")),
            );
            None
        }
    }
}

fn key_ref_value(name: &str, key: &str, optional: Option<bool>) -> Value {
    let mut written = json!({"name": name, "key": key});
    if let Some(optional) = optional {
        written["optional"] = json!(optional);
    }
    written
}

pub(crate) fn env_from_list(
    report: &mut Report<'_>,
    sources: &[EnvFrom],
    path: &FieldPath,
) -> Vec<Value> {
    let mut written = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        let at = path.index(index);
        let reference = match (&source.config_map_ref, &source.secret_ref) {
            (Some(reference), None) => ("configMapRef", reference),
            (None, Some(reference)) => ("secretRef", reference),
            _ => {
                report.error(
                    codes::INVALID_PROPERTY,
                    &at,
                    "an `envFrom` entry takes one of `configMapRef` and `secretRef`",
                );
                continue;
            }
        };
        if !is_dns1123_subdomain(&reference.1.name) {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key(reference.0).key("name"),
                format!(
                    "`{}` is not an object name (a DNS-1123 subdomain)",
                    reference.1.name
                ),
            );
        }
        let mut entry = Map::new();
        let mut target = json!({"name": reference.1.name});
        if let Some(optional) = reference.1.optional {
            target["optional"] = json!(optional);
        }
        entry.insert(reference.0.into(), target);
        if let Some(prefix) = source.prefix.as_deref().filter(|prefix| !prefix.is_empty()) {
            if !prefix
                .bytes()
                .all(|b| (0x20..0x7f).contains(&b) && b != b'=')
            {
                report.error(
                    codes::INVALID_PROPERTY,
                    &at.key("prefix"),
                    format!("`{prefix}` must be printable ASCII without `=`"),
                );
            }
            entry.insert("prefix".into(), json!(prefix));
        }
        written.push(Value::Object(entry));
    }
    written
}

/// A `fieldRef`: a pod field an environment variable may read.
fn field_ref(report: &mut Report<'_>, field: &FieldRef, at: &FieldPath) -> Value {
    let known = FIELD_PATHS.contains(&field.field_path.as_str())
        || ["metadata.labels['", "metadata.annotations['"]
            .iter()
            .any(|prefix| field.field_path.starts_with(prefix) && field.field_path.ends_with("']"));
    if !known {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("fieldPath"),
            format!(
                "`{}` is not a pod field an environment variable may read",
                field.field_path
            ),
        );
        report.help(format!(
            "one of {}, or `metadata.labels['KEY']`, `metadata.annotations['KEY']`",
            FIELD_PATHS.join(", ")
        ));
    }
    if field
        .api_version
        .as_deref()
        .is_some_and(|version| version != "v1")
    {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("apiVersion"),
            "`fieldRef.apiVersion` can only be `v1`",
        );
    }
    let mut written = json!({"fieldPath": field.field_path});
    if let Some(version) = &field.api_version {
        written["apiVersion"] = json!(version);
    }
    written
}

/// A `resourceFieldRef`, with its divisor (`"0"` when none is given, as
/// Go writes a zero quantity).
fn resource_field_ref(
    report: &mut Report<'_>,
    resource: &ResourceFieldRef,
    at: &FieldPath,
) -> Value {
    let known = ["limits.", "requests."].iter().any(|side| {
        resource.resource.strip_prefix(side).is_some_and(|name| {
            matches!(name, "cpu" | "memory" | "ephemeral-storage") || name.starts_with("hugepages-")
        })
    });
    if !known {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("resource"),
            format!("`{}` is not `limits.` or `requests.` with `cpu`, `memory`, `ephemeral-storage` or `hugepages-<size>`", resource.resource),
        );
    }
    if let Some(container) = &resource.container_name
        && !is_dns1123_label(container)
    {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("containerName"),
            format!("`{container}` is not a container name (a DNS-1123 label)"),
        );
    }
    let divisor = match &resource.divisor {
        Some(divisor) => {
            let value = QuantityValue::Text(divisor.clone());
            let parsed = quantity(report, &value, &at.key("divisor"));
            let allowed: &[&str] =
                if matches!(resource.resource.as_str(), "limits.cpu" | "requests.cpu") {
                    &["1m", "1"]
                } else {
                    &[
                        "1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi",
                        "1Ei",
                    ]
                };
            if let Some(parsed) = &parsed
                && parsed.to_f64() != 0.0
                && !allowed.contains(&parsed.canonical().as_str())
            {
                report.error(
                    codes::INVALID_PROPERTY,
                    &at.key("divisor"),
                    format!(
                        "`{divisor}` is not a divisor of `{}`: one of {}",
                        resource.resource,
                        allowed.join(", ")
                    ),
                );
            }
            parsed.map_or_else(|| divisor.clone(), |parsed| parsed.canonical())
        }
        // A zero Quantity, which Go writes as "0".
        None => "0".to_owned(),
    };
    let mut written = json!({"resource": resource.resource, "divisor": divisor});
    if let Some(container) = &resource.container_name {
        written["containerName"] = json!(container);
    }
    written
}

/// A `fileKeyRef`.
fn file_key_ref(report: &mut Report<'_>, file: &FileKeyRef, at: &FieldPath) -> Value {
    if !is_dns1123_label(&file.volume_name) {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("volumeName"),
            format!(
                "`{}` is not a volume name (a DNS-1123 label)",
                file.volume_name
            ),
        );
    }
    if file.path.starts_with('/') || file.path.split('/').any(|part| part == "..") {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("path"),
            format!("`{}` must be a relative path without `..`", file.path),
        );
    }
    let mut written = json!({"volumeName": file.volume_name, "path": file.path, "key": file.key});
    if let Some(optional) = file.optional {
        written["optional"] = json!(optional);
    }
    written
}

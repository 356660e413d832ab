//! The traits that add objects of their own and leave the component
//! alone: `certificate` (a cert-manager Certificate), `scaler` (a
//! `HorizontalPodAutoscaler` and optionally a `PodDisruptionBudget`) and
//! `pvc` (a standalone claim), each as Kure's handler builds it.
//!
//! - `certificate`: named after its `secretName`; `issuerRef` from the
//!   profile's binding (kind `ClusterIssuer` unless given); durations
//!   default to 2160h and 360h and are written as Go writes them
//!   (`2160h0m0s`); a `privateKey.size` must fit its algorithm.
//! - `scaler`: `<component>-hpa` on the Deployment, CPU at 80% unless a
//!   memory target is the only one given; `enablePDB` adds
//!   `<component>-pdb` keeping half the pods, which needs at least two.
//! - `pvc`: the claim `name`, verbatim, never mounted.

use serde_json::{Map, Value, json};
use strata_k8s::Duration;

use super::Owner;
use crate::build::codes;
use crate::build::pod::{access_modes, quantity};
use crate::build::props::Props;
use crate::build::report::Report;
use crate::build::spec::QuantityValue;

/// Builds a `certificate` trait.
pub(crate) fn certificate(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
) -> Vec<Value> {
    props.unknown(
        report,
        &[
            "secretName",
            "issuerRef",
            "dnsNames",
            "duration",
            "renewBefore",
            "privateKey",
            "scope",
        ],
    );
    let secret = props.text(report, "secretName");
    if secret.is_none() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("secretName"),
            "a certificate needs `secretName`, the Secret it writes (and its own name)",
        );
    }
    let issuer = props.object(report, "issuerRef");
    let issuer_name = issuer
        .as_ref()
        .and_then(|issuer| issuer.text(report, "name"));
    if issuer_name.is_none() {
        report.error(codes::INVALID_PROPERTY, &props.at("issuerRef").key("name"), "a certificate needs `issuerRef.name` (from the profile's `certificate` binding or the trait)");
    }
    let issuer_kind = issuer
        .as_ref()
        .and_then(|issuer| issuer.text(report, "kind"))
        .unwrap_or("ClusterIssuer");
    let names = props.strings(report, "dnsNames");
    if names.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("dnsNames"),
            "a certificate needs at least one of `dnsNames`",
        );
    }
    let mut spec = json!({
        "dnsNames": names,
        "issuerRef": {"kind": issuer_kind, "name": issuer_name.unwrap_or_default()},
        "secretName": secret.unwrap_or_default(),
    });
    for (key, default) in [("duration", "2160h"), ("renewBefore", "360h")] {
        let written = props.text(report, key).unwrap_or(default);
        match Duration::parse(written) {
            Ok(duration) => spec[key] = json!(duration.go_string()),
            Err(why) => report.error(
                codes::INVALID_PROPERTY,
                &props.at(key),
                format!("{why} (cert-manager takes Go durations: `2160h`, not `90d`)"),
            ),
        }
    }
    if let Some(key) = props.object(report, "privateKey") {
        spec["privateKey"] = private_key(report, &key);
    }
    vec![json!({
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": secret.unwrap_or_default(), "namespace": owner.component.namespace},
        "spec": spec,
    })]
}

/// A certificate's `privateKey`: each field checked, only the set ones
/// written.
fn private_key(report: &mut Report<'_>, key: &Props<'_>) -> Value {
    key.unknown(report, &["algorithm", "encoding", "rotationPolicy", "size"]);
    let mut written = Map::new();
    let mut algorithm = None;
    for (field, allowed) in [
        ("algorithm", &["RSA", "ECDSA", "Ed25519"][..]),
        ("encoding", &["PKCS1", "PKCS8"][..]),
        ("rotationPolicy", &["Never", "Always"][..]),
    ] {
        let Some(value) = key.text(report, field) else {
            continue;
        };
        if !allowed.contains(&value) {
            report.error(
                codes::INVALID_PROPERTY,
                &key.at(field),
                format!(
                    "`{value}` is not a `privateKey.{field}`: one of {}",
                    allowed.join(", ")
                ),
            );
        }
        if field == "algorithm" {
            algorithm = Some(value);
        }
        written.insert(field.into(), json!(value));
    }
    if let Some(size) = key.integer(report, "size") {
        let allowed: &[i64] = match algorithm {
            Some("RSA") => &[2048, 4096, 8192],
            Some("ECDSA") => &[256, 384, 521],
            Some("Ed25519") => {
                report.error(
                    codes::INVALID_PROPERTY,
                    &key.at("size"),
                    "an Ed25519 key has a fixed size: leave `privateKey.size` out",
                );
                &[]
            }
            _ => {
                report.error(
                    codes::INVALID_PROPERTY,
                    &key.at("size"),
                    "`privateKey.size` needs `privateKey.algorithm`",
                );
                &[]
            }
        };
        if !allowed.is_empty() && !allowed.contains(&size) {
            let sizes: Vec<String> = allowed.iter().map(i64::to_string).collect();
            report.error(
                codes::INVALID_PROPERTY,
                &key.at("size"),
                format!(
                    "{size} is not a key size of {}: one of {}",
                    algorithm.unwrap_or_default(),
                    sizes.join(", ")
                ),
            );
        }
        if size != 0 {
            written.insert("size".into(), json!(size));
        }
    }
    Value::Object(written)
}

/// Builds a `scaler` trait (only on webservice and worker, which the
/// Application check enforces).
pub(crate) fn scaler(report: &mut Report<'_>, owner: &Owner<'_>, props: &Props<'_>) -> Vec<Value> {
    props.unknown(
        report,
        &[
            "minReplicas",
            "maxReplicas",
            "cpuUtilization",
            "memoryUtilization",
            "enablePDB",
            "scope",
        ],
    );
    let name = owner.component.name;
    let min = props.integer(report, "minReplicas");
    let max = props.integer(report, "maxReplicas");
    let min_value = min.unwrap_or_default();
    if min_value < 1 {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("minReplicas"),
            format!("`minReplicas` must be at least 1, not {min_value}"),
        );
    }
    match max {
        Some(max) if max < min_value => report.error(
            codes::INVALID_PROPERTY,
            &props.at("maxReplicas"),
            format!("`maxReplicas` ({max}) must be at least `minReplicas` ({min_value})"),
        ),
        None => report.error(
            codes::INVALID_PROPERTY,
            &props.at("maxReplicas"),
            "a scaler needs `maxReplicas`",
        ),
        Some(_) => {}
    }
    let memory = props.integer(report, "memoryUtilization");
    let cpu = props
        .integer(report, "cpuUtilization")
        .or(if memory.is_none() { Some(80) } else { None });
    let mut metrics = Vec::new();
    for (resource, key, target) in [
        ("cpu", "cpuUtilization", cpu),
        ("memory", "memoryUtilization", memory),
    ] {
        let Some(target) = target else { continue };
        if !(1..=100).contains(&target) {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at(key),
                format!("`{key}` is a percentage between 1 and 100, not {target}"),
            );
        }
        metrics.push(json!({"resource": {"name": resource, "target": {"averageUtilization": target, "type": "Utilization"}}, "type": "Resource"}));
    }
    let metadata = json!({"labels": {"app": name}, "name": format!("{name}-hpa"), "namespace": owner.component.namespace});
    let mut objects = vec![json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": metadata,
        "spec": {
            "maxReplicas": max.unwrap_or_default(),
            "metrics": metrics,
            "minReplicas": min_value,
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
        },
    })];
    if props.boolean(report, "enablePDB") == Some(true) {
        if min_value < 2 {
            report.error(codes::INVALID_PROPERTY, &props.at("enablePDB"), format!("a PodDisruptionBudget needs `minReplicas` of at least 2 (not {min_value}): with one replica it blocks every voluntary disruption"));
        }
        objects.push(json!({
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"labels": {"app": name}, "name": format!("{name}-pdb"), "namespace": owner.component.namespace},
            "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": name}}},
        }));
    }
    objects
}

/// Builds a `pvc` trait.
pub(crate) fn pvc(report: &mut Report<'_>, owner: &Owner<'_>, props: &Props<'_>) -> Vec<Value> {
    props.unknown(
        report,
        &["name", "size", "storageClassName", "accessModes", "scope"],
    );
    let name = props.text(report, "name");
    if name.is_none() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("name"),
            "a `pvc` trait needs `name`, the claim's",
        );
    }
    let size = if let Some(node) = props.get("size") {
        let value = match &node.value {
            strata_syntax::Value::String(text) => QuantityValue::Text(text.clone()),
            strata_syntax::Value::Int(whole) => QuantityValue::Whole(*whole),
            strata_syntax::Value::Float(fraction) => QuantityValue::Fraction(*fraction),
            _ => QuantityValue::Text(String::new()),
        };
        quantity(report, &value, &props.at("size")).map(|size| size.canonical())
    } else {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("size"),
            format!("the claim `{}` needs a `size`", name.unwrap_or_default()),
        );
        None
    };
    let written_modes: Option<Vec<String>> = props.get("accessModes").map(|_| {
        props
            .strings(report, "accessModes")
            .into_iter()
            .map(str::to_owned)
            .collect()
    });
    if written_modes.as_ref().is_some_and(Vec::is_empty) {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("accessModes"),
            "`accessModes` must not be empty when given",
        );
    }
    let modes = access_modes(report, written_modes.as_deref(), &props.at("accessModes"));
    let mut spec = json!({"accessModes": modes, "resources": {"requests": {"storage": size.unwrap_or_default()}}});
    if let Some(class) = props.text(report, "storageClassName") {
        spec["storageClassName"] = json!(class);
    }
    vec![json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": owner.metadata(name.unwrap_or_default()),
        "spec": spec,
    })]
}

//! The traits that change the component's own objects: `configmap` and
//! `external-secret` (which also add an object of their own) mount or
//! inject what they make into the component's workloads; `security-context`
//! hardens every pod; `prune-protection` marks every object of the
//! component as one Flux must not prune. As in Kure, the changes apply in
//! the order the traits are written, after the component's own settings.
//!
//! A workload is a Deployment, `StatefulSet`, `DaemonSet` or `CronJob` (and a
//! Job for `security-context`); a mount or injection on a component
//! without one is an error, as a volume or mount path already taken is.

use serde_json::{Map, Value, json};
use strata_k8s::Duration;
use strata_k8s::names::is_dns1123_label;

use super::Owner;
use crate::build::codes;
use crate::build::props::Props;
use crate::build::report::Report;

/// The kinds a mount or an injection goes into.
const WORKLOADS: &[&str] = &["Deployment", "StatefulSet", "DaemonSet", "CronJob"];

/// The pod spec of a workload object.
fn pod_spec(object: &mut Value) -> Option<&mut Map<String, Value>> {
    let path: &[&str] = match object["kind"].as_str()? {
        "Deployment" | "StatefulSet" | "DaemonSet" | "Job" => &["spec", "template", "spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => return None,
    };
    let mut node = object;
    for key in path {
        node = node.get_mut(*key)?;
    }
    node.as_object_mut()
}

/// The pod specs of the component's workloads of `kinds`.
fn workloads<'o>(objects: &'o mut [Value], kinds: &[&str]) -> Vec<&'o mut Map<String, Value>> {
    objects
        .iter_mut()
        .filter(|object| {
            object["kind"]
                .as_str()
                .is_some_and(|kind| kinds.contains(&kind))
        })
        .filter_map(pod_spec)
        .collect()
}

/// Mounts the volume `volume` at `mount_path` in the first container of
/// every workload; a taken name or path is an error at `at`.
fn mount(
    report: &mut Report<'_>,
    objects: &mut [Value],
    volume: &Value,
    mount_path: &str,
    props: &Props<'_>,
    what: &str,
) {
    let name = volume["name"].as_str().unwrap_or_default().to_owned();
    let specs = workloads(objects, WORKLOADS);
    if specs.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("mountPath"),
            format!("{what} `mountPath` needs a Deployment, StatefulSet, DaemonSet or CronJob, and this component makes none"),
        );
        return;
    }
    for spec in specs {
        let taken = spec
            .get("volumes")
            .and_then(Value::as_array)
            .is_some_and(|volumes| {
                volumes
                    .iter()
                    .any(|existing| existing["name"] == name.as_str())
            });
        if taken {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at("mountPath"),
                format!("the workload already has a volume `{name}`; give the {what} another name"),
            );
            return;
        }
        let Some(container) = spec
            .get_mut("containers")
            .and_then(Value::as_array_mut)
            .and_then(|containers| containers.first_mut())
        else {
            continue;
        };
        if let Some(existing) = container["volumeMounts"].as_array().and_then(|mounts| {
            mounts
                .iter()
                .find(|existing| existing["mountPath"] == mount_path)
        }) {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at("mountPath"),
                format!(
                    "`{mount_path}` is already the mount path of the volume `{}`",
                    existing["name"].as_str().unwrap_or_default()
                ),
            );
            return;
        }
        append(
            container,
            "volumeMounts",
            json!({"mountPath": mount_path, "name": name}),
        );
        if let Value::Array(volumes) = spec
            .entry("volumes")
            .or_insert_with(|| Value::Array(Vec::new()))
        {
            volumes.push(volume.clone());
        }
    }
}

/// Appends `item` to the list `key` of `map`.
fn append(map: &mut Value, key: &str, item: Value) {
    let Some(map) = map.as_object_mut() else {
        return;
    };
    if let Value::Array(list) = map.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
        list.push(item);
    }
}

/// Builds a `configmap` trait, mounting it when it has a `mountPath`.
pub(crate) fn configmap(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    objects: &mut [Value],
) -> Vec<Value> {
    props.unknown(report, &["name", "data", "mountPath", "scope"]);
    let name = props.text(report, "name");
    if name.is_none() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("name"),
            "a `configmap` trait needs `name`, the ConfigMap's",
        );
    }
    let name = name.unwrap_or_default();
    let data: Map<String, Value> = props
        .text_map(report, "data")
        .into_iter()
        .map(|(key, value)| (key, json!(value)))
        .collect();
    if let Some(path) = props.text(report, "mountPath") {
        mount(
            report,
            objects,
            &json!({"configMap": {"name": name}, "name": name}),
            path,
            props,
            "configmap",
        );
    }
    let mut object = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": owner.metadata(name),
    });
    if !data.is_empty() {
        object["data"] = Value::Object(data);
    }
    vec![object]
}

/// Builds an `external-secret` trait, injecting or mounting its Secret
/// when asked.
pub(crate) fn external_secret(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    objects: &mut [Value],
) -> Vec<Value> {
    props.unknown(
        report,
        &[
            "secretName",
            "secretStoreRef",
            "provider",
            "refreshInterval",
            "targetSecretName",
            "envFrom",
            "mountPath",
            "target",
            "data",
            "dataFrom",
            "remoteRef",
            "scope",
        ],
    );
    let secret = props.text(report, "secretName");
    if secret.is_none() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("secretName"),
            "an `external-secret` needs `secretName`",
        );
    }
    let secret = secret.unwrap_or_default();
    let target_name = props.text(report, "targetSecretName").unwrap_or(secret);
    let store = store_ref(report, props);
    let interval = props.text(report, "refreshInterval").unwrap_or("1h");
    let interval = match Duration::parse(interval) {
        Ok(duration) => duration.go_string(),
        Err(why) => {
            report.error(codes::INVALID_PROPERTY, &props.at("refreshInterval"), why);
            String::new()
        }
    };
    let mut target = json!({"name": target_name});
    if let Some(written) = props.object(report, "target") {
        target_fields(report, &written, &mut target);
    }
    let mut spec = json!({"refreshInterval": interval, "secretStoreRef": store, "target": target});
    let data = secret_data(report, owner, props, secret);
    if !data.is_empty() {
        spec["data"] = Value::Array(data);
    }
    let data_from = secret_data_from(report, props);
    if !data_from.is_empty() {
        spec["dataFrom"] = Value::Array(data_from);
    }
    if props.boolean(report, "envFrom") == Some(true) {
        if props.has("remoteRef") {
            report.error(codes::INVALID_PROPERTY, &props.at("envFrom"), "`envFrom` cannot be combined with the `remoteRef` shorthand, whose key is the secret's name, not a variable name; write `data` entries instead");
        }
        let specs = workloads(objects, WORKLOADS);
        if specs.is_empty() {
            report.error(codes::INVALID_PROPERTY, &props.at("envFrom"), "external-secret `envFrom` needs a Deployment, StatefulSet, DaemonSet or CronJob, and this component makes none");
        }
        for spec in specs {
            if let Some(container) = spec
                .get_mut("containers")
                .and_then(Value::as_array_mut)
                .and_then(|c| c.first_mut())
            {
                append(
                    container,
                    "envFrom",
                    json!({"secretRef": {"name": target_name}}),
                );
            }
        }
    }
    if let Some(path) = props.text(report, "mountPath") {
        if is_dns1123_label(target_name) {
            mount(
                report,
                objects,
                &json!({"name": target_name, "secret": {"secretName": target_name}}),
                path,
                props,
                "external-secret",
            );
        } else {
            report.error(codes::INVALID_PROPERTY, &props.at("mountPath"), format!("the Secret `{target_name}` cannot name a volume (a DNS-1123 label); set `targetSecretName` to one"));
        }
    }
    vec![json!({
        "apiVersion": "external-secrets.io/v1",
        "kind": "ExternalSecret",
        "metadata": owner.metadata(secret),
        "spec": spec,
    })]
}

/// The secret store: `secretStoreRef` (from the profile or the trait),
/// else the `provider` shorthand.
fn store_ref(report: &mut Report<'_>, props: &Props<'_>) -> Value {
    if let Some(store) = props.object(report, "secretStoreRef") {
        store.unknown(report, &["name", "kind"]);
        let name = store.text(report, "name");
        if name.is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &store.at("name"),
                "`secretStoreRef` needs `name`",
            );
        }
        if props.has("provider") {
            report.warning(codes::INVALID_PROPERTY, &props.at("provider"), "`provider` is ignored: the profile's (or the trait's) `secretStoreRef` names the store");
        }
        let kind = store.text(report, "kind").unwrap_or("ClusterSecretStore");
        return json!({"kind": kind, "name": name.unwrap_or_default()});
    }
    if let Some(provider) = props.text(report, "provider") {
        json!({"kind": "ClusterSecretStore", "name": provider})
    } else {
        report.error(codes::INVALID_PROPERTY, &props.path, "an `external-secret` needs a `secretStoreRef` (or `provider`), in the trait or the profile's binding");
        json!({})
    }
}

/// The `target` policies and template.
fn target_fields(report: &mut Report<'_>, written: &Props<'_>, target: &mut Value) {
    written.unknown(report, &["creationPolicy", "deletionPolicy", "template"]);
    for (key, allowed) in [
        ("creationPolicy", &["Owner", "Orphan", "Merge", "None"][..]),
        ("deletionPolicy", &["Delete", "Merge", "Retain"][..]),
    ] {
        if let Some(value) = written.text(report, key) {
            if !allowed.contains(&value) {
                report.error(
                    codes::INVALID_PROPERTY,
                    &written.at(key),
                    format!(
                        "`{value}` is not a `target.{key}`: one of {}",
                        allowed.join(", ")
                    ),
                );
            }
            target[key] = json!(value);
        }
    }
    if let Some(template) = written.object(report, "template") {
        template.unknown(report, &["type", "data"]);
        let mut out = Map::new();
        if let Some(kind) = template.text(report, "type") {
            out.insert("type".into(), json!(kind));
        }
        let data: Map<String, Value> = template
            .text_map(report, "data")
            .into_iter()
            .map(|(k, v)| (k, json!(v)))
            .collect();
        if !data.is_empty() {
            out.insert("data".into(), Value::Object(data));
        }
        target["template"] = Value::Object(out);
    }
}

/// The `data` entries (or the `remoteRef` shorthand); a `remoteRef.key`
/// defaults to `<namespace>/<secretName>`, its `property` to the entry's
/// key.
fn secret_data(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    secret: &str,
) -> Vec<Value> {
    if let Some(shorthand) = props.object(report, "remoteRef") {
        if props.has("data") || props.has("dataFrom") {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at("remoteRef"),
                "the `remoteRef` shorthand cannot be combined with `data` or `dataFrom`",
            );
        }
        let reference = remote_ref(report, &shorthand, None, None);
        return vec![json!({"remoteRef": reference, "secretKey": secret})];
    }
    let env_from = props
        .get("envFrom")
        .is_some_and(|node| matches!(node.value, strata_syntax::Value::Bool(true)));
    props
        .objects(report, "data")
        .iter()
        .map(|entry| {
            entry.unknown(report, &["secretKey", "remoteRef"]);
            let key = entry.text(report, "secretKey");
            if key.is_none() {
                report.error(
                    codes::INVALID_PROPERTY,
                    &entry.at("secretKey"),
                    "a `data` entry needs `secretKey`",
                );
            }
            let key = key.unwrap_or_default();
            if env_from && !is_env_name(key) {
                report.error(
                    codes::INVALID_PROPERTY,
                    &entry.at("secretKey"),
                    format!("`{key}` is not an environment variable name, which `envFrom` needs"),
                );
            }
            let default_key = format!("{}/{secret}", owner.component.namespace);
            let reference = match entry.object(report, "remoteRef") {
                Some(reference) => remote_ref(report, &reference, Some(&default_key), Some(key)),
                None => json!({"key": default_key, "property": key}),
            };
            json!({"remoteRef": reference, "secretKey": key})
        })
        .collect()
}

/// A `remoteRef`, its empty fields left out.
fn remote_ref(
    report: &mut Report<'_>,
    reference: &Props<'_>,
    default_key: Option<&str>,
    default_property: Option<&str>,
) -> Value {
    reference.unknown(report, &["key", "property", "version", "decodingStrategy"]);
    let mut out = Map::new();
    let key = reference.text(report, "key").or(default_key);
    match key {
        Some(key) => {
            out.insert("key".into(), json!(key));
        }
        None => report.error(
            codes::INVALID_PROPERTY,
            &reference.at("key"),
            "`remoteRef` needs `key`",
        ),
    }
    if let Some(property) = reference.text(report, "property").or(default_property) {
        out.insert("property".into(), json!(property));
    }
    for field in ["version", "decodingStrategy"] {
        if let Some(value) = reference.text(report, field) {
            out.insert(field.into(), json!(value));
        }
    }
    Value::Object(out)
}

/// The `dataFrom` entries: `extract` or `find`.
fn secret_data_from(report: &mut Report<'_>, props: &Props<'_>) -> Vec<Value> {
    props
        .objects(report, "dataFrom")
        .iter()
        .map(|entry| {
            entry.unknown(report, &["extract", "find"]);
            let mut out = Map::new();
            if let Some(extract) = entry.object(report, "extract") {
                extract.unknown(
                    report,
                    &[
                        "key",
                        "decodingStrategy",
                        "conversionStrategy",
                        "metadataPolicy",
                    ],
                );
                let mut written = Map::new();
                if extract.text(report, "key").is_none() {
                    report.error(
                        codes::INVALID_PROPERTY,
                        &extract.at("key"),
                        "`extract` needs `key`",
                    );
                }
                for field in [
                    "key",
                    "decodingStrategy",
                    "conversionStrategy",
                    "metadataPolicy",
                ] {
                    if let Some(value) = extract.text(report, field) {
                        written.insert(field.into(), json!(value));
                    }
                }
                out.insert("extract".into(), Value::Object(written));
            }
            if let Some(find) = entry.object(report, "find") {
                find.unknown(report, &["name", "tags"]);
                let mut written = Map::new();
                if let Some(name) = find.object(report, "name") {
                    name.unknown(report, &["regexp"]);
                    written.insert(
                        "name".into(),
                        json!({"regexp": name.text(report, "regexp").unwrap_or_default()}),
                    );
                }
                let tags: Map<String, Value> = find
                    .text_map(report, "tags")
                    .into_iter()
                    .map(|(k, v)| (k, json!(v)))
                    .collect();
                if !tags.is_empty() {
                    written.insert("tags".into(), Value::Object(tags));
                }
                if written.is_empty() {
                    report.error(
                        codes::INVALID_PROPERTY,
                        &find.path,
                        "`find` needs `name` or `tags`",
                    );
                }
                out.insert("find".into(), Value::Object(written));
            }
            if out.is_empty() {
                report.error(
                    codes::INVALID_PROPERTY,
                    &entry.path,
                    "a `dataFrom` entry needs `extract` or `find`",
                );
            }
            Value::Object(out)
        })
        .collect()
}

/// Whether `name` may name an environment variable (Kubernetes'
/// `IsEnvVarName`: printable ASCII without `=`).
fn is_env_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'=')
}

/// Builds a `security-context` trait: every pod and container of the
/// component's workloads gets the context of its PSA level, replacing
/// what was there (Kure bug B4 when that drops authored settings).
pub(crate) fn security_context(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    objects: &mut [Value],
) -> Vec<Value> {
    props.unknown(
        report,
        &[
            "psaLevel",
            "runAsNonRoot",
            "allowPrivilegeEscalation",
            "readOnlyRootFilesystem",
            "runAsUser",
            "runAsGroup",
            "fsGroup",
            "scope",
        ],
    );
    let Some((pod, container)) = level_contexts(report, props) else {
        return Vec::new();
    };
    let fixes = owner.component.fixes;
    let mut dropped = Vec::new();
    for spec in workloads(
        objects,
        &["Deployment", "StatefulSet", "DaemonSet", "CronJob", "Job"],
    ) {
        spec.insert("securityContext".into(), Value::Object(pod.clone()));
        for list in ["containers", "initContainers"] {
            let Some(containers) = spec.get_mut(list).and_then(Value::as_array_mut) else {
                continue;
            };
            for each in containers.iter_mut() {
                let before = each
                    .get("securityContext")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let after = if fixes {
                    merged(&before, &container)
                } else {
                    container.clone()
                };
                if !fixes {
                    dropped.extend(
                        before
                            .iter()
                            .filter(|(key, value)| container.get(*key) != Some(value))
                            .map(|(key, _)| key.clone()),
                    );
                }
                each["securityContext"] = Value::Object(after);
            }
        }
    }
    dropped.sort();
    dropped.dedup();
    if !dropped.is_empty() {
        report.warning(
            codes::KURE_BUG,
            &props.at("psaLevel"),
            format!("Kure replaces each container's security context, dropping the component's own `{}` (Kure bug B4); the build keeps Kure's output", dropped.join("`, `")),
        );
        report
            .help("`--fix-kure-bugs` applies the level over the component's own settings instead");
    }
    Vec::new()
}

/// The pod and container contexts of the trait's PSA level and
/// overrides; `None` when the level is missing or unknown.
fn level_contexts(
    report: &mut Report<'_>,
    props: &Props<'_>,
) -> Option<(Map<String, Value>, Map<String, Value>)> {
    let level = props.text(report, "psaLevel");
    let restricted = match level {
        Some("restricted") => true,
        Some("baseline" | "privileged") => false,
        Some(other) => {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at("psaLevel"),
                format!("`{other}` is not a PSA level: restricted, baseline or privileged"),
            );
            return None;
        }
        None => {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at("psaLevel"),
                "`security-context` needs `psaLevel`",
            );
            return None;
        }
    };
    let flags: Vec<(&str, Option<bool>)> = [
        "runAsNonRoot",
        "allowPrivilegeEscalation",
        "readOnlyRootFilesystem",
    ]
    .into_iter()
    .map(|key| (key, props.boolean(report, key)))
    .collect();
    let ids: Vec<(&str, Option<i64>)> = ["runAsUser", "runAsGroup", "fsGroup"]
        .into_iter()
        .map(|key| (key, props.integer(report, key)))
        .collect();
    let flag = |key: &str| flags.iter().find(|(k, _)| *k == key).and_then(|(_, v)| *v);
    if restricted {
        for (key, refused) in [
            ("allowPrivilegeEscalation", true),
            ("runAsNonRoot", false),
            ("readOnlyRootFilesystem", false),
        ] {
            if flag(key) == Some(refused) {
                report.error(
                    codes::INVALID_PROPERTY,
                    &props.at(key),
                    format!("`{key}: {refused}` is incompatible with `psaLevel: restricted`"),
                );
            }
        }
    }
    let mut pod = Map::new();
    let mut container = Map::new();
    if restricted {
        pod.insert("runAsNonRoot".into(), json!(true));
        pod.insert("seccompProfile".into(), json!({"type": "RuntimeDefault"}));
        container.insert("allowPrivilegeEscalation".into(), json!(false));
        container.insert("runAsNonRoot".into(), json!(true));
        container.insert("readOnlyRootFilesystem".into(), json!(true));
        container.insert("capabilities".into(), json!({"drop": ["ALL"]}));
        container.insert("seccompProfile".into(), json!({"type": "RuntimeDefault"}));
        if let Some(value) = flag("runAsNonRoot") {
            pod.insert("runAsNonRoot".into(), json!(value));
        }
    }
    for (key, value) in &ids {
        if let Some(value) = value {
            pod.insert((*key).into(), json!(value));
        }
    }
    for (key, value) in &flags {
        if let Some(value) = value
            && (restricted || *key != "runAsNonRoot")
        {
            container.insert((*key).into(), json!(value));
        }
    }
    Some((pod, container))
}

/// The level's container context over the component's own: what the
/// level sets wins, and the capabilities it drops are added to the
/// component's, which keeps the ones it adds.
fn merged(before: &Map<String, Value>, level: &Map<String, Value>) -> Map<String, Value> {
    let mut after = before.clone();
    for (key, value) in level {
        if key == "capabilities" {
            let mut capabilities = before.get(key).cloned().unwrap_or_else(|| json!({}));
            let mut drop: Vec<Value> = capabilities["drop"].as_array().cloned().unwrap_or_default();
            for name in value["drop"].as_array().into_iter().flatten() {
                if !drop.contains(name) {
                    drop.push(name.clone());
                }
            }
            capabilities["drop"] = Value::Array(drop);
            after.insert(key.clone(), capabilities);
        } else {
            after.insert(key.clone(), value.clone());
        }
    }
    after
}

/// Builds a `prune-protection` trait: every object of the component is
/// marked so that Flux never prunes it.
pub(crate) fn prune_protection(
    report: &mut Report<'_>,
    props: &Props<'_>,
    objects: &mut [Value],
) -> Vec<Value> {
    props.unknown(report, &["scope"]);
    for object in objects.iter_mut() {
        let metadata = &mut object["metadata"];
        if let Some(metadata) = metadata.as_object_mut() {
            let annotations = metadata.entry("annotations").or_insert_with(|| json!({}));
            annotations["kustomize.toolkit.fluxcd.io/prune"] = json!("disabled");
        }
    }
    Vec::new()
}

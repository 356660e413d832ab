//! The pod every workload component builds: the main container (image,
//! resources with Kure's defaults, environment, probes, hooks, security
//! context, mounts), init containers, sidecars, volumes and the claims of
//! `pvc` volumes, checked as Kure's launcher checks them (`common.go`,
//! `enforce.go`).
//!
//! The objects carry what Kure's Go types carry: a field is written when
//! Go's `omitempty` would write it, so `resourceFieldRef.divisor` is `"0"`
//! when none is given and a gRPC probe's `service` is `null`.

use serde_json::{Map, Value, json};
use strata_k8s::names::{is_dns1123_label, is_dns1123_subdomain};
use strata_k8s::{Quantity, parse_quantity};
use strata_syntax::FieldPath;

use super::env::{env_from_list, env_list};
use super::probes::{add_probes, lifecycle_hooks};
use super::report::Report;
use super::security::security_context;
use super::spec::{
    Affinity, AntiAffinityType, ExtraContainer, Pod, QuantityValue, Resources, Volume, VolumeType,
};
use super::{Component, codes};

/// The main container's port, as probes may name it.
#[derive(Clone, Copy)]
pub(crate) struct MainPort<'a> {
    /// The number (`None`: the container has no port).
    pub number: Option<i64>,
    /// Its name (`http`, `tcp`).
    pub name: &'a str,
    /// Whether probes may name ports at all (not for worker and cronjob).
    pub named_allowed: bool,
}

/// What a workload's pod is built into.
pub(crate) struct BuiltPod {
    /// The main container.
    pub container: Map<String, Value>,
    /// Init containers, in order.
    pub init_containers: Vec<Value>,
    /// Sidecars, after the main container.
    pub sidecars: Vec<Value>,
    /// The pod's volumes.
    pub volumes: Vec<Value>,
    /// The claims of `pvc` volumes (objects of their own).
    pub claims: Vec<Value>,
    /// Whether a claim is `ReadWriteOnce` or `ReadWriteOncePod`, with the
    /// path of the first such volume.
    pub exclusive_claim: Option<FieldPath>,
}

impl BuiltPod {
    /// The pod spec's containers: the main one, then the sidecars.
    pub(crate) fn containers(&self) -> Value {
        let mut containers = vec![Value::Object(self.container.clone())];
        containers.extend(self.sidecars.iter().cloned());
        Value::Array(containers)
    }

    /// Adds the init containers and volumes to `spec`, when there are any.
    pub(crate) fn finish_spec(&self, spec: &mut Map<String, Value>) {
        if !self.init_containers.is_empty() {
            spec.insert(
                "initContainers".into(),
                Value::Array(self.init_containers.clone()),
            );
        }
        if !self.volumes.is_empty() {
            spec.insert("volumes".into(), Value::Array(self.volumes.clone()));
        }
    }
}

/// The default requests of every container (Kure's launcher overrides
/// kure's own 256Mi).
const DEFAULT_CPU_REQUEST: &str = "100m";
const DEFAULT_MEMORY_REQUEST: &str = "128Mi";

/// Builds the pod of `component` from `pod`; `port` is the main
/// container's.
pub(crate) fn build(
    report: &mut Report<'_>,
    component: &Component<'_>,
    pod: &Pod,
    port: MainPort<'_>,
) -> BuiltPod {
    let root = FieldPath::root();
    let mut container = Map::new();
    container.insert("name".into(), json!(component.name));
    check_image(report, &pod.image, &root.key("image"));
    container.insert("image".into(), json!(pod.image));
    container.insert("imagePullPolicy".into(), json!("IfNotPresent"));
    strings(&mut container, "command", &pod.command);
    strings(&mut container, "args", &pod.args);
    container.insert(
        "resources".into(),
        resources(report, pod.resources.as_ref(), &root.key("resources")),
    );
    if let Some(number) = port.number {
        container.insert(
            "ports".into(),
            json!([{"containerPort": number, "name": port.name, "protocol": "TCP"}]),
        );
    }
    let env = env_list(report, &pod.env, &root.key("env"));
    if !env.is_empty() {
        container.insert("env".into(), Value::Array(env));
    }
    let env_from = env_from_list(report, &pod.env_from, &root.key("envFrom"));
    if !env_from.is_empty() {
        container.insert("envFrom".into(), Value::Array(env_from));
    }
    if let Some(probes) = &pod.probes {
        add_probes(report, &mut container, probes, port, &root.key("probes"));
    }
    if let Some(lifecycle) = &pod.lifecycle
        && let Some(hooks) = lifecycle_hooks(report, lifecycle, port, &root.key("lifecycle"))
    {
        container.insert("lifecycle".into(), hooks);
    }
    if let Some(context) = &pod.security_context {
        let written = security_context(report, context, &root.key("securityContext"));
        if !written.is_empty() {
            container.insert("securityContext".into(), Value::Object(written));
        }
    }
    if let Some(dir) = pod.working_dir.as_deref().filter(|dir| !dir.is_empty()) {
        container.insert("workingDir".into(), json!(dir));
    }
    let mut built = BuiltPod {
        container,
        init_containers: Vec::new(),
        sidecars: Vec::new(),
        volumes: Vec::new(),
        claims: Vec::new(),
        exclusive_claim: None,
    };
    volumes(report, component, pod, &mut built);
    let path = root.key("initContainers");
    for (index, init) in pod.init_containers.iter().enumerate() {
        let container = extra_container(report, init, &path.index(index), false);
        built.init_containers.push(container);
    }
    built
}

/// The sidecars of a workload that takes them.
pub(crate) fn sidecars(report: &mut Report<'_>, sidecars: &[ExtraContainer], built: &mut BuiltPod) {
    let path = FieldPath::root().key("sidecars");
    for (index, sidecar) in sidecars.iter().enumerate() {
        let container = extra_container(report, sidecar, &path.index(index), true);
        built.sidecars.push(container);
    }
}

/// `key: [..]` when `items` is not empty.
fn strings(container: &mut Map<String, Value>, key: &str, items: &[String]) {
    if !items.is_empty() {
        container.insert(key.into(), json!(items));
    }
}

/// Kure's image rule (`ValidateImageRef`): a reference with a tag other
/// than `latest`, or a digest.
fn check_image(report: &mut Report<'_>, image: &str, path: &FieldPath) {
    match image_problem(image) {
        Some(ImageProblem::Latest) => {
            report.error(
                codes::IMAGE_REFERENCE,
                path,
                format!("the image `{image}` uses the `latest` tag: a build must name the version it deploys"),
            );
            report.help("write an explicit version tag (`:v1.2.3`) or a digest (`@sha256:…`)");
        }
        Some(ImageProblem::Untagged) => {
            report.error(
                codes::IMAGE_REFERENCE,
                path,
                format!(
                    "the image `{image}` has no tag or digest: it would pull whatever `latest` is"
                ),
            );
            report.help("write an explicit version tag (`:v1.2.3`) or a digest (`@sha256:…`)");
        }
        Some(ImageProblem::Malformed(why)) => report.error(
            codes::IMAGE_REFERENCE,
            path,
            format!("`{image}` is not an image reference: {why}"),
        ),
        None => {}
    }
}

enum ImageProblem {
    Latest,
    Untagged,
    Malformed(&'static str),
}

/// What is wrong with an image reference, as go-containerregistry's
/// `name.ParseReference` and Kure's tag rule see it.
fn image_problem(image: &str) -> Option<ImageProblem> {
    let (rest, digest) = match image.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (image, None),
    };
    if let Some(digest) = digest {
        let valid = digest.strip_prefix("sha256:").is_some_and(|hex| {
            hex.len() == 64
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        });
        if !valid {
            return Some(ImageProblem::Malformed(
                "a digest is `sha256:` and 64 lowercase hex digits",
            ));
        }
    }
    let last_slash = rest.rfind('/').map_or(0, |at| at + 1);
    let (repository, tag) = match rest[last_slash..].rfind(':') {
        Some(at) => (&rest[..last_slash + at], Some(&rest[last_slash + at + 1..])),
        None => (rest, None),
    };
    if repository.is_empty() {
        return Some(ImageProblem::Malformed("the repository is empty"));
    }
    let (registry, path) = match repository.split_once('/') {
        Some((first, path)) if first.contains(['.', ':']) || first == "localhost" => {
            (Some(first), path)
        }
        _ => (None, repository),
    };
    if registry.is_some_and(|registry| {
        !registry
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
    }) {
        return Some(ImageProblem::Malformed("the registry is not a host name"));
    }
    let component_ok = |part: &str| {
        !part.is_empty()
            && part.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            && part.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
    };
    if !path.split('/').all(component_ok) {
        return Some(ImageProblem::Malformed(
            "a repository is lowercase letters, digits and `.`, `_`, `-` between them",
        ));
    }
    match tag {
        Some(tag) => {
            let valid = tag.len() <= 128
                && tag.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                && tag
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
            if !valid {
                return Some(ImageProblem::Malformed(
                    "a tag is letters, digits, `_`, `.` and `-` (at most 128, not starting with `.` or `-`)",
                ));
            }
            (tag == "latest" && digest.is_none()).then_some(ImageProblem::Latest)
        }
        None => digest.is_none().then_some(ImageProblem::Untagged),
    }
}

/// A quantity property, parsed; a wrong one reported at `path`.
pub(crate) fn quantity(
    report: &mut Report<'_>,
    value: &QuantityValue,
    path: &FieldPath,
) -> Option<Quantity> {
    let text = match value {
        QuantityValue::Text(text) => text.clone(),
        QuantityValue::Whole(whole) => whole.to_string(),
        QuantityValue::Fraction(fraction) => fraction.to_string(),
    };
    match parse_quantity(&text) {
        Ok(quantity) if quantity.to_f64() >= 0.0 => Some(quantity),
        Ok(_) => {
            report.error(
                codes::INVALID_PROPERTY,
                path,
                format!("`{text}` is negative; a quantity here is at least 0"),
            );
            None
        }
        Err(why) => {
            report.error(
                codes::INVALID_PROPERTY,
                path,
                format!("`{text}` is not a Kubernetes quantity: {why}"),
            );
            None
        }
    }
}

/// Whether `name` is a resource a container may request (Kure's
/// `validateResourceName`).
fn resource_name_problem(name: &str) -> Option<&'static str> {
    if matches!(name, "cpu" | "memory" | "ephemeral-storage") {
        return None;
    }
    if let Some(size) = name.strip_prefix("hugepages-") {
        return parse_quantity(size)
            .is_err()
            .then_some("a huge page resource is `hugepages-<size>` (`hugepages-2Mi`)");
    }
    if name.contains('/') {
        if name.contains("kubernetes.io/") || name.starts_with("requests.") {
            return Some("an extended resource may not be in the `kubernetes.io` domain");
        }
        return None;
    }
    Some(
        "a resource is `cpu`, `memory`, `ephemeral-storage`, `hugepages-<size>` or an extended `domain/name`",
    )
}

/// The container's resources: Kure's checks, then its defaults (requests
/// `cpu: 100m`, `memory: 128Mi`; limit `memory` as the request).
pub(crate) fn resources(
    report: &mut Report<'_>,
    resources: Option<&Resources>,
    path: &FieldPath,
) -> Value {
    let empty = Resources::default();
    let resources = resources.unwrap_or(&empty);
    let mut written = [Map::new(), Map::new()];
    let mut parsed: [Vec<(String, Quantity)>; 2] = [Vec::new(), Vec::new()];
    for (side, (key, entries)) in [
        ("requests", &resources.requests),
        ("limits", &resources.limits),
    ]
    .into_iter()
    .enumerate()
    {
        for (name, value) in entries {
            let at = path.key(key).key(name);
            if let Some(why) = resource_name_problem(name) {
                report.error(
                    codes::INVALID_PROPERTY,
                    &at,
                    format!("`{name}` is not a container resource: {why}"),
                );
                continue;
            }
            let Some(quantity) = quantity(report, value, &at) else {
                continue;
            };
            let fractional_allowed =
                matches!(name.as_str(), "cpu" | "memory" | "ephemeral-storage");
            if !fractional_allowed && quantity.to_f64().fract() != 0.0 {
                report.error(
                    codes::INVALID_PROPERTY,
                    &at,
                    format!("`{name}` must be a whole number, not `{quantity}`"),
                );
            }
            written[side].insert(name.clone(), json!(quantity.canonical()));
            parsed[side].push((name.clone(), quantity));
        }
    }
    let [requests, limits] = &parsed;
    let find = |list: &[(String, Quantity)], name: &str| {
        list.iter()
            .find(|(key, _)| key == name)
            .map(|(_, quantity)| quantity.clone())
    };
    for (name, request) in requests {
        let limit = find(limits, name);
        let overcommittable = matches!(name.as_str(), "cpu" | "memory" | "ephemeral-storage");
        match limit {
            Some(limit) if overcommittable && request.to_f64() > limit.to_f64() => report.error(
                codes::INVALID_PROPERTY,
                &path.key("requests").key(name),
                format!("the `{name}` request `{request}` exceeds its limit `{limit}`"),
            ),
            Some(limit)
                if !overcommittable && request.to_f64().total_cmp(&limit.to_f64()).is_ne() =>
            {
                report.error(
                    codes::INVALID_PROPERTY,
                    &path.key("requests").key(name),
                    format!("the `{name}` request `{request}` must equal its limit `{limit}`"),
                );
            }
            None if !overcommittable => report.error(
                codes::INVALID_PROPERTY,
                &path.key("requests").key(name),
                format!("`{name}` needs a limit equal to its request"),
            ),
            _ => {}
        }
    }
    // Kure defaults a missing request after its checks, so a limit below
    // the default request makes an object the API server refuses.
    for (name, default) in [
        ("cpu", DEFAULT_CPU_REQUEST),
        ("memory", DEFAULT_MEMORY_REQUEST),
    ] {
        if find(requests, name).is_some() {
            continue;
        }
        if let Some(limit) = find(limits, name)
            && let Ok(default_quantity) = parse_quantity(default)
            && default_quantity.to_f64() > limit.to_f64()
        {
            report.error(
                codes::INVALID_PROPERTY,
                &path.key("limits").key(name),
                format!("the `{name}` limit `{limit}` is below the default request `{default}`, which Kubernetes refuses"),
            );
            report.help(format!("set `requests.{name}` to at most `{limit}`"));
        }
        written[0].insert(name.into(), json!(default));
    }
    if !written[1].contains_key("memory")
        && let Some(memory) = written[0].get("memory").cloned()
    {
        written[1].insert("memory".into(), memory);
    }
    let [requests, limits] = written;
    json!({"limits": limits, "requests": requests})
}

/// The keys each volume type takes besides `name`, `mountPath`,
/// `readOnly` and `type`.
fn volume_keys(kind: VolumeType) -> &'static [&'static str] {
    match kind {
        VolumeType::EmptyDir => &["sizeLimit"],
        VolumeType::ConfigMap => &["configMapName"],
        VolumeType::Secret => &["secretName"],
        VolumeType::Pvc => &["size", "storageClass", "accessModes"],
        VolumeType::HostPath => &["path"],
    }
}

/// The access modes a claim may ask for.
const ACCESS_MODES: &[&str] = &[
    "ReadWriteOnce",
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOncePod",
];

fn volumes(report: &mut Report<'_>, component: &Component<'_>, pod: &Pod, built: &mut BuiltPod) {
    let path = FieldPath::root().key("volumes");
    let mut names = Vec::new();
    let mut mount_paths = Vec::new();
    let mut mounts = Vec::new();
    for (index, volume) in pod.volumes.iter().enumerate() {
        let at = path.index(index);
        if !is_dns1123_label(&volume.name) {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key("name"),
                format!("`{}` is not a volume name (a DNS-1123 label)", volume.name),
            );
        }
        if names.contains(&volume.name.as_str()) {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key("name"),
                format!("two volumes are named `{}`", volume.name),
            );
        }
        names.push(volume.name.as_str());
        if volume.mount_path.is_empty() {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key("mountPath"),
                "a volume needs a `mountPath`",
            );
        } else if mount_paths.contains(&volume.mount_path.as_str()) {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key("mountPath"),
                format!("two volumes are mounted at `{}`", volume.mount_path),
            );
        }
        mount_paths.push(volume.mount_path.as_str());
        check_volume_keys(report, volume, &at);
        let source = volume_source(report, component, volume, &at, built);
        let mut entry = json!({"name": volume.name});
        if let (Value::Object(entry), Value::Object(source)) = (&mut entry, source) {
            entry.extend(source);
        }
        built.volumes.push(entry);
        let mut mount = json!({"name": volume.name, "mountPath": volume.mount_path});
        if volume.read_only == Some(true) {
            mount["readOnly"] = json!(true);
        }
        mounts.push(mount);
    }
    if !mounts.is_empty() {
        append_mounts(&mut built.container, mounts);
    }
}

/// Appends mounts to a container's `volumeMounts`.
pub(crate) fn append_mounts(container: &mut Map<String, Value>, mounts: Vec<Value>) {
    let entry = container
        .entry("volumeMounts")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(existing) = entry {
        existing.extend(mounts);
    }
}

fn volume_type_name(kind: VolumeType) -> &'static str {
    match kind {
        VolumeType::EmptyDir => "emptyDir",
        VolumeType::ConfigMap => "configMap",
        VolumeType::Secret => "secret",
        VolumeType::Pvc => "pvc",
        VolumeType::HostPath => "hostPath",
    }
}

fn required<'v>(
    report: &mut Report<'_>,
    value: Option<&'v str>,
    at: &FieldPath,
    key: &str,
    kind: &str,
) -> &'v str {
    if let Some(value) = value.filter(|value| !value.is_empty()) {
        value
    } else {
        report.error(
            codes::INVALID_PROPERTY,
            at,
            format!("a `{kind}` volume needs `{key}`"),
        );
        ""
    }
}

/// The claim of a `pvc` volume: its object, and its name (Kure's
/// `<component>-<volume>` with every `-` of each part doubled, bug B1,
/// unless the fixed names are asked for).
fn claim(
    report: &mut Report<'_>,
    component: &Component<'_>,
    volume: &Volume,
    at: &FieldPath,
    built: &mut BuiltPod,
) -> String {
    let kure_name = format!(
        "{}-{}",
        component.name.replace('-', "--"),
        volume.name.replace('-', "--")
    );
    let fixed_name = format!("{}-{}", component.name, volume.name);
    let name = if component.fixes && kure_name != fixed_name {
        fixed_name
    } else {
        if kure_name != fixed_name {
            report.warning(
                codes::KURE_BUG,
                &at.key("name"),
                format!("Kure names this claim `{kure_name}`, doubling every `-` (Kure bug B1); the build keeps Kure's name so that existing claims stay bound"),
            );
            report.help(format!("`--fix-kure-bugs` names it `{fixed_name}` (a new, empty claim for an existing deployment)"));
        }
        kure_name
    };
    if !is_dns1123_subdomain(&name) {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("name"),
            format!("the claim name `{name}` is not a DNS-1123 subdomain"),
        );
    }
    let size = if let Some(size) = &volume.size {
        quantity(report, size, &at.key("size")).map(|size| size.canonical())
    } else {
        report.error(codes::INVALID_PROPERTY, at, "a `pvc` volume needs `size`");
        None
    };
    let modes = access_modes(
        report,
        volume.access_modes.as_deref(),
        &at.key("accessModes"),
    );
    if built.exclusive_claim.is_none()
        && modes
            .iter()
            .any(|mode| mode == "ReadWriteOnce" || mode == "ReadWriteOncePod")
    {
        built.exclusive_claim = Some(at.clone());
    }
    let mut spec = json!({
        "accessModes": modes,
        "resources": {"requests": {"storage": size.unwrap_or_default()}},
    });
    if let Some(class) = &volume.storage_class {
        if !class.is_empty() && !is_dns1123_subdomain(class) {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key("storageClass"),
                format!("`{class}` is not a storage class name"),
            );
        }
        spec["storageClassName"] = json!(class);
    }
    built.claims.push(json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"labels": {"app": component.name}, "name": name, "namespace": component.namespace},
        "spec": spec,
    }));
    name
}

/// Access modes (`[ReadWriteOnce]` when none are given).
pub(crate) fn access_modes(
    report: &mut Report<'_>,
    modes: Option<&[String]>,
    path: &FieldPath,
) -> Vec<String> {
    let Some(modes) = modes.filter(|modes| !modes.is_empty()) else {
        return vec!["ReadWriteOnce".to_owned()];
    };
    for (index, mode) in modes.iter().enumerate() {
        if !ACCESS_MODES.contains(&mode.as_str()) {
            report.error(
                codes::INVALID_PROPERTY,
                &path.index(index),
                format!(
                    "`{mode}` is not an access mode: one of {}",
                    ACCESS_MODES.join(", ")
                ),
            );
        }
    }
    if modes.len() > 1 && modes.iter().any(|mode| mode == "ReadWriteOncePod") {
        report.error(
            codes::INVALID_PROPERTY,
            path,
            "`ReadWriteOncePod` cannot be combined with other access modes",
        );
    }
    modes.to_vec()
}

/// An init container or sidecar: name and image checked, resources with
/// the main container's defaults.
fn extra_container(
    report: &mut Report<'_>,
    container: &ExtraContainer,
    path: &FieldPath,
    sidecar: bool,
) -> Value {
    if !is_dns1123_label(&container.name) {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("name"),
            format!(
                "`{}` is not a container name (a DNS-1123 label)",
                container.name
            ),
        );
    }
    check_image(report, &container.image, &path.key("image"));
    let mut written = Map::new();
    written.insert("name".into(), json!(container.name));
    written.insert("image".into(), json!(container.image));
    written.insert("imagePullPolicy".into(), json!("IfNotPresent"));
    written.insert(
        "resources".into(),
        resources(report, container.resources.as_ref(), &path.key("resources")),
    );
    strings(&mut written, "command", &container.command);
    strings(&mut written, "args", &container.args);
    let env = env_list(report, &container.env, &path.key("env"));
    if !env.is_empty() {
        written.insert("env".into(), Value::Array(env));
    }
    let mut mount_paths = Vec::new();
    let mounts: Vec<Value> = container
        .volume_mounts
        .iter()
        .enumerate()
        .map(|(index, mount)| {
            if mount_paths.contains(&mount.mount_path.as_str()) {
                report.error(
                    codes::INVALID_PROPERTY,
                    &path.key("volumeMounts").index(index).key("mountPath"),
                    format!("two mounts at `{}`", mount.mount_path),
                );
            }
            mount_paths.push(mount.mount_path.as_str());
            let mut entry = json!({"name": mount.name, "mountPath": mount.mount_path});
            if mount.read_only == Some(true) {
                entry["readOnly"] = json!(true);
            }
            if let Some(sub) = mount.sub_path.as_deref().filter(|sub| !sub.is_empty()) {
                entry["subPath"] = json!(sub);
            }
            entry
        })
        .collect();
    if !mounts.is_empty() {
        written.insert("volumeMounts".into(), Value::Array(mounts));
    }
    if !container.ports.is_empty() {
        if !sidecar {
            report.error(
                codes::INVALID_PROPERTY,
                &path.key("ports"),
                "an init container takes no `ports`",
            );
        }
        let ports: Vec<Value> = container
            .ports
            .iter()
            .map(|port| {
                let mut entry = json!({
                    "containerPort": port.container_port,
                    "protocol": port.protocol.map_or("TCP", super::spec::Protocol::name),
                });
                if let Some(name) = &port.name {
                    entry["name"] = json!(name);
                }
                entry
            })
            .collect();
        written.insert("ports".into(), Value::Array(ports));
    }
    Value::Object(written)
}

/// Pod anti-affinity and node selection, when either is asked for.
pub(crate) fn affinity(component: &Component<'_>, affinity: Option<&Affinity>) -> Option<Value> {
    let affinity = affinity?;
    let mut written = Map::new();
    if affinity.enable_pod_anti_affinity == Some(true) {
        let topology_key = affinity
            .topology_key
            .as_deref()
            .filter(|key| !key.is_empty())
            .unwrap_or("kubernetes.io/hostname");
        let term = json!({"labelSelector": {"matchLabels": {"app": component.name}}, "topologyKey": topology_key});
        let anti = match affinity
            .pod_anti_affinity_type
            .unwrap_or(AntiAffinityType::Preferred)
        {
            AntiAffinityType::Preferred => {
                json!({"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": term}]})
            }
            AntiAffinityType::Required => {
                json!({"requiredDuringSchedulingIgnoredDuringExecution": [term]})
            }
        };
        written.insert("podAntiAffinity".into(), anti);
    }
    if !affinity.node_selector.is_empty() {
        let expressions: Vec<Value> = affinity
            .node_selector
            .iter()
            .map(|(key, value)| json!({"key": key, "operator": "In", "values": [value]}))
            .collect();
        written.insert(
            "nodeAffinity".into(),
            json!({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": expressions}]}}),
        );
    }
    (!written.is_empty()).then_some(Value::Object(written))
}

/// Kure's topology spread: over nodes from two replicas, over zones from
/// three.
pub(crate) fn topology_spread(
    component: &Component<'_>,
    replicas: i64,
    enabled: Option<bool>,
) -> Option<Value> {
    if enabled == Some(false) || replicas < 2 {
        return None;
    }
    let selector = json!({"matchLabels": {"app": component.name}});
    let mut constraints = vec![json!({
        "labelSelector": selector,
        "maxSkew": 1,
        "topologyKey": "kubernetes.io/hostname",
        "whenUnsatisfiable": "DoNotSchedule",
    })];
    if replicas >= 3 {
        constraints.push(json!({
            "labelSelector": selector,
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "ScheduleAnyway",
        }));
    }
    Some(Value::Array(constraints))
}

/// The keys of `volume` that its type does not take.
fn check_volume_keys(report: &mut Report<'_>, volume: &Volume, at: &FieldPath) {
    let allowed = volume_keys(volume.kind);
    for (key, set) in [
        ("sizeLimit", volume.size_limit.is_some()),
        ("configMapName", volume.config_map_name.is_some()),
        ("secretName", volume.secret_name.is_some()),
        ("size", volume.size.is_some()),
        ("storageClass", volume.storage_class.is_some()),
        ("accessModes", volume.access_modes.is_some()),
        ("path", volume.path.is_some()),
    ] {
        if set && !allowed.contains(&key) {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key(key),
                format!(
                    "`{key}` does not go with a volume of type `{}`; it takes {}",
                    volume_type_name(volume.kind),
                    allowed
                        .iter()
                        .map(|key| format!("`{key}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
}

/// The pod volume's source of `volume` (a claim's object added to `built`).
fn volume_source(
    report: &mut Report<'_>,
    component: &Component<'_>,
    volume: &Volume,
    at: &FieldPath,
    built: &mut BuiltPod,
) -> Value {
    match volume.kind {
        VolumeType::EmptyDir => {
            let mut empty = Map::new();
            if let Some(limit) = &volume.size_limit
                && let Some(limit) = quantity(report, limit, &at.key("sizeLimit"))
            {
                empty.insert("sizeLimit".into(), json!(limit.canonical()));
            }
            json!({"emptyDir": empty})
        }
        VolumeType::ConfigMap => {
            let name = required(
                report,
                volume.config_map_name.as_deref(),
                at,
                "configMapName",
                "configMap",
            );
            json!({"configMap": {"name": name}})
        }
        VolumeType::Secret => {
            let name = required(
                report,
                volume.secret_name.as_deref(),
                at,
                "secretName",
                "secret",
            );
            json!({"secret": {"secretName": name}})
        }
        VolumeType::Pvc => {
            let claim = claim(report, component, volume, at, built);
            let mut reference = json!({"claimName": claim});
            if let Some(read_only) = volume.read_only.filter(|read_only| *read_only) {
                reference["readOnly"] = json!(read_only);
            }
            json!({"persistentVolumeClaim": reference})
        }
        VolumeType::HostPath => {
            report.error(
                codes::POLICY,
                &at.key("type"),
                format!(
                    "volume `{}`: hostPath volumes are not allowed by Kure's policy",
                    volume.name
                ),
            );
            report.help("mount a `pvc`, `configMap`, `secret` or `emptyDir` volume instead");
            json!({"hostPath": {"path": volume.path, "type": ""}})
        }
    }
}

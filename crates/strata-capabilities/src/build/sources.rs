//! The component types whose objects come from a source rather than a pod,
//! each built as Kure's launcher builds it (`helmchart.go`, `oci.go`,
//! `passthrough.go`, `crd.go`, `manifests.go`), in the build's namespace:
//!
//! | type | objects, in order |
//! |---|---|
//! | `helmchart` | its source (for `source.url`, unless shared), a `HelmRelease` |
//! | `oci` | an `OCIRepository` (unless shared), a `Kustomization` |
//! | `passthrough` | `object`, named after the component when it has no name |
//! | `crd` | the `CustomResourceDefinition`s written in `inline` |
//! | `manifests` | the objects written in `inline`, namespaced ones in the build's namespace |
//!
//! - **Shared sources**: as Kure's `deduplicateSourceRefs`, the first
//!   component in declaration order (whatever its tier) naming a
//!   `HelmRepository` URL, or an `OCIRepository` URL and version (shared by
//!   `helmchart` and `oci`), creates it; later ones refer to it.
//! - **Verbatim objects**: Kure decodes `crd` and `manifests` documents of
//!   kinds it knows into Go types, dropping unknown fields and adding zero
//!   values (a Deployment gains `strategy: {}`); the build keeps every
//!   document as written, a deliberate difference. Documents are read as
//!   YAML 1.1, and objects cleaned as Kure's printer cleans them.
//! - **Local only**: Kure downloads manifest URLs, and charts for
//!   `delivery: template`, while building; the build refuses both, after
//!   every check Kure makes of them.
//! - **Strict**: what Kure silently misreads is refused (a numeric
//!   `version`, `prune: "false"`, a list `values`); a key Kure ignores is
//!   warned about; where Kure's output is wrong (a digest written as a tag,
//!   a shared source's interval) it is kept with a `capabilities/kure-bug`
//!   warning.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use strata_k8s::Duration;
use strata_schema::Decoder;
use strata_syntax::{Code, FieldPath, Format, Limits, SourceDb, Value as Tree};

use super::report::Report;
use super::{Built, Component, codes};

/// Kure's reconciliation interval when none is written, and as Go writes it.
const DEFAULT_INTERVAL: (&str, &str) = ("60m", "1h0m0s");
/// Flux's source-controller API.
const SOURCE_API: &str = "source.toolkit.fluxcd.io/v1";
/// The prefix that makes an OCI version a digest.
const DIGEST_PREFIX: &str = "sha256:";

/// Said with a `version` written as a number.
const VERSION_NOTE: (&str, Code, &str) = (
    "version",
    strata_schema::codes::TYPE,
    "quote the version: a number loses its text (`1.10` is 1.1), and Kure ignores it",
);

/// `group/Kind` of the kinds Kure knows to be namespaced (`/Kind` is core).
const NAMESPACED_KINDS: &str = "/ConfigMap /Secret /Service /ServiceAccount \
    /PersistentVolumeClaim /Pod apps/Deployment apps/DaemonSet apps/StatefulSet apps/ReplicaSet \
    batch/Job batch/CronJob networking.k8s.io/Ingress networking.k8s.io/NetworkPolicy \
    rbac.authorization.k8s.io/Role rbac.authorization.k8s.io/RoleBinding";
/// `group/Kind` of the kinds Kure knows to be cluster-scoped.
const CLUSTER_KINDS: &str = "/Namespace /Node /PersistentVolume \
    rbac.authorization.k8s.io/ClusterRole rbac.authorization.k8s.io/ClusterRoleBinding \
    apiextensions.k8s.io/CustomResourceDefinition storage.k8s.io/StorageClass \
    scheduling.k8s.io/PriorityClass networking.k8s.io/IngressClass \
    apiregistration.k8s.io/APIService admissionregistration.k8s.io/ValidatingWebhookConfiguration \
    admissionregistration.k8s.io/MutatingWebhookConfiguration";

/// The metadata Kure's printer cleans: the object's, its pod and job templates'.
const METADATA_POINTERS: &str = "/metadata /spec/template/metadata /spec/jobTemplate/metadata \
    /spec/jobTemplate/spec/template/metadata";
/// The metadata the API server sets, which Kure's printer drops.
const SERVER_FIELDS: &str = "managedFields resourceVersion uid generation selfLink";
/// The properties `delivery: template` refuses: they are a `HelmRelease`'s.
const RELEASE_ONLY: &str =
    "valuesFrom releaseName targetNamespace interval driftDetection install upgrade";

/// The decoders of the source types' properties.
static HELMCHART: LazyLock<Decoder<Helmchart>> = LazyLock::new(Decoder::new);
static OCI: LazyLock<Decoder<Oci>> = LazyLock::new(Decoder::new);
static PASSTHROUGH: LazyLock<Decoder<Passthrough>> = LazyLock::new(Decoder::new);
static CRD: LazyLock<Decoder<Crd>> = LazyLock::new(Decoder::new);
static MANIFESTS: LazyLock<Decoder<Manifests>> = LazyLock::new(Decoder::new);

/// `helmchart`: a chart that Flux's helm-controller releases.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Helmchart {
    /// Where the chart comes from: `url` (a source to create) or `name` (an existing one).
    source: HelmSource,
    /// The chart's name in a `HelmRepository` (required for one).
    chart: Option<String>,
    /// The chart's version, a string (quote `"1.10"`); the latest when absent.
    version: Option<String>,
    /// `native` (a `HelmRelease`, the default) or `template`.
    delivery: Option<Delivery>,
    /// How often Flux reconciles, a Go duration (`60m`).
    interval: Option<String>,
    /// The Helm release's name.
    release_name: Option<String>,
    /// The namespace the release installs into.
    target_namespace: Option<String>,
    /// The chart's values.
    values: Option<Map<String, Value>>,
    /// `ConfigMap`s and Secrets holding more values.
    #[serde(default)]
    values_from: Vec<ValuesFrom>,
    /// How Flux treats drift from the release.
    drift_detection: Option<DriftDetection>,
    /// How the chart's CRDs are installed.
    install: Option<CrdsAction>,
    /// How the chart's CRDs are upgraded.
    upgrade: Option<CrdsAction>,
}

/// A chart's source.
#[derive(Debug, Deserialize, JsonSchema)]
struct HelmSource {
    /// The repository's URL (`https://…` or `oci://…`).
    url: Option<String>,
    /// An existing source's name.
    name: Option<String>,
    /// The source's kind: by the URL's scheme for `url`, required for `name`.
    kind: Option<SourceKind>,
    /// The existing source's namespace (`name` only).
    namespace: Option<String>,
}

/// The kinds of chart sources, named as Flux names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
enum SourceKind {
    /// A Helm repository's index.
    HelmRepository,
    /// An OCI artifact.
    OCIRepository,
    /// A chart Flux already fetched.
    HelmChart,
}

/// How a chart is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Delivery {
    /// A `HelmRelease`, rendered by Flux in the cluster.
    Native,
    /// The chart rendered while building.
    Template,
}

/// A `ConfigMap` or Secret holding values.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ValuesFrom {
    /// `ConfigMap` or `Secret`.
    kind: ValuesKind,
    /// The object's name.
    name: String,
    /// The key holding the values (`values.yaml`).
    values_key: Option<String>,
    /// Where in the values the key's value goes.
    target_path: Option<String>,
}

/// The kinds that hold values, named as Kubernetes names them.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
enum ValuesKind {
    /// A `ConfigMap`.
    ConfigMap,
    /// A Secret.
    Secret,
}

/// Drift detection.
#[derive(Debug, Deserialize, JsonSchema)]
struct DriftDetection {
    /// `enabled`, `warn` or `disabled`.
    mode: Option<DriftMode>,
}

/// Drift detection's modes (Flux writes them lowercase).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum DriftMode {
    /// Drift is corrected.
    Enabled,
    /// Drift is reported.
    Warn,
    /// Drift is ignored.
    Disabled,
}

/// How a Helm action treats the chart's CRDs.
#[derive(Debug, Deserialize, JsonSchema)]
struct CrdsAction {
    /// `Skip`, `Create` or `CreateReplace`.
    crds: Option<CrdsPolicy>,
}

/// The CRD policies, named as Flux names them.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
enum CrdsPolicy {
    /// Neither created nor replaced.
    Skip,
    /// Created, never replaced.
    Create,
    /// Created and replaced.
    CreateReplace,
}

/// `oci`: an OCI artifact of manifests, applied by Flux's kustomize-controller.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Oci {
    /// The artifact.
    source: OciSource,
    /// A tag, or `sha256:<digest>`; a string (quote `"1.10"`).
    version: String,
    /// The path in the artifact that is applied (`./`).
    path: Option<String>,
    /// Whether objects removed from the artifact are deleted (`true`).
    prune: Option<bool>,
    /// How often Flux reconciles, a Go duration (`60m`).
    interval: Option<String>,
    /// The namespace the objects are applied in.
    target_namespace: Option<String>,
}

/// An OCI artifact.
#[derive(Debug, Deserialize, JsonSchema)]
struct OciSource {
    /// Its URL, `oci://…`.
    url: String,
}

/// `passthrough`: one object, written as it is.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Passthrough {
    /// The object: `apiVersion`, `kind` and anything else.
    object: Map<String, Value>,
    /// A cluster-scoped object, given no namespace (`false`).
    cluster_scoped: Option<bool>,
}

/// `crd`: `CustomResourceDefinition`s.
#[derive(Debug, Deserialize, JsonSchema)]
struct Crd {
    /// The CRDs, as YAML documents.
    inline: Option<String>,
    /// Where Kure downloads them from (refused: the build reads local files).
    url: Option<String>,
}

/// `manifests`: any objects.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Manifests {
    /// The objects, as YAML documents.
    inline: Option<String>,
    /// Where Kure downloads them from (refused: the build reads local files).
    url: Option<String>,
    /// The scope of kinds whose scope Kure does not know.
    #[serde(default)]
    scope_overrides: Vec<ScopeOverride>,
}

/// The scope of one kind.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ScopeOverride {
    /// The kind's API version (`example.com/v1`).
    api_version: String,
    /// The kind.
    kind: String,
    /// `Cluster` or `Namespaced`.
    scope: Scope,
}

/// Whether objects of a kind live in a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
enum Scope {
    /// Outside namespaces.
    Cluster,
    /// In a namespace.
    Namespaced,
}

/// The sources claimed in a build, for Kure's de-duplication; the builders
/// are called in declaration order with one `Sources`.
#[derive(Debug, Default)]
pub(crate) struct Sources {
    /// By key (`helm:<url>`, `oci:<url>:<version>`), the first claimant's
    /// name (the source's) and the source's interval, as Go writes it.
    owners: HashMap<String, (String, String)>,
}

impl Sources {
    /// No source claimed yet.
    pub(crate) fn new() -> Sources {
        Sources::default()
    }
}

/// The JSON Schema of a source type's properties.
pub(crate) fn schema(component_type: &str) -> Option<&'static serde_json::Value> {
    Some(match component_type {
        "helmchart" => HELMCHART.schema(),
        "oci" => OCI.schema(),
        "passthrough" => PASSTHROUGH.schema(),
        "crd" => CRD.schema(),
        "manifests" => MANIFESTS.schema(),
        _ => return None,
    })
}

/// Builds a source component; `None` when `component_type` is not one.
pub(crate) fn build(
    report: &mut Report<'_>,
    component: &Component<'_>,
    component_type: &str,
    sources: &mut Sources,
) -> Option<Built> {
    let objects = match component_type {
        "helmchart" => decode(report, &HELMCHART, &[VERSION_NOTE], true)
            .map(|properties| helmchart(report, component, &properties, sources)),
        "oci" => decode(report, &OCI, &[VERSION_NOTE], true)
            .map(|properties| oci(report, component, &properties, sources)),
        "passthrough" => decode(report, &PASSTHROUGH, &[], false)
            .map(|properties| passthrough(report, component, properties)),
        "crd" => decode(report, &CRD, &[], false).map(|properties| crd(report, &properties)),
        "manifests" => decode(report, &MANIFESTS, &[], false)
            .map(|properties| manifests(report, component, &properties)),
        _ => return None,
    };
    Some(Built {
        objects: objects.unwrap_or_default(),
        service: None,
    })
}

/// Decodes the properties strictly ([`Report::decode`]); a problem of a
/// key and code `notes` names gets that note. `lenient`: an unknown
/// top-level property is a warning, as Kure ignores those of `helmchart`
/// and `oci` (and refuses those of `passthrough`, `crd` and `manifests`).
fn decode<T: DeserializeOwned>(
    report: &mut Report<'_>,
    decoder: &Decoder<T>,
    notes: &[(&str, Code, &str)],
    lenient: bool,
) -> Option<T> {
    let first = report.problems.len();
    let value = report.decode(decoder, lenient);
    let wanted: Vec<(FieldPath, Code, &str)> = notes
        .iter()
        .map(|(key, code, note)| (report.full_path(&at(key)), *code, *note))
        .collect();
    for problem in &mut report.problems[first..] {
        let note = wanted
            .iter()
            .find(|(path, code, _)| *code == problem.code && problem.path.as_ref() == Some(path));
        if let Some((_, _, note)) = note {
            *problem = problem.clone().with_note(*note);
        }
    }
    value
}

/// The path of the property `key`.
fn at(key: &str) -> FieldPath {
    FieldPath::root().key(key)
}

/// Reports a value the build refuses.
fn invalid(report: &mut Report<'_>, path: &FieldPath, message: impl Into<String>) {
    report.error(codes::INVALID_PROPERTY, path, message);
}

/// Warns about a written key that does nothing (Kure ignores it too).
fn ignored(report: &mut Report<'_>, path: &FieldPath, message: impl Into<String>) {
    report.warning(strata_schema::codes::UNKNOWN_KEY, path, message);
}

/// `text` unless absent or empty (Kure reads an empty string as absent).
fn non_empty(text: Option<&str>) -> Option<&str> {
    text.filter(|text| !text.is_empty())
}

/// A string value's text (empty for anything else).
fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// The interval written (Kure's `60m` when absent or empty), as Go writes
/// it; one Go cannot read, or a negative one (Flux refuses it), is an error.
fn interval(report: &mut Report<'_>, written: Option<&str>) -> String {
    let (default, default_go) = DEFAULT_INTERVAL;
    match Duration::parse(non_empty(written).unwrap_or(default)) {
        Ok(duration) if duration.go_string().starts_with('-') => {
            let message = format!("`{}` is negative; Flux refuses it", duration.go_string());
            invalid(report, &at("interval"), message);
            default_go.to_owned()
        }
        Ok(duration) => duration.go_string(),
        Err(why) => {
            let message = format!("{why} (a Go duration: `10m`, `1h30m`)");
            invalid(report, &at("interval"), message);
            default_go.to_owned()
        }
    }
}

/// A `sha256:` version must be a digest: 64 lowercase hexadecimal digits.
fn check_digest(report: &mut Report<'_>, version: &str) {
    let Some(hex) = version.strip_prefix(DIGEST_PREFIX) else {
        return;
    };
    let digits = hex.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'));
    if hex.len() != 64 || !digits {
        let message = format!("`{version}` is not `sha256:` and 64 lowercase hexadecimal digits");
        invalid(report, &at("version"), message);
    }
}

/// Claims `key`'s source for `component`: `None` when it creates it, else the
/// creator's name; a differing interval is warned about (Kure keys on URLs).
fn claim(
    report: &mut Report<'_>,
    sources: &mut Sources,
    key: String,
    component: &Component<'_>,
    interval: &str,
) -> Option<String> {
    let (first, first_interval) = match sources.owners.entry(key) {
        Entry::Occupied(first) => first.get().clone(),
        Entry::Vacant(slot) => {
            slot.insert((component.name.to_owned(), interval.to_owned()));
            return None;
        }
    };
    if first_interval != interval {
        let message = format!(
            "the source is shared with `{first}` and keeps its interval, {first_interval}: Kure shares a source by URL and ignores intervals (Kure bug B12), so {interval} applies to this component's own object only"
        );
        report.warning(codes::KURE_BUG, &at("interval"), message);
        let help = format!("write the interval of `{first}`; no option changes this");
        report.help(help);
    }
    Some(first)
}

/// A Flux object named after the component, in the build's namespace.
fn flux_object(component: &Component<'_>, api_version: &str, kind: &str, spec: Value) -> Value {
    let metadata = json!({"name": component.name, "namespace": component.namespace});
    let mut object = json!({"apiVersion": api_version, "kind": kind, "metadata": metadata});
    object["spec"] = spec;
    object
}

/// An `OCIRepository` named after the component; `pin` is its `ref`, if any.
fn oci_repository(component: &Component<'_>, url: &str, interval: &str, pin: Value) -> Value {
    let mut spec = json!({"interval": interval, "url": url});
    if !pin.is_null() {
        spec["ref"] = pin;
    }
    flux_object(component, SOURCE_API, "OCIRepository", spec)
}

/// Where a chart comes from, once its form is known.
enum Chart<'a> {
    /// `source.url`: the kind and URL of a source to create (unless shared).
    Inline(SourceKind, &'a str),
    /// `source.name`: an existing source's kind, name and namespace.
    Reference(SourceKind, &'a str, Option<&'a str>),
}

/// `helmchart`: the chart's source (unless shared or referenced) and its
/// `HelmRelease`; `delivery: template` is checked, then refused.
fn helmchart(
    report: &mut Report<'_>,
    component: &Component<'_>,
    properties: &Helmchart,
    sources: &mut Sources,
) -> Vec<Value> {
    let interval = interval(report, properties.interval.as_deref());
    for (index, entry) in properties.values_from.iter().enumerate() {
        if entry.name.is_empty() {
            let message = format!("`valuesFrom` needs the {:?}'s `name`", entry.kind);
            invalid(report, &at("valuesFrom").index(index).key("name"), message);
        }
    }
    let version = non_empty(properties.version.as_deref());
    let Some(chart) = chart_source(report, properties) else {
        return Vec::new();
    };
    if properties.delivery == Some(Delivery::Template) {
        template(report, component, version, &chart);
        return Vec::new();
    }
    let chart_name = non_empty(properties.chart.as_deref()).unwrap_or_default();
    let mut objects = Vec::new();
    let chart = match chart {
        Chart::Inline(SourceKind::OCIRepository, url) => {
            let key = format!("oci:{url}:{}", version.unwrap_or_default());
            let name = claim(report, sources, key, component, &interval).unwrap_or_else(|| {
                let reference = chart_oci_reference(report, component, version);
                objects.push(oci_repository(component, url, &interval, reference));
                component.name.to_owned()
            });
            ("chartRef", json!({"kind": "OCIRepository", "name": name}))
        }
        Chart::Inline(_, url) => {
            let key = format!("helm:{url}");
            let name = claim(report, sources, key, component, &interval).unwrap_or_else(|| {
                let spec = json!({"interval": interval, "url": url});
                objects.push(flux_object(component, SOURCE_API, "HelmRepository", spec));
                component.name.to_owned()
            });
            let source = json!({"kind": "HelmRepository", "name": name});
            ("chart", chart_template(chart_name, version, source))
        }
        Chart::Reference(kind, name, namespace) => {
            let mut source = json!({"kind": format!("{kind:?}"), "name": name});
            if let Some(namespace) = namespace {
                source["namespace"] = json!(namespace);
            }
            if kind == SourceKind::HelmRepository {
                ("chart", chart_template(chart_name, version, source))
            } else {
                ("chartRef", source)
            }
        }
    };
    objects.push(helm_release(component, properties, &interval, chart));
    objects
}

/// A `HelmRelease`'s `chart`: the chart in a `HelmRepository`.
fn chart_template(chart: &str, version: Option<&str>, source: Value) -> Value {
    let mut spec = json!({ "chart": chart });
    spec["sourceRef"] = source;
    if let Some(version) = version {
        spec["version"] = json!(version);
    }
    json!({ "spec": spec })
}

/// The `ref` of a `helmchart`'s `OCIRepository` (`null` without a version). Kure
/// writes a digest as a `tag`, which Flux cannot pull (a tag holds no `:`): kept
/// with a warning, or a `digest` when Kure's bugs are fixed.
fn chart_oci_reference(
    report: &mut Report<'_>,
    component: &Component<'_>,
    version: Option<&str>,
) -> Value {
    let Some(version) = version else {
        return Value::Null;
    };
    if !version.starts_with(DIGEST_PREFIX) {
        return json!({ "tag": version });
    }
    check_digest(report, version);
    if component.fixes {
        return json!({ "digest": version });
    }
    let message = "Kure writes this digest as the OCIRepository's `ref.tag`, which Flux cannot pull (a tag holds no `:`; Kure bug B11); the build keeps Kure's output";
    report.warning(codes::KURE_BUG, &at("version"), message);
    report.help("`--fix-kure-bugs` writes `ref.digest`, as the `oci` component does");
    json!({ "tag": version })
}

/// The `HelmRelease`: the chart, and each option written.
fn helm_release(
    component: &Component<'_>,
    properties: &Helmchart,
    interval: &str,
    chart: (&str, Value),
) -> Value {
    let mut spec = Map::new();
    spec.insert("interval".into(), json!(interval));
    spec.insert(chart.0.into(), chart.1);
    if let Some(name) = non_empty(properties.release_name.as_deref()) {
        spec.insert("releaseName".into(), json!(name));
    }
    if let Some(namespace) = non_empty(properties.target_namespace.as_deref()) {
        spec.insert("targetNamespace".into(), json!(namespace));
    }
    if let Some(DriftDetection { mode: Some(mode) }) = &properties.drift_detection {
        let mode = format!("{mode:?}").to_lowercase();
        spec.insert("driftDetection".into(), json!({ "mode": mode }));
    }
    if let Some(CrdsAction { crds: Some(policy) }) = &properties.install {
        spec.insert("install".into(), json!({ "crds": format!("{policy:?}") }));
    }
    if let Some(CrdsAction { crds: Some(policy) }) = &properties.upgrade {
        spec.insert("upgrade".into(), json!({ "crds": format!("{policy:?}") }));
    }
    // Kure leaves out an empty map of values.
    if let Some(values) = &properties.values
        && !values.is_empty()
    {
        spec.insert("values".into(), Value::Object(values.clone()));
    }
    if !properties.values_from.is_empty() {
        let entries = properties.values_from.iter().map(values_reference);
        spec.insert("valuesFrom".into(), entries.collect());
    }
    let (api_version, spec) = ("helm.toolkit.fluxcd.io/v2", Value::Object(spec));
    flux_object(component, api_version, "HelmRelease", spec)
}

/// A `valuesFrom` entry as Flux writes it: empty strings left out.
fn values_reference(entry: &ValuesFrom) -> Value {
    let mut written = json!({"kind": format!("{:?}", entry.kind), "name": entry.name});
    if let Some(key) = non_empty(entry.values_key.as_deref()) {
        written["valuesKey"] = json!(key);
    }
    if let Some(path) = non_empty(entry.target_path.as_deref()) {
        written["targetPath"] = json!(path);
    }
    written
}

/// The chart's source, as Kure reads `source`: one of `url` and `name`,
/// with a kind that fits. Keys Kure ignores in the form are warned about.
fn chart_source<'a>(report: &mut Report<'_>, properties: &'a Helmchart) -> Option<Chart<'a>> {
    let source = &properties.source;
    let has_chart = non_empty(properties.chart.as_deref()).is_some();
    let namespace = non_empty(source.namespace.as_deref());
    let (url, name) = (source.url.as_deref(), source.name.as_deref());
    let chart = match (non_empty(url), non_empty(name)) {
        (Some(_), Some(_)) => {
            let message = "`source.url` (a source to create) and `source.name` (an existing one) exclude each other";
            invalid(report, &at("source").key("name"), message);
            return None;
        }
        (None, None) => {
            let message = "`source` needs `url` (a source to create) or `name` (an existing one)";
            invalid(report, &at("source"), message);
            return None;
        }
        (Some(url), None) => {
            if namespace.is_some() {
                let message = "`source.namespace` is ignored with `source.url`: the source is made in the build's namespace";
                ignored(report, &at("source").key("namespace"), message);
            }
            Chart::Inline(inline_kind(report, source.kind, url)?, url)
        }
        (None, Some(name)) => {
            let Some(kind) = source.kind else {
                let message = "`source.name` needs `source.kind`: `HelmRepository`, `OCIRepository` or `HelmChart`";
                invalid(report, &at("source"), message);
                return None;
            };
            Chart::Reference(kind, name, namespace)
        }
    };
    let (Chart::Inline(kind, _) | Chart::Reference(kind, _, _)) = chart;
    if kind == SourceKind::HelmRepository && !has_chart {
        let message = "a `HelmRepository` source needs `chart`, the chart's name in it";
        invalid(report, &at("chart"), message);
    }
    if let Chart::Reference(kind, ..) = chart
        && kind != SourceKind::HelmRepository
        && non_empty(properties.version.as_deref()).is_some()
        && properties.delivery != Some(Delivery::Template)
    {
        let message = format!("`version` is ignored with a `{kind:?}`, which fixes it");
        ignored(report, &at("version"), message);
    }
    Some(chart)
}

/// The kind of a `source.url` source: `kind`, else by the URL's scheme; a
/// `HelmRepository` needs `http(s)://`, an `OCIRepository` `oci://`.
fn inline_kind(report: &mut Report<'_>, kind: Option<SourceKind>, url: &str) -> Option<SourceKind> {
    use SourceKind::{HelmChart, HelmRepository, OCIRepository};
    let oci = url.starts_with("oci://");
    let web = url.starts_with("https://") || url.starts_with("http://");
    let kind = kind.unwrap_or(if oci { OCIRepository } else { HelmRepository });
    let message = match kind {
        HelmRepository if oci => {
            "a `HelmRepository` has no `oci://` URL: write `kind: OCIRepository` or no `kind`"
                .to_owned()
        }
        HelmRepository if !web => format!("`{url}` is not a `HelmRepository` URL, `https://…`"),
        OCIRepository if !oci => format!("`{url}` is not an `OCIRepository` URL, `oci://…`"),
        HelmChart => {
            let message = "`source.url` makes a `HelmRepository` or an `OCIRepository`";
            invalid(report, &at("source").key("kind"), message);
            return None;
        }
        HelmRepository | OCIRepository => return Some(kind),
    };
    invalid(report, &at("source").key("url"), message);
    Some(kind)
}

/// `delivery: template`: Kure's checks (a `HelmRelease` option is refused even
/// when empty), then an error: the build renders no charts, reads local files.
fn template(
    report: &mut Report<'_>,
    component: &Component<'_>,
    version: Option<&str>,
    chart: &Chart<'_>,
) {
    match chart {
        Chart::Reference(..) => {
            let message = "`delivery: template` renders from `source.url`, not `source.name`";
            invalid(report, &at("source").key("name"), message);
        }
        Chart::Inline(SourceKind::OCIRepository, _) if version.is_none() => {
            let message = "`delivery: template` from an `oci://` URL needs `version`";
            invalid(report, &at("version"), message);
        }
        Chart::Inline(..) => {}
    }
    for key in RELEASE_ONLY.split_whitespace() {
        if component.properties.get(key).is_some() {
            let message = format!("`delivery: template` makes no `HelmRelease` to take `{key}`");
            invalid(report, &at(key), message);
        }
    }
    let message = "`delivery: template` renders the chart with Helm while building, downloading it; `capabilities build` reads only local files";
    invalid(report, &at("delivery"), message);
    let help = "use `delivery: native` (Flux renders the chart in the cluster) or `kurel build`";
    report.help(help);
}

/// `oci`: the artifact's `OCIRepository` (unless shared) and the
/// `Kustomization` applying it; a `sha256:` version is a digest.
fn oci(
    report: &mut Report<'_>,
    component: &Component<'_>,
    properties: &Oci,
    sources: &mut Sources,
) -> Vec<Value> {
    let url = properties.source.url.as_str();
    if !url.starts_with("oci://") {
        let message = format!("`{url}` is not an artifact's URL, `oci://…`");
        invalid(report, &at("source").key("url"), message);
    }
    let version = properties.version.as_str();
    if version.is_empty() {
        let message = "`version` is empty: a tag, or `sha256:<digest>`";
        invalid(report, &at("version"), message);
    }
    check_digest(report, version);
    let interval = interval(report, properties.interval.as_deref());
    let mut objects = Vec::new();
    let key = format!("oci:{url}:{version}");
    let source = claim(report, sources, key, component, &interval).unwrap_or_else(|| {
        let digest = version.starts_with(DIGEST_PREFIX);
        let field = if digest { "digest" } else { "tag" };
        let reference = json!({ field: version });
        objects.push(oci_repository(component, url, &interval, reference));
        component.name.to_owned()
    });
    // `prune` is written even when `false`: Flux's field has no omitempty.
    let mut spec = json!({
        "interval": interval,
        "path": non_empty(properties.path.as_deref()).unwrap_or("./"),
        "prune": properties.prune.unwrap_or(true),
        "sourceRef": {"kind": "OCIRepository", "name": source},
    });
    if let Some(namespace) = non_empty(properties.target_namespace.as_deref()) {
        spec["targetNamespace"] = json!(namespace);
    }
    let api_version = "kustomize.toolkit.fluxcd.io/v1";
    objects.push(flux_object(component, api_version, "Kustomization", spec));
    objects
}

/// `passthrough`: `object` as written, named after the component if it has no
/// name, in the build's namespace unless `clusterScoped` or it names its own.
fn passthrough(
    report: &mut Report<'_>,
    component: &Component<'_>,
    properties: Passthrough,
) -> Vec<Value> {
    let cluster_scoped = properties.cluster_scoped.unwrap_or(false);
    let mut object = properties.object;
    for key in ["apiVersion", "kind"] {
        if object.get(key).is_none_or(|value| text(value).is_empty()) {
            let message = format!("`object` needs `{key}`, a non-empty string");
            invalid(report, &at("object").key(key), message);
        }
    }
    let metadata_at = at("object").key("metadata");
    let Value::Object(metadata) = object.entry("metadata").or_insert_with(|| json!({})) else {
        invalid(report, &metadata_at, "`object.metadata` must be a mapping");
        return Vec::new();
    };
    for key in ["name", "namespace"] {
        let value = metadata.get(key).unwrap_or(&Value::Null);
        if !value.is_null() && !value.is_string() {
            let message = format!("`{key}` must be a string");
            invalid(report, &metadata_at.key(key), message);
        }
    }
    let written = |key: &str| !metadata.get(key).map_or("", text).is_empty();
    let (named, namespaced) = (written("name"), written("namespace"));
    if !named {
        metadata.insert("name".into(), json!(component.name));
    }
    if cluster_scoped && namespaced {
        let message = "a cluster-scoped object has no namespace: remove it, or `clusterScoped`";
        invalid(report, &metadata_at.key("namespace"), message);
    } else if !cluster_scoped && !namespaced {
        metadata.insert("namespace".into(), json!(component.namespace));
    }
    let mut object = Value::Object(object);
    clean(&mut object);
    vec![object]
}

/// Cleans an object as Kure's printer does: an empty top-level `status`
/// and server-set metadata (of the object, its pod and job templates) go.
fn clean(object: &mut Value) {
    let empty = |status: &Value| status.is_null() || status.as_object().is_some_and(deep_empty);
    if let Value::Object(map) = object
        && map.get("status").is_some_and(empty)
    {
        map.remove("status");
    }
    for pointer in METADATA_POINTERS.split_whitespace() {
        let Some(Value::Object(metadata)) = object.pointer_mut(pointer) else {
            continue;
        };
        if metadata.get("creationTimestamp") == Some(&Value::Null) {
            metadata.remove("creationTimestamp");
        }
        for field in SERVER_FIELDS.split_whitespace() {
            metadata.remove(field);
        }
        if let Some(Value::Object(annotations)) = metadata.get_mut("annotations") {
            annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
            if annotations.is_empty() {
                metadata.remove("annotations");
            }
        }
    }
}

/// Whether a mapping holds only zero values (`0`, `""`, `false`, `[]`,
/// `null`) and such mappings, as Kure's printer judges a `status`.
fn deep_empty(map: &Map<String, Value>) -> bool {
    map.values().all(|value| match value {
        Value::Object(inner) => deep_empty(inner),
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::String(text) => text.is_empty(),
        Value::Bool(flag) => !flag,
        Value::Array(items) => items.is_empty(),
        Value::Null => true,
    })
}

/// `crd`: the objects of `inline`, each a `CustomResourceDefinition`, as
/// written (no namespace is given).
fn crd(report: &mut Report<'_>, properties: &Crd) -> Vec<Value> {
    let url = properties.url.as_deref();
    let Some(documents) = read_inline(report, properties.inline.as_deref(), url) else {
        return Vec::new();
    };
    let mut objects = Vec::new();
    for mut document in documents {
        if is_crd(&document.object) {
            clean(&mut document.object);
            objects.push(document.object);
        } else {
            let described = document.describe();
            let message = format!(
                "{described} is not a CustomResourceDefinition; put other objects in a `manifests` component"
            );
            invalid(report, &at("inline"), message);
        }
    }
    objects
}

/// `manifests`: the objects of `inline`; a namespaced one without a namespace
/// gets the build's, and one of a kind of unknown scope must name its own.
fn manifests(
    report: &mut Report<'_>,
    component: &Component<'_>,
    properties: &Manifests,
) -> Vec<Value> {
    let overrides = &properties.scope_overrides;
    for (index, entry) in overrides.iter().enumerate() {
        for (key, value) in [("apiVersion", &entry.api_version), ("kind", &entry.kind)] {
            if value.is_empty() {
                let path = at("scopeOverrides").index(index).key(key);
                invalid(report, &path, format!("a scope override needs `{key}`"));
            }
        }
    }
    let url = properties.url.as_deref();
    let Some(mut documents) = read_inline(report, properties.inline.as_deref(), url) else {
        return Vec::new();
    };
    let defined = defined_scopes(&documents);
    for document in &mut documents {
        let namespace = &document.object["metadata"]["namespace"];
        if !text(namespace).is_empty() {
            continue;
        }
        match scope(&document.object, &defined, overrides) {
            Some(Scope::Cluster) => {}
            Some(Scope::Namespaced) => {
                document.object["metadata"]["namespace"] = json!(component.namespace);
            }
            None => {
                let (described, kind) = (document.describe(), text(&document.object["kind"]));
                let api_version = text(&document.object["apiVersion"]);
                let message = format!(
                    "{described} has no `metadata.namespace`, and Kure does not know if a {kind} is namespaced: it knows built-in kinds and those whose CRD is in `inline`"
                );
                invalid(report, &at("inline"), message);
                let help = format!(
                    "write `metadata.namespace`, or add `{{apiVersion: {api_version}, kind: {kind}, scope: Namespaced}}` (or `Cluster`) to `scopeOverrides`"
                );
                report.help(help);
            }
        }
    }
    let mut objects: Vec<Value> = documents.into_iter().map(|doc| doc.object).collect();
    objects.iter_mut().for_each(clean);
    objects
}

/// An object's scope as Kure finds it: CRDs and built-in kinds, CRDs in `inline`,
/// then `scopeOverrides` (only for kinds still unknown; the last entry wins).
fn scope(
    object: &Value,
    defined: &HashMap<(String, String), Scope>,
    overrides: &[ScopeOverride],
) -> Option<Scope> {
    let (api_version, kind) = (text(&object["apiVersion"]), text(&object["kind"]));
    let group = api_version.split_once('/').map_or("", |(group, _)| group);
    let key = format!("{group}/{kind}");
    let known = |kinds: &str| kinds.split_whitespace().any(|known| known == key);
    if is_crd(object) || known(CLUSTER_KINDS) {
        return Some(Scope::Cluster);
    }
    if known(NAMESPACED_KINDS) {
        return Some(Scope::Namespaced);
    }
    if let Some(scope) = defined.get(&(group.to_owned(), kind.to_owned())) {
        return Some(*scope);
    }
    let chosen = |entry: &&ScopeOverride| entry.api_version == api_version && entry.kind == kind;
    overrides.iter().rfind(chosen).map(|entry| entry.scope)
}

/// Whether an object is a `CustomResourceDefinition`, by group and kind.
fn is_crd(object: &Value) -> bool {
    text(&object["apiVersion"]).starts_with("apiextensions.k8s.io/")
        && text(&object["kind"]) == "CustomResourceDefinition"
}

/// The scopes the CRDs among `documents` give their kinds, by group and kind:
/// `Namespaced` unless `spec.scope` is `Cluster`; a later one wins, as in Kure.
fn defined_scopes(documents: &[Document]) -> HashMap<(String, String), Scope> {
    let mut scopes = HashMap::new();
    for document in documents.iter().filter(|document| is_crd(&document.object)) {
        let spec = &document.object["spec"];
        let (group, kind) = (text(&spec["group"]), text(&spec["names"]["kind"]));
        if !group.is_empty() && !kind.is_empty() {
            let cluster = text(&spec["scope"]) == "Cluster";
            let scope = if cluster {
                Scope::Cluster
            } else {
                Scope::Namespaced
            };
            scopes.insert((group.to_owned(), kind.to_owned()), scope);
        }
    }
    scopes
}

/// An object read from `inline`, with the line it starts on.
struct Document {
    /// The object.
    object: Value,
    /// Its first line in `inline`.
    line: u32,
}

impl Document {
    /// The object in a message: its kind, name and line.
    fn describe(&self) -> String {
        let kind = text(&self.object["kind"]);
        let name = text(&self.object["metadata"]["name"]);
        format!("the {kind} `{name}` (line {} of `inline`)", self.line)
    }
}

/// The objects a `crd` or `manifests` component reads from `inline` (one at
/// least); `url` is checked as Kure checks it, then refused.
fn read_inline(
    report: &mut Report<'_>,
    inline: Option<&str>,
    url: Option<&str>,
) -> Option<Vec<Document>> {
    if let Some(url) = url {
        let scheme = url.split_once("://").map_or("", |(scheme, _)| scheme);
        let message = match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" => "Kure downloads this URL while building; `capabilities build` reads only local files".to_owned(),
            "oci" => "Kure does not read `oci://` manifest URLs".to_owned(),
            _ => format!("`{url}` is not an `http://` or `https://` URL"),
        };
        invalid(report, &at("url"), message);
        report.help("write the manifests in `inline`, reviewed and versioned with the package");
    }
    let inline = match (inline, url) {
        (Some(_), Some(_)) => {
            invalid(report, &at("url"), "`inline` and `url` exclude each other");
            return None;
        }
        (None, None) => {
            let message = "this component needs `inline`, its objects as YAML";
            invalid(report, &FieldPath::root(), message);
            return None;
        }
        (Some(inline), None) => inline,
        (None, Some(_)) => return None,
    };
    let documents = inline_documents(report, inline)?;
    if documents.is_empty() {
        invalid(report, &at("inline"), "`inline` holds no objects");
    }
    Some(documents)
}

/// The objects of `inline`, read as Kure reads manifests (YAML 1.1, empty and
/// `null` documents skipped); `None` when any is unusable (each is reported).
fn inline_documents(report: &mut Report<'_>, inline: &str) -> Option<Vec<Document>> {
    let mut db = SourceDb::new();
    let id = db.add("inline", inline);
    let parsed = strata_syntax::parse(&db, id, Format::Yaml11, &Limits::default());
    for problem in &parsed.diagnostics {
        let line = db.locate(problem.primary.span).1.line;
        let message = format!("line {line} of `inline`: {}", problem.message);
        if problem.is_error() {
            report.error(problem.code, &at("inline"), message);
        } else {
            report.warning(problem.code, &at("inline"), message);
        }
    }
    if parsed.has_errors() {
        return None;
    }
    let mut documents = Vec::new();
    let mut usable = true;
    for node in &parsed.documents {
        if matches!(node.value, Tree::Null) {
            continue;
        }
        let (object, line) = (node.to_json_value(), db.locate(node.span).1.line);
        let document = Document { object, line };
        if let Some(problem) = unusable(&document.object) {
            let message = format!("the document at line {line} of `inline` {problem}");
            invalid(report, &at("inline"), message);
            usable = false;
        } else {
            documents.push(document);
        }
    }
    usable.then_some(documents)
}

/// Why a document is not an object the build writes, if so: Kubernetes applies
/// none without `apiVersion`, `kind` and `metadata.name` (Kure writes nameless ones).
fn unusable(object: &Value) -> Option<String> {
    let Value::Object(map) = object else {
        return Some("is not a mapping".to_owned());
    };
    if map.contains_key("items") {
        // Kure reads a document with `items` of a kind it does not know as
        // a list of objects; the build asks for them as documents.
        return Some("is a list: write each of its `items` as a document".to_owned());
    }
    let name = &object["metadata"]["name"];
    let fields = [&object["apiVersion"], &object["kind"], name];
    if fields.into_iter().any(|field| text(field).is_empty()) {
        let message = "needs `apiVersion`, `kind` and `metadata.name`, each a non-empty string";
        return Some(message.to_owned());
    }
    let namespace = &object["metadata"]["namespace"];
    if !(namespace.is_null() || namespace.is_string()) {
        return Some("has a `metadata.namespace` that is not a string".to_owned());
    }
    // YAML 1.1 reads `on`, `yes` or `8080` as other types; a ConfigMap's
    // or Secret's values must stay text (Kure's typed decode fails here).
    let core = object["apiVersion"] == "v1";
    for key in ["data", "stringData"] {
        let values = object.get(key).and_then(Value::as_object);
        let typed = values
            .into_iter()
            .flatten()
            .find(|(_, value)| !value.is_string());
        if core
            && matches!(text(&object["kind"]), "ConfigMap" | "Secret")
            && let Some((name, value)) = typed
        {
            return Some(format!(
                "has `{key}.{name}: {value}`, which is not text: quote it (YAML 1.1 reads `on`, `yes` and numbers as other types)"
            ));
        }
    }
    None
}

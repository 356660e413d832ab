//! The `postgresql` component type, built as Kure's launcher builds it
//! (`postgresql.go`, through kure's `cnpg` package): `CloudNativePG`
//! objects for one cluster named after the component.
//!
//! | object, in order | `apiVersion` | name | when |
//! |---|---|---|---|
//! | `Cluster` | `postgresql.cnpg.io/v1` | the component's | always |
//! | `Pooler` | `postgresql.cnpg.io/v1` | `<component>-pooler` | `pooler.enabled: true` |
//! | `ObjectStore` | `barmancloud.cnpg.io/v1` | the component's | `objectStore` is written |
//! | `Database`, one per entry | `postgresql.cnpg.io/v1` | `<component>-<database>` | `databases` |
//!
//! Every object's `metadata` is its name and the build's namespace only:
//! Kure's `cnpg` constructors set no labels. The component has no Service
//! of its own, so routing traits have nothing to reach.
//!
//! **Defaults** (Kure's): the image `ghcr.io/cloudnative-pg/postgresql:16`
//! (`version` is its tag, unless `imageName` is given), a `1Gi` volume, one
//! instance (`enablePDB` from two), a pooler of three `rw` instances in
//! `session` mode, a synchronous `number` of 1, and once `affinity` is
//! written, `enablePodAntiAffinity: true` by `kubernetes.io/hostname`.
//!
//! **Go's zero values**: what Kure's Go types always write is written too
//! (the Cluster's `affinity: {}`, `resources: {}` and
//! `postgresql.syncReplicaElectionConstraint.enabled: false`, a
//! synchronous block's `failoverQuorum: false`, the `ObjectStore`'s
//! `instanceSidecarConfiguration.resources: {}`, an extension's `ensure:
//! present`); what Go's `omitempty` leaves out stays out (empty text, lists
//! and maps, `false` role flags, a role's `ensure: present`, a database's
//! `databaseReclaimPolicy: retain`). Quantities under `resources` are
//! canonical (`1024Mi` is `1Gi`); `storageSize` is written as given.
//!
//! **Stricter than Kure**, where Kure drops or misreads what is written, or
//! writes an object `CloudNativePG` or Kubernetes refuses:
//! - Decoding is strict: an unknown key or a wrong type is an error at any
//!   depth, `externalClusters[].barmanObjectStore` included.
//! - Text maps (`parameters`, `inheritedMetadata`, `nodeSelector`,
//!   `connectionParameters`) take numbers and booleans as their text
//!   (`max_connections: 200` is `"200"`), where Kure drops them.
//! - `version` may be a whole number (Kure falls back to 16 for `15`), and
//!   must make an image tag.
//! - What Kure drops a block without is required and not empty: external
//!   clusters' `name`, the synchronous `method`, a bootstrap `source`, each
//!   store's `destinationPath`; custom queries need `enabled: true`.
//! - Errors: `storageSize` not a quantity above 0; `replicas`, a
//!   synchronous `number` or pooler `instances` below 1 (Kure leaves the
//!   latter out: one runs); `poolMode: statement`; `connectionLimit: 0`
//!   (Kure leaves it out: no limit) or below -1; a `retentionPolicy` unlike
//!   `30d`; a `podAntiAffinityType` besides `preferred` and `required`; a
//!   `Database` name `<component>-<database>` that is not a DNS-1123
//!   subdomain; a bootstrap source no external cluster is named; external
//!   clusters of one name, or with neither `connectionParameters` nor
//!   `barmanObjectStore`.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use strata_k8s::names::is_dns1123_subdomain;
use strata_k8s::parse_quantity;
use strata_schema::Decoder;
use strata_syntax::{FieldPath, go_float};

use super::pod;
use super::report::Report;
use super::spec::{AntiAffinityType, QuantityValue};
use super::{Built, Component, codes};

/// The API version of `CloudNativePG`'s objects.
const CNPG: &str = "postgresql.cnpg.io/v1";

/// The API version of the Barman Cloud plugin's `ObjectStore`.
const BARMAN: &str = "barmancloud.cnpg.io/v1";

/// Kure's topology key of anti-affinity.
const HOSTNAME: &str = "kubernetes.io/hostname";

/// The image a `version` is a tag of.
const DEFAULT_IMAGE: &str = "ghcr.io/cloudnative-pg/postgresql";

/// The maps of Barman's type whose values are the user's.
const TAG_MAPS: [&str; 2] = ["tags", "historyTags"];

/// The decoder of the properties.
static PROPERTIES: LazyLock<Decoder<Properties>> = LazyLock::new(Decoder::new);

/// A map whose values `CloudNativePG` takes as text.
type Texts = BTreeMap<String, Setting>;

/// The properties of a `postgresql` component.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Properties {
    /// `cnpg`, the only provider (the default); read to be checked only.
    #[serde(rename = "provider")]
    _provider: Option<Provider>,
    /// The major version, the default image's tag (`16`).
    version: Option<Version>,
    /// The image, instead of `ghcr.io/cloudnative-pg/postgresql:<version>`.
    image_name: Option<String>,
    /// Each instance's volume (`1Gi`).
    storage_size: Option<String>,
    /// The instances (1).
    replicas: Option<i64>,
    /// Each instance's CPU and memory.
    resources: Option<ClusterResources>,
    /// In-tree Barman backups to an object store.
    backup: Option<Store>,
    /// A `PodMonitor`, and custom queries.
    monitoring: Option<Monitoring>,
    /// A `PgBouncer` pooler.
    pooler: Option<Pooler>,
    /// Where the cluster's first data comes from.
    bootstrap: Option<Bootstrap>,
    /// Other clusters, the sources of a bootstrap.
    #[serde(default)]
    external_clusters: Vec<ExternalCluster>,
    /// Synchronous replication.
    replication: Option<Replication>,
    /// The server's settings.
    postgresql: Option<ServerSettings>,
    /// Labels and annotations of the objects the operator makes.
    inherited_metadata: Option<InheritedMetadata>,
    /// Roles the operator keeps.
    #[serde(default)]
    managed_roles: Vec<Role>,
    /// A Barman Cloud `ObjectStore` the cluster archives its WAL to.
    object_store: Option<ObjectStore>,
    /// Databases, each a `Database` object.
    #[serde(default)]
    databases: Vec<Database>,
    /// Where the instances are scheduled.
    affinity: Option<Affinity>,
}

/// The database operators Kure supports: `cnpg`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Provider {
    Cnpg,
}

/// A major version: text (`"16"`) or a whole number (`16`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Version {
    Text(String),
    Number(i64),
}

/// A value of a text map: text (`256MB`), or a number (`200`, `1.1`) or a
/// boolean taken as its text.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Setting {
    Text(String),
    Whole(i64),
    Fraction(f64),
    Flag(bool),
}

impl Setting {
    /// The text written: numbers as Go writes them.
    fn text(&self) -> String {
        match self {
            Setting::Text(text) => text.clone(),
            Setting::Whole(whole) => whole.to_string(),
            Setting::Fraction(fraction) => go_float(*fraction),
            Setting::Flag(flag) => flag.to_string(),
        }
    }
}

/// Requests and limits: CPU and memory only, as Kure allows.
#[derive(Debug, Deserialize, JsonSchema)]
struct ClusterResources {
    /// What each instance is guaranteed.
    requests: Option<CpuMemory>,
    /// What each instance may use at most.
    limits: Option<CpuMemory>,
}

/// A CPU and a memory quantity.
#[derive(Debug, Deserialize, JsonSchema)]
struct CpuMemory {
    /// CPU (`500m`).
    cpu: Option<QuantityValue>,
    /// Memory (`2Gi`).
    memory: Option<QuantityValue>,
}

/// An object store Kure writes the settings of: in-tree backups
/// (`backup`, which has no `serverName`) or an `ObjectStore`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Store {
    /// Where backups and WAL go (`s3://bucket/path`).
    destination_path: String,
    /// The object store's endpoint.
    #[serde(rename = "endpointURL")]
    endpoint_url: Option<String>,
    /// A Secret with `ACCESS_KEY_ID` and `SECRET_ACCESS_KEY`.
    secret_name: Option<String>,
    /// How long backups are kept (`30d`, `4w`, `6m`).
    retention_policy: Option<String>,
}

/// A Barman Cloud `ObjectStore`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ObjectStore {
    /// The store.
    #[serde(flatten)]
    store: Store,
    /// The server's name in the store (the cluster's), given to the
    /// cluster's barman plugin.
    server_name: Option<String>,
}

/// Monitoring.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Monitoring {
    /// Write a `PodMonitor` (and the custom queries).
    enabled: Option<bool>,
    /// ConfigMap keys holding queries of their own.
    #[serde(default)]
    custom_queries: Vec<KeySelector>,
}

/// A `PgBouncer` pooler in front of the cluster.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Pooler {
    /// Write the `Pooler` (the other keys are checked either way).
    enabled: Option<bool>,
    /// Its instances (3).
    instances: Option<i64>,
    /// `rw` (the default) or `ro`.
    #[serde(rename = "type")]
    kind: Option<PoolerType>,
    /// `session` (the default) or `transaction`.
    pool_mode: Option<PoolMode>,
    /// `PgBouncer`'s settings.
    #[serde(default)]
    parameters: Texts,
}

/// The instances a pooler sends connections to.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PoolerType {
    Rw,
    Ro,
}

/// When a pooled server connection is handed back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PoolMode {
    Session,
    Transaction,
    Statement,
}

/// How the cluster is first filled: one of two ways.
#[derive(Debug, Deserialize, JsonSchema)]
struct Bootstrap {
    /// From an external cluster's backups.
    recovery: Option<BootstrapSource>,
    /// From a running external cluster.
    pg_basebackup: Option<BootstrapSource>,
}

/// The external cluster a bootstrap reads.
#[derive(Debug, Deserialize, JsonSchema)]
struct BootstrapSource {
    /// Its `externalClusters` name.
    source: String,
}

/// Another cluster, by connection or by object store.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ExternalCluster {
    /// Its name, as bootstrap sources name it.
    name: String,
    /// Its backups.
    barman_object_store: Option<BarmanStore>,
    /// `libpq` parameters to reach it.
    #[serde(default)]
    connection_parameters: Texts,
}

/// Replication.
#[derive(Debug, Deserialize, JsonSchema)]
struct Replication {
    /// Synchronous standbys.
    synchronous: Option<Synchronous>,
}

/// Synchronous replication.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Synchronous {
    /// `any` (quorum) or `first` (priority).
    method: SyncMethod,
    /// The standbys a commit waits for (1).
    number: Option<i64>,
    /// `required` or `preferred`.
    data_durability: Option<Durability>,
}

/// How synchronous standbys are chosen.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum SyncMethod {
    Any,
    First,
}

/// Whether commits wait when too few standbys answer.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Durability {
    Required,
    Preferred,
}

/// The server's settings.
#[derive(Debug, Deserialize, JsonSchema)]
struct ServerSettings {
    /// `postgresql.conf` parameters.
    #[serde(default)]
    parameters: Texts,
}

/// Labels and annotations the operator puts on what it makes.
#[derive(Debug, Deserialize, JsonSchema)]
struct InheritedMetadata {
    /// Labels.
    #[serde(default)]
    labels: Texts,
    /// Annotations.
    #[serde(default)]
    annotations: Texts,
}

/// A role the operator keeps.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Role {
    /// The role's name.
    name: String,
    /// `present` (the default) or `absent`.
    ensure: Option<Ensure>,
    /// It may log in.
    login: Option<bool>,
    /// It is a superuser.
    superuser: Option<bool>,
    /// It may create databases.
    createdb: Option<bool>,
    /// It may create roles.
    createrole: Option<bool>,
    /// It may replicate.
    replication: Option<bool>,
    /// It inherits its roles' privileges (written whenever given).
    inherit: Option<bool>,
    /// Its concurrent connections: -1 (no limit) or at least 1.
    connection_limit: Option<i64>,
    /// The Secret with its password.
    password_secret: Option<String>,
    /// A comment.
    comment: Option<String>,
    /// The roles it is a member of.
    #[serde(default)]
    in_roles: Vec<String>,
}

/// Whether something is to exist: `present` or `absent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Ensure {
    Present,
    Absent,
}

/// A database, as a `Database` object.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Database {
    /// The database's name.
    name: String,
    /// Its owner.
    owner: String,
    /// `present` (the default) or `absent`.
    ensure: Option<Ensure>,
    /// `retain` (the default) or `delete`, when the object goes.
    #[serde(rename = "databaseReclaimPolicy")]
    reclaim_policy: Option<ReclaimPolicy>,
    /// Extensions.
    #[serde(default)]
    extensions: Vec<Extension>,
}

/// What happens to a database when its object is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ReclaimPolicy {
    Retain,
    Delete,
}

/// An extension of a database.
#[derive(Debug, Deserialize, JsonSchema)]
struct Extension {
    /// The extension.
    name: String,
    /// `present` (the default) or `absent`.
    ensure: Option<Ensure>,
}

/// Where the instances are scheduled.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[expect(clippy::struct_field_names, reason = "CloudNativePG's field names")]
struct Affinity {
    /// Keep instances apart (true).
    enable_pod_anti_affinity: Option<bool>,
    /// Apart by this node label (`kubernetes.io/hostname`).
    topology_key: Option<String>,
    /// `preferred` or `required`.
    pod_anti_affinity_type: Option<AntiAffinityType>,
    /// Node labels the instances require.
    #[serde(default)]
    node_selector: Texts,
}

/// Barman's object store settings: `CloudNativePG`'s
/// `BarmanObjectStoreConfiguration` (`barman-cloud`'s `pkg/api`) key for
/// key, written back as Go writes the type (see [`omit_empty`]). The
/// types below are its parts.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BarmanStore {
    destination_path: String,
    #[serde(rename = "endpointURL")]
    endpoint_url: Option<String>,
    #[serde(rename = "endpointCA")]
    endpoint_ca: Option<KeySelector>,
    server_name: Option<String>,
    s3_credentials: Option<S3Credentials>,
    azure_credentials: Option<AzureCredentials>,
    google_credentials: Option<GoogleCredentials>,
    wal: Option<WalSettings>,
    data: Option<DataSettings>,
    tags: Option<BTreeMap<String, String>>,
    history_tags: Option<BTreeMap<String, String>>,
}

/// A key of a Secret (or of a ConfigMap, for monitoring queries).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct KeySelector {
    #[schemars(length(min = 1))]
    name: String,
    #[schemars(length(min = 1))]
    key: String,
}

/// S3 credentials.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct S3Credentials {
    access_key_id: Option<KeySelector>,
    secret_access_key: Option<KeySelector>,
    region: Option<KeySelector>,
    session_token: Option<KeySelector>,
    #[serde(rename = "inheritFromIAMRole")]
    inherit_from_iam_role: Option<bool>,
}

/// Azure credentials.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AzureCredentials {
    connection_string: Option<KeySelector>,
    storage_account: Option<KeySelector>,
    storage_key: Option<KeySelector>,
    storage_sas_token: Option<KeySelector>,
    #[serde(rename = "inheritFromAzureAD")]
    inherit_from_azure_ad: Option<bool>,
    #[serde(rename = "useDefaultAzureCredentials")]
    use_default: Option<bool>,
}

/// Google Cloud credentials.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GoogleCredentials {
    application_credentials: Option<KeySelector>,
    gke_environment: Option<bool>,
}

/// How WAL is archived.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WalSettings {
    compression: Option<String>,
    encryption: Option<String>,
    #[schemars(range(min = 1))]
    max_parallel: Option<i64>,
    archive_additional_command_args: Option<Vec<String>>,
    restore_additional_command_args: Option<Vec<String>>,
}

/// How base backups are taken.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DataSettings {
    compression: Option<String>,
    encryption: Option<String>,
    #[schemars(range(min = 1))]
    jobs: Option<i64>,
    immediate_checkpoint: Option<bool>,
    additional_command_args: Option<Vec<String>>,
    restore_additional_command_args: Option<Vec<String>>,
}

/// The JSON Schema of the properties.
pub(crate) fn schema() -> &'static serde_json::Value {
    PROPERTIES.schema()
}

/// Builds a `postgresql` component: its objects in Kure's order (see the
/// module documentation).
pub(crate) fn build(report: &mut Report<'_>, component: &Component<'_>) -> Built {
    let Some(props) = report.decode(&PROPERTIES, true) else {
        return Built::default();
    };
    let mut objects = vec![cluster(report, component, &props)];
    if let Some(pooler) = &props.pooler {
        objects.extend(pooler_object(report, component, pooler));
    }
    if let Some(store) = &props.object_store {
        objects.push(object_store(report, component, store));
    }
    for (index, entry) in props.databases.iter().enumerate() {
        let at = path("databases").index(index);
        objects.push(database(report, component, &at, entry));
    }
    Built {
        objects,
        service: None,
    }
}

/// The path of a property.
fn path(key: &str) -> FieldPath {
    FieldPath::root().key(key)
}

/// An error about a bad value at `at`.
fn invalid(report: &mut Report<'_>, at: &FieldPath, message: impl Into<String>) {
    report.error(codes::INVALID_PROPERTY, at, message);
}

/// Reports the `key` under `at` when its `text` is empty: Kure requires
/// it, and treats empty text as none.
fn filled(report: &mut Report<'_>, at: &FieldPath, key: &str, text: &str) {
    if text.is_empty() {
        invalid(report, &at.key(key), format!("`{key}` may not be empty"));
    }
}

/// Whether a count is between `low` and Go's `int32` maximum, which Kure
/// reads counts into.
fn in_range(low: i64, count: i64) -> bool {
    (low..=i64::from(i32::MAX)).contains(&count)
}

/// Text, unless empty: Go's `omitempty` leaves empty text out.
fn nonempty(text: Option<&str>) -> Option<&str> {
    text.filter(|text| !text.is_empty())
}

/// `object` without its null fields. Fields Go's `omitempty` leaves out
/// are built as `None`, which `json!` writes as null.
fn present(mut object: Value) -> Value {
    if let Value::Object(fields) = &mut object {
        fields.retain(|_, field| !field.is_null());
    }
    object
}

/// A text map, its values as text; none when empty, which Go leaves out.
fn texts(map: &Texts) -> Option<Value> {
    let entries = map
        .iter()
        .map(|(key, value)| (key.clone(), json!(value.text())));
    (!map.is_empty()).then(|| Value::Object(entries.collect()))
}

/// Leaves out of a value of Barman's type, at every depth, what Go's
/// `omitempty` leaves out: null, empty text, `false`, empty lists and
/// empty tag maps. Other empty objects stay, as Go keeps a pointer to an
/// empty struct; the tag maps' values are the user's, kept as written.
fn omit_empty(value: &mut Value) {
    let Value::Object(fields) = value else {
        return;
    };
    fields.retain(|key, field| match field {
        Value::Null | Value::Bool(false) => false,
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty() || !TAG_MAPS.contains(&key.as_str()),
        Value::Bool(true) | Value::Number(_) => true,
    });
    for (key, field) in fields.iter_mut() {
        if !TAG_MAPS.contains(&key.as_str()) {
            omit_empty(field);
        }
    }
}

/// An object of `kind` named `name` in the build's namespace, without
/// the null fields of `spec`; Kure's `cnpg` constructors set no labels.
fn object(kind: &str, component: &Component<'_>, name: &str, spec: Value) -> Value {
    let api_version = if kind == "ObjectStore" { BARMAN } else { CNPG };
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": component.namespace},
        "spec": present(spec),
    })
}

/// The `Cluster`.
fn cluster(report: &mut Report<'_>, component: &Component<'_>, props: &Properties) -> Value {
    let instances = props.replicas.unwrap_or(1);
    if !in_range(1, instances) {
        let message = format!("`replicas` is between 1 and {}, not {instances}", i32::MAX);
        invalid(report, &path("replicas"), message);
        report.help("`CloudNativePG` runs at least one instance");
    }
    // The cluster archives its WAL through the Barman Cloud plugin, to the
    // `ObjectStore` of its own name.
    let plugins = props.object_store.as_ref().map(|store| {
        // The barman plugin takes the server's name here: its ObjectStore
        // refuses one (Kure writes it there, bug B14).
        let mut parameters = json!({"objectStoreName": component.name});
        if let Some(server) = nonempty(store.server_name.as_deref()) {
            parameters["serverName"] = json!(server);
        }
        json!([{
            "isWALArchiver": true,
            "name": "barman-cloud.barmancloud.cnpg.io",
            "parameters": parameters,
        }])
    });
    let metadata = props.inherited_metadata.as_ref();
    let spec = json!({
        "affinity": affinity(props.affinity.as_ref()),
        "backup": backup(report, props.backup.as_ref()),
        "bootstrap": bootstrap(report, props),
        "enablePDB": instances > 1,
        "externalClusters": external_clusters(report, &props.external_clusters),
        "imageName": image(report, props),
        "inheritedMetadata": metadata.and_then(inherited),
        "instances": instances,
        "managed": managed(report, &props.managed_roles),
        "monitoring": monitoring(report, props.monitoring.as_ref()),
        "plugins": plugins,
        "postgresql": postgresql(report, props),
        "primaryUpdateStrategy": "unsupervised",
        "resources": resources(report, props.resources.as_ref()),
        "storage": {"size": storage_size(report, props.storage_size.as_deref())},
    });
    object("Cluster", component, component.name, spec)
}

/// The image: `imageName`, else the default image tagged with `version`.
fn image(report: &mut Report<'_>, props: &Properties) -> String {
    if let Some(name) = nonempty(props.image_name.as_deref()) {
        return name.to_owned();
    }
    let version = match &props.version {
        None => "16".to_owned(),
        Some(Version::Text(text)) => text.clone(),
        Some(Version::Number(number)) => number.to_string(),
    };
    if !is_tag(&version) {
        let message = format!("`{version}` cannot be the tag of `{DEFAULT_IMAGE}:<version>`");
        invalid(report, &path("version"), message);
        report.help("write a version such as `16` or `16.4`, or give `imageName`");
    }
    format!("{DEFAULT_IMAGE}:{version}")
}

/// Whether `tag` is an image tag: `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`.
fn is_tag(tag: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    tag.len() <= 128
        && tag.starts_with(word)
        && tag.chars().all(|c| word(c) || c == '.' || c == '-')
}

/// The volume's size, as written; Kure does not check it, here it must be
/// a quantity above 0.
fn storage_size<'a>(report: &mut Report<'_>, size: Option<&'a str>) -> &'a str {
    let size = size.unwrap_or("1Gi");
    let problem = match parse_quantity(size) {
        Ok(quantity) if quantity.to_f64() > 0.0 => return size,
        Ok(_) => "a volume is larger than 0".to_owned(),
        Err(why) => format!("it is not a Kubernetes quantity: {why}"),
    };
    let message = format!("`{size}` is not a storage size: {problem}");
    invalid(report, &path("storageSize"), message);
    size
}

/// `spec.affinity`: `{}` unless `affinity` is written, which turns
/// anti-affinity on by default.
fn affinity(affinity: Option<&Affinity>) -> Value {
    let Some(affinity) = affinity else {
        return json!({});
    };
    let kind = affinity.pod_anti_affinity_type.map(|kind| match kind {
        AntiAffinityType::Preferred => "preferred",
        AntiAffinityType::Required => "required",
    });
    let key = affinity.topology_key.as_deref().unwrap_or(HOSTNAME);
    present(json!({
        "enablePodAntiAffinity": affinity.enable_pod_anti_affinity.unwrap_or(true),
        "nodeSelector": texts(&affinity.node_selector),
        "podAntiAffinityType": kind,
        "topologyKey": nonempty(Some(key)),
    }))
}

/// `spec.postgresql`: parameters, synchronous replication, and the
/// election constraint Go always writes.
fn postgresql(report: &mut Report<'_>, props: &Properties) -> Value {
    let mut synchronous = None;
    if let Some(Replication {
        synchronous: Some(sync),
    }) = &props.replication
    {
        let number = sync.number.unwrap_or(1);
        if !in_range(1, number) {
            let at = path("replication").key("synchronous").key("number");
            let message = format!("`number` is between 1 and {}, not {number}", i32::MAX);
            invalid(report, &at, message);
            report.help("`CloudNativePG` refuses fewer than one synchronous standby");
        }
        synchronous = Some(present(json!({
            "dataDurability": sync.data_durability,
            "failoverQuorum": false,
            "method": sync.method,
            "number": number,
        })));
    }
    let settings = props.postgresql.as_ref();
    present(json!({
        "parameters": settings.and_then(|settings| texts(&settings.parameters)),
        "syncReplicaElectionConstraint": {"enabled": false},
        "synchronous": synchronous,
    }))
}

/// `spec.resources`: the quantities given, canonical, each request no
/// larger than its limit (as Kure checks); `{}` when none is given.
fn resources(report: &mut Report<'_>, resources: Option<&ClusterResources>) -> Value {
    let mut written = Map::new();
    let at = path("resources");
    let sides = resources.map_or([None, None], |resources| {
        [resources.requests.as_ref(), resources.limits.as_ref()]
    });
    let mut parsed = Vec::new();
    for (side, list) in ["requests", "limits"].into_iter().zip(sides) {
        let Some(list) = list else {
            continue;
        };
        let mut quantities = Map::new();
        for (name, value) in [("cpu", list.cpu.as_ref()), ("memory", list.memory.as_ref())] {
            let at = at.key(side).key(name);
            let Some(quantity) = value.and_then(|value| pod::quantity(report, value, &at)) else {
                continue;
            };
            quantities.insert(name.to_owned(), json!(quantity.canonical()));
            parsed.push((side, name, quantity));
        }
        if !quantities.is_empty() {
            written.insert(side.to_owned(), Value::Object(quantities));
        }
    }
    for (side, name, request) in &parsed {
        let limit = parsed
            .iter()
            .find(|(other, n, _)| *other == "limits" && n == name);
        if *side == "requests"
            && let Some((_, _, limit)) = limit
            && request.to_f64() > limit.to_f64()
        {
            let message = format!("the `{name}` request `{request}` exceeds its limit `{limit}`");
            invalid(report, &at.key(side).key(name), message);
        }
    }
    Value::Object(written)
}

/// `spec.inheritedMetadata`, when a label or an annotation is given.
fn inherited(metadata: &InheritedMetadata) -> Option<Value> {
    let labels = texts(&metadata.labels);
    let annotations = texts(&metadata.annotations);
    let given = labels.is_some() || annotations.is_some();
    given.then(|| present(json!({"annotations": annotations, "labels": labels})))
}

/// The Barman settings of a store Kure writes (S3 credentials from the
/// keys `ACCESS_KEY_ID` and `SECRET_ACCESS_KEY` of the Secret
/// `secretName`), and its retention policy.
fn store_settings<'a>(
    report: &mut Report<'_>,
    at: &FieldPath,
    store: &'a Store,
    server_name: Option<&str>,
) -> (Value, Option<&'a str>) {
    filled(report, at, "destinationPath", &store.destination_path);
    let credentials = nonempty(store.secret_name.as_deref()).map(|secret| {
        json!({
            "accessKeyId": {"key": "ACCESS_KEY_ID", "name": secret},
            "secretAccessKey": {"key": "SECRET_ACCESS_KEY", "name": secret},
        })
    });
    let policy = nonempty(store.retention_policy.as_deref());
    if let Some(policy) = policy {
        // `CloudNativePG`'s pattern: `^[1-9][0-9]*[dwm]$`.
        let number = policy.strip_suffix(['d', 'w', 'm']).unwrap_or_default();
        if number.is_empty()
            || number.starts_with('0')
            || !number.bytes().all(|byte| byte.is_ascii_digit())
        {
            let message = format!("`{policy}` is not a retention policy: like `30d`, `4w` or `6m`");
            invalid(report, &at.key("retentionPolicy"), message);
            report.help("write a number of days (`d`), weeks (`w`) or months (`m`)");
        }
    }
    let settings = present(json!({
        "destinationPath": store.destination_path,
        "endpointURL": nonempty(store.endpoint_url.as_deref()),
        "s3Credentials": credentials,
        "serverName": nonempty(server_name),
    }));
    (settings, policy)
}

/// `spec.backup`: in-tree Barman backups.
fn backup(report: &mut Report<'_>, backup: Option<&Store>) -> Option<Value> {
    let (store, policy) = store_settings(report, &path("backup"), backup?, None);
    Some(present(
        json!({"barmanObjectStore": store, "retentionPolicy": policy}),
    ))
}

/// The Barman Cloud `ObjectStore` the cluster's WAL archiver writes to.
fn object_store(report: &mut Report<'_>, component: &Component<'_>, store: &ObjectStore) -> Value {
    let at = path("objectStore");
    let (configuration, policy) = store_settings(report, &at, &store.store, None);
    // Go always writes the sidecar's settings, and their `resources`.
    let spec = json!({
        "configuration": configuration,
        "instanceSidecarConfiguration": {"resources": {}},
        "retentionPolicy": policy,
    });
    object("ObjectStore", component, component.name, spec)
}

/// `spec.monitoring`: a `PodMonitor` and the custom queries, only with
/// `enabled: true`.
fn monitoring(report: &mut Report<'_>, monitoring: Option<&Monitoring>) -> Option<Value> {
    let monitoring = monitoring?;
    let queries = &monitoring.custom_queries;
    if monitoring.enabled != Some(true) {
        if !queries.is_empty() {
            let at = path("monitoring").key("customQueries");
            let message = "custom queries are written only with `enabled: true`; Kure drops them";
            invalid(report, &at, message);
            report.help("add `enabled: true`, or remove `customQueries`");
        }
        return None;
    }
    Some(present(json!({
        "customQueriesConfigMap": (!queries.is_empty()).then_some(queries),
        "enablePodMonitor": true,
    })))
}

/// `spec.bootstrap`: recovery or `pg_basebackup` from an external cluster.
fn bootstrap(report: &mut Report<'_>, props: &Properties) -> Option<Value> {
    let bootstrap = props.bootstrap.as_ref()?;
    let (method, source) = match (&bootstrap.recovery, &bootstrap.pg_basebackup) {
        (Some(_), Some(_)) => {
            let message = "`recovery` and `pg_basebackup` exclude each other";
            invalid(report, &path("bootstrap"), message);
            report.help("a cluster is bootstrapped one way: keep one of them");
            return None;
        }
        (Some(source), None) => ("recovery", &source.source),
        (None, Some(source)) => ("pg_basebackup", &source.source),
        (None, None) => return None,
    };
    let at = path("bootstrap").key(method);
    filled(report, &at, "source", source);
    let named = props
        .external_clusters
        .iter()
        .any(|cluster| &cluster.name == source);
    if !source.is_empty() && !named {
        let message = format!("no entry of `externalClusters` is named `{source}`");
        invalid(report, &at.key("source"), message);
        report.help("add the source cluster to `externalClusters`, as `CloudNativePG` requires");
    }
    let mut written = Map::new();
    written.insert(method.to_owned(), json!({"source": source}));
    Some(Value::Object(written))
}

/// `spec.externalClusters`, in order.
fn external_clusters(report: &mut Report<'_>, clusters: &[ExternalCluster]) -> Option<Value> {
    let mut written = Vec::new();
    for (index, cluster) in clusters.iter().enumerate() {
        let at = path("externalClusters").index(index);
        filled(report, &at, "name", &cluster.name);
        if clusters[..index]
            .iter()
            .any(|earlier| earlier.name == cluster.name)
        {
            let message = format!("another external cluster is named `{}`", cluster.name);
            invalid(report, &at.key("name"), message);
        }
        let mut store = None;
        if let Some(settings) = &cluster.barman_object_store {
            let destination = &settings.destination_path;
            filled(
                report,
                &at.key("barmanObjectStore"),
                "destinationPath",
                destination,
            );
            // Kure writes the store as Go's Barman type reads it back.
            let mut value = serde_json::to_value(settings).unwrap_or_default();
            omit_empty(&mut value);
            store = Some(value);
        }
        let parameters = texts(&cluster.connection_parameters);
        if store.is_none() && parameters.is_none() {
            let message = "an external cluster needs `connectionParameters` or `barmanObjectStore`";
            invalid(report, &at, message);
            report.help("`CloudNativePG` refuses an external cluster it cannot reach");
        }
        written.push(present(json!({
            "barmanObjectStore": store,
            "connectionParameters": parameters,
            "name": cluster.name,
        })));
    }
    (!written.is_empty()).then_some(Value::Array(written))
}

/// `spec.managed.roles`, when there are roles.
fn managed(report: &mut Report<'_>, roles: &[Role]) -> Option<Value> {
    let mut written = Vec::new();
    for (index, role) in roles.iter().enumerate() {
        let at = path("managedRoles").index(index);
        written.push(managed_role(report, &at, role));
    }
    (!written.is_empty()).then(|| json!({"roles": written}))
}

/// One managed role, as Go writes it: `ensure` only when `absent`, flags
/// only when true, `inherit` whenever given.
fn managed_role(report: &mut Report<'_>, at: &FieldPath, role: &Role) -> Value {
    filled(report, at, "name", &role.name);
    if let Some(limit) = role.connection_limit
        && limit != -1
        && !in_range(1, limit)
    {
        let at = at.key("connectionLimit");
        if limit == 0 {
            // Go's `omitempty` drops 0, and `CloudNativePG` then reads its
            // default, -1: no limit at all.
            let message =
                "`connectionLimit: 0` cannot be written: Kure leaves 0 out, which means no limit";
            invalid(report, &at, message);
            report.help("to keep the role from connecting, leave out `login`");
        } else {
            let message = format!("`connectionLimit` is -1 or 1 to {}, not {limit}", i32::MAX);
            invalid(report, &at, message);
        }
    }
    let flag = |value: Option<bool>| value.filter(|set| *set);
    let secret = nonempty(role.password_secret.as_deref());
    present(json!({
        "comment": nonempty(role.comment.as_deref()),
        "connectionLimit": role.connection_limit.filter(|limit| *limit != 0),
        "createdb": flag(role.createdb),
        "createrole": flag(role.createrole),
        "ensure": (role.ensure == Some(Ensure::Absent)).then_some(Ensure::Absent),
        "inRoles": (!role.in_roles.is_empty()).then_some(&role.in_roles),
        "inherit": role.inherit,
        "login": flag(role.login),
        "name": role.name,
        "passwordSecret": secret.map(|name| json!({"name": name})),
        "replication": flag(role.replication),
        "superuser": flag(role.superuser),
    }))
}

/// The `Pooler`, when enabled; its settings are checked either way, as
/// Kure checks them.
fn pooler_object(
    report: &mut Report<'_>,
    component: &Component<'_>,
    pooler: &Pooler,
) -> Option<Value> {
    let at = path("pooler");
    let instances = pooler.instances.unwrap_or(3);
    if !in_range(1, instances) {
        let message = format!("`instances` is between 1 and {}, not {instances}", i32::MAX);
        invalid(report, &at.key("instances"), message);
        report.help("Kure leaves out fewer than one instance, and `CloudNativePG` then runs one");
    }
    let mode = pooler.pool_mode.unwrap_or(PoolMode::Session);
    if mode == PoolMode::Statement {
        let message = "`CloudNativePG` refuses the pool mode `statement`";
        invalid(report, &at.key("poolMode"), message);
        report.help("use `session` or `transaction`");
    }
    if pooler.enabled != Some(true) {
        return None;
    }
    let spec = json!({
        "cluster": {"name": component.name},
        "instances": instances,
        "pgbouncer": present(json!({"parameters": texts(&pooler.parameters), "poolMode": mode})),
        "type": pooler.kind.unwrap_or(PoolerType::Rw),
    });
    let name = format!("{}-pooler", component.name);
    Some(object("Pooler", component, &name, spec))
}

/// A `Database`, named `<component>-<database>`.
fn database(
    report: &mut Report<'_>,
    component: &Component<'_>,
    at: &FieldPath,
    database: &Database,
) -> Value {
    filled(report, at, "name", &database.name);
    filled(report, at, "owner", &database.owner);
    let name = format!("{}-{}", component.name, database.name);
    if !database.name.is_empty() && !is_dns1123_subdomain(&name) {
        let message = format!("the `Database` object's name `{name}` is not a DNS-1123 subdomain");
        invalid(report, &at.key("name"), message);
        report.help(
            "Kure names it `<component>-<database>`: use lowercase letters, digits, `-` and `.`",
        );
    }
    let mut extensions = Vec::new();
    for (index, extension) in database.extensions.iter().enumerate() {
        filled(
            report,
            &at.key("extensions").index(index),
            "name",
            &extension.name,
        );
        let ensure = extension.ensure.unwrap_or(Ensure::Present);
        extensions.push(json!({"ensure": ensure, "name": extension.name}));
    }
    let delete = database.reclaim_policy == Some(ReclaimPolicy::Delete);
    let spec = json!({
        "cluster": {"name": component.name},
        "databaseReclaimPolicy": delete.then_some("delete"),
        "ensure": (database.ensure == Some(Ensure::Absent)).then_some(Ensure::Absent),
        "extensions": (!extensions.is_empty()).then_some(extensions),
        "name": database.name,
        "owner": database.owner,
    });
    object("Database", component, &name, spec)
}

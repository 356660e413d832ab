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
//! (`version`, unless `imageName` is given), a `1Gi` volume, one instance
//! (`enablePDB` from two), a pooler of three `rw` instances in `session`
//! mode, a synchronous `number` of 1, and once `affinity` is written,
//! `enablePodAntiAffinity: true` with the topology key
//! `kubernetes.io/hostname`.
//!
//! **Go's zero values**: what Kure's Go types always write is written here
//! too: the Cluster's `affinity: {}`, `resources: {}` and
//! `postgresql.syncReplicaElectionConstraint.enabled: false`, a synchronous
//! block's `failoverQuorum: false`, the `ObjectStore`'s
//! `instanceSidecarConfiguration.resources: {}`, an extension's `ensure:
//! present`. What Go's `omitempty` leaves out stays out: empty text and
//! maps, `false` role flags, a role's `ensure: present` and a database's
//! `databaseReclaimPolicy: retain` (both `CloudNativePG`'s defaults).
//! Quantities under `resources` are written canonically (`1024Mi` is
//! `1Gi`); `storageSize` as written.
//!
//! **Stricter than Kure**, where Kure drops or misreads what is written, or
//! writes an object `CloudNativePG` refuses (the manual lists each case):
//! - Properties are decoded strictly: an unknown key or a value of the
//!   wrong type is an error at any depth, also in
//!   `externalClusters[].barmanObjectStore` (Kure drops its unknown keys)
//!   and in list entries Kure skips (extensions, custom queries).
//! - The values of text maps (`postgresql.parameters`,
//!   `pooler.parameters`, `inheritedMetadata`, `affinity.nodeSelector`,
//!   `externalClusters[].connectionParameters`) may be numbers or
//!   booleans, written as their text (`max_connections: 200` is `"200"`),
//!   since `CloudNativePG` takes text; Kure drops them.
//! - `version` may be a whole number (`15` is `"15"`; Kure falls back to
//!   16), and must make an image tag.
//! - Keys whose absence makes Kure drop a block are required:
//!   `externalClusters[].name`, `replication.synchronous.method`,
//!   `bootstrap.*.source`, `backup.destinationPath`, and every object
//!   store's `destinationPath`; none may be empty.
//! - Values `CloudNativePG` or Kubernetes refuse, or that Kure turns into
//!   another: `storageSize` not a quantity above 0, `replicas` below 1, a
//!   synchronous `number` below 1, pooler `instances` below 1 (Kure leaves
//!   them out, and one runs), `poolMode: statement`, a role's
//!   `connectionLimit: 0` (Kure leaves it out, which means no limit) or
//!   below -1, a `retentionPolicy` not like `30d`, a `Database` whose name
//!   `<component>-<database>` is not a DNS-1123 subdomain, a bootstrap
//!   source no external cluster is named after, two external clusters of
//!   one name, or one with neither `connectionParameters` nor
//!   `barmanObjectStore`.
//! - `podAntiAffinityType` is `preferred` or `required`, and custom
//!   monitoring queries need `monitoring.enabled: true` (Kure drops them
//!   otherwise).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use strata_k8s::names::is_dns1123_subdomain;
use strata_k8s::{Quantity, parse_quantity};
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

/// The image a `version` is a tag of.
const DEFAULT_IMAGE: &str = "ghcr.io/cloudnative-pg/postgresql";

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
    /// The major version, the tag of the default image (`16`).
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
    backup: Option<Backup>,
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

/// The database operators Kure supports.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Provider {
    /// `CloudNativePG`.
    Cnpg,
}

/// A major version: text (`"16"`) or a whole number (`16`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Version {
    /// `"16"`.
    Text(String),
    /// `16`.
    Number(i64),
}

/// A value of a text map: text, or a number or boolean taken as its text.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Setting {
    /// `256MB`.
    Text(String),
    /// `200`.
    Whole(i64),
    /// `1.1`.
    Fraction(f64),
    /// `true`.
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

/// In-tree Barman backups.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Backup {
    /// Where backups go (`s3://bucket/path`).
    destination_path: String,
    /// The object store's endpoint.
    #[serde(rename = "endpointURL")]
    endpoint_url: Option<String>,
    /// A Secret with `ACCESS_KEY_ID` and `SECRET_ACCESS_KEY`.
    secret_name: Option<String>,
    /// How long backups are kept (`30d`, `4w`, `6m`).
    retention_policy: Option<String>,
}

/// Monitoring.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Monitoring {
    /// Write a `PodMonitor` (and the custom queries).
    enabled: Option<bool>,
    /// ConfigMap keys with queries of their own.
    #[serde(default)]
    custom_queries: Vec<CustomQuery>,
}

/// A ConfigMap's key holding monitoring queries.
#[derive(Debug, Deserialize, JsonSchema)]
struct CustomQuery {
    /// The ConfigMap.
    name: String,
    /// The key.
    key: String,
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
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PoolerType {
    /// The primary.
    Rw,
    /// The replicas.
    Ro,
}

/// When a pooled server connection is handed back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PoolMode {
    /// When the client disconnects.
    Session,
    /// After each transaction.
    Transaction,
    /// After each statement (which `CloudNativePG` refuses).
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
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum SyncMethod {
    /// Any of them (quorum).
    Any,
    /// The first ones (priority).
    First,
}

/// Whether commits wait when too few standbys answer.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Durability {
    /// They wait.
    Required,
    /// They go on.
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

/// Whether something is to exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Ensure {
    /// It exists.
    Present,
    /// It does not.
    Absent,
}

/// A Barman Cloud `ObjectStore`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ObjectStore {
    /// Where backups and WAL go (`s3://bucket/path`).
    destination_path: String,
    /// The object store's endpoint.
    #[serde(rename = "endpointURL")]
    endpoint_url: Option<String>,
    /// A Secret with `ACCESS_KEY_ID` and `SECRET_ACCESS_KEY`.
    secret_name: Option<String>,
    /// How long backups are kept (`30d`, `4w`, `6m`).
    retention_policy: Option<String>,
    /// The server's name in the store (the cluster's).
    server_name: Option<String>,
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
    /// It stays.
    Retain,
    /// It is dropped.
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

/// Barman's object store settings, as `CloudNativePG` defines them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BarmanStore {
    /// Where backups and WAL are (`s3://bucket/path`).
    destination_path: String,
    /// The endpoint.
    #[serde(rename = "endpointURL")]
    endpoint_url: Option<String>,
    /// The endpoint's CA bundle.
    #[serde(rename = "endpointCA")]
    endpoint_ca: Option<KeySelector>,
    /// The server's name in the store.
    server_name: Option<String>,
    /// S3 credentials.
    s3_credentials: Option<S3Credentials>,
    /// Azure credentials.
    azure_credentials: Option<AzureCredentials>,
    /// Google Cloud credentials.
    google_credentials: Option<GoogleCredentials>,
    /// WAL settings.
    wal: Option<WalSettings>,
    /// Base backup settings.
    data: Option<DataSettings>,
    /// Tags of backup files.
    #[serde(default)]
    tags: BTreeMap<String, String>,
    /// Tags of history files.
    #[serde(default)]
    history_tags: BTreeMap<String, String>,
}

/// A key of a Secret.
#[derive(Debug, Deserialize, JsonSchema)]
struct KeySelector {
    /// The Secret.
    name: String,
    /// The key.
    key: String,
}

impl KeySelector {
    /// As Go writes it: both fields, always.
    fn json(&self) -> Value {
        json!({"key": self.key, "name": self.name})
    }
}

/// S3 credentials.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct S3Credentials {
    /// The access key id.
    access_key_id: Option<KeySelector>,
    /// The secret access key.
    secret_access_key: Option<KeySelector>,
    /// The region.
    region: Option<KeySelector>,
    /// A session token.
    session_token: Option<KeySelector>,
    /// Use the pod's IAM role instead.
    #[serde(rename = "inheritFromIAMRole")]
    inherit_from_iam_role: Option<bool>,
}

/// Azure credentials.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AzureCredentials {
    /// A connection string.
    connection_string: Option<KeySelector>,
    /// The storage account.
    storage_account: Option<KeySelector>,
    /// The storage key.
    storage_key: Option<KeySelector>,
    /// A SAS token.
    storage_sas_token: Option<KeySelector>,
    /// Use Azure AD.
    #[serde(rename = "inheritFromAzureAD")]
    inherit_from_azure_ad: Option<bool>,
    /// Use the default Azure credentials.
    #[serde(rename = "useDefaultAzureCredentials")]
    use_default: Option<bool>,
}

/// Google Cloud credentials.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GoogleCredentials {
    /// The application credentials.
    application_credentials: Option<KeySelector>,
    /// Use GKE's workload identity.
    gke_environment: Option<bool>,
}

/// How WAL is archived.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WalSettings {
    /// The compression.
    compression: Option<String>,
    /// The encryption.
    encryption: Option<String>,
    /// Files archived or restored at once.
    max_parallel: Option<i64>,
    /// Extra arguments of `barman-cloud-wal-archive`.
    #[serde(default)]
    archive_additional_command_args: Vec<String>,
    /// Extra arguments of `barman-cloud-wal-restore`.
    #[serde(default)]
    restore_additional_command_args: Vec<String>,
}

/// How base backups are taken.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DataSettings {
    /// The compression.
    compression: Option<String>,
    /// The encryption.
    encryption: Option<String>,
    /// Parallel upload jobs.
    jobs: Option<i64>,
    /// Checkpoint at once.
    immediate_checkpoint: Option<bool>,
    /// Extra arguments of `barman-cloud-backup`.
    #[serde(default)]
    additional_command_args: Vec<String>,
    /// Extra arguments of `barman-cloud-restore`.
    #[serde(default)]
    restore_additional_command_args: Vec<String>,
}

/// The JSON Schema of the properties.
pub(crate) fn schema() -> &'static serde_json::Value {
    PROPERTIES.schema()
}

/// Builds a `postgresql` component: its objects in Kure's order (module
/// documentation).
pub(crate) fn build(report: &mut Report<'_>, component: &Component<'_>) -> Built {
    let properties = match PROPERTIES.decode(component.properties) {
        Ok(properties) => properties,
        Err(problems) => {
            for problem in problems {
                let path = problem.path.clone().unwrap_or_else(FieldPath::root);
                report.push(problem, &path);
            }
            return Built::default();
        }
    };
    let mut objects = vec![cluster(report, component, &properties)];
    if let Some(pooler) = &properties.pooler {
        objects.extend(pooler_object(report, component, pooler));
    }
    if let Some(store) = &properties.object_store {
        objects.push(object_store(report, component, store));
    }
    let path = FieldPath::root().key("databases");
    for (index, entry) in properties.databases.iter().enumerate() {
        objects.push(database(report, component, &path.index(index), entry));
    }
    Built {
        objects,
        service: None,
    }
}

/// An object of `kind` named `name` in the build's namespace; Kure's
/// `cnpg` constructors set no labels.
fn object(
    api_version: &str,
    kind: &str,
    component: &Component<'_>,
    name: &str,
    spec: Map<String, Value>,
) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": component.namespace},
        "spec": Value::Object(spec),
    })
}

/// Puts `value` at `key` unless it is empty text, which Go's `omitempty`
/// leaves out.
fn put_text(map: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(value) = value.filter(|value| !value.is_empty()) {
        map.insert(key.to_owned(), json!(value));
    }
}

/// Puts `true` at `key`; Go's `omitempty` leaves `false` out.
fn put_flag(map: &mut Map<String, Value>, key: &str, value: Option<bool>) {
    if value == Some(true) {
        map.insert(key.to_owned(), Value::Bool(true));
    }
}

/// Puts `value` at `key` when there is one.
fn put(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        map.insert(key.to_owned(), value);
    }
}

/// Puts `items` at `key` unless there are none.
fn put_list(map: &mut Map<String, Value>, key: &str, items: &[String]) {
    if !items.is_empty() {
        map.insert(key.to_owned(), json!(items));
    }
}

/// A text map, its values as text; `None` when empty, as Go leaves an
/// empty map out.
fn texts(map: &Texts) -> Option<Value> {
    (!map.is_empty()).then(|| {
        Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), Value::String(value.text())))
                .collect(),
        )
    })
}

/// Reports the `key` under `at` when its `text` is empty: Kure requires
/// it, and treats empty text as none.
fn filled(report: &mut Report<'_>, at: &FieldPath, key: &str, text: &str) {
    if text.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key(key),
            format!("`{key}` may not be empty"),
        );
    }
}

/// Whether a count is between `low` and Go's `int32` maximum, which Kure
/// reads counts into.
fn in_range(low: i64, count: i64) -> bool {
    (low..=i64::from(i32::MAX)).contains(&count)
}

/// The `Cluster`.
fn cluster(report: &mut Report<'_>, component: &Component<'_>, properties: &Properties) -> Value {
    let instances = properties.replicas.unwrap_or(1);
    if !in_range(1, instances) {
        report.error(
            codes::INVALID_PROPERTY,
            &FieldPath::root().key("replicas"),
            format!("`replicas` is between 1 and {}, not {instances}", i32::MAX),
        );
        report.help("`CloudNativePG` runs at least one instance");
    }
    let size = storage_size(report, properties.storage_size.as_deref());
    let mut spec = Map::new();
    for (key, value) in [
        ("affinity", affinity(properties.affinity.as_ref())),
        ("enablePDB", json!(instances > 1)),
        ("imageName", json!(image(report, properties))),
        ("instances", json!(instances)),
        ("postgresql", postgresql(report, properties)),
        ("primaryUpdateStrategy", json!("unsupervised")),
        ("resources", resources(report, properties.resources.as_ref())),
        ("storage", json!({"size": size})),
    ] {
        spec.insert(key.to_owned(), value);
    }
    let metadata = properties.inherited_metadata.as_ref();
    put(&mut spec, "inheritedMetadata", metadata.and_then(inherited_metadata));
    put(&mut spec, "backup", backup(report, properties.backup.as_ref()));
    put(&mut spec, "monitoring", monitoring(report, properties.monitoring.as_ref()));
    put(&mut spec, "bootstrap", bootstrap(report, properties));
    put(
        &mut spec,
        "externalClusters",
        external_clusters(report, &properties.external_clusters),
    );
    put(&mut spec, "managed", managed(report, &properties.managed_roles));
    if properties.object_store.is_some() {
        // The cluster archives its WAL through the plugin, to the
        // `ObjectStore` of its own name.
        spec.insert(
            "plugins".to_owned(),
            json!([{
                "isWALArchiver": true,
                "name": "barman-cloud.barmancloud.cnpg.io",
                "parameters": {"objectStoreName": component.name},
            }]),
        );
    }
    object(CNPG, "Cluster", component, component.name, spec)
}

/// The image: `imageName`, else the default image tagged with `version`.
fn image(report: &mut Report<'_>, properties: &Properties) -> String {
    if let Some(name) = properties.image_name.as_deref().filter(|name| !name.is_empty()) {
        return name.to_owned();
    }
    let version = match &properties.version {
        None => "16".to_owned(),
        Some(Version::Text(text)) => text.clone(),
        Some(Version::Number(number)) => number.to_string(),
    };
    if !is_tag(&version) {
        report.error(
            codes::INVALID_PROPERTY,
            &FieldPath::root().key("version"),
            format!("`{version}` cannot be an image tag, as in `{DEFAULT_IMAGE}:<version>`"),
        );
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

/// The volume's size, as written: it must be a quantity above 0, which
/// Kure does not check.
fn storage_size<'a>(report: &mut Report<'_>, size: Option<&'a str>) -> &'a str {
    let size = size.unwrap_or("1Gi");
    let problem = match parse_quantity(size) {
        Ok(quantity) if quantity.to_f64() > 0.0 => return size,
        Ok(_) => "a volume is larger than 0".to_owned(),
        Err(why) => format!("it is not a Kubernetes quantity: {why}"),
    };
    report.error(
        codes::INVALID_PROPERTY,
        &FieldPath::root().key("storageSize"),
        format!("`{size}` is not a storage size: {problem}"),
    );
    size
}

/// `spec.affinity`: `{}` unless `affinity` is written, which turns
/// anti-affinity on by default.
fn affinity(affinity: Option<&Affinity>) -> Value {
    let mut written = Map::new();
    if let Some(affinity) = affinity {
        let enabled = affinity.enable_pod_anti_affinity.unwrap_or(true);
        written.insert("enablePodAntiAffinity".to_owned(), json!(enabled));
        let key = affinity.topology_key.as_deref().unwrap_or("kubernetes.io/hostname");
        put_text(&mut written, "topologyKey", Some(key));
        let kind = affinity.pod_anti_affinity_type.map(|kind| match kind {
            AntiAffinityType::Preferred => json!("preferred"),
            AntiAffinityType::Required => json!("required"),
        });
        put(&mut written, "podAntiAffinityType", kind);
        put(&mut written, "nodeSelector", texts(&affinity.node_selector));
    }
    Value::Object(written)
}

/// `spec.postgresql`: parameters, synchronous replication, and the
/// election constraint Go always writes.
fn postgresql(report: &mut Report<'_>, properties: &Properties) -> Value {
    let mut written = Map::new();
    written.insert(
        "syncReplicaElectionConstraint".to_owned(),
        json!({"enabled": false}),
    );
    let parameters = properties.postgresql.as_ref();
    put(
        &mut written,
        "parameters",
        parameters.and_then(|settings| texts(&settings.parameters)),
    );
    let synchronous = properties
        .replication
        .as_ref()
        .and_then(|replication| replication.synchronous.as_ref());
    if let Some(synchronous) = synchronous {
        let number = synchronous.number.unwrap_or(1);
        if !in_range(1, number) {
            report.error(
                codes::INVALID_PROPERTY,
                &FieldPath::root()
                    .key("replication")
                    .key("synchronous")
                    .key("number"),
                format!("`number` is between 1 and {}, not {number}", i32::MAX),
            );
            report.help("`CloudNativePG` refuses fewer than one synchronous standby");
        }
        let method = match synchronous.method {
            SyncMethod::Any => "any",
            SyncMethod::First => "first",
        };
        let mut block = Map::new();
        block.insert("method".to_owned(), json!(method));
        block.insert("number".to_owned(), json!(number));
        block.insert("failoverQuorum".to_owned(), json!(false));
        let durability = synchronous.data_durability.map(|level| match level {
            Durability::Required => json!("required"),
            Durability::Preferred => json!("preferred"),
        });
        put(&mut block, "dataDurability", durability);
        written.insert("synchronous".to_owned(), Value::Object(block));
    }
    Value::Object(written)
}

/// `spec.resources`: the quantities given, canonical, a request no larger
/// than its limit (as Kure checks); `{}` when none is.
fn resources(report: &mut Report<'_>, resources: Option<&ClusterResources>) -> Value {
    let mut written = Map::new();
    let Some(resources) = resources else {
        return Value::Object(written);
    };
    let path = FieldPath::root().key("resources");
    let mut parsed: [[Option<Quantity>; 2]; 2] = Default::default();
    let sides = [
        ("requests", resources.requests.as_ref()),
        ("limits", resources.limits.as_ref()),
    ];
    for (side, (key, list)) in sides.into_iter().enumerate() {
        let Some(list) = list else {
            continue;
        };
        let mut quantities = Map::new();
        let entries = [("cpu", list.cpu.as_ref()), ("memory", list.memory.as_ref())];
        for (index, (name, value)) in entries.into_iter().enumerate() {
            let Some(value) = value else {
                continue;
            };
            if let Some(quantity) = pod::quantity(report, value, &path.key(key).key(name)) {
                quantities.insert(name.to_owned(), json!(quantity.canonical()));
                parsed[side][index] = Some(quantity);
            }
        }
        if !quantities.is_empty() {
            written.insert(key.to_owned(), Value::Object(quantities));
        }
    }
    let [requests, limits] = &parsed;
    for (name, (request, limit)) in ["cpu", "memory"].into_iter().zip(requests.iter().zip(limits)) {
        if let (Some(request), Some(limit)) = (request, limit)
            && request.to_f64() > limit.to_f64()
        {
            report.error(
                codes::INVALID_PROPERTY,
                &path.key("requests").key(name),
                format!("the `{name}` request `{request}` exceeds its limit `{limit}`"),
            );
        }
    }
    Value::Object(written)
}

/// `spec.inheritedMetadata`, when a label or an annotation is given.
fn inherited_metadata(metadata: &InheritedMetadata) -> Option<Value> {
    let mut written = Map::new();
    put(&mut written, "labels", texts(&metadata.labels));
    put(&mut written, "annotations", texts(&metadata.annotations));
    (!written.is_empty()).then_some(Value::Object(written))
}

/// S3 credentials from the keys `ACCESS_KEY_ID` and `SECRET_ACCESS_KEY`
/// of the Secret `secret`, as Kure writes them.
fn secret_credentials(secret: &str) -> Value {
    json!({
        "accessKeyId": {"key": "ACCESS_KEY_ID", "name": secret},
        "secretAccessKey": {"key": "SECRET_ACCESS_KEY", "name": secret},
    })
}

/// A retention policy, checked against `CloudNativePG`'s pattern
/// `^[1-9][0-9]*[dwm]$`; `None` when none is given.
fn retention<'a>(
    report: &mut Report<'_>,
    at: &FieldPath,
    policy: Option<&'a str>,
) -> Option<&'a str> {
    let policy = policy.filter(|policy| !policy.is_empty())?;
    let number = policy.strip_suffix(['d', 'w', 'm']).unwrap_or_default();
    if number.is_empty() || number.starts_with('0') || !number.bytes().all(|b| b.is_ascii_digit())
    {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("retentionPolicy"),
            format!("`{policy}` is not a retention policy: a number of days, weeks or months, like `30d`, `4w` or `6m`"),
        );
    }
    Some(policy)
}

/// `spec.backup`: in-tree Barman backups to `destinationPath`.
fn backup(report: &mut Report<'_>, backup: Option<&Backup>) -> Option<Value> {
    let backup = backup?;
    let path = FieldPath::root().key("backup");
    filled(report, &path, "destinationPath", &backup.destination_path);
    let mut store = Map::new();
    store.insert(
        "destinationPath".to_owned(),
        json!(backup.destination_path),
    );
    put_text(&mut store, "endpointURL", backup.endpoint_url.as_deref());
    let secret = backup.secret_name.as_deref().filter(|name| !name.is_empty());
    put(&mut store, "s3Credentials", secret.map(secret_credentials));
    let mut written = Map::new();
    written.insert("barmanObjectStore".to_owned(), Value::Object(store));
    let policy = retention(report, &path, backup.retention_policy.as_deref());
    put_text(&mut written, "retentionPolicy", policy);
    Some(Value::Object(written))
}

/// `spec.monitoring`: a `PodMonitor` and the custom queries, only with
/// `enabled: true`.
fn monitoring(report: &mut Report<'_>, monitoring: Option<&Monitoring>) -> Option<Value> {
    let monitoring = monitoring?;
    let path = FieldPath::root().key("monitoring").key("customQueries");
    if monitoring.enabled != Some(true) {
        if !monitoring.custom_queries.is_empty() {
            report.error(
                codes::INVALID_PROPERTY,
                &path,
                "custom queries are written only with `monitoring.enabled: true`; Kure would drop these",
            );
            report.help("add `enabled: true`, or remove `customQueries`");
        }
        return None;
    }
    let mut written = Map::new();
    written.insert("enablePodMonitor".to_owned(), json!(true));
    let mut queries = Vec::new();
    for (index, query) in monitoring.custom_queries.iter().enumerate() {
        filled(report, &path.index(index), "name", &query.name);
        filled(report, &path.index(index), "key", &query.key);
        queries.push(json!({"key": query.key, "name": query.name}));
    }
    if !queries.is_empty() {
        written.insert("customQueriesConfigMap".to_owned(), Value::Array(queries));
    }
    Some(Value::Object(written))
}

/// `spec.bootstrap`: recovery or `pg_basebackup` from an external cluster.
fn bootstrap(report: &mut Report<'_>, properties: &Properties) -> Option<Value> {
    let bootstrap = properties.bootstrap.as_ref()?;
    let path = FieldPath::root().key("bootstrap");
    let (method, source) = match (&bootstrap.recovery, &bootstrap.pg_basebackup) {
        (Some(_), Some(_)) => {
            report.error(
                codes::INVALID_PROPERTY,
                &path,
                "`recovery` and `pg_basebackup` exclude each other: a cluster is bootstrapped one way",
            );
            return None;
        }
        (Some(source), None) => ("recovery", &source.source),
        (None, Some(source)) => ("pg_basebackup", &source.source),
        (None, None) => return None,
    };
    let at = path.key(method);
    filled(report, &at, "source", source);
    let named = properties
        .external_clusters
        .iter()
        .any(|cluster| &cluster.name == source);
    if !source.is_empty() && !named {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("source"),
            format!("no entry of `externalClusters` is named `{source}`; `CloudNativePG` refuses a source it cannot find"),
        );
        report.help("add the source cluster to `externalClusters`");
    }
    let mut written = Map::new();
    written.insert(method.to_owned(), json!({"source": source}));
    Some(Value::Object(written))
}

/// `spec.externalClusters`, in order.
fn external_clusters(report: &mut Report<'_>, clusters: &[ExternalCluster]) -> Option<Value> {
    let path = FieldPath::root().key("externalClusters");
    let mut written = Vec::new();
    for (index, cluster) in clusters.iter().enumerate() {
        let at = path.index(index);
        filled(report, &at, "name", &cluster.name);
        if clusters[..index]
            .iter()
            .any(|earlier| earlier.name == cluster.name)
        {
            report.error(
                codes::INVALID_PROPERTY,
                &at.key("name"),
                format!("another external cluster is named `{}`", cluster.name),
            );
        }
        let mut entry = Map::new();
        entry.insert("name".to_owned(), json!(cluster.name));
        put(
            &mut entry,
            "connectionParameters",
            texts(&cluster.connection_parameters),
        );
        if let Some(store) = &cluster.barman_object_store {
            let store_path = at.key("barmanObjectStore");
            filled(report, &store_path, "destinationPath", &store.destination_path);
            entry.insert("barmanObjectStore".to_owned(), barman_store(store));
        }
        if entry.len() == 1 {
            report.error(
                codes::INVALID_PROPERTY,
                &at,
                "an external cluster needs `connectionParameters` or `barmanObjectStore`; `CloudNativePG` refuses one with neither",
            );
        }
        written.push(Value::Object(entry));
    }
    (!written.is_empty()).then_some(Value::Array(written))
}

/// An external cluster's object store, as Go writes Barman's type back:
/// `destinationPath` and Secret keys always, the rest when not empty.
fn barman_store(store: &BarmanStore) -> Value {
    let mut written = Map::new();
    written.insert(
        "destinationPath".to_owned(),
        json!(store.destination_path),
    );
    put_text(&mut written, "endpointURL", store.endpoint_url.as_deref());
    put(
        &mut written,
        "endpointCA",
        store.endpoint_ca.as_ref().map(KeySelector::json),
    );
    put_text(&mut written, "serverName", store.server_name.as_deref());
    credentials(store, &mut written);
    if let Some(wal) = &store.wal {
        let mut settings = Map::new();
        put_text(&mut settings, "compression", wal.compression.as_deref());
        put_text(&mut settings, "encryption", wal.encryption.as_deref());
        // A Go `int` with `omitempty`: 0 is left out.
        let parallel = wal.max_parallel.filter(|count| *count != 0);
        put(&mut settings, "maxParallel", parallel.map(Value::from));
        let archive = &wal.archive_additional_command_args;
        put_list(&mut settings, "archiveAdditionalCommandArgs", archive);
        let restore = &wal.restore_additional_command_args;
        put_list(&mut settings, "restoreAdditionalCommandArgs", restore);
        written.insert("wal".to_owned(), Value::Object(settings));
    }
    if let Some(data) = &store.data {
        let mut settings = Map::new();
        put_text(&mut settings, "compression", data.compression.as_deref());
        put_text(&mut settings, "encryption", data.encryption.as_deref());
        // A Go pointer: written whenever given, 0 included.
        put(&mut settings, "jobs", data.jobs.map(Value::from));
        put_flag(&mut settings, "immediateCheckpoint", data.immediate_checkpoint);
        put_list(&mut settings, "additionalCommandArgs", &data.additional_command_args);
        let restore = &data.restore_additional_command_args;
        put_list(&mut settings, "restoreAdditionalCommandArgs", restore);
        written.insert("data".to_owned(), Value::Object(settings));
    }
    for (key, tags) in [("tags", &store.tags), ("historyTags", &store.history_tags)] {
        if !tags.is_empty() {
            written.insert(key.to_owned(), json!(tags));
        }
    }
    Value::Object(written)
}

/// The credentials of an object store, each kind given written (`{}` too,
/// as Go keeps a pointer to an empty struct).
fn credentials(store: &BarmanStore, written: &mut Map<String, Value>) {
    if let Some(s3) = &store.s3_credentials {
        let mut kind = Map::new();
        for (key, selector) in [
            ("accessKeyId", &s3.access_key_id),
            ("secretAccessKey", &s3.secret_access_key),
            ("region", &s3.region),
            ("sessionToken", &s3.session_token),
        ] {
            put(&mut kind, key, selector.as_ref().map(KeySelector::json));
        }
        put_flag(&mut kind, "inheritFromIAMRole", s3.inherit_from_iam_role);
        written.insert("s3Credentials".to_owned(), Value::Object(kind));
    }
    if let Some(azure) = &store.azure_credentials {
        let mut kind = Map::new();
        for (key, selector) in [
            ("connectionString", &azure.connection_string),
            ("storageAccount", &azure.storage_account),
            ("storageKey", &azure.storage_key),
            ("storageSasToken", &azure.storage_sas_token),
        ] {
            put(&mut kind, key, selector.as_ref().map(KeySelector::json));
        }
        put_flag(&mut kind, "inheritFromAzureAD", azure.inherit_from_azure_ad);
        put_flag(&mut kind, "useDefaultAzureCredentials", azure.use_default);
        written.insert("azureCredentials".to_owned(), Value::Object(kind));
    }
    if let Some(google) = &store.google_credentials {
        let mut kind = Map::new();
        let application = google.application_credentials.as_ref();
        put(&mut kind, "applicationCredentials", application.map(KeySelector::json));
        put_flag(&mut kind, "gkeEnvironment", google.gke_environment);
        written.insert("googleCredentials".to_owned(), Value::Object(kind));
    }
}

/// `spec.managed.roles`, when there are roles.
fn managed(report: &mut Report<'_>, roles: &[Role]) -> Option<Value> {
    if roles.is_empty() {
        return None;
    }
    let path = FieldPath::root().key("managedRoles");
    let written: Vec<Value> = roles
        .iter()
        .enumerate()
        .map(|(index, role)| managed_role(report, &path.index(index), role))
        .collect();
    Some(json!({"roles": written}))
}

/// One managed role, as Go writes it: `ensure` only when `absent`, flags
/// only when true, `inherit` whenever given.
fn managed_role(report: &mut Report<'_>, at: &FieldPath, role: &Role) -> Value {
    filled(report, at, "name", &role.name);
    let mut written = Map::new();
    written.insert("name".to_owned(), json!(role.name));
    put_text(&mut written, "comment", role.comment.as_deref());
    let absent = role.ensure == Some(Ensure::Absent);
    put_text(&mut written, "ensure", absent.then_some("absent"));
    let secret = role.password_secret.as_deref().filter(|name| !name.is_empty());
    put(&mut written, "passwordSecret", secret.map(|name| json!({"name": name})));
    if let Some(limit) = role.connection_limit {
        let limit_path = at.key("connectionLimit");
        if limit == 0 {
            // Go's `omitempty` drops 0, and `CloudNativePG` then reads its
            // default, -1: no limit at all.
            report.error(
                codes::INVALID_PROPERTY,
                &limit_path,
                "`connectionLimit: 0` cannot be written: Kure leaves 0 out, and `CloudNativePG` then reads -1, no limit",
            );
            report.help("to keep the role from connecting, leave out `login`");
        } else if limit != -1 && !in_range(1, limit) {
            report.error(
                codes::INVALID_PROPERTY,
                &limit_path,
                format!("`connectionLimit` is -1 (no limit) or between 1 and {}, not {limit}", i32::MAX),
            );
        } else {
            written.insert("connectionLimit".to_owned(), json!(limit));
        }
    }
    put_list(&mut written, "inRoles", &role.in_roles);
    put(&mut written, "inherit", role.inherit.map(Value::Bool));
    for (key, flag) in [
        ("superuser", role.superuser),
        ("createdb", role.createdb),
        ("createrole", role.createrole),
        ("login", role.login),
        ("replication", role.replication),
    ] {
        put_flag(&mut written, key, flag);
    }
    Value::Object(written)
}

/// The `Pooler`, when enabled; its settings are checked either way, as
/// Kure checks them.
fn pooler_object(
    report: &mut Report<'_>,
    component: &Component<'_>,
    pooler: &Pooler,
) -> Option<Value> {
    let path = FieldPath::root().key("pooler");
    let instances = pooler.instances.unwrap_or(3);
    if !in_range(1, instances) {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("instances"),
            format!("`instances` is between 1 and {}, not {instances}", i32::MAX),
        );
        report.help("Kure leaves out fewer than one instance, and `CloudNativePG` then runs one");
    }
    let mode = pooler.pool_mode.unwrap_or(PoolMode::Session);
    if mode == PoolMode::Statement {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("poolMode"),
            "`CloudNativePG`'s `Pooler` takes the pool modes `session` and `transaction`, not `statement`",
        );
    }
    if pooler.enabled != Some(true) {
        return None;
    }
    let mode = match mode {
        PoolMode::Session => "session",
        PoolMode::Transaction => "transaction",
        PoolMode::Statement => "statement",
    };
    let mut bouncer = Map::new();
    bouncer.insert("poolMode".to_owned(), json!(mode));
    put(&mut bouncer, "parameters", texts(&pooler.parameters));
    let kind = match pooler.kind.unwrap_or(PoolerType::Rw) {
        PoolerType::Rw => "rw",
        PoolerType::Ro => "ro",
    };
    let mut spec = Map::new();
    spec.insert("cluster".to_owned(), json!({"name": component.name}));
    spec.insert("instances".to_owned(), json!(instances));
    spec.insert("pgbouncer".to_owned(), Value::Object(bouncer));
    spec.insert("type".to_owned(), json!(kind));
    let name = format!("{}-pooler", component.name);
    Some(object(CNPG, "Pooler", component, &name, spec))
}

/// The Barman Cloud `ObjectStore` the cluster's WAL archiver writes to.
fn object_store(report: &mut Report<'_>, component: &Component<'_>, store: &ObjectStore) -> Value {
    let path = FieldPath::root().key("objectStore");
    filled(report, &path, "destinationPath", &store.destination_path);
    let mut configuration = Map::new();
    configuration.insert(
        "destinationPath".to_owned(),
        json!(store.destination_path),
    );
    put_text(&mut configuration, "endpointURL", store.endpoint_url.as_deref());
    put_text(&mut configuration, "serverName", store.server_name.as_deref());
    let secret = store.secret_name.as_deref().filter(|name| !name.is_empty());
    put(&mut configuration, "s3Credentials", secret.map(secret_credentials));
    let mut spec = Map::new();
    spec.insert("configuration".to_owned(), Value::Object(configuration));
    // A struct Go always writes, with its always-written `resources`.
    spec.insert(
        "instanceSidecarConfiguration".to_owned(),
        json!({"resources": {}}),
    );
    let policy = retention(report, &path, store.retention_policy.as_deref());
    put_text(&mut spec, "retentionPolicy", policy);
    object(BARMAN, "ObjectStore", component, component.name, spec)
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
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("name"),
            format!("the `Database` object would be named `{name}`, which is not a DNS-1123 subdomain"),
        );
        report.help("Kure names it `<component>-<database>`: use lowercase letters, digits, `-` and `.` in the database's name");
    }
    let mut spec = Map::new();
    spec.insert("cluster".to_owned(), json!({"name": component.name}));
    spec.insert("name".to_owned(), json!(database.name));
    spec.insert("owner".to_owned(), json!(database.owner));
    let absent = database.ensure == Some(Ensure::Absent);
    put_text(&mut spec, "ensure", absent.then_some("absent"));
    let delete = database.reclaim_policy == Some(ReclaimPolicy::Delete);
    put_text(&mut spec, "databaseReclaimPolicy", delete.then_some("delete"));
    let path = at.key("extensions");
    let mut extensions = Vec::new();
    for (index, extension) in database.extensions.iter().enumerate() {
        filled(report, &path.index(index), "name", &extension.name);
        let ensure = if extension.ensure == Some(Ensure::Absent) {
            "absent"
        } else {
            "present"
        };
        extensions.push(json!({"ensure": ensure, "name": extension.name}));
    }
    if !extensions.is_empty() {
        spec.insert("extensions".to_owned(), Value::Array(extensions));
    }
    object(CNPG, "Database", component, &name, spec)
}

#[cfg(test)]
mod tests {
    use super::{Setting, is_tag};

    #[test]
    fn tags_follow_the_image_grammar() {
        assert!(is_tag("16") && is_tag("16.4-bookworm") && is_tag("_x"));
        assert!(!is_tag("") && !is_tag("-16") && !is_tag(".16") && !is_tag("16 4"));
        assert!(is_tag(&"a".repeat(128)) && !is_tag(&"a".repeat(129)));
    }

    #[test]
    fn settings_are_written_as_text() {
        assert_eq!(Setting::Whole(200).text(), "200");
        assert_eq!(Setting::Fraction(1.1).text(), "1.1");
        assert_eq!(Setting::Flag(true).text(), "true");
        assert_eq!(Setting::Text("256MB".into()).text(), "256MB");
    }
}

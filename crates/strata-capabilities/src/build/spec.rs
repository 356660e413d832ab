//! The properties of the workload component types (`webservice`,
//! `worker`, `cronjob`, `daemonset`, `statefulset`) as typed structs, read
//! strictly: an unknown property or a value of the wrong type is an error
//! at its place. Kure's launcher reads them leniently (a misspelt
//! `replica: 3` is ignored, `replicas: "3"` silently becomes 1, an env
//! `value: 8080` silently becomes empty); the manual lists each case.
//!
//! The rules between fields (one probe handler, a volume's keys for its
//! type, quantities) are checked where the objects are built
//! ([`super::pod`]), at the node that breaks them.

#![expect(
    clippy::struct_field_names,
    reason = "the fields are Kubernetes' and Kure's, named as they name them"
)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

/// A quantity written as text (`128Mi`) or as a number (`0.5`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum QuantityValue {
    /// `128Mi`.
    Text(String),
    /// `2`.
    Whole(i64),
    /// `0.5`.
    Fraction(f64),
}

/// A port by number (`8080`) or by the container port's name (`http`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum PortValue {
    /// `8080`.
    Number(i64),
    /// `http`.
    Name(String),
}

/// What every workload's pod takes.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Pod {
    /// The container image, with a tag other than `latest` or a digest.
    pub image: String,
    /// The container's environment, in order.
    #[serde(default)]
    pub env: Vec<EnvVar>,
    /// ConfigMaps and Secrets whose keys become environment variables.
    #[serde(default)]
    pub env_from: Vec<EnvFrom>,
    /// Requests and limits (defaults: requests `cpu: 100m`, `memory:
    /// 128Mi`; limit `memory` as the request).
    pub resources: Option<Resources>,
    /// The entrypoint.
    #[serde(default)]
    pub command: Vec<String>,
    /// The entrypoint's arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Readiness, liveness and startup probes.
    pub probes: Option<Probes>,
    /// `postStart` and `preStop` hooks.
    pub lifecycle: Option<Lifecycle>,
    /// The main container's security context.
    pub security_context: Option<SecurityContext>,
    /// The working directory.
    pub working_dir: Option<String>,
    /// Volumes, each mounted in the main container.
    #[serde(default)]
    pub volumes: Vec<Volume>,
    /// Init containers.
    #[serde(default)]
    pub init_containers: Vec<ExtraContainer>,
}

/// `webservice`: a Deployment, a `ClusterIP` Service on `port` and a
/// `ServiceAccount`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Webservice {
    #[serde(flatten)]
    pub pod: Pod,
    /// The container and Service port (80).
    pub port: Option<i64>,
    /// The Deployment's replicas (1).
    pub replicas: Option<i64>,
    /// Spread pods over nodes (2+ replicas) and zones (3+); `false` turns it off.
    pub topology_spread: Option<bool>,
    /// Containers after the main one.
    #[serde(default)]
    pub sidecars: Vec<ExtraContainer>,
    /// Pod anti-affinity and node selection.
    pub affinity: Option<Affinity>,
}

/// `worker`: a Deployment and a `ServiceAccount`, no Service.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Worker {
    #[serde(flatten)]
    pub pod: Pod,
    /// The Deployment's replicas (1).
    pub replicas: Option<i64>,
    /// Spread pods over nodes (2+ replicas) and zones (3+); `false` turns it off.
    pub topology_spread: Option<bool>,
    /// Containers after the main one.
    #[serde(default)]
    pub sidecars: Vec<ExtraContainer>,
    /// Pod anti-affinity and node selection.
    pub affinity: Option<Affinity>,
}

/// `cronjob`: a `CronJob` and a `ServiceAccount`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Cronjob {
    #[serde(flatten)]
    pub pod: Pod,
    /// Five cron fields (`0 2 * * *`).
    pub schedule: String,
    /// `OnFailure` (the default) or `Never`.
    pub restart_policy: Option<RestartPolicy>,
    /// Successful jobs kept (3).
    pub successful_jobs_history_limit: Option<i64>,
    /// Failed jobs kept (1).
    pub failed_jobs_history_limit: Option<i64>,
}

/// A job's restart policy.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub(crate) enum RestartPolicy {
    /// Restart the container when it fails.
    OnFailure,
    /// Never restart it.
    Never,
}

/// `daemonset`: a `DaemonSet`, a Service when `port` is set, and a
/// `ServiceAccount`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Daemonset {
    #[serde(flatten)]
    pub pod: Pod,
    /// The container and Service port (none).
    pub port: Option<i64>,
    /// Taints the pods tolerate.
    #[serde(default)]
    pub tolerations: Vec<Toleration>,
}

/// `statefulset`: a `StatefulSet`, a headless Service and a `ServiceAccount`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Statefulset {
    #[serde(flatten)]
    pub pod: Pod,
    /// The replicas (1).
    pub replicas: Option<i64>,
    /// The container port (named `tcp`) and the headless Service's port.
    pub port: Option<i64>,
    /// The headless Service's name (the component's).
    pub service_name: Option<String>,
    /// A claim per replica, mounted in the main container.
    #[serde(default)]
    pub volume_claim_templates: Vec<ClaimTemplate>,
    /// Containers after the main one.
    #[serde(default)]
    pub sidecars: Vec<ExtraContainer>,
    /// Pod anti-affinity and node selection.
    pub affinity: Option<Affinity>,
}

/// An environment variable: a `value` or a `valueFrom`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EnvVar {
    /// The variable's name.
    pub name: String,
    /// Its value.
    pub value: Option<String>,
    /// Where its value comes from.
    pub value_from: Option<EnvSource>,
}

/// One source of an environment variable's value.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EnvSource {
    /// A Secret's key.
    pub secret_key_ref: Option<KeyRef>,
    /// A ConfigMap's key.
    pub config_map_key_ref: Option<KeyRef>,
    /// A field of the pod.
    pub field_ref: Option<FieldRef>,
    /// A resource of a container.
    pub resource_field_ref: Option<ResourceFieldRef>,
    /// A key of an env file in a volume.
    pub file_key_ref: Option<FileKeyRef>,
}

/// A key of a Secret or ConfigMap.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct KeyRef {
    /// The object's name.
    pub name: String,
    /// The key.
    pub key: String,
    /// Whether the key may be missing.
    pub optional: Option<bool>,
}

/// A field of the pod (`metadata.name`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FieldRef {
    /// The field.
    pub field_path: String,
    /// `v1`.
    pub api_version: Option<String>,
}

/// A resource of a container (`limits.cpu`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceFieldRef {
    /// The resource.
    pub resource: String,
    /// The container (the main one).
    pub container_name: Option<String>,
    /// The unit (`1m`).
    pub divisor: Option<String>,
}

/// A key of an env file in a volume.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileKeyRef {
    /// The volume.
    pub volume_name: String,
    /// The file, relative to the volume.
    pub path: String,
    /// The key.
    pub key: String,
    /// Whether the key may be missing.
    pub optional: Option<bool>,
}

/// A ConfigMap or Secret whose keys all become variables.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EnvFrom {
    /// Put before every key.
    pub prefix: Option<String>,
    /// The ConfigMap.
    pub config_map_ref: Option<NameRef>,
    /// The Secret.
    pub secret_ref: Option<NameRef>,
}

/// A ConfigMap or Secret by name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct NameRef {
    /// The name.
    pub name: String,
    /// Whether it may be missing.
    pub optional: Option<bool>,
}

/// Requests and limits by resource name.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct Resources {
    /// What the container is guaranteed.
    #[serde(default)]
    pub requests: BTreeMap<String, QuantityValue>,
    /// What it may use at most.
    #[serde(default)]
    pub limits: BTreeMap<String, QuantityValue>,
}

/// The three probes.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Probes {
    /// When the container takes traffic.
    pub readiness: Option<Probe>,
    /// When the container is restarted.
    pub liveness: Option<Probe>,
    /// When the other probes start.
    pub startup: Option<Probe>,
}

/// A probe: one handler and its timing.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Probe {
    /// An HTTP GET.
    pub http_get: Option<HttpGet>,
    /// A TCP connection.
    pub tcp_socket: Option<TcpSocket>,
    /// A command.
    pub exec: Option<Exec>,
    /// A gRPC health check.
    pub grpc: Option<Grpc>,
    /// Seconds before the first probe (≥ 0).
    pub initial_delay_seconds: Option<i64>,
    /// Seconds between probes (≥ 1).
    pub period_seconds: Option<i64>,
    /// Seconds before a probe times out (≥ 1).
    pub timeout_seconds: Option<i64>,
    /// Successes that make it pass (≥ 1; 1 for liveness and startup).
    pub success_threshold: Option<i64>,
    /// Failures that make it fail (≥ 1).
    pub failure_threshold: Option<i64>,
    /// The grace period when it fails (≥ 1; not for readiness).
    pub termination_grace_period_seconds: Option<i64>,
}

/// An HTTP GET.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HttpGet {
    /// The port, by number or by the container port's name.
    pub port: PortValue,
    /// The path.
    pub path: Option<String>,
    /// The host (the pod's IP).
    pub host: Option<String>,
    /// `HTTP` or `HTTPS`.
    pub scheme: Option<String>,
    /// Headers sent.
    #[serde(default)]
    pub http_headers: Vec<HttpHeader>,
}

/// A header of an HTTP GET.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct HttpHeader {
    /// The header's name.
    pub name: String,
    /// Its value (empty).
    pub value: Option<String>,
}

/// A TCP connection.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct TcpSocket {
    /// The port.
    pub port: PortValue,
    /// The host.
    pub host: Option<String>,
}

/// A command run in the container.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Exec {
    /// The command and its arguments.
    pub command: Vec<String>,
}

/// A gRPC health check.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Grpc {
    /// The port, by number.
    pub port: i64,
    /// The service checked.
    pub service: Option<String>,
}

/// Hooks around the container's life.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Lifecycle {
    /// After the container starts.
    pub post_start: Option<Hook>,
    /// Before it stops.
    pub pre_stop: Option<Hook>,
}

/// One hook: one handler.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Hook {
    /// An HTTP GET.
    pub http_get: Option<HttpGet>,
    /// A command.
    pub exec: Option<Exec>,
    /// A pause.
    pub sleep: Option<Sleep>,
    /// Not a hook handler (Kubernetes deprecated it); refused.
    pub tcp_socket: Option<TcpSocket>,
}

/// A pause.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Sleep {
    /// Seconds (≥ 0).
    pub seconds: i64,
}

/// The main container's security context.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SecurityContext {
    /// The user id (≥ 0).
    pub run_as_user: Option<i64>,
    /// The group id (≥ 0).
    pub run_as_group: Option<i64>,
    /// Refuse to run as root.
    pub run_as_non_root: Option<bool>,
    /// A read-only root filesystem.
    pub read_only_root_filesystem: Option<bool>,
    /// Whether a process may gain privileges.
    pub allow_privilege_escalation: Option<bool>,
    /// A privileged container (refused by Kure's policy).
    pub privileged: Option<bool>,
    /// Linux capabilities added and dropped.
    pub capabilities: Option<Capabilities>,
    /// The seccomp profile.
    pub seccomp_profile: Option<SeccompProfile>,
    /// `SELinux` labels.
    #[serde(rename = "seLinuxOptions")]
    pub se_linux_options: Option<SeLinuxOptions>,
    /// The `AppArmor` profile.
    pub app_armor_profile: Option<SeccompProfile>,
    /// `Default` or `Unmasked`.
    pub proc_mount: Option<ProcMount>,
}

/// Linux capabilities.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Capabilities {
    /// Added.
    #[serde(default)]
    pub add: Vec<String>,
    /// Dropped.
    #[serde(default)]
    pub drop: Vec<String>,
}

/// A seccomp or `AppArmor` profile.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SeccompProfile {
    /// `RuntimeDefault`, `Unconfined` or `Localhost`.
    #[serde(rename = "type")]
    pub kind: ProfileType,
    /// The profile's file (`Localhost` only).
    pub localhost_profile: Option<String>,
}

/// The kinds of seccomp and `AppArmor` profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum ProfileType {
    /// The runtime's default.
    RuntimeDefault,
    /// None.
    Unconfined,
    /// A file on the node.
    Localhost,
}

/// `SELinux` labels.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct SeLinuxOptions {
    /// The user.
    pub user: Option<String>,
    /// The role.
    pub role: Option<String>,
    /// The type.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The level.
    pub level: Option<String>,
}

/// `/proc` masking.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub(crate) enum ProcMount {
    /// Masked.
    Default,
    /// Not masked.
    Unmasked,
}

/// A volume mounted in the main container; the keys besides `name`,
/// `mountPath`, `readOnly` and `type` depend on the type.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Volume {
    /// The volume's name (a DNS-1123 label).
    pub name: String,
    /// Where it is mounted.
    pub mount_path: String,
    /// Mounted read-only.
    pub read_only: Option<bool>,
    /// `emptyDir`, `configMap`, `secret`, `pvc` or `hostPath`.
    #[serde(rename = "type")]
    pub kind: VolumeType,
    /// `emptyDir`: its size limit.
    pub size_limit: Option<QuantityValue>,
    /// `configMap`: the ConfigMap.
    pub config_map_name: Option<String>,
    /// `secret`: the Secret.
    pub secret_name: Option<String>,
    /// `pvc`: the claim's size.
    pub size: Option<QuantityValue>,
    /// `pvc`: the storage class (`""` for none).
    pub storage_class: Option<String>,
    /// `pvc`: access modes (`[ReadWriteOnce]`).
    pub access_modes: Option<Vec<String>>,
    /// `hostPath`: the node's path (refused by Kure's policy).
    pub path: Option<String>,
}

/// The kinds of volumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) enum VolumeType {
    /// Scratch space.
    EmptyDir,
    /// A ConfigMap's keys as files.
    ConfigMap,
    /// A Secret's keys as files.
    Secret,
    /// A `PersistentVolumeClaim` the build creates.
    Pvc,
    /// A node's path.
    HostPath,
}

/// An init container or a sidecar.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExtraContainer {
    /// The container's name.
    pub name: String,
    /// Its image.
    pub image: String,
    /// The entrypoint.
    #[serde(default)]
    pub command: Vec<String>,
    /// The entrypoint's arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its environment.
    #[serde(default)]
    pub env: Vec<EnvVar>,
    /// Requests and limits (the same defaults as the main container's).
    pub resources: Option<Resources>,
    /// Mounts of the pod's volumes.
    #[serde(default)]
    pub volume_mounts: Vec<VolumeMount>,
    /// Ports (sidecars only).
    #[serde(default)]
    pub ports: Vec<ContainerPort>,
}

/// A mount of a pod volume.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VolumeMount {
    /// The volume.
    pub name: String,
    /// Where.
    pub mount_path: String,
    /// Read-only.
    pub read_only: Option<bool>,
    /// A path within the volume.
    pub sub_path: Option<String>,
}

/// A sidecar's port.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContainerPort {
    /// The port.
    pub container_port: i64,
    /// Its name.
    pub name: Option<String>,
    /// `TCP` (the default), `UDP` or `SCTP`.
    pub protocol: Option<Protocol>,
}

/// A port's protocol.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub(crate) enum Protocol {
    /// TCP.
    #[serde(rename = "TCP")]
    Tcp,
    /// UDP.
    #[serde(rename = "UDP")]
    Udp,
    /// SCTP.
    #[serde(rename = "SCTP")]
    Sctp,
}

impl Protocol {
    /// As Kubernetes writes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Protocol::Tcp => "TCP",
            Protocol::Udp => "UDP",
            Protocol::Sctp => "SCTP",
        }
    }
}

/// Pod anti-affinity and node selection.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Affinity {
    /// Keep replicas apart.
    pub enable_pod_anti_affinity: Option<bool>,
    /// Apart by this node label (`kubernetes.io/hostname`).
    pub topology_key: Option<String>,
    /// `preferred` (the default) or `required`.
    pub pod_anti_affinity_type: Option<AntiAffinityType>,
    /// Node labels the pods require.
    #[serde(default)]
    pub node_selector: BTreeMap<String, String>,
}

/// How strongly replicas are kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) enum AntiAffinityType {
    /// When the scheduler can.
    Preferred,
    /// Always.
    Required,
}

/// A toleration.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Toleration {
    /// The taint's key (any when empty).
    pub key: Option<String>,
    /// `Exists` or `Equal`.
    pub operator: Option<TolerationOperator>,
    /// The taint's value (`Equal`).
    pub value: Option<String>,
    /// `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    pub effect: Option<TaintEffect>,
}

/// How a toleration matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum TolerationOperator {
    /// Any value.
    Exists,
    /// The value given.
    Equal,
}

/// A taint's effect.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub(crate) enum TaintEffect {
    /// Not scheduled.
    NoSchedule,
    /// Avoided.
    PreferNoSchedule,
    /// Evicted.
    NoExecute,
}

/// A claim template of a `StatefulSet`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClaimTemplate {
    /// The claim's name.
    pub name: String,
    /// Its size.
    pub size: QuantityValue,
    /// Where it is mounted.
    pub mount_path: String,
    /// The storage class.
    pub storage_class: Option<String>,
    /// Access modes (`[ReadWriteOnce]`).
    pub access_modes: Option<Vec<String>>,
}

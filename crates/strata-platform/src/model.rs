//! The typed blueprint, as the provisioner's model has it.
//!
//! A composed, evaluated tree is decoded into [`Blueprint`] strictly (see
//! `strata-schema`): unknown keys are errors with a did-you-mean, types,
//! enums, lengths and required fields are checked, and every problem is
//! reported. Rules that span several fields live in [`crate::validate`].
//!
//! The fields, their names and types are those of k8shell's model
//! (k8shell-io/common v0.40.0, the version the provisioner pins). As
//! k8shell's YAML decoder does, a number, boolean or null written where a
//! string is taken reads as its text (`cpu: 4` is `"4"`, a CEL integer
//! landing in an annotation its decimal text), with a note
//! (`schema/scalar-as-string`). Defaults are Go's zero values: a storage is
//! enabled only with `enabled: true`, and its `type` is `local`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::SecurityContext;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A platform blueprint: a catalogue entry, or the final composed result.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Blueprint {
    /// Accepted and ignored, as k8shell does: the metadata expressions see
    /// is the request's (`metadata` in the CEL scope).
    pub metadata: Option<serde_json::Value>,
    /// The blueprint's name, unique in the catalogue.
    #[schemars(length(min = 1, max = 40))]
    pub name: String,
    /// What it is for.
    #[schemars(length(max = 500))]
    pub description: Option<String>,
    /// A template only serves as a parent; it is not offered for composition.
    #[serde(default)]
    pub is_template: bool,
    /// Text shown when a workspace starts.
    pub splash: Option<String>,
    /// The parent blueprint's name.
    pub template: Option<String>,
    /// The workspace's host name (a plain DNS name).
    pub hostname: Option<String>,
    /// The workspace's subdomain (a plain DNS name).
    pub subdomain: Option<String>,
    /// The workspace container image.
    #[schemars(length(min = 1))]
    pub image: String,
    /// When to pull the image.
    pub image_pull_policy: Option<PullPolicy>,
    /// The in-workspace agent.
    pub k8shelld: Option<K8shelld>,
    /// Environment variables of the workspace.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Network policy.
    pub network: Option<Network>,
    /// Compute resources.
    pub resources: Option<Resources>,
    /// Rootless containers inside the workspace.
    pub podman: Option<Podman>,
    /// Volumes, by name.
    #[serde(default)]
    pub storages: BTreeMap<String, Storage>,
    /// Scripts run when the workspace starts, in order.
    #[serde(default)]
    pub init_scripts: Vec<InitScript>,
    /// Whether the workspace shows its start scripts' progress.
    #[serde(default)]
    pub show_init_script_status: bool,
    /// The workspace container's security context.
    pub security_context: Option<SecurityContext>,
    /// Files written into the workspace, by absolute path.
    #[serde(default)]
    pub ext_files: BTreeMap<String, String>,
    /// Whether the apps below are offered.
    #[serde(default)]
    pub enable_apps: bool,
    /// Applications the workspace can run, by name.
    #[serde(default)]
    pub apps: BTreeMap<String, App>,
}

/// Kubernetes image pull policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum PullPolicy {
    /// Pull on every start.
    Always,
    /// Never pull.
    Never,
    /// Pull when the image is missing.
    IfNotPresent,
}

/// The in-workspace agent.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct K8shelld {
    /// Its image.
    #[schemars(length(min = 1))]
    pub image: String,
    /// When to pull it.
    pub image_pull_policy: Option<PullPolicy>,
    /// Orphaned resources it leaves alone.
    #[serde(default)]
    pub ignore_orphans: Vec<String>,
    /// What it may connect to.
    pub connection: Option<Connection>,
}

/// What the agent may connect to.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Connection {
    /// Any namespace.
    #[serde(default, rename = "allowAnyNS")]
    pub allow_any_ns: bool,
    /// Any service account.
    #[serde(default, rename = "allowAnySA")]
    pub allow_any_sa: bool,
}

/// Network policy of the workspace.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Network {
    /// The policy class.
    pub network_policy_class: Option<NetworkPolicyClass>,
    /// CIDRs the workspace may reach.
    #[serde(default, rename = "allowEgressToCIDRs")]
    pub allow_egress_to_cidrs: Vec<String>,
    /// Pods the workspace may reach, by label.
    #[serde(default)]
    pub allow_egress_to_pods: Vec<BTreeMap<String, String>>,
}

/// Network policy classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NetworkPolicyClass {
    /// Only the workspace.
    Workspace,
    /// System services.
    System,
    /// No traffic.
    Isolated,
    /// The user's own workspaces.
    User,
    /// The organisation's workspaces.
    Organization,
}

/// CPU and memory, as Kubernetes quantities.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Resources {
    /// CPU (`500m`, `2`).
    pub cpu: Option<String>,
    /// Memory (`512Mi`, `4Gi`).
    pub memory: Option<String>,
}

/// Rootless containers inside the workspace.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Podman {
    /// Whether podman runs.
    #[serde(default)]
    pub enabled: bool,
    /// Its image; required when enabled.
    pub image: Option<String>,
    /// Its resources.
    pub resources: Option<Resources>,
    /// Whether `/var/run/docker.sock` links to podman's socket.
    #[serde(default)]
    pub create_docker_sock_symlink: bool,
    /// Whether it mounts every enabled storage of the workspace too.
    #[serde(default)]
    pub parent_storages: bool,
    /// Files written into its container.
    #[serde(default)]
    pub ext_files: BTreeMap<String, String>,
    /// Its own volumes.
    #[serde(default)]
    pub storages: BTreeMap<String, Storage>,
    /// Its security context.
    pub security_context: Option<SecurityContext>,
}

/// A volume.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Storage {
    /// Whether it is mounted (default `false`, as k8shell's).
    #[serde(default)]
    pub enabled: bool,
    /// A stable id.
    pub id: Option<String>,
    /// The kind of volume (default `local`).
    #[serde(rename = "type")]
    pub kind: Option<StorageType>,
    /// Where it is mounted: absolute, required when enabled.
    pub path: Option<String>,
    /// Mounted read-only.
    #[serde(default)]
    pub readonly: bool,
    /// An existing claim to mount instead of making one.
    pub existing_claim: Option<String>,
    /// Owner uid of the mount.
    pub fs_owner_uid: Option<i64>,
    /// Owner gid of the mount.
    pub fs_owner_gid: Option<i64>,
    /// A Kubernetes `PersistentVolumeClaimSpec`, decoded strictly.
    pub claim_spec: Option<serde_json::Value>,
    /// Annotations of the claim.
    #[serde(default)]
    pub claim_spec_annotations: BTreeMap<String, String>,
    /// A size limit (a quantity), for `emptyDir` and `memory` storages only.
    pub size_limit: Option<String>,
}

impl Storage {
    /// The storage's kind.
    #[must_use]
    pub fn storage_type(&self) -> StorageType {
        self.kind.unwrap_or(StorageType::Local)
    }
}

/// Kinds of volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum StorageType {
    /// A claim of the workspace's own.
    #[serde(rename = "local")]
    Local,
    /// An existing claim shared with others.
    #[serde(rename = "shared")]
    Shared,
    /// A scratch folder.
    #[serde(rename = "emptyDir")]
    EmptyDir,
    /// A memory-backed scratch folder.
    #[serde(rename = "memory")]
    Memory,
}

/// A script run when the workspace starts.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct InitScript {
    /// Its name (the key `initScripts` merge by).
    #[schemars(length(min = 1))]
    pub name: String,
    /// The script.
    pub script: String,
}

/// An application the workspace can run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct App {
    /// Display name.
    pub name: Option<String>,
    /// Whether it is offered.
    #[serde(default)]
    pub enabled: bool,
    /// The executable.
    pub binary: Option<String>,
    /// A command printing its version: the program and its arguments.
    #[serde(default)]
    pub version_cmd: Vec<String>,
    /// A regex extracting the version from that output.
    pub version_regex: Option<String>,
    /// How to install it.
    pub install: Option<String>,
    /// How to start it: the command and its arguments.
    #[serde(default)]
    pub start: Vec<String>,
    /// The port it listens on.
    pub listen: Option<u16>,
    /// When to restart it.
    pub restart_policy: Option<RestartPolicy>,
    /// The longest wait between restarts (a duration such as `30s`).
    pub max_restart_backoff: Option<String>,
    /// Install as root.
    #[serde(default)]
    pub install_as_root: bool,
    /// Start with the workspace.
    #[serde(default)]
    pub auto_start: bool,
    /// Its protocol.
    pub protocol: Option<Protocol>,
}

/// App restart policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RestartPolicy {
    /// Always.
    Always,
    /// When it fails.
    OnFailure,
    /// Never.
    Never,
}

/// App protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// HTTP.
    Http,
    /// HTTPS.
    Https,
    /// WebSocket.
    Ws,
    /// Secure WebSocket.
    Wss,
    /// Raw TCP.
    Tcp,
    /// UDP.
    Udp,
}

/// The keys a repository's `.k8shell.yaml` may set; anything else could
/// loosen what the platform decided (security context, the agent, ...).
pub const REPO_KEYS: &[&str] = &[
    "name",
    "template",
    "splash",
    "image",
    "env",
    "network",
    "resources",
    "storages",
    "initScripts",
    "showInitScriptStatus",
    "enableApps",
    "apps",
];

/// A repository's `.k8shell.yaml`: `blueprint:` holding the overrides.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RepoFile {
    /// The custom blueprint.
    pub blueprint: RepoBlueprint,
}

/// The overrides a repository may make, over the platform blueprint named
/// by `template`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepoBlueprint {
    /// The platform blueprint to start from.
    pub template: String,
    /// A name for the result.
    pub name: Option<String>,
    /// Text shown when the workspace starts.
    pub splash: Option<String>,
    /// The image.
    pub image: Option<String>,
    /// Environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Network policy.
    pub network: Option<Network>,
    /// Resources.
    pub resources: Option<Resources>,
    /// Volumes.
    #[serde(default)]
    pub storages: BTreeMap<String, Storage>,
    /// Start scripts.
    #[serde(default)]
    pub init_scripts: Vec<InitScript>,
    /// Whether the start scripts' progress shows.
    pub show_init_script_status: Option<bool>,
    /// Whether apps are offered.
    pub enable_apps: Option<bool>,
    /// Applications.
    #[serde(default)]
    pub apps: BTreeMap<String, App>,
}

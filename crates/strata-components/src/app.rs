//! `qbec.yaml`: the application file at the root of an application folder.
//!
//! ```yaml
//! apiVersion: qbec.io/v1alpha1
//! kind: App
//! metadata:
//!   name: shop
//! spec:
//!   componentsDir: components        # default; a glob may match several folders
//!   libPaths: [lib]                  # where imports look after the importing file's folder
//!   postProcessor: pp.jsonnet        # gets each object as the top-level argument `object`
//!   excludes: [debug-tools]          # components left out unless an environment includes them
//!   namespaceTagSuffix: true         # `qbec.io/defaultNs` gets `-<tag>` with `--app-tag`
//!   addComponentLabel: false         # also label objects `qbec.io/component`
//!   baseProperties: {replicas: 1}    # under every environment's properties (merged as qbec merges)
//!   envFiles: [envs/*.yaml]          # more environments (`kind: EnvironmentMap`), in order
//!   environments:
//!     dev:
//!       defaultNamespace: shop-dev
//!       server: https://dev.example.com:6443   # or `context:`; kept for qbec, not used to render
//!       includes: [debug-tools]
//!       excludes: []
//!       properties: {replicas: 2}
//!   vars:
//!     external: [{name: image_tag, default: latest, secret: false}]
//!     topLevel: [{name: replicas, components: [api]}]
//!     computed: [{name: region, code: "std.extVar('qbec.io/env') + '-eu'"}]
//! ```
//!
//! Decoded strictly (unknown keys are errors with a did-you-mean). Fields of
//! qbec that this engine cannot honour (`paramsFile`, `dsExamples`) are
//! reported as `components/unsupported` rather than
//! silently ignored; `clusterScopedLists` only affects how qbec talks to a
//! cluster and is accepted. The application's name, every environment's
//! name and the tag become label values, so they must be valid ones (63
//! characters at most, alphanumerics with `-`, `_`, `.` inside), and there
//! must be at least one environment, inline or from `envFiles`; `_` is the
//! baseline environment ([`BASELINE`]) and cannot be declared. As qbec, an
//! environment names exactly one of `server` and `context`, and a context
//! starting with `__` (qbec's `__current__`, say) is refused.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

/// The file name at the application root.
pub const APP_FILE: &str = "qbec.yaml";

/// `qbec.yaml`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppFile {
    /// Always `qbec.io/v1alpha1`.
    pub api_version: ApiVersion,
    /// Always `App`.
    pub kind: AppKind,
    /// The application's name.
    pub metadata: AppMetadata,
    /// What the application is made of.
    pub spec: AppSpec,
}

/// The only `apiVersion` there is.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum ApiVersion {
    /// `qbec.io/v1alpha1`.
    #[serde(rename = "qbec.io/v1alpha1")]
    V1alpha1,
}

/// The only `kind` there is.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum AppKind {
    /// `App`.
    App,
}

/// `metadata`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct AppMetadata {
    /// The name: `qbec.io/application` on every object.
    #[schemars(length(min = 1))]
    pub name: String,
}

/// `spec`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppSpec {
    /// The components folder, relative to the root; a glob may match several.
    #[serde(default = "default_components_dir")]
    pub components_dir: String,
    /// Library folders imports search, after the importing file's folder.
    #[serde(default)]
    pub lib_paths: Vec<String>,
    /// A Jsonnet file applied to every object.
    pub post_processor: Option<String>,
    /// The environments, by name (more may come from `envFiles`).
    #[serde(default)]
    pub environments: BTreeMap<String, Environment>,
    /// Properties every environment's properties are merged over.
    #[serde(default)]
    pub base_properties: serde_json::Map<String, Json>,
    /// Components left out unless an environment includes them.
    #[serde(default)]
    pub excludes: Vec<String>,
    /// Suffix `qbec.io/defaultNs` with `-<tag>` when a tag is given.
    #[serde(default)]
    pub namespace_tag_suffix: bool,
    /// Also label each object with `qbec.io/component`.
    #[serde(default)]
    pub add_component_label: bool,
    /// How qbec lists cluster-scoped objects; no effect on rendering.
    #[serde(default)]
    pub cluster_scoped_lists: bool,
    /// Variables.
    #[serde(default)]
    pub vars: Vars,
    /// qbec's legacy parameters file: not supported.
    pub params_file: Option<Json>,
    /// Files of more environments (`kind: EnvironmentMap`), local paths or
    /// globs relative to the root, read in order; an environment defined
    /// again replaces the earlier definition.
    #[serde(default)]
    pub env_files: Vec<String>,
    /// qbec's data sources, `exec://NAME?configVar=VAR` and
    /// `helm3://NAME?configVar=VAR`: run when a component imports
    /// `data://NAME/...`.
    pub data_sources: Option<Json>,
    /// Examples for qbec's data sources: not supported.
    pub ds_examples: Option<Json>,
}

fn default_components_dir() -> String {
    "components".to_owned()
}

/// One environment.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    /// The namespace of objects that name none (`qbec.io/defaultNs`).
    #[serde(default = "default_namespace")]
    pub default_namespace: String,
    /// The cluster's API server (qbec's; not used to render). Exactly one
    /// of `server` and `context` is given.
    #[serde(default)]
    pub server: String,
    /// The kubeconfig context (qbec's; not used to render); names starting
    /// with `__` are qbec's keywords, not contexts.
    #[serde(default)]
    pub context: String,
    /// Globally excluded components this environment includes.
    #[serde(default)]
    pub includes: Vec<String>,
    /// Components this environment leaves out.
    #[serde(default)]
    pub excludes: Vec<String>,
    /// Properties, merged over `baseProperties`.
    #[serde(default)]
    pub properties: serde_json::Map<String, Json>,
}

fn default_namespace() -> String {
    "default".to_owned()
}

/// The baseline environment's name: `--env _` renders what no environment
/// customises (`baseProperties`, the components not excluded by default).
pub const BASELINE: &str = "_";

impl Environment {
    /// The baseline environment (`_`): nothing of its own.
    #[must_use]
    pub fn baseline() -> Environment {
        Environment {
            default_namespace: default_namespace(),
            server: String::new(),
            context: String::new(),
            includes: Vec::new(),
            excludes: Vec::new(),
            properties: serde_json::Map::new(),
        }
    }
}

/// A file of environments named in `envFiles`.
///
/// ```yaml
/// apiVersion: qbec.io/v1alpha1
/// kind: EnvironmentMap
/// spec:
///   environments:
///     dev: {server: https://dev.example.com}
/// ```
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentMapFile {
    /// Always `qbec.io/v1alpha1`.
    pub api_version: ApiVersion,
    /// Always `EnvironmentMap`.
    pub kind: EnvironmentMapKind,
    /// The environments.
    pub spec: EnvironmentMapSpec,
}

/// The only `kind` of an environment file.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum EnvironmentMapKind {
    /// `EnvironmentMap`.
    EnvironmentMap,
}

/// `spec` of an environment file.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EnvironmentMapSpec {
    /// The environments, by name.
    pub environments: BTreeMap<String, Environment>,
}

/// `spec.vars`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Vars {
    /// External variables (`std.extVar`).
    #[serde(default)]
    pub external: Vec<ExternalVar>,
    /// Top-level arguments, for the components that list them.
    #[serde(default)]
    pub top_level: Vec<TopLevelVar>,
    /// External variables computed from Jsonnet code, in order.
    #[serde(default)]
    pub computed: Vec<ComputedVar>,
}

/// A declared external variable.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ExternalVar {
    /// Its name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// The value when the command line gives none (any JSON value, `null`
    /// included: only an absent `default` makes the variable required).
    #[serde(default, deserialize_with = "present")]
    pub default: Option<Json>,
    /// Whether the value is secret (qbec's; values are never listed here).
    #[serde(default)]
    pub secret: bool,
}

/// A field that is present, even as `null`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Json>, D::Error> {
    Json::deserialize(deserializer).map(Some)
}

/// A declared top-level argument.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TopLevelVar {
    /// Its name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// The components that receive it.
    #[serde(default)]
    pub components: Vec<String>,
    /// Whether the value is secret (qbec's; values are never listed here).
    #[serde(default)]
    pub secret: bool,
}

/// An external variable computed from Jsonnet code.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ComputedVar {
    /// Its name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// The code; it sees the other external variables and earlier computed ones.
    pub code: String,
    /// Whether the value is secret (qbec's; values are never listed here).
    #[serde(default)]
    pub secret: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let spec: AppSpec = serde_json::from_value(serde_json::json!({
            "environments": {"dev": {}},
        }))
        .unwrap();
        assert_eq!(spec.environments["dev"].default_namespace, "default");
        assert_eq!(spec.components_dir, "components");
    }
}

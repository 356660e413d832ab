//! The two file kinds, as Windsor writes them, for strict decoding and for
//! `strata features schema`.
//!
//! Every file is decoded into these types (unknown keys are errors with a
//! did-you-mean), and composition reads its decisions from them: names,
//! `when`, `strategy`, what makes two entries the same. The values
//! themselves are merged as trees, so that every node keeps its span and
//! the file it came from; the composed tree is decoded again at the end.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

/// The one API version of both kinds.
pub const API_VERSION: &str = "blueprints.windsorcli.dev/v1alpha1";

/// `apiVersion`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum ApiVersion {
    /// `blueprints.windsorcli.dev/v1alpha1`.
    #[serde(rename = "blueprints.windsorcli.dev/v1alpha1")]
    V1alpha1,
}

/// `kind: Blueprint`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum BlueprintKind {
    /// `Blueprint`.
    Blueprint,
}

/// `kind: Feature`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum FeatureKind {
    /// `Feature`.
    Feature,
}

/// `contexts/_template/blueprint.yaml`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlueprintFile {
    /// `Blueprint`.
    pub kind: BlueprintKind,
    /// `blueprints.windsorcli.dev/v1alpha1`.
    pub api_version: ApiVersion,
    /// Name and description.
    pub metadata: Metadata,
    /// Where the blueprint's own repository is.
    pub repository: Option<Repository>,
    /// Repositories components and kustomizations come from.
    #[serde(default)]
    pub sources: Vec<Source>,
    /// Terraform components, in order.
    #[serde(default)]
    pub terraform: Vec<TerraformComponent>,
    /// Flux kustomizations, in order.
    #[serde(default)]
    pub kustomize: Vec<Kustomization>,
}

/// `metadata`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Metadata {
    /// The name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Who wrote it.
    #[serde(default)]
    pub authors: Vec<String>,
}

/// A git reference.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Reference {
    /// A branch.
    pub branch: Option<String>,
    /// A tag.
    pub tag: Option<String>,
    /// A semantic version range.
    pub semver: Option<String>,
    /// A reference name.
    pub name: Option<String>,
    /// A commit.
    pub commit: Option<String>,
}

/// `repository`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Repository {
    /// The URL.
    pub url: String,
    /// The reference.
    #[serde(rename = "ref")]
    pub reference: Option<Reference>,
    /// The secret holding credentials.
    pub secret_name: Option<String>,
}

/// One of `sources`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// The name components refer to.
    #[schemars(length(min = 1))]
    pub name: String,
    /// The URL.
    pub url: String,
    /// A folder inside the repository.
    pub path_prefix: Option<String>,
    /// The reference.
    #[serde(rename = "ref")]
    pub reference: Option<Reference>,
    /// The secret holding credentials.
    pub secret_name: Option<String>,
}

/// A Terraform component.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TerraformComponent {
    /// Its name, when other components depend on it by name.
    pub name: Option<String>,
    /// The module's path. Required.
    #[schemars(length(min = 1))]
    pub path: String,
    /// The source (one of `sources`), or local when absent.
    pub source: Option<String>,
    /// Module inputs; strings may hold `${..}`.
    #[serde(default)]
    pub inputs: BTreeMap<String, Json>,
    /// Components applied first (their names, else paths).
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Whether `down` destroys it.
    pub destroy: Option<bool>,
    /// Terraform's `-parallelism`.
    #[schemars(range(min = 1))]
    pub parallelism: Option<u32>,
}

impl TerraformComponent {
    /// The name other components depend on it by: `name`, else `path`.
    #[must_use]
    pub fn id(&self) -> &str {
        self.name
            .as_deref()
            .filter(|name| !name.is_empty())
            .unwrap_or(&self.path)
    }

    /// What makes two components the same: `path` and `source`.
    #[must_use]
    pub fn identity(&self) -> (&str, &str) {
        (&self.path, self.source.as_deref().unwrap_or_default())
    }
}

/// A Flux kustomization.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Kustomization {
    /// Its name. Required.
    #[schemars(length(min = 1))]
    pub name: String,
    /// The path in the source.
    pub path: Option<String>,
    /// The source (one of `sources`).
    pub source: Option<String>,
    /// Kustomizations applied first.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Kustomize components to include.
    #[serde(default)]
    pub components: Vec<String>,
    /// Patches: `{path}` or `{patch, target}`; `patch` text may hold `${..}`.
    #[serde(default)]
    pub patches: Vec<Patch>,
    /// Post-build substitutions; values may hold `${..}` and become strings.
    #[serde(default)]
    pub substitutions: BTreeMap<String, Json>,
    /// Flux's reconcile interval (`5m`).
    pub interval: Option<String>,
    /// Flux's retry interval.
    pub retry_interval: Option<String>,
    /// Flux's timeout.
    pub timeout: Option<String>,
    /// Whether Flux waits for readiness.
    pub wait: Option<bool>,
    /// Whether Flux recreates immutable resources.
    pub force: Option<bool>,
    /// Whether Flux prunes removed resources.
    pub prune: Option<bool>,
    /// Whether `down` destroys it.
    pub destroy: Option<bool>,
    /// Whether it runs only when the blueprint is torn down.
    pub destroy_only: Option<bool>,
    /// Resources cleaned up on destroy.
    #[serde(default)]
    pub cleanup: Vec<String>,
}

impl Kustomization {
    /// The name other kustomizations depend on it by, which also makes two
    /// the same.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.name
    }

    /// What makes two kustomizations the same: `name` (and no source).
    #[must_use]
    pub fn identity(&self) -> (&str, &str) {
        (&self.name, "")
    }
}

/// One of `patches`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Patch {
    /// A patch file in the source.
    pub path: Option<String>,
    /// An inline patch (strategic merge or JSON 6902), `${..}` interpolated.
    pub patch: Option<String>,
    /// What an inline patch applies to.
    pub target: Option<Target>,
}

/// A kustomize target selector.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// API group.
    pub group: Option<String>,
    /// API version.
    pub version: Option<String>,
    /// Kind.
    pub kind: Option<String>,
    /// Name.
    pub name: Option<String>,
    /// Namespace.
    pub namespace: Option<String>,
    /// Label selector.
    pub label_selector: Option<String>,
    /// Annotation selector.
    pub annotation_selector: Option<String>,
}

/// A feature file.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeatureFile {
    /// `Feature`.
    pub kind: FeatureKind,
    /// `blueprints.windsorcli.dev/v1alpha1`.
    pub api_version: ApiVersion,
    /// Name (unique, the order features apply in) and description.
    pub metadata: Metadata,
    /// Applies the feature when empty or true.
    pub when: Option<When>,
    /// Terraform components to add or merge.
    #[serde(default)]
    pub terraform: Vec<ConditionalTerraform>,
    /// Kustomizations to add or merge.
    #[serde(default)]
    pub kustomize: Vec<ConditionalKustomization>,
}

/// A `when`: an expression, or a YAML boolean written as such.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum When {
    /// An expression (`provider == 'aws'`); empty means true.
    Expression(String),
    /// `true` or `false`.
    Constant(bool),
}

/// How a feature's entry combines with a matching one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MergeStrategy {
    /// Merge into the match (the default).
    Merge,
    /// Replace the match whole.
    Replace,
    /// Take what the entry lists out of the match (a kustomization's
    /// components, dependencies, patches, cleanup and substitution keys; a
    /// component's input keys and dependencies), after every merge and
    /// replace; nothing when there is no match.
    Remove,
}

/// A Terraform component in a feature.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConditionalTerraform {
    /// The component.
    #[serde(flatten)]
    pub component: TerraformComponent,
    /// Applies the component when empty or true.
    pub when: Option<When>,
    /// `merge` (default) or `replace`.
    pub strategy: Option<MergeStrategy>,
}

/// A kustomization in a feature.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConditionalKustomization {
    /// The kustomization.
    #[serde(flatten)]
    pub kustomization: Kustomization,
    /// Applies the kustomization when empty or true.
    pub when: Option<When>,
    /// `merge` (default) or `replace`.
    pub strategy: Option<MergeStrategy>,
}

/// Which list of a blueprint an entry belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    /// `terraform`.
    Terraform,
    /// `kustomize`.
    Kustomize,
}

impl Section {
    /// Both, in the order a file's entries are composed.
    pub const ALL: [Section; 2] = [Section::Terraform, Section::Kustomize];

    /// The key in the files.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Section::Terraform => "terraform",
            Section::Kustomize => "kustomize",
        }
    }

    /// The key whose scalar names an entry in messages and `--explain`.
    #[must_use]
    pub fn name_key(self) -> &'static str {
        match self {
            Section::Terraform => "path",
            Section::Kustomize => "name",
        }
    }
}

impl BlueprintFile {
    /// The ids of the entries of `section`, in order.
    #[must_use]
    pub fn ids(&self, section: Section) -> Vec<&str> {
        match section {
            Section::Terraform => self.terraform.iter().map(TerraformComponent::id).collect(),
            Section::Kustomize => self.kustomize.iter().map(Kustomization::id).collect(),
        }
    }

    /// The `dependsOn` of the entries of `section`, in order.
    #[must_use]
    pub fn depends_on(&self, section: Section) -> Vec<&[String]> {
        match section {
            Section::Terraform => self
                .terraform
                .iter()
                .map(|component| component.depends_on.as_slice())
                .collect(),
            Section::Kustomize => self
                .kustomize
                .iter()
                .map(|kustomization| kustomization.depends_on.as_slice())
                .collect(),
        }
    }
}

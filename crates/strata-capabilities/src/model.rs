//! The Kure launcher's documents, as typed structs: each is the decode
//! target and the source of its JSON Schema. Unknown keys are errors with a
//! did-you-mean.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

/// The one API version of every document.
pub const API_VERSION: &str = "launcher.gokure.dev/v1alpha1";

/// `apiVersion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum ApiVersion {
    /// `launcher.gokure.dev/v1alpha1`.
    #[serde(rename = "launcher.gokure.dev/v1alpha1")]
    V1alpha1,
}

/// `kind: ClusterProfile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum ProfileKind {
    /// `ClusterProfile`.
    ClusterProfile,
}

/// `kind: CapabilityDefinition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum DefinitionKind {
    /// `CapabilityDefinition`.
    CapabilityDefinition,
}

/// A cluster profile (`cluster.yaml`): what the platform offers.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterProfile {
    /// `launcher.gokure.dev/v1alpha1`.
    pub api_version: ApiVersion,
    /// `ClusterProfile`.
    pub kind: ProfileKind,
    /// The profile's name.
    pub metadata: Name,
    /// What the cluster offers.
    pub spec: ProfileSpec,
}

/// `metadata` holding only a name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Name {
    /// The name (a DNS-1123 subdomain for a profile; the trait type for a
    /// definition).
    #[schemars(length(min = 1))]
    pub name: String,
}

/// `spec` of a cluster profile.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileSpec {
    /// The `GitOps` engine; absent or empty means `fluxcd`.
    #[serde(default)]
    pub gitops_engine: GitopsEngine,
    /// Capability bindings by `<traitType>` or `<traitType>.<scope>`.
    #[serde(default)]
    pub capabilities: BTreeMap<String, Binding>,
}

/// `spec.gitopsEngine`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum GitopsEngine {
    /// Written empty: Flux CD, as Kure reads it.
    #[default]
    #[serde(rename = "")]
    Unset,
    /// Flux CD.
    #[serde(rename = "fluxcd")]
    Fluxcd,
}

/// A capability binding: the platform's values for one capability.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Binding {
    /// The rendering values handed to the handler.
    #[serde(default)]
    pub rendering: serde_json::Map<String, Json>,
}

/// A `CapabilityDefinition`: the rendering schema of a custom capability.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CapabilityDefinition {
    /// `launcher.gokure.dev/v1alpha1`.
    pub api_version: ApiVersion,
    /// `CapabilityDefinition`.
    pub kind: DefinitionKind,
    /// `name` is the trait type.
    pub metadata: Name,
    /// The schema.
    pub spec: DefinitionSpec,
}

/// `spec` of a definition.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct DefinitionSpec {
    /// What the capability does.
    pub description: Option<String>,
    /// The rendering keys.
    #[serde(default)]
    pub rendering: RenderingSpec,
}

/// `spec.rendering` of a definition.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
pub struct RenderingSpec {
    /// Each rendering key.
    #[serde(default)]
    pub properties: BTreeMap<String, PropertySpec>,
}

/// One rendering key of a definition.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
pub struct PropertySpec {
    /// Its type; any value when absent.
    #[serde(rename = "type")]
    pub kind: Option<PropertyType>,
    /// Whether the binding must give it (checked before defaults).
    #[serde(default)]
    pub required: bool,
    /// Its value when the binding leaves it out; it must have the type.
    pub default: Option<Json>,
    /// What it is for.
    pub description: Option<String>,
}

/// The types a definition's key may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PropertyType {
    /// A string.
    String,
    /// An integer (an integer-valued float counts).
    Integer,
    /// `true` or `false`.
    Boolean,
}

impl PropertyType {
    /// Whether `value` has this type.
    #[must_use]
    pub fn admits(self, value: &Json) -> bool {
        match self {
            PropertyType::String => value.is_string(),
            PropertyType::Boolean => value.is_boolean(),
            PropertyType::Integer => {
                value.is_i64()
                    || value.is_u64()
                    || value
                        .as_f64()
                        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
            }
        }
    }

    /// The name as written.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PropertyType::String => "string",
            PropertyType::Integer => "integer",
            PropertyType::Boolean => "boolean",
        }
    }
}

/// `kind: Application`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum ApplicationKind {
    /// `Application`.
    Application,
}

/// A package's `app.yaml`: the components an application is made of.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Application {
    /// `launcher.gokure.dev/v1alpha1`.
    pub api_version: ApiVersion,
    /// `Application`.
    pub kind: ApplicationKind,
    /// Name, namespace, labels and annotations.
    pub metadata: ApplicationMetadata,
    /// The components and policies.
    pub spec: ApplicationSpec,
}

/// `metadata` of an application.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ApplicationMetadata {
    /// The application's name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// Its namespace.
    pub namespace: Option<String>,
    /// Labels.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Annotations.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

/// `spec` of an application.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ApplicationSpec {
    /// The components, at least one.
    #[schemars(length(min = 1))]
    pub components: Vec<Component>,
    /// Policies, kept as given.
    #[serde(default)]
    pub policies: Vec<Policy>,
}

/// One component of an application.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Component {
    /// A DNS-1123 label, unique in the application.
    #[schemars(length(min = 1))]
    pub name: String,
    /// The component type: a registered component handler.
    #[serde(rename = "type")]
    pub kind: String,
    /// What the handler gets.
    #[serde(default)]
    pub properties: serde_json::Map<String, Json>,
    /// Annotations.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// The traits, in order.
    #[serde(default)]
    pub traits: Vec<Trait>,
}

/// One trait of a component.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Trait {
    /// The trait type: a registered trait handler.
    #[serde(rename = "type")]
    pub kind: String,
    /// What the handler gets; `scope` selects the binding
    /// `<type>.<scope>` and is not passed on.
    #[serde(default)]
    pub properties: serde_json::Map<String, Json>,
}

/// A policy, kept as given.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Policy {
    /// Unique in the application.
    #[schemars(length(min = 1))]
    pub name: String,
    /// The policy type.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Its properties.
    pub properties: Option<serde_json::Map<String, Json>>,
}

/// `kind: Package`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum PackageKind {
    /// `Package`.
    Package,
}

/// A package's `kurel.yaml`: the parameters its `app.yaml` takes as
/// `${name}` placeholders.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageDescriptor {
    /// `launcher.gokure.dev/v1alpha1`.
    pub api_version: ApiVersion,
    /// `Package`.
    pub kind: PackageKind,
    /// The package's name, version and description.
    pub metadata: PackageMetadata,
    /// The parameters.
    #[serde(default)]
    pub spec: PackageSpec,
}

/// `metadata` of a package.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PackageMetadata {
    /// The package's name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// Its version.
    pub version: Option<String>,
    /// What it is.
    pub description: Option<String>,
}

/// `spec` of a package.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct PackageSpec {
    /// The parameters, in order: a default may name only earlier ones.
    #[serde(default)]
    pub parameters: Vec<ParameterDecl>,
}

/// One parameter of a package.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ParameterDecl {
    /// Its name, as `${name}` writes it.
    #[schemars(length(min = 1))]
    pub name: String,
    /// `string`, `integer` or `boolean`.
    #[serde(rename = "type")]
    pub kind: PropertyType,
    /// Whether a build must be given a value (or have a default).
    #[serde(default)]
    pub required: bool,
    /// The value when none is given; a string may name earlier parameters
    /// as `${name}`.
    pub default: Option<serde_json::Value>,
    /// What it is for.
    pub description: Option<String>,
}

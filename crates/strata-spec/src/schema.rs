//! The structure of a blueprint file as types whose JSON Schema (generated
//! by `schemars`, closed by `strata-schema`) checks every file before the
//! typed model is built: unknown keys (with a did-you-mean), wrong types and
//! missing fields are reported there, all at once, with their positions.
//! These types are only the schema; the spanned model the checks run on is
//! [`crate::model`], built from the tree once its structure is known.
//!
//! Fields that the specification types as "string" but that may hold a
//! `${..}` substitution yielding another type (a value's `value`, an
//! include's variables) accept any scalar.
#![expect(
    dead_code,
    reason = "the fields state the file's structure for the schema and strict decoding; the checks read the spanned model, never these values"
)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;

/// A blueprint file of the Blueprint Specification v2023-04-20.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "Blueprint (v2023-04-20)")]
pub(crate) struct BlueprintSchema {
    /// The version of the specification: `2023-04-20`.
    pub version: Version,
    /// Transforms applied to the blueprint before anything else.
    pub transform: Option<Transform>,
    /// Inputs of the blueprint, by name.
    pub variables: Option<BTreeMap<String, VariableSchema>>,
    /// Static and computed values, by name.
    pub values: Option<BTreeMap<String, ValueSchema>>,
    /// Child blueprints, by name.
    pub include: Option<BTreeMap<String, IncludeSchema>>,
    /// The resources, by name (at least one).
    pub resources: Option<BTreeMap<String, ResourceSchema>>,
    /// Data sources, by name.
    pub datasources: Option<BTreeMap<String, DatasourceSchema>>,
    /// Exported fields, by name.
    pub exports: Option<BTreeMap<String, ExportSchema>>,
    /// Blueprint-wide metadata for transformers and providers.
    pub metadata: Option<BTreeMap<String, Json>>,
}

/// The only version this specification defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum Version {
    /// `2023-04-20`.
    #[serde(rename = "2023-04-20")]
    V2023_04_20,
}

/// One transform or a list of them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Transform {
    /// One transform.
    One(String),
    /// Several, in order.
    Many(Vec<String>),
}

/// A scalar value: string, integer, float or boolean.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Scalar {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    String(String),
}

/// `variables.<name>`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VariableSchema {
    /// `string`, `integer`, `float`, `boolean` or a provider's custom type
    /// (`aws/region`).
    #[serde(rename = "type")]
    pub variable_type: String,
    /// What the variable is for.
    pub description: Option<String>,
    /// Whether the value is masked in output.
    pub secret: Option<bool>,
    /// The value when none is given.
    pub default: Option<Scalar>,
    /// The values allowed (not for booleans).
    pub allowed_values: Option<Vec<Scalar>>,
}

/// The types a value or an export may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ValueType {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `float`.
    Float,
    /// `boolean`.
    Boolean,
    /// `array`.
    Array,
    /// `object`.
    Object,
}

/// `values.<name>`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ValueSchema {
    /// The value's type.
    #[serde(rename = "type")]
    pub value_type: ValueType,
    /// The content: a literal, or `${..}` for computed values, arrays and
    /// objects.
    pub value: Scalar,
    /// What the value is for.
    pub description: Option<String>,
    /// Whether the value is masked in output.
    pub secret: Option<bool>,
}

/// `include.<name>`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IncludeSchema {
    /// The child blueprint: relative to this blueprint, `${cwd()}/…`, or a
    /// key in a remote source named by `metadata.sourceType`.
    pub path: String,
    /// Values of the child's variables.
    pub variables: Option<BTreeMap<String, Scalar>>,
    /// Where and how to fetch the child.
    pub metadata: Option<BTreeMap<String, Json>>,
    /// What the child is for.
    pub description: Option<String>,
}

/// `resources.<name>`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceSchema {
    /// The provider's resource type (`aws/lambda/function`).
    #[serde(rename = "type")]
    pub resource_type: String,
    /// What the resource is for.
    pub description: Option<String>,
    /// Display name, annotations, labels and custom metadata.
    pub metadata: Option<ResourceMetadataSchema>,
    /// Whether to deploy the resource.
    pub condition: Option<ConditionSchema>,
    /// `${..}` giving an array: one resource per item.
    pub each: Option<String>,
    /// The resources this one links to, by label.
    pub link_selector: Option<LinkSelectorSchema>,
    /// The provider's specification of the resource.
    pub spec: BTreeMap<String, Json>,
}

/// `resources.<name>.metadata`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceMetadataSchema {
    /// The name shown to people.
    pub display_name: Option<String>,
    /// Context for links and providers.
    pub annotations: Option<BTreeMap<String, Scalar>>,
    /// Labels that link selectors match.
    pub labels: Option<BTreeMap<String, String>>,
    /// Anything else.
    pub custom: Option<BTreeMap<String, Json>>,
}

/// A condition: a `${..}` boolean, or exactly one of `and`, `or`, `not`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum ConditionSchema {
    /// `${..}` that gives a boolean.
    Expression(String),
    /// `and`, `or` or `not`.
    Combined(Box<CombinedSchema>),
}

/// `and`, `or` or `not` (exactly one).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CombinedSchema {
    /// All must hold.
    pub and: Option<Vec<ConditionSchema>>,
    /// One must hold.
    pub or: Option<Vec<ConditionSchema>>,
    /// Must not hold.
    pub not: Option<ConditionSchema>,
}

/// `linkSelector`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LinkSelectorSchema {
    /// Labels every linked resource has.
    pub by_label: BTreeMap<String, String>,
}

/// `datasources.<name>`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DatasourceSchema {
    /// The provider's data source type (`aws/vpc`).
    #[serde(rename = "type")]
    pub datasource_type: String,
    /// Display name, annotations and custom metadata.
    pub metadata: Option<DatasourceMetadataSchema>,
    /// Which external resource to read.
    pub filter: FilterSchema,
    /// The fields exported, by name.
    pub exports: BTreeMap<String, DatasourceExportSchema>,
    /// What the data source is for.
    pub description: Option<String>,
}

/// `datasources.<name>.metadata`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DatasourceMetadataSchema {
    /// The name shown to people.
    pub display_name: Option<String>,
    /// Context for the provider.
    pub annotations: Option<BTreeMap<String, Scalar>>,
    /// Anything else.
    pub custom: Option<BTreeMap<String, Json>>,
}

/// The operators of a data source filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
pub enum Operator {
    /// `=`.
    #[serde(rename = "=")]
    Equal,
    /// `!=`.
    #[serde(rename = "!=")]
    NotEqual,
    /// `in`.
    #[serde(rename = "in")]
    In,
    /// `not in`.
    #[serde(rename = "not in")]
    NotIn,
    /// `has key`.
    #[serde(rename = "has key")]
    HasKey,
    /// `not has key`.
    #[serde(rename = "not has key")]
    NotHasKey,
    /// `contains`.
    #[serde(rename = "contains")]
    Contains,
    /// `not contains`.
    #[serde(rename = "not contains")]
    NotContains,
    /// `starts with`.
    #[serde(rename = "starts with")]
    StartsWith,
    /// `not starts with`.
    #[serde(rename = "not starts with")]
    NotStartsWith,
    /// `ends with`.
    #[serde(rename = "ends with")]
    EndsWith,
    /// `not ends with`.
    #[serde(rename = "not ends with")]
    NotEndsWith,
}

/// A search value: a scalar or a list of scalars.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum SearchSchema {
    /// One value.
    One(Scalar),
    /// Several.
    Many(Vec<Scalar>),
}

/// `datasources.<name>.filter`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FilterSchema {
    /// The field of the external resource compared (`metadata.name`).
    pub field: String,
    /// How it is compared.
    pub operator: Operator,
    /// What it is compared with.
    pub search: SearchSchema,
}

/// The types a data source may export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum DatasourceFieldType {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `float`.
    Float,
    /// `boolean`.
    Boolean,
    /// `array` (of primitives).
    Array,
}

/// `datasources.<name>.exports.<field>`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DatasourceExportSchema {
    /// The field's type.
    #[serde(rename = "type")]
    pub field_type: DatasourceFieldType,
    /// The field's name in the provider's data, when the export's key is an
    /// alias.
    pub alias_for: Option<String>,
    /// What the field is.
    pub description: Option<String>,
}

/// `exports.<name>`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExportSchema {
    /// The exported value's type.
    #[serde(rename = "type")]
    pub export_type: ValueType,
    /// What is exported: `resources.x.state.arn`, `values.y`,
    /// `children.c.z`, `variables.v`, `datasources.d.f` (no `${..}`).
    pub field: String,
    /// What the export is.
    pub description: Option<String>,
}

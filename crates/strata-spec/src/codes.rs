//! The diagnostic codes of the `spec` dialect.
//!
//! | code | when |
//! |---|---|
//! | `spec/yaml-alias` | a YAML anchor or alias (not part of this version) |
//! | `spec/yaml-tag` | a YAML tag (not part of this version) |
//! | `spec/no-resources` | the blueprint defines no resource |
//! | `spec/subst-in-key` | `${..}` in a mapping key |
//! | `spec/subst-in-transform` | `${..}` in `transform` |
//! | `spec/subst-in-variable` | `${..}` in a variable definition |
//! | `spec/subst-in-value-type` | `${..}` in a value's `type` |
//! | `spec/subst-in-resource-type` | `${..}` in a resource's `type` |
//! | `spec/subst-in-labels` | `${..}` in a resource's `metadata.labels` |
//! | `spec/subst-in-link-selector` | `${..}` in a resource's `linkSelector` |
//! | `spec/subst-in-datasource-type` | `${..}` in a data source's `type` |
//! | `spec/subst-in-datasource-exports` | `${..}` in a data source's `exports` |
//! | `spec/subst-in-filter-field` | `${..}` in a data source's `filter.field` |
//! | `spec/subst-in-filter-operator` | `${..}` in a data source's `filter.operator` |
//! | `spec/subst-in-export-type` | `${..}` in an export's `type` |
//! | `spec/subst-in-export-field` | `${..}` in an export's `field` |
//! | `spec/unknown-variable` | a reference to a variable the blueprint does not define |
//! | `spec/unknown-value` | a reference to an undefined value |
//! | `spec/unknown-datasource` | a reference to an undefined data source |
//! | `spec/unknown-datasource-field` | a reference to a field a data source does not export (by its key) |
//! | `spec/unknown-child` | a reference to a child the blueprint does not include |
//! | `spec/unknown-resource` | a reference (or `link` argument) naming no resource |
//! | `spec/resource-field` | a resource read other than through `.spec`, `.state`, `.metadata.displayName\|labels\|annotations\|custom`, or indexed without `each` |
//! | `spec/value-accessor` | an accessor after a value whose declared type has no fields or items |
//! | `spec/elem-outside-each` | `elem` or `i` outside a resource with `each` |
//! | `spec/each-dependency` | `each` depends on a resource, a child or `elem`, directly or through values |
//! | `spec/each-type` | `each` does not give an array |
//! | `spec/cycle` | references form a cycle (the whole cycle is printed) |
//! | `spec/variable-type` | a variable type that is neither built in nor `provider/type` |
//! | `spec/variable-default` | a default of the wrong type, or outside `allowedValues` |
//! | `spec/allowed-values` | an allowed value of the wrong type, or `allowedValues` on a boolean |
//! | `spec/value-type` | a value's content does not fit its declared type |
//! | `spec/export-type` | an exported field's known type differs from the export's `type` |
//! | `spec/export-field` | an export's `field` is not a reference |
//! | `spec/filter-search` | a filter's search value does not fit its operator |
//! | `spec/condition` | a condition object without exactly one of `and`, `or`, `not`, or a leaf that is not a boolean |
//! | `spec/missing-variable` | a variable without a default is given no value |
//! | `spec/variable-input` | a given variable value is of the wrong type, not allowed, or names no variable |
//! | `spec/include` | an include whose path is not a known string, or whose remote source is not configured or fails |
//! | `spec/include-cycle` | includes form a cycle (the chain is printed) |
//! | `spec/too-many-includes` | a render includes more than 1,000 blueprints, counting a file each time it is included |
//! | `spec/datasource-input` | a `--datasources` file names a data source or field the blueprint does not export, or gives a value of the wrong type |
//! | `spec/order-cycle` | hard links and references ask for a deployment order with a cycle (printed) |
//! | `spec/state` | a state file of another format version |
//! | `spec/provider-spec` | a provider refuses a resolved spec (a missing or unknown field, a wrong type) |
//! | `spec/known-after-deploy` | a note: an evaluated text depends on what only deployment tells (`strata spec eval`) |
//!
//! Problems inside a `${..}` (its syntax, functions, argument types) have
//! the `subst/*` codes of `strata-subst`; structure problems (unknown keys,
//! wrong types, missing fields) the `schema/*` codes.

/// A YAML anchor or alias.
pub const YAML_ALIAS: &str = "spec/yaml-alias";
/// A YAML tag.
pub const YAML_TAG: &str = "spec/yaml-tag";
/// No resource.
pub const NO_RESOURCES: &str = "spec/no-resources";
/// `${..}` in a mapping key.
pub const SUBST_IN_KEY: &str = "spec/subst-in-key";
/// `${..}` in `transform`.
pub const SUBST_IN_TRANSFORM: &str = "spec/subst-in-transform";
/// `${..}` in a variable definition.
pub const SUBST_IN_VARIABLE: &str = "spec/subst-in-variable";
/// `${..}` in a value's `type`.
pub const SUBST_IN_VALUE_TYPE: &str = "spec/subst-in-value-type";
/// `${..}` in a resource's `type`.
pub const SUBST_IN_RESOURCE_TYPE: &str = "spec/subst-in-resource-type";
/// `${..}` in `metadata.labels`.
pub const SUBST_IN_LABELS: &str = "spec/subst-in-labels";
/// `${..}` in `linkSelector`.
pub const SUBST_IN_LINK_SELECTOR: &str = "spec/subst-in-link-selector";
/// `${..}` in a data source's `type`.
pub const SUBST_IN_DATASOURCE_TYPE: &str = "spec/subst-in-datasource-type";
/// `${..}` in a data source's `exports`.
pub const SUBST_IN_DATASOURCE_EXPORTS: &str = "spec/subst-in-datasource-exports";
/// `${..}` in `filter.field`.
pub const SUBST_IN_FILTER_FIELD: &str = "spec/subst-in-filter-field";
/// `${..}` in `filter.operator`.
pub const SUBST_IN_FILTER_OPERATOR: &str = "spec/subst-in-filter-operator";
/// `${..}` in an export's `type`.
pub const SUBST_IN_EXPORT_TYPE: &str = "spec/subst-in-export-type";
/// `${..}` in an export's `field`.
pub const SUBST_IN_EXPORT_FIELD: &str = "spec/subst-in-export-field";
/// An undefined variable.
pub const UNKNOWN_VARIABLE: &str = "spec/unknown-variable";
/// An undefined value.
pub const UNKNOWN_VALUE: &str = "spec/unknown-value";
/// An undefined data source.
pub const UNKNOWN_DATASOURCE: &str = "spec/unknown-datasource";
/// A field a data source does not export.
pub const UNKNOWN_DATASOURCE_FIELD: &str = "spec/unknown-datasource-field";
/// A child not included.
pub const UNKNOWN_CHILD: &str = "spec/unknown-child";
/// No such resource.
pub const UNKNOWN_RESOURCE: &str = "spec/unknown-resource";
/// A resource read the wrong way.
pub const RESOURCE_FIELD: &str = "spec/resource-field";
/// An accessor after a primitive value.
pub const VALUE_ACCESSOR: &str = "spec/value-accessor";
/// `elem` or `i` outside `each`.
pub const ELEM_OUTSIDE_EACH: &str = "spec/elem-outside-each";
/// `each` depends on what it may not.
pub const EACH_DEPENDENCY: &str = "spec/each-dependency";
/// `each` does not give an array.
pub const EACH_TYPE: &str = "spec/each-type";
/// A reference cycle.
pub const CYCLE: &str = "spec/cycle";
/// A malformed variable type.
pub const VARIABLE_TYPE: &str = "spec/variable-type";
/// A wrong default.
pub const VARIABLE_DEFAULT: &str = "spec/variable-default";
/// Wrong allowed values.
pub const ALLOWED_VALUES: &str = "spec/allowed-values";
/// A value's content does not fit its type.
pub const VALUE_TYPE: &str = "spec/value-type";
/// An export's type differs from its field's.
pub const EXPORT_TYPE: &str = "spec/export-type";
/// An export's field is not a reference.
pub const EXPORT_FIELD: &str = "spec/export-field";
/// A search value that does not fit the operator.
pub const FILTER_SEARCH: &str = "spec/filter-search";
/// A malformed condition.
pub const CONDITION: &str = "spec/condition";
/// A variable without a value.
pub const MISSING_VARIABLE: &str = "spec/missing-variable";
/// A given variable value that does not fit.
pub const VARIABLE_INPUT: &str = "spec/variable-input";
/// A note: the value is known only after deployment.
pub const KNOWN_AFTER_DEPLOY: &str = "spec/known-after-deploy";
/// An include that cannot be read.
pub const INCLUDE: &str = "spec/include";
/// Includes form a cycle.
pub const INCLUDE_CYCLE: &str = "spec/include-cycle";
/// A render includes more blueprints than the bound.
pub const TOO_MANY_INCLUDES: &str = "spec/too-many-includes";
/// A `--datasources` value that does not fit.
pub const DATASOURCE_INPUT: &str = "spec/datasource-input";
/// The deployment order has a cycle.
pub const ORDER_CYCLE: &str = "spec/order-cycle";
/// A state file of another format version.
pub const STATE: &str = "spec/state";
/// A provider refuses a resolved spec.
pub const PROVIDER_SPEC: &str = "spec/provider-spec";

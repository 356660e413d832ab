//! The diagnostic codes of the `spec` dialect.
//!
//! Problems inside a `${..}` (its syntax, functions, argument types) have
//! the `subst/*` codes of `strata-subst`; structure problems (unknown keys,
//! wrong types, missing fields) the `schema/*` codes.

strata_syntax::declare_codes! {
    YAML_ALIAS = "spec/yaml-alias" {
        when: "a YAML anchor or alias (not part of this version)",
        why: r"Version 2023-04-20 of the Blueprint Specification has no YAML anchors (`&name`) or aliases (`*name`): a blueprint is plain YAML or JSON, and a value used in several places is computed once with a `${..}` substitution instead.",
        fix: r"Write the value out where it is used, or compute it once in `values` and reference it with `${values.NAME}`.",
        example: r"# blueprint.yaml
version: 2023-04-20
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec: &tableSpec
      billingMode: PAY_PER_REQUEST
  archiveTable:
    type: aws/dynamodb/table
    spec: *tableSpec",
    }

    YAML_TAG = "spec/yaml-tag" {
        when: "a YAML tag (not part of this version)",
        why: r"Version 2023-04-20 of the Blueprint Specification has no YAML tags, neither local ones such as `!Sub` nor core ones such as `!!int`. A scalar is what YAML reads it as, and computed values come from `${..}` substitutions and their functions.",
        fix: r"Remove the tag. Where the tag computed something, write a `${..}` substitution instead.",
        example: r"# blueprint.yaml
version: 2023-04-20
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec:
      tableName: !Sub orders-table",
    }

    NO_RESOURCES = "spec/no-resources" {
        when: "the blueprint defines no resource",
        why: r"Version 2023-04-20 requires every blueprint to define at least one resource. A blueprint whose `resources` mapping is missing or empty has nothing to deploy.",
        fix: r"Add a `resources` mapping with at least one resource, each with its `type`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  environment:
    type: string
    default: dev",
    }

    SUBST_IN_KEY = "spec/subst-in-key" {
        when: "`${..}` in a mapping key",
        why: r"Mapping keys are read before substitutions are resolved, so a `${..}` in a key would never be replaced: substitutions stand only in values. A `${` that does not parse counts too, since the language has no escape.",
        fix: r"Write the key literally. If a name must vary, move the varying part into a value, such as a field of the resource's `spec`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  timeoutKey:
    type: string
    default: timeout
resources:
  getOrderFunction:
    type: aws/lambda/function
    spec:
      ${variables.timeoutKey}: 3000",
    }

    SUBST_IN_TRANSFORM = "spec/subst-in-transform" {
        when: "`${..}` in `transform`",
        why: r"`transform` names the transforms the blueprint is written for, and it is read before substitutions are resolved, so a `${..}` in it would never be replaced.",
        fix: r"Write each transform name literally, such as `celerity-2023-04-20`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  transform:
    type: string
    default: celerity-2023-04-20
transform: ${variables.transform}
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      bucketName: orders",
    }

    SUBST_IN_VARIABLE = "spec/subst-in-variable" {
        when: "`${..}` in a variable definition",
        why: r"Variables are the blueprint's inputs: every part of their definitions (`type`, `description`, `default`, `allowedValues`, `secret`) is read before substitutions are resolved, so none may hold a `${..}`, not even one naming another variable.",
        fix: r"Write the definition literally. To derive something from variables, declare it under `values` and reference it with `${values.NAME}`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  environment:
    type: string
    default: dev
  tableName:
    type: string
    default: orders-${variables.environment}
resources:
  table:
    type: aws/dynamodb/table
    spec:
      tableName: ${variables.tableName}",
    }

    SUBST_IN_VALUE_TYPE = "spec/subst-in-value-type" {
        when: "`${..}` in a value's `type`",
        why: r"A value's `type` says how its `value` is read and checked, so it is read before substitutions are resolved and must be written literally.",
        fix: r"Write one of the value types: `string`, `integer`, `float`, `boolean`, `array` or `object`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  bucketType:
    type: string
    default: string
values:
  bucketName:
    type: ${variables.bucketType}
    value: orders
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      bucketName: ${values.bucketName}",
    }

    SUBST_IN_RESOURCE_TYPE = "spec/subst-in-resource-type" {
        when: "`${..}` in a resource's `type`",
        why: r"A resource's `type` decides which provider handles the resource and how it links to others, so it is read before substitutions are resolved and must be written literally.",
        fix: r"Write the type literally, such as `aws/lambda/function`. To choose between types, declare one resource of each and give each a `condition`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  functionType:
    type: string
    default: aws/lambda/function
resources:
  getOrderFunction:
    type: ${variables.functionType}
    spec:
      handler: index.handler",
    }

    SUBST_IN_LABELS = "spec/subst-in-labels" {
        when: "`${..}` in a resource's `metadata.labels`",
        why: r"A resource's labels are what the `linkSelector.byLabel` of other resources selects, and they are read before substitutions are resolved, so they must be written literally. The other fields of `metadata` (`displayName`, `annotations`, `custom`) may hold substitutions.",
        fix: r"Write each label value literally. Put computed text in `metadata.annotations` or `metadata.custom` instead.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  app:
    type: string
    default: orders
resources:
  getOrderFunction:
    type: aws/lambda/function
    metadata:
      labels:
        app: ${variables.app}
    spec:
      handler: index.handler",
    }

    SUBST_IN_LINK_SELECTOR = "spec/subst-in-link-selector" {
        when: "`${..}` in a resource's `linkSelector`",
        why: r"`linkSelector` decides which resources a resource links to, by their labels, and it is read before substitutions are resolved, so it must be written literally.",
        fix: r"Write the `byLabel` pairs literally, matching the (literal) labels of the resources to link to.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  app:
    type: string
    default: orders
resources:
  getOrderFunction:
    type: aws/lambda/function
    linkSelector:
      byLabel:
        app: ${variables.app}
    spec:
      handler: index.handler",
    }

    SUBST_IN_DATASOURCE_TYPE = "spec/subst-in-datasource-type" {
        when: "`${..}` in a data source's `type`",
        why: r"A data source's `type` names the provider that is asked for its data, so it is read before substitutions are resolved and must be written literally.",
        fix: r"Write the type literally, such as `aws/vpc`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  networkType:
    type: string
    default: aws/vpc
datasources:
  network:
    type: ${variables.networkType}
    filter: {field: tags, operator: has key, search: orders}
    exports:
      vpc: {type: string, aliasFor: vpcId}
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      vpc: ${datasources.network.vpc}",
    }

    SUBST_IN_DATASOURCE_EXPORTS = "spec/subst-in-datasource-exports" {
        when: "`${..}` in a data source's `exports`",
        why: r"A data source's `exports` declare the fields the blueprint reads from it: their keys, types, the provider's names for them (`aliasFor`) and descriptions. They are read before substitutions are resolved, so nothing under `exports` may hold a `${..}`.",
        fix: r"Write every part of each export literally.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  vpcField:
    type: string
    default: vpcId
datasources:
  network:
    type: aws/vpc
    filter: {field: tags, operator: has key, search: orders}
    exports:
      vpc:
        type: string
        aliasFor: ${variables.vpcField}
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      vpc: ${datasources.network.vpc}",
    }

    SUBST_IN_FILTER_FIELD = "spec/subst-in-filter-field" {
        when: "`${..}` in a data source's `filter.field`",
        why: r"A filter's `field` names the provider's field the data source is looked up by, and it is read before substitutions are resolved. Of the filter, only `search` may hold substitutions.",
        fix: r"Write the field literally and put what varies in `filter.search`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  zoneField:
    type: string
    default: availabilityZone
datasources:
  network:
    type: aws/vpc
    filter:
      field: subnets[0].${variables.zoneField}
      operator: in
      search: [eu-west-1a, eu-west-1b]
    exports:
      vpc: {type: string, aliasFor: vpcId}
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      vpc: ${datasources.network.vpc}",
    }

    SUBST_IN_FILTER_OPERATOR = "spec/subst-in-filter-operator" {
        when: "`${..}` in a data source's `filter.operator`",
        why: r"A filter's `operator` decides how the field is compared and which search values fit it, so it is read before substitutions are resolved and must be written literally.",
        fix: r"Write one of the operators: `=`, `!=`, `in`, `not in`, `has key`, `not has key`, `contains`, `not contains`, `starts with`, `not starts with`, `ends with` or `not ends with`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  operator:
    type: string
    default: in
datasources:
  network:
    type: aws/vpc
    filter:
      field: subnets[0].availabilityZone
      operator: ${variables.operator}
      search: [eu-west-1a]
    exports:
      vpc: {type: string, aliasFor: vpcId}
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      vpc: ${datasources.network.vpc}",
    }

    SUBST_IN_EXPORT_TYPE = "spec/subst-in-export-type" {
        when: "`${..}` in an export's `type`",
        why: r"An export's `type` is what the blueprints that include this one read the export as, and it is checked against the exported field before substitutions are resolved, so it must be written literally.",
        fix: r"Write one of the types: `string`, `integer`, `float`, `boolean`, `array` or `object`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  arnType:
    type: string
    default: string
resources:
  saveOrdersFunction:
    type: aws/lambda/function
    spec:
      handler: index.handler
exports:
  saveOrdersFunctionArn:
    type: ${variables.arnType}
    field: resources.saveOrdersFunction.state.functionArn",
    }

    SUBST_IN_EXPORT_FIELD = "spec/subst-in-export-field" {
        when: "`${..}` in an export's `field`",
        why: r"An export's `field` is itself a reference, written without `${..}`, that names what is exported; it is read before substitutions are resolved, so it can neither be wrapped in `${..}` nor be assembled from one.",
        fix: r"Write the reference plainly, as in `field: resources.saveOrdersFunction.state.functionArn`.",
        example: r"# blueprint.yaml
version: 2023-04-20
resources:
  saveOrdersFunction:
    type: aws/lambda/function
    spec:
      handler: index.handler
exports:
  saveOrdersFunctionArn:
    type: string
    field: ${resources.saveOrdersFunction.state.functionArn}",
    }

    UNKNOWN_VARIABLE = "spec/unknown-variable" {
        when: "a reference to a variable the blueprint does not define",
        why: r"A `${variables.NAME}` reference must name a variable defined under the blueprint's `variables`; otherwise there is nothing to substitute. A near name is suggested.",
        fix: r"Correct the name, or define the variable under `variables` with its `type`.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  environment:
    type: string
    default: dev
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec:
      tableName: orders-${variables.enviroment}",
    }

    UNKNOWN_VALUE = "spec/unknown-value" {
        when: "a reference to an undefined value",
        why: r"A `${values.NAME}` reference must name a value defined under the blueprint's `values`. A near name is suggested.",
        fix: r"Correct the name, or define the value under `values` with its `type` and `value`.",
        example: r"# blueprint.yaml
version: 2023-04-20
values:
  tablePrefix:
    type: string
    value: orders
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec:
      tableName: ${values.tablePrefx}-table",
    }

    UNKNOWN_DATASOURCE = "spec/unknown-datasource" {
        when: "a reference to an undefined data source",
        why: r"A `${datasources.NAME.FIELD}` reference must name a data source defined under the blueprint's `datasources`. A near name is suggested.",
        fix: r"Correct the name, or define the data source under `datasources` with its `type`, `filter` and `exports`.",
        example: r"# blueprint.yaml
version: 2023-04-20
datasources:
  network:
    type: aws/vpc
    filter: {field: tags, operator: has key, search: orders}
    exports:
      subnets: {type: array}
resources:
  ordersFunction:
    type: aws/lambda/function
    spec:
      subnetId: ${datasources.netwrok.subnets[0]}",
    }

    UNKNOWN_DATASOURCE_FIELD = "spec/unknown-datasource-field" {
        when: "a reference to a field a data source does not export (by its key)",
        why: r"A data source is read only through the fields its `exports` declare, by their keys there. The provider's name of a field, written in `aliasFor`, is not a name the blueprint reads it by.",
        fix: r"Reference one of the export keys (`datasources.network.vpc` for an export `vpc` with `aliasFor: vpcId`), or add the field to the data source's `exports`.",
        example: r"# blueprint.yaml
version: 2023-04-20
datasources:
  network:
    type: aws/vpc
    filter: {field: tags, operator: has key, search: orders}
    exports:
      vpc: {type: string, aliasFor: vpcId}
resources:
  ordersFunction:
    type: aws/lambda/function
    spec:
      vpcId: ${datasources.network.vpcId}",
    }

    UNKNOWN_CHILD = "spec/unknown-child" {
        when: "a reference to a child the blueprint does not include",
        why: r"`${children.NAME.EXPORT}` reads an export of the blueprint included under `include.NAME`; a name that `include` does not have names no child blueprint. A near name is suggested.",
        fix: r"Correct the name, or include the blueprint under `include` with its `path`.",
        example: r"# blueprint.yaml
version: 2023-04-20
include:
  coreInfra:
    path: core-infra.yaml
resources:
  ordersFunction:
    type: aws/lambda/function
    spec:
      databaseHost: ${children.coreInfrastructure.databaseHost}",
    }

    UNKNOWN_RESOURCE = "spec/unknown-resource" {
        when: "a reference (or `link` argument) naming no resource",
        why: r"A resource reference (`${resources.NAME...}`, or `${NAME...}` with a name that is no other kind of reference) and each argument of `link(..)` must name a resource of the blueprint. A near name is suggested.",
        fix: r"Correct the name, or define the resource under `resources`.",
        example: r"# blueprint.yaml
version: 2023-04-20
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec:
      tableName: orders
  ordersFunction:
    type: aws/lambda/function
    spec:
      tableArn: ${resources.orderTable.state.arn}",
    }

    RESOURCE_FIELD = "spec/resource-field" {
        when: "a resource read other than through `.spec`, `.state`, `.metadata.displayName|labels|annotations|custom`, or indexed without `each`",
        why: r"A resource is read through its `spec` (a field the blueprint does not write is computed by the provider and known after deployment), its `state` (what deployment reports) or one of its `metadata` fields (`displayName`, `labels`, `annotations`, `custom`); a resource alone is only an argument of `link(..)`. An index such as `[0]` picks one instance, so it applies only to a resource with `each`.",
        fix: r"Read a field under `.spec`, `.state` or `.metadata.displayName|labels|annotations|custom`, as in `${resources.ordersTable.spec.arn}`, and index only resources that have `each`.",
        example: r"# blueprint.yaml
version: 2023-04-20
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec:
      tableName: orders
  ordersFunction:
    type: aws/lambda/function
    spec:
      tableArn: ${resources.ordersTable.sate.arn}",
    }

    VALUE_ACCESSOR = "spec/value-accessor" {
        when: "an accessor after a value whose declared type has no fields or items",
        why: r"Accessors (`.field`, `[n]`) read into an object or an array. A value, or a data source field, whose declared type is `string`, `integer`, `float` or `boolean` has no fields or items to read.",
        fix: r"Remove the accessor, or declare the value as `object` or `array` if that is what it holds.",
        example: r"# blueprint.yaml
version: 2023-04-20
values:
  prefix:
    type: string
    value: orders
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec:
      tableName: ${values.prefix.name}",
    }

    ELEM_OUTSIDE_EACH = "spec/elem-outside-each" {
        when: "`elem` or `i` outside a resource with `each`",
        why: r"`elem` is the current item and `i` its index while a resource with `each` is expanded into one instance per item. Anywhere else, in another resource, a value or an export, they stand for nothing.",
        fix: r"Use `elem` and `i` only inside a resource that has `each`, or give the resource an `each`.",
        example: r"# blueprint.yaml
version: 2023-04-20
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      bucketName: bucket-${i}",
    }

    EACH_DEPENDENCY = "spec/each-dependency" {
        when: "`each` depends on a resource, a child or `elem`, directly or through values",
        why: r"How many instances `each` makes must be known before anything is deployed, so `each` may depend only on variables, values and data sources: not on a resource, a child blueprint or `elem`, directly or through values. The chain through values is printed.",
        fix: r#"Compute the list from variables, values or data sources, for example `${split(variables.regions, ",")}`."#,
        example: r"# blueprint.yaml
version: 2023-04-20
resources:
  config:
    type: aws/ssm/parameter
    spec:
      name: regions
  topics:
    type: aws/sns/topic
    each: ${resources.config.state.regions}
    spec:
      region: ${elem}",
    }

    EACH_TYPE = "spec/each-type" {
        when: "`each` does not give an array",
        why: r"`each` makes one instance of the resource per item, so it must give an array. It is checked when its type is known from the blueprint, and again when the blueprint is rendered.",
        fix: r#"Give `each` an array: split a delimited string with `${split(..., ",")}`, decode a JSON array with `${jsondecode(...)}`, or take a mapping's `${vals(...)}` or `${keys(...)}`."#,
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  regions:
    type: string
    default: eu-west-1,eu-central-1
resources:
  topics:
    type: aws/sns/topic
    each: ${variables.regions}
    spec:
      region: ${elem}",
    }

    CYCLE = "spec/cycle" {
        when: "references form a cycle (the whole cycle is printed)",
        why: r"Values and resources are resolved in the order their references give. When references lead back to where they started (a value that reads itself, two resources that read each other), no order can resolve them; the whole cycle is printed.",
        fix: r"Remove one of the references in the cycle, or compute what both need in a value that does not read back.",
        example: r"# blueprint.yaml
version: 2023-04-20
values:
  a:
    type: string
    value: ${values.b}-a
  b:
    type: string
    value: ${values.a}-b
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      bucketName: ${values.a}",
    }

    VARIABLE_TYPE = "spec/variable-type" {
        when: "a variable type that is neither built in nor `provider/type`",
        why: r"A variable's type is one of `string`, `integer`, `float` and `boolean`, or a provider's custom type written `provider/type`, such as `aws/region`. Variables are primitives, so `array` and `object` are not variable types.",
        fix: r"Use one of the built-in types (a near one is suggested), or a provider's type with both parts.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  timeout:
    type: integr
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      timeout: ${variables.timeout}",
    }

    VARIABLE_DEFAULT = "spec/variable-default" {
        when: "a default of the wrong type, or outside `allowedValues`",
        why: r#"A default is used when no value is given, so it must be of the variable's type and, when the variable has `allowedValues`, one of them. YAML decides a scalar's type: `"30"` and `yes` are strings."#,
        fix: r#"Write the default with the variable's type (`30`, not `"30"`; `true`, not `yes`), and choose it among the allowed values."#,
        example: r#"# blueprint.yaml
version: 2023-04-20
variables:
  timeout:
    type: integer
    default: "30"
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      timeout: ${variables.timeout}"#,
    }

    ALLOWED_VALUES = "spec/allowed-values" {
        when: "an allowed value of the wrong type, or `allowedValues` on a boolean",
        why: r"`allowedValues` lists the values a variable may take, so each must be of the variable's type. A boolean can only be `true` or `false`, so it takes no `allowedValues`.",
        fix: r"Write each allowed value with the variable's type, or remove `allowedValues` from a boolean variable.",
        example: r#"# blueprint.yaml
version: 2023-04-20
variables:
  memory:
    type: integer
    allowedValues: [256, "512"]
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      memory: ${variables.memory}"#,
    }

    VALUE_TYPE = "spec/value-type" {
        when: "a value's content does not fit its declared type",
        why: r"A value's `type` says what its `value` gives. A literal must parse as that type; an `array` or `object` value comes from one `${..}` substitution, since text around it makes a string. A substitution's result is checked when its type is known, and again when the blueprint is rendered.",
        fix: r"Make the value fit its type, for example with `${split(...)}` or `${list(...)}` for an array and `${object(...)}` for an object, or declare the type it gives.",
        example: r"# blueprint.yaml
version: 2023-04-20
values:
  regions:
    type: array
    value: eu-west-1,eu-central-1
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      regions: ${values.regions}",
    }

    EXPORT_TYPE = "spec/export-type" {
        when: "an exported field's known type differs from the export's `type`",
        why: r"An export's `type` is what the blueprints that include this one receive, so the exported field must give that type. It is checked when the field's type is known from the blueprint (a variable, a value, a data source field, a literal `spec` field), and again when the blueprint is rendered.",
        fix: r"Declare the export with the field's type, or export a field of the declared type.",
        example: r"# blueprint.yaml
version: 2023-04-20
variables:
  environment:
    type: string
    default: dev
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      bucketName: orders
exports:
  environment:
    type: integer
    field: variables.environment",
    }

    EXPORT_FIELD = "spec/export-field" {
        when: "an export's `field` is not a reference",
        why: r"An export names what it exports: its `field` is a reference (a resource field, a value, a child's export, a variable or a data source field), written without `${..}`. Exports do not compute, so a function call, a literal or a resource without a field is refused.",
        fix: r"Write a reference such as `resources.NAME.state.FIELD` or `values.NAME`. To export something computed, compute it in a value and export `values.NAME`.",
        example: r"# blueprint.yaml
version: 2023-04-20
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec:
      tableName: orders
exports:
  tableNameUpper:
    type: string
    field: to_upper(resources.ordersTable.spec.tableName)",
    }

    FILTER_SEARCH = "spec/filter-search" {
        when: "a filter's search value does not fit its operator",
        why: r"Each filter operator takes its own kind of search value: `in` and `not in` an array, `has key`, `starts with` and `ends with` (and their negations) a string, `contains` and `not contains` one string, number or boolean, and `=` and `!=` a value of the field's type.",
        fix: r"Give `search` the shape its operator takes, for example a list for `in`, or choose the operator that fits the search value.",
        example: r"# blueprint.yaml
version: 2023-04-20
datasources:
  network:
    type: aws/vpc
    filter:
      field: subnets[0].availabilityZone
      operator: in
      search: eu-west-1a
    exports:
      vpc: {type: string, aliasFor: vpcId}
resources:
  bucket:
    type: aws/s3/bucket
    spec:
      vpc: ${datasources.network.vpc}",
    }

    CONDITION = "spec/condition" {
        when: "a condition object without exactly one of `and`, `or`, `not`, or a leaf that is not a boolean",
        why: r"A resource's `condition` is a boolean, or an object with exactly one of `and` (a list), `or` (a list) and `not` (one condition), nested as deep as needed. Every leaf must give a boolean; a leaf whose result is only known on rendering is checked then.",
        fix: r#"Nest the operators rather than put two in one object (`and: [..., {or: [...]}]`), and make each leaf a boolean, for example `${eq(variables.environment, "production")}`."#,
        example: r#"# blueprint.yaml
version: 2023-04-20
variables:
  enabled:
    type: boolean
    default: true
resources:
  bucket:
    type: aws/s3/bucket
    condition:
      and: [ "${variables.enabled}" ]
      or: [ "${variables.enabled}" ]
    spec:
      bucketName: orders"#,
    }

    MISSING_VARIABLE = "spec/missing-variable" {
        when: "a variable without a default is given no value",
        why: r"A variable without a `default` must be given a value when the blueprint is rendered, or what reads it has nothing to read. A child blueprint's variables are given by the `variables` of the include that reads it. `strata spec check` checks this only when some values are given.",
        fix: r"Pass `--var NAME=VALUE` or a `--vars` file, give the variable a `default`, or, for a child blueprint, set it in the include's `variables`.",
        example: r"# blueprint.yaml, rendered with `strata spec render blueprint.yaml`
version: 2023-04-20
variables:
  databasePassword:
    type: string
    secret: true
resources:
  database:
    type: aws/rds/dbInstance
    spec:
      password: ${variables.databasePassword}",
    }

    VARIABLE_INPUT = "spec/variable-input" {
        when: "a given variable value is of the wrong type, not allowed, or names no variable",
        why: r"Values given with `--var` and `--vars` are read by each variable's declared type and checked against its `allowedValues`, and each must name a variable the blueprint defines. A `--var` is written `NAME=VALUE`.",
        fix: r"Give a value of the variable's type (`--var memorySize=512`, not `1GB`), one of its allowed values, and the variable's exact name.",
        example: r"# blueprint.yaml, checked with `strata spec check blueprint.yaml --var memorySize=1GB`
version: 2023-04-20
variables:
  memorySize:
    type: integer
    default: 512
resources:
  ordersFunction:
    type: aws/lambda/function
    spec:
      memorySize: ${variables.memorySize}",
    }

    INCLUDE = "spec/include" {
        when: "an include whose path is not a known string, or whose remote source is not configured or fails",
        why: r"An include is read when the blueprint is rendered, so its `path` must resolve to a string known before deployment. A blueprint from a remote source (`metadata.sourceType`) is fetched only through a source a library user supplies; the command line reads local files only, and resolves only a blueprint read from a file (not `-`), whose folder its includes are read from.",
        fix: r"Write `path` literally or from variables and values; for a remote blueprint, copy it beside this one and include it by its local path; pass the blueprint as a file.",
        example: r"# blueprint.yaml, rendered with `strata spec render blueprint.yaml`
version: 2023-04-20
include:
  coreInfra:
    path: core-infra.yaml
    metadata:
      sourceType: aws/s3
      bucket: order-system-blueprints
resources:
  marker:
    type: core/value
    spec: {value: 1}",
    }

    INCLUDE_CYCLE = "spec/include-cycle" {
        when: "includes form a cycle (the chain is printed)",
        why: r"A blueprint that includes itself, directly or through other blueprints, would be read without end. The chain of files is printed.",
        fix: r"Remove the include that leads back, or move what both blueprints need into a third blueprint that each includes.",
        example: r"# a.yaml, rendered with `strata spec render a.yaml` (b.yaml includes a.yaml the same way)
version: 2023-04-20
include:
  b:
    path: b.yaml
resources:
  ra:
    type: core/value
    spec: {value: a}",
    }

    TOO_MANY_INCLUDES = "spec/too-many-includes" {
        when: "a render includes more than 1,000 blueprints, counting a file each time it is included",
        why: r"Every include is read and resolved on its own, so a blueprint included twice is read twice, and a few files that each include the next one twice make exponentially many blueprints. A render stops after 1,000 included blueprints.",
        fix: r"Include shared blueprints fewer times, for example once, from one parent, rather than from every blueprint that uses them.",
        example: r"# b0.yaml; b1.yaml to b9.yaml each include the next file twice the same way (1,024 includes)
version: 2023-04-20
include:
  left:
    path: b1.yaml
  right:
    path: b1.yaml
resources:
  queue:
    type: aws/sqs/queue
    spec: {name: q0}",
    }

    DATASOURCE_INPUT = "spec/datasource-input" {
        when: "a `--datasources` file names a data source or field the blueprint does not export, or gives a value of the wrong type",
        why: r"`--datasources` gives data source fields in place of a provider's answer, so the file must map the blueprint's data source names to their fields, by their export keys, with values of the exports' types. A provider's answer is checked the same way.",
        fix: r"Use the data source names and export keys the blueprint declares (not the `aliasFor` names), with values of the declared types.",
        example: r"# datasources.yaml, with `strata spec render blueprint.yaml --datasources datasources.yaml`,
# where `network` exports `vpc` with `aliasFor: vpcId`
network:
  vpcId: vpc-1",
    }

    ORDER_CYCLE = "spec/order-cycle" {
        when: "hard links and references ask for a deployment order with a cycle (printed)",
        why: r"Resources are deployed in the order their references ask for, and a hard link also deploys one side first. When a hard link asks for the opposite of what a reference asks, no order deploys both; the cycle is printed. Only a library user's link provider makes hard links: the command line registers none, so `strata spec graph` and `plan` do not report this code.",
        fix: r"Remove the reference or the link, or make the link soft in its provider.",
        example: r#"# blueprint.yaml, with a link provider that makes function-to-table links hard, the table first
version: 2023-04-20
resources:
  orders:
    type: aws/dynamodb/table
    metadata: {labels: {app: orders}}
    spec: {streamTarget: "${api.state.arn}"}
  api:
    type: aws/lambda/function
    linkSelector: {byLabel: {app: orders}}
    spec: {handler: main}"#,
    }

    STATE = "spec/state" {
        when: "a state file of another format version",
        why: r"A state file records a previous deployment in a versioned format, and this release reads format version 1 only, so a file of another version is not read rather than misread.",
        fix: r"Use a state file written in format version 1, or plan without `--state` to stage every resource as new.",
        example: r#"# state.json, with `strata spec plan blueprint.yaml --state state.json`
{"formatVersion": 2, "resources": {}}"#,
    }

    PROVIDER_SPEC = "spec/provider-spec" {
        when: "a provider refuses a resolved spec (a missing or unknown field, a wrong type)",
        why: r"Before changes are staged, each resource's provider checks its resolved `spec`. The command line knows the built-in types `core/file` (`path` required, `content`, both strings) and `core/value` (`value` required).",
        fix: r"Give the spec the fields its provider requires, with their types, and remove the fields it does not have.",
        example: r#"# blueprint.yaml, with `strata spec plan blueprint.yaml`
version: 2023-04-20
resources:
  config:
    type: core/file
    spec:
      content: "port=8080""#,
    }

    KNOWN_AFTER_DEPLOY = "spec/known-after-deploy" {
        when: "a note: an evaluated text depends on what only deployment tells (`strata spec eval`)",
        why: r"A note, not an error: the text reads something only deployment tells, such as a resource's `state`, so `strata spec eval` cannot print its value and names what it waits for instead.",
        fix: r"Nothing needs fixing. To see a value, evaluate a text that reads only what is known before deployment, such as variables and values.",
        example: r"# blueprint.yaml, with `strata spec eval '${resources.saveOrderFunction.state.functionArn}' --blueprint blueprint.yaml`
version: 2023-04-20
resources:
  saveOrderFunction:
    type: aws/lambda/function
    spec:
      handler: index.handler",
    }

    DEPLOY = "spec/deploy" {
        when: "a deploy or destroy could not make a change: a provider failed (a file in the way, a folder that is a file), or a spec still waits on a state no deployed resource gives",
        why: r"A deploy applies its plan change by change, recording each in the state store. When one fails, the changes this deploy made are undone newest first (`--rollback auto`, the default), so the instance is as it was, or kept (`--rollback none`); the failure is recorded in the instance's journal, never among its resources. An undo step that fails is reported too, and the state records what is there.",
        fix: r"Remove what is in the way (a file Strata did not create is never overwritten), or correct the spec, then deploy again.",
        example: r"# blueprint.yaml, with `touch out && strata spec deploy blueprint.yaml --instance dev`
version: 2023-04-20
resources:
  config:
    type: core/file
    spec:
      path: out/config.txt
      content: hello",
    }

    LOCKED = "spec/locked" {
        when: "another deploy holds the state store's lock (exit 3); the message names its process, host and start",
        why: r"One deploy at a time changes a state store: a second would apply a plan made from a state the first is changing. The lock is a `flock` on a file beside the store, which the kernel releases when its holder ends however it ends (`kill -9` too), so a deploy that died never leaves the state locked; a deploy that finds the lock going away waits up to 2 s for it.",
        fix: r"Wait for the other deploy, or stop it; no unlock is needed after it ends.",
        example: r"# two deploys of one state at once
strata spec deploy blueprint.yaml --instance dev & strata spec deploy blueprint.yaml --instance dev",
    }

    RECOVERY = "spec/recovery" {
        when: "recovery found, where an interrupted change was being made, something neither that change nor the state made (exit 4); nothing is touched",
        why: r"Every change's intent is recorded before its provider call and its outcome after it. A deploy that died between the two leaves an intent; the next deploy reads the resource back and adopts it (the change happened), or does it again (it did not). When what is there is neither, someone else changed it in between, and a deploy that went on could overwrite or delete what is not its own.",
        fix: r"Look at the resource the message names, move the foreign one away (or `strata spec state import` a state that records it), then deploy again.",
        example: r"# a deploy killed while writing out/config.txt, then the file edited by hand
strata spec deploy blueprint.yaml --instance dev",
    }
}

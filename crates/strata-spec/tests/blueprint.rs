//! The spec dialect through its contract, on in-memory files: the model,
//! the reference graph, variable values and evaluation before deployment.
#![expect(
    clippy::unwrap_used,
    reason = "a test stops on a blueprint that does not open"
)]

use std::path::PathBuf;
use std::sync::Arc;

use indexmap::IndexMap;
use strata_fs::MemoryFs;
use strata_spec::{
    Blueprint, Dialect, Element, Environment, Given, GivenValue, Inputs, Options, Origin,
    RenderRequest, Settings, Spec, evaluate_tree,
};
use strata_subst::{Failure, Value, evaluate, parse_template};
use strata_syntax::{Limits, SourceDb, Span};

const BLUEPRINT: &str = r#"version: 2023-04-20
variables:
  env:
    type: string
    default: dev
    allowedValues: [dev, prod]
  port:
    type: integer
  ratio:
    type: float
    default: 1
values:
  name:
    type: string
    value: orders-${variables.env}
  hosts:
    type: array
    value: ${map(split("a, b", ","), trim)}
  count:
    type: integer
    value: "3"
resources:
  table:
    type: aws/dynamodb/table
    metadata:
      displayName: ${values.name} table
    spec:
      tableName: ${values.name}
      port: ${variables.port}
  topics:
    type: aws/sns/topic
    each: ${values.hosts}
    spec:
      topicName: ${values.name}-${i}
      region: ${elem}
      table: ${table.spec.tableName}
exports:
  arn:
    type: string
    field: resources.table.state.arn
"#;

fn open(text: &str) -> (Arc<SourceDb>, Spec) {
    let files = Arc::new(MemoryFs::new().with("blueprint.yaml", text));
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    let opened = Spec::open(files, Options::new(Limits::default(), settings));
    let records: Vec<String> = opened
        .outcome
        .diagnostics
        .iter()
        .map(|d| d.record(&opened.sources).message)
        .collect();
    assert!(records.is_empty(), "{records:?}");
    (opened.sources, opened.outcome.value.unwrap())
}

/// An environment of `blueprint` with `variables`, spending `steps`.
fn environment<'a>(
    blueprint: &'a Blueprint,
    variables: IndexMap<String, Value>,
    steps: &'a strata_subst::Steps,
) -> Environment<'a> {
    Environment::new(Some(blueprint), variables, "/work".into(), 0, steps)
}

fn flag(name: &str, value: &str) -> Given {
    Given {
        name: name.to_owned(),
        value: GivenValue::Text(value.to_owned()),
        span: Span::default(),
        name_span: Span::default(),
        origin: Origin::Flag,
        secret: false,
    }
}

#[test]
fn the_model_keeps_every_section_and_the_references_between_them() {
    let (_, spec) = open(BLUEPRINT);
    let loaded = spec.loaded().unwrap();
    let blueprint = &loaded.blueprint;
    assert_eq!(
        blueprint.variables.keys().collect::<Vec<_>>(),
        ["env", "port", "ratio"]
    );
    assert_eq!(
        blueprint.resources["topics"]
            .each
            .as_ref()
            .map(|each| each.templates(&strata_syntax::FieldPath::root()).len()),
        Some(1)
    );
    let table = Element::Resource("table".into());
    let topics = Element::Resource("topics".into());
    let deps = loaded.references.dependencies(&topics);
    assert_eq!(
        deps,
        [
            &Element::Value("hosts".into()),
            &Element::Value("name".into()),
            &table
        ]
    );
    assert_eq!(
        loaded
            .references
            .dependencies(&Element::Export("arn".into())),
        [&table]
    );
}

#[test]
fn variables_come_from_defaults_then_flags_typed_by_their_definitions() {
    let (sources, spec) = open(BLUEPRINT);
    let mut db = SourceDb::extending(sources);
    let request = |inputs: Inputs| RenderRequest {
        inputs,
        ..RenderRequest::default()
    };
    let missing = spec.render(&request(Inputs::default()), &mut db);
    assert!(missing.value.is_none());
    assert_eq!(missing.diagnostics[0].code, "spec/missing-variable");
    let inputs = Inputs {
        given: vec![flag("port", "8080"), flag("env", "prod")],
    };
    let resolved = spec
        .render(&request(inputs), &mut db)
        .value
        .unwrap()
        .variables;
    assert_eq!(resolved["port"].value, Value::Int(8080));
    assert_eq!(resolved["env"].value, Value::String("prod".into()));
    assert_eq!(resolved["env"].origin, Origin::Flag);
    // An integer default of a float variable is that float.
    assert_eq!(resolved["ratio"].value, Value::Float(1.0));
    let wrong = Inputs {
        given: vec![flag("port", "eighty"), flag("env", "test")],
    };
    let problems = spec.render(&request(wrong), &mut db).diagnostics;
    let codes: Vec<&str> = problems.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["spec/variable-input", "spec/variable-input"]);
}

#[test]
fn fields_evaluate_before_deployment_where_they_can() {
    let (_, spec) = open(BLUEPRINT);
    let blueprint = &spec.loaded().unwrap().blueprint;
    let mut variables = IndexMap::new();
    variables.insert("env".to_owned(), Value::String("prod".into()));
    variables.insert("port".to_owned(), Value::Int(80));
    let steps = strata_subst::Steps::default();
    let env = environment(blueprint, variables, &steps);
    let eval = |text: &str| evaluate(&parse_template(text).unwrap(), &env);
    assert_eq!(
        eval("${values.name}"),
        Ok(Value::String("orders-prod".into()))
    );
    assert_eq!(eval("${values.count}"), Ok(Value::Int(3)));
    assert_eq!(eval("${len(values.hosts)}"), Ok(Value::Int(2)));
    assert_eq!(eval("${table.spec.port}"), Ok(Value::Int(80)));
    assert_eq!(
        eval("${resources.table.metadata.displayName}"),
        Ok(Value::String("orders-prod table".into()))
    );
    assert_eq!(
        eval("${resources.table.state.arn}"),
        Err(Failure::Pending("resources.table.state.arn".into()))
    );
    // A resource's spec evaluates field by field.
    let spec_value = evaluate_tree(&blueprint.resources["table"].spec, &env).unwrap();
    assert_eq!(spec_value.to_json().unwrap()["tableName"], "orders-prod");
}

/// A reference into a resource's `spec` evaluates only the field it
/// reads: what it gives must be what reading the whole resource gives,
/// and a field the blueprint does not write (there, or in a value a
/// template gives) is computed by the provider, pending.
#[test]
fn a_reference_reads_one_field_as_the_whole_resource_gives_it() {
    let (_, spec) = open(
        r#"version: 2023-04-20
variables:
  env: {type: string, default: dev}
values:
  name: {type: string, value: "orders-${variables.env}"}
  tags: {type: object, value: "${object(team = \"shop\")}"}
resources:
  r:
    type: aws/dynamodb/table
    spec:
      name: ${values.name}
      tags: ${values.tags}
      nested: {deep: {leaf: "x-${variables.env}", count: 3}}
      list: [a, "${values.name}"]
"#,
    );
    let blueprint = &spec.loaded().unwrap().blueprint;
    let mut variables = IndexMap::new();
    variables.insert("env".to_owned(), Value::String("prod".into()));
    let steps = strata_subst::Steps::default();
    let env = environment(blueprint, variables.clone(), &steps);
    let eval = |text: &str| evaluate(&parse_template(text).unwrap(), &env);
    let whole = eval("${resources.r.spec}").unwrap().to_json().unwrap();
    let cases = [
        ("${resources.r.spec.name}", &whole["name"]),
        ("${resources.r.spec.tags}", &whole["tags"]),
        ("${resources.r.spec.tags.team}", &whole["tags"]["team"]),
        ("${resources.r.spec.nested}", &whole["nested"]),
        (
            "${resources.r.spec.nested.deep.leaf}",
            &whole["nested"]["deep"]["leaf"],
        ),
        (
            "${resources.r.spec.nested.deep.count}",
            &whole["nested"]["deep"]["count"],
        ),
        ("${resources.r.spec.list[1]}", &whole["list"][1]),
        ("${r.spec.name}", &whole["name"]),
    ];
    for (text, expected) in cases {
        // Twice: the second reading is the one recorded.
        for _ in 0..2 {
            assert_eq!(&eval(text).unwrap().to_json().unwrap(), expected, "{text}");
        }
    }
    assert_eq!(whole["name"], "orders-prod");
    assert_eq!(whole["nested"]["deep"]["leaf"], "x-prod");
    for unwritten in [
        "resources.r.spec.arn",
        "resources.r.spec.nested.id",
        "resources.r.spec.nested.deep.leaf2",
        "resources.r.spec.tags.owner",
    ] {
        assert_eq!(
            eval(&format!("${{{unwritten}}}")),
            Err(Failure::Pending(unwritten.into())),
            "{unwritten}"
        );
    }
    // Reading one field costs that field's evaluation, not the resource's.
    let spent = |text: &str| {
        let steps = strata_subst::Steps::default();
        let env = environment(blueprint, variables.clone(), &steps);
        evaluate(&parse_template(text).unwrap(), &env).unwrap();
        steps.used()
    };
    assert!(spent("${resources.r.spec.name}") < spent("${resources.r.spec}") / 2);
}

/// Answers `aws/vpc` data sources from a fixed table.
struct Vpcs;

impl strata_spec::DatasourceProvider for Vpcs {
    fn handles(&self, datasource_type: &str) -> bool {
        datasource_type == "aws/vpc"
    }

    fn fetch(
        &self,
        _: &str,
        field: &str,
        operator: &str,
        search: &Value,
    ) -> Result<IndexMap<String, Value>, String> {
        if (field, operator, search) != ("tags", "has key", &Value::String("prod".into())) {
            return Err(format!("no VPC where {field} {operator} {search}"));
        }
        let mut fields = IndexMap::new();
        fields.insert("vpcId".to_owned(), Value::String("vpc-1".into()));
        fields.insert(
            "subnets".to_owned(),
            Value::Array(vec![Value::String("subnet-a".into())]),
        );
        Ok(fields)
    }
}

#[test]
fn data_source_providers_answer_what_no_file_gives() {
    let text = r"version: 2023-04-20
variables:
  env:
    type: string
    default: prod
datasources:
  network:
    type: aws/vpc
    filter:
      field: tags
      operator: has key
      search: ${variables.env}
    exports:
      vpc:
        type: string
        aliasFor: vpcId
      subnets:
        type: array
resources:
  fn:
    type: aws/lambda/function
    spec:
      vpc: ${datasources.network.vpc}
      subnet: ${datasources.network.subnets[0]}
";
    let (sources, spec) = open(text);
    let mut db = SourceDb::extending(sources);
    let request = RenderRequest {
        datasource_providers: vec![Arc::new(Vpcs)],
        ..RenderRequest::default()
    };
    let resolved = spec.render(&request, &mut db).value.unwrap();
    let fields = resolved.resources["fn"].spec.to_json().unwrap();
    assert_eq!(
        fields,
        serde_json::json!({"vpc": "vpc-1", "subnet": "subnet-a"})
    );
    // What the provider cannot find is an error at the data source.
    let request = RenderRequest {
        inputs: Inputs {
            given: vec![flag("env", "dev")],
        },
        datasource_providers: vec![Arc::new(Vpcs)],
        ..RenderRequest::default()
    };
    let failed = spec.render(&request, &mut db);
    assert!(failed.value.is_none());
    let record = failed.diagnostics[0].record(&db);
    assert_eq!(record.code, "spec/datasource-input");
    assert_eq!(
        record.message,
        "the provider of `aws/vpc` finds nothing for `network`: no VPC where tags has key dev"
    );
}

/// `Spec::evaluate` is `strata spec eval` as a method: a text in the
/// blueprint's terms, its variables typed by their definitions, a result
/// that reads a secret said so, a reference to nothing an error.
#[test]
fn a_text_evaluates_in_the_blueprints_terms() {
    let (sources, spec) = open(
        "version: 2023-04-20\nvariables:\n  port: {type: integer}\n  token: {type: string, secret: true}\nresources:\n  api: {type: aws/lambda/function, spec: {handler: main}}\n",
    );
    let inputs = Inputs {
        given: vec![flag("port", "8080"), flag("token", "hunter2")],
    };
    let mut db = SourceDb::extending(sources.clone());
    let port = spec
        .evaluate("${variables.port}", &inputs, &mut db)
        .value
        .unwrap();
    assert_eq!(port.value, Value::Int(8080));
    assert!(!port.reads_secret);
    let token = spec
        .evaluate("${variables.token}-x", &inputs, &mut db)
        .value
        .unwrap();
    assert!(token.reads_secret);
    let unknown = spec.evaluate("${variables.nope}", &inputs, &mut db);
    assert!(unknown.value.is_none());
    assert_eq!(unknown.diagnostics[0].code, "spec/unknown-variable");
}

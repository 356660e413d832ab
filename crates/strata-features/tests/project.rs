//! The features library on in-memory projects, through the dialect contract.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::sync::Arc;

use strata_features::{Dialect, Options, Project, RenderRequest, Section, Settings};
use strata_fs::MemoryFs;
use strata_syntax::{Diagnostic, Limits, SourceDb, Value};

const BLUEPRINT: &str = "kind: Blueprint
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata: {name: base}
terraform:
  - {path: network, inputs: {cidr: 10.0.0.0/16}}
kustomize:
  - {name: ingress, path: ingress}
";

const FEATURE: &str = "kind: Feature
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata: {name: aws}
when: provider == 'aws'
terraform:
  - path: network
    inputs: {region: '${region}'}
  - {path: cluster, dependsOn: [network]}
";

fn project(feature: &str) -> MemoryFs {
    MemoryFs::new()
        .with(
            "windsor.yaml",
            "contexts:\n  prod: {provider: aws, region: eu-west-1}\n  local: {provider: local}\n",
        )
        .with("contexts/_template/blueprint.yaml", BLUEPRINT)
        .with("contexts/_template/features/aws.yaml", feature)
}

/// Opens and renders `context`: the result's diagnostics and the
/// contributions, as `section id: sources`.
fn render(fs: MemoryFs, context: &str) -> (Vec<Diagnostic>, Option<Vec<String>>) {
    let settings = Settings {
        project_name: Some("shop".to_owned()),
    };
    let opened = Project::open(Arc::new(fs), Options::new(Limits::default(), settings));
    let mut diagnostics = opened.outcome.diagnostics;
    let project = opened.outcome.value.expect("a project");
    assert_eq!(project.name, "shop");
    let mut db = SourceDb::extending(opened.sources);
    let request = RenderRequest {
        context: context.to_owned(),
        sets: Vec::new(),
    };
    let rendered = project.render(&request, &mut db);
    diagnostics.extend(rendered.diagnostics);
    let contributions = rendered.value.map(|rendered| {
        // As Windsor, the composed blueprint is named after the context.
        assert_eq!(rendered.model.metadata.name, context);
        rendered
            .contributions()
            .into_iter()
            .map(|c| {
                let section = if c.section == Section::Terraform {
                    "terraform"
                } else {
                    "kustomize"
                };
                format!("{section} {}: {}", c.id, c.sources.join(", "))
            })
            .collect()
    });
    (diagnostics, contributions)
}

#[test]
fn a_feature_applies_where_its_condition_holds() {
    let (diagnostics, contributions) = render(project(FEATURE), "prod");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        contributions.unwrap(),
        [
            "terraform network: blueprint, aws",
            "terraform cluster: aws",
            "kustomize ingress: blueprint"
        ]
    );
    let (diagnostics, contributions) = render(project(FEATURE), "local");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(contributions.unwrap().len(), 2);
}

#[test]
fn a_broken_feature_and_an_unknown_context_are_reported_together() {
    let broken = FEATURE.replace("when:", "wen:");
    let (diagnostics, contributions) = render(project(&broken), "prd");
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["schema/unknown-key", "features/unknown-context"]);
    assert!(contributions.is_none());
}

/// A project made before templates (no `contexts/_template`) opens; each
/// context renders its own `blueprint.yaml`, as written, and a context
/// without one is an error.
#[test]
fn a_project_without_a_template_folder_renders_each_contexts_blueprint() {
    let fs = MemoryFs::new()
        .with("windsor.yaml", "contexts: {local: {}, aws: {}}\n")
        .with("contexts/local/blueprint.yaml", BLUEPRINT);
    let opened = Project::open(Arc::new(fs), Options::default());
    assert!(
        opened.outcome.diagnostics.is_empty(),
        "{:?}",
        opened.outcome.diagnostics
    );
    let project = opened.outcome.value.expect("a project");
    let mut db = SourceDb::extending(opened.sources);
    let render = |context: &str, db: &mut SourceDb| {
        let request = RenderRequest {
            context: context.to_owned(),
            sets: Vec::new(),
        };
        project.render(&request, db)
    };
    let local = render("local", &mut db).value.expect("a blueprint");
    assert_eq!(local.model.metadata.name, "base");
    let aws = render("aws", &mut db);
    assert!(aws.value.is_none());
    assert_eq!(aws.diagnostics[0].code, "features/no-context-blueprint");
}

/// `check` composes every context `windsor.yaml` names; a problem is noted
/// with the context it is in (here only `prod` applies the feature).
#[test]
fn check_composes_every_context() {
    let feature = FEATURE.replace("'${region}'", "'${region * 2}'");
    let opened = Project::open(
        Arc::new(project(&feature)),
        Options::new(Limits::default(), Settings::default()),
    );
    assert!(opened.outcome.diagnostics.is_empty());
    let project = opened.outcome.value.expect("a project");
    assert_eq!(
        project.context_names().collect::<Vec<_>>(),
        ["prod", "local"]
    );
    let mut db = SourceDb::extending(opened.sources);
    let problems = project.check(&mut db);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].notes, ["in context `prod`"]);
}

/// `Project::evaluate` sees what a feature's `when` sees: the context's
/// values and `--set`s, the context's name; a `${..}` text is
/// interpolated; a broken expression is reported at its character.
#[test]
fn an_expression_evaluates_as_the_contexts_features_see_it() {
    let opened = Project::open(
        Arc::new(project(FEATURE)),
        Options::new(Limits::default(), Settings::default()),
    );
    let project = opened.outcome.value.expect("a project");
    let mut db = SourceDb::extending(opened.sources);
    let request = RenderRequest {
        context: "prod".to_owned(),
        sets: vec![("region".to_owned(), "us-east-1".to_owned())],
    };
    let evaluate = |text: &str, db: &mut SourceDb| project.evaluate(&request, text, db);
    let applies = evaluate("provider == 'aws' && context == 'prod'", &mut db);
    assert!(matches!(
        applies.value.map(|node| node.value),
        Some(Value::Bool(true))
    ));
    let text = evaluate("vpc-${region}", &mut db).value.expect("a value");
    assert_eq!(text.as_str(), Some("vpc-us-east-1"));
    let broken = evaluate("provider ==", &mut db);
    assert!(broken.value.is_none());
    let record = broken.diagnostics[0].record(&db);
    assert_eq!(
        (record.code.as_str(), record.file.as_str(), record.column),
        ("cond/parse", "<expression>", 12)
    );
}

/// A context `windsor init` wrote in its own folder (`contexts/<name>/
/// windsor.yaml`) is a context like one in the root `windsor.yaml`: it is
/// listed, checked and rendered with its settings.
#[test]
fn a_context_may_live_in_its_own_folder() {
    let fs = project(FEATURE).with(
        "contexts/staging/windsor.yaml",
        "provider: aws\nregion: eu-central-1\n",
    );
    let opened = Project::open(
        Arc::new(fs),
        Options::new(Limits::default(), Settings::default()),
    );
    let project = opened.outcome.value.expect("a project");
    let names: Vec<&str> = project.context_names().collect();
    assert_eq!(names, ["prod", "local", "staging"]);
    let mut db = SourceDb::extending(opened.sources);
    let request = RenderRequest {
        context: "staging".to_owned(),
        sets: Vec::new(),
    };
    let region = project
        .evaluate(&request, "region", &mut db)
        .value
        .expect("a value");
    assert_eq!(region.as_str(), Some("eu-central-1"));
    assert!(project.check(&mut db).is_empty());
}

//! Change staging through the library: state files, actions, providers.
#![expect(
    clippy::unwrap_used,
    reason = "a test stops on a blueprint that does not resolve"
)]

use std::path::PathBuf;
use std::sync::Arc;

use strata_fs::MemoryFs;
use strata_spec::deploy::{Action, CoreProvider, Plan, ResourceProvider, graph, plan, read_state};
use strata_spec::{Dialect, Options, RenderRequest, Settings, Spec};
use strata_syntax::{Format, Limits, SourceDb, parse};

const BLUEPRINT: &str = r#"version: 2023-04-20
variables:
  name:
    type: string
    default: app
resources:
  config:
    type: core/file
    spec:
      path: /etc/${variables.name}.conf
      content: "port=8080"
  marker:
    type: core/value
    spec:
      value: ${resources.config.state.checksum}
"#;

fn staged(blueprint: &str, state: Option<&str>) -> (SourceDb, Option<Plan>, Vec<String>) {
    let files = Arc::new(MemoryFs::new().with("blueprint.yaml", blueprint));
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    let opened = Spec::open(files, Options::new(Limits::default(), settings));
    assert!(
        opened.outcome.diagnostics.is_empty(),
        "{:?}",
        opened.outcome.diagnostics
    );
    let spec = opened.outcome.value.unwrap();
    let mut db = SourceDb::extending(opened.sources);
    let resolved = spec
        .render(&RenderRequest::default(), &mut db)
        .value
        .unwrap();
    let graph = graph(spec.loaded().unwrap(), &resolved, &[]).value.unwrap();
    let mut problems: Vec<String> = Vec::new();
    let state = state.map(|text| {
        let id = db.add("state.json", text);
        let document = parse(&db, id, Format::Json, &Limits::default())
            .documents
            .remove(0);
        let read = read_state(&document);
        problems.extend(
            read.diagnostics
                .iter()
                .map(|d| d.record(&db).code.to_string()),
        );
        read.value
    });
    let providers: [Arc<dyn ResourceProvider>; 1] = [Arc::new(CoreProvider)];
    let outcome = plan(&resolved, &graph, state.flatten().as_ref(), &providers);
    problems.extend(
        outcome
            .diagnostics
            .iter()
            .map(|d| d.record(&db).code.to_string()),
    );
    (db, outcome.value, problems)
}

fn actions(plan: &Plan) -> Vec<(&str, Action)> {
    plan.resources
        .iter()
        .map(|resource| (resource.name.as_str(), resource.action))
        .collect()
}

#[test]
fn without_state_everything_is_created() {
    let (_, plan, problems) = staged(BLUEPRINT, None);
    assert!(problems.is_empty(), "{problems:?}");
    let plan = plan.unwrap();
    assert_eq!(
        actions(&plan),
        [("config", Action::Create), ("marker", Action::Create)]
    );
    let text = plan.to_text();
    assert!(
        text.contains("+ resources.config (core/file)\n    + path = \"/etc/app.conf\"\n"),
        "{text}"
    );
    assert!(
        text.contains("+ value = (known after deploy: resources.config.state.checksum)"),
        "{text}"
    );
    assert!(
        text.ends_with("Plan: 2 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged.\n")
    );
}

#[test]
fn updates_replacements_deletions_and_no_changes() {
    let state = r#"{"formatVersion": 1, "resources": {
        "config": {"type": "core/file", "spec": {"path": "/etc/app.conf", "content": "port=80"}},
        "old": {"type": "core/value", "spec": {"value": 1}}
    }}"#;
    let (_, plan, problems) = staged(BLUEPRINT, Some(state));
    assert!(problems.is_empty(), "{problems:?}");
    let plan = plan.unwrap();
    assert_eq!(
        actions(&plan),
        [
            ("config", Action::Update),
            ("marker", Action::Create),
            ("old", Action::Delete)
        ]
    );
    let change = &plan.resources[0].changes[0];
    assert_eq!(change.path.to_string(), "content");
    assert!(!change.forces_replacement);
    // The core provider replaces a file whose path changes.
    let moved = BLUEPRINT.replace("/etc/${variables.name}.conf", "/srv/app.conf");
    let (_, plan, _) = staged(&moved, Some(state));
    let config = &plan.unwrap().resources[0];
    assert_eq!(config.action, Action::Replace);
    assert_eq!(
        config.reason.as_deref(),
        Some("changing `path` needs a new resource")
    );
    // An unchanged resource.
    let same = r#"{"formatVersion": 1, "resources": {
        "config": {"type": "core/file", "spec": {"path": "/etc/app.conf", "content": "port=8080"}}
    }}"#;
    let (_, plan, _) = staged(BLUEPRINT, Some(same));
    assert_eq!(plan.unwrap().resources[0].action, Action::NoChange);
}

#[test]
fn a_changed_type_replaces() {
    let state = r#"{"formatVersion": 1, "resources": {
        "config": {"type": "core/value", "spec": {"value": 1}}
    }}"#;
    let (_, plan, _) = staged(BLUEPRINT, Some(state));
    let config = &plan.unwrap().resources[0];
    assert_eq!(config.action, Action::Replace);
    assert_eq!(
        config.reason.as_deref(),
        Some("its type changes from `core/value`")
    );
}

#[test]
fn providers_check_specs_and_unknown_formats_are_refused() {
    let broken = BLUEPRINT.replace("content: \"port=8080\"", "mode: 420");
    let (_, plan, problems) = staged(&broken, None);
    assert!(plan.is_none());
    assert_eq!(problems, ["spec/provider-spec"]);
    let (_, _, problems) = staged(BLUEPRINT, Some(r#"{"formatVersion": 7}"#));
    assert_eq!(problems, ["spec/state"]);
}

//! Deploys through the library: `${link(a, b)}` reads the fields a link
//! provider gave the link once both resources are deployed; the blueprint
//! is rendered again between groups only when something waits on a
//! deploy.
#![expect(
    clippy::expect_used,
    reason = "a test helper stops at the first surprise"
)]

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use indexmap::IndexMap;
use strata_fs::MemoryFs;
use strata_spec::deploy::{
    CoreProvider, Deployer, LinkKind, LinkProvider, Provider, Side, SqliteStore, StateStore as _,
};
use strata_spec::{Deployed, Dialect, Options, RenderRequest, Settings, Spec};
use strata_subst::Value;
use strata_syntax::Limits;

/// `wiring` reads the link from `function` to `table`, which only a
/// deploy makes.
const BLUEPRINT: &str = r#"version: 2023-04-20
resources:
  table:
    type: core/value
    metadata:
      labels: {app: orders}
    spec: {value: orders-table}
  function:
    type: core/value
    linkSelector:
      byLabel: {app: orders}
    spec: {value: handler}
  wiring:
    type: core/value
    spec:
      value: ${link("function", "table").envVar}
"#;

/// Links between `core/value` resources: hard, the one selected first,
/// with the environment variable a real provider would set.
struct Values;

impl LinkProvider for Values {
    fn link(&self, from: &str, to: &str) -> Option<LinkKind> {
        (from == "core/value" && to == "core/value").then_some(LinkKind::Hard { first: Side::To })
    }

    fn fields(&self, _: &str, _: &str) -> IndexMap<String, Value> {
        IndexMap::from([("envVar".to_owned(), Value::String("TABLE_NAME".into()))])
    }
}

/// The blueprint `text`, opened.
fn opened(text: &str) -> Spec {
    let files = Arc::new(MemoryFs::new().with("blueprint.yaml", text));
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    let opened = Spec::open(files, Options::new(Limits::default(), settings));
    opened.outcome.value.expect("the blueprint opens")
}

/// A deployer of instance `dev` into `store`, rolling back on failure.
fn deployer<'d>(store: &'d SqliteStore, providers: &'d [Arc<dyn Provider>]) -> Deployer<'d> {
    Deployer {
        store,
        providers,
        instance: "dev",
        deploy: "dev-1".to_owned(),
        rollback: true,
    }
}

#[test]
fn a_spec_reading_a_link_deploys_once_both_ends_are() {
    let spec = opened(BLUEPRINT);
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let store = SqliteStore::open(&scratch.path().join("state.db")).expect("a store");
    let providers: Vec<Arc<dyn Provider>> = vec![Arc::new(CoreProvider)];
    let links: [Arc<dyn LinkProvider>; 1] = [Arc::new(Values)];
    let deployer = deployer(&store, &providers);
    let request = RenderRequest::default();
    let mut render = |deployed: &Deployed| spec.render_deployed(&request, deployed, &links);
    let report = deployer.deploy(&mut render).expect("deployed");
    assert!(report.succeeded(), "{:?}", report.failed);
    let order: Vec<&str> = report
        .applied
        .iter()
        .map(|step| step.resource.as_str())
        .collect();
    assert_eq!(order, ["table", "function", "wiring"]);
    let state = store.load("dev").expect("the state");
    assert_eq!(state.resources["wiring"].spec["value"], "TABLE_NAME");
    assert_eq!(
        state.resources["function"].link_fields["table"]["envVar"],
        "TABLE_NAME"
    );
    let recorded = state.deployed();
    assert_eq!(
        recorded.links[&("function".to_owned(), "table".to_owned())]["envVar"],
        "TABLE_NAME"
    );
    // Deployed again: nothing changes, the link's fields read from the
    // state.
    let again = deployer.deploy(&mut render).expect("deployed again");
    assert!(again.applied.is_empty(), "{:?}", again.applied);
    assert!(!again.plan.has_changes());
}

/// A chain of `length` `core/value` resources, each reading the one
/// before: its spec (known before any deploy) or its state (known after).
fn chain(length: usize, reads: &str) -> String {
    let mut text = String::from("version: 2023-04-20\nresources:\n");
    for index in 0..length {
        let value = if index == 0 {
            "first".to_owned()
        } else {
            format!("${{resources.r{}.{reads}.value}}", index - 1)
        };
        let _ = write!(
            text,
            "  r{index}:\n    type: core/value\n    spec:\n      value: \"{value}\"\n"
        );
    }
    text
}

/// How many times deploying `blueprint` into a fresh store renders it.
fn renders_to_deploy(blueprint: &str) -> usize {
    let spec = opened(blueprint);
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let store = SqliteStore::open(&scratch.path().join("state.db")).expect("a store");
    let providers: Vec<Arc<dyn Provider>> = vec![Arc::new(CoreProvider)];
    let deployer = deployer(&store, &providers);
    let request = RenderRequest::default();
    let mut renders = 0;
    let mut render = |deployed: &Deployed| {
        renders += 1;
        spec.render_deployed(&request, deployed, &[])
    };
    let report = deployer.deploy(&mut render).expect("deployed");
    assert!(report.succeeded(), "{:?}", report.failed);
    let state = store.load("dev").expect("the state");
    assert_eq!(
        state.resources.len(),
        blueprint.matches("core/value").count()
    );
    renders
}

#[test]
fn a_chain_known_before_deploying_is_rendered_as_often_whatever_its_length() {
    // Each resource in its own group: reading another's spec orders them.
    let (short, long) = (
        renders_to_deploy(&chain(3, "spec")),
        renders_to_deploy(&chain(12, "spec")),
    );
    assert_eq!(short, long);
    // What waits on a deploy is rendered again after each group.
    let (short, long) = (
        renders_to_deploy(&chain(3, "state")),
        renders_to_deploy(&chain(12, "state")),
    );
    assert_eq!(long - short, 9, "{short} and {long} renders");
}

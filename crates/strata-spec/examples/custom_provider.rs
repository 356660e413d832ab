//! A library user's provider, deployed with Strata's deployer and its
//! `SQLite` state store:
//!
//! ```text
//! cargo run -p strata-spec --example custom_provider
//! ```
//!
//! The provider keeps `demo/counter` resources in a shared map (standing
//! in for an API): `create` stores the spec's `start`, `read` reads it
//! back, `update` changes it, `delete` forgets it. The blueprint's second
//! resource reads the first's state (`${resources.hits.state.id}`), which
//! the deployer knows once the first group is deployed.
#![expect(
    clippy::expect_used,
    clippy::print_stdout,
    reason = "an example stops at the first surprise and shows what it did"
)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value as Json, json};
use strata_fs::{Files, MemoryFs};
use strata_spec::deploy::{
    CoreProvider, Deployer, Live, Provider, ProviderError, ResourceProvider, SqliteStore,
    StateResource, StateStore as _,
};
use strata_spec::{Dialect as _, Options, RenderRequest, Settings, Spec};
use strata_subst::Value;
use strata_syntax::{FieldPath, Limits};

/// Counters by id: what the "API" holds.
#[derive(Default)]
struct Counters(Mutex<BTreeMap<String, i64>>);

impl ResourceProvider for Counters {
    fn handles(&self, resource_type: &str) -> bool {
        resource_type == "demo/counter"
    }

    fn check_spec(&self, _: &str, spec: &Value) -> Vec<(FieldPath, String)> {
        match spec {
            Value::Object(fields) if fields.contains_key("start") => Vec::new(),
            _ => vec![(FieldPath::root(), "a counter needs `start`".to_owned())],
        }
    }

    fn recreates(&self, _: &str, path: &FieldPath) -> bool {
        path.to_string() == "name"
    }
}

impl Provider for Counters {
    fn create(&self, _: &str, spec: &Json) -> Result<Json, ProviderError> {
        let id = format!("counter-{}", spec["name"].as_str().unwrap_or("anonymous"));
        let start = spec["start"].as_i64().unwrap_or_default();
        self.0.lock().expect("the map").insert(id.clone(), start);
        Ok(json!({"id": id, "value": start}))
    }

    fn read(&self, _: &str, recorded: &StateResource) -> Result<Live, ProviderError> {
        let id = recorded.state["id"].as_str().unwrap_or_default();
        Ok(match self.0.lock().expect("the map").get(id) {
            Some(value) => Live::Present {
                spec: json!({"name": recorded.spec["name"], "start": value}),
                state: json!({"id": id, "value": value}),
            },
            None => Live::Absent,
        })
    }

    fn update(&self, _: &str, before: &StateResource, spec: &Json) -> Result<Json, ProviderError> {
        let id = before.state["id"].as_str().unwrap_or_default().to_owned();
        let start = spec["start"].as_i64().unwrap_or_default();
        self.0.lock().expect("the map").insert(id.clone(), start);
        Ok(json!({"id": id, "value": start}))
    }

    fn delete(&self, _: &str, recorded: &StateResource) -> Result<(), ProviderError> {
        let id = recorded.state["id"].as_str().unwrap_or_default();
        self.0.lock().expect("the map").remove(id);
        Ok(())
    }
}

const BLUEPRINT: &str = "version: 2023-04-20
resources:
  hits:
    type: demo/counter
    spec: {name: hits, start: 10}
  label:
    type: core/value
    spec:
      value: counted by ${resources.hits.state.id}
";

fn main() {
    let files: Arc<dyn Files> = Arc::new(MemoryFs::new().with("blueprint.yaml", BLUEPRINT));
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    let opened = Spec::open(files, Options::new(Limits::default(), settings));
    let spec = opened.outcome.value.expect("the blueprint opens");
    let scratch = std::env::temp_dir().join(format!("strata-provider-{}", std::process::id()));
    let store = SqliteStore::open(&scratch.join("state.db")).expect("a store");
    let providers: Vec<Arc<dyn Provider>> =
        vec![Arc::new(Counters::default()), Arc::new(CoreProvider)];
    let deployer = Deployer {
        store: &store,
        providers: &providers,
        instance: "example",
        deploy: "example-1".to_owned(),
        rollback: true,
    };
    // The render the deployer calls before each group: with the states
    // recorded so far.
    let request = RenderRequest::default();
    let mut render =
        |deployed: &strata_spec::Deployed| spec.render_deployed(&request, deployed, &[]);
    let report = deployer.deploy(&mut render).expect("deployed");
    assert!(report.succeeded());
    print!("{}", report.plan.to_text());
    let state = store.load("example").expect("the state");
    println!("label = {}", state.resources["label"].spec["value"]);
    assert_eq!(
        state.resources["label"].spec["value"],
        "counted by counter-hits"
    );
    std::fs::remove_dir_all(scratch).expect("cleaned");
}

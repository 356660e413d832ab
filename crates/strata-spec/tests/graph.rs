//! Links by label, providers and the deployment order, through the library.
#![expect(
    clippy::unwrap_used,
    reason = "a test stops on a blueprint that does not resolve"
)]

use std::path::PathBuf;
use std::sync::Arc;

use strata_fs::MemoryFs;
use strata_spec::deploy::{Graph, LinkKind, LinkProvider, LinkState, Side, Why, graph};
use strata_spec::{Dialect, Options, RenderRequest, Settings, Spec};
use strata_syntax::{Limits, Outcome, SourceDb};

const BLUEPRINT: &str = r"version: 2023-04-20
resources:
  orders:
    type: aws/dynamodb/table
    metadata:
      labels: {app: orders, tier: data}
    spec:
      name: orders
  audit:
    type: aws/dynamodb/table
    metadata:
      labels: {app: orders}
    spec:
      name: audit
  api:
    type: aws/lambda/function
    linkSelector:
      byLabel: {app: orders, tier: data}
    spec:
      name: api
  workers:
    type: aws/lambda/function
    each: ${list(1, 2)}
    metadata:
      labels: {app: orders, tier: data}
    spec:
      queue: ${api.spec.name}-${elem}
";

/// Functions run after the tables they link to; queues link softly.
struct Aws;

impl LinkProvider for Aws {
    fn link(&self, from: &str, to: &str) -> Option<LinkKind> {
        match (from, to) {
            ("aws/lambda/function", "aws/dynamodb/table") => {
                Some(LinkKind::Hard { first: Side::To })
            }
            ("aws/lambda/function", "aws/lambda/function") => Some(LinkKind::Soft),
            _ => None,
        }
    }

    fn fields(&self, _: &str, to: &str) -> indexmap::IndexMap<String, strata_subst::Value> {
        let mut fields = indexmap::IndexMap::new();
        if to == "aws/dynamodb/table" {
            fields.insert(
                "policy".to_owned(),
                strata_subst::Value::String("dynamodb:*".into()),
            );
        }
        fields
    }
}

fn resolve(text: &str, providers: &[Arc<dyn LinkProvider>]) -> (SourceDb, Outcome<Graph>) {
    let files = Arc::new(MemoryFs::new().with("blueprint.yaml", text));
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
    let outcome = graph(spec.loaded().unwrap(), &resolved, providers);
    (db, outcome)
}

#[test]
fn selectors_need_every_label_and_providers_decide_the_kind() {
    let (_, outcome) = resolve(BLUEPRINT, &[Arc::new(Aws)]);
    let graph = outcome.value.unwrap();
    let links: Vec<(&str, &str, LinkState)> = graph
        .links
        .iter()
        .map(|link| (link.from.as_str(), link.to.as_str(), link.state))
        .collect();
    // `audit` lacks `tier: data`; each instance of `workers` is selected.
    assert_eq!(
        links,
        [
            ("api", "orders", LinkState::Hard(Side::To)),
            ("api", "workers_0", LinkState::Soft),
            ("api", "workers_1", LinkState::Soft),
        ]
    );
    // The hard link orders; the references of each instance order it after `api`.
    assert_eq!(
        graph.order.get(&("orders".into(), "api".into())),
        Some(&Why::Link)
    );
    assert_eq!(
        graph.order.get(&("api".into(), "workers_1".into())),
        Some(&Why::Reference)
    );
    assert_eq!(
        graph.groups,
        [
            vec!["audit", "orders"],
            vec!["api"],
            vec!["workers_0", "workers_1"]
        ]
    );
    assert!(
        graph
            .to_dot()
            .contains("\"orders\" -> \"api\" [label=\"hard link\"];")
    );
}

#[test]
fn without_a_provider_links_are_unchecked_and_order_nothing() {
    let (_, outcome) = resolve(BLUEPRINT, &[]);
    let graph = outcome.value.unwrap();
    assert!(
        graph
            .links
            .iter()
            .all(|link| link.state == LinkState::Unchecked)
    );
    assert!(graph.order.values().all(|why| *why == Why::Reference));
    assert_eq!(graph.groups[0], ["api", "audit", "orders"]);
}

#[test]
fn a_hard_link_against_the_references_is_a_cycle() {
    // `orders` reads `api`, and the hard link puts `orders` first.
    let text = BLUEPRINT.replace(
        "      name: orders\n",
        "      name: ${api.spec.name}-orders\n",
    );
    let (db, outcome) = resolve(&text, &[Arc::new(Aws)]);
    assert!(outcome.value.is_none());
    let record = outcome.diagnostics[0].record(&db);
    assert_eq!(record.code, "spec/order-cycle");
    assert_eq!(
        record.message,
        "the deployment order has a cycle: api → orders → api"
    );
}

//! The library API of the merge: custom strategies and provenance.
#![expect(clippy::unwrap_used, reason = "a test stops at the first surprise")]

use strata_merge::{Strategies, merge_layers};
use strata_syntax::emit::to_yaml;
use strata_syntax::{Format, LayerId, Limits, Node, SourceDb, Value, parse};

fn layers(db: &mut SourceDb, texts: &[&str]) -> Vec<Node> {
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let id = db.add(format!("layer{i}.yaml"), *text);
            let parsed = parse(db, id, Format::Yaml, &Limits::default());
            assert!(parsed.diagnostics.is_empty());
            parsed.documents.into_iter().next().unwrap()
        })
        .collect()
}

/// Merges YAML layers and checks the YAML result.
fn check(strategies: &Strategies, texts: &[&str], expect: &str) {
    let mut db = SourceDb::new();
    let merged = merge_layers(layers(&mut db, texts), strategies).unwrap();
    assert!(merged.diagnostics.is_empty(), "{:?}", merged.diagnostics);
    assert_eq!(to_yaml(&merged.root), expect);
}

#[test]
fn a_rust_function_is_a_strategy() {
    let mut strategies = Strategies::new();
    // Keep the upper items, then the lower ones: a "prepend".
    strategies
        .register_fn("args", "prepend", |_, lower, mut upper| {
            upper.extend(lower);
            upper
        })
        .unwrap();
    check(
        &strategies,
        &["args: [a, b]\n", "args: [c]\n"],
        "args:\n  - c\n  - a\n  - b\n",
    );
}

#[test]
fn custom_strategies_can_merge_items_and_report() {
    let mut strategies = Strategies::new();
    strategies
        .register_fn("pairs", "zip", |cx, lower, upper| {
            if lower.len() != upper.len() {
                let span = upper
                    .first()
                    .map_or_else(Default::default, |item| item.span);
                cx.report(span, "layers must have as many items");
                return lower;
            }
            lower
                .into_iter()
                .zip(upper)
                .map(|(below, above)| cx.merge(below, above))
                .collect()
        })
        .unwrap();
    check(
        &strategies,
        &["pairs: [{a: 1}, {b: 1}]\n", "pairs: [{c: 2}, {b: 2}]\n"],
        "pairs:\n  - a: 1\n    c: 2\n  - b: 2\n",
    );
    let mut db = SourceDb::new();
    let merged = merge_layers(
        layers(&mut db, &["pairs: [1]\n", "pairs: [1, 2]\n"]),
        &strategies,
    )
    .unwrap();
    assert_eq!(merged.diagnostics.len(), 1);
    assert_eq!(merged.diagnostics[0].code, "merge/strategy-failed");
    assert_eq!(
        merged.diagnostics[0].path.as_ref().unwrap().to_string(),
        "pairs"
    );
}

#[test]
fn every_node_knows_its_layer_and_span() {
    let mut db = SourceDb::new();
    let texts = [
        "a: 1\nlist: [x]\nmap: {k: v}\n",
        "a: 2\nlist: [y]\nmap: {j: w}\n",
    ];
    let merged = merge_layers(layers(&mut db, &texts), &Strategies::new()).unwrap();
    let root = merged.root;
    let a = root.get("a").unwrap();
    assert_eq!(a.layer, Some(LayerId(1)));
    assert_eq!(db.locate(a.span).0, "layer1.yaml");
    let list = root.get("list").unwrap().as_seq().unwrap();
    let layers: Vec<_> = list.iter().map(|item| item.layer).collect();
    assert_eq!(layers, [Some(LayerId(0)), Some(LayerId(1))]);
    let map = root.get("map").unwrap();
    assert_eq!(
        map.layer,
        Some(LayerId(0)),
        "a merged mapping keeps its first layer"
    );
    assert_eq!(map.get("j").unwrap().layer, Some(LayerId(1)));
    assert!(matches!(map.get("k").unwrap().value, Value::String(_)));
}

#[test]
fn no_layers_give_nothing() {
    assert!(merge_layers(Vec::new(), &Strategies::new()).is_none());
}

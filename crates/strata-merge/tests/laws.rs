//! Property tests for the laws the tree and the merge keep:
//! - rendering is stable: render(parse(render(x))) == render(x), in YAML;
//! - an empty upper (or lower) mapping is the identity of merge;
//! - merging is deterministic: the same layers give the same bytes;
//! - merge by key is idempotent on a layer merged with itself.
#![expect(clippy::unwrap_used, reason = "a test stops at the first surprise")]

use proptest::prelude::*;
use strata_merge::{Strategies, Strategy as MergeStrategy, merge};
use strata_syntax::emit::to_yaml;
use strata_syntax::{Format, Limits, Node, SourceDb, Span, Tag, Value, parse};

fn node(value: Value) -> Node {
    Node::new(value, Span::default())
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,8}",
        Just("yes".to_owned()),
        Just("<<".to_owned()),
        Just("- x".to_owned()),
        Just("a: b #c".to_owned()),
        Just("line\n  indented\n\n".to_owned()),
        Just("4Gi".to_owned()),
        any::<String>(),
    ]
}

fn tag() -> impl Strategy<Value = Option<Tag>> {
    prop_oneof![
        3 => Just(None),
        1 => prop::sample::select(vec!["!cel", "!include", "!custom-tag"]).prop_map(|t| Some(Tag::new(t))),
    ]
}

fn leaf() -> impl Strategy<Value = Node> {
    prop_oneof![
        Just(node(Value::Null)),
        any::<bool>().prop_map(|b| node(Value::Bool(b))),
        any::<i64>().prop_map(|i| node(Value::Int(i))),
        any::<f64>().prop_map(|f| node(Value::Float(f))),
        (text(), tag()).prop_map(|(s, tag)| node(Value::String(s)).with_tag(tag)),
    ]
}

fn tree() -> impl Strategy<Value = Node> {
    leaf().prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..5), tag())
                .prop_map(|(items, tag)| node(Value::Seq(items)).with_tag(tag)),
            (prop::collection::vec((text(), inner), 0..5), tag())
                .prop_map(|(entries, tag)| mapping(entries).with_tag(tag)),
        ]
    })
}

fn mapping_tree() -> impl Strategy<Value = Node> {
    prop::collection::vec(("[a-e]", tree()), 0..6).prop_map(mapping)
}

/// A mapping node of `entries`; a repeated key keeps its last value.
fn mapping(entries: Vec<(String, Node)>) -> Node {
    Node::mapping(entries)
}

fn reparse(yaml: &str) -> Node {
    let mut db = SourceDb::new();
    let id = db.add("rendered.yaml", yaml);
    let parsed = parse(&db, id, Format::Yaml, &Limits::default());
    assert!(
        parsed.diagnostics.is_empty(),
        "{yaml}\n{:?}",
        parsed.diagnostics
    );
    assert_eq!(parsed.documents.len(), 1, "{yaml}");
    parsed.documents.into_iter().next().unwrap()
}

fn empty_map() -> Node {
    mapping(Vec::new())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn rendering_round_trips(tree in tree()) {
        let once = to_yaml(&tree);
        let twice = to_yaml(&reparse(&once));
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn an_empty_layer_is_the_identity(tree in mapping_tree()) {
        let strategies = Strategies::new();
        let expected = to_yaml(&tree);
        let over = merge(tree.clone(), empty_map(), &strategies);
        prop_assert_eq!(to_yaml(&over.root), expected.clone());
        let under = merge(empty_map(), tree, &strategies);
        prop_assert_eq!(to_yaml(&under.root), expected);
    }

    #[test]
    fn merging_is_deterministic(lower in mapping_tree(), upper in mapping_tree()) {
        let mut strategies = Strategies::new();
        strategies.register("a", MergeStrategy::Union).unwrap();
        strategies.register("b.*", MergeStrategy::Replace).unwrap();
        let first = merge(lower.clone(), upper.clone(), &strategies);
        let second = merge(lower, upper, &strategies);
        prop_assert_eq!(to_yaml(&first.root), to_yaml(&second.root));
        prop_assert_eq!(first.diagnostics, second.diagnostics);
    }

    #[test]
    fn union_with_itself_changes_nothing(items in prop::collection::vec(leaf(), 0..8)) {
        let mut strategies = Strategies::new();
        strategies.register("items", MergeStrategy::Union).unwrap();
        let mut unique: Vec<Node> = Vec::new();
        for item in items {
            if !unique.iter().any(|seen| seen.same_content(&item)) {
                unique.push(item);
            }
        }
        let layer = mapping(vec![("items".to_owned(), node(Value::Seq(unique)))]);
        let merged = merge(layer.clone(), layer.clone(), &strategies);
        prop_assert_eq!(to_yaml(&merged.root), to_yaml(&layer));
    }
}

//! The tree is validated and deserialised in place; these properties hold
//! it to what its JSON form gives, so skipping the copy changes nothing:
//! - serde reads a tree as it reads the tree's JSON;
//! - a typed value written as a tree reads back as itself;
//! - the validator accepts a tree exactly when it accepts its JSON.
#![expect(clippy::unwrap_used, reason = "a test stops at the first surprise")]

use std::collections::BTreeMap;
use std::sync::LazyLock;

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strata_schema::{Decoder, from_node};
use strata_syntax::{Node, Segment, Span, Tag, Value};

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Service {
    name: String,
    replicas: Option<u32>,
    weight: f64,
    enabled: bool,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    ports: Vec<u16>,
    policy: Policy,
    source: Option<Source>,
    command: Option<Command>,
    limits: Option<Limits>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
enum Policy {
    Always,
    Never,
    Retry(u8),
    Backoff { base: i32, factor: f64 },
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Source {
    Git { url: String, depth: Option<u32> },
    Path { path: String },
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
enum Command {
    Line(String),
    Exec { args: Vec<String> },
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
struct Limits(Vec<(String, i64)>);

static DECODER: LazyLock<Decoder<Service>> = LazyLock::new(Decoder::new);

fn node(value: Value) -> Node {
    Node::new(value, Span::default())
}

fn leaf() -> impl Strategy<Value = Node> {
    let tag = prop_oneof![3 => Just(None), 1 => Just(Some(Tag::new("!cel")))];
    prop_oneof![
        Just(node(Value::Null)),
        any::<bool>().prop_map(|b| node(Value::Bool(b))),
        any::<i64>().prop_map(|i| node(Value::Int(i))),
        prop_oneof![Just(0u16), Just(80), Just(65535)].prop_map(|i| node(Value::Int(i.into()))),
        any::<f64>().prop_map(|f| node(Value::Float(f))),
        prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(1.5)]
            .prop_map(|f| node(Value::Float(f))),
        (
            prop_oneof![
                "[a-z]{0,6}",
                Just("Always".to_owned()),
                Just("git".to_owned())
            ],
            tag
        )
            .prop_map(|(s, tag)| node(Value::String(s)).with_tag(tag)),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "name", "replicas", "weight", "enabled", "labels", "ports", "policy", "source", "command",
        "limits", "kind", "url", "path", "args", "Retry", "Backoff", "base", "factor", "0", "x",
    ])
    .prop_map(str::to_owned)
}

fn tree() -> impl Strategy<Value = Node> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|items| node(Value::Seq(items))),
            prop::collection::vec((key(), inner), 0..6).prop_map(Node::mapping),
        ]
    })
}

fn service() -> impl Strategy<Value = Service> {
    let policy = prop_oneof![
        Just(Policy::Always),
        Just(Policy::Never),
        any::<u8>().prop_map(Policy::Retry),
        (any::<i32>(), -1e9f64..1e9).prop_map(|(base, factor)| Policy::Backoff { base, factor }),
    ];
    let source = prop::option::of(prop_oneof![
        ("[a-z]{1,5}", prop::option::of(any::<u32>()))
            .prop_map(|(url, depth)| Source::Git { url, depth }),
        "[a-z/]{1,5}".prop_map(|path| Source::Path { path }),
    ]);
    let command = prop::option::of(prop_oneof![
        "[a-z ]{0,5}".prop_map(Command::Line),
        prop::collection::vec("[a-z]{0,3}", 0..3).prop_map(|args| Command::Exec { args }),
    ]);
    let limits = prop::option::of(
        prop::collection::vec(("[a-z]{1,3}", any::<i64>()), 0..3).prop_map(Limits),
    );
    (
        (
            "[a-z]{0,8}",
            prop::option::of(any::<u32>()),
            -1e12f64..1e12,
            any::<bool>(),
        ),
        (
            prop::collection::btree_map("[a-z]{1,4}", "[a-z]{0,4}", 0..3),
            prop::collection::vec(any::<u16>(), 0..4),
            policy,
        ),
        (source, command, limits),
    )
        .prop_map(
            |(
                (name, replicas, weight, enabled),
                (labels, ports, policy),
                (source, command, limits),
            )| {
                Service {
                    name,
                    replicas,
                    weight,
                    enabled,
                    labels,
                    ports,
                    policy,
                    source,
                    command,
                    limits,
                }
            },
        )
}

/// The paths of every node below `node`.
fn paths(node: &Node, at: &mut Vec<Segment>, out: &mut Vec<Vec<Segment>>) {
    out.push(at.clone());
    match &node.value {
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                at.push(Segment::Index(index));
                paths(item, at, out);
                at.pop();
            }
        }
        Value::Map(map) => {
            for (key, entry) in map {
                at.push(Segment::Key(key.clone()));
                paths(&entry.value, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// A valid service's tree with one node replaced by a random one: close
/// enough to valid that the validator goes deep before it meets a problem.
fn near_service() -> impl Strategy<Value = Node> {
    (service(), tree(), any::<prop::sample::Index>()).prop_map(|(service, replacement, pick)| {
        let mut tree = Node::from_json_value(&serde_json::to_value(&service).unwrap());
        let mut all = Vec::new();
        paths(&tree, &mut Vec::new(), &mut all);
        if let Some(target) = tree.at_mut(&all[pick.index(all.len())]) {
            *target = replacement;
        }
        tree
    })
}

proptest! {
    #[test]
    fn serde_reads_a_tree_as_its_json(tree in prop_oneof![tree(), near_service()]) {
        let json = tree.to_json_value();
        prop_assert_eq!(from_node::<serde_json::Value>(&tree).unwrap(), json.clone());
        let direct = from_node::<Service>(&tree).ok();
        let through_json = serde_json::from_value::<Service>(json).ok();
        prop_assert_eq!(direct, through_json);
    }

    #[test]
    fn a_typed_value_reads_back_from_its_tree(service in service()) {
        let tree = Node::from_json_value(&serde_json::to_value(&service).unwrap());
        prop_assert!(DECODER.validate(&tree).is_empty());
        prop_assert_eq!(DECODER.decode(&tree).unwrap(), service);
    }

    #[test]
    fn the_validator_accepts_a_tree_exactly_when_it_accepts_its_json(
        tree in prop_oneof![tree(), near_service()]
    ) {
        let schema = DECODER.schema();
        let by_json = jsonschema::draft202012::is_valid(schema, &tree.to_json_value());
        prop_assert_eq!(DECODER.validate(&tree).is_empty(), by_json);
    }
}

//! A blueprint reopened from the one before (as the language server
//! reopens it after each change, parsing again only the entries an edit
//! touched, keeping the model of every resource whose entry is unchanged
//! and the check of every such resource that reads nothing changed) finds
//! exactly what a fresh opening finds, at the same places, and holds the
//! same tree, model and references, whatever the sequence of edits.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;
use strata_fs::{Files, MemoryFs};
use strata_spec::{Dialect, Opened, Options, Settings, Spec};
use strata_syntax::{Diagnostic, Limits};

/// The starting blueprint: resources referencing each other, values,
/// block scalars, comments and exports after the resources.
const BLUEPRINT: &str = r#"version: 2023-04-20
variables:
  region:
    type: string
    default: eu-west-1
values:
  prefix:
    type: string
    value: '${join(split(variables.region, "-"), "_")}-shop'
resources:
  # before `orders`, which it reads, and `mirror`, which reads `orders`
  alarm:
    type: aws/cloudwatch/alarm
    spec:
      alarmName: "${to_upper(resources.orders.spec.tableName)}-alarm"
  mirror:
    type: aws/s3/bucket
    spec:
      name: "${resources.orders.spec.tableName}"
  orders:
    type: aws/dynamodb/table
    metadata:
      labels:
        app: shop
    spec:
      tableName: "${values.prefix}-orders"
      script: |
        line one
        line two
  # the queue
  queue:
    type: aws/sqs/queue
    spec:
      queueName: "${resources.orders.spec.tableName}-queue"
  handler:
    type: aws/lambda/function
    linkSelector:
      byLabel:
        app: shop
    spec:
      env: {TABLE: "${resources.orders.spec.tableName}"}
exports:
  table:
    type: string
    field: resources.orders.spec.tableName
"#;

/// What an edit puts in place of what it removes: valid changes, broken
/// substitutions and references, new and renamed resources, and text that
/// breaks the YAML.
const PIECES: &[&str] = &[
    "x",
    "2",
    "y",
    "",
    "\n",
    "  ",
    "${",
    "}",
    "${resources.nosuch.spec.id}",
    "${values.prefix}",
    "\n  added:\n    type: aws/sqs/queue\n    spec:\n      queueName: \"${resources.queue.spec.queueName}\"\n",
    "\n  orders:\n    type: t\n",
    "    unknownKey: 1\n",
    "# note\n",
    ": ",
    "\"",
    "{",
    "&a ",
    "condition: \"${variables.region == 'x'}\"",
    "\nexports:\n",
    "each: \"${split(variables.region, \"-\")}\"\n    ",
];

fn files(text: &str) -> Arc<dyn Files> {
    Arc::new(MemoryFs::new().with("blueprint.yaml", text))
}

fn options() -> Options<Settings> {
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    Options::new(Limits::default(), settings).for_reopening()
}

/// Every diagnostic with its exact place, and the tree, model and
/// references opened.
fn said(opened: &Opened<Spec>) -> Vec<String> {
    let mut said: Vec<String> = opened
        .outcome
        .diagnostics
        .iter()
        .map(|d: &Diagnostic| {
            format!(
                "{} {} {:?} {:?} {:?} {:?}",
                d.code, d.message, d.primary.span, d.secondary, d.notes, d.path
            )
        })
        .collect();
    if let Some(loaded) = opened.outcome.value.as_ref().and_then(Spec::loaded) {
        said.push(format!("{:?}", loaded.tree));
        said.push(format!("{:?}", loaded.blueprint));
        said.push(format!("{:?}", loaded.references));
    }
    said
}

fn edited(text: &str, at: usize, removed: usize, inserted: &str) -> String {
    let at = at % (text.len() + 1);
    let end = (at + removed).min(text.len());
    format!("{}{inserted}{}", &text[..at], &text[end..])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn a_reopened_blueprint_finds_what_a_fresh_one_does(
        edits in prop::collection::vec((0..1000usize, prop_oneof![0..3usize, 0..12usize], 0..PIECES.len()), 1..8)
    ) {
        let mut text = BLUEPRINT.to_owned();
        let mut previous = Spec::open(files(&text), options());
        for (at, removed, piece) in edits {
            text = edited(&text, at, removed, PIECES[piece]);
            let fresh = Spec::open(files(&text), options());
            let reopened = match &previous.outcome.value {
                Some(spec) => spec.reopen(files(&text), options()),
                None => Spec::open(files(&text), options()),
            };
            prop_assert_eq!(said(&reopened), said(&fresh), "after an edit to:\n{}", text);
            previous = reopened;
        }
    }
}

/// `BLUEPRINT`, clean, with its first `from` replaced by `to`, opened
/// fresh and reopened from it: the two must find and hold the same. The
/// fresh opening is given back, with the text edited.
fn reopened_as_fresh(from: &str, to: &str) -> (Opened<Spec>, String) {
    let previous = Spec::open(files(BLUEPRINT), options());
    assert!(
        previous.outcome.diagnostics.is_empty(),
        "{:?}",
        previous.outcome.diagnostics
    );
    let text = BLUEPRINT.replacen(from, to, 1);
    assert_ne!(text, BLUEPRINT, "`{from}` is in the blueprint");
    let fresh = Spec::open(files(&text), options());
    let reopened = previous
        .outcome
        .value
        .as_ref()
        .map(|spec| spec.reopen(files(&text), options()))
        .expect("the blueprint opens");
    assert_eq!(said(&reopened), said(&fresh));
    (fresh, text)
}

/// Whether `opened` reports a problem starting within `width` bytes of
/// the first `field` written in `text`.
fn reported_at(opened: &Opened<Spec>, text: &str, field: &str, width: usize) -> bool {
    let at = text.find(field).expect("the field is written");
    opened.outcome.diagnostics.iter().any(|d| {
        let start = d.primary.span.start as usize;
        (at..at + width).contains(&start)
    })
}

/// An edit inside a resource is reparsed there (its line moves the
/// resources after it), and the diagnostics point where a fresh opening's
/// do.
#[test]
fn an_edit_in_a_resource_points_where_a_fresh_opening_does() {
    let (fresh, _) = reopened_as_fresh(
        "    type: aws/sqs/queue\n",
        "    type: aws/sqs/queue\n    unknownKey: 1\n",
    );
    assert!(
        fresh
            .outcome
            .diagnostics
            .iter()
            .any(|d| d.message.contains("unknownKey")),
        "{:?}",
        fresh.outcome.diagnostics
    );
}

/// A resource before the edit whose entry is unchanged keeps its check
/// only when nothing it reads changed: once `orders` gives a mapping,
/// `alarm`, before it, is checked again and reports its `to_upper` given
/// one.
#[test]
fn a_change_reaches_the_resources_that_read_it() {
    let (fresh, text) = reopened_as_fresh(
        r#"tableName: "${values.prefix}-orders""#,
        "tableName: {nested: 1}",
    );
    assert!(
        reported_at(&fresh, &text, "alarmName", 60),
        "{:?}",
        fresh.outcome.diagnostics
    );
}

/// An edit to an element other than a resource that moves nothing (a
/// value's declared type, the same length) reaches the resources that read
/// it, though their entries are kept: `orders` interpolates `prefix`.
#[test]
fn a_changed_value_reaches_the_resources_that_read_it() {
    let (from, to) = ("  prefix:\n    type: string", "  prefix:\n    type: object");
    assert_eq!(from.len(), to.len());
    let (fresh, text) = reopened_as_fresh(from, to);
    assert!(
        reported_at(&fresh, &text, "tableName: \"", 40),
        "{:?}",
        fresh.outcome.diagnostics
    );
}

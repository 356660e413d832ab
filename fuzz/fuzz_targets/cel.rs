//! Fuzzes CEL: arbitrary bytes, read lossily as UTF-8, are a `!cel`
//! expression compiled and evaluated against a small scope. Whatever the
//! text, the engine must answer with a value or diagnostics: no panic, no
//! abort (a stack overflow is an abort), no hang past libFuzzer's timeout.
//!
//! Run from this directory with `cargo fuzz run cel` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use strata_cel::{CelOptions, Programs, Scope};
use strata_syntax::{Node, Span, Tag, Value};

/// One cache for every input, as a catalogue keeps one for every render.
static PROGRAMS: LazyLock<Programs> = LazyLock::new(|| Programs::new(CelOptions::default()));

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let user = Node::mapping([
        (
            "username",
            Node::new(Value::String("ada".to_owned()), Span::default()),
        ),
        ("uid", Node::new(Value::Int(1000), Span::default())),
        (
            "roles",
            Node::new(
                Value::Seq(vec![Node::new(
                    Value::String("dev".to_owned()),
                    Span::default(),
                )]),
                Span::default(),
            ),
        ),
    ]);
    let scope = Scope::new().with("user", &user);
    let expression =
        Node::new(Value::String(text), Span::default()).with_tag(Some(Tag::new("!cel")));
    let tree = Node::mapping([("value", expression)]);
    let (evaluated, diagnostics) = PROGRAMS.evaluate_tree(tree, &scope);
    // A failed expression is kept as it was; a good one replaced by its value.
    let value = evaluated.get("value").expect("the key stays");
    assert_eq!(diagnostics.is_empty(), value.tag.is_none());
});

//! Fuzzes the merge engine with structure: two to four layers (mappings,
//! sequences and scalars, tags included, keys from a small set so layers
//! meet) and a registry of strategies at paths those keys spell, all drawn
//! from the input by `arbitrary`. Merging must not panic, must be
//! deterministic (the same layers give the same bytes and diagnostics), and
//! an empty mapping over or under a mapping changes nothing.
//!
//! Run from this directory with `cargo fuzz run merge` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use strata_merge::{Strategies, Strategy, merge, merge_layers};
use strata_syntax::emit::to_yaml;
use strata_syntax::{Node, Span, Tag, Value};

const KEYS: [&str; 6] = ["name", "items", "env", "a", "b", "c"];
const TAGS: [&str; 3] = ["!cel", "!include", "!custom"];

fn key(u: &mut Unstructured<'_>) -> Result<&'static str> {
    u.choose(&KEYS).copied()
}

fn node(u: &mut Unstructured<'_>, depth: u32) -> Result<Node> {
    let value = match u.int_in_range(0..=if depth == 0 { 4 } else { 6 })? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::Int(u.arbitrary()?),
        3 => Value::Float(u.arbitrary()?),
        4 => Value::String(if u.arbitrary()? {
            key(u)?.to_owned()
        } else {
            u.arbitrary()?
        }),
        5 => {
            let mut items = Vec::new();
            for _ in 0..u.int_in_range(0..=4)? {
                items.push(node(u, depth - 1)?);
            }
            Value::Seq(items)
        }
        _ => return mapping(u, depth - 1),
    };
    let tag = if u.ratio(1, 8)? {
        Some(Tag::new(u.choose(&TAGS)?))
    } else {
        None
    };
    Ok(Node::new(value, Span::default()).with_tag(tag))
}

fn mapping(u: &mut Unstructured<'_>, depth: u32) -> Result<Node> {
    let mut entries = Vec::new();
    for _ in 0..u.int_in_range(0..=5)? {
        entries.push((key(u)?, node(u, depth)?));
    }
    Ok(Node::mapping(entries))
}

fn strategy(u: &mut Unstructured<'_>) -> Result<Strategy> {
    Ok(match u.int_in_range(0..=4)? {
        0 => Strategy::Append,
        1 => Strategy::Replace,
        2 => Strategy::Union,
        3 => Strategy::MergeByKey(key(u)?.to_owned()),
        _ => Strategy::ReplaceByKey(key(u)?.to_owned()),
    })
}

fn strategies(u: &mut Unstructured<'_>) -> Result<Strategies> {
    let mut strategies = if u.arbitrary()? {
        Strategies::new()
    } else {
        Strategies::with_fallback(strategy(u)?)
    };
    for _ in 0..u.int_in_range(0..=4)? {
        let mut pattern = key(u)?.to_owned();
        for _ in 0..u.int_in_range(0..=2)? {
            pattern.push('.');
            pattern.push_str(if u.ratio(1, 4)? { "*" } else { key(u)? });
        }
        // A pattern the registry refuses is a reported error, not a finding.
        let _ = strategies.register(&pattern, strategy(u)?);
    }
    Ok(strategies)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(strategies) = strategies(&mut u) else {
        return;
    };
    let mut layers = Vec::new();
    for _ in 0..u.int_in_range(2..=4).unwrap_or(2) {
        match mapping(&mut u, 4) {
            Ok(layer) => layers.push(layer),
            Err(_) => break,
        }
    }
    let Some(first) = merge_layers(layers.clone(), &strategies) else {
        return;
    };
    let second = merge_layers(layers.clone(), &strategies).expect("the same layers merge again");
    assert_eq!(
        to_yaml(&first.root),
        to_yaml(&second.root),
        "merging is deterministic"
    );
    assert_eq!(first.diagnostics, second.diagnostics, "so are its problems");

    let empty = Node::mapping(Vec::<(String, Node)>::new());
    let lower = layers.swap_remove(0);
    let expected = to_yaml(&lower);
    let over = merge(lower.clone(), empty.clone(), &strategies);
    assert_eq!(
        to_yaml(&over.root),
        expected,
        "an empty layer over changes nothing"
    );
    let under = merge(empty, lower, &strategies);
    assert_eq!(
        to_yaml(&under.root),
        expected,
        "an empty layer under changes nothing"
    );
});

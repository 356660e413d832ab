//! Arrays and mappings: building them, their keys and values, and the
//! higher-order functions.

use indexmap::IndexMap;
use serde_json::json;
use strata_subst::{Value, codes};

use super::{EVAL, at, eval, fails, gives, gives_json, s, strings};

#[test]
fn list() {
    gives(r#"${list("a", "b")}"#, &strings(&["a", "b"]));
    gives("${list()}", &Value::Array(vec![]));
    gives(
        "${list(1, 2.5)}",
        &Value::Array(vec![Value::Int(1), Value::Float(2.5)]),
    );
    gives_json(r#"${list(list("a"), list(1))}"#, &json!([["a"], [1]]));
    gives_json("${list(object(a = 1), object())}", &json!([{"a": 1}, {}]));
    let text = r#"${list("a", "b", 1)}"#;
    fails(
        text,
        EVAL,
        at(text, "1"),
        "`list` takes items of one type: the first is string, item 3 is integer",
    );
    fails(
        "${list(true, 1)}",
        EVAL,
        13..14,
        "`list` takes items of one type: the first is boolean, item 2 is integer",
    );
    // A function is not an item.
    fails(
        r#"${list(split_g(","))}"#,
        EVAL,
        7..19,
        "argument 1 (`item`) of `list` must be any value, found function",
    );
}

#[test]
fn object() {
    gives_json(r#"${object(a = 1, b = "x")}"#, &json!({"a": 1, "b": "x"}));
    gives("${keys(object(b = 1, a = 2))}", &strings(&["b", "a"]));
    gives("${object()}", &Value::Object(IndexMap::new()));
    gives("${object(a = 1).a}", &Value::Int(1));
    gives_json(
        "${object(list = list(1), nested = object(k = true))}",
        &json!({"list": [1], "nested": {"k": true}}),
    );
    fails(
        r#"${object("x")}"#,
        codes::NAMED_ARGUMENT,
        9..12,
        "`object` takes named arguments only: `object(name = value)`",
    );
    fails(
        "${object(a = 1, a = 2)}",
        codes::NAMED_ARGUMENT,
        16..17,
        "the argument `a` is given twice",
    );
}

#[test]
fn named_arguments_only_for_object() {
    fails(
        "${cwd(x = 1)}",
        codes::NAMED_ARGUMENT,
        6..7,
        "`cwd` takes no named arguments: only `object` does",
    );
    // Refused before the argument is evaluated.
    fails(
        "${len(value = values.later)}",
        codes::NAMED_ARGUMENT,
        6..11,
        "`len` takes no named arguments: only `object` does",
    );
}

#[test]
fn keys_and_vals_keep_the_order() {
    gives(
        r#"${keys(jsondecode("{\"z\":1,\"a\":2,\"m\":3}"))}"#,
        &strings(&["z", "a", "m"]),
    );
    gives_json(
        r#"${vals(jsondecode("{\"z\":1,\"a\":[2],\"m\":null}"))}"#,
        &json!([1, [2], null]),
    );
    gives("${keys(values.cfg)}", &strings(&["name", "size", "tags"]));
    gives_json("${vals(values.cfg)}", &json!(["orders", 3, ["x", "y"]]));
    gives("${keys(object())}", &Value::Array(vec![]));
    fails(
        r#"${keys("x")}"#,
        EVAL,
        7..10,
        "argument 1 (`mapping`) of `keys` must be object, found string",
    );
    fails(
        r#"${vals(list("x"))}"#,
        EVAL,
        7..16,
        "argument 1 (`mapping`) of `vals` must be object, found array",
    );
}

// ---------------------------------------------------------------------------
// Higher-order functions

#[test]
fn map() {
    gives(r#"${map(split("a, b", ","), trim)}"#, &strings(&["a", "b"]));
    gives("${map(list(), trim)}", &Value::Array(vec![]));
    // A function of two parameters gets the item and its index.
    gives(
        r#"${map(list("abc", "xyz", "uvw"), substr)}"#,
        &strings(&["abc", "yz", "w"]),
    );
    // Core functions are given as many arguments as they take: `trim`
    // gets the item alone.
    gives(r#"${map(list(" a "), trim)[0]}"#, &s("a"));
    let text = "${map(list(1), trim)}";
    fails(
        text,
        EVAL,
        at(text, "trim"),
        "trim failed on item 0: argument 1 (`text`) of `trim` must be string, found integer",
    );
    let text = r#"${map(list("a"), nosuch)}"#;
    fails(
        text,
        codes::UNKNOWN_FUNCTION,
        at(text, "nosuch"),
        "there is no function `nosuch`",
    );
    let text = r#"${map(list("a"), "x")}"#;
    fails(
        text,
        EVAL,
        at(text, r#""x""#),
        "argument 2 (`function`) of `map` must be function, found string",
    );
    // `list` takes any number of arguments, so `map` gives it the item and
    // its index, of different types, and the call fails (as the
    // specification's `list` of one type requires).
    let text = r#"${map(list("a"), list)}"#;
    fails(
        text,
        EVAL,
        at(text, "list)").start..at(text, "list)").end - 1,
        "list failed on item 0: `list` takes items of one type: the first is string, item 2 is integer",
    );
}

#[test]
fn filter() {
    gives_json("${filter(list(true, false, true), not)}", &json!([false]));
    gives(
        r#"${filter(list("a", "", "b"), has_prefix_g(""))}"#,
        &strings(&["a", "", "b"]),
    );
    gives("${filter(list(), not)}", &Value::Array(vec![]));
    let text = r#"${filter(list("a"), trim)}"#;
    fails(
        text,
        EVAL,
        at(text, "trim"),
        "the function given to `filter` must give a boolean, it gave string for item 0",
    );
}

#[test]
fn reduce() {
    gives(r#"${reduce(list("a", "b"), trimprefix, "abc")}"#, &s("c"));
    gives(
        "${reduce(list(true, true, false), and, true)}",
        &Value::Bool(false),
    );
    gives("${reduce(list(true, true), and, true)}", &Value::Bool(true));
    gives(
        "${reduce(list(false, true), or, false)}",
        &Value::Bool(true),
    );
    gives("${reduce(list(), and, 7)}", &Value::Int(7));
    let text = "${reduce(list(1), and, true)}";
    fails(
        text,
        EVAL,
        at(text, "and"),
        "and failed on item 0: argument 2 (`b`) of `and` must be boolean, found integer",
    );
}

#[test]
fn sort() {
    // `last_index(a, b)` on runs of one letter is the difference of their
    // lengths when `a` is the longer, -1 otherwise: a total order.
    gives(
        r#"${sort(split("aaa,a,aaaa,aa", ","), last_index)}"#,
        &strings(&["a", "aa", "aaa", "aaaa"]),
    );
    // `index(a, b)` is positive when `b` ends within `a`: a merge sort
    // puts "c" before "bc" before "abc".
    gives(
        r#"${sort(list("abc", "c", "bc"), index)}"#,
        &strings(&["c", "bc", "abc"]),
    );
    // Stable: items that compare equal keep their order.
    gives(
        r#"${sort(list("b", "a", "b"), index)}"#,
        &strings(&["b", "a", "b"]),
    );
    gives("${sort(list(), index)}", &Value::Array(vec![]));
    // One item: nothing to compare.
    gives(
        "${sort(list(1), index)}",
        &Value::Array(vec![Value::Int(1)]),
    );
    let text = r#"${sort(list("b", "a"), has_prefix)}"#;
    fails(
        text,
        EVAL,
        at(text, "has_prefix"),
        "the comparator given to `sort` must give an integer, it gave boolean",
    );
    let text = "${sort(list(1, 2), index)}";
    fails(
        text,
        EVAL,
        at(text, "index"),
        "index failed comparing two items: argument 1 (`text`) of `index` must be string, found integer",
    );
}

#[test]
fn sort_takes_comparators_that_are_not_an_order() {
    // `index` is no total order on these; the standard library's sort
    // panicked on them ("user-provided comparison function does not
    // correctly implement a total order").
    let items = "ba,,,a,,a,a,,a,aa,a,b,ab,,aa,,a,b,,bb,";
    let text = format!(r#"${{sort(split("{items}", ","), index)}}"#);
    let Value::Array(sorted) = eval(&text) else {
        panic!("not an array");
    };
    let mut sorted: Vec<String> = sorted
        .into_iter()
        .map(|item| match item {
            Value::String(text) => text,
            other => panic!("{other:?}"),
        })
        .collect();
    let mut expected: Vec<String> = items.split(',').map(str::to_owned).collect();
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected);
}

#[test]
fn flatmap() {
    gives(
        r#"${flatmap(list("a,b", "c"), split_g(","))}"#,
        &strings(&["a", "b", "c"]),
    );
    gives(r#"${flatmap(list(), split_g(","))}"#, &Value::Array(vec![]));
    gives_json(
        r#"${flatmap(jsondecode("[[[1], 2], [[3]]]"), getelem(0))}"#,
        &json!([1, 3]),
    );
    let text = r#"${flatmap(list("a"), trim)}"#;
    fails(
        text,
        EVAL,
        at(text, "trim"),
        "the function given to `flatmap` must give an array, it gave string for item 0",
    );
    // `split` takes two parameters: the item and its index, not a string.
    let text = r#"${flatmap(list("a"), split)}"#;
    fails(
        text,
        EVAL,
        at(text, "split"),
        "split failed on item 0: argument 2 (`delimiter`) of `split` must be string, found integer",
    );
}

//! The 50 core functions, evaluated through `parse_template` and
//! `evaluate` against a small environment (fixed working directory, fixed
//! clock), then the static checks of calls through `check_template`.
#![expect(clippy::panic, reason = "a test stops at the first surprise")]

use std::ops::Range;

use indexmap::IndexMap;
use serde_json::json;
use strata_subst::codes;
use strata_subst::functions;
use strata_subst::{Env, Failure, Lookup, Reference, SubstError, Value, evaluate, parse_template};

/// Evaluation without a step limit: these tests bound values, not work.
static UNLIMITED: strata_subst::Steps = strata_subst::Steps::new(u64::MAX);

// ---------------------------------------------------------------------------
// The environment

/// 2023-11-14T22:13:20Z.
#[path = "functions/checks.rs"]
mod checks;
#[path = "functions/collections.rs"]
mod collections;
#[path = "functions/values.rs"]
mod values;

const NOW: i64 = 1_700_000_000;

struct TestEnv {
    now: i64,
    cwd: Result<String, String>,
    link: Option<Lookup>,
}

const ENV: TestEnv = TestEnv {
    now: NOW,
    cwd: Ok(String::new()),
    link: None,
};

fn from_json(json: &serde_json::Value) -> Value {
    Value::from_json(json)
}

fn object_of(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect::<IndexMap<_, _>>(),
    )
}

fn resource(name: &str) -> Value {
    object_of(vec![
        ("spec", from_json(&json!({"name": name, "size": 2}))),
        ("metadata", from_json(&json!({"displayName": "Orders"}))),
        (
            "state",
            Value::Unknown(format!("resources.{name}.state").into()),
        ),
    ])
}

impl Env for TestEnv {
    fn reference(&self, reference: &Reference) -> Lookup {
        let known = |json: serde_json::Value| Lookup::Known(from_json(&json));
        match reference {
            Reference::Variable { name } => match name.text.as_str() {
                "region" => known(json!("eu-west-1")),
                "count" => known(json!(3)),
                "ratio" => known(json!(0.5)),
                "debug" => known(json!(true)),
                "config" => known(json!(r#"{"host":"h","ports":[80,443]}"#)),
                "later" => Lookup::Pending,
                other => Lookup::Missing(format!("there is no variable `{other}`")),
            },
            Reference::Value { name, .. } => match name.text.as_str() {
                "hosts" => known(json!(["a.example", " b.example "])),
                "cfg" => known(json!({"name": "orders", "size": 3, "tags": ["x", "y"]})),
                "text" => known(json!("héllo")),
                "later" => Lookup::Pending,
                "mixed" => Lookup::Known(object_of(vec![
                    ("a", Value::Int(1)),
                    ("b", Value::Unknown("resources.orders.state.id".into())),
                ])),
                other => Lookup::Missing(format!("there is no value `{other}`")),
            },
            Reference::Datasource { name, field, .. } => {
                match (name.text.as_str(), field.text.as_str()) {
                    ("network", "subnets") => known(json!(["s1", "s2"])),
                    ("network", "vpc") => known(json!("vpc-1")),
                    _ => Lookup::Missing("no such data source field".into()),
                }
            }
            Reference::Child { name, .. } if name.text == "core" => {
                known(json!({"topic": {"arn": "arn:1"}}))
            }
            Reference::Child { .. } => Lookup::Missing("no such child".into()),
            Reference::Resource { name, .. } => match name.text.as_str() {
                "orders" | "queue" => Lookup::Known(resource(&name.text)),
                "queues" => Lookup::Known(Value::Array(vec![resource("q0"), resource("q1")])),
                other => Lookup::Missing(format!("there is no resource `{other}`")),
            },
            Reference::Elem { .. } => known(json!({"config": {"attrs": [7]}})),
            Reference::ElemIndex => known(json!(2)),
        }
    }

    fn link(&self, from: &str, to: &str) -> Lookup {
        let _ = (from, to);
        self.link.clone().unwrap_or(Lookup::Pending)
    }

    fn steps(&self) -> &strata_subst::Steps {
        &UNLIMITED
    }

    fn cwd(&self) -> Result<String, String> {
        match &self.cwd {
            Ok(dir) if dir.is_empty() => Ok("/work/project".into()),
            other => other.clone(),
        }
    }

    fn now_unix(&self) -> i64 {
        self.now
    }
}

/// An environment that leaves `link` to the trait's default.
struct Plain;

impl Env for Plain {
    fn reference(&self, reference: &Reference) -> Lookup {
        ENV.reference(reference)
    }
    fn steps(&self) -> &strata_subst::Steps {
        &UNLIMITED
    }

    fn cwd(&self) -> Result<String, String> {
        ENV.cwd()
    }
    fn now_unix(&self) -> i64 {
        NOW
    }
}

// ---------------------------------------------------------------------------
// Helpers

fn run_in(env: &dyn Env, text: &str) -> Result<Value, Failure> {
    let template = parse_template(text).unwrap_or_else(|errors| panic!("`{text}`: {errors:?}"));
    evaluate(&template, env)
}

fn eval_in(env: &dyn Env, text: &str) -> Value {
    run_in(env, text).unwrap_or_else(|failure| panic!("`{text}`: {failure:?}"))
}

/// The value of `text` in [`ENV`].
fn eval(text: &str) -> Value {
    eval_in(&ENV, text)
}

#[track_caller]
fn gives(text: &str, expected: &Value) {
    assert_eq!(&eval(text), expected, "`{text}`");
}

#[track_caller]
fn gives_json(text: &str, expected: &serde_json::Value) {
    gives(text, &from_json(expected));
}

fn error_in(env: &dyn Env, text: &str) -> SubstError {
    match run_in(env, text) {
        Err(Failure::Error(error)) => error,
        other => panic!("`{text}` gives {other:?}"),
    }
}

/// `text` fails with `code` at `range`, saying `message`.
#[track_caller]
fn fails(text: &str, code: strata_syntax::Code, range: Range<usize>, message: &str) {
    let error = error_in(&ENV, text);
    assert_eq!(
        (error.code, error.range, error.message.as_str()),
        (code, range, message),
        "`{text}`"
    );
}

/// `text` fails with `code` at `range`; the message is returned.
#[track_caller]
fn fails_at(text: &str, code: strata_syntax::Code, range: Range<usize>) -> String {
    let error = error_in(&ENV, text);
    assert_eq!((error.code, error.range), (code, range), "`{text}`");
    error.message
}

/// `text` is known only after deployment, waiting on `what`.
#[track_caller]
fn pending(text: &str, what: &str) {
    pending_in(&ENV, text, what);
}

#[track_caller]
fn pending_in(env: &dyn Env, text: &str, what: &str) {
    match run_in(env, text) {
        Err(Failure::Pending(found)) => assert_eq!(&*found, what, "`{text}`"),
        other => panic!("`{text}` gives {other:?}"),
    }
}

/// The range of the one occurrence of `needle` in `text`.
fn at(text: &str, needle: &str) -> Range<usize> {
    let start = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` is not in `{text}`"));
    assert_eq!(
        text.rfind(needle),
        Some(start),
        "`{needle}` twice in `{text}`"
    );
    start..start + needle.len()
}

fn s(text: &str) -> Value {
    Value::String(text.into())
}

fn strings(items: &[&str]) -> Value {
    Value::Array(items.iter().map(|item| s(item)).collect())
}

const EVAL: strata_syntax::Code = codes::EVAL;

// ---------------------------------------------------------------------------
// The table

#[test]
fn the_fifty_functions_of_the_specification() {
    let names: Vec<&str> = functions::all().iter().map(|def| def.name).collect();
    assert_eq!(
        names,
        [
            "fromjson",
            "fromjson_g",
            "jsondecode",
            "len",
            "substr",
            "substr_g",
            "replace",
            "replace_g",
            "trim",
            "trimprefix",
            "trimprefix_g",
            "trimsuffix",
            "trimsuffix_g",
            "split",
            "split_g",
            "join",
            "index",
            "last_index",
            "to_upper",
            "to_lower",
            "has_prefix",
            "has_prefix_g",
            "has_suffix",
            "has_suffix_g",
            "contains",
            "contains_g",
            "list",
            "object",
            "keys",
            "vals",
            "map",
            "filter",
            "reduce",
            "sort",
            "flatmap",
            "compose",
            "pipe",
            "getattr",
            "getelem",
            "link",
            "and",
            "or",
            "not",
            "eq",
            "gt",
            "ge",
            "lt",
            "le",
            "cwd",
            "datetime",
        ]
    );
    for def in functions::all() {
        assert!(
            functions::lookup(def.name).is_some_and(|found| found.name == def.name),
            "{}",
            def.name
        );
        assert!(!def.summary.is_empty(), "{}", def.name);
        assert!(def.signature().starts_with(def.name), "{}", def.name);
    }
    assert!(functions::lookup("nope").is_none());
    let substr = functions::lookup("substr").map(strata_subst::Def::signature);
    assert_eq!(
        substr.as_deref(),
        Some("substr(text: string, start: integer, end?: integer) -> string")
    );
    let list = functions::lookup("list").map(strata_subst::Def::signature);
    assert_eq!(list.as_deref(), Some("list(item...: any value) -> array"));
    let object = functions::lookup("object").map(strata_subst::Def::signature);
    assert_eq!(object.as_deref(), Some("object(name = value...) -> object"));
}

// ---------------------------------------------------------------------------
// JSON

#[test]
fn fromjson_reads_at_a_pointer() {
    let doc = r#"{\"a\":{\"b\":[10,20]},\"a b\":1,\"a/b\":2,\"a~b\":3}"#;
    gives(
        &format!(r#"${{fromjson("{doc}", "/a/b/1")}}"#),
        &Value::Int(20),
    );
    // URI-fragment form, percent-decoded.
    gives(
        &format!(r##"${{fromjson("{doc}", "#/a/b/0")}}"##),
        &Value::Int(10),
    );
    gives(
        &format!(r##"${{fromjson("{doc}", "#/a%20b")}}"##),
        &Value::Int(1),
    );
    // `~1` is `/`, `~0` is `~`.
    gives(
        &format!(r#"${{fromjson("{doc}", "/a~1b")}}"#),
        &Value::Int(2),
    );
    gives(
        &format!(r##"${{fromjson("{doc}", "#/a~1b")}}"##),
        &Value::Int(2),
    );
    gives(
        &format!(r#"${{fromjson("{doc}", "/a~0b")}}"#),
        &Value::Int(3),
    );
    gives_json(
        &format!(r#"${{fromjson("{doc}", "/a")}}"#),
        &json!({"b": [10, 20]}),
    );
    // The empty pointer is the whole document.
    gives_json(
        r#"${fromjson("{\"k\":[true]}", "")}"#,
        &json!({"k": [true]}),
    );
    gives_json(
        r##"${fromjson("{\"k\":[true]}", "#")}"##,
        &json!({"k": [true]}),
    );
    gives(
        r#"${fromjson(variables.config, "/ports/1")}"#,
        &Value::Int(443),
    );
    gives(r#"${fromjson(variables.config, "/host")}"#, &s("h"));
    gives(r#"${fromjson("{\"n\":null}", "/n")}"#, &Value::Null);
}

#[test]
fn fromjson_errors() {
    let text = r#"${fromjson("{\"a\":1}", "/nope")}"#;
    fails(
        text,
        EVAL,
        at(text, r#""/nope""#),
        "the pointer `/nope` finds nothing in the document",
    );
    let text = r#"${fromjson("{\"a\":[1]}", "/a/1")}"#;
    fails(
        text,
        EVAL,
        at(text, r#""/a/1""#),
        "the pointer `/a/1` finds nothing in the document",
    );
    let text = r#"${fromjson("[1]", "/0")}"#;
    fails(
        text,
        EVAL,
        at(text, r#""[1]""#),
        "the JSON document's root must be an object",
    );
    let text = r#"${fromjson("1", "")}"#;
    fails(
        text,
        EVAL,
        at(text, r#""1""#),
        "the JSON document's root must be an object",
    );
    let text = r#"${fromjson("{", "/a")}"#;
    let message = fails_at(text, EVAL, at(text, r#""{""#));
    assert!(message.starts_with("the text is not JSON: "), "{message}");
    // The seed's `fromjson(.., "host")` is not an RFC 6901 pointer.
    let text = r#"${fromjson("{\"host\":1}", "host")}"#;
    fails(
        text,
        EVAL,
        at(text, r#""host")"#).start..at(text, r#""host")"#).end - 1,
        "`host` is not a JSON pointer: it must start with `/`",
    );
    let text = r##"${fromjson("{}", "#/%zz")}"##;
    fails(
        text,
        EVAL,
        at(text, r##""#/%zz""##),
        "`#/%zz` is not a valid URI fragment",
    );
    let text = r##"${fromjson("{}", "#a")}"##;
    fails(
        text,
        EVAL,
        at(text, r##""#a""##),
        "`#a` is not a JSON pointer: it must start with `/`",
    );
    let text = "${fromjson(1, \"/a\")}";
    fails(
        text,
        EVAL,
        11..12,
        "argument 1 (`json`) of `fromjson` must be string, found integer",
    );
}

#[test]
fn fromjson_g() {
    gives_json(
        r#"${map(list("{\"a\":1}", "{\"a\":{\"b\":2}}"), fromjson_g("/a"))}"#,
        &json!([1, {"b": 2}]),
    );
    let text = r#"${map(list("{}"), fromjson_g("/a"))}"#;
    fails(
        text,
        EVAL,
        at(text, r#"fromjson_g("/a")"#),
        "fromjson_g(..) failed on item 0: the pointer `/a` finds nothing in the document",
    );
}

#[test]
fn jsondecode() {
    gives(r#"${jsondecode("1")}"#, &Value::Int(1));
    gives(r#"${jsondecode("-1.5")}"#, &Value::Float(-1.5));
    gives(r#"${jsondecode("\"s\"")}"#, &s("s"));
    gives(r#"${jsondecode("true")}"#, &Value::Bool(true));
    gives(r#"${jsondecode("null")}"#, &Value::Null);
    gives(r#"${jsondecode(" [] ")}"#, &Value::Array(vec![]));
    gives_json(r#"${jsondecode("[1,\"a\",null]")}"#, &json!([1, "a", null]));
    gives_json(
        r#"${jsondecode("{\"z\":1,\"a\":[{}]}")}"#,
        &json!({"z": 1, "a": [{}]}),
    );
    // An integer beyond 64 bits is a float.
    gives(
        r#"${jsondecode("18446744073709551615")}"#,
        &Value::Float(18_446_744_073_709_551_615.0),
    );
    // Accessors read into the decoded value.
    gives(r#"${jsondecode("{\"a\":[5,6]}").a[1]}"#, &Value::Int(6));
    for bad in [r#""{""#, r#""""#, r#""[1,]""#, r#""nul""#] {
        let text = format!("${{jsondecode({bad})}}");
        let message = fails_at(&text, EVAL, 13..13 + bad.len());
        assert!(message.starts_with("the text is not JSON: "), "{message}");
    }
}

// ---------------------------------------------------------------------------
// Strings

#[test]
fn len() {
    gives(r#"${len("héllo")}"#, &Value::Int(5));
    gives("${len(values.text)}", &Value::Int(5));
    gives(r#"${len("")}"#, &Value::Int(0));
    gives("${len(list(1, 2, 3))}", &Value::Int(3));
    gives(r#"${len(split("", ""))}"#, &Value::Int(0));
    gives("${len(object(a = 1, b = 2))}", &Value::Int(2));
    gives("${len(values.cfg)}", &Value::Int(3));
    fails(
        "${len(1)}",
        EVAL,
        6..7,
        "argument 1 (`value`) of `len` must be string, array or object, found integer",
    );
    fails(
        r#"${len(jsondecode("null"))}"#,
        EVAL,
        6..24,
        "argument 1 (`value`) of `len` must be string, array or object, found null",
    );
}

#[test]
fn substr() {
    gives(r#"${substr("héllo", 1, 3)}"#, &s("él"));
    gives(r#"${substr("héllo", 2)}"#, &s("llo"));
    gives(r#"${substr("héllo", 5)}"#, &s(""));
    gives(r#"${substr("héllo", 0, 5)}"#, &s("héllo"));
    gives(r#"${substr("abc", 1, 1)}"#, &s(""));
    gives(r#"${substr("", 0)}"#, &s(""));
    let text = r#"${substr("abc", -1)}"#;
    fails(
        text,
        EVAL,
        at(text, "-1"),
        "-1 is out of range for a string of 3 characters",
    );
    let text = r#"${substr("abc", 4)}"#;
    fails(
        text,
        EVAL,
        at(text, "4"),
        "4 is out of range for a string of 3 characters",
    );
    let text = r#"${substr("héllo", 6)}"#;
    fails(
        text,
        EVAL,
        at(text, "6"),
        "6 is out of range for a string of 5 characters",
    );
    let text = r#"${substr("abc", 0, 4)}"#;
    fails(
        text,
        EVAL,
        at(text, "4"),
        "4 is out of range for a string of 3 characters",
    );
    let text = r#"${substr("abc", 1, -2)}"#;
    fails(
        text,
        EVAL,
        at(text, "-2"),
        "-2 is out of range for a string of 3 characters",
    );
    let text = r#"${substr("abc", 2, 1)}"#;
    fails(
        text,
        EVAL,
        at(text, "1"),
        "the end 1 comes before the start 2",
    );
    fails(
        r#"${substr("abc", 1.0)}"#,
        EVAL,
        16..19,
        "argument 2 (`start`) of `substr` must be integer, found float",
    );
    fails(
        r#"${substr("abc")}"#,
        EVAL,
        2..15,
        "`substr` takes 2 to 3 arguments, given 1",
    );
}

#[test]
fn substr_g() {
    gives(
        r#"${map(list("héllo", "wörld"), substr_g(1, 3))}"#,
        &strings(&["él", "ör"]),
    );
    gives(r#"${map(list("abc"), substr_g(2))}"#, &strings(&["c"]));
    let text = r#"${map(list("ab"), substr_g(3))}"#;
    fails(
        text,
        EVAL,
        at(text, "substr_g(3)"),
        "substr_g(..) failed on item 0: 3 is out of range for a string of 2 characters",
    );
}

#[test]
fn replace() {
    gives(r#"${replace("a.b.c", ".", "-")}"#, &s("a-b-c"));
    gives(r#"${replace("aaa", "aa", "b")}"#, &s("ba"));
    gives(r#"${replace("abc", "x", "y")}"#, &s("abc"));
    // As Go's `strings.ReplaceAll`: an empty search matches between
    // characters.
    gives(r#"${replace("ab", "", "-")}"#, &s("-a-b-"));
    gives(r#"${replace("héllo", "é", "e")}"#, &s("hello"));
}

#[test]
fn replace_g() {
    gives(
        r#"${map(list("a-b", "c-d-e"), replace_g("-", "+"))}"#,
        &strings(&["a+b", "c+d+e"]),
    );
}

#[test]
fn trim() {
    gives("${trim(\"  \t a b \n \")}", &s("a b"));
    gives(r#"${trim("")}"#, &s(""));
    gives(r#"${map(split("a, b", ","), trim)}"#, &strings(&["a", "b"]));
    gives(
        "${map(values.hosts, trim)}",
        &strings(&["a.example", "b.example"]),
    );
}

#[test]
fn trimprefix_and_trimsuffix() {
    gives(r#"${trimprefix("prefix-x", "prefix-")}"#, &s("x"));
    gives(r#"${trimprefix("x", "prefix-")}"#, &s("x"));
    gives(r#"${trimprefix("aab", "a")}"#, &s("ab"));
    gives(r#"${trimsuffix("file.yaml", ".yaml")}"#, &s("file"));
    gives(r#"${trimsuffix("file.yaml", ".json")}"#, &s("file.yaml"));
    gives(
        r#"${map(list("http://a", "b"), trimprefix_g("http://"))}"#,
        &strings(&["a", "b"]),
    );
    gives(
        r#"${map(list("a.yaml", "b.yml"), trimsuffix_g(".yaml"))}"#,
        &strings(&["a", "b.yml"]),
    );
}

#[test]
fn split() {
    gives(r#"${split("a,b,,c", ",")}"#, &strings(&["a", "b", "", "c"]));
    gives(r#"${split("a", ",")}"#, &strings(&["a"]));
    gives(r#"${split("", ",")}"#, &strings(&[""]));
    gives(r#"${split("a--b", "--")}"#, &strings(&["a", "b"]));
    // An empty delimiter splits into characters.
    gives(
        r#"${split("héllo", "")}"#,
        &strings(&["h", "é", "l", "l", "o"]),
    );
    gives(r#"${split("", "")}"#, &Value::Array(vec![]));
    gives_json(
        r#"${map(list("a,b", "c"), split_g(","))}"#,
        &json!([["a", "b"], ["c"]]),
    );
}

#[test]
fn join() {
    gives(r#"${join(list("a", "b", "c"), ", ")}"#, &s("a, b, c"));
    gives(r#"${join(list("a"), "-")}"#, &s("a"));
    gives(r#"${join(list(), "-")}"#, &s(""));
    gives(r#"${join(split("a,b", ","), "")}"#, &s("ab"));
    let text = r#"${join(list(1, 2), ",")}"#;
    fails(
        text,
        EVAL,
        at(text, "list(1, 2)"),
        "`join` takes an array of strings; item 0 is integer",
    );
    let text = r#"${join(jsondecode("[\"a\", 1]"), ",")}"#;
    fails(
        text,
        EVAL,
        at(text, r#"jsondecode("[\"a\", 1]")"#),
        "`join` takes an array of strings; item 1 is integer",
    );
}

#[test]
fn index_and_last_index_count_characters() {
    gives(r#"${index("héllo", "l")}"#, &Value::Int(2));
    gives(r#"${last_index("héllo", "l")}"#, &Value::Int(3));
    gives(r#"${index("héllo", "é")}"#, &Value::Int(1));
    gives(r#"${index("abc", "z")}"#, &Value::Int(-1));
    gives(r#"${last_index("abc", "z")}"#, &Value::Int(-1));
    gives(r#"${index("abcabc", "bc")}"#, &Value::Int(1));
    gives(r#"${last_index("abcabc", "bc")}"#, &Value::Int(4));
    // The empty string is found at the start, and last at the end.
    gives(r#"${index("héllo", "")}"#, &Value::Int(0));
    gives(r#"${last_index("héllo", "")}"#, &Value::Int(5));
}

#[test]
fn case() {
    gives(r#"${to_upper("héllo")}"#, &s("HÉLLO"));
    gives(r#"${to_lower("ÀB-c")}"#, &s("àb-c"));
}

#[test]
fn has_prefix_and_has_suffix() {
    gives(r#"${has_prefix("héllo", "hé")}"#, &Value::Bool(true));
    gives(r#"${has_prefix("héllo", "e")}"#, &Value::Bool(false));
    gives(r#"${has_prefix("a", "")}"#, &Value::Bool(true));
    gives(r#"${has_suffix("héllo", "lo")}"#, &Value::Bool(true));
    gives(r#"${has_suffix("héllo", "hé")}"#, &Value::Bool(false));
    gives(
        r#"${filter(list("ab", "ba", "a"), has_prefix_g("a"))}"#,
        &strings(&["ab", "a"]),
    );
    gives(
        r#"${filter(list("ab", "ba", "a"), has_suffix_g("a"))}"#,
        &strings(&["ba", "a"]),
    );
}

#[test]
fn contains() {
    gives(r#"${contains("hello", "ell")}"#, &Value::Bool(true));
    gives(r#"${contains("hello", "")}"#, &Value::Bool(true));
    gives(r#"${contains("hello", "x")}"#, &Value::Bool(false));
    gives(r#"${contains(list("a", "b"), "b")}"#, &Value::Bool(true));
    gives(r#"${contains(list("a", "b"), "c")}"#, &Value::Bool(false));
    // Integers and floats compare numerically; other mixes are not found.
    gives("${contains(list(1, 2), 2.0)}", &Value::Bool(true));
    gives(r#"${contains(list("1"), 1)}"#, &Value::Bool(false));
    gives_json(
        r#"${contains(jsondecode("[[1], {\"a\": [2]}]"), jsondecode("{\"a\": [2.0]}"))}"#,
        &json!(true),
    );
    let text = r#"${contains("abc", 1)}"#;
    fails(
        text,
        EVAL,
        at(text, "1"),
        "argument 2 of `contains` must be a string to look for in a string, found integer",
    );
    fails(
        "${contains(1, 1)}",
        EVAL,
        11..12,
        "argument 1 (`haystack`) of `contains` must be string or array, found integer",
    );
    gives(
        r#"${filter(list("abc", "xyz"), contains_g("y"))}"#,
        &strings(&["xyz"]),
    );
    gives_json(
        r#"${filter(list(list("a"), list("b")), contains_g("b"))}"#,
        &json!([["b"]]),
    );
}

// ---------------------------------------------------------------------------
// Collections

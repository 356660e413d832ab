//! The 50 core functions, evaluated through `parse_template` and
//! `evaluate` against a small environment (fixed working directory, fixed
//! clock), then the static checks of calls through `check_template`.
#![expect(clippy::panic, reason = "a test stops at the first surprise")]

use std::ops::Range;

use indexmap::IndexMap;
use serde_json::json;
use strata_subst::codes;
use strata_subst::functions;
use strata_subst::{
    Env, Failure, Lookup, Name, Reference, Scope, SubstError, Types, Value, check_template,
    evaluate, parse_template,
};

/// Evaluation without a step limit: these tests bound values, not work.
static UNLIMITED: strata_subst::Steps = strata_subst::Steps::new(u64::MAX);

// ---------------------------------------------------------------------------
// The environment

/// 2023-11-14T22:13:20Z.
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
    // FIXME? `list` takes any number of arguments, so it gets the item and
    // its index, of different types.
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

#[test]
fn compose_is_right_to_left_and_pipe_left_to_right() {
    gives(
        r#"${map(list("abc"), compose(to_upper, trimprefix_g("a")))}"#,
        &strings(&["BC"]),
    );
    gives(
        r#"${map(list("abc"), compose(trimprefix_g("a"), to_upper))}"#,
        &strings(&["ABC"]),
    );
    gives(
        r#"${map(list("abc"), pipe(to_upper, trimprefix_g("a")))}"#,
        &strings(&["ABC"]),
    );
    gives(
        r#"${map(list("abc"), pipe(trimprefix_g("a"), to_upper))}"#,
        &strings(&["BC"]),
    );
    gives(
        r#"${map(list(" a,b "), pipe(trim, split_g(","), getelem(1)))}"#,
        &strings(&["b"]),
    );
    gives(
        r#"${map(list(" a,b "), compose(getelem(1), split_g(","), trim))}"#,
        &strings(&["b"]),
    );
    // One function is itself.
    gives(r#"${map(list(" a "), pipe(trim))}"#, &strings(&["a"]));
    fails(
        r#"${compose(trim, "x")}"#,
        EVAL,
        16..19,
        "argument 2 (`function`) of `compose` must be function, found string",
    );
    fails(
        "${pipe()}",
        EVAL,
        2..8,
        "`pipe` takes at least 1 argument, given 0",
    );
    let text = r#"${map(list("a"), pipe(trim, len, trim))}"#;
    fails(
        text,
        EVAL,
        at(text, "pipe(trim, len, trim)"),
        "pipe(..) failed on item 0: argument 1 (`text`) of `trim` must be string, found integer",
    );
}

#[test]
fn getattr_and_getelem() {
    gives_json(
        r#"${map(jsondecode("[{\"id\":1},{\"id\":2}]"), getattr("id"))}"#,
        &json!([1, 2]),
    );
    let text = r#"${map(jsondecode("[{}]"), getattr("id"))}"#;
    fails(
        text,
        EVAL,
        at(text, r#"getattr("id")"#),
        "getattr(\"id\") failed on item 0: the object has no attribute `id`",
    );
    let text = r#"${map(list("x"), getattr("id"))}"#;
    fails(
        text,
        EVAL,
        at(text, r#"getattr("id")"#),
        "getattr(\"id\") failed on item 0: getattr(\"id\") takes an object, found string",
    );
    gives(
        r#"${map(list(list("a", "b"), list("c", "d")), getelem(1))}"#,
        &strings(&["b", "d"]),
    );
    let text = r#"${map(list(list("a")), getelem(3))}"#;
    fails(
        text,
        EVAL,
        at(text, "getelem(3)"),
        "getelem(3) failed on item 0: index 3 is out of range for an array of 1",
    );
    let text = r#"${map(list("x"), getelem(0))}"#;
    fails(
        text,
        EVAL,
        at(text, "getelem(0)"),
        "getelem(0) failed on item 0: getelem(0) takes an array, found string",
    );
    let text = r#"${map(list(list("a")), getelem(-1))}"#;
    fails(
        text,
        EVAL,
        at(text, "-1"),
        "an index is zero or more, not -1",
    );
    // The `_g` and attribute functions are values, not fields.
    fails(
        r#"${getattr("id")}"#,
        codes::FUNCTION_VALUE,
        0..16,
        "`getattr(\"id\")` is a function: a field needs a value",
    );
}

// ---------------------------------------------------------------------------
// Links, logic, comparisons

#[test]
fn link() {
    // The default `Env::link` waits on deployment.
    pending_in(&Plain, "${link(orders, queue)}", "link(orders, queue)");
    pending_in(
        &Plain,
        r#"${link("orders", resources.queue)}"#,
        "link(orders, queue)",
    );
    let env = TestEnv {
        link: Some(Lookup::Known(from_json(&json!({"linked": true})))),
        ..ENV
    };
    assert_eq!(
        eval_in(&env, "${link(orders, queue).linked}"),
        Value::Bool(true)
    );
    let env = TestEnv {
        link: Some(Lookup::Missing(
            "`orders` and `queue` are not linked".into(),
        )),
        ..ENV
    };
    let error = error_in(&env, "${link(orders, queue)}");
    assert_eq!(
        (error.code, error.range, error.message.as_str()),
        (EVAL, 2..21, "`orders` and `queue` are not linked")
    );
}

#[test]
fn and_or_not() {
    for (a, b) in [(true, true), (true, false), (false, true), (false, false)] {
        gives(&format!("${{and({a}, {b})}}"), &Value::Bool(a && b));
        gives(&format!("${{or({a}, {b})}}"), &Value::Bool(a || b));
    }
    gives("${not(true)}", &Value::Bool(false));
    gives("${not(false)}", &Value::Bool(true));
    gives("${not(variables.debug)}", &Value::Bool(false));
    fails(
        "${and(1, true)}",
        EVAL,
        6..7,
        "argument 1 (`a`) of `and` must be boolean, found integer",
    );
    fails(
        r#"${or(false, "true")}"#,
        EVAL,
        12..18,
        "argument 2 (`b`) of `or` must be boolean, found string",
    );
    fails(
        "${not(0)}",
        EVAL,
        6..7,
        "argument 1 (`value`) of `not` must be boolean, found integer",
    );
}

#[test]
fn eq() {
    gives(r#"${eq("a", "a")}"#, &Value::Bool(true));
    gives(r#"${eq("a", "b")}"#, &Value::Bool(false));
    gives("${eq(true, true)}", &Value::Bool(true));
    // Integers and floats compare numerically.
    gives("${eq(1, 1.0)}", &Value::Bool(true));
    gives("${eq(1, 1.5)}", &Value::Bool(false));
    // Deep equality; mappings regardless of their order.
    gives(
        r#"${eq(jsondecode("{\"a\":[1,{\"b\":null}]}"), jsondecode("{\"a\":[1.0,{\"b\":null}]}"))}"#,
        &Value::Bool(true),
    );
    gives(
        "${eq(object(a = 1, b = 2), object(b = 2, a = 1))}",
        &Value::Bool(true),
    );
    gives(
        "${eq(object(a = 1), object(a = 1, b = 2))}",
        &Value::Bool(false),
    );
    gives("${eq(list(1, 2), list(2, 1))}", &Value::Bool(false));
    gives("${eq(list(1), list(1, 2))}", &Value::Bool(false));
    gives(
        r#"${eq(jsondecode("null"), jsondecode("null"))}"#,
        &Value::Bool(true),
    );
    gives(
        r#"${eq(variables.region, "eu-west-1")}"#,
        &Value::Bool(true),
    );
    let text = r#"${eq(1, "1")}"#;
    fails(
        text,
        EVAL,
        at(text, r#""1""#),
        "`eq` compares values of one type: integer and string differ",
    );
    fails(
        r#"${eq(list("a"), object())}"#,
        EVAL,
        16..24,
        "`eq` compares values of one type: array and object differ",
    );
    // A mix deep inside is an error too.
    fails(
        r#"${eq(jsondecode("[1]"), jsondecode("[\"1\"]"))}"#,
        EVAL,
        24..45,
        "`eq` compares values of one type: integer and string differ",
    );
}

#[test]
fn comparisons_mix_integers_and_floats() {
    gives("${gt(2, 1.5)}", &Value::Bool(true));
    gives("${gt(1, 1)}", &Value::Bool(false));
    gives("${gt(-1.5, -2)}", &Value::Bool(true));
    gives("${ge(1, 1.0)}", &Value::Bool(true));
    gives("${ge(0.5, 1)}", &Value::Bool(false));
    gives("${lt(-1, 0)}", &Value::Bool(true));
    gives("${lt(0.5, 0.25)}", &Value::Bool(false));
    gives("${le(2.5, 2)}", &Value::Bool(false));
    gives("${le(2, 2)}", &Value::Bool(true));
    gives("${le(variables.count, 3)}", &Value::Bool(true));
    gives("${gt(variables.ratio, 0)}", &Value::Bool(true));
    gives(
        "${gt(9223372036854775807, -9223372036854775808)}",
        &Value::Bool(true),
    );
    fails(
        r#"${gt("a", 1)}"#,
        EVAL,
        5..8,
        "argument 1 (`a`) of `gt` must be integer or float, found string",
    );
    fails(
        "${lt(1, true)}",
        EVAL,
        8..12,
        "argument 2 (`b`) of `lt` must be integer or float, found boolean",
    );
}

// ---------------------------------------------------------------------------
// The environment's functions

#[test]
fn cwd() {
    gives("${cwd()}", &s("/work/project"));
    gives("dir=${cwd()}/x", &s("dir=/work/project/x"));
    let env = TestEnv {
        cwd: Err("the working directory is not known".into()),
        ..ENV
    };
    let error = error_in(&env, "${cwd()}");
    assert_eq!(
        (error.code, error.range, error.message.as_str()),
        (EVAL, 2..7, "the working directory is not known")
    );
}

#[test]
fn datetime() {
    gives(r#"${datetime("unix")}"#, &s("1700000000"));
    gives(r#"${datetime("rfc3339")}"#, &s("2023-11-14T22:13:20Z"));
    gives(r#"${datetime("tag")}"#, &s("2023-11-14--22-13-20"));
    gives(r#"${datetime("tagcompact")}"#, &s("20231114221320"));
    let leap = TestEnv {
        now: 951_782_400,
        ..ENV
    };
    assert_eq!(
        eval_in(&leap, r#"${datetime("rfc3339")}"#),
        s("2000-02-29T00:00:00Z")
    );
    assert_eq!(
        eval_in(&leap, r#"${datetime("tag")}"#),
        s("2000-02-29--00-00-00")
    );
    let before = TestEnv { now: -1, ..ENV };
    assert_eq!(
        eval_in(&before, r#"${datetime("rfc3339")}"#),
        s("1969-12-31T23:59:59Z")
    );
    assert_eq!(eval_in(&before, r#"${datetime("unix")}"#), s("-1"));
    let epoch = TestEnv { now: 0, ..ENV };
    assert_eq!(
        eval_in(&epoch, r#"${datetime("tagcompact")}"#),
        s("19700101000000")
    );
    fails(
        r#"${datetime("iso")}"#,
        EVAL,
        11..16,
        "`iso` is not a datetime format: use one of unix, rfc3339, tag, tagcompact",
    );
    fails(
        "${datetime(1)}",
        EVAL,
        11..12,
        "argument 1 (`format`) of `datetime` must be string, found integer",
    );
}

// ---------------------------------------------------------------------------
// References, accessors and interpolation

#[test]
fn references_read_the_environment() {
    gives("${variables.region}", &s("eu-west-1"));
    gives("${values.cfg.tags[1]}", &s("y"));
    gives("${values.cfg.tags[]}", &s("x"));
    gives("${datasources.network.subnets[1]}", &s("s2"));
    gives("${datasources.network.subnets[]}", &s("s1"));
    gives("${datasources.network.vpc}", &s("vpc-1"));
    gives("${children.core.topic.arn}", &s("arn:1"));
    gives(r#"${children.core["topic"].arn}"#, &s("arn:1"));
    gives("${orders.spec.name}", &s("orders"));
    gives("${resources.orders.metadata.displayName}", &s("Orders"));
    gives("${resources.queues[1].spec.name}", &s("q1"));
    gives("${elem.config.attrs[0]}", &Value::Int(7));
    gives("${i}", &Value::Int(2));
    gives("${values.mixed.a}", &Value::Int(1));
}

#[test]
fn reading_what_is_not_there() {
    fails(
        "${variables.nope}",
        EVAL,
        2..16,
        "there is no variable `nope`",
    );
    let error = error_in(&ENV, "${orders.spec.nme}");
    assert_eq!(
        (error.code, error.range, error.message.as_str()),
        (EVAL, 14..17, "there is no field `nme` here")
    );
    assert_eq!(error.help.as_deref(), Some("did you mean `name`?"));
    fails(
        "${values.hosts[5]}",
        EVAL,
        14..17,
        "index 5 is out of range: the array has 2 items",
    );
    fails(
        "${values.cfg.name.x}",
        EVAL,
        18..19,
        "cannot read field `x` of a string",
    );
    fails(
        "${values.cfg[0]}",
        EVAL,
        12..15,
        "cannot read an item of an object",
    );
    fails(
        r#"${jsondecode("null").a}"#,
        EVAL,
        21..22,
        "cannot read field `a` of a null",
    );
    fails(
        "${orders}",
        codes::REFERENCE,
        2..8,
        "`orders` names a resource without a field: read `orders.spec…`, `orders.state…` or `orders.metadata…` (a bare resource name is only an argument of `link`)",
    );
    fails(
        "${nosuch(1)}",
        codes::UNKNOWN_FUNCTION,
        2..8,
        "there is no function `nosuch`",
    );
}

#[test]
fn known_after_deploy() {
    pending("${values.later}", "values.later");
    pending("${variables.later}", "variables.later");
    pending("${len(values.later)}", "values.later");
    pending("x-${values.later}-y", "values.later");
    // Reading into an unknown part.
    pending("${orders.state.id}", "orders.state.id");
    pending("${resources.queues[0].state}", "resources.q0.state");
    // A value holding an unknown part, as a field or as an argument.
    pending("${resources.orders.state}", "resources.orders.state");
    pending("${values.mixed}", "resources.orders.state.id");
    pending("${keys(values.mixed)}", "resources.orders.state.id");
    pending("${map(list(orders.state), trim)}", "resources.orders.state");
    pending("${eq(orders.state, 1)}", "resources.orders.state");
    pending("${map(list(values.later), trim)}", "values.later");
}

#[test]
fn interpolation() {
    gives(
        r#"n=${variables.count}, f=${variables.ratio}, b=${variables.debug}, s=${"x"}, null=${jsondecode("null")}"#,
        &s("n=3, f=0.5, b=true, s=x, null="),
    );
    gives("${i}${i}", &s("22"));
    gives("$${i}", &s("$2"));
    gives("", &s(""));
    gives("plain", &s("plain"));
    // One substitution keeps its type.
    gives("${variables.count}", &Value::Int(3));
    gives(" ${variables.count}", &s(" 3"));
    fails(
        r#"a-${list("x")}"#,
        codes::COMPLEX_INTERPOLATION,
        2..14,
        "`list(\"x\")` is an array inside a string: only strings, numbers and booleans can be interpolated",
    );
    fails(
        "a-${values.cfg}",
        codes::COMPLEX_INTERPOLATION,
        2..15,
        "`values.cfg` is an object inside a string: only strings, numbers and booleans can be interpolated",
    );
    fails(
        r#"a-${split_g(",")}"#,
        codes::FUNCTION_VALUE,
        2..17,
        "`split_g(..)` is a function: a field needs a value",
    );
    fails(
        "${trim}",
        codes::FUNCTION_VALUE,
        2..6,
        "`trim` is a function: call it, or pass it to a function that takes a function",
    );
    fails(
        r#"${split_g(",")}"#,
        codes::FUNCTION_VALUE,
        0..15,
        "`split_g(..)` is a function: a field needs a value",
    );
}

// ---------------------------------------------------------------------------
// Static checks

struct TestScope;

impl Scope for TestScope {
    fn reference(&self, reference: &Reference, range: Range<usize>) -> Result<Types, SubstError> {
        Ok(match reference {
            Reference::Variable { name } => match name.text.as_str() {
                "count" => Types::INTEGER,
                "region" => Types::STRING,
                "debug" => Types::BOOLEAN,
                other => {
                    return Err(SubstError::new(
                        codes::REFERENCE,
                        format!("there is no variable `{other}`"),
                        range,
                    ));
                }
            },
            Reference::Value { name, path } if path.is_empty() => match name.text.as_str() {
                "hosts" => Types::ARRAY,
                "cfg" => Types::OBJECT,
                _ => Types::ANY,
            },
            Reference::ElemIndex => Types::INTEGER,
            _ => Types::ANY,
        })
    }

    fn resource(&self, name: &Name) -> Result<(), SubstError> {
        if ["orders", "queue"].contains(&name.text.as_str()) {
            Ok(())
        } else {
            Err(SubstError::new(
                codes::REFERENCE,
                format!("there is no resource `{}`", name.text),
                name.range.clone(),
            ))
        }
    }
}

fn check(text: &str) -> (Types, Vec<SubstError>) {
    let template = parse_template(text).unwrap_or_else(|errors| panic!("`{text}`: {errors:?}"));
    check_template(&template, &TestScope)
}

/// `text` checks with the type `types` and no problem.
#[track_caller]
fn checks(text: &str, types: Types) {
    let (found, errors) = check(text);
    assert!(errors.is_empty(), "`{text}`: {errors:?}");
    assert_eq!(found, types, "`{text}`");
}

/// `text` gives exactly these problems, as (code, range).
#[track_caller]
fn problems(text: &str, expected: &[(strata_syntax::Code, Range<usize>)]) -> Vec<SubstError> {
    let (_, errors) = check(text);
    let found: Vec<(strata_syntax::Code, Range<usize>)> = errors
        .iter()
        .map(|error| (error.code, error.range.clone()))
        .collect();
    assert_eq!(found, expected, "`{text}`: {errors:?}");
    errors
}

#[test]
fn check_types_of_fields() {
    checks(r#"${len("x")}"#, Types::INTEGER);
    checks("${variables.count}", Types::INTEGER);
    checks("${variables.region}", Types::STRING);
    checks("a-${variables.count}", Types::STRING);
    checks("text", Types::STRING);
    checks(r#"${fromjson("{}", "/a")}"#, Types::ANY);
    checks(r#"${split("a", ",")[0]}"#, Types::ANY);
    checks("${list()}", Types::ARRAY);
    checks("${object(a = 1)}", Types::OBJECT);
    checks("${map(values.hosts, trim)}", Types::ARRAY);
    checks("${map(values.any, values.any)}", Types::ARRAY);
    checks("${link(orders, queue)}", Types::OBJECT);
    checks(r#"${link("orders", resources.queue)}"#, Types::OBJECT);
    checks(r#"${datetime("tag")}"#, Types::STRING);
    checks("${list(1, 2.5)}", Types::ARRAY);
    checks("${list(values.any, 1)}", Types::ARRAY);
    checks("${elem.x}", Types::ANY);
}

#[test]
fn check_unknown_functions() {
    let errors = problems(
        r#"${jion(list("a"), ",")}"#,
        &[(codes::UNKNOWN_FUNCTION, 2..6)],
    );
    assert_eq!(errors[0].message, "there is no function `jion`");
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `join`?"));
    let errors = problems("${frobnicate()}", &[(codes::UNKNOWN_FUNCTION, 2..12)]);
    assert_eq!(errors[0].help, None);
    // The arguments are still checked.
    problems(
        "${frobnicate(len(1))}",
        &[
            (codes::UNKNOWN_FUNCTION, 2..12),
            (codes::ARGUMENT_TYPE, 17..18),
        ],
    );
    let errors = problems(
        r#"${map(list("a"), trimm)}"#,
        &[(codes::UNKNOWN_FUNCTION, 17..22)],
    );
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `trim`?"));
}

#[test]
fn check_arity() {
    let errors = problems(r#"${substr("a")}"#, &[(codes::ARITY, 2..8)]);
    assert_eq!(
        errors[0].message,
        "`substr` takes 2 to 3 arguments, given 1"
    );
    assert_eq!(
        errors[0].notes,
        ["signature: substr(text: string, start: integer, end?: integer) -> string"]
    );
    let errors = problems(r#"${trim("a", "b", "c")}"#, &[(codes::ARITY, 12..20)]);
    assert_eq!(errors[0].message, "`trim` takes 1 argument, given 3");
    let errors = problems("${cwd(1)}", &[(codes::ARITY, 6..7)]);
    assert_eq!(errors[0].message, "`cwd` takes 0 arguments, given 1");
    // A field that holds a function is a second problem.
    let errors = problems(
        "${compose()}",
        &[(codes::ARITY, 2..9), (codes::FUNCTION_VALUE, 0..12)],
    );
    assert_eq!(
        errors[0].message,
        "`compose` takes at least 1 argument, given 0"
    );
    problems("${reduce(list(), and)}", &[(codes::ARITY, 2..8)]);
}

#[test]
fn check_named_arguments() {
    // A misplaced named argument is one mistake, not also a wrong count.
    let errors = problems(r#"${len(value = "x")}"#, &[(codes::NAMED_ARGUMENT, 6..11)]);
    assert_eq!(
        errors[0].message,
        "`len` takes no named arguments: only `object` does"
    );
    assert_eq!(errors[0].help.as_deref(), Some(r#"pass `"x"` by position"#));
    let errors = problems(
        "${object(a = 1, a = 2)}",
        &[(codes::NAMED_ARGUMENT, 16..17)],
    );
    assert_eq!(errors[0].message, "the argument `a` is given twice");
    // A positional argument of `object` is one mistake, not also a count.
    let errors = problems(r#"${object("x")}"#, &[(codes::NAMED_ARGUMENT, 9..12)]);
    assert_eq!(
        errors[0].message,
        "`object` takes named arguments only: `object(name = value)`"
    );
    // Named arguments' values are checked.
    problems("${object(a = len(1))}", &[(codes::ARGUMENT_TYPE, 17..18)]);
}

#[test]
fn check_argument_types_of_literals() {
    let errors = problems("${len(1)}", &[(codes::ARGUMENT_TYPE, 6..7)]);
    assert_eq!(
        errors[0].message,
        "argument 1 (`value`) of `len` must be string, array or object, `1` is integer"
    );
    assert_eq!(
        errors[0].notes,
        ["signature: len(value: string, array or object) -> integer"]
    );
    problems(
        r#"${substr("abc", "1")}"#,
        &[(codes::ARGUMENT_TYPE, 16..19)],
    );
    problems("${and(true, 1)}", &[(codes::ARGUMENT_TYPE, 12..13)]);
    problems(r#"${gt("a", 1)}"#, &[(codes::ARGUMENT_TYPE, 5..8)]);
    problems(
        r#"${join(list("a"), 1)}"#,
        &[(codes::ARGUMENT_TYPE, 18..19)],
    );
    problems(r#"${keys(list("a"))}"#, &[(codes::ARGUMENT_TYPE, 7..16)]);
    // Types the scope knows.
    problems("${len(variables.count)}", &[(codes::ARGUMENT_TYPE, 6..21)]);
    problems("${not(variables.region)}", &[(codes::ARGUMENT_TYPE, 6..22)]);
    // Types that may be right pass.
    checks("${len(values.anything)}", Types::INTEGER);
    checks("${not(elem.flag)}", Types::BOOLEAN);
    // The scope's own problems.
    problems("${len(variables.nope)}", &[(codes::REFERENCE, 6..20)]);
}

#[test]
fn check_function_values() {
    let errors = problems("${trim}", &[(codes::FUNCTION_VALUE, 2..6)]);
    assert_eq!(
        errors[0].message,
        "`trim` is a function: call it, or pass it to a function that takes a function"
    );
    let errors = problems(r#"${split_g(",")}"#, &[(codes::FUNCTION_VALUE, 0..15)]);
    assert_eq!(
        errors[0].message,
        r#"`split_g(",")` is a function: a field needs a value"#
    );
    problems("${len(trim)}", &[(codes::FUNCTION_VALUE, 6..10)]);
    let errors = problems(r#"${len(split_g(","))}"#, &[(codes::FUNCTION_VALUE, 6..18)]);
    assert_eq!(
        errors[0].message,
        r#"argument 1 (`value`) of `len` must be string, array or object, `split_g(",")` is function"#
    );
    problems(
        "${eq(trim, to_upper)}",
        &[
            (codes::FUNCTION_VALUE, 5..9),
            (codes::FUNCTION_VALUE, 11..19),
        ],
    );
    // A value where a function is expected.
    let errors = problems(
        r#"${map(list("a"), "x")}"#,
        &[(codes::FUNCTION_VALUE, 17..20)],
    );
    assert_eq!(
        errors[0].message,
        r#"argument 2 (`function`) of `map` must be function, `"x"` is string"#
    );
    problems(
        "${map(values.hosts, len(values.hosts))}",
        &[(codes::FUNCTION_VALUE, 20..37)],
    );
    problems(
        r#"${compose(trim, "x")}"#,
        &[
            (codes::FUNCTION_VALUE, 16..19),
            (codes::FUNCTION_VALUE, 0..21),
        ],
    );
    checks(
        r#"${map(values.hosts, compose(trim, getattr("a")))}"#,
        Types::ARRAY,
    );
    // A bare name that is no function, where a value is expected.
    problems("${orders}", &[(codes::REFERENCE, 2..8)]);
}

#[test]
fn check_datetime_formats() {
    let errors = problems(
        r#"${datetime("rfc339")}"#,
        &[(codes::DATETIME_FORMAT, 11..19)],
    );
    assert_eq!(
        errors[0].message,
        "`rfc339` is not a datetime format: use one of unix, rfc3339, tag, tagcompact"
    );
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `rfc3339`?"));
    for format in ["unix", "rfc3339", "tag", "tagcompact"] {
        checks(&format!(r#"${{datetime("{format}")}}"#), Types::STRING);
    }
    // Only literals are known before evaluation.
    checks("${datetime(variables.region)}", Types::STRING);
}

#[test]
fn check_complex_interpolation() {
    let errors = problems(
        r#"a-${list("x")}"#,
        &[(codes::COMPLEX_INTERPOLATION, 2..14)],
    );
    assert_eq!(
        errors[0].message,
        r#"`list("x")` is array, inside a string: only strings, numbers and booleans can be interpolated"#
    );
    problems(
        "a-${object(k = 1)}",
        &[(codes::COMPLEX_INTERPOLATION, 2..18)],
    );
    problems("a-${values.cfg}", &[(codes::COMPLEX_INTERPOLATION, 2..15)]);
    problems(r#"a-${split_g(",")}"#, &[(codes::FUNCTION_VALUE, 2..17)]);
    // Once: the bare function is reported, not its interpolation as well.
    problems("a-${trim}", &[(codes::FUNCTION_VALUE, 4..8)]);
    checks("a-${values.any}", Types::STRING);
    checks(r#"a-${len("x")}-${variables.debug}"#, Types::STRING);
}

#[test]
fn check_list_items() {
    let errors = problems(
        r#"${list("a", 1, true)}"#,
        &[
            (codes::ARGUMENT_TYPE, 12..13),
            (codes::ARGUMENT_TYPE, 15..19),
        ],
    );
    assert_eq!(
        errors[0].message,
        "`list` takes items of one type: the first is string, this one is integer"
    );
    problems(
        r#"${list(1, values.any, "x")}"#,
        &[(codes::ARGUMENT_TYPE, 22..25)],
    );
    problems(
        "${list(values.hosts, values.cfg)}",
        &[(codes::ARGUMENT_TYPE, 21..31)],
    );
    checks(r#"${list("a", variables.region)}"#, Types::ARRAY);
}

#[test]
fn check_accessors_after_calls() {
    let errors = problems(r#"${len("x").a}"#, &[(codes::REFERENCE, 11..12)]);
    assert_eq!(
        errors[0].message,
        "`len` gives integer: it has no fields or items to read"
    );
    problems(r#"${trim("x")[0]}"#, &[(codes::REFERENCE, 11..14)]);
    checks("${object(a = 1).a}", Types::ANY);
}

#[test]
fn check_links() {
    problems("${link(orders, nothere)}", &[(codes::REFERENCE, 15..22)]);
    problems(r#"${link("nothere", queue)}"#, &[(codes::REFERENCE, 7..16)]);
    problems(
        "${link(resources.nothere, queue)}",
        &[(codes::REFERENCE, 17..24)],
    );
}

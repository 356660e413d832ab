//! qbec's native functions, reached from Jsonnet as `std.native(NAME)`.
//!
//! [`register`] adds the functions qbec registers (its
//! `vm/internal/natives/nativefuncs.go`), with qbec's names, parameter names
//! and semantics (`expandHelmTemplate`, which runs Helm, is [`crate::helm`]'s):
//!
//! - `parseJson(json)`: the value of one strict JSON text. A syntax error is
//!   a runtime error `parseJson: line L, column C: MESSAGE`; so is a text
//!   holding no value, as in qbec (Go's decoder reports `EOF`).
//! - `parseYaml(yaml)`: the documents of a YAML stream, always as an array
//!   (one element for one document, none for an empty text). Empty and
//!   `null` documents are left out, as qbec leaves out every document that
//!   decodes to `nil`. Errors as `parseJson`'s, prefixed `parseYaml:`.
//! - `renderYaml(data)`: YAML text. An array is a stream with one document
//!   per element (`null` elements give none); to render an array as one
//!   document, wrap it in a one-element array. Any other value is one
//!   document, and a top-level `null` is the empty string.
//! - `escapeStringRegex(str)`: `str` with every regex metacharacter
//!   backslash-escaped, exactly as Go's `regexp.QuoteMeta`.
//! - `regexMatch(regex, string)`: whether `regex` matches anywhere in
//!   `string`, as Go's `regexp.MatchString`.
//! - `regexSubst(regex, src, repl)`: `src` with every match of `regex`
//!   replaced by `repl`, in which `$1`, `$name` and `${name}` expand to
//!   groups, as Go's `ReplaceAllString` (the `regex` crate has the same
//!   expansion syntax, including `$1x` meaning the group named `1x`).
//! - `labelsMatchSelector(labels, selectorString)`: whether an object of
//!   string labels matches a Kubernetes label selector in the syntax of
//!   apimachinery's `labels.Parse` (`a=b, c!=d, e in (f, g), h notin (i),
//!   j, !k, l > 1`); the empty selector matches everything, and `!=` and
//!   `notin` also match when the key is absent.
//!
//! Regular expressions are the `regex` crate's, which accepts the RE2 syntax
//! Go's `regexp` does; one difference is that `\d`, `\w`, `\s` and `\b` are
//! Unicode-aware here and ASCII-only in Go.
//!
//! An invalid regex, selector or label value is a Jsonnet runtime error, so
//! it carries the caller's stack trace like any other.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use jrsonnet_evaluator::error::{Error, ErrorKind};
use jrsonnet_evaluator::val::ArrValue;
use jrsonnet_evaluator::{IStr, ObjValue, Result, Val, in_description_frame};
use jrsonnet_macros::builtin;
use jrsonnet_stdlib::ContextInitializer;
use regex::Regex;
use strata_k8s::Selector;
use strata_syntax::{Format, Limits, Node, SourceDb, Span, Value, emit};

use crate::value::{from_node, to_node};

/// Adds qbec's native functions to `context` under qbec's names.
///
/// `limits` bounds what `parseJson` and `parseYaml` accept (size, nesting,
/// alias expansion) and how deeply nested a value `renderYaml` renders.
pub(crate) fn register(context: &ContextInitializer, limits: Limits) {
    context.add_native("parseJson", parseJson { limits });
    context.add_native("parseYaml", parseYaml { limits });
    context.add_native("renderYaml", renderYaml { limits });
    context.add_native("escapeStringRegex", escapeStringRegex::INST);
    // One cache for both regex functions: a component calls them in loops
    // over many objects with the same few patterns.
    let cache = Rc::new(RegexCache::default());
    context.add_native(
        "regexMatch",
        regexMatch {
            cache: Rc::clone(&cache),
        },
    );
    context.add_native("regexSubst", regexSubst { cache });
    context.add_native("labelsMatchSelector", labelsMatchSelector::INST);
}

// The builtins are named as in Jsonnet, because the macro turns the function
// name into the name shown in stack traces (`function <parseJson> call`), and
// the parameters too, because they are the names for named arguments.

#[builtin(fields(
    #[trace(skip)]
    limits: Limits,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn parseJson(this: &parseJson, json: IStr) -> Result<Val> {
    let documents =
        parse_text("parseJson", &json, Format::Json, &this.limits).map_err(runtime_error)?;
    match documents.first() {
        Some(document) => Ok(from_node(document)),
        None => Err(runtime_error(
            "parseJson: the text holds no JSON value".to_owned(),
        )),
    }
}

#[builtin(fields(
    #[trace(skip)]
    limits: Limits,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn parseYaml(this: &parseYaml, yaml: IStr) -> Result<Val> {
    let values = yaml_documents("parseYaml", &yaml, &this.limits)
        .map_err(runtime_error)?
        .iter()
        .map(from_node)
        .collect();
    Ok(Val::Arr(ArrValue::eager(values)))
}

#[builtin(fields(
    #[trace(skip)]
    limits: Limits,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn renderYaml(this: &renderYaml, data: Val) -> Result<String> {
    let max_depth = this.limits.max_depth;
    match &data {
        Val::Null => Ok(String::new()),
        Val::Arr(items) => {
            let mut documents = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let item = item?;
                if matches!(item, Val::Null) {
                    continue;
                }
                let document = in_description_frame(
                    || format!("array index [{index}]"),
                    || to_node(&item, Span::default(), max_depth),
                )?;
                documents.push(document);
            }
            // qbec separates documents with `---` but does not open the first.
            let stream = emit::to_yaml_stream(&documents);
            Ok(stream.strip_prefix("---\n").unwrap_or(&stream).to_owned())
        }
        other => Ok(emit::to_yaml(&to_node(other, Span::default(), max_depth)?)),
    }
}

#[builtin]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn escapeStringRegex(str: IStr) -> String {
    quote_meta(&str)
}

#[builtin(fields(
    #[trace(skip)]
    cache: Rc<RegexCache>,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn regexMatch(this: &regexMatch, regex: IStr, string: IStr) -> Result<bool> {
    let compiled = this.cache.compile("regexMatch", &regex)?;
    Ok(compiled.is_match(&string))
}

#[builtin(fields(
    #[trace(skip)]
    cache: Rc<RegexCache>,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn regexSubst(this: &regexSubst, regex: IStr, src: IStr, repl: IStr) -> Result<String> {
    let compiled = this.cache.compile("regexSubst", &regex)?;
    Ok(compiled.replace_all(&src, repl.as_str()).into_owned())
}

#[builtin]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn labelsMatchSelector(labels: ObjValue, selectorString: IStr) -> Result<bool> {
    let mut set = BTreeMap::new();
    for (key, value) in labels.iter() {
        match value? {
            Val::Str(text) => {
                set.insert(key.to_string(), text.to_string());
            }
            other => {
                return Err(runtime_error(format!(
                    "invalid label map value for `{key}`, {}, want a string",
                    other.value_type()
                )));
            }
        }
    }
    let selector = Selector::parse(&selectorString).map_err(|why| {
        runtime_error(format!(
            "invalid label selector: '{}': {why}",
            selectorString.as_str()
        ))
    })?;
    Ok(selector.matches(&set))
}

/// A Jsonnet runtime error with `message`.
pub(crate) fn runtime_error(message: String) -> Error {
    ErrorKind::RuntimeError(message.into()).into()
}

/// The documents of `text`, or the first syntax error, prefixed with
/// `function` and the error's position in `text`.
pub(crate) fn parse_text(
    function: &str,
    text: &str,
    format: Format,
    limits: &Limits,
) -> std::result::Result<Vec<Node>, String> {
    let mut db = SourceDb::new();
    let id = db.add(format!("<{function}>"), text);
    let parsed = strata_syntax::parse(&db, id, format, limits);
    // Warnings do not make the text unusable; the first error is the one
    // the rest most likely follow from.
    if let Some(error) = parsed.diagnostics.iter().find(|d| d.is_error()) {
        let record = error.record(&db);
        return Err(format!(
            "{function}: line {}, column {}: {}",
            record.line, record.column, record.message
        ));
    }
    Ok(parsed.documents)
}

/// The documents of a YAML 1.1 stream without the empty and `null` ones,
/// as qbec reads YAML (Kubernetes' YAML-to-JSON decoder), or the first
/// syntax error as [`parse_text`] gives it.
pub(crate) fn yaml_documents(
    function: &str,
    text: &str,
    limits: &Limits,
) -> std::result::Result<Vec<Node>, String> {
    let mut documents = parse_text(function, text, Format::Yaml11, limits)?;
    documents.retain(|document| !matches!(document.value, Value::Null));
    Ok(documents)
}

/// `text` with Go's regex metacharacters escaped, exactly as Go's
/// `regexp.QuoteMeta` does.
///
/// Not `regex::escape`: that also escapes `#`, `&`, `-` and `~`, and the
/// result is often not fed back to a regex function but written into a
/// manifest (a Prometheus rule, an ingress path), where it must read as
/// qbec wrote it. Go's escaping is a valid Rust regex too: the four are
/// literal outside character classes.
fn quote_meta(text: &str) -> String {
    const META: &str = r"\.+*?()|[]{}^$";
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if META.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Compiled regular expressions by pattern, shared by the regex functions.
#[derive(Default)]
struct RegexCache(RefCell<HashMap<String, Regex>>);

/// How many patterns the cache keeps before it starts over: bounded so a
/// component that builds a pattern per object cannot grow it without end.
const REGEX_CACHE_SIZE: usize = 64;

impl RegexCache {
    /// The compiled `pattern`, or a runtime error naming it and `function`.
    fn compile(&self, function: &str, pattern: &str) -> Result<Regex> {
        if let Some(found) = self.0.borrow().get(pattern) {
            // A clone shares the compiled program.
            return Ok(found.clone());
        }
        let compiled = Regex::new(pattern).map_err(|error| {
            runtime_error(format!("{function}: invalid regex '{pattern}': {error}"))
        })?;
        let mut cache = self.0.borrow_mut();
        if cache.len() >= REGEX_CACHE_SIZE {
            cache.clear();
        }
        cache.insert(pattern.to_owned(), compiled.clone());
        Ok(compiled)
    }
}

#[cfg(test)]
mod tests {
    use jrsonnet_evaluator::State;
    use jrsonnet_evaluator::trace::PathResolver;
    use serde_json::json;
    use strata_syntax::emit::to_json;

    use super::*;

    /// A state whose `std.native` has the natives, with default limits.
    fn state() -> State {
        state_with(Limits::default())
    }

    fn state_with(limits: Limits) -> State {
        let context = ContextInitializer::new(PathResolver::Absolute);
        register(&context, limits);
        let mut builder = State::builder();
        builder.context_initializer(context);
        builder.build()
    }

    /// The JSON value `code` evaluates to.
    fn eval(code: &str) -> serde_json::Value {
        let val = state()
            .evaluate_snippet("t.jsonnet", code)
            .unwrap_or_else(|error| panic!("{code}: {error}"));
        let node = to_node(&val, Span::default(), 64).unwrap();
        serde_json::from_str(&to_json(&node).unwrap()).unwrap()
    }

    /// The error message of evaluating `code`, which must fail.
    fn error(code: &str) -> String {
        match state().evaluate_snippet("t.jsonnet", code) {
            Ok(val) => panic!("{code} gave {val:?}, expected an error"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn parse_json_gives_the_value() {
        assert_eq!(
            eval(r#"std.native('parseJson')('{"foo": 3, "bar": [4, 0.5, null, true, "x"]}')"#),
            json!({"bar": [4, 0.5, null, true, "x"], "foo": 3})
        );
        assert_eq!(eval("std.native('parseJson')('null')"), json!(null));
        assert_eq!(
            eval(r#"local a = std.native('parseJson')('{"foo": 3, "bar": 4}'); a.foo + a.bar"#),
            json!(7)
        );
        // qbec's parameter name works as a named argument.
        assert_eq!(eval("std.native('parseJson')(json='[1]')"), json!([1]));
    }

    #[test]
    fn parse_json_errors_have_positions() {
        let message = error("std.native('parseJson')('{\\n  \"a\": 1,\\n  barf\\n}')");
        assert!(
            message.contains("parseJson: line 3, column 3: invalid json"),
            "{message}"
        );
        let message = error("std.native('parseJson')('barf{')");
        assert!(
            message.contains("parseJson: line 1, column 1:"),
            "{message}"
        );
        let message = error("std.native('parseJson')('')");
        assert!(
            message.contains("parseJson: the text holds no JSON value"),
            "{message}"
        );
        // Strict: YAML is not JSON.
        let message = error("std.native('parseJson')('a: 1')");
        assert!(message.contains("parseJson: line 1"), "{message}");
    }

    #[test]
    fn parse_yaml_always_gives_an_array() {
        assert_eq!(
            eval("std.native('parseYaml')('a: 1\\n---\\nb: 2')"),
            json!([{"a": 1}, {"b": 2}])
        );
        assert_eq!(
            eval("std.native('parseYaml')('a: [x, 2]')"),
            json!([{"a": ["x", 2]}])
        );
        assert_eq!(eval("std.native('parseYaml')('')"), json!([]));
        // Empty and null documents are left out, as qbec leaves out nils.
        assert_eq!(
            eval(
                "std.native('parseYaml')('---\\n---\\nhello\\n---\\nnull\\n---\\n~\\n---\\nworld')"
            ),
            json!(["hello", "world"])
        );
        assert_eq!(
            eval(
                "local a = std.native('parseYaml')('foo:\\n- 3\\n- 4\\n')[0]; a.foo[0] + a.foo[1]"
            ),
            json!(7)
        );
    }

    #[test]
    fn parse_yaml_errors_have_positions() {
        let message = error("std.native('parseYaml')('a: 1\\nb: [barf')");
        assert!(message.contains("parseYaml: line "), "{message}");
        assert!(message.contains("invalid yaml"), "{message}");
        let message = error("std.native('parseYaml')('a: 1\\na: 2')");
        assert!(
            message.contains("parseYaml: line 2, column 1: duplicate key `a`"),
            "{message}"
        );
    }

    #[test]
    fn parse_limits_apply() {
        let limits = Limits {
            max_bytes: 10,
            ..Limits::default()
        };
        let result = state_with(limits)
            .evaluate_snippet("t.jsonnet", "std.native('parseYaml')('a: 12345678901')");
        let message = result.unwrap_err().to_string();
        assert!(
            message.contains("more than the limit of 10 bytes"),
            "{message}"
        );
    }

    #[test]
    fn render_yaml_writes_documents() {
        assert_eq!(
            eval("std.native('renderYaml')({c: 'foo', a: 1, b: true, h:: 'hidden'})"),
            json!("a: 1\nb: true\nc: foo\n")
        );
        // An array is a stream, nulls left out.
        assert_eq!(
            eval("std.native('renderYaml')([{foo: 'bar'}, null, {foo: 'baz'}])"),
            json!("foo: bar\n---\nfoo: baz\n")
        );
        // Wrapped, an array is one document.
        assert_eq!(
            eval("std.native('renderYaml')([[1, 2]])"),
            json!("- 1\n- 2\n")
        );
        assert_eq!(eval("std.native('renderYaml')(null)"), json!(""));
        assert_eq!(eval("std.native('renderYaml')([])"), json!(""));
        assert_eq!(eval("std.native('renderYaml')('text')"), json!("text\n"));
    }

    #[test]
    fn render_yaml_round_trips_through_parse_yaml() {
        let code = "local data = [{a: 1, b: true, c: 'foo', d: [1.5, 'yes', null]}, {e: {}}];
            std.native('parseYaml')(std.native('renderYaml')(data)) == data";
        assert_eq!(eval(code), json!(true));
    }

    #[test]
    fn render_yaml_rejects_functions_and_deep_values() {
        let message = error("std.native('renderYaml')({f: function(x) x})");
        assert!(message.contains("a function cannot be output"), "{message}");
        let limits = Limits {
            max_depth: 3,
            ..Limits::default()
        };
        let result = state_with(limits).evaluate_snippet(
            "t.jsonnet",
            "std.native('renderYaml')({a: {b: {c: {d: 1}}}})",
        );
        let message = result.unwrap_err().to_string();
        assert!(message.contains("nested too deeply"), "{message}");
    }

    #[test]
    fn escape_string_regex_is_go_quote_meta() {
        assert_eq!(
            eval("std.native('escapeStringRegex')('[f]')"),
            json!("\\[f\\]")
        );
        assert_eq!(
            eval(r"std.native('escapeStringRegex')('a.b+c*d?e(f)g|h[i]j{k}l^m$n\\o-p#q&r~s')"),
            json!(r"a\.b\+c\*d\?e\(f\)g\|h\[i\]j\{k\}l\^m\$n\\o-p#q&r~s")
        );
        // What it escapes matches itself literally.
        assert_eq!(
            eval(
                "local s = 'a.b(c)-[d]'; \
                 std.native('regexMatch')('^' + std.native('escapeStringRegex')(s) + '$', s)"
            ),
            json!(true)
        );
    }

    #[test]
    fn regex_match_searches_anywhere() {
        assert_eq!(
            eval("std.native('regexMatch')('foo.*', 'seafood')"),
            json!(true)
        );
        assert_eq!(
            eval("std.native('regexMatch')('bar.*', 'seafood')"),
            json!(false)
        );
        assert_eq!(
            eval("std.native('regexMatch')('^sea', 'seafood')"),
            json!(true)
        );
        assert_eq!(
            eval("std.native('regexMatch')('^food', 'seafood')"),
            json!(false)
        );
        let message = error("std.native('regexMatch')('[f', 'foo')");
        assert!(
            message.contains("regexMatch: invalid regex '[f'"),
            "{message}"
        );
    }

    #[test]
    fn regex_subst_replaces_all_with_expansion() {
        assert_eq!(
            eval("std.native('regexSubst')('a(x*)b', '-ab-axxb-', 'T')"),
            json!("-T-T-")
        );
        assert_eq!(
            eval("std.native('regexSubst')('a(x*)b', '-ab-axxb-', '${1}W')"),
            json!("-W-xxW-")
        );
        // `$1W` names the group `1W`, which does not exist: empty, as in Go.
        assert_eq!(
            eval("std.native('regexSubst')('a(x*)b', '-ab-axxb-', '$1W')"),
            json!("---")
        );
        assert_eq!(
            eval("std.native('regexSubst')('(?P<k>\\\\w+)=(?P<v>\\\\w+)', 'a=1,b=2', '$v=$k')"),
            json!("1=a,2=b")
        );
        // The cache hands back the same pattern again.
        assert_eq!(
            eval("[std.native('regexSubst')('o', s, '0') for s in ['foo', 'boo']]"),
            json!(["f00", "b00"])
        );
        let message = error("std.native('regexSubst')('[f', 'foo', 'bar')");
        assert!(
            message.contains("regexSubst: invalid regex '[f'"),
            "{message}"
        );
    }

    /// Whether the labels match `selector`, through Jsonnet.
    fn selects(labels: &str, selector: &str) -> bool {
        let code = format!("std.native('labelsMatchSelector')({labels}, '{selector}')");
        match eval(&code) {
            serde_json::Value::Bool(b) => b,
            other => panic!("{code} gave {other}"),
        }
    }

    const LABELS: &str = "{env: 'dev', region: 'us-west', 'app.kubernetes.io/name': 'web', \
                          tier: '', replicas: '3'}";

    #[test]
    fn selectors_match_as_in_kubernetes() {
        let cases = [
            // qbec's own cases.
            ("env", true),
            ("!env", false),
            ("env,region", true),
            ("foo", false),
            ("region=us-west", true),
            ("env=prod", false),
            ("region=us-west,env=dev", true),
            ("region=us-west,!env", false),
            ("env in (prod, dev)", true),
            ("env notin (prod, dev)", false),
            // Equality spellings and whitespace.
            ("env==dev", true),
            ("  env  ==  dev  ,  region = us-west  ", true),
            ("env!=prod", true),
            ("env!=dev", false),
            // `!=` and `notin` match an absent key; `=` and `in` do not.
            ("owner!=me", true),
            ("owner notin (me, you)", true),
            ("owner=me", false),
            ("owner in (me)", false),
            ("!owner", true),
            // Prefixed keys.
            ("app.kubernetes.io/name=web", true),
            ("app.kubernetes.io/name in (api,worker)", false),
            ("app.kubernetes.io/name", true),
            ("!app.kubernetes.io/name", false),
            // Empty values.
            ("tier=", true),
            ("tier in ()", true),
            ("env in (,dev)", true),
            ("env in (prod,)", false),
            // `in` is a keyword only where an operator goes.
            ("in", false),
            ("env notin (in, notin)", true),
            // Integer comparisons.
            ("replicas>2", true),
            ("replicas<2", false),
            ("env>2", false),
            // The empty selector matches everything.
            ("", true),
            ("   ", true),
        ];
        for (selector, expected) in cases {
            assert_eq!(selects(LABELS, selector), expected, "selector {selector:?}");
        }
        assert!(selects("{}", ""));
        assert!(selects("{}", "!env"));
        assert!(!selects("{}", "env"));
    }

    #[test]
    fn malformed_selectors_are_errors() {
        let cases = [
            ("!!env", "found '!', expected a key"),
            (
                "env=dev,",
                "found the end of the selector, expected '!' or a key",
            ),
            (",env", "found ',', expected '!' or a key"),
            ("env dev", "found 'dev', expected one of '='"),
            ("env in dev", "found 'dev', expected '('"),
            ("env in (a b)", "found 'b', expected ',', ')' or a value"),
            (
                "env in (a",
                "found the end of the selector, expected ',', ')' or a value",
            ),
            (
                "env=a=b",
                "found '=', expected ',' or the end of the selector",
            ),
            (
                "!env=dev",
                "found '=', expected ',' or the end of the selector",
            ),
            ("env=(", "found '(', expected a value"),
            ("a/b/c", "more than one '/'"),
            ("Example.com/name", "the prefix must be a DNS subdomain"),
            ("/name", "the prefix must be a DNS subdomain"),
            ("-env", "the name must be"),
            ("example.com/", "the name must be"),
            ("env=-dev", "value '-dev'"),
            ("replicas>two", "'two' is not an integer"),
        ];
        for (selector, why) in cases {
            let message = error(&format!(
                "std.native('labelsMatchSelector')({LABELS}, '{selector}')"
            ));
            let prefix = format!("invalid label selector: '{selector}': ");
            assert!(message.contains(&prefix), "{selector:?}: {message}");
            assert!(message.contains(why), "{selector:?}: {message}");
        }
        let long = "a".repeat(64);
        let message = error(&format!(
            "std.native('labelsMatchSelector')({{}}, '{long}')"
        ));
        assert!(message.contains("the name must be 1 to 63"), "{message}");
    }

    #[test]
    fn labels_must_be_an_object_of_strings() {
        let message = error("std.native('labelsMatchSelector')({ foo: {} }, 'foo')");
        assert!(
            message.contains("invalid label map value for `foo`, object, want a string"),
            "{message}"
        );
        let message = error("std.native('labelsMatchSelector')({ foo: 1 }, 'foo')");
        assert!(message.contains("number, want a string"), "{message}");
        let message = error("std.native('labelsMatchSelector')([], 'foo')");
        assert!(message.contains("labels"), "{message}");
        let message = error("std.native('labelsMatchSelector')({}, {})");
        assert!(message.contains("selectorString"), "{message}");
        // Hidden fields are not labels.
        assert!(selects("{ foo:: {} }", "!foo"));
    }
}

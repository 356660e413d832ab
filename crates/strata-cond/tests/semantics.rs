//! Every operator and rule of the language, on a small configuration.
#![expect(
    clippy::panic,
    clippy::unwrap_used,
    reason = "a test stops at the first surprise"
)]

use strata_cond::{CondError, Host, HostError, condition, evaluate, parse};
use strata_syntax::{Diagnostic, Format, Limits, Node, SourceDb, Span};

struct Files;

impl Host for Files {
    fn jsonnet(&self, path: &str) -> Result<Node, HostError> {
        match path {
            "talos.jsonnet" => {
                let mut db = SourceDb::new();
                let id = db.add("t", "{worker_config_patches: [a, b], n: 2}");
                Ok(
                    strata_syntax::parse(&db, id, Format::Yaml, &Limits::default())
                        .documents
                        .remove(0),
                )
            }
            _ => Err(HostError::Call(format!("cannot read `{path}`"))),
        }
    }

    fn file(&self, path: &str) -> Result<String, HostError> {
        Ok(format!("contents of {path}"))
    }
}

fn config() -> Node {
    let mut db = SourceDb::new();
    let id = db.add(
        "values.yaml",
        "provider: aws
cluster:
  enabled: true
  driver: talos
  workers: {count: 3, size: 2.5}
  controlplanes: {nodes: {cp2: {ip: 10.0.0.2}, cp1: {ip: 10.0.0.1}}}
zones: [a, b]
name: shop
",
    );
    strata_syntax::parse(&db, id, Format::Yaml, &Limits::default())
        .documents
        .remove(0)
}

fn value(text: &str) -> serde_json::Value {
    let expr = parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    evaluate(&expr, &config(), &Files)
        .unwrap_or_else(|e| panic!("{text}: {e:?}"))
        .to_json_value()
}

fn error(text: &str) -> CondError {
    let expr = parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    evaluate(&expr, &config(), &Files).unwrap_err()
}

fn when(text: &str) -> Result<bool, CondError> {
    condition(text, &config(), &Files)
}

#[test]
fn comparison_and_logic() {
    for (text, expected) in [
        ("provider == 'aws'", true),
        ("provider != \"aws\"", false),
        ("provider == 'aws' && cluster.enabled == true", true),
        (
            "(provider == 'aws' || provider == 'azure') && cluster.enabled",
            true,
        ),
        ("cluster.enabled == true && cluster.driver == 'talos'", true),
        ("!cluster.enabled", false),
        ("not (provider == 'gcp')", true),
        (
            "cluster.workers.count > 2 and cluster.workers.count <= 3",
            true,
        ),
        (
            "cluster.workers.size >= 2.5 && cluster.workers.size < 3",
            true,
        ),
        ("'b' in zones", true),
        ("'c' not in zones", true),
        ("'b' not in zones", false),
        ("'workers' in cluster", true),
        ("'x' in missing", false),
        ("name < 'zoo'", true),
        ("1 == 1.0", true),
        ("zones == ['a', 'b']", true),
        ("missing == null", true),
        ("observability.enabled ?? false", false),
        ("observability.enabled", false),
        ("false || missing", false),
    ] {
        assert_eq!(when(text), Ok(expected), "{text}");
    }
}

#[test]
fn missing_paths_are_null_and_coalesce() {
    assert_eq!(
        value("cluster.endpoint ?? 'https://localhost:6443'"),
        "https://localhost:6443"
    );
    assert_eq!(value("a.b.c.d"), serde_json::Value::Null);
    assert_eq!(value("zones[5]"), serde_json::Value::Null);
    assert_eq!(value("zones[-1]"), "b");
    assert_eq!(value("zones[-3]"), serde_json::Value::Null);
    assert_eq!(value("cluster['workers'].count"), 3);
    assert_eq!(value("cluster.driver ?? 'x'"), "talos");
    // `??` binds tighter than `*`; mixing it with another operator on its
    // right needs parentheses, as in expr.
    assert_eq!(value("2 * missing ?? 1"), 2);
    assert_eq!(value("(missing ?? 1) + 2"), 3);
    assert!(parse("missing ?? 1 + 2").is_err());
}

#[test]
fn arithmetic_and_strings() {
    assert_eq!(value("cluster.workers.count + 2"), 5);
    assert_eq!(value("cluster.workers.count * 2 - 1"), 5);
    assert_eq!(value("cluster.workers.count / 2"), 1.5);
    assert_eq!(value("7 % 3"), 1);
    assert_eq!(value("cluster.workers.size * 2"), 5.0);
    assert_eq!(value("name + '-' + provider"), "shop-aws");
    assert_eq!(value("-cluster.workers.count"), -3);
}

#[test]
fn functions() {
    assert_eq!(
        value("values(cluster.controlplanes.nodes)"),
        serde_json::json!([{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}])
    );
    assert_eq!(
        value("jsonnet('talos.jsonnet').worker_config_patches"),
        serde_json::json!(["a", "b"])
    );
    assert_eq!(value("jsonnet(\"talos.jsonnet\").n + 1"), 3);
    assert_eq!(value("file('certs/tls.crt')"), "contents of certs/tls.crt");
}

#[test]
fn errors_say_what_and_where() {
    let e = error("name + 1");
    assert_eq!(
        (
            e.message.as_str(),
            e.range.clone(),
            matches!(e.code, strata_cond::codes::PARSE)
        ),
        ("`+` cannot take a string and an integer", 0..8, false)
    );
    let e = error("cluster.workers.missing > 2");
    assert_eq!(e.message, "`>` cannot take null and an integer");
    assert_eq!(
        e.help.as_deref(),
        Some("a missing value is `null`; give a default with `??`")
    );
    assert_eq!(
        error("name.first").message,
        "cannot read the field `first` of a string"
    );
    assert_eq!(error("1 / 0").message, "division by zero");
    assert_eq!(error("5 % 0").message, "remainder of a division by zero");
    assert_eq!(error("9223372036854775807 + 1").message, "`+` overflows");
    let e = error("valuez(cluster)");
    assert_eq!(
        (e.message.as_str(), e.help.as_deref()),
        (
            "there is no function `valuez`",
            Some("did you mean `values`?")
        )
    );
    assert_eq!(
        error("values(zones)").message,
        "`values` takes a mapping, found a list"
    );
    assert_eq!(error("values(zones)").range, 7..12);
    assert_eq!(
        error("jsonnet('nope.jsonnet')").message,
        "cannot read `nope.jsonnet`"
    );
    assert_eq!(
        error("cluster.enabled && name").message,
        "`&&` takes booleans, found a string"
    );
    assert_eq!(error("cluster.enabled && name").range, 19..23);
    let e = when("cluster.workers.count").unwrap_err();
    assert_eq!(
        (e.message.as_str(), e.range),
        ("a condition must be true or false, found integer", 0..21)
    );
}

#[test]
fn short_circuits_skip_the_other_side() {
    // The right sides would fail if evaluated.
    assert_eq!(when("false && name.first"), Ok(false));
    assert_eq!(when("true || name.first"), Ok(true));
    assert_eq!(value("provider ?? name.first"), "aws");
}

/// A host whose Jsonnet fails where its code is written.
struct FailingJsonnet(Span);

impl Host for FailingJsonnet {
    fn jsonnet(&self, _path: &str) -> Result<Node, HostError> {
        let failure = Diagnostic::error(
            strata_syntax::Code::new("jsonnet/eval"),
            "no cluster",
            self.0,
        );
        Err(HostError::Failed(Box::new(failure)))
    }

    fn file(&self, path: &str) -> Result<String, HostError> {
        Err(HostError::Call(format!("cannot read `{path}`")))
    }
}

#[test]
fn a_failing_host_is_reported_where_it_failed_with_the_call_beside() {
    let mut db = SourceDb::new();
    let jsonnet = db.add("broken.jsonnet", "error 'no cluster'\n");
    let text = "jsonnet('broken.jsonnet').x == 1";
    let feature = db.add("feature.yaml", format!("when: {text}\n"));
    let scalar = Span::new(feature, 6, 6 + text.len());
    let host = FailingJsonnet(Span::new(jsonnet, 0, 18));
    let error = condition(text, &config(), &host).unwrap_err();
    let diagnostic = error.diagnostic(&db, scalar, text);
    assert_eq!(diagnostic.code, "jsonnet/eval");
    assert_eq!(diagnostic.primary.span.source, jsonnet);
    // The call is the secondary place: `jsonnet('broken.jsonnet')`.
    let call = diagnostic.secondary[0].span;
    assert_eq!(db.snippet(call), "jsonnet('broken.jsonnet')");
    // A call that fails by itself is reported at the call.
    let text = "file('x.txt') == ''";
    let error = condition(text, &config(), &host).unwrap_err();
    assert_eq!(error.message, "cannot read `x.txt`");
    assert!(error.cause.is_none());
}

//! What a long session meets: checks overtaken by edits, Jsonnet imports and
//! capabilities files to navigate, broken framing and malformed messages,
//! and evaluation stopped at its memory and time budgets.

use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Client, Opened, example, labels, markdown, open_example, places, position_of, uri_of};
use crate::qbec;

/// Changes that come faster than checks: a check that a newer change
/// overtook is dropped, so the last diagnostics published for the file
/// are those of its last text, whatever the order the checks end in.
#[test]
fn an_overtaken_check_publishes_nothing_after_the_last() {
    let (_scratch, catalogue) = example("platform/catalogue");
    let path = catalogue.join("blueprints/go-services.yaml");
    let uri = uri_of(&path);
    let saved = std::fs::read_to_string(&path).expect("the blueprint");
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(
        &uri,
        "yaml",
        &saved.replace("template: go", "template: pyhton"),
    );
    assert_eq!(client.diagnostics_for(&uri).len(), 1);
    for version in 2..12 {
        let text = if version % 2 == 0 {
            saved.replace("template: go", &format!("template: go{version}"))
        } else {
            saved.clone()
        };
        client.change(&uri, version, &text);
    }
    client.change(&uri, 12, &saved);
    // Wait out the debounce and the check, then end the session: the last
    // diagnostics published for the file are empty.
    std::thread::sleep(Duration::from_millis(1500));
    client.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    let mut last = None;
    loop {
        let message = client.next();
        if message["id"] == json!(2) {
            break;
        }
        if message["params"]["uri"] == uri {
            last = Some(message["params"]["diagnostics"].clone());
        }
    }
    assert_eq!(last, Some(json!([])));
    client.notify("exit", &Value::Null);
    assert!(client.server.wait().expect("the server exits").success());
}

/// In a qbec application's Jsonnet: an import leads to the file it
/// resolves to (here through `libPaths`), and references gather every
/// import of that file.
#[test]
fn jsonnet_imports_lead_to_their_files() {
    let Opened {
        scratch: _scratch,
        root: app,
        path: _,
        uri,
        text,
        mut client,
    } = open_example("components", "components/api.jsonnet", "jsonnet");
    let (line, column) = position_of(&text, "import 'k.libsonnet'", "k.libsonnet");
    let definition = client.at("textDocument/definition", &uri, line, column, Value::Null);
    assert_eq!(definition["uri"], uri_of(&app.join("lib/k.libsonnet")));
    assert_eq!(
        definition["range"]["start"],
        json!({"line": 0, "character": 0})
    );
    let references = client.at(
        "textDocument/references",
        &uri,
        line,
        column,
        json!({"context": {"includeDeclaration": false}}),
    );
    assert_eq!(
        places(&references, &app),
        [
            format!("components/api.jsonnet:{line}:{}", column - 1),
            "components/worker/index.jsonnet:1:17".to_owned()
        ]
    );
    client.finish();
}

/// In a capabilities package: a trait's `type` that names one of the
/// package's definitions leads to it, a built-in trait's or a component's
/// `type` shows the objects it builds, and the outline of `app.yaml` lists
/// its components.
#[test]
fn navigation_in_a_capabilities_package() {
    let Opened {
        scratch: _scratch,
        root: package,
        path: _,
        uri,
        text,
        mut client,
    } = open_example("capabilities", "shop/app.yaml", "yaml");
    let (line, column) = position_of(&text, "- type: redis-sidecar", "redis-sidecar");
    let definition = client.at(
        "textDocument/definition",
        &uri,
        line,
        column + 3,
        Value::Null,
    );
    assert_eq!(
        definition["uri"],
        uri_of(&package.join("shop/definitions/redis-sidecar.yaml"))
    );
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 3, "character": 8}, "end": {"line": 3, "character": 21}})
    );
    let hover = client.at("textDocument/hover", &uri, line, column + 3, Value::Null);
    assert!(
        markdown(&hover).starts_with(
            "capability `redis-sidecar`: Injects a Redis sidecar container alongside the main workload."
        ),
        "{hover}"
    );
    let completion = client.at("textDocument/completion", &uri, line, column, Value::Null);
    assert_eq!(labels(&completion), ["redis-sidecar"], "{completion}");
    // A built-in trait's `type`: the objects it builds.
    let (line, column) = position_of(&text, "- type: scaler", "scaler");
    let hover = client.at("textDocument/hover", &uri, line, column + 2, Value::Null);
    assert_eq!(
        markdown(&hover),
        "`scaler` builds:\n- HorizontalPodAutoscaler `web-hpa`",
        "{hover}"
    );
    let (line, column) = position_of(&text, "- type: expose", "expose");
    let hover = client.at("textDocument/hover", &uri, line, column + 2, Value::Null);
    assert_eq!(
        markdown(&hover),
        "`expose` builds, by the profile's `controllerType`:\n\n`ingress`:\n- Ingress `web-ingress`\n\n`gateway`:\n- HTTPRoute `web-httproute`",
        "{hover}"
    );
    let (line, column) = position_of(&text, "type: worker", "worker");
    let hover = client.at("textDocument/hover", &uri, line, column + 2, Value::Null);
    assert_eq!(
        markdown(&hover),
        "`worker` builds:\n- Deployment `orders`\n- ServiceAccount `orders`",
        "{hover}"
    );
    let symbols = client.at("textDocument/documentSymbol", &uri, 0, 0, Value::Null);
    let names: Vec<&str> = symbols
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|symbol| symbol["name"].as_str())
        .collect();
    assert_eq!(names, ["web", "orders"], "{symbols}");
    client.finish();
}

/// A `Content-Length` past the bound ends the session before any byte of
/// the body is read: status 1 and a message on standard error, never a
/// signal (`9223372036854775807` aborted the server, `3000000000` made it
/// allocate 2.9 GB), whatever the number, one too large to count included.
#[test]
fn a_length_past_the_bound_ends_the_session_with_a_message() {
    for length in [
        "9223372036854775807",
        "3000000000",
        "67108865",
        "99999999999999999999999",
    ] {
        let mut client = Client::start();
        client.initialize(None, None);
        client.send_raw(format!("Content-Length: {length}\r\n\r\n").as_bytes());
        let status = client.ended(Duration::from_secs(10));
        assert_eq!(
            (status.code(), status.signal()),
            (Some(1), None),
            "{length}: {status}"
        );
        let stderr = client.stderr();
        assert!(
            stderr.contains(&format!(
                "error: the language server stopped: a message of {length} bytes is longer than the limit of 67108864 bytes (`--max-message-bytes`)"
            )),
            "{length}: {stderr}"
        );
    }
}

/// A body is read as it arrives: a client that announces 3,000,000,000
/// bytes (the bound raised to allow them) and sends ten costs the server
/// what it sent, not the announced length; a stream that ends inside the
/// body ends the session with a message, and a broken header too.
#[test]
fn a_body_is_read_as_it_arrives_and_broken_framing_ends_the_session() {
    let mut client = Client::start_with(&["--max-message-bytes", "4GiB"]);
    client.initialize(None, None);
    client.send_raw(b"Content-Length: 3000000000\r\n\r\n{\"jsonrpc\"");
    std::thread::sleep(Duration::from_millis(500));
    let status = std::fs::read_to_string(format!("/proc/{}/status", client.server.id()))
        .expect("the server's status");
    let resident_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|line| line.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
        .expect("VmRSS");
    assert!(
        resident_kib < 200 << 10,
        "the server holds {resident_kib} KiB"
    );
    let Client { input, .. } = &mut client;
    drop(std::mem::replace(
        input,
        Command::new("true")
            .stdin(Stdio::piped())
            .spawn()
            .expect("a placeholder")
            .stdin
            .take()
            .expect("its stdin"),
    ));
    let status = client.ended(Duration::from_secs(10));
    assert_eq!((status.code(), status.signal()), (Some(1), None));
    assert!(
        client
            .stderr()
            .contains("the stream ended 10 bytes into a message of 3000000000 bytes"),
        "{}",
        client.stderr()
    );

    for (stream, said) in [
        (
            "Content-Length: ten\r\n\r\n",
            "`Content-Length: ten` is not a length",
        ),
        (
            "Content-Type: x\r\n\r\n{}",
            "a message has no `Content-Length` header",
        ),
        (
            "Content-Length 2\r\n\r\n{}",
            "`Content-Length 2` is not a header",
        ),
    ] {
        let mut client = Client::start();
        client.initialize(None, None);
        client.send_raw(stream.as_bytes());
        let status = client.ended(Duration::from_secs(10));
        assert_eq!(
            (status.code(), status.signal()),
            (Some(1), None),
            "{stream}"
        );
        assert!(
            client.stderr().contains(said),
            "{stream}: {}",
            client.stderr()
        );
    }
}

/// Every body that is no message is answered as JSON-RPC says (`-32700`
/// for what is not JSON, `-32600` for JSON that is no request, `id: null`
/// unless it had a usable one) and the session goes on; requests before
/// `initialize`, a second `initialize` and requests after `shutdown` are
/// answered errors; a lone surrogate escape (what JavaScript writes for a
/// broken pair) is read as U+FFFD, so the change that holds it applies.
#[test]
fn malformed_messages_are_answered_and_the_session_goes_on() {
    let (_scratch, catalogue) = example("platform/catalogue");
    let path = catalogue.join("blueprints/go-services.yaml");
    let uri = uri_of(&path);
    let saved = std::fs::read_to_string(&path).expect("the blueprint");
    let mut client = Client::start();
    let early = client.request(1, "textDocument/hover", &json!({}));
    assert_eq!(early["error"]["code"], json!(-32002), "{early}");
    client.initialize(None, None);
    let again = client.request(2, "initialize", &json!({"capabilities": {}}));
    assert_eq!(again["error"]["code"], json!(-32600), "{again}");

    let malformed: [(&[u8], i64, Value); 9] = [
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\"",
            -32700,
            Value::Null,
        ),
        (b"[]", -32600, Value::Null),
        (
            b"[{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"shutdown\"}]",
            -32600,
            Value::Null,
        ),
        (b"42", -32600, Value::Null),
        (b"null", -32600, Value::Null),
        (b"\"shutdown\"", -32600, Value::Null),
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"\xff\xfe\"}",
            -32700,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": 42}",
            -32600,
            json!(6),
        ),
        (b"{\"jsonrpc\": \"2.0\", \"id\": 7}", -32600, json!(7)),
    ];
    for (body, code, id) in malformed {
        client.send_body(body);
        let answer = client.next();
        assert_eq!(
            (&answer["error"]["code"], &answer["id"]),
            (&json!(code), &id),
            "{}: {answer}",
            String::from_utf8_lossy(body)
        );
    }

    // Still serving: a broken buffer is published, and a change holding a
    // lone surrogate applies (the fix clears the diagnostic).
    client.open(
        &uri,
        "yaml",
        &saved.replace("template: go", "template: pyhton"),
    );
    assert_eq!(client.diagnostics_for(&uri).len(), 1);
    let fixed = serde_json::to_string(&format!("{saved}# broken \u{1}\n"))
        .expect("a JSON string")
        .replace("\\u0001", "\\ud83d");
    let change = format!(
        r#"{{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {{"textDocument": {{"uri": "{uri}", "version": 2}}, "contentChanges": [{{"text": {fixed}}}]}}}}"#
    );
    client.send_body(change.as_bytes());
    assert_eq!(client.diagnostics_for(&uri), Vec::<Value>::new());
    let symbols = client.at("textDocument/documentSymbol", &uri, 0, 0, Value::Null);
    assert_eq!(symbols[0]["name"], "go-services", "{symbols}");

    let shutdown = client.request(8, "shutdown", &Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    let late = client.request(9, "textDocument/hover", &json!({}));
    assert_eq!(late["error"]["code"], json!(-32600), "{late}");
    client.notify("exit", &Value::Null);
    assert!(client.ended(Duration::from_secs(10)).success());
}

/// A Windsor project in `dir` whose feature calls `jsonnet()` on `program`
/// (`contexts/_template/features/bomb.jsonnet`).
fn windsor_project(dir: &Path, program: &str) {
    let template = dir.join("contexts/_template");
    std::fs::create_dir_all(template.join("features")).expect("folders");
    std::fs::write(
        dir.join("windsor.yaml"),
        "version: v1alpha1\ncontexts:\n  local:\n    provider: local\n",
    )
    .expect("windsor.yaml");
    std::fs::write(
        template.join("blueprint.yaml"),
        "kind: Blueprint\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata: {name: a}\n",
    )
    .expect("the blueprint");
    std::fs::write(
        template.join("features/a.yaml"),
        "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata: {name: a}\nkustomize:\n  - name: a\n    path: a\n    substitutions:\n      x: ${jsonnet('bomb.jsonnet')}\n",
    )
    .expect("the feature");
    std::fs::write(template.join("features/bomb.jsonnet"), program).expect("the program");
}

/// A request to the project of `uri` and one to another project's `other`,
/// each answered within three seconds although `uri`'s check evaluates
/// without end, and `uri`'s next diagnostics: those of the stopped check.
fn answered_while_running_away(client: &mut Client, uri: &str, other: &str) -> Vec<Value> {
    for (id, document) in [(20, uri), (21, other)] {
        let asked = Instant::now();
        let answer = client.request(
            id,
            "textDocument/documentSymbol",
            &json!({"textDocument": {"uri": document}}),
        );
        assert!(answer.get("error").is_none(), "{answer}");
        assert!(
            asked.elapsed() < Duration::from_secs(3),
            "{document} answered after {:?}",
            asked.elapsed()
        );
    }
    client.diagnostics_for(uri)
}

/// Jsonnet that allocates without end, in a qbec component and in a
/// features `jsonnet()` file, is evaluated in a child process stopped at
/// the check's memory budget: each is published as `lsp/check-memory` at
/// its file while requests, on its project and on another, are answered
/// at once; the server goes on and ends with status 0.
#[test]
fn evaluation_that_allocates_without_end_is_stopped_at_the_budget() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let app = scratch.path().join("app");
    qbec::qbec_app(&app, "a.jsonnet", "std.makeArray(1e9, function(i) i)\n");
    let component = uri_of(&app.join("components/a.jsonnet"));
    let windsor = scratch.path().join("windsor");
    windsor_project(&windsor, "std.makeArray(1e9, function(i) i)\n");
    let feature = uri_of(&windsor.join("contexts/_template/features/a.yaml"));
    let program = uri_of(&windsor.join("contexts/_template/features/bomb.jsonnet"));
    let (_catalogue_scratch, catalogue) = example("platform/catalogue");
    let blueprint = catalogue.join("blueprints/go-services.yaml");
    let other = uri_of(&blueprint);

    let mut client = Client::start_with(&["--check-memory", "256MiB", "--check-time", "60s"]);
    client.initialize(None, None);
    let text = std::fs::read_to_string(&blueprint).expect("the blueprint");
    client.open(&other, "yaml", &text);
    client.open(&component, "jsonnet", "std.makeArray(1e9, function(i) i)\n");
    let diagnostics = answered_while_running_away(&mut client, &component, &other);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "lsp/check-memory");
    assert_eq!(
        diagnostics[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
    );
    let message = diagnostics[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(
            "the check stopped evaluating component `a`: it held more than 256 MiB of memory"
        ),
        "{message}"
    );

    let written = std::fs::read_to_string(windsor.join("contexts/_template/features/a.yaml"))
        .expect("the feature");
    client.open(&feature, "yaml", &written);
    let asked = Instant::now();
    let symbols = client.at("textDocument/documentSymbol", &feature, 0, 0, Value::Null);
    assert!(asked.elapsed() < Duration::from_secs(3), "{symbols}");
    let diagnostics = client.diagnostics_for(&program);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "lsp/check-memory");
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m
                .starts_with("the check stopped evaluating `jsonnet(\"features/bomb.jsonnet\")`")),
        "{}",
        diagnostics[0]
    );
    // A hover on the call evaluates nothing: it answers at once.
    let hover = client.at("textDocument/hover", &feature, 7, 9, Value::Null);
    assert!(
        markdown(&hover).contains("not evaluated on hover, it calls `jsonnet()`"),
        "{hover}"
    );
    client.finish();
}

/// A component that loops (a fold over a billion numbers, in little
/// memory) is stopped at the check's time budget and published as
/// `lsp/check-time` at its file, while requests on its project and on
/// another are answered at once; fixed, it is checked again and cleared.
#[test]
fn evaluation_that_loops_is_stopped_at_the_time_budget() {
    let looping = "std.foldl(function(sum, i) sum + i, std.range(1, 1e9), 0)\n";
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let app = scratch.path().join("app");
    qbec::qbec_app(&app, "a.jsonnet", looping);
    let component = uri_of(&app.join("components/a.jsonnet"));
    let (_catalogue_scratch, catalogue) = example("platform/catalogue");
    let blueprint = catalogue.join("blueprints/go-services.yaml");
    let other = uri_of(&blueprint);

    let mut client = Client::start_with(&["--check-time", "2s"]);
    client.initialize(None, None);
    let text = std::fs::read_to_string(&blueprint).expect("the blueprint");
    client.open(&other, "yaml", &text);
    client.open(&component, "jsonnet", looping);
    let started = Instant::now();
    let diagnostics = answered_while_running_away(&mut client, &component, &other);
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "lsp/check-time");
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m
                .starts_with("the check stopped evaluating component `a`: it ran longer than 2s")),
        "{}",
        diagnostics[0]
    );
    client.change(
        &component,
        2,
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }\n",
    );
    assert_eq!(client.diagnostics_for(&component), Vec::<Value>::new());
    client.finish();
}

//! `strata lsp` through the binary, speaking the protocol over stdio: the
//! handshake, diagnostics published for an unsaved buffer with their exact
//! range and code, cleared when the buffer is fixed, a request the server
//! does not offer, and shutdown.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{Value, json};

mod support;

/// A client: the server's stdin, and the messages it sends.
struct Client {
    server: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
}

impl Client {
    fn start() -> Client {
        let mut server = Command::new(env!("CARGO_BIN_EXE_strata"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("strata lsp starts");
        let input = server.stdin.take().expect("stdin");
        let output = server.stdout.take().expect("stdout");
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if output.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(value) = line.strip_prefix("Content-Length: ") {
                        length = value.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                output.read_exact(&mut body).expect("a body");
                let message = serde_json::from_slice(&body).expect("a JSON message");
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Client {
            server,
            input,
            messages,
        }
    }

    /// `initialize` with `options` as the initialization options (and
    /// `root` as the root URI), then `initialized`.
    fn initialize(&mut self, root: Option<&Path>, options: Option<Value>) -> Value {
        let root = root.map(|root| format!("file://{}", root.display()));
        let mut params = json!({"processId": null, "rootUri": root, "capabilities": {}});
        if let Some(options) = options {
            params["initializationOptions"] = options;
        }
        let answer = self.request(1, "initialize", &params);
        self.notify("initialized", &json!({}));
        answer
    }

    fn open(&mut self, uri: &str, language: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            &json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        );
    }

    fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            &json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    /// `shutdown`, then `exit`: the server ends with status 0.
    fn finish(mut self) {
        self.request(99, "shutdown", &Value::Null);
        self.notify("exit", &Value::Null);
        let status = self.server.wait().expect("the server exits");
        assert!(status.success(), "{status}");
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("a message");
        self.input.flush().expect("flushed");
    }

    fn request(&mut self, id: i64, method: &str, params: &Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn notify(&mut self, method: &str, params: &Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn next(&self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(30))
            .expect("the server answers within 30 s")
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics_for(&self, uri: &str) -> Vec<Value> {
        loop {
            let message = self.next();
            if message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["uri"] == uri
            {
                return message["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
            }
        }
    }
}

#[test]
fn diagnostics_follow_the_buffer_and_clear_when_it_is_fixed() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let catalogue = scratch.path().join("catalogue");
    support::copy_tree(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/platform/catalogue"),
        &catalogue,
    );
    let file = catalogue.join("blueprints/go-services.yaml");
    let uri = format!("file://{}", file.display());
    let saved = std::fs::read_to_string(&file).expect("the blueprint");

    let mut client = Client::start();
    let initialized = client.initialize(None, None);
    assert_eq!(
        initialized["result"]["capabilities"]["textDocumentSync"],
        json!(1),
        "{initialized}"
    );

    // An unsaved typo in the template's name: published at the name.
    let broken = saved.replace("template: go", "template: pyhton");
    client.open(&uri, "yaml", &broken);
    let diagnostics = client.diagnostics_for(&uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let diagnostic = &diagnostics[0];
    assert_eq!(diagnostic["code"], "platform/unknown-template");
    assert_eq!(diagnostic["severity"], 1);
    assert_eq!(diagnostic["source"], "strata");
    assert_eq!(
        diagnostic["range"],
        json!({"start": {"line": 2, "character": 10}, "end": {"line": 2, "character": 16}})
    );
    assert!(
        diagnostic["message"].as_str().is_some_and(|m| m
            .starts_with("blueprint `go-services` names an unknown template `pyhton`")
            && m.contains("help: did you mean `python`?")),
        "{diagnostic}"
    );

    // Fixed in the buffer (not saved): the marks go.
    client.change(&uri, 2, &saved);
    assert_eq!(client.diagnostics_for(&uri), Vec::<Value>::new());

    let hover = client.request(
        2,
        "textDocument/hover",
        &json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(hover["error"]["code"], json!(-32601), "{hover}");

    let shutdown = client.request(3, "shutdown", &Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    client.notify("exit", &Value::Null);
    let status = client.server.wait().expect("the server exits");
    assert!(status.success(), "{status}");
}

#[test]
fn a_file_outside_every_project_gets_nothing() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let file = scratch.path().join("loose.yaml");
    let uri = format!("file://{}", file.display());
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&uri, "yaml", "a: [\n");
    // The next message is the answer to shutdown: nothing was published.
    client.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    let answer = client.next();
    assert_eq!(answer["id"], json!(2), "{answer}");
    client.notify("exit", &Value::Null);
    assert!(client.server.wait().expect("the server exits").success());
}

/// `exit` without `shutdown` ends the server with status 1, as the
/// protocol says.
#[test]
fn exit_without_shutdown_is_status_1() {
    let mut client = Client::start();
    client.initialize(None, None);
    client.notify("exit", &Value::Null);
    let status = client.server.wait().expect("the server exits");
    assert_eq!(status.code(), Some(1), "{status}");
}

/// Each dialect's project is found (by its marker, or by what the file
/// says it is): a broken buffer in a qbec application, a Windsor project, a
/// capabilities package and a spec blueprint is published with its code,
/// and cleared when fixed.
#[test]
fn every_dialect_finds_its_project() {
    let cases = [
        (
            "components",
            "qbec.yaml",
            "componentsDir: components",
            "componentDir: components",
            "schema/unknown-key",
        ),
        (
            "features",
            "contexts/_template/features/sizing.yaml",
            "kind: Feature",
            "kind: Featur",
            "schema/enum",
        ),
        (
            "capabilities",
            "shop/app.yaml",
            "kind: Application",
            "kind: Applicaton",
            "capabilities/wrong-kind",
        ),
        (
            "spec",
            "blueprint.yaml",
            "    type: string",
            "    typ: string",
            "schema/unknown-key",
        ),
    ];
    for (example, file, good, bad, code) in cases {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let project = scratch.path().join(example);
        support::copy_tree(
            &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../examples")
                .join(example),
            &project,
        );
        let path = project.join(file);
        let uri = format!("file://{}", path.display());
        let saved = std::fs::read_to_string(&path).expect("the file");
        assert!(saved.contains(good), "{file} holds `{good}`");
        let mut client = Client::start();
        client.initialize(None, None);
        client.open(&uri, "yaml", &saved.replace(good, bad));
        let diagnostics = client.diagnostics_for(&uri);
        assert!(
            diagnostics.iter().any(|d| d["code"] == code),
            "{example}: {diagnostics:?}"
        );
        client.change(&uri, 2, &saved);
        assert_eq!(
            client.diagnostics_for(&uri),
            Vec::<Value>::new(),
            "{example}"
        );
        client.finish();
    }
}

/// What only a render finds is published too, noted with the environment
/// it is in: a component whose evaluation fails.
#[test]
fn render_problems_are_published_with_their_environment() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let app = scratch.path();
    let good = "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }\n";
    support::qbec_app(app, "a.jsonnet", good);
    let uri = format!("file://{}", app.join("components/a.jsonnet").display());

    let mut client = Client::start();
    client.initialize(None, None);
    let broken = "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: error 'no data' } }\n";
    client.open(&uri, "jsonnet", broken);
    let diagnostics = client.diagnostics_for(&uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "jsonnet/eval");
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no data") && m.contains("note: in environment `dev`")),
        "{}",
        diagnostics[0]
    );
    client.change(&uri, 2, good);
    assert_eq!(client.diagnostics_for(&uri), Vec::<Value>::new());
    client.finish();
}

/// A project the client names in its initialization options needs no
/// marker: a catalogue without `.strata.yaml`, its root given relative to
/// the workspace.
#[test]
fn initialization_options_name_projects() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let catalogue = scratch.path().join("catalogue");
    std::fs::create_dir_all(&catalogue).expect("a folder");
    let file = catalogue.join("a.yaml");
    std::fs::write(&file, "name: a\nimage: x\n").expect("a blueprint");
    let uri = format!("file://{}", file.display());
    let mut client = Client::start();
    client.initialize(
        Some(scratch.path()),
        Some(json!({"projects": [{"root": "catalogue", "dialect": "platform"}]})),
    );
    client.open(
        &uri,
        "yaml",
        "name: a\nimage: x\nimagePullPolicy: Sometimes\n",
    );
    let diagnostics = client.diagnostics_for(&uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({"line": 2, "character": 17})
    );
    client.finish();
}

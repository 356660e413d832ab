//! `strata lsp` through the binary, speaking the protocol over stdio: the
//! handshake, diagnostics published for an unsaved buffer with their exact
//! range and code, cleared when the buffer is fixed (a spec edit reaching
//! an unchanged resource that reads the edited one); hover, definition,
//! references, symbols and completion in each dialect with their exact
//! ranges and contents; a request the server does not offer; shutdown;
//! and Neovim as a real client.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "lsp/limits.rs"]
mod limits;
#[path = "lsp/navigation.rs"]
mod navigation;
#[path = "lsp/neovim.rs"]
mod neovim;

#[path = "support/qbec.rs"]
mod qbec;
mod support;

/// A client: the server's stdin, the messages it sends, and what it
/// writes on standard error.
struct Client {
    server: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    stderr: Arc<Mutex<String>>,
}

impl Client {
    fn start() -> Client {
        Client::start_with(&[])
    }

    /// `strata lsp ARGS`.
    fn start_with(args: &[&str]) -> Client {
        let mut server = Command::new(env!("CARGO_BIN_EXE_strata"))
            .arg("lsp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("strata lsp starts");
        let input = server.stdin.take().expect("stdin");
        let output = server.stdout.take().expect("stdout");
        let stderr = Arc::new(Mutex::new(String::new()));
        let errors = server.stderr.take().expect("stderr");
        let written = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(errors).lines().map_while(Result::ok) {
                written
                    .lock()
                    .expect("not poisoned")
                    .push_str(&(line + "\n"));
            }
        });
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
            stderr,
        }
    }

    /// What the server wrote on standard error so far.
    fn stderr(&self) -> String {
        self.stderr.lock().expect("not poisoned").clone()
    }

    /// How the server ended, which it must within `within`.
    fn ended(&mut self, within: Duration) -> ExitStatus {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.server.try_wait().expect("the server's status") {
                return status;
            }
            assert!(Instant::now() < deadline, "the server is still running");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `bytes` as they are, no framing added.
    fn send_raw(&mut self, bytes: &[u8]) {
        self.input.write_all(bytes).expect("written");
        self.input.flush().expect("flushed");
    }

    /// `body` framed, whatever it holds.
    fn send_body(&mut self, body: &[u8]) {
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        self.send_raw(&[header.as_bytes(), body].concat());
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
        self.send_body(message.to_string().as_bytes());
    }

    fn request(&mut self, id: i64, method: &str, params: &Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer_to(&json!(id))
    }

    /// The next response with `id`.
    fn answer_to(&self, id: &Value) -> Value {
        loop {
            let message = self.next();
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// The result of `method` at `line`:`character` of `uri`, with `extra`
    /// parameters.
    fn at(
        &mut self,
        method: &str,
        uri: &str,
        line: usize,
        character: usize,
        extra: Value,
    ) -> Value {
        let mut params = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        if let Value::Object(extra) = extra {
            params.as_object_mut().expect("an object").extend(extra);
        }
        let answer = self.request(7, method, &params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
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

    let formatting = client.request(
        2,
        "textDocument/formatting",
        &json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(formatting["error"]["code"], json!(-32601), "{formatting}");
    // A request whose parameters do not parse: the protocol's invalid params.
    let hover = client.request(
        3,
        "textDocument/hover",
        &json!({"textDocument": {"uri": uri}, "position": "nowhere"}),
    );
    assert_eq!(hover["error"]["code"], json!(-32602), "{hover}");

    let shutdown = client.request(4, "shutdown", &Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    client.notify("exit", &Value::Null);
    let status = client.server.wait().expect("the server exits");
    assert!(status.success(), "{status}");
}

/// After a change, the edited file's diagnostics are published before
/// those of the other files the check found problems in.
#[test]
fn the_edited_file_is_published_first() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let catalogue = scratch.path().join("catalogue");
    support::copy_tree(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/platform/catalogue"),
        &catalogue,
    );
    // Another file, before the edited one by name, broken on disk.
    let other = catalogue.join("blueprints/aaa.yaml");
    std::fs::write(
        &other,
        "name: aaa
image: x
unknownKey: 1
",
    )
    .expect("written");
    let other_uri = format!("file://{}", other.display());
    let file = catalogue.join("blueprints/go-services.yaml");
    let uri = format!("file://{}", file.display());
    let saved = std::fs::read_to_string(&file).expect("the blueprint");

    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&uri, "yaml", &saved);
    assert_eq!(client.diagnostics_for(&other_uri).len(), 1);
    client.change(&uri, 2, &saved.replace("template: go", "template: pyhton"));
    let published: Vec<Value> = std::iter::repeat_with(|| client.next())
        .filter(|message| message["method"] == "textDocument/publishDiagnostics")
        .take(2)
        .collect();
    let uris: Vec<&Value> = published.iter().map(|m| &m["params"]["uri"]).collect();
    assert_eq!(uris, [&json!(uri), &json!(other_uri)]);
    client.finish();
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
/// capabilities package (its kind, and its Application checked without a
/// cluster profile) and a spec blueprint is published with its code, and
/// cleared when fixed.
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
        // Checked without a cluster profile: the Application's own rules.
        (
            "capabilities",
            "shop/app.yaml",
            "type: webservice",
            "type: webservic",
            "capabilities/unknown-component",
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

/// A spec blueprint edited in the editor is checked again only where the
/// edit can change something, and what it finds is a fresh check's: with
/// `orders` made a mapping, `alarm` (before it, its entry unchanged)
/// reads it again and is reported at its own line; fixed, every mark goes.
#[test]
fn a_spec_edit_reaches_a_resource_that_reads_the_edited_one() {
    const SAVED: &str = r#"version: 2023-04-20
resources:
  alarm:
    type: aws/cloudwatch/alarm
    spec:
      alarmName: "${to_upper(resources.orders.spec.tableName)}-alarm"
  orders:
    type: aws/dynamodb/table
    spec:
      tableName: "orders"
  handler:
    type: aws/lambda/function
    spec:
      table: "${resources.orders.spec.tableName}"
"#;
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let path = scratch.path().join("blueprint.yaml");
    std::fs::write(&path, SAVED).expect("the blueprint is written");
    let uri = uri_of(&path);
    let mut client = Client::start();
    client.initialize(None, None);

    // An unknown key in the last resource: the first check.
    let unknown = SAVED.replace(
        "    type: aws/lambda/function\n",
        "    type: aws/lambda/function\n    unknownKey: 1\n",
    );
    client.open(&uri, "yaml", &unknown);
    let first = client.diagnostics_for(&uri);
    assert!(
        first.iter().any(|d| d["code"] == "schema/unknown-key"),
        "{first:?}"
    );

    // `orders` gives a mapping: `alarm`, unchanged before it, is checked again.
    let mapping = SAVED.replace(r#"tableName: "orders""#, "tableName: {nested: 1}");
    client.change(&uri, 2, &mapping);
    let reached = client.diagnostics_for(&uri);
    let alarm_line = mapping
        .lines()
        .position(|line| line.contains("alarmName"))
        .expect("the alarm's field");
    assert!(
        reached
            .iter()
            .any(|d| d["range"]["start"]["line"] == json!(alarm_line)),
        "{reached:?}"
    );
    assert!(
        reached.iter().all(|d| d["code"] != "schema/unknown-key"),
        "{reached:?}"
    );

    client.change(&uri, 3, SAVED);
    assert_eq!(client.diagnostics_for(&uri), Vec::<Value>::new());
    client.finish();
}

/// What only a render finds is published too, noted with the environment
/// it is in: a component whose evaluation fails.
#[test]
fn render_problems_are_published_with_their_environment() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let app = scratch.path();
    let good = "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }\n";
    qbec::qbec_app(app, "a.jsonnet", good);
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

/// A copy of `examples/NAME` in a scratch folder.
fn example(name: &str) -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let project = scratch.path().join(name);
    support::copy_tree(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(name),
        &project,
    );
    (scratch, project)
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// An example copied to a scratch folder, with one of its files open in a
/// started session.
struct Opened {
    scratch: tempfile::TempDir,
    root: PathBuf,
    path: PathBuf,
    uri: String,
    text: String,
    client: Client,
}

/// `examples/EXAMPLE` copied, a session initialized, and `file` (below the
/// copy) opened as `language` with its text on disk.
fn open_example(example_name: &str, file: &str, language: &str) -> Opened {
    let (scratch, root) = example(example_name);
    let path = root.join(file);
    let uri = uri_of(&path);
    let text = std::fs::read_to_string(&path).expect("the file");
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&uri, language, &text);
    Opened {
        scratch,
        root,
        path,
        uri,
        text,
        client,
    }
}

/// The line of `text` holding `holding`, and the column of `word` on it.
fn position_of(text: &str, holding: &str, word: &str) -> (usize, usize) {
    let line = text
        .lines()
        .position(|line| line.contains(holding))
        .expect("the line");
    let column = text
        .lines()
        .nth(line)
        .and_then(|l| l.find(word))
        .expect("the word");
    (line, column)
}

/// The labels of a completion answer.
fn labels(completion: &Value) -> Vec<String> {
    completion
        .as_array()
        .expect("a list of completions")
        .iter()
        .filter_map(|item| item["label"].as_str().map(str::to_owned))
        .collect()
}

/// Each location of an answer as `file:line:character`, the file below `root`.
fn places(locations: &Value, root: &Path) -> Vec<String> {
    let root = uri_of(root);
    let mut places: Vec<String> = locations
        .as_array()
        .expect("a list of locations")
        .iter()
        .map(|location| {
            let file = location["uri"].as_str().unwrap_or_default();
            format!(
                "{}:{}:{}",
                file.strip_prefix(&format!("{root}/")).unwrap_or(file),
                location["range"]["start"]["line"],
                location["range"]["start"]["character"]
            )
        })
        .collect();
    places.sort();
    places
}

/// The Markdown of a hover answer.
fn markdown(hover: &Value) -> &str {
    hover["contents"]["value"].as_str().unwrap_or_default()
}

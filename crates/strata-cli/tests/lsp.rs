//! `strata lsp` through the binary, speaking the protocol over stdio: the
//! handshake, diagnostics published for an unsaved buffer with their exact
//! range and code, cleared when the buffer is fixed; hover, definition,
//! references, symbols and completion in each dialect with their exact
//! ranges and contents; a request the server does not offer; shutdown;
//! and Neovim as a real client.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

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

/// In a platform catalogue: `template:` leads to the parent and back, a
/// value's hover says where the composed value came from and what it
/// overrides, an `!include` leads to its file, and the outline lists a
/// file's blueprints.
#[test]
fn navigation_in_a_platform_catalogue() {
    let (_scratch, catalogue) = example("platform/catalogue");
    let child = uri_of(&catalogue.join("blueprints/go-services.yaml"));
    let languages = uri_of(&catalogue.join("templates/languages.yaml"));
    let base = uri_of(&catalogue.join("templates/base.yaml"));
    let text = std::fs::read_to_string(catalogue.join("blueprints/go-services.yaml"))
        .expect("the blueprint");
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&child, "yaml", &text);

    // `template: go` (line 3) leads to `name: go` in languages.yaml (line 24).
    let definition = client.at("textDocument/definition", &child, 2, 11, Value::Null);
    assert_eq!(definition["uri"], languages, "{definition}");
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 23, "character": 10}, "end": {"line": 23, "character": 12}})
    );
    let references = client.at(
        "textDocument/references",
        &languages,
        23,
        11,
        json!({"context": {"includeDeclaration": true}}),
    );
    assert_eq!(
        places(&references, &catalogue),
        [
            "blueprints/go-services.yaml:2:10",
            "templates/languages.yaml:23:10"
        ]
    );
    let hover = client.at("textDocument/hover", &child, 2, 11, Value::Null);
    assert_eq!(
        markdown(&hover),
        format!(
            "template `go`: Go development\n\ndefined at {}:24",
            catalogue.join("templates/languages.yaml").display()
        )
    );
    assert_eq!(
        hover["range"],
        json!({"start": {"line": 2, "character": 10}, "end": {"line": 2, "character": 12}})
    );

    // `image` of base (line 4): composed there, overridden by the languages.
    let hover = client.at("textDocument/hover", &base, 3, 10, Value::Null);
    let explained = markdown(&hover);
    assert!(
        explained.starts_with("**`image`** in blueprint `base`\n\n- composed: `\"registry.example.com/workspaces/base:2024.10\"` from `base`"),
        "{explained}"
    );
    assert!(
        explained.contains("- overridden in `go`: `\"registry.example.com/workspaces/go:1.23\"`"),
        "{explained}"
    );
    // `hostname: !cel ...` of base (line 6): its value against the test scope.
    let hover = client.at("textDocument/hover", &base, 5, 20, Value::Null);
    assert!(
        markdown(&hover)
            .contains("- against the test scope: `\"strata-test-strata-test.dev.example.com\"`"),
        "{hover}"
    );
    // `image` of go: overrides base's.
    let hover = client.at("textDocument/hover", &languages, 27, 12, Value::Null);
    assert!(
        markdown(&hover).contains(
            "- overrides: `\"registry.example.com/workspaces/base:2024.10\"` from `base`"
        ),
        "{hover}"
    );

    // `!include ../shared/security-context.yaml` leads to the file's start.
    let definition = client.at("textDocument/definition", &base, 23, 30, Value::Null);
    assert_eq!(
        definition["uri"],
        uri_of(&catalogue.join("shared/security-context.yaml"))
    );
    assert_eq!(
        definition["range"]["start"],
        json!({"line": 0, "character": 0})
    );

    let symbols = client.at("textDocument/documentSymbol", &languages, 0, 0, Value::Null);
    let names: Vec<&str> = symbols
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|symbol| symbol["name"].as_str())
        .collect();
    assert_eq!(names, ["python", "go"], "{symbols}");
    assert_eq!(symbols[1]["kind"], json!(11), "a template is an interface");
    assert_eq!(
        symbols[1]["selectionRange"]["start"],
        json!({"line": 23, "character": 10})
    );

    client.finish();
}

/// Completion in a platform catalogue: the names of the blueprints that
/// can be parents after `template:`, the keys of the schema not written
/// yet with their docs, an enum's values.
#[test]
fn completion_in_a_platform_catalogue() {
    let (_scratch, catalogue) = example("platform/catalogue");
    let path = catalogue.join("blueprints/go-services.yaml");
    let child = uri_of(&path);
    let text = std::fs::read_to_string(&path).expect("the blueprint");
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&child, "yaml", &text);
    // After `template: `: the blueprints that can be parents.
    let completion = client.at("textDocument/completion", &child, 2, 12, Value::Null);
    let offered = labels(&completion);
    for name in ["base", "data-science", "go", "python"] {
        assert!(offered.contains(&name.to_owned()), "{offered:?}");
    }
    // A new key in `podman:`: its keys not written yet, with their docs.
    let mut edited = text.replace("  enabled: true\n", "  enabled: true\n  \n");
    client.change(&child, 2, &edited);
    let completion = client.at("textDocument/completion", &child, 5, 2, Value::Null);
    let offered = labels(&completion);
    assert_eq!(
        offered,
        ["resources", "extFiles", "storages", "securityContext"],
        "the keys of `podman` not written yet"
    );
    assert_eq!(
        completion[0]["documentation"], "Its resources.",
        "{completion}"
    );
    // Inside a `!cel` expression: the functions it may call.
    edited = text.replace("podman:\n", "hostname: !cel \"s\npodman:\n");
    client.change(&child, 3, &edited);
    let completion = client.at("textDocument/completion", &child, 3, 17, Value::Null);
    let offered = labels(&completion);
    assert!(
        offered.contains(&"size".to_owned()) && offered.contains(&"env".to_owned()),
        "{offered:?}"
    );
    // An enum's values after its key.
    edited = text.replace("podman:\n", "imagePullPolicy: \npodman:\n");
    client.change(&child, 4, &edited);
    let completion = client.at("textDocument/completion", &child, 3, 17, Value::Null);
    assert_eq!(labels(&completion), ["Always", "Never", "IfNotPresent"]);
    client.finish();
}

/// In a Windsor project: a `dependsOn` entry leads to the kustomization,
/// the outline lists a feature, and completion offers what can be
/// depended on.
#[test]
fn navigation_in_a_windsor_project() {
    let (_scratch, project) = example("features");
    let stack = project.join("contexts/_template/features/observability/stack.yaml");
    let uri = uri_of(&stack);
    let text = std::fs::read_to_string(&stack).expect("the feature");
    let (line, column) = position_of(&text, "dependsOn: [ingress]", "ingress");
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&uri, "yaml", &text);
    let definition = client.at(
        "textDocument/definition",
        &uri,
        line,
        column + 1,
        Value::Null,
    );
    let target = definition["uri"].as_str().expect("a location");
    let file = target.strip_prefix("file://").expect("a file URI");
    let defined = std::fs::read_to_string(file).expect("the defining file");
    let at = &definition["range"]["start"];
    let defining_line = defined
        .lines()
        .nth(usize::try_from(at["line"].as_u64().expect("a line")).expect("a line"))
        .expect("the line");
    assert!(
        defining_line.contains("name: ingress"),
        "{definition}: {defining_line}"
    );
    let hover = client.at("textDocument/hover", &uri, line, column + 1, Value::Null);
    assert!(
        markdown(&hover).starts_with("kustomization `ingress`\n\ndefined at "),
        "{hover}"
    );
    // A value of a feature's component: when it applies, what it merges into.
    let aws = project.join("contexts/_template/features/aws.yaml");
    let hover = client.at("textDocument/hover", &uri_of(&aws), 21, 14, Value::Null);
    assert_eq!(
        markdown(&hover),
        format!(
            "**`terraform[2].inputs.cloud`** of feature `aws`\n\n- applies when `provider == 'aws'`\n- merges into the blueprint's entry ({}:16)\n",
            project.join("contexts/_template/blueprint.yaml").display()
        )
    );
    // Inside `${`: the functions of the expressions.
    let completion = client.at(
        "textDocument/completion",
        &uri_of(&aws),
        16,
        21,
        Value::Null,
    );
    assert_eq!(
        labels(&completion),
        ["values", "jsonnet", "file"],
        "{completion}"
    );
    // A feature's `when`, in each context.
    let hover = client.at("textDocument/hover", &uri_of(&aws), 5, 8, Value::Null);
    assert_eq!(
        markdown(&hover),
        "**`when`** of feature `aws`\n\n- in context `local`: `false`\n- in context `aws`: `true`\n"
    );
    let hover = client.at("textDocument/hover", &uri_of(&aws), 16, 24, Value::Null);
    let explained = markdown(&hover);
    assert!(
        explained.starts_with(
            "**`terraform[1].inputs.node_count`** of feature `aws`\n\n- in context `local`: `"
        ),
        "{explained}"
    );
    let symbols = client.at("textDocument/documentSymbol", &uri, 0, 0, Value::Null);
    assert_eq!(symbols[0]["name"], "observability", "{symbols}");
    assert_eq!(symbols[0]["kind"], json!(2), "a feature is a module");
    let completion = client.at("textDocument/completion", &uri, line, column, Value::Null);
    assert!(
        labels(&completion).contains(&"ingress".to_owned()),
        "{completion}"
    );
    client.finish();
}

/// In a spec blueprint: `${variables.environment}` leads to the variable,
/// whose hover gives its type, references gather its uses, and a function
/// name's hover gives its signature.
#[test]
fn navigation_in_a_spec_blueprint() {
    let Opened {
        scratch: _scratch,
        root: _,
        path: _,
        uri,
        text,
        mut client,
    } = open_example("spec", "blueprint.yaml", "yaml");
    // Line 37: `    value: ordersApi-${variables.environment}`.
    let line = text.lines().nth(36).expect("line 37");
    let column = line.find("variables.environment").expect("the reference") + 12;
    let definition = client.at("textDocument/definition", &uri, 36, column, Value::Null);
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 6, "character": 2}, "end": {"line": 6, "character": 13}})
    );
    let hover = client.at("textDocument/hover", &uri, 36, column, Value::Null);
    assert!(
        markdown(&hover).starts_with("variable `environment`: variable of type string"),
        "{hover}"
    );
    let references = client.at(
        "textDocument/references",
        &uri,
        6,
        4,
        json!({"context": {"includeDeclaration": false}}),
    );
    let uses = text.matches("variables.environment").count();
    assert_eq!(
        references.as_array().map(Vec::len),
        Some(uses),
        "{references}"
    );
    // Line 46: `    value: ${eq(variables.environment, "production")}`: a boolean.
    let hover = client.at("textDocument/hover", &uri, 45, 42, Value::Null);
    assert_eq!(
        markdown(&hover),
        "**`values.isProduction.value`**: of type boolean"
    );
    // Line 40: `    value: ${map(split(...), trim)}`: `split`'s signature.
    let line = text.lines().nth(39).expect("line 40");
    let column = line.find("split").expect("split") + 1;
    let hover = client.at("textDocument/hover", &uri, 39, column, Value::Null);
    assert!(markdown(&hover).contains("split("), "{hover}");
    let completion = client.at("textDocument/completion", &uri, 39, column, Value::Null);
    assert!(
        labels(&completion).contains(&"substr".to_owned()),
        "{completion}"
    );
    client.finish();
}

/// In a qbec application: a name in `includes` leads to the component's
/// file, and the outline of `qbec.yaml` lists its environments.
#[test]
fn navigation_in_a_qbec_application() {
    let Opened {
        scratch: _scratch,
        root: app,
        path,
        uri,
        text,
        mut client,
    } = open_example("components", "qbec.yaml", "yaml");
    let (line, column) = position_of(&text, "includes: [debug-tools]", "debug-tools");
    let definition = client.at(
        "textDocument/definition",
        &uri,
        line,
        column + 2,
        Value::Null,
    );
    assert_eq!(
        definition["uri"],
        uri_of(&app.join("components/debug-tools.jsonnet")),
        "{definition}"
    );
    let references = client.at(
        "textDocument/references",
        &uri,
        line,
        column + 2,
        json!({"context": {"includeDeclaration": false}}),
    );
    assert_eq!(
        references.as_array().map(Vec::len),
        Some(2),
        "the excludes and the includes"
    );
    let hover = client.at("textDocument/hover", &uri, line, column + 2, Value::Null);
    assert!(
        markdown(&hover).starts_with("component `debug-tools`: Jsonnet component\n\ndefined at "),
        "{hover}"
    );
    let symbols = client.at("textDocument/documentSymbol", &uri, 0, 0, Value::Null);
    let environments: Vec<&str> = symbols
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(environments.contains(&"dev"), "{symbols}");
    // A property of `dev` and the base property it overrides.
    let debug = text
        .lines()
        .position(|line| line.trim() == "logLevel: debug")
        .expect("dev's logLevel");
    let hover = client.at("textDocument/hover", &uri, debug, 20, Value::Null);
    assert_eq!(
        markdown(&hover),
        format!(
            "**`properties.logLevel`** of environment `dev`\n\n- overrides `\"info\"` from `baseProperties` ({}:16)\n",
            path.display()
        )
    );
    let hover = client.at("textDocument/hover", &uri, 12, 14, Value::Null);
    let explained = markdown(&hover);
    assert!(
        explained.starts_with("**`baseProperties.replicas`**")
            && explained.contains("- environment `dev` keeps it")
            && explained.contains("- overridden in environment `prod`: `3`"),
        "{explained}"
    );
    // The keys of `dev` not written yet (`includes` is on the cursor's line).
    let completion = client.at("textDocument/completion", &uri, line, 6, Value::Null);
    assert_eq!(
        labels(&completion),
        ["context", "includes", "excludes"],
        "{completion}"
    );
    client.finish();
}

/// `nvim`, installed from Debian's packages when missing.
fn neovim() -> &'static str {
    let found = |program: &str| {
        Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|output| output.status.success())
    };
    if !found("nvim") {
        let install = || {
            Command::new("apt-get")
                .args(["install", "-y", "-q", "neovim"])
                .status()
                .is_ok_and(|status| status.success())
        };
        let installed = install()
            || (Command::new("apt-get")
                .args(["update", "-q"])
                .status()
                .is_ok_and(|status| status.success())
                && install());
        assert!(
            installed,
            "nvim is missing and `apt-get install neovim` failed"
        );
    }
    "nvim"
}

/// A real editor as the client: headless Neovim (Debian's package,
/// installed with `apt-get` when `nvim` is missing) runs
/// `tests/neovim/session.lua`, which starts `strata lsp` with Neovim's own
/// LSP client on the example catalogue, breaks and fixes a blueprint in
/// the buffer, and asks for a definition. The test checks what Neovim
/// holds: the diagnostic with its code and columns, its clearing, the
/// location it was given, and the server's status after Neovim stops it.
#[test]
fn neovim_shows_diagnostics_and_follows_a_definition() {
    let nvim = neovim();
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let catalogue = scratch.path().join("catalogue");
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    support::copy_tree(
        &manifest.join("../../examples/platform/catalogue"),
        &catalogue,
    );
    let out = scratch.path().join("seen.json");
    let status = Command::new(nvim)
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!(
            "luafile {}",
            manifest.join("tests/neovim/session.lua").display()
        ))
        .env("STRATA", env!("CARGO_BIN_EXE_strata"))
        .env("ROOT", &catalogue)
        .env("FILE", catalogue.join("blueprints/go-services.yaml"))
        .env("OUT", &out)
        .env("HOME", scratch.path())
        .status()
        .expect("nvim runs");
    let seen: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&out).expect("the session wrote what it saw"),
    )
    .expect("JSON");
    assert!(status.success() && seen["ok"] == true, "{status}: {seen}");
    let broken = &seen["broken"];
    assert_eq!(broken["code"], "platform/unknown-template", "{seen}");
    assert_eq!(
        (&broken["line"], &broken["col"], &broken["end_col"]),
        (&2.into(), &10.into(), &16.into()),
        "{seen}"
    );
    assert!(
        broken["message"]
            .as_str()
            .is_some_and(|message| message.contains("unknown template `pyhton`")),
        "{seen}"
    );
    assert_eq!(seen["fixed"], 0);
    assert_eq!(
        seen["exit"], 0,
        "the server's status after shutdown and exit"
    );
    let definition = &seen["definition"];
    let definition = if definition.is_array() {
        &definition[0]
    } else {
        definition
    };
    assert_eq!(
        definition["uri"],
        format!(
            "file://{}",
            catalogue.join("templates/languages.yaml").display()
        )
    );
    assert_eq!(
        definition["range"]["start"],
        serde_json::json!({"line": 23, "character": 10})
    );
}

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
/// package's definitions leads to it, and the outline of `app.yaml` lists
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

//! A dialect the server has never heard of, defined here and added to a
//! registry built here, is served like the five: its diagnostics are
//! published, its symbols listed, its values explained on hover. Adding a
//! dialect to the language server is adding its entry to the registry the
//! server is given; the server's own code does not change.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a test stops at the first surprise"
)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use strata_dialect::{
    Category, Describe, Dialect, Expect, Files, Opened, Options, Outline, Place, Read, Reader,
    Registry, Symbol, SymbolKind,
};
use strata_syntax::{Diagnostic, Format, Node, Outcome, SourceDb, Span};

/// An item of a tiny list.
const ITEM: SymbolKind = SymbolKind::new("item", Category::Variable);

/// The tiny dialect: a folder holding `tiny.marker` is a project, its
/// `items.yaml` a mapping of names to words, and the word `bad` a problem.
struct Tiny {
    sources: Arc<SourceDb>,
    items: Node,
}

impl Dialect for Tiny {
    type Settings = ();
    type Request = ();
    type Rendered = ();

    fn open(files: Arc<dyn Files>, options: Options<()>) -> Opened<Tiny> {
        let mut db = SourceDb::new();
        let read = Reader::new(files.as_ref(), &mut db, options.limits).read(
            Path::new("items.yaml"),
            Format::Yaml,
            Expect::One,
            Place::File,
        );
        let items = Outcome::new(read.value.and_then(Read::into_document), read.diagnostics);
        Opened::freeze(db, |sources| {
            items.and_then(|items| {
                let problems = items
                    .as_map()
                    .into_iter()
                    .flat_map(|map| map.values())
                    .filter(|entry| entry.value.as_str() == Some("bad"))
                    .map(|entry| {
                        Diagnostic::error(
                            strata_syntax::Code::new("tiny/bad"),
                            "a bad item",
                            entry.value.span,
                        )
                    })
                    .collect();
                Outcome::new(
                    Some(Tiny {
                        sources: sources.clone(),
                        items,
                    }),
                    problems,
                )
            })
        })
    }

    fn sources(&self) -> &Arc<SourceDb> {
        &self.sources
    }

    fn render(&self, (): &(), _: &mut SourceDb) -> Outcome<()> {
        Outcome::ok(())
    }

    fn outline(&self, _: &mut SourceDb) -> Outline {
        let symbols = self
            .items
            .as_map()
            .into_iter()
            .flat_map(|map| map.iter())
            .map(|(name, entry)| Symbol {
                name: name.clone(),
                kind: ITEM,
                span: entry.value.span,
                name_span: entry.key_span,
                detail: None,
            })
            .collect();
        Outline {
            symbols,
            ..Outline::default()
        }
    }

    fn explain(&self, _: &SourceDb, at: Span) -> Option<String> {
        self.items
            .as_map()?
            .values()
            .find(|entry| entry.value.span.contains(at))
            .map(|entry| format!("the tiny word `{}`", entry.value.as_str().unwrap_or("?")))
    }
}

impl Describe for Tiny {
    const NAME: &'static str = "tiny";
    const MARKERS: &'static [&'static str] = &["tiny.marker"];
    const SYMBOL_KINDS: &'static [SymbolKind] = &[ITEM];
}

/// The client's side of an in-memory session.
struct Client {
    connection: Connection,
    next: i32,
}

impl Client {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        let request = Request::new(id.clone(), method.to_owned(), params);
        self.connection.sender.send(request.into()).unwrap();
        loop {
            match self.receive() {
                Message::Response(response) if response.id == id => {
                    return response.result.unwrap_or(Value::Null);
                }
                _ => {}
            }
        }
    }

    fn notify(&self, method: &str, params: Value) {
        let notification = Notification::new(method.to_owned(), params);
        self.connection.sender.send(notification.into()).unwrap();
    }

    fn receive(&self) -> Message {
        self.connection
            .receiver
            .recv_timeout(Duration::from_secs(20))
            .expect("the server answers")
    }

    /// The next diagnostics published for `uri` that are not empty.
    fn diagnostics(&self, uri: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Message::Notification(notification) = self.receive()
                && notification.method == "textDocument/publishDiagnostics"
                && notification.params["uri"] == uri
                && notification.params["diagnostics"]
                    .as_array()
                    .is_some_and(|found| !found.is_empty())
            {
                return notification.params["diagnostics"].clone();
            }
        }
        panic!("no diagnostics for {uri}");
    }
}

#[test]
fn a_dialect_defined_here_is_served_by_its_registry_entry() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().canonicalize().unwrap();
    std::fs::write(root.join("tiny.marker"), "").unwrap();
    let text = "good: fine\nbroken: bad\n";
    std::fs::write(root.join("items.yaml"), text).unwrap();
    let uri = format!("file://{}", root.join("items.yaml").display());

    let (server, client) = Connection::memory();
    let settings = strata_lsp::Settings {
        registry: Registry::new(vec![strata_dialect::Entry::of::<Tiny>()]),
        ..strata_lsp::Settings::default()
    };
    let session = std::thread::spawn(move || strata_lsp::serve(&server, &settings));
    let mut client = Client {
        connection: client,
        next: 0,
    };
    client.request("initialize", json!({"capabilities": {}}));
    client.notify("initialized", json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
    );

    let diagnostics = client.diagnostics(&uri);
    assert_eq!(diagnostics[0]["code"], "tiny/bad");
    assert_eq!(
        diagnostics[0]["range"],
        json!({"start": {"line": 1, "character": 8}, "end": {"line": 1, "character": 11}})
    );

    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|symbol| symbol["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["good", "broken"]);
    assert_eq!(symbols[0]["kind"], 13, "an item is drawn as a variable");

    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 8}}),
    );
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(shown.contains("the tiny word `fine`"), "{hover}");
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}}),
    );
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(shown.starts_with("item `broken`"), "{hover}");

    client.request("shutdown", Value::Null);
    client.notify("exit", Value::Null);
    session.join().unwrap().unwrap();
}

//! Time from a change notification to published diagnostics, on the inputs
//! of the dialects' own benchmarks, written to disk: the 1,000-blueprint
//! platform catalogue, the 200-component qbec application and the Windsor
//! project (each generator included with `#[path = ...]`).
//!
//! The server runs as in an editor session (`strata_lsp::serve` on an
//! in-memory connection, its debounce included). Each iteration sends one
//! `didChange` of the edited file and waits for that file's
//! `publishDiagnostics`; iterations alternate a broken text and the saved
//! one (published empty), so every change publishes. The catalogue's edit
//! is an unknown key in a blueprint file (the whole catalogue still loads
//! and checks); the application's, a failing expression in a component
//! (every environment still renders); the project's, an unknown key in a
//! feature file (found on opening, so no context is composed: the broken
//! half is the cheaper one).
//!
//! Run with:
//!
//! ```text
//! cargo bench -p strata-lsp --bench latency
//! ```
#![expect(
    clippy::expect_used,
    reason = "a benchmark stops on an input that is not what it claims"
)]

#[path = "../../strata-platform/examples/support/catalogue.rs"]
#[expect(
    dead_code,
    reason = "only the files are written here; the platform benchmark checks the other facts"
)]
mod catalogue;

#[path = "../../strata-components/examples/support/app.rs"]
mod app;

#[path = "../../strata-features/examples/support/project.rs"]
#[expect(
    dead_code,
    reason = "only the files are written here; the features benchmark checks the other facts"
)]
mod project;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use strata_fs::Files;

/// The allocator of the `strata` binary, so that what is measured is what runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A project on disk, the file the benchmark edits and the line that
/// breaks it.
struct Input {
    name: &'static str,
    _dir: tempfile::TempDir,
    edited: PathBuf,
    breaking: &'static str,
}

/// The first file (by name) below `folder` of `dir` whose name ends with
/// `suffix` and whose text holds `holding`.
fn pick(dir: &tempfile::TempDir, folder: &str, suffix: &str, holding: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir.path().join(folder))
        .expect("the folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.to_string_lossy().ends_with(suffix))
        .filter(|path| std::fs::read_to_string(path).is_ok_and(|text| text.contains(holding)))
        .collect();
    found.sort();
    found.into_iter().next().expect("a file to edit")
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
    std::fs::write(path, text).expect("a file");
}

fn inputs() -> Vec<Input> {
    let platform = tempfile::tempdir().expect("a folder");
    for (path, text) in catalogue::generate().files {
        write(platform.path(), &path, &text);
    }
    let components = tempfile::tempdir().expect("a folder");
    app::write_app(components.path(), app::DEFAULT_COMPONENTS).expect("the application");
    let features = tempfile::tempdir().expect("a folder");
    let generated = project::generate(project::Size::BENCH);
    for path in generated.project.list(&[]).expect("the files").files {
        let text = generated.project.read(&path, usize::MAX).expect("a file");
        write(features.path(), &path.to_string_lossy(), &text);
    }
    vec![
        Input {
            name: "platform catalogue, 1,000 blueprints",
            edited: pick(&platform, "workspaces/python", ".yaml", "\nname:"),
            breaking: "unknownBenchKey: 1",
            _dir: platform,
        },
        Input {
            name: "components application, 200 components",
            edited: pick(&components, "components", ".jsonnet", ""),
            breaking: "+ error 'broken by the benchmark'",
            _dir: components,
        },
        Input {
            name: "features project",
            edited: pick(&features, "contexts/_template/features", ".yaml", ""),
            breaking: "unknownBenchKey: 1",
            _dir: features,
        },
    ]
}

/// The next `publishDiagnostics` for `uri`, with how many diagnostics.
fn published(client: &Connection, uri: &str) -> usize {
    loop {
        let message = client
            .receiver
            .recv_timeout(Duration::from_mins(1))
            .expect("diagnostics within a minute");
        if let Message::Notification(notification) = message
            && notification.method == "textDocument/publishDiagnostics"
            && notification.params["uri"] == uri
        {
            return notification.params["diagnostics"]
                .as_array()
                .map_or(0, Vec::len);
        }
    }
}

fn notify(client: &Connection, method: &str, params: Value) {
    client
        .sender
        .send(Message::Notification(Notification::new(
            method.to_owned(),
            params,
        )))
        .expect("sent");
}

fn latency(c: &mut Criterion) {
    let mut group = c.benchmark_group("change to diagnostics");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for input in inputs() {
        let (client, server) = Connection::memory();
        let session = std::thread::spawn(move || {
            strata_lsp::serve(
                &server,
                &strata_lsp::Settings {
                    registry: strata_dialects::registry(),
                    ..strata_lsp::Settings::default()
                },
            )
        });
        client
            .sender
            .send(Message::Request(Request::new(
                RequestId::from(1),
                "initialize".to_owned(),
                json!({"processId": null, "rootUri": null, "capabilities": {}}),
            )))
            .expect("sent");
        assert!(matches!(
            client.receiver.recv().expect("an answer"),
            Message::Response(_)
        ));
        notify(&client, "initialized", json!({}));
        let uri = format!("file://{}", input.edited.display());
        let saved = std::fs::read_to_string(&input.edited).expect("the file");
        let broken = format!("{saved}\n{}\n", input.breaking);
        notify(
            &client,
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 0, "text": broken}}),
        );
        assert!(
            published(&client, &uri) > 0,
            "{}: the broken text is published",
            input.name
        );
        let mut version = 0;
        group.bench_function(input.name, |b| {
            b.iter(|| {
                version += 1;
                let text = if version % 2 == 0 { &broken } else { &saved };
                notify(
                    &client,
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
                );
                let count = published(&client, &uri);
                assert_eq!(count == 0, version % 2 == 1, "{}: what was published", input.name);
            });
        });
        drop(client);
        session
            .join()
            .expect("the session ends")
            .expect("without an error");
    }
    group.finish();
}

criterion_group!(benches, latency);
criterion_main!(benches);

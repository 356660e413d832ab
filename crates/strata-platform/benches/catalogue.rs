//! Load and render time for a realistic platform catalogue.
//!
//! The input is a generated catalogue of 1,000 blueprints in 100 files
//! (`examples/support/catalogue.rs`): a root template, three layers of
//! templates below it, and 915 concrete workspaces at the bottom, so every
//! concrete chain is five blueprints long. Every blueprint has environment
//! maps, storages with `claimSpec`s, `initScripts`, apps and `!cel` scalars
//! (host names, storage paths from `user.username`, variables from
//! `workspaceName` and `metadata`); the root and the language templates
//! `!include` shared fragments. The files are held in a `MemoryFs`, so no
//! disk is measured.
//!
//! Groups:
//!
//! - `parse`: register every file's text in a fresh `SourceDb` and parse it
//!   with `strata_syntax::parse`, the baseline (byte throughput);
//! - `load`: `Catalogue::open`, which reads and parses every file, expands
//!   includes, resolves every chain, compiles every `!cel` scalar and
//!   renders every concrete blueprint once against `Scope::test` (byte
//!   throughput);
//! - `reopen`: `Dialect::reopen` of the catalogue (opened for
//!   reopening) after one workspace file changed (one description
//!   edited), as the language server reopens a project after a keystroke:
//!   every file is read, the changed one parsed, its blueprint and those
//!   inheriting from it resolved and checked again, the rest reused;
//! - `render`: `Catalogue::render` of one concrete workspace (15 `!cel`
//!   scalars over its chain) against a request scope, as renders per second.
//!   Each result is dropped inside the timed part, as the service frees a
//!   result once it is written: holding a whole sample's results (thousands)
//!   and freeing them afterwards made the allocator fault in fresh zeroed
//!   pages for every sample, a third of the time measured and no part of
//!   serving.
//!
//! Before timing, the catalogue is checked to be what this says: the file
//! and blueprint counts, every concrete chain five long, every `!cel`
//! scalar parsed as one, and a load without a single diagnostic. `parse`
//! and `load` drop their results outside the timed part.
//!
//! `parse` and `load` take tens and hundreds of milliseconds an iteration,
//! so they sample flat (one iteration a sample) with 50 and the minimum of
//! 10 samples; `load` still needs about five seconds, and criterion may
//! say it cannot quite fit them in the measurement time below.
//!
//! Run with:
//!
//! ```text
//! cargo bench -p strata-platform --bench catalogue -- --warm-up-time 1 --measurement-time 5
//! ```
#![expect(
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    reason = "a benchmark stops on an input that is not what it claims, and reports what it measured"
)]

#[path = "../examples/support/catalogue.rs"]
mod catalogue;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput};
use strata_fs::{Files, MemoryFs};
use strata_platform::{Catalogue, Dialect, Options, RenderRequest, Scope, Settings};
use strata_syntax::{Format, Limits, Node, Segment, SourceDb, Span, Value, parse};

/// The allocator of the `strata` binary, so that what is measured is what runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Registers and parses every file; each must parse cleanly.
fn parse_all(files: &[(String, Arc<str>)]) -> (SourceDb, Vec<Node>) {
    let limits = Limits::default();
    let mut db = SourceDb::new();
    let mut documents = Vec::new();
    for (path, text) in files {
        let id = db.add(path.as_str(), Arc::clone(text));
        let parsed = parse(&db, id, Format::Yaml, &limits);
        debug_assert!(!parsed.has_errors(), "{path}: {:?}", parsed.diagnostics);
        documents.extend(parsed.documents);
    }
    (db, documents)
}

/// The request scope of the render benchmark.
fn request_scope() -> Scope {
    let mut db = SourceDb::new();
    let id = db.add("request.yaml", catalogue::REQUEST_SCOPE);
    let parsed = parse(&db, id, Format::Yaml, &Limits::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let node = parsed.documents.into_iter().next().expect("one document");
    Scope::from_node(&node).expect("a valid scope")
}

/// Asserts the catalogue is what the module docs say, and returns its
/// number of `!cel` scalars and the loaded catalogue.
fn check(
    generated: &catalogue::Generated,
    files: &[(String, Arc<str>)],
    fs: &MemoryFs,
) -> (usize, Catalogue) {
    assert_eq!(files.len(), 100, "files");
    assert_eq!(
        generated.templates + generated.concrete,
        catalogue::BLUEPRINTS
    );
    let (db, documents) = parse_all(files);
    assert_eq!(db.len(), files.len());
    let cel: usize = documents.iter().map(catalogue::cel_scalars).sum();
    assert_eq!(cel, generated.cel_written(), "every `!cel` is one scalar");

    // Opened as the language server opens it, to be reopened.
    let opened = Catalogue::open(
        Arc::new(fs.clone()),
        Options::<Settings>::default().for_reopening(),
    );
    let loaded = opened.outcome.value.expect("a catalogue");
    let diagnostics = opened.outcome.diagnostics;
    if !diagnostics.is_empty() {
        for diagnostic in diagnostics.iter().take(10) {
            eprintln!("{:?}", diagnostic.record(loaded.sources()));
        }
        panic!("the catalogue loads with {} diagnostics", diagnostics.len());
    }
    let list = loaded.list();
    assert_eq!(list.len(), catalogue::BLUEPRINTS, "blueprints");
    let concrete: Vec<_> = list.iter().filter(|s| !s.is_template).collect();
    assert_eq!(concrete.len(), generated.concrete, "concrete blueprints");
    assert!(
        concrete.iter().all(|s| s.chain.len() == catalogue::DEPTH),
        "every concrete chain is {} long",
        catalogue::DEPTH
    );
    assert!(
        list.iter()
            .filter(|s| s.is_template)
            .all(|s| s.chain.len() < catalogue::DEPTH)
    );
    (cel, loaded)
}

fn benches(c: &mut Criterion) {
    let generated = catalogue::generate();
    let files: Vec<(String, Arc<str>)> = generated
        .files
        .iter()
        .map(|(path, text)| (path.clone(), Arc::from(text.as_str())))
        .collect();
    let bytes = generated.bytes();
    let throughput = Throughput::Bytes(u64::try_from(bytes).expect("input fits in u64"));
    let fs = generated.memory_fs();

    // Check the input once, so the numbers are about what they claim.
    let (cel, loaded) = check(&generated, &files, &fs);
    let request = RenderRequest {
        blueprint: Some(Node::new(
            Value::String(catalogue::RENDERED.to_owned()),
            Span::default(),
        )),
        repo: None,
        scope: Some(request_scope()),
    };
    let resolved = loaded
        .resolved(catalogue::RENDERED)
        .expect("the rendered workspace exists");
    assert_eq!(resolved.chain.depth(), catalogue::DEPTH);
    let rendered_cel = catalogue::cel_scalars(&resolved.node);
    assert_eq!(rendered_cel, catalogue::RENDERED_CEL);
    let mut db = SourceDb::extending(loaded.sources().clone());
    let rendered = loaded
        .render(&request, &mut db)
        .into_result()
        .expect("the workspace renders");
    assert_eq!(catalogue::cel_scalars(&rendered.node), 0, "all evaluated");
    assert_eq!(
        rendered.blueprint.hostname.as_deref(),
        Some(catalogue::RENDERED_HOSTNAME)
    );
    assert!(matches!(
        rendered.node.at(&[
            Segment::Key("storages".to_owned()),
            Segment::Key("home".to_owned()),
            Segment::Key("path".to_owned()),
        ]).map(|n| &n.value),
        Some(Value::String(path)) if path == "/home/ada"
    ));
    eprintln!(
        "catalogue: {} files, {bytes} bytes, {} blueprints ({} templates, {} concrete), \
         {cel} !cel scalars; render of `{}`: {rendered_cel} !cel scalars over {} layers",
        files.len(),
        catalogue::BLUEPRINTS,
        generated.templates,
        generated.concrete,
        catalogue::RENDERED,
        resolved.chain.depth(),
    );
    drop(rendered);

    let id = format!("{}files-{}B", files.len(), bytes);

    let mut group = c.benchmark_group("parse");
    group.throughput(throughput.clone());
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(50);
    group.bench_function(&id, |b| {
        b.iter_batched(
            || files.clone(),
            |files| parse_all(black_box(&files)),
            BatchSize::SmallInput,
        );
    });
    group.finish();

    let mut group = c.benchmark_group("load");
    group.throughput(throughput);
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    let files: Arc<dyn Files> = Arc::new(fs.clone());
    group.bench_function(&id, |b| {
        b.iter_batched(
            Options::default,
            |options| Catalogue::open(black_box(files.clone()), options),
            BatchSize::PerIteration,
        );
    });
    group.finish();

    let mut group = c.benchmark_group("reopen");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    let edited = one_description_edited(&generated.files);
    group.bench_function(&id, |b| {
        b.iter_batched(
            Options::default,
            |options| loaded.reopen(black_box(edited.clone()), options),
            BatchSize::PerIteration,
        );
    });
    group.finish();

    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Elements(1));
    group.bench_function(catalogue::RENDERED, |b| {
        b.iter(|| {
            let mut db = SourceDb::extending(loaded.sources().clone());
            loaded.render(black_box(&request), &mut db)
        });
    });
    group.finish();
}

/// The catalogue's files with the first workspace's description edited;
/// the edited catalogue still loads without a diagnostic.
fn one_description_edited(files: &[(String, String)]) -> Arc<dyn Files> {
    let mut edited = files.to_vec();
    let workspace = edited
        .iter_mut()
        .find(|(_, text)| text.contains("description: Workspace"))
        .expect("a workspace file");
    workspace.1 =
        workspace
            .1
            .replacen("description: Workspace", "description: Edited workspace", 1);
    let edited: Arc<dyn Files> = Arc::new(
        edited
            .iter()
            .fold(MemoryFs::new(), |fs, (path, text)| fs.with(path, text)),
    );
    let reopened = Catalogue::open(edited.clone(), Options::default()).outcome;
    assert!(
        reopened.diagnostics.is_empty(),
        "{:?}",
        reopened.diagnostics
    );
    edited
}

/// The groups run on a thread with the stack the service's threads have
/// ([`strata_dialect::WORKER_STACK_BYTES`]), so a render evaluates its
/// expressions in place, as it does in `strata platform serve`.
fn main() {
    std::thread::Builder::new()
        .stack_size(strata_dialect::WORKER_STACK_BYTES)
        .spawn(|| {
            benches(&mut Criterion::default().configure_from_args());
            Criterion::default().configure_from_args().final_summary();
        })
        .expect("a thread for the benchmarks")
        .join()
        .expect("the benchmarks panicked");
}

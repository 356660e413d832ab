//! Render time for a realistic Windsor project.
//!
//! The input is a generated project (`examples/support/project.rs`):
//! `windsor.yaml` whose context `bench` holds nested values (provider,
//! cluster with control-plane and worker `nodes` maps, network, DNS,
//! observability, 40 feature toggles), `contexts/bench/values.yaml` merged
//! over it, a `blueprint.yaml` of 150 Terraform components and 50
//! kustomizations, and 100 feature files (some in nested folders) whose
//! `when` conditions use `==`, `!=`, `&&`, `||`, `!`, `??`, `in`,
//! comparisons and arithmetic and hold for about two thirds of them. Each
//! feature merges into or replaces base components and adds its own, with
//! `${..}` inputs (typed single expressions and text templates),
//! substitutions and inline patches. There is no `jsonnet()`; five features
//! read one small certificate with `file()`. The files are held in two
//! `MemoryFs`, so no disk is measured.
//!
//! Groups (byte throughput over the 103 YAML files):
//!
//! - `parse`: register every file's text in a fresh `SourceDb` and parse it
//!   with `strata_syntax::parse`, the baseline;
//! - `render`: `Project::open` and `Project::render` for the context
//!   `bench`, end to end: reading and parsing every file, the values (context block, then
//!   `values.yaml`), decoding the blueprint and every feature against their
//!   schemas, the `when` conditions, `${..}` interpolation, merging,
//!   the `dependsOn` checks and the final validation of the composed
//!   blueprint.
//!
//! Before timing, the project is checked to be what this says: every file
//! parses cleanly, the render gives no diagnostic at all, the features that
//! apply are exactly the ones whose condition the generator made true, the
//! composed blueprint has the number of Terraform components and
//! kustomizations the generator expects, and no `${` is left in it.
//! Results are dropped outside the timed part.
//!
//! `parse` takes about ten milliseconds an iteration and samples as usual;
//! `render` takes tens of milliseconds, so it samples flat (one iteration a
//! sample) with 50 samples, which fit the measurement time below.
//!
//! Run with:
//!
//! ```text
//! cargo bench -p strata-features --bench render -- --warm-up-time 1 --measurement-time 5
//! ```
#![expect(
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    reason = "a benchmark stops on an input that is not what it claims, and reports what it measured"
)]

#[path = "../examples/support/project.rs"]
mod project;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use strata_features::{Dialect, Options, Project, RenderRequest, Rendered, Settings};
use strata_fs::Files;
use strata_syntax::{Format, Limits, Node, SourceDb, Value, parse};

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

/// Strings still holding `${` in a tree.
fn uninterpolated(node: &Node) -> usize {
    match &node.value {
        Value::String(text) => usize::from(text.contains("${")),
        Value::Seq(items) => items.iter().map(uninterpolated).sum(),
        Value::Map(map) => map.values().map(|entry| uninterpolated(&entry.value)).sum(),
        _ => 0,
    }
}

/// The length of a list of the composed blueprint.
fn count(rendered: &Rendered, key: &str) -> usize {
    rendered
        .blueprint
        .get(key)
        .and_then(Node::as_seq)
        .map_or(0, <[Node]>::len)
}

/// Opens the project (named `bench`) and renders `request`: the sources
/// and the outcome.
fn open_and_render(
    files: &Arc<dyn Files>,
    request: &RenderRequest,
) -> (SourceDb, strata_features::Outcome<Rendered>) {
    let settings = Settings {
        project_name: Some("bench".to_owned()),
    };
    let opened = Project::open(files.clone(), Options::new(Limits::default(), settings));
    let mut db = SourceDb::extending(opened.sources);
    let mut outcome = opened.outcome;
    let rendered = match outcome.value.take() {
        Some(project) => project.render(request, &mut db),
        None => strata_features::Outcome::failed(Vec::new()),
    };
    outcome.diagnostics.extend(rendered.diagnostics);
    (
        db,
        strata_features::Outcome::new(rendered.value, outcome.diagnostics),
    )
}

/// Asserts the project is what the module docs say.
fn check(generated: &project::Generated, files: &[(String, Arc<str>)], project: &Arc<dyn Files>) {
    assert_eq!(files.len(), 3 + project::Size::BENCH.features, "files");
    let (db, documents) = parse_all(files);
    assert_eq!(db.len(), files.len());
    assert_eq!(documents.len(), files.len(), "one document a file");

    let request = RenderRequest {
        context: project::CONTEXT.to_owned(),
        sets: Vec::new(),
    };
    let (db, outcome) = open_and_render(project, &request);
    let diagnostics = outcome.diagnostics;
    if !diagnostics.is_empty() {
        for diagnostic in diagnostics.iter().take(10) {
            eprintln!("{:?}", diagnostic.record(&db));
        }
        panic!("the project renders with {} diagnostics", diagnostics.len());
    }
    let rendered = outcome.value.expect("a rendered blueprint");
    assert_eq!(rendered.layers[0], "blueprint");
    assert_eq!(
        rendered.layers[1..],
        generated.applied[..],
        "the features that apply"
    );
    let terraform = count(&rendered, "terraform");
    let kustomize = count(&rendered, "kustomize");
    assert_eq!(terraform, generated.terraform, "Terraform components");
    assert_eq!(kustomize, generated.kustomize, "kustomizations");
    assert_eq!(
        uninterpolated(&rendered.blueprint),
        0,
        "every `${{` evaluated"
    );
    eprintln!(
        "project: {} YAML files, {} bytes; features applied: {} of {}; \
         terraform components: {terraform} ({} in the blueprint); \
         kustomizations: {kustomize} ({} in the blueprint); file() calls written: {}",
        files.len(),
        generated.bytes(),
        generated.applied.len(),
        project::Size::BENCH.features,
        project::Size::BENCH.terraform,
        project::Size::BENCH.kustomize,
        generated.file_calls,
    );
}

fn benches(c: &mut Criterion) {
    let generated = project::generate(project::Size::BENCH);
    let files: Vec<(String, Arc<str>)> = generated
        .files
        .iter()
        .map(|(path, text)| (path.clone(), Arc::from(text.as_str())))
        .collect();
    let bytes = generated.bytes();
    let throughput = Throughput::Bytes(u64::try_from(bytes).expect("input fits in u64"));
    let project: Arc<dyn Files> = Arc::new(generated.project.clone());
    let request = RenderRequest {
        context: project::CONTEXT.to_owned(),
        sets: Vec::new(),
    };

    // Check the input once, so the numbers are about what they claim.
    check(&generated, &files, &project);

    let id = format!("{}files-{}B", files.len(), bytes);

    let mut group = c.benchmark_group("parse");
    group.throughput(throughput.clone());
    group.bench_function(&id, |b| {
        b.iter_batched(
            || files.clone(),
            |files| parse_all(black_box(&files)),
            BatchSize::SmallInput,
        );
    });
    group.finish();

    let mut group = c.benchmark_group("render");
    group.throughput(throughput);
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(50);
    group.bench_function(&id, |b| {
        b.iter_with_large_drop(|| open_and_render(black_box(&project), black_box(&request)));
    });
    group.finish();
}

criterion_group!(render_benches, benches);
criterion_main!(render_benches);

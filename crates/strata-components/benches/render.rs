//! Load and render time for a realistic qbec application.
//!
//! The input is the generated application of `examples/support/app.rs`:
//! 200 components (180 Jsonnet, 10 JSON, 10 YAML) importing a shared
//! library, two environments, one declared external variable. It is
//! written once to a temporary folder and read through a [`RootFs`], as
//! `strata components render` reads it, so the disk (the page cache, after
//! the first iteration) is part of what is measured.
//!
//! Groups:
//!
//! - `load`: `Application::load`: read `qbec.yaml`, find the components,
//!   parse the JSON and YAML ones;
//! - `render`: `Application::render` of `dev` on 1 worker thread
//!   (`concurrency-1`) and on the default 5 (`concurrency-5`), and the
//!   latter followed by writing the YAML stream the command line prints
//!   (`concurrency-5+yaml`), in components per second.
//!
//! Before timing, the application is checked to load and render without a
//! single diagnostic, and the object count is printed. Every iteration
//! renders into a fresh [`SourceDb`] over the application's sources (made
//! outside the timed part), as one command-line run does.
//!
//! An iteration takes from milliseconds (load) to a few hundred
//! (rendering), so every group samples flat with 10 samples.
//!
//! Run with:
//!
//! ```text
//! cargo bench -p strata-components --bench render -- --warm-up-time 1 --measurement-time 5
//! ```
#![expect(
    clippy::expect_used,
    clippy::print_stderr,
    reason = "a benchmark stops on an input that is not what it claims, and reports what it measured"
)]

#[path = "../examples/support/app.rs"]
mod app;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use strata_components::{
    Application, DEFAULT_CONCURRENCY, Dialect, Objects, Options, RenderRequest,
};
use strata_fs::{Files, RootFs};
use strata_syntax::{Limits, SourceDb};

/// The allocator of the `strata` binary, so that what is measured is what runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The environment rendered.
const ENVIRONMENT: &str = "dev";

/// Loads the application, which must load without a diagnostic.
fn load(fs: &Arc<dyn Files>) -> Application {
    let opened = Application::open(fs.clone(), Options::new(Limits::default(), ()));
    let diagnostics = &opened.outcome.diagnostics;
    for diagnostic in diagnostics.iter().take(10) {
        eprintln!("{:?}", diagnostic.record(&opened.sources));
    }
    assert!(diagnostics.is_empty(), "the application loads cleanly");
    opened.outcome.value.expect("an application")
}

fn request(concurrency: usize) -> RenderRequest {
    RenderRequest {
        concurrency,
        ..RenderRequest::new(ENVIRONMENT)
    }
}

fn fresh_db(application: &Application) -> SourceDb {
    SourceDb::extending(Arc::clone(application.sources()))
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let summary = app::write_app(dir.path(), app::DEFAULT_COMPONENTS).expect("the app is written");
    let fs: Arc<dyn Files> = Arc::new(RootFs::new(dir.path()).expect("the root opens"));

    // Check the input once, so the numbers are about what they claim.
    let application = load(&fs);
    assert_eq!(application.components.len(), app::DEFAULT_COMPONENTS);
    let included = application
        .components
        .keys()
        .filter(|name| application.includes(ENVIRONMENT, name))
        .count();
    assert_eq!(included, app::DEFAULT_COMPONENTS, "dev includes every one");
    let mut db = fresh_db(&application);
    let rendered = application.render(&request(DEFAULT_CONCURRENCY), &mut db);
    for diagnostic in rendered.diagnostics.iter().take(10) {
        eprintln!("{:?}", diagnostic.record(&db));
    }
    assert!(rendered.diagnostics.is_empty(), "`dev` renders cleanly");
    let objects = rendered.value.expect("the objects");
    let serial = application.render(&request(1), &mut fresh_db(&application));
    let yaml = objects.text();
    assert_eq!(
        serial.value.expect("the objects").text(),
        yaml,
        "one thread or five, the same"
    );
    eprintln!(
        "application: {} components ({} Jsonnet, {} JSON, {} YAML), {} files, {} bytes; \
         `{ENVIRONMENT}`: {} objects, {} bytes of YAML",
        app::DEFAULT_COMPONENTS,
        summary.jsonnet,
        summary.json,
        summary.yaml,
        summary.files,
        summary.bytes,
        objects.documents().len(),
        yaml.len(),
    );
    drop((objects, yaml));

    let id = format!("{}components", app::DEFAULT_COMPONENTS);
    let components = u64::try_from(app::DEFAULT_COMPONENTS).expect("fits in u64");

    let mut group = c.benchmark_group("load");
    group.throughput(Throughput::Elements(components));
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.bench_function(&id, |b| {
        b.iter_with_large_drop(|| {
            Application::open(black_box(fs.clone()), Options::new(Limits::default(), ()))
        });
    });
    group.finish();

    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Elements(components));
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    for concurrency in [1, DEFAULT_CONCURRENCY] {
        let request = request(concurrency);
        group.bench_function(format!("{ENVIRONMENT}/concurrency-{concurrency}"), |b| {
            b.iter_batched(
                || fresh_db(&application),
                |mut db| {
                    let rendered = application.render(black_box(&request), &mut db);
                    (rendered, db)
                },
                BatchSize::PerIteration,
            );
        });
    }
    let request = request(DEFAULT_CONCURRENCY);
    group.bench_function(
        format!("{ENVIRONMENT}/concurrency-{DEFAULT_CONCURRENCY}+yaml"),
        |b| {
            b.iter_batched(
                || fresh_db(&application),
                |mut db| {
                    let rendered = application.render(black_box(&request), &mut db);
                    let yaml = rendered.value.as_ref().map(Objects::text);
                    (rendered, yaml, db)
                },
                BatchSize::PerIteration,
            );
        },
    );
    group.finish();
}

criterion_group!(render_benches, benches);
criterion_main!(render_benches);

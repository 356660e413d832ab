//! Check time for a large generated blueprint.
//!
//! The input is generated (`examples/support/blueprint.rs`): 200
//! variables, 500 values computed with functions, 20 data sources, 10,000
//! resources whose specs hold substitutions (about 8 each), 200 exports;
//! about 7 MB of YAML, held in a `MemoryFs`.
//!
//! Groups (byte throughput):
//!
//! - `parse`: register and parse the file, the baseline;
//! - `check`: open the blueprint: parse, refuse anchors and tags, check
//!   where substitutions stand, validate the structure against the schema,
//!   build the typed model (every `${..}` parsed), check every reference,
//!   type and function, and look for cycles;
//! - `render`: open, then resolve: values, `each` expanded into instances,
//!   conditions decided, every field substituted, exports;
//! - `plan`: render, the graph (links by label, the deployment order) and
//!   the change set against the state of a deployment of the same
//!   blueprint with other variable values (every resource changes).
//!
//! Run with:
//!
//! ```text
//! cargo bench -p strata-spec --bench check -- --warm-up-time 1 --measurement-time 10
//! ```
//!
//! `STRATA_SPEC_BENCH_INPUT=FILE` measures the blueprint in `FILE` instead
//! (one written apart from this generator, `bench/spec_blueprint.py`), its
//! plan against a deployment with the variable and value of
//! `STRATA_SPEC_BENCH_PREVIOUS=NAME=VALUE` (default `environment=production`);
//! `bench/spec_ratios.py` runs that and prints each group against `parse`.
#![expect(
    clippy::expect_used,
    clippy::print_stderr,
    reason = "a benchmark stops on an input that is not what it claims, and reports what it measured"
)]

#[path = "../examples/support/blueprint.rs"]
mod blueprint;

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use strata_fs::{Files, MemoryFs};
use strata_spec::deploy::{graph, plan};
use strata_spec::{Dialect, Opened, Options, RenderRequest, Settings, Spec};
use strata_syntax::{Format, Limits, SourceDb};

/// The allocator of the `strata` binary, so that what is measured is what runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn open(files: &Arc<dyn Files>) -> Opened<Spec> {
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    Spec::open(files.clone(), Options::new(Limits::default(), settings))
}

/// The blueprint measured, and the variable and value of the deployment
/// its plan starts from: the generated one, or `STRATA_SPEC_BENCH_INPUT`'s.
struct Input {
    text: String,
    previous: (String, String),
    generated: bool,
}

fn input() -> Input {
    let Some(path) = std::env::var_os("STRATA_SPEC_BENCH_INPUT") else {
        let (variable, value) = blueprint::PREVIOUS;
        return Input {
            text: blueprint::generate(blueprint::Size::BENCH),
            previous: (variable.to_owned(), value.to_owned()),
            generated: true,
        };
    };
    let previous = std::env::var("STRATA_SPEC_BENCH_PREVIOUS")
        .unwrap_or_else(|_| "environment=production".to_owned());
    let (variable, value) = previous
        .split_once('=')
        .expect("STRATA_SPEC_BENCH_PREVIOUS is NAME=VALUE");
    Input {
        text: std::fs::read_to_string(&path).expect("STRATA_SPEC_BENCH_INPUT is readable"),
        previous: (variable.to_owned(), value.to_owned()),
        generated: false,
    }
}

fn benches(c: &mut Criterion) {
    let Input {
        text, generated, ..
    } = input();
    let files: Arc<dyn Files> = Arc::new(MemoryFs::new().with("blueprint.yaml", &text));

    // Check the input once, so the numbers are about what they claim.
    let opened = open(&files);
    assert!(
        opened.outcome.diagnostics.is_empty(),
        "{:?}",
        opened
            .outcome
            .diagnostics
            .first()
            .map(|d| d.record(&opened.sources))
    );
    let spec = opened.outcome.value.expect("a blueprint");
    let loaded = spec.loaded().expect("loaded");
    if generated {
        assert_eq!(
            loaded.blueprint.resources.len(),
            blueprint::Size::BENCH.resources
        );
        assert_eq!(
            loaded.blueprint.values.len(),
            blueprint::Size::BENCH.values()
        );
    }
    eprintln!(
        "blueprint: {} variables, {} values, {} resources, {} references; {} bytes",
        loaded.blueprint.variables.len(),
        loaded.blueprint.values.len(),
        loaded.blueprint.resources.len(),
        loaded.references.edges.len(),
        text.len()
    );

    let id = format!("blueprint-{}B", text.len());
    let throughput = Throughput::Bytes(u64::try_from(text.len()).expect("fits"));
    let mut group = c.benchmark_group("parse");
    group.throughput(throughput.clone());
    group.sample_size(10);
    group.bench_function(&id, |b| {
        b.iter_with_large_drop(|| {
            let mut db = SourceDb::new();
            let source = db.add("blueprint.yaml", black_box(text.as_str()));
            let parsed = strata_syntax::parse(&db, source, Format::Yaml, &Limits::default());
            (db, parsed)
        });
    });
    group.finish();

    let mut group = c.benchmark_group("check");
    group.throughput(throughput.clone());
    group.sample_size(10);
    group.bench_function(&id, |b| b.iter_with_large_drop(|| open(black_box(&files))));
    group.finish();

    let request = RenderRequest::default();
    let rendered = {
        let opened = open(&files);
        let spec = opened.outcome.value.expect("a blueprint");
        let mut db = SourceDb::extending(opened.sources);
        spec.render(&request, &mut db)
    };
    assert!(
        rendered.diagnostics.is_empty(),
        "{:?}",
        rendered.diagnostics.first()
    );
    let resources = rendered.value.expect("a resolution").resources.len();
    eprintln!("rendered: {resources} resources (each expanded, conditions decided)");
    let mut group = c.benchmark_group("render");
    group.throughput(throughput.clone());
    group.sample_size(10);
    group.bench_function(&id, |b| {
        b.iter_with_large_drop(|| {
            let opened = open(black_box(&files));
            let spec = opened.outcome.value.expect("a blueprint");
            let mut db = SourceDb::extending(opened.sources);
            let rendered = spec.render(&request, &mut db);
            // Dropped outside the measurement, as `parse`'s tree is.
            (spec, rendered, db)
        });
    });
    group.finish();
}

fn plan_bench(c: &mut Criterion) {
    let Input { text, previous, .. } = input();
    let files: Arc<dyn Files> = Arc::new(MemoryFs::new().with("blueprint.yaml", &text));
    let state = blueprint::previous_state(&text, (&previous.0, &previous.1)).expect("a state");
    let request = RenderRequest::default();
    let staged = |files: &Arc<dyn Files>| {
        let opened = open(files);
        let spec = opened.outcome.value.expect("a blueprint");
        let mut db = SourceDb::extending(opened.sources);
        let resolved = spec.render(&request, &mut db).value.expect("a resolution");
        let drawn = graph(spec.loaded().expect("loaded"), &resolved, &[])
            .value
            .expect("a graph");
        let planned = plan(&resolved, &drawn, Some(&state), &[])
            .value
            .expect("a plan");
        // Dropped outside the measurement, as `parse`'s tree is.
        (planned, spec, resolved, drawn, db)
    };
    let counts = staged(&files).0.counts();
    eprintln!(
        "plan against a state of {} resources: {counts:?}",
        state.resources.len()
    );
    let mut group = c.benchmark_group("plan");
    group.throughput(Throughput::Bytes(u64::try_from(text.len()).expect("fits")));
    group.sample_size(10);
    group.bench_function(format!("blueprint-{}B", text.len()), |b| {
        b.iter_with_large_drop(|| staged(black_box(&files)));
    });
    group.finish();
}

criterion_group!(check_benches, benches, plan_bench);
criterion_main!(check_benches);

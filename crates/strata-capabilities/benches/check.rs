//! Check time for a realistic cluster profile and package.
//!
//! The input is generated (`examples/support/package.rs`): a profile of 500
//! bindings (ingress and gateway `expose` bindings with scopes,
//! `certificate`, `external-secret`, `pvc`, and custom capabilities), 50
//! `CapabilityDefinition`s in the package's `definitions/`, and an
//! Application of 200 components with three traits each (a scoped
//! `expose` or a mounted `configmap`, a `scaler` with a
//! `PodDisruptionBudget`, a custom capability). The files are held in a
//! `MemoryFs`, so no disk is measured.
//!
//! Groups (byte throughput over the three files):
//!
//! - `parse`: register and parse the three files, the baseline;
//! - `check`: open the package (read and parse `app.yaml` and the
//!   definitions), parse the profile, evaluate it (every binding validated
//!   and defaulted) and dispatch the Application (every trait's binding,
//!   reserved properties, effective properties);
//! - `build`: the checked Application built into its objects
//!   (`capabilities build`: 1,100 objects), without and with writing them
//!   as Kure's YAML.
//!
//! Run with:
//!
//! ```text
//! cargo bench -p strata-capabilities --bench check -- --warm-up-time 1 --measurement-time 5
//! ```
#![expect(
    clippy::expect_used,
    clippy::print_stderr,
    reason = "a benchmark stops on an input that is not what it claims, and reports what it measured"
)]

#[path = "../examples/support/package.rs"]
mod package;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use strata_capabilities::{
    BuildOptions, Dialect, Options, Package, PassThroughTrait, Registry, RenderRequest, Rendered,
    Settings, build,
};
use strata_fs::{Files, MemoryFs};
use strata_syntax::{Format, Limits, Node, Outcome, SourceDb};

/// The allocator of the `strata` binary, so that what is measured is what runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn parse(db: &mut SourceDb, name: &str, text: &str) -> Vec<Node> {
    let id = db.add(name, text.to_owned());
    strata_syntax::parse(db, id, Format::Yaml, &Limits::default()).documents
}

/// Opens the package and checks it against the profile.
fn check(files: &Arc<dyn Files>, profile: &str, settings: &Settings) -> Outcome<Rendered> {
    let opened = Package::open(
        files.clone(),
        Options::new(Limits::default(), settings.clone()),
    );
    let mut db = SourceDb::extending(opened.sources);
    let package = opened.outcome.value.expect("a package");
    let profile = parse(&mut db, "cluster.yaml", profile).remove(0);
    let request = RenderRequest {
        profile,
        definitions: Vec::new(),
        supplied: strata_capabilities::Supplied::default(),
    };
    package.render(&request, &mut db)
}

fn benches(c: &mut Criterion) {
    let generated = package::generate(package::Size::BENCH);
    let mut registry = Registry::builtin();
    for name in &generated.custom_traits {
        registry
            .register(Arc::new(PassThroughTrait::new(name.clone())))
            .expect("a new trait type");
    }
    let settings = Settings {
        registry,
        strict_capabilities: true,
        strict_properties: true,
        ..Settings::default()
    };
    let files: Arc<dyn Files> = Arc::new(
        MemoryFs::new()
            .with("app.yaml", &generated.application)
            .with("definitions/custom.yaml", &generated.definitions),
    );
    let bytes = generated.profile.len() + generated.definitions.len() + generated.application.len();

    // Check the input once, so the numbers are about what they claim.
    let outcome = check(&files, &generated.profile, &settings);
    assert!(
        outcome.diagnostics.is_empty(),
        "{:?}",
        outcome.diagnostics.first()
    );
    let rendered = outcome.value.expect("the package checks");
    let options = BuildOptions {
        registry: settings.registry.clone(),
        ..BuildOptions::default()
    };
    let built = build(&rendered, &options);
    let objects = built
        .value
        .as_ref()
        .expect("the package builds")
        .objects
        .len();
    let application = rendered.application.clone().expect("an application");
    let components = application
        .get("spec")
        .and_then(|spec| spec.get("components"))
        .and_then(Node::as_seq)
        .map_or(0, <[Node]>::len);
    assert_eq!(components, package::Size::BENCH.components);
    eprintln!(
        "profile: {} bindings; {} definitions; application: {} components, 3 traits each; {bytes} bytes",
        package::Size::BENCH.bindings + package::Size::BENCH.definitions + 1,
        package::Size::BENCH.definitions,
        package::Size::BENCH.components,
    );
    eprintln!("build: {objects} objects");

    let id = format!("3files-{bytes}B");
    let throughput = Throughput::Bytes(u64::try_from(bytes).expect("fits"));
    let mut group = c.benchmark_group("parse");
    group.throughput(throughput.clone());
    group.bench_function(&id, |b| {
        b.iter_with_large_drop(|| {
            let mut db = SourceDb::new();
            let documents = [
                parse(&mut db, "cluster.yaml", black_box(&generated.profile)),
                parse(&mut db, "definitions/custom.yaml", &generated.definitions),
                parse(&mut db, "app.yaml", &generated.application),
            ];
            (db, documents)
        });
    });
    group.finish();

    let mut group = c.benchmark_group("check");
    group.throughput(throughput);
    group.bench_function(&id, |b| {
        b.iter_with_large_drop(|| check(&files, black_box(&generated.profile), &settings));
    });
    group.finish();

    let mut group = c.benchmark_group("build");
    group.throughput(Throughput::Elements(u64::try_from(objects).expect("fits")));
    group.bench_function(format!("{objects}objects"), |b| {
        b.iter_with_large_drop(|| build(black_box(&rendered), &options));
    });
    group.bench_function(format!("{objects}objects-yaml"), |b| {
        b.iter_with_large_drop(|| {
            build(black_box(&rendered), &options)
                .value
                .map(|manifests| manifests.to_yaml())
        });
    });
    group.finish();
}

criterion_group!(check_benches, benches);
criterion_main!(check_benches);

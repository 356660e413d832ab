//! Deploy time of 1,000 `core/file` resources with the `SQLite` state store,
//! on the real file system (a temporary folder):
//!
//! - `first`: a fresh folder and store: 1,000 files written whole (each a
//!   temporary file, synced, renamed, the folder synced) and 2,000
//!   committed journal transactions (an intent before each write, its
//!   outcome after);
//! - `unchanged`: the same blueprint again: every file read back (the
//!   refresh), planned, nothing written.
//!
//! With `STRATA_BENCH_POSTGRES` set to a database URL, the same two with
//! the `PostgreSQL` store (`postgres-first`, `postgres-unchanged`; each
//! iteration of `postgres-first` deploys a new instance).
//!
//! Run with:
//!
//! ```text
//! cargo bench -p strata-spec --bench deploy -- --warm-up-time 1 --measurement-time 10
//! STRATA_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/bench cargo bench -p strata-spec --bench deploy
//! ```
#![expect(
    clippy::expect_used,
    reason = "a benchmark stops on an input that is not what it claims"
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use strata_fs::{Files, MemoryFs};
use strata_spec::deploy::{
    CoreProvider, Deployer, PostgresStore, Provider, SqliteStore, StateStore,
};
use strata_spec::{Dialect as _, Options, RenderRequest, Settings, Spec};
use strata_syntax::Limits;

/// The allocator of the `strata` binary, so that what is measured is what runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const FILES: usize = 1_000;

/// The blueprint of `FILES` files below `folder`.
fn blueprint(folder: &Path) -> String {
    let mut text = String::from("version: 2023-04-20\nresources:\n");
    for i in 0..FILES {
        let _ = writeln!(
            text,
            "  f{i}:\n    type: core/file\n    spec: {{path: '{}/out/d{}/f{i}.txt', content: 'file {i}'}}",
            folder.display(),
            i % 10
        );
    }
    text
}

/// Deploys the blueprint of `folder` with the `SQLite` store in it; the
/// changes made.
fn deploy(folder: &Path) -> usize {
    let store = SqliteStore::open(&folder.join("state.db")).expect("a store");
    deploy_with(folder, &store, "bench")
}

/// Deploys the blueprint of `folder` as `instance` of `store`; the changes
/// made.
fn deploy_with(folder: &Path, store: &dyn StateStore, instance: &str) -> usize {
    let files: Arc<dyn Files> =
        Arc::new(MemoryFs::new().with("blueprint.yaml", &blueprint(folder)));
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    let opened = Spec::open(files, Options::new(Limits::default(), settings));
    let spec = opened.outcome.value.expect("the blueprint opens");
    let providers: Vec<Arc<dyn Provider>> = vec![Arc::new(CoreProvider)];
    let deployer = Deployer {
        store,
        providers: &providers,
        instance,
        deploy: "bench".to_owned(),
        rollback: true,
    };
    let request = RenderRequest::default();
    let mut render =
        |deployed: &strata_spec::Deployed| spec.render_deployed(&request, deployed, &[]);
    let report = deployer.deploy(&mut render).expect("deployed");
    assert!(report.succeeded());
    report.applied.len()
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("deploy");
    group.sample_size(10);
    group.bench_function(format!("first-{FILES}files"), |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("a folder"),
            |folder| {
                assert_eq!(deploy(folder.path()), FILES);
                folder
            },
            BatchSize::PerIteration,
        );
    });
    let folder = tempfile::tempdir().expect("a folder");
    assert_eq!(deploy(folder.path()), FILES);
    group.bench_function(format!("unchanged-{FILES}files"), |b| {
        b.iter(|| assert_eq!(deploy(folder.path()), 0));
    });
    if let Ok(url) = std::env::var("STRATA_BENCH_POSTGRES") {
        let store = PostgresStore::connect(&url).expect("the database");
        let mut run = 0_u32;
        group.bench_function(format!("postgres-first-{FILES}files"), |b| {
            b.iter_batched(
                || tempfile::tempdir().expect("a folder"),
                |folder| {
                    run += 1;
                    assert_eq!(
                        deploy_with(folder.path(), &store, &format!("first-{run}")),
                        FILES
                    );
                    folder
                },
                BatchSize::PerIteration,
            );
        });
        let folder = tempfile::tempdir().expect("a folder");
        assert_eq!(deploy_with(folder.path(), &store, "unchanged"), FILES);
        group.bench_function(format!("postgres-unchanged-{FILES}files"), |b| {
            b.iter(|| assert_eq!(deploy_with(folder.path(), &store, "unchanged"), 0));
        });
    }
    group.finish();
}

criterion_group!(deploy_benches, benches);
criterion_main!(deploy_benches);

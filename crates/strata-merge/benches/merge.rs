//! Parse and merge time for a realistic stack of configuration layers.
//!
//! The input is five generated YAML layers of about 2,000 leaf scalars each,
//! shaped like a service configuration (`services.<name>.env.<VAR>`,
//! `ports` and `volumes` sequences, `replicas`, booleans, `!cel` scalars):
//! each upper layer overrides keys of services lower layers defined, adds
//! services and extends sequences. `ports` merge as `union` and
//! `services.*.volumes` as `merge-by-key:name`. The generator lives in
//! `examples/support/stack.rs`, shared with `examples/merge_stack.rs`
//! (which reports peak memory).
//!
//! Groups, each with the total input size as byte throughput:
//!
//! - `parse`: register the five texts in a `SourceDb` and parse them;
//! - `merge`: `merge_layers` over the five parsed trees (cloned outside the
//!   timed part);
//! - `parse+merge`: both, end to end.
//!
//! The results are dropped outside the timed part in every group.
//!
//! Run with:
//!
//! ```text
//! cargo bench -p strata-merge --bench merge
//! ```
#![expect(
    clippy::expect_used,
    clippy::print_stderr,
    reason = "a benchmark stops on an input that is not what it claims, and reports what it measured"
)]

#[path = "../examples/support/stack.rs"]
mod stack;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use strata_merge::{Merged, Strategies, merge_layers};
use strata_syntax::{Format, Limits, Node, SourceDb, parse};

/// The allocator of the `strata` binary, so that what is measured is what runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Registers and parses every layer; each must be one clean document.
fn parse_all(texts: &[Arc<str>]) -> Vec<Node> {
    let limits = Limits::default();
    let mut db = SourceDb::new();
    texts
        .iter()
        .enumerate()
        .map(|(index, text)| {
            let id = db.add(format!("layer-{index}.yaml"), Arc::clone(text));
            let parsed = parse(&db, id, Format::Yaml, &limits);
            debug_assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
            parsed
                .documents
                .into_iter()
                .next()
                .expect("one document per layer")
        })
        .collect()
}

fn merge_all(trees: Vec<Node>, strategies: &Strategies) -> Merged {
    merge_layers(trees, strategies).expect("at least one layer")
}

fn benches(c: &mut Criterion) {
    let texts: Vec<Arc<str>> = stack::layers().into_iter().map(Arc::from).collect();
    let bytes: usize = texts.iter().map(|text| text.len()).sum();
    let throughput = Throughput::Bytes(u64::try_from(bytes).expect("input fits in u64"));
    let strategies = stack::strategies();

    // Check the input once, so the numbers are about what they claim.
    let trees = parse_all(&texts);
    let leaves: Vec<usize> = trees.iter().map(stack::leaves).collect();
    assert!(
        leaves.iter().all(|&count| (1_800..=2_200).contains(&count)),
        "{leaves:?}"
    );
    let merged = merge_all(trees.clone(), &strategies);
    assert!(merged.diagnostics.is_empty(), "{:?}", merged.diagnostics);
    eprintln!(
        "stack: {} layers, {bytes} bytes, leaves per layer {leaves:?}, merged leaves {}",
        texts.len(),
        stack::leaves(&merged.root)
    );
    drop(merged);

    let id = format!("{}x{}B", texts.len(), bytes);

    let mut group = c.benchmark_group("parse");
    group.throughput(throughput.clone());
    group.bench_function(&id, |b| {
        b.iter_batched(
            || texts.clone(),
            |texts| parse_all(black_box(&texts)),
            BatchSize::SmallInput,
        );
    });
    group.finish();

    let mut group = c.benchmark_group("merge");
    group.throughput(throughput.clone());
    group.bench_function(&id, |b| {
        b.iter_batched(
            || trees.clone(),
            |trees| merge_all(black_box(trees), &strategies),
            BatchSize::LargeInput,
        );
    });
    group.finish();

    let mut group = c.benchmark_group("parse+merge");
    group.throughput(throughput);
    group.bench_function(&id, |b| {
        b.iter_batched(
            || texts.clone(),
            |texts| merge_all(parse_all(black_box(&texts)), &strategies),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(merge_benches, benches);
criterion_main!(merge_benches);

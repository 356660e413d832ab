//! Parses and merges the benchmark's stack of five generated YAML layers
//! once and prints their sizes, so peak memory can be measured from outside:
//!
//! ```text
//! cargo build --release -p strata-merge --example merge_stack
//! /usr/bin/time -v target/release/examples/merge_stack
//! ```
//!
//! ("Maximum resident set size" in the `time -v` report). The stack is the
//! one `benches/merge.rs` times; see `examples/support/stack.rs`.
#![expect(
    clippy::expect_used,
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "an example stops on a bad input and prints its result"
)]

#[path = "support/stack.rs"]
mod stack;

use std::process::ExitCode;
use std::sync::Arc;

use strata_merge::merge_layers;
use strata_syntax::emit::to_yaml;
use strata_syntax::{Format, Limits, SourceDb, parse};

fn main() -> ExitCode {
    let texts = stack::layers();
    let strategies = stack::strategies();
    let mut db = SourceDb::new();
    let mut trees = Vec::with_capacity(texts.len());
    let mut total_bytes = 0;
    for (index, text) in texts.into_iter().enumerate() {
        total_bytes += text.len();
        let bytes = text.len();
        let id = db.add(format!("layer-{index}.yaml"), Arc::<str>::from(text));
        let parsed = parse(&db, id, Format::Yaml, &Limits::default());
        if parsed.has_errors() || parsed.documents.len() != 1 {
            eprintln!("layer {index}: {:?}", parsed.diagnostics);
            return ExitCode::FAILURE;
        }
        let tree = parsed.documents.into_iter().next().expect("one document");
        println!(
            "layer {index}: {bytes:>7} bytes, {:>5} leaves, {:>5} nodes",
            stack::leaves(&tree),
            tree.count()
        );
        trees.push(tree);
    }
    let Some(merged) = merge_layers(trees, &strategies) else {
        eprintln!("no layers");
        return ExitCode::FAILURE;
    };
    if !merged.diagnostics.is_empty() {
        eprintln!("merge: {:?}", merged.diagnostics);
        return ExitCode::FAILURE;
    }
    println!(
        "input:   {total_bytes:>7} bytes in {} layers",
        stack::LAYERS
    );
    println!(
        "merged:  {:>7} bytes of YAML, {:>5} leaves, {:>5} nodes",
        to_yaml(&merged.root).len(),
        stack::leaves(&merged.root),
        merged.root.count()
    );
    ExitCode::SUCCESS
}

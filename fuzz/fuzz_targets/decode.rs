//! Fuzzes strict decoding and the rules behind it in two dialects, with
//! arbitrary bytes (read lossily as UTF-8) as every file:
//! - platform: a catalogue of that one file beside a valid template, every
//!   blueprint it defines rendered by name, and the text rendered as a
//!   repository file too;
//! - capabilities: the text as the package's Application, as a definition
//!   file and as the cluster profile of a render.
//! Whatever the text: diagnostics or a value, never a panic.
//!
//! Run from this directory with `cargo fuzz run decode` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use strata_capabilities::Package;
use strata_fs::{Files, MemoryFs};
use strata_platform::{Catalogue, Dialect, Options, RenderRequest};
use strata_syntax::{Format, Limits, Node, SourceDb, Span, Value, parse};

/// A template a fuzzed blueprint may name, so rendering gets past the chain.
const BASE: &str = "name: base\nabstract: true\nimage: registry.example.com/base:1\nhostname: !cel \"user.username + '.example.com'\"\n";

/// Tight enough that one input stays fast.
const LIMITS: Limits = Limits {
    max_bytes: 1 << 16,
    max_depth: 64,
    max_alias_nodes: 2_000,
    max_alias_bytes: 1 << 18,
};

fn first_document(db: &mut SourceDb, text: &str) -> Option<Node> {
    let id = db.add("request.yaml", text);
    parse(db, id, Format::Yaml, &LIMITS)
        .documents
        .into_iter()
        .next()
}

fn platform(text: &str) {
    let files: Arc<dyn Files> =
        Arc::new(MemoryFs::new().with("a.yaml", text).with("base.yaml", BASE));
    let opened = Catalogue::open(files, Options::new(LIMITS, Default::default()));
    let Some(catalogue) = opened.outcome.value else {
        return;
    };
    for summary in catalogue.list() {
        let mut db = SourceDb::extending(catalogue.sources().clone());
        let name = Node::new(Value::String(summary.name), Span::default());
        let request = RenderRequest {
            blueprint: Some(name),
            ..RenderRequest::default()
        };
        let _ = catalogue.render(&request, &mut db);
    }
    let mut db = SourceDb::extending(catalogue.sources().clone());
    let repo = first_document(&mut db, text);
    let request = RenderRequest {
        repo,
        ..RenderRequest::default()
    };
    let _ = catalogue.render(&request, &mut db);
}

fn capabilities(text: &str) {
    let files: Arc<dyn Files> = Arc::new(
        MemoryFs::new()
            .with("app.yaml", text)
            .with("definitions/fuzzed.yaml", text),
    );
    let opened = Package::open(
        files,
        strata_capabilities::Options::new(LIMITS, Default::default()),
    );
    let Some(package) = opened.outcome.value else {
        return;
    };
    let mut db = SourceDb::extending(package.sources().clone());
    let Some(profile) = first_document(&mut db, text) else {
        return;
    };
    let request = strata_capabilities::RenderRequest {
        profile,
        definitions: Vec::new(),
    };
    let _ = package.render(&request, &mut db);
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    platform(&text);
    capabilities(&text);
});

//! Fuzzes the loader: arbitrary bytes, read lossily as UTF-8, are parsed as
//! YAML, as YAML 1.1 and as JSON. Parsing must not panic, and every
//! document must obey the round-trip law: its emitted YAML parses back
//! without error diagnostics to one document with the same content (tags
//! included) that emits byte-identically — and read as YAML 1.1 too, it
//! has the same content (the emitter quotes what 1.1 would misread).
//!
//! Run from this directory with `cargo fuzz run load` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_syntax::emit::to_yaml;
use strata_syntax::{Format, Limits, Node, SourceDb, parse};

/// Tighter than the defaults so one input stays fast: alias expansion is
/// what can make a small input large.
const INPUT_LIMITS: Limits = Limits {
    max_bytes: 1 << 20,
    max_depth: 128,
    max_alias_nodes: 20_000,
    max_alias_bytes: 1 << 22,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for format in [Format::Yaml, Format::Yaml11, Format::Json] {
        let mut db = SourceDb::new();
        let id = db.add("input", text.as_ref());
        let parsed = parse(&db, id, format, &INPUT_LIMITS);
        for document in &parsed.documents {
            round_trip(format, &text, document);
        }
    }
});

fn round_trip(format: Format, input: &str, document: &Node) {
    let emitted = to_yaml(document);
    let mut db = SourceDb::new();
    let id = db.add("emitted", emitted.as_str());
    // The emitted text holds no aliases and can be larger than the input:
    // read it back within the default limits.
    let reparsed = parse(&db, id, Format::Yaml, &Limits::default());
    assert!(
        !reparsed.has_errors(),
        "emitted YAML does not parse back\ninput ({format:?}): {input:?}\nemitted: {emitted:?}\ndiagnostics: {:?}",
        reparsed.diagnostics
    );
    assert_eq!(
        reparsed.documents.len(),
        1,
        "emitted YAML is not one document\ninput ({format:?}): {input:?}\nemitted: {emitted:?}"
    );
    let again = &reparsed.documents[0];
    let re_emitted = to_yaml(again);
    assert_eq!(
        re_emitted, emitted,
        "re-emitted YAML differs\ninput ({format:?}): {input:?}"
    );
    assert!(
        again.same_content(document),
        "emitted YAML parses back to different content\ninput ({format:?}): {input:?}\nemitted: {emitted:?}\noriginal: {document:?}\nreparsed: {again:?}"
    );
    let as_1_1 = parse(&db, id, Format::Yaml11, &Limits::default());
    assert!(
        as_1_1.documents.len() == 1 && as_1_1.documents[0].same_content(document),
        "emitted YAML reads differently as YAML 1.1\ninput ({format:?}): {input:?}\nemitted: {emitted:?}\nas 1.1: {:?}",
        as_1_1.documents
    );
}

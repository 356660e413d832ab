//! Fuzzes the features expression language: arbitrary bytes, read lossily as
//! UTF-8, are parsed and evaluated as a condition and as a `${..}` template
//! against a small configuration. Whatever the text, the answer is a value
//! or an error whose range lies inside the text: no panic, no abort, no hang.
//!
//! Run from this directory with `cargo fuzz run cond` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_cond::{Host, HostError, Template, condition};
use strata_syntax::{Format, Limits, Node, SourceDb, Span, parse};

struct Files;

impl Host for Files {
    fn jsonnet(&self, path: &str) -> Result<Node, HostError> {
        Err(HostError::Call(format!("no `{path}` here")))
    }
    fn file(&self, path: &str) -> Result<String, HostError> {
        Ok(path.to_owned())
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let mut db = SourceDb::new();
    let id = db.add(
        "values.yaml",
        "provider: aws\ncluster: {workers: {count: 3}, nodes: {a: {ip: x}}}\nzones: [a, b]\n",
    );
    let scope = parse(&db, id, Format::Yaml, &Limits::default())
        .documents
        .remove(0);
    if let Err(error) = condition(&text, &scope, &Files) {
        assert!(error.range.start <= error.range.end && error.range.end <= text.len());
    }
    match Template::parse(&text) {
        Ok(Some(template)) => {
            let _ = template.render(&scope, &Files, Span::default());
        }
        Ok(None) => {}
        Err(error) => assert!(error.range.end <= text.len()),
    }
});

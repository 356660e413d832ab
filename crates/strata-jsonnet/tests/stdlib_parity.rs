//! The standard library's output against go-jsonnet 0.22's, byte for byte:
//! every case of `stdlib-parity.jsonnet` must give the string go-jsonnet
//! gave (`stdlib-parity.expected.json`, written by
//! `bench/components/stdlib_parity.py`).

use std::path::Path;
use std::sync::Arc;

use strata_fs::MemoryFs;
use strata_jsonnet::{Setup, Vm, on_evaluation_stack};
use strata_syntax::{Limits, Span, Value};

#[test]
fn the_standard_library_writes_what_go_jsonnet_writes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let cases = std::fs::read_to_string(dir.join("stdlib-parity.jsonnet")).unwrap();
    let expected: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("stdlib-parity.expected.json")).unwrap(),
    )
    .unwrap();
    let differences = on_evaluation_stack(|| {
        let setup = Setup {
            fs: Arc::new(MemoryFs::new().with("cases.jsonnet", &cases)),
            lib_paths: Vec::new(),
            ext_vars: Vec::new(),
            limits: Limits::default(),
            data_sources: strata_jsonnet::data::DataSources::new(),
        };
        let vm = Vm::new(&setup);
        let mut differences = Vec::new();
        // Each case alone, so that one failing case hides no other.
        for (name, want) in &expected {
            let want = want.as_str().unwrap();
            let have = vm
                .evaluate_snippet("case", &format!("(import 'cases.jsonnet')[{name:?}]"))
                .map_err(|failure| format!("fails: {}", failure.message))
                .and_then(|value| {
                    let node = strata_jsonnet::value::to_node(&value, Span::default(), 64)
                        .map_err(|error| format!("{error:?}"))?;
                    match node.value {
                        Value::String(text) => Ok(text),
                        _ => Err("not a string".to_owned()),
                    }
                });
            match have {
                Ok(have) if have == want => {}
                Ok(have) => differences.push(format!(
                    "{name}:\n  go-jsonnet: {want:?}\n  strata:     {have:?}"
                )),
                Err(why) => differences.push(format!("{name}: {why}")),
            }
        }
        differences
    });
    let total = expected.len();
    println!(
        "standard-library parity: {} cases, {} as go-jsonnet",
        total,
        total - differences.len()
    );
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

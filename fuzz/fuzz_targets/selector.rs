//! Fuzzes the Kubernetes label-selector parser: arbitrary bytes, read
//! lossily as UTF-8, parse to a selector or an error, never a panic; a
//! selector that parses answers for any labels.
//!
//! Run from this directory with `cargo fuzz run selector` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use strata_k8s::Selector;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(selector) = Selector::parse(&text) {
        let labels: BTreeMap<String, String> = text
            .split([',', ' '])
            .filter_map(|pair| pair.split_once('='))
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
            .collect();
        let _ = selector.matches(&labels);
        let _ = selector.matches(&BTreeMap::new());
    }
});

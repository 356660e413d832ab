//! Inputs the fuzzer (`fuzz/fuzz_targets/load.rs`) once broke, kept as
//! regression cases of the same law: whatever loads, emitted as YAML, parses
//! back without error to the same content and the same bytes.

use strata_syntax::emit::to_yaml;
use strata_syntax::{Format, Limits, SourceDb, parse};

/// Tag escapes (`!-%02-`), literal blocks whose first line is indented, and
/// quoted scalars that fold across `...` lines.
const FOUND_BY_FUZZING: &[&[u8]] = &[
    b"\"\xf8\n\n\n\n\n*\n...\"",
    b"!9999999999999999999999900000%0000000000999900000000000099999999\n99999999999999999#",
    b"\"\n     +      \xd9            \xbd{{!{{{!{{!!t{!00002{{!&~\"",
    b"\"...\n\n\xb6\xb6\"",
    b"\"\n\n\n\n\n\n\n\n\n\n\n...\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n]\n\n\n\n\n'\nS\n\n\n\n\n\n\n\n\n\n\n\n\xb6\xb6\"",
    b"!-%02-%512",
    b"\"\n #\n\"\n",
    b"!99999999999999999999999000000000000%000000099999999999999999999999999#",
    b"!-%02-CCCCCCCCCC: CC%51[",
    b"\"+\nrr\tob|\n*\n\n...\n\x9e\n\n\xef\n\n\n....\n\x9e\n\n\xef\n\x9e\n\n\xef\n\n\n...2\n\xf0\x92\xcf|O||gggcgggggggggggggggggggegg4\xef\xbf\xbdggg-\"",
    b"!-%02-\n51%",
    b"!:00000;00@%000p00000\n",
];

#[test]
fn fuzz_findings_round_trip() {
    let limits = Limits {
        max_alias_nodes: 20_000,
        ..Limits::default()
    };
    for data in FOUND_BY_FUZZING {
        let text = String::from_utf8_lossy(data);
        for format in [Format::Yaml, Format::Json] {
            let mut db = SourceDb::new();
            let id = db.add("input", text.as_ref());
            for document in parse(&db, id, format, &limits).documents {
                let emitted = to_yaml(&document);
                let id = db.add("emitted", emitted.as_str());
                let again = parse(&db, id, Format::Yaml, &Limits::default());
                assert!(
                    again.diagnostics.is_empty(),
                    "{text:?} -> {emitted:?}: {:?}",
                    again.diagnostics
                );
                assert_eq!(again.documents.len(), 1, "{text:?} -> {emitted:?}");
                assert_eq!(to_yaml(&again.documents[0]), emitted, "{text:?}");
                assert!(
                    again.documents[0].same_content(&document),
                    "{text:?} -> {emitted:?}"
                );
            }
        }
    }
}

//! Loader behaviour: one `check` helper, many small cases.

use std::fmt::Write as _;

use strata_syntax::emit::{to_json, to_yaml};
use strata_syntax::{Format, Limits, NodeProperty, Parsed, SourceDb, Value, parse};

fn load(format: Format, text: &str, limits: &Limits) -> (SourceDb, Parsed) {
    let mut db = SourceDb::new();
    let id = db.add("input", text);
    let parsed = parse(&db, id, format, limits);
    (db, parsed)
}

/// Parses YAML and checks the re-emitted documents and the diagnostics
/// (`code@line:col path`).
fn check(text: &str, expect_yaml: &str, expect_diagnostics: &[&str]) {
    check_with(
        Format::Yaml,
        text,
        &Limits::default(),
        expect_yaml,
        expect_diagnostics,
    );
}

fn check_with(
    format: Format,
    text: &str,
    limits: &Limits,
    expect_yaml: &str,
    expect_diagnostics: &[&str],
) {
    let (db, parsed) = load(format, text, limits);
    let yaml: Vec<String> = parsed.documents.iter().map(to_yaml).collect();
    assert_eq!(yaml.join("---\n"), expect_yaml, "documents of {text:?}");
    let diagnostics: Vec<String> = parsed
        .diagnostics
        .iter()
        .map(|d| {
            let record = d.record(&db);
            format!(
                "{}@{}:{} {}",
                record.code,
                record.line,
                record.column,
                record.path.unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(diagnostics, expect_diagnostics, "diagnostics of {text:?}");
}

#[test]
fn scalars_resolve_by_the_core_schema() {
    check(
        "a: 1\nb: 1.5\nc: true\nd: ~\ne: '1'\nf: yes\ng: 0x10\n\"y\": n\n",
        "a: 1\nb: 1.5\nc: true\nd: null\ne: \"1\"\nf: \"yes\"\ng: 16\n\"y\": \"n\"\n",
        &[],
    );
}

#[test]
fn local_tags_are_kept_and_not_resolved() {
    check(
        "host: !cel \"user.name + '-x'\"\nsum: !cel 1 + 2\nlist: !custom [1]\nm: !!str 5\nk: !!int \"7\"\n",
        "host: !cel user.name + '-x'\nsum: !cel 1 + 2\nlist: !custom\n  - 1\nm: \"5\"\nk: 7\n",
        &[],
    );
}

#[test]
fn merge_keys_apply_with_explicit_keys_winning() {
    check(
        "base: &base {a: 1, b: 2}\nother: &other {b: 9, c: 3}\nd:\n  b: 5\n  <<: [*base, *other]\n  e: 6\n",
        "base:\n  a: 1\n  b: 2\nother:\n  b: 9\n  c: 3\nd:\n  a: 1\n  b: 5\n  c: 3\n  e: 6\n",
        &[],
    );
}

#[test]
fn invalid_merge_key_is_reported() {
    check(
        "a:\n  <<: 5\n  b: 1\n",
        "a:\n  b: 1\n",
        &["syntax/invalid-merge-key@2:7 a"],
    );
}

#[test]
fn duplicate_keys_name_both_positions_and_keep_the_first() {
    let (db, parsed) = load(Format::Yaml, "a:\n  x: 1\n  x: 2\n", &Limits::default());
    assert_eq!(to_yaml(&parsed.documents[0]), "a:\n  x: 1\n");
    let diagnostic = &parsed.diagnostics[0];
    assert_eq!(diagnostic.code, "syntax/duplicate-key");
    assert_eq!(diagnostic.path.as_ref().unwrap().to_string(), "a.x");
    assert_eq!(db.locate(diagnostic.primary.span).1.line, 3);
    assert_eq!(db.locate(diagnostic.secondary[0].span).1.line, 2);
}

#[test]
fn every_problem_is_reported() {
    check(
        "a: 1\na: 2\nb:\n  - c: 1\n    c: 2\nnum: 99999999999999999999\n",
        "a: 1\nb:\n  - c: 1\nnum: \"99999999999999999999\"\n",
        &[
            "syntax/duplicate-key@2:1 a",
            "syntax/duplicate-key@5:5 b[0].c",
            "syntax/integer-out-of-range@6:6 num",
        ],
    );
}

#[test]
fn complex_keys_are_rejected() {
    check(
        "? [a]\n: 1\nb: 2\n",
        "b: 2\n",
        &["syntax/complex-key@1:3 $"],
    );
}

#[test]
fn multi_document_streams_skip_empty_documents() {
    check("a: 1\n---\n---\nb: 2\n...\n", "a: 1\n---\nb: 2\n", &[]);
}

#[test]
fn a_syntax_error_keeps_earlier_documents() {
    check("a: 1\n---\nb: [1\n", "a: 1\n", &["syntax/yaml@4:1 "]);
}

#[test]
fn billion_laughs_is_bounded() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let aliases = vec![format!("*a{}", i - 1); 10].join(", ");
        writeln!(text, "a{i}: &a{i} [{aliases}]").unwrap();
    }
    let (_, parsed) = load(Format::Yaml, &text, &Limits::default());
    assert!(parsed.documents.is_empty());
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.diagnostics[0].code, "syntax/alias-expansion");
}

#[test]
fn one_long_string_aliased_many_times_is_bounded_by_bytes() {
    // 215,000 aliases of a 400 kB string: few nodes, 86 GB of text.
    let mut text = format!("s: &s {}\nrefs:\n", "x".repeat(400_000));
    for _ in 0..215_000 {
        text.push_str("  - *s\n");
    }
    let started = std::time::Instant::now();
    let (db, parsed) = load(Format::Yaml, &text, &Limits::default());
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert!(parsed.documents.is_empty());
    assert_eq!(parsed.diagnostics.len(), 1);
    let diagnostic = &parsed.diagnostics[0];
    assert_eq!(diagnostic.code, "syntax/alias-expansion");
    assert_eq!(
        diagnostic.message,
        "aliases expand to more than the limit of 16777216 bytes of text"
    );
    // The 42nd alias crosses 16 MiB: 41 copies of 400,000 bytes fit.
    assert_eq!(db.locate(diagnostic.primary.span).1.line, 44);
    // A key that is an alias counts its text too.
    let limits = Limits {
        max_alias_bytes: 10,
        ..Limits::default()
    };
    let (_, parsed) = load(Format::Yaml, "k: &k abcdef\nm: {*k : 1, x: *k}\n", &limits);
    assert_eq!(parsed.diagnostics[0].code, "syntax/alias-expansion");
    let (_, parsed) = load(Format::Yaml, "k: &k abcde\nm: {*k : 1}\n", &limits);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

#[test]
fn deep_nesting_is_a_diagnostic_not_a_crash() {
    let deep = "[".repeat(100_000);
    let (_, parsed) = load(Format::Yaml, &deep, &Limits::default());
    assert_eq!(parsed.diagnostics[0].code, "syntax/too-deep");
    let (_, parsed) = load(Format::Json, &deep, &Limits::default());
    assert_eq!(parsed.diagnostics[0].code, "syntax/too-deep");
    let block: String = (0..200).map(|i| " ".repeat(i) + "k:\n").collect();
    let (_, parsed) = load(Format::Yaml, &block, &Limits::default());
    assert_eq!(parsed.diagnostics[0].code, "syntax/too-deep");
}

#[test]
fn aliases_cannot_nest_past_the_depth_bound() {
    // Each anchor is shallow in the text, but every alias nests the previous tree.
    let mut text = String::from("a0: &a0 [[[[1]]]]\n");
    for i in 1..40 {
        writeln!(text, "a{i}: &a{i} [[[[*a{}]]]]", i - 1).unwrap();
    }
    let (_, parsed) = load(Format::Yaml, &text, &Limits::default());
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.diagnostics[0].code, "syntax/too-deep");
}

#[test]
fn size_is_bounded() {
    let limits = Limits {
        max_bytes: 4,
        ..Limits::default()
    };
    check_with(
        Format::Yaml,
        "a: 12345\n",
        &limits,
        "",
        &["syntax/too-large@1:1 "],
    );
}

#[test]
fn json_loads_with_positions_and_strictly() {
    check_with(
        Format::Json,
        "{\n  \"a\": [1, 2.5, \"x\", null, true],\n  \"a\": 2\n}",
        &Limits::default(),
        "a:\n  - 1\n  - 2.5\n  - x\n  - null\n  - true\n",
        &["syntax/duplicate-key@3:3 a"],
    );
    check_with(
        Format::Json,
        "{\"a\": 1,}",
        &Limits::default(),
        "",
        &["syntax/json@1:8 "],
    );
    check_with(Format::Json, "", &Limits::default(), "", &[]);
}

#[test]
fn spans_point_at_values() {
    let (db, parsed) = load(Format::Yaml, "a:\n  b: [1, héllo]\n", &Limits::default());
    let b = parsed.documents[0].get("a").unwrap().get("b").unwrap();
    assert_eq!(db.snippet(b.span), "[1, héllo]");
    let second = &b.as_seq().unwrap()[1];
    assert_eq!(db.snippet(second.span), "héllo");
    assert_eq!(db.locate(second.span).1.column, 10);
}

#[test]
fn multi_line_strings_use_literal_blocks() {
    check(
        "s: |\n  line one\n  line two\nt: \"no newline\\nend\"\nu: \"keep\\n\\n\"\n",
        "s: |\n  line one\n  line two\nt: |-\n  no newline\n  end\nu: |+\n  keep\n\n",
        &[],
    );
}

#[test]
fn json_output_writes_tags_as_one_key_objects() {
    let (_, parsed) = load(Format::Yaml, "h: !cel \"a\"\nf: 1.0\n", &Limits::default());
    assert_eq!(
        to_json(&parsed.documents[0]).unwrap(),
        "{\n  \"h\": {\n    \"!cel\": \"a\"\n  },\n  \"f\": 1.0\n}\n"
    );
    let (_, parsed) = load(Format::Yaml, "x: [.inf]\n", &Limits::default());
    let error = to_json(&parsed.documents[0]).unwrap_err();
    assert_eq!(error.code, "emit/non-finite-float");
    assert_eq!(error.path.unwrap().to_string(), "x[0]");
    assert!(
        matches!(parsed.documents[0].get("x").unwrap().as_seq().unwrap()[0].value, Value::Float(f) if f.is_infinite())
    );
}

#[test]
fn streams_write_every_document() {
    use strata_syntax::emit::{to_json_array, to_yaml_stream};
    let (_, parsed) = load(Format::Yaml, "a: 1\n---\n- x\n", &Limits::default());
    assert_eq!(to_yaml_stream(&parsed.documents), "---\na: 1\n---\n- x\n");
    assert_eq!(
        to_json_array(&parsed.documents).unwrap(),
        "[\n  {\n    \"a\": 1\n  },\n  [\n    \"x\"\n  ]\n]\n"
    );
}

#[test]
fn streams_written_a_document_at_a_time_are_the_same_bytes() {
    use strata_syntax::emit::{
        StreamFormat, join_stream, stream_document, to_json_array, to_yaml_stream,
    };
    let (_, parsed) = load(
        Format::Yaml,
        "a: 1\n---\n- x\n---\n\"text\"\n---\n{}\n",
        &Limits::default(),
    );
    for documents in [&parsed.documents[..], &parsed.documents[..1], &[]] {
        let each = |format| -> Vec<String> {
            documents
                .iter()
                .map(|d| stream_document(d, format).unwrap())
                .collect()
        };
        assert_eq!(
            join_stream(&each(StreamFormat::Yaml), StreamFormat::Yaml),
            to_yaml_stream(documents)
        );
        assert_eq!(
            join_stream(&each(StreamFormat::Json), StreamFormat::Json),
            to_json_array(documents).unwrap()
        );
    }
    let (_, infinite) = load(Format::Yaml, "a: 1\n---\nx: [.inf]\n", &Limits::default());
    let error = to_json_array(&infinite.documents).unwrap_err();
    assert_eq!(error.path.unwrap().to_string(), "[1].x[0]");
    let alone = stream_document(&infinite.documents[1], StreamFormat::Json).unwrap_err();
    assert_eq!(alone.path.unwrap().to_string(), "x[0]");
}

#[test]
fn long_keys_are_written_as_explicit_keys() {
    let key = "k".repeat(1100);
    let json = format!("{{\"{key}\": {{\"a\": 1}}, \"l\": [{{\"{key}\": [1]}}]}}");
    let (_, parsed) = load(Format::Json, &json, &Limits::default());
    let emitted = to_yaml(&parsed.documents[0]);
    assert_eq!(
        emitted,
        format!("? {key}\n:\n  a: 1\nl:\n  - ? {key}\n    :\n      - 1\n")
    );
    check(&emitted, &emitted, &[]);
}

#[test]
fn nodes_are_found_by_path_and_convert_to_json() {
    let (_, parsed) = load(
        Format::Yaml,
        "a:\n  b: [1, {c: !cel x}]\n",
        &Limits::default(),
    );
    let root = &parsed.documents[0];
    let path = strata_syntax::FieldPath::parse("a.b[1].c").unwrap();
    assert_eq!(root.at(path.segments()).unwrap().as_str(), Some("x"));
    assert!(
        root.at(strata_syntax::FieldPath::parse("a.z").unwrap().segments())
            .is_none()
    );
    let json = serde_json::json!({"a": {"b": [1, {"c": "x"}]}});
    assert_eq!(root.to_json_value(), json);
    assert_eq!(
        to_yaml(&strata_syntax::Node::from_json_value(&json)),
        "a:\n  b:\n    - 1\n    - c: x\n"
    );
}

#[test]
fn yaml_output_reads_back_in_strict_yaml_1_1_readers() {
    let (_, parsed) = load(
        Format::Yaml,
        "big: 1e20\nsmall: 2.5e-7\nplain: 1.5\nequals: '='\n",
        &Limits::default(),
    );
    let yaml = strata_syntax::emit::to_yaml(&parsed.documents[0]);
    assert_eq!(
        yaml,
        "big: 1.0e+20\nsmall: 2.5e-7\nplain: 1.5\nequals: \"=\"\n"
    );
    // And they read back as the same values.
    let (_, again) = load(Format::Yaml, &yaml, &Limits::default());
    assert!(again.documents[0].same_content(&parsed.documents[0]));
}

#[test]
fn anchors_aliases_and_tags_are_recorded_where_written() {
    let text = "a: &x 1\nb: *x\nc: !!str 2\nd: !cel [1]\ne: plain\n";
    let (db, parsed) = load(Format::Yaml, text, &Limits::default());
    let written: Vec<String> = parsed
        .properties
        .iter()
        .map(|property| match property {
            NodeProperty::Anchor(span) => format!("anchor {}", db.snippet(*span)),
            NodeProperty::Alias(span) => format!("alias {}", db.snippet(*span)),
            NodeProperty::Tag(tag, span) => format!("tag {tag} {}", db.snippet(*span)),
        })
        .collect();
    // A node's span starts at its properties; a collection's covers its opening.
    assert_eq!(
        written,
        [
            "anchor &x 1",
            "alias *x",
            "tag !!str !!str 2",
            "tag !cel !cel ["
        ]
    );
    let (_, json) = load(Format::Json, "{\"a\": 1}", &Limits::default());
    assert!(json.properties.is_empty());
}

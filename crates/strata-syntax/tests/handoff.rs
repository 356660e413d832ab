//! Handing out a section's entries as the parse completes them: once
//! restored, the documents, problems and properties are a plain parse's,
//! spans included, whatever the text.

use proptest::prelude::*;
use strata_syntax::{
    Format, HandedEntry, Handoff, Limits, Parsed, SourceDb, Value, parse, parse_handing_off,
};
use support::{PIECES, SHAPES, document, edited};

mod support;

/// `text` parsed plainly, and parsed handing out `section`: the second
/// with what it handed out, before and after the restore.
struct Both {
    db: SourceDb,
    plain: Parsed,
    handed: Vec<HandedEntry>,
    before_restore: Parsed,
    restored: Parsed,
}

fn both(text: &str, format: Format, section: &str) -> Both {
    let mut db = SourceDb::new();
    let source = db.add("blueprint.yaml", text);
    let limits = Limits::default();
    let handing_off = |handed: &mut Vec<HandedEntry>| {
        parse_handing_off(
            &db,
            source,
            format,
            &limits,
            Handoff {
                section,
                give: &mut |entry| handed.push(entry),
            },
        )
    };
    let mut handed = Vec::new();
    let before_restore = handing_off(&mut handed);
    let mut again = Vec::new();
    let mut restored = handing_off(&mut again);
    restored.restore(section, again);
    let plain = parse(&db, source, format, &limits);
    Both {
        db,
        plain,
        handed,
        before_restore,
        restored,
    }
}

/// The restored parse is the plain one: the same documents (spans and
/// all), problems and properties.
fn agrees(text: &str, format: Format, section: &str) -> Both {
    let both = both(text, format, section);
    let (plain, restored) = (&both.plain, &both.restored);
    assert_eq!(plain.documents.len(), restored.documents.len(), "{text}");
    for (plain_document, restored_document) in plain.documents.iter().zip(&restored.documents) {
        assert!(
            plain_document.identical(restored_document),
            "the restored parse differs from the plain one of:\n{text}"
        );
    }
    let records = |parsed: &Parsed| -> Vec<String> {
        parsed
            .diagnostics
            .iter()
            .map(|diagnostic| format!("{:?}", diagnostic.record(&both.db)))
            .collect()
    };
    assert_eq!(records(plain), records(restored), "{text}");
    assert_eq!(plain.properties, restored.properties, "{text}");
    assert_eq!(plain.too_large, restored.too_large, "{text}");
    both
}

#[test]
fn every_entry_is_handed_out_in_order_and_restored() {
    let text = document(&[0, 1, 2, 3, 4, 5], true);
    let both = agrees(&text, Format::Yaml, "resources");
    let root = both.plain.documents.first().expect("a document");
    let written = root
        .get("resources")
        .and_then(|resources| resources.as_map())
        .expect("resources");
    assert_eq!(both.handed.len(), written.len());
    for (handed, (_, entry)) in both.handed.iter().zip(written) {
        assert_eq!(handed.key_span, entry.key_span);
        assert!(handed.value.identical(&entry.value));
    }
    // Until the restore, each entry is a null at its value's span.
    let stood_in = both.before_restore.documents[0]
        .get("resources")
        .and_then(|resources| resources.as_map())
        .expect("resources");
    for ((_, stand_in), (_, entry)) in stood_in.iter().zip(written) {
        assert!(matches!(stand_in.value.value, Value::Null));
        assert_eq!(stand_in.value.span, entry.value.span);
    }
    // Other sections are left whole.
    let exports = both.before_restore.documents[0]
        .get("exports")
        .expect("exports");
    assert!(exports.identical(root.get("exports").expect("exports")));
}

#[test]
fn entries_whose_stand_ins_an_alias_could_copy_are_kept() {
    for text in [
        // An anchored section, read again through an alias.
        "resources: &all\n  a: {type: t}\n  b: {type: u}\ncopy: *all\n",
        // An anchored document mapping.
        "&top\nresources:\n  a: {type: t}\n",
    ] {
        let both = agrees(text, Format::Yaml, "resources");
        assert!(both.handed.is_empty(), "{text}");
    }
    // A duplicate key's value is discarded, not handed out.
    let both = agrees(
        "resources:\n  a: {type: t}\n  a: {type: u}\n",
        Format::Yaml,
        "resources",
    );
    assert_eq!(both.handed.len(), 1);
    // JSON is read whole.
    let both = agrees(
        r#"{"resources": {"a": {"type": "t"}}}"#,
        Format::Json,
        "resources",
    );
    assert!(both.handed.is_empty());
}

#[test]
fn entries_of_every_document_and_a_broken_one_are_restored() {
    let two = "resources:\n  a: {type: t}\n---\nresources:\n  b: [1, 2]\n  c: x\n";
    assert_eq!(agrees(two, Format::Yaml, "resources").handed.len(), 3);
    let broken = "resources:\n  a: {type: t}\n  b:\n    - [unclosed\n";
    agrees(broken, Format::Yaml, "resources");
    let yaml11 = "resources:\n  a: {on: yes}\n";
    assert_eq!(agrees(yaml11, Format::Yaml11, "resources").handed.len(), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn a_restored_parse_is_a_plain_parse(
        shapes in proptest::collection::vec(0..SHAPES.len(), 1..6),
        tail in any::<bool>(),
        at in 0..2000usize,
        removed in prop_oneof![Just(0usize), 1..4usize, 1..40usize],
        pieces in proptest::collection::vec(0..PIECES.len(), 0..3),
    ) {
        let text = document(&shapes, tail);
        let inserted: String = pieces.iter().map(|piece| PIECES[*piece]).collect();
        agrees(&edited(&text, at, removed, &inserted), Format::Yaml, "resources");
    }
}

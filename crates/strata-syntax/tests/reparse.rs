//! Parsing again only where an edit changed a document: the tree is a
//! full parse's, spans included, or there is none.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use proptest::prelude::*;
use strata_syntax::reparse::reparse_entries;
use strata_syntax::{Format, Limits, SourceDb};
use support::{PIECES, SHAPES, document, edited};

mod support;

fn parse(
    db: &mut SourceDb,
    text: &str,
) -> (strata_syntax::source::SourceId, strata_syntax::Parsed) {
    let source = db.add("blueprint.yaml", text);
    let parsed = strata_syntax::parse(db, source, Format::Yaml, &Limits::default());
    (source, parsed)
}

/// The reparse of `new` from `old`, checked against a full parse of
/// `new`: equal when there is one. Whether there was one.
fn agrees(old: &str, new: &str) -> bool {
    let mut db = SourceDb::new();
    let (_, before) = parse(&mut db, old);
    assert!(
        before.diagnostics.is_empty() && before.properties.is_empty(),
        "{old}"
    );
    let old_root = before.documents.first().expect("a document");
    let (source, after) = parse(&mut db, new);
    let Some(tree) = reparse_entries(old, old_root, new, source, &Limits::default()) else {
        return false;
    };
    assert!(
        after.diagnostics.is_empty() && after.properties.is_empty(),
        "a reparse of a text a full parse finds problems in:\n{new}\n{:?}",
        after.diagnostics
    );
    assert_eq!(after.documents.len(), 1, "{new}");
    assert!(
        tree.identical(&after.documents[0]),
        "the reparse differs from the full parse of:\n{new}"
    );
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_reparse_is_a_full_parse(
        shapes in proptest::collection::vec(0..SHAPES.len(), 1..6),
        tail in any::<bool>(),
        at in 0..2000usize,
        removed in prop_oneof![Just(0usize), 1..4usize, 1..40usize],
        pieces in proptest::collection::vec(0..PIECES.len(), 0..3),
    ) {
        let old = document(&shapes, tail);
        let inserted: String = pieces.iter().map(|piece| PIECES[*piece]).collect();
        agrees(&old, &edited(&old, at, removed, &inserted));
    }
}

/// Every third position of a document, each piece inserted there, and as
/// many bytes replaced: all agree with a full parse, and most edits inside
/// the entries are reparsed (the guards do not refuse everything).
#[test]
fn edits_everywhere_agree_and_most_are_reparsed() {
    let old = document(&[0, 1, 2, 3, 4], true);
    let (mut edits, mut reparsed) = (0, 0);
    for at in (0..old.len()).step_by(3) {
        for piece in PIECES {
            for removed in [0, piece.len()] {
                edits += 1;
                reparsed += usize::from(agrees(&old, &edited(&old, at, removed, piece)));
            }
        }
    }
    assert!(reparsed * 3 > edits, "{reparsed} of {edits} edits reparsed");
}

#[test]
fn edits_inside_the_entries_are_reparsed() {
    let old = document(&[0, 1, 2, 3, 4], true);
    let cases = [
        // A value changed in the middle.
        old.replacen("aws/role", "aws/roles", 1),
        // A key renamed, and a resource added after another.
        old.replacen("  r1:\n", "  q1:\n", 1),
        old.replacen("  # the r2", "  r7:\n    type: t\n  # the r2", 1),
        // A line removed, a comment added, the last resource edited.
        old.replacen("        - two\n", "", 1),
        old.replacen("    type: aws/fn\n", "    # why\n    type: aws/fn\n", 1),
        old.replacen("line plain scalar", "line plain scalars", 1),
        // In other sections: the variables, the exports.
        old.replacen("type: string}", "type: number}", 1),
        old.replacen("field: resources", "field:  resources", 1),
        // The same text.
        old.clone(),
    ];
    for (index, new) in cases.iter().enumerate() {
        assert!(agrees(&old, new), "case {index} not reparsed:\n{new}");
    }
    // Without a key after the entries, the last resource runs to the end.
    let last = document(&[0, 2], false);
    assert!(agrees(&last, &format!("{last}    extra: 1\n")));
}

#[test]
fn edits_a_part_cannot_show_are_left_to_a_full_parse() {
    let old = document(&[0, 1, 2], true);
    let cases = [
        // Outside any section's entries: a scalar under the root, a
        // section's key.
        old.replacen("2023-04-20", "2023-04-21", 1),
        old.replacen("exports:", "export:", 1),
        // A key the entries kept elsewhere.
        old.replacen("  r2:\n", "  r0:\n", 1),
        // A key indented under the entry before, or out of the mapping.
        old.replacen("  r1:\n", "    r1:\n", 1),
        old.replacen("  r1:\n", "r1:\n", 1),
        // A merge key, an anchor, a broken text.
        old.replacen("  r1:\n", "  <<: {z: 1}\n  r1:\n", 1),
        old.replacen("type: aws/queue", "type: &q aws/queue", 1),
        old.replacen("\"read\"", "\"read", 1),
    ];
    for (index, new) in cases.iter().enumerate() {
        assert!(!agrees(&old, new), "case {index} reparsed:\n{new}");
    }
    // An entry ending in an empty block scalar, edited before it: alone,
    // the scalar would run from its `|` to the part's end.
    let empty = document(&[5, 0], true);
    assert!(!agrees(
        &empty,
        &empty.replacen("aws/script", "aws/scripts", 1)
    ));
    // Entries written as a flow mapping.
    let flow = "resources: {\n  a: 1,\n  b: 2\n}\n";
    assert!(!agrees(flow, &flow.replacen("a: 1", "a: 3", 1)));
}

/// A tree given with a text it was not parsed from (the caller's mistake)
/// gives nothing, never a panic.
#[test]
fn a_tree_of_another_text_gives_nothing() {
    let mut db = SourceDb::new();
    let (_, parsed) = parse(&mut db, &document(&[0, 1, 2], true));
    let root = parsed.documents.first().expect("a document");
    for (old, new) in [
        ("", "x"),
        ("resources:\n", "resources:\n  a: 1\n"),
        ("é\né", "éé"),
    ] {
        let source = db.add("other.yaml", new);
        assert!(reparse_entries(old, root, new, source, &Limits::default()).is_none());
    }
}

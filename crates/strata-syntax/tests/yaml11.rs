//! What the emitter writes plain, YAML 1.1 readers (`PyYAML`, go-yaml v2
//! under kubectl) read back as the same string: a string that one of YAML
//! 1.1's implicit types would take (a boolean, a null, an integer, a float,
//! a timestamp, a merge or value key) is quoted. The oracle is the type
//! repository's own expressions (<https://yaml.org/type/>), written out
//! here independently of the emitter.
#![expect(clippy::unwrap_used, reason = "a test stops at the first surprise")]

use std::sync::LazyLock;

use proptest::prelude::*;
use regex::Regex;
use strata_syntax::emit::to_yaml;
use strata_syntax::{Format, Limits, Node, SourceDb, Span, Value, parse};

/// bool, null, int (2, 8, 10, 16, 60), float (10, 60, inf, nan),
/// timestamp, merge and value of YAML 1.1, as one anchored expression.
static YAML_11_NON_STRING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:",
        r"y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF",
        r"|~|null|Null|NULL|",
        r"|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+",
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+",
        r"|[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?",
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:(?:[ \t]*)Z|[-+][0-9][0-9]?(?::[0-9][0-9])?)?",
        r"|<<|=",
        r")$"
    ))
    .unwrap()
});

/// `text` as the value of `k`, emitted: the scalar as written.
fn written(text: &str) -> String {
    let node = Node::mapping([(
        "k",
        Node::new(Value::String(text.to_owned()), Span::default()),
    )]);
    let yaml = to_yaml(&node);
    yaml.strip_prefix("k: ")
        .unwrap()
        .trim_end_matches('\n')
        .to_owned()
}

/// Whether the emitter wrote `text` without quotes.
fn is_plain(written: &str) -> bool {
    !written.starts_with(['"', '\'', '|', '>'])
}

fn reads_back(text: &str) {
    let node = Node::mapping([(
        "k",
        Node::new(Value::String(text.to_owned()), Span::default()),
    )]);
    let yaml = to_yaml(&node);
    let mut db = SourceDb::new();
    let id = db.add("emitted.yaml", yaml.as_str());
    let parsed = parse(&db, id, Format::Yaml, &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{yaml:?}");
    assert_eq!(
        parsed.documents[0].get("k").unwrap().as_str(),
        Some(text),
        "{yaml:?}"
    );
}

#[test]
fn strings_yaml_1_1_would_retype_are_quoted() {
    for text in [
        "._4",
        "1_0",
        "0o7",
        "1:20",
        "y",
        "~",
        "2001-12-14",
        "off",
        "0777",
        "+.5",
        "<<",
    ] {
        let scalar = written(text);
        assert!(!is_plain(&scalar), "`{text}` was written plain");
        reads_back(text);
    }
    for text in [
        "4Gi",
        "100m",
        "v1.2.3",
        "1-2",
        "on-call",
        "0x",
        "nginx:1.25",
    ] {
        assert_eq!(written(text), text, "`{text}` needs no quotes");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn plain_scalars_are_strings_under_yaml_1_1(
        text in prop_oneof![
            "[0-9._:+eExXoObB-]{1,8}",
            "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,2})?( ?Z|[-+][0-9]{1,2})?)?",
            "[~.yYnNoOtTfFaAeEuUlLsSrRiI<=]{0,5}",
            "[+-]?\\.(inf|Inf|INF|nan|NaN|NAN|iNf)",
            // Mapping and comment indicators, tabs and non-ASCII breaks and spaces.
            "[a-z :#\t\u{7f}\u{85}\u{a0}\u{2028}-]{0,6}",
            any::<String>(),
        ]
    ) {
        let scalar = written(&text);
        if is_plain(&scalar) {
            prop_assert_eq!(&scalar, &text);
            prop_assert!(!YAML_11_NON_STRING.is_match(&text), "`{}` is not a string in YAML 1.1", text);
        }
        reads_back(&text);
    }
}

//! YAML 1.1's implicit types, for writing scalars that no reader mistakes.
//!
//! Strata reads YAML 1.2 (core schema), but what it writes is read by YAML
//! 1.1 tools as well (`PyYAML`, go-yaml v2 under `kubectl`), which resolve more
//! plain scalars to non-strings: `y` and `off` are booleans, `1_000` and
//! `0777` integers, `1:20` a sexagesimal integer, `._4` a float,
//! `2001-12-14` a timestamp. [`is_implicit_non_string`] holds a plain
//! scalar against the regular expressions of the YAML 1.1 type repository
//! (<https://yaml.org/type/>: `bool`, `null`, `int`, `float`, `timestamp`,
//! `merge`, `value`), exactly as they are written there, and against
//! Strata's own YAML 1.1 reading ([`resolve_plain_1_1`], go-yaml's
//! leniencies included), so the emitter quotes every string either takes.

use std::sync::LazyLock;

use regex::RegexSet;

use crate::node::Value;
use crate::scalar::{Resolved, resolve_plain_1_1};

/// Every implicit non-string form of YAML 1.1, one expression per form,
/// as the type repository writes it (anchored whole).
const FORMS: [&str; 14] = [
    // bool
    r"y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF",
    // null (the empty scalar is null too)
    r"~|null|Null|NULL|",
    // int: binary, octal, decimal, hexadecimal, sexagesimal
    r"[-+]?0b[0-1_]+",
    r"[-+]?0[0-7_]+",
    r"[-+]?(0|[1-9][0-9_]*)",
    r"[-+]?0x[0-9a-fA-F_]+",
    r"[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+",
    // float: decimal, sexagesimal, infinity, not-a-number
    r"[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?",
    r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*",
    r"[-+]?\.(inf|Inf|INF)",
    r"\.(nan|NaN|NAN)",
    // timestamp: a date, or a date and a time
    r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?([Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](\.[0-9]*)?(([ \t]*)Z|[-+][0-9][0-9]?(:[0-9][0-9])?)?",
    // merge
    r"<<",
    // value
    r"=",
];

/// [`FORMS`], compiled once, each anchored at both ends.
static COMPILED: LazyLock<RegexSet> = LazyLock::new(|| {
    let anchored = FORMS.iter().map(|form| format!("^(?:{form})$"));
    #[expect(
        clippy::expect_used,
        reason = "the expressions are constants, compiled by every test that emits"
    )]
    RegexSet::new(anchored).expect("the YAML 1.1 type expressions compile")
});

/// Whether a YAML 1.1 reader resolves the plain scalar `text` to something
/// other than a string.
#[must_use]
pub(crate) fn is_implicit_non_string(text: &str) -> bool {
    let first = text.chars().next();
    let could_be = could_be_non_string(text);
    // Strata's own reading adds only go-yaml's numeric leniencies (its
    // words are the expressions' words), so only what starts like a number
    // is resolved, which builds a value.
    let numeric = first.is_some_and(|first| first.is_ascii_digit() || "+-.".contains(first));
    could_be
        && (COMPILED.is_match(text)
            || (numeric && !matches!(resolve_plain_1_1(text), Resolved::Value(Value::String(_)))))
}

/// Whether a plain `text` could read as anything but a string, by YAML
/// 1.1 or by the 1.2 core schema: every other form starts with one of
/// these characters (or is empty), so most strings are settled by their
/// first character without resolving them; and one that starts with a
/// digit is a string when it holds a letter no number, date or time has
/// (a checksum's hex digits, `4Gi`), settled without resolving it.
pub(crate) fn could_be_non_string(text: &str) -> bool {
    let bytes = text.as_bytes();
    match bytes.first() {
        None => true,
        Some(first) if first.is_ascii_digit() => !holds_a_letter_no_number_has(bytes),
        Some(first) => b"+-.~<=yYnNtTfFoO".contains(first),
    }
}

/// Whether `bytes`, which start with a digit, hold an ASCII letter that
/// no digit-first form of either schema has: numbers have only `e` and `E`
/// (an exponent), dates and times only `t`, `T` and `Z`; after `0x`, `0o`
/// or `0b` digits may be letters, so such a text is never settled here.
fn holds_a_letter_no_number_has(bytes: &[u8]) -> bool {
    !matches!(bytes.get(1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'))
        && bytes
            .iter()
            .any(|byte| byte.is_ascii_alphabetic() && !b"eEtTzZ".contains(byte))
}

#[cfg(test)]
mod tests {
    use super::is_implicit_non_string;
    use crate::node::Value;
    use crate::scalar::{Resolved, resolve_plain_1_1};

    #[test]
    fn a_text_whose_first_character_rules_out_a_non_string_reads_as_a_string() {
        let rests = [
            "",
            "1",
            "rue",
            "ull",
            "alse",
            "es",
            "o",
            "n",
            "ff",
            ".5",
            "e3",
            "x1f",
            "o7",
            "inf",
            "nan",
            "2:30",
            "_1",
            "000-01-01",
        ];
        for first in (b' '..=b'~').map(char::from) {
            for rest in rests {
                let text = format!("{first}{rest}");
                if super::could_be_non_string(&text) {
                    continue;
                }
                assert!(!is_implicit_non_string(&text), "`{text}`");
                for resolved in [
                    crate::scalar::resolve_plain(&text),
                    resolve_plain_1_1(&text),
                ] {
                    assert!(
                        matches!(resolved, Resolved::Value(Value::String(_))),
                        "`{text}` reads as a non-string"
                    );
                }
            }
        }
    }

    #[test]
    fn whatever_strata_reads_as_yaml_1_1_non_string_is_quoted() {
        let words = [
            "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
            "true", "True", "TRUE", "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false",
            "False", "FALSE",
        ];
        let numbers = [
            "1_0.5", ".4_", "1e5", "-0b1_1", "0x_f", "1__0", "+.5", "0777", "._4",
        ];
        for text in words.iter().chain(&numbers) {
            if !matches!(resolve_plain_1_1(text), Resolved::Value(Value::String(_))) {
                assert!(
                    is_implicit_non_string(text),
                    "`{text}` reads as a non-string"
                );
            }
        }
    }

    #[test]
    fn the_forms_of_the_type_repository_are_not_strings() {
        for text in [
            "y",
            "NO",
            "off",
            "~",
            "",
            "null",
            "0b1_0",
            "0777",
            "-0",
            "1_000",
            "+0x_fF",
            "1:20",
            "190:20:30",
            "._4",
            "1.",
            ".",
            "-1.5e+3",
            "1:20.5",
            "+.inf",
            ".NaN",
            "2001-12-14",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 Z",
            "2001-1-4 1:59:43",
            "<<",
            "=",
        ] {
            assert!(
                is_implicit_non_string(text),
                "`{text}` is not a string in YAML 1.1"
            );
        }
    }

    #[test]
    fn other_scalars_are_strings() {
        for text in [
            "yes please",
            "Y2K",
            "nothing",
            "4Gi",
            "100m",
            "1e5x",
            "0o8",
            "1:60",
            "0x",
            "1-2",
            "2001-12-1x",
            "v1.2.3",
            ".inf.",
            "<<<",
            "==",
            "on-call",
            "1.2.3",
            "12:30:99a",
        ] {
            assert!(
                !is_implicit_non_string(text),
                "`{text}` is a string in YAML 1.1"
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// A digit-first text settled as a string by its letters reads as a
        /// string by every resolver the emitter asks.
        #[test]
        fn a_digit_first_text_settled_by_its_letters_reads_as_a_string(
            text in "[0-9][0-9a-gx-zA-GX-ZoOiInNtTeE:._+ -]{0,10}"
        ) {
            if !super::could_be_non_string(&text) {
                proptest::prop_assert!(!is_implicit_non_string(&text), "`{}`", text);
                for resolved in [crate::scalar::resolve_plain(&text), resolve_plain_1_1(&text)] {
                    proptest::prop_assert!(
                        matches!(resolved, Resolved::Value(Value::String(_))),
                        "`{}` reads as a non-string", text
                    );
                }
            }
        }
    }
}

//! Kubernetes quantities (`10Gi`, `500m`, `1e3`, `2`).
//!
//! The grammar is the API server's (`resource.ParseQuantity`):
//!
//! ```text
//! quantity ::= sign? number suffix
//! number   ::= digits | digits "." digits? | "." digits
//! suffix   ::= "" | "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei"       (powers of 1024)
//!            | "n" | "u" | "m" | "k" | "M" | "G" | "T" | "P" | "E" (powers of 1000)
//!            | ("e" | "E") sign? digits                            (power of ten)
//! ```
//!
//! A YAML or JSON number is a quantity too (`storage: 10` means `10`).
//! The parser here is our own rather than `kube_quantity`'s, which rejects
//! the valid `1E` and `1Ei`, accepts the invalid `Gi` (as zero) and
//! `1e3Mi`, and reads numbers through `f64`.

use std::fmt;

use strata_syntax::{Diagnostic, FieldPath, Node, Value};

use crate::codes;

/// The suffixes a quantity may end with, for help texts.
const SUFFIX_HELP: &str = "valid suffixes are `Ki`, `Mi`, `Gi`, `Ti`, `Pi`, `Ei` (powers of 1024), \
     `n`, `u`, `m`, `k`, `M`, `G`, `T`, `P`, `E` (powers of 1000) and exponents such as `e3`";

/// Binary suffixes and their powers of 1024.
const BINARY: [(&str, i32); 6] = [
    ("Ki", 1),
    ("Mi", 2),
    ("Gi", 3),
    ("Ti", 4),
    ("Pi", 5),
    ("Ei", 6),
];

/// Decimal suffixes and their powers of ten.
const DECIMAL: [(&str, i32); 10] = [
    ("n", -9),
    ("u", -6),
    ("m", -3),
    ("", 0),
    ("k", 3),
    ("M", 6),
    ("G", 9),
    ("T", 12),
    ("P", 15),
    ("E", 18),
];

/// A valid Kubernetes quantity, as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Quantity {
    text: String,
    suffix_start: usize,
}

impl Quantity {
    /// The quantity as written (a number node in its decimal form).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The number before the suffix, sign included: `1.5` of `1.5Gi`.
    #[must_use]
    pub fn number(&self) -> &str {
        &self.text[..self.suffix_start]
    }

    /// The suffix: `Gi` of `1.5Gi`, `e3` of `1e3`, empty for a plain number.
    #[must_use]
    pub fn suffix(&self) -> &str {
        &self.text[self.suffix_start..]
    }

    /// The value, approximately (`1.5Gi` is `1610612736.0`); huge exponents
    /// give infinity. For comparisons and messages, not for arithmetic that
    /// must be exact.
    #[must_use]
    pub fn to_f64(&self) -> f64 {
        let suffix = self.suffix();
        let scaled = |base: f64, power: i32| {
            self.number().parse::<f64>().unwrap_or_default() * base.powi(power)
        };
        if let Some((_, power)) = BINARY.iter().find(|(name, _)| *name == suffix) {
            return scaled(1024.0, *power);
        }
        if let Some((_, power)) = DECIMAL.iter().find(|(name, _)| *name == suffix) {
            return scaled(10.0, *power);
        }
        // An exponent, which Rust's float syntax shares.
        self.text.parse().unwrap_or_default()
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Parses a quantity; the error says what is wrong, lowercase.
pub fn parse_quantity(text: &str) -> Result<Quantity, String> {
    let bytes = text.as_bytes();
    let mut pos = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let whole = count_digits(&bytes[pos..]);
    pos += whole;
    let mut fraction = 0;
    if bytes.get(pos) == Some(&b'.') {
        pos += 1;
        fraction = count_digits(&bytes[pos..]);
        pos += fraction;
    }
    if whole + fraction == 0 {
        return Err(if text.is_empty() {
            "a quantity cannot be empty".to_owned()
        } else {
            "a quantity starts with a number".to_owned()
        });
    }
    let suffix = &text[pos..];
    if !is_suffix(suffix) {
        return Err(format!("unknown suffix `{suffix}`"));
    }
    Ok(Quantity {
        text: text.to_owned(),
        suffix_start: pos,
    })
}

fn count_digits(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .count()
}

fn is_suffix(suffix: &str) -> bool {
    if BINARY
        .iter()
        .chain(&DECIMAL)
        .any(|(name, _)| *name == suffix)
    {
        return true;
    }
    let Some(exponent) = suffix.strip_prefix(['e', 'E']) else {
        return false;
    };
    let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit())
}

/// Checks that `node`, found at `path`, is a quantity (a string in the
/// grammar above, or a finite number).
///
/// The error is a `k8s/invalid-quantity` diagnostic at the node: its label
/// says what is wrong, its help suggests the likely meant quantity (`10Gi`
/// or `10G` for `10GB`) or names the valid suffixes.
pub fn check_quantity(node: &Node, path: FieldPath) -> Result<Quantity, Diagnostic> {
    let text = match &node.value {
        Value::String(text) => text.clone(),
        Value::Int(int) => int.to_string(),
        Value::Float(float) if float.is_finite() => float.to_string(),
        Value::Float(float) => {
            let written = if float.is_nan() {
                ".nan"
            } else if float.is_sign_negative() {
                "-.inf"
            } else {
                ".inf"
            };
            return Err(invalid(written, "a quantity must be finite", node, path));
        }
        other => {
            let kind = other.kind_name();
            return Err(Diagnostic::error(
                codes::INVALID_QUANTITY,
                format!("expected a kubernetes quantity, found {kind}"),
                node.span,
            )
            .with_help("write a string such as `10Gi` or `500m`, or a number")
            .with_path(path));
        }
    };
    parse_quantity(&text).map_err(|reason| invalid(&text, &reason, node, path))
}

fn invalid(text: &str, reason: &str, node: &Node, path: FieldPath) -> Diagnostic {
    let diagnostic = Diagnostic::error(
        codes::INVALID_QUANTITY,
        format!("`{text}` is not a valid kubernetes quantity"),
        node.span,
    )
    .with_label(reason)
    .with_path(path);
    let suggestions = suggestions(text);
    match suggestions.as_slice() {
        [] => diagnostic.with_help(SUFFIX_HELP),
        [only] => diagnostic
            .with_help(format!("did you mean `{only}`?"))
            .with_note(SUFFIX_HELP),
        [binary, decimal, ..] => diagnostic
            .with_help(format!(
                "did you mean `{binary}` (powers of 1024) or `{decimal}` (powers of 1000)?"
            ))
            .with_note(SUFFIX_HELP),
    }
}

/// Quantities `text` was likely meant to be: `10GB` → `10Gi`, `10G`;
/// `10GiB`, `10gi`, `10 Gi` → `10Gi`.
fn suggestions(text: &str) -> Vec<String> {
    let start = usize::from(text.starts_with(['+', '-']));
    let end = text[start..]
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or(text.len(), |offset| start + offset);
    let (number, suffix) = text.split_at(end);
    if parse_quantity(number).is_err() {
        return Vec::new();
    }
    let suffix = suffix.trim();
    let (unit, binary_only) = if let Some(unit) = suffix.strip_suffix("iB") {
        (unit, true)
    } else if let Some(unit) = suffix.strip_suffix(['i', 'I']) {
        (unit, true)
    } else {
        (suffix.strip_suffix(['B', 'b']).unwrap_or(suffix), false)
    };
    let mut chars = unit.chars();
    let (Some(letter), None) = (chars.next(), chars.next()) else {
        return Vec::new();
    };
    let letter = letter.to_ascii_uppercase();
    if !"KMGTPE".contains(letter) {
        return Vec::new();
    }
    let binary = format!("{number}{letter}i");
    if binary_only {
        return vec![binary];
    }
    let decimal = if letter == 'K' { 'k' } else { letter };
    vec![binary, format!("{number}{decimal}")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_server_grammar_is_accepted() {
        for text in [
            "1", "-1", "+1", "1.5", ".5", "5.", "10Gi", "1Ei", "1E", "500m", "1n", "1u", "2k",
            "1e3", "1E3", "1e-3", "1e+3", "0",
        ] {
            assert!(parse_quantity(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn everything_else_is_rejected_with_a_reason() {
        let cases = [
            ("", "a quantity cannot be empty"),
            ("Gi", "a quantity starts with a number"),
            (".", "a quantity starts with a number"),
            ("-", "a quantity starts with a number"),
            (" 1", "a quantity starts with a number"),
            ("10GB", "unknown suffix `GB`"),
            ("1K", "unknown suffix `K`"),
            ("1e3Mi", "unknown suffix `e3Mi`"),
            ("1e", "unknown suffix `e`"),
            ("1.2.3", "unknown suffix `.3`"),
            ("1 ", "unknown suffix ` `"),
        ];
        for (text, reason) in cases {
            assert_eq!(parse_quantity(text), Err(reason.to_owned()), "{text}");
        }
    }

    #[test]
    fn parts_and_values() {
        let quantity = parse_quantity("1.5Gi").unwrap();
        assert_eq!((quantity.number(), quantity.suffix()), ("1.5", "Gi"));
        assert!((quantity.to_f64() - 1_610_612_736.0).abs() < f64::EPSILON);
        let values = [
            ("500m", 0.5),
            ("2k", 2000.0),
            ("1e3", 1000.0),
            ("1E", 1e18),
            (".5E-1", 0.05),
            ("-4", -4.0),
        ];
        for (text, value) in values {
            let parsed = parse_quantity(text).unwrap().to_f64();
            assert!(
                (parsed - value).abs() <= value.abs() * 1e-12,
                "{text}: {parsed}"
            );
        }
    }

    #[test]
    fn likely_meanings_are_suggested() {
        assert_eq!(suggestions("10GB"), ["10Gi", "10G"]);
        assert_eq!(suggestions("10kb"), ["10Ki", "10k"]);
        assert_eq!(suggestions("1.5GiB"), ["1.5Gi"]);
        assert_eq!(suggestions("10gi"), ["10Gi"]);
        assert_eq!(suggestions("10 Gi"), ["10Gi"]);
        assert_eq!(suggestions("10 G"), ["10Gi", "10G"]);
        assert_eq!(suggestions("10K"), ["10Ki", "10k"]);
        assert!(suggestions("10XB").is_empty());
        assert!(suggestions("ten").is_empty());
    }
}

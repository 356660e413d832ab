//! Plain scalar resolution by the YAML 1.2 core schema.
//!
//! | text | value |
//! |---|---|
//! | empty, `~`, `null`, `Null`, `NULL` | null |
//! | `true`, `True`, `TRUE`, `false`, `False`, `FALSE` | boolean |
//! | `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+` | integer (64-bit) |
//! | `[-+]?(\.[0-9]+ \| [0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?.inf`, `.nan` (three spellings each) | float |
//! | anything else | string |
//!
//! YAML 1.1 words such as `yes`, `on` and `0777` stay strings, as YAML 1.2
//! says; the emitter quotes them anyway so that older tools read them back
//! as strings too.
//!
//! [`resolve_plain_1_1`] resolves as YAML 1.1 instead, the way go-yaml (and
//! so `kubectl`, Helm and qbec) reads Kubernetes manifests:
//!
//! | text | value |
//! |---|---|
//! | empty, `~`, `null`, `Null`, `NULL` | null |
//! | `y`, `yes`, `on`, `true` and `n`, `no`, `off`, `false` (lower, capitalised or upper case) | boolean |
//! | `[-+]?0b[01_]+`, `[-+]?0[0-7_]+` (octal: `0644` is 420), `[-+]?(0\|[1-9][0-9_]*)`, `[-+]?0x[0-9a-fA-F_]+` | integer |
//! | the core schema's floats, `_` allowed between digits | float |
//! | anything else (`0o17` too) | string |

use crate::node::Value;

/// What a plain scalar resolved to, or that it looked like an integer too big to hold.
#[derive(Debug)]
pub(crate) enum Resolved {
    Value(Value),
    IntegerOutOfRange,
}

/// Resolves the text of a plain (unquoted, untagged) scalar.
pub(crate) fn resolve_plain(text: &str) -> Resolved {
    if let Some(value) = resolve_null_or_bool(text) {
        return Resolved::Value(value);
    }
    if let Some(resolved) = resolve_int(text) {
        return resolved;
    }
    match resolve_float(text) {
        Some(value) => Resolved::Value(Value::Float(value)),
        None => Resolved::Value(Value::String(text.to_owned())),
    }
}

/// Resolves a plain scalar by YAML 1.1 (module docs).
pub(crate) fn resolve_plain_1_1(text: &str) -> Resolved {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Value(Value::Null),
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Resolved::Value(Value::Bool(true));
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Resolved::Value(Value::Bool(false));
        }
        _ => {}
    }
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    // Underscores may separate digits, never lead.
    let digits_of = |body: &str, radix: u32| -> Option<String> {
        (!body.is_empty()
            && !body.starts_with('_')
            && body.chars().all(|c| c == '_' || c.is_digit(radix))
            && body.chars().any(|c| c != '_'))
        .then(|| body.replace('_', ""))
    };
    let integer = if let Some(binary) = unsigned.strip_prefix("0b") {
        digits_of(binary, 2).map(|d| (d, 2))
    } else if let Some(hex) = unsigned.strip_prefix("0x") {
        digits_of(hex, 16).map(|d| (d, 16))
    } else if unsigned.len() > 1 && unsigned.starts_with('0') {
        digits_of(&unsigned[1..], 8).map(|d| (d, 8))
    } else {
        digits_of(unsigned, 10).map(|d| (d, 10))
    };
    if let Some((digits, radix)) = integer {
        let signed = if negative {
            format!("-{digits}")
        } else {
            digits
        };
        return match i64::from_str_radix(&signed, radix) {
            Ok(value) => Resolved::Value(Value::Int(value)),
            Err(_) => Resolved::IntegerOutOfRange,
        };
    }
    let looks_numeric = unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    let without_separators = if looks_numeric && !unsigned.contains("__") {
        text.replace('_', "")
    } else {
        text.to_owned()
    };
    match resolve_float(&without_separators) {
        Some(value) => Resolved::Value(Value::Float(value)),
        None => Resolved::Value(Value::String(text.to_owned())),
    }
}

pub(crate) fn resolve_null_or_bool(text: &str) -> Option<Value> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Some(Value::Null),
        "true" | "True" | "TRUE" => Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => Some(Value::Bool(false)),
        _ => None,
    }
}

/// `Some` when `text` has the shape of a core-schema integer.
pub(crate) fn resolve_int(text: &str) -> Option<Resolved> {
    let (digits, radix) = if let Some(octal) = text.strip_prefix("0o") {
        (octal, 8)
    } else if let Some(hex) = text.strip_prefix("0x") {
        (hex, 16)
    } else {
        (text, 10)
    };
    let unsigned = if radix == 10 {
        digits.strip_prefix(['-', '+']).unwrap_or(digits)
    } else {
        digits
    };
    if unsigned.is_empty() || !unsigned.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(match i64::from_str_radix(digits, radix) {
        Ok(value) => Resolved::Value(Value::Int(value)),
        Err(_) => Resolved::IntegerOutOfRange,
    })
}

/// `Some` when `text` has the shape of a core-schema float.
pub(crate) fn resolve_float(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let negative = text.starts_with('-');
    match unsigned {
        ".inf" | ".Inf" | ".INF" => {
            return Some(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        ".nan" | ".NaN" | ".NAN" if unsigned.len() == text.len() => return Some(f64::NAN),
        _ => {}
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        Some(fraction) => {
            all_digits(whole) && all_digits(fraction) && !(whole.is_empty() && fraction.is_empty())
        }
        None => !whole.is_empty() && all_digits(whole),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let digits = e.strip_prefix(['-', '+']).unwrap_or(e);
        !digits.is_empty() && all_digits(digits)
    });
    if mantissa_ok && exponent_ok {
        text.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Value {
        match resolve_plain(text) {
            Resolved::Value(value) => value,
            Resolved::IntegerOutOfRange => panic!("{text} out of range"),
        }
    }

    #[test]
    fn core_schema_words() {
        assert!(matches!(value("~"), Value::Null));
        assert!(matches!(value(""), Value::Null));
        assert!(matches!(value("TRUE"), Value::Bool(true)));
        assert!(matches!(value("yes"), Value::String(_)));
        assert!(matches!(value("tRue"), Value::String(_)));
    }

    fn value_1_1(text: &str) -> Value {
        match resolve_plain_1_1(text) {
            Resolved::Value(value) => value,
            Resolved::IntegerOutOfRange => panic!("{text} out of range"),
        }
    }

    #[test]
    fn yaml_1_1_reads_as_go_yaml_does() {
        assert!(matches!(value_1_1("0644"), Value::Int(420)));
        assert!(matches!(value_1_1("-010"), Value::Int(-8)));
        assert!(matches!(value_1_1("0"), Value::Int(0)));
        assert!(matches!(value_1_1("1_000"), Value::Int(1000)));
        assert!(matches!(value_1_1("1__0"), Value::Int(10)));
        assert!(matches!(value_1_1("0b101"), Value::Int(5)));
        assert!(matches!(value_1_1("0x1_F"), Value::Int(31)));
        assert!(matches!(value_1_1("yes"), Value::Bool(true)));
        assert!(matches!(value_1_1("Off"), Value::Bool(false)));
        assert!(matches!(value_1_1("y"), Value::Bool(true)));
        assert!(matches!(value_1_1("~"), Value::Null));
        assert!(
            matches!(value_1_1("1_000.5"), Value::Float(f) if (f - 1000.5).abs() < f64::EPSILON)
        );
        assert!(matches!(value_1_1(".inf"), Value::Float(f) if f.is_infinite()));
        assert!(
            matches!(value_1_1("09"), Value::Float(_)),
            "go-yaml reads a bad octal as a float"
        );
        for text in ["0o17", "yEs", "_1", "0x", "v1", "1.2.3", "12:30"] {
            assert!(matches!(value_1_1(text), Value::String(_)), "{text}");
        }
    }

    #[test]
    fn core_schema_numbers() {
        assert!(matches!(value("-12"), Value::Int(-12)));
        assert!(matches!(value("0o17"), Value::Int(15)));
        assert!(matches!(value("0x1F"), Value::Int(31)));
        assert!(matches!(value("0777"), Value::Int(777)));
        assert!(matches!(value("1.5e3"), Value::Float(f) if (f - 1500.0).abs() < f64::EPSILON));
        assert!(matches!(value(".5"), Value::Float(_)));
        assert!(matches!(value("5."), Value::Float(_)));
        assert!(matches!(value("-.inf"), Value::Float(f) if f == f64::NEG_INFINITY));
        assert!(matches!(value(".NaN"), Value::Float(f) if f.is_nan()));
        assert!(matches!(value("-.nan"), Value::String(_)));
        assert!(matches!(value("1e"), Value::String(_)));
        assert!(matches!(value("."), Value::String(_)));
        assert!(matches!(value("1_000"), Value::String(_)));
        assert!(matches!(value("0x"), Value::String(_)));
        assert!(matches!(
            resolve_plain("99999999999999999999"),
            Resolved::IntegerOutOfRange
        ));
    }
}

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

//! The string functions: JSON decoding, length and substrings (counted in
//! characters, not bytes), replacing, trimming, splitting and joining,
//! searching, case.

use super::logic::{equal, same_type};
use super::{Args, Budget, Fail, fail, fail_at};
use crate::value::Value;

#[expect(
    clippy::unnecessary_wraps,
    reason = "every function body returns a `Result`; this keeps the string-returning ones one expression"
)]
pub(super) fn string(text: impl Into<String>) -> Result<Value, Fail> {
    Ok(Value::String(text.into()))
}

pub(super) fn int(count: usize) -> Result<Value, Fail> {
    i64::try_from(count)
        .map(Value::Int)
        .map_err(|_| fail("the count does not fit in a 64-bit integer"))
}

pub(super) fn fromjson(args: &Args<'_>) -> Result<Value, Fail> {
    let document: serde_json::Value = serde_json::from_str(args.string(0)?).map_err(|error| {
        fail_at(0, format!("the text is not JSON: {error}")).withholding("the text is not JSON")
    })?;
    if !document.is_object() {
        return Err(fail_at(0, "the JSON document's root must be an object"));
    }
    let written = args.string(1)?;
    let pointer = match written.strip_prefix('#') {
        Some(fragment) => percent_decode(fragment).ok_or_else(|| {
            fail_at(1, format!("`{written}` is not a valid URI fragment"))
                .withholding("the pointer is not a valid URI fragment")
        })?,
        None => written.to_owned(),
    };
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(fail_at(
            1,
            format!("`{written}` is not a JSON pointer: it must start with `/`"),
        )
        .withholding("the pointer is not a JSON pointer: it must start with `/`"));
    }
    document
        .pointer(&pointer)
        .map(Value::from_json)
        .ok_or_else(|| {
            fail_at(
                1,
                format!("the pointer `{written}` finds nothing in the document"),
            )
            .withholding("the pointer finds nothing in the document")
        })
}

/// `%XX` escapes decoded (RFC 3986), `None` when malformed or not UTF-8.
pub(super) fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.bytes();
    while let Some(byte) = rest.next() {
        if byte == b'%' {
            let high = char::from(rest.next()?).to_digit(16)?;
            let low = char::from(rest.next()?).to_digit(16)?;
            bytes.push(u8::try_from(high * 16 + low).ok()?);
        } else {
            bytes.push(byte);
        }
    }
    String::from_utf8(bytes).ok()
}

pub(super) fn jsondecode(args: &Args<'_>) -> Result<Value, Fail> {
    serde_json::from_str::<serde_json::Value>(args.string(0)?)
        .map(|json| Value::from_json(&json))
        .map_err(|error| {
            fail_at(0, format!("the text is not JSON: {error}")).withholding("the text is not JSON")
        })
}

pub(super) fn len(args: &Args<'_>) -> Result<Value, Fail> {
    match args.get(0)? {
        Value::String(text) => int(text.chars().count()),
        Value::Array(items) => int(items.len()),
        Value::Object(fields) => int(fields.len()),
        other => Err(args.wrong(0, "a string, an array or an object", other)),
    }
}

pub(super) fn substr(args: &Args<'_>) -> Result<Value, Fail> {
    let text = args.string(0)?;
    let count = text.chars().count();
    let position = |index: usize, value: i64| {
        usize::try_from(value)
            .ok()
            .filter(|&at| at <= count)
            .ok_or_else(|| {
                fail_at(
                    index,
                    format!("{value} is out of range for a string of {count} characters"),
                )
                .withholding(format!(
                    "argument {} is out of range for the string",
                    index + 1
                ))
            })
    };
    let start = position(1, args.int(1)?)?;
    let end = match args.values.get(2) {
        Some(_) => position(2, args.int(2)?)?,
        None => count,
    };
    if end < start {
        return Err(
            fail_at(2, format!("the end {end} comes before the start {start}"))
                .withholding("the end comes before the start"),
        );
    }
    string(
        text.chars()
            .skip(start)
            .take(end - start)
            .collect::<String>(),
    )
}

pub(super) fn replace(args: &Args<'_>) -> Result<Value, Fail> {
    let (text, search, replacement) = (args.string(0)?, args.string(1)?, args.string(2)?);
    // An empty search matches before every character and at the end.
    let matches = if search.is_empty() {
        text.chars().count() + 1
    } else {
        text.matches(search).count()
    };
    Budget::default()
        .reserve(
            text.len()
                .saturating_add(matches.saturating_mul(replacement.len())),
        )
        .map_err(fail)?;
    string(text.replace(search, replacement))
}

pub(super) fn trim(args: &Args<'_>) -> Result<Value, Fail> {
    string(args.string(0)?.trim())
}

pub(super) fn trimprefix(args: &Args<'_>) -> Result<Value, Fail> {
    let text = args.string(0)?;
    string(text.strip_prefix(args.string(1)?).unwrap_or(text))
}

pub(super) fn trimsuffix(args: &Args<'_>) -> Result<Value, Fail> {
    let text = args.string(0)?;
    string(text.strip_suffix(args.string(1)?).unwrap_or(text))
}

pub(super) fn split(args: &Args<'_>) -> Result<Value, Fail> {
    let text = args.string(0)?;
    let delimiter = args.string(1)?;
    let parts: Vec<Value> = if delimiter.is_empty() {
        text.chars().map(|c| Value::String(c.to_string())).collect()
    } else {
        text.split(delimiter)
            .map(|part| Value::String(part.to_owned()))
            .collect()
    };
    Ok(Value::Array(parts))
}

pub(super) fn join(args: &Args<'_>) -> Result<Value, Fail> {
    let items = args.array(0)?;
    let mut parts = Vec::with_capacity(items.len());
    for (position, item) in items.iter().enumerate() {
        match item {
            Value::String(text) => parts.push(text.as_str()),
            other => {
                return Err(fail_at(
                    0,
                    format!(
                        "`join` takes an array of strings; item {position} is {}",
                        other.types()
                    ),
                )
                .withholding(format!(
                    "`join` takes an array of strings; an item is {}",
                    other.types()
                )));
            }
        }
    }
    let delimiter = args.string(1)?;
    let length: usize = parts.iter().map(|part| part.len()).sum();
    Budget::default()
        .reserve(length.saturating_add(parts.len().saturating_mul(delimiter.len())))
        .map_err(fail)?;
    string(parts.join(delimiter))
}

/// The character position of a byte offset of `text`.
pub(super) fn char_position(text: &str, byte: Option<usize>) -> Result<Value, Fail> {
    match byte {
        Some(byte) => int(text[..byte].chars().count()),
        None => Ok(Value::Int(-1)),
    }
}

pub(super) fn index(args: &Args<'_>) -> Result<Value, Fail> {
    let text = args.string(0)?;
    char_position(text, text.find(args.string(1)?))
}

pub(super) fn last_index(args: &Args<'_>) -> Result<Value, Fail> {
    let text = args.string(0)?;
    char_position(text, text.rfind(args.string(1)?))
}

pub(super) fn to_upper(args: &Args<'_>) -> Result<Value, Fail> {
    string(args.string(0)?.to_uppercase())
}

pub(super) fn to_lower(args: &Args<'_>) -> Result<Value, Fail> {
    string(args.string(0)?.to_lowercase())
}

pub(super) fn has_prefix(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Bool(args.string(0)?.starts_with(args.string(1)?)))
}

pub(super) fn has_suffix(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Bool(args.string(0)?.ends_with(args.string(1)?)))
}

pub(super) fn contains(args: &Args<'_>) -> Result<Value, Fail> {
    match args.get(0)? {
        Value::String(text) => match args.get(1)? {
            Value::String(needle) => Ok(Value::Bool(text.contains(needle.as_str()))),
            other => Err(args.wrong(1, "a string to look for in a string", other)),
        },
        Value::Array(items) => {
            let needle = args.get(1)?;
            let found = items
                .iter()
                .any(|item| same_type(item, needle) && equal(item, needle).unwrap_or(false));
            Ok(Value::Bool(found))
        }
        other => Err(args.wrong(0, "a string or an array", other)),
    }
}

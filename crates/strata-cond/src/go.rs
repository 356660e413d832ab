//! Values as Go writes them, where expr's results are Go's: `%v`
//! (`string(v)`, text around `${..}`), `json.MarshalIndent` (`toJSON`) and
//! `json.Unmarshal` into `any` (`fromJSON`: every number a float).

use std::fmt::Write as _;
use std::ops::Range;

use strata_syntax::{Node, Value, go_float};

use crate::CondError;
use crate::functions::sorted;

/// A value as Go's `%v` writes it (`[1 2]`, `map[a:1 b:x]`, `<nil>`).
#[must_use]
pub fn go_string(node: &Node) -> String {
    if let Some(text) = crate::time::go_text(node) {
        return text;
    }
    match &node.value {
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => go_float(*f),
        Value::String(text) => text.clone(),
        Value::Seq(items) => {
            let parts: Vec<String> = items.iter().map(go_string).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Map(entries) => {
            let parts: Vec<String> = sorted(entries)
                .into_iter()
                .map(|(key, value)| format!("{key}:{}", go_string(value)))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// A value as Go's `json.MarshalIndent(v, "", "  ")` writes it.
#[must_use]
pub fn go_json(node: &Node) -> String {
    // Dates and durations as their JSON (made plain once, before writing).
    let plain = crate::time::to_plain(node.clone());
    let mut out = String::new();
    write_json(&mut out, &plain, 0);
    out
}

fn write_json(out: &mut String, node: &Node, depth: usize) {
    let indent = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    match &node.value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&json_float(*f)),
        Value::String(text) => json_string(out, text),
        Value::Seq(items) if items.is_empty() => out.push_str("[]"),
        Value::Seq(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                write_json(out, item, depth + 1);
            }
            indent(out, depth);
            out.push(']');
        }
        Value::Map(entries) if entries.is_empty() => out.push_str("{}"),
        Value::Map(entries) => {
            out.push('{');
            for (index, (key, value)) in sorted(entries).into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                json_string(out, key);
                out.push_str(": ");
                write_json(out, value, depth + 1);
            }
            indent(out, depth);
            out.push('}');
        }
    }
}

/// A float as Go's `encoding/json` writes it: plain digits, with an
/// exponent (`1e-7`, `1e+21`) below 1e-6 or from 1e21 on.
fn json_float(f: f64) -> String {
    let magnitude = f.abs();
    if magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        let text = go_float(f);
        // Go's encoder writes `e-07` as `e-7`.
        return text.replace("e-0", "e-");
    }
    format!("{f}")
}

/// A JSON string as Go's `encoding/json` writes it: JSON's escapes, and
/// `<`, `>`, `&`, U+2028 and U+2029 escaped too (they are never escaped
/// otherwise, so replacing them in the quoted text is exact).
fn json_string(out: &mut String, text: &str) {
    let quoted = strata_syntax::emit::json_string(text);
    for c in quoted.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

/// `fromJSON`: every number a float, as Go's `json.Unmarshal` into `any`.
pub(crate) fn from_json(text: &str, range: &Range<usize>) -> Result<Node, CondError> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|error| crate::eval_error(format!("`fromJSON`: {error}"), range.clone()))?;
    Ok(floats(Node::from_json_value(&value)))
}

#[expect(
    clippy::cast_precision_loss,
    reason = "Go reads every JSON number as a float64"
)]
fn floats(node: Node) -> Node {
    node.map_scalars(&mut |mut scalar| {
        if let Value::Int(i) = scalar.value {
            scalar.value = Value::Float(i as f64);
        }
        scalar
    })
}

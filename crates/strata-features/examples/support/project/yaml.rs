//! Writing the generated documents: a small YAML tree (`Y`) and its
//! block-style text, with plain scalars where they read back the same.

use std::fmt::Write as _;

/// A YAML value to write.
#[derive(Clone)]
pub(super) enum Y {
    /// A string: plain when that reads back as the same string, else
    /// double-quoted.
    S(String),
    /// A scalar written as given: numbers, booleans.
    R(String),
    /// A literal block scalar (`|-`).
    Block(String),
    /// A flow sequence of plain words: `[a, b]`.
    Flow(Vec<String>),
    /// A block mapping.
    M(Vec<(String, Y)>),
    /// A block sequence.
    L(Vec<Y>),
}

pub(super) fn s(text: impl Into<String>) -> Y {
    Y::S(text.into())
}

pub(super) fn r<T: Copy + std::fmt::Display>(value: T) -> Y {
    Y::R(value.to_string())
}

/// Whether `text` reads back as itself when written plain, in block context.
pub(super) fn plain_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    !"-?:,[]{}#&*!|>'\"%@` ".contains(first)
        && !text.ends_with(' ')
        && !text.ends_with(':')
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.contains('\n')
        && !matches!(text, "true" | "false" | "null" | "~" | "yes" | "no")
        && text.parse::<f64>().is_err()
}

pub(super) fn scalar(text: &str) -> String {
    if plain_safe(text) {
        text.to_owned()
    } else {
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// Writes the mapping `entries` at `indent`.
pub(super) fn write_map(out: &mut String, entries: &[(String, Y)], indent: usize) {
    for (key, value) in entries {
        let _ = write!(out, "{:indent$}{key}:", "");
        write_value(out, value, indent);
    }
}

/// Writes `value` after `key:` (or `- `), the key being at `indent`.
pub(super) fn write_value(out: &mut String, value: &Y, indent: usize) {
    match value {
        Y::S(text) => {
            let _ = writeln!(out, " {}", scalar(text));
        }
        Y::R(text) => {
            let _ = writeln!(out, " {text}");
        }
        Y::Block(text) => {
            out.push_str(" |-\n");
            for line in text.lines() {
                let _ = writeln!(out, "{:width$}{line}", "", width = indent + 2);
            }
        }
        Y::Flow(words) => {
            let _ = writeln!(out, " [{}]", words.join(", "));
        }
        Y::M(entries) if entries.is_empty() => out.push_str(" {}\n"),
        Y::L(items) if items.is_empty() => out.push_str(" []\n"),
        Y::M(entries) => {
            out.push('\n');
            write_map(out, entries, indent + 2);
        }
        Y::L(items) => {
            out.push('\n');
            write_list(out, items, indent + 2);
        }
    }
}

/// Writes the sequence `items` at `indent`.
pub(super) fn write_list(out: &mut String, items: &[Y], indent: usize) {
    for item in items {
        if let Y::M(entries) = item
            && !entries.is_empty()
        {
            let mut body = String::new();
            write_map(&mut body, entries, indent + 2);
            let _ = write!(out, "{:indent$}- ", "");
            out.push_str(&body[indent + 2..]);
        } else {
            let _ = write!(out, "{:indent$}-", "");
            write_value(out, item, indent);
        }
    }
}

pub(super) fn document(entries: &[(String, Y)]) -> String {
    let mut out = String::new();
    write_map(&mut out, entries, 0);
    out
}

/// A mapping from `(key, value)` pairs.
pub(super) fn m<const N: usize>(entries: [(&str, Y); N]) -> Y {
    Y::M(
        entries
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}

pub(super) fn flow<'a>(words: impl IntoIterator<Item = &'a str>) -> Y {
    Y::Flow(words.into_iter().map(str::to_owned).collect())
}

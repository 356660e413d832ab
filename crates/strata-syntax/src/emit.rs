//! Deterministic YAML and JSON output.
//!
//! The same tree always gives the same bytes: mappings in their order,
//! two-space indentation, block style, sequences indented under their key.
//!
//! YAML strings are written plain when that reads back as the same string
//! (also in YAML 1.1 tools: `yes`, `on`, `1_000` and anything that starts
//! like a number are quoted), as a literal block (`|`, `|-`, `|+`) when they
//! span lines and hold no characters a block cannot carry, and double-quoted
//! otherwise. Tags are written before their value (`!cel "a + b"`), so a
//! document round-trips. Floats are written so that they read back as floats
//! (`1.0`, `.inf`, `.nan`).
//!
//! JSON has no tags. A tagged node is written as a one-key object whose key
//! is the tag and whose value is the node: `!cel "a + b"` becomes
//! `{"!cel": "a + b"}`, so nothing is lost and a consumer can tell it from a
//! plain string. JSON cannot carry `.inf` or `.nan`: emitting one is an
//! `emit/non-finite-float` diagnostic.
//!
//! [`to_yaml_annotated`] adds a trailing `# comment` to each scalar (and to
//! each empty collection); `--explain` uses it to name where a value came from.

use std::fmt::Write as _;

use crate::diagnostic::Diagnostic;
use crate::node::{Mapping, Node, Value};
use crate::path::{FieldPath, Segment};
use crate::scalar::{Resolved, resolve_plain};

use crate::codes;

/// A function that may give a comment for a node.
pub type Annotate<'a> = &'a dyn Fn(&Node) -> Option<String>;

/// One document as YAML, ending in a newline.
#[must_use]
pub fn to_yaml(node: &Node) -> String {
    YamlWriter::new(None).document(node)
}

/// One document as YAML with a trailing comment from `annotate` on each scalar.
#[must_use]
pub fn to_yaml_annotated(node: &Node, annotate: Annotate<'_>) -> String {
    YamlWriter::new(Some(annotate)).document(node)
}

/// Several documents as a YAML stream, each after a `---` line.
#[must_use]
pub fn to_yaml_stream(documents: &[Node]) -> String {
    let written: Vec<String> = documents.iter().map(yaml_stream_document).collect();
    join_stream(&written, StreamFormat::Yaml)
}

/// How a list of documents is written: the two shapes of `-o yaml|json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamFormat {
    /// A YAML stream, each document after a `---` line.
    Yaml,
    /// One pretty-printed JSON array.
    Json,
}

/// One document of a stream, written on its own: a caller that makes many
/// documents can hold their text rather than their trees, write them on
/// several threads, and join them in order with [`join_stream`]. The
/// result is byte for byte what [`to_yaml_stream`] or [`to_json_array`]
/// write for the same documents (a JSON error's path is then relative to
/// the document).
pub fn stream_document(node: &Node, format: StreamFormat) -> Result<String, Diagnostic> {
    match format {
        StreamFormat::Yaml => Ok(yaml_stream_document(node)),
        StreamFormat::Json => json_array_item(node, Vec::new()),
    }
}

/// Documents written by [`stream_document`] in `format`, joined into the
/// stream.
#[must_use]
pub fn join_stream(documents: &[String], format: StreamFormat) -> String {
    match format {
        StreamFormat::Yaml => documents.concat(),
        StreamFormat::Json if documents.is_empty() => "[]\n".to_owned(),
        StreamFormat::Json => {
            let length = documents.iter().map(|d| d.len() + 4).sum::<usize>() + 3;
            let mut out = String::with_capacity(length);
            out.push('[');
            for (index, document) in documents.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str("\n  ");
                out.push_str(document);
            }
            out.push_str("\n]\n");
            out
        }
    }
}

fn yaml_stream_document(node: &Node) -> String {
    let mut writer = YamlWriter::new(None);
    writer.out.push_str("---\n");
    writer.document(node)
}

struct YamlWriter<'a> {
    out: String,
    annotate: Option<Annotate<'a>>,
}

impl<'a> YamlWriter<'a> {
    fn new(annotate: Option<Annotate<'a>>) -> Self {
        YamlWriter {
            out: String::new(),
            annotate,
        }
    }

    fn document(mut self, node: &Node) -> String {
        match &node.value {
            Value::Map(map) if !map.is_empty() => {
                self.tag_line(node);
                self.map_body(map, 0, false);
            }
            Value::Seq(items) if !items.is_empty() => {
                self.tag_line(node);
                self.seq_body(items, 0, false);
            }
            // A literal block at the root is indented too, so that none of
            // its lines can read as a `---` or `...` document marker.
            _ => self.inline(node, 2),
        }
        self.out
    }

    /// Writes the tag of a non-empty collection on its own (or the current) line.
    fn tag_line(&mut self, node: &Node) {
        if let Some(tag) = &node.tag {
            if !self.out.is_empty() && !self.out.ends_with('\n') {
                self.out.push(' ');
            }
            self.out.push_str(tag.as_str());
            self.out.push('\n');
        } else if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    fn indent(&mut self, indent: usize) {
        self.out.extend(std::iter::repeat_n(' ', indent));
    }

    fn map_body(&mut self, map: &Mapping, indent: usize, first_inline: bool) {
        for (i, (key, entry)) in map.iter().enumerate() {
            if i > 0 || !first_inline {
                self.indent(indent);
            }
            let start = self.out.len();
            write_key(&mut self.out, key);
            // YAML caps implicit keys at 1024 characters; longer keys are
            // written explicitly (`? key` then `: value`). A key has at
            // most as many characters as bytes.
            if self.out.len() - start > IMPLICIT_KEY_LIMIT
                && self.out[start..].chars().count() > IMPLICIT_KEY_LIMIT
            {
                let written = self.out.split_off(start);
                self.out.push_str("? ");
                self.out.push_str(&written);
                self.out.push('\n');
                self.indent(indent);
            }
            self.out.push(':');
            self.child(&entry.value, indent + 2);
        }
    }

    fn seq_body(&mut self, items: &[Node], indent: usize, first_inline: bool) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 || !first_inline {
                self.indent(indent);
            }
            self.out.push('-');
            match &item.value {
                Value::Map(map) if !map.is_empty() && item.tag.is_none() => {
                    self.out.push(' ');
                    self.map_body(map, indent + 2, true);
                }
                Value::Seq(inner) if !inner.is_empty() && item.tag.is_none() => {
                    self.out.push(' ');
                    self.seq_body(inner, indent + 2, true);
                }
                _ => self.child(item, indent + 2),
            }
        }
    }

    /// Writes a value after `key:` or `-`: nested collections on the next
    /// lines at `nested_indent`, scalars on the same line.
    fn child(&mut self, node: &Node, nested_indent: usize) {
        match &node.value {
            Value::Map(map) if !map.is_empty() => {
                self.tag_line(node);
                self.map_body(map, nested_indent, false);
            }
            Value::Seq(items) if !items.is_empty() => {
                self.tag_line(node);
                self.seq_body(items, nested_indent, false);
            }
            _ => {
                self.out.push(' ');
                self.inline(node, nested_indent);
            }
        }
    }

    /// Writes a scalar or an empty collection, its comment and the line end.
    /// A literal block's lines go at `block_indent`.
    fn inline(&mut self, node: &Node, block_indent: usize) {
        if let Some(tag) = &node.tag {
            self.out.push_str(tag.as_str());
            self.out.push(' ');
        }
        let block = match &node.value {
            Value::Null => {
                self.out.push_str("null");
                None
            }
            Value::Bool(b) => {
                self.out.push_str(if *b { "true" } else { "false" });
                None
            }
            Value::Int(i) => {
                let _ = write!(self.out, "{i}");
                None
            }
            Value::Float(f) => {
                write_float(&mut self.out, *f);
                None
            }
            Value::String(text) => self.string(text),
            Value::Seq(_) => {
                self.out.push_str("[]");
                None
            }
            Value::Map(_) => {
                self.out.push_str("{}");
                None
            }
        };
        if let Some(comment) = self.annotate.and_then(|annotate| annotate(node)) {
            self.out.push_str("  # ");
            self.out
                .extend(comment.chars().map(|c| if c == '\n' { ' ' } else { c }));
        }
        self.out.push('\n');
        if let Some(lines) = block {
            for line in lines {
                if !line.is_empty() {
                    self.indent(block_indent);
                    self.out.push_str(line);
                }
                self.out.push('\n');
            }
        }
    }

    /// Writes a string scalar; a literal block returns the lines to write
    /// after the header line.
    fn string<'t>(&mut self, text: &'t str) -> Option<Vec<&'t str>> {
        if is_plain_safe(text) {
            self.out.push_str(text);
            None
        } else if let Some((header, lines)) = literal_block(text) {
            self.out.push_str(header);
            Some(lines)
        } else {
            write_double_quoted(&mut self.out, text);
            None
        }
    }
}

fn write_key(out: &mut String, key: &str) {
    if is_plain_safe(key) {
        out.push_str(key);
    } else {
        write_double_quoted(out, key);
    }
}

fn write_float(out: &mut String, value: f64) {
    if value.is_nan() {
        out.push_str(".nan");
    } else if value.is_infinite() {
        out.push_str(if value > 0.0 { ".inf" } else { "-.inf" });
    } else {
        // `{:?}` always writes a `.` or an exponent. Strict YAML 1.1 readers
        // (PyYAML) want both a `.` and a signed exponent, so `1e20` is
        // written `1.0e+20`, which every reader takes for a float.
        let text = format!("{value:?}");
        match text.split_once('e') {
            Some((mantissa, exponent)) => {
                let dot = if mantissa.contains('.') { "" } else { ".0" };
                let sign = if exponent.starts_with('-') { "" } else { "+" };
                let _ = write!(out, "{mantissa}{dot}e{sign}{exponent}");
            }
            None => out.push_str(&text),
        }
    }
}

/// The longest key YAML allows without the explicit `?` indicator.
const IMPLICIT_KEY_LIMIT: usize = 1024;

fn is_plain_safe(text: &str) -> bool {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    // `-x`, `?x` and `:x` are plain scalars; `-`, `- x` are not.
    let indicator_start = if matches!(first, '-' | '?' | ':') {
        chars.next().is_none_or(char::is_whitespace)
    } else {
        ",[]{}#&*!|>'\"%@`".contains(first)
    };
    !(indicator_start
        || first.is_whitespace()
        || text.ends_with(char::is_whitespace)
        || text.ends_with(':')
        || text.starts_with("---")
        || text.starts_with("...")
        || breaks_a_plain_scalar(text)
        || (crate::yaml11::could_be_non_string(text)
            && (crate::yaml11::is_implicit_non_string(text)
                || !matches!(resolve_plain(text), Resolved::Value(Value::String(_))))))
}

/// Whether `text` holds `: ` or ` #` (a mapping or a comment inside a plain
/// scalar) or a character that must be escaped, in one pass over its bytes:
/// the emitter asks this of every string it writes.
fn breaks_a_plain_scalar(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut non_ascii = false;
    for (index, &byte) in bytes.iter().enumerate() {
        let next = bytes.get(index + 1).copied();
        match byte {
            b':' if next == Some(b' ') => return true,
            b' ' if next == Some(b'#') => return true,
            0..=0x1f | 0x7f => return true,
            0x80.. => non_ascii = true,
            _ => {}
        }
    }
    non_ascii && text.chars().any(needs_escape_or_is_break)
}

fn needs_escape_or_is_break(c: char) -> bool {
    c.is_control() || matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}')
}

/// The header and content lines of a literal block for `text`, when it can
/// be written as one.
fn literal_block(text: &str) -> Option<(&'static str, Vec<&str>)> {
    let body = text.trim_end_matches('\n');
    let trailing = text.len() - body.len();
    let fits = text.contains('\n')
        // The first non-empty line sets the block's indentation, so it must
        // not start with white space of its own.
        && body
            .split('\n')
            .find(|line| !line.is_empty())
            .is_some_and(|line| !line.starts_with([' ', '\t']))
        && !text
            .chars()
            .any(|c| c != '\n' && c != '\t' && needs_escape_or_is_break(c))
        && body.split('\n').all(|line| !line.ends_with([' ', '\t']));
    if !fits {
        return None;
    }
    let header = match trailing {
        0 => "|-",
        1 => "|",
        _ => "|+",
    };
    let mut lines: Vec<&str> = body.split('\n').collect();
    lines.extend(std::iter::repeat_n("", trailing.saturating_sub(1)));
    Some((header, lines))
}

fn write_double_quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if needs_escape_or_is_break(c) => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// One document as pretty-printed JSON (two-space indentation), ending in a newline.
pub fn to_json(node: &Node) -> Result<String, Diagnostic> {
    let mut writer = JsonWriter {
        out: String::new(),
        path: Vec::new(),
    };
    writer.value(node, 0)?;
    writer.out.push('\n');
    Ok(writer.out)
}

/// Several documents as one pretty-printed JSON array.
pub fn to_json_array(documents: &[Node]) -> Result<String, Diagnostic> {
    let written = documents
        .iter()
        .enumerate()
        .map(|(index, document)| json_array_item(document, vec![Segment::Index(index)]))
        .collect::<Result<Vec<String>, Diagnostic>>()?;
    Ok(join_stream(&written, StreamFormat::Json))
}

/// A document as an item of a top-level JSON array; errors name `path`
/// before their place in the document.
fn json_array_item(node: &Node, path: Vec<Segment>) -> Result<String, Diagnostic> {
    let mut writer = JsonWriter {
        out: String::new(),
        path,
    };
    writer.value(node, 1)?;
    Ok(writer.out)
}

struct JsonWriter {
    out: String,
    path: Vec<Segment>,
}

impl JsonWriter {
    /// Writes a sequence as a JSON array.
    fn items(&mut self, items: &[Node], level: usize) -> Result<(), Diagnostic> {
        if items.is_empty() {
            self.out.push_str("[]");
            return Ok(());
        }
        self.out.push('[');
        for (index, item) in items.iter().enumerate() {
            if index > 0 {
                self.out.push(',');
            }
            self.indent(level + 1);
            self.path.push(Segment::Index(index));
            self.value(item, level + 1)?;
            self.path.pop();
        }
        self.indent(level);
        self.out.push(']');
        Ok(())
    }

    fn indent(&mut self, level: usize) {
        self.out.push('\n');
        self.out.extend(std::iter::repeat_n(' ', level * 2));
    }

    fn value(&mut self, node: &Node, level: usize) -> Result<(), Diagnostic> {
        if let Some(tag) = &node.tag {
            self.out.push('{');
            self.indent(level + 1);
            write_json_string(&mut self.out, tag.as_str());
            self.out.push_str(": ");
            self.untagged(node, level + 1)?;
            self.indent(level);
            self.out.push('}');
            Ok(())
        } else {
            self.untagged(node, level)
        }
    }

    fn untagged(&mut self, node: &Node, level: usize) -> Result<(), Diagnostic> {
        match &node.value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Value::Float(f) if f.is_finite() => {
                let _ = write!(self.out, "{f:?}");
            }
            Value::Float(f) => {
                return Err(Diagnostic::error(
                    codes::NON_FINITE_FLOAT,
                    format!("`{f}` cannot be written as json"),
                    node.span,
                )
                .with_help("write yaml output (`-o yaml`), or use a finite number")
                .with_path(FieldPath::from(self.path.clone())));
            }
            Value::String(text) => write_json_string(&mut self.out, text),
            Value::Map(map) if map.is_empty() => self.out.push_str("{}"),
            Value::Seq(items) => self.items(items, level)?,
            Value::Map(map) => {
                self.out.push('{');
                for (index, (key, entry)) in map.iter().enumerate() {
                    if index > 0 {
                        self.out.push(',');
                    }
                    self.indent(level + 1);
                    write_json_string(&mut self.out, key);
                    self.out.push_str(": ");
                    self.path.push(Segment::Key(key.clone()));
                    self.value(&entry.value, level + 1)?;
                    self.path.pop();
                }
                self.indent(level);
                self.out.push('}');
            }
        }
        Ok(())
    }
}

fn write_json_string(out: &mut String, text: &str) {
    out.push_str(&json_string(text));
}

/// `text` as a JSON string: quoted, `"`, `\\` and control characters
/// escaped (`\n`, `\u0001`), everything else as it is, which is also how
/// Go's Jsonnet quotes a string.
#[must_use]
pub fn json_string(text: &str) -> String {
    // Serialising a `&str` cannot fail.
    serde_json::to_string(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::to_yaml;
    use crate::{Node, Span, Value};

    fn one_key(key: &str) -> String {
        to_yaml(&Node::mapping([(
            key,
            Node::new(Value::String("v".to_owned()), Span::default()),
        )]))
    }

    #[test]
    fn a_key_past_the_implicit_limit_in_characters_is_written_explicitly() {
        let long = "k".repeat(1025);
        assert_eq!(one_key(&long), format!("? {long}\n: v\n"));
        let limit = "k".repeat(1024);
        assert_eq!(one_key(&limit), format!("{limit}: v\n"));
        // 1,200 bytes, 600 characters: within the limit, which counts characters.
        let wide = "é".repeat(600);
        assert_eq!(one_key(&wide), format!("{wide}: v\n"));
    }
}

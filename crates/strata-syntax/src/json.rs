//! JSON loading with positions, through `jsonc-parser` in strict mode
//! (no comments, trailing commas, single quotes or other JSON5 extensions).
//!
//! The parser is recursive, so the nesting depth is checked first by a
//! linear scan of the brackets outside strings: a 100,000-deep `[[[[...`
//! is a `syntax/too-deep` diagnostic, never a stack overflow. The same scan
//! rejects raw control characters inside strings, which the parser lets by. Duplicate keys
//! are reported with both positions and the first is kept, as in YAML.

use jsonc_parser::ast::{ObjectPropName, Value as JsonValue};
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions, parse_to_ast};

use crate::Limits;
use crate::diagnostic::lowercase_first;
use crate::error::SyntaxError;
use crate::node::{Entry, MapHasher, Mapping, Node, Value};
use crate::path::FieldPath;
use crate::scalar::{Resolved, resolve_int};
use crate::source::{SourceFile, SourceId, Span};

const STRICT: ParseOptions = ParseOptions {
    allow_comments: false,
    allow_loose_object_property_names: false,
    allow_trailing_commas: false,
    allow_missing_commas: false,
    allow_single_quoted_strings: false,
    allow_hexadecimal_numbers: false,
    allow_unary_plus_numbers: false,
    allow_bare_decimal_point_numbers: false,
    allow_non_finite_numbers: false,
    allow_extended_string_escapes: false,
};

/// Parses a JSON text into at most one document (none for an empty text).
pub(crate) fn parse(
    file: &SourceFile,
    source: SourceId,
    limits: &Limits,
) -> (Vec<Node>, Vec<SyntaxError>) {
    let text = file.text();
    if let Some(found) = prescan(text, limits.max_depth) {
        let error = match found {
            Prescan::TooDeep(at) => SyntaxError::TooDeep {
                span: Span::new(source, at, at + 1),
                limit: limits.max_depth,
            },
            Prescan::RawControl(at) => SyntaxError::Json {
                span: Span::new(source, at, at + 1),
                message: "control characters in strings must be escaped".to_owned(),
            },
        };
        return (Vec::new(), vec![error]);
    }
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::Off,
        tokens: false,
    };
    match parse_to_ast(text, &collect, &STRICT) {
        Ok(parsed) => {
            let mut converter = Converter {
                source,
                errors: Vec::new(),
            };
            let documents = parsed
                .value
                .map(|value| converter.node(value, &mut FieldPath::root()))
                .into_iter()
                .collect();
            (documents, converter.errors)
        }
        Err(error) => {
            let range = error.range();
            let message = lowercase_first(&error.kind().to_string());
            let span = Span::new(source, range.start, range.end);
            (Vec::new(), vec![SyntaxError::Json { span, message }])
        }
    }
}

/// What the linear pre-scan can find before the (recursive) parser runs.
#[derive(Debug, PartialEq, Eq)]
enum Prescan {
    /// The bracket at this offset opens nesting level `limit + 1`.
    TooDeep(usize),
    /// A raw control character inside a string, which JSON requires escaped.
    RawControl(usize),
}

/// Scans brackets and strings once, so that the parser never recurses past
/// the bound and control characters the parser would let through are caught.
fn prescan(text: &str, limit: usize) -> Option<Prescan> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (at, byte) in text.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                0..0x20 => return Some(Prescan::RawControl(at)),
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(Prescan::TooDeep(at));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

struct Converter {
    source: SourceId,
    errors: Vec<SyntaxError>,
}

impl Converter {
    fn span(&self, range: jsonc_parser::common::Range) -> Span {
        Span::new(self.source, range.start, range.end)
    }

    fn node(&mut self, value: JsonValue<'_>, path: &mut FieldPath) -> Node {
        match value {
            JsonValue::NullKeyword(null) => Node::new(Value::Null, self.span(null.range)),
            JsonValue::BooleanLit(lit) => Node::new(Value::Bool(lit.value), self.span(lit.range)),
            JsonValue::StringLit(lit) => {
                Node::new(Value::String(lit.value.into_owned()), self.span(lit.range))
            }
            JsonValue::NumberLit(lit) => {
                let span = self.span(lit.range);
                Node::new(self.number(lit.value, span, path), span)
            }
            JsonValue::Array(array) => {
                let span = self.span(array.range);
                let mut items = Vec::with_capacity(array.elements.len());
                for (index, element) in array.elements.into_iter().enumerate() {
                    path.push(crate::path::Segment::Index(index));
                    items.push(self.node(element, path));
                    path.pop();
                }
                Node::new(Value::Seq(items), span)
            }
            JsonValue::Object(object) => {
                let span = self.span(object.range);
                let mut map = Mapping::with_capacity_and_hasher(
                    object.properties.len(),
                    MapHasher::default(),
                );
                for property in object.properties {
                    let (key, key_span) = match property.name {
                        ObjectPropName::String(lit) => {
                            (lit.value.into_owned(), self.span(lit.range))
                        }
                        ObjectPropName::Word(lit) => (lit.value.to_owned(), self.span(lit.range)),
                    };
                    path.push(crate::path::Segment::Key(key.clone()));
                    if let Some(first) = map.get(&key) {
                        self.errors.push(SyntaxError::DuplicateKey {
                            key,
                            first: first.key_span,
                            second: key_span,
                            path: path.clone(),
                        });
                    } else {
                        let value = self.node(property.value, path);
                        map.insert(key, Entry { key_span, value });
                    }
                    path.pop();
                }
                Node::new(Value::Map(map), span)
            }
        }
    }

    fn number(&mut self, text: &str, span: Span, path: &FieldPath) -> Value {
        if !text.contains(['.', 'e', 'E']) {
            match resolve_int(text) {
                Some(Resolved::Value(value)) => return value,
                Some(Resolved::IntegerOutOfRange) => {
                    self.errors.push(SyntaxError::IntegerOutOfRange {
                        span,
                        path: path.clone(),
                    });
                    return Value::String(text.to_owned());
                }
                None => {}
            }
        }
        // The parser has checked the JSON number grammar, a subset of Rust's float syntax.
        Value::Float(text.parse().unwrap_or(f64::NAN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prescan_finds_depth_and_raw_control_characters() {
        assert_eq!(prescan(r#"{"a": "[[[[\"[["}"#, 1), None);
        assert_eq!(prescan("[[[", 2), Some(Prescan::TooDeep(2)));
        assert_eq!(prescan("[\"a\tb\"]", 8), Some(Prescan::RawControl(3)));
        assert_eq!(prescan(r#"["a\tb"]"#, 8), None);
    }
}

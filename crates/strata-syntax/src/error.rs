//! The problems the loader reports, and their stable codes.
//!
//! Each variant has its code in [`crate::codes`].

use crate::diagnostic::Diagnostic;
use crate::path::FieldPath;
use crate::source::Span;

use crate::codes;

/// A problem found while loading a YAML or JSON source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxError {
    /// The YAML scanner or parser rejected the text.
    Yaml {
        /// Where it stopped.
        span: Span,
        /// The parser's own words.
        message: String,
    },
    /// The JSON parser rejected the text.
    Json {
        /// Where it stopped.
        span: Span,
        /// The parser's own words.
        message: String,
    },
    /// The same key twice in one mapping.
    DuplicateKey {
        /// The key.
        key: String,
        /// Its first occurrence.
        first: Span,
        /// The repeated occurrence.
        second: Span,
        /// The path of the repeated entry.
        path: FieldPath,
    },
    /// A sequence or mapping used as a mapping key.
    ComplexKey {
        /// The key node.
        span: Span,
        /// The path of the mapping.
        path: FieldPath,
    },
    /// A `<<` whose value is not a mapping or a sequence of mappings.
    InvalidMergeKey {
        /// The offending value.
        span: Span,
        /// The kind of value found.
        found: &'static str,
        /// The path of the mapping.
        path: FieldPath,
    },
    /// A scalar tagged with a core type it does not hold.
    InvalidTaggedValue {
        /// The scalar.
        span: Span,
        /// The tag (`!!int`).
        tag: String,
        /// The scalar's text.
        text: String,
        /// The path of the scalar.
        path: FieldPath,
    },
    /// An integer literal beyond 64 bits.
    IntegerOutOfRange {
        /// The literal.
        span: Span,
        /// The path of the scalar.
        path: FieldPath,
    },
    /// Nesting beyond [`Limits::max_depth`](crate::Limits::max_depth).
    TooDeep {
        /// Where the bound was crossed.
        span: Span,
        /// The bound.
        limit: usize,
    },
    /// Alias expansion beyond [`Limits::max_alias_nodes`](crate::Limits::max_alias_nodes)
    /// or [`Limits::max_alias_bytes`](crate::Limits::max_alias_bytes).
    AliasExpansion {
        /// The alias that crossed the bound.
        span: Span,
        /// The bound crossed.
        limit: AliasLimit,
    },
    /// Input larger than [`Limits::max_bytes`](crate::Limits::max_bytes).
    TooLarge {
        /// The start of the source.
        span: Span,
        /// The size of the input, in bytes.
        size: usize,
        /// The bound.
        limit: usize,
    },
}

/// Which bound of alias expansion was crossed, and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AliasLimit {
    /// [`Limits::max_alias_nodes`](crate::Limits::max_alias_nodes).
    Nodes(usize),
    /// [`Limits::max_alias_bytes`](crate::Limits::max_alias_bytes).
    Bytes(usize),
}

impl SyntaxError {
    /// Whether the problem is the input's size (its bytes, or what its
    /// aliases expand to) rather than what it says.
    #[must_use]
    pub fn is_size_bound(&self) -> bool {
        matches!(
            self,
            SyntaxError::TooLarge { .. } | SyntaxError::AliasExpansion { .. }
        )
    }

    /// The stable code of this kind of problem.
    #[must_use]
    pub fn code(&self) -> crate::Code {
        match self {
            SyntaxError::Yaml { .. } => codes::YAML,
            SyntaxError::Json { .. } => codes::JSON,
            SyntaxError::DuplicateKey { .. } => codes::DUPLICATE_KEY,
            SyntaxError::ComplexKey { .. } => codes::COMPLEX_KEY,
            SyntaxError::InvalidMergeKey { .. } => codes::INVALID_MERGE_KEY,
            SyntaxError::InvalidTaggedValue { .. } => codes::INVALID_TAGGED_VALUE,
            SyntaxError::IntegerOutOfRange { .. } => codes::INTEGER_OUT_OF_RANGE,
            SyntaxError::TooDeep { .. } => codes::TOO_DEEP,
            SyntaxError::AliasExpansion { .. } => codes::ALIAS_EXPANSION,
            SyntaxError::TooLarge { .. } => codes::TOO_LARGE,
        }
    }
}

impl From<SyntaxError> for Diagnostic {
    fn from(error: SyntaxError) -> Diagnostic {
        let code = error.code();
        match error {
            SyntaxError::Yaml { span, message } => {
                Diagnostic::error(code, format!("invalid yaml: {message}"), span)
            }
            SyntaxError::Json { span, message } => {
                Diagnostic::error(code, format!("invalid json: {message}"), span)
            }
            SyntaxError::DuplicateKey {
                key,
                first,
                second,
                path,
            } => Diagnostic::error(code, format!("duplicate key `{key}`"), second)
                .with_label("defined again here")
                .with_secondary(first, "first defined here")
                .with_help("remove one of the two entries")
                .with_path(path),
            SyntaxError::ComplexKey { span, path } => {
                Diagnostic::error(code, "mapping keys must be scalars", span)
                    .with_label("a collection used as a key")
                    .with_path(path)
            }
            SyntaxError::InvalidMergeKey { span, found, path } => Diagnostic::error(
                code,
                format!("a `<<` merge key needs a mapping or a list of mappings, found {found}"),
                span,
            )
            .with_path(path),
            SyntaxError::InvalidTaggedValue {
                span,
                tag,
                text,
                path,
            } => Diagnostic::error(code, format!("`{text}` is not a valid `{tag}` value"), span)
                .with_path(path),
            SyntaxError::IntegerOutOfRange { span, path } => {
                Diagnostic::error(code, "integer does not fit in 64 bits", span)
                    .with_help("quote it to keep it as a string")
                    .with_path(path)
            }
            SyntaxError::TooDeep { span, limit } => Diagnostic::error(
                code,
                format!("nesting is deeper than the limit of {limit} levels"),
                span,
            )
            .with_label("limit crossed here"),
            SyntaxError::AliasExpansion { span, limit } => Diagnostic::error(
                code,
                match limit {
                    AliasLimit::Nodes(limit) => {
                        format!("aliases expand to more than the limit of {limit} nodes")
                    }
                    AliasLimit::Bytes(limit) => {
                        format!("aliases expand to more than the limit of {limit} bytes of text")
                    }
                },
                span,
            )
            .with_label("this alias crosses the limit")
            .with_note("a chain of aliases that doubles at each step (a \"billion laughs\") grows exponentially"),
            SyntaxError::TooLarge { span, size, limit } => Diagnostic::error(
                code,
                format!("input is {size} bytes, more than the limit of {limit} bytes"),
                span,
            ),
        }
    }
}

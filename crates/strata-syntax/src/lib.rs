//! The spanned document tree and everything that reads, writes and points into it.
//!
//! - [`source`]: the [`SourceDb`] of every input and the [`Span`] model.
//! - [`node`]: the [`Node`] tree shared by YAML, JSON and evaluated languages.
//! - [`path`]: [`FieldPath`]s such as `storages.home.claimSpec.accessModes[0]`.
//! - [`diagnostic`]: [`Diagnostic`]s with stable codes, resolved to records for JSON;
//!   [`code`]: the [`Code`]s, declared with what they mean ([`declare_codes!`]).
//! - [`outcome`]: [`Outcome`], a value and its diagnostics: the result shape
//!   of every phase.
//! - [`parse`]: YAML 1.2 (multi-document, anchors, merge keys, tags) and
//!   strict JSON into nodes, within [`Limits`]; [`parse_handing_off`] also
//!   hands out the entries of one section as each is complete, for work on
//!   them to run while the rest is read.
//! - [`emit`]: deterministic YAML and JSON output.
//! - [`substitution`]: where a `${..}` opens in a text.
//! - [`expr_error`]: [`ExprError`], a problem at a range of an expression's
//!   text, shared by the expression languages.
//!
//! This crate does no I/O: callers read files and register their text.
//!
//! ```
//! use strata_syntax::{Format, Limits, SourceDb, emit::to_yaml, parse};
//!
//! let mut db = SourceDb::new();
//! let id = db.add("app.yaml", "name: web\nhost: !cel \"user.name\"\nname: api\n");
//! let parsed = parse(&db, id, Format::Yaml, &Limits::default());
//!
//! // The document is kept (first `name` wins) and the duplicate is reported.
//! assert_eq!(to_yaml(&parsed.documents[0]), "name: web\nhost: !cel user.name\n");
//! let record = parsed.diagnostics[0].record(&db);
//! assert_eq!(record.code, "syntax/duplicate-key");
//! assert_eq!((record.file.as_str(), record.line, record.column), ("app.yaml", 3, 1));
//! ```

#![forbid(unsafe_code)]

pub mod code;
pub mod codes;
pub mod diagnostic;
pub mod emit;
pub mod error;
pub mod expr_error;
mod go;
mod json;
pub mod node;
pub mod outcome;
pub mod path;
pub mod reparse;
mod scalar;
pub mod source;
pub mod substitution;
mod yaml;
mod yaml11;

pub use code::{Code, Explanation};
pub use diagnostic::{
    Diagnostic, DiagnosticRecord, Label, Severity, dedupe, did_you_mean, lowercase_first,
};
pub use error::{AliasLimit, SyntaxError};
pub use expr_error::ExprError;
pub use go::go_float;
pub use node::{Entry, LayerId, MapHasher, Mapping, Node, Tag, Value};
pub use outcome::Outcome;
pub use path::{FieldPath, PathParseError, PathStep, Segment};
pub use source::{LineCol, SourceDb, SourceFile, SourceId, Span};

use std::collections::HashMap;

/// Bounds that keep any input from exhausting the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest input accepted, in bytes.
    pub max_bytes: usize,
    /// The deepest nesting of collections accepted.
    pub max_depth: usize,
    /// How many nodes alias expansion may add to one source.
    pub max_alias_nodes: usize,
    /// How many bytes of text ([`Node::text_bytes`]) alias expansion may
    /// add to one source: one long string referred to many times is few
    /// nodes and many bytes.
    pub max_alias_bytes: usize,
}

impl Default for Limits {
    /// 64 MiB, 128 levels, one million alias-expanded nodes holding at
    /// most 16 MiB of text.
    fn default() -> Limits {
        Limits {
            max_bytes: 64 * 1024 * 1024,
            max_depth: 128,
            max_alias_nodes: 1_000_000,
            max_alias_bytes: 16 * 1024 * 1024,
        }
    }
}

/// The syntax of a source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// YAML 1.2, possibly a stream of documents.
    Yaml,
    /// YAML read as Kubernetes tooling (go-yaml) reads it: plain scalars
    /// resolved by YAML 1.1 (`yes`/`on` are booleans, `0644` is octal);
    /// see the `scalar` module docs.
    Yaml11,
    /// JSON: one document.
    Json,
}

impl Format {
    /// The format a file name implies: `.json` is JSON, anything else YAML
    /// (which also reads JSON, less strictly).
    #[must_use]
    pub fn from_name(name: &str) -> Format {
        let is_json = std::path::Path::new(name)
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("json"));
        if is_json { Format::Json } else { Format::Yaml }
    }
}

/// What loading one source gave: its documents and every problem found.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The documents, in order. Empty documents are left out.
    pub documents: Vec<Node>,
    /// Every problem found, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Every anchor, alias and tag written in a YAML source, in the order
    /// written (aliases are expanded in `documents`), for a dialect whose
    /// files may not use them.
    pub properties: Vec<NodeProperty>,
    /// The input, or what its aliases expand to, is larger than the
    /// [`Limits`] allow ([`SyntaxError::is_size_bound`]): its size, not
    /// its text, is the problem (a service answers 413).
    pub too_large: bool,
}

/// An anchor, alias or tag written in a YAML source, where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeProperty {
    /// `&name` on the node at the span.
    Anchor(Span),
    /// `*name`.
    Alias(Span),
    /// A tag (core tags included: `!!str`) on the node at the span.
    Tag(Tag, Span),
}

impl Parsed {
    /// Whether any diagnostic is an error.
    #[must_use]
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Puts the entries [`parse_handing_off`] handed out of `section` back
    /// in place of their stand-ins, found by the value's span: the
    /// documents are then what [`parse`] builds. An entry the tree no
    /// longer holds (its document was not completed) is dropped.
    pub fn restore(&mut self, section: &str, entries: impl IntoIterator<Item = HandedEntry>) {
        let mut handed: HashMap<Span, Node, MapHasher> = entries
            .into_iter()
            .map(|entry| (entry.value.span, entry.value))
            .collect();
        for document in &mut self.documents {
            if handed.is_empty() {
                break;
            }
            let Value::Map(top) = &mut document.value else {
                continue;
            };
            let Some(Value::Map(entries)) =
                top.get_mut(section).map(|entry| &mut entry.value.value)
            else {
                continue;
            };
            for entry in entries.values_mut() {
                if matches!(entry.value.value, Value::Null)
                    && let Some(value) = handed.remove(&entry.value.span)
                {
                    entry.value = value;
                }
            }
        }
    }
}

/// Parses a registered source into documents.
///
/// Never panics and never stops at the first problem it can recover from:
/// the documents built and every diagnostic are returned together.
#[must_use]
pub fn parse(db: &SourceDb, source: SourceId, format: Format, limits: &Limits) -> Parsed {
    parse_with(db, source, format, limits, None)
}

/// Where a parse hands out the entries of one section of a document
/// ([`parse_handing_off`]).
pub struct Handoff<'a> {
    /// The key of the document's top-level mapping whose mapping's entries
    /// are handed out.
    pub section: &'a str,
    /// Receives each entry, in the order written, as soon as the parse has
    /// completed it.
    pub give: &'a mut dyn FnMut(HandedEntry),
}

/// An entry a parse handed out: its key stays in the tree, over a
/// stand-in for the value until [`Parsed::restore`] puts it back.
#[derive(Debug)]
pub struct HandedEntry {
    /// The key.
    pub key: String,
    /// Where the key was written.
    pub key_span: Span,
    /// The value, as [`parse`] builds it.
    pub value: Node,
}

/// As [`parse`], handing each entry of `handoff.section` of a YAML
/// document to `handoff.give` as soon as it is complete, so that work on
/// the entries runs while the rest of the source is read. The tree holds a
/// stand-in (a null at the value's span) for each entry handed out until
/// [`Parsed::restore`] is given them back. Entries are handed out only
/// where that gives the same tree back: not those of a JSON source (read
/// whole), a discarded duplicate key, or a section or document mapping
/// that is anchored (an alias would copy the stand-ins).
#[must_use]
pub fn parse_handing_off(
    db: &SourceDb,
    source: SourceId,
    format: Format,
    limits: &Limits,
    handoff: Handoff<'_>,
) -> Parsed {
    parse_with(db, source, format, limits, Some(handoff))
}

fn parse_with(
    db: &SourceDb,
    source: SourceId,
    format: Format,
    limits: &Limits,
    handoff: Option<Handoff<'_>>,
) -> Parsed {
    let file = db.get(source);
    let size = file.text().len();
    if size > limits.max_bytes {
        let error = SyntaxError::TooLarge {
            span: Span::file_start(source),
            size,
            limit: limits.max_bytes,
        };
        return Parsed {
            diagnostics: vec![error.into()],
            too_large: true,
            ..Parsed::default()
        };
    }
    let (documents, errors, properties) = match format {
        Format::Yaml => yaml::parse(file, source, limits, yaml::Schema::Core, handoff),
        Format::Yaml11 => yaml::parse(file, source, limits, yaml::Schema::Yaml11, handoff),
        Format::Json => {
            let (documents, errors) = json::parse(file, source, limits);
            (documents, errors, Vec::new())
        }
    };
    Parsed {
        documents,
        too_large: errors.iter().any(SyntaxError::is_size_bound),
        diagnostics: errors.into_iter().map(Diagnostic::from).collect(),
        properties,
    }
}

//! Strict, complete decoding of a [`Node`] tree into a typed struct.
//!
//! Serde alone stops at the first error, ignores unknown keys and knows no
//! spans. A [`Decoder`] instead checks the tree against the type's JSON Schema
//! first and reports **every** problem, each as a [`Diagnostic`] carrying the
//! span of the offending node and its [`FieldPath`]; only a tree without
//! problems is handed to serde.
//!
//! # Semantics
//!
//! - The schema is generated once by `schemars` (JSON Schema 2020-12), then
//!   *closed*: every object schema that lists `properties` and says nothing
//!   about other keys rejects them (`additionalProperties: false`, or
//!   `unevaluatedProperties: false` where `#[serde(flatten)]` or a tagged
//!   enum composes the object from parts). Maps keep their value schema.
//!   [`Decoder::schema`] is that closed schema; it is compiled once.
//! - The tree is validated in place, as the JSON it stands for
//!   ([`Node::to_json_value`]: tags dropped, non-finite floats as `null`),
//!   collecting all errors; it is never copied into a `serde_json::Value`.
//!   Each error's JSON pointer is walked down the tree to the node, which
//!   gives the path and the span.
//! - A value of the wrong type is reported once, as a type error, not also
//!   for the `enum` or the lengths it then fails.
//! - `anyOf`/`oneOf` (`Option<T>` of a struct or enum, untagged and tagged
//!   enums) are resolved to the branch the value most likely meant: branches
//!   that reject the value's type or its tag are set aside, and the problems
//!   of the closest remaining branch are reported as if it were the only one.
//!   When no branch takes the type, the message lists the types that would
//!   do; when no branch takes the tag, the tags that would.
//! - Diagnostics come in document order (by span), without repeats.
//! - A tree that passes is deserialised with serde, straight from the tree
//!   ([`from_node`]); should serde still
//!   refuse it (a range the schema does not state, such as `u32`'s upper
//!   bound), its message is reported at the root.
//!
//! # Diagnostic codes
//!
//! Every code, with when and where it is reported, is listed in [`codes`].
//!
//! # Example
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use strata_schema::Decoder;
//! use strata_syntax::{Format, Limits, SourceDb, parse};
//!
//! #[derive(Debug, Deserialize, JsonSchema)]
//! #[serde(rename_all = "camelCase")]
//! struct Container {
//!     image: String,
//!     pull_policy: Option<String>,
//! }
//!
//! let decoder = Decoder::<Container>::new();
//! let mut db = SourceDb::new();
//!
//! let id = db.add("good.yaml", "image: web\npullPolicy: Always\n");
//! let tree = parse(&db, id, Format::Yaml, &Limits::default()).documents.remove(0);
//! assert_eq!(decoder.decode(&tree).unwrap().pull_policy.as_deref(), Some("Always"));
//!
//! let id = db.add("app.yaml", "image: web\npullPolicie: Always\n");
//! let tree = parse(&db, id, Format::Yaml, &Limits::default()).documents.remove(0);
//! let diagnostics = decoder.decode(&tree).unwrap_err();
//! let record = diagnostics[0].record(&db);
//! assert_eq!(record.code, "schema/unknown-key");
//! assert_eq!(record.message, "unknown key `pullPolicie`");
//! assert_eq!(record.help.as_deref(), Some("did you mean `pullPolicy`?"));
//! assert_eq!((record.line, record.column), (2, 1));
//! assert_eq!(record.path.as_deref(), Some("pullPolicie"));
//! ```

#![forbid(unsafe_code)]

pub mod authored;
mod close;
pub mod codes;
mod de;
mod report;
mod repr;
mod scalars;

pub use authored::{Authored, file_shapes};
pub use de::from_node;

use std::fmt;
use std::marker::PhantomData;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use strata_syntax::{Diagnostic, FieldPath, Node, Outcome, Segment, Value, lowercase_first};

/// Decodes trees into `T`, reporting every problem with its span and path.
///
/// Build one per type and keep it (in a `LazyLock`, say): building generates
/// and compiles the schema, decoding only validates. A decoder is `Send` and
/// `Sync` whatever `T` is.
pub struct Decoder<T> {
    schema: serde_json::Value,
    validator: jsonschema::Validator<repr::Tree>,
    target: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned + JsonSchema> Decoder<T> {
    /// A decoder for `T` with the schema `T` derives, closed.
    ///
    /// # Panics
    ///
    /// If the generated schema does not compile, which `schemars` output does.
    #[must_use]
    pub fn new() -> Decoder<T> {
        Decoder::with_schema_edit(|_| {})
    }

    /// A decoder for `T` whose generated schema `edit` adjusts before it is
    /// closed and compiled: to add an `enum` or a pattern that the type does
    /// not state, or to loosen a field that a custom check validates instead.
    ///
    /// # Panics
    ///
    /// If the edited schema does not compile.
    #[must_use]
    #[expect(
        clippy::panic,
        reason = "a type whose derived schema does not compile is a programming error, met by every test that builds its decoder"
    )]
    pub fn with_schema_edit(edit: impl FnOnce(&mut serde_json::Value)) -> Decoder<T> {
        let mut schema = SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<T>()
            .to_value();
        edit(&mut schema);
        close::close(&mut schema);
        let validator = jsonschema::options_for::<repr::Tree>()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .unwrap_or_else(|error| {
                panic!(
                    "the schema of `{}` does not compile: {error}",
                    std::any::type_name::<T>()
                )
            });
        Decoder {
            schema,
            validator,
            target: PhantomData,
        }
    }
}

impl<T: DeserializeOwned + JsonSchema> Default for Decoder<T> {
    fn default() -> Decoder<T> {
        Decoder::new()
    }
}

impl<T> fmt::Debug for Decoder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder")
            .field("target", &std::any::type_name::<T>())
            .finish_non_exhaustive()
    }
}

impl<T: DeserializeOwned> Decoder<T> {
    /// The closed JSON Schema trees are checked against.
    #[must_use]
    pub fn schema(&self) -> &serde_json::Value {
        &self.schema
    }

    /// Every problem the schema finds in `node`, in document order; empty
    /// when there is none. Paths are relative to `node`.
    #[must_use]
    pub fn validate(&self, node: &Node) -> Vec<Diagnostic> {
        self.check(node)
    }

    /// Rewrites every number, boolean or null of `node` that sits where
    /// the schema takes only a string into that string's text, as Go's
    /// YAML decoders read them (`cpu: 4` is `"4"`; module docs in
    /// `scalars`): a note (`schema/scalar-as-string`) for each, in
    /// document order.
    pub fn read_scalars_as_strings(&self, node: &mut Node) -> Vec<Diagnostic> {
        let mut notes = Vec::new();
        scalars::read_as_strings(&self.schema, node, &mut FieldPath::root(), &mut notes);
        notes
    }

    /// `node` as a `T`, or every problem found, in document order.
    pub fn decode(&self, node: &Node) -> Result<T, Vec<Diagnostic>> {
        self.decode_with(node, |_| Vec::new())
    }

    /// Like [`decode`](Decoder::decode), with `check` run on the tree as well:
    /// its diagnostics join the schema's (sorted and deduplicated with them),
    /// and any of them makes decoding fail. For rules the schema cannot
    /// state, such as the syntax of a Kubernetes quantity.
    pub fn decode_with(
        &self,
        node: &Node,
        check: impl FnOnce(&Node) -> Vec<Diagnostic>,
    ) -> Result<T, Vec<Diagnostic>> {
        let mut diagnostics = self.check(node);
        diagnostics.extend(check(node));
        if !diagnostics.is_empty() {
            return Err(report::finish(diagnostics));
        }
        deserialize(node)
    }

    /// Every problem of `node`, and as much of it as decodes: the value
    /// leaves out each node that has a problem (an unknown key, a value of
    /// the wrong type, a mapping that misses a required key) until the rest
    /// decodes, so rules that run on the value check every field that is
    /// valid. No value when the root itself is unusable. The outcome's value
    /// is partial exactly when it has diagnostics.
    pub fn decode_partial(&self, node: &Node) -> Outcome<T> {
        let diagnostics = self.check(node);
        if diagnostics.is_empty() {
            return deserialize(node).into();
        }
        let mut pruned = node.clone();
        // Each round removes at least one node, and no tree is deeper than
        // the loader's bound; a cap keeps a pathological schema finite.
        for _ in 0..MAX_PRUNING_ROUNDS {
            let mut unusable: Vec<FieldPath> = Vec::new();
            for error in self.validator.iter_errors(repr::TreeNode::Node(&pruned)) {
                let pointer = error.instance_path().as_str();
                let (at, _) = report::locate(&pruned, pointer);
                // The errors are about this tree, so every pointer resolves
                // whole; one that did not would name an ancestor.
                if at.segments().len() != pointer.split('/').skip(1).count() {
                    continue;
                }
                match error.kind() {
                    jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected }
                    | jsonschema::error::ValidationErrorKind::UnevaluatedProperties {
                        unexpected,
                    } => {
                        unusable.extend(unexpected.iter().map(|key| {
                            let mut path = at.clone();
                            path.push(Segment::Key(key.clone()));
                            path
                        }));
                    }
                    _ => unusable.push(at),
                }
            }
            if unusable.is_empty() {
                break;
            }
            if unusable.iter().any(|path| path.segments().is_empty()) {
                return Outcome::failed(diagnostics);
            }
            // Deepest and last first, so removing an item does not move the
            // items still to be removed.
            unusable.sort_by(|a, b| b.cmp(a));
            unusable.dedup();
            for path in &unusable {
                remove_at(&mut pruned, path.segments());
            }
        }
        let value = from_node(&pruned).ok();
        Outcome::new(value, diagnostics)
    }

    /// The problems of `node`.
    fn check(&self, node: &Node) -> Vec<Diagnostic> {
        // The common case, a valid tree, without collecting errors: `is_valid`
        // stops at the first problem and builds no error values.
        let checked = repr::TreeNode::Node(node);
        if self.validator.is_valid(checked) {
            return Vec::new();
        }
        let errors: Vec<_> = self.validator.iter_errors(checked).collect();
        report::finish(report::diagnose(&self.schema, node, &errors))
    }
}

/// Serde's decoding of a tree the schema accepted; a refusal is reported at
/// the root.
fn deserialize<T: DeserializeOwned>(node: &Node) -> Result<T, Vec<Diagnostic>> {
    from_node(node).map_err(|error| {
        let message = lowercase_first(&error.to_string());
        vec![Diagnostic::error(codes::DECODE, message, node.span).with_path(FieldPath::root())]
    })
}

/// How many times [`Decoder::decode_partial`] prunes and validates again.
const MAX_PRUNING_ROUNDS: usize = 64;

/// Removes the node at `path` (not the root) from its parent.
fn remove_at(root: &mut Node, path: &[Segment]) {
    let Some((last, parent)) = path.split_last() else {
        return;
    };
    match (root.at_mut(parent).map(|parent| &mut parent.value), last) {
        (Some(Value::Map(entries)), Segment::Key(key)) => {
            entries.shift_remove(key);
        }
        (Some(Value::Seq(items)), Segment::Index(index)) if *index < items.len() => {
            items.remove(*index);
        }
        _ => {}
    }
}

/// Puts `base` in front of the path of every diagnostic that has one, for
/// diagnostics about a subtree that the caller found at `base`.
pub fn rebase(diagnostics: &mut [Diagnostic], base: &FieldPath) {
    for diagnostic in diagnostics {
        if let Some(path) = &diagnostic.path {
            let segments = base.segments().iter().chain(path.segments()).cloned();
            diagnostic.path = Some(FieldPath::from(segments.collect::<Vec<_>>()));
        }
    }
}

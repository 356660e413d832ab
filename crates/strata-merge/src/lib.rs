//! Layered merge of spanned trees.
//!
//! # Semantics
//!
//! Layers are merged in order, the first the lowest; each upper layer is
//! merged onto the result so far with [`merge`]:
//!
//! - **scalar**: the upper value wins, tag and all;
//! - **explicit `null`** in the upper layer replaces the lower value;
//! - **mapping over mapping**: merged key by key. Keys only in the lower
//!   layer are kept, keys only in the upper layer are added, keys in both
//!   are merged recursively. The merged mapping lists the lower layer's keys
//!   in their order, then the upper layer's new keys in theirs;
//! - **sequence over sequence**: combined by the [`Strategy`] registered for
//!   the sequence's path (see [`strategy`] for the lookup order), `append`
//!   when none is;
//! - **anything else** (a mapping over a scalar, a sequence over a mapping,
//!   ...): the upper value replaces the lower one.
//!
//! A merged collection keeps the upper layer's tag when it has one, else the
//! lower layer's, so tags survive everywhere, also on items that a strategy
//! moves.
//!
//! # Provenance
//!
//! [`merge_layers`] stamps every node of layer `i` with [`LayerId`]`(i)`
//! before merging, and merging moves nodes, never rebuilds them: each node
//! of the result still carries the span and layer of the text that supplied
//! it. A merged collection carries those of the lower layer, where it was
//! first written; a scalar or a replaced value, those of the layer that won.
//!
//! # Errors
//!
//! Merging never stops at a problem. By-key strategies report items that are
//! not mappings (`merge/item-not-mapping`) or lack the key field
//! (`merge/missing-key-field`) and keep them; a custom strategy reports
//! through [`SequenceMerge::report`] (`merge/strategy-failed`). Every
//! diagnostic carries the field path of the item concerned.

//!
//! # Example
//!
//! ```
//! use strata_merge::{Strategies, Strategy, merge_layers};
//! use strata_syntax::{Format, LayerId, Limits, SourceDb, emit::to_yaml, parse};
//!
//! let mut db = SourceDb::new();
//! let layers = [
//!     "image: base\nports: [80]\nenv: {A: '1'}\n",
//!     "image: app\nports: [80, 443]\nenv: {B: '2'}\n",
//! ];
//! let trees = layers.iter().enumerate().map(|(i, text)| {
//!     let id = db.add(format!("layer{i}.yaml"), *text);
//!     parse(&db, id, Format::Yaml, &Limits::default()).documents.remove(0)
//! });
//! let mut strategies = Strategies::new();
//! strategies.register("ports", Strategy::Union).unwrap();
//!
//! let merged = merge_layers(trees.collect::<Vec<_>>(), &strategies).unwrap();
//! assert!(merged.diagnostics.is_empty());
//! assert_eq!(
//!     to_yaml(&merged.root),
//!     "image: app\nports:\n  - 80\n  - 443\nenv:\n  A: \"1\"\n  B: \"2\"\n"
//! );
//! // Provenance: `image` came from the second layer.
//! assert_eq!(merged.root.get("image").unwrap().layer, Some(LayerId(1)));
//! ```

#![forbid(unsafe_code)]

pub mod codes;
pub mod strategy;

use indexmap::IndexMap;
use strata_syntax::{Diagnostic, FieldPath, LayerId, Node, Segment, Span, Value};

pub use strategy::{
    PatternError, STRATEGY_NAMES, Strategies, Strategy, StrategyFn, UnknownStrategy,
};

/// The result of a merge: the tree and every problem met on the way.
#[derive(Debug)]
pub struct Merged {
    /// The merged tree.
    pub root: Node,
    /// Every problem found, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

/// Merges `upper` onto `lower` with `strategies`.
#[must_use]
pub fn merge(lower: Node, upper: Node, strategies: &Strategies) -> Merged {
    let mut merger = SequenceMerge {
        strategies,
        path: Vec::new(),
        diagnostics: Vec::new(),
    };
    let root = merger.merge(lower, upper);
    Merged {
        root,
        diagnostics: merger.diagnostics,
    }
}

/// Merges layers in order, the first the lowest, stamping each node with
/// the index of its layer. `None` when there are no layers.
#[must_use]
pub fn merge_layers(
    layers: impl IntoIterator<Item = Node>,
    strategies: &Strategies,
) -> Option<Merged> {
    let mut stamped = layers.into_iter().zip(0u32..).map(|(mut node, index)| {
        node.stamp_layer(LayerId(index));
        node
    });
    let first = stamped.next()?;
    let mut merger = SequenceMerge {
        strategies,
        path: Vec::new(),
        diagnostics: Vec::new(),
    };
    let root = stamped.fold(first, |lower, upper| merger.merge(lower, upper));
    Some(Merged {
        root,
        diagnostics: merger.diagnostics,
    })
}

/// The state of a merge in progress, handed to strategy functions.
pub struct SequenceMerge<'a> {
    strategies: &'a Strategies,
    path: Vec<Segment>,
    diagnostics: Vec<Diagnostic>,
}

impl SequenceMerge<'_> {
    /// The field path of the sequence (or item) being merged.
    #[must_use]
    pub fn path(&self) -> FieldPath {
        FieldPath::from(self.path.clone())
    }

    /// Records a problem at `span`, under the current path.
    pub fn report(&mut self, span: Span, message: impl Into<String>) {
        let diagnostic =
            Diagnostic::error(codes::STRATEGY_FAILED, message, span).with_path(self.path());
        self.diagnostics.push(diagnostic);
    }

    /// Deep-merges `upper` onto `lower` by the same rules and registry.
    pub fn merge(&mut self, mut lower: Node, upper: Node) -> Node {
        match (&mut lower.value, upper.value) {
            (Value::Map(lower_map), Value::Map(upper_map)) => {
                for (key, upper_entry) in upper_map {
                    match lower_map.get_mut(&key) {
                        Some(lower_entry) => {
                            let placeholder = Node::new(Value::Null, lower_entry.value.span);
                            let below = std::mem::replace(&mut lower_entry.value, placeholder);
                            self.path.push(Segment::Key(key));
                            lower_entry.value = self.merge(below, upper_entry.value);
                            self.path.pop();
                        }
                        None => {
                            lower_map.insert(key, upper_entry);
                        }
                    }
                }
                lower.tag = upper.tag.or(lower.tag);
                lower
            }
            (Value::Seq(lower_items), Value::Seq(upper_items)) => {
                let below = std::mem::take(lower_items);
                let merged = self.sequences(below, upper_items);
                lower.value = Value::Seq(merged);
                lower.tag = upper.tag.or(lower.tag);
                lower
            }
            (_, value) => Node { value, ..upper },
        }
    }

    fn sequences(&mut self, lower: Vec<Node>, upper: Vec<Node>) -> Vec<Node> {
        let keys: Vec<&str> = self
            .path
            .iter()
            .filter_map(|segment| match segment {
                Segment::Key(key) => Some(key.as_str()),
                _ => None,
            })
            .collect();
        let strategy = self.strategies.lookup(&keys).clone();
        match strategy {
            Strategy::Append => append(lower, upper),
            Strategy::Replace => upper,
            Strategy::Union => union(lower, upper),
            Strategy::MergeByKey(field) => self.by_key(lower, upper, &field, true),
            Strategy::ReplaceByKey(field) => self.by_key(lower, upper, &field, false),
            Strategy::Custom { function, .. } => function(self, lower, upper),
        }
    }

    /// The by-key strategies: upper items whose key matches a lower item's
    /// are merged into it (or replace it); the rest are appended in order.
    fn by_key(&mut self, lower: Vec<Node>, upper: Vec<Node>, field: &str, deep: bool) -> Vec<Node> {
        let mut result: Vec<Node> = Vec::with_capacity(lower.len() + upper.len());
        let mut positions: IndexMap<String, usize> = IndexMap::new();
        for item in lower {
            if let Some(key) = self.item_key(&item, field, result.len()) {
                positions.entry(key).or_insert(result.len());
            }
            result.push(item);
        }
        for (index, item) in upper.into_iter().enumerate() {
            let key = self.item_key(&item, field, index);
            match key.as_ref().and_then(|key| positions.get(key).copied()) {
                Some(position) if deep => {
                    let placeholder = Node::new(Value::Null, item.span);
                    let below = std::mem::replace(&mut result[position], placeholder);
                    self.path.push(Segment::Index(position));
                    result[position] = self.merge(below, item);
                    self.path.pop();
                }
                Some(position) => result[position] = item,
                None => {
                    if let Some(key) = key {
                        positions.insert(key, result.len());
                    }
                    result.push(item);
                }
            }
        }
        result
    }

    /// The key of a by-key item, or a reported problem.
    fn item_key(&mut self, item: &Node, field: &str, index: usize) -> Option<String> {
        let error = match item.as_map() {
            None => MergeError::ItemNotMapping {
                field: field.to_owned(),
                found: item.value.kind_name(),
                span: item.span,
                path: self.item_path(index),
            },
            Some(map) => match item_key_text(item, field) {
                Some(key) => return Some(key),
                None => MergeError::MissingKeyField {
                    field: field.to_owned(),
                    found: map.get(field).map(|entry| entry.value.value.kind_name()),
                    span: item.span,
                    path: self.item_path(index),
                },
            },
        };
        self.diagnostics.push(error.into());
        None
    }

    /// The path of item `index` of the sequence being merged (in its own layer).
    fn item_path(&self, index: usize) -> FieldPath {
        let mut path = self.path();
        path.push(Segment::Index(index));
        path
    }
}

fn append(mut lower: Vec<Node>, upper: Vec<Node>) -> Vec<Node> {
    lower.extend(upper);
    lower
}

fn union(mut lower: Vec<Node>, upper: Vec<Node>) -> Vec<Node> {
    for item in upper {
        if !lower.iter().any(|existing| existing.same_content(&item)) {
            lower.push(item);
        }
    }
    lower
}

/// The text of a scalar key field, so `id: 1` and `id: "1"` are different keys
/// only when their types differ.
fn item_key_text(item: &Node, field: &str) -> Option<String> {
    let value = &item.get(field)?.value;
    Some(match value {
        Value::String(text) => format!("s:{text}"),
        Value::Int(int) => format!("i:{int}"),
        Value::Bool(b) => format!("b:{b}"),
        Value::Float(float) => format!("f:{}", float.to_bits()),
        Value::Null | Value::Seq(_) | Value::Map(_) => return None,
    })
}

/// A problem met while merging.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// An item of a by-key sequence is not a mapping.
    ItemNotMapping {
        /// The key field of the strategy.
        field: String,
        /// The kind of item found.
        found: &'static str,
        /// The item.
        span: Span,
        /// The item's path.
        path: FieldPath,
    },
    /// An item of a by-key sequence lacks a scalar key field.
    MissingKeyField {
        /// The key field of the strategy.
        field: String,
        /// The kind of value under the field, when there is one.
        found: Option<&'static str>,
        /// The item.
        span: Span,
        /// The item's path.
        path: FieldPath,
    },
}

impl From<MergeError> for Diagnostic {
    fn from(error: MergeError) -> Diagnostic {
        match error {
            MergeError::ItemNotMapping {
                field,
                found,
                span,
                path,
            } => Diagnostic::error(
                codes::ITEM_NOT_MAPPING,
                format!("items merged by key `{field}` must be mappings, found {found}"),
                span,
            )
            .with_note("the item is kept, appended after the matched items")
            .with_path(path),
            MergeError::MissingKeyField {
                field,
                found,
                span,
                path,
            } => {
                let message = match found {
                    Some(kind) => format!("merge key `{field}` must be a scalar, found {kind}"),
                    None => format!("item has no merge key `{field}`"),
                };
                Diagnostic::error(codes::MISSING_KEY_FIELD, message, span)
                    .with_help(format!("give every item a `{field}` field"))
                    .with_note("the item is kept, appended after the matched items")
                    .with_path(path)
            }
        }
    }
}

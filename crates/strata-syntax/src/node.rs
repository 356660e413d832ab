//! The spanned document tree.
//!
//! YAML and JSON (and, later, Jsonnet output) all load into one [`Node`]
//! type. A node holds its [`Value`], the [`Span`] of the text that produced
//! it, its optional [`Tag`] (`!cel`, `!include`, any local tag) and the
//! composition layer that supplied it.
//!
//! Semantics worth knowing:
//! - Mapping keys are strings: a plain scalar key is kept as its text
//!   (`1: a` has the key `"1"`), so configuration paths stay uniform.
//!   Mappings keep insertion order.
//! - A tagged scalar is not type-resolved: `!cel 1 + 2` is the string
//!   `"1 + 2"` carrying the tag `!cel`.
//! - Equality of content ([`Node::same_content`]) ignores spans, layers and
//!   the key order of mappings, but not tags.

use std::fmt;

use indexmap::IndexMap;

use crate::path::{FieldPath, Segment};
use crate::source::Span;

/// Which composition layer supplied a node: an index into the layer list of
/// the composition that produced the tree. Freshly parsed nodes have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LayerId(pub u32);

/// A YAML tag as written (`!cel`, `!!binary`, `!<tag:example.com,2024:x>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tag(Box<str>);

impl Tag {
    /// A tag from its written form, which starts with `!`.
    #[must_use]
    pub fn new(text: &str) -> Tag {
        Tag(text.into())
    }

    /// The tag as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A value in the tree.
#[derive(Clone, Debug)]
pub enum Value {
    /// `null`, `~` or an empty value.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// A floating-point number, including `.inf` and `.nan`.
    Float(f64),
    /// A string.
    String(String),
    /// A sequence of nodes.
    Seq(Vec<Node>),
    /// A mapping from string keys to nodes, in insertion order.
    Map(Mapping),
}

impl Value {
    /// A short name of the value's kind, for messages (`"mapping"`).
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::String(_) => "string",
            Value::Seq(_) => "sequence",
            Value::Map(_) => "mapping",
        }
    }
}

/// One key of a mapping with its value.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Where the key was written.
    pub key_span: Span,
    /// The value under the key.
    pub value: Node,
}

/// An insertion-ordered mapping from string keys to nodes.
///
/// Hashed with foldhash rather than `SipHash`: hashing keys was a tenth of
/// composing a blueprint, and foldhash is seeded per process, so keys from
/// a request cannot be chosen to collide.
pub type Mapping = IndexMap<String, Entry, MapHasher>;

/// The hasher of [`Mapping`]; `Mapping::default()` makes an empty one.
pub type MapHasher = foldhash::fast::RandomState;

/// A node of the document tree.
#[derive(Clone, Debug)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// The text that produced the node.
    pub span: Span,
    /// The node's tag, when one was written.
    pub tag: Option<Tag>,
    /// The composition layer that supplied the node, once composed.
    pub layer: Option<LayerId>,
}

impl Node {
    /// An untagged node without a layer.
    #[must_use]
    pub fn new(value: Value, span: Span) -> Node {
        Node {
            value,
            span,
            tag: None,
            layer: None,
        }
    }

    /// The tree with every scalar (every node that is not a sequence or a
    /// mapping) replaced by what `f` makes of it; keys, spans and the
    /// collections' own tags are kept.
    #[must_use]
    pub fn map_scalars(mut self, f: &mut impl FnMut(Node) -> Node) -> Node {
        match self.value {
            Value::Seq(items) => {
                self.value =
                    Value::Seq(items.into_iter().map(|item| item.map_scalars(f)).collect());
                self
            }
            Value::Map(entries) => {
                self.value = Value::Map(
                    entries
                        .into_iter()
                        .map(|(key, mut entry)| {
                            entry.value = entry.value.map_scalars(f);
                            (key, entry)
                        })
                        .collect(),
                );
                self
            }
            _ => f(self),
        }
    }

    /// The node with `tag` set.
    #[must_use]
    pub fn with_tag(mut self, tag: Option<Tag>) -> Node {
        self.tag = tag;
        self
    }

    /// The mapping, when the node is one.
    #[must_use]
    pub fn as_map(&self) -> Option<&Mapping> {
        match &self.value {
            Value::Map(map) => Some(map),
            _ => None,
        }
    }

    /// The sequence, when the node is one.
    #[must_use]
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The string, when the node is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// The value under `key`, when the node is a mapping that has it.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?.get(key).map(|entry| &entry.value)
    }

    /// The items of the sequence under `key`; none when this is not a
    /// mapping, or `key` is missing or holds no sequence.
    #[must_use]
    pub fn items(&self, key: &str) -> &[Node] {
        self.get(key).and_then(Node::as_seq).unwrap_or_default()
    }

    /// The node at `path` below this one, when there is one. Wildcards match nothing.
    #[must_use]
    pub fn at(&self, path: &[Segment]) -> Option<&Node> {
        path.iter().try_fold(self, |node, segment| match segment {
            Segment::Key(key) => node.get(key),
            Segment::Index(index) => node.as_seq()?.get(*index),
            Segment::Wildcard => None,
        })
    }

    /// The path from this node to the innermost node written at `at` (an
    /// offset of `at.source`): the value whose text holds it, or whose key
    /// does; `None` when `at` is outside this node. Iterative, so a deep
    /// tree costs no stack.
    #[must_use]
    pub fn path_to(&self, at: Span) -> Option<FieldPath> {
        let holds =
            |span: Span| span.source == at.source && span.start <= at.start && at.start <= span.end;
        if !holds(self.span) {
            return None;
        }
        let mut path = FieldPath::root();
        let mut node = self;
        'descend: loop {
            match &node.value {
                Value::Map(entries) => {
                    for (key, entry) in entries {
                        if holds(entry.key_span) || holds(entry.value.span) {
                            path.push(Segment::Key(key.clone()));
                            node = &entry.value;
                            continue 'descend;
                        }
                    }
                }
                Value::Seq(items) => {
                    if let Some(index) = items.iter().position(|item| holds(item.span)) {
                        path.push(Segment::Index(index));
                        node = &items[index];
                        continue 'descend;
                    }
                }
                _ => {}
            }
            return Some(path);
        }
    }

    /// The node at `path` below this one, to change it. Wildcards match nothing.
    pub fn at_mut(&mut self, path: &[Segment]) -> Option<&mut Node> {
        path.iter()
            .try_fold(self, |node, segment| match (segment, &mut node.value) {
                (Segment::Key(key), Value::Map(entries)) => {
                    entries.get_mut(key).map(|entry| &mut entry.value)
                }
                (Segment::Index(index), Value::Seq(items)) => items.get_mut(*index),
                _ => None,
            })
    }

    /// Sets `key` of this mapping to `value`: a key already there keeps its
    /// place and span, a new one goes last, spanned at the mapping. False,
    /// and nothing changed, when this is not a mapping.
    pub fn insert(&mut self, key: &str, value: Node) -> bool {
        let span = self.span;
        let Value::Map(entries) = &mut self.value else {
            return false;
        };
        match entries.get_mut(key) {
            Some(entry) => entry.value = value,
            None => {
                entries.insert(
                    key.to_owned(),
                    Entry {
                        key_span: span,
                        value,
                    },
                );
            }
        }
        true
    }

    /// The tree as a JSON value, for libraries that work on `serde_json`:
    /// tags are dropped (the value is kept) and non-finite floats, which JSON
    /// cannot hold, become `null`.
    #[must_use]
    pub fn to_json_value(&self) -> serde_json::Value {
        use serde_json::Value as Json;
        match &self.value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
            Value::String(s) => Json::String(s.clone()),
            Value::Seq(items) => Json::Array(items.iter().map(Node::to_json_value).collect()),
            Value::Map(map) => Json::Object(
                map.iter()
                    .map(|(key, entry)| (key.clone(), entry.value.to_json_value()))
                    .collect(),
            ),
        }
    }

    /// A mapping of `entries` with default spans, for trees built in code;
    /// a repeated key keeps its last value.
    #[must_use]
    pub fn mapping<K: Into<String>>(entries: impl IntoIterator<Item = (K, Node)>) -> Node {
        let map: Mapping = entries
            .into_iter()
            .map(|(key, value)| {
                let entry = Entry {
                    key_span: Span::default(),
                    value,
                };
                (key.into(), entry)
            })
            .collect();
        Node::new(Value::Map(map), Span::default())
    }

    /// A tree from a JSON value, every node with the default span: for
    /// values that were not read from a file (a schema, a listing).
    #[must_use]
    pub fn from_json_value(value: &serde_json::Value) -> Node {
        use serde_json::Value as Json;
        let value = match value {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(number) => number.as_i64().map_or_else(
                || Value::Float(number.as_f64().unwrap_or(f64::NAN)),
                Value::Int,
            ),
            Json::String(s) => Value::String(s.clone()),
            Json::Array(items) => Value::Seq(items.iter().map(Node::from_json_value).collect()),
            Json::Object(map) => {
                return Node::mapping(
                    map.iter()
                        .map(|(key, value)| (key.as_str(), Node::from_json_value(value))),
                );
            }
        };
        Node::new(value, Span::default())
    }

    /// Whether two trees hold the same values and tags, wherever they came from.
    #[must_use]
    pub fn same_content(&self, other: &Node) -> bool {
        if self.tag != other.tag {
            return false;
        }
        match (&self.value, &other.value) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            // Bitwise, so that `.nan` equals itself and a union keeps one copy.
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Seq(a), Value::Seq(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_content(y))
            }
            (Value::Map(a), Value::Map(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(key, entry)| {
                        b.get(key)
                            .is_some_and(|other| entry.value.same_content(&other.value))
                    })
            }
            _ => false,
        }
    }

    /// Whether two trees are the same to the byte: values, tags, layers,
    /// and where every node and key was written. A tree that is identical
    /// to one checked before needs no second check: every diagnostic about
    /// it points where it pointed then.
    #[must_use]
    pub fn identical(&self, other: &Node) -> bool {
        self.identical_moved(other, 0)
    }

    /// Whether `other` is this tree written `by` bytes later (earlier when
    /// negative): identical ([`Node::identical`]) but for every span, each
    /// moved by `by`. So is a tree after an edit before it that changed the
    /// length of the text by `by`.
    #[must_use]
    pub fn identical_moved(&self, other: &Node, by: i64) -> bool {
        if self.span.moved(by) != other.span || self.layer != other.layer || self.tag != other.tag {
            return false;
        }
        match (&self.value, &other.value) {
            (Value::Seq(a), Value::Seq(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.identical_moved(y, by))
            }
            (Value::Map(a), Value::Map(b)) => {
                a.len() == b.len()
                    && a.iter().zip(b).all(|((key, entry), (other_key, other))| {
                        key == other_key
                            && entry.key_span.moved(by) == other.key_span
                            && entry.value.identical_moved(&other.value, by)
                    })
            }
            (Value::Seq(_) | Value::Map(_), _) | (_, Value::Seq(_) | Value::Map(_)) => false,
            _ => self.same_content(other),
        }
    }

    /// Moves every span of this tree, keys' included, `by` bytes
    /// ([`Span::moved`]).
    pub fn move_by(&mut self, by: i64) {
        self.span = self.span.moved(by);
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|item| item.move_by(by)),
            Value::Map(map) => map.values_mut().for_each(|entry| {
                entry.key_span = entry.key_span.moved(by);
                entry.value.move_by(by);
            }),
            _ => {}
        }
    }

    /// Sets `layer` on this node and every node below it.
    pub fn stamp_layer(&mut self, layer: LayerId) {
        self.layer = Some(layer);
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|item| item.stamp_layer(layer)),
            Value::Map(map) => map
                .values_mut()
                .for_each(|entry| entry.value.stamp_layer(layer)),
            _ => {}
        }
    }

    /// How many levels of collections the tree rooted here has (0 for a scalar).
    #[must_use]
    pub fn depth(&self) -> usize {
        match &self.value {
            Value::Seq(items) => 1 + items.iter().map(Node::depth).max().unwrap_or(0),
            Value::Map(map) => {
                1 + map
                    .values()
                    .map(|entry| entry.value.depth())
                    .max()
                    .unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// The bytes of text the tree rooted here holds: every string and
    /// every key at its length, every other scalar at the 8 bytes of its
    /// value. What an alias to the tree adds to a document, whatever its
    /// node count (one 400 kB string is one node).
    #[must_use]
    pub fn text_bytes(&self) -> usize {
        match &self.value {
            Value::String(text) => text.len(),
            Value::Seq(items) => items
                .iter()
                .fold(0, |sum, item| sum.saturating_add(item.text_bytes())),
            Value::Map(map) => map.iter().fold(0, |sum, (key, entry)| {
                sum.saturating_add(key.len())
                    .saturating_add(entry.value.text_bytes())
            }),
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) => 8,
        }
    }

    /// The number of nodes in the tree rooted here.
    #[must_use]
    pub fn count(&self) -> usize {
        1 + match &self.value {
            Value::Seq(items) => items.iter().map(Node::count).sum(),
            Value::Map(map) => map.values().map(|entry| entry.value.count()).sum(),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Segment, SourceDb};

    #[test]
    fn identical_trees_match_to_the_byte() {
        let mut db = SourceDb::new();
        let parse = |db: &SourceDb, id| {
            crate::parse(db, id, crate::Format::Yaml, &crate::Limits::default())
                .documents
                .remove(0)
        };
        let first = db.add("a.yaml", "a: [1, {b: x}]\n");
        let again = parse(&db, first);
        assert!(parse(&db, first).identical(&again));
        // The same content elsewhere is not identical.
        let moved = db.add("a.yaml", " a: [1, {b: x}]\n");
        assert!(parse(&db, moved).same_content(&again));
        assert!(!parse(&db, moved).identical(&again));
        let changed = db.add("a.yaml", "a: [1, {b: y}]\n");
        assert!(!parse(&db, changed).identical(&parse(&db, first)));
    }

    #[test]
    fn a_tree_after_an_edit_before_it_is_identical_moved() {
        let parse = |text: &str| {
            let mut db = SourceDb::new();
            let id = db.add("a.yaml", text);
            crate::parse(&db, id, crate::Format::Yaml, &crate::Limits::default())
                .documents
                .remove(0)
        };
        let (before, after) = (
            parse("a: [1, {b: x}]\n"),
            parse("# a note\na: [1, {b: x}]\n"),
        );
        let (was, is) = (before.get("a").unwrap(), after.get("a").unwrap());
        assert!(!was.identical(is));
        assert!(was.identical_moved(is, 9));
        assert!(!was.identical_moved(is, 8));
        assert!(is.identical_moved(was, -9));
        let mut moved = was.clone();
        moved.move_by(9);
        assert!(moved.identical(is));
        let changed = parse("# a note\na: [1, {b: y}]\n");
        assert!(!was.identical_moved(changed.get("a").unwrap(), 9));
        // A span moved before the start of the text stays at its start.
        let source = is.span.source;
        let span = Span::new(source, 3, 5);
        assert_eq!(span.moved(-2), Span::new(source, 1, 3));
        assert_eq!(span.moved(-4), Span::new(source, 0, 1));
    }

    #[test]
    fn path_to_finds_the_innermost_value_or_key_at_an_offset() {
        let mut db = SourceDb::new();
        let text = "a: 1\nb:\n  c: [x, y]\n";
        let id = db.add("a.yaml", text);
        let tree = crate::parse(&db, id, crate::Format::Yaml, &crate::Limits::default())
            .documents
            .remove(0);
        let at = |needle: &str| {
            let offset = text.find(needle).unwrap();
            tree.path_to(Span::new(id, offset, offset))
                .map(|path| path.to_string())
        };
        assert_eq!(at("y").as_deref(), Some("b.c[1]"));
        assert_eq!(at("c:").as_deref(), Some("b.c"));
        assert_eq!(at("1").as_deref(), Some("a"));
        let other = db.add("b.yaml", "z");
        assert_eq!(tree.path_to(Span::new(other, 0, 0)), None);
    }

    #[test]
    fn insert_replaces_in_place_or_adds_last_and_refuses_non_mappings() {
        let mut db = SourceDb::new();
        let id = db.add("a.yaml", "a: 1\nb: {c: 2}\n");
        let mut tree = crate::parse(&db, id, crate::Format::Yaml, &crate::Limits::default())
            .documents
            .remove(0);
        let key_span = tree.as_map().unwrap()["a"].key_span;
        assert!(tree.insert("a", Node::new(Value::Int(5), Span::default())));
        assert!(tree.insert("z", Node::new(Value::Int(6), Span::default())));
        let entries = tree.as_map().unwrap();
        assert_eq!(entries.keys().collect::<Vec<_>>(), ["a", "b", "z"]);
        assert_eq!(entries["a"].key_span, key_span);
        assert_eq!(entries["z"].key_span, tree.span);
        let b = tree.at_mut(&[Segment::Key("b".to_owned())]).unwrap();
        assert!(b.insert("d", Node::new(Value::Null, Span::default())));
        let c = tree
            .at_mut(&[Segment::Key("b".to_owned()), Segment::Key("c".to_owned())])
            .unwrap();
        assert!(!c.insert("x", Node::new(Value::Null, Span::default())));
        assert_eq!(
            tree.to_json_value(),
            serde_json::json!({"a": 5, "b": {"c": 2, "d": null}, "z": 6})
        );
    }
}

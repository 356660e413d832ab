//! The spanned tree as a JSON representation the validator reads in place.
//!
//! `jsonschema` validates any representation that implements its [`Json`]
//! traits; [`Tree`] is that representation for [`Node`], so a tree is
//! checked without first being copied into a `serde_json::Value` (the copy
//! was over a fifth of composing a blueprint). What the validator sees is
//! exactly [`Node::to_json_value`]: tags are not visible, and a float that
//! JSON cannot hold (`.inf`, `.nan`) is `null`.

use std::borrow::Cow;

use jsonschema::json::{Array, Json, Node as JsonNode, NodeIdentity, Object};
use jsonschema::types::JsonType;
use strata_syntax::{Mapping, Node, Value};

/// The JSON representation whose nodes are [`TreeNode`]s.
pub(crate) struct Tree;

/// A node of a tree, or a property name the validator checks as a string
/// (`propertyNames`).
#[derive(Clone, Copy)]
pub(crate) enum TreeNode<'a> {
    /// A node of the tree being validated.
    Node(&'a Node),
    /// A mapping key, validated as a string.
    Key(&'a str),
}

impl Json for Tree {
    type Node<'a> = TreeNode<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = ();

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(TreeNode<'_>) -> T) -> T {
        f(TreeNode::Key(string))
    }
}

impl<'a> TreeNode<'a> {
    /// The node's value, or `None` for a key.
    fn value(self) -> Option<&'a Value> {
        match self {
            TreeNode::Node(node) => Some(&node.value),
            TreeNode::Key(_) => None,
        }
    }
}

impl<'a> JsonNode<'a, Tree> for TreeNode<'a> {
    type Object = &'a Mapping;
    type Array = &'a [Node];
    type Number = serde_json::Number;

    fn as_object(&self) -> Option<&'a Mapping> {
        match self.value()? {
            Value::Map(map) => Some(map),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&'a [Node]> {
        match self.value()? {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self {
            TreeNode::Key(key) => Some(Cow::Borrowed(key)),
            TreeNode::Node(node) => match &node.value {
                Value::String(text) => Some(Cow::Borrowed(text)),
                _ => None,
            },
        }
    }

    fn as_number(&self) -> Option<serde_json::Number> {
        match self.value()? {
            Value::Int(int) => Some(serde_json::Number::from(*int)),
            Value::Float(float) => serde_json::Number::from_f64(*float),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self.value()? {
            Value::Bool(boolean) => Some(*boolean),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        self.json_type() == JsonType::Null
    }

    fn json_type(&self) -> JsonType {
        match self.value() {
            None | Some(Value::String(_)) => JsonType::String,
            Some(Value::Float(float)) if float.is_finite() => JsonType::Number,
            Some(Value::Null | Value::Float(_)) => JsonType::Null,
            Some(Value::Bool(_)) => JsonType::Boolean,
            Some(Value::Int(_)) => JsonType::Number,
            Some(Value::Seq(_)) => JsonType::Array,
            Some(Value::Map(_)) => JsonType::Object,
        }
    }

    fn to_value(&self) -> Cow<'a, serde_json::Value> {
        Cow::Owned(match self {
            TreeNode::Node(node) => node.to_json_value(),
            TreeNode::Key(key) => serde_json::Value::String((*key).to_owned()),
        })
    }

    fn identity(&self) -> Option<NodeIdentity> {
        match self {
            TreeNode::Node(node) => Some(NodeIdentity::new(std::ptr::from_ref(*node) as usize)),
            TreeNode::Key(_) => None,
        }
    }
}

impl<'a> Object<'a, Tree> for &'a Mapping {
    type Node = TreeNode<'a>;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        Mapping::len(self)
    }

    fn get(&self, key: &Box<str>) -> Option<TreeNode<'a>> {
        Mapping::get(self, &**key).map(|entry| TreeNode::Node(&entry.value))
    }

    fn members(&self) -> Members<'a> {
        Members(self.iter())
    }
}

/// The keys and values of a mapping, in order.
pub(crate) struct Members<'a>(indexmap::map::Iter<'a, String, strata_syntax::Entry>);

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, TreeNode<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.0
            .next()
            .map(|(key, entry)| (key.as_str(), TreeNode::Node(&entry.value)))
    }
}

/// The items of a sequence, in order.
pub(crate) struct Elements<'a>(std::slice::Iter<'a, Node>);

impl<'a> Iterator for Elements<'a> {
    type Item = TreeNode<'a>;

    fn next(&mut self) -> Option<TreeNode<'a>> {
        self.0.next().map(TreeNode::Node)
    }
}

impl<'a> Array<'a, Tree> for &'a [Node] {
    type Node = TreeNode<'a>;
    type ElementsIter = Elements<'a>;

    fn len(&self) -> usize {
        <[Node]>::len(self)
    }

    fn elements(&self) -> Elements<'a> {
        Elements(self.iter())
    }
}

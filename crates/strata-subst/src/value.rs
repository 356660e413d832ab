//! Runtime values of the substitution language.
//!
//! The blueprint's types (`string`, `integer`, `float`, `boolean`, `array`,
//! `object`), `null` (only decoded JSON holds it), function values, and
//! [`Value::Unknown`]: a part of a value that only deployment will tell
//! (a resource's `state`). Reading into an unknown part, or passing a value
//! that holds one to a function, makes the result "known after deploy"
//! instead of failing.

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;
use strata_syntax::{Mapping, Node, Span};

use crate::functions::Function;
use crate::types::Types;

/// A value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A finite float.
    Float(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// A mapping, in insertion order.
    Object(IndexMap<String, Value>),
    /// A function value.
    Function(Function),
    /// Known only after deployment; says what it waits on
    /// (`resources.orders.state`).
    Unknown(Arc<str>),
}

impl Value {
    /// The value's type.
    #[must_use]
    pub fn types(&self) -> Types {
        match self {
            Value::Null => Types::NULL,
            Value::Bool(_) => Types::BOOLEAN,
            Value::Int(_) => Types::INTEGER,
            Value::Float(_) => Types::FLOAT,
            Value::String(_) => Types::STRING,
            Value::Array(_) => Types::ARRAY,
            Value::Object(_) => Types::OBJECT,
            Value::Function(_) => Types::FUNCTION,
            Value::Unknown(_) => Types::ANY,
        }
    }

    /// The first unknown part, depth first.
    #[must_use]
    pub fn unknown(&self) -> Option<&Arc<str>> {
        match self {
            Value::Unknown(what) => Some(what),
            Value::Array(items) => items.iter().find_map(Value::unknown),
            Value::Object(fields) => fields.values().find_map(Value::unknown),
            _ => None,
        }
    }

    /// A document value (a variable given in a file, a spec field),
    /// recursively. Non-finite floats become `null`.
    #[must_use]
    pub fn from_node(node: &Node) -> Value {
        use strata_syntax::Value as V;
        match &node.value {
            V::Bool(value) => Value::Bool(*value),
            V::Int(value) => Value::Int(*value),
            V::Float(value) if value.is_finite() => Value::Float(*value),
            V::Null | V::Float(_) => Value::Null,
            V::String(text) => Value::String(text.clone()),
            V::Seq(items) => Value::Array(items.iter().map(Value::from_node).collect()),
            V::Map(map) => Value::Object(
                map.iter()
                    .map(|(key, entry)| (key.clone(), Value::from_node(&entry.value)))
                    .collect(),
            ),
        }
    }

    /// The value as a document at `span`, for output; `None` when it holds
    /// a function or an unknown part.
    #[must_use]
    pub fn to_node(&self, span: Span) -> Option<Node> {
        use strata_syntax::Value as V;
        let value = match self {
            Value::Null => V::Null,
            Value::Bool(value) => V::Bool(*value),
            Value::Int(value) => V::Int(*value),
            Value::Float(value) => V::Float(*value),
            Value::String(text) => V::String(text.clone()),
            Value::Array(items) => V::Seq(
                items
                    .iter()
                    .map(|item| item.to_node(span))
                    .collect::<Option<_>>()?,
            ),
            Value::Object(fields) => {
                let mut map = Mapping::default();
                for (key, value) in fields {
                    let entry = strata_syntax::Entry {
                        key_span: span,
                        value: value.to_node(span)?,
                    };
                    map.insert(key.clone(), entry);
                }
                V::Map(map)
            }
            Value::Function(_) | Value::Unknown(_) => return None,
        };
        Some(Node::new(value, span))
    }

    /// The value as JSON; `None` when it holds a function or an unknown
    /// part.
    #[must_use]
    pub fn to_json(&self) -> Option<serde_json::Value> {
        Some(match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(value) => serde_json::Value::Bool(*value),
            Value::Int(value) => serde_json::Value::from(*value),
            Value::Float(value) => serde_json::Value::from(*value),
            Value::String(text) => serde_json::Value::String(text.clone()),
            Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(Value::to_json).collect::<Option<_>>()?)
            }
            Value::Object(fields) => serde_json::Value::Object(
                fields
                    .iter()
                    .map(|(key, value)| Some((key.clone(), value.to_json()?)))
                    .collect::<Option<_>>()?,
            ),
            Value::Function(_) | Value::Unknown(_) => return None,
        })
    }

    /// The value from JSON (`jsondecode`, `fromjson`).
    #[must_use]
    pub fn from_json(json: &serde_json::Value) -> Value {
        match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(value) => Value::Bool(*value),
            serde_json::Value::Number(number) => number
                .as_i64()
                .map(Value::Int)
                .or_else(|| number.as_f64().map(Value::Float))
                .unwrap_or(Value::Null),
            serde_json::Value::String(text) => Value::String(text.clone()),
            serde_json::Value::Array(items) => {
                Value::Array(items.iter().map(Value::from_json).collect())
            }
            serde_json::Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(key, value)| (key.clone(), Value::from_json(value)))
                    .collect(),
            ),
        }
    }
}

/// Scalars as they read inside an interpolation: strings as they are,
/// numbers and booleans as written, `null` as nothing. Arrays and mappings
/// are written as compact JSON (interpolation of them is refused before
/// this is reached); functions by name.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Bool(value) => write!(f, "{value}"),
            Value::Int(value) => write!(f, "{value}"),
            Value::Float(value) => write!(f, "{value}"),
            Value::String(text) => f.write_str(text),
            Value::Array(_) | Value::Object(_) => {
                write!(f, "{}", self.to_json().unwrap_or_default())
            }
            Value::Function(function) => write!(f, "{function}"),
            Value::Unknown(what) => write!(f, "({what}: known after deploy)"),
        }
    }
}

//! Serde's view of a spanned tree: a tree deserialises into a typed value
//! directly, borrowing its strings, as its JSON form
//! ([`Node::to_json_value`]) would: tags are not visible, a non-negative
//! integer is offered as unsigned (as `serde_json` does), and a float that
//! JSON cannot hold is `null`.

use serde::de::value::{BorrowedStrDeserializer, Error};
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Unexpected, Visitor};
use serde::forward_to_deserialize_any;
use strata_syntax::{Entry, Node, Value};

/// `node` as a `T`, or serde's refusal.
///
/// # Errors
///
/// When the tree's shape is not one `T` accepts; the message is serde's.
pub fn from_node<'de, T: de::Deserialize<'de>>(node: &'de Node) -> Result<T, Error> {
    T::deserialize(NodeDeserializer(node))
}

/// Deserialises one node.
#[derive(Clone, Copy)]
struct NodeDeserializer<'de>(&'de Node);

impl<'de> NodeDeserializer<'de> {
    /// Whether JSON sees the node as `null`.
    fn is_null(self) -> bool {
        match self.0.value {
            Value::Null => true,
            Value::Float(float) => !float.is_finite(),
            _ => false,
        }
    }

    fn unexpected(self) -> Unexpected<'de> {
        match &self.0.value {
            Value::Float(float) if float.is_finite() => Unexpected::Float(*float),
            Value::Null | Value::Float(_) => Unexpected::Unit,
            Value::Bool(boolean) => Unexpected::Bool(*boolean),
            Value::Int(int) => Unexpected::Signed(*int),
            Value::String(text) => Unexpected::Str(text),
            Value::Seq(_) => Unexpected::Seq,
            Value::Map(_) => Unexpected::Map,
        }
    }
}

impl<'de> Deserializer<'de> for NodeDeserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.0.value {
            Value::Float(float) if float.is_finite() => visitor.visit_f64(*float),
            Value::Null | Value::Float(_) => visitor.visit_unit(),
            Value::Bool(boolean) => visitor.visit_bool(*boolean),
            Value::Int(int) => match u64::try_from(*int) {
                Ok(unsigned) => visitor.visit_u64(unsigned),
                Err(_) => visitor.visit_i64(*int),
            },
            Value::String(text) => visitor.visit_borrowed_str(text),
            Value::Seq(items) => {
                let mut access = Items(items.iter());
                let value = visitor.visit_seq(&mut access)?;
                match access.0.len() {
                    0 => Ok(value),
                    left => Err(de::Error::invalid_length(
                        items.len(),
                        &format!("{} items", items.len() - left).as_str(),
                    )),
                }
            }
            Value::Map(map) => {
                let mut access = Entries {
                    entries: map.iter(),
                    value: None,
                };
                let value = visitor.visit_map(&mut access)?;
                match access.entries.len() {
                    0 => Ok(value),
                    left => Err(de::Error::invalid_length(
                        map.len(),
                        &format!("{} entries", map.len() - left).as_str(),
                    )),
                }
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let only_entry = self
            .0
            .as_map()
            .filter(|map| map.len() == 1)
            .and_then(|map| map.first());
        match (&self.0.value, only_entry) {
            (Value::String(text), _) => visitor.visit_enum(BorrowedStrDeserializer::new(text)),
            (_, Some((variant, entry))) => visitor.visit_enum(Variant {
                name: variant,
                value: &entry.value,
            }),
            _ => Err(de::Error::invalid_type(
                self.unexpected(),
                &"a string or a mapping of one key",
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

impl<'de> IntoDeserializer<'de, Error> for NodeDeserializer<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

/// A sequence's items, one at a time.
struct Items<'de>(std::slice::Iter<'de, Node>);

impl<'de> de::SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|item| seed.deserialize(NodeDeserializer(item)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// A mapping's entries, key then value.
struct Entries<'de> {
    entries: indexmap::map::Iter<'de, String, Entry>,
    value: Option<&'de Node>,
}

impl<'de> de::MapAccess<'de> for Entries<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.entries.next() {
            Some((key, entry)) => {
                self.value = Some(&entry.value);
                seed.deserialize(BorrowedStrDeserializer::new(key))
                    .map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(NodeDeserializer(value)),
            None => Err(de::Error::custom(
                "a mapping value was asked for before its key",
            )),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An enum written as a mapping of one key: the variant and its content.
struct Variant<'de> {
    name: &'de str,
    value: &'de Node,
}

impl<'de> de::EnumAccess<'de> for Variant<'de> {
    type Error = Error;
    type Variant = NodeDeserializer<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, NodeDeserializer<'de>), Error> {
        let variant = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.name))?;
        Ok((variant, NodeDeserializer(self.value)))
    }
}

impl<'de> de::VariantAccess<'de> for NodeDeserializer<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        if self.is_null() {
            Ok(())
        } else {
            Err(de::Error::invalid_type(self.unexpected(), &"unit variant"))
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }
}

//! Static types: what an expression can evaluate to, as far as it is known
//! before evaluation.
//!
//! A [`Types`] is a set of the language's types. A literal has exactly one;
//! a variable of type `integer` has one; a resource's `spec` field may be
//! anything ([`Types::ANY`]). A check passes when the set an expression can
//! take meets the set a place accepts: only types known to be wrong are
//! reported.

use std::fmt;
use std::ops::BitOr;

/// A set of types.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Types(u8);

impl Types {
    /// No type: nothing is accepted.
    pub const NONE: Types = Types(0);
    /// `string`.
    pub const STRING: Types = Types(1);
    /// `integer` (64-bit).
    pub const INTEGER: Types = Types(1 << 1);
    /// `float`.
    pub const FLOAT: Types = Types(1 << 2);
    /// `boolean`.
    pub const BOOLEAN: Types = Types(1 << 3);
    /// `array`.
    pub const ARRAY: Types = Types(1 << 4);
    /// `object` (a mapping).
    pub const OBJECT: Types = Types(1 << 5);
    /// A function value (from `trim` written bare, `split_g(",")`, …).
    pub const FUNCTION: Types = Types(1 << 6);
    /// `null`, which only decoded JSON holds.
    pub const NULL: Types = Types(1 << 7);
    /// `integer` or `float`.
    pub const NUMBER: Types = Types(Types::INTEGER.0 | Types::FLOAT.0);
    /// The scalars: `string`, `integer`, `float`, `boolean`.
    pub const SCALAR: Types = Types(Types::STRING.0 | Types::NUMBER.0 | Types::BOOLEAN.0);
    /// Any value (not a function).
    pub const ANY: Types =
        Types(Types::SCALAR.0 | Types::ARRAY.0 | Types::OBJECT.0 | Types::NULL.0);

    /// Both sets together (`|` in constant contexts).
    #[must_use]
    pub const fn or(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    /// Whether the sets share a type.
    #[must_use]
    pub fn meets(self, other: Types) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether every type of `other` is in `self`.
    #[must_use]
    pub fn contains(self, other: Types) -> bool {
        self.0 & other.0 == other.0
    }

    /// The types in both sets.
    #[must_use]
    pub fn intersect(self, other: Types) -> Types {
        Types(self.0 & other.0)
    }

    /// Whether the set is empty.
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// A type name as a blueprint writes it (`string`, `array`, …).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Types> {
        Some(match name {
            "string" => Types::STRING,
            "integer" => Types::INTEGER,
            "float" => Types::FLOAT,
            "boolean" => Types::BOOLEAN,
            "array" => Types::ARRAY,
            "object" => Types::OBJECT,
            _ => return None,
        })
    }

    const NAMES: [(Types, &'static str); 8] = [
        (Types::STRING, "string"),
        (Types::INTEGER, "integer"),
        (Types::FLOAT, "float"),
        (Types::BOOLEAN, "boolean"),
        (Types::ARRAY, "array"),
        (Types::OBJECT, "object"),
        (Types::FUNCTION, "function"),
        (Types::NULL, "null"),
    ];
}

impl BitOr for Types {
    type Output = Types;
    fn bitor(self, other: Types) -> Types {
        self.or(other)
    }
}

impl fmt::Debug for Types {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Types({self})")
    }
}

/// `string`, `integer or float`, `any value`.
impl fmt::Display for Types {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.contains(Types::ANY) {
            return f.write_str(if self.meets(Types::FUNCTION) {
                "anything"
            } else {
                "any value"
            });
        }
        let names: Vec<&str> = Types::NAMES
            .iter()
            .filter(|(types, _)| self.contains(*types))
            .map(|(_, name)| *name)
            .collect();
        match names.as_slice() {
            [] => f.write_str("nothing"),
            [one] => f.write_str(one),
            [init @ .., last] => write!(f, "{} or {last}", init.join(", ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_meet_and_print() {
        assert!(Types::NUMBER.meets(Types::FLOAT));
        assert!(!Types::STRING.meets(Types::ARRAY));
        assert_eq!(Types::NUMBER.to_string(), "integer or float");
        assert_eq!(
            (Types::STRING | Types::ARRAY | Types::OBJECT).to_string(),
            "string, array or object"
        );
        assert_eq!(Types::ANY.to_string(), "any value");
        assert_eq!(Types::from_name("array"), Some(Types::ARRAY));
        assert_eq!(Types::from_name("aws/region"), None);
    }
}

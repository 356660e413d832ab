//! The diagnostic codes of strict decoding.
//!
//! | code | when | where |
//! |---|---|---|
//! | `schema/unknown-key` | a key the schema does not allow; help: did-you-mean; note: the allowed keys, when few | the key |
//! | `schema/type` | `expected string, found mapping` | the value |
//! | `schema/required` | `` missing required key `image` `` | the mapping, with its path |
//! | `schema/enum` | `` `Sometimes` is not one of `Always`, `Never` ``; help: did-you-mean | the value |
//! | `schema/constraint` | lengths, patterns, ranges, item counts, ...: the validator's message | the value |
//! | `schema/decode` | serde refused a tree the schema accepted | the root |

/// Lengths, patterns, ranges, item counts, ...: the validator's message.
pub const CONSTRAINT: &str = "schema/constraint";
/// Serde refused a tree the schema accepted.
pub const DECODE: &str = "schema/decode";
/// `` `Sometimes` is not one of `Always`, `Never` ``; help: did-you-mean.
pub const ENUM: &str = "schema/enum";
/// `` missing required key `image` ``.
pub const REQUIRED: &str = "schema/required";
/// `expected string, found mapping`.
pub const TYPE: &str = "schema/type";
/// A key the schema does not allow; help: did-you-mean; note: the allowed keys, when few.
pub const UNKNOWN_KEY: &str = "schema/unknown-key";

//! The diagnostic codes of loading and emitting YAML and JSON.
//!
//! | code | when |
//! |---|---|
//! | `emit/non-finite-float` | JSON output cannot hold a NaN or an infinite float |
//! | `syntax/alias-expansion` | aliases expand to more nodes than the configured bound |
//! | `syntax/complex-key` | a mapping key is a sequence or a mapping |
//! | `syntax/duplicate-key` | a mapping has the same key twice (both places named) |
//! | `syntax/integer-out-of-range` | an integer does not fit in 64 bits |
//! | `syntax/invalid-merge-key` | a `<<` merge key's value is not a mapping or a list of mappings |
//! | `syntax/invalid-tagged-value` | a `!!int`/`!!float`/`!!bool`/`!!null` scalar does not hold that type |
//! | `syntax/json` | the JSON parser rejected the text |
//! | `syntax/too-deep` | nesting deeper than the configured bound |
//! | `syntax/too-large` | the input is larger than the configured bound |
//! | `syntax/yaml` | the YAML scanner or parser rejected the text |

/// JSON output cannot hold a NaN or an infinite float.
pub const NON_FINITE_FLOAT: &str = "emit/non-finite-float";
/// Aliases expand to more nodes than the configured bound.
pub const ALIAS_EXPANSION: &str = "syntax/alias-expansion";
/// A mapping key is a sequence or a mapping.
pub const COMPLEX_KEY: &str = "syntax/complex-key";
/// A mapping has the same key twice (both places named).
pub const DUPLICATE_KEY: &str = "syntax/duplicate-key";
/// An integer does not fit in 64 bits.
pub const INTEGER_OUT_OF_RANGE: &str = "syntax/integer-out-of-range";
/// A `<<` merge key's value is not a mapping or a list of mappings.
pub const INVALID_MERGE_KEY: &str = "syntax/invalid-merge-key";
/// A `!!int`/`!!float`/`!!bool`/`!!null` scalar does not hold that type.
pub const INVALID_TAGGED_VALUE: &str = "syntax/invalid-tagged-value";
/// The JSON parser rejected the text.
pub const JSON: &str = "syntax/json";
/// Nesting deeper than the configured bound.
pub const TOO_DEEP: &str = "syntax/too-deep";
/// The input is larger than the configured bound.
pub const TOO_LARGE: &str = "syntax/too-large";
/// The YAML scanner or parser rejected the text.
pub const YAML: &str = "syntax/yaml";

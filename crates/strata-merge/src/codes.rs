//! The diagnostic codes of the layered merge.
//!
//! | code | when |
//! |---|---|
//! | `merge/item-not-mapping` | a by-key strategy met an item that is not a mapping (the item is kept) |
//! | `merge/missing-key-field` | a by-key strategy met an item without the key field (the item is kept) |
//! | `merge/strategy-failed` | a custom strategy reported a problem |

/// A by-key strategy met an item that is not a mapping (the item is kept).
pub const ITEM_NOT_MAPPING: &str = "merge/item-not-mapping";
/// A by-key strategy met an item without the key field (the item is kept).
pub const MISSING_KEY_FIELD: &str = "merge/missing-key-field";
/// A custom strategy reported a problem.
pub const STRATEGY_FAILED: &str = "merge/strategy-failed";

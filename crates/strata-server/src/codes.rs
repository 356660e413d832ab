//! The diagnostic codes of the platform service.
//!
//! | code | when |
//! |---|---|
//! | `users/duplicate` | two users share a username or a token digest |
//! | `users/invalid-glob` | an `allowedBlueprints` entry is not a glob |

/// Two users share a username or a token digest.
pub const DUPLICATE: &str = "users/duplicate";
/// An `allowedBlueprints` entry is not a glob.
pub const INVALID_GLOB: &str = "users/invalid-glob";

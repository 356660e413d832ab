//! The diagnostic codes of the shared reading helpers.
//!
//! | code | when |
//! |---|---|
//! | `io/document-count` | a file that must hold exactly one document (or at most one) holds another number |
//!
//! I/O problems themselves are `strata-fs`'s (`io/read`, `io/not-utf8`,
//! `io/outside-root`, `io/not-a-file`, `io/skipped`, `syntax/too-large`),
//! parse problems `strata-syntax`'s.

/// A file holds another number of documents than it must.
pub const DOCUMENT_COUNT: &str = "io/document-count";

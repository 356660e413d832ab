//! The diagnostic codes of file access.
//!
//! | code | when |
//! |---|---|
//! | `io/read` | the file or folder cannot be read (missing, not a folder, refused) |
//! | `io/not-utf8` | the file is not UTF-8 text |
//! | `io/outside-root` | the path leads outside the root, lexically or through a symlink |

/// The file or folder cannot be read.
pub const READ: &str = "io/read";
/// The file is not UTF-8 text.
pub const NOT_UTF8: &str = "io/not-utf8";
/// The path leads outside the root, lexically or through a symlink.
pub const OUTSIDE_ROOT: &str = "io/outside-root";

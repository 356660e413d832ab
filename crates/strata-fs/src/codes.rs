//! The diagnostic codes of file access.
//!
//! | code | when |
//! |---|---|
//! | `io/read` | the file or folder cannot be read (missing, not a folder, refused) |
//! | `io/not-utf8` | the file is not UTF-8 text |
//! | `io/outside-root` | the path leads outside the root, lexically or through a symlink |
//! | `io/not-a-file` | the path in a tree names a FIFO, a socket or a device: it is not opened |
//! | `io/skipped` | warning: a listing skipped an entry it would have taken (a symlink leading outside the root, or nowhere) |

/// The file or folder cannot be read.
pub const READ: &str = "io/read";
/// The file is not UTF-8 text.
pub const NOT_UTF8: &str = "io/not-utf8";
/// The path leads outside the root, lexically or through a symlink.
pub const OUTSIDE_ROOT: &str = "io/outside-root";
/// The path in a tree names a FIFO, a socket or a device.
pub const NOT_A_FILE: &str = "io/not-a-file";
/// A listing skipped an entry it would have taken.
pub const SKIPPED: &str = "io/skipped";

//! What several of the binary's test files share: copying an example to a
//! scratch folder (the smallest qbec application is in `qbec.rs`, included
//! by the files that write one).
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::path::Path;

/// Copies the folder `from` to `to`, recursively.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a scratch folder");
    for entry in std::fs::read_dir(from).expect("the folder lists") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("the file copies");
        }
    }
}

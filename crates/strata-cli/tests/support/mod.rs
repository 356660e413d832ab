//! What several of the binary's test files share: copying an example to a
//! scratch folder, and the smallest qbec application.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::path::Path;

/// `qbec.yaml` of an application `a` with one environment, `dev`.
const QBEC_DEV: &str = "apiVersion: qbec.io/v1alpha1\nkind: App\nmetadata: {name: a}\nspec:\n  environments: {dev: {server: https://dev.example.com}}\n";

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

/// A qbec application in `app`, `QBEC_DEV` with the one component `name`.
pub(crate) fn qbec_app(app: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(app.join("components")).expect("folders");
    std::fs::write(app.join("qbec.yaml"), QBEC_DEV).expect("qbec.yaml");
    std::fs::write(app.join("components").join(name), text).expect("a component");
}

//! The smallest qbec application, for the binary's test files that write
//! one (included with `#[path]`).
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::path::Path;

/// `qbec.yaml` of an application `a` with one environment, `dev`.
const QBEC_DEV: &str = "apiVersion: qbec.io/v1alpha1\nkind: App\nmetadata: {name: a}\nspec:\n  environments: {dev: {server: https://dev.example.com}}\n";

/// A qbec application in `app`, `QBEC_DEV` with the one component `name`.
pub(crate) fn qbec_app(app: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(app.join("components")).expect("folders");
    std::fs::write(app.join("qbec.yaml"), QBEC_DEV).expect("qbec.yaml");
    std::fs::write(app.join("components").join(name), text).expect("a component");
}

//! The diagnostic codes of the shared reading helpers.
//!
//! I/O problems themselves are `strata-fs`'s (`io/read`, `io/not-utf8`,
//! `io/outside-root`, `io/not-a-file`, `io/skipped`, `syntax/too-large`),
//! parse problems `strata-syntax`'s.

strata_syntax::declare_codes! {
    DOCUMENT_COUNT = "io/document-count" {
        when: "a file that must hold exactly one document (or at most one) holds another number",
        why: r"Some files are read as exactly one document (a repository file, a scope, an included file, a spec blueprint) and some as at most one (a features `blueprint.yaml`, `windsor.yaml`). Several documents separated by `---` leave it unclear which one is meant, and an empty file holds none where one is needed, so either is refused: at the second document (or the file's start), or at the reference to an included file.",
        fix: r"Keep one document in the file: remove the extra `---` sections or move them into files of their own.",
        example: r"# .k8shell.yaml (with: strata platform render catalogue --repo .k8shell.yaml)
blueprint: {template: python}
---
blueprint: {template: go}",
    }
}

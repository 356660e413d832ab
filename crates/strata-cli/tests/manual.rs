//! The manual (`docs/`, an mdBook) checked as part of the test suite.
//!
//! The codes reference, `docs/src/reference/codes.md`, is generated from the
//! tables in every crate's `src/codes.rs` (read by `support/codes.rs`, as the
//! tidy test reads them): the test fails when the committed page is not what
//! the tables give, and `STRATA_BLESS=1` writes it. And every relative link
//! and `#anchor` of the manual's pages and of the README resolves: the check
//! is `docs/linkcheck/src/links.rs`, which `mdbook build docs` also runs as
//! a backend.
#![expect(clippy::panic, reason = "a test stops at the first surprise")]

#[path = "support/codes.rs"]
mod codes;
#[path = "../../../docs/linkcheck/src/links.rs"]
mod links;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use codes::Table;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The page this file writes.
const REFERENCE: &str = "docs/src/reference/codes.md";

/// `docs/src/reference/codes.md` as the tables give it.
fn reference(tables: &[Table]) -> String {
    let mut page = String::from(
        "# Diagnostic codes\n\
         \n\
         <!-- Generated from the tables in `crates/*/src/codes.rs` by \
         `crates/strata-cli/tests/manual.rs`; do not edit. \
         `STRATA_BLESS=1 cargo test -p strata-cli --test manual` writes it. -->\n\
         \n\
         Every diagnostic carries a stable code, `area/kind`, that tests and tools \
         match on ([Documents and diagnostics](../diagnostics.md#codes)). Each crate \
         declares its codes once, in its `src/codes.rs`, with a table of when each \
         is reported; this page is made from those tables, so it lists every code \
         there is.\n\
         \n\
         ## By area\n\
         \n\
         | area | codes | declared by |\n\
         |---|---|---|\n",
    );
    let mut areas: BTreeMap<&str, (usize, Vec<&str>)> = BTreeMap::new();
    for table in tables {
        for row in &table.rows {
            let area = row
                .code
                .split_once('/')
                .map_or(row.code.as_str(), |(area, _)| area);
            let entry = areas.entry(area).or_default();
            entry.0 += 1;
            if !entry.1.contains(&table.krate.as_str()) {
                entry.1.push(&table.krate);
            }
        }
    }
    for (area, (count, crates)) in &areas {
        let crates: Vec<String> = crates
            .iter()
            .map(|krate| format!("[`{krate}`](#{})", links::slug(krate)))
            .collect();
        let _ = writeln!(page, "| `{area}/` | {count} | {} |", crates.join(", "));
    }
    for table in tables.iter().filter(|table| !table.rows.is_empty()) {
        let _ = write!(page, "\n## `{}`\n\n", table.krate);
        if !table.before.is_empty() {
            let _ = write!(page, "{}\n\n", plain(&table.before, &table.krate));
        }
        let _ = writeln!(page, "| {} |", table.columns.join(" | "));
        let _ = writeln!(page, "|{}", "---|".repeat(table.columns.len()));
        for row in &table.rows {
            let cells: Vec<String> = row
                .cells
                .iter()
                .map(|cell| plain(cell, &table.krate).replace('|', "\\|"))
                .collect();
            let _ = writeln!(page, "| `{}` | {} |", row.code, cells.join(" | "));
        }
        if !table.after.is_empty() {
            let _ = write!(page, "\n{}\n", plain(&table.after, &table.krate));
        }
    }
    page
}

/// Rustdoc's intra-doc links as plain code for the manual, where they lead
/// nowhere: ``[`Steps`](crate::Steps)`` is `` `Steps` ``, ``[`crate::Steps`]``
/// is `` `strata_subst::Steps` ``.
fn plain(text: &str, krate: &str) -> String {
    let path = format!("{}::", krate.replace('-', "_"));
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("[`") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find("`]") else {
            out.push_str("[`");
            rest = after;
            continue;
        };
        let code = &after[..end];
        rest = &after[end + 2..];
        let target = rest
            .strip_prefix('(')
            .and_then(|tail| tail.find(')').map(|close| &tail[..close]));
        match target {
            // A link to a page: kept as written.
            Some(target) if !target.contains("::") || target.contains('/') => {
                let _ = write!(out, "[`{code}`]");
            }
            Some(target) => {
                let _ = write!(out, "`{}`", code.replace("crate::", &path));
                rest = &rest[target.len() + 2..];
            }
            None => {
                let _ = write!(out, "`{}`", code.replace("crate::", &path));
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn the_codes_reference_is_generated_from_the_tables() {
    let root = workspace();
    let tables = codes::tables(&root);
    let codes: usize = tables.iter().map(|table| table.rows.len()).sum();
    assert!(codes > 80, "the codes are found ({codes})");
    for table in &tables {
        let problems = table.problems();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
    let page = reference(&tables);
    let path = root.join(REFERENCE);
    if std::env::var_os("STRATA_BLESS").is_some() {
        std::fs::write(&path, &page).unwrap_or_else(|error| panic!("{REFERENCE}: {error}"));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == page,
        "{REFERENCE} is not what the codes tables give; \
         `STRATA_BLESS=1 cargo test -p strata-cli --test manual` writes it (review the diff)"
    );
}

#[test]
fn intra_doc_links_become_code() {
    assert_eq!(
        plain(
            "without [`CelOptions::allow_env`](crate::CelOptions::allow_env), see [`crate::Steps`]",
            "strata-cel"
        ),
        "without `CelOptions::allow_env`, see `strata_cel::Steps`"
    );
    assert_eq!(
        plain("`drop: [ALL]` stays", "strata-platform"),
        "`drop: [ALL]` stays"
    );
    assert_eq!(
        plain("[`merge`](../merge.md) stays", "strata-merge"),
        "[`merge`](../merge.md) stays"
    );
}

#[test]
fn every_link_of_the_manual_and_the_readme_resolves() {
    let report = links::check(&workspace());
    assert!(
        report.files > 20 && report.links > 50,
        "the manual is found ({} files, {} links)",
        report.files,
        report.links
    );
    assert!(
        report.problems.is_empty(),
        "links that lead nowhere:\n{}",
        report.problems.join("\n")
    );
}

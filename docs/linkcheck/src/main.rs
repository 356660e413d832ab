//! The manual's link checker as an mdBook backend: `docs/book.toml` names it
//! under `[output.linkcheck]`, so `mdbook build docs` fails when a relative
//! link or an `#anchor` of the manual (or of the README) leads nowhere. The
//! check itself is `links.rs`, which `crates/strata-cli/tests/manual.rs`
//! runs too.

mod links;

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    // mdBook writes its render context to a backend's standard input; the
    // checker reads the files itself, so it drains the context unread.
    // An error here (no standard input) changes nothing about the check.
    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let report = links::check(&root);
    for problem in &report.problems {
        eprintln!("error: {problem}");
    }
    if report.problems.is_empty() {
        eprintln!(
            "linkcheck: {} links in {} files resolve",
            report.links, report.files
        );
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "linkcheck: {} of {} links in {} files lead nowhere",
            report.problems.len(),
            report.links,
            report.files
        );
        ExitCode::FAILURE
    }
}

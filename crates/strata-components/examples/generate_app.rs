//! Writes the generated benchmark application (`examples/support/app.rs`)
//! to a folder, for `bench/components/compare.py` and for trying by hand:
//!
//! ```text
//! cargo run --release -p strata-components --example generate_app -- DIR [COMPONENTS]
//! strata components render DIR --env dev
//! ```
//!
//! `COMPONENTS` defaults to 200. Prints what it wrote.
#![expect(
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "an example stops on a bad input and prints its result"
)]

#[path = "support/app.rs"]
mod app;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), count, None) = (args.next(), args.next(), args.next()) else {
        eprintln!("usage: generate_app DIR [COMPONENTS]");
        return ExitCode::from(2);
    };
    let components = match count.map(|c| c.to_string_lossy().parse::<usize>()) {
        None => app::DEFAULT_COMPONENTS,
        Some(Ok(count)) => count,
        Some(Err(error)) => {
            eprintln!("generate_app: COMPONENTS must be a number: {error}");
            return ExitCode::from(2);
        }
    };
    let dir = PathBuf::from(dir);
    match app::write_app(&dir, components) {
        Ok(summary) => {
            println!(
                "{}: {components} components ({} Jsonnet, {} JSON, {} YAML), {} files, {} bytes",
                dir.display(),
                summary.jsonnet,
                summary.json,
                summary.yaml,
                summary.files,
                summary.bytes,
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("generate_app: {}: {error}", dir.display());
            ExitCode::FAILURE
        }
    }
}

//! Writes the generated benchmark blueprint (`examples/support/blueprint.rs`)
//! to a file, for measuring the command line:
//!
//! ```text
//! cargo run --release -p strata-spec --example generate_blueprint -- /tmp/big.yaml
//! /usr/bin/time -f "%e s %M KiB" target/release/strata spec check /tmp/big.yaml
//! ```
#![expect(clippy::print_stderr, reason = "an example reports a bad command line")]

#[path = "support/blueprint.rs"]
mod blueprint;

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: generate_blueprint FILE");
        return ExitCode::from(2);
    };
    if let Err(error) = std::fs::write(&path, blueprint::generate()) {
        eprintln!("error: cannot write `{}`: {error}", path.to_string_lossy());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

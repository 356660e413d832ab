//! Writes the generated benchmark blueprint (`examples/support/blueprint.rs`)
//! to a file and, given a second path, the state of a deployment of it
//! with `env0=production` (every resource then changes), for measuring the
//! command line:
//!
//! ```text
//! cargo run --release -p strata-spec --example generate_blueprint -- /tmp/big.yaml /tmp/big-state.json
//! /usr/bin/time -f "%e s %M KiB" target/release/strata spec check /tmp/big.yaml
//! /usr/bin/time -f "%e s %M KiB" target/release/strata spec plan /tmp/big.yaml --state /tmp/big-state.json
//! ```
#![expect(clippy::print_stderr, reason = "an example reports a bad command line")]

#[path = "support/blueprint.rs"]
mod blueprint;

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(path), state_path, None) = (args.next(), args.next(), args.next()) else {
        eprintln!("usage: generate_blueprint FILE [STATE]");
        return ExitCode::from(2);
    };
    let text = blueprint::generate();
    if let Err(error) = std::fs::write(&path, &text) {
        eprintln!("error: cannot write `{}`: {error}", path.to_string_lossy());
        return ExitCode::FAILURE;
    }
    let Some(state_path) = state_path else {
        return ExitCode::SUCCESS;
    };
    let Some(state) = blueprint::previous_state(&text) else {
        eprintln!("error: the generated blueprint does not resolve");
        return ExitCode::FAILURE;
    };
    let written = serde_json::to_string(&state)
        .map_err(|error| error.to_string())
        .and_then(|json| std::fs::write(&state_path, json).map_err(|error| error.to_string()));
    if let Err(error) = written {
        eprintln!(
            "error: cannot write `{}`: {error}",
            state_path.to_string_lossy()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

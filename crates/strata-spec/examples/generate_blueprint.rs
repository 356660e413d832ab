//! Writes the generated benchmark blueprint (`examples/support/blueprint.rs`)
//! to a file and, given a second path, the state of a deployment of it
//! with `env0=production` (every resource then changes), for measuring the
//! command line. With `--scale N` the blueprint is instead `N` times the
//! size of `examples/spec/blueprint.yaml` in resources (4N), with the
//! benchmark's proportions of variables, values, data sources, exports and
//! link groups, for `bench/scaling.sh`:
//!
//! ```text
//! cargo run --release -p strata-spec --example generate_blueprint -- [--scale N] /tmp/big.yaml /tmp/big-state.json
//! /usr/bin/time -f "%e s %M KiB" target/release/strata spec check /tmp/big.yaml
//! /usr/bin/time -f "%e s %M KiB" target/release/strata spec plan /tmp/big.yaml --state /tmp/big-state.json
//! ```
#![expect(clippy::print_stderr, reason = "an example reports a bad command line")]

#[path = "support/blueprint.rs"]
mod blueprint;

use std::process::ExitCode;

fn main() -> ExitCode {
    let usage = || {
        eprintln!("usage: generate_blueprint [--scale N] FILE [STATE]");
        ExitCode::from(2)
    };
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    let size = if args.first().is_some_and(|arg| arg == "--scale") {
        let scale = args.get(1).and_then(|n| n.to_str()?.parse::<usize>().ok());
        let Some(scale @ 1..) = scale else {
            return usage();
        };
        args.drain(..2);
        scaled(scale)
    } else {
        blueprint::Size::BENCH
    };
    let mut args = args.into_iter();
    let (Some(path), state_path, None) = (args.next(), args.next(), args.next()) else {
        return usage();
    };
    let text = blueprint::generate(size);
    if let Err(error) = std::fs::write(&path, &text) {
        eprintln!("error: cannot write `{}`: {error}", path.to_string_lossy());
        return ExitCode::FAILURE;
    }
    let Some(state_path) = state_path else {
        return ExitCode::SUCCESS;
    };
    let Some(state) = blueprint::previous_state(&text, blueprint::PREVIOUS) else {
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

/// `n` times the bundled example's four resources, in the benchmark's
/// proportions (per 10,000 resources: 200 variables, 500 values, 20 data
/// sources, 200 exports, 2,000 link groups), each count at least one.
fn scaled(n: usize) -> blueprint::Size {
    let resources = 4 * n;
    let per = |bench: usize| (resources * bench / blueprint::Size::BENCH.resources).max(1);
    let bench = blueprint::Size::BENCH;
    blueprint::Size {
        variable_groups: per(bench.variable_groups),
        value_groups: per(bench.value_groups),
        datasources: per(bench.datasources),
        resources,
        exports: per(bench.exports),
        link_groups: per(bench.link_groups),
    }
}

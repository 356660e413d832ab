//! Writes the generated benchmark package (`examples/support/package.rs`)
//! to a folder, for measuring the command line and for trying by hand;
//! given a scale `N`, the package is instead `N` times the size of
//! `examples/capabilities` (3N components, 8N bindings, N definitions),
//! for `bench/scaling.sh`:
//!
//! ```text
//! cargo run --release -p strata-capabilities --example generate_package -- DIR [N]
//! strata capabilities check DIR --profile DIR/cluster.yaml $(cat DIR/custom-traits.args)
//! ```
//!
//! Writes `cluster.yaml`, `app.yaml`, `definitions/custom.yaml` and
//! `custom-traits.args` (the `--custom-trait` flags the package needs).
#![expect(
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "an example stops on a bad input and prints its result"
)]

#[path = "support/package.rs"]
mod package;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let usage = || {
        eprintln!("usage: generate_package DIR [SCALE]");
        ExitCode::from(2)
    };
    let (Some(dir), scale, None) = (args.next(), args.next(), args.next()) else {
        return usage();
    };
    let size = match scale.map(|n| n.to_str().and_then(|n| n.parse::<usize>().ok())) {
        None => package::Size::BENCH,
        Some(Some(n)) if n > 0 => package::Size {
            bindings: 8 * n,
            definitions: n,
            components: 3 * n,
        },
        Some(_) => return usage(),
    };
    let dir = PathBuf::from(dir);
    let generated = package::generate(size);
    let flags: Vec<String> = generated
        .custom_traits
        .iter()
        .map(|name| format!("--custom-trait {name}"))
        .collect();
    let files = [
        ("cluster.yaml", generated.profile),
        ("app.yaml", generated.application),
        ("definitions/custom.yaml", generated.definitions),
        ("custom-traits.args", flags.join(" ")),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text));
        if let Err(error) = written {
            eprintln!("error: cannot write `{}`: {error}", path.display());
            return ExitCode::FAILURE;
        }
    }
    println!("wrote {}", dir.display());
    ExitCode::SUCCESS
}

//! Writes the generated benchmark package (`examples/support/package.rs`)
//! to a folder, for measuring the command line and for trying by hand:
//!
//! ```text
//! cargo run --release -p strata-capabilities --example generate_package -- DIR
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
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("usage: generate_package DIR");
        return ExitCode::from(2);
    };
    let dir = PathBuf::from(dir);
    let generated = package::generate();
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

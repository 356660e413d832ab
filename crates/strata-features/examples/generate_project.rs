//! Writes the generated benchmark project (`examples/support/project.rs`)
//! to a folder, for measuring the command line and for trying by hand.
//! Given a scale `N`, the project is instead `N` times the size of
//! `examples/features` in feature files (5N), with Terraform components and
//! kustomizations in the benchmark's proportions (3 and 1 for every 2
//! features, at least two of each), for `bench/scaling.sh`:
//!
//! ```text
//! cargo run --release -p strata-features --example generate_project -- DIR [N]
//! strata features render DIR --context bench
//! ```
#![expect(
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "an example stops on a bad input and prints its result"
)]

#[path = "support/project.rs"]
mod project;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use strata_fs::Files;

fn main() -> ExitCode {
    let usage = || {
        eprintln!("usage: generate_project DIR [SCALE]");
        ExitCode::from(2)
    };
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), scale, None) = (args.next(), args.next(), args.next()) else {
        return usage();
    };
    let size = match scale.map(|n| n.to_str().and_then(|n| n.parse::<usize>().ok())) {
        None => project::Size::BENCH,
        Some(Some(n)) if n > 0 => project::Size {
            terraform: (15 * n / 2).max(2),
            kustomize: (5 * n / 2).max(2),
            features: 5 * n,
        },
        Some(_) => return usage(),
    };
    let dir = PathBuf::from(dir);
    let generated = project::generate(size);
    if let Err(error) = write(&generated.project, &dir) {
        eprintln!("error: {error}");
        return ExitCode::FAILURE;
    }
    println!(
        "wrote {}: {} features ({} apply, {} reading a file), {} bytes of YAML; {} Terraform components and {} kustomizations composed",
        dir.display(),
        size.features,
        generated.applied.len(),
        generated.file_calls,
        generated.bytes(),
        generated.terraform,
        generated.kustomize
    );
    ExitCode::SUCCESS
}

/// Writes every file of `project` below `dir`.
fn write(project: &dyn Files, dir: &Path) -> Result<(), String> {
    let paths = project.list(&[]).map_err(|error| error.to_string())?.files;
    for relative in paths {
        let text = project
            .read(&relative, usize::MAX)
            .map_err(|error| error.to_string())?;
        let path = dir.join(&relative);
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|error| format!("cannot write `{}`: {error}", path.display()))?;
    }
    Ok(())
}

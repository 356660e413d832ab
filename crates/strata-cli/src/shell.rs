//! `strata completions SHELL` and `strata man DIR`: what a packaged command
//! line installs beside its binary, generated from the same argument
//! definitions the binary parses with (`clap_complete`, `clap_mangen`), so
//! they never drift from it.
//!
//! - Completions are written to standard output, for the shell to load
//!   (`source <(strata completions bash)`, or a file in the shell's
//!   completion folder).
//! - Man pages are written into DIR (created when missing): `strata.1`
//!   and one page per subcommand, `strata-platform.1`,
//!   `strata-platform-check.1`, ...

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use clap_complete::Shell;
use strata_dialects::Registry;

/// Writes the completion script for `shell` to standard output, for every
/// verb of the binary and of the dialects in `registry`.
pub(crate) fn completions(shell: Shell, registry: &Registry) -> ExitCode {
    // Generated in memory: `clap_complete` panics on a failed write (a
    // closed pipe), which is reported here instead.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut crate::command(registry), "strata", &mut script);
    let mut out = std::io::stdout().lock();
    match out.write_all(&script).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: cannot write the completions: {error}");
            ExitCode::from(1)
        }
    }
}

/// Writes a man page for `strata` and for each of its subcommands into
/// `dir`.
pub(crate) fn man(dir: &Path, registry: &Registry) -> ExitCode {
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| clap_mangen::generate_to(crate::command(registry), dir));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!(
                "error: cannot write the man pages into `{}`: {error}",
                dir.display()
            );
            ExitCode::from(1)
        }
    }
}

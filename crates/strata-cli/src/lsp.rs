//! `strata lsp`: one editor session ([`strata_lsp::serve_stdio`]) with its
//! bounds, and the hidden `strata lsp-check` that the session runs as a
//! child process to evaluate one check within a budget
//! ([`strata_lsp::isolated`]).

use std::ffi::OsString;
use std::io::BufReader;
use std::process::ExitCode;
use std::time::Duration;

use strata_lsp::{Evaluation, Isolated, Settings};

use crate::{GlobalArgs, memory};

/// The default of `--max-message-bytes`: the server's own
/// ([`strata_lsp::transport::DEFAULT_MAX_MESSAGE_BYTES`]), written in its
/// unit.
const DEFAULT_MAX_MESSAGE: &str = "64MiB";

/// `strata lsp`'s options.
#[derive(Debug, clap::Args)]
pub(crate) struct LspArgs {
    /// The largest message the client may send (`64MiB`, bytes without a unit); a longer one ends the session with an error.
    #[arg(long, value_name = "SIZE", default_value = DEFAULT_MAX_MESSAGE, value_parser = memory::parse_size)]
    max_message_bytes: u64,
    /// The most memory the evaluation of one check (its Jsonnet, in a child process) may hold before it is stopped and reported at the component it was evaluating (0 for no bound; Linux only).
    #[arg(long, value_name = "SIZE", default_value = "1GiB", value_parser = memory::parse_size)]
    check_memory: u64,
    /// How long the evaluation of one check may run before it is stopped and reported at the component it was evaluating (`0s` for no bound).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = humantime::parse_duration)]
    check_time: Duration,
}

/// Serves one editor session, until the client says `exit`.
pub(crate) fn run(global: &GlobalArgs, args: &LspArgs) -> ExitCode {
    let evaluation = match std::env::current_exe() {
        Ok(program) => Evaluation::Isolated(Isolated {
            program,
            args: child_args(global),
            memory_bytes: (args.check_memory > 0).then_some(args.check_memory),
            time: (!args.check_time.is_zero()).then_some(args.check_time),
            pool: std::sync::Arc::default(),
        }),
        Err(error) => {
            eprintln!(
                "warning: the language server cannot find its own binary ({error}): checks evaluate in its process, without a budget"
            );
            Evaluation::InProcess
        }
    };
    let settings = Settings {
        registry: strata_dialects::registry(),
        limits: global.limits(),
        evaluation,
    };
    let max_message_bytes = usize::try_from(args.max_message_bytes).unwrap_or(usize::MAX);
    match strata_lsp::serve_stdio(&settings, max_message_bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: the language server stopped: {error}");
            ExitCode::from(1)
        }
    }
}

/// The arguments of the child that evaluates a check: the session's
/// bounds on inputs and on the process (`--memory-limit`, a backstop
/// behind the check's budget), then `lsp-check`.
fn child_args(global: &GlobalArgs) -> Vec<OsString> {
    [
        "--max-input-bytes".to_owned(),
        global.max_input_bytes.to_string(),
        "--max-depth".to_owned(),
        global.max_depth.to_string(),
        "--memory-limit".to_owned(),
        global.memory_limit.to_string(),
        "lsp-check".to_owned(),
    ]
    .into_iter()
    .map(OsString::from)
    .collect()
}

/// `strata lsp-check`: evaluates the check the session writes on standard
/// input, and writes its steps and diagnostics on standard output.
pub(crate) fn check(global: &GlobalArgs) -> ExitCode {
    let input = BufReader::new(std::io::stdin());
    let registry = strata_dialects::registry();
    match strata_lsp::isolated::serve_child(registry, global.limits(), input, std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: `strata lsp-check` stopped: {error}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DEFAULT_MAX_MESSAGE;
    use crate::memory::parse_size;

    #[test]
    fn the_default_message_bound_is_the_servers() {
        assert_eq!(
            parse_size(DEFAULT_MAX_MESSAGE).ok(),
            u64::try_from(strata_lsp::transport::DEFAULT_MAX_MESSAGE_BYTES).ok()
        );
    }
}

//! `strata lsp`: one editor session ([`strata_lsp::serve_stdio`]) with its
//! bounds.

use std::process::ExitCode;

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
}

/// Serves one editor session, until the client says `exit`.
pub(crate) fn run(global: &GlobalArgs, args: &LspArgs) -> ExitCode {
    let max_message_bytes = usize::try_from(args.max_message_bytes).unwrap_or(usize::MAX);
    match strata_lsp::serve_stdio(global.limits(), max_message_bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: the language server stopped: {error}");
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

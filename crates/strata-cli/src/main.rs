//! The `strata` command line: parses arguments, calls, and prints.
//!
//! The dialects' verbs come from the registry ([`strata_dialects::registry`]):
//! each dialect states its subcommand and runs it
//! ([`strata_dialect::Describe::command`], [`strata_dialect::Describe::run`]),
//! handing back a [`Done`] that [`finish`] prints. The binary owns only what
//! is no dialect's: `merge`, `explain`, the language server, `platform serve` (the
//! service, a face of its own on the platform dialect), completions and man
//! pages. [`render`] decides how diagnostics look. Exit status: 0 success,
//! 1 the input is invalid (diagnostics on stderr, nothing on stdout), 2
//! usage.

#![forbid(unsafe_code)]
#![expect(
    clippy::print_stderr,
    reason = "the binary is the one crate that prints: diagnostics and usage errors"
)]

pub mod codes;
mod explain;
mod lsp;
mod memory;
mod merge;
mod render;
mod serve;
mod shell;

use std::io::{self, Write as _};
use std::process::ExitCode;

use clap::{Args as _, CommandFactory as _, FromArgMatches as _, Parser, Subcommand, ValueEnum};
use strata_dialect::{Done, Invocation, Usage};
use strata_dialects::Registry;

/// mimalloc instead of the system allocator: evaluation allocates and frees
/// millions of small values, and glibc's allocator both spent a quarter of
/// a component render in `malloc`/`free` and kept worker threads from
/// scaling (each thread's arena grows by `mprotect` calls; measured in the
/// manual's performance page, `docs/src/performance.md`). Built without transparent huge pages
/// (`no_thp`, in the workspace manifest): with them, every fresh or purged
/// 2 MiB region is zeroed whole on first touch, which was 40% of rendering
/// a large Windsor project.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Strata checks, composes and renders layered configuration blueprints
/// (k8shell platform catalogues, qbec applications, Windsor blueprints, Kure
/// packages and Blueprint Specification documents), with every problem
/// reported at its file, line and column.
#[derive(Debug, Parser)]
#[command(name = "strata", version, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
}

/// Options every command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct GlobalArgs {
    /// Output format (YAML for documents, JSON for schemas, unless given).
    #[arg(short, long, global = true, value_enum)]
    pub output: Option<OutputArg>,
    /// How diagnostics are written to standard error.
    #[arg(long, global = true, value_enum, default_value_t = DiagnosticFormat::Human)]
    pub diagnostics: DiagnosticFormat,
    /// When to color human diagnostics (`NO_COLOR` turns `auto` off).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// The largest input file accepted, in bytes.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = strata_syntax::Limits::default().max_bytes)]
    pub max_input_bytes: usize,
    /// Warnings of every dialect are errors (an unknown property of a capability, a `dependsOn` that names nothing, ...).
    #[arg(long, global = true)]
    pub strict: bool,
    /// The deepest nesting of collections accepted.
    #[arg(long, global = true, value_name = "LEVELS", default_value_t = strata_syntax::Limits::default().max_depth)]
    pub max_depth: usize,
    /// The most text YAML aliases may add to one file, in bytes (each alias adds its anchored value's strings and keys again).
    #[arg(long, global = true, value_name = "BYTES", default_value_t = strata_syntax::Limits::default().max_alias_bytes)]
    pub max_alias_bytes: usize,
    /// The most resident memory a run may hold before it is stopped (`512MiB`, `8GiB`; 0 for no limit; Linux only).
    #[arg(long, global = true, value_name = "SIZE", default_value = memory::DEFAULT_LIMIT, value_parser = memory::parse_size)]
    pub memory_limit: u64,
}

impl GlobalArgs {
    /// The bounds on every input the options set.
    #[must_use]
    pub fn limits(&self) -> strata_syntax::Limits {
        strata_syntax::Limits {
            max_bytes: self.max_input_bytes,
            max_depth: self.max_depth,
            max_alias_bytes: self.max_alias_bytes,
            ..strata_syntax::Limits::default()
        }
    }

    /// How a command is asked for: the bounds, `-o`, `--strict`.
    #[must_use]
    pub fn invocation(&self) -> Invocation {
        Invocation {
            limits: self.limits(),
            output: self.output.map(|output| match output {
                OutputArg::Yaml => strata_dialect::OutputFormat::Yaml,
                OutputArg::Json => strata_dialect::OutputFormat::Json,
                OutputArg::Dot => strata_dialect::OutputFormat::Dot,
            }),
            strict: self.strict,
        }
    }
}

/// `-o` values: a document format, or DOT for a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputArg {
    /// YAML (a multi-document stream for several documents).
    Yaml,
    /// JSON (an array for several documents).
    Json,
    /// Graphviz DOT (only `spec graph`).
    Dot,
}

/// `--diagnostics` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiagnosticFormat {
    /// rustc-style, with the source line and a caret.
    Human,
    /// One JSON object per line.
    Json,
}

/// `--color` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Color when standard error is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

impl ColorChoice {
    /// Whether standard error gets color.
    #[must_use]
    pub fn colors_stderr(self) -> bool {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        }
    }
}

// The verbs that are no dialect's, listed before the dialects' (a doc
// comment here would become the binary's `about`).
#[derive(Debug, Subcommand)]
enum Leading {
    Merge(merge::MergeArgs),
}

// The verbs that are no dialect's, listed after the dialects'.
#[derive(Debug, Subcommand)]
enum Trailing {
    /// A language server (LSP) over standard input and output: diagnostics as you type.
    Lsp(lsp::LspArgs),
    /// Evaluates one check of `strata lsp`, which runs it as a child process.
    #[command(hide = true)]
    LspCheck,
    /// Prints the completion script of a shell.
    Completions {
        /// The shell: bash, zsh, fish, powershell or elvish.
        shell: clap_complete::Shell,
    },
    /// Explains a diagnostic code: what it means, why it fires, how to fix it, an example.
    Explain(explain::ExplainArgs),
    /// Writes the man pages of `strata` and its subcommands into a folder.
    Man {
        /// The folder (created when missing).
        dir: std::path::PathBuf,
    },
}

/// The dialect that `platform serve` is a face of.
const SERVED_DIALECT: &str = "platform";

/// The whole command line: the binary's verbs, and each dialect's from
/// `registry` (the platform's with `serve` added).
pub(crate) fn command(registry: &Registry) -> clap::Command {
    let mut command = Leading::augment_subcommands(Cli::command());
    for entry in registry.entries() {
        let mut dialect = entry.command();
        if entry.name == SERVED_DIALECT {
            // The arguments' doc comment would be the `about`: set it after.
            dialect = dialect.subcommand(
                serve::ServeArgs::augment_args(clap::Command::new("serve")).about(serve::ABOUT),
            );
        }
        command = command.subcommand(dialect);
    }
    Trailing::augment_subcommands(command.subcommand_required(true))
}

fn main() -> ExitCode {
    let registry = strata_dialects::registry();
    let matches = command(&registry).get_matches();
    let global = match GlobalArgs::from_arg_matches(&matches) {
        Ok(global) => global,
        Err(error) => error.exit(),
    };
    let Some((name, sub)) = matches.subcommand() else {
        return usage(&Usage("a command is required".to_owned()));
    };
    let invocation = global.invocation();
    if let Some(entry) = registry.get(name) {
        if let Some(("serve", args)) = sub.subcommand().filter(|_| name == SERVED_DIALECT) {
            if let Err(refused) = invocation.refuse_dot() {
                return usage(&refused);
            }
            memory::watch(global.memory_limit, &global);
            return match serve::ServeArgs::from_arg_matches(args) {
                Ok(args) => serve::run(&global, &args),
                Err(error) => error.exit(),
            };
        }
        memory::watch(global.memory_limit, &global);
        return ended(entry.run(sub, invocation), &global);
    }
    if let Err(refused) = invocation.refuse_dot() {
        return usage(&refused);
    }
    memory::watch(global.memory_limit, &global);
    if let Ok(Leading::Merge(args)) = Leading::from_arg_matches(&matches) {
        return ended(merge::run(invocation, &args), &global);
    }
    match Trailing::from_arg_matches(&matches) {
        Ok(Trailing::Lsp(args)) => lsp::run(&global, &args),
        Ok(Trailing::LspCheck) => lsp::check(&global),
        Ok(Trailing::Completions { shell }) => shell::completions(shell, &registry),
        Ok(Trailing::Man { dir }) => shell::man(&dir, &registry),
        Ok(Trailing::Explain(args)) => ended(explain::run(invocation, &args), &global),
        Err(error) => error.exit(),
    }
}

/// Prints how a run ended: what it gives ([`finish`]), or its usage error.
fn ended(run: Result<Done, Usage>, global: &GlobalArgs) -> ExitCode {
    match run {
        Ok(done) => finish(done, global),
        Err(refused) => usage(&refused),
    }
}

/// Prints a run: its diagnostics on standard error, then, when nothing
/// failed, its text on standard output; its exit status.
fn finish(done: Done, global: &GlobalArgs) -> ExitCode {
    render::print(&done.db, &done.diagnostics, global);
    if let Some(parts) = done.text {
        // Parts may be many and small (a render's documents): written
        // through a buffer, not one system call each.
        let mut stdout = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
        let written = parts
            .iter()
            .try_for_each(|part| stdout.write_all(part.as_bytes()))
            .and_then(|()| stdout.flush());
        if let Err(error) = written {
            // A closed pipe (`strata ... | head`) is not a failure of the input.
            if error.kind() != io::ErrorKind::BrokenPipe {
                eprintln!("error: cannot write output: {error}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::from(done.status)
}

/// Prints a usage error; exit status 2.
fn usage(refused: &Usage) -> ExitCode {
    eprintln!("error: {}", refused.0);
    ExitCode::from(2)
}

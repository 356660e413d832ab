//! The `strata` command line: parses arguments and wires the library crates.
//!
//! One module per subcommand; [`session`] holds what every command shares
//! (reading inputs within limits, collecting diagnostics, the exit status),
//! [`render`] decides how diagnostics look. Exit status: 0 success, 1 the
//! input is invalid (diagnostics on stderr, nothing on stdout), 2 usage.

#![forbid(unsafe_code)]
#![expect(
    clippy::print_stderr,
    reason = "the binary is the one crate that prints: diagnostics and usage errors"
)]

mod capabilities;
pub mod codes;
mod components;
mod features;
mod lsp;
mod memory;
mod merge;
mod platform;
mod render;
mod serve;
mod session;
mod shell;
mod spec;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

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
    #[command(subcommand)]
    command: Command,
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

    /// The document format asked for, or the command's own default (`-o
    /// dot` is refused before any command but `spec graph` runs).
    #[must_use]
    pub fn output(&self, default: OutputFormat) -> OutputFormat {
        match self.output {
            Some(OutputArg::Yaml) => OutputFormat::Yaml,
            Some(OutputArg::Json) => OutputFormat::Json,
            Some(OutputArg::Dot) | None => default,
        }
    }

    /// The usage error of `--explain` with JSON output, which has no comments.
    #[must_use]
    pub fn explain_conflict(&self, explain: bool) -> Option<ExitCode> {
        (explain && self.output(OutputFormat::Yaml) == OutputFormat::Json).then(|| {
            eprintln!(
                "error: `--explain` annotates YAML output; it cannot be combined with `-o json`"
            );
            ExitCode::from(2)
        })
    }
}

/// `-o` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// YAML (a multi-document stream for several documents).
    Yaml,
    /// JSON (an array for several documents).
    Json,
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

#[derive(Debug, Subcommand)]
enum Command {
    Merge(merge::MergeArgs),
    /// Platform blueprint catalogues, compatible with k8shell's blueprint manager: inheritance, repository overlays, CEL.
    #[command(subcommand)]
    Platform(platform::PlatformCommand),
    /// Components: qbec applications (qbec.yaml, Jsonnet, JSON, YAML) rendered into Kubernetes objects, compatible with qbec.
    #[command(subcommand)]
    Components(Box<components::ComponentsCommand>),
    /// Features: Windsor projects, a blueprint extended by conditional feature files, compatible with the Windsor CLI.
    #[command(subcommand)]
    Features(features::FeaturesCommand),
    /// Capabilities: cluster profiles, capability definitions and packages, compatible with Kure's launcher.
    #[command(subcommand)]
    Capabilities(capabilities::CapabilitiesCommand),
    /// Spec: Blueprint Specification v2023-04-20 blueprints (Bluelink's) and their `${..}` language.
    #[command(subcommand)]
    Spec(spec::SpecCommand),
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
    /// Writes the man pages of `strata` and its subcommands into a folder.
    Man {
        /// The folder (created when missing).
        dir: std::path::PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let draws_graphs = matches!(cli.command, Command::Spec(spec::SpecCommand::Graph(_)));
    if cli.global.output == Some(OutputArg::Dot) && !draws_graphs {
        eprintln!("error: `-o dot` is the output of `spec graph` only");
        return ExitCode::from(2);
    }
    memory::watch(cli.global.memory_limit, &cli.global);
    match cli.command {
        Command::Merge(args) => merge::run(&cli.global, &args),
        Command::Platform(command) => platform::run(&cli.global, &command),
        Command::Components(command) => components::run(&cli.global, &command),
        Command::Features(command) => features::run(&cli.global, &command),
        Command::Capabilities(command) => capabilities::run(&cli.global, &command),
        Command::Spec(command) => spec::run(&cli.global, &command),
        Command::Lsp(args) => lsp::run(&cli.global, &args),
        Command::LspCheck => lsp::check(&cli.global),
        Command::Completions { shell } => shell::completions(shell),
        Command::Man { dir } => shell::man(&dir),
    }
}

/// A JSON value written in the chosen format.
pub fn write_value(
    session: &mut session::Session<'_>,
    value: &serde_json::Value,
    format: OutputFormat,
) -> Option<String> {
    write_document(
        session,
        &strata_syntax::Node::from_json_value(value),
        format,
    )
}

/// A document written in the chosen format.
pub fn write_document(
    session: &mut session::Session<'_>,
    node: &strata_syntax::Node,
    format: OutputFormat,
) -> Option<String> {
    match format {
        OutputFormat::Yaml => Some(strata_syntax::emit::to_yaml(node)),
        OutputFormat::Json => strata_syntax::emit::to_json(node)
            .map_err(|problem| session.diagnostics.push(problem))
            .ok(),
    }
}

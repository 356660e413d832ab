//! `strata features render|check|eval|schema`: the dialect's verbs on the
//! command line ([`strata_dialect::Describe::command`]).

use std::collections::HashMap;
use std::path::PathBuf;

use clap::{Args, FromArgMatches as _, Subcommand as _, ValueEnum};
use strata_dialect::{DocumentFormat, Done, Invocation, Session, Usage};
use strata_syntax::emit::to_yaml_annotated;
use strata_syntax::{Node, Span};

use crate::{Project, RenderRequest, Rendered, Settings};

// The verbs; the `about` of the subcommand is set where it is built,
// as a doc comment here would replace it.
#[derive(Debug, clap::Subcommand)]
enum FeaturesCommand {
    /// Compose a context's blueprint from the base blueprint and its features.
    Render(RenderArgs),
    /// Compose a context's blueprint (every context's, without `--context`) and report every problem; exit 0 or 1.
    Check(CheckArgs),
    /// Evaluate a `when` expression (or a `${..}` text) as a context's features see it, and print its value.
    Eval(EvalArgs),
    /// Print the JSON Schema of `blueprint.yaml` or of a feature file.
    Schema(SchemaArgs),
}

/// A project and a context.
#[derive(Debug, Args)]
struct ContextArgs {
    /// The project folder (with `windsor.yaml` and `contexts/_template`).
    #[arg(value_name = "PROJECT")]
    dir: PathBuf,
    /// The context whose values expressions see.
    #[arg(long, value_name = "NAME")]
    context: String,
    /// Set a value (`cluster.workers.count=3`), read as YAML; repeatable.
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = parse_set)]
    sets: Vec<(String, String)>,
}

/// `check` arguments: a context, or every context the project names.
#[derive(Debug, Args)]
struct CheckArgs {
    /// The project folder (with `windsor.yaml` and `contexts/_template`).
    #[arg(value_name = "PROJECT")]
    dir: PathBuf,
    /// The context to compose; every context the project names when left out.
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// Set a value (`cluster.workers.count=3`), read as YAML; repeatable (with `--context`).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = parse_set, requires = "context")]
    sets: Vec<(String, String)>,
}

/// `render` arguments.
#[derive(Debug, Args)]
struct RenderArgs {
    #[command(flatten)]
    context: ContextArgs,
    /// Name, beside each component and kustomization, the files that made it (YAML only).
    #[arg(long)]
    explain: bool,
}

/// `eval` arguments.
#[derive(Debug, Args)]
struct EvalArgs {
    #[command(flatten)]
    context: ContextArgs,
    /// The expression (`provider == 'aws' && cluster.workers.count > 2`), or a text with `${..}` in it.
    #[arg(value_name = "EXPRESSION")]
    expression: String,
}

/// `schema` arguments.
#[derive(Debug, Args)]
struct SchemaArgs {
    /// Which file's schema.
    #[arg(value_enum, default_value_t = SchemaKind::Blueprint)]
    kind: SchemaKind,
}

/// The schemas `strata features schema` prints.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum SchemaKind {
    /// `contexts/_template/blueprint.yaml`.
    Blueprint,
    /// A feature file.
    Feature,
}

fn parse_set(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .filter(|(path, _)| !path.is_empty())
        .map(|(path, value)| (path.to_owned(), value.to_owned()))
        .ok_or_else(|| format!("`{text}` is not PATH=VALUE"))
}

/// `strata features`.
pub(crate) fn command() -> clap::Command {
    FeaturesCommand::augment_subcommands(
        clap::Command::new("features")
            .about("Features: Windsor projects, a blueprint extended by conditional feature files, compatible with the Windsor CLI")
            .subcommand_required(true),
    )
}

/// Runs the verb of `matches`.
pub(crate) fn run(matches: &clap::ArgMatches, invocation: Invocation) -> Result<Done, Usage> {
    let command =
        FeaturesCommand::from_arg_matches(matches).map_err(|error| Usage(error.to_string()))?;
    invocation.refuse_dot()?;
    let mut session = Session::new(invocation);
    match command {
        FeaturesCommand::Render(args) => {
            let format = session.explained_format(args.explain)?;
            let rendered = render(&mut session, &args.context);
            Ok(session.finish(|session| {
                let rendered = rendered?;
                if args.explain {
                    return Some(explained(&rendered));
                }
                session.write_document(&rendered.blueprint, format)
            }))
        }
        FeaturesCommand::Check(args) => {
            match args.context {
                Some(context) => {
                    let args = ContextArgs {
                        dir: args.dir,
                        context,
                        sets: args.sets,
                    };
                    render(&mut session, &args);
                }
                None => {
                    if let Some(project) = session.open::<Project>(&args.dir, Settings::default()) {
                        session.check(&project);
                    }
                }
            }
            Ok(session.finish(|_| None))
        }
        FeaturesCommand::Eval(args) => {
            let format = session.document_format(DocumentFormat::Yaml)?;
            let value = session
                .open::<Project>(&args.context.dir, Settings::default())
                .and_then(|project| {
                    let request = request(&args.context);
                    project
                        .evaluate(&request, &args.expression, &mut session.db)
                        .report(&mut session.diagnostics)
                });
            Ok(session.finish(|session| session.write_document(&value?, format)))
        }
        FeaturesCommand::Schema(args) => {
            let format = session.document_format(DocumentFormat::Json)?;
            let schema = match args.kind {
                SchemaKind::Blueprint => crate::blueprint_schema(),
                SchemaKind::Feature => crate::feature_schema(),
            };
            Ok(session.finish(|session| session.write_value(schema, format)))
        }
    }
}

/// Opens the project and renders the context: the request is checked even
/// when the project's files have errors, so every problem shows at once.
fn render(session: &mut Session, args: &ContextArgs) -> Option<Rendered> {
    let project = session.open::<Project>(&args.dir, Settings::default())?;
    session.render(&project, &request(args))
}

/// The request the arguments name.
fn request(args: &ContextArgs) -> RenderRequest {
    RenderRequest {
        context: args.context.clone(),
        sets: args.sets.clone(),
    }
}

/// The blueprint in YAML, each entry's `name` (or `path`) line ending in
/// `# from: blueprint, feature-a, ...`.
fn explained(rendered: &Rendered) -> String {
    let notes: HashMap<Span, String> = rendered
        .contributions()
        .into_iter()
        .map(|contribution| {
            (
                contribution.at,
                format!("from: {}", contribution.sources.join(", ")),
            )
        })
        .collect();
    to_yaml_annotated(&rendered.blueprint, &|node: &Node| {
        notes.get(&node.span).cloned()
    })
}

//! `strata features render|check|schema`: Windsor blueprints with features.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use strata_features::{Project, RenderRequest, Rendered, Settings};
use strata_syntax::emit::{to_json, to_yaml, to_yaml_annotated};
use strata_syntax::{Node, Span};

use crate::session::Session;
use crate::{GlobalArgs, OutputFormat};

/// Features: a base blueprint extended by conditional feature files.
#[derive(Debug, Subcommand)]
pub(crate) enum FeaturesCommand {
    /// Compose a context's blueprint from the base blueprint and its features.
    Render(RenderArgs),
    /// Compose a context's blueprint and report every problem; exit 0 or 1.
    Check(ContextArgs),
    /// Print the JSON Schema of `blueprint.yaml` or of a feature file.
    Schema(SchemaArgs),
}

/// A project and a context.
#[derive(Debug, Args)]
pub(crate) struct ContextArgs {
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

/// `render` arguments.
#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    context: ContextArgs,
    /// Name, beside each component and kustomization, the files that made it (YAML only).
    #[arg(long)]
    explain: bool,
}

/// `schema` arguments.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// Which file's schema.
    #[arg(value_enum, default_value_t = SchemaKind::Blueprint)]
    kind: SchemaKind,
}

/// The schemas `strata features schema` prints.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum SchemaKind {
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

pub(crate) fn run(global: &GlobalArgs, command: &FeaturesCommand) -> ExitCode {
    match command {
        FeaturesCommand::Render(args) => {
            if let Some(usage) = global.explain_conflict(args.explain) {
                return usage;
            }
            let mut session = Session::new(global);
            let rendered = render(&mut session, &args.context);
            session.finish(|session| {
                let rendered = rendered?;
                match global.output(OutputFormat::Yaml) {
                    OutputFormat::Yaml if args.explain => Some(explained(&rendered)),
                    OutputFormat::Yaml => Some(to_yaml(&rendered.blueprint)),
                    OutputFormat::Json => to_json(&rendered.blueprint)
                        .map_err(|problem| session.diagnostics.push(problem))
                        .ok(),
                }
            })
        }
        FeaturesCommand::Check(args) => {
            let mut session = Session::new(global);
            render(&mut session, args);
            session.finish(|_| None)
        }
        FeaturesCommand::Schema(args) => {
            let schema = match args.kind {
                SchemaKind::Blueprint => strata_features::blueprint_schema(),
                SchemaKind::Feature => strata_features::feature_schema(),
            }
            .clone();
            let session = Session::new(global);
            session.finish(|session| {
                crate::write_value(session, &schema, global.output(OutputFormat::Json))
            })
        }
    }
}

/// Opens the project and renders the context: the request is checked even
/// when the project's files have errors, so every problem shows at once.
fn render(session: &mut Session<'_>, args: &ContextArgs) -> Option<Rendered> {
    let project = session.open::<Project>(&args.dir, Settings::default())?;
    let request = RenderRequest {
        context: args.context.clone(),
        sets: args.sets.clone(),
    };
    session.render(&project, &request)
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

//! `strata platform check|list|render|schema`: the platform blueprint catalogue.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use strata_platform::{Catalogue, RenderRequest, Scope, Settings};
use strata_syntax::emit::{to_json, to_yaml, to_yaml_annotated};
use strata_syntax::{Diagnostic, Node, Span, Value};

use crate::session::Session;
use crate::{GlobalArgs, OutputFormat};

/// Platform blueprints: a catalogue folder composed per request.
#[derive(Debug, Subcommand)]
pub(crate) enum PlatformCommand {
    /// Load, resolve and validate every blueprint of a catalogue.
    Check(CatalogueArgs),
    /// List the blueprints of a catalogue with their inheritance chains.
    List(CatalogueArgs),
    /// Compose, evaluate and validate one blueprint.
    Render(RenderArgs),
    /// Print the JSON Schema of a blueprint, a `.k8shell.yaml`, a users file or a compose request.
    Schema(SchemaArgs),
    /// Serve the catalogue over HTTP, reloading it on every change.
    Serve(crate::serve::ServeArgs),
}

/// A catalogue folder.
#[derive(Debug, Args)]
pub(crate) struct CatalogueArgs {
    /// The catalogue folder.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// `render` arguments.
#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    catalogue: CatalogueArgs,
    /// The platform blueprint (may be left out with `--repo`, whose `template` decides).
    #[arg(long, value_name = "NAME")]
    blueprint: Option<String>,
    /// A repository's `.k8shell.yaml` to compose on top (`-` reads standard input).
    #[arg(long, value_name = "FILE")]
    repo: Option<String>,
    /// A YAML/JSON file with `user`, `workspaceName` and `metadata`.
    #[arg(long, value_name = "FILE")]
    scope: Option<String>,
    /// Annotate each value with the file, line and layer it came from (YAML only).
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

/// The schemas `strata platform schema` prints.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum SchemaKind {
    /// A catalogue blueprint.
    Blueprint,
    /// A repository's `.k8shell.yaml`.
    Repo,
    /// The users file of `serve`.
    Users,
    /// The body of `POST /v1/compose`.
    Compose,
}

pub(crate) fn run(global: &GlobalArgs, command: &PlatformCommand) -> ExitCode {
    match command {
        PlatformCommand::Check(args) => {
            let mut session = Session::new(global);
            load(&mut session, &args.dir);
            session.finish(|_| None)
        }
        PlatformCommand::List(args) => {
            let mut session = Session::new(global);
            let catalogue = load(&mut session, &args.dir);
            session.finish(|session| {
                let summaries = catalogue?.list();
                let value = serde_json::to_value(&summaries).ok()?;
                crate::write_value(session, &value, global.output(OutputFormat::Yaml))
            })
        }
        PlatformCommand::Render(args) => render(global, args),
        PlatformCommand::Serve(args) => crate::serve::run(global, args),
        PlatformCommand::Schema(args) => {
            let schema = match args.kind {
                SchemaKind::Blueprint => strata_platform::blueprint_file_schema(),
                SchemaKind::Repo => strata_platform::repo_schema(),
                SchemaKind::Users => strata_server::users_schema(),
                SchemaKind::Compose => strata_server::compose_request_schema(),
            };
            let session = Session::new(global);
            let schema = schema.clone();
            session.finish(|session| {
                crate::write_value(session, &schema, global.output(OutputFormat::Json))
            })
        }
    }
}

/// Opens the catalogue; its sources become the session's.
fn load(session: &mut Session<'_>, dir: &Path) -> Option<Catalogue> {
    session.open::<Catalogue>(dir, Settings::default())
}

fn render(global: &GlobalArgs, args: &RenderArgs) -> ExitCode {
    let mut session = Session::new(global);
    if let Some(usage) = global.explain_conflict(args.explain) {
        return usage;
    }
    let Some(catalogue) = load(&mut session, &args.catalogue.dir) else {
        return session.finish(|_| None);
    };
    if args.blueprint.is_none() && args.repo.is_none() {
        eprintln!(
            "error: name the blueprint with `--blueprint NAME`, or give `--repo FILE` whose `template` names it"
        );
        return ExitCode::from(2);
    }
    // The name is registered as a source of its own, so diagnostics about it
    // point at the argument.
    let blueprint = args.blueprint.as_deref().map(|name| {
        let id = session.db.add("--blueprint", name);
        Node::new(Value::String(name.to_owned()), Span::new(id, 0, name.len()))
    });
    let repo = args
        .repo
        .as_deref()
        .and_then(|file| session.load_document(file));
    let scope = if let Some(file) = args.scope.as_deref() {
        session.load_document(file).and_then(|node| {
            Scope::from_node(&node)
                .map_err(|problems| session.diagnostics.extend(problems))
                .ok()
        })
    } else {
        let id = session.db.add("--scope", "");
        session.diagnostics.push(Diagnostic::note(
            strata_platform::codes::TEST_SCOPE,
            "no --scope given: rendering against the synthetic test scope",
            Span::file_start(id),
        ));
        Some(Scope::test())
    };
    session.finish(|session| {
        let request = RenderRequest {
            blueprint,
            repo,
            scope,
        };
        let rendered = session.render(&catalogue, &request)?;
        match global.output(OutputFormat::Yaml) {
            OutputFormat::Yaml if args.explain => {
                let db = &session.db;
                let annotate = |node: &Node| {
                    let (file, position) = db.locate(node.span);
                    let layer = node
                        .layer
                        .and_then(|layer| rendered.layers.get(layer.0 as usize))
                        .map_or(String::new(), |name| format!(" ({name})"));
                    Some(format!("{file}:{}{layer}", position.line))
                };
                Some(to_yaml_annotated(&rendered.node, &annotate))
            }
            OutputFormat::Yaml => Some(to_yaml(&rendered.node)),
            OutputFormat::Json => to_json(&rendered.node)
                .map_err(|problem| session.diagnostics.push(problem))
                .ok(),
        }
    })
}

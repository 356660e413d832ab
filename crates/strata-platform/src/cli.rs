//! `strata platform check|list|render|schema`: the dialect's verbs on the
//! command line ([`strata_dialect::Describe::command`]). The binary adds
//! `serve`, the service, a face of its own.

use std::path::{Path, PathBuf};

use clap::{Args, FromArgMatches as _, Subcommand as _, ValueEnum};
use strata_dialect::{DocumentFormat, Done, Expect, Invocation, Read, Session, Usage};
use strata_syntax::emit::to_yaml_annotated;
use strata_syntax::{Diagnostic, Node, Span, Value};

use crate::{Catalogue, RenderRequest, Scope, Settings, codes, service};

// The verbs; the `about` of the subcommand is set where it is built,
// as a doc comment here would replace it.
#[derive(Debug, clap::Subcommand)]
enum PlatformCommand {
    /// Load, resolve and validate every blueprint of a catalogue.
    Check(CatalogueArgs),
    /// List the blueprints of a catalogue with their inheritance chains.
    List(CatalogueArgs),
    /// Compose, evaluate and validate one blueprint.
    Render(RenderArgs),
    /// Print the JSON Schema of a blueprint, a `.k8shell.yaml`, a users file or a compose request.
    Schema(SchemaArgs),
}

/// A catalogue folder.
#[derive(Debug, Args)]
struct CatalogueArgs {
    /// The catalogue folder.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// `render` arguments.
#[derive(Debug, Args)]
struct RenderArgs {
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
struct SchemaArgs {
    /// Which file's schema.
    #[arg(value_enum, default_value_t = SchemaKind::Blueprint)]
    kind: SchemaKind,
}

/// The schemas `strata platform schema` prints.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum SchemaKind {
    /// A catalogue blueprint.
    Blueprint,
    /// A repository's `.k8shell.yaml`.
    Repo,
    /// The users file of `serve`.
    Users,
    /// The body of `POST /v1/compose`.
    Compose,
}

/// `strata platform`.
pub(crate) fn command() -> clap::Command {
    PlatformCommand::augment_subcommands(
        clap::Command::new("platform")
            .about("Platform blueprint catalogues, compatible with k8shell's blueprint manager: inheritance, repository overlays, CEL")
            .subcommand_required(true),
    )
}

/// Runs the verb of `matches`.
pub(crate) fn run(matches: &clap::ArgMatches, invocation: Invocation) -> Result<Done, Usage> {
    let command =
        PlatformCommand::from_arg_matches(matches).map_err(|error| Usage(error.to_string()))?;
    invocation.refuse_dot()?;
    let mut session = Session::new(invocation);
    match command {
        PlatformCommand::Check(args) => {
            load(&mut session, &args.dir);
            Ok(session.finish(|_| None))
        }
        PlatformCommand::List(args) => {
            let format = session.document_format(DocumentFormat::Yaml)?;
            let catalogue = load(&mut session, &args.dir);
            if let Some(catalogue) = &catalogue {
                catalogue.set_aside_others(None, &mut session.diagnostics);
            }
            Ok(session.finish(|session| {
                let summaries = catalogue?.list();
                let value = serde_json::to_value(&summaries).ok()?;
                session.write_value(&value, format)
            }))
        }
        PlatformCommand::Render(args) => render(session, &args),
        PlatformCommand::Schema(args) => {
            let format = session.document_format(DocumentFormat::Json)?;
            let schema = match args.kind {
                SchemaKind::Blueprint => crate::blueprint_file_schema(),
                SchemaKind::Repo => crate::repo_schema(),
                SchemaKind::Users => service::users_schema(),
                SchemaKind::Compose => service::compose_request_schema(),
            };
            Ok(session.finish(|session| session.write_value(schema, format)))
        }
    }
}

/// Opens the catalogue; its sources become the session's.
fn load(session: &mut Session, dir: &Path) -> Option<Catalogue> {
    session.open::<Catalogue>(dir, Settings::default())
}

fn render(mut session: Session, args: &RenderArgs) -> Result<Done, Usage> {
    let format = session.explained_format(args.explain)?;
    let Some(catalogue) = load(&mut session, &args.catalogue.dir) else {
        return Ok(session.finish(|_| None));
    };
    if args.blueprint.is_none() && args.repo.is_none() {
        return Err(Usage(
            "name the blueprint with `--blueprint NAME`, or give `--repo FILE` whose `template` names it".to_owned(),
        ));
    }
    // Diagnostics about the name point at the argument.
    let blueprint = args.blueprint.as_deref().map(|name| {
        let span = strata_dialect::command_line(&mut session.db, "--blueprint", name);
        Node::new(Value::String(name.to_owned()), span)
    });
    let repo = args.repo.as_deref().and_then(|file| {
        session
            .read(file, Expect::One)
            .report(&mut session.diagnostics)
            .and_then(Read::into_document)
    });
    let scope = if let Some(file) = args.scope.as_deref() {
        let read = session.read(file, Expect::One);
        let node = read.report(&mut session.diagnostics);
        node.and_then(Read::into_document).and_then(|node| {
            Scope::from_node(&node)
                .map_err(|problems| session.diagnostics.extend(problems))
                .ok()
        })
    } else {
        let id = session.db.add("--scope", "");
        session.diagnostics.push(Diagnostic::note(
            codes::TEST_SCOPE,
            "no --scope given: rendering against the synthetic test scope",
            Span::file_start(id),
        ));
        Some(Scope::test())
    };
    let request = RenderRequest {
        blueprint,
        repo,
        scope,
    };
    // Another blueprint's problems do not stop this one's render.
    catalogue.set_aside_others(
        Some(request.blueprint_name().unwrap_or_default()),
        &mut session.diagnostics,
    );
    Ok(session.finish(|session| {
        let rendered = session.render(&catalogue, &request)?;
        if !args.explain {
            return session.write_document(&rendered.node, format);
        }
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
    }))
}

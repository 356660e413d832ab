//! `strata capabilities check|render|list|schema`: the dialect's verbs on
//! the command line ([`strata_dialect::Describe::command`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, FromArgMatches as _, Subcommand as _, ValueEnum};
use strata_dialect::{DocumentFormat, Done, Expect, Invocation, Session, Usage};
use strata_syntax::emit::{to_json_array, to_yaml_stream};
use strata_syntax::{Diagnostic, Node, Value};

use crate::{
    BuildOptions, Definitions, Handler, Package, PassThroughTrait, Registry, RenderRequest,
    Rendered, Rendering, Settings, Supplied,
};

// The verbs; the `about` of the subcommand is set where it is built,
// as a doc comment here would replace it.
#[derive(Debug, clap::Subcommand)]
enum CapabilitiesCommand {
    /// Validate a cluster profile, the definitions and, with a package, its Application.
    Check(CheckArgs),
    /// Print the effective cluster profile and, with a package, the effective Application.
    Render(CheckArgs),
    /// Build the Kubernetes objects of an Application, as Kure's `kurel build` writes them.
    Build(BuildArgs),
    /// List every handler (built-in and custom) and every custom capability's definition.
    List(ListArgs),
    /// Print the JSON Schema of a profile, a definition, an Application or a rendering.
    Schema(SchemaArgs),
}

/// `list` arguments.
#[derive(Debug, Args)]
struct ListArgs {
    /// The Application file or package folder, whose `definitions/` are listed too.
    #[arg(value_name = "APP")]
    package: Option<PathBuf>,
    /// A file of `CapabilityDefinition` documents (repeatable).
    #[arg(long = "capability-def", value_name = "FILE")]
    capability_defs: Vec<String>,
    /// A pass-through trait handler for a custom capability (repeatable).
    #[arg(long = "custom-trait", value_name = "TYPE")]
    custom_traits: Vec<String>,
}

/// `check` and `render` arguments.
#[derive(Debug, Args)]
struct CheckArgs {
    /// The Application file, or the package folder holding `app.yaml` (with `kurel.yaml` and `definitions/` beside it).
    #[arg(value_name = "APP")]
    package: Option<PathBuf>,
    /// A YAML file of parameter values (a mapping), for a package with `kurel.yaml`.
    #[arg(long, value_name = "FILE")]
    values: Option<String>,
    /// A parameter value, coerced to the parameter's declared type (repeatable; wins over `--values`).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// The cluster profile (`cluster.yaml`; `-` reads standard input).
    #[arg(long, value_name = "FILE")]
    profile: String,
    /// A file of `CapabilityDefinition` documents (repeatable), before the package's own.
    #[arg(long = "capability-def", value_name = "FILE")]
    capability_defs: Vec<String>,
    /// Register a pass-through trait handler for a custom capability (repeatable).
    #[arg(long = "custom-trait", value_name = "TYPE")]
    custom_traits: Vec<String>,
    /// A used custom capability without a definition is an error, not a warning.
    #[arg(long)]
    strict_capabilities: bool,
}

/// `build` arguments.
#[derive(Debug, Args)]
struct BuildArgs {
    #[command(flatten)]
    check: CheckArgs,
    /// The namespace of every namespaced object (else the Application's, else `default`).
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    namespace: Option<String>,
    /// Write the objects to `DIR/<application name>.yaml` instead of standard output.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Write the fixed output where Kure's is wrong (claim names, …; the manual lists each), instead of Kure's output and a warning.
    #[arg(long)]
    fix_kure_bugs: bool,
}

/// `schema` arguments.
#[derive(Debug, Args)]
struct SchemaArgs {
    /// Which document's schema.
    #[arg(value_enum)]
    kind: SchemaKind,
    /// With `rendering`: the capability-aware trait type; with `component`: the component type.
    #[arg(value_name = "TYPE")]
    trait_type: Option<String>,
}

/// The schemas `strata capabilities schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SchemaKind {
    /// A `ClusterProfile`.
    Profile,
    /// A `CapabilityDefinition`.
    Definition,
    /// An `Application`.
    Application,
    /// The rendering keys of a capability-aware built-in trait.
    Rendering,
    /// The properties `capabilities build` reads of a built-in component type.
    Component,
}

/// `strata capabilities`.
pub(crate) fn command() -> clap::Command {
    CapabilitiesCommand::augment_subcommands(
        clap::Command::new("capabilities")
            .about("Capabilities: cluster profiles, capability definitions and packages, compatible with Kure's launcher")
            .subcommand_required(true),
    )
}

/// Runs the verb of `matches`.
pub(crate) fn run(matches: &clap::ArgMatches, invocation: Invocation) -> Result<Done, Usage> {
    let command =
        CapabilitiesCommand::from_arg_matches(matches).map_err(|error| Usage(error.to_string()))?;
    invocation.refuse_dot()?;
    let mut session = Session::new(invocation);
    match command {
        CapabilitiesCommand::Check(args) => {
            let settings = args.settings(invocation.strict)?;
            check(&mut session, &args, settings);
            Ok(session.finish(|_| None))
        }
        CapabilitiesCommand::Render(args) => {
            let format = session.document_format(DocumentFormat::Yaml)?;
            let settings = args.settings(invocation.strict)?;
            let rendered = check(&mut session, &args, settings);
            Ok(session.finish(|session| {
                let rendered = rendered?;
                let documents: Vec<Node> = std::iter::once(rendered.profile.tree)
                    .chain(rendered.application)
                    .collect();
                match format {
                    DocumentFormat::Yaml => Some(to_yaml_stream(&documents)),
                    DocumentFormat::Json => to_json_array(&documents)
                        .map_err(|problem| session.diagnostics.push(problem))
                        .ok(),
                }
            }))
        }
        CapabilitiesCommand::Build(args) => build(session, &args),
        CapabilitiesCommand::List(args) => list(session, &args),
        CapabilitiesCommand::Schema(args) => schema(session, &args),
    }
}

/// Checks the package, then builds its objects: a YAML stream as Kure
/// writes it (or a JSON array with `-o json`) on standard output, or one
/// file in `--out-dir`.
fn build(mut session: Session, args: &BuildArgs) -> Result<Done, Usage> {
    let format = session.document_format(DocumentFormat::Yaml)?;
    if args.check.package.is_none() {
        return Err(Usage(
            "`capabilities build` takes the Application file or the package folder".to_owned(),
        ));
    }
    let settings = args.check.settings(session.invocation.strict)?;
    let options = BuildOptions {
        registry: settings.registry.clone(),
        namespace: args.namespace.clone(),
        fix_kure_bugs: args.fix_kure_bugs,
    };
    let rendered = check(&mut session, &args.check, settings);
    let manifests = rendered
        .and_then(|rendered| crate::build(&rendered, &options).report(&mut session.diagnostics));
    Ok(session.finish(|session| {
        let manifests = manifests?;
        let text = match format {
            DocumentFormat::Yaml => manifests.to_yaml(),
            DocumentFormat::Json => {
                let mut text = serde_json::to_string_pretty(&manifests.objects).ok()?;
                text.push('\n');
                text
            }
        };
        let Some(folder) = &args.out_dir else {
            return Some(text);
        };
        let extension = match format {
            DocumentFormat::Yaml => "yaml",
            DocumentFormat::Json => "json",
        };
        let file = folder.join(format!("{}.{extension}", manifests.name));
        if let Err(error) = strata_fs::write_atomically(&file, text.as_bytes()) {
            let span = strata_dialect::command_line(
                &mut session.db,
                "--out-dir",
                &folder.display().to_string(),
            );
            session.diagnostics.push(error.diagnostic(span));
        }
        None
    }))
}

/// The handlers with their kind, whether they take a binding and their
/// rendering keys; then the definitions, with the file and line of each.
fn list(mut session: Session, args: &ListArgs) -> Result<Done, Usage> {
    let format = session.document_format(DocumentFormat::Yaml)?;
    let settings = Settings {
        registry: registry(&args.custom_traits)?,
        ..Settings::default()
    };
    let package = match &args.package {
        Some(app) => open(&mut session, app, settings),
        None => Some(Package::without_files(settings)),
    };
    let Some(package) = package else {
        return Ok(session.finish(|_| None));
    };
    let documents = definition_files(&mut session, &args.capability_defs);
    let definitions = package
        .declared(&documents)
        .report(&mut session.diagnostics);
    let mut entries: Vec<serde_json::Value> = package
        .registry()
        .iter()
        .map(|handler| {
            let keys = handler.rendering().map(Rendering::keys).unwrap_or_default();
            serde_json::json!({
                "type": handler.type_name(),
                "kind": handler.kind().name(),
                "builtin": Registry::is_builtin(handler.type_name()),
                "capabilityAware": handler.capability_aware(),
                "capabilityRequired": handler.capability_required(),
                "rendering": keys,
            })
        })
        .collect();
    for (name, defined) in definitions.iter().flat_map(Definitions::iter) {
        let (file, at) = session.db.locate(defined.at);
        let keys: Vec<&String> = defined
            .definition
            .spec
            .rendering
            .properties
            .keys()
            .collect();
        entries.push(serde_json::json!({
            "type": name,
            "kind": "definition",
            "rendering": keys,
            "definedIn": format!("{file}:{}", at.line),
        }));
    }
    let value = serde_json::Value::Array(entries);
    Ok(session.finish(|session| session.write_value(&value, format)))
}

/// The built-in handlers and a pass-through handler for each custom trait;
/// one that shadows a handler is a usage error.
fn registry(custom_traits: &[String]) -> Result<Registry, Usage> {
    let mut registry = Registry::builtin();
    for name in custom_traits {
        registry
            .register(Arc::new(PassThroughTrait::new(name.clone())))
            .map_err(|error| Usage(format!("`--custom-trait {name}`: {error}")))?;
    }
    Ok(registry)
}

impl CheckArgs {
    /// The handlers and flags; `strict` (the global `--strict`) makes an
    /// unknown property of a built-in trait an error.
    fn settings(&self, strict: bool) -> Result<Settings, Usage> {
        Ok(Settings {
            registry: registry(&self.custom_traits)?,
            strict_capabilities: self.strict_capabilities,
            strict_properties: strict,
            ..Settings::default()
        })
    }
}

/// Opens the package (when given) and checks it against the profile with
/// the parameter values given.
fn check(session: &mut Session, args: &CheckArgs, settings: Settings) -> Option<Rendered> {
    let package = match &args.package {
        Some(app) => open(session, app, settings)?,
        None => Package::without_files(settings),
    };
    let mut supplied = Supplied::default();
    if let Some(file) = &args.values
        && let Some(document) = session
            .read(file, Expect::AtMostOne)
            .report(&mut session.diagnostics)
            .and_then(strata_dialect::Read::into_document)
        && let Err(problem) = supplied.add_file(&document)
    {
        session.diagnostics.push(problem);
    }
    for assignment in &args.set {
        let span = strata_dialect::command_line(&mut session.db, "--set", assignment);
        let Some((name, value)) = assignment.split_once('=') else {
            session.diagnostics.push(Diagnostic::error(
                crate::codes::PARAMETER,
                format!("`--set {assignment}` is not NAME=VALUE"),
                span,
            ));
            continue;
        };
        supplied.values.push((
            name.to_owned(),
            Node::new(Value::String(value.to_owned()), span),
        ));
    }
    let definitions = definition_files(session, &args.capability_defs);
    let profile = session
        .read(&args.profile, crate::package::of_kind("ClusterProfile"))
        .report(&mut session.diagnostics)?
        .into_document()?;
    let request = RenderRequest {
        profile,
        definitions,
        supplied,
    };
    session.render(&package, &request)
}

/// Opens `app`: a package folder, or an Application file (its folder is
/// the package's, as Kure's launcher takes either).
fn open(session: &mut Session, app: &Path, mut settings: Settings) -> Option<Package> {
    if app.is_dir() {
        return session.open::<Package>(app, settings);
    }
    let folder = app
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Some(name) = app.file_name() {
        settings.app_file = PathBuf::from(name);
    }
    session.open::<Package>(folder, settings)
}

/// The documents of each `--capability-def` file; a file that does not
/// parse contributes none, as a package's own definition files.
fn definition_files(session: &mut Session, files: &[String]) -> Vec<Vec<Node>> {
    files
        .iter()
        .filter_map(|file| {
            session
                .read(file, Expect::All)
                .valid()
                .report(&mut session.diagnostics)
        })
        .map(|read| read.documents)
        .collect()
}

fn schema(session: Session, args: &SchemaArgs) -> Result<Done, Usage> {
    let format = session.document_format(DocumentFormat::Json)?;
    let registry = Registry::builtin();
    let schema = match (args.kind, &args.trait_type) {
        (SchemaKind::Profile, None) => crate::profile::profile_schema(),
        (SchemaKind::Definition, None) => crate::definitions::definition_schema(),
        (SchemaKind::Application, None) => crate::application::application_schema(),
        (SchemaKind::Rendering, Some(name)) => {
            let Some(rendering) = registry.get(name).and_then(|handler| handler.rendering()) else {
                let known: Vec<&str> = registry
                    .iter()
                    .filter(|handler| handler.rendering().is_some())
                    .map(Handler::type_name)
                    .collect();
                return Err(Usage(format!(
                    "`{name}` has no rendering schema; the capability-aware traits are: {}",
                    known.join(", ")
                )));
            };
            rendering.schema()
        }
        (SchemaKind::Component, Some(name)) => {
            let Some(schema) = crate::component_schema(name) else {
                return Err(Usage(format!(
                    "`{name}` has no property schema; the component types with one are: webservice, worker, cronjob, daemonset, statefulset, postgresql"
                )));
            };
            schema
        }
        (SchemaKind::Component, None) => {
            return Err(Usage(
                "`schema component` takes the component type (`schema component webservice`)"
                    .to_owned(),
            ));
        }
        (SchemaKind::Rendering, None) => {
            return Err(Usage(
                "`schema rendering` takes the trait type (`schema rendering expose`)".to_owned(),
            ));
        }
        (_, Some(_)) => {
            return Err(Usage(
                "only `schema rendering` and `schema component` take a type".to_owned(),
            ));
        }
    };
    Ok(session.finish(|session| session.write_value(schema, format)))
}

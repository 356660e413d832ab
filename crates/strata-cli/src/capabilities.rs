//! `strata capabilities check|render|schema`: Kure launcher cluster profiles,
//! capability definitions and packages.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand, ValueEnum};
use strata_capabilities::{Package, PassThroughTrait, Registry, RenderRequest, Rendered, Settings};
use strata_syntax::Node;
use strata_syntax::emit::{to_json_array, to_yaml_stream};

use crate::session::Session;
use crate::{GlobalArgs, OutputFormat};

/// Capabilities: cluster profiles, capability definitions and packages.
#[derive(Debug, Subcommand)]
pub(crate) enum CapabilitiesCommand {
    /// Validate a cluster profile, the definitions and, with a package, its Application.
    Check(CheckArgs),
    /// Print the effective cluster profile and, with a package, the effective Application.
    Render(CheckArgs),
    /// List every handler (built-in and custom) and every custom capability's definition.
    List(ListArgs),
    /// Print the JSON Schema of a profile, a definition, an Application or a rendering.
    Schema(SchemaArgs),
}

/// `list` arguments.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The package folder, whose `definitions/` are listed too.
    #[arg(value_name = "PACKAGE")]
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
pub(crate) struct CheckArgs {
    /// The package folder (with `app.yaml` and `definitions/`).
    #[arg(value_name = "PACKAGE")]
    package: Option<PathBuf>,
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

/// `schema` arguments.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// Which document's schema.
    #[arg(value_enum)]
    kind: SchemaKind,
    /// With `rendering`: the capability-aware trait type.
    #[arg(value_name = "TYPE")]
    trait_type: Option<String>,
}

/// The schemas `strata capabilities schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SchemaKind {
    /// A `ClusterProfile`.
    Profile,
    /// A `CapabilityDefinition`.
    Definition,
    /// An `Application`.
    Application,
    /// The rendering keys of a capability-aware built-in trait.
    Rendering,
}

pub(crate) fn run(global: &GlobalArgs, command: &CapabilitiesCommand) -> ExitCode {
    match command {
        CapabilitiesCommand::Check(args) => {
            let Some(settings) = args.settings(global.strict) else {
                return ExitCode::from(2);
            };
            let mut session = Session::new(global);
            check(&mut session, args, settings);
            session.finish(|_| None)
        }
        CapabilitiesCommand::Render(args) => {
            let Some(settings) = args.settings(global.strict) else {
                return ExitCode::from(2);
            };
            let mut session = Session::new(global);
            let rendered = check(&mut session, args, settings);
            session.finish(|session| {
                let rendered = rendered?;
                let documents: Vec<Node> = std::iter::once(rendered.profile.tree)
                    .chain(rendered.application)
                    .collect();
                match global.output(OutputFormat::Yaml) {
                    OutputFormat::Yaml => Some(to_yaml_stream(&documents)),
                    OutputFormat::Json => to_json_array(&documents)
                        .map_err(|problem| session.diagnostics.push(problem))
                        .ok(),
                }
            })
        }
        CapabilitiesCommand::List(args) => list(global, args),
        CapabilitiesCommand::Schema(args) => schema(global, args),
    }
}

/// The handlers with their kind, whether they take a binding and their
/// rendering keys; then the definitions, with the file and line of each.
fn list(global: &GlobalArgs, args: &ListArgs) -> ExitCode {
    let Some(registry) = registry(&args.custom_traits) else {
        return ExitCode::from(2);
    };
    let settings = Settings {
        registry,
        ..Settings::default()
    };
    let mut session = Session::new(global);
    let package = match &args.package {
        Some(dir) => session.open::<Package>(dir, settings),
        None => Some(Package::without_files(settings)),
    };
    let Some(package) = package else {
        return session.finish(|_| None);
    };
    let documents = definition_files(&mut session, &args.capability_defs);
    let definitions = package
        .declared(&documents)
        .report(&mut session.diagnostics);
    let mut entries: Vec<serde_json::Value> = package
        .registry()
        .iter()
        .map(|handler| {
            let keys = handler
                .rendering()
                .map(strata_capabilities::Rendering::keys)
                .unwrap_or_default();
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
    for (name, defined) in definitions
        .iter()
        .flat_map(strata_capabilities::Definitions::iter)
    {
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
    session.finish(|session| crate::write_value(session, &value, global.output(OutputFormat::Yaml)))
}

/// The built-in handlers and a pass-through handler for each custom trait;
/// one that shadows a handler is a usage error, reported.
fn registry(custom_traits: &[String]) -> Option<Registry> {
    let mut registry = Registry::builtin();
    for name in custom_traits {
        if let Err(error) = registry.register(Arc::new(PassThroughTrait::new(name.clone()))) {
            eprintln!("error: `--custom-trait {name}`: {error}");
            return None;
        }
    }
    Some(registry)
}

impl CheckArgs {
    /// The handlers and flags; a custom trait that shadows a built-in is a
    /// usage error, reported.
    /// The settings; `strict` (the global `--strict`) makes an unknown
    /// property of a built-in trait an error.
    fn settings(&self, strict: bool) -> Option<Settings> {
        Some(Settings {
            registry: registry(&self.custom_traits)?,
            strict_capabilities: self.strict_capabilities,
            strict_properties: strict,
        })
    }
}

/// Opens the package (when given) and checks it against the profile.
fn check(session: &mut Session<'_>, args: &CheckArgs, settings: Settings) -> Option<Rendered> {
    let package = match &args.package {
        Some(dir) => session.open::<Package>(dir, settings)?,
        None => Package::without_files(settings),
    };
    let definitions = definition_files(session, &args.capability_defs);
    let (file, documents) = session.load_source(&args.profile)?;
    let profile = strata_capabilities::document_of_kind(documents, "ClusterProfile", file)
        .report(&mut session.diagnostics)?;
    let request = RenderRequest {
        profile,
        definitions,
    };
    session.render(&package, &request)
}

/// The documents of each `--capability-def` file; a file that does not
/// parse contributes none, as a package's own definition files.
fn definition_files(session: &mut Session<'_>, files: &[String]) -> Vec<Vec<Node>> {
    files
        .iter()
        .filter_map(|file| session.load_source(file))
        .map(|(_, documents)| documents)
        .collect()
}

fn schema(global: &GlobalArgs, args: &SchemaArgs) -> ExitCode {
    let schema = match (args.kind, &args.trait_type) {
        (SchemaKind::Profile, None) => strata_capabilities::profile_schema().clone(),
        (SchemaKind::Definition, None) => strata_capabilities::definition_schema().clone(),
        (SchemaKind::Application, None) => strata_capabilities::application_schema().clone(),
        (SchemaKind::Rendering, Some(name)) => {
            let registry = Registry::builtin();
            let Some(rendering) = registry.get(name).and_then(|handler| handler.rendering()) else {
                let known: Vec<&str> = registry
                    .iter()
                    .filter(|handler| handler.rendering().is_some())
                    .map(strata_capabilities::Handler::type_name)
                    .collect();
                eprintln!(
                    "error: `{name}` has no rendering schema; the capability-aware traits are: {}",
                    known.join(", ")
                );
                return ExitCode::from(2);
            };
            rendering.schema().clone()
        }
        (SchemaKind::Rendering, None) => {
            eprintln!("error: `schema rendering` takes the trait type (`schema rendering expose`)");
            return ExitCode::from(2);
        }
        (_, Some(_)) => {
            eprintln!("error: only `schema rendering` takes a trait type");
            return ExitCode::from(2);
        }
    };
    let session = Session::new(global);
    session
        .finish(|session| crate::write_value(session, &schema, global.output(OutputFormat::Json)))
}

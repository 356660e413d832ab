//! `strata spec check|render|graph|plan|deploy|destroy|drift|state|eval|functions|schema`: the
//! dialect's verbs on the command line
//! ([`strata_dialect::Describe::command`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::{Args, FromArgMatches as _, Subcommand as _};
use strata_dialect::{DocumentFormat, Done, Expect, Invocation, OutputFormat, Session, Usage};
use strata_syntax::{Diagnostic, Span};

use crate::{Given, GivenValue, Inputs, Origin, RenderRequest, Settings, Spec};

mod deploy;

// The verbs; the `about` of the subcommand is set where it is built,
// as a doc comment here would replace it.
#[derive(Debug, clap::Subcommand)]
enum SpecCommand {
    /// Validate a blueprint and, with variable values, the values against their definitions.
    Check(CheckArgs),
    /// Resolve a blueprint: children, values, `each`, conditions, every known field, exports.
    Render(RenderArgs),
    /// The links and deployment order of a resolved blueprint (`-o dot` for Graphviz, or `-o json`).
    Graph(ResolveArgs),
    /// The changes from a previous deployment's state to the resolved blueprint.
    Plan(PlanArgs),
    /// Apply the plan through providers, recording every change in a state store.
    Deploy(deploy::DeployArgs),
    /// Delete every resource an instance's state records, dependents first.
    Destroy(deploy::InstanceArgs),
    /// Read every recorded resource back and name what differs (exit 2).
    Drift(deploy::DriftArgs),
    /// Show, export, import or unlock an instance's state.
    #[command(subcommand)]
    State(deploy::StateCommand),
    /// Evaluate one field text (with or without `${..}`) and print its value.
    Eval(EvalArgs),
    /// List the core functions with their signatures.
    Functions,
    /// Print the JSON Schema of a blueprint file.
    Schema,
}

/// Variable values given on the command line.
#[derive(Debug, Args)]
struct VariableArgs {
    /// A variable's value, read by its declared type (repeatable; the last wins).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    vars: Vec<String>,
    /// A YAML or JSON file mapping variable names to values (`--var` wins over it).
    #[arg(long = "vars", value_name = "FILE")]
    vars_file: Option<String>,
}

/// `check` arguments.
#[derive(Debug, Args)]
struct CheckArgs {
    /// The blueprint (YAML, or JSON by extension; `-` reads standard input as YAML).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    variables: VariableArgs,
}

/// What resolving a blueprint takes (`render`, `graph`).
#[derive(Debug, Args)]
struct ResolveArgs {
    /// The blueprint (YAML, or JSON by extension).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    variables: VariableArgs,
    /// A YAML or JSON file of data source fields: data source name to export key to value.
    #[arg(long, value_name = "FILE")]
    datasources: Option<String>,
    /// The folder includes are confined to (default: the blueprint's folder; the working directory for `-`; never `/` unless given).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// The most evaluation steps a render may take (each expression node, function application and copied value node is a step).
    #[arg(long, value_name = "N", default_value_t = strata_subst::Steps::DEFAULT_LIMIT)]
    max_steps: u64,
    /// A local mirror of remote includes: `sourceType: T`, `path: P` reads `DIR/T/P`.
    #[arg(long, value_name = "DIR")]
    child_source: Option<PathBuf>,
}

/// `render` arguments.
#[derive(Debug, Args)]
struct RenderArgs {
    #[command(flatten)]
    resolve: ResolveArgs,
    /// Write secret variables and values, and what they feed, instead of `********`.
    #[arg(long)]
    show_secrets: bool,
}

/// `plan` arguments.
#[derive(Debug, Args)]
struct PlanArgs {
    #[command(flatten)]
    resolve: ResolveArgs,
    /// The state of the previous deployment: a JSON state file, or a store (`sqlite:PATH`, with `--instance`); without one, everything is created.
    #[arg(long, value_name = "STATE")]
    state: Option<String>,
    /// The instance whose state a store holds.
    #[arg(long, value_name = "NAME")]
    instance: Option<String>,
    /// Exit 2 when the plan has changes (0 when it has none), as terraform does.
    #[arg(long)]
    detailed_exitcode: bool,
}

/// `eval` arguments.
#[derive(Debug, Args)]
struct EvalArgs {
    /// The text to evaluate: `${..}` substitutions, literal text, or both.
    #[arg(value_name = "TEXT")]
    text: String,
    /// The blueprint whose variables (typed by their definitions) and values the text sees.
    #[arg(long, value_name = "FILE")]
    blueprint: Option<PathBuf>,
    #[command(flatten)]
    variables: VariableArgs,
    /// Print a value that reads a secret variable or value instead of `********`.
    #[arg(long)]
    show_secrets: bool,
}

/// `strata spec`.
pub(crate) fn command() -> clap::Command {
    SpecCommand::augment_subcommands(
        clap::Command::new("spec")
            .about("Spec: Blueprint Specification v2023-04-20 blueprints (Bluelink's) and their `${..}` language")
            .subcommand_required(true),
    )
}

/// Runs the verb of `matches`.
pub(crate) fn run(matches: &clap::ArgMatches, invocation: Invocation) -> Result<Done, Usage> {
    let command =
        SpecCommand::from_arg_matches(matches).map_err(|error| Usage(error.to_string()))?;
    if !matches!(command, SpecCommand::Graph(_)) {
        invocation.refuse_dot()?;
    }
    let session = Session::new(invocation);
    match command {
        SpecCommand::Check(args) => Ok(check(session, &args)),
        SpecCommand::Render(args) => render(session, &args),
        SpecCommand::Graph(args) => Ok(graph(session, &args)),
        SpecCommand::Plan(args) => plan(session, &args),
        SpecCommand::Deploy(args) => Ok(deploy::deploy(session, &args)),
        SpecCommand::Destroy(args) => Ok(deploy::destroy(session, &args)),
        SpecCommand::Drift(args) => Ok(deploy::drift(session, &args)),
        SpecCommand::State(command) => Ok(deploy::state(session, &command)),
        SpecCommand::Eval(args) => eval(session, &args),
        SpecCommand::Functions => functions(session),
        SpecCommand::Schema => {
            let format = session.document_format(DocumentFormat::Json)?;
            Ok(session.finish(|session| session.write_value(crate::blueprint_schema(), format)))
        }
    }
}

fn check(mut session: Session, args: &CheckArgs) -> Done {
    let Some(spec) = open(&mut session, &args.file, None) else {
        return session.finish(|_| None);
    };
    let given = !args.variables.vars.is_empty() || args.variables.vars_file.is_some();
    let blueprint = spec.loaded().map(|loaded| &loaded.blueprint);
    if given && let Some(inputs) = inputs(&mut session, &args.variables, blueprint) {
        session.render(&spec, &request(inputs, None));
    }
    session.finish(|_| None)
}

fn render(mut session: Session, args: &RenderArgs) -> Result<Done, Usage> {
    let format = session.document_format(DocumentFormat::Yaml)?;
    let resolved = resolve(&mut session, &args.resolve);
    Ok(session.finish(|session| {
        let node = resolved?.1.to_node(args.show_secrets);
        session.write_document(&node, format)
    }))
}

fn graph(mut session: Session, args: &ResolveArgs) -> Done {
    let output = session.invocation.output;
    let graph = resolve(&mut session, args)
        .and_then(|(spec, resolved)| spec.graph(&resolved, &[]).report(&mut session.diagnostics));
    session.finish(|session| {
        let graph = graph?;
        match output {
            None | Some(OutputFormat::Dot) => Some(graph.to_dot()),
            Some(OutputFormat::Json) => session.write_value(&graph.to_json(), DocumentFormat::Json),
            Some(OutputFormat::Yaml) => session.write_value(&graph.to_json(), DocumentFormat::Yaml),
        }
    })
}

fn plan(mut session: Session, args: &PlanArgs) -> Result<Done, Usage> {
    let output = session.invocation.output;
    let format = session.document_format(DocumentFormat::Json)?;
    let providers: [Arc<dyn crate::deploy::ResourceProvider>; 1] =
        [Arc::new(crate::deploy::CoreProvider)];
    // The blueprint is opened first: its sources are the session's first.
    let staged = prepare(&mut session, &args.resolve).and_then(|(spec, request)| {
        let state = match &args.state {
            Some(store) => Some(deploy::state_named(
                &mut session,
                store,
                args.instance.as_deref(),
            )?),
            None => None,
        };
        // What the deployed resources reported is known to the render.
        let mut request = RenderRequest {
            deployed: state
                .as_ref()
                .map(crate::State::deployed)
                .unwrap_or_default(),
            ..request
        };
        let resolved = session.render(&spec, &request)?;
        let graph = spec
            .graph(&resolved, &[])
            .report(&mut session.diagnostics)?;
        let staged = graph
            .plan(&resolved, state.as_ref(), &providers)
            .report(&mut session.diagnostics)?;
        // What reads the state of a resource that changes is known only
        // after the deploy: planned again without those states.
        if !staged.keep_unchanged(&mut request.deployed) {
            return Some(staged);
        }
        let resolved = session.render(&spec, &request)?;
        let graph = spec
            .graph(&resolved, &[])
            .report(&mut session.diagnostics)?;
        graph
            .plan(&resolved, state.as_ref(), &providers)
            .report(&mut session.diagnostics)
    });
    let changes = staged
        .as_ref()
        .is_some_and(crate::deploy::Plan::has_changes);
    let done = session.finish(|session| {
        let staged = staged?;
        if output.is_none() {
            return Some(staged.to_text());
        }
        session.write_value(&staged.to_json(), format)
    });
    Ok(if args.detailed_exitcode && changes {
        done.succeeding_with(2)
    } else {
        done
    })
}

/// Opens and resolves the blueprint of `args`; `None` (reported) when
/// something fails.
fn resolve(session: &mut Session, args: &ResolveArgs) -> Option<(Spec, crate::ResolvedBlueprint)> {
    let (spec, request) = prepare(session, args)?;
    let resolved = session.render(&spec, &request)?;
    Some((spec, resolved))
}

/// Opens the blueprint of `args` and makes the request that resolves it;
/// `None` (reported) when something fails.
fn prepare(session: &mut Session, args: &ResolveArgs) -> Option<(Spec, RenderRequest)> {
    if args.file == Path::new("-") {
        let source = session.db.add("<stdin>", "");
        session.diagnostics.push(Diagnostic::error(
            crate::codes::INCLUDE,
            "a blueprint to resolve is read from a file: its includes are read from its folder",
            Span::file_start(source),
        ));
        return None;
    }
    let spec = open(session, &args.file, args.root.as_deref())?;
    if session.has_errors() {
        return None;
    }
    let blueprint = spec.loaded().map(|loaded| &loaded.blueprint);
    let inputs = inputs(session, &args.variables, blueprint)?;
    let datasources = match &args.datasources {
        Some(file) => Some(
            session
                .read(file, Expect::One)
                .report(&mut session.diagnostics)?
                .into_document()?,
        ),
        None => None,
    };
    let child_source = match &args.child_source {
        Some(dir) => match crate::MirrorSource::new(dir, session.limits().max_bytes) {
            Ok(mirror) => {
                Some(std::sync::Arc::new(mirror) as std::sync::Arc<dyn crate::ChildSource>)
            }
            Err(error) => {
                let span = strata_dialect::command_line(
                    &mut session.db,
                    "--child-source",
                    &dir.display().to_string(),
                );
                session.diagnostics.push(error.diagnostic(span));
                return None;
            }
        },
        None => None,
    };
    let request = RenderRequest {
        max_steps: Some(args.max_steps),
        child_source,
        ..request(inputs, datasources)
    };
    Some((spec, request))
}

/// A render request of the given values, at the working directory and the
/// current time, within the default evaluation budget.
fn request(inputs: Inputs, datasources: Option<strata_syntax::Node>) -> RenderRequest {
    RenderRequest {
        inputs,
        datasources,
        cwd: working_directory(),
        now_unix: now_unix(),
        ..RenderRequest::default()
    }
}

fn working_directory() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|elapsed| i64::try_from(elapsed.as_secs()).ok())
        .unwrap_or_default()
}

/// Opens the blueprint `file`: standard input for `-` (includes then read
/// relative to the working directory), else below a root that confines
/// its includes: `root`, or the blueprint's folder. A root is never `/`
/// unless given: from `/` (a container's default working directory), a
/// blueprint could otherwise include `/proc/self/environ`.
fn open(session: &mut Session, file: &Path, root: Option<&Path>) -> Option<Spec> {
    let cwd = working_directory();
    let absolute = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| cwd.join(path));
    let here = absolute(&cwd);
    let implicit = root.is_none();
    if file == Path::new("-") {
        if implicit && here.parent().is_none() {
            return refuse_root(session, file, &here, "is read from `/`");
        }
        return session.open_command_line::<Spec>(Settings {
            path: file.to_path_buf(),
            root: Some(here),
        });
    }
    let blueprint = absolute(file);
    let root = match root {
        Some(root) => absolute(root),
        None => blueprint
            .parent()
            .map_or_else(|| here.clone(), Path::to_path_buf),
    };
    if implicit && root.parent().is_none() {
        return refuse_root(session, file, &root, "lies in `/`");
    }
    let Ok(path) = blueprint.strip_prefix(&root) else {
        // The root as given relative to the working directory, when in it.
        let shown = match root.strip_prefix(&here) {
            Ok(inside) if inside.as_os_str().is_empty() => Path::new("."),
            Ok(inside) => inside,
            Err(_) => root.as_path(),
        };
        let source = session.db.add(file.display().to_string(), "");
        session.diagnostics.push(Diagnostic::error(
            strata_fs::codes::OUTSIDE_ROOT,
            format!(
                "the blueprint lies outside the root `{}` its includes are confined to",
                shown.display()
            ),
            Span::file_start(source),
        ));
        return None;
    };
    let settings = Settings {
        path: path.to_path_buf(),
        root: Some(root.clone()),
    };
    // Files show relative to the working directory when they lie in it.
    let shown = root
        .strip_prefix(&here)
        .map_or(root.as_path(), |inside| inside);
    session.open::<Spec>(shown, settings)
}

/// Refuses to take `/` as the root of `file`'s includes without being
/// told: the blueprint `where_` (in `/`, or read from there).
fn refuse_root(session: &mut Session, file: &Path, root: &Path, where_: &str) -> Option<Spec> {
    let source = session.db.add(file.display().to_string(), "");
    session.diagnostics.push(
        Diagnostic::error(
            strata_fs::codes::OUTSIDE_ROOT,
            format!(
                "the blueprint `{}` {where_}, and `{}` is never the root its includes are read below unless `--root` names it",
                file.display(),
                root.display()
            ),
            Span::file_start(source),
        )
        .with_help("run from the blueprint's folder, or give `--root` the folder its includes may read"),
    );
    None
}

/// The values of `--vars` and `--var`, in that order; `None` (reported)
/// when one is malformed.
fn inputs(
    session: &mut Session,
    args: &VariableArgs,
    blueprint: Option<&crate::Blueprint>,
) -> Option<Inputs> {
    let mut inputs = Inputs::default();
    if let Some(file) = &args.vars_file {
        let document = session
            .read(file, Expect::One)
            .report(&mut session.diagnostics)?
            .into_document()?;
        inputs
            .add_file(&document)
            .report(&mut session.diagnostics)?;
    }
    for flag in &args.vars {
        // A secret variable's value is registered masked (`name=********`),
        // so no diagnostic quotes it, nor its length; so is the value of a
        // name the blueprint does not define, which may be a secret's name
        // mistyped.
        let Some((name, value)) = flag
            .split_once('=')
            .filter(|(name, _)| !name.trim().is_empty())
        else {
            session.diagnostics.push(Diagnostic::error(
                crate::codes::VARIABLE_INPUT,
                format!("`--var {flag}` must be written `NAME=VALUE`"),
                strata_dialect::command_line(&mut session.db, "--var", flag),
            ));
            continue;
        };
        let secret = blueprint.is_some_and(|blueprint| {
            blueprint
                .variables
                .get(name.trim())
                .is_none_or(|variable| variable.secret)
        });
        let shown = if secret {
            format!("{name}={}", crate::MASK)
        } else {
            flag.clone()
        };
        // The value's span, after `NAME=` (the text shown masked when secret).
        let written = strata_dialect::command_line(&mut session.db, "--var", &shown);
        let range = written.range();
        let value_span = Span::new(written.source, range.start + name.len() + 1, range.end);
        inputs.given.push(Given {
            name: name.trim().to_owned(),
            value: GivenValue::Text(value.to_owned()),
            span: value_span,
            name_span: Span::new(written.source, range.start, range.start + name.len()),
            origin: Origin::Flag,
            secret: false,
        });
    }
    Some(inputs)
}

fn eval(mut session: Session, args: &EvalArgs) -> Result<Done, Usage> {
    let format = session.document_format(DocumentFormat::Yaml)?;
    let spec = match &args.blueprint {
        Some(path) => {
            let spec = open(&mut session, path, None);
            if session.has_errors() {
                return Ok(session.finish(|_| None));
            }
            spec
        }
        None => None,
    };
    let blueprint = spec
        .as_ref()
        .and_then(Spec::loaded)
        .map(|loaded| &loaded.blueprint);
    let Some(inputs) = inputs(&mut session, &args.variables, blueprint) else {
        return Ok(session.finish(|_| None));
    };
    let evaluated = crate::text::evaluate_text(blueprint, &args.text, &inputs, &mut session.db)
        .report(&mut session.diagnostics);
    Ok(session.finish(|session| {
        let evaluated = evaluated?;
        let json = if evaluated.reads_secret && !args.show_secrets {
            serde_json::Value::String(crate::MASK.to_owned())
        } else {
            evaluated.value.to_json()?
        };
        session.write_value(&json, format)
    }))
}

/// Every core function: `signature  summary` lines, or a list with `-o`.
fn functions(session: Session) -> Result<Done, Usage> {
    let all = strata_subst::functions::all();
    if session.invocation.output.is_none() {
        return Ok(session.finish(|_| {
            let width = all
                .iter()
                .map(|def| def.signature().len())
                .max()
                .unwrap_or_default();
            let mut text = String::new();
            for def in all {
                let _ = writeln!(text, "{:width$}  {}", def.signature(), def.summary);
            }
            Some(text)
        }));
    }
    let format = session.document_format(DocumentFormat::Json)?;
    let list: Vec<serde_json::Value> = all
        .iter()
        .map(|def| {
            serde_json::json!({
                "name": def.name,
                "signature": def.signature(),
                "returns": def.returns.to_string(),
                "summary": def.summary,
            })
        })
        .collect();
    Ok(session.finish(|session| session.write_value(&serde_json::Value::Array(list), format)))
}

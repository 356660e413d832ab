//! `strata components render|list|check|schema`: qbec applications.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::TypedValueParser;
use clap::{Args, Subcommand};
use strata_components::{Application, Input, Inputs, RenderRequest};
use strata_fs::Files as _;
use strata_syntax::emit::StreamFormat;

use crate::session::Session;
use crate::{GlobalArgs, OutputFormat};

/// Components: Jsonnet, JSON and YAML evaluated into Kubernetes objects.
#[derive(Debug, Subcommand)]
pub(crate) enum ComponentsCommand {
    /// Evaluate an environment's components into a stream of objects.
    Render(RenderArgs),
    /// List the components, their files, and whether an environment includes them.
    List(ListArgs),
    /// Evaluate every environment (or the named ones); exit 0 or 1.
    Check(CheckArgs),
    /// Print the JSON Schema of `qbec.yaml`.
    Schema,
}

/// `render` arguments.
#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    /// The application folder (with `qbec.yaml`).
    #[arg(value_name = "APPDIR")]
    dir: PathBuf,
    /// The environment, or `_` for the baseline (`baseProperties`, the components not excluded by default).
    #[arg(long, value_name = "ENV")]
    env: String,
    /// The tag: `qbec.io/tag`, and a namespace suffix with `namespaceTagSuffix`.
    #[arg(long, value_name = "TAG")]
    app_tag: Option<String>,
    /// Only this component (repeatable).
    #[arg(short = 'c', long = "component", value_name = "NAME")]
    components: Vec<String>,
    /// Not this component (repeatable).
    #[arg(short = 'C', long = "exclude-component", value_name = "NAME")]
    exclude_components: Vec<String>,
    /// Only objects of this kind, in any case (repeatable).
    #[arg(short = 'k', long = "kind", value_name = "KIND")]
    kinds: Vec<String>,
    /// Not objects of this kind, in any case (repeatable).
    #[arg(short = 'K', long = "exclude-kind", value_name = "KIND")]
    exclude_kinds: Vec<String>,
    #[command(flatten)]
    vm: VmArgs,
    /// How many components are evaluated at once (0 or less: the default; more than the components: one each), as qbec reads it.
    #[arg(long, value_name = "N", default_value_t = strata_components::DEFAULT_CONCURRENCY,
          allow_negative_numbers = true,
          value_parser = clap::value_parser!(i64).map(concurrency))]
    eval_concurrency: usize,
    /// Set `qbec.io/cleanMode` to `on` and leave qbec's labels and annotation off the objects (`qbec show --clean`).
    #[arg(long)]
    clean: bool,
}

/// `--eval-concurrency` as qbec reads it: zero or less is the default
/// (the workers take no more than the component count themselves).
fn concurrency(given: i64) -> usize {
    usize::try_from(given)
        .ok()
        .filter(|&workers| workers > 0)
        .unwrap_or(strata_components::DEFAULT_CONCURRENCY)
}

/// The variables of the Jsonnet VMs, qbec's way.
#[derive(Debug, Args)]
pub(crate) struct VmArgs {
    /// An external variable as a string (`NAME` alone reads the environment variable NAME).
    #[arg(long = "vm:ext-str", value_name = "NAME=VALUE")]
    ext_str: Vec<String>,
    /// An external variable as Jsonnet code.
    #[arg(long = "vm:ext-code", value_name = "NAME=CODE")]
    ext_code: Vec<String>,
    /// A top-level argument as a string.
    #[arg(long = "vm:tla-str", value_name = "NAME=VALUE")]
    tla_str: Vec<String>,
    /// A top-level argument as Jsonnet code.
    #[arg(long = "vm:tla-code", value_name = "NAME=CODE")]
    tla_code: Vec<String>,
    /// An external variable as a string, the text of a file.
    #[arg(long = "vm:ext-str-file", value_name = "NAME=FILE")]
    ext_str_file: Vec<String>,
    /// An external variable as Jsonnet code, the text of a file.
    #[arg(long = "vm:ext-code-file", value_name = "NAME=FILE")]
    ext_code_file: Vec<String>,
    /// A top-level argument as a string, the text of a file.
    #[arg(long = "vm:tla-str-file", value_name = "NAME=FILE")]
    tla_str_file: Vec<String>,
    /// A top-level argument as Jsonnet code, the text of a file.
    #[arg(long = "vm:tla-code-file", value_name = "NAME=FILE")]
    tla_code_file: Vec<String>,
    /// Require every declared variable and top-level argument on the command line, and refuse undeclared ones (qbec's `--strict-vars`).
    #[arg(long)]
    strict_vars: bool,
    /// A library folder imports search before `libPaths` (repeatable), relative to the application folder and inside it.
    #[arg(long = "vm:jpath", value_name = "DIR")]
    jpath: Vec<String>,
    /// How long evaluation may take before the unfinished components are reported.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = humantime::parse_duration)]
    eval_timeout: std::time::Duration,
}

/// `list` arguments.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The application folder.
    #[arg(value_name = "APPDIR")]
    dir: PathBuf,
    /// Say whether this environment includes each component.
    #[arg(long, value_name = "ENV")]
    env: Option<String>,
}

/// `check` arguments.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The application folder.
    #[arg(value_name = "APPDIR")]
    dir: PathBuf,
    /// An environment to check (repeatable; all when none).
    #[arg(long = "env", value_name = "ENV")]
    envs: Vec<String>,
    #[command(flatten)]
    vm: VmArgs,
}

pub(crate) fn run(global: &GlobalArgs, command: &ComponentsCommand) -> ExitCode {
    match command {
        ComponentsCommand::Render(args) => render(global, args),
        ComponentsCommand::List(args) => list(global, args),
        ComponentsCommand::Check(args) => check(global, args),
        ComponentsCommand::Schema => {
            let session = Session::new(global);
            let schema = strata_components::app_schema().clone();
            session.finish(|session| {
                crate::write_value(session, &schema, global.output(OutputFormat::Json))
            })
        }
    }
}

fn render(global: &GlobalArgs, args: &RenderArgs) -> ExitCode {
    let Some((ext_vars, tla_vars)) = args.vm.inputs(global.max_input_bytes) else {
        return ExitCode::from(2);
    };
    let mut session = Session::new(global);
    let Some(application) = load(&mut session, &args.dir) else {
        return session.finish(|_| None);
    };
    let request = RenderRequest {
        tag: args.app_tag.clone(),
        components: args.components.clone(),
        exclude_components: args.exclude_components.clone(),
        kinds: args.kinds.clone(),
        exclude_kinds: args.exclude_kinds.clone(),
        ext_vars,
        tla_vars,
        jpaths: args.vm.jpath.clone(),
        strict_vars: args.vm.strict_vars,
        concurrency: args.eval_concurrency,
        clean_mode: args.clean,
        format: match global.output(OutputFormat::Yaml) {
            OutputFormat::Json => StreamFormat::Json,
            OutputFormat::Yaml => StreamFormat::Yaml,
        },
        timeout: Some(args.vm.eval_timeout),
        ..RenderRequest::new(&args.env)
    };
    let objects = session.render(&application, &request);
    session.finish(|_| objects.map(|objects| objects.text()))
}

fn list(global: &GlobalArgs, args: &ListArgs) -> ExitCode {
    let mut session = Session::new(global);
    let Some(application) = load(&mut session, &args.dir) else {
        return session.finish(|_| None);
    };
    if let Some(env) = &args.env
        && application.environment(env).is_none()
    {
        // Rendering an unknown environment reports it, with the known ones.
        session.render(&application, &RenderRequest::new(env));
        return session.finish(|_| None);
    }
    let components: Vec<serde_json::Value> = application
        .components
        .values()
        .map(|component| {
            let files: Vec<String> = component
                .files()
                .iter()
                .map(|file| file.display().to_string())
                .collect();
            let mut entry = serde_json::json!({
                "name": component.name,
                "kind": component.kind(),
                "files": files,
            });
            if let Some(env) = &args.env {
                entry["included"] = application.includes(env, &component.name).into();
            }
            entry
        })
        .collect();
    let value = serde_json::Value::Array(components);
    session.finish(|session| crate::write_value(session, &value, global.output(OutputFormat::Yaml)))
}

fn check(global: &GlobalArgs, args: &CheckArgs) -> ExitCode {
    let Some((ext_vars, tla_vars)) = args.vm.inputs(global.max_input_bytes) else {
        return ExitCode::from(2);
    };
    let mut session = Session::new(global);
    let Some(application) = load(&mut session, &args.dir) else {
        return session.finish(|_| None);
    };
    let environments: Vec<String> = if args.envs.is_empty() {
        application.environment_names().map(str::to_owned).collect()
    } else {
        args.envs.clone()
    };
    let request = RenderRequest {
        ext_vars,
        tla_vars,
        jpaths: args.vm.jpath.clone(),
        strict_vars: args.vm.strict_vars,
        timeout: Some(args.vm.eval_timeout),
        ..RenderRequest::new("")
    };
    let problems = application.check_environments(&request, &environments, &mut session.db);
    session.diagnostics.extend(problems);
    session.finish(|_| None)
}

/// Opens the application; its sources become the session's. Nothing is
/// evaluated when loading found an error.
fn load(session: &mut Session<'_>, dir: &Path) -> Option<Application> {
    let application = session.open::<Application>(dir, ());
    if session.has_errors() {
        return None;
    }
    application
}

impl VmArgs {
    /// The external variables and top-level arguments, in the order given
    /// (strings, then code); a malformed one is a usage error, reported;
    /// a `-file` flag's file is read within `limit` bytes.
    fn inputs(&self, limit: usize) -> Option<(Inputs, Inputs)> {
        let parse = |values: &[String], flag: &str, code: bool| -> Option<Inputs> {
            values
                .iter()
                .map(|value| {
                    // qbec reads `NAME` alone from the environment.
                    let given = value
                        .split_once('=')
                        .map(|(name, text)| (name.to_owned(), text.to_owned()))
                        .or_else(|| std::env::var(value).ok().map(|text| (value.clone(), text)));
                    let Some((name, text)) = given else {
                        eprintln!(
                            "error: `{flag} {value}` has no `=VALUE` and no environment variable `{value}` is set"
                        );
                        return None;
                    };
                    if name.is_empty() {
                        eprintln!("error: `{flag} {value}` names no variable");
                        return None;
                    }
                    let input = if code { Input::Code(text) } else { Input::Str(text) };
                    Some((name, input))
                })
                .collect()
        };
        // qbec's `-file` flags: the value is the text of the file named.
        let from_files = |values: &[String], flag: &str, code: bool| -> Option<Inputs> {
            values
                .iter()
                .map(|value| {
                    let Some((name, path)) =
                        value.split_once('=').filter(|(name, _)| !name.is_empty())
                    else {
                        eprintln!("error: `{flag} {value}` must be written `NAME=FILE`");
                        return None;
                    };
                    let text = match strata_fs::PlainFs.read(Path::new(path), limit) {
                        Ok(text) => text,
                        Err(error) => {
                            eprintln!("error: `{flag} {value}`: {error}");
                            return None;
                        }
                    };
                    let input = if code {
                        Input::Code(text)
                    } else {
                        Input::Str(text)
                    };
                    Some((name.to_owned(), input))
                })
                .collect()
        };
        let mut ext = parse(&self.ext_str, "--vm:ext-str", false)?;
        ext.extend(parse(&self.ext_code, "--vm:ext-code", true)?);
        ext.extend(from_files(&self.ext_str_file, "--vm:ext-str-file", false)?);
        ext.extend(from_files(&self.ext_code_file, "--vm:ext-code-file", true)?);
        let mut tla = parse(&self.tla_str, "--vm:tla-str", false)?;
        tla.extend(parse(&self.tla_code, "--vm:tla-code", true)?);
        tla.extend(from_files(&self.tla_str_file, "--vm:tla-str-file", false)?);
        tla.extend(from_files(&self.tla_code_file, "--vm:tla-code-file", true)?);
        Some((ext, tla))
    }
}

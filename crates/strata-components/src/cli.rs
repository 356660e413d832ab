//! `strata components render|list|check|schema`: the dialect's verbs on
//! the command line ([`strata_dialect::Describe::command`]), qbec's flags
//! included (`--vm:ext-str NAME=VALUE`, `--vm:ext-str-file NAME=FILE`, ...:
//! a malformed one is a usage error; a file is read bounded, through
//! `strata-fs`).

use std::path::{Path, PathBuf};

use clap::builder::TypedValueParser;
use clap::{Args, FromArgMatches as _, Subcommand as _};
use strata_dialect::{DocumentFormat, Done, Invocation, Session, Usage};
use strata_syntax::emit::StreamFormat;

use crate::{Application, Input, Inputs, Objects, RenderRequest};

// The verbs; the `about` of the subcommand is set where it is built,
// as a doc comment here would replace it.
#[derive(Debug, clap::Subcommand)]
enum ComponentsCommand {
    /// Evaluate an environment's components into a stream of objects.
    Render(RenderArgs),
    /// List the components, their files, and whether an environment includes them.
    List(ListArgs),
    /// Evaluate every environment (or the named ones); exit 0 or 1.
    Check(CheckArgs),
    /// Evaluate one Jsonnet, JSON or YAML file of the application as a component sees it (`qbec eval`), and print its value.
    Eval(EvalArgs),
    /// Print the JSON Schema of `qbec.yaml`.
    Schema,
}

/// `render` arguments.
#[derive(Debug, Args)]
struct RenderArgs {
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
    #[arg(long, value_name = "N", default_value_t = crate::DEFAULT_CONCURRENCY,
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
        .unwrap_or(crate::DEFAULT_CONCURRENCY)
}

/// The variables of the Jsonnet VMs, qbec's way.
#[derive(Debug, Args)]
struct VmArgs {
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
struct ListArgs {
    /// The application folder.
    #[arg(value_name = "APPDIR")]
    dir: PathBuf,
    /// Say whether this environment includes each component.
    #[arg(long, value_name = "ENV")]
    env: Option<String>,
}

/// `check` arguments.
#[derive(Debug, Args)]
struct CheckArgs {
    /// The application folder.
    #[arg(value_name = "APPDIR")]
    dir: PathBuf,
    /// An environment to check (repeatable; all when none).
    #[arg(long = "env", value_name = "ENV")]
    envs: Vec<String>,
    #[command(flatten)]
    vm: VmArgs,
}

/// `eval` arguments.
#[derive(Debug, Args)]
struct EvalArgs {
    /// The application folder.
    #[arg(value_name = "APPDIR")]
    dir: PathBuf,
    /// The file, relative to the application folder.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The environment whose variables the file sees, or `_`.
    #[arg(long, value_name = "ENV")]
    env: String,
    #[command(flatten)]
    vm: VmArgs,
}

/// `strata components`.
pub(crate) fn command() -> clap::Command {
    ComponentsCommand::augment_subcommands(
        clap::Command::new("components")
            .about("Components: qbec applications (qbec.yaml, Jsonnet, JSON, YAML) rendered into Kubernetes objects, compatible with qbec")
            .subcommand_required(true),
    )
}

/// Runs the verb of `matches`.
pub(crate) fn run(matches: &clap::ArgMatches, invocation: Invocation) -> Result<Done, Usage> {
    let command =
        ComponentsCommand::from_arg_matches(matches).map_err(|error| Usage(error.to_string()))?;
    invocation.refuse_dot()?;
    let session = Session::new(invocation);
    match command {
        ComponentsCommand::Render(args) => render(session, &args),
        ComponentsCommand::List(args) => list(session, &args),
        ComponentsCommand::Check(args) => check(session, &args),
        ComponentsCommand::Eval(args) => eval(session, &args),
        ComponentsCommand::Schema => {
            let format = session.document_format(DocumentFormat::Json)?;
            Ok(session.finish(|session| session.write_value(crate::app_schema(), format)))
        }
    }
}

fn render(mut session: Session, args: &RenderArgs) -> Result<Done, Usage> {
    let format = session.document_format(DocumentFormat::Yaml)?;
    let Some((application, request)) = open(&mut session, &args.dir, &args.vm, &args.env)? else {
        return Ok(session.finish(|_| None));
    };
    let request = RenderRequest {
        tag: args.app_tag.clone(),
        components: args.components.clone(),
        exclude_components: args.exclude_components.clone(),
        kinds: args.kinds.clone(),
        exclude_kinds: args.exclude_kinds.clone(),
        concurrency: args.eval_concurrency,
        clean_mode: args.clean,
        format: match format {
            DocumentFormat::Json => StreamFormat::Json,
            DocumentFormat::Yaml => StreamFormat::Yaml,
        },
        ..request
    };
    let objects = session.render(&application, &request);
    Ok(session.finish_in_parts(|_| objects.map(Objects::into_parts)))
}

fn eval(mut session: Session, args: &EvalArgs) -> Result<Done, Usage> {
    let format = session.document_format(DocumentFormat::Yaml)?;
    let Some((application, request)) = open(&mut session, &args.dir, &args.vm, &args.env)? else {
        return Ok(session.finish(|_| None));
    };
    let value = application
        .evaluate_file(&request, &args.file, &mut session.db)
        .report(&mut session.diagnostics);
    Ok(session.finish(|session| session.write_document(&value?, format)))
}

fn list(mut session: Session, args: &ListArgs) -> Result<Done, Usage> {
    let format = session.document_format(DocumentFormat::Yaml)?;
    let Some(application) = load(&mut session, &args.dir) else {
        return Ok(session.finish(|_| None));
    };
    if let Some(env) = &args.env
        && application.environment(env).is_none()
    {
        // Rendering an unknown environment reports it, with the known ones.
        session.render(&application, &RenderRequest::new(env));
        return Ok(session.finish(|_| None));
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
    Ok(session.finish(|session| session.write_value(&value, format)))
}

fn check(mut session: Session, args: &CheckArgs) -> Result<Done, Usage> {
    let Some((application, request)) = open(&mut session, &args.dir, &args.vm, "")? else {
        return Ok(session.finish(|_| None));
    };
    let environments: Vec<String> = if args.envs.is_empty() {
        application.environment_names().map(str::to_owned).collect()
    } else {
        args.envs.clone()
    };
    let problems = application.check_environments(&request, &environments, &mut session.db);
    session.diagnostics.extend(problems);
    Ok(session.finish(|_| None))
}

/// Opens the application and reads the `--vm:*` flags into a request for
/// `environment`; `None`, the problems recorded, when either fails.
fn open(
    session: &mut Session,
    dir: &Path,
    vm: &VmArgs,
    environment: &str,
) -> Result<Option<(Application, RenderRequest)>, Usage> {
    let Some(application) = load(session, dir) else {
        return Ok(None);
    };
    let (ext_vars, tla_vars) = vm.inputs(session)?;
    if session.has_errors() {
        return Ok(None);
    }
    let request = RenderRequest {
        ext_vars,
        tla_vars,
        jpaths: vm.jpath.clone(),
        strict_vars: vm.strict_vars,
        timeout: Some(vm.eval_timeout),
        ..RenderRequest::new(environment)
    };
    Ok(Some((application, request)))
}

/// Opens the application; its sources become the session's. Nothing is
/// evaluated when loading found an error.
fn load(session: &mut Session, dir: &Path) -> Option<Application> {
    let application = session.open::<Application>(dir, ());
    if session.has_errors() {
        return None;
    }
    application
}

impl VmArgs {
    /// The external variables and top-level arguments, in the order given
    /// (strings, then code); a malformed one is a usage error, and a
    /// `-file` flag's file is read into the session, a file that cannot be
    /// read reported there like any input.
    fn inputs(&self, session: &mut Session) -> Result<(Inputs, Inputs), Usage> {
        let mut ext = given(&self.ext_str, "--vm:ext-str", Input::Str)?;
        ext.extend(given(&self.ext_code, "--vm:ext-code", Input::Code)?);
        ext.extend(from_files(
            &self.ext_str_file,
            "--vm:ext-str-file",
            Input::Str,
            session,
        )?);
        ext.extend(from_files(
            &self.ext_code_file,
            "--vm:ext-code-file",
            Input::Code,
            session,
        )?);
        let mut tla = given(&self.tla_str, "--vm:tla-str", Input::Str)?;
        tla.extend(given(&self.tla_code, "--vm:tla-code", Input::Code)?);
        tla.extend(from_files(
            &self.tla_str_file,
            "--vm:tla-str-file",
            Input::Str,
            session,
        )?);
        tla.extend(from_files(
            &self.tla_code_file,
            "--vm:tla-code-file",
            Input::Code,
            session,
        )?);
        Ok((ext, tla))
    }
}

/// The values of a `NAME=VALUE` flag, each made an input by `input`; qbec
/// reads `NAME` alone from the environment.
fn given(values: &[String], flag: &str, input: fn(String) -> Input) -> Result<Inputs, Usage> {
    values
        .iter()
        .map(|value| {
            let (name, text) = value
                .split_once('=')
                .map(|(name, text)| (name.to_owned(), text.to_owned()))
                .or_else(|| std::env::var(value).ok().map(|text| (value.clone(), text)))
                .ok_or_else(|| {
                    Usage(format!(
                        "`{flag} {value}` has no `=VALUE` and no environment variable `{value}` is set"
                    ))
                })?;
            if name.is_empty() {
                return Err(Usage(format!("`{flag} {value}` names no variable")));
            }
            Ok((name, input(text)))
        })
        .collect()
}

/// The values of a `NAME=FILE` flag: the file's text, read through the
/// session within its bounds, made an input by `input`; a file that cannot
/// be read is recorded in the session and left out.
fn from_files(
    values: &[String],
    flag: &str,
    input: fn(String) -> Input,
    session: &mut Session,
) -> Result<Inputs, Usage> {
    let mut inputs = Inputs::new();
    for value in values {
        let (name, path) = value
            .split_once('=')
            .filter(|(name, _)| !name.is_empty())
            .ok_or_else(|| Usage(format!("`{flag} {value}` must be written `NAME=FILE`")))?;
        if let Some(text) = session.read_text(path) {
            inputs.push((name.to_owned(), input(text)));
        }
    }
    Ok(inputs)
}

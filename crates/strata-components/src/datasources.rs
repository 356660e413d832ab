//! qbec's data sources (`spec.dataSources`), as qbec 0.31 runs them.
//!
//! `exec://NAME?configVar=VAR` and `helm3://NAME?configVar=VAR` declare a
//! source a component reads with `import 'data://NAME/PATH'` (or
//! `importstr`). Nothing runs until a component imports from it: then the
//! variable `VAR` (external or computed) is evaluated into the source's
//! configuration, once per render, and each path runs once per render,
//! whatever the number of components that import it. A program that
//! fails, is missing, or runs past its timeout is an error at the import;
//! its standard error is kept, bounded, in the message
//! ([`strata_jsonnet::process`]).
//!
//! An `exec://` source's configuration:
//!
//! | field | |
//! |---|---|
//! | `command` | the program: a path relative to the application folder, else found on `PATH` |
//! | `args` | its arguments |
//! | `env` | its environment (added to the inherited one with `inheritEnv: true`, else all it has) |
//! | `stdin` | its standard input |
//! | `timeout` | how long it may run (a Go duration, `1m` by default) |
//! | `inheritEnv` | whether it sees Strata's environment |
//!
//! The program runs in the application folder with `__DS_NAME__` and
//! `__DS_PATH__` (the import's path, `/` when it names none) in its
//! environment; what it writes to its standard output is the import's
//! text.
//!
//! A `helm3://` source's configuration is `command` (`helm` by default)
//! and `timeout`. Its imports are `data://NAME/CHART?config-from=VAR2`:
//! the variable `VAR2` holds `{name, options, values}`, and the import
//! runs `helm template --debug OPTIONS [NAME] CHART --values -` in the
//! application folder with `values` as JSON on its standard input. `CHART`
//! is the chart's name in `options.repo`, or without a repository a URL
//! whose scheme is left out (`data://h/charts.example.com/x.tgz?...` is
//! `https://charts.example.com/x.tgz`). The options are qbec's subset of
//! `helm template`'s flags ([`TEMPLATE_OPTIONS`]); `namespace` defaults to
//! `qbec.io/defaultNs`. The import's value is the array of the documents
//! Helm wrote. Where qbec differs: unknown fields in either configuration
//! are errors (qbec ignores them, so a misspelt option is silently not
//! passed), and the `config-from` parameter is not left in a chart URL
//! (qbec means to remove it and does not).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value as Json;
use strata_fs::Files;
use strata_jsonnet::data::DataSource;
use strata_jsonnet::process::{DEFAULT_TIMEOUT, Program, find_program};
use strata_jsonnet::{Input, Inputs, Setup, Vm, on_evaluation_stack};
use strata_syntax::Limits;

/// The kinds of data source qbec has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `exec://`: a command's output.
    Exec,
    /// `helm3://`: the documents of `helm template`.
    Helm,
}

/// A source declared in `qbec.yaml`: `KIND://NAME?configVar=VAR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) kind: Kind,
    pub(crate) name: String,
    /// The variable holding the source's configuration.
    pub(crate) config_var: String,
}

impl Declared {
    /// A `dataSources` entry, or why it is not one.
    pub(crate) fn parse(text: &str) -> Result<Declared, String> {
        let (scheme, rest) = text.split_once("://").ok_or_else(|| {
            format!("`{text}` is not a data source URL (`exec://NAME?configVar=VAR`)")
        })?;
        let kind = match scheme {
            "exec" => Kind::Exec,
            "helm3" => Kind::Helm,
            other => {
                return Err(format!(
                    "`{other}://` is not a kind of data source (qbec's are `exec://` and `helm3://`)"
                ));
            }
        };
        let (name, query) = rest.split_once('?').unwrap_or((rest, ""));
        if name.is_empty() || name.contains('/') {
            return Err(format!(
                "`{text}` names no data source (`{scheme}://NAME?configVar=VAR`)"
            ));
        }
        let config_var = query_parameter(query, "configVar").ok_or_else(|| {
            format!("`{text}` has no `configVar` naming the variable that configures it")
        })?;
        Ok(Declared {
            kind,
            name: name.to_owned(),
            config_var: config_var.to_owned(),
        })
    }
}

/// The value of the non-empty parameter `key` in a URL's query.
fn query_parameter<'q>(query: &'q str, key: &str) -> Option<&'q str> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
        .filter(|value| !value.is_empty())
}

/// What an `exec://` source's configuration variable holds.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ExecConfig {
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: HashMap<String, String>,
    #[serde(default)]
    stdin: String,
    timeout: Option<String>,
    #[serde(default)]
    inherit_env: bool,
}

/// What a `helm3://` source's configuration variable holds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HelmConfig {
    #[serde(default = "default_helm")]
    command: String,
    timeout: Option<String>,
}

fn default_helm() -> String {
    "helm".to_owned()
}

/// What the variable an import's `config-from` names holds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateConfig {
    #[serde(default)]
    name: String,
    #[serde(default)]
    options: serde_json::Map<String, Json>,
    values: Option<Json>,
}

/// How a template option is written on `helm template`'s command line.
#[derive(Debug, Clone, Copy)]
enum Flag {
    /// `--flag=VALUE` when not empty.
    Text,
    /// `--flag` when true.
    Switch,
    /// `--flag=VALUE` for each item.
    Repeated,
}

/// qbec's `TemplateOptions`: each option's name in the configuration, its
/// flag and how it is written, in qbec's order (the order of the flags).
const TEMPLATE_OPTIONS: &[(&str, &str, Flag)] = &[
    ("namespace", "--namespace", Flag::Text),
    ("createNamespace", "--create-namespace", Flag::Switch),
    ("apiVersions", "--api-versions", Flag::Repeated),
    ("dependencyUpdate", "--dependency-update", Flag::Switch),
    ("description", "--description", Flag::Text),
    ("devel", "--devel", Flag::Switch),
    (
        "disableOpenapiValidation",
        "--disable-openapi-validation",
        Flag::Switch,
    ),
    ("generateName", "--generate-name", Flag::Switch),
    ("includeCrds", "--include-crds", Flag::Switch),
    ("isUpgrade", "--is-upgrade", Flag::Switch),
    ("skipCrds", "--skip-crds", Flag::Switch),
    ("skipTests", "--skip-tests", Flag::Switch),
    (
        "insecureSkipTlsVerify",
        "--insecure-skip-tls-verify",
        Flag::Switch,
    ),
    ("kubeVersion", "--kube-version", Flag::Text),
    ("nameTemplate", "--name-template", Flag::Text),
    ("noHooks", "--no-hooks", Flag::Switch),
    ("passCredentials", "--pass-credentials", Flag::Switch),
    ("password", "--password", Flag::Text),
    (
        "renderSubchartNotes",
        "--render-subchart-notes",
        Flag::Switch,
    ),
    ("replace", "--replace", Flag::Switch),
    ("repo", "--repo", Flag::Text),
    ("showOnly", "--show-only", Flag::Repeated),
    ("username", "--username", Flag::Text),
    ("validate", "--validate", Flag::Switch),
    ("verify", "--verify", Flag::Switch),
    ("version", "--version", Flag::Text),
];

/// The flags `options` give, in qbec's order, or the first option that is
/// unknown or of the wrong type.
fn template_flags(options: &serde_json::Map<String, Json>) -> Result<Vec<String>, String> {
    if let Some(unknown) = options
        .keys()
        .find(|key| !TEMPLATE_OPTIONS.iter().any(|(name, ..)| name == key))
    {
        return Err(format!(
            "`{unknown}` is not a `helm template` option qbec passes"
        ));
    }
    let mut flags = Vec::new();
    for (name, flag, how) in TEMPLATE_OPTIONS {
        let wrong = || {
            format!(
                "the option `{name}` is not {}",
                match how {
                    Flag::Text => "a string",
                    Flag::Switch => "a boolean",
                    Flag::Repeated => "a list of strings",
                }
            )
        };
        match (how, options.get(*name)) {
            (_, None | Some(Json::Null)) | (Flag::Switch, Some(Json::Bool(false))) => {}
            (Flag::Text, Some(Json::String(text))) => {
                if !text.is_empty() {
                    flags.push(format!("{flag}={text}"));
                }
            }
            (Flag::Switch, Some(Json::Bool(true))) => flags.push((*flag).to_owned()),
            (Flag::Repeated, Some(Json::Array(items))) => {
                for item in items {
                    flags.push(format!("{flag}={}", item.as_str().ok_or_else(wrong)?));
                }
            }
            _ => return Err(wrong()),
        }
    }
    Ok(flags)
}

/// A source's configuration, read from its variable.
#[derive(Debug)]
enum Config {
    Exec(ExecConfig),
    Helm {
        command: String,
        program: PathBuf,
        timeout: Duration,
    },
}

/// A declared source of one render.
pub(crate) struct Source {
    declared: Declared,
    /// The variables, libraries and files configurations are evaluated
    /// with.
    files: Arc<dyn Files>,
    lib_paths: Vec<PathBuf>,
    variables: Inputs,
    limits: Limits,
    config: OnceLock<Result<Config, String>>,
    answers: Mutex<HashMap<String, Result<String, String>>>,
}

impl Source {
    pub(crate) fn new(
        declared: Declared,
        files: Arc<dyn Files>,
        lib_paths: Vec<PathBuf>,
        variables: Inputs,
        limits: Limits,
    ) -> Source {
        Source {
            declared,
            files,
            lib_paths,
            variables,
            limits,
            config: OnceLock::new(),
            answers: Mutex::new(HashMap::new()),
        }
    }

    /// The value of the variable `name` as JSON.
    fn variable(&self, name: &str) -> Result<Json, String> {
        let Some((_, input)) = self
            .variables
            .iter()
            .rev()
            .find(|(variable, _)| variable == name)
        else {
            return Err(format!("the variable `{name}` has no value"));
        };
        let code = match input {
            Input::Code(code) => code.clone(),
            Input::Str(text) => return Ok(Json::String(text.clone())),
        };
        let setup = Setup {
            fs: self.files.clone(),
            lib_paths: self.lib_paths.clone(),
            ext_vars: self.variables.clone(),
            limits: self.limits,
            data_sources: strata_jsonnet::data::DataSources::new(),
        };
        let value = on_evaluation_stack(|| {
            Vm::new(&setup)
                .evaluate_snippet(&format!("<{name}>"), &code)
                .map_err(|failure| failure.message)
                .and_then(|value| {
                    strata_jsonnet::value::to_node(
                        &value,
                        strata_syntax::Span::default(),
                        self.limits.max_depth,
                    )
                    .map_err(|error| strata_jsonnet::Failure::from_error(&error).message)
                })
        })?;
        Ok(value.to_json_value())
    }

    /// The variable `name` read as `T`.
    fn variable_as<T: serde::de::DeserializeOwned>(
        &self,
        name: &str,
        what: &str,
    ) -> Result<T, String> {
        serde_json::from_value(self.variable(name)?)
            .map_err(|error| format!("the variable `{name}` is not {what}: {error}"))
    }

    /// The source's configuration, from its variable.
    fn configure(&self) -> Result<Config, String> {
        let name = &self.declared.config_var;
        match self.declared.kind {
            Kind::Exec => Ok(Config::Exec(
                self.variable_as(name, "an exec configuration")?,
            )),
            Kind::Helm => {
                let config: HelmConfig = self.variable_as(name, "a helm3 configuration")?;
                let program = find_program(&config.command, self.folder().as_deref())
                    .ok_or_else(|| not_found(&config.command, "helm3:// data sources run Helm 3's `helm template`: install Helm (https://helm.sh/docs/intro/install/)"))?;
                Ok(Config::Helm {
                    command: config.command,
                    program,
                    timeout: timeout(config.timeout.as_deref())?,
                })
            }
        }
    }

    /// The application folder on disk, where programs run.
    fn folder(&self) -> Option<PathBuf> {
        self.files.on_disk(Path::new("."))
    }

    fn run_exec(&self, config: &ExecConfig, path: &str) -> Result<String, String> {
        let folder = self.folder();
        let program = find_program(&config.command, folder.as_deref()).ok_or_else(|| {
            not_found(
                &config.command,
                "relative to the application folder, or on PATH",
            )
        })?;
        let mut program = Program::new(&config.command, program, self.limits.max_bytes);
        program.args.clone_from(&config.args);
        program.inherit_env = config.inherit_env;
        program.env = config
            .env
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .chain([
                ("__DS_NAME__".to_owned(), self.declared.name.clone()),
                ("__DS_PATH__".to_owned(), path.to_owned()),
            ])
            .collect();
        program.stdin = config.stdin.clone().into_bytes();
        program.dir = folder;
        program.timeout = timeout(config.timeout.as_deref())?;
        program.run()
    }

    fn run_helm(
        &self,
        command: &str,
        helm: &Path,
        timeout: Duration,
        path: &str,
    ) -> Result<String, String> {
        let (chart, query) = path.split_once('?').unwrap_or((path, ""));
        let config_var = query_parameter(query, "config-from").ok_or_else(|| {
            format!("`data://{}{path}` has no `config-from` naming the variable that configures the chart", self.declared.name)
        })?;
        let template: TemplateConfig = self.variable_as(
            config_var,
            "a chart's configuration (`name`, `options`, `values`)",
        )?;
        let mut options = template.options;
        if options
            .get("namespace")
            .is_none_or(|namespace| namespace.as_str() == Some(""))
        {
            options.insert(
                "namespace".to_owned(),
                self.variable(crate::variables::DEFAULT_NAMESPACE)?,
            );
        }
        let chart = chart.trim_start_matches('/');
        let chart = if options.contains_key("repo") {
            chart.to_owned()
        } else {
            let Some((host, rest)) = chart.split_once('/') else {
                return Err(format!(
                    "`{chart}` names no chart: without a `repo` option it is HOST/PATH of the chart's URL"
                ));
            };
            let rest_of_query: Vec<&str> = query
                .split('&')
                .filter(|pair| !pair.is_empty() && !pair.starts_with("config-from="))
                .collect();
            if rest_of_query.is_empty() {
                format!("https://{host}/{rest}")
            } else {
                format!("https://{host}/{rest}?{}", rest_of_query.join("&"))
            }
        };
        let mut program = Program::new(command, helm.to_path_buf(), self.limits.max_bytes);
        program.args = ["template", "--debug"]
            .map(str::to_owned)
            .into_iter()
            .chain(template_flags(&options)?)
            .chain((!template.name.is_empty()).then_some(template.name))
            .chain([chart, "--values".to_owned(), "-".to_owned()])
            .collect();
        program.stdin = template
            .values
            .unwrap_or(Json::Null)
            .to_string()
            .into_bytes();
        program.dir = self.folder();
        program.timeout = timeout;
        let output = program.run()?;
        let documents = strata_jsonnet::helm::template_documents(&output, &self.limits)?;
        Ok(Json::Array(
            documents
                .iter()
                .map(strata_syntax::Node::to_json_value)
                .collect(),
        )
        .to_string())
    }
}

/// A configuration's `timeout` (a Go duration), or qbec's default.
fn timeout(written: Option<&str>) -> Result<Duration, String> {
    written.map_or(Ok(DEFAULT_TIMEOUT), |text| {
        humantime::parse_duration(text)
            .map_err(|error| format!("invalid timeout `{text}`: {error}"))
    })
}

/// A program that is not found, and where it was looked for.
fn not_found(command: &str, where_: &str) -> String {
    format!("the command `{command}` is not found ({where_})")
}

impl DataSource for Source {
    fn resolve(&self, path: &str) -> Result<String, String> {
        let config = self.config.get_or_init(|| self.configure());
        let config = config.as_ref().map_err(Clone::clone)?;
        let mut answers = self
            .answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(answer) = answers.get(path) {
            return answer.clone();
        }
        let answer = match config {
            Config::Exec(exec) => self.run_exec(exec, path),
            Config::Helm {
                command,
                program,
                timeout,
            } => self.run_helm(command, program, *timeout, path),
        };
        answers.insert(path.to_owned(), answer.clone());
        answer
    }
}

//! qbec's data sources (`spec.dataSources`), as qbec 0.31 runs them.
//!
//! `exec://NAME?configVar=VAR` declares a source a component reads with
//! `import 'data://NAME/PATH'` (or `importstr`). Nothing runs until a
//! component imports from it: then the variable `VAR` (external or
//! computed) is evaluated into its configuration, once per render:
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
//! text. Each path runs once per render, whatever the number of
//! components that import it. A program that fails, is missing, or runs
//! past its timeout is an error at the import; its standard error is
//! kept, bounded, in the message. `helm3://` sources (qbec's Helm charts)
//! are declared but refused at the import: they need `helm`, which Strata
//! does not run.

use std::collections::HashMap;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Deserialize;
use strata_fs::Files;
use strata_jsonnet::data::DataSource;
use strata_jsonnet::{Input, Inputs, Setup, Vm, on_evaluation_stack};
use strata_syntax::Limits;

/// The most bytes of a program's standard error kept for a message.
const MAX_STDERR_BYTES: usize = 4096;

/// What a data source's configuration variable holds.
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

/// How a source declared in `qbec.yaml` is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Declared {
    /// `exec://NAME?configVar=VAR`.
    Exec { name: String, config_var: String },
    /// `helm3://NAME?configVar=VAR`.
    Helm { name: String },
}

impl Declared {
    /// A `dataSources` entry, or why it is not one.
    pub(crate) fn parse(text: &str) -> Result<Declared, String> {
        let (scheme, rest) = text.split_once("://").ok_or_else(|| {
            format!("`{text}` is not a data source URL (`exec://NAME?configVar=VAR`)")
        })?;
        let (name, query) = rest.split_once('?').unwrap_or((rest, ""));
        if name.is_empty() || name.contains('/') {
            return Err(format!(
                "`{text}` names no data source (`{scheme}://NAME?configVar=VAR`)"
            ));
        }
        let config_var = query
            .split('&')
            .find_map(|pair| pair.strip_prefix("configVar="))
            .filter(|var| !var.is_empty());
        match (scheme, config_var) {
            ("exec", Some(var)) => Ok(Declared::Exec {
                name: name.to_owned(),
                config_var: var.to_owned(),
            }),
            ("helm3", Some(_)) => Ok(Declared::Helm {
                name: name.to_owned(),
            }),
            ("exec" | "helm3", None) => Err(format!(
                "`{text}` has no `configVar` naming the variable that configures it"
            )),
            (other, _) => Err(format!(
                "`{other}://` is not a kind of data source (qbec's are `exec://` and `helm3://`)"
            )),
        }
    }

    /// The source's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            Declared::Exec { name, .. } | Declared::Helm { name } => name,
        }
    }
}

/// An `exec://` source of one render.
pub(crate) struct ExecSource {
    name: String,
    config_var: String,
    /// The variables, libraries and files the configuration is evaluated
    /// with.
    files: Arc<dyn Files>,
    lib_paths: Vec<PathBuf>,
    variables: Inputs,
    limits: Limits,
    config: OnceLock<Result<ExecConfig, String>>,
    answers: Mutex<HashMap<String, Result<String, String>>>,
}

impl ExecSource {
    pub(crate) fn new(
        name: String,
        config_var: String,
        files: Arc<dyn Files>,
        lib_paths: Vec<PathBuf>,
        variables: Inputs,
        limits: Limits,
    ) -> ExecSource {
        ExecSource {
            name,
            config_var,
            files,
            lib_paths,
            variables,
            limits,
            config: OnceLock::new(),
            answers: Mutex::new(HashMap::new()),
        }
    }

    /// The configuration, from the variable's value as JSON.
    fn configure(&self) -> Result<ExecConfig, String> {
        let Some((_, input)) = self
            .variables
            .iter()
            .find(|(name, _)| *name == self.config_var)
        else {
            return Err(format!(
                "the variable `{}` that configures it has no value",
                self.config_var
            ));
        };
        let code = match input {
            Input::Code(code) => code.clone(),
            Input::Str(text) => serde_json::Value::String(text.clone()).to_string(),
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
                .evaluate_snippet(&format!("<{}>", self.config_var), &code)
                .map_err(|failure| failure.message)
                .and_then(|value| {
                    strata_jsonnet::value::to_node(
                        &value,
                        strata_syntax::Span::default(),
                        self.limits.max_depth,
                    )
                    .map_err(|error| format!("{error:?}"))
                })
        })?;
        serde_json::from_value(value.to_json_value()).map_err(|error| {
            format!(
                "the variable `{}` is not an exec configuration: {error}",
                self.config_var
            )
        })
    }

    fn run(&self, config: &ExecConfig, path: &str) -> Result<String, String> {
        let timeout = match &config.timeout {
            Some(text) => humantime::parse_duration(text)
                .map_err(|error| format!("invalid timeout `{text}`: {error}"))?,
            None => Duration::from_mins(1),
        };
        let folder = self.files.on_disk(Path::new("."));
        let program = find_program(&config.command, folder.as_deref()).ok_or_else(|| {
            format!(
                "the command `{}` is not found (relative to the application folder, or on PATH)",
                config.command
            )
        })?;
        let mut command = Command::new(&program);
        command.args(&config.args);
        if !config.inherit_env {
            command.env_clear();
        }
        command
            .envs(&config.env)
            .env("__DS_NAME__", &self.name)
            .env("__DS_PATH__", path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(folder) = &folder {
            command.current_dir(folder);
        }
        let mut child = command
            .spawn()
            .map_err(|error| format!("`{}` cannot run: {error}", config.command))?;
        let limit = self.limits.max_bytes;
        let stdin = child.stdin.take();
        let input = config.stdin.clone();
        let writer = std::thread::spawn(move || {
            if let Some(mut stdin) = stdin {
                // A program that does not read its input closes the pipe.
                let _ = stdin.write_all(input.as_bytes());
            }
        });
        let stdout = child.stdout.take();
        let reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(stdout) = stdout {
                let _ = stdout
                    .take(u64::try_from(limit).unwrap_or(u64::MAX) + 1)
                    .read_to_end(&mut bytes);
            }
            bytes
        });
        let stderr = child.stderr.take();
        let errors = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(stderr) = stderr {
                let _ = stderr.take(MAX_STDERR_BYTES as u64).read_to_end(&mut bytes);
            }
            bytes
        });
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() >= timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "`{}` did not finish within {}",
                        config.command,
                        humantime::format_duration(timeout)
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(error) => return Err(format!("`{}`: {error}", config.command)),
            }
        };
        let _ = writer.join();
        let output = reader.join().unwrap_or_default();
        let error_text = String::from_utf8_lossy(&errors.join().unwrap_or_default())
            .trim()
            .to_owned();
        if !status.success() {
            let said = if error_text.is_empty() {
                String::new()
            } else {
                format!(": {error_text}")
            };
            return Err(format!("`{}` failed ({status}){said}", config.command));
        }
        if output.len() > limit {
            return Err(format!(
                "`{}` wrote more than {limit} bytes",
                config.command
            ));
        }
        String::from_utf8(output)
            .map_err(|_| format!("`{}` wrote text that is not UTF-8", config.command))
    }
}

impl DataSource for ExecSource {
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
        let answer = self.run(config, path);
        answers.insert(path.to_owned(), answer.clone());
        answer
    }
}

/// A `helm3://` source: refused at the import.
pub(crate) struct HelmSource;

impl DataSource for HelmSource {
    fn resolve(&self, _path: &str) -> Result<String, String> {
        Err("`helm3://` data sources run `helm template`, which Strata does not run; render the chart with `helm template` into a YAML component".to_owned())
    }
}

/// The program `command` names: a path relative to `folder` (or absolute)
/// that is an executable file, else a name found on `PATH`.
fn find_program(command: &str, folder: Option<&Path>) -> Option<PathBuf> {
    let executable = |path: &Path| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path)
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    let written = Path::new(command);
    if written.is_absolute() {
        return executable(written).then(|| written.to_path_buf());
    }
    if let Some(local) = folder
        .map(|folder| folder.join(written))
        .filter(|path| executable(path))
    {
        return Some(local);
    }
    if command.contains('/') {
        return None;
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(command))
            .find(|candidate| executable(candidate))
    })
}

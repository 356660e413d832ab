//! Helm charts expanded by `helm template`, as qbec does: the
//! `expandHelmTemplate` native (qbec's `vm/internal/natives/helm.go`) here,
//! and the documents `helm template` writes ([`template_documents`]) for
//! the `helm3://` data sources of the components dialect too.
//!
//! `std.native('expandHelmTemplate')(chart, values, options)` runs
//! `helm template CHART [--execute E]... [--kube-version V] [--name N]
//! [--name-template T] [--namespace NS] --values -` with `values` as YAML
//! on its standard input, in the folder of `options.thisFile` (set it to
//! `std.thisFile` so that a relative chart path is found) or, without it,
//! in the system's temporary folder, so that a relative path works only
//! when the caller said where from. The value is the array of the
//! documents Helm wrote, empty and `null` documents left out.
//!
//! `helm` must be on `PATH` when a component calls it. Where qbec differs:
//! an unknown option is an error here (qbec ignores it, so a misspelt
//! `namespace` silently renders into the wrong one); `values` and
//! `options` must be objects (qbec's process stops on a Go type assertion);
//! Helm gets [`crate::process::DEFAULT_TIMEOUT`] to finish (qbec waits
//! forever); and `verbose: true` reports the command as a trace message
//! (qbec prints it to standard error).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use jrsonnet_evaluator::error::Error;
use jrsonnet_evaluator::val::ArrValue;
use jrsonnet_evaluator::{IStr, Result, Val};
use jrsonnet_macros::builtin;
use serde::Deserialize;
use strata_fs::Files;
use strata_syntax::{Limits, Node, Span, emit};

use crate::process::{Program, find_program};
use crate::value::{from_node, to_node};
use crate::vm::Traced;

/// The options of `expandHelmTemplate`, with qbec's names.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct HelmOptions {
    execute: Vec<String>,
    kube_version: String,
    name: String,
    name_template: String,
    namespace: String,
    this_file: String,
    verbose: bool,
}

impl HelmOptions {
    /// The flags of `helm template` these options give, in qbec's order.
    fn flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        for template in &self.execute {
            flags.extend(["--execute".to_owned(), template.clone()]);
        }
        for (flag, value) in [
            ("--kube-version", &self.kube_version),
            ("--name", &self.name),
            ("--name-template", &self.name_template),
            ("--namespace", &self.namespace),
        ] {
            if !value.is_empty() {
                flags.extend([flag.to_owned(), value.clone()]);
            }
        }
        flags
    }
}

/// What `expandHelmTemplate` needs besides its arguments.
#[derive(Clone)]
pub(crate) struct HelmContext {
    /// The application's files, to find `thisFile`'s folder on disk.
    pub(crate) fs: Arc<dyn Files>,
    pub(crate) limits: Limits,
    /// Where `verbose` reports the command.
    pub(crate) traces: Rc<RefCell<Vec<Traced>>>,
    /// Where a recording VM notes that a chart was expanded.
    pub(crate) log: Option<Arc<crate::reads::ImportLog>>,
}

#[builtin(fields(
    #[trace(skip)]
    context: HelmContext,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in qbec; the builtin macro passes arguments owned"
)]
pub(crate) fn expandHelmTemplate(
    this: &expandHelmTemplate,
    chart: IStr,
    values: Val,
    options: Val,
) -> Result<Val> {
    let context = &this.context;
    if let Some(log) = &context.log {
        log.helm();
    }
    let depth = context.limits.max_depth;
    let (Val::Obj(_), Val::Obj(_)) = (&values, &options) else {
        return Err(helm_error("the values and the options must be objects"));
    };
    let options: HelmOptions =
        serde_json::from_value(to_node(&options, Span::default(), depth)?.to_json_value())
            .map_err(|error| helm_error(&format!("the options: {error}")))?;
    let folder = working_folder(context.fs.as_ref(), &options.this_file)?;
    let path = find_program("helm", None).ok_or_else(|| {
        helm_error(
            "`helm` is not found on PATH; it runs Helm 3's `helm template`: install Helm (https://helm.sh/docs/intro/install/)",
        )
    })?;
    let mut program = Program::new("helm", path, context.limits.max_bytes);
    program.args = ["template".to_owned(), chart.to_string()]
        .into_iter()
        .chain(options.flags())
        .chain(["--values".to_owned(), "-".to_owned()])
        .collect();
    program.stdin = emit::to_yaml(&to_node(&values, Span::default(), depth)?).into_bytes();
    program.dir = Some(folder.clone());
    if options.verbose {
        context.traces.borrow_mut().push(Traced {
            message: format!(
                "[helm template] cd {} && helm {}",
                folder.display(),
                program.args.join(" ")
            ),
            at: None,
        });
    }
    let output = program.run().map_err(|why| {
        let hint = if options.this_file.is_empty() {
            " (set the `thisFile` option to `std.thisFile` so that a relative chart path is found)"
        } else {
            ""
        };
        helm_error(&format!("{why}{hint}"))
    })?;
    let documents = template_documents(&output, &context.limits).map_err(|why| helm_error(&why))?;
    Ok(Val::Arr(ArrValue::eager(
        documents.iter().map(from_node).collect(),
    )))
}

/// The folder `helm` runs in: `this_file`'s, or the temporary folder.
fn working_folder(fs: &dyn Files, this_file: &str) -> Result<PathBuf> {
    if this_file.is_empty() {
        return Ok(std::env::temp_dir());
    }
    let folder = Path::new(this_file)
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs.on_disk(folder).ok_or_else(|| {
        helm_error(&format!(
            "the folder of `thisFile` (`{this_file}`) is not a folder of the application on disk"
        ))
    })
}

/// The documents of `helm template`'s output, read as qbec reads them
/// (YAML 1.1, as Kubernetes' YAML-to-JSON decoder does), without the empty
/// and `null` ones.
///
/// # Errors
///
/// The first syntax error, with its line and column in the output.
pub fn template_documents(output: &str, limits: &Limits) -> std::result::Result<Vec<Node>, String> {
    crate::natives::yaml_documents("the output of `helm template`", output, limits)
}

/// A runtime error of `expandHelmTemplate`.
fn helm_error(message: &str) -> Error {
    crate::natives::runtime_error(format!("expandHelmTemplate: {message}"))
}

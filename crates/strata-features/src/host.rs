//! `jsonnet(path)` and `file(path)` for expressions in one feature file.
//!
//! Paths are relative to the feature file and confined to the template
//! folder (`contexts/_template`), symlinks included. `jsonnet` evaluates the
//! file as Windsor v0.8 does: the values as `std.extVar("context")`, with
//! `name` (the context's name) and `projectName` set over them; Windsor's
//! helper library as `std.extVar("helpers")` (`get`, `getString`, `getInt`,
//! `getNumber`, `getBool`, `getObject`, `getArray`, `has`, `baseUrl`,
//! `removeEmptyKeys`: our own Jsonnet, `helpers.libsonnet`, with the same
//! semantics); and the blueprint's OCI address as `std.extVar("ociUrl")`
//! ([`OCI_URL`]). Imports are confined the same way; each file is
//! evaluated once per render.
//!
//! A path outside the folder or a file that cannot be read fails the call
//! ([`HostError::Call`]); a Jsonnet file that fails is reported where it
//! failed, through [`TraceSources`] as every Jsonnet failure is
//! ([`HostError::Failed`]), its files registered in the render's sources.
//!
//! A render evaluates `jsonnet()`, each file a step told to the project's
//! [`Progress`] (a supervisor that stops a runaway evaluation says where
//! it stopped); a hover does not ([`Jsonnet::Refused`]): what the dialect
//! explains is never an evaluation that could run without end.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_cond::{Host, HostError};
use strata_dialect::Progress;
use strata_fs::Files;
use strata_jsonnet::{Failure, Input, Setup, TraceSources, Vm};
use strata_syntax::{Limits, Node, SourceDb, Span};

/// Windsor's helper library for `jsonnet()` files, written anew.
const HELPERS: &str = include_str!("helpers.libsonnet");

/// The blueprint address Windsor gives `jsonnet()` files as
/// `std.extVar("ociUrl")`: its default, where a release of Windsor may pin
/// another at build time.
pub(crate) const OCI_URL: &str = "oci://ghcr.io/windsorcli/core:latest";

/// Whether `jsonnet()` evaluates.
pub(crate) enum Jsonnet {
    /// It does, each evaluation a step told to this progress (a render).
    Evaluated(Progress),
    /// It does not (a hover); [`Template::refused`] says it was called.
    Refused,
}

/// What the expressions of a render may read.
pub(crate) struct Template<'a> {
    fs: Arc<dyn Files>,
    context: String,
    limits: Limits,
    db: &'a RefCell<SourceDb>,
    traces: RefCell<TraceSources>,
    evaluated: RefCell<HashMap<PathBuf, Result<Node, HostError>>>,
    jsonnet: Jsonnet,
    refused: Cell<bool>,
    /// Whether an expression called `jsonnet()` or `file()` since
    /// [`Template::take_reads`] last asked.
    reads: Cell<bool>,
}

impl<'a> Template<'a> {
    /// The template folder's files, the values, the context's and the
    /// project's names, the bounds, the sources failures register in, and
    /// whether `jsonnet()` evaluates.
    pub(crate) fn new(
        fs: Arc<dyn Files>,
        values: &Node,
        names: [&str; 2],
        limits: Limits,
        db: &'a RefCell<SourceDb>,
        jsonnet: Jsonnet,
    ) -> Template<'a> {
        let mut context = values.to_json_value();
        if let serde_json::Value::Object(fields) = &mut context {
            // As Windsor v0.8: the names win over values that set them.
            for (key, name) in ["name", "projectName"].into_iter().zip(names) {
                fields.insert(key.to_owned(), serde_json::Value::String(name.to_owned()));
            }
        }
        Template {
            traces: RefCell::new(TraceSources::new(fs.clone(), limits.max_bytes)),
            fs,
            context: context.to_string(),
            limits,
            db,
            evaluated: RefCell::new(HashMap::new()),
            jsonnet,
            refused: Cell::new(false),
            reads: Cell::new(false),
        }
    }

    /// Whether an expression called `jsonnet()` where it is not evaluated.
    pub(crate) fn refused(&self) -> bool {
        self.refused.get()
    }

    /// Whether an expression called `jsonnet()` or `file()` since the
    /// last time this was asked: what it gave then depends on files.
    pub(crate) fn take_reads(&self) -> bool {
        self.reads.replace(false)
    }

    /// The host for expressions written in the feature file `from`
    /// (relative to the template folder).
    pub(crate) fn for_file<'t>(&'t self, from: &'t Path) -> FileHost<'t, 'a> {
        FileHost {
            template: self,
            from,
        }
    }

    fn jsonnet(&self, path: &Path) -> Result<Node, HostError> {
        if let Some(done) = self.evaluated.borrow().get(path) {
            return done.clone();
        }
        if !self.fs.is_file(path) {
            // Said at the call: there is no file to point into.
            let error = self.fs.read(path, self.limits.max_bytes).err().map_or_else(
                || format!("`{}` is not a file", path.display()),
                |e| e.to_string(),
            );
            return Err(HostError::Call(format!(
                "`jsonnet(\"{}\")` failed: {error}",
                path.display()
            )));
        }
        let what = format!("`jsonnet(\"{}\")`", path.display());
        let progress = match &self.jsonnet {
            Jsonnet::Evaluated(progress) => progress,
            Jsonnet::Refused => {
                self.refused.set(true);
                return Err(HostError::Call(format!("{what} is not evaluated here")));
            }
        };
        let setup = Setup {
            fs: self.fs.clone(),
            lib_paths: Vec::new(),
            ext_vars: vec![
                ("context".to_owned(), Input::Code(self.context.clone())),
                ("helpers".to_owned(), Input::Code(HELPERS.to_owned())),
                ("ociUrl".to_owned(), Input::Code(format!("{OCI_URL:?}"))),
            ],
            limits: self.limits,
            data_sources: strata_jsonnet::data::DataSources::new(),
        };
        let max_depth = self.limits.max_depth;
        let step = progress.step(&what, &Path::new(crate::TEMPLATE_DIR).join(path));
        let result = strata_jsonnet::on_evaluation_stack(|| {
            Vm::new(&setup).import(path).and_then(|value| {
                strata_jsonnet::value::to_node(&value, Span::default(), max_depth)
                    .map_err(|error| Failure::from_error(&error))
            })
        });
        drop(step);
        let result = result.map_err(|failure| {
            let mut db = self.db.borrow_mut();
            let mut traces = self.traces.borrow_mut();
            let fallback = traces.file_start(&mut db, path);
            HostError::Failed(Box::new(traces.failure(&mut db, &what, fallback, &failure)))
        });
        self.evaluated
            .borrow_mut()
            .insert(path.to_path_buf(), result.clone());
        result
    }
}

/// `path` relative to the file `from`, kept inside the template folder.
fn resolve(from: &Path, path: &str) -> Result<PathBuf, HostError> {
    strata_fs::join(from, path).map_err(|_| {
        HostError::Call(format!(
            "`{path}` leads outside the template folder (`contexts/_template`)"
        ))
    })
}

/// The host of one feature file.
pub(crate) struct FileHost<'t, 'a> {
    template: &'t Template<'a>,
    from: &'t Path,
}

impl Host for FileHost<'_, '_> {
    fn jsonnet(&self, path: &str) -> Result<Node, HostError> {
        self.template.reads.set(true);
        let resolved = resolve(self.from, path)?;
        self.template.jsonnet(&resolved)
    }

    fn file(&self, path: &str) -> Result<String, HostError> {
        self.template.reads.set(true);
        let resolved = resolve(self.from, path)?;
        self.template
            .fs
            .read(&resolved, self.template.limits.max_bytes)
            .map_err(|error| HostError::Call(error.to_string()))
    }
}

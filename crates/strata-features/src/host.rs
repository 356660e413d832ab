//! `jsonnet(path)` and `file(path)` for expressions in one feature file.
//!
//! Paths are relative to the feature file and confined to the template
//! folder (`contexts/_template`), symlinks included. `jsonnet` evaluates the
//! file with the values as `std.extVar("context")`, with `name` (the
//! context's name) and `projectName` added as Windsor adds them unless the
//! values set them (imports are confined the same way); each file is
//! evaluated once per render.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_cond::Host;
use strata_fs::Files;
use strata_jsonnet::{Failure, Input, Setup, Vm};
use strata_syntax::{Limits, Node, Span};

/// What the expressions of a render may read.
pub struct Template {
    fs: Arc<dyn Files>,
    context: String,
    limits: Limits,
    evaluated: RefCell<HashMap<PathBuf, Result<Node, String>>>,
}

impl Template {
    /// The template folder's files, the values, the context's and the
    /// project's names, and the bounds.
    #[must_use]
    pub fn new(fs: Arc<dyn Files>, values: &Node, names: [&str; 2], limits: Limits) -> Template {
        let mut context = values.to_json_value();
        if let serde_json::Value::Object(fields) = &mut context {
            for (key, name) in ["name", "projectName"].into_iter().zip(names) {
                fields
                    .entry(key)
                    .or_insert_with(|| serde_json::Value::String(name.to_owned()));
            }
        }
        Template {
            fs,
            context: context.to_string(),
            limits,
            evaluated: RefCell::new(HashMap::new()),
        }
    }

    /// The host for expressions written in the feature file `from`
    /// (relative to the template folder).
    #[must_use]
    pub fn for_file<'a>(&'a self, from: &'a Path) -> FileHost<'a> {
        FileHost {
            template: self,
            from,
        }
    }

    fn jsonnet(&self, path: &Path) -> Result<Node, String> {
        if let Some(done) = self.evaluated.borrow().get(path) {
            return done.clone();
        }
        let setup = Setup {
            fs: self.fs.clone(),
            lib_paths: Vec::new(),
            ext_vars: vec![("context".to_owned(), Input::Code(self.context.clone()))],
            limits: self.limits,
        };
        let result = Vm::new(&setup)
            .and_then(|vm| vm.import(path))
            .and_then(|value| {
                strata_jsonnet::value::to_node(&value, Span::default(), self.limits.max_depth)
                    .map_err(|error| Failure::from_error(&error))
            })
            .map_err(|failure| describe(path, &failure));
        self.evaluated
            .borrow_mut()
            .insert(path.to_path_buf(), result.clone());
        result
    }
}

/// `path` relative to the file `from`, kept inside the template folder.
fn resolve(from: &Path, path: &str) -> Result<PathBuf, String> {
    strata_fs::join(from, path)
        .map_err(|_| format!("`{path}` leads outside the template folder (`contexts/_template`)"))
}

/// A Jsonnet failure as one line: the message and where, innermost first.
fn describe(path: &Path, failure: &Failure) -> String {
    let place = failure.frames.first().map(|frame| {
        let before = &frame.code[..frame.start.min(frame.code.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!(" at {}:{line}:{column}", frame.file)
    });
    format!(
        "`jsonnet(\"{}\")` failed: {}{}",
        path.display(),
        failure.message,
        place.unwrap_or_default()
    )
}

/// The host of one feature file.
pub struct FileHost<'a> {
    template: &'a Template,
    from: &'a Path,
}

impl Host for FileHost<'_> {
    fn jsonnet(&self, path: &str) -> Result<Node, String> {
        let resolved = resolve(self.from, path)?;
        self.template.jsonnet(&resolved)
    }

    fn file(&self, path: &str) -> Result<String, String> {
        let resolved = resolve(self.from, path)?;
        self.template
            .fs
            .read(&resolved, self.template.limits.max_bytes)
            .map_err(|error| error.to_string())
    }
}

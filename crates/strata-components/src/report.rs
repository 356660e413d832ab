//! A render's reporting on the calling thread: the sources its diagnostics
//! point into (the command line's values, the Jsonnet files of traces, the
//! components' files) and the problems found across components.
//!
//! Jsonnet failures and traces become diagnostics through
//! [`strata_jsonnet::TraceSources`], as in every dialect that evaluates
//! Jsonnet.

use std::collections::HashMap;

use strata_jsonnet::{Failure, TraceSources, Traced};
use strata_syntax::{Diagnostic, MapHasher, SourceDb, Span};

use crate::codes;
use crate::load::{Application, Component, Source};
use crate::workers::{Document, Prepared};

/// A render's own state on the calling thread.
pub(crate) struct Render {
    pub(crate) db: SourceDb,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Declared external variables with no value and no default, each with
    /// its declaration: reading one is `components/missing-var`.
    pub(crate) unset_variables: Vec<(String, Span)>,
    traces: TraceSources,
}

impl Render {
    /// Reports into `db` about `application`.
    pub(crate) fn new(db: SourceDb, application: &Application) -> Render {
        Render {
            db,
            diagnostics: Vec::new(),
            unset_variables: Vec::new(),
            traces: TraceSources::new(application.fs.clone(), application.limits.max_bytes),
        }
    }

    /// Registers `flag value` as the command line's and spans the value.
    pub(crate) fn command_line(&mut self, flag: &str, value: &str) -> Span {
        strata_dialect::command_line(&mut self.db, flag, value)
    }

    /// What a worker needs for `component`: the span of its output (its
    /// file, read and registered) and a Jsonnet file's text.
    pub(crate) fn prepare(&mut self, component: &Component) -> Prepared {
        match &component.source {
            Source::Documents { files, folder } => {
                let first = files
                    .first()
                    .map(|(_, value)| value.span)
                    .unwrap_or_default();
                let span = if *folder {
                    Span::file_start(first.source)
                } else {
                    first
                };
                Prepared { span, text: None }
            }
            Source::Jsonnet(file) => {
                let (span, text) = self.traces.read_file(&mut self.db, file);
                Prepared { span, text }
            }
        }
    }

    /// A failed evaluation of `what` as a diagnostic; reading a declared
    /// external variable that has no value is `components/missing-var`, at
    /// the read, with the declaration.
    pub(crate) fn failure(&mut self, what: &str, fallback: Span, failure: &Failure) -> Diagnostic {
        let mut diagnostic = self.traces.failure(&mut self.db, what, fallback, failure);
        let unset = failure
            .undefined_variable
            .as_ref()
            .and_then(|name| self.unset_variables.iter().find(|(unset, _)| unset == name));
        if let Some((name, declared)) = unset {
            diagnostic.code = codes::MISSING_VAR;
            diagnostic.message = format!(
                "{what} reads the external variable `{name}`, which has no value and no default"
            );
            diagnostic = diagnostic
                .with_secondary(*declared, "declared here")
                .with_help(crate::variables::give_help(name));
        }
        diagnostic
    }

    /// A `std.trace` message of `what`.
    pub(crate) fn trace(&mut self, what: &str, fallback: Span, traced: &Traced) {
        let note = self.traces.trace(&mut self.db, what, fallback, traced);
        self.diagnostics.push(note);
    }

    /// Two objects of one kind, namespace and name are an error naming both.
    pub(crate) fn duplicates(&mut self, documents: &[(&String, Document)]) {
        let mut seen: HashMap<&(String, String, String), (&str, Span), MapHasher> =
            HashMap::with_capacity_and_hasher(documents.len(), MapHasher::default());
        for (component, document) in documents.iter().filter(|(_, d)| d.named) {
            let identity = &document.identity;
            if let Some((first, first_span)) = seen.get(identity) {
                let (namespace, kind, name) = identity;
                let place = if namespace.is_empty() {
                    String::new()
                } else {
                    format!(" in namespace `{namespace}`")
                };
                let origin = if first == component {
                    format!("twice from `{component}`")
                } else {
                    format!("from both `{first}` and `{component}`")
                };
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::DUPLICATE_OBJECT,
                        format!("the {kind} `{name}`{place} comes {origin}"),
                        document.span,
                    )
                    .with_secondary(*first_span, "the first one"),
                );
                continue;
            }
            seen.insert(identity, (component.as_str(), document.span));
        }
    }
}

/// Names as a list for a message: `` `a`, `b` ``.
pub(crate) fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

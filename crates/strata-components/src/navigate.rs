//! What an editor shows of a qbec application ([`strata_dialect::navigate`]).
//!
//! - **Symbols**: every environment (at its name in `qbec.yaml` or the
//!   environment file that defines it last) and every component (at the
//!   start of its file, or of each file of a folder component).
//! - **References**: each name in `spec.excludes` and in an environment's
//!   `includes` and `excludes` to the component.
//! - **Schema**: `qbec.yaml`.

use std::path::Path;

use strata_dialect::{Outline, Reference, Symbol, SymbolKind};
use strata_syntax::{Node, SourceDb, Span};

use crate::load::{Application, Source};

/// The kinds `includes` and `excludes` name.
const COMPONENTS: &[SymbolKind] = &[SymbolKind::Component];

/// The schema of the application file at `path`.
pub(crate) fn schema_of(path: &Path) -> Option<&'static serde_json::Value> {
    (path == Path::new(crate::APP_FILE)).then(crate::app_schema)
}

impl Application {
    /// [`strata_dialect::Dialect::outline`].
    pub(crate) fn outline(&self, db: &mut SourceDb) -> Outline {
        let mut outline = Outline {
            naming_keys: vec![("includes", COMPONENTS), ("excludes", COMPONENTS)],
            ..Outline::default()
        };
        for (name, defined) in &self.environments {
            outline.symbols.push(Symbol {
                name: name.clone(),
                kind: SymbolKind::Environment,
                span: defined.node.span,
                name_span: defined.name_span,
                detail: Some(format!(
                    "default namespace `{}`",
                    defined.environment.default_namespace
                )),
            });
        }
        for (name, component) in &self.components {
            let detail = match &component.source {
                Source::Jsonnet(_) => "Jsonnet component",
                Source::Documents { folder: true, .. } => "folder component",
                Source::Documents { .. } => "JSON or YAML component",
            };
            for file in component.files() {
                let span = Span::file_start(self.file_source(db, file));
                outline.symbols.push(Symbol {
                    name: name.clone(),
                    kind: SymbolKind::Component,
                    span,
                    name_span: span,
                    detail: Some(detail.to_owned()),
                });
            }
        }
        let lists = self
            .app_node
            .get("spec")
            .and_then(|spec| spec.get("excludes"))
            .into_iter()
            .chain(self.environments.values().flat_map(|defined| {
                ["includes", "excludes"]
                    .into_iter()
                    .filter_map(|key| defined.node.get(key))
            }));
        for named in lists.filter_map(Node::as_seq).flatten() {
            if let Some(target) = named
                .as_str()
                .and_then(|name| outline.target_of(name, COMPONENTS))
            {
                outline.references.push(Reference {
                    span: named.span,
                    target,
                });
            }
        }
        outline
    }

    /// The source of `file` (below the root): the one registered when it
    /// was read, else an empty one that names it.
    fn file_source(&self, db: &mut SourceDb, file: &Path) -> strata_syntax::SourceId {
        let name = self.fs.display(file);
        db.find(&name).unwrap_or_else(|| db.add(name, ""))
    }
}

//! What an editor shows of a qbec application ([`strata_dialect::navigate`]).
//!
//! - **Symbols**: every environment (at its name in `qbec.yaml` or the
//!   environment file that defines it last) and every component (at the
//!   start of its file, or of each file of a folder component).
//! - **References**: each name in `spec.excludes` and in an environment's
//!   `includes` and `excludes` to the component; each `import`,
//!   `importstr` and `importbin` of a literal path in the Jsonnet files
//!   (the components, the post-processor, and what they import, at most
//!   [`MAX_SCANNED`] files) to the file it resolves to, as evaluation
//!   resolves it (beside the importing file, then in `libPaths`).
//! - **Explain**: a property of an environment, the `baseProperties`
//!   value it overrides (qbec merges an environment's properties over
//!   them); a base property, each environment that overrides it.
//! - **Schema**: `qbec.yaml`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use std::fmt::Write as _;

use strata_dialect::{Category, Outline, Reference, Symbol, SymbolKind, describe_value, place};
use strata_jsonnet::imports::{Import, imports};
use strata_syntax::{Segment, SourceDb, SourceId, Span};

use crate::load::{Application, Source};

/// A component.
pub(crate) const COMPONENT_KIND: SymbolKind = SymbolKind::new("component", Category::File);
/// A environment.
pub(crate) const ENVIRONMENT_KIND: SymbolKind = SymbolKind::new("environment", Category::Namespace);

/// Every kind of symbol the dialect defines.
pub(crate) const SYMBOL_KINDS: &[SymbolKind] = &[COMPONENT_KIND, ENVIRONMENT_KIND];

/// How many Jsonnet files the outline reads for imports.
const MAX_SCANNED: usize = 10_000;

/// The kinds `includes` and `excludes` name.
const COMPONENTS: &[SymbolKind] = &[COMPONENT_KIND];

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
                kind: ENVIRONMENT_KIND,
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
                    kind: COMPONENT_KIND,
                    span,
                    name_span: span,
                    detail: Some(detail.to_owned()),
                });
            }
        }
        let excluded = self
            .app_node
            .get("spec")
            .map_or(&[][..], |spec| spec.items("excludes"));
        let named_by_environments = self.environments.values().flat_map(|defined| {
            ["includes", "excludes"]
                .into_iter()
                .flat_map(|key| defined.node.items(key))
        });
        for named in excluded.iter().chain(named_by_environments) {
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
        self.import_references(db, &mut outline.references);
        outline
    }

    /// [`strata_dialect::Dialect::explain`]: where a property is
    /// overridden; see the module docs.
    pub(crate) fn explain(&self, db: &SourceDb, at: Span) -> Option<String> {
        let base = self
            .app_node
            .get("spec")
            .and_then(|spec| spec.get("baseProperties"));
        for (environment, defined) in &self.environments {
            let Some(path) = defined.node.path_to(at) else {
                continue;
            };
            let (Some(Segment::Key(first)), rest) =
                (path.segments().first(), &path.segments()[1..])
            else {
                return None;
            };
            if first != "properties" || rest.is_empty() {
                return None;
            }
            let mut text = format!("**`{path}`** of environment `{environment}`\n\n");
            match base.and_then(|base| base.at(rest)) {
                Some(overridden) => {
                    let _ = writeln!(
                        text,
                        "- overrides {} from `baseProperties` ({})",
                        describe_value(overridden),
                        place(db, overridden.span)
                    );
                }
                None => text.push_str("- not in `baseProperties`\n"),
            }
            return Some(text);
        }
        let path = base?.path_to(at)?;
        if path.segments().is_empty() {
            return None;
        }
        let mut text = format!("**`baseProperties.{path}`**\n\n");
        for (environment, defined) in &self.environments {
            let overriding = defined
                .node
                .get("properties")
                .and_then(|properties| properties.at(path.segments()));
            let _ = match overriding {
                Some(node) => writeln!(
                    text,
                    "- overridden in environment `{environment}`: {} ({})",
                    describe_value(node),
                    place(db, node.span)
                ),
                None => writeln!(text, "- environment `{environment}` keeps it"),
            };
        }
        Some(text)
    }

    /// Each import of the Jsonnet files, to the file it resolves to. The
    /// files are read breadth first, each round's parsed together on one
    /// evaluation stack.
    fn import_references(&self, db: &mut SourceDb, references: &mut Vec<Reference>) {
        let mut round: Vec<PathBuf> = self
            .components
            .values()
            .filter_map(|component| match &component.source {
                Source::Jsonnet(file) => Some(file.clone()),
                Source::Documents { .. } => None,
            })
            .chain(self.post_processor.iter().cloned())
            .collect();
        let mut scanned = BTreeSet::new();
        while !round.is_empty() {
            round.retain(|file| scanned.len() < MAX_SCANNED && scanned.insert(file.clone()));
            let sources: Vec<SourceId> = round
                .iter()
                .map(|file| self.file_source(db, file))
                .collect();
            let texts: Vec<&str> = sources
                .iter()
                .map(|source| db.get(*source).text())
                .collect();
            // Parsed once per text: the outline is made again after every
            // change, and most files did not change.
            let parse = |unseen: &[&str]| -> Vec<Vec<Import>> {
                strata_jsonnet::on_evaluation_stack(|| {
                    unseen.iter().map(|text| imports(text)).collect()
                })
            };
            let found = match &self.cache {
                Some(cache) => cache.imports(&texts, parse),
                None => parse(&texts),
            };
            let mut next = Vec::new();
            for ((file, source), found) in round.iter().zip(sources).zip(found) {
                for import in found {
                    let Ok(Some(target)) = strata_jsonnet::resolve_import(
                        self.fs.as_ref(),
                        &self.lib_paths,
                        file,
                        &import.path,
                    ) else {
                        continue;
                    };
                    references.push(Reference {
                        span: Span::new(source, import.range.start, import.range.end),
                        target: Span::file_start(self.file_source(db, &target)),
                    });
                    let jsonnet = target.extension().is_some_and(|extension| {
                        extension == "jsonnet" || extension == "libsonnet"
                    });
                    if jsonnet {
                        next.push(target);
                    }
                }
            }
            round = next;
        }
    }

    /// The source of `file` (below the root): the one registered when it
    /// was read, else the file read now (empty when it cannot be).
    fn file_source(&self, db: &mut SourceDb, file: &Path) -> SourceId {
        let name = self.fs.display(file);
        db.find(&name).unwrap_or_else(|| {
            let text = self
                .fs
                .read(file, self.limits.max_bytes)
                .unwrap_or_default();
            db.add(name, text)
        })
    }
}

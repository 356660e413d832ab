//! What an editor shows of a Windsor project ([`strata_dialect::navigate`]).
//!
//! - **Symbols**: every feature (at its `metadata.name`), and every
//!   Terraform component (at its `name`, else its `path`: what `dependsOn`
//!   names it by) and kustomization of the blueprint and the features.
//! - **References**: each `dependsOn` entry to the component or
//!   kustomization of that name in the same section, the blueprint's
//!   first, as composition merges a feature's entry into it.
//! - **Explain**: a value of a feature's component or kustomization: when
//!   it applies (the feature's `when` and the entry's), and what it merges
//!   over in the blueprint's entry of the same identity (a Terraform
//!   component's `path` and `source`, a kustomization's `name`), or that
//!   it replaces that entry whole (`strategy: replace`). A `when` or a
//!   text with `${..}`: what it gives in each context of `windsor.yaml`
//!   (its values, as a render without `--set` reads them), unless it
//!   calls `jsonnet()`: a hover evaluates no Jsonnet, which could run
//!   without end in the editor's server.
//! - **Functions**: `values`, `jsonnet` and `file`.
//! - **Schemas**: `blueprint.yaml` and the feature files of the template
//!   folder.

use std::fmt::Write as _;
use std::path::Path;

use std::cell::RefCell;
use strata_dialect::{
    Category, FunctionDoc, Outline, Reference, Symbol, SymbolKind, describe_value, place,
};

use strata_cond::Template;
use strata_dialect::Reader;
use strata_syntax::{FieldPath, Node, Segment, SourceDb, Span};

use crate::{
    BLUEPRINT, BLUEPRINT_FILE, FEATURE, Feature, Project, RenderRequest, TEMPLATE_DIR, host,
};

/// A feature.
pub(crate) const FEATURE_KIND: SymbolKind = SymbolKind::new("feature", Category::Module);
/// A Terraform component.
pub(crate) const TERRAFORM_COMPONENT_KIND: SymbolKind =
    SymbolKind::new("Terraform component", Category::Package);
/// A kustomization.
pub(crate) const KUSTOMIZATION_KIND: SymbolKind =
    SymbolKind::new("kustomization", Category::Package);

/// Every kind of symbol the dialect defines.
pub(crate) const SYMBOL_KINDS: &[SymbolKind] =
    &[FEATURE_KIND, TERRAFORM_COMPONENT_KIND, KUSTOMIZATION_KIND];

/// The kinds a `dependsOn` entry may name.
const DEPENDENCIES: &[SymbolKind] = &[KUSTOMIZATION_KIND, TERRAFORM_COMPONENT_KIND];

/// The sections of a blueprint or feature, each with the kind of its
/// entries and the key that names an entry, in order of preference.
const SECTIONS: [(&str, SymbolKind, &[&str]); 2] = [
    ("terraform", TERRAFORM_COMPONENT_KIND, &["name", "path"]),
    ("kustomize", KUSTOMIZATION_KIND, &["name"]),
];

/// The functions of `when` and `${..}` expressions.
pub(crate) fn functions() -> Vec<FunctionDoc> {
    strata_cond::eval::FUNCTIONS
        .iter()
        .map(|function| FunctionDoc::new(function.name, function.signature, function.summary))
        .collect()
}

/// The schema of the project file at `path`.
pub(crate) fn schema_of(path: &Path) -> Option<&'static serde_json::Value> {
    let template = path.strip_prefix(TEMPLATE_DIR).ok()?;
    if template == Path::new(BLUEPRINT_FILE) {
        Some(BLUEPRINT.schema())
    } else if template.starts_with("features")
        && template
            .extension()
            .is_some_and(|extension| extension == "yaml" || extension == "yml")
    {
        Some(FEATURE.schema())
    } else {
        None
    }
}

impl Project {
    /// [`strata_dialect::Dialect::outline`].
    pub(crate) fn outline(&self) -> Outline {
        let mut outline = Outline {
            naming_keys: vec![("dependsOn", DEPENDENCIES)],
            ..Outline::default()
        };
        let trees: Vec<&Node> = self
            .blueprint
            .iter()
            .map(|blueprint| &blueprint.1)
            .chain(self.features.iter().map(|feature| &feature.tree))
            .collect();
        for feature in &self.features {
            let metadata = feature.tree.get("metadata");
            let name = metadata.and_then(|metadata| metadata.get("name"));
            outline.symbols.push(Symbol {
                name: feature.model.metadata.name.clone(),
                kind: FEATURE_KIND,
                span: feature.tree.span,
                name_span: name.map_or(feature.tree.span, |name| name.span),
                detail: feature.model.metadata.description.clone(),
            });
        }
        for tree in &trees {
            for (section, kind, naming) in SECTIONS {
                for entry in tree.items(section) {
                    if let Some(name) = naming.iter().find_map(|key| entry.get(key))
                        && let Some(text) = name.as_str()
                    {
                        outline.symbols.push(Symbol {
                            name: text.to_owned(),
                            kind,
                            span: entry.span,
                            name_span: name.span,
                            detail: None,
                        });
                    }
                }
            }
        }
        for tree in &trees {
            for (section, kind, _) in SECTIONS {
                for dependency in tree
                    .items(section)
                    .iter()
                    .filter_map(|entry| entry.get("dependsOn"))
                    .filter_map(Node::as_seq)
                    .flatten()
                {
                    if let Some(target) = dependency
                        .as_str()
                        .and_then(|name| outline.target_of(name, &[kind]))
                    {
                        outline.references.push(Reference {
                            span: dependency.span,
                            target,
                        });
                    }
                }
            }
        }
        outline
    }

    /// [`strata_dialect::Dialect::explain`]; see the module docs.
    pub(crate) fn explain(&self, db: &SourceDb, at: Span) -> Option<String> {
        let (feature, path) = self
            .features
            .iter()
            .find_map(|feature| Some((feature, feature.tree.path_to(at)?)))?;
        if let Some(values) = self.expression_values(feature, &path) {
            return Some(values);
        }
        let [Segment::Key(section), Segment::Index(index), rest @ ..] = path.segments() else {
            return None;
        };
        let (_, _, naming) = SECTIONS.iter().find(|(name, _, _)| name == section)?;
        let entry = feature.tree.items(section).get(*index)?;
        let name = &feature.model.metadata.name;
        let mut text = format!("**`{path}`** of feature `{name}`\n\n");
        let conditions: Vec<String> = [feature.tree.get("when"), entry.get("when")]
            .into_iter()
            .flatten()
            .filter_map(|when| when.as_str().map(|text| format!("`{text}`")))
            .collect();
        if !conditions.is_empty() {
            let _ = writeln!(text, "- applies when {}", conditions.join(" and "));
        }
        let identity = |entry: &Node| -> Vec<Option<String>> {
            let keys: &[&str] = if *section == "terraform" {
                &["path", "source"]
            } else {
                naming
            };
            keys.iter()
                .map(|key| entry.get(key).and_then(Node::as_str).map(str::to_owned))
                .collect()
        };
        let base = self.blueprint.as_deref().and_then(|(_, tree)| {
            tree.items(section)
                .iter()
                .find(|base| identity(base) == identity(entry))
        });
        let replaces = entry.get("strategy").and_then(Node::as_str) == Some("replace");
        match base {
            Some(base) if replaces => {
                let _ = writeln!(
                    text,
                    "- replaces the blueprint's entry whole ({})",
                    place(db, base.span)
                );
            }
            Some(base) => match base.at(rest) {
                Some(value) if !rest.is_empty() => {
                    let _ = writeln!(
                        text,
                        "- merges over {} from the blueprint ({})",
                        describe_value(value),
                        place(db, value.span)
                    );
                }
                _ => {
                    let _ = writeln!(
                        text,
                        "- merges into the blueprint's entry ({})",
                        place(db, base.span)
                    );
                }
            },
            None => text.push_str("- adds an entry the blueprint does not have\n"),
        }
        Some(text)
    }

    /// What the `when` or `${..}` text at `path` of `feature` gives in
    /// each context; `None` when the value there is no expression.
    fn expression_values(&self, feature: &Feature, path: &FieldPath) -> Option<String> {
        let written = feature.tree.at(path.segments())?;
        let text = written.as_str()?;
        let is_when = path.segments().last() == Some(&Segment::Key("when".to_owned()));
        if !is_when && !strata_syntax::substitution::has_opening(text) {
            return None;
        }
        // Without `windsor.yaml`, no context has values to show.
        self.windsor.as_ref()?;
        let mut lines = format!(
            "**`{path}`** of feature `{}`\n\n",
            feature.model.metadata.name
        );
        for context in self.context_names() {
            let mut db = SourceDb::extending(self.sources.clone());
            let mut problems = Vec::new();
            let mut files = Reader::new(self.root.as_ref(), &mut db, self.limits);
            let request = RenderRequest {
                context: context.to_owned(),
                sets: Vec::new(),
            };
            let Some(values) = self.values(&request, &mut files, &mut problems) else {
                let _ = writeln!(lines, "- in context `{context}`: its values cannot be read");
                continue;
            };
            let shared = RefCell::new(db);
            let template = self.host(&values, context, &shared, host::Jsonnet::Refused);
            let host = template.for_file(&feature.path);
            let given = if is_when {
                strata_cond::condition(text, &values, &host).map(|holds| format!("`{holds}`"))
            } else {
                Template::parse(text).and_then(|template| {
                    let value = template
                        .map(|template| template.render(&values, &host, written.span))
                        .transpose()?;
                    Ok(value
                        .map_or_else(|| describe_value(written), |value| describe_value(&value)))
                })
            };
            let _ = match given {
                _ if template.refused() => writeln!(
                    lines,
                    "- in context `{context}`: not evaluated on hover, it calls `jsonnet()` (a check evaluates it)"
                ),
                Ok(value) => writeln!(lines, "- in context `{context}`: {value}"),
                Err(error) => writeln!(lines, "- in context `{context}`: fails, {}", error.message),
            };
        }
        Some(lines)
    }
}

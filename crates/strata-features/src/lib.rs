//! The `features` dialect: a Windsor project's base blueprint extended by
//! conditional feature files, compatible with Windsor projects.
//!
//! ```text
//! PROJECT/
//!   windsor.yaml                    contexts.<NAME>: the context's values
//!   contexts/<NAME>/values.yaml     values merged over them (optional)
//!   contexts/_template/
//!     blueprint.yaml                kind: Blueprint
//!     features/**/*.yaml            kind: Feature
//! ```
//!
//! The pipeline, and the module that does each step:
//!
//! 1. [`config`]: the values expressions see (the context block, then
//!    `values.yaml`, then `--set`).
//! 2. The blueprint and the features are decoded strictly ([`model`]);
//!    feature names must be unique; features apply in name order.
//! 3. [`compose`]: the blueprint's components, then each feature whose
//!    `when` holds: each of its components whose own `when` holds, with
//!    `${..}` evaluated ([`strata_cond`]), merged by its strategy.
//!    `jsonnet()` and `file()` read through [`host`], confined to the
//!    template folder.
//! 4. [`graph`]: `dependsOn` names exist and have no cycle.
//!
//! A `when` that yields `null` is false; anything but a boolean is an error
//! at the expression. Every problem is reported, with the file, line and
//! column (inside the expression when the text can be found as written).
//!
//! | code | when |
//! |---|---|
//! | `features/io` | a file cannot be read or parsed |
//! | `features/duplicate-feature` | two features share a name (both files named) |
//! | `features/duplicate-entry` | one file gives the same component or kustomization twice |
//! | `features/missing-path` | a composed kustomization has no `path` |
//! | `features/source-mismatch` (warning) | a feature's component has an existing one's `path` but another `source`, so it is added, not merged |
//! | `cond/parse`, `cond/eval` | an expression is malformed or fails |
//!
//! The other codes are listed by [`config`] and [`graph`]; decoding
//! problems are `schema/*`.

#![forbid(unsafe_code)]

pub mod compose;
pub mod config;
pub mod graph;
pub mod host;
pub mod model;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use strata_fs::{Files, FsError, RootFs};
use strata_schema::Decoder;
use strata_syntax::{Diagnostic, Entry, LayerId, Limits, Node, SourceDb, Span, Value};

use compose::{Composer, Section};
use model::{BlueprintFile, FeatureFile};

/// The template folder, relative to the project.
pub const TEMPLATE_DIR: &str = "contexts/_template";

static BLUEPRINT: LazyLock<Decoder<BlueprintFile>> = LazyLock::new(Decoder::new);
static FEATURE: LazyLock<Decoder<FeatureFile>> = LazyLock::new(Decoder::new);

/// The JSON Schema of `blueprint.yaml`.
#[must_use]
pub fn blueprint_schema() -> &'static serde_json::Value {
    BLUEPRINT.schema()
}

/// The JSON Schema of a feature file.
#[must_use]
pub fn feature_schema() -> &'static serde_json::Value {
    FEATURE.schema()
}

/// A Windsor project.
pub struct Project {
    /// The project's name (its folder's), `projectName` for Jsonnet.
    pub name: String,
    /// Files below the project root (`windsor.yaml`, `contexts/<NAME>`).
    pub root: Arc<dyn Files>,
    /// Files below `contexts/_template`, where blueprint, features and the
    /// files of `jsonnet()`/`file()` are.
    pub template: Arc<dyn Files>,
}

/// What to render.
#[derive(Debug, Clone, Default)]
pub struct RenderRequest {
    /// The context.
    pub context: String,
    /// `--set PATH=VALUE`, in order.
    pub sets: Vec<(String, String)>,
}

/// Which features made an entry of the blueprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contribution {
    /// `terraform` or `kustomize`.
    pub section: Section,
    /// The entry's name (`name`, else `path`).
    pub id: String,
    /// Where that name is written (the `name`, else `path`, scalar).
    pub at: Span,
    /// `blueprint` and the features, in the order they applied.
    pub sources: Vec<String>,
}

/// A composed blueprint.
pub struct Rendered {
    /// The blueprint, `when`/`strategy` removed, with every node's layer.
    pub blueprint: Node,
    /// The layers by [`LayerId`]: `blueprint`, then each feature applied.
    pub layers: Vec<String>,
}

impl Rendered {
    /// For each Terraform component and kustomization, who contributed.
    #[must_use]
    pub fn contributions(&self) -> Vec<Contribution> {
        let mut found = Vec::new();
        for section in [Section::Terraform, Section::Kustomize] {
            for entry in self
                .blueprint
                .get(section.key())
                .and_then(Node::as_seq)
                .unwrap_or_default()
            {
                let mut layers = BTreeSet::new();
                collect_layers(entry, &mut layers);
                found.push(Contribution {
                    section,
                    id: graph::id(entry, section).to_owned(),
                    at: entry
                        .get("name")
                        .or_else(|| entry.get("path"))
                        .map_or(entry.span, |key| key.span),
                    sources: layers
                        .into_iter()
                        .filter_map(|layer| self.layers.get(layer as usize).cloned())
                        .collect(),
                });
            }
        }
        found
    }
}

fn collect_layers(node: &Node, layers: &mut BTreeSet<u32>) {
    if let Some(layer) = node.layer {
        layers.insert(layer.0);
    }
    match &node.value {
        Value::Seq(items) => items.iter().for_each(|item| collect_layers(item, layers)),
        Value::Map(entries) => entries
            .values()
            .for_each(|entry| collect_layers(&entry.value, layers)),
        _ => {}
    }
}

impl Project {
    /// A project on disk.
    pub fn open(dir: &Path) -> Result<Project, FsError> {
        let name = std::path::absolute(dir)
            .ok()
            .and_then(|dir| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        Ok(Project {
            name,
            root: Arc::new(RootFs::new(dir)?),
            template: Arc::new(RootFs::new(dir.join(TEMPLATE_DIR))?),
        })
    }

    /// Composes the blueprint of `request.context`. Diagnostics resolve in
    /// `db`, where every file read is registered.
    pub fn render(
        &self,
        request: &RenderRequest,
        limits: Limits,
        db: &mut SourceDb,
    ) -> (Option<Rendered>, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let rendered = self.render_into(request, limits, db, &mut diagnostics);
        if diagnostics.iter().any(Diagnostic::is_error) {
            return (None, diagnostics);
        }
        (rendered, diagnostics)
    }

    fn render_into(
        &self,
        request: &RenderRequest,
        limits: Limits,
        db: &mut SourceDb,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Rendered> {
        let values = config::values(
            self.root.as_ref(),
            &request.context,
            &request.sets,
            &limits,
            db,
            diagnostics,
        );
        let blueprint = self.blueprint(limits, db, diagnostics);
        let features = self.features(limits, db, diagnostics);
        let (values, blueprint) = (values?, blueprint?);
        if diagnostics.iter().any(Diagnostic::is_error) {
            return None;
        }
        let names = [request.context.as_str(), self.name.as_str()];
        let template = host::Template::new(self.template.clone(), &values, names, limits);
        let blueprint_path = PathBuf::from("blueprint.yaml");
        let mut composer = Composer::new(db, &values);
        let mut layers = vec!["blueprint".to_owned()];
        for section in [Section::Terraform, Section::Kustomize] {
            composer.apply(
                &blueprint,
                section,
                LayerId(0),
                &template.for_file(&blueprint_path),
            );
        }
        for (path, feature) in &features {
            let host = template.for_file(path);
            if composer.when(feature.get("when"), &host) != Some(true) {
                continue;
            }
            let layer = LayerId(u32::try_from(layers.len()).unwrap_or(u32::MAX));
            layers.push(feature_name(feature).to_owned());
            for section in [Section::Terraform, Section::Kustomize] {
                composer.apply(feature, section, layer, &host);
            }
        }
        diagnostics.append(&mut composer.diagnostics);
        for (entries, section) in [
            (&composer.terraform, Section::Terraform),
            (&composer.kustomize, Section::Kustomize),
        ] {
            diagnostics.extend(graph::check(entries, section, &composer.left_out));
        }
        for kustomization in &composer.kustomize {
            if kustomization.get("path").is_none() {
                let name = kustomization.get("name");
                diagnostics.push(Diagnostic::error(
                    "features/missing-path",
                    format!(
                        "the kustomization `{}` has no `path`",
                        graph::id(kustomization, Section::Kustomize)
                    ),
                    name.map_or(kustomization.span, |n| n.span),
                ));
            }
        }
        let blueprint = assemble(blueprint, composer.terraform, composer.kustomize);
        // The composed result must still be a blueprint (inputs and
        // substitutions now hold values, not expressions).
        diagnostics.extend(BLUEPRINT.validate(&blueprint));
        Some(Rendered { blueprint, layers })
    }

    /// `blueprint.yaml`, checked.
    fn blueprint(
        &self,
        limits: Limits,
        db: &mut SourceDb,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Node> {
        let node = config::read_document(
            self.template.as_ref(),
            Path::new("blueprint.yaml"),
            false,
            &limits,
            db,
            diagnostics,
        )??;
        let problems = BLUEPRINT.validate(&node);
        if problems.is_empty() {
            Some(node)
        } else {
            diagnostics.extend(problems);
            None
        }
    }

    /// Every feature file below `features/`, checked, in name order.
    fn features(
        &self,
        limits: Limits,
        db: &mut SourceDb,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<(PathBuf, Node)> {
        let files = match self.template.list(&["yaml"]) {
            Ok(files) => files,
            Err(error) => {
                let id = db.add(self.template.display(Path::new("features")), "");
                diagnostics.push(Diagnostic::error(
                    "features/io",
                    error.to_string(),
                    Span::file_start(id),
                ));
                return Vec::new();
            }
        };
        let mut features: Vec<(PathBuf, Node)> = Vec::new();
        for path in files
            .into_iter()
            .filter(|path| path.starts_with("features"))
        {
            let Some(Some(node)) = config::read_document(
                self.template.as_ref(),
                &path,
                false,
                &limits,
                db,
                diagnostics,
            ) else {
                continue;
            };
            let problems = FEATURE.validate(&node);
            if problems.is_empty() {
                features.push((path, node));
            } else {
                diagnostics.extend(problems);
            }
        }
        features.sort_by(|a, b| feature_name(&a.1).cmp(feature_name(&b.1)));
        let mut first: HashMap<&str, &Node> = HashMap::new();
        for (_, feature) in &features {
            let name_node = feature.get("metadata").and_then(|m| m.get("name"));
            let name = feature_name(feature);
            if let Some(earlier) = first.insert(name, feature) {
                let earlier_span = earlier
                    .get("metadata")
                    .and_then(|m| m.get("name"))
                    .map_or(earlier.span, |n| n.span);
                diagnostics.push(
                    Diagnostic::error(
                        "features/duplicate-feature",
                        format!("two features are named `{name}`"),
                        name_node.map_or(feature.span, |n| n.span),
                    )
                    .with_secondary(earlier_span, "the other one"),
                );
            }
        }
        features
    }
}

fn feature_name(feature: &Node) -> &str {
    feature
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Node::as_str)
        .unwrap_or_default()
}

/// The blueprint with its composed lists in place (added when absent).
fn assemble(mut blueprint: Node, terraform: Vec<Node>, kustomize: Vec<Node>) -> Node {
    let span = blueprint.span;
    if let Value::Map(fields) = &mut blueprint.value {
        for (key, entries) in [("terraform", terraform), ("kustomize", kustomize)] {
            if entries.is_empty() && !fields.contains_key(key) {
                continue;
            }
            let value = Node::new(Value::Seq(entries), span);
            match fields.get_mut(key) {
                Some(entry) => {
                    entry.value = Node {
                        layer: entry.value.layer,
                        ..value
                    }
                }
                None => {
                    fields.insert(
                        key.to_owned(),
                        Entry {
                            key_span: span,
                            value,
                        },
                    );
                }
            }
        }
    }
    blueprint
}

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
//! 1. Opening ([`Project::open`](Dialect::open)) reads `windsor.yaml`,
//!    and decodes the blueprint and the features strictly into the typed
//!    model (`model`: [`BlueprintFile`], [`FeatureFile`]); feature names
//!    must be unique; features apply in name order.
//! 2. Rendering a context: `config` gives the values expressions see (the
//!    context block, then `values.yaml`, then `--set`).
//! 3. `compose`: the blueprint's components, then each feature whose
//!    `when` holds: each of its components whose own `when` holds, with
//!    `${..}` evaluated ([`strata_cond`]), merged by its strategy.
//!    `jsonnet()` and `file()` read through `host`, confined to the
//!    template folder.
//! 4. The composed blueprint is decoded again ([`Rendered::model`]), and
//!    `graph` checks that `dependsOn` names exist and have no cycle.
//!
//! A `when` that yields `null` is false; anything but a boolean is an error
//! at the expression. Every problem is reported, with the file, line and
//! column (inside the expression when the text can be found as written).
//!
//! Every diagnostic code is listed in [`codes`].

#![forbid(unsafe_code)]

mod cli;
pub mod codes;
mod compose;
mod config;
mod graph;
mod host;
mod memo;
mod model;
mod navigate;

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use strata_dialect::{Expect, Listed, Place, Read, Reader};
use strata_fs::Files;
use strata_schema::Decoder;
use strata_syntax::{
    Diagnostic, Entry, Format, LayerId, Limits, MapHasher, Mapping, Node, Segment, SourceDb, Span,
    Value,
};

use compose::{Candidate, Composer, Repeats};
pub use model::{
    API_VERSION, ApiVersion, BlueprintFile, BlueprintKind, ConditionalKustomization,
    ConditionalTerraform, FeatureFile, FeatureKind, Kustomization, MergeStrategy, Metadata, Patch,
    Reference, Repository, Section, Source, Target, TerraformComponent, When,
};

pub use strata_dialect::{Dialect, Opened, Options, Outcome};

/// The template folder, relative to the project.
pub const TEMPLATE_DIR: &str = "contexts/_template";

/// The base blueprint, relative to the template folder.
const BLUEPRINT_FILE: &str = "blueprint.yaml";

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

/// What a library caller may set.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `projectName` for Jsonnet; the project folder's name when `None`.
    pub project_name: Option<String>,
}

/// A Windsor project, opened: its files read and decoded.
pub struct Project {
    /// The project's name, `projectName` for Jsonnet.
    pub name: String,
    root: Arc<dyn Files>,
    template: Arc<dyn Files>,
    limits: Limits,
    /// Told when each `jsonnet()` evaluation of a render starts and ends.
    progress: strata_dialect::Progress,
    sources: Arc<SourceDb>,
    /// `windsor.yaml`, unless it could not be read.
    windsor: Option<Node>,
    /// `blueprint.yaml`, decoded, unless it is invalid; an empty one when
    /// the template has none (named at render after the context).
    blueprint: Option<Arc<(BlueprintFile, Node)>>,
    /// The valid features, in name order.
    features: Vec<Arc<Feature>>,
    /// What opening decoded, for a reopening to reuse
    /// ([`Options::reopening`](strata_dialect::Options::reopening)).
    memo: Option<memo::Memo>,
    /// Whether the project has no `contexts/_template` (made before
    /// templates): each context's own `blueprint.yaml` is its blueprint.
    per_context: bool,
    /// The contexts that have a folder with their own `windsor.yaml` (or
    /// `.yml`) but no block in the root `windsor.yaml`, by name.
    folder_contexts: Vec<String>,
    /// The defaults `contexts/_template/schema.yaml` declares, when it
    /// declares any: the lowest layer of every context's values.
    defaults: Option<Node>,
    /// Whether opening found no error: only then does a render compose.
    complete: bool,
}

/// A feature file, decoded.
struct Feature {
    path: PathBuf,
    model: FeatureFile,
    tree: Node,
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
    /// The blueprint, decoded.
    pub model: BlueprintFile,
    /// The layers by [`LayerId`]: `blueprint`, then each feature applied.
    pub layers: Vec<String>,
}

impl Rendered {
    /// For each Terraform component and kustomization, who contributed.
    #[must_use]
    pub fn contributions(&self) -> Vec<Contribution> {
        let mut found = Vec::new();
        for section in [Section::Terraform, Section::Kustomize] {
            let entries = self
                .blueprint
                .get(section.key())
                .and_then(Node::as_seq)
                .unwrap_or_default();
            for (entry, id) in entries.iter().zip(self.model.ids(section)) {
                let mut layers = BTreeSet::new();
                collect_layers(entry, &mut layers);
                found.push(Contribution {
                    section,
                    id: id.to_owned(),
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

impl Project {
    /// The contexts `windsor.yaml` names, in its order.
    pub fn context_names(&self) -> impl Iterator<Item = &str> {
        self.windsor
            .as_ref()
            .and_then(|windsor| windsor.get("contexts"))
            .and_then(Node::as_map)
            .into_iter()
            .flat_map(|contexts| contexts.keys().map(String::as_str))
            .chain(self.folder_contexts.iter().map(String::as_str))
    }
}

/// The contexts whose folder holds a `windsor.yaml` (or `.yml`, where
/// `windsor init` writes a context's settings) and that the root
/// `windsor.yaml` does not name, sorted. None when `contexts/` cannot be
/// listed (the template's reading reports the folder).
fn folder_contexts(files: &dyn Files, windsor: Option<&Node>) -> Vec<String> {
    let named = windsor
        .and_then(|windsor| windsor.get("contexts"))
        .and_then(Node::as_map);
    let Ok(contexts) = files.subtree(Path::new("contexts")) else {
        return Vec::new();
    };
    let Ok(listing) = contexts.list(&["yaml", "yml"]) else {
        return Vec::new();
    };
    let mut found: Vec<String> = listing
        .files
        .iter()
        .filter_map(|path| {
            let mut parts = path.iter();
            let (folder, file, rest) = (parts.next()?, parts.next()?, parts.next());
            let settings = file == "windsor.yaml" || file == "windsor.yml";
            let name = folder.to_str()?;
            (rest.is_none() && settings && name != "_template").then(|| name.to_owned())
        })
        .filter(|name| !named.is_some_and(|named| named.contains_key(name)))
        .collect();
    found.sort();
    found.dedup();
    found
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

impl Dialect for Project {
    type Settings = Settings;
    type Request = RenderRequest;
    type Rendered = Rendered;

    /// Reads `windsor.yaml`, and the blueprint and the features of
    /// `contexts/_template`, decoded. No project when the template folder
    /// cannot be opened.
    fn open(files: Arc<dyn Files>, options: Options<Settings>) -> Opened<Project> {
        Project::open_after(files, options, None)
    }

    /// As [`Dialect::open`], taking each template file whose text is
    /// unchanged as this opening decoded it ([`memo`]).
    fn reopen(&self, files: Arc<dyn Files>, options: Options<Settings>) -> Opened<Project> {
        Project::open_after(files, options, Some(self))
    }

    fn sources(&self) -> &Arc<SourceDb> {
        &self.sources
    }

    const CHECK_RENDERS: bool = true;

    /// Composes the blueprint of every context `windsor.yaml` names.
    fn check(&self, db: &mut SourceDb) -> Vec<Diagnostic> {
        let requests = self.context_names().map(|context| {
            (
                format!("context `{context}`"),
                RenderRequest {
                    context: context.to_owned(),
                    sets: Vec::new(),
                },
            )
        });
        strata_dialect::render_each(self, requests, db, |diagnostic| {
            matches!(diagnostic.code, codes::UNKNOWN_CONTEXT)
        })
    }

    /// Composes the blueprint of `request.context`. When opening reported
    /// an error, the render checks the request (the context, `values.yaml`,
    /// `--set`) but composes nothing and gives no value.
    fn render(&self, request: &RenderRequest, db: &mut SourceDb) -> Outcome<Rendered> {
        let mut diagnostics = Vec::new();
        let rendered = self.render_into(request, db, &mut diagnostics);
        Outcome::new(rendered, diagnostics).valid()
    }
    fn outline(&self, _db: &mut SourceDb) -> strata_dialect::Outline {
        Project::outline(self)
    }

    fn explain(&self, db: &SourceDb, at: Span) -> Option<String> {
        Project::explain(self, db, at)
    }

    fn schema_of(path: &Path) -> Option<&'static serde_json::Value> {
        navigate::schema_of(path)
    }

    fn functions() -> Vec<strata_dialect::FunctionDoc> {
        navigate::functions()
    }
}

impl Project {
    /// Opens the project, reusing what `previous` decoded of files whose
    /// text did not change.
    fn open_after(
        files: Arc<dyn Files>,
        options: Options<Settings>,
        previous: Option<&Project>,
    ) -> Opened<Project> {
        let mut db = SourceDb::new();
        let mut diagnostics = Vec::new();
        let limits = options.limits;
        // A project made before templates (no `contexts/_template`) has a
        // blueprint per context, read as written at render.
        let (template, per_context) = match files.subtree(Path::new(TEMPLATE_DIR)) {
            Ok(template) => (template, false),
            Err(strata_fs::FsError::Io(_, error))
                if error.kind() == std::io::ErrorKind::NotFound =>
            {
                let empty: Arc<dyn Files> = Arc::new(strata_fs::MemoryFs::new());
                (empty, true)
            }
            Err(error) => {
                let span = Reader::new(files.as_ref(), &mut db, limits)
                    .placeholder(Path::new(TEMPLATE_DIR));
                return Opened::new(db, Outcome::error(error.diagnostic(span)));
            }
        };
        let windsor = Reader::new(files.as_ref(), &mut db, limits)
            .read(
                Path::new(config::WINDSOR_FILE),
                Format::Yaml,
                Expect::AtMostOne,
                Place::File,
            )
            .report(&mut diagnostics)
            .and_then(Read::into_document);
        let mut reader = Reader::new(template.as_ref(), &mut db, limits);
        // What is kept for a reopening, when the project will be reopened.
        let mut memo = (options.reopening || previous.is_some()).then(memo::Memo::default);
        let earlier = previous.and_then(|previous| previous.memo.as_ref());
        let blueprint = if template.is_file(Path::new(BLUEPRINT_FILE)) {
            memo::read_decoded(
                &mut reader,
                &[PathBuf::from(BLUEPRINT_FILE)],
                earlier.map(|memo| &memo.blueprint),
                memo.as_mut().map(|memo| &mut memo.blueprint),
                |_, tree| BLUEPRINT.decode(&tree).map(|model| (model, tree)),
                &mut diagnostics,
            )
            .pop()
            .flatten()
        } else {
            empty_blueprint(&mut diagnostics).map(Arc::new)
        };
        let features = read_features(
            &mut reader,
            earlier.map(|memo| &memo.features),
            memo.as_mut().map(|memo| &mut memo.features),
            &mut diagnostics,
        );
        if let Some(memo) = &mut memo {
            if let Some(earlier) = earlier {
                memo.compositions = earlier.compositions.clone();
            }
            memo.compositions.keep_only(&features);
        }
        let folder_contexts = folder_contexts(files.as_ref(), windsor.as_ref());
        let defaults = template
            .is_file(Path::new(config::SCHEMA_FILE))
            .then(|| {
                reader
                    .read(
                        Path::new(config::SCHEMA_FILE),
                        Format::Yaml,
                        Expect::AtMostOne,
                        Place::File,
                    )
                    .report(&mut diagnostics)
            })
            .flatten()
            .and_then(Read::into_document)
            .and_then(|schema| config::schema_defaults(&schema));
        let name = options.settings.project_name.unwrap_or_else(|| {
            std::path::absolute(files.display(Path::new("")))
                .ok()
                .and_then(|dir| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default()
        });
        Opened::freeze(db, |sources| {
            let project = Project {
                name,
                root: files,
                template,
                limits,
                progress: options.progress,
                sources: sources.clone(),
                windsor,
                blueprint,
                features,
                folder_contexts,
                per_context,
                defaults,
                memo,
                complete: !diagnostics.iter().any(Diagnostic::is_error),
            };
            Outcome::new(Some(project), diagnostics)
        })
    }
}

impl Project {
    /// Evaluates `text` in the environment a `when` of `request.context`
    /// sees (the context's values with `request.sets` applied, the context
    /// and project names, `jsonnet()` and `file()` read from the template
    /// folder): a bare expression, or a `${..}` text when it holds `${`.
    /// The text is registered in `db` as `<expression>`, so a problem
    /// points at its character.
    pub fn evaluate(
        &self,
        request: &RenderRequest,
        text: &str,
        db: &mut SourceDb,
    ) -> Outcome<Node> {
        let mut diagnostics = Vec::new();
        let value = self.evaluate_into(request, text, db, &mut diagnostics);
        Outcome::new(value, diagnostics).valid()
    }

    /// The values `request` gives its context's expressions.
    pub(crate) fn values(
        &self,
        request: &RenderRequest,
        files: &mut Reader<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Node> {
        config::values(
            self.windsor.as_ref()?,
            self.defaults.as_ref(),
            files,
            &request.context,
            &request.sets,
            diagnostics,
        )
    }

    /// What `jsonnet()` and `file()` read for `context`, with `values`;
    /// Jsonnet failures register their files in `shared`. A render
    /// evaluates `jsonnet()`; a hover does not ([`host::Jsonnet`]).
    pub(crate) fn host<'s>(
        &self,
        values: &Node,
        context: &str,
        shared: &'s RefCell<SourceDb>,
        jsonnet: host::Jsonnet,
    ) -> host::Template<'s> {
        host::Template::new(
            self.template.clone(),
            values,
            [context, self.name.as_str()],
            self.limits,
            shared,
            jsonnet,
        )
    }

    fn evaluate_into(
        &self,
        request: &RenderRequest,
        text: &str,
        db: &mut SourceDb,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Node> {
        let mut files = Reader::new(self.root.as_ref(), db, self.limits);
        let values = self.values(request, &mut files, diagnostics)?;
        if diagnostics.iter().any(Diagnostic::is_error) {
            return None;
        }
        let source = db.add("<expression>", text);
        let at = Span::new(source, 0, text.len());
        let shared = RefCell::new(std::mem::take(db));
        let jsonnet = host::Jsonnet::Evaluated(self.progress.clone());
        let template = self.host(&values, &request.context, &shared, jsonnet);
        let host = template.for_file(Path::new(BLUEPRINT_FILE));
        let result = if strata_syntax::substitution::has_opening(text) {
            strata_cond::Template::parse(text).and_then(|parsed| {
                Ok(match parsed {
                    Some(parsed) => parsed.render(&values, &host, at)?,
                    None => Node::new(Value::String(text.to_owned()), at),
                })
            })
        } else {
            strata_cond::parse(text).and_then(|expr| strata_cond::evaluate(&expr, &values, &host))
        };
        drop(template);
        *db = shared.into_inner();
        result
            .map_err(|error| diagnostics.push(error.diagnostic(db, at, text)))
            .ok()
    }

    /// The blueprint of a context in a project without a template:
    /// `contexts/<context>/blueprint.yaml`, decoded, as written (Windsor
    /// reads it as it is).
    fn context_blueprint(
        &self,
        context: &str,
        files: &mut Reader<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Rendered> {
        let path = Path::new("contexts").join(context).join(BLUEPRINT_FILE);
        if !files.is_file(&path) {
            let at = files.placeholder(&path);
            diagnostics.push(
                Diagnostic::error(
                    codes::NO_CONTEXT_BLUEPRINT,
                    format!(
                        "the project has no `{TEMPLATE_DIR}` and the context `{context}` no `{}`",
                        files.display(&path)
                    ),
                    at,
                )
                .with_help(format!(
                    "write the context's blueprint in `{}`, or a template in `{TEMPLATE_DIR}`",
                    files.display(&path)
                )),
            );
            return None;
        }
        let tree = files
            .read(&path, Format::Yaml, Expect::AtMostOne, Place::File)
            .report(diagnostics)?
            .into_document()?;
        if !self.complete || diagnostics.iter().any(Diagnostic::is_error) {
            return None;
        }
        let model = BLUEPRINT
            .decode(&tree)
            .map_err(|problems| diagnostics.extend(problems))
            .ok()?;
        Some(Rendered {
            blueprint: tree,
            model,
            layers: vec!["blueprint".to_owned()],
        })
    }

    fn render_into(
        &self,
        request: &RenderRequest,
        db: &mut SourceDb,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Rendered> {
        let mut files = Reader::new(self.root.as_ref(), db, self.limits);
        let values = self.values(request, &mut files, diagnostics)?;
        if self.per_context {
            return self.context_blueprint(&request.context, &mut files, diagnostics);
        }
        let (blueprint, blueprint_tree) = &**self.blueprint.as_ref()?;
        if !self.complete || diagnostics.iter().any(Diagnostic::is_error) {
            return None;
        }
        // Jsonnet failures register their files while expressions run.
        let shared = RefCell::new(std::mem::take(db));
        let jsonnet = host::Jsonnet::Evaluated(self.progress.clone());
        let template = self.host(&values, &request.context, &shared, jsonnet);
        let mut composer = Composer::new(&shared, &values);
        let mut layers = vec!["blueprint".to_owned()];
        let host = template.for_file(Path::new(BLUEPRINT_FILE));
        for section in Section::ALL {
            let candidates = Candidate::of_blueprint(blueprint, blueprint_tree, section);
            composer.apply(&candidates, section, LayerId(0), &host, Repeats::Refused);
        }
        // The compositions kept, with the key of these values.
        let kept = self
            .memo
            .as_ref()
            .map(|memo| (&memo.compositions, memo::values_key(&values)));
        for feature in &self.features {
            let host = template.for_file(&feature.path);
            let layer = LayerId(u32::try_from(layers.len()).unwrap_or(u32::MAX));
            let mut compose = || {
                template.take_reads();
                let composition = composer.compose_feature(feature, layer, &host);
                (composition, template.take_reads())
            };
            let composition = match kept {
                Some((kept, values)) => {
                    kept.composed(feature, &request.context, layer, values, compose)
                }
                None => Arc::new(compose().0),
            };
            composer
                .diagnostics
                .extend(composition.diagnostics.iter().cloned());
            if composition.applies != Some(true) {
                continue;
            }
            layers.push(feature.model.metadata.name.clone());
            for (section, evaluated) in Section::ALL.into_iter().zip(&composition.sections) {
                let candidates = Candidate::of_feature(&feature.model, &feature.tree, section);
                composer.merge(&candidates, evaluated.clone(), section);
            }
        }
        composer.remove();
        let Composer {
            diagnostics: composing,
            terraform,
            kustomize,
            left_out,
            ..
        } = composer;
        drop(template);
        *db = shared.into_inner();
        // A `jsonnet()` file two expressions call fails once.
        diagnostics.extend(strata_syntax::dedupe(composing));
        let mut tree = assemble(
            blueprint_tree,
            terraform.into_iter().map(|c| c.node).collect(),
            kustomize.into_iter().map(|c| c.node).collect(),
        );
        // As Windsor v0.8: the composed blueprint is the context's, named
        // and described after it whatever the template's `metadata` says.
        name_after_context(&mut tree, &request.context);
        // The composed result must still be a blueprint (inputs and
        // substitutions now hold values, not expressions).
        let model = BLUEPRINT
            .decode(&tree)
            .map_err(|problems| diagnostics.extend(problems))
            .ok()?;
        for section in [Section::Terraform, Section::Kustomize] {
            diagnostics.extend(graph::check(&model, &tree, section, &left_out));
        }
        for (index, kustomization) in model.kustomize.iter().enumerate() {
            if kustomization.path.is_none() {
                let at = [
                    Segment::Key(Section::Kustomize.key().to_owned()),
                    Segment::Index(index),
                    Segment::Key("name".to_owned()),
                ];
                diagnostics.push(Diagnostic::error(
                    codes::MISSING_PATH,
                    format!("the kustomization `{}` has no `path`", kustomization.id()),
                    tree.at(&at).map_or(tree.span, |name| name.span),
                ));
            }
        }
        Some(Rendered {
            blueprint: tree,
            model,
            layers,
        })
    }
}

/// The blueprint of a template without `blueprint.yaml`: no component, no
/// kustomization; its name is the context's, set at render.
fn empty_blueprint(diagnostics: &mut Vec<Diagnostic>) -> Option<(BlueprintFile, Node)> {
    let tree = Node::from_json_value(&serde_json::json!({
        "kind": "Blueprint",
        "apiVersion": "blueprints.windsorcli.dev/v1alpha1",
        "metadata": {"name": "template"},
    }));
    let model = BLUEPRINT
        .decode(&tree)
        .map_err(|problems| diagnostics.extend(problems))
        .ok()?;
    Some((model, tree))
}

/// Names and describes the composed blueprint after `context`, as
/// Windsor v0.8 does (`Blueprint for <context> context`).
fn name_after_context(tree: &mut Node, context: &str) {
    let description = format!("Blueprint for {context} context");
    if let Some(metadata) = tree.at_mut(&[Segment::Key("metadata".to_owned())]) {
        metadata.insert(
            "name",
            Node::new(Value::String(context.to_owned()), metadata.span),
        );
        metadata.insert(
            "description",
            Node::new(Value::String(description), metadata.span),
        );
    }
}

/// Every valid feature file below `features/`, in name order; two of one
/// name are reported.
fn read_features(
    reader: &mut Reader<'_>,
    previous: Option<&memo::Decodes<Feature>>,
    keep: Option<&mut memo::Decodes<Feature>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Arc<Feature>> {
    let Some(files) = reader
        .list(&["yaml"], Listed::Folder(Path::new("features")))
        .report(diagnostics)
    else {
        return Vec::new();
    };
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|path| path.starts_with("features"))
        .collect();
    let decode = |path: &Path, tree: Node| {
        FEATURE.decode(&tree).map(|model| Feature {
            path: path.to_owned(),
            model,
            tree,
        })
    };
    let read = memo::read_decoded(reader, &files, previous, keep, decode, diagnostics);
    let mut features: Vec<Arc<Feature>> = read.into_iter().flatten().collect();
    features.sort_by(|a, b| a.model.metadata.name.cmp(&b.model.metadata.name));
    let name_span = |feature: &Arc<Feature>| {
        feature
            .tree
            .at(&[
                Segment::Key("metadata".to_owned()),
                Segment::Key("name".to_owned()),
            ])
            .map_or(feature.tree.span, |name| name.span)
    };
    let mut first: HashMap<&str, &Arc<Feature>> = HashMap::new();
    for feature in &features {
        let name = feature.model.metadata.name.as_str();
        if let Some(earlier) = first.insert(name, feature) {
            diagnostics.push(
                Diagnostic::error(
                    codes::DUPLICATE_FEATURE,
                    format!("two features are named `{name}`"),
                    name_span(feature),
                )
                .with_secondary(name_span(earlier), "the other one"),
            );
        }
    }
    features
}

/// The blueprint with its composed lists in place (added when absent).
fn assemble(blueprint: &Node, terraform: Vec<Node>, kustomize: Vec<Node>) -> Node {
    let span = blueprint.span;
    let Value::Map(fields) = &blueprint.value else {
        return blueprint.clone();
    };
    let mut composed = [
        ("terraform", Some(terraform)),
        ("kustomize", Some(kustomize)),
    ];
    let list = |entries: Vec<Node>, layer| Node {
        layer,
        ..Node::new(Value::Seq(entries), span)
    };
    // The blueprint's own lists are replaced, not cloned: they are most of it.
    let mut assembled = Mapping::with_capacity_and_hasher(fields.len() + 2, MapHasher::default());
    for (key, entry) in fields {
        let value = match composed.iter_mut().find(|(name, _)| name == key) {
            Some((_, entries)) => list(entries.take().unwrap_or_default(), entry.value.layer),
            None => entry.value.clone(),
        };
        assembled.insert(
            key.clone(),
            Entry {
                key_span: entry.key_span,
                value,
            },
        );
    }
    for (key, entries) in composed {
        if let Some(entries) = entries.filter(|entries| !entries.is_empty()) {
            let value = list(entries, None);
            assembled.insert(
                key.to_owned(),
                Entry {
                    key_span: span,
                    value,
                },
            );
        }
    }
    Node {
        value: Value::Map(assembled),
        span,
        tag: blueprint.tag.clone(),
        layer: blueprint.layer,
    }
}

impl strata_dialect::Describe for Project {
    const NAME: &'static str = "features";
    const MARKERS: &'static [&'static str] = &[config::WINDSOR_FILE];
    const SYMBOL_KINDS: &'static [strata_dialect::SymbolKind] = navigate::SYMBOL_KINDS;

    fn command() -> clap::Command {
        crate::cli::command()
    }

    fn run(
        matches: &clap::ArgMatches,
        invocation: strata_dialect::Invocation,
    ) -> Result<strata_dialect::Done, strata_dialect::Usage> {
        crate::cli::run(matches, invocation)
    }
}

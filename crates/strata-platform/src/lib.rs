//! The `platform` dialect: a directory of platform blueprints that a
//! provisioning service composes, per request, into one validated workspace
//! blueprint (compatible with the k8shell provisioner's blueprint manager).
//!
//! The pipeline, and the module that does each step:
//!
//! 1. `load`: read every blueprint file below the catalogue root,
//!    expanding `!include`s, confined to the root.
//! 2. `resolve`: resolve each blueprint over its `template` chain with
//!    the layered merge (memoised, cycles reported with the whole chain).
//! 3. [`Catalogue::render`]: merge a repository's `.k8shell.yaml` on top
//!    (only the keys a repository may set), evaluate every `!cel` scalar
//!    against the request's [`Scope`], decode strictly into a [`Blueprint`]
//!    and `validate` it: the rules run on every field that decoded, so a
//!    structural problem in one field hides no semantic problem in another.
//!
//! At load every concrete blueprint is rendered once against the synthetic
//! [`Scope::test`], so configuration errors surface before any request.
//! CEL programs are compiled once per load and reused by every render;
//! [`Dialect::reopen`] reuses them, the parse of every file whose text did
//! not change, and the checks of the blueprints whose resolved trees did
//! not change, from the catalogue opened before.
//! Parsing the files, compiling each blueprint's expressions and these
//! checks each run on every core ([`strata_dialect::map_ordered`]), their
//! results in order, so diagnostics are the same for any number of cores.
//!
//! # Settings
//!
//! An optional `.strata.yaml` at the root:
//!
//! ```yaml
//! mergeStrategies:            # sequence strategies by path, over the defaults
//!   ports: union
//! cel:
//!   allowEnv: false           # `env("NAME")` reads the environment unless false
//! ```
//!
//! The platform's default strategies are `claimSpec.accessModes: replace`,
//! `apps.*.start: replace` and `initScripts: replace-by-key:name` (k8shell's: a child's script of the same name replaces the parent's); the settings
//! file's entries come after them (and override the same path), and a
//! library caller's [`Settings::strategies`] come last.
//!
//! The catalogue is a [`Dialect`]: [`Catalogue::open`] loads it from any
//! [`Files`] tree, [`Dialect::render`] composes one request.

#![forbid(unsafe_code)]

mod cli;
pub mod codes;
mod load;
mod model;
mod navigate;
mod resolve;
mod scope;
pub mod service;
mod validate;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, LazyLock};

use indexmap::IndexMap;
use serde::Deserialize;
use strata_cel::{CelOptions, Programs};
use strata_fs::Files;
use strata_merge::{Strategies, Strategy};
use strata_schema::Decoder;
use strata_syntax::{Diagnostic, LayerId, Node, SourceDb, Span, Value};

pub use load::{Definition, SETTINGS_FILE};
pub use model::{
    App, Blueprint, Connection, InitScript, K8shelld, Network, NetworkPolicyClass, Podman,
    Protocol, PullPolicy, REPO_KEYS, RepoBlueprint, RepoFile, Resources, RestartPolicy, Storage,
    StorageType,
};
pub use navigate::blueprint_file_schema;
pub use resolve::{Chain, MAX_TEMPLATE_DEPTH, Resolved};
pub use scope::Scope;
pub use strata_dialect::{Dialect, Opened, Options, Outcome};

/// The sequence strategies every catalogue starts with.
pub const DEFAULT_STRATEGIES: &[(&str, &str)] = &[
    ("claimSpec.accessModes", "replace"),
    ("apps.*.start", "replace"),
    ("initScripts", "replace-by-key:name"),
];

static BLUEPRINT: LazyLock<Decoder<Blueprint>> = LazyLock::new(Decoder::new);
static REPO_FILE: LazyLock<Decoder<RepoFile>> = LazyLock::new(Decoder::new);
static SETTINGS: LazyLock<Decoder<SettingsFile>> = LazyLock::new(Decoder::new);

/// The JSON Schema of a composed catalogue blueprint, as it is decoded
/// (a file as written: [`blueprint_file_schema`]).
#[must_use]
pub fn blueprint_schema() -> &'static serde_json::Value {
    BLUEPRINT.schema()
}

/// The JSON Schema of a repository's `.k8shell.yaml`.
#[must_use]
pub fn repo_schema() -> &'static serde_json::Value {
    REPO_FILE.schema()
}

/// The catalogue settings file, `.strata.yaml`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SettingsFile {
    /// Sequence strategies by path.
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "checked by the schema; registered from the document, in its order, with spans"
    )]
    merge_strategies: std::collections::BTreeMap<String, String>,
    /// CEL options.
    #[serde(default)]
    cel: CelSettings,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", default)]
struct CelSettings {
    /// Whether `env("NAME")` may read the process environment (yes, as in
    /// k8shell, unless `false`).
    allow_env: bool,
}

impl Default for CelSettings {
    fn default() -> CelSettings {
        CelSettings { allow_env: true }
    }
}

/// What a library caller adds to a catalogue's own settings.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Strategies registered after the defaults and the settings file.
    pub strategies: Vec<(String, Strategy)>,
}

/// A loaded catalogue: every blueprint resolved, CEL compiled.
pub struct Catalogue {
    sources: Arc<SourceDb>,
    strategies: Strategies,
    programs: Arc<Programs>,
    definitions: IndexMap<String, Definition>,
    resolved: IndexMap<String, Resolved>,
    /// Every `!include` that found its file.
    includes: Vec<strata_dialect::Reference>,
    /// What reading each file gave: a reopening reuses it for a file whose
    /// text did not change (`load::FileMemo`).
    memos: load::FileMemos,
    /// What checking each concrete blueprint against the test scope found,
    /// by name: a reopening reuses it for a blueprint whose resolved tree
    /// is identical.
    checked: HashMap<String, Vec<Diagnostic>>,
    /// The problems composing each blueprint found, and compiling its
    /// expressions, by name: a reopening that takes a blueprint's
    /// resolution of then takes them with it.
    composing: HashMap<String, Vec<Diagnostic>>,
    compiling: IndexMap<String, Vec<Diagnostic>>,
}

/// One line of `strata platform list`.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The blueprint's name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Whether it is a template.
    pub is_template: bool,
    /// Its inheritance chain, root first.
    pub chain: Vec<String>,
}

/// What a render asks for.
#[derive(Debug, Clone, Default)]
pub struct RenderRequest {
    /// The platform blueprint's name, as a string node whose span says where
    /// it was asked for; may be left out when `repo` names it.
    pub blueprint: Option<Node>,
    /// A repository's `.k8shell.yaml`, parsed (its spans in the render's database).
    pub repo: Option<Node>,
    /// The scope; `None` renders against [`Scope::test`].
    pub scope: Option<Scope>,
}

impl RenderRequest {
    /// The blueprint the request is for: the one asked for, else the
    /// repository's template (a render refuses the two when they differ).
    #[must_use]
    pub fn blueprint_name(&self) -> Option<&str> {
        self.blueprint.as_ref().and_then(Node::as_str).or_else(|| {
            self.repo
                .as_ref()?
                .get("blueprint")?
                .get("template")?
                .as_str()
        })
    }
}

/// A composed, evaluated, validated blueprint.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The evaluated tree, with provenance on every node.
    pub node: Node,
    /// The typed blueprint.
    pub blueprint: Blueprint,
    /// The layers, by [`LayerId`]: the chain's blueprint names, then `repository`.
    pub layers: Vec<String>,
    /// What is worth knowing about the render, none of it an error: each
    /// scalar read as a string as k8shell reads it
    /// (`schema/scalar-as-string`), and the checks' warnings.
    pub notes: Vec<Diagnostic>,
}

impl Catalogue {
    /// [`Dialect::open`], and [`Dialect::reopen`] after `previous`: its
    /// compiled CEL (cached by text) and the checks of its blueprints whose
    /// resolved trees are identical are reused.
    fn load(
        fs: &dyn Files,
        options: Options<Settings>,
        previous: Option<&Catalogue>,
    ) -> Opened<Catalogue> {
        let mut db = SourceDb::new();
        let cancel = options.cancel.clone();
        let mut reader = load::Reader::new(fs, &mut db, options.limits);
        reader.previous = previous.map(|previous| &previous.memos);
        reader.keep = options.reopening || previous.is_some();
        let (settings, mut strategies) = settings(&mut reader);
        for (pattern, strategy) in options.settings.strategies {
            if let Err(error) = strategies.register(&pattern, strategy) {
                // The pattern came from code: it is shown as a source of its own.
                let id = reader.files.register("<load options>", &pattern);
                reader.diagnostics.push(Diagnostic::error(
                    codes::INVALID_STRATEGY,
                    format!("cannot register a strategy for `{pattern}`: {error}"),
                    Span::new(id, 0, pattern.len()),
                ));
            }
        }
        let definitions = load::definitions(&mut reader);
        let includes = std::mem::take(&mut reader.includes);
        let memos = std::mem::take(&mut reader.memos);
        let mut diagnostics = std::mem::take(&mut reader.diagnostics);
        // A reopening with the same strategies reuses what resolving then
        // gave for the chains whose definitions did not change.
        let earlier = previous
            .filter(|previous| format!("{:?}", previous.strategies) == format!("{strategies:?}"))
            .map(|previous| resolve::Earlier {
                definitions: &previous.definitions,
                resolved: &previous.resolved,
                composing: &previous.composing,
            });
        let (resolved, composing) = resolve::resolve_all(
            &definitions,
            &strategies,
            earlier.as_ref(),
            &mut diagnostics,
        );
        let cel = CelOptions {
            allow_env: settings.cel.allow_env,
            ..CelOptions::default()
        };
        let programs = previous
            .map(|previous| &previous.programs)
            .filter(|programs| programs.options() == cel)
            .map_or_else(|| Arc::new(Programs::new(cel)), Arc::clone);
        let compiling = compile_all(&resolved, &programs, previous);
        diagnostics.extend(compiling.values().flatten().cloned());
        Opened::freeze(db, |sources| {
            let mut catalogue = Catalogue {
                sources: sources.clone(),
                strategies,
                programs,
                definitions,
                resolved,
                includes,
                memos,
                checked: HashMap::new(),
                composing,
                compiling,
            };
            catalogue.checked = catalogue.check_all(previous, &cancel);
            diagnostics.extend(
                catalogue
                    .concrete()
                    .into_iter()
                    .filter_map(|name| catalogue.checked.get(name))
                    .flatten()
                    .cloned(),
            );
            Outcome::new(Some(catalogue), strata_syntax::dedupe(diagnostics))
        })
    }

    /// The sources of the catalogue's files, to resolve its diagnostics and
    /// to extend with a request's own files ([`SourceDb::extending`]).
    #[must_use]
    pub fn sources(&self) -> &Arc<SourceDb> {
        &self.sources
    }

    /// Every blueprint, in name order.
    #[must_use]
    pub fn list(&self) -> Vec<Summary> {
        self.definitions
            .keys()
            .map(|name| {
                let resolved = self.resolved.get(name);
                let node = resolved.map(|r| &r.node);
                Summary {
                    name: name.clone(),
                    description: node
                        .and_then(|n| n.get("description"))
                        .and_then(Node::as_str)
                        .map(str::to_owned),
                    is_template: resolved.is_some_and(Resolved::is_template),
                    chain: resolved.map(|r| r.chain.names()).unwrap_or_default(),
                }
            })
            .collect()
    }

    /// Turns into warnings the errors `diagnostics` holds about blueprints
    /// that `wanted` does not use (neither it nor a blueprint of its
    /// chain), each with a note naming the blueprint: rendering or listing
    /// one blueprint goes on when another one is invalid, as `check` still
    /// fails on it. With `wanted` `None` (a listing), every error about a
    /// blueprint is set aside. Errors about no blueprint in particular (a
    /// file that does not parse, the settings) stay errors.
    pub fn set_aside_others(&self, wanted: Option<&str>, diagnostics: &mut [Diagnostic]) {
        let used: Vec<String> = wanted
            .and_then(|name| self.resolved.get(name))
            .map(|resolved| resolved.chain.names())
            .unwrap_or_default();
        for diagnostic in diagnostics.iter_mut().filter(|d| d.is_error()) {
            let Some(owner) = self.owner_of(diagnostic.primary.span) else {
                continue;
            };
            if used.iter().any(|name| name == owner) {
                continue;
            }
            let note = match wanted {
                Some(name) => format!(
                    "in blueprint `{owner}`, which `{name}` does not use; `strata platform check` fails on it"
                ),
                None => format!("in blueprint `{owner}`; `strata platform check` fails on it"),
            };
            diagnostic.severity = strata_syntax::Severity::Warning;
            diagnostic.notes.push(note);
        }
    }

    /// The blueprint whose definition holds `span`, if any.
    fn owner_of(&self, span: Span) -> Option<&str> {
        self.definitions
            .iter()
            .find(|(_, definition)| definition.node.span.contains(span))
            .map(|(name, _)| name.as_str())
    }

    /// A blueprint resolved over its chain, before CEL evaluation.
    #[must_use]
    pub fn resolved(&self, name: &str) -> Option<&Resolved> {
        self.resolved.get(name)
    }

    /// [`Dialect::render`] for a caller who may use only the blueprints
    /// `may_use` accepts. Any other name, whether it exists or not, is
    /// [`Refusal::NotAllowed`] (`platform/blueprint-not-allowed`), and
    /// did-you-mean suggestions come only from the names the caller may
    /// use: nothing reveals a blueprint the caller may not see.
    ///
    /// # Errors
    ///
    /// Why no blueprint was composed, as a [`Refusal`].
    pub fn render_with_access(
        &self,
        request: &RenderRequest,
        may_use: &dyn Fn(&str) -> bool,
    ) -> Result<Rendered, Refusal> {
        self.compose(request, may_use)
    }

    fn compose(
        &self,
        request: &RenderRequest,
        may_use: &dyn Fn(&str) -> bool,
    ) -> Result<Rendered, Refusal> {
        let repo = request.repo.as_ref().map(repo_overlay).transpose()?;
        let asked = request
            .blueprint
            .as_ref()
            .map(|node| (node.as_str().unwrap_or_default(), node.span));
        let (name, span) = match (asked, &repo) {
            (Some((name, span)), Some((template, node))) if name != template => {
                let template_span = node.get("template").map_or(node.span, |n| n.span);
                return Err(vec![
                    Diagnostic::error(
                        codes::BLUEPRINT_MISMATCH,
                        format!("`{name}` was asked for, but the repository names `{template}`"),
                        span,
                    )
                    .with_secondary(template_span, "the repository's template"),
                ]
                .into());
            }
            (Some((name, span)), _) => (name.to_owned(), span),
            (None, Some((template, node))) => (
                template.clone(),
                node.get("template").map_or(node.span, |n| n.span),
            ),
            (None, None) => {
                return Err(vec![Diagnostic::error(
                    codes::NO_BLUEPRINT,
                    "the request names no blueprint and has no repository file naming one",
                    Span::default(),
                )]
                .into());
            }
        };
        let resolved = self.composable(&name, span, may_use)?;
        let mut layers = resolved.chain.names();
        let mut tree = Node::clone(&resolved.node);
        if let Some((_, mut overlay)) = repo {
            overlay.stamp_layer(LayerId(u32::try_from(layers.len()).unwrap_or(u32::MAX)));
            layers.push("repository".to_owned());
            let merged = strata_merge::merge(tree, overlay, &self.strategies);
            if merged.diagnostics.iter().any(Diagnostic::is_error) {
                return Err(merged.diagnostics.into());
            }
            tree = merged.root;
        }
        let scope = request.scope.clone().unwrap_or_else(Scope::test);
        // As k8shell: a repository's own `name` names the rendered blueprint.
        let rendered_name = tree
            .get("name")
            .and_then(Node::as_str)
            .unwrap_or(&name)
            .to_owned();
        let (mut evaluated, problems) = self
            .programs
            .evaluate_tree(tree, &scope.cel_scope(&rendered_name));
        // k8shell's YAML decoder reads a number, boolean or null where a
        // string is taken as its text; so does Strata, saying so.
        let notes = BLUEPRINT.read_scalars_as_strings(&mut evaluated);
        // Name the layer each failed expression came from.
        let mut problems: Vec<Diagnostic> = problems
            .into_iter()
            .map(|problem| {
                let layer = problem
                    .path
                    .as_ref()
                    .and_then(|path| evaluated.at(path.segments()))
                    .and_then(|node| node.layer)
                    .and_then(|layer| layers.get(layer.0 as usize));
                match layer {
                    Some(layer) => {
                        problem.with_note(format!("the expression comes from layer `{layer}`"))
                    }
                    None => problem,
                }
            })
            .collect();
        // A scalar whose expression failed keeps its text; checking goes on
        // so every other problem is found, but says nothing more about it.
        let failed: std::collections::HashSet<Span> =
            problems.iter().map(|d| d.primary.span).collect();
        // Structure and semantics both: the rules run on every field that
        // decoded, so one structural problem hides no other.
        let decoded = BLUEPRINT.decode_partial(&evaluated);
        let mut checked = decoded.diagnostics;
        if let Some(blueprint) = decoded.value {
            checked.extend(validate::validate(&blueprint, &evaluated));
            // Warnings and notes do not refuse a render: they go with it.
            if problems.is_empty() && !checked.iter().any(Diagnostic::is_error) {
                checked.extend(notes);
                return Ok(Rendered {
                    node: evaluated,
                    blueprint,
                    layers,
                    notes: checked,
                });
            }
        }
        checked.extend(notes);
        checked.sort_by_key(|d| (d.primary.span.source, d.primary.span.start));
        problems.extend(
            checked
                .into_iter()
                .filter(|d| !failed.contains(&d.primary.span)),
        );
        Err(Refusal::Invalid(
            problems
                .into_iter()
                .map(|d| d.with_note(format!("while rendering `{name}`")))
                .collect(),
        ))
    }

    /// The resolved blueprint `name`, when it may be composed; `span` is
    /// where it was asked for.
    fn composable(
        &self,
        name: &str,
        span: Span,
        may_use: &dyn Fn(&str) -> bool,
    ) -> Result<&Resolved, Refusal> {
        if !may_use(name) {
            return Err(Refusal::NotAllowed(Diagnostic::error(
                codes::BLUEPRINT_NOT_ALLOWED,
                format!("`{name}` is not among the blueprints you may use"),
                span,
            )));
        }
        match self.resolved.get(name) {
            Some(resolved) if resolved.is_template() => Err(vec![
                Diagnostic::error(
                    codes::TEMPLATE_NOT_COMPOSABLE,
                    format!("`{name}` is a template and cannot be composed"),
                    span,
                )
                .with_help("name a concrete blueprint that inherits from it"),
            ]
            .into()),
            Some(resolved) => Ok(resolved),
            None => {
                let concrete = self
                    .resolved
                    .iter()
                    .filter(|(n, r)| !r.is_template() && may_use(n))
                    .map(|(n, _)| n.as_str());
                Err(vec![
                    Diagnostic::error(
                        codes::UNKNOWN_BLUEPRINT,
                        format!("no blueprint is named `{name}`"),
                        span,
                    )
                    .with_suggestion(name, concrete),
                ]
                .into())
            }
        }
    }

    /// Renders every concrete blueprint against the test scope (but those
    /// whose files already failed to load: their problems are reported).
    /// Checks every concrete blueprint against the test scope; a blueprint
    /// whose resolved tree is identical to `previous`'s keeps what its
    /// check found there. Once `cancel` is asked, the blueprints not
    /// checked yet are left out (and so never reused).
    fn check_all(
        &self,
        previous: Option<&Catalogue>,
        cancel: &strata_dialect::Cancel,
    ) -> HashMap<String, Vec<Diagnostic>> {
        let unchanged = |name: &str| {
            // A check evaluates the tree's CEL: kept only with the same
            // programs (the same CEL options).
            let previous =
                previous.filter(|previous| Arc::ptr_eq(&previous.programs, &self.programs))?;
            let (before, now) = (
                &previous.resolved.get(name)?.node,
                &self.resolved.get(name)?.node,
            );
            (Arc::ptr_eq(before, now) || before.identical(now))
                .then(|| previous.checked.get(name).cloned())?
        };
        let concrete = self.concrete();
        let found = strata_dialect::map_ordered(&concrete, |name| {
            if cancel.is_cancelled() {
                return None;
            }
            Some(unchanged(name).unwrap_or_else(|| {
                let definition = &self.definitions[name.as_str()];
                let request = RenderRequest {
                    blueprint: definition.node.get("name").cloned(),
                    ..RenderRequest::default()
                };
                match self.compose(&request, &|_| true) {
                    Ok(rendered) => rendered.notes,
                    Err(refusal) => refusal.into_diagnostics(),
                }
            }))
        });
        concrete
            .into_iter()
            .zip(found)
            .filter_map(|(name, found)| Some((name.clone(), found?)))
            .collect()
    }

    /// The blueprints checked on opening: not templates, and every file of
    /// their chain complete.
    fn concrete(&self) -> Vec<&String> {
        self.resolved
            .iter()
            .filter(|(_, resolved)| {
                !resolved.is_template()
                    && resolved
                        .chain
                        .upwards()
                        .all(|layer| self.definitions[layer].complete)
            })
            .map(|(name, _)| name)
            .collect()
    }
}

/// Why [`Catalogue::render_with_access`] composed nothing: the caller may
/// not use the blueprint (a service answers 403), or the request or the
/// blueprint is invalid (422). The variant is the branch, so no caller
/// tells them apart by a diagnostic's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The blueprint asked for is not among those the caller may use;
    /// nothing else was looked at.
    NotAllowed(Diagnostic),
    /// Every problem of the request or the blueprint.
    Invalid(Vec<Diagnostic>),
}

impl Refusal {
    /// The diagnostics, whichever the reason.
    #[must_use]
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        match self {
            Refusal::NotAllowed(diagnostic) => vec![diagnostic],
            Refusal::Invalid(diagnostics) => diagnostics,
        }
    }
}

impl From<Vec<Diagnostic>> for Refusal {
    fn from(diagnostics: Vec<Diagnostic>) -> Refusal {
        Refusal::Invalid(diagnostics)
    }
}

impl Dialect for Catalogue {
    type Settings = Settings;
    type Request = RenderRequest;
    type Rendered = Rendered;

    /// Loads the catalogue below `files`' root and checks every concrete
    /// blueprint against the test scope. The outcome always holds the
    /// catalogue (as much of it as could be resolved), with every problem
    /// found.
    fn open(files: Arc<dyn Files>, options: Options<Settings>) -> Opened<Catalogue> {
        Catalogue::load(files.as_ref(), options, None)
    }

    fn reopen(&self, files: Arc<dyn Files>, options: Options<Settings>) -> Opened<Catalogue> {
        Catalogue::load(files.as_ref(), options, Some(self))
    }

    fn sources(&self) -> &Arc<SourceDb> {
        &self.sources
    }

    /// Composes, evaluates and validates one blueprint. The request's nodes
    /// (its blueprint name, its repository file) have spans in `db`, so
    /// diagnostics point into them; the render registers nothing there.
    fn render(&self, request: &RenderRequest, _db: &mut SourceDb) -> Outcome<Rendered> {
        match self.render_with_access(request, &|_| true) {
            Ok(mut rendered) => {
                let notes = std::mem::take(&mut rendered.notes);
                Outcome::new(Some(rendered), notes)
            }
            Err(refusal) => Outcome::new(None, refusal.into_diagnostics()),
        }
    }

    fn outline(&self, _db: &mut SourceDb) -> strata_dialect::Outline {
        Catalogue::outline(self)
    }

    fn explain(&self, db: &SourceDb, at: Span) -> Option<String> {
        Catalogue::explain(self, db, at)
    }

    fn schema_of(path: &Path) -> Option<&'static serde_json::Value> {
        navigate::schema_of(path)
    }

    fn functions() -> Vec<strata_dialect::FunctionDoc> {
        navigate::functions()
    }
}

/// The problems compiling the expressions of each resolved tree found, by
/// blueprint, in the catalogue's order; a tree the catalogue opened
/// before (`previous`) resolved to the very same keeps what compiling it
/// found then (the programs are the same: `programs` is its, when the CEL
/// options are).
fn compile_all(
    resolved: &IndexMap<String, Resolved>,
    programs: &Arc<Programs>,
    previous: Option<&Catalogue>,
) -> IndexMap<String, Vec<Diagnostic>> {
    let kept = |name: &str, tree: &Arc<Node>| {
        let previous = previous.filter(|previous| Arc::ptr_eq(&previous.programs, programs))?;
        let then = previous.resolved.get(name)?;
        Arc::ptr_eq(&then.node, tree)
            .then(|| previous.compiling.get(name).cloned())
            .flatten()
    };
    let blueprints: Vec<(&String, &Resolved)> = resolved.iter().collect();
    let found = strata_dialect::map_ordered(&blueprints, |(name, blueprint)| {
        kept(name, &blueprint.node).unwrap_or_else(|| programs.compile_tree(&blueprint.node))
    });
    resolved.keys().cloned().zip(found).collect()
}

/// Reads `.strata.yaml` (when present) into settings and the strategy registry.
fn settings(reader: &mut load::Reader<'_>) -> (SettingsFile, Strategies) {
    let mut strategies = Strategies::new();
    for (pattern, name) in DEFAULT_STRATEGIES {
        if let Ok(strategy) = name.parse() {
            let _ = strategies.register(pattern, strategy);
        }
    }
    let path = Path::new(SETTINGS_FILE);
    if !reader.files.is_file(path) {
        return (SettingsFile::default(), strategies);
    }
    let read = reader.files.read(
        path,
        strata_syntax::Format::Yaml,
        strata_dialect::Expect::AtMostOne,
        strata_dialect::Place::File,
    );
    let Some(node) = read
        .report(&mut reader.diagnostics)
        .and_then(strata_dialect::Read::into_document)
    else {
        return (SettingsFile::default(), strategies);
    };
    let settings = SETTINGS.decode(&node).unwrap_or_else(|problems| {
        reader.diagnostics.extend(problems);
        SettingsFile::default()
    });
    if let Some(Value::Map(entries)) = node.get("mergeStrategies").map(|n| &n.value) {
        for (pattern, entry) in entries {
            let registered = entry
                .value
                .as_str()
                .ok_or_else(|| "a strategy is a string".to_owned())
                .and_then(|name| name.parse::<Strategy>().map_err(|e| e.to_string()))
                .and_then(|strategy| {
                    strategies
                        .register(pattern, strategy)
                        .map_err(|e| e.to_string())
                });
            if let Err(message) = registered {
                let path = strata_syntax::FieldPath::root()
                    .key("mergeStrategies")
                    .key(pattern);
                reader.diagnostics.push(
                    Diagnostic::error(codes::INVALID_STRATEGY, message, entry.value.span)
                        .with_path(path),
                );
            }
        }
    }
    (settings, strategies)
}

/// Checks a repository file and returns the template it names and the
/// overlay to merge.
fn repo_overlay(file: &Node) -> Result<(String, Node), Vec<Diagnostic>> {
    let mut problems = Vec::new();
    if let Some(map) = file.as_map() {
        for (key, entry) in map.iter().filter(|(key, _)| key.as_str() != "blueprint") {
            problems.push(Diagnostic::error(
                codes::INVALID_REPO,
                format!("unknown key `{key}` in a repository file"),
                entry.key_span,
            ));
        }
    }
    let Some(blueprint) = file.get("blueprint").filter(|node| node.as_map().is_some()) else {
        let at = file.get("blueprint").map_or(file.span, |node| node.span);
        problems.insert(
            0,
            Diagnostic::error(
                codes::INVALID_REPO,
                "a repository file holds `blueprint: {template: NAME, ...}`",
                at,
            ),
        );
        return Err(problems);
    };
    if let Some(map) = blueprint.as_map() {
        for (key, entry) in map {
            if !REPO_KEYS.contains(&key.as_str()) {
                problems.push(
                    Diagnostic::error(
                        codes::REPO_KEY_NOT_ALLOWED,
                        format!("a repository may not set `{key}`"),
                        entry.key_span,
                    )
                    .with_note(format!(
                        "a repository may set only {}",
                        REPO_KEYS.join(", ")
                    ))
                    .with_path(strata_syntax::FieldPath::root().key("blueprint").key(key)),
                );
            }
        }
    }
    check_no_includes(blueprint, &mut problems);
    let template = match blueprint.get("template") {
        Some(Node {
            value: Value::String(name),
            ..
        }) => Some(name.clone()),
        Some(other) => {
            problems.push(Diagnostic::error(
                codes::INVALID_TEMPLATE,
                format!(
                    "`template` names a blueprint and must be a string, found {}",
                    other.value.kind_name()
                ),
                other.span,
            ));
            None
        }
        None => {
            problems.push(Diagnostic::error(
                codes::INVALID_REPO,
                "the repository blueprint has no `template` naming the platform blueprint",
                blueprint.span,
            ));
            None
        }
    };
    match template {
        Some(template) if problems.is_empty() => Ok((template, blueprint.clone())),
        _ => Err(problems),
    }
}

/// Repository files come from outside the catalogue: they may not include files.
fn check_no_includes(node: &Node, problems: &mut Vec<Diagnostic>) {
    if node
        .tag
        .as_ref()
        .is_some_and(|tag| tag.as_str() == "!include")
    {
        problems.push(Diagnostic::error(
            codes::INCLUDE_IN_REPO,
            "a repository file may not include files",
            node.span,
        ));
    }
    match &node.value {
        Value::Seq(items) => items
            .iter()
            .for_each(|item| check_no_includes(item, problems)),
        Value::Map(map) => map
            .values()
            .for_each(|entry| check_no_includes(&entry.value, problems)),
        _ => {}
    }
}

impl strata_dialect::Describe for Catalogue {
    const NAME: &'static str = "platform";
    const MARKERS: &'static [&'static str] = &[SETTINGS_FILE];
    const SYMBOL_KINDS: &'static [strata_dialect::SymbolKind] = navigate::SYMBOL_KINDS;

    fn command() -> clap::Command {
        cli::command()
    }

    fn run(
        matches: &clap::ArgMatches,
        invocation: strata_dialect::Invocation,
    ) -> Result<strata_dialect::Done, strata_dialect::Usage> {
        cli::run(matches, invocation)
    }
}

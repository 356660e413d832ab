//! Reading an application: `qbec.yaml`, its checks, and the components.
//!
//! Components are found exactly as qbec finds them, in every folder the
//! `componentsDir` glob matches (relative to the root, `*` not crossing `/`):
//!
//! - every `.jsonnet`, `.json` and `.yaml` file directly in the folder is a
//!   component named after the file without its extension (`.libsonnet`
//!   files are libraries, anything else is ignored);
//! - an immediate subfolder with `index.jsonnet` is a component named after
//!   the subfolder, evaluated from that file; else, with `index.yaml`, a
//!   component made of every `.json` and `.yaml` file in the subfolder, in
//!   name order; else it is not a component.
//!
//! Hidden files and folders are skipped. Two components with one name are
//! an error naming both. JSON and YAML files are parsed here, once, with
//! positions, so problems in their output point into them.
//!
//! Codes: [`crate::codes`]; a `qbec.yaml` that is missing, empty or of
//! several documents is reported by the shared reader (`io/*`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use strata_dialect::{Expect, Listed, Opened, Options, Outcome, Place, Read, Reader};
use strata_fs::Files;
use strata_merge::{Strategies, Strategy};
use strata_schema::Decoder;
use strata_syntax::{Diagnostic, FieldPath, Format, LayerId, Limits, Node, SourceDb, Span, Value};

use crate::app::{APP_FILE, AppFile, BASELINE, Environment, EnvironmentMapFile};
use crate::codes;

static APP: LazyLock<Decoder<AppFile>> = LazyLock::new(Decoder::new);
static ENVIRONMENT_MAP: LazyLock<Decoder<EnvironmentMapFile>> = LazyLock::new(Decoder::new);

/// The JSON Schema of `qbec.yaml`.
#[must_use]
pub fn app_schema() -> &'static serde_json::Value {
    APP.schema()
}

/// What a component is made of.
#[derive(Debug, Clone)]
pub enum Source {
    /// A Jsonnet file, evaluated as-is.
    Jsonnet(PathBuf),
    /// JSON and YAML files, parsed: a JSON file stands for its value, a
    /// YAML file for the array of its documents (as `parseYaml` returns);
    /// an `index.yaml` folder for the array of its files' values.
    Documents {
        /// Each file and its value.
        files: Vec<(PathBuf, Node)>,
        /// Whether the component is a folder (its value is the array).
        folder: bool,
    },
}

/// One component.
#[derive(Debug, Clone)]
pub struct Component {
    /// Its name.
    pub name: String,
    /// What it is made of.
    pub source: Source,
}

impl Component {
    /// The files it is made of, relative to the root.
    #[must_use]
    pub fn files(&self) -> Vec<&Path> {
        match &self.source {
            Source::Jsonnet(file) => vec![file.as_path()],
            Source::Documents { files, .. } => files.iter().map(|(f, _)| f.as_path()).collect(),
        }
    }

    /// `jsonnet`, `json`, `yaml`, or `folder` (an `index.yaml` folder).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match &self.source {
            Source::Jsonnet(_) => "jsonnet",
            Source::Documents { folder: true, .. } => "folder",
            Source::Documents { files, .. }
                if files.iter().all(|(f, _)| has_extension(f, "json")) =>
            {
                "json"
            }
            Source::Documents { .. } => "yaml",
        }
    }
}

/// An environment as defined, in `qbec.yaml` or an environment file.
#[derive(Debug, Clone)]
pub(crate) struct Defined {
    /// Decoded.
    pub(crate) environment: Environment,
    /// As written: its properties keep their positions.
    pub(crate) node: Node,
    /// Where its name is written.
    pub(crate) name_span: Span,
}

/// A loaded application.
pub struct Application {
    pub(crate) fs: Arc<dyn Files>,
    pub(crate) sources: Arc<SourceDb>,
    pub(crate) limits: Limits,
    /// Stops the evaluation of components once asked (see
    /// [`strata_dialect::Options::cancel`]).
    pub(crate) cancel: strata_dialect::Cancel,
    /// Told when each Jsonnet evaluation starts and ends (see
    /// [`strata_dialect::Options::progress`]).
    pub(crate) progress: strata_dialect::Progress,
    /// `qbec.yaml`, decoded.
    pub app: AppFile,
    /// `qbec.yaml`, as written (for spans).
    pub(crate) app_node: Node,
    /// The components, by name.
    pub components: BTreeMap<String, Component>,
    /// The environments, by name, those of `envFiles` included.
    pub(crate) environments: BTreeMap<String, Defined>,
    /// The library folders, relative to the root, normalised.
    pub(crate) lib_paths: Vec<PathBuf>,
    /// The post-processor, relative to the root, normalised.
    pub(crate) post_processor: Vec<PathBuf>,
    /// `spec.dataSources`, read.
    pub(crate) data_sources: Vec<crate::datasources::Declared>,
    /// Component results kept between renders, when it will be reopened
    /// ([`strata_dialect::Options::reopening`]); shared with the
    /// application reopened from this one.
    pub(crate) cache: Option<Arc<crate::cache::Cache>>,
}

/// Extensions that make a file a component, or part of one.
const COMPONENT_EXTENSIONS: &[&str] = &["jsonnet", "json", "yaml"];

impl Application {
    /// Reads `qbec.yaml` and the components below `fs`'s root
    /// ([`Dialect::open`](strata_dialect::Dialect::open)). No application
    /// when `qbec.yaml` itself is unusable.
    pub(crate) fn load(fs: &Arc<dyn Files>, options: Options<()>) -> Opened<Application> {
        let Options {
            limits,
            cancel,
            progress,
            reopening,
            ..
        } = options;
        let mut db = SourceDb::new();
        let mut reader = ApplicationReader {
            files: Reader::new(fs.as_ref(), &mut db, limits),
            diagnostics: Vec::new(),
        };
        let loaded = reader.application().map(|(app, app_node)| {
            let environments = reader.environments(&app, &app_node);
            let lib_paths = reader.relative_paths(&app_node, "libPaths");
            let post_processor = reader.post_processors(&app, &app_node);
            let data_sources = reader.data_sources(&app_node);
            let components = reader.components(&app, &app_node);
            reader.check_names(&components, &environments, &app_node);
            Application {
                fs: fs.clone(),
                sources: Arc::default(),
                limits,
                cancel,
                progress,
                app,
                app_node,
                components,
                environments,
                lib_paths,
                post_processor,
                data_sources,
                cache: reopening.then(Arc::default),
            }
        });
        let diagnostics = reader.diagnostics;
        Opened::freeze(db, |sources| {
            let application = loaded.map(|application| Application {
                sources: sources.clone(),
                ..application
            });
            Outcome::new(application, diagnostics)
        })
    }

    /// The properties of `environment`: `baseProperties` with the
    /// environment's `properties` merged over them as qbec merges them
    /// (mappings key by key, anything else, lists and `null` included,
    /// replaces), through the merge engine: every node keeps its span and
    /// its layer, 0 for `baseProperties`, 1 for the environment's.
    /// The baseline environment (`_`) has `baseProperties` alone.
    #[must_use]
    pub fn properties(&self, environment: &str) -> Node {
        let spec = self.app_node.get("spec");
        let layer = |node: Option<&Node>, layer: u32| {
            let mut node = node.cloned().unwrap_or_else(|| {
                Node::new(
                    Value::Map(strata_syntax::Mapping::default()),
                    self.app_node.span,
                )
            });
            node.stamp_layer(LayerId(layer));
            node
        };
        let base = layer(spec.and_then(|s| s.get("baseProperties")), 0);
        let overlay = self
            .environments
            .get(environment)
            .and_then(|defined| defined.node.get("properties"));
        match overlay {
            Some(overlay) => {
                let strategies = Strategies::with_fallback(Strategy::Replace);
                strata_merge::merge(base, layer(Some(overlay), 1), &strategies).root
            }
            None => base,
        }
    }

    /// Whether `environment` includes `component` (before any `--component`
    /// filter): not excluded globally unless the environment includes it,
    /// and not excluded by the environment. The baseline environment (`_`)
    /// includes what is not excluded globally.
    #[must_use]
    pub fn includes(&self, environment: &str, component: &str) -> bool {
        let Some(env) = self.environment(environment) else {
            return false;
        };
        let named = |list: &[String]| list.iter().any(|name| name == component);
        (!named(&self.app.spec.excludes) || named(&env.includes)) && !named(&env.excludes)
    }

    /// The environment named `name`, the baseline (`_`) included.
    #[must_use]
    pub fn environment(&self, name: &str) -> Option<Environment> {
        if name == BASELINE {
            return Some(Environment::baseline());
        }
        self.environments
            .get(name)
            .map(|defined| defined.environment.clone())
    }

    /// The names of the environments defined, in order (not the baseline).
    pub fn environment_names(&self) -> impl Iterator<Item = &str> {
        self.environments.keys().map(String::as_str)
    }

    /// The span of the value at `path` in `qbec.yaml` (the file when absent).
    pub(crate) fn span_at(&self, path: &[&str]) -> Span {
        let mut node = &self.app_node;
        for key in path {
            match node.get(key) {
                Some(child) => node = child,
                None => break,
            }
        }
        node.span
    }
}

/// Reads an application's files.
struct ApplicationReader<'a> {
    files: Reader<'a>,
    diagnostics: Vec<Diagnostic>,
}

impl ApplicationReader<'_> {
    /// How many errors have been reported so far.
    fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// `qbec.yaml`, decoded, with its tree.
    fn application(&mut self) -> Option<(AppFile, Node)> {
        let read = self.files.read(
            Path::new(APP_FILE),
            Format::Yaml11,
            Expect::One,
            Place::File,
        );
        let node = read.report(&mut self.diagnostics)?.into_document()?;
        match APP.decode(&node) {
            Ok(app) => {
                let unsupported = [
                    (
                        "paramsFile",
                        "give environments `properties` in `qbec.yaml`",
                    ),
                    (
                        "dsExamples",
                        "compute the data in Jsonnet, or pass it as a variable",
                    ),
                ];
                for (key, help) in unsupported {
                    if let Some(value) = node.get("spec").and_then(|spec| spec.get(key)) {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::UNSUPPORTED,
                                format!("`{key}` is not supported"),
                                value.span,
                            )
                            .with_path(FieldPath::root().key("spec").key(key))
                            .with_help(help),
                        );
                    }
                }
                if let Some(name) = node.get("metadata").and_then(|m| m.get("name")) {
                    self.check_label_value(&app.metadata.name, name.span);
                }
                Some((app, node))
            }
            Err(problems) => {
                self.diagnostics.extend(problems);
                None
            }
        }
    }

    /// A name that becomes a label value (and may not be empty here).
    fn check_label_value(&mut self, name: &str, span: Span) {
        if !strata_k8s::names::is_label_name(name) {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::INVALID_NAME,
                    format!("`{name}` is not a valid Kubernetes label value"),
                    span,
                )
                .with_help("use at most 63 letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit"),
            );
        }
    }

    /// Every environment: those of `spec.environments`, then those of each
    /// `envFiles` file in order, a later definition of a name replacing the
    /// earlier one (with a warning, as qbec). Each is checked as qbec
    /// checks it.
    fn environments(&mut self, app: &AppFile, node: &Node) -> BTreeMap<String, Defined> {
        let spec = node.get("spec");
        let mut defined: BTreeMap<String, Defined> = BTreeMap::new();
        if let Some(Value::Map(inline)) = spec.and_then(|s| s.get("environments")).map(|e| &e.value)
        {
            for (name, entry) in inline {
                if let Some(environment) = app.spec.environments.get(name) {
                    defined.insert(
                        name.clone(),
                        Defined {
                            environment: environment.clone(),
                            node: entry.value.clone(),
                            name_span: entry.key_span,
                        },
                    );
                }
            }
        }
        let patterns = spec
            .and_then(|s| s.get("envFiles"))
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for (index, pattern) in patterns.iter().enumerate() {
            let before = self.diagnostics.len();
            let files = self.env_files(pattern);
            let path = FieldPath::root().key("spec").key("envFiles").index(index);
            for diagnostic in &mut self.diagnostics[before..] {
                diagnostic.path.get_or_insert_with(|| path.clone());
            }
            for file in files {
                self.env_file(&file, pattern.span, &mut defined);
            }
        }
        if defined.is_empty() {
            let span = spec
                .and_then(|s| s.get("environments"))
                .or(spec)
                .map_or(node.span, |n| n.span);
            self.diagnostics.push(
                Diagnostic::error(
                    codes::INVALID_NAME,
                    "the application declares no environment",
                    span,
                )
                .with_help(
                    "declare one under `spec.environments`, or in a file named in `spec.envFiles`",
                ),
            );
        }
        for (name, environment) in &defined {
            self.check_environment(name, environment);
        }
        defined
    }

    /// The files an `envFiles` entry names: a path, or a glob matching
    /// files (sorted); remote URLs are refused.
    fn env_files(&mut self, pattern: &Node) -> Vec<PathBuf> {
        let Some(text) = pattern.as_str() else {
            return Vec::new();
        };
        if text.starts_with("http://") || text.starts_with("https://") {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::INVALID_PATH,
                    format!("`{text}`: environment files are read from the application, not downloaded"),
                    pattern.span,
                )
                .with_help("download the file into the application and name the local copy in `envFiles`: what renders is then what is reviewed"),
            );
            return Vec::new();
        }
        let Some(path) = self.confined(pattern, "spec.envFiles") else {
            return Vec::new();
        };
        if !text.contains(['*', '?', '[']) {
            return vec![path];
        }
        // Entries the listing skips are reported once, by the listing of
        // components; a listing that fails is this entry's problem.
        let listing = self
            .files
            .list(&["yaml", "yml", "json"], Listed::Glob(pattern.span));
        let Some(listed) = listing.report(&mut self.diagnostics) else {
            return Vec::new();
        };
        let matching = glob::Pattern::new(&path.to_string_lossy()).map(|glob| {
            let options = glob::MatchOptions {
                require_literal_separator: true,
                ..glob::MatchOptions::default()
            };
            listed
                .into_iter()
                .filter(|file| glob.matches_path_with(file, options))
                .collect::<Vec<_>>()
        });
        match matching {
            Ok(files) if !files.is_empty() => files,
            Ok(_) => {
                self.diagnostics.push(Diagnostic::error(
                    codes::INVALID_PATH,
                    format!("`{text}` matches no file"),
                    pattern.span,
                ));
                Vec::new()
            }
            Err(error) => {
                self.diagnostics.push(Diagnostic::error(
                    codes::INVALID_PATH,
                    format!("`{text}` is not a glob: {}", error.msg),
                    pattern.span,
                ));
                Vec::new()
            }
        }
    }

    /// One environment file's environments, added to `defined`.
    fn env_file(&mut self, file: &Path, at: Span, defined: &mut BTreeMap<String, Defined>) {
        let read = self
            .files
            .read(file, Format::Yaml11, Expect::One, Place::Reference(at));
        let Some(node) = read
            .report(&mut self.diagnostics)
            .and_then(Read::into_document)
        else {
            return;
        };
        let decoded = match ENVIRONMENT_MAP.decode(&node) {
            Ok(decoded) => decoded,
            Err(problems) => {
                self.diagnostics.extend(problems);
                return;
            }
        };
        let Some(Value::Map(written)) = node
            .get("spec")
            .and_then(|s| s.get("environments"))
            .map(|e| &e.value)
        else {
            return;
        };
        for (name, entry) in written {
            let Some(environment) = decoded.spec.environments.get(name) else {
                continue;
            };
            let definition = Defined {
                environment: environment.clone(),
                node: entry.value.clone(),
                name_span: entry.key_span,
            };
            if let Some(earlier) = defined.insert(name.clone(), definition) {
                self.diagnostics.push(
                    Diagnostic::warning(
                        codes::OVERRIDDEN_ENVIRONMENT,
                        format!("`{}` defines the environment `{name}` again: this definition replaces the earlier one", self.files.display(file)),
                        entry.key_span,
                    )
                    .with_secondary(earlier.name_span, "the earlier definition"),
                );
            }
        }
    }

    /// One environment's name and cluster, as qbec checks them.
    fn check_environment(&mut self, name: &str, defined: &Defined) {
        if name == BASELINE {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::INVALID_NAME,
                    "`_` cannot name an environment: it is the baseline environment",
                    defined.name_span,
                )
                .with_path(FieldPath::root().key("spec").key("environments").key(name))
                .with_help(
                    "`--env _` renders `baseProperties` and the components not excluded by default",
                ),
            );
        } else {
            self.check_label_value(name, defined.name_span);
        }
        let environment = &defined.environment;
        let problem = match (
            environment.server.is_empty(),
            environment.context.is_empty(),
        ) {
            (true, true) => Some(format!(
                "the environment `{name}` names neither a `server` nor a `context`"
            )),
            (false, false) => Some(format!(
                "the environment `{name}` names both a `server` and a `context`"
            )),
            (true, false) if environment.context.starts_with("__") => Some(format!(
                "the environment `{name}` names the context `{}`: names starting with `__` are qbec's keywords, not contexts",
                environment.context
            )),
            _ => None,
        };
        if let Some(message) = problem {
            self.diagnostics.push(
                Diagnostic::error(codes::INVALID_ENVIRONMENT, message, defined.node.span)
                    .with_path(FieldPath::root().key("spec").key("environments").key(name))
                    .with_help("name exactly one: `server` (the API server's URL) or `context` (a kubeconfig context); qbec deploys there, Strata only renders"),
            );
        }
    }

    /// The paths in `spec.<key>` (a list), normalised and confined.
    fn relative_paths(&mut self, node: &Node, key: &str) -> Vec<PathBuf> {
        let entries = node
            .get("spec")
            .and_then(|spec| spec.get(key))
            .and_then(Node::as_seq)
            .unwrap_or_default();
        entries
            .iter()
            .filter_map(|entry| self.confined(entry, &format!("spec.{key}")))
            .collect()
    }

    /// A path written in `qbec.yaml`, normalised; leaving the root is an error.
    fn confined(&mut self, node: &Node, what: &str) -> Option<PathBuf> {
        let text = node.as_str()?;
        match strata_fs::normalise(Path::new(text)) {
            Ok(path) => Some(path),
            Err(error) => {
                self.diagnostics.push(Diagnostic::error(
                    codes::INVALID_PATH,
                    format!("`{what}` must stay inside the application: {error}"),
                    node.span,
                ));
                None
            }
        }
    }

    /// `spec.dataSources`: each entry read, every bad one and every repeated
    /// name a `components/data-source` error at it.
    fn data_sources(&mut self, node: &Node) -> Vec<crate::datasources::Declared> {
        let Some(entries) = node.get("spec").and_then(|spec| spec.get("dataSources")) else {
            return Vec::new();
        };
        let path = FieldPath::root().key("spec").key("dataSources");
        let Some(items) = entries.as_seq() else {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::DATA_SOURCE,
                    "`dataSources` is a list of data source URLs",
                    entries.span,
                )
                .with_path(path),
            );
            return Vec::new();
        };
        let mut declared: Vec<crate::datasources::Declared> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let parsed = item
                .as_str()
                .ok_or_else(|| {
                    "a data source is a URL string (`exec://NAME?configVar=VAR`)".to_owned()
                })
                .and_then(crate::datasources::Declared::parse)
                .and_then(|source| {
                    if declared.iter().any(|earlier| earlier.name == source.name) {
                        Err(format!(
                            "the data source `{}` is declared twice",
                            source.name
                        ))
                    } else {
                        Ok(source)
                    }
                });
            match parsed {
                Ok(source) => declared.push(source),
                Err(message) => self.diagnostics.push(
                    Diagnostic::error(codes::DATA_SOURCE, message, item.span)
                        .with_path(path.index(index)),
                ),
            }
        }
        declared
    }

    /// `spec.postProcessor`: one path, or several separated by `:`, applied
    /// in order; each must exist, and two of one file name are an error.
    fn post_processors(&mut self, app: &AppFile, node: &Node) -> Vec<PathBuf> {
        if app.spec.post_processor.is_none() {
            return Vec::new();
        }
        let Some(written) = node.get("spec").and_then(|spec| spec.get("postProcessor")) else {
            return Vec::new();
        };
        let Some(text) = written.as_str() else {
            return Vec::new();
        };
        let mut found: Vec<PathBuf> = Vec::new();
        for part in text
            .split(':')
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let piece = Node::new(strata_syntax::Value::String(part.to_owned()), written.span);
            let Some(path) = self.confined(&piece, "spec.postProcessor") else {
                continue;
            };
            if !self.files.is_file(&path) {
                self.diagnostics.push(Diagnostic::error(
                    codes::INVALID_PATH,
                    format!("the post-processor `{}` does not exist", path.display()),
                    written.span,
                ));
                continue;
            }
            if let Some(twin) = found
                .iter()
                .find(|other| other.file_name() == path.file_name())
            {
                self.diagnostics.push(Diagnostic::error(
                    codes::POST_PROCESSOR,
                    format!(
                        "the post-processors `{}` and `{}` have one file name: qbec refuses two",
                        twin.display(),
                        path.display()
                    ),
                    written.span,
                ));
                continue;
            }
            found.push(path);
        }
        found
    }

    /// Finds every component, as the module docs say.
    fn components(&mut self, app: &AppFile, node: &Node) -> BTreeMap<String, Component> {
        let dir_span = node
            .get("spec")
            .and_then(|spec| spec.get("componentsDir"))
            .map_or(node.span, |n| n.span);
        let confined = strata_fs::normalise(Path::new(&app.spec.components_dir));
        if let Err(error) = confined {
            self.diagnostics.push(Diagnostic::error(
                codes::INVALID_PATH,
                format!("`spec.componentsDir` must stay inside the application: {error}"),
                dir_span,
            ));
            return BTreeMap::new();
        }
        let pattern = match glob::Pattern::new(&app.spec.components_dir) {
            Ok(pattern) => pattern,
            Err(error) => {
                self.diagnostics.push(Diagnostic::error(
                    codes::INVALID_PATH,
                    format!("`componentsDir` is not a glob: {}", error.msg),
                    dir_span,
                ));
                return BTreeMap::new();
            }
        };
        let listing = self
            .files
            .list(COMPONENT_EXTENSIONS, Listed::Reference(dir_span));
        let Some(files) = listing.report(&mut self.diagnostics) else {
            return BTreeMap::new();
        };
        let options = glob::MatchOptions {
            require_literal_separator: true,
            ..glob::MatchOptions::default()
        };
        let in_components_dir = |folder: &Path| {
            folder
                .to_str()
                .is_some_and(|f| pattern.matches_with(f, options))
        };
        let errors_before = self.error_count();
        let mut found: BTreeMap<String, (Component, PathBuf)> = BTreeMap::new();
        let mut folders: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
        for file in &files {
            let Some(folder) = file.parent() else {
                continue;
            };
            if in_components_dir(folder) {
                if let Some(component) = self.file_component(file) {
                    self.add(&mut found, component, file.clone());
                }
            } else if folder.parent().is_some_and(in_components_dir) {
                folders
                    .entry(folder.to_path_buf())
                    .or_default()
                    .push(file.clone());
            }
        }
        for (folder, files) in folders {
            if let Some(component) = self.folder_component(&folder, &files) {
                self.add(&mut found, component, folder);
            }
        }
        if found.is_empty() && self.error_count() == errors_before {
            // As qbec: a `componentsDir` that names no folder is an error;
            // folders without components render nothing, said, not refused.
            // Not said when a component could not be read: its error says
            // why there is none.
            let any_folder = self
                .files
                .list(&[], Listed::Reference(dir_span))
                .value
                .unwrap_or_default()
                .iter()
                .any(|file| file.ancestors().skip(1).any(in_components_dir));
            if !any_folder {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::NO_COMPONENTS,
                        format!("no component folder is found after expanding `{}`", app.spec.components_dir),
                        dir_span,
                    )
                    .with_help("`componentsDir` names the folder (or a glob of folders) that holds the components, relative to `qbec.yaml`"),
                );
                return BTreeMap::new();
            }
            self.diagnostics.push(
                Diagnostic::warning(
                    codes::NO_COMPONENTS,
                    format!("`{}` holds no component: nothing is rendered", app.spec.components_dir),
                    dir_span,
                )
                .with_help("components are `.jsonnet`, `.json` and `.yaml` files, or folders with an `index.jsonnet` or `index.yaml`"),
            );
        }
        found
            .into_iter()
            .map(|(name, (component, _))| (name, component))
            .collect()
    }

    /// A file directly in a components folder, as a component.
    fn file_component(&mut self, file: &Path) -> Option<Component> {
        let name = file.file_stem()?.to_str()?.to_owned();
        let source = if has_extension(file, "jsonnet") {
            Source::Jsonnet(file.to_path_buf())
        } else {
            let value = self.document_value(file)?;
            Source::Documents {
                files: vec![(file.to_path_buf(), value)],
                folder: false,
            }
        };
        Some(Component { name, source })
    }

    /// An immediate subfolder, as a component when it has an index file.
    fn folder_component(&mut self, folder: &Path, files: &[PathBuf]) -> Option<Component> {
        let name = folder.file_name()?.to_str()?.to_owned();
        let named = |file: &str| {
            files
                .iter()
                .find(|f| f.file_name().is_some_and(|n| n == file))
        };
        if let Some(index) = named("index.jsonnet") {
            return Some(Component {
                name,
                source: Source::Jsonnet(index.clone()),
            });
        }
        named("index.yaml")?;
        let mut documents = Vec::new();
        for file in files.iter().filter(|f| !has_extension(f, "jsonnet")) {
            if let Some(value) = self.document_value(file) {
                documents.push((file.clone(), value));
            }
        }
        Some(Component {
            name,
            source: Source::Documents {
                files: documents,
                folder: true,
            },
        })
    }

    /// A JSON file's value, or a YAML file's array of documents.
    fn document_value(&mut self, file: &Path) -> Option<Node> {
        let json = has_extension(file, "json");
        let format = if json { Format::Json } else { Format::Yaml11 };
        let read = self
            .files
            .read(file, format, Expect::All, Place::File)
            .valid();
        let mut read = read.report(&mut self.diagnostics)?;
        let span = Span::new(
            read.source,
            0,
            self.files.db().get(read.source).text().len(),
        );
        // A JSON text holds one value at most (none when it is empty).
        Some(if json {
            read.documents
                .pop()
                .unwrap_or_else(|| Node::new(strata_syntax::Value::Null, span))
        } else {
            Node::new(strata_syntax::Value::Seq(read.documents), span)
        })
    }

    /// Adds a component; a second of the same name is an error naming both.
    fn add(
        &mut self,
        found: &mut BTreeMap<String, (Component, PathBuf)>,
        component: Component,
        origin: PathBuf,
    ) {
        if let Some((_, first)) = found.get(&component.name) {
            let at = self.files.placeholder(&origin);
            self.diagnostics.push(
                Diagnostic::error(
                    codes::DUPLICATE_COMPONENT,
                    format!(
                        "two components are named `{}`: `{}` and `{}`",
                        component.name,
                        self.files.display(first),
                        self.files.display(&origin)
                    ),
                    at,
                )
                .with_help("rename one of them"),
            );
            return;
        }
        found.insert(component.name.clone(), (component, origin));
    }

    /// Names in `qbec.yaml` that must be components or unique variables.
    fn check_names(
        &mut self,
        components: &BTreeMap<String, Component>,
        environments: &BTreeMap<String, Defined>,
        app_node: &Node,
    ) {
        let known: Vec<&str> = components.keys().map(String::as_str).collect();
        let spec = app_node.get("spec");
        let mut lists: Vec<(FieldPath, &Node)> = Vec::new();
        let list = |node: Option<&Node>| -> Vec<Node> {
            node.and_then(Node::as_seq)
                .map(<[Node]>::to_vec)
                .unwrap_or_default()
        };
        let spec_excludes = list(spec.and_then(|s| s.get("excludes")));
        for (index, name) in spec_excludes.iter().enumerate() {
            lists.push((
                FieldPath::root().key("spec").key("excludes").index(index),
                name,
            ));
        }
        let mut env_lists = Vec::new();
        for (env, defined) in environments {
            let includes = list(defined.node.get("includes"));
            let excludes = list(defined.node.get("excludes"));
            for name in &includes {
                if excludes.iter().any(|e| e.as_str() == name.as_str()) {
                    self.diagnostics.push(Diagnostic::error(
                        codes::INCLUDE_EXCLUDE,
                        format!(
                            "environment `{env}` both includes and excludes `{}`",
                            name.as_str().unwrap_or_default()
                        ),
                        name.span,
                    ));
                }
            }
            env_lists.push((env.clone(), "includes", includes));
            env_lists.push((env.clone(), "excludes", excludes));
        }
        for (env, key, names) in &env_lists {
            for (index, name) in names.iter().enumerate() {
                let path = FieldPath::root()
                    .key("spec")
                    .key("environments")
                    .key(env)
                    .key(key)
                    .index(index);
                lists.push((path, name));
            }
        }
        let top_level = list(
            spec.and_then(|s| s.get("vars"))
                .and_then(|v| v.get("topLevel")),
        );
        let mut tla_components = Vec::new();
        for (var, declared) in top_level.iter().enumerate() {
            for (index, name) in list(declared.get("components")).into_iter().enumerate() {
                let path = FieldPath::root()
                    .key("spec")
                    .key("vars")
                    .key("topLevel")
                    .index(var)
                    .key("components")
                    .index(index);
                tla_components.push((path, name));
            }
        }
        for (path, name) in lists
            .into_iter()
            .chain(tla_components.iter().map(|(p, n)| (p.clone(), n)))
        {
            let Some(text) = name.as_str() else { continue };
            if !known.contains(&text) {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::UNKNOWN_COMPONENT,
                        format!("no component is named `{text}`"),
                        name.span,
                    )
                    .with_path(path)
                    .with_suggestion(text, known.iter().copied()),
                );
            }
        }
        self.check_unique_vars(spec);
    }

    /// Every variable name is declared once across external, top-level and computed.
    fn check_unique_vars(&mut self, spec: Option<&Node>) {
        let vars = spec.and_then(|s| s.get("vars"));
        let mut seen: HashMap<String, Span> = HashMap::new();
        for kind in ["external", "topLevel", "computed"] {
            let declared = vars
                .and_then(|v| v.get(kind))
                .and_then(Node::as_seq)
                .unwrap_or_default();
            for var in declared {
                let Some(name) = var.get("name") else {
                    continue;
                };
                let Some(text) = name.as_str() else { continue };
                // Top-level arguments are a namespace of their own.
                let key = if kind == "topLevel" {
                    format!("tla:{text}")
                } else {
                    text.to_owned()
                };
                if let Some(first) = seen.insert(key, name.span) {
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::DUPLICATE_VAR,
                            format!("the variable `{text}` is declared twice"),
                            name.span,
                        )
                        .with_secondary(first, "first declared here"),
                    );
                }
            }
        }
    }
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension().is_some_and(|ext| ext == extension)
}

//! The `components` dialect: a qbec application (a `qbec.yaml` and a folder
//! of Jsonnet, JSON and YAML components) evaluated per environment into a
//! sorted stream of Kubernetes objects, compatible with qbec.
//!
//! The pipeline, and the module that does each step:
//!
//! 1. `load` ([`Application::open`](Dialect::open)): decode `qbec.yaml`
//!    (`app`) and find the components.
//! 2. [`Dialect::render`]: resolve the environment, the variables
//!    (`variables`) and the components it includes; evaluate them in Jsonnet
//!    VMs ([`strata_jsonnet`]), many at once on worker threads, one VM per
//!    thread (`workers`); JSON and YAML components stand for their parsed
//!    documents.
//! 3. `objects`: walk each output for Kubernetes objects, pass each through
//!    the post-processors, label and annotate it, sort them, and write each
//!    as text on its worker ([`Objects`]); `report` turns what went wrong
//!    into diagnostics.
//!
//! # Variables
//!
//! | name | value |
//! |---|---|
//! | `qbec.io/env` | the environment's name |
//! | `qbec.io/envProperties` | [`Application::properties`]: `baseProperties` with the environment's `properties` merged over them as qbec merges them (mappings key by key, anything else replaces, `null` kept), as code |
//! | `qbec.io/tag` | the `--app-tag`, or empty |
//! | `qbec.io/defaultNs` | the environment's `defaultNamespace`, with `-<tag>` when `namespaceTagSuffix` is set and a tag is given |
//! | `qbec.io/cleanMode` | `on` with `--clean`, else `off` |
//! | `vars.external` | the command line's value, else the declared `default` (as code); with neither, a component that reads it fails with `components/missing-var` (the others render) |
//! | undeclared ones | passed on to every component, with a warning (an error under `strict_vars`) |
//! | `vars.computed` | the code's value, evaluated in order with the variables above |
//!
//! Top-level arguments go only to the components their declaration in
//! `vars.topLevel` lists (an undeclared one reaches none, with a warning);
//! a component that is a function and gets none is called with its own
//! defaults. `--vm:ext-code` is parsed when read, as go-jsonnet does: a
//! broken value no component reads breaks nothing. Under
//! [`RenderRequest::strict_vars`] (qbec's `--strict-vars`), every declared
//! variable and argument must be given and none may be undeclared, all
//! reported in one run.
//!
//! # Objects
//!
//! Each object gets the labels `qbec.io/application`, `qbec.io/environment`
//! (and `qbec.io/tag` with a tag), the annotation `qbec.io/component` (and
//! the label too with `addComponentLabel`), unless `clean_mode` asks for
//! them to be left off, as `qbec show --clean`. Output is sorted by component,
//! namespace, kind and name; two objects of one kind, namespace and name are
//! an error naming both components. Every failing component is reported,
//! each with its Jsonnet trace.
//!
//! Every diagnostic code is listed in [`codes`].

#![forbid(unsafe_code)]

mod app;
mod cache;
mod cli;
pub mod codes;
mod datasources;
mod load;
mod navigate;
mod objects;
mod report;
mod variables;
mod workers;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use strata_dialect::Files;
use strata_jsonnet::{Failure, Setup, Vm};
use strata_syntax::emit::{self, StreamFormat};
use strata_syntax::{Diagnostic, Format, Node, SourceDb, Value};

pub use app::{
    APP_FILE, ApiVersion, AppFile, AppKind, AppMetadata, AppSpec, BASELINE, ComputedVar,
    Environment, EnvironmentMapFile, EnvironmentMapKind, EnvironmentMapSpec, ExternalVar,
    TopLevelVar, Vars,
};
pub use load::{Application, Component, Source, app_schema};
pub use strata_dialect::{Dialect, Opened, Options, Outcome};
pub use strata_jsonnet::{Input, Inputs};

use report::Render;
use workers::Job;

/// The default number of components evaluated at once.
pub const DEFAULT_CONCURRENCY: usize = 5;

/// What to render.
#[derive(Debug, Clone)]
pub struct RenderRequest {
    /// The environment.
    pub environment: String,
    /// `--app-tag`.
    pub tag: Option<String>,
    /// Only these components (all the environment includes when empty).
    pub components: Vec<String>,
    /// Not these components (`-C/--exclude-component`).
    pub exclude_components: Vec<String>,
    /// Only objects of these kinds (`-k/--kind`; any case), all when empty.
    pub kinds: Vec<String>,
    /// Not objects of these kinds (`-K/--exclude-kind`; any case).
    pub exclude_kinds: Vec<String>,
    /// `--vm:jpath`: library folders searched before `libPaths`, relative
    /// to the application folder (as qbec, which runs from there) and
    /// inside it, like every import.
    pub jpaths: Vec<String>,
    /// `--vm:ext-str` / `--vm:ext-code`, in order.
    pub ext_vars: Inputs,
    /// `--vm:tla-str` / `--vm:tla-code`, in order.
    pub tla_vars: Inputs,
    /// qbec's `--strict-vars`: every declared variable and top-level
    /// argument must be given, and none that is undeclared (otherwise an
    /// undeclared one is a warning, and a declared external variable with
    /// no value and no default an error only for the components that read
    /// it).
    pub strict_vars: bool,
    /// How many components are evaluated at once (at least 1).
    pub concurrency: usize,
    /// `qbec.io/cleanMode` is `on`, and objects get no `qbec.io/*` labels
    /// or annotation (`qbec show --clean`).
    pub clean_mode: bool,
    /// How the objects are written (YAML documents or JSON array items).
    pub format: StreamFormat,
    /// How long evaluation may take; components not done by then are
    /// reported (`jsonnet/eval`: "did not finish within ...") and left
    /// running on their detached threads, since a Jsonnet VM cannot be
    /// interrupted. `None` waits.
    pub timeout: Option<Duration>,
}

impl RenderRequest {
    /// A request for `environment` with the defaults.
    #[must_use]
    pub fn new(environment: impl Into<String>) -> RenderRequest {
        RenderRequest {
            environment: environment.into(),
            tag: None,
            components: Vec::new(),
            exclude_components: Vec::new(),
            kinds: Vec::new(),
            exclude_kinds: Vec::new(),
            jpaths: Vec::new(),
            ext_vars: Vec::new(),
            tla_vars: Vec::new(),
            strict_vars: false,
            concurrency: DEFAULT_CONCURRENCY,
            clean_mode: false,
            format: StreamFormat::Yaml,
            timeout: None,
        }
    }
}

/// The rendered objects in output order, each already written in the
/// request's [`StreamFormat`] on the worker that made it: a render holds
/// about its output's size, not a tree per object.
#[derive(Debug, Clone)]
pub struct Objects {
    format: StreamFormat,
    documents: Vec<String>,
}

impl Objects {
    /// Each object's text, in order ([`emit::stream_document`]).
    #[must_use]
    pub fn documents(&self) -> &[String] {
        &self.documents
    }

    /// The whole output: a YAML stream, or a JSON array.
    #[must_use]
    pub fn text(&self) -> String {
        emit::join_stream(&self.documents, self.format)
    }

    /// The whole output in parts that are written one after the other
    /// ([`Objects::text`] without copying the documents of a YAML stream).
    #[must_use]
    pub fn into_parts(self) -> Vec<String> {
        match self.format {
            StreamFormat::Yaml => self.documents,
            StreamFormat::Json => vec![self.text()],
        }
    }
}

impl Dialect for Application {
    /// Nothing beyond the limits: everything else is in `qbec.yaml`.
    type Settings = ();
    type Request = RenderRequest;
    /// The objects, sorted, written in the request's format.
    type Rendered = Objects;

    /// Reads `qbec.yaml` and the components below `files`' root.
    fn open(files: Arc<dyn Files>, options: Options<()>) -> Opened<Application> {
        Application::load(&files, options)
    }

    /// Opens the application again, keeping the component results of
    /// `self`'s renders for its renders to reuse (see `cache`).
    fn reopen(&self, files: Arc<dyn Files>, options: Options<()>) -> Opened<Application> {
        let mut opened = Application::load(&files, options);
        if let Some(application) = &mut opened.outcome.value {
            application.cache = Some(self.cache.clone().unwrap_or_default());
        }
        opened
    }

    fn sources(&self) -> &Arc<SourceDb> {
        &self.sources
    }

    /// Evaluates every component `request` selects into objects. The render
    /// registers in `db` what its diagnostics point into (Jsonnet files of
    /// traces, the command line's values), so several renders can share one.
    fn render(&self, request: &RenderRequest, db: &mut SourceDb) -> Outcome<Objects> {
        let mut render = Render::new(std::mem::take(db), self);
        let objects = self.render_into(request, &mut render);
        *db = render.db;
        Outcome::new(objects, render.diagnostics).valid()
    }

    const CHECK_RENDERS: bool = true;

    /// Renders every environment with the default request (`qbec
    /// validate`'s and `strata components check`'s checks without options).
    fn check(&self, db: &mut SourceDb) -> Vec<Diagnostic> {
        let environments = self
            .environment_names()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        self.check_environments(&RenderRequest::new(""), &environments, db)
    }
    fn outline(&self, db: &mut SourceDb) -> strata_dialect::Outline {
        Application::outline(self, db)
    }

    fn explain(&self, db: &SourceDb, at: strata_syntax::Span) -> Option<String> {
        Application::explain(self, db, at)
    }

    fn schema_of(path: &std::path::Path) -> Option<&'static serde_json::Value> {
        navigate::schema_of(path)
    }
}

impl Application {
    /// Renders `request` for each of `environments` (its own environment
    /// aside), every problem noted with the environment it is in.
    pub fn check_environments(
        &self,
        request: &RenderRequest,
        environments: &[String],
        db: &mut SourceDb,
    ) -> Vec<Diagnostic> {
        let requests = environments.iter().map(|environment| {
            (
                format!("environment `{environment}`"),
                RenderRequest {
                    environment: environment.clone(),
                    ..request.clone()
                },
            )
        });
        strata_dialect::render_each(self, requests, db, |diagnostic| {
            matches!(diagnostic.code, codes::UNKNOWN_ENVIRONMENT)
        })
    }
}

impl Application {
    /// `qbec eval`: the value of one file (Jsonnet, or JSON or YAML, by its
    /// extension; relative to the application folder and inside it) with
    /// the environment's external variables, the request's top-level
    /// arguments, library paths and natives, as a component sees them.
    /// Every problem is a diagnostic in `db`.
    pub fn evaluate_file(
        &self,
        request: &RenderRequest,
        file: &Path,
        db: &mut SourceDb,
    ) -> Outcome<Node> {
        let mut render = Render::new(std::mem::take(db), self);
        let value = self.evaluate_into(request, file, &mut render);
        *db = render.db;
        Outcome::new(value, render.diagnostics).valid()
    }

    fn evaluate_into(
        &self,
        request: &RenderRequest,
        file: &Path,
        render: &mut Render,
    ) -> Option<Node> {
        let span = render.command_line("eval", &file.display().to_string());
        let path = match strata_fs::normalise(file) {
            Ok(path) => path,
            Err(error) => {
                render.diagnostics.push(error.diagnostic(span));
                return None;
            }
        };
        let environment = self.requested_environment(request, render)?;
        let lib_paths = self.lib_paths(request, render)?;
        let ext_vars = self.ext_vars(request, &environment, &lib_paths, render)?;
        let extension = path.extension().and_then(std::ffi::OsStr::to_str);
        let data = match extension {
            Some("json") => Some(Format::Json),
            // As a component's YAML: YAML 1.1, as go-yaml reads it.
            Some("yaml" | "yml") => Some(Format::Yaml11),
            _ => None,
        };
        if let Some(format) = data {
            let read = strata_dialect::Reader::new(self.fs.as_ref(), &mut render.db, self.limits)
                .read(
                    &path,
                    format,
                    strata_dialect::Expect::All,
                    strata_dialect::Place::Reference(span),
                );
            let mut documents = read.report(&mut render.diagnostics)?.documents;
            return match documents.len() {
                0 => Some(Node::new(Value::Null, span)),
                1 => documents.pop(),
                _ => Some(Node::new(Value::Seq(documents), span)),
            };
        }
        let data_sources = self.data_sources(&lib_paths, &ext_vars);
        let setup = Setup {
            fs: self.fs.clone(),
            lib_paths,
            ext_vars,
            limits: self.limits,
            data_sources,
        };
        let what = format!("`{}`", path.display());
        let (value, traces) = strata_jsonnet::on_evaluation_stack(|| {
            let vm = Vm::new(&setup);
            let value = vm
                .evaluate_file(&path, &request.tla_vars)
                .and_then(|value| {
                    strata_jsonnet::value::to_node(&value, span, self.limits.max_depth)
                        .map_err(|error| Failure::from_error(&error))
                });
            (value, vm.take_traces())
        });
        for traced in &traces {
            render.trace(&what, span, traced);
        }
        match value {
            Ok(value) => Some(value),
            Err(failure) => {
                let diagnostic = render.failure(&what, span, &failure);
                render.diagnostics.push(diagnostic);
                None
            }
        }
    }

    /// The declared data sources of one render, each run at most once per
    /// path and only when imported.
    fn data_sources(
        &self,
        lib_paths: &[PathBuf],
        variables: &strata_jsonnet::Inputs,
    ) -> strata_jsonnet::data::DataSources {
        self.data_sources
            .iter()
            .map(|declared| {
                let source = datasources::Source::new(
                    declared.clone(),
                    self.fs.clone(),
                    lib_paths.to_vec(),
                    variables.clone(),
                    self.limits,
                );
                (
                    declared.name.clone(),
                    Arc::new(source) as Arc<dyn strata_jsonnet::data::DataSource>,
                )
            })
            .collect()
    }

    fn render_into(&self, request: &RenderRequest, render: &mut Render) -> Option<Objects> {
        if let Some(tag) = request
            .tag
            .as_deref()
            .filter(|tag| !strata_k8s::names::is_label_name(tag))
        {
            let span = render.command_line("--app-tag", tag);
            render.diagnostics.push(Diagnostic::error(
                codes::INVALID_NAME,
                format!("the tag `{tag}` is not a valid Kubernetes label value"),
                span,
            ));
            return None;
        }
        let environment = self.requested_environment(request, render)?;
        let selected = self.selected(request, render)?;
        let lib_paths = self.lib_paths(request, render)?;
        // Both checked before either stops the render: all problems at once.
        let ext_vars = self.ext_vars(request, &environment, &lib_paths, render);
        let tla = self.tla_vars(request, render);
        let (ext_vars, tla) = (ext_vars?, tla?);
        // What every component of this render is evaluated with (its
        // top-level arguments and files aside): the key of kept results.
        let render_key = cache::fingerprint(&(
            &request.environment,
            &request.tag,
            &self.app.metadata.name,
            self.app.spec.add_component_label,
            request.clean_mode,
            &self.post_processor,
            &request.kinds,
            &request.exclude_kinds,
            request.format,
            &lib_paths,
            &ext_vars,
            self.limits,
        ));
        let data_sources = self.data_sources(&lib_paths, &ext_vars);
        let job = Arc::new(Job {
            setup: Setup {
                fs: self.fs.clone(),
                lib_paths,
                ext_vars,
                limits: self.limits,
                data_sources,
            },
            components: selected.iter().map(|c| (*c).clone()).collect(),
            prepared: selected.iter().map(|_| OnceLock::new()).collect(),
            tla,
            environment: request.environment.clone(),
            tag: request.tag.clone(),
            application: self.app.metadata.name.clone(),
            add_component_label: self.app.spec.add_component_label,
            clean: request.clean_mode,
            post_processor: self.post_processor.clone(),
            kinds: request.kinds.clone(),
            exclude_kinds: request.exclude_kinds.clone(),
            format: request.format,
            progress: self.progress.clone(),
            cache: self.cache.clone(),
            render_key,
            imports: Arc::default(),
            hashes: std::sync::Mutex::default(),
        });
        let mut spans = Vec::with_capacity(selected.len());
        let results = workers::evaluate_all(
            &job,
            request.concurrency,
            request.timeout,
            &self.cancel,
            |component| {
                let prepared = render.prepare(component);
                spans.push(prepared.span);
                prepared
            },
        );
        let mut documents = Vec::new();
        for ((component, span), evaluated) in selected.iter().zip(&spans).zip(results) {
            let what = format!("component `{}`", component.name);
            for traced in &evaluated.traces {
                render.trace(&what, *span, traced);
            }
            if let Some(failure) = evaluated.failure {
                let diagnostic = render.failure(&what, *span, &failure);
                render.diagnostics.push(diagnostic);
            }
            render.diagnostics.extend(evaluated.problems);
            // Components come in name order and each sorts its own objects:
            // the stream is in order as it is collected.
            documents.extend(evaluated.objects.into_iter().map(|o| (&component.name, o)));
        }
        render.duplicates(&documents);
        if render.diagnostics.iter().any(Diagnostic::is_error) {
            return None;
        }
        Some(Objects {
            format: request.format,
            documents: documents
                .into_iter()
                .map(|(_, document)| document.text)
                .collect(),
        })
    }

    /// The environment asked for, the baseline (`_`) included.
    fn requested_environment(
        &self,
        request: &RenderRequest,
        render: &mut Render,
    ) -> Option<app::Environment> {
        if let Some(environment) = self.environment(&request.environment) {
            return Some(environment);
        }
        let span = render.command_line("--env", &request.environment);
        let known: Vec<&str> = self.environment_names().collect();
        render.diagnostics.push(
            Diagnostic::error(
                codes::UNKNOWN_ENVIRONMENT,
                format!("no environment is named `{}`", request.environment),
                span,
            )
            .with_note(format!(
                "the environments are: {}, and `_` (the baseline)",
                report::list(&known)
            ))
            .with_suggestion(&request.environment, known.iter().copied()),
        );
        None
    }

    /// Where imports search after the importing file's folder: the
    /// `--vm:jpath` folders, then `libPaths`, as qbec orders them.
    fn lib_paths(&self, request: &RenderRequest, render: &mut Render) -> Option<Vec<PathBuf>> {
        let mut ok = true;
        let mut paths = Vec::new();
        for jpath in &request.jpaths {
            match strata_fs::normalise(Path::new(jpath)) {
                Ok(path) => paths.push(path),
                Err(error) => {
                    ok = false;
                    let span = render.command_line("--vm:jpath", jpath);
                    render.diagnostics.push(
                        Diagnostic::error(
                            codes::INVALID_PATH,
                            format!("`--vm:jpath` must stay inside the application: {error}"),
                            span,
                        )
                        .with_help("imports never leave the application folder; vendor the library inside it (`vendor/`, say) and name that folder"),
                    );
                }
            }
        }
        paths.extend(self.lib_paths.iter().cloned());
        ok.then_some(paths)
    }

    /// The components to evaluate, in name order.
    fn selected(&self, request: &RenderRequest, render: &mut Render) -> Option<Vec<&Component>> {
        let mut unknown = false;
        let named = request
            .components
            .iter()
            .map(|name| ("--component", name))
            .chain(
                request
                    .exclude_components
                    .iter()
                    .map(|name| ("--exclude-component", name)),
            );
        for (flag, name) in named {
            if request.components.contains(name)
                && request.exclude_components.contains(name)
                && flag == "--exclude-component"
            {
                unknown = true;
                let span = render.command_line(flag, name);
                render.diagnostics.push(Diagnostic::error(
                    codes::INCLUDE_EXCLUDE,
                    format!(
                        "the component `{name}` is both selected and excluded on the command line"
                    ),
                    span,
                ));
            }
            if !self.components.contains_key(name) {
                unknown = true;
                let span = render.command_line(flag, name);
                render.diagnostics.push(
                    Diagnostic::error(
                        codes::UNKNOWN_COMPONENT,
                        format!("no component is named `{name}`"),
                        span,
                    )
                    .with_suggestion(name, self.components.keys().map(String::as_str)),
                );
            }
        }
        if unknown {
            return None;
        }
        for name in &request.components {
            if !self.includes(&request.environment, name) {
                let span = render.command_line("--component", name);
                render.diagnostics.push(Diagnostic::note(
                    codes::EXCLUDED,
                    format!(
                        "the environment `{}` excludes the component `{name}`: nothing is rendered for it",
                        request.environment
                    ),
                    span,
                ));
            }
        }
        Some(
            self.components
                .values()
                .filter(|c| self.includes(&request.environment, &c.name))
                .filter(|c| request.components.is_empty() || request.components.contains(&c.name))
                .filter(|c| !request.exclude_components.contains(&c.name))
                .collect(),
        )
    }
}

impl strata_dialect::Describe for Application {
    const NAME: &'static str = "components";
    const MARKERS: &'static [&'static str] = &[APP_FILE];
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

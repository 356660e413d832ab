//! The `components` dialect: a qbec application (a `qbec.yaml` and a folder
//! of Jsonnet, JSON and YAML components) evaluated per environment into a
//! sorted stream of Kubernetes objects, compatible with qbec.
//!
//! The pipeline, and the module that does each step:
//!
//! 1. [`load`]: decode `qbec.yaml` ([`app`]) and find the components.
//! 2. [`Application::render`]: resolve the environment, the variables and
//!    the components it includes; evaluate each component in its own
//!    Jsonnet VM ([`strata_jsonnet`]), many at once on worker threads; JSON and
//!    YAML components stand for their parsed documents.
//! 3. [`objects`]: walk each output for Kubernetes objects, label and
//!    annotate them, pass each through the post-processor, sort them.
//!
//! # Variables
//!
//! | name | value |
//! |---|---|
//! | `qbec.io/env` | the environment's name |
//! | `qbec.io/envProperties` | `baseProperties` with the environment's `properties` merged over them as qbec merges them (mappings key by key, anything else replaces, `null` kept), as code |
//! | `qbec.io/tag` | the `--app-tag`, or empty |
//! | `qbec.io/defaultNs` | the environment's `defaultNamespace`, with `-<tag>` when `namespaceTagSuffix` is set and a tag is given |
//! | `qbec.io/cleanMode` | `on` with `--clean`, else `off` |
//! | `vars.external` | the command line's value, else the declared `default` (as code) |
//! | `vars.computed` | the code's value, evaluated in order with the variables above |
//!
//! Top-level arguments must be declared in `vars.topLevel` and go only to
//! the components the declaration lists; a component that is a function and
//! gets none is called with its own defaults.
//!
//! # Objects
//!
//! Each object gets the labels `qbec.io/application`, `qbec.io/environment`
//! (and `qbec.io/tag` with a tag), the annotation `qbec.io/component` (and
//! the label too with `addComponentLabel`). Output is sorted by component,
//! namespace, kind and name; two objects of one kind, namespace and name are
//! an error naming both components. Every failing component is reported,
//! each with its Jsonnet trace.
//!
//! | code | when |
//! |---|---|
//! | `components/unknown-environment` | `--env` names no environment (the known ones are listed) |
//! | `components/invalid-name` | `--app-tag` is not a valid label value |
//! | `components/excluded` (note) | `--component` names a component the environment excludes |
//! | `components/unknown-component` | `--component` names no component |
//! | `components/undeclared-var` | a variable given on the command line is not declared |
//! | `components/missing-var` | a declared external variable has no value and no default |
//! | `components/eval` | a component, a variable's code or the post-processor failed; the trace is in the notes |
//! | `components/post-processor` | the post-processor did not return an object with a name |
//! | `components/duplicate-object` | two objects share kind, namespace and name |
//! | `components/trace` (note) | `std.trace` output |
//!
//! Loading codes are in [`load`], output-shape codes in [`objects`].

#![forbid(unsafe_code)]

pub mod app;
pub mod load;
pub mod objects;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use strata_syntax::{Diagnostic, LineCol, Node, SourceDb, SourceId, Span, Value};

pub use app::AppFile;
pub use load::{Application, Component, Loaded, Source, app_schema};
pub use strata_jsonnet::{Input, Inputs};

use strata_jsonnet::{Failure, Setup, Vm, value};

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
    /// `--vm:ext-str` / `--vm:ext-code`, in order.
    pub ext_vars: Inputs,
    /// `--vm:tla-str` / `--vm:tla-code`, in order.
    pub tla_vars: Inputs,
    /// How many components are evaluated at once (at least 1).
    pub concurrency: usize,
    /// `qbec.io/cleanMode` is `on`.
    pub clean_mode: bool,
    /// How long evaluation may take; components not done by then are
    /// reported (`components/eval`: "did not finish within ...") and left
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
            ext_vars: Vec::new(),
            tla_vars: Vec::new(),
            concurrency: DEFAULT_CONCURRENCY,
            clean_mode: false,
            timeout: None,
        }
    }
}

/// What a render gave.
pub struct Rendered {
    /// The objects, sorted; empty when any error was found.
    pub objects: Vec<Node>,
    /// Every problem (and `std.trace` notes).
    pub diagnostics: Vec<Diagnostic>,
}

/// The name the command line's values are shown under.
const COMMAND_LINE: &str = "<command line>";

/// One component's result from a worker.
struct Evaluated {
    objects: Vec<Node>,
    problems: Vec<Diagnostic>,
    failure: Option<Failure>,
    traces: Vec<strata_jsonnet::Traced>,
}

impl Application {
    /// Evaluates every component `request` selects into objects. `db` must
    /// resolve the application's [`sources`](Application::sources) (it is
    /// one that [extends](SourceDb::extending) them); the render registers
    /// there what its diagnostics point into (Jsonnet files of traces, the
    /// command line's values), so several renders can share one.
    pub fn render(&self, request: &RenderRequest, db: &mut SourceDb) -> Rendered {
        let mut render = Render {
            db: std::mem::take(db),
            diagnostics: Vec::new(),
            sources: HashMap::new(),
        };
        let objects = self.render_into(request, &mut render).unwrap_or_default();
        *db = render.db;
        Rendered {
            objects,
            diagnostics: render.diagnostics,
        }
    }

    fn render_into(&self, request: &RenderRequest, render: &mut Render) -> Option<Vec<Node>> {
        if let Some(tag) = request
            .tag
            .as_deref()
            .filter(|tag| !app::is_label_value(tag))
        {
            let span = render.command_line("--app-tag", tag);
            render.diagnostics.push(Diagnostic::error(
                "components/invalid-name",
                format!("the tag `{tag}` is not a valid Kubernetes label value"),
                span,
            ));
            return None;
        }
        let environment = self.environment(request, render)?;
        let selected = self.selected(request, render)?;
        let ext_vars = self.ext_vars(request, environment, render)?;
        let tla = self.tla_vars(request, render)?;
        let spans: Vec<Span> = selected
            .iter()
            .map(|component| render.component_span(self, component))
            .collect();
        let job = Arc::new(Job {
            setup: Setup {
                fs: self.fs.clone(),
                lib_paths: self.lib_paths.clone(),
                ext_vars,
                limits: self.limits,
            },
            components: selected
                .iter()
                .map(|c| (*c).clone())
                .zip(spans.iter().copied())
                .collect(),
            tla,
            environment: request.environment.clone(),
            tag: request.tag.clone(),
            application: self.app.metadata.name.clone(),
            add_component_label: self.app.spec.add_component_label,
            post_processor: self.post_processor.clone(),
        });
        let results = evaluate_all(&job, request.concurrency, request.timeout);
        let mut objects = Vec::new();
        for ((component, span), evaluated) in selected.iter().zip(&spans).zip(results) {
            for trace in evaluated.traces {
                let at = trace
                    .at
                    .map_or(*span, |frame| render.frame_span(self, &frame));
                render.diagnostics.push(Diagnostic::note(
                    "components/trace",
                    format!("component `{}`: {}", component.name, trace.message),
                    at,
                ));
            }
            if let Some(failure) = evaluated.failure {
                let what = format!("component `{}`", component.name);
                let diagnostic = render.failure(self, &what, *span, &failure);
                render.diagnostics.push(diagnostic);
            }
            render.diagnostics.extend(evaluated.problems);
            objects.extend(
                evaluated
                    .objects
                    .into_iter()
                    .map(|o| (component.name.clone(), o)),
            );
        }
        objects.sort_by_cached_key(|(component, object)| {
            (component.clone(), objects::identity(object))
        });
        render.duplicates(&objects);
        if render.diagnostics.iter().any(Diagnostic::is_error) {
            return None;
        }
        Some(objects.into_iter().map(|(_, object)| object).collect())
    }

    /// The environment asked for.
    fn environment<'a>(
        &'a self,
        request: &RenderRequest,
        render: &mut Render,
    ) -> Option<&'a app::Environment> {
        let environments = &self.app.spec.environments;
        if let Some(environment) = environments.get(&request.environment) {
            return Some(environment);
        }
        let span = render.command_line("--env", &request.environment);
        let known: Vec<&str> = environments.keys().map(String::as_str).collect();
        render.diagnostics.push(
            Diagnostic::error(
                "components/unknown-environment",
                format!("no environment is named `{}`", request.environment),
                span,
            )
            .with_note(format!("the environments are: {}", list(&known)))
            .with_suggestion(&request.environment, known.iter().copied()),
        );
        None
    }

    /// The components to evaluate, in name order.
    fn selected(&self, request: &RenderRequest, render: &mut Render) -> Option<Vec<&Component>> {
        let mut unknown = false;
        for name in &request.components {
            if !self.components.contains_key(name) {
                unknown = true;
                let span = render.command_line("--component", name);
                render.diagnostics.push(
                    Diagnostic::error(
                        "components/unknown-component",
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
                    "components/excluded",
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
                .collect(),
        )
    }

    /// Every external variable: qbec's own, the declared ones, the computed ones.
    fn ext_vars(
        &self,
        request: &RenderRequest,
        environment: &app::Environment,
        render: &mut Render,
    ) -> Option<Inputs> {
        let spec = &self.app.spec;
        let tag = request.tag.clone().unwrap_or_default();
        let namespace = if spec.namespace_tag_suffix && !tag.is_empty() {
            format!("{}-{tag}", environment.default_namespace)
        } else {
            environment.default_namespace.clone()
        };
        let mut vars = vec![
            (
                "qbec.io/env".to_owned(),
                Input::Str(request.environment.clone()),
            ),
            (
                "qbec.io/envProperties".to_owned(),
                Input::Code(spec.properties(environment).to_string()),
            ),
            ("qbec.io/tag".to_owned(), Input::Str(tag)),
            ("qbec.io/defaultNs".to_owned(), Input::Str(namespace)),
            (
                "qbec.io/cleanMode".to_owned(),
                Input::Str(if request.clean_mode { "on" } else { "off" }.to_owned()),
            ),
        ];
        let mut ok = true;
        for (name, input) in &request.ext_vars {
            if !spec.vars.external.iter().any(|var| &var.name == name) {
                ok = false;
                let span = render.command_line(&input.flag("ext"), name);
                let declared = spec.vars.external.iter().map(|var| var.name.as_str());
                render.diagnostics.push(
                    Diagnostic::error(
                        "components/undeclared-var",
                        format!(
                            "the external variable `{name}` is not declared in `spec.vars.external`"
                        ),
                        span,
                    )
                    .with_suggestion(name, declared),
                );
            }
        }
        for (index, declared) in spec.vars.external.iter().enumerate() {
            let given = request
                .ext_vars
                .iter()
                .rev()
                .find(|(name, _)| *name == declared.name);
            match (given, &declared.default) {
                (Some((_, input)), _) => vars.push((declared.name.clone(), input.clone())),
                (None, Some(default)) => {
                    vars.push((declared.name.clone(), Input::Code(default.to_string())));
                }
                (None, None) => {
                    ok = false;
                    let span = self.span_at(&["spec", "vars", "external"]);
                    let span = self
                        .app_node
                        .get("spec")
                        .and_then(|s| s.get("vars"))
                        .and_then(|v| v.get("external"))
                        .and_then(Node::as_seq)
                        .and_then(|items| items.get(index))
                        .map_or(span, |item| item.span);
                    render.diagnostics.push(
                        Diagnostic::error(
                            "components/missing-var",
                            format!("the external variable `{}` has no value and no default", declared.name),
                            span,
                        )
                        .with_help(format!(
                            "give it with `--vm:ext-str {0}=VALUE` or `--vm:ext-code {0}=CODE`, or declare a `default`",
                            declared.name
                        )),
                    );
                }
            }
        }
        if !ok {
            return None;
        }
        self.computed_vars(&mut vars, render)?;
        Some(vars)
    }

    /// Evaluates `vars.computed` in order, each seeing the variables before it.
    fn computed_vars(&self, vars: &mut Inputs, render: &mut Render) -> Option<()> {
        let written = self
            .app_node
            .get("spec")
            .and_then(|s| s.get("vars"))
            .and_then(|v| v.get("computed"))
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for (index, computed) in self.app.spec.vars.computed.iter().enumerate() {
            let setup = Setup {
                fs: self.fs.clone(),
                lib_paths: self.lib_paths.clone(),
                ext_vars: vars.clone(),
                limits: self.limits,
            };
            let source = format!("<computed:{}>", computed.name);
            let value = Vm::new(&setup).and_then(|vm| {
                let value = vm.evaluate_snippet(&source, &computed.code)?;
                value::to_node(&value, Span::default(), self.limits.max_depth)
                    .map_err(|error| Failure::from_error(&error))
            });
            match value {
                Ok(node) => vars.push((
                    computed.name.clone(),
                    Input::Code(node.to_json_value().to_string()),
                )),
                Err(failure) => {
                    let code = written.get(index).and_then(|var| var.get("code"));
                    let span = code.map_or_else(
                        || self.span_at(&["spec", "vars", "computed"]),
                        |code| code.span,
                    );
                    let what = format!("computed variable `{}`", computed.name);
                    let mut diagnostic = render.failure(self, &what, span, &failure);
                    // The code is written in `qbec.yaml`: point there when the text can be found.
                    let inside = failure
                        .frames
                        .first()
                        .filter(|frame| frame.file == source)
                        .zip(code)
                        .and_then(|(frame, code)| {
                            render.db.span_in_scalar(
                                code.span,
                                &computed.code,
                                frame.start..frame.end,
                            )
                        });
                    if let Some(inside) = inside {
                        diagnostic.primary.span = inside;
                    }
                    render.diagnostics.push(diagnostic);
                    return None;
                }
            }
        }
        Some(())
    }

    /// The top-level arguments of each component, by name.
    fn tla_vars(
        &self,
        request: &RenderRequest,
        render: &mut Render,
    ) -> Option<HashMap<String, Inputs>> {
        let declared = &self.app.spec.vars.top_level;
        let mut ok = true;
        let mut by_component: HashMap<String, Inputs> = HashMap::new();
        for (name, input) in &request.tla_vars {
            let Some(declaration) = declared.iter().find(|var| &var.name == name) else {
                ok = false;
                let span = render.command_line(&input.flag("tla"), name);
                render.diagnostics.push(
                    Diagnostic::error(
                        "components/undeclared-var",
                        format!("the top-level argument `{name}` is not declared in `spec.vars.topLevel`"),
                        span,
                    )
                    .with_suggestion(name, declared.iter().map(|var| var.name.as_str())),
                );
                continue;
            };
            for component in &declaration.components {
                let arguments = by_component.entry(component.clone()).or_default();
                arguments.retain(|(existing, _)| existing != name);
                arguments.push((name.clone(), input.clone()));
            }
        }
        ok.then_some(by_component)
    }
}

/// What the workers of one render share: plain, owned data, so a worker
/// that outlives a timed-out render holds nothing of the caller's.
struct Job {
    setup: Setup,
    /// The components to evaluate, with the span their output gets.
    components: Vec<(Component, Span)>,
    tla: HashMap<String, Inputs>,
    environment: String,
    tag: Option<String>,
    application: String,
    add_component_label: bool,
    post_processor: Option<std::path::PathBuf>,
}

/// Evaluates every component of `job` on up to `concurrency` worker
/// threads, results placed by index; waits at most `timeout`.
fn evaluate_all(job: &Arc<Job>, concurrency: usize, timeout: Option<Duration>) -> Vec<Evaluated> {
    let count = job.components.len();
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (sender, received) = mpsc::channel();
    let mut spawned = 0;
    for _ in 0..concurrency.clamp(1, count.max(1)) {
        let (job, next, stop, sender) = (job.clone(), next.clone(), stop.clone(), sender.clone());
        let worker = std::thread::Builder::new()
            .name("strata-component".to_owned())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some((component, span)) = job.components.get(index) else {
                        break;
                    };
                    if sender
                        .send((index, job.evaluate(component, *span)))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        spawned += usize::from(worker.is_ok());
    }
    drop(sender);
    let mut slots: Vec<Option<Evaluated>> = (0..count).map(|_| None).collect();
    if spawned == 0 {
        // No thread could be had: evaluate here, without a deadline.
        for (slot, (component, span)) in slots.iter_mut().zip(&job.components) {
            *slot = Some(job.evaluate(component, *span));
        }
    }
    let deadline = timeout.map(|timeout| Instant::now() + timeout);
    let mut timed_out = false;
    while slots.iter().any(Option::is_none) {
        let result = match deadline {
            Some(deadline) => {
                received.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            }
            None => received.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match result {
            Ok((index, evaluated)) => slots[index] = Some(evaluated),
            Err(RecvTimeoutError::Timeout) => {
                stop.store(true, Ordering::Relaxed);
                timed_out = true;
                break;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    slots
        .into_iter()
        .map(|slot| {
            slot.unwrap_or_else(|| {
                let message = match timeout {
                    Some(timeout) if timed_out => format!(
                        "the evaluation did not finish within {}",
                        humantime::format_duration(timeout)
                    ),
                    _ => "the evaluation stopped unexpectedly".to_owned(),
                };
                Evaluated {
                    objects: Vec::new(),
                    problems: Vec::new(),
                    failure: Some(Failure::message(message)),
                    traces: Vec::new(),
                }
            })
        })
        .collect()
}

impl Job {
    /// One component, start to end, on a worker thread.
    fn evaluate(&self, component: &Component, span: Span) -> Evaluated {
        let setup = &self.setup;
        let arguments = self.tla.get(&component.name).map_or(&[][..], Vec::as_slice);
        let mut evaluated = Evaluated {
            objects: Vec::new(),
            problems: Vec::new(),
            failure: None,
            traces: Vec::new(),
        };
        let mut vm = None;
        let output = match &component.source {
            Source::Jsonnet(file) => Vm::new(setup).and_then(|machine| {
                let value = machine.evaluate_file(file, arguments);
                let node = value.and_then(|value| {
                    value::to_node(&value, span, self.setup.limits.max_depth)
                        .map_err(|error| Failure::from_error(&error))
                });
                vm = Some(machine);
                node
            }),
            Source::Documents { files, folder } => Ok(if *folder {
                Node::new(
                    Value::Seq(files.iter().map(|(_, value)| value.clone()).collect()),
                    span,
                )
            } else {
                files
                    .first()
                    .map_or_else(|| Node::new(Value::Null, span), |(_, value)| value.clone())
            }),
        };
        let output = match output {
            Ok(output) => output,
            Err(failure) => {
                evaluated.failure = Some(failure);
                evaluated.traces = vm.map(|vm| vm.traces()).unwrap_or_default();
                return evaluated;
            }
        };
        let (found, problems) = objects::extract(output, &component.name);
        evaluated.problems = problems;
        // As qbec: the post-processor sees each object as the component made
        // it; qbec's labels and annotation go on what it returns.
        for object in found {
            let mut object = match self.post_process(object, &mut vm, setup, span, &component.name)
            {
                Ok(object) => object,
                Err(PostProcess::Failed(failure)) => {
                    evaluated.failure = Some(failure);
                    break;
                }
                Err(PostProcess::Invalid(problem)) => {
                    evaluated.problems.push(problem);
                    continue;
                }
            };
            match self.label(&mut object, &component.name) {
                Ok(()) => {
                    objects::sort_keys(&mut object);
                    evaluated.objects.push(object);
                }
                Err(problem) => evaluated.problems.push(problem),
            }
        }
        evaluated.traces = vm.map(|vm| vm.traces()).unwrap_or_default();
        evaluated
    }

    /// qbec's labels and annotation.
    fn label(&self, object: &mut Node, component: &str) -> Result<(), Diagnostic> {
        objects::set_metadata(object, "labels", "qbec.io/application", &self.application)?;
        objects::set_metadata(object, "labels", "qbec.io/environment", &self.environment)?;
        if let Some(tag) = &self.tag {
            objects::set_metadata(object, "labels", "qbec.io/tag", tag)?;
        }
        if self.add_component_label {
            objects::set_metadata(object, "labels", "qbec.io/component", component)?;
        }
        objects::set_metadata(object, "annotations", "qbec.io/component", component)
    }

    /// Passes `object` through the post-processor, if there is one.
    fn post_process(
        &self,
        object: Node,
        vm: &mut Option<Vm>,
        setup: &Setup,
        span: Span,
        component: &str,
    ) -> Result<Node, PostProcess> {
        let Some(path) = &self.post_processor else {
            return Ok(object);
        };
        if vm.is_none() {
            *vm = Some(Vm::new(setup).map_err(PostProcess::Failed)?);
        }
        let Some(machine) = vm.as_ref() else {
            return Ok(object);
        };
        let failed = |failure: Failure| {
            PostProcess::Failed(Failure {
                message: format!(
                    "the post-processor `{}` failed: {}",
                    path.display(),
                    failure.message
                ),
                ..failure
            })
        };
        let function = machine.import(path).map_err(failed)?;
        let result = machine
            .call_with(&function, "object", value::from_node(&object))
            .and_then(|value| value::to_node(&value, span, self.setup.limits.max_depth))
            .map_err(|error| failed(Failure::from_error(&error)))?;
        if result.as_map().is_some_and(objects::is_object) && objects::name(&result).is_some() {
            Ok(result)
        } else {
            Err(PostProcess::Invalid(Diagnostic::error(
                "components/post-processor",
                format!(
                    "component `{component}`: the post-processor `{}` returned {} for `{}`; it must return an object with `kind`, `apiVersion` and a name",
                    path.display(),
                    result.value.kind_name(),
                    objects::name(&object).unwrap_or_default()
                ),
                span,
            )))
        }
    }
}

/// Why an object did not come through the post-processor.
enum PostProcess {
    Failed(Failure),
    Invalid(Diagnostic),
}

/// A render's own state on the calling thread.
struct Render {
    db: SourceDb,
    diagnostics: Vec<Diagnostic>,
    /// Sources registered for traces, by name.
    sources: HashMap<String, SourceId>,
}

impl Render {
    /// Registers `flag value` as the command line's and spans the value.
    fn command_line(&mut self, flag: &str, value: &str) -> Span {
        let text = format!("{flag} {value}");
        let id = self.db.add(COMMAND_LINE, text.as_str());
        Span::new(id, flag.len() + 1, text.len())
    }

    /// A span for a component's output: its file, read and registered.
    fn component_span(&mut self, application: &Application, component: &Component) -> Span {
        match &component.source {
            Source::Documents { files, folder } => {
                let first = files
                    .first()
                    .map(|(_, value)| value.span)
                    .unwrap_or_default();
                if *folder {
                    Span::file_start(first.source)
                } else {
                    first
                }
            }
            Source::Jsonnet(file) => {
                let text = application
                    .fs
                    .read(file, application.limits.max_bytes)
                    .unwrap_or_default();
                let id = self.source(application, &file.display().to_string(), true, &text);
                Span::new(id, 0, 0)
            }
        }
    }

    /// The id of a source named in a trace, registering it once.
    fn source(
        &mut self,
        application: &Application,
        name: &str,
        on_disk: bool,
        code: &str,
    ) -> SourceId {
        if let Some(id) = self.sources.get(name) {
            return *id;
        }
        let shown = if on_disk {
            application.fs.display(Path::new(name))
        } else {
            name.to_owned()
        };
        let id = self.db.add(shown, code);
        self.sources.insert(name.to_owned(), id);
        id
    }

    /// A trace frame's place, its file registered once.
    fn frame_span(&mut self, application: &Application, frame: &strata_jsonnet::Frame) -> Span {
        let id = self.source(application, &frame.file, frame.on_disk, &frame.code);
        let length = frame.code.len();
        Span::new(id, frame.start.min(length), frame.end.min(length))
    }

    /// A failed evaluation as a diagnostic: at the innermost place of its
    /// trace, every frame in the notes.
    fn failure(
        &mut self,
        application: &Application,
        what: &str,
        fallback: Span,
        failure: &Failure,
    ) -> Diagnostic {
        let spans: Vec<(Span, &strata_jsonnet::Frame)> = failure
            .frames
            .iter()
            .map(|frame| (self.frame_span(application, frame), frame))
            .collect();
        let primary = spans.first().map_or(fallback, |(span, _)| *span);
        let mut diagnostic = Diagnostic::error(
            "components/eval",
            format!("{what}: {}", failure.message),
            primary,
        );
        for (span, frame) in spans.iter().take(MAX_FRAMES) {
            let (file, at) = self.db.locate(*span);
            let LineCol { line, column } = at;
            let description = if frame.description.is_empty() {
                String::new()
            } else {
                format!(" ({})", frame.description)
            };
            diagnostic = diagnostic.with_note(format!("at {file}:{line}:{column}{description}"));
        }
        if spans.len() > MAX_FRAMES {
            diagnostic =
                diagnostic.with_note(format!("... and {} more frames", spans.len() - MAX_FRAMES));
        }
        diagnostic
    }

    /// Two objects of one kind, namespace and name are an error naming both.
    fn duplicates(&mut self, objects: &[(String, Node)]) {
        let mut seen: HashMap<(String, String, String), (&str, Span)> = HashMap::new();
        for (component, object) in objects {
            let generated = object
                .get("metadata")
                .and_then(|m| m.get("name"))
                .and_then(Node::as_str)
                .is_none_or(str::is_empty);
            if generated {
                continue;
            }
            let identity = objects::identity(object);
            if let Some((first, first_span)) = seen.get(&identity) {
                let (namespace, kind, name) = &identity;
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
                        "components/duplicate-object",
                        format!("the {kind} `{name}`{place} comes {origin}"),
                        object.span,
                    )
                    .with_secondary(*first_span, "the first one"),
                );
                continue;
            }
            seen.insert(identity, (component, object.span));
        }
    }
}

/// How many trace frames a diagnostic lists.
const MAX_FRAMES: usize = 20;

fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

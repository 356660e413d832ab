//! Evaluating components on worker threads.
//!
//! Up to `concurrency` detached threads (no more than the cores) take
//! components in order from one shared, owned [`Job`], each on the deep
//! stack Jsonnet needs ([`strata_jsonnet::EVALUATION_STACK_BYTES`]: a deeply
//! nested program meets the memory limit, not the stack's end). The
//! workers start before the render's thread reads and registers each
//! component's file ([`Prepared`]), which it then does while they
//! evaluate, in order, handing each worker the text it read: a file is read
//! once, and no worker waits for all of them to be read. Each thread has one
//! Jsonnet VM (a jrsonnet `State` is not `Send`) that it reuses from one
//! component to the next: imported libraries are parsed once per thread, a
//! component's own file is never cached, and after each component the
//! imports' values are forgotten and the cycles the evaluation left are
//! freed ([`Vm::collect_garbage`]). A component's output
//! is walked for objects, each passed through the post-processors,
//! labelled, filtered by kind, sorted, and written as text in the
//! request's format ([`Document`]), so a render holds text, not trees.
//! Results are placed by component index, so the output does not depend on
//! scheduling. At the deadline the unfinished components are reported and
//! their threads left behind, since a VM cannot be interrupted; a
//! cancelled render stops waiting the same way (within 10 ms), and its
//! workers stop after the component each is evaluating. A worker that
//! dies is reported, not propagated. Each component's evaluation is a
//! step told to the render's [`strata_dialect::Progress`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use strata_jsonnet::reads::ImportLog;
use strata_jsonnet::{Failure, Inputs, Setup, Traced, Vm, value};
use strata_syntax::emit::{self, StreamFormat};
use strata_syntax::{Diagnostic, Node, SourceId, Span, Value};

use crate::cache::{self, Cache, Key};
use crate::codes;
use crate::load::{Component, Source};
use crate::objects;

/// An object as a render keeps it: where it sorts, and its text, written
/// on the worker (held as text, an object costs about its output's size,
/// where its tree costs ten times more).
#[derive(Debug, Clone)]
pub(crate) struct Document {
    /// Namespace, kind and name.
    pub(crate) identity: (String, String, String),
    /// Whether `metadata.name` is set: an object named by `generateName`
    /// is never a duplicate.
    pub(crate) named: bool,
    /// Where the object was made.
    pub(crate) span: Span,
    /// The object in the request's format ([`emit::stream_document`]).
    pub(crate) text: String,
}

/// One component's result from a worker.
#[derive(Debug, Clone)]
pub(crate) struct Evaluated {
    /// The objects the kind filters keep, sorted by namespace, kind and name.
    pub(crate) objects: Vec<Document>,
    pub(crate) problems: Vec<Diagnostic>,
    pub(crate) failure: Option<Failure>,
    pub(crate) traces: Vec<Traced>,
}

impl Evaluated {
    /// The spans into `from` moved to `to` (the same file as another
    /// render registered it).
    pub(crate) fn move_spans(&mut self, from: SourceId, to: SourceId) {
        let moved = |span: &mut Span| {
            if span.source == from {
                span.source = to;
            }
        };
        for object in &mut self.objects {
            moved(&mut object.span);
        }
        for problem in &mut self.problems {
            moved(&mut problem.primary.span);
            for label in &mut problem.secondary {
                moved(&mut label.span);
            }
        }
    }
}

/// What a worker needs of a component besides the component itself,
/// prepared by the render's own thread while the workers run.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The span the component's output gets (the start of its file).
    pub(crate) span: Span,
    /// A Jsonnet component's text, as the render read it to register the
    /// file for its diagnostics, so that the file is read once (`None`:
    /// the evaluation reads it, and reports why it cannot).
    pub(crate) text: Option<Arc<str>>,
}

/// What the workers of one render share: plain, owned data, so a worker
/// that outlives a timed-out render holds nothing of the caller's.
pub(crate) struct Job {
    pub(crate) setup: Setup,
    /// The components to evaluate.
    pub(crate) components: Vec<Component>,
    /// What each component needs besides itself, by index, set by the
    /// render's thread as the workers start ([`evaluate_all`]).
    pub(crate) prepared: Vec<OnceLock<Prepared>>,
    pub(crate) tla: HashMap<String, Inputs>,
    pub(crate) environment: String,
    pub(crate) tag: Option<String>,
    pub(crate) application: String,
    pub(crate) add_component_label: bool,
    /// `--clean`: qbec's labels and annotation are left off, as
    /// `qbec show --clean` leaves them.
    pub(crate) clean: bool,
    /// The post-processors, applied in order.
    pub(crate) post_processor: Vec<std::path::PathBuf>,
    /// Only objects of these kinds (any case), all when empty.
    pub(crate) kinds: Vec<String>,
    /// Not objects of these kinds (any case).
    pub(crate) exclude_kinds: Vec<String>,
    /// How each object is written.
    pub(crate) format: StreamFormat,
    /// Told when each component's evaluation starts and ends.
    pub(crate) progress: strata_dialect::Progress,
    /// The results kept between renders (for an application that will be
    /// reopened), and the fingerprint of this render's inputs.
    pub(crate) cache: Option<Arc<Cache>>,
    pub(crate) render_key: u64,
    /// The imports this render's evaluations make.
    pub(crate) imports: Arc<ImportLog>,
    /// The hash of each file's text, as first read by this render.
    pub(crate) hashes: Mutex<HashMap<PathBuf, Option<u64>>>,
}

/// How often a render waiting for its workers looks whether it has been
/// cancelled.
const CANCEL_POLL: Duration = Duration::from_millis(10);

/// Evaluates every component of `job` on up to `concurrency` worker
/// threads, results placed by index; waits at most `timeout`, and stops
/// waiting once `cancel` is asked (the workers stop after the component
/// each is evaluating; a VM cannot be interrupted).
///
/// Once the workers are started, `prepare` is called here for each
/// component in order, and a worker waits for its component's
/// [`Prepared`]: registering a file takes a hundredth of evaluating it,
/// so the workers start at once and seldom wait, where preparing every
/// component first kept them idle.
pub(crate) fn evaluate_all(
    job: &Arc<Job>,
    concurrency: usize,
    timeout: Option<Duration>,
    cancel: &strata_dialect::Cancel,
    mut prepare: impl FnMut(&Component) -> Prepared,
) -> Vec<Evaluated> {
    let count = job.components.len();
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (sender, received) = mpsc::channel();
    let mut spawned = 0;
    // More threads than cores only adds switching and a VM per thread:
    // `concurrency` is how many at once at most, as in qbec, and the output
    // is the same for any number.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    for _ in 0..concurrency.min(cores).clamp(1, count.max(1)) {
        let (job, next, stop, sender) = (job.clone(), next.clone(), stop.clone(), sender.clone());
        let worker = std::thread::Builder::new()
            .name("strata-component".to_owned())
            .stack_size(strata_jsonnet::EVALUATION_STACK_BYTES)
            .spawn(move || {
                let mut vm = None;
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(component), Some(prepared)) =
                        (job.components.get(index), job.prepared.get(index))
                    else {
                        break;
                    };
                    let prepared = prepared.wait();
                    if sender
                        .send((index, job.evaluate(component, prepared, &mut vm)))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        spawned += usize::from(worker.is_ok());
    }
    drop(sender);
    for (component, prepared) in job.components.iter().zip(&job.prepared) {
        // Set only here, once per component.
        let _ = prepared.set(prepare(component));
    }
    let mut slots: Vec<Option<Evaluated>> = (0..count).map(|_| None).collect();
    if spawned == 0 {
        // No thread could be had: evaluate here, without a deadline.
        let mut vm = None;
        for ((slot, component), prepared) in
            slots.iter_mut().zip(&job.components).zip(&job.prepared)
        {
            if cancel.is_cancelled() {
                break;
            }
            if let Some(prepared) = prepared.get() {
                *slot = Some(job.evaluate(component, prepared, &mut vm));
            }
        }
    }
    let deadline = timeout.map(|timeout| Instant::now() + timeout);
    let mut timed_out = false;
    while slots.iter().any(Option::is_none) {
        if cancel.is_cancelled() {
            stop.store(true, Ordering::Relaxed);
            break;
        }
        let now = Instant::now();
        if deadline.is_some_and(|deadline| deadline <= now) {
            stop.store(true, Ordering::Relaxed);
            timed_out = true;
            break;
        }
        let wait = deadline.map_or(CANCEL_POLL, |deadline| (deadline - now).min(CANCEL_POLL));
        match received.recv_timeout(wait) {
            Ok((index, evaluated)) => slots[index] = Some(evaluated),
            Err(RecvTimeoutError::Timeout) => {}
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
                    _ if cancel.is_cancelled() => "the evaluation was cancelled".to_owned(),
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
    /// One component, start to end, on a worker thread, in the thread's
    /// VM (made when first needed). The VM is reused from one component to
    /// the next: Jsonnet is pure, so a library imported by every component
    /// is parsed once per thread instead of once per component, with the
    /// same result.
    fn evaluate(
        &self,
        component: &Component,
        prepared: &Prepared,
        vm: &mut Option<Vm>,
    ) -> Evaluated {
        let span = prepared.span;
        let file = component.files().first().copied().unwrap_or(Path::new(""));
        let key = self.key(component);
        if let (Source::Jsonnet(_), Some(cache)) = (&component.source, &self.cache)
            && let Some(kept) = cache.get(&key, span, |file| self.hash(file))
        {
            return kept;
        }
        let step = self
            .progress
            .step(&format!("component `{}`", component.name), file);
        let evaluated = self.evaluate_in(component, prepared, vm);
        drop(step);
        if let Some(vm) = vm {
            vm.collect_garbage();
        }
        if let Source::Jsonnet(file) = &component.source {
            self.keep(key, file, span, &evaluated);
        }
        evaluated
    }

    /// The thread's VM, made when first needed, noting its imports when
    /// results are kept.
    fn machine<'v>(&self, vm: &'v mut Option<Vm>) -> &'v mut Vm {
        vm.get_or_insert_with(|| match &self.cache {
            Some(_) => Vm::recording(&self.setup, self.imports.clone()),
            None => Vm::new(&self.setup),
        })
    }

    /// What `component`'s result depends on besides its files.
    fn key(&self, component: &Component) -> Key {
        Key {
            render: self.render_key,
            component: component.name.clone(),
            arguments: cache::fingerprint(&self.tla.get(&component.name)),
        }
    }

    /// Keeps the result of the Jsonnet component `file` with the hashes
    /// of every file its evaluation read (and the post-processors'), and
    /// the places its imports found nothing, when nothing it read is
    /// volatile.
    fn keep(&self, key: Key, file: &Path, span: Span, evaluated: &Evaluated) {
        let Some(cache) = &self.cache else {
            return;
        };
        let mut roots = vec![file];
        roots.extend(self.post_processor.iter().map(PathBuf::as_path));
        let Some(read) = self.imports.reach(&roots) else {
            return;
        };
        let files: Vec<(PathBuf, Option<u64>)> = read
            .into_iter()
            .map(|file| {
                let hash = self.hash(&file);
                (file, hash)
            })
            .collect();
        cache.put(key, files, span, evaluated);
    }

    /// The hash of `file`'s text, read once per render (`None`: it cannot
    /// be read).
    fn hash(&self, file: &PathBuf) -> Option<u64> {
        let mut hashes = self.hashes.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(hash) = hashes.get(file) {
            return *hash;
        }
        let hash = self
            .setup
            .fs
            .read(file, self.setup.limits.max_bytes)
            .ok()
            .map(|text| cache::text_hash(&text));
        hashes.insert(file.clone(), hash);
        hash
    }

    fn evaluate_in(
        &self,
        component: &Component,
        prepared: &Prepared,
        vm: &mut Option<Vm>,
    ) -> Evaluated {
        let span = prepared.span;
        let arguments = self.tla.get(&component.name).map_or(&[][..], Vec::as_slice);
        let mut evaluated = Evaluated {
            objects: Vec::new(),
            problems: Vec::new(),
            failure: None,
            traces: Vec::new(),
        };
        let output = match &component.source {
            Source::Jsonnet(file) => {
                let machine = self.machine(vm);
                match &prepared.text {
                    Some(text) => machine.evaluate_file_text(file, text, arguments),
                    None => machine.evaluate_file(file, arguments),
                }
                .and_then(|value| {
                    value::to_node(&value, span, self.setup.limits.max_depth)
                        .map_err(|error| Failure::from_error(&error))
                })
            }
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
                evaluated.traces = vm.as_ref().map(Vm::take_traces).unwrap_or_default();
                return evaluated;
            }
        };
        let (found, problems) = objects::extract(output, &component.name);
        evaluated.problems = problems;
        // As qbec: the post-processor sees each object as the component made
        // it; qbec's labels and annotation go on what it returns.
        let mut kept = Vec::new();
        for object in found {
            let mut object = match self.post_process(object, vm, span, &component.name) {
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
                Ok(()) if self.kind_selected(&object) => {
                    objects::sort_keys(&mut object);
                    kept.push(object);
                }
                Ok(()) => {}
                Err(problem) => evaluated.problems.push(problem),
            }
        }
        kept.sort_by_cached_key(objects::identity);
        for object in kept {
            match emit::stream_document(&object, self.format) {
                Ok(text) => evaluated.objects.push(Document {
                    identity: objects::identity(&object),
                    named: object
                        .get("metadata")
                        .and_then(|m| m.get("name"))
                        .and_then(Node::as_str)
                        .is_some_and(|name| !name.is_empty()),
                    span: object.span,
                    text,
                }),
                Err(problem) => evaluated.problems.push(problem.with_note(format!(
                    "in the {} `{}` of component `{}`",
                    objects::identity(&object).1,
                    objects::name(&object).unwrap_or_default(),
                    component.name
                ))),
            }
        }
        evaluated.traces = vm.as_ref().map(Vm::take_traces).unwrap_or_default();
        evaluated
    }

    /// Whether the kind filters keep `object`, as qbec's `-k`/`-K`: after
    /// evaluation, in any case.
    fn kind_selected(&self, object: &Node) -> bool {
        let kind = object
            .get("kind")
            .and_then(Node::as_str)
            .unwrap_or_default();
        let listed =
            |kinds: &[String]| kinds.iter().any(|wanted| wanted.eq_ignore_ascii_case(kind));
        (self.kinds.is_empty() || listed(&self.kinds)) && !listed(&self.exclude_kinds)
    }

    /// qbec's labels and annotation.
    fn label(&self, object: &mut Node, component: &str) -> Result<(), Diagnostic> {
        if self.clean {
            return Ok(());
        }
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

    /// Passes `object` through each post-processor, in order.
    fn post_process(
        &self,
        object: Node,
        vm: &mut Option<Vm>,
        span: Span,
        component: &str,
    ) -> Result<Node, PostProcess> {
        let mut object = object;
        for path in &self.post_processor {
            object = self.post_process_with(path, &object, vm, span, component)?;
        }
        Ok(object)
    }

    /// Passes `object` through the post-processor at `path`.
    fn post_process_with(
        &self,
        path: &std::path::Path,
        object: &Node,
        vm: &mut Option<Vm>,
        span: Span,
        component: &str,
    ) -> Result<Node, PostProcess> {
        let machine = self.machine(vm);
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
            .call_with(&function, "object", value::from_node(object))
            .and_then(|value| value::to_node(&value, span, self.setup.limits.max_depth))
            .map_err(|error| failed(Failure::from_error(&error)))?;
        if result.as_map().is_some_and(objects::is_object) && objects::name(&result).is_some() {
            Ok(result)
        } else {
            Err(PostProcess::Invalid(Diagnostic::error(
                codes::POST_PROCESSOR,
                format!(
                    "component `{component}`: the post-processor `{}` returned {} for `{}`; it must return an object with `kind`, `apiVersion` and a name",
                    path.display(),
                    result.value.kind_name(),
                    objects::name(object).unwrap_or_default()
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

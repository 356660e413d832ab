//! Evaluating components on worker threads.
//!
//! Up to `concurrency` detached threads take components in order from one
//! shared, owned [`Job`]; each component gets its own Jsonnet VM (a
//! jrsonnet `State` is not `Send`), its output is walked for objects, each
//! object passed through the post-processor and labelled. Results are
//! placed by component index, so the output does not depend on
//! scheduling. At the deadline the unfinished components are reported and
//! their threads left behind, since a VM cannot be interrupted; a worker
//! that dies is reported, not propagated.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use strata_jsonnet::{Failure, Inputs, Setup, Traced, Vm, value};
use strata_syntax::{Diagnostic, Node, Span, Value};

use crate::codes;
use crate::load::{Component, Source};
use crate::objects;

/// One component's result from a worker.
pub(crate) struct Evaluated {
    pub(crate) objects: Vec<Node>,
    pub(crate) problems: Vec<Diagnostic>,
    pub(crate) failure: Option<Failure>,
    pub(crate) traces: Vec<Traced>,
}

/// What the workers of one render share: plain, owned data, so a worker
/// that outlives a timed-out render holds nothing of the caller's.
pub(crate) struct Job {
    pub(crate) setup: Setup,
    /// The components to evaluate, with the span their output gets.
    pub(crate) components: Vec<(Component, Span)>,
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
}

/// Evaluates every component of `job` on up to `concurrency` worker
/// threads, results placed by index; waits at most `timeout`.
pub(crate) fn evaluate_all(
    job: &Arc<Job>,
    concurrency: usize,
    timeout: Option<Duration>,
) -> Vec<Evaluated> {
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
            Source::Jsonnet(file) => {
                let machine = Vm::new(setup);
                let value = machine.evaluate_file(file, arguments);
                let node = value.and_then(|value| {
                    value::to_node(&value, span, self.setup.limits.max_depth)
                        .map_err(|error| Failure::from_error(&error))
                });
                vm = Some(machine);
                node
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
        setup: &Setup,
        span: Span,
        component: &str,
    ) -> Result<Node, PostProcess> {
        let mut object = object;
        for path in &self.post_processor {
            object = self.post_process_with(path, &object, vm, setup, span, component)?;
        }
        Ok(object)
    }

    /// Passes `object` through the post-processor at `path`.
    fn post_process_with(
        &self,
        path: &std::path::Path,
        object: &Node,
        vm: &mut Option<Vm>,
        setup: &Setup,
        span: Span,
        component: &str,
    ) -> Result<Node, PostProcess> {
        let machine = vm.get_or_insert_with(|| Vm::new(setup));
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

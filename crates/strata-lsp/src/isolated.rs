//! A check's renders evaluated in a child process, stopped at a budget.
//!
//! A dialect's check may evaluate Jsonnet (a qbec component, a features
//! `jsonnet()` call), which jrsonnet cannot interrupt and which has no
//! memory bound of its own: in the server's process, an evaluation that
//! allocates without end would reach the process's `--memory-limit` and
//! end the session, and one that loops would run for as long as it loops.
//! So the server evaluates that part of a check in a child process, as
//! rust-analyzer expands proc macros: the `strata` binary itself
//! ([`Isolated`]: its program and arguments), which reads orders (JSON
//! lines) on its standard input: a check (the project and the editor's
//! buffers) or the cancellation of the one running. For a check it opens
//! the project, reopening the one it checked before
//! ([`strata_dialect::Dialect::reopen`]), so what an unchanged file gave
//! is reused (a component's objects), renders its check
//! ([`check::evaluate`]) and writes JSON lines on its standard output:
//! each step of evaluation as it starts and ends ([`Progress`]), then the
//! diagnostics, or that the check was cancelled ([`serve_child`]).
//!
//! The child stays for the project's next check: the server keeps one per
//! project, idle between checks ([`Pool`]), and a check of a project whose
//! child is busy waits for it. The server watches the child during a
//! check: its resident set every few milliseconds, the check's time, and
//! the check's [`Cancel`] (a newer change). A cancelled check is
//! cancelled in the child, which stops at the next step it can stop at
//! (a component evaluated) and stays; a child that does not answer within
//! [`CANCEL_GRACE`] is killed. Past the memory or the time budget the child is
//! killed and the stop is published as one diagnostic ([`codes`]) at the
//! file of the oldest step still running (a component, a `jsonnet()`
//! file), or, when none was, at the project's first open buffer; the next
//! check starts a new child. A child that ends without its result (a
//! crash) is reported in the client's log. A child ends by itself when its
//! standard input closes, so a server that goes away leaves none behind.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use lsp_types::{DiagnosticSeverity, NumberOrString};
use serde::{Deserialize, Serialize};
use strata_dialect::{Cancel, Limits, Progress, Registry, Step};

use crate::check::{self, Published};
use crate::codes;
use crate::project::Project;
use crate::{ServerError, failed};

/// How a check's renders run in a child process, and its budget.
#[derive(Debug, Clone)]
pub struct Isolated {
    /// The program (the `strata` binary)...
    pub program: PathBuf,
    /// ...and the arguments that make it serve evaluations on its
    /// standard input and output ([`serve_child`]).
    pub args: Vec<OsString>,
    /// The most resident memory the child may hold; `None`: no bound.
    pub memory_bytes: Option<u64>,
    /// How long one check may run; `None`: no bound.
    pub time: Option<Duration>,
    /// The children between their project's checks.
    pub pool: Arc<Pool>,
}

/// How a check's renders ended.
pub(crate) enum Evaluated {
    /// Their diagnostics (a stop at the budget among them).
    Published(Published),
    /// They failed (a crash, a bug): why, for the client's log.
    Failed(String),
    /// A newer change cancelled them.
    Cancelled,
}

/// How often the server looks at its child.
const POLL: Duration = Duration::from_millis(5);

/// How long a cancelled check's child may take to say it stopped before
/// it is killed (a component's evaluation cannot be interrupted).
pub const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// A check the server sends its child.
#[derive(Serialize, Deserialize)]
struct Job<'a> {
    project: Cow<'a, Project>,
    buffers: Cow<'a, BTreeMap<PathBuf, String>>,
}

/// What the server sends its child, a JSON line each.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Order<'a> {
    /// Check a project.
    Check(Job<'a>),
    /// Cancel the check running.
    Cancel,
}

/// What the child writes, a JSON line each.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Event {
    /// A step of evaluation started.
    Started {
        id: u64,
        what: String,
        file: PathBuf,
    },
    /// A step ended.
    Ended { id: u64 },
    /// The check's diagnostics: its last line.
    Published(Published),
    /// The check was cancelled: its last line.
    Cancelled,
}

/// Why the server stopped its child.
enum Stop {
    Cancelled,
    Memory(u64),
    Time(Duration),
}

/// A child process serving checks, and the thread reading its events.
struct Worker {
    child: Child,
    input: ChildStdin,
    events: Receiver<Event>,
    reader: std::thread::JoinHandle<()>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Worker")
            .field("pid", &self.child.id())
            .finish_non_exhaustive()
    }
}

impl Worker {
    /// Starts the child `isolated` names.
    fn start(isolated: &Isolated) -> Result<Worker, String> {
        let mut child = Command::new(&isolated.program)
            .args(&isolated.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|error| {
                format!(
                    "starting `{}` to evaluate the check failed: {error}",
                    isolated.program.display()
                )
            })?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            stop(&mut child);
            return Err("the check's child process has no pipes".to_owned());
        };
        let (sender, events) = crossbeam_channel::unbounded();
        let reader = std::thread::Builder::new()
            .name("strata-lsp-child".to_owned())
            .spawn(move || {
                for line in BufReader::new(output).lines() {
                    let event = line.ok().and_then(|line| serde_json::from_str(&line).ok());
                    if event.is_none_or(|event| sender.send(event).is_err()) {
                        return;
                    }
                }
            });
        if let Ok(reader) = reader {
            Ok(Worker {
                child,
                input,
                events,
                reader,
            })
        } else {
            stop(&mut child);
            Err("no thread could read the check's evaluation".to_owned())
        }
    }

    /// Writes `order` as one line; whether the child took it.
    fn send(&mut self, order: &Order<'_>) -> bool {
        serde_json::to_writer(&mut self.input, order)
            .map_err(std::io::Error::from)
            .and_then(|()| self.input.write_all(b"\n"))
            .and_then(|()| self.input.flush())
            .is_ok()
    }

    /// Kills the child and reaps it: how it ended.
    fn end(mut self) -> String {
        let status = stop(&mut self.child);
        drop(self.input);
        let _ = self.reader.join();
        status
    }
}

/// The children of the session's projects between their checks.
#[derive(Debug, Default)]
pub struct Pool {
    slots: Mutex<HashMap<Project, Slot>>,
    returned: Condvar,
}

#[derive(Debug)]
enum Slot {
    /// Waiting for the project's next check.
    Idle(Worker),
    /// Checking.
    Busy,
}

impl Pool {
    /// The project's child, started when it has none; waits while it
    /// checks (not past [`CANCEL_GRACE`], nor once `cancel` is asked:
    /// `None`).
    fn take(
        &self,
        project: &Project,
        isolated: &Isolated,
        cancel: &Cancel,
    ) -> Option<Result<Worker, String>> {
        let deadline = Instant::now() + CANCEL_GRACE;
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match slots.remove(project) {
                Some(Slot::Idle(worker)) => {
                    slots.insert(project.clone(), Slot::Busy);
                    return Some(Ok(worker));
                }
                Some(Slot::Busy) if Instant::now() < deadline => {
                    slots.insert(project.clone(), Slot::Busy);
                    if cancel.is_cancelled() {
                        return None;
                    }
                    slots = self
                        .returned
                        .wait_timeout(slots, POLL)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                // Free, or held by a check that did not give it back in
                // time: a child of this check's own.
                Some(Slot::Busy) | None => {
                    slots.insert(project.clone(), Slot::Busy);
                    drop(slots);
                    let started = Worker::start(isolated);
                    if started.is_err() {
                        self.release(project);
                    }
                    return Some(started);
                }
            }
        }
    }

    /// The project's child, back for its next check.
    fn give_back(&self, project: &Project, worker: Worker) {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Slot::Idle(other)) = slots.insert(project.clone(), Slot::Idle(worker)) {
            drop(slots);
            other.end();
        }
        self.returned.notify_all();
    }

    /// The project has no child any more (it was killed).
    fn release(&self, project: &Project) {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(slots.get(project), Some(Slot::Busy)) {
            slots.remove(project);
        }
        self.returned.notify_all();
    }
}

/// Renders the check of `project`, with `buffers` (its open buffers) over
/// its files, in the project's child process, stopped at its budget or
/// once `cancel` is asked.
pub(crate) fn evaluate(
    isolated: &Isolated,
    project: &Project,
    buffers: &BTreeMap<PathBuf, String>,
    cancel: &Cancel,
) -> Evaluated {
    let mut worker = match isolated.pool.take(project, isolated, cancel) {
        None => return Evaluated::Cancelled,
        Some(Err(why)) => return Evaluated::Failed(why),
        Some(Ok(worker)) => worker,
    };
    let order = Order::Check(Job {
        project: Cow::Borrowed(project),
        buffers: Cow::Borrowed(buffers),
    });
    // A child that cannot take it ends without a result, said below.
    worker.send(&order);
    let (stopped, running, published) = watch(isolated, &mut worker, cancel);
    match (stopped, published) {
        (None, Some(published)) => {
            isolated.pool.give_back(project, worker);
            match published {
                Some(published) => Evaluated::Published(published),
                None => Evaluated::Cancelled,
            }
        }
        (Some(stopped), _) => {
            worker.end();
            isolated.pool.release(project);
            budget_passed(&stopped, running.values().next(), project, buffers)
        }
        (None, None) => {
            let status = worker.end();
            isolated.pool.release(project);
            Evaluated::Failed(format!(
                "the evaluation of the check of `{}` ended without a result ({status})",
                project.root.display()
            ))
        }
    }
}

/// The steps still running, by id (the oldest first).
type Running = BTreeMap<u64, (String, PathBuf)>;

/// What a child's check came to: its diagnostics, or `None` when it
/// was cancelled.
type Answer = Option<Published>;

/// Follows the worker's events until its check gives its answer, the
/// child ends or passes its budget: why it must be stopped, if it must,
/// the steps running then, and its answer. Once `cancel` is asked the
/// child is told to cancel, and given [`CANCEL_GRACE`] to answer.
fn watch(
    isolated: &Isolated,
    worker: &mut Worker,
    cancel: &Cancel,
) -> (Option<Stop>, Running, Option<Answer>) {
    let started = Instant::now();
    let mut running = Running::new();
    let mut cancelled_at: Option<Instant> = None;
    loop {
        match worker.events.recv_timeout(POLL) {
            Ok(Event::Started { id, what, file }) => {
                running.insert(id, (what, file));
            }
            Ok(Event::Ended { id }) => {
                running.remove(&id);
            }
            Ok(Event::Published(published)) => {
                let answer = cancelled_at.is_none().then_some(published);
                return (None, running, Some(answer));
            }
            Ok(Event::Cancelled) => return (None, running, Some(None)),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return (None, running, None),
        }
        if cancelled_at.is_none() && cancel.is_cancelled() {
            cancelled_at = Some(Instant::now());
            worker.send(&Order::Cancel);
        }
        let stopped = if cancelled_at.is_some_and(|at| at.elapsed() > CANCEL_GRACE) {
            Some(Stop::Cancelled)
        } else if let Some(budget) = isolated.memory_bytes.filter(|budget| {
            strata_dialect::resident_bytes(worker.child.id()).is_some_and(|held| held > *budget)
        }) {
            Some(Stop::Memory(budget))
        } else {
            isolated
                .time
                .filter(|budget| started.elapsed() > *budget)
                .map(Stop::Time)
        };
        if stopped.is_some() {
            return (stopped, running, None);
        }
    }
}

/// Kills `child` (it may have ended already) and reaps it: how it ended.
fn stop(child: &mut Child) -> String {
    let _ = child.kill();
    child
        .wait()
        .map_or_else(|error| error.to_string(), |status| status.to_string())
}

/// The diagnostic of a check stopped at its budget, at the file of the
/// step it was running, else at the project's first open buffer.
fn budget_passed(
    stopped: &Stop,
    step: Option<&(String, PathBuf)>,
    project: &Project,
    buffers: &BTreeMap<PathBuf, String>,
) -> Evaluated {
    let (code, passed, help) = match stopped {
        Stop::Memory(budget) => (
            codes::CHECK_MEMORY,
            format!(
                "it held more than {} of memory",
                strata_dialect::format_size(*budget)
            ),
            "an evaluation that grows without end (a Jsonnet recursion, say) is stopped here; \
             if the project needs more, raise `strata lsp --check-memory`",
        ),
        Stop::Time(budget) => (
            codes::CHECK_TIME,
            format!("it ran longer than {}", humantime::format_duration(*budget)),
            "an evaluation that loops without end is stopped here; \
             if the project needs longer, raise `strata lsp --check-time`",
        ),
        Stop::Cancelled => return Evaluated::Cancelled,
    };
    let what = step.map_or("the project", |(what, _)| what.as_str());
    let message = format!(
        "the check stopped evaluating {what}: {passed}\n\
         note: what else the check would find is shown once it can finish\n\
         help: {help}"
    );
    let file = step
        .map(|(_, file)| project.root.join(file))
        .or_else(|| buffers.keys().next().cloned());
    let Some(file) = file else {
        return Evaluated::Failed(message);
    };
    let diagnostic = lsp_types::Diagnostic {
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(code.to_string())),
        source: Some("strata".to_owned()),
        message,
        ..lsp_types::Diagnostic::default()
    };
    Evaluated::Published(BTreeMap::from([(file, vec![diagnostic])]))
}

/// The child's side: reads orders from `input` until it closes; for each
/// check, reopens the project (the one it checked before, when it is the
/// same) within `limits`, renders its check, and writes each step of
/// evaluation and then the diagnostics (or, once cancelled, that it was)
/// to `output`, as JSON lines. Returns as soon as `input` closes (the
/// server went away), a check running left where it is: the process
/// should then end.
pub fn serve_child(
    registry: Registry,
    limits: Limits,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> Result<(), ServerError> {
    let (sender, orders) = crossbeam_channel::unbounded::<Order<'static>>();
    std::thread::Builder::new()
        .name("strata-lsp-input".to_owned())
        .spawn(move || {
            for line in input.lines() {
                let Ok(line) = line else { return };
                // A line that is no order is no order.
                if let Ok(order) = serde_json::from_str(&line)
                    && sender.send(order).is_err()
                {
                    return;
                }
            }
        })
        .map_err(failed)?;
    let output = Arc::new(Mutex::new(output));
    let registry = Arc::new(registry);
    let mut previous: Option<(Project, Arc<dyn strata_dialect::Project>)> = None;
    let mut next = None;
    loop {
        let order = match next.take() {
            Some(order) => order,
            None => match orders.recv() {
                Ok(order) => order,
                Err(_) => return Ok(()),
            },
        };
        let Order::Check(job) = order else {
            continue;
        };
        let project = job.project.into_owned();
        let reused = previous
            .take()
            .filter(|(checked, _)| *checked == project)
            .map(|(_, dialect)| dialect);
        let cancel = Cancel::new();
        let (done, finished) = crossbeam_channel::bounded(1);
        {
            let (registry, project, progress, cancel) = (
                registry.clone(),
                project.clone(),
                progress_to(&output),
                cancel.clone(),
            );
            let buffers = job.buffers.into_owned();
            std::thread::Builder::new()
                .name("strata-lsp-evaluate".to_owned())
                .stack_size(strata_dialect::WORKER_STACK_BYTES)
                .spawn(move || {
                    let evaluated = check::evaluate(
                        &registry,
                        &project,
                        &buffers,
                        limits,
                        progress,
                        &cancel,
                        reused.as_deref(),
                    );
                    let _ = done.send(evaluated);
                })
                .map_err(failed)?;
        }
        loop {
            crossbeam_channel::select! {
                recv(finished) -> evaluated => {
                    let Ok((published, dialect)) = evaluated else {
                        return Err(ServerError("the evaluation failed (a bug)".to_owned()));
                    };
                    previous = dialect.map(|dialect| (project.clone(), dialect));
                    let event = if cancel.is_cancelled() {
                        Event::Cancelled
                    } else {
                        Event::Published(published)
                    };
                    write_event(&output, &event).map_err(failed)?;
                    break;
                }
                recv(orders) -> order => match order {
                    Ok(Order::Cancel) => cancel.cancel(),
                    // The server sends a check only once the last one
                    // answered; one that came early cancels it.
                    Ok(order) => {
                        cancel.cancel();
                        next = Some(order);
                    }
                    Err(_) => return Ok(()),
                },
            }
        }
    }
}

/// Tells `output` each step of evaluation as it starts and ends.
fn progress_to<W: Write + Send + 'static>(output: &Arc<Mutex<W>>) -> Progress {
    let output = output.clone();
    Progress::new(move |step| {
        let event = match *step {
            Step::Started { id, what, file } => Event::Started {
                id,
                what: what.to_owned(),
                file: file.to_path_buf(),
            },
            Step::Ended { id } => Event::Ended { id },
        };
        // A server that stopped reading has gone: the input says so.
        let _ = write_event(&output, &event);
    })
}

/// Writes `event` as one line, flushed.
fn write_event<W: Write>(output: &Mutex<W>, event: &Event) -> std::io::Result<()> {
    let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
    serde_json::to_writer(&mut *output, event)?;
    output.write_all(b"\n")?;
    output.flush()
}

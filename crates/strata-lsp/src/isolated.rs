//! A check's renders evaluated in a child process, stopped at a budget.
//!
//! A dialect's check may evaluate Jsonnet (a qbec component, a features
//! `jsonnet()` call), which jrsonnet cannot interrupt and which has no
//! memory bound of its own: in the server's process, an evaluation that
//! allocates without end would reach the process's `--memory-limit` and
//! end the session, and one that loops would run for as long as it loops.
//! So the server evaluates that part of a check in a child process, as
//! rust-analyzer expands proc macros: the `strata` binary itself
//! ([`Isolated`]: its program and arguments), which reads the job (the
//! project and the editor's buffers, one JSON line) on its standard
//! input, opens the project, renders its check ([`check::evaluate`]) and
//! writes JSON lines on its standard output: each step of evaluation as it
//! starts and ends ([`Progress`]), then the diagnostics ([`serve_child`]).
//!
//! The server watches the child: its resident set every few milliseconds,
//! its time since it started, and the check's [`Cancel`] (a newer change).
//! Past the memory or the time budget the child is killed and the stop is
//! published as one diagnostic ([`codes`]) at the file of the oldest step
//! still running (a component, a `jsonnet()` file), or, when none was, at
//! the project's first open buffer; a cancelled child is killed, its
//! result no longer wanted. A child that ends without its result (a
//! crash) is reported in the client's log. A child ends by itself when
//! its standard input closes, so a server that goes away leaves none
//! behind.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
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
    /// ...and the arguments that make it serve one evaluation on its
    /// standard input and output ([`serve_child`]).
    pub args: Vec<OsString>,
    /// The most resident memory the child may hold; `None`: no bound.
    pub memory_bytes: Option<u64>,
    /// How long it may run; `None`: no bound.
    pub time: Option<Duration>,
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

/// What the server sends its child.
#[derive(Serialize, Deserialize)]
struct Job<'a> {
    project: Cow<'a, Project>,
    buffers: Cow<'a, BTreeMap<PathBuf, String>>,
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
    /// The check's diagnostics: the child's last line.
    Published(Published),
}

/// Why the server stopped its child.
enum Stop {
    Cancelled,
    Memory(u64),
    Time(Duration),
}

/// Renders the check of `project`, with `buffers` (its open buffers) over
/// its files, in a child process run as `isolated` says, stopped at its
/// budget or once `cancel` is asked.
pub(crate) fn evaluate(
    isolated: &Isolated,
    project: &Project,
    buffers: &BTreeMap<PathBuf, String>,
    cancel: &Cancel,
) -> Evaluated {
    let spawned = Command::new(&isolated.program)
        .args(&isolated.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(error) => {
            return Evaluated::Failed(format!(
                "starting `{}` to evaluate the check failed: {error}",
                isolated.program.display()
            ));
        }
    };
    // The job, then the pipe left open: the child stops when it closes.
    let mut input = child.stdin.take();
    if let Some(input) = &mut input {
        let job = Job {
            project: Cow::Borrowed(project),
            buffers: Cow::Borrowed(buffers),
        };
        // A child that cannot read it ends without a result, said below.
        let _ = serde_json::to_writer(&mut *input, &job)
            .map_err(std::io::Error::from)
            .and_then(|()| input.write_all(b"\n"))
            .and_then(|()| input.flush());
    }
    let (sender, events) = crossbeam_channel::unbounded();
    let output = child.stdout.take();
    let reader = std::thread::Builder::new()
        .name("strata-lsp-child".to_owned())
        .spawn(move || {
            let Some(output) = output else {
                return;
            };
            for line in BufReader::new(output).lines() {
                let event = line.ok().and_then(|line| serde_json::from_str(&line).ok());
                if event.is_none_or(|event| sender.send(event).is_err()) {
                    return;
                }
            }
        });
    let Ok(reader) = reader else {
        stop(&mut child);
        return Evaluated::Failed("no thread could read the check's evaluation".to_owned());
    };
    let (stopped, running, published) = watch(isolated, &child, &events, cancel);
    let status = stop(&mut child);
    drop(input);
    let _ = reader.join();
    match (stopped, published) {
        (Some(Stop::Cancelled), _) => Evaluated::Cancelled,
        (Some(stopped), _) => budget_passed(&stopped, running.values().next(), project, buffers),
        (None, Some(published)) => Evaluated::Published(published),
        (None, None) => Evaluated::Failed(format!(
            "the evaluation of the check of `{}` ended without a result ({status})",
            project.root.display()
        )),
    }
}

/// The steps still running, by id (the oldest first).
type Running = BTreeMap<u64, (String, PathBuf)>;

/// Follows `child`'s events until it gives its result, ends, passes its
/// budget or is cancelled: why it was stopped, if it was, the steps
/// running then, and its result.
fn watch(
    isolated: &Isolated,
    child: &Child,
    events: &crossbeam_channel::Receiver<Event>,
    cancel: &Cancel,
) -> (Option<Stop>, Running, Option<Published>) {
    let started = Instant::now();
    let mut running = Running::new();
    loop {
        match events.recv_timeout(POLL) {
            Ok(Event::Started { id, what, file }) => {
                running.insert(id, (what, file));
            }
            Ok(Event::Ended { id }) => {
                running.remove(&id);
            }
            Ok(Event::Published(published)) => return (None, running, Some(published)),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return (None, running, None),
        }
        let stopped = if cancel.is_cancelled() {
            Some(Stop::Cancelled)
        } else if let Some(budget) = isolated.memory_bytes.filter(|budget| {
            strata_dialect::resident_bytes(child.id()).is_some_and(|held| held > *budget)
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

/// The child's side: reads one job from `input`, renders its check within
/// `limits`, and writes each step of evaluation and then the diagnostics
/// to `output`, as JSON lines. Returns once the diagnostics are written,
/// or as soon as `input` closes first (the server went away, or no longer
/// wants the result), the result unwritten: the process should then end,
/// leaving the evaluation where it is.
pub fn serve_child(
    registry: Registry,
    limits: Limits,
    mut input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> Result<(), ServerError> {
    let mut line = String::new();
    input.read_line(&mut line).map_err(failed)?;
    let job: Job<'static> = serde_json::from_str(&line).map_err(failed)?;
    let output = Arc::new(Mutex::new(output));
    let progress = {
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
    };
    let (done, finished) = crossbeam_channel::bounded(1);
    std::thread::Builder::new()
        .name("strata-lsp-evaluate".to_owned())
        .stack_size(strata_dialect::WORKER_STACK_BYTES)
        .spawn(move || {
            let published =
                check::evaluate(&registry, &job.project, &job.buffers, limits, progress);
            let _ = done.send(published);
        })
        .map_err(failed)?;
    let (closed, input_closed) = crossbeam_channel::bounded(1);
    std::thread::Builder::new()
        .name("strata-lsp-input".to_owned())
        .spawn(move || {
            let _ = std::io::copy(&mut input, &mut std::io::sink());
            let _ = closed.send(());
        })
        .map_err(failed)?;
    crossbeam_channel::select! {
        recv(finished) -> published => match published {
            Ok(published) => write_event(&output, &Event::Published(published)).map_err(failed),
            Err(_) => Err(ServerError("the evaluation failed (a bug)".to_owned())),
        },
        recv(input_closed) -> _ => Ok(()),
    }
}

/// Writes `event` as one line, flushed.
fn write_event<W: Write>(output: &Mutex<W>, event: &Event) -> std::io::Result<()> {
    let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
    serde_json::to_writer(&mut *output, event)?;
    output.write_all(b"\n")?;
    output.flush()
}

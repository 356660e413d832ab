//! `strata lsp`: a language server for the dialects, over standard input and
//! output (`lsp-server` and `lsp-types`, rust-analyzer's crates).
//!
//! **The client cannot end the server by what it sends.** Messages are
//! read by [`transport`]: a body longer than the session's bound
//! ([`transport::DEFAULT_MAX_MESSAGE_BYTES`] unless set) is refused from
//! its header, and a body is read as it arrives; a broken header (no way
//! to find the next message) ends the session with an error. A body that
//! is no message (not JSON, a batch, `42`, `null`) is answered with
//! JSON-RPC's error and the session goes on. Requests before `initialize`
//! are answered `ServerNotInitialized`, a second `initialize` and requests
//! after `shutdown` `InvalidRequest`; `exit` ends the session (status 1
//! without `shutdown`, as the protocol says).
//!
//! **Diagnostics as the user types.** Every open buffer belongs to a
//! project ([`project`]: one the client names in its initialization
//! options, else what the file says it is, else the nearest marker above
//! it). After a change (at once after a quiet spell, else once no other
//! change has come for [`DEBOUNCE`]) the changed project is checked on a
//! worker thread ([`check`]: opened through the dialect contract with the
//! open buffers over the files on disk; reopened, once it has been opened,
//! so a dialect reuses what the change left as it was: the platform each
//! unchanged file's blueprints, each unchanged chain's resolution, its
//! compiled CEL and the checks of every blueprint whose resolved tree is
//! identical; components each component's objects whose files and inputs
//! did not change, in the child process that stays for the project's next
//! check), and its diagnostics
//! are published for every file they point into, errors in files the user
//! has not opened included. A file whose problems are fixed is published
//! empty, so its marks go away. A file outside every project gets nothing.
//!
//! **Evaluation runs apart.** What a dialect's check renders beyond
//! opening (every environment of a qbec application, every context of a
//! Windsor project: Jsonnet) runs, in the binary, in a child process with
//! a memory and a time budget ([`isolated`]): an evaluation that runs
//! away is stopped there and published as a diagnostic at the component
//! it was evaluating, and the server goes on. A library caller may keep it
//! in the process ([`Evaluation::InProcess`]).
//!
//! **Checks never block the session.** Checks run on workers, two at
//! once when started by changes. A change cancels the check of its
//! project still running ([`strata_dialect::Cancel`]): it stops at the
//! next step it can stop at (a blueprint checked, a Jsonnet component
//! evaluated; a child process is killed), and its result is dropped, so
//! what is published is always the latest text's.
//!
//! **Requests** (hover, definition, references, document symbols,
//! completion: `navigate`, `complete`) read the project's view, which
//! opening gives before any render; a view older than the last change
//! holds the request until the project's next opening gives a new one
//! (started at once, on a worker of its own), while every other message,
//! other projects' requests included, is answered. Completion alone reads
//! the buffer as it is and the last view's names and schemas, so typing
//! never waits. `$/cancelRequest` answers a held request `RequestCanceled`.
//! A panic while answering becomes an error response and the session goes
//! on; one while checking is reported in the client's log
//! (`window/logMessage`). Requests the server does not offer get
//! `MethodNotFound`.

#![forbid(unsafe_code)]

pub mod check;
pub mod codes;
mod complete;
pub mod isolated;
mod navigate;
pub mod project;
mod requests;
pub mod transport;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::Sender;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    Cancel as CancelRequest, DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Exit, LogMessage, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{Completion, Initialize, Request as _, Shutdown};
use lsp_types::{
    CancelParams, CompletionOptions, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, HoverProviderCapability,
    LogMessageParams, MessageType, OneOf, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use strata_dialect::{Cancel, Registry};
use strata_syntax::Limits;

use crate::check::{Opening, Published, View};
use crate::isolated::Evaluated;
pub use crate::isolated::Isolated;
use crate::project::Project;

/// How long the server waits after a change for the next one before it
/// checks, once a change came less than this after the one before: the
/// changes of one burst (an editor's edits of one command, a paste, fast
/// typing) start one check more. The first change after a quiet spell is
/// checked at once. Short, since a check reuses what the change left as
/// it was and a newer change cancels it cheaply.
pub const DEBOUNCE: Duration = Duration::from_millis(10);

/// How many checks changes start at once, each on a worker of its own:
/// one per core of the machines this is measured on, so a check that a
/// newer change overtook does not hold the next one back. A request that
/// waits for its project starts its check whatever runs.
const MAX_RUNNING: usize = 2;

/// How a session runs.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The dialects it serves.
    pub registry: Registry,
    /// The bounds on every file a check reads.
    pub limits: Limits,
    /// Where a check's renders evaluate.
    pub evaluation: Evaluation,
}

/// Where a check's renders (what [`strata_dialect::Dialect::check`]
/// evaluates beyond opening) run.
#[derive(Debug, Clone, Default)]
pub enum Evaluation {
    /// On the check's worker, in this process: bounded by nothing but the
    /// limits of each language (tests, benchmarks, fuzzing).
    #[default]
    InProcess,
    /// In a child process, stopped at its budget ([`isolated`]).
    Isolated(Isolated),
}

/// Why the server stopped before the client said `exit`: the connection
/// broke, or a message could not be read or written.
#[derive(Debug)]
pub struct ServerError(String);

impl fmt::Display for ServerError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for ServerError {}

fn failed(error: impl fmt::Display) -> ServerError {
    ServerError(error.to_string())
}

/// Serves one editor session over standard input and output, each
/// message's body at most `max_message_bytes`, until the client says
/// `exit`, goes away, or breaks the framing.
pub fn serve_stdio(settings: &Settings, max_message_bytes: usize) -> Result<(), ServerError> {
    let (connection, io_threads) = transport::stdio(max_message_bytes);
    let served = serve(&connection, settings);
    drop(connection);
    // A broken stream is why the session ended, whatever it did then.
    io_threads.join().map_err(ServerError)?;
    served
}

/// Serves one editor session on `connection`: the handshake, then every
/// message until `shutdown` and `exit` (or the client going away); an
/// `exit` without `shutdown` is an error, as the protocol says.
pub fn serve(connection: &Connection, settings: &Settings) -> Result<(), ServerError> {
    let Some(initialize) = handshake(connection)? else {
        return Ok(());
    };
    let (events_sender, events) = crossbeam_channel::unbounded();
    let mut server = Server {
        connection,
        settings: Arc::new(settings.clone()),
        configured: configured_projects(&initialize),
        buffers: BTreeMap::new(),
        dirty: HashSet::new(),
        last_change: None,
        last_edited: None,
        generations: HashMap::new(),
        running: 0,
        checks: HashMap::new(),
        events: events_sender,
        published: HashMap::new(),
        views: HashMap::new(),
        opened: HashMap::new(),
        waiting: HashMap::new(),
        shut_down: false,
    };
    let ended = server.run(&events);
    // Whatever still runs is no longer wanted (a child process is killed).
    for (_, cancel) in server.checks.values() {
        cancel.cancel();
    }
    ended
}

/// Waits for `initialize` and answers it: its parameters, or `None` when
/// the client went away first. Requests before it are answered
/// `ServerNotInitialized`, notifications dropped; `exit` ends the session.
fn handshake(connection: &Connection) -> Result<Option<serde_json::Value>, ServerError> {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["{".to_owned(), ":".to_owned(), "-".to_owned()]),
            ..CompletionOptions::default()
        }),
        ..ServerCapabilities::default()
    };
    for message in &connection.receiver {
        match message {
            Message::Request(request) if request.method == Initialize::METHOD => {
                let result = serde_json::json!({ "capabilities": capabilities });
                respond(connection, Response::new_ok(request.id, result))?;
                return Ok(Some(request.params));
            }
            Message::Request(request) => {
                let message = format!("`{}` before `initialize`", request.method);
                let code = ErrorCode::ServerNotInitialized;
                respond(
                    connection,
                    Response::new_err(request.id, code as i32, message),
                )?;
            }
            Message::Notification(notification) if notification.method == Exit::METHOD => {
                return Err(exit_without_shutdown());
            }
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    Ok(None)
}

fn exit_without_shutdown() -> ServerError {
    ServerError("the client said `exit` without `shutdown`".to_owned())
}

/// Sends `response`.
fn respond(connection: &Connection, response: Response) -> Result<(), ServerError> {
    connection
        .sender
        .send(Message::Response(response))
        .map_err(failed)
}

/// One session's state.
struct Server<'c> {
    connection: &'c Connection,
    settings: Arc<Settings>,
    /// The projects the client named in its initialization options.
    configured: Vec<project::Configured>,
    /// The open buffers, by absolute path.
    buffers: BTreeMap<PathBuf, String>,
    /// Projects changed since their last check started.
    dirty: HashSet<Project>,
    /// When the last change came: one after a quiet [`DEBOUNCE`] is
    /// checked at once.
    last_change: Option<std::time::Instant>,
    /// The buffer the user changed last: its diagnostics are published
    /// first.
    last_edited: Option<PathBuf>,
    /// How many times each project has changed: a check's result counts
    /// only when no change came after it started.
    generations: HashMap<Project, u64>,
    /// How many checks run on workers.
    running: usize,
    /// The latest check started for each project, by the generation it
    /// checks, and how to cancel it.
    checks: HashMap<Project, (u64, Cancel)>,
    /// Where workers say what they opened and checked.
    events: Sender<Event>,
    /// Each checked project and the files it last published diagnostics for.
    published: HashMap<Project, BTreeSet<PathBuf>>,
    /// Each project as its last opening saw it, with the generation it
    /// saw.
    views: HashMap<Project, (u64, View)>,
    /// Opening's diagnostics of a project whose renders still run, with
    /// the generation: published with theirs.
    opened: HashMap<Project, (u64, Published)>,
    /// Requests held until their project's view is the latest text's.
    waiting: HashMap<Project, Vec<Request>>,
    /// Whether `shutdown` came.
    shut_down: bool,
}

/// What a worker says of the check it runs.
enum Event {
    /// Opening ended: what it gave (`None` when it panicked).
    Opened {
        project: Project,
        generation: u64,
        opening: Option<Box<Opening>>,
    },
    /// The check ended, and what its renders gave (`None` when it had
    /// none to run). Always the worker's last word.
    Finished {
        project: Project,
        generation: u64,
        evaluated: Option<Evaluated>,
    },
}

/// What a worker needs to check a project.
struct Job {
    project: Project,
    generation: u64,
    buffers: BTreeMap<PathBuf, String>,
    previous: Option<Arc<dyn strata_dialect::Project>>,
    cancel: Cancel,
    settings: Arc<Settings>,
    events: Sender<Event>,
}

impl Job {
    /// Opens the project, says so, then runs its check's renders, here or
    /// in a child process, and says how they ended. The child process
    /// (which opens the project itself) starts at once, while this one
    /// opens it, when the dialect's check renders.
    fn run(mut self) {
        let previous = self.previous.take();
        let isolated = match &self.settings.evaluation {
            Evaluation::Isolated(isolated)
                if self
                    .settings
                    .registry
                    .get(&self.project.dialect)
                    .is_some_and(|entry| entry.check_isolated) =>
            {
                Some(isolated.clone())
            }
            _ => None,
        };
        std::thread::scope(|scope| {
            let child = isolated.as_ref().map(|isolated| {
                scope.spawn(|| {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        isolated::evaluate(isolated, &self.project, &self.buffers, &self.cancel)
                    }))
                    .unwrap_or_else(|_| Evaluated::Failed(bug("checking", &self.project)))
                })
            });
            self.open_then_render(previous, child);
        });
    }

    /// Opens the project (reopening `previous`), says so, then takes the
    /// renders' result from `child` (the check's child process), or
    /// renders here, and says how they ended.
    fn open_then_render(
        &self,
        previous: Option<Arc<dyn strata_dialect::Project>>,
        child: Option<std::thread::ScopedJoinHandle<'_, Evaluated>>,
    ) {
        let (project, cancel) = (&self.project, &self.cancel);
        let opening = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check::open(
                &self.settings.registry,
                project,
                &self.buffers,
                self.settings.limits,
                previous.as_deref(),
                cancel,
            )
        }))
        .ok()
        .map(Box::new);
        drop(previous);
        // The dialect, when its check renders.
        let renders = opening
            .as_ref()
            .filter(|opening| opening.renders)
            .and_then(|opening| opening.view.dialect.clone());
        let _ = self.events.send(Event::Opened {
            project: project.clone(),
            generation: self.generation,
            opening,
        });
        // The child's result counts only when opening found the check
        // renders (it found the same, and rendered nothing, otherwise).
        let from_child = child.map(|child| {
            child
                .join()
                .unwrap_or_else(|_| Evaluated::Failed(bug("checking", project)))
        });
        let evaluated = renders.map(|dialect| {
            if cancel.is_cancelled() {
                return Evaluated::Cancelled;
            }
            match from_child {
                Some(evaluated) => evaluated,
                None => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    Evaluated::Published(check::render_checks(dialect.as_ref(), &project.root))
                }))
                .unwrap_or_else(|_| Evaluated::Failed(bug("checking", project))),
            }
        });
        let _ = self.events.send(Event::Finished {
            project: project.clone(),
            generation: self.generation,
            evaluated,
        });
    }
}

/// The log line of a panic while `doing` something to `project`.
fn bug(doing: &str, project: &Project) -> String {
    format!(
        "strata: {doing} `{}` failed (a bug; the server goes on)",
        project.root.display()
    )
}

impl Server<'_> {
    /// Every message, until `exit` or the client going away.
    fn run(&mut self, events: &crossbeam_channel::Receiver<Event>) -> Result<(), ServerError> {
        loop {
            // Wait for a message, a worker's word, or the end of the
            // debounce when a change waits to be checked and a worker is
            // free.
            let waiting = !self.dirty.is_empty() && self.running < MAX_RUNNING;
            let timeout = if waiting { DEBOUNCE } else { Duration::MAX };
            let message = crossbeam_channel::select! {
                recv(self.connection.receiver) -> message => match message {
                    Ok(message) => message,
                    Err(_) => return Ok(()),
                },
                recv(events) -> event => {
                    if let Ok(event) = event {
                        self.take_event(event)?;
                    }
                    continue;
                }
                default(timeout) => {
                    self.start_checks();
                    continue;
                }
            };
            match message {
                Message::Request(request) => self.request(request)?,
                Message::Notification(notification) if notification.method == Exit::METHOD => {
                    return if self.shut_down {
                        Ok(())
                    } else {
                        Err(exit_without_shutdown())
                    };
                }
                // After `shutdown`, nothing is checked any more.
                Message::Notification(_) if self.shut_down => {}
                Message::Notification(notification) => self.notify(notification)?,
                Message::Response(_) => {}
            }
        }
    }

    /// Answers `request` now, or holds it until its project's view is the
    /// latest text's.
    fn request(&mut self, request: Request) -> Result<(), ServerError> {
        let refused = match request.method.as_str() {
            _ if self.shut_down => Some("the server is shutting down"),
            Initialize::METHOD => Some("`initialize` came already"),
            Shutdown::METHOD => {
                self.shut_down = true;
                for (_, cancel) in self.checks.values() {
                    cancel.cancel();
                }
                let held: Vec<Request> = self.waiting.drain().flat_map(|(_, r)| r).collect();
                for held in held {
                    let message = "the server shut down before it could answer".to_owned();
                    let code = ErrorCode::RequestFailed as i32;
                    respond(self.connection, Response::new_err(held.id, code, message))?;
                }
                return respond(
                    self.connection,
                    Response::new_ok(request.id, serde_json::Value::Null),
                );
            }
            _ => None,
        };
        if let Some(message) = refused {
            let code = ErrorCode::InvalidRequest as i32;
            return respond(
                self.connection,
                Response::new_err(request.id, code, message.to_owned()),
            );
        }
        // A request reads the project as the editor shows it now: a view
        // older than the last change holds it, except for completion,
        // which reads the buffer itself and takes the names and schemas of
        // the last view while the user types.
        if let Some(project) = document_of(&request).and_then(|path| self.project_of(&path)) {
            let tolerant =
                request.method == Completion::METHOD && self.views.contains_key(&project);
            if !self.fresh(&project) && !tolerant {
                self.hold(project, request);
                return Ok(());
            }
        }
        let response = self.answer(&request);
        respond(self.connection, response)
    }

    /// Whether `project`'s view is its latest text's.
    fn fresh(&self, project: &Project) -> bool {
        self.views
            .get(project)
            .is_some_and(|(generation, _)| *generation == self.generation(project))
    }

    /// Holds `request` until `project` is opened at its latest text, and
    /// starts that opening when none runs.
    fn hold(&mut self, project: Project, request: Request) {
        let generation = self.generation(&project);
        let started = self
            .checks
            .get(&project)
            .is_some_and(|(checking, _)| *checking == generation);
        self.waiting
            .entry(project.clone())
            .or_default()
            .push(request);
        if !started {
            self.start_check(project);
        }
    }

    /// Answers the requests held for `project` from its view as it is.
    fn answer_held(&mut self, project: &Project) -> Result<(), ServerError> {
        for request in self.waiting.remove(project).unwrap_or_default() {
            let response = self.answer(&request);
            respond(self.connection, response)?;
        }
        Ok(())
    }

    /// Takes in a notification: a buffer opened, changed, saved or
    /// closed marks its project (a check of it still running is
    /// cancelled); `$/cancelRequest` answers a held request.
    fn notify(&mut self, notification: Notification) -> Result<(), ServerError> {
        if notification.method == CancelRequest::METHOD {
            let Ok(params) = serde_json::from_value::<CancelParams>(notification.params) else {
                return Ok(());
            };
            let id = match params.id {
                lsp_types::NumberOrString::Number(id) => RequestId::from(id),
                lsp_types::NumberOrString::String(id) => RequestId::from(id),
            };
            for held in self.waiting.values_mut() {
                if let Some(at) = held.iter().position(|request| request.id == id) {
                    let request = held.remove(at);
                    let code = ErrorCode::RequestCanceled as i32;
                    let message = "the client cancelled the request".to_owned();
                    return respond(
                        self.connection,
                        Response::new_err(request.id, code, message),
                    );
                }
            }
            return Ok(());
        }
        if let Some(project) = self.changed_project(notification) {
            if let Some((_, running)) = self.checks.remove(&project) {
                running.cancel();
            }
            *self.generations.entry(project.clone()).or_default() += 1;
            self.dirty.insert(project.clone());
            let now = std::time::Instant::now();
            let quiet = self
                .last_change
                .is_none_or(|then| now.duration_since(then) >= DEBOUNCE);
            self.last_change = Some(now);
            // Requests wait for this text: no debounce for them; nor for
            // the first change after a quiet spell (the debounce gathers
            // the changes that follow it closely).
            if self.waiting.contains_key(&project) || (quiet && self.running < MAX_RUNNING) {
                self.start_check(project);
            }
        }
        Ok(())
    }

    /// Takes in a buffer opened, changed, saved or closed; the project it
    /// belongs to.
    fn changed_project(&mut self, notification: Notification) -> Option<Project> {
        let Notification { method, params } = notification;
        match method.as_str() {
            DidOpenTextDocument::METHOD => {
                let params: DidOpenTextDocumentParams = serde_json::from_value(params).ok()?;
                let path = file_path(&params.text_document.uri)?;
                self.buffers.insert(path.clone(), params.text_document.text);
                self.project_of(&path)
            }
            DidChangeTextDocument::METHOD => {
                let params: DidChangeTextDocumentParams = serde_json::from_value(params).ok()?;
                let path = file_path(&params.text_document.uri)?;
                // Full synchronisation: the last change holds the whole text.
                if let Some(change) = params.content_changes.into_iter().last() {
                    self.buffers.insert(path.clone(), change.text);
                }
                self.last_edited = Some(path.clone());
                self.project_of(&path)
            }
            DidSaveTextDocument::METHOD => {
                let params: DidSaveTextDocumentParams = serde_json::from_value(params).ok()?;
                self.project_of(&file_path(&params.text_document.uri)?)
            }
            DidCloseTextDocument::METHOD => {
                let params: DidCloseTextDocumentParams = serde_json::from_value(params).ok()?;
                // The project is known by the buffer, before it goes.
                let path = file_path(&params.text_document.uri)?;
                let project = self.project_of(&path);
                self.buffers.remove(&path);
                project
            }
            _ => None,
        }
    }

    /// The project of `path`, from its buffer's text and the markers above
    /// it (buffers, then the disk).
    fn project_of(&self, path: &Path) -> Option<Project> {
        let text = self.buffers.get(path).map_or("", String::as_str);
        project::find(
            path,
            text,
            &self.configured,
            &self.settings.registry,
            |marker| self.buffers.contains_key(marker) || marker.is_file(),
        )
    }

    /// Starts a check for changed projects, as many as workers are free.
    fn start_checks(&mut self) {
        let mut dirty: Vec<Project> = self.dirty.iter().cloned().collect();
        dirty.sort_by(|a, b| a.root.cmp(&b.root));
        for project in dirty
            .into_iter()
            .take(MAX_RUNNING.saturating_sub(self.running))
        {
            self.start_check(project);
        }
    }

    /// Starts checking `project` as its buffers are now, on a worker; a
    /// check of it still running is overtaken (cancelled, its result
    /// dropped).
    fn start_check(&mut self, project: Project) {
        self.dirty.remove(&project);
        let generation = self.generation(&project);
        let cancel = Cancel::new();
        if let Some((_, overtaken)) = self
            .checks
            .insert(project.clone(), (generation, cancel.clone()))
        {
            overtaken.cancel();
        }
        let job = Job {
            project: project.clone(),
            generation,
            buffers: self.buffers_of(&project),
            previous: self.previous(&project),
            cancel,
            settings: self.settings.clone(),
            events: self.events.clone(),
        };
        // A worker's stack is the loading threads' (address space, not
        // memory): opening runs parsers and evaluators on it.
        let spawned = std::thread::Builder::new()
            .name("strata-lsp-check".to_owned())
            .stack_size(strata_dialect::WORKER_STACK_BYTES)
            .spawn(move || job.run());
        if spawned.is_ok() {
            self.running += 1;
        } else {
            // No thread to be had now: the next debounce tries again.
            self.checks.remove(&project);
            self.dirty.insert(project);
        }
    }

    /// The dialect of `project`'s last check, for the next to reopen.
    fn previous(&self, project: &Project) -> Option<Arc<dyn strata_dialect::Project>> {
        self.views.get(project)?.1.dialect.clone()
    }

    /// The number of changes `project` has had.
    fn generation(&self, project: &Project) -> u64 {
        self.generations.get(project).copied().unwrap_or_default()
    }

    /// The open buffers below `project`'s root.
    fn buffers_of(&self, project: &Project) -> BTreeMap<PathBuf, String> {
        self.buffers
            .iter()
            .filter(|(path, _)| path.starts_with(&project.root))
            .map(|(path, text)| (path.clone(), text.clone()))
            .collect()
    }

    /// Takes in what a worker says, unless a newer change overtook the
    /// check it speaks of.
    fn take_event(&mut self, event: Event) -> Result<(), ServerError> {
        match event {
            Event::Opened {
                project,
                generation,
                opening,
            } => {
                if generation != self.generation(&project) {
                    return Ok(());
                }
                let Some(opening) = opening else {
                    self.log(&bug("opening", &project))?;
                    return self.answer_held(&project);
                };
                let Opening {
                    view,
                    published,
                    renders,
                } = *opening;
                self.keep_view(project.clone(), generation, view);
                self.answer_held(&project)?;
                if renders {
                    self.opened.insert(project, (generation, published));
                    Ok(())
                } else {
                    self.publish(project, published)
                }
            }
            Event::Finished {
                project,
                generation,
                evaluated,
            } => {
                self.running -= 1;
                if generation != self.generation(&project) {
                    return Ok(());
                }
                if self
                    .checks
                    .get(&project)
                    .is_some_and(|(checking, _)| *checking == generation)
                {
                    self.checks.remove(&project);
                }
                // Requests held for an opening that never came (it
                // panicked) are answered from what there is.
                self.answer_held(&project)?;
                let opened = self
                    .opened
                    .remove(&project)
                    .filter(|(opened, _)| *opened == generation)
                    .map(|(_, published)| published);
                let Some(evaluated) = evaluated else {
                    return Ok(());
                };
                let mut files = opened.unwrap_or_default();
                match evaluated {
                    Evaluated::Published(rendered) => {
                        for (path, diagnostics) in rendered {
                            files.entry(path).or_default().extend(diagnostics);
                        }
                    }
                    Evaluated::Failed(message) => self.log(&message)?,
                    Evaluated::Cancelled => return Ok(()),
                }
                self.publish(project, files)
            }
        }
    }

    /// Keeps `view` as `project`'s at `generation`.
    fn keep_view(&mut self, project: Project, generation: u64, view: View) {
        // Freeing a large project's last view takes tens of milliseconds
        // (a 1,000-blueprint catalogue: about 20): not on the session's
        // thread, where the next message waits.
        if let Some(replaced) = self.views.insert(project, (generation, view)) {
            let _ = std::thread::Builder::new()
                .name("strata-lsp-drop".to_owned())
                .spawn(move || drop(replaced));
        }
    }

    /// Publishes `files`, the diagnostics of `project`, clearing the files
    /// it no longer has problems in.
    fn publish(&mut self, project: Project, mut files: Published) -> Result<(), ServerError> {
        let before = self.published.entry(project).or_default();
        // A file published before and clean now is published empty.
        for path in before.iter() {
            files.entry(path.clone()).or_default();
        }
        *before = files
            .iter()
            .filter(|(_, diagnostics)| !diagnostics.is_empty())
            .map(|(path, _)| path.clone())
            .collect();
        // The file being edited first: its marks are what the user waits for.
        let edited = self
            .last_edited
            .as_ref()
            .and_then(|path| files.remove_entry(path));
        for (path, diagnostics) in edited.into_iter().chain(files) {
            let Ok(uri) = Url::from_file_path(&path) else {
                continue;
            };
            let params = PublishDiagnosticsParams {
                uri,
                diagnostics,
                version: None,
            };
            send(self.connection, PublishDiagnostics::METHOD, &params)?;
        }
        Ok(())
    }

    /// Writes `message` in the client's log, as an error.
    fn log(&self, message: &str) -> Result<(), ServerError> {
        let params = LogMessageParams {
            typ: MessageType::ERROR,
            message: message.to_owned(),
        };
        send(self.connection, LogMessage::METHOD, &params)
    }

    /// The answer to `request` from its project's view as it is: a panic
    /// while answering becomes an error response, and the session goes on.
    fn answer(&self, request: &Request) -> Response {
        let id = request.id.clone();
        let Some(document) = document_of(request) else {
            return Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("`{}` is not offered by this server", request.method),
            );
        };
        let view = self
            .project_of(&document)
            .and_then(|project| self.views.get(&project))
            .map(|(_, view)| view);
        let buffer = self.buffers.get(&document).map(String::as_str);
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            requests::answer(view, &document, buffer, request)
        }));
        match answered {
            Ok(Ok(result)) => Response::new_ok(id, result),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!(
                    "strata: answering `{}` failed (a bug; the server goes on)",
                    request.method
                ),
            ),
        }
    }
}

/// The local path of the document a request is about, if it names one.
fn document_of(request: &Request) -> Option<PathBuf> {
    let uri = request.params.get("textDocument")?.get("uri")?;
    file_path(&serde_json::from_value::<Url>(uri.clone()).ok()?)
}

/// The projects `initializationOptions.projects` names, relative roots read
/// from the first workspace folder (or the root URI); none when the
/// options say nothing, or nothing this server reads.
fn configured_projects(initialize: &serde_json::Value) -> Vec<project::Configured> {
    let Ok(params) = serde_json::from_value::<lsp_types::InitializeParams>(initialize.clone())
    else {
        return Vec::new();
    };
    #[expect(
        deprecated,
        reason = "`rootUri` is how a single-folder client says where it is"
    )]
    let workspace = params
        .workspace_folders
        .as_ref()
        .and_then(|folders| folders.first())
        .map(|folder| folder.uri.clone())
        .or(params.root_uri)
        .and_then(|uri| file_path(&uri));
    let projects = params
        .initialization_options
        .and_then(|options| options.get("projects").cloned())
        .and_then(|projects| serde_json::from_value::<Vec<project::Configured>>(projects).ok())
        .unwrap_or_default();
    projects
        .into_iter()
        .filter_map(|mut configured| {
            if configured.root.is_relative() {
                configured.root = workspace.as_ref()?.join(&configured.root);
            }
            Some(configured)
        })
        .collect()
}

/// The local path of a `file:` URI.
fn file_path(uri: &Url) -> Option<PathBuf> {
    uri.to_file_path().ok()
}

/// Sends the notification `method` with `params`.
fn send(
    connection: &Connection,
    method: &str,
    params: &impl serde::Serialize,
) -> Result<(), ServerError> {
    let params = serde_json::to_value(params).map_err(failed)?;
    connection
        .sender
        .send(Message::Notification(Notification::new(
            method.to_owned(),
            params,
        )))
        .map_err(failed)
}

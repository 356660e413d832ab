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
//! it). After a change, once no other change has come for [`DEBOUNCE`],
//! the changed project is checked on a worker thread ([`check`]: opened
//! through the dialect contract with the open buffers over the files on
//! disk; reopened, once it has been opened, so a dialect reuses what the
//! change left as it was: the platform its compiled CEL and the checks of
//! every blueprint whose resolved tree is identical), and its diagnostics are published for every file they point
//! into, errors in files the user has not opened included. A file whose
//! problems are fixed is published empty, so its marks go away. A file
//! outside every project gets nothing.
//!
//! **Checks never block the session.** At most two run at once, each on a
//! worker of its own. A change cancels the check of its project still
//! running ([`strata_dialect::Cancel`]): it stops at the next step it can
//! stop at (a blueprint checked, a Jsonnet component evaluated: jrsonnet
//! cannot interrupt an evaluation, whose call depth and `--memory-limit`
//! bound it), and its result is dropped, so what is published is always
//! the latest text's.
//!
//! **Requests** (hover, definition, references, document symbols,
//! completion: `navigate`, `complete`) read the project's view from its
//! last check; a view older than the last change is checked again first,
//! on the main thread, so positions match the text the client shows.
//! Completion alone reads the buffer as it is and the last view's names
//! and schemas, so typing never waits for a check. A panic while
//! answering becomes an error response and the session goes on; one while
//! checking is reported in the client's log (`window/logMessage`).
//! Requests the server does not offer get `MethodNotFound`.

#![forbid(unsafe_code)]

pub mod check;
mod complete;
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
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit,
    LogMessage, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{Completion, Initialize, Request as _, Shutdown};
use lsp_types::{
    CompletionOptions, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, HoverProviderCapability,
    LogMessageParams, MessageType, OneOf, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use strata_dialect::Cancel;
use strata_syntax::Limits;

use crate::check::{Checked, View};
use crate::project::Project;

/// How long the server waits after a change for the next one before it
/// checks: typing does not start a check per keystroke.
pub const DEBOUNCE: Duration = Duration::from_millis(50);

/// How many checks run at once, each on a worker of its own: one per core
/// of the machines this is measured on, so a check that a newer change
/// overtook does not hold the next one back.
const MAX_RUNNING: usize = 2;

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

/// Serves one editor session over standard input and output, every input
/// read within `limits` and each message's body at most
/// `max_message_bytes`, until the client says `exit`, goes away, or breaks
/// the framing.
pub fn serve_stdio(limits: Limits, max_message_bytes: usize) -> Result<(), ServerError> {
    let (connection, io_threads) = transport::stdio(max_message_bytes);
    let served = serve(&connection, limits);
    drop(connection);
    // A broken stream is why the session ended, whatever it did then.
    io_threads.join().map_err(ServerError)?;
    served
}

/// Serves one editor session on `connection`: the handshake, then every
/// message until `shutdown` and `exit` (or the client going away); an
/// `exit` without `shutdown` is an error, as the protocol says.
pub fn serve(connection: &Connection, limits: Limits) -> Result<(), ServerError> {
    let Some(initialize) = handshake(connection)? else {
        return Ok(());
    };
    let (finished_sender, finished) = crossbeam_channel::unbounded();
    let mut server = Server {
        limits,
        configured: configured_projects(&initialize),
        buffers: BTreeMap::new(),
        dirty: HashSet::new(),
        generations: HashMap::new(),
        running: 0,
        cancels: HashMap::new(),
        finished: finished_sender,
        published: HashMap::new(),
        views: HashMap::new(),
    };
    let mut shut_down = false;
    loop {
        // Wait for a message, a finished check, or the end of the debounce
        // when a change waits to be checked and a worker is free.
        let waiting = !server.dirty.is_empty() && server.running < MAX_RUNNING;
        let timeout = if waiting { DEBOUNCE } else { Duration::MAX };
        let message = crossbeam_channel::select! {
            recv(connection.receiver) -> message => match message {
                Ok(message) => message,
                Err(_) => return Ok(()),
            },
            recv(finished) -> done => {
                if let Ok(done) = done {
                    server.take_finished(connection, done)?;
                }
                continue;
            }
            default(timeout) => {
                server.start_checks();
                continue;
            }
        };
        match message {
            Message::Request(request) => {
                let refused = match request.method.as_str() {
                    _ if shut_down => Some("the server is shutting down"),
                    Initialize::METHOD => Some("`initialize` came already"),
                    Shutdown::METHOD => {
                        shut_down = true;
                        let done = Response::new_ok(request.id, serde_json::Value::Null);
                        respond(connection, done)?;
                        continue;
                    }
                    _ => None,
                };
                let response = match refused {
                    Some(message) => Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        message.to_owned(),
                    ),
                    None => server.answer(connection, &request)?,
                };
                respond(connection, response)?;
            }
            Message::Notification(notification) if notification.method == Exit::METHOD => {
                return if shut_down {
                    Ok(())
                } else {
                    Err(exit_without_shutdown())
                };
            }
            // After `shutdown`, nothing is checked any more.
            Message::Notification(_) if shut_down => {}
            Message::Notification(notification) => server.notify(notification),
            Message::Response(_) => {}
        }
    }
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
struct Server {
    limits: Limits,
    /// The projects the client named in its initialization options.
    configured: Vec<project::Configured>,
    /// The open buffers, by absolute path.
    buffers: BTreeMap<PathBuf, String>,
    /// Projects changed since their last check started.
    dirty: HashSet<Project>,
    /// How many times each project has changed: a check's result counts
    /// only when no change came after it started.
    generations: HashMap<Project, u64>,
    /// How many checks run on workers.
    running: usize,
    /// The latest check started for each project, by the generation it
    /// checks, and how to cancel it.
    cancels: HashMap<Project, (u64, Cancel)>,
    /// Where workers send what they checked.
    finished: Sender<Finished>,
    /// Each checked project and the files it last published diagnostics for.
    published: HashMap<Project, BTreeSet<PathBuf>>,
    /// Each checked project as its last check saw it, with the generation
    /// it saw.
    views: HashMap<Project, (u64, View)>,
}

/// A check a worker finished: `None` when it panicked.
struct Finished {
    project: Project,
    generation: u64,
    checked: Option<Checked>,
}

impl Server {
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

    /// Takes in a notification, and marks the project it changes; a check
    /// of the project still running is cancelled.
    fn notify(&mut self, notification: Notification) {
        if let Some(project) = self.changed_project(notification) {
            if let Some((_, running)) = self.cancels.remove(&project) {
                running.cancel();
            }
            *self.generations.entry(project.clone()).or_default() += 1;
            self.dirty.insert(project);
        }
    }

    /// The project of `path`, from its buffer's text and the markers above
    /// it (buffers, then the disk).
    fn project_of(&self, path: &Path) -> Option<Project> {
        let text = self.buffers.get(path).map_or("", String::as_str);
        project::find(path, text, &self.configured, |marker| {
            self.buffers.contains_key(marker) || marker.is_file()
        })
    }

    /// Starts a check on a worker for each changed project, as many as
    /// workers are free. Each worker checks the buffers as they are now;
    /// a check that a newer change overtakes still runs to its end, and
    /// its result is dropped.
    fn start_checks(&mut self) {
        let mut dirty: Vec<Project> = self.dirty.iter().cloned().collect();
        dirty.sort_by(|a, b| a.root.cmp(&b.root));
        for project in dirty.into_iter().take(MAX_RUNNING - self.running) {
            self.dirty.remove(&project);
            self.running += 1;
            let generation = self.generation(&project);
            let buffers = self.buffers_of(&project);
            let previous = self.previous(&project);
            let cancel = Cancel::new();
            // A check still running for the project is overtaken: it stops.
            if let Some((_, overtaken)) = self
                .cancels
                .insert(project.clone(), (generation, cancel.clone()))
            {
                overtaken.cancel();
            }
            let limits = self.limits;
            let finished = self.finished.clone();
            let work = {
                let project = project.clone();
                move || {
                    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        check::check(&project, &buffers, limits, previous.as_deref(), &cancel)
                    }))
                    .ok();
                    let _ = finished.send(Finished {
                        project,
                        generation,
                        checked,
                    });
                }
            };
            // A worker's stack is the loading threads' (address space, not
            // memory): opening runs parsers and evaluators on it.
            let spawned = std::thread::Builder::new()
                .name("strata-lsp-check".to_owned())
                .stack_size(strata_dialect::WORKER_STACK_BYTES)
                .spawn(work);
            if spawned.is_err() {
                // No thread to be had now: the next debounce tries again.
                self.running -= 1;
                self.dirty.insert(project);
            }
        }
    }

    /// The dialect of `project`'s last check, for the next to reopen.
    fn previous(&self, project: &Project) -> Option<Arc<dyn check::Loaded>> {
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

    /// Publishes what a worker checked, unless a newer change overtook it.
    fn take_finished(
        &mut self,
        connection: &Connection,
        done: Finished,
    ) -> Result<(), ServerError> {
        self.running -= 1;
        // Overtaken by a change, or already checked on the session's thread
        // for a request: nothing new to publish.
        let published = self
            .views
            .get(&done.project)
            .is_some_and(|(generation, _)| *generation == done.generation);
        if done.generation != self.generation(&done.project) || published {
            return Ok(());
        }
        self.publish_checked(connection, done.project, done.generation, done.checked)
    }

    /// Checks `project` now, on this thread, and publishes its diagnostics.
    fn check_now(&mut self, connection: &Connection, project: Project) -> Result<(), ServerError> {
        self.dirty.remove(&project);
        let generation = self.generation(&project);
        let previous = self.previous(&project);
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check::check(
                &project,
                &self.buffers,
                self.limits,
                previous.as_deref(),
                &Cancel::new(),
            )
        }))
        .ok();
        self.publish_checked(connection, project, generation, checked)
    }

    /// Publishes the diagnostics of `project` as checked at `generation`,
    /// clearing the files it no longer has problems in, and keeps its view;
    /// a check that panicked is reported in the client's log.
    fn publish_checked(
        &mut self,
        connection: &Connection,
        project: Project,
        generation: u64,
        checked: Option<Checked>,
    ) -> Result<(), ServerError> {
        let Some(Checked {
            published: mut files,
            view,
        }) = checked
        else {
            let params = LogMessageParams {
                typ: MessageType::ERROR,
                message: format!(
                    "strata: checking `{}` failed (a bug; the server goes on)",
                    project.root.display()
                ),
            };
            return send(connection, LogMessage::METHOD, &params);
        };
        let before = self.published.entry(project.clone()).or_default();
        // A file published before and clean now is published empty.
        for path in before.iter() {
            files.entry(path.clone()).or_default();
        }
        *before = files
            .iter()
            .filter(|(_, diagnostics)| !diagnostics.is_empty())
            .map(|(path, _)| path.clone())
            .collect();
        let replaced = self.views.insert(project, (generation, view));
        for (path, diagnostics) in files {
            let Ok(uri) = Url::from_file_path(&path) else {
                continue;
            };
            let params = PublishDiagnosticsParams {
                uri,
                diagnostics,
                version: None,
            };
            send(connection, PublishDiagnostics::METHOD, &params)?;
        }
        // Freeing a large project's last view takes tens of milliseconds
        // (a 1,000-blueprint catalogue: about 20): not on the session's
        // thread, where the next message waits.
        if let Some(replaced) = replaced {
            let _ = std::thread::Builder::new()
                .name("strata-lsp-drop".to_owned())
                .spawn(move || drop(replaced));
        }
        Ok(())
    }

    /// Answers a request: a panic while answering becomes an error
    /// response, and the session goes on.
    fn answer(
        &mut self,
        connection: &Connection,
        request: &Request,
    ) -> Result<Response, ServerError> {
        let id = request.id.clone();
        let Some(document) = request
            .params
            .get("textDocument")
            .and_then(|document| document.get("uri"))
            .and_then(|uri| serde_json::from_value::<Url>(uri.clone()).ok())
            .and_then(|uri| file_path(&uri))
        else {
            return Ok(Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("`{}` is not offered by this server", request.method),
            ));
        };
        // A request reads the project as the editor shows it now: a view
        // older than the last change is checked again first, except for
        // completion, which reads the buffer itself and takes the names
        // and schemas of the last view while the user types.
        let project = self.project_of(&document);
        if let Some(project) = &project {
            let fresh = self
                .views
                .get(project)
                .is_some_and(|(generation, _)| *generation == self.generation(project));
            let tolerant = request.method == Completion::METHOD && self.views.contains_key(project);
            if !fresh && !tolerant {
                self.check_now(connection, project.clone())?;
            }
        }
        let view = project
            .as_ref()
            .and_then(|project| self.views.get(project))
            .map(|(_, view)| view);
        let buffer = self.buffers.get(&document).map(String::as_str);
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            requests::answer(view, &document, buffer, request)
        }));
        Ok(match answered {
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
        })
    }
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

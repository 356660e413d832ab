//! `strata lsp`: a language server for the dialects, over standard input and
//! output (`lsp-server` and `lsp-types`, rust-analyzer's crates).
//!
//! What it does so far: **diagnostics as the user types**. Every open
//! buffer belongs to a project ([`project`]: one the client names in its
//! initialization options, else what the file says it is, else the nearest
//! marker above it);
//! after a change, once no other change has come for [`DEBOUNCE`], each
//! changed project is opened through the dialect contract with the open
//! buffers over the files on disk ([`check`]), and its diagnostics are
//! published for every file they point into, errors in files the user has
//! not opened included. A file whose problems are fixed is published empty,
//! so its marks go away. A file outside every project gets nothing.
//!
//! Requests the server does not offer get `MethodNotFound`; a panic while
//! checking is reported in the client's log (`window/logMessage`) and the
//! server goes on. `exit` without `shutdown` is an error (status 1).

#![forbid(unsafe_code)]

pub mod check;
mod complete;
mod navigate;
pub mod project;
mod requests;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit,
    LogMessage, Notification as _, PublishDiagnostics,
};
use lsp_types::{
    CompletionOptions, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, HoverProviderCapability,
    LogMessageParams, MessageType, OneOf, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use strata_syntax::Limits;

use crate::check::{Checked, View};
use crate::project::Project;

/// How long the server waits after a change for the next one before it
/// checks: typing does not start a check per keystroke.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

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
/// read within `limits`, until the client says `exit`.
pub fn serve_stdio(limits: Limits) -> Result<(), ServerError> {
    let (connection, io_threads) = Connection::stdio();
    serve(&connection, limits)?;
    drop(connection);
    io_threads.join().map_err(failed)
}

/// Serves one editor session on `connection`: the handshake, then every
/// message until `shutdown` and `exit` (or the client going away); an
/// `exit` without `shutdown` is an error, as the protocol says.
pub fn serve(connection: &Connection, limits: Limits) -> Result<(), ServerError> {
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
    let initialize = connection
        .initialize(serde_json::to_value(capabilities).map_err(failed)?)
        .map_err(failed)?;
    let mut server = Server {
        limits,
        configured: configured_projects(&initialize),
        buffers: BTreeMap::new(),
        dirty: HashSet::new(),
        published: HashMap::new(),
        views: HashMap::new(),
    };
    loop {
        let message = if server.dirty.is_empty() {
            connection.receiver.recv().ok()
        } else {
            match connection.receiver.recv_timeout(DEBOUNCE) {
                Ok(message) => Some(message),
                Err(RecvTimeoutError::Timeout) => {
                    server.publish(connection)?;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => None,
            }
        };
        let Some(message) = message else {
            return Ok(());
        };
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request).map_err(failed)? {
                    return Ok(());
                }
                let response = server.answer(connection, &request)?;
                connection
                    .sender
                    .send(Message::Response(response))
                    .map_err(failed)?;
            }
            // `exit` before `shutdown`: the protocol's exit status 1.
            Message::Notification(notification) if notification.method == Exit::METHOD => {
                return Err(ServerError(
                    "the client said `exit` without `shutdown`".to_owned(),
                ));
            }
            Message::Notification(notification) => server.notify(notification),
            Message::Response(_) => {}
        }
    }
}

/// One session's state.
struct Server {
    limits: Limits,
    /// The projects the client named in its initialization options.
    configured: Vec<project::Configured>,
    /// The open buffers, by absolute path.
    buffers: BTreeMap<PathBuf, String>,
    /// Projects changed since they were last checked.
    dirty: HashSet<Project>,
    /// Each checked project and the files it last published diagnostics for.
    published: HashMap<Project, BTreeSet<PathBuf>>,
    /// Each checked project as its last check saw it.
    views: HashMap<Project, View>,
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

    /// Takes in a notification, and marks the project it changes.
    fn notify(&mut self, notification: Notification) {
        if let Some(project) = self.changed_project(notification) {
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

    /// Checks every changed project and publishes its diagnostics, clearing
    /// the files it no longer has problems in.
    fn publish(&mut self, connection: &Connection) -> Result<(), ServerError> {
        for project in std::mem::take(&mut self.dirty) {
            self.publish_project(connection, project)?;
        }
        Ok(())
    }

    /// Checks `project` and publishes its diagnostics.
    fn publish_project(
        &mut self,
        connection: &Connection,
        project: Project,
    ) -> Result<(), ServerError> {
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check::check(&project, &self.buffers, self.limits)
        }));
        let Ok(Checked {
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
        self.views.insert(project, view);
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
        // A request reads the project as the editor shows it now.
        let project = self.project_of(&document);
        if let Some(project) = &project
            && (self.dirty.remove(project) || !self.views.contains_key(project))
        {
            self.publish_project(connection, project.clone())?;
        }
        let view = project.as_ref().and_then(|project| self.views.get(project));
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            requests::answer(view, &document, request)
        }));
        Ok(match answered {
            Ok(Ok(result)) => Response::new_ok(id, result),
            Ok(Err(message)) => Response::new_err(id, ErrorCode::MethodNotFound as i32, message),
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

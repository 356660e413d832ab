//! `strata lsp`: a language server for the dialects, over standard input and
//! output (`lsp-server` and `lsp-types`, rust-analyzer's crates).
//!
//! What it does so far: **diagnostics as the user types**. Every open
//! buffer belongs to the project its nearest marker names ([`project`]);
//! after a change, once no other change has come for [`DEBOUNCE`], each
//! changed project is opened through the dialect contract with the open
//! buffers over the files on disk ([`check`]), and its diagnostics are
//! published for every file they point into, errors in files the user has
//! not opened included. A file whose problems are fixed is published empty,
//! so its marks go away. A file outside every project gets nothing.
//!
//! Requests the server does not offer get `MethodNotFound`; a panic while
//! checking is reported in the client's log (`window/logMessage`) and the
//! server goes on.

#![forbid(unsafe_code)]

pub mod check;
pub mod project;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    LogMessage, Notification as _, PublishDiagnostics,
};
use lsp_types::{
    LogMessageParams, MessageType, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use strata_syntax::Limits;

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
/// message until `shutdown` (or the client going away).
pub fn serve(connection: &Connection, limits: Limits) -> Result<(), ServerError> {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        ..ServerCapabilities::default()
    };
    connection
        .initialize(serde_json::to_value(capabilities).map_err(failed)?)
        .map_err(failed)?;
    let mut server = Server {
        limits,
        buffers: BTreeMap::new(),
        dirty: BTreeSet::new(),
        published: HashMap::new(),
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
                let response = Response::new_err(
                    request.id,
                    ErrorCode::MethodNotFound as i32,
                    format!("`{}` is not offered by this server", request.method),
                );
                connection
                    .sender
                    .send(Message::Response(response))
                    .map_err(failed)?;
            }
            Message::Notification(notification) => server.notify(notification),
            Message::Response(_) => {}
        }
    }
}

/// One session's state.
struct Server {
    limits: Limits,
    /// The open buffers, by absolute path.
    buffers: BTreeMap<PathBuf, String>,
    /// Projects changed since they were last checked.
    dirty: BTreeSet<PathBuf>,
    /// Each checked project, by root, and the files it last published
    /// diagnostics for.
    published: HashMap<PathBuf, (Project, BTreeSet<PathBuf>)>,
}

impl Server {
    /// Takes in a notification: a buffer opened, changed, saved or closed.
    fn notify(&mut self, notification: Notification) {
        let path = match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(
                    notification.params,
                ) else {
                    return;
                };
                let path = file_path(&params.text_document.uri);
                if let Some(path) = &path {
                    self.buffers.insert(path.clone(), params.text_document.text);
                }
                path
            }
            DidChangeTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(
                    notification.params,
                ) else {
                    return;
                };
                let path = file_path(&params.text_document.uri);
                // Full synchronisation: the last change holds the whole text.
                if let (Some(path), Some(change)) =
                    (&path, params.content_changes.into_iter().last())
                {
                    self.buffers.insert(path.clone(), change.text);
                }
                path
            }
            DidSaveTextDocument::METHOD => {
                serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(notification.params)
                    .ok()
                    .and_then(|params| file_path(&params.text_document.uri))
            }
            DidCloseTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(
                    notification.params,
                ) else {
                    return;
                };
                let path = file_path(&params.text_document.uri);
                if let Some(path) = &path {
                    self.buffers.remove(path);
                }
                path
            }
            _ => None,
        };
        if let Some(project) = path.and_then(|path| self.project_of(&path)) {
            self.dirty.insert(project.root.clone());
            self.published
                .entry(project.root.clone())
                .or_insert_with(|| (project, BTreeSet::new()));
        }
    }

    /// The project of `path`, its markers looked for in the buffers, then on disk.
    fn project_of(&self, path: &Path) -> Option<Project> {
        project::find(path, |marker| {
            self.buffers.contains_key(marker) || marker.is_file()
        })
    }

    /// Checks every changed project and publishes its diagnostics, clearing
    /// the files it no longer has problems in.
    fn publish(&mut self, connection: &Connection) -> Result<(), ServerError> {
        for root in std::mem::take(&mut self.dirty) {
            let Some((project, before)) = self.published.get_mut(&root) else {
                continue;
            };
            let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check::check(project, &self.buffers, self.limits)
            }));
            let Ok(mut files) = checked else {
                let params = LogMessageParams {
                    typ: MessageType::ERROR,
                    message: format!(
                        "strata: checking `{}` failed (a bug; the server goes on)",
                        root.display()
                    ),
                };
                send(connection, LogMessage::METHOD, &params)?;
                continue;
            };
            let cleared: Vec<PathBuf> = before
                .iter()
                .filter(|path| !files.contains_key(*path))
                .cloned()
                .collect();
            for path in cleared {
                files.insert(path, Vec::new());
            }
            *before = files
                .iter()
                .filter(|(_, diagnostics)| !diagnostics.is_empty())
                .map(|(path, _)| path.clone())
                .collect();
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
        }
        Ok(())
    }
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

//! Watching the catalogue and the users file, and reloading on change.
//!
//! One thread owns a `notify` debouncer and does every reload, so reloads
//! never overlap and each one sees the files as they were after the burst of
//! changes that triggered it.
//!
//! - The catalogue root is watched recursively (new subfolders are watched as
//!   they appear). A debounced batch triggers a reload when it touches a
//!   `*.yaml`/`*.yml` file (`.strata.yaml` included), an entry whose name
//!   starts with `..` (a Kubernetes ConfigMap mount swaps its `..data`
//!   symlink to publish a new version), a folder, or the root itself.
//!   Access events (a file opened or read) are ignored.
//! - The users file's folder is watched on its own; a batch touching the
//!   file or a `..` entry beside it reloads the users.
//! - Every `poll` the thread also compares the root's identity (device and
//!   inode) and the users file's (identity, size, modification time) with
//!   what it last saw: a root removed and created again (whose watches died
//!   with it) is watched again and reloaded, and a change the kernel did not
//!   report is still picked up.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::SystemTime;

use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, DebouncedEvent, new_debouncer};

use crate::service::Service;

/// What the watching thread receives.
enum Signal {
    Events(DebounceEventResult),
    Stop,
}

/// The watching thread; [`Watcher::stop`] ends it.
pub(crate) struct Watcher {
    signals: mpsc::Sender<Signal>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Starts watching for `service`, then loads the users and the
    /// catalogue once on the watching thread (so no change made meanwhile is
    /// missed, and no two reloads overlap) and returns when they are done.
    pub(crate) fn start(service: Arc<Service>) -> std::io::Result<Watcher> {
        let (signals, received) = mpsc::channel();
        let events = signals.clone();
        let debouncer = new_debouncer(service.config().debounce, None, move |result| {
            let _ = events.send(Signal::Events(result));
        })
        .map_err(std::io::Error::other)?;
        let mut watching = Watching {
            catalogue: service.config().catalogue.clone(),
            users: service.config().users.clone(),
            root: None,
            users_stamp: stamp(&service.config().users),
            debouncer,
            service,
        };
        watching.watch_root();
        watching.watch_users();
        let (loaded, first_loads) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("strata-watch".to_owned())
            .spawn(move || {
                watching.reload(true, true);
                let _ = loaded.send(());
                watching.run(&received);
            })?;
        // The thread ends early only by panicking; `stop` then finds it done.
        let _ = first_loads.recv();
        Ok(Watcher {
            signals,
            thread: Some(thread),
        })
    }

    /// Stops watching and waits for a reload in progress to finish.
    pub(crate) fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        let _ = self.signals.send(Signal::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.halt();
    }
}

/// A folder's identity: a folder removed and created again is another one.
type Identity = (u64, u64);

/// What a file looked like: its identity, size and modification time.
type Stamp = (Identity, u64, Option<SystemTime>);

struct Watching {
    catalogue: PathBuf,
    users: PathBuf,
    /// The identity of the root being watched, if any.
    root: Option<Identity>,
    users_stamp: Option<Stamp>,
    debouncer: notify_debouncer_full::Debouncer<
        notify::RecommendedWatcher,
        notify_debouncer_full::RecommendedCache,
    >,
    service: Arc<Service>,
}

impl Watching {
    fn run(&mut self, received: &mpsc::Receiver<Signal>) {
        let poll = self.service.config().poll;
        loop {
            let mut batch = Vec::new();
            match received.recv_timeout(poll) {
                Ok(Signal::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(Signal::Events(result)) => batch.push(result),
                Err(RecvTimeoutError::Timeout) => {}
            }
            // Whatever else arrived is handled by the same reload.
            while let Ok(signal) = received.try_recv() {
                match signal {
                    Signal::Stop => return,
                    Signal::Events(result) => batch.push(result),
                }
            }
            let (mut catalogue, mut users) = (false, false);
            for result in batch {
                match result {
                    Ok(events) => {
                        catalogue |= events.iter().any(|e| self.touches_catalogue(e));
                        users |= events.iter().any(|e| self.touches_users(e));
                    }
                    Err(errors) => {
                        for error in errors {
                            tracing::warn!(target: "strata::watch", %error, "watch error");
                        }
                        // Whatever was missed is read again.
                        catalogue = true;
                        users = true;
                    }
                }
            }
            let root = identity(&self.catalogue);
            if root != self.root {
                tracing::info!(target: "strata::watch", root = %self.catalogue.display(), present = root.is_some(), "catalogue root replaced");
                self.watch_root();
                catalogue = true;
            }
            let users_stamp = stamp(&self.users);
            if users_stamp != self.users_stamp {
                self.users_stamp = users_stamp;
                users = true;
            }
            self.reload(catalogue, users);
        }
    }

    /// Reloads what changed, the users first (the catalogue may take longer).
    fn reload(&self, catalogue: bool, users: bool) {
        if users {
            guarded("users", || {
                self.service.reload_users();
            });
        }
        if catalogue {
            guarded("catalogue", || {
                self.service.reload_catalogue();
            });
        }
    }

    /// (Re)watches the catalogue root and notes its identity.
    fn watch_root(&mut self) {
        // The old watch died with the old root; unwatching is tidying up.
        let _ = self.debouncer.unwatch(&self.catalogue);
        self.root = identity(&self.catalogue);
        if self.root.is_some()
            && let Err(error) = self
                .debouncer
                .watch(&self.catalogue, RecursiveMode::Recursive)
        {
            tracing::warn!(target: "strata::watch", root = %self.catalogue.display(), %error, "cannot watch the catalogue");
        }
    }

    /// Watches the users file's folder.
    fn watch_users(&mut self) {
        let folder = users_folder(&self.users);
        if let Err(error) = self.debouncer.watch(folder, RecursiveMode::NonRecursive) {
            tracing::warn!(target: "strata::watch", folder = %folder.display(), %error, "cannot watch the users file's folder");
        }
    }

    fn touches_catalogue(&self, event: &DebouncedEvent) -> bool {
        if matches!(event.kind, EventKind::Access(_)) {
            return false;
        }
        event.paths.iter().any(|path| {
            let Ok(relative) = path.strip_prefix(&self.catalogue) else {
                return false;
            };
            let is_yaml = path
                .extension()
                .and_then(|ext| ext.to_str())
                .is_some_and(|ext| ext == "yaml" || ext == "yml");
            // A path without an extension that is created, removed or renamed
            // is taken for a folder (a removed one can no longer be asked).
            let folder_like = path.extension().is_none()
                && matches!(
                    event.kind,
                    EventKind::Create(_)
                        | EventKind::Remove(_)
                        | EventKind::Modify(notify::event::ModifyKind::Name(_))
                );
            is_yaml || folder_like || relative.as_os_str().is_empty() || is_mount_internal(relative)
        })
    }

    fn touches_users(&self, event: &DebouncedEvent) -> bool {
        if matches!(event.kind, EventKind::Access(_)) {
            return false;
        }
        let folder = users_folder(&self.users);
        event.paths.iter().any(|path| {
            path == &self.users || path.strip_prefix(folder).is_ok_and(is_mount_internal)
        })
    }
}

/// Runs a reload so that a panic in it (a bug: loading reports problems as
/// diagnostics) is logged and the thread goes on watching; the generation
/// served is untouched, since it is swapped only after a load completes.
fn guarded(what: &str, reload: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(reload)).is_err() {
        tracing::error!(target: "strata::reload", reloading = what, "the reload panicked; serving what was served before");
    }
}

/// Whether a path below a mount passes through a Kubernetes volume's own
/// entries (`..data`, `..2026_11_22_12_00_00.123`).
fn is_mount_internal(relative: &Path) -> bool {
    relative.components().any(|part| {
        part.as_os_str()
            .to_str()
            .is_some_and(|p| p.starts_with(".."))
    })
}

fn users_folder(users: &Path) -> &Path {
    users
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The device and inode of what `path` leads to, if it exists.
#[cfg(unix)]
fn identity(path: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Elsewhere only presence counts.
#[cfg(not(unix))]
fn identity(path: &Path) -> Option<Identity> {
    std::fs::metadata(path).ok().map(|_| (0, 0))
}

fn stamp(path: &Path) -> Option<Stamp> {
    let metadata = std::fs::metadata(path).ok()?;
    Some((identity(path)?, metadata.len(), metadata.modified().ok()))
}

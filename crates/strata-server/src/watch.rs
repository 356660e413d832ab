//! Watching the catalogue and the users file, and reloading on change.
//!
//! One thread receives `notify`'s events as they come and does every
//! reload, so reloads never overlap. It keeps the time of the first and of
//! the latest change not reloaded yet, and wakes up for a reload by two
//! deadlines of its own rather than by the arrival of an event:
//!
//! - **Debounce** (`Config::debounce`, 200 ms): a reload comes once no
//!   change has been seen for that long, the end of a burst of changes.
//! - **Maximum wait** (`Config::max_wait`, 1 s): while changes keep coming
//!   closer together than that, a reload comes anyway that long after the
//!   first change not reloaded yet, so a burst that never pauses is
//!   reloaded at least once a `max_wait`.
//! - **Settle** (`Config::settle`, 20 ms): a catalogue reload asks every
//!   file it read again that long after its last read (`service`); one
//!   that finds a file changed, come or gone swaps nothing in and is
//!   `Unsettled`. It is tried again at once, up to four times in a row,
//!   then by the two deadlines as if the files had just changed. A reload
//!   that lands in a burst of in-place rewrites thus never publishes a file
//!   caught mid-rewrite: what it publishes stood still for `settle`.
//!
//! What counts as a change:
//!
//! - The catalogue root is watched recursively (new subfolders are watched as
//!   they appear). An event is a change of the catalogue when it touches a
//!   `*.yaml`/`*.yml` file (`.strata.yaml` included), an entry whose name
//!   starts with `..` (a Kubernetes ConfigMap mount swaps its `..data`
//!   symlink to publish a new version), a folder, or the root itself.
//!   Access events (a file opened, read or closed) are ignored.
//! - The users file's folder is watched on its own; an event touching the
//!   file or a `..` entry beside it is a change of the users.
//! - An error of the watcher, or events lost to an overflowing queue, is a
//!   change of both: whatever was missed is read again.
//! - At least every `poll` the thread also compares the root's identity
//!   (device and inode) and the users file's [`Stamp`] with what it last
//!   saw: a root removed and created again (whose watches died with it) is
//!   watched again and reloaded, and a change the kernel did not report is
//!   still picked up.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Instant;

use notify::{Event, EventKind, RecursiveMode, Watcher as _};
use strata_fs::Stamp;

use crate::Config;
use crate::service::{ReloadOutcome, Service};

/// Catalogue loads tried again at once after one that was unsettled,
/// before the deadlines decide again.
const QUICK_RETRIES: u32 = 4;

/// What the watching thread receives.
enum Signal {
    Event(notify::Result<Event>),
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
        let watcher = notify::recommended_watcher(move |event| {
            let _ = events.send(Signal::Event(event));
        })
        .map_err(std::io::Error::other)?;
        let mut watching = Watching {
            catalogue: service.config().catalogue.clone(),
            users: service.config().users.clone(),
            root: None,
            users_stamp: Stamp::of_path(&service.config().users),
            watcher,
            pending: Pending::default(),
            service,
        };
        watching.watch_root();
        watching.watch_users();
        let (loaded, first_loads) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("strata-watch".to_owned())
            .spawn(move || {
                watching.pending.note(true, true, Instant::now());
                watching.reload();
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

/// Changes not reloaded yet, and when their reload is due.
#[derive(Debug, Default)]
struct Pending {
    catalogue: bool,
    users: bool,
    /// The first change not reloaded yet: the maximum wait counts from it.
    first: Option<Instant>,
    /// The latest change: the quiet period counts from it.
    latest: Option<Instant>,
    /// When the next load is due after an unsettled one, whatever the
    /// deadlines say.
    retry: Option<Instant>,
    /// Unsettled loads in a row.
    unsettled: u32,
}

impl Pending {
    /// Notes a change seen `at` of the catalogue, the users, or both.
    fn note(&mut self, catalogue: bool, users: bool, at: Instant) {
        if catalogue || users {
            self.catalogue |= catalogue;
            self.users |= users;
            self.first.get_or_insert(at);
            self.latest = Some(at);
        }
    }

    /// When the reload is due, if anything is pending: `debounce` after the
    /// latest change or `max_wait` after the first, whichever comes first,
    /// or at a retry's time.
    fn due(&self, config: &Config) -> Option<Instant> {
        if !(self.catalogue || self.users) {
            return None;
        }
        // A deadline past what an `Instant` can hold never comes.
        let quiet = self.latest.and_then(|at| at.checked_add(config.debounce));
        let longest = self.first.and_then(|at| at.checked_add(config.max_wait));
        [self.retry, quiet, longest].into_iter().flatten().min()
    }

    /// After a reload: nothing is pending, unless the catalogue was
    /// unsettled; then it is due again at once, up to [`QUICK_RETRIES`]
    /// times in a row, and after that as if it had changed `now`. Returns
    /// whether it is due at once.
    fn reloaded(&mut self, unsettled: bool, now: Instant) -> bool {
        if !unsettled {
            *self = Pending::default();
            return false;
        }
        self.catalogue = true;
        self.users = false;
        self.unsettled += 1;
        if self.unsettled <= QUICK_RETRIES {
            self.retry = Some(now);
            return true;
        }
        *self = Pending::default();
        self.note(true, false, now);
        false
    }
}

struct Watching {
    catalogue: PathBuf,
    users: PathBuf,
    /// The identity of the root being watched, if any.
    root: Option<Identity>,
    users_stamp: Option<Stamp>,
    watcher: notify::RecommendedWatcher,
    pending: Pending,
    service: Arc<Service>,
}

impl Watching {
    fn run(&mut self, received: &mpsc::Receiver<Signal>) {
        let poll = self.service.config().poll;
        loop {
            let wait = self.pending.due(self.service.config()).map_or(poll, |due| {
                due.saturating_duration_since(Instant::now()).min(poll)
            });
            match received.recv_timeout(wait) {
                Ok(Signal::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(Signal::Event(event)) => self.note(event),
                Err(RecvTimeoutError::Timeout) => {}
            }
            // Whatever else arrived is noted too.
            while let Ok(signal) = received.try_recv() {
                match signal {
                    Signal::Stop => return,
                    Signal::Event(event) => self.note(event),
                }
            }
            self.check_identities();
            let now = Instant::now();
            if self
                .pending
                .due(self.service.config())
                .is_some_and(|due| due <= now)
            {
                self.reload();
            }
        }
    }

    /// Notes what an event changed.
    fn note(&mut self, event: notify::Result<Event>) {
        let now = Instant::now();
        match event {
            Ok(event) if event.need_rescan() => {
                tracing::warn!(target: "strata::watch", "events were lost; reading everything again");
                self.pending.note(true, true, now);
            }
            Ok(event) => {
                let (catalogue, users) =
                    (self.touches_catalogue(&event), self.touches_users(&event));
                self.pending.note(catalogue, users, now);
            }
            Err(error) => {
                tracing::warn!(target: "strata::watch", %error, "watch error");
                self.pending.note(true, true, now);
            }
        }
    }

    /// Compares the root's identity and the users file's stamp with what
    /// was seen last; a new root is watched again.
    fn check_identities(&mut self) {
        let now = Instant::now();
        let root = identity(&self.catalogue);
        if root != self.root {
            tracing::info!(target: "strata::watch", root = %self.catalogue.display(), present = root.is_some(), "catalogue root replaced");
            self.watch_root();
            self.pending.note(true, false, now);
        }
        let users_stamp = Stamp::of_path(&self.users);
        if users_stamp != self.users_stamp {
            self.users_stamp = users_stamp;
            self.pending.note(false, true, now);
        }
    }

    /// Reloads what is pending, the users first (the catalogue may take
    /// longer).
    fn reload(&mut self) {
        if self.pending.users {
            guarded("users", || self.service.reload_users());
        }
        let unsettled = self.pending.catalogue
            && guarded("catalogue", || self.service.reload_catalogue())
                == Some(ReloadOutcome::Unsettled);
        let at_once = self.pending.reloaded(unsettled, Instant::now());
        if unsettled && !at_once {
            tracing::info!(
                target: "strata::watch",
                loads = QUICK_RETRIES + 1,
                "the catalogue's files are still changing; the next reload waits for the debounce or the maximum wait",
            );
        }
    }

    /// (Re)watches the catalogue root and notes its identity.
    fn watch_root(&mut self) {
        // The old watch died with the old root; unwatching is tidying up.
        let _ = self.watcher.unwatch(&self.catalogue);
        self.root = identity(&self.catalogue);
        if self.root.is_some()
            && let Err(error) = self
                .watcher
                .watch(&self.catalogue, RecursiveMode::Recursive)
        {
            tracing::warn!(target: "strata::watch", root = %self.catalogue.display(), %error, "cannot watch the catalogue");
        }
    }

    /// Watches the users file's folder.
    fn watch_users(&mut self) {
        let folder = users_folder(&self.users);
        if let Err(error) = self.watcher.watch(folder, RecursiveMode::NonRecursive) {
            tracing::warn!(target: "strata::watch", folder = %folder.display(), %error, "cannot watch the users file's folder");
        }
    }

    fn touches_catalogue(&self, event: &Event) -> bool {
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

    fn touches_users(&self, event: &Event) -> bool {
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
/// What the reload returned, unless it panicked.
fn guarded<T>(what: &str, reload: impl FnOnce() -> T) -> Option<T> {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(reload));
    if outcome.is_err() {
        tracing::error!(target: "strata::reload", reloading = what, "the reload panicked; serving what was served before");
    }
    outcome.ok()
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_reload_is_due_after_the_quiet_period_or_the_maximum_wait() {
        // 200 ms debounce, 1 s maximum wait.
        let config = Config::new("catalogue", "users.yaml");
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        let mut pending = Pending::default();
        pending.note(false, false, at(0));
        assert_eq!(pending.due(&config), None);
        pending.note(true, false, at(0));
        assert_eq!(pending.due(&config), Some(at(200)));
        // Changes 150 ms apart put the quiet period off, not the maximum wait.
        for ms in [150, 300, 450, 600, 750, 900] {
            pending.note(true, false, at(ms));
        }
        assert_eq!(pending.due(&config), Some(at(1000)));
        // An unsettled load is due again at once, a few times in a row...
        for retry in 1..=QUICK_RETRIES {
            let now = at(1000 + u64::from(retry) * 30);
            assert!(pending.reloaded(true, now));
            assert!(pending.due(&config).is_some_and(|due| due <= now));
        }
        // ...then as if the files had changed then.
        assert!(!pending.reloaded(true, at(1200)));
        assert_eq!(pending.due(&config), Some(at(1400)));
        assert!(!pending.reloaded(false, at(1400)));
        assert_eq!(pending.due(&config), None);
        // A wait too long for an `Instant` never comes.
        let config = Config {
            max_wait: Duration::MAX,
            ..config
        };
        let mut pending = Pending::default();
        pending.note(false, true, at(0));
        assert_eq!(pending.due(&config), Some(at(200)));
    }
}

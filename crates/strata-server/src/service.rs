//! The service's state: the catalogue generation served, the users, and what
//! the latest reloads did.
//!
//! A reload builds a whole new [`Catalogue`] off to the side (load, resolve,
//! compile CEL, check every concrete blueprint against the test scope) and
//! only then swaps it in, atomically: a request holds the `Arc` of the
//! generation it started with, so it sees the whole old set or the whole
//! new one, never a mix. A reload with an error keeps the previous
//! generation and records the failure; the next good one clears it.
//!
//! The catalogue is read through a [`Recorded`] tree, and `settle` after
//! the last read every answer is asked again, on a thread beside the load
//! (so the window is the reading and `settle`, not the whole load): a
//! reload that finds a file changed (or one come or gone) since it was
//! read swaps nothing in and records nothing, since what it read may have
//! been a file caught in the middle of a rewrite (truncated, half
//! written); it is `Unsettled` (the load is cancelled at its next step),
//! and the watcher tries again.
//!
//! A generation is a number (1 for the first good load, one more for each
//! load whose content differs) and a digest: SHA-256 over every file the
//! catalogue read, in order, each as its path below the root and its text.
//! A reload that reads the same content keeps the generation it had.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Instant, SystemTime};

use arc_swap::ArcSwapOption;
use sha2::{Digest, Sha256};
use strata_dialect::{Cancel, Dialect, Options};
use strata_fs::{Recorded, RootFs};
use strata_platform::{Catalogue, Settings};
use strata_syntax::{Diagnostic, DiagnosticRecord, SourceDb, Span};

use crate::Config;
use crate::metrics::Metrics;
use crate::users::Users;

/// One successfully loaded catalogue.
pub struct Generation {
    /// 1 for the first, one more for each load with new content.
    pub number: u64,
    /// `sha256:` and the hex digest of the files read.
    pub digest: String,
    /// When it was loaded.
    pub loaded_at: SystemTime,
    /// The catalogue.
    pub catalogue: Catalogue,
    /// The load's warnings.
    pub warnings: Vec<DiagnosticRecord>,
}

/// A reload that failed.
#[derive(Debug, Clone)]
pub struct ReloadFailure {
    /// When.
    pub at: SystemTime,
    /// Every problem found, resolved to files and positions.
    pub diagnostics: Vec<DiagnosticRecord>,
}

/// What a reload did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReloadOutcome {
    /// A new generation is served.
    Loaded(u64),
    /// The content is what is already served.
    Unchanged(u64),
    /// A file changed while the catalogue was read (caught mid-rewrite,
    /// say): nothing was swapped in or recorded, and the reload is to be
    /// tried again.
    Unsettled,
    /// Something is wrong; what was served before still is.
    Failed,
}

impl ReloadOutcome {
    fn label(self) -> &'static str {
        match self {
            ReloadOutcome::Loaded(_) => "loaded",
            ReloadOutcome::Unchanged(_) => "unchanged",
            ReloadOutcome::Unsettled => "unsettled",
            ReloadOutcome::Failed => "failed",
        }
    }
}

/// The latest failures, one per target; cleared by the next success.
#[derive(Debug, Default, Clone)]
pub struct Failures {
    /// The catalogue's.
    pub catalogue: Option<ReloadFailure>,
    /// The users file's.
    pub users: Option<ReloadFailure>,
}

/// Everything a request handler and the watcher share.
pub struct Service {
    config: Config,
    generation: ArcSwapOption<Generation>,
    users: ArcSwapOption<Users>,
    failures: Mutex<Failures>,
    metrics: Metrics,
    composes: tokio::sync::Semaphore,
}

impl Service {
    /// A service with nothing loaded yet. The catalogue and users paths are
    /// made absolute (symlinks are kept: a flipped root symlink is a new root).
    #[must_use]
    pub fn new(mut config: Config) -> Service {
        for path in [&mut config.catalogue, &mut config.users] {
            if let Ok(absolute) = std::path::absolute(&*path) {
                *path = absolute;
            }
        }
        Service {
            generation: ArcSwapOption::empty(),
            users: ArcSwapOption::empty(),
            failures: Mutex::new(Failures::default()),
            metrics: Metrics::new(),
            composes: tokio::sync::Semaphore::new(config.max_composes.max(1)),
            config,
        }
    }

    /// Waits for a turn to compose: at most [`Config::max_composes`] hold
    /// one at once (the semaphore is never closed, so a turn always comes).
    pub(crate) async fn compose_turn(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        self.composes.acquire().await.ok()
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The generation now served, if a catalogue has ever loaded.
    #[must_use]
    pub fn generation(&self) -> Option<Arc<Generation>> {
        self.generation.load_full()
    }

    /// The users now in force, if the users file has ever loaded.
    #[must_use]
    pub fn users(&self) -> Option<Arc<Users>> {
        self.users.load_full()
    }

    /// The latest reload failures.
    #[must_use]
    pub fn failures(&self) -> Failures {
        self.failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The metrics.
    #[must_use]
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Whether both a catalogue and the users have loaded.
    #[must_use]
    pub fn is_ready(&self) -> bool {
        self.generation.load().is_some() && self.users.load().is_some()
    }

    /// Loads the catalogue again and serves it if it is valid, new, and
    /// its files were the same `settle` after they were read.
    pub fn reload_catalogue(&self) -> ReloadOutcome {
        let started = Instant::now();
        let root = &self.config.catalogue;
        let outcome = match load_catalogue(root, &self.config) {
            Load::Unsettled(changed) => {
                tracing::info!(
                    target: "strata::reload",
                    root = %root.display(),
                    outcome = %"unsettled",
                    changed = %changed,
                    serving = self.generation().map_or(0, |g| g.number),
                    elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
                    "catalogue reload",
                );
                ReloadOutcome::Unsettled
            }
            Load::Valid(catalogue, warnings) => {
                self.record(|f| &mut f.catalogue, None);
                let digest = digest(&catalogue, root);
                let (outcome, generation) = match self.generation() {
                    Some(previous) if previous.digest == digest => {
                        (ReloadOutcome::Unchanged(previous.number), previous)
                    }
                    previous => {
                        let generation = Arc::new(Generation {
                            number: previous.map_or(1, |p| p.number + 1),
                            digest,
                            loaded_at: SystemTime::now(),
                            catalogue: *catalogue,
                            warnings,
                        });
                        self.generation.store(Some(generation.clone()));
                        let blueprints = concrete_count(&generation.catalogue);
                        self.metrics.serving(generation.number, blueprints);
                        (ReloadOutcome::Loaded(generation.number), generation)
                    }
                };
                tracing::info!(
                    target: "strata::reload",
                    root = %root.display(),
                    outcome = %outcome.label(),
                    generation = generation.number,
                    digest = %generation.digest,
                    blueprints = concrete_count(&generation.catalogue),
                    warnings = generation.warnings.len(),
                    elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
                    "catalogue reload",
                );
                outcome
            }
            Load::Invalid(diagnostics) => {
                tracing::warn!(
                    target: "strata::reload",
                    root = %root.display(),
                    outcome = %"failed",
                    serving = self.generation().map_or(0, |g| g.number),
                    errors = diagnostics.len(),
                    first = %diagnostics.first().map(summary).unwrap_or_default(),
                    elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
                    "catalogue reload",
                );
                self.record(|f| &mut f.catalogue, Some(ReloadFailure::now(diagnostics)));
                ReloadOutcome::Failed
            }
        };
        self.metrics.reload("catalogue", outcome.label());
        outcome
    }

    /// Loads the users file again; a bad file keeps the previous users.
    /// Returns whether the file loaded.
    pub fn reload_users(&self) -> bool {
        let path = &self.config.users;
        let opened = Users::load(path, &self.config.limits);
        let loaded = match opened.outcome.into_result() {
            Ok(users) => {
                tracing::info!(
                    target: "strata::reload",
                    file = %path.display(),
                    outcome = %"loaded",
                    users = users.len(),
                    "users reload",
                );
                self.users.store(Some(Arc::new(users)));
                self.record(|f| &mut f.users, None);
                true
            }
            Err(diagnostics) => {
                let records: Vec<DiagnosticRecord> = diagnostics
                    .iter()
                    .map(|d| d.record(&opened.sources))
                    .collect();
                tracing::warn!(
                    target: "strata::reload",
                    file = %path.display(),
                    outcome = %"failed",
                    errors = records.len(),
                    first = %records.first().map(summary).unwrap_or_default(),
                    "users reload",
                );
                self.record(|f| &mut f.users, Some(ReloadFailure::now(records)));
                false
            }
        };
        self.metrics
            .reload("users", if loaded { "loaded" } else { "failed" });
        loaded
    }

    /// Sets (or, after a success, clears) a target's latest failure.
    fn record(
        &self,
        target: impl FnOnce(&mut Failures) -> &mut Option<ReloadFailure>,
        failure: Option<ReloadFailure>,
    ) {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        *target(&mut failures) = failure;
    }
}

impl ReloadFailure {
    fn now(diagnostics: Vec<DiagnosticRecord>) -> ReloadFailure {
        ReloadFailure {
            at: SystemTime::now(),
            diagnostics,
        }
    }
}

/// What loading the catalogue gave.
enum Load {
    /// A catalogue without errors, and its warnings.
    Valid(Box<Catalogue>, Vec<DiagnosticRecord>),
    /// Every problem (as records, since a failed catalogue's sources go away).
    Invalid(Vec<DiagnosticRecord>),
    /// A file read was not the same `settle` later: this one, as shown.
    Unsettled(String),
}

/// Loads and checks the catalogue at `root` through a [`Recorded`] tree,
/// and, beside the load, asks every file again `config.settle` after the
/// last read ([`Recorded::settled`]).
fn load_catalogue(root: &Path, config: &Config) -> Load {
    let fs = match RootFs::new(root) {
        Ok(fs) => Arc::new(Recorded::new(Arc::new(fs))),
        Err(error) => {
            let mut db = SourceDb::new();
            let id = db.add(root.display().to_string(), "");
            return Load::Invalid(vec![error.diagnostic(Span::file_start(id)).record(&db)]);
        }
    };
    // A load whose files changed under it is not wanted: it stops early.
    let cancel = Cancel::new();
    let options = Options::new(config.limits, Settings::default()).with_cancel(cancel.clone());
    let reading = AtomicBool::new(true);
    let (opened, settled) = std::thread::scope(|scope| {
        let settled = scope.spawn(|| {
            let changed = fs.settled(config.settle, &reading);
            if changed.is_some() {
                cancel.cancel();
            }
            changed
        });
        let opened = {
            // Done reading however the load ends, a panic included.
            let _done = Done(&reading);
            Catalogue::open(fs.clone(), options)
        };
        (opened, settled.join())
    });
    if let Some(changed) = settled.unwrap_or_else(|panic| std::panic::resume_unwind(panic)) {
        return Load::Unsettled(changed);
    }
    let outcome = opened.outcome;
    let records = outcome
        .diagnostics
        .iter()
        .map(|d| d.record(&opened.sources))
        .collect();
    match outcome.value {
        Some(catalogue) if !outcome.diagnostics.iter().any(Diagnostic::is_error) => {
            Load::Valid(Box::new(catalogue), records)
        }
        _ => Load::Invalid(records),
    }
}

/// Clears a flag when dropped.
struct Done<'a>(&'a AtomicBool);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The number of blueprints that can be composed.
#[must_use]
pub(crate) fn concrete_count(catalogue: &Catalogue) -> usize {
    catalogue.list().iter().filter(|s| !s.is_template).count()
}

/// `sha256:<hex>` over every source's path below `root` and text, each
/// length-prefixed so that no two catalogues hash the same bytes.
fn digest(catalogue: &Catalogue, root: &Path) -> String {
    let mut hasher = Sha256::new();
    for file in catalogue.sources().iter() {
        let name = Path::new(file.name());
        let name = name.strip_prefix(root).unwrap_or(name).to_string_lossy();
        for part in [name.as_bytes(), file.text().as_bytes()] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// `file:line:col code message`, for a log line.
fn summary(record: &DiagnosticRecord) -> String {
    format!(
        "{}:{}:{} {} {}",
        record.file, record.line, record.column, record.code, record.message
    )
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("catalogue", &self.config.catalogue)
            .field("users", &self.config.users)
            .field("generation", &self.generation().map(|g| g.number))
            .finish_non_exhaustive()
    }
}

//! The contract every dialect follows, and the mechanisms they share.
//!
//! A dialect is a schema and its semantics over the shared core. Seen from
//! outside, every dialect has the same shape ([`Dialect`]):
//!
//! 1. **Open** ([`Dialect::open`]) from a [`Files`] tree (a folder on disk
//!    through `RootFs`, a `MemoryFs` in tests, an overlay in an editor)
//!    with one [`Options`] value: the [`Limits`] on every input, the
//!    dialect's own settings, a [`Cancel`] token and a [`Progress`] to
//!    tell where uninterruptible work is. Opening reads, parses, decodes and checks
//!    everything that does not depend on a request. It gives an
//!    [`Opened`]: the sources it read and an [`Outcome`] whose value is as
//!    much of the dialect as could be built, with every problem found.
//! 2. **Render** ([`Dialect::render`]) one request into the dialect's
//!    result, as an [`Outcome`] that holds a value only when no diagnostic
//!    is an error. The render registers what its diagnostics point into
//!    (command-line values, files read on the way) in a [`SourceDb`] that
//!    extends [`Dialect::sources`], so many renders share one loaded dialect.
//! 3. **Check** ([`Dialect::check`]) is opening, then rendering every
//!    request the dialect can make on its own (each environment of an
//!    application, each context of a project), without output: the verdict
//!    is whether any diagnostic is an error. [`render_each`] renders a list
//!    of requests and says which one each problem came from.
//!
//! 4. **Navigate**: [`Dialect::outline`] lists what the files define and
//!    name ([`navigate`]), [`Dialect::explain`] says where a value came
//!    from, [`Dialect::schema_of`] and [`Dialect::functions`] describe
//!    what a person may write; the language server is built on these.
//! 5. **Describe** ([`Describe`]): its name, how a file or a folder claims
//!    it, its kinds of symbols; a [`Registry`] of such [`Entry`]s is all a
//!    face (the command line, the language server) knows of dialects
//!    ([`registry`]).
//!
//! What the dialects share lives here or in the core crates, once:
//!
//! - [`Reader`]: read a file through [`Files`], register its text, parse it
//!   and bound it, and hold it to what the caller [`Expect`]s (every
//!   document, exactly one, at most one, one of a `kind`), a wrong count
//!   said with one code ([`codes`]) in the file or at the [`Place`] that
//!   named it: [`Reader::read`] is the one call;
//! - [`map_ordered`]: a loading step over many independent values spread
//!   over the cores, its results in order;
//! - [`resident_bytes`]: the memory a process holds, which is how an
//!   evaluation that cannot be interrupted is bounded (the command line's
//!   `--memory-limit`, the language server's check budget);
//! - [`Outcome`] (from `strata-syntax`): the value and its diagnostics;
//! - `FsError::diagnostic` (from `strata-fs`): every I/O problem as one
//!   diagnostic with one set of codes.
//!
//! ARCHITECTURE.md ("Adding a dialect") says where a new dialect's schema,
//! semantics, fixtures, command-line module and documentation go.

#![forbid(unsafe_code)]

pub mod codes;
pub mod command;
pub mod navigate;
mod parallel;
mod read;
pub mod registry;
mod resident;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub use command::{DocumentFormat, Done, Invocation, OutputFormat, Session, Usage, command_line};
pub use navigate::{
    Category, FunctionDoc, Outline, Reference, Symbol, SymbolKind, describe_value, place,
};
pub use parallel::{WORKER_STACK_BYTES, hand_off, join, map_ordered};
pub use read::{Expect, Listed, Place, Read, Reader, Unparsed, parse_document};
pub use registry::{Describe, Entry, Project, Registry, Target};
pub use resident::{format_size, resident_bytes};
pub use strata_fs::Files;
pub use strata_syntax::{Diagnostic, Limits, Outcome, SourceDb, Span};

/// How to open a dialect: the bounds on every input, the dialect's own
/// settings, a way to stop, and who is told where the work is.
#[derive(Debug, Clone, Default)]
pub struct Options<S> {
    /// Bounds on every file read and every tree built.
    pub limits: Limits,
    /// The dialect's settings.
    pub settings: S,
    /// Asked once the result is no longer wanted (an editor's newer
    /// change): opening, checking and rendering stop at the next step they
    /// can stop at, and what they give is incomplete. Never asked by
    /// default.
    pub cancel: Cancel,
    /// Told when each step that cannot be interrupted (a Jsonnet
    /// evaluation) starts and ends, by the renders of the opened dialect.
    /// Nobody listens by default.
    pub progress: Progress,
    /// Whether the dialect will be reopened after changes (an editor's
    /// checks, [`Dialect::reopen`]): what a reopening can reuse is kept
    /// (a copy of texts and results, paid only by such a caller). A
    /// dialect reopened keeps it whatever this says.
    pub reopening: bool,
}

impl<S> Options<S> {
    /// `settings` within `limits`, never cancelled, nobody listening.
    pub fn new(limits: Limits, settings: S) -> Options<S> {
        Options {
            limits,
            settings,
            cancel: Cancel::default(),
            progress: Progress::default(),
            reopening: false,
        }
    }

    /// These options with other settings, made from these.
    pub fn map_settings<T>(self, settings: impl FnOnce(S) -> T) -> Options<T> {
        Options {
            limits: self.limits,
            settings: settings(self.settings),
            cancel: self.cancel,
            progress: self.progress,
            reopening: self.reopening,
        }
    }

    /// These options, stopped by `cancel`.
    #[must_use]
    pub fn with_cancel(mut self, cancel: Cancel) -> Options<S> {
        self.cancel = cancel;
        self
    }

    /// These options, their steps told to `progress`.
    #[must_use]
    pub fn with_progress(mut self, progress: Progress) -> Options<S> {
        self.progress = progress;
        self
    }

    /// These options for a dialect that will be reopened after changes:
    /// what a reopening can reuse is kept ([`Options::reopening`]).
    #[must_use]
    pub fn for_reopening(mut self) -> Options<S> {
        self.reopening = true;
        self
    }
}

/// A request to stop work whose result is no longer wanted, shared by the
/// one who asks and the work that listens. Work listens between the steps
/// it cannot interrupt (one blueprint checked, one Jsonnet component
/// evaluated, one environment rendered); what a cancelled piece of work
/// gives is incomplete and must be dropped.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A request not asked yet.
    #[must_use]
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every holder to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether stopping has been asked.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Where work is, for whoever must stop it from outside: each step that
/// cannot be interrupted (one Jsonnet evaluation: jrsonnet has no
/// interrupt and no memory bound of its own) says what it is and which
/// file a problem with it belongs to while it runs. The language server
/// evaluates a check in a child process that it stops at a memory or time
/// budget, and reports the stop at the step that was running. Nobody
/// listens by default, and then telling costs nothing.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<Listener>>);

/// Who listens, and the next step's id.
struct Listener {
    next: AtomicU64,
    tell: Box<dyn Fn(&Step<'_>) + Send + Sync>,
}

/// What [`Progress`] tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// A step starts: `what` it is (``component `a` ``) and the `file`
    /// (below the root of the [`Files`] the dialect was opened on) a
    /// problem with it is reported at; `id` names it until it ends.
    Started {
        /// The step's id, unique in its [`Progress`].
        id: u64,
        /// What the step is, for a person.
        what: &'a str,
        /// Where a problem with it is reported.
        file: &'a Path,
    },
    /// The step `id` ended.
    Ended {
        /// The id it started with.
        id: u64,
    },
}

impl Progress {
    /// Progress told to `listener`, from any thread.
    pub fn new(listener: impl Fn(&Step<'_>) + Send + Sync + 'static) -> Progress {
        Progress(Some(Arc::new(Listener {
            next: AtomicU64::new(0),
            tell: Box::new(listener),
        })))
    }

    /// Tells that the step `what`, reported at `file`, starts; it ends when
    /// the returned guard is dropped.
    pub fn step(&self, what: &str, file: &Path) -> Running {
        let Some(listener) = &self.0 else {
            return Running(None);
        };
        let id = listener.next.fetch_add(1, Ordering::Relaxed);
        (listener.tell)(&Step::Started { id, what, file });
        Running(Some((listener.clone(), id)))
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Progress")
            .field("listened", &self.0.is_some())
            .finish()
    }
}

/// A step [`Progress::step`] told of: it ends when dropped.
#[must_use = "the step ends when this is dropped"]
pub struct Running(Option<(Arc<Listener>, u64)>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some((listener, id)) = &self.0 {
            (listener.tell)(&Step::Ended { id: *id });
        }
    }
}

/// What opening a dialect gave: every source read (the diagnostics resolve
/// there) and the outcome.
#[derive(Debug)]
#[must_use = "an opened dialect carries diagnostics that must be reported"]
pub struct Opened<D> {
    /// Every file read while opening, frozen to be shared by renders.
    pub sources: Arc<SourceDb>,
    /// The dialect, as much of it as could be built, and every problem.
    pub outcome: Outcome<D>,
}

impl<D> Opened<D> {
    /// The sources `db` holds, frozen, and `outcome`.
    pub fn new(db: SourceDb, outcome: Outcome<D>) -> Opened<D> {
        Opened {
            sources: Arc::new(db),
            outcome,
        }
    }

    /// Freezes `db` and builds the dialect on the frozen sources, which the
    /// dialect keeps to answer [`Dialect::sources`].
    pub fn freeze(db: SourceDb, build: impl FnOnce(&Arc<SourceDb>) -> Outcome<D>) -> Opened<D> {
        let sources = Arc::new(db);
        let outcome = build(&sources);
        Opened { sources, outcome }
    }
}

/// The shape every dialect has; see the crate docs.
pub trait Dialect: Sized {
    /// The dialect's own settings, carried in [`Options`].
    type Settings: Default;
    /// What one render asks for.
    type Request;
    /// What one render gives.
    type Rendered;

    /// Opens the dialect's files below the root of `files`.
    fn open(files: Arc<dyn Files>, options: Options<Self::Settings>) -> Opened<Self>;

    /// The sources read when opening: a render's database extends them.
    fn sources(&self) -> &Arc<SourceDb>;

    /// Renders one request. `db` resolves [`Dialect::sources`] (it
    /// [extends](SourceDb::extending) them); the render registers there what
    /// its diagnostics point into. The outcome holds a value only when no
    /// diagnostic is an error.
    fn render(&self, request: &Self::Request, db: &mut SourceDb) -> Outcome<Self::Rendered>;

    /// Whether [`Dialect::check`] does more than the default (renders
    /// requests of its own): the language server calls it only then.
    const CHECK_RENDERS: bool = false;

    /// Whether [`Dialect::check`] may run without end: an evaluation in
    /// Jsonnet can, and nothing in a process stops it. The language server
    /// runs such a check in a child process it stops at a budget; a check
    /// bounded by its input (the limits) runs in the server's process. By
    /// default, any check that renders.
    const CHECK_ISOLATED: bool = Self::CHECK_RENDERS;

    /// Renders every request the dialect can make on its own, without
    /// output, and returns their problems; `db` as for
    /// [`Dialect::render`]. Called only on a dialect whose opening found
    /// no error. By default there is no such request: opening checked all
    /// (a platform catalogue checks every blueprint as it opens; a spec
    /// blueprint needs its variables). A dialect
    /// that states one says so in [`Dialect::CHECK_RENDERS`].
    fn check(&self, db: &mut SourceDb) -> Vec<Diagnostic> {
        let _ = db;
        Vec::new()
    }

    /// Opens the dialect again from `files`, as [`Dialect::open`] would,
    /// reusing what opening `self` computed that the inputs still give
    /// (an editor reopens its project after every change). The result is
    /// the same as `open`'s; by default it is `open`.
    fn reopen(&self, files: Arc<dyn Files>, options: Options<Self::Settings>) -> Opened<Self> {
        Self::open(files, options)
    }

    /// What the dialect's files define and name, for an editor
    /// ([`navigate`]); computed from what opening built, problems or not.
    /// `db` extends [`Dialect::sources`]: a file named but not read when
    /// opening (a Jsonnet component) is registered there, so a reference
    /// can point at it.
    fn outline(&self, db: &mut SourceDb) -> Outline {
        let _ = db;
        Outline::default()
    }

    /// What the dialect knows of the value written at `at` beyond its
    /// text, in Markdown: where a composed value came from and what it
    /// overrode. `db` resolves [`Dialect::sources`]. An editor asks it on
    /// every hover, in its own process: it evaluates nothing that could
    /// run without end (no Jsonnet).
    fn explain(&self, db: &SourceDb, at: Span) -> Option<String> {
        let _ = (db, at);
        None
    }

    /// The JSON Schema of the file at `path` (below the root) as a person
    /// writes it, when the dialect reads such a file: what an editor
    /// completes keys and values from.
    #[must_use]
    fn schema_of(path: &Path) -> Option<&'static serde_json::Value> {
        let _ = path;
        None
    }

    /// The functions the dialect's expressions may call.
    #[must_use]
    fn functions() -> Vec<FunctionDoc> {
        Vec::new()
    }
}

/// Renders `dialect` once for each `(what, request)`, and returns every
/// problem, each with the note `in {what}` (say ``in environment `dev` ``)
/// unless `about_the_request` says it is about the request itself (an
/// unknown environment).
pub fn render_each<D: Dialect>(
    dialect: &D,
    requests: impl IntoIterator<Item = (String, D::Request)>,
    db: &mut SourceDb,
    about_the_request: impl Fn(&Diagnostic) -> bool,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for (what, request) in requests {
        let rendered = dialect.render(&request, db);
        problems.extend(rendered.diagnostics.into_iter().map(|diagnostic| {
            if about_the_request(&diagnostic) {
                diagnostic
            } else {
                diagnostic.with_note(format!("in {what}"))
            }
        }));
    }
    problems
}

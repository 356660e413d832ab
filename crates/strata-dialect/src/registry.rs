//! How a dialect describes itself to the faces that serve it (the command
//! line, the language server), and the list those faces iterate.
//!
//! A face never names a dialect's types. It holds a [`Registry`] of
//! [`Entry`]s, each built from a dialect's [`Describe`] with
//! [`Entry::of`], and asks it:
//!
//! - which dialect a file belongs to, and which project: a file may say so
//!   itself ([`Describe::claim`]: a spec blueprint's `version`, a Kure
//!   package's `apiVersion`), else the nearest folder above it holding one
//!   of a dialect's [`Describe::MARKERS`] (`qbec.yaml`) is a project's
//!   root; or the client names the project's root and dialect
//!   ([`Entry::configured`]);
//! - to open that project ([`Entry::open`]) into a [`Project`]: the
//!   dialect behind an object-safe face (check, outline, explain, reopen);
//! - what the dialect's files and expressions are ([`Entry::schema_of`],
//!   [`Entry::functions`], [`Describe::SYMBOL_KINDS`]);
//! - its verbs on the command line ([`Entry::command`], [`Entry::run`]).
//!
//! Adding a dialect to a face is adding its entry to the registry the face
//! is given: the face's own code does not change.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use strata_fs::Files;
use strata_syntax::{Diagnostic, SourceDb, Span};

use crate::command::{Done, Invocation, Usage};
use crate::navigate::{FunctionDoc, Outline, SymbolKind};
use crate::{Dialect, Opened, Options};

/// What a registry opens: the folder a project's files are read below and,
/// for a dialect whose projects are single files (a spec blueprint), the
/// file, relative to that folder.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Target {
    /// The folder the project's files are read below (absolute).
    pub root: PathBuf,
    /// The project's one file, below `root`, when it is a single file.
    pub file: Option<PathBuf>,
}

impl Target {
    /// A project that is the folder `root`.
    #[must_use]
    pub fn folder(root: impl Into<PathBuf>) -> Target {
        Target {
            root: root.into(),
            file: None,
        }
    }

    /// A project that is the file `file` (below `root`).
    #[must_use]
    pub fn file(root: impl Into<PathBuf>, file: impl Into<PathBuf>) -> Target {
        Target {
            root: root.into(),
            file: Some(file.into()),
        }
    }
}

/// What a dialect tells a registry about itself.
pub trait Describe: Dialect {
    /// Its name, as the command line and an editor's settings write it.
    const NAME: &'static str;

    /// Files whose presence in a folder makes the folder a project's root
    /// (`qbec.yaml`): a file below it belongs to the nearest such folder.
    const MARKERS: &'static [&'static str] = &[];

    /// Every kind of symbol its files define.
    const SYMBOL_KINDS: &'static [SymbolKind];

    /// The project the file at `path` (absolute) says it belongs to, by
    /// its name and `text`, whatever lies above it; `None` when it says
    /// nothing.
    #[must_use]
    fn claim(path: &Path, text: &str) -> Option<Target> {
        let _ = (path, text);
        None
    }

    /// The project of the file at `path` below a `root` the user named
    /// as one of this dialect's: the folder, by default.
    #[must_use]
    fn configured(root: &Path, path: &Path) -> Option<Target> {
        let _ = path;
        Some(Target::folder(root))
    }

    /// The settings that open `target`.
    #[must_use]
    fn settings(target: &Target) -> Self::Settings {
        let _ = target;
        Self::Settings::default()
    }

    /// Its verbs on the command line, `strata NAME VERB ...`: a command
    /// named [`Describe::NAME`] (none by default).
    #[must_use]
    fn command() -> clap::Command {
        clap::Command::new(Self::NAME)
    }

    /// Runs the verb `matches` holds (parsed by [`Describe::command`]),
    /// asked for as `invocation`.
    fn run(matches: &clap::ArgMatches, invocation: Invocation) -> Result<Done, Usage> {
        let _ = (matches, invocation);
        Err(Usage(format!("`strata {}` has no verbs", Self::NAME)))
    }
}

/// An opened dialect of any kind, as a face holds it: what
/// [`Dialect`] offers on one opened dialect, object-safe.
pub trait Project: Send + Sync {
    /// [`Dialect::sources`].
    fn sources(&self) -> &Arc<SourceDb>;
    /// [`Dialect::check`].
    fn check(&self, db: &mut SourceDb) -> Vec<Diagnostic>;
    /// [`Dialect::outline`].
    fn outline(&self, db: &mut SourceDb) -> Outline;
    /// [`Dialect::explain`].
    fn explain(&self, db: &SourceDb, at: Span) -> Option<String>;
    /// [`Dialect::reopen`], on the target this project was opened on.
    fn reopen(&self, files: Arc<dyn Files>, options: Options<Target>) -> Opened<Box<dyn Project>>;
}

impl<D: Describe + Send + Sync + 'static> Project for D {
    fn sources(&self) -> &Arc<SourceDb> {
        Dialect::sources(self)
    }

    fn check(&self, db: &mut SourceDb) -> Vec<Diagnostic> {
        Dialect::check(self, db)
    }

    fn outline(&self, db: &mut SourceDb) -> Outline {
        Dialect::outline(self, db)
    }

    fn explain(&self, db: &SourceDb, at: Span) -> Option<String> {
        Dialect::explain(self, db, at)
    }

    fn reopen(&self, files: Arc<dyn Files>, options: Options<Target>) -> Opened<Box<dyn Project>> {
        let options = options.map_settings(|target| D::settings(&target));
        boxed(Dialect::reopen(self, files, options))
    }
}

/// `opened`, its dialect behind the [`Project`] face.
fn boxed<D: Describe + Send + Sync + 'static>(opened: Opened<D>) -> Opened<Box<dyn Project>> {
    Opened {
        sources: opened.sources,
        outcome: opened
            .outcome
            .map(|dialect| Box::new(dialect) as Box<dyn Project>),
    }
}

/// How an [`Entry`] opens a project of its dialect.
type Open = fn(Arc<dyn Files>, Options<Target>) -> Opened<Box<dyn Project>>;

/// One dialect in a [`Registry`]: its description, and its operations
/// with the types erased.
#[derive(Clone, Copy)]
pub struct Entry {
    /// [`Describe::NAME`].
    pub name: &'static str,
    /// [`Describe::MARKERS`].
    pub markers: &'static [&'static str],
    /// [`Describe::SYMBOL_KINDS`].
    pub symbol_kinds: &'static [SymbolKind],
    /// [`Dialect::CHECK_RENDERS`].
    pub check_renders: bool,
    /// [`Dialect::CHECK_ISOLATED`].
    pub check_isolated: bool,
    claim: fn(&Path, &str) -> Option<Target>,
    configured: fn(&Path, &Path) -> Option<Target>,
    open: Open,
    schema_of: fn(&Path) -> Option<&'static serde_json::Value>,
    functions: fn() -> Vec<FunctionDoc>,
    command: fn() -> clap::Command,
    run: fn(&clap::ArgMatches, Invocation) -> Result<Done, Usage>,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Entry")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Entry {
    /// The entry of the dialect `D`.
    #[must_use]
    pub fn of<D: Describe + Send + Sync + 'static>() -> Entry {
        Entry {
            name: D::NAME,
            markers: D::MARKERS,
            symbol_kinds: D::SYMBOL_KINDS,
            check_renders: D::CHECK_RENDERS,
            check_isolated: D::CHECK_ISOLATED,
            claim: D::claim,
            configured: D::configured,
            open: |files, options| {
                let options = options.map_settings(|target| D::settings(&target));
                boxed(D::open(files, options))
            },
            schema_of: D::schema_of,
            functions: D::functions,
            command: D::command,
            run: D::run,
        }
    }

    /// [`Describe::command`].
    #[must_use]
    pub fn command(&self) -> clap::Command {
        (self.command)()
    }

    /// [`Describe::run`].
    pub fn run(&self, matches: &clap::ArgMatches, invocation: Invocation) -> Result<Done, Usage> {
        (self.run)(matches, invocation)
    }

    /// [`Describe::claim`].
    #[must_use]
    pub fn claim(&self, path: &Path, text: &str) -> Option<Target> {
        (self.claim)(path, text)
    }

    /// [`Describe::configured`].
    #[must_use]
    pub fn configured(&self, root: &Path, path: &Path) -> Option<Target> {
        (self.configured)(root, path)
    }

    /// Opens the project `options.settings` names from `files` (rooted at
    /// its root): [`Dialect::open`].
    pub fn open(
        &self,
        files: Arc<dyn Files>,
        options: Options<Target>,
    ) -> Opened<Box<dyn Project>> {
        (self.open)(files, options)
    }

    /// [`Dialect::schema_of`].
    #[must_use]
    pub fn schema_of(&self, path: &Path) -> Option<&'static serde_json::Value> {
        (self.schema_of)(path)
    }

    /// [`Dialect::functions`].
    #[must_use]
    pub fn functions(&self) -> Vec<FunctionDoc> {
        (self.functions)()
    }
}

/// The value of a top-level `key` of `text`, YAML (`key: value`, at the
/// start of a line) or JSON (`"key": "value"`), unquoted: how a file
/// claims a dialect ([`Describe::claim`]) by what it says, before (and
/// whether or not) it parses.
#[must_use]
pub fn top_level_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    // Written once: a file without the key is read to its end, line by line.
    let quoted = format!("\"{key}\"");
    text.lines().find_map(|line| {
        let rest = line
            .strip_prefix(key)
            .or_else(|| line.trim_start().strip_prefix(quoted.as_str()))?;
        let value = rest.trim_start().strip_prefix(':')?.trim();
        let value = value.trim_end_matches(',').trim();
        Some(value.trim_matches(|c| c == '"' || c == '\''))
    })
}

/// The dialects a face serves, in the order it asks them.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    entries: Vec<Entry>,
}

impl Registry {
    /// A registry of `entries`, asked in this order.
    #[must_use]
    pub fn new(entries: Vec<Entry>) -> Registry {
        Registry { entries }
    }

    /// Every entry, in order.
    #[must_use]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The dialect called `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.name == name)
    }

    /// The project the file at `path` (absolute), whose text is `text`,
    /// belongs to, and its dialect: the first dialect the file claims
    /// itself, else the nearest folder above it holding a dialect's marker
    /// (`exists` says whether a file is there, on disk or as an unsaved
    /// buffer; within one folder, dialects are asked in order).
    #[must_use]
    pub fn find(
        &self,
        path: &Path,
        text: &str,
        exists: impl Fn(&Path) -> bool,
    ) -> Option<(&Entry, Target)> {
        if let Some(found) = self
            .entries
            .iter()
            .find_map(|entry| Some((entry, entry.claim(path, text)?)))
        {
            return Some(found);
        }
        path.ancestors().skip(1).find_map(|folder| {
            self.entries.iter().find_map(|entry| {
                entry
                    .markers
                    .iter()
                    .any(|marker| exists(&folder.join(marker)))
                    .then(|| (entry, Target::folder(folder)))
            })
        })
    }
}

//! A package as a [`Dialect`]: opened from its folder (`app.yaml`, or the
//! Application file named in [`Settings::app_file`], `kurel.yaml` when
//! there is one, and `definitions/*.yaml`, `*.yml`), rendered against a
//! cluster profile with the values of the package's parameters
//! ([`crate::params`]).
//!
//! The profile is the request, not part of the package: one package is
//! checked against every cluster it may be deployed to. A request also
//! carries the definitions of `--capability-def` files, which come before
//! the package's own.
//!
//! A file may hold several documents; empty ones are skipped. `app.yaml`
//! must hold exactly one Application and the profile file one
//! `ClusterProfile` (read as [`Expect::OneOfKind`]: a document of another
//! kind is an error naming the kind found, [`codes::WRONG_KIND`]);
//! definition files' documents of other kinds are skipped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_dialect::{Dialect, Expect, Files, Listed, Opened, Options, Place, Read, Reader};
use strata_syntax::{Diagnostic, Format, Node, Outcome, SourceDb};

use crate::application::Dispatch;
use crate::codes;
use crate::definitions::Definitions;
use crate::handlers::Registry;
use crate::params::{PACKAGE_FILE, Supplied};
use crate::profile::{EffectiveProfile, evaluate};

/// The application file of a package.
pub const APP_FILE: &str = "app.yaml";
/// The folder of a package's definitions.
pub const DEFINITIONS_DIR: &str = "definitions";

/// What a caller may set.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The handlers (Kure's built-ins by default; register custom ones).
    pub registry: Registry,
    /// Whether a used custom capability without a definition is an error.
    pub strict_capabilities: bool,
    /// Whether an unknown property of a typed built-in trait is an error.
    pub strict_properties: bool,
    /// The Application file in the package folder ([`APP_FILE`] unless
    /// the command line named another file).
    pub app_file: PathBuf,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            registry: Registry::builtin(),
            strict_capabilities: false,
            strict_properties: false,
            app_file: PathBuf::from(APP_FILE),
        }
    }
}

/// A package, opened.
pub struct Package {
    settings: Settings,
    sources: Arc<SourceDb>,
    /// `app.yaml`, when the package has a folder.
    pub(crate) application: Option<Node>,
    /// `kurel.yaml`, when the folder has one.
    pub(crate) descriptor: Option<Node>,
    /// The documents of `definitions/`, file by file.
    pub(crate) definitions: Vec<Vec<Node>>,
}

/// What to check a package against.
#[derive(Debug, Clone)]
pub struct RenderRequest {
    /// The cluster profile document (spans in the render's database).
    pub profile: Node,
    /// The documents of each `--capability-def` file, in order.
    pub definitions: Vec<Vec<Node>>,
    /// The values of the package's parameters.
    pub supplied: Supplied,
}

/// A package checked against a profile.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The effective profile (defaults applied).
    pub profile: EffectiveProfile,
    /// The effective application (each trait's effective properties), when
    /// the package has one.
    pub application: Option<Node>,
}

impl Package {
    /// No package: only a profile and definitions are checked.
    #[must_use]
    pub fn without_files(settings: Settings) -> Package {
        Package {
            settings,
            sources: Arc::new(SourceDb::new()),
            application: None,
            descriptor: None,
            definitions: Vec::new(),
        }
    }

    /// The definitions `given` (by `--capability-def` files) and the
    /// package's, in that order, with the problems found in them.
    fn definitions(&self, given: &[Vec<Node>]) -> (Definitions, Vec<Diagnostic>) {
        let mut definitions = Definitions::new();
        let mut problems = Vec::new();
        for documents in given.iter().chain(&self.definitions) {
            problems.extend(definitions.add_documents(documents));
        }
        (definitions, problems)
    }

    /// The definitions `--capability-def` documents and the package
    /// declare, for listing.
    pub fn declared(&self, given: &[Vec<Node>]) -> Outcome<Definitions> {
        let (definitions, problems) = self.definitions(given);
        Outcome::new(Some(definitions), problems)
    }

    /// The handlers.
    #[must_use]
    pub fn registry(&self) -> &Registry {
        &self.settings.registry
    }

    /// The Application with its parameters resolved (as written without a
    /// `kurel.yaml`, where values given are an error).
    fn parameters(
        &self,
        application: &Node,
        supplied: &Supplied,
        problems: &mut Vec<Diagnostic>,
    ) -> Option<Node> {
        if let Some(descriptor) = &self.descriptor {
            return crate::params::resolve(application, descriptor, supplied).report(problems);
        }
        if let Some((_, value)) = supplied.values.first() {
            problems.push(Diagnostic::error(
                codes::PARAMETER,
                format!(
                    "values are given, but the package has no `{PACKAGE_FILE}` declaring parameters"
                ),
                value.span,
            ));
            return None;
        }
        Some(application.clone())
    }
}

impl Dialect for Package {
    type Settings = Settings;
    type Request = RenderRequest;
    type Rendered = Rendered;

    /// Reads the Application file (one Application), `kurel.yaml` (one
    /// Package) when there is one, and every definition file.
    fn open(files: Arc<dyn Files>, options: Options<Settings>) -> Opened<Package> {
        let mut db = SourceDb::new();
        let mut problems = Vec::new();
        let mut reader = Reader::new(files.as_ref(), &mut db, options.limits);
        let application = reader
            .read(
                &options.settings.app_file,
                Format::Yaml,
                of_kind("Application"),
                Place::File,
            )
            .report(&mut problems)
            .and_then(Read::into_document);
        let descriptor = reader
            .is_file(Path::new(PACKAGE_FILE))
            .then(|| {
                reader
                    .read(
                        Path::new(PACKAGE_FILE),
                        Format::Yaml,
                        of_kind("Package"),
                        Place::File,
                    )
                    .report(&mut problems)
                    .and_then(Read::into_document)
            })
            .flatten();
        // An Application whose parameters cannot be resolved is not
        // checked: its placeholders would be reported as its problems.
        let descriptor_problems = descriptor
            .as_ref()
            .map(crate::params::check_descriptor)
            .unwrap_or_default();
        let application = application.filter(|_| descriptor_problems.is_empty());
        problems.extend(descriptor_problems);
        let mut definitions = Vec::new();
        let listed = reader
            .list(&["yaml", "yml"], Listed::Folder(Path::new(DEFINITIONS_DIR)))
            .report(&mut problems)
            .unwrap_or_default();
        for path in listed
            .iter()
            .filter(|path| path.parent() == Some(Path::new(DEFINITIONS_DIR)))
        {
            // A definition file that does not parse contributes nothing.
            let read = reader
                .read(path, Format::Yaml, Expect::All, Place::File)
                .valid();
            definitions.extend(read.report(&mut problems).map(|read| read.documents));
        }
        Opened::freeze(db, |sources| {
            let package = Package {
                settings: options.settings,
                sources: sources.clone(),
                application,
                descriptor,
                definitions,
            };
            Outcome::new(Some(package), problems)
        })
    }

    /// The check dispatches the Application (bounded by its size: no
    /// Jsonnet), so it runs in the language server's process.
    const CHECK_RENDERS: bool = true;
    const CHECK_ISOLATED: bool = false;

    fn sources(&self) -> &Arc<SourceDb> {
        &self.sources
    }

    /// Checks what needs no cluster profile, as an editor has none: the
    /// package's definitions, and its Application (its parameters at
    /// their defaults) dispatched without bindings ([`Dispatch::profile`]):
    /// its structure, names, component and trait types, where a `scaler`
    /// goes, and the properties only a profile may set. An Application
    /// whose parameters need values is not checked (its placeholders
    /// would be reported as its problems). Registers nothing in `db`.
    fn check(&self, _db: &mut SourceDb) -> Vec<Diagnostic> {
        let (definitions, mut problems) = self.definitions(&[]);
        let application = self.application.as_ref().and_then(|application| {
            let mut unresolved = Vec::new();
            self.parameters(application, &Supplied::default(), &mut unresolved)
                .filter(|_| !unresolved.iter().any(Diagnostic::is_error))
        });
        if let Some(application) = application {
            let dispatch = Dispatch {
                registry: &self.settings.registry,
                definitions: &definitions,
                profile: None,
                strict_capabilities: self.settings.strict_capabilities,
                strict_properties: self.settings.strict_properties,
            };
            dispatch.application(&application).report(&mut problems);
        }
        problems
    }

    /// Evaluates the profile with the definitions, then dispatches the
    /// application against both. Registers nothing in `db`.
    fn render(&self, request: &RenderRequest, _db: &mut SourceDb) -> Outcome<Rendered> {
        let (definitions, mut problems) = self.definitions(&request.definitions);
        let registry = &self.settings.registry;
        let Some(profile) =
            evaluate(&request.profile, registry, &definitions).report(&mut problems)
        else {
            return Outcome::failed(problems);
        };
        let application = self.application.as_ref().and_then(|application| {
            let application = self.parameters(application, &request.supplied, &mut problems)?;
            let dispatch = Dispatch {
                registry,
                definitions: &definitions,
                profile: Some(&profile),
                strict_capabilities: self.settings.strict_capabilities,
                strict_properties: self.settings.strict_properties,
            };
            dispatch.application(&application).report(&mut problems)
        });
        let rendered = Rendered {
            profile,
            application,
        };
        Outcome::new(Some(rendered), problems).valid()
    }
    fn outline(&self, _db: &mut SourceDb) -> strata_dialect::Outline {
        Package::outline(self)
    }

    fn explain(&self, _db: &SourceDb, at: strata_syntax::Span) -> Option<String> {
        Package::explain(self, at)
    }

    fn schema_of(path: &Path) -> Option<&'static serde_json::Value> {
        crate::navigate::schema_of(path)
    }
}

/// How a file that must hold one document of `kind` is read: exactly one
/// of `kind` among documents of any kind, a document of another kind
/// reported with this dialect's code ([`codes::WRONG_KIND`]).
pub(crate) fn of_kind(kind: &str) -> Expect<'_> {
    Expect::OneOfKind {
        kind,
        wrong: codes::WRONG_KIND,
    }
}

impl strata_dialect::Describe for Package {
    const NAME: &'static str = "capabilities";
    const SYMBOL_KINDS: &'static [strata_dialect::SymbolKind] = crate::navigate::SYMBOL_KINDS;

    fn command() -> clap::Command {
        crate::cli::command()
    }

    fn run(
        matches: &clap::ArgMatches,
        invocation: strata_dialect::Invocation,
    ) -> Result<strata_dialect::Done, strata_dialect::Usage> {
        crate::cli::run(matches, invocation)
    }

    /// A launcher document (`apiVersion: launcher.gokure.dev/…`) claims
    /// its package by where it lies, whatever its `kind` (a misspelt kind
    /// is the package's error to report): `app.yaml` is the package's,
    /// a file in `definitions/` the package's above.
    fn claim(path: &Path, text: &str) -> Option<strata_dialect::Target> {
        let api = strata_dialect::registry::top_level_value(text, "apiVersion")?;
        if !api.starts_with("launcher.gokure.dev/") {
            return None;
        }
        let folder = path.parent()?;
        let root = if path.file_name().is_some_and(|name| name == APP_FILE) {
            folder
        } else if folder
            .file_name()
            .is_some_and(|name| name == DEFINITIONS_DIR)
        {
            folder.parent()?
        } else {
            return None;
        };
        Some(strata_dialect::Target::folder(root))
    }
}

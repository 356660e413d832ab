//! The `spec` dialect: blueprints of the Blueprint Specification
//! v2023-04-20 (the Celerity/Bluelink blueprint framework), everything that
//! can be known about one before any provider is asked anything.
//!
//! - `schema`: the file's structure as plain serde types (no spans),
//!   whose JSON Schema checks every file
//!   (unknown keys with a did-you-mean, types, required fields) and is what
//!   `strata spec schema` prints ([`blueprint_schema`]).
//! - `placement`: where `${..}` may not stand, each place its own code.
//! - [`model`]: the typed, spanned [`Blueprint`]; every field that may hold
//!   substitutions is a [`model::Tree`] of parsed templates.
//! - `validate`: references, types, `each`, conditions, filters and cycles;
//!   the [`References`] graph.
//! - `load`: reading a file (YAML, JSON by extension, `-` for standard
//!   input as YAML; anchors, aliases and tags refused) through every phase.
//! - `variables`: the values a user gives, checked ([`resolve_variables`]).
//! - `environment`: the [`Environment`] substitutions are evaluated in.
//! - `resolve`: the resolved blueprint ([`ResolvedBlueprint`]): children,
//!   values, `each` and `condition`, every known field substituted, exports;
//!   secrets masked in output.
//! - `text`: one `${..}` text evaluated in a blueprint's terms or none
//!   ([`Spec::evaluate`], [`evaluate_text`]: `strata spec eval`).
//! - [`deploy`]: deployment staging, apart from loading and resolution:
//!   the links and deployment order ([`deploy::Graph`]) and the changes
//!   from a previous deployment's state ([`deploy::Plan`]), with the
//!   providers that decide links and replacements.
//!
//! [`Spec`] is the dialect: opened on one blueprint file, rendered with the
//! user's variable values and data source fields ([`RenderRequest`]) into
//! the resolved blueprint. The diagnostic codes are listed in [`codes`];
//! problems inside substitutions have `strata-subst`'s `subst/*` codes.

#![forbid(unsafe_code)]

mod cli;
pub mod codes;
pub mod deploy;
mod environment;
mod load;
mod mirror;
pub mod model;
mod navigate;
mod placement;
mod resolve;
mod schema;
mod secrets;
mod text;
mod validate;
mod variables;

use std::path::PathBuf;
use std::sync::Arc;

use deploy::{Graph, LinkProvider, Plan, ResourceProvider, State, graph, plan};
use strata_dialect::Reader;
use strata_subst::Steps;
use strata_syntax::SourceDb;

pub use environment::{Environment, evaluate_tree};
pub use load::{Loaded, check};
pub use mirror::MirrorSource;
pub use model::Blueprint;
pub use resolve::{
    ChildSource, DatasourceProvider, Deployed, KNOWN_AFTER_DEPLOY, MASK, RenderRequest,
    ResolvedBlueprint, ResolvedResource,
};
pub use strata_dialect::{Dialect, Files, Opened, Options, Outcome};
pub use text::{Evaluated, evaluate_text};
pub use validate::{Element, References};
pub use variables::{
    Given, GivenValue, Inputs, Origin, Resolved, Unset, resolve as resolve_variables,
};

/// The JSON Schema of a blueprint file.
#[must_use]
pub fn blueprint_schema() -> &'static serde_json::Value {
    load::DECODER.schema()
}

/// Which file to open.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The blueprint, relative to the files' root (`-`: standard input,
    /// where the files can read it).
    pub path: PathBuf,
    /// The absolute folder the files are rooted at: an include written as
    /// an absolute path (`${cwd()}/…`) is read when it lies below it.
    pub root: Option<PathBuf>,
}

/// The version of the specification this dialect reads.
pub const VERSION: &str = "2023-04-20";

/// A blueprint file, opened and checked.
pub struct Spec {
    sources: Arc<SourceDb>,
    loaded: Option<Loaded>,
    files: Arc<dyn Files>,
    options: Options<Settings>,
}

impl Spec {
    /// Reads the blueprint (parsing only what changed since `before`, when
    /// it is given) and checks everything that needs no variable value.
    fn open_after(
        files: Arc<dyn Files>,
        options: Options<Settings>,
        before: Option<load::Parsed<'_>>,
    ) -> Opened<Spec> {
        let mut db = SourceDb::new();
        let outcome = load::read(
            &mut Reader::new(files.as_ref(), &mut db, options.limits),
            &options.settings.path,
            before,
        );
        let mut problems = Vec::new();
        let loaded = outcome.report(&mut problems);
        Opened::freeze(db, |sources| {
            Outcome::new(
                Some(Spec {
                    sources: sources.clone(),
                    loaded,
                    files,
                    options,
                }),
                problems,
            )
        })
    }

    /// The blueprint, its references and its tree, when the file could be
    /// read and parsed (even with problems in it).
    #[must_use]
    pub fn loaded(&self) -> Option<&Loaded> {
        self.loaded.as_ref()
    }

    /// Evaluates the `${..}` `text` in this blueprint's terms, with the
    /// variables `inputs` gives ([`evaluate_text`]); the text is
    /// registered in `db`.
    pub fn evaluate(&self, text: &str, inputs: &Inputs, db: &mut SourceDb) -> Outcome<Evaluated> {
        evaluate_text(
            self.loaded().map(|loaded| &loaded.blueprint),
            text,
            inputs,
            db,
        )
    }

    /// The links and deployment order of `resolved` (a render of this
    /// blueprint), with links decided by `providers` ([`graph`]).
    pub fn graph(
        &self,
        resolved: &ResolvedBlueprint,
        providers: &[Arc<dyn LinkProvider>],
    ) -> Outcome<Graph> {
        match &self.loaded {
            Some(loaded) => graph(loaded, resolved, providers),
            None => Outcome::failed(Vec::new()),
        }
    }

    /// The render and graph a [`deploy::Deployer`] asks for between
    /// groups ([`deploy::Render`]): `request` with what is `deployed`, its
    /// links decided by `providers`; why not, as a message.
    ///
    /// # Errors
    /// The blueprint no longer resolves with the states deployed, or its
    /// links cannot be drawn.
    pub fn render_deployed(
        &self,
        request: &RenderRequest,
        deployed: &Deployed,
        providers: &[Arc<dyn LinkProvider>],
    ) -> Result<(ResolvedBlueprint, Graph), String> {
        let request = RenderRequest {
            deployed: deployed.clone(),
            ..request.clone()
        };
        let mut db = SourceDb::extending(self.sources().clone());
        let resolved = self
            .render(&request, &mut db)
            .value
            .ok_or("the blueprint no longer resolves with the states deployed")?;
        let graph = self
            .graph(&resolved, providers)
            .value
            .ok_or("the blueprint's links cannot be drawn")?;
        Ok((resolved, graph))
    }
}

impl Graph {
    /// The changes from `state` (none: a first deployment) to `resolved`,
    /// the render this graph was drawn from ([`plan`]).
    pub fn plan(
        &self,
        resolved: &ResolvedBlueprint,
        state: Option<&State>,
        providers: &[Arc<dyn ResourceProvider>],
    ) -> Outcome<Plan> {
        plan(resolved, self, state, providers)
    }
}

impl Dialect for Spec {
    type Settings = Settings;
    type Request = RenderRequest;
    type Rendered = ResolvedBlueprint;

    /// Reads the blueprint and checks everything that needs no variable
    /// value.
    fn open(files: Arc<dyn Files>, options: Options<Settings>) -> Opened<Spec> {
        Spec::open_after(files, options, None)
    }

    /// As `open`, parsing again only the entries an edit touched when
    /// the file parsed cleanly before, with the same limits
    /// ([`load::Parsed`]); the rest is checked in full.
    fn reopen(&self, files: Arc<dyn Files>, options: Options<Settings>) -> Opened<Spec> {
        let before = self
            .loaded
            .as_ref()
            .filter(|loaded| {
                loaded.parsed_cleanly
                    && self.options.settings.path == options.settings.path
                    && self.options.limits == options.limits
            })
            .map(|loaded| load::Parsed {
                text: self.sources.get(loaded.tree.span.source).text(),
                loaded,
            });
        Spec::open_after(files, options, before)
    }

    fn sources(&self) -> &Arc<SourceDb> {
        &self.sources
    }

    /// Resolves the blueprint with the request's values: its children
    /// (read into `db`), values, resources and exports; every problem, and
    /// no value when one is an error.
    fn render(&self, request: &RenderRequest, db: &mut SourceDb) -> Outcome<ResolvedBlueprint> {
        let Some(loaded) = &self.loaded else {
            return Outcome::failed(Vec::new());
        };
        let path = &self.options.settings.path;
        let steps = strata_subst::Steps::new(request.max_steps.unwrap_or(Steps::DEFAULT_LIMIT));
        let mut resolver = resolve::Resolver {
            files: self.files.as_ref(),
            db,
            limits: self.options.limits,
            request,
            root: self.options.settings.root.clone(),
            steps: &steps,
            children: resolve::Children::default(),
        };
        resolver.resolve(loaded, path)
    }
    fn outline(&self, _db: &mut SourceDb) -> strata_dialect::Outline {
        self.loaded
            .as_ref()
            .map(navigate::outline)
            .unwrap_or_default()
    }

    fn explain(&self, _db: &SourceDb, at: strata_syntax::Span) -> Option<String> {
        navigate::explain(self.loaded.as_ref()?, at)
    }

    /// Every blueprint file: the spec reads one, named by its settings.
    fn schema_of(_path: &std::path::Path) -> Option<&'static serde_json::Value> {
        Some(blueprint_schema())
    }

    fn functions() -> Vec<strata_dialect::FunctionDoc> {
        navigate::functions()
    }
}

impl strata_dialect::Describe for Spec {
    const NAME: &'static str = "spec";
    const SYMBOL_KINDS: &'static [strata_dialect::SymbolKind] = navigate::SYMBOL_KINDS;

    fn command() -> clap::Command {
        cli::command()
    }

    fn run(
        matches: &clap::ArgMatches,
        invocation: strata_dialect::Invocation,
    ) -> Result<strata_dialect::Done, strata_dialect::Usage> {
        cli::run(matches, invocation)
    }

    /// A file whose top level says `version: 2023-04-20` is a blueprint of
    /// its own, read with its folder as the root its includes are read
    /// below.
    fn claim(path: &std::path::Path, text: &str) -> Option<strata_dialect::Target> {
        (strata_dialect::registry::top_level_value(text, "version") == Some(VERSION))
            .then(|| {
                Some(strata_dialect::Target::file(
                    path.parent()?,
                    path.file_name()?,
                ))
            })
            .flatten()
    }

    /// Below a root named as the spec's, each file is a blueprint of its
    /// own, read with that root as the folder its includes are read below.
    fn configured(
        root: &std::path::Path,
        path: &std::path::Path,
    ) -> Option<strata_dialect::Target> {
        Some(strata_dialect::Target::file(
            root,
            path.strip_prefix(root).ok()?,
        ))
    }

    fn settings(target: &strata_dialect::Target) -> Settings {
        Settings {
            path: target.file.clone().unwrap_or_default(),
            root: Some(target.root.clone()),
        }
    }
}

//! Resolution: a checked blueprint and the user's values taken to the
//! resolved blueprint (`strata spec render`).
//!
//! - Variables: defaults, then `--vars`, then `--var`
//!   ([`crate::variables`]). Data sources: the fields a `--datasources`
//!   file gives (by the export's key, typed by the export), else those a
//!   [`DatasourceProvider`] of the request answers (the filter's search
//!   evaluated; the provider's field named by `aliasFor`), else known
//!   after deployment.
//! - Children (`include`) in the order their references ask
//!   (`children.a.x` in `include.b.variables` resolves `a` first): the path
//!   is evaluated (`${cwd()}` is the working directory), read relative to
//!   the including blueprint's folder (an absolute path below the root as
//!   is), confined to the root the files were opened on; an include whose
//!   `metadata.sourceType` names a remote source goes through a
//!   [`ChildSource`] and is an error without one; an include cycle is an
//!   error printing the chain. Each child is checked and resolved with its
//!   `variables`, and its exports are what `children.<name>` reads.
//! - Values in dependency order, each read as its declared type and
//!   checked against it.
//! - Resources: `each` expands a resource into `<name>_<index>` instances
//!   with `elem` and `i` bound (an empty array gives none; an `each` that
//!   waits on deployment keeps the resource, marked); `condition` leaves a
//!   resource out when false and marks it conditional when it waits on
//!   deployment.
//! - Every field that can be known is substituted; what cannot is kept as
//!   [`Value::Unknown`], written `!known-after-deploy {waitsOn: REF}` (with
//!   the declared `type` where there is one), never guessed.
//! - Exports are evaluated and checked against their type.
//! - Secrets: a secret variable or value, and every field that reads one
//!   (through values, other resources' spec and metadata fields, an
//!   `each` whose `elem` it is, a child's export), is written `********`
//!   unless asked otherwise; a child variable fed by a secret is secret in
//!   the child.
//!
//! The `Resolver` and the resolved types are here; each element's
//! resolution is a module of its own (`includes`, `datasources`, `values`,
//! `resources`, `exports`), beside `trees` (evaluating one field) and
//! `output` (the resolved blueprint as a document).

mod datasources;
mod exports;
mod includes;
mod output;
mod resources;
mod trees;
mod values;

use datasources::datasource_values;
use includes::{child_order, exports_seen_from_parent};

use std::collections::BTreeMap;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use strata_dialect::Files;
use strata_subst::{Steps, Types, Value};
use strata_syntax::{Diagnostic, FieldPath, Limits, Node, Outcome, SourceDb, Span};

use crate::environment::Environment;
use crate::load::Loaded;
use crate::secrets::secret_elements;
use crate::validate::Element;
use crate::variables::{Inputs, Resolved, Unset, resolve as resolve_variables};

/// What a masked secret is written as.
pub const MASK: &str = "********";

/// The tag of a value known only after deployment.
pub const KNOWN_AFTER_DEPLOY: &str = "!known-after-deploy";

/// Fetches a child blueprint from a remote source (`metadata.sourceType`
/// of an include): a library user implements it for object stores,
/// registries and the like.
pub trait ChildSource: Send + Sync {
    /// The child's name (for diagnostics) and text, for the include named
    /// `include` whose evaluated `path` and `metadata` are given; an error
    /// message when it cannot be fetched.
    fn fetch(
        &self,
        include: &str,
        path: &str,
        metadata: &Value,
    ) -> Result<(String, String), String>;
}

/// Answers data sources of the types it handles, as a provider of the
/// reference implementation does: the external resource selected by the
/// filter, as a mapping of the provider's field names (an export's
/// `aliasFor`, else its key) to values.
pub trait DatasourceProvider: Send + Sync {
    /// Whether this provider answers data sources of `datasource_type`.
    fn handles(&self, datasource_type: &str) -> bool;

    /// The fields of the resource that `field operator search` selects, or
    /// why there is none.
    fn fetch(
        &self,
        datasource_type: &str,
        field: &str,
        operator: &str,
        search: &Value,
    ) -> Result<IndexMap<String, Value>, String>;
}

/// What one render asks for.
#[derive(Clone, Default)]
pub struct RenderRequest {
    /// The variable values given.
    pub inputs: Inputs,
    /// The `--datasources` document: data source name to export key to value.
    pub datasources: Option<Node>,
    /// The working directory, for `cwd()` and `${cwd()}/…` include paths.
    pub cwd: PathBuf,
    /// The current time, for `datetime()`.
    pub now_unix: i64,
    /// Remote includes' source.
    pub child_source: Option<Arc<dyn ChildSource>>,
    /// The providers that answer data sources (the `--datasources` values
    /// come first).
    pub datasource_providers: Vec<Arc<dyn DatasourceProvider>>,
    /// The most evaluation steps the render may take
    /// ([`strata_subst::Steps`]; `None`: its default limit).
    pub max_steps: Option<u64>,
    /// What is deployed so far: a deployer renders again between groups,
    /// so that `${resources.x.state.f}` reads what `x`'s provider reported
    /// and `${link(a, b)}` the link's fields. Empty: all of it is known only
    /// after deployment.
    pub deployed: Deployed,
}

impl std::fmt::Debug for RenderRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderRequest")
            .field("inputs", &self.inputs)
            .field("datasources", &self.datasources.is_some())
            .field("cwd", &self.cwd)
            .field("child_source", &self.child_source.is_some())
            .field("datasource_providers", &self.datasource_providers.len())
            .field("max_steps", &self.max_steps)
            .field("deployed", &self.deployed.states.len())
            .finish_non_exhaustive()
    }
}

/// What a deployment recorded, as a render reads it. Resources are named
/// by address: a resource's name, an `each` instance as `<name>_<index>`,
/// a resource of include `c` as `children.c.<name>`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Deployed {
    /// The state fields its provider reported, by resource.
    pub states: BTreeMap<String, serde_json::Value>,
    /// The links whose two resources are deployed, by (from, to): the
    /// fields their link provider gave (an empty mapping for none), what
    /// `${link(from, to)}` reads.
    pub links: BTreeMap<(String, String), serde_json::Value>,
}

impl Deployed {
    /// What is deployed of the blueprint at address prefix `within`
    /// (`children.c.`), named relative to it.
    #[must_use]
    pub fn within(&self, within: &str) -> Deployed {
        let inner = |address: &str| address.strip_prefix(within).map(str::to_owned);
        Deployed {
            states: self
                .states
                .iter()
                .filter_map(|(address, state)| Some((inner(address)?, state.clone())))
                .collect(),
            links: self
                .links
                .iter()
                .filter_map(|((from, to), fields)| {
                    Some(((inner(from)?, inner(to)?), fields.clone()))
                })
                .collect(),
        }
    }
}

/// One resolved resource (or one instance of an `each` resource).
#[derive(Debug, Clone)]
pub struct ResolvedResource {
    /// The resource's name in the blueprint.
    pub template: String,
    /// The instance's position, for an `each` resource.
    pub index: Option<usize>,
    /// The resource type.
    pub resource_type: String,
    /// `displayName`, `labels`, `annotations`, `custom`.
    pub metadata: Value,
    /// `linkSelector.byLabel`.
    pub link_selector: IndexMap<String, String>,
    /// The spec, with unknown parts where deployment decides.
    pub spec: Value,
    /// What a condition or an `each` waits on, when it is not known yet.
    pub pending: Option<String>,
    /// The spec fields that read a secret (masked in output).
    pub secret_fields: Vec<FieldPath>,
    /// The metadata fields that read a secret (masked in output).
    pub secret_metadata: Vec<FieldPath>,
    /// Where the spec is written, for problems found in it later.
    pub spec_span: Span,
}

/// A resolved blueprint.
#[derive(Debug, Clone, Default)]
pub struct ResolvedBlueprint {
    /// Every variable's value.
    pub variables: IndexMap<String, Resolved>,
    /// Every value's value.
    pub values: IndexMap<String, Value>,
    /// The data sources' fields, where known.
    pub datasources: IndexMap<String, IndexMap<String, Value>>,
    /// The resources, instances of `each` resources named `<name>_<index>`.
    pub resources: IndexMap<String, ResolvedResource>,
    /// The children, by include name.
    pub children: IndexMap<String, ResolvedBlueprint>,
    /// The blueprint as loaded, for a child (the order of its resources
    /// is drawn from its references); the top one's is its `Spec`'s.
    pub(crate) loaded: Option<Arc<Loaded>>,
    /// The exports.
    pub exports: IndexMap<String, Value>,
    /// The values and exports that read a secret.
    pub secret: HashSet<Element>,
    /// Declared types of values and exports, for unknown markers.
    pub declared: IndexMap<Element, Types>,
}

/// The most blueprints one render includes, counting a file included
/// again each time: a chain where each file includes the next twice
/// doubles at each step.
pub(crate) const MAX_INCLUDES: usize = 1_000;

/// The children one render resolved: each file once per distinct
/// variables given (an include chain that includes each file twice
/// resolves each once, not 2ⁿ times), and how many includes it made.
#[derive(Default)]
pub(crate) struct Children {
    /// Each child file resolved with given variables.
    resolved: Vec<ResolvedChild>,
    /// The includes made so far.
    included: usize,
    /// The address prefix of the blueprint being resolved: empty for the
    /// top one, `children.c.` inside include `c` (as
    /// [`RenderRequest::deployed`] names resources).
    within: String,
}

/// A child file resolved with the variables it was given (name, value,
/// whether secret), and what came of it.
struct ResolvedChild {
    path: PathBuf,
    given: Vec<(String, Value, bool)>,
    deployed: Deployed,
    child: Option<ResolvedBlueprint>,
}

/// Resolves a loaded blueprint.
pub(crate) struct Resolver<'a> {
    pub(crate) files: &'a dyn Files,
    pub(crate) db: &'a mut SourceDb,
    pub(crate) limits: Limits,
    pub(crate) request: &'a RenderRequest,
    /// The absolute folder the files are rooted at, for absolute include
    /// paths.
    pub(crate) root: Option<PathBuf>,
    /// The render's evaluation budget.
    pub(crate) steps: &'a Steps,
    /// The children resolved so far.
    pub(crate) children: Children,
}

impl Resolver<'_> {
    /// Resolves the opened blueprint at `path` with the request's values.
    /// Once the evaluation budget runs out, the first field that met it is
    /// reported and nothing after it is evaluated.
    pub(crate) fn resolve(&mut self, loaded: &Loaded, path: &Path) -> Outcome<ResolvedBlueprint> {
        let request = self.request;
        let mut outcome = self.blueprint(
            loaded,
            path,
            &request.inputs,
            request.datasources.as_ref(),
            &mut vec![path.to_path_buf()],
        );
        let mut seen = false;
        outcome.diagnostics.retain(|diagnostic| {
            let step_limit = matches!(diagnostic.code, strata_subst::codes::STEP_LIMIT);
            let again = seen && step_limit;
            seen |= step_limit;
            !again
        });
        outcome
    }

    /// Resolves the blueprint at `path` (already loaded) with `inputs` and
    /// the states deployed of its resources; `chain` holds the including
    /// files, for cycles.
    fn blueprint(
        &mut self,
        loaded: &Loaded,
        path: &Path,
        inputs: &Inputs,
        datasources: Option<&Node>,
        chain: &mut Vec<PathBuf>,
    ) -> Outcome<ResolvedBlueprint> {
        let blueprint = &loaded.blueprint;
        let mut problems = Vec::new();
        // A child's variables are given by the include, not the command line.
        let unset = if chain.len() > 1 {
            Unset::Include
        } else {
            Unset::CommandLine
        };
        let Some(variables) = resolve_variables(blueprint, inputs, unset).report(&mut problems)
        else {
            return Outcome::failed(problems);
        };
        if problems.iter().any(Diagnostic::is_error) {
            return Outcome::failed(problems);
        }
        let secret_variables: Vec<&str> = variables
            .iter()
            .filter(|(_, resolved)| resolved.secret)
            .map(|(name, _)| name.as_str())
            .collect();
        let mut datasource_values = datasources
            .map(|document| datasource_values(blueprint, document, &mut problems))
            .unwrap_or_default();
        let cwd = self.request.cwd.display().to_string();
        self.fetch_datasources(
            blueprint,
            &variables,
            &secret_elements(blueprint, &secret_variables, &HashSet::new()),
            &cwd,
            &mut datasource_values,
            &mut problems,
        );
        let plain: IndexMap<String, Value> = variables
            .iter()
            .map(|(name, resolved)| (name.clone(), resolved.value.clone()))
            .collect();
        let mut resolved = ResolvedBlueprint {
            datasources: datasource_values.clone(),
            ..ResolvedBlueprint::default()
        };
        // The children's exports that read a secret, as they are resolved.
        let mut secret_exports = HashSet::new();
        // Children first, in the order their references ask.
        let mut exports_of_children = IndexMap::new();
        for name in child_order(loaded) {
            let secrets = secret_elements(blueprint, &secret_variables, &secret_exports);
            let include = &blueprint.include[&name];
            let env = Environment::new(
                Some(blueprint),
                plain.clone(),
                cwd.clone(),
                self.request.now_unix,
                self.steps,
            )
            .with_datasources(datasource_values.clone())
            .with_children(exports_of_children.clone())
            .with_secrets(secrets.clone());
            let Some(child) = self
                .child(&name, include, path, &env, &secrets, chain)
                .report(&mut problems)
            else {
                continue;
            };
            exports_of_children.insert(name.clone(), exports_seen_from_parent(&name, &child));
            for export in child.exports.keys() {
                if child.secret.contains(&Element::Export(export.clone())) {
                    secret_exports.insert((name.clone(), export.clone()));
                }
            }
            resolved.children.insert(name, child);
        }
        let secrets = secret_elements(blueprint, &secret_variables, &secret_exports);
        let env = Environment::new(
            Some(blueprint),
            plain,
            cwd,
            self.request.now_unix,
            self.steps,
        )
        .with_datasources(datasource_values)
        .with_children(exports_of_children)
        .with_secrets(secrets.clone())
        .with_deployed(&self.request.deployed.within(&self.children.within));
        self.values(blueprint, &env, &secrets, &mut resolved, &mut problems);
        self.resources(blueprint, &env, &secrets, &mut resolved, &mut problems);
        self.exports(blueprint, &env, &secrets, &mut resolved, &mut problems);
        resolved.variables = variables;
        Outcome::new(Some(resolved), problems).valid()
    }
}

impl ResolvedBlueprint {
    /// How many blueprints it includes, its children's includes counted.
    #[must_use]
    pub fn includes(&self) -> usize {
        self.children
            .values()
            .map(|child| 1 + child.includes())
            .sum()
    }
}

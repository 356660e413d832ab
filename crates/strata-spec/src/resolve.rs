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

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use strata_dialect::{Files, Reader};
use strata_subst::{
    Env, Failure, Reference, Steps, SubstError, Types, Value, evaluate, evaluate_expr,
};
use strata_syntax::{
    Diagnostic, FieldPath, Limits, Mapping, Node, Outcome, Segment, SourceDb, Span, Tag,
};

use crate::codes;
use crate::environment::{Environment, Instance, as_declared};
use crate::load::{self, Loaded};
use crate::model::{Blueprint, Condition, Tree};
use crate::secrets::{Secrets, secret_elements};
use crate::validate::Element;
use crate::variables::{
    Given, GivenValue, Inputs, Origin, Resolved, Unset, resolve as resolve_variables,
};

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
            .finish_non_exhaustive()
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
    /// The exports.
    pub exports: IndexMap<String, Value>,
    /// The names of values and exports that read a secret.
    pub secret: HashSet<String>,
    /// Declared types of values and exports, for unknown markers.
    pub declared: IndexMap<String, Types>,
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
}

/// A child file resolved with the variables it was given (name, value,
/// whether secret), and what came of it.
struct ResolvedChild {
    path: PathBuf,
    given: Vec<(String, Value, bool)>,
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

    /// Resolves the blueprint at `path` (already loaded) with `inputs`;
    /// `chain` holds the including files, for cycles.
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
                if child.secret.contains(&format!("exports.{export}")) {
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
        .with_secrets(secrets.clone());
        self.values(blueprint, &env, &secrets, &mut resolved, &mut problems);
        self.resources(blueprint, &env, &secrets, &mut resolved, &mut problems);
        self.exports(blueprint, &env, &secrets, &mut resolved, &mut problems);
        resolved.variables = variables;
        Outcome::new(Some(resolved), problems).valid()
    }

    /// The data sources the `--datasources` values left out, from the
    /// request's providers, in the order written (each sees those before).
    fn fetch_datasources(
        &self,
        blueprint: &Blueprint,
        variables: &IndexMap<String, Resolved>,
        secrets: &Secrets,
        cwd: &str,
        found: &mut IndexMap<String, IndexMap<String, Value>>,
        problems: &mut Vec<Diagnostic>,
    ) {
        let plain: IndexMap<String, Value> = variables
            .iter()
            .map(|(name, resolved)| (name.clone(), resolved.value.clone()))
            .collect();
        for (name, datasource) in &blueprint.datasources {
            let (Some(filter), false) = (&datasource.filter, found.contains_key(name)) else {
                continue;
            };
            let Some(provider) = self
                .request
                .datasource_providers
                .iter()
                .find(|provider| provider.handles(&datasource.datasource_type.value))
            else {
                continue;
            };
            let env = Environment::new(
                Some(blueprint),
                plain.clone(),
                cwd.to_owned(),
                self.request.now_unix,
                self.steps,
            )
            .with_datasources(found.clone())
            .with_secrets(secrets.clone());
            let path = FieldPath::root().key("datasources").key(name);
            let search = resolve_tree(
                &filter.search,
                &env,
                self.db,
                &path.key("filter").key("search"),
                problems,
            );
            if search.unknown().is_some() {
                continue;
            }
            let operator = serde_json::to_value(filter.operator.value)
                .ok()
                .and_then(|json| json.as_str().map(str::to_owned))
                .unwrap_or_default();
            match provider.fetch(
                &datasource.datasource_type.value,
                &filter.field.value,
                &operator,
                &search,
            ) {
                Ok(fields) => {
                    let mut values = IndexMap::new();
                    for (key, export) in &datasource.exports {
                        let field = export
                            .alias_for
                            .as_ref()
                            .map_or(key.as_str(), |alias| alias.value.as_str());
                        match fields.get(field) {
                            Some(value) if value_fits(export.field_type.value, value) => {
                                values.insert(key.clone(), as_declared(value.clone(), export.field_type.value));
                            }
                            Some(value) => problems.push(
                                Diagnostic::error(
                                    codes::DATASOURCE_INPUT,
                                    format!("the provider gives `{name}.{field}` as {}, the export's type is {}", value.types(), export.field_type.value),
                                    export.name_span,
                                )
                                .with_path(path.key("exports").key(key)),
                            ),
                            None => problems.push(
                                Diagnostic::error(
                                    codes::DATASOURCE_INPUT,
                                    format!("the provider's answer for `{name}` has no field `{field}`"),
                                    export.name_span,
                                )
                                .with_path(path.key("exports").key(key)),
                            ),
                        }
                    }
                    found.insert(name.clone(), values);
                }
                Err(message) => problems.push(
                    Diagnostic::error(
                        codes::DATASOURCE_INPUT,
                        format!(
                            "the provider of `{}` finds nothing for `{name}`: {message}",
                            datasource.datasource_type.value
                        ),
                        datasource.name_span,
                    )
                    .with_path(path.key("filter")),
                ),
            }
        }
    }

    /// A remote include, through the request's [`ChildSource`].
    fn fetch(
        &mut self,
        name: &str,
        include: &crate::model::Include,
        kind: &str,
        written: &str,
        metadata: &Value,
    ) -> Outcome<(PathBuf, Loaded)> {
        let base = FieldPath::root().key("include").key(name);
        let Some(source) = &self.request.child_source else {
            // At the `sourceType` its path names.
            let at = include
                .metadata
                .as_ref()
                .and_then(|metadata| metadata.get("sourceType"))
                .map_or(include.name_span, Tree::span);
            return Outcome::error(
                Diagnostic::error(
                    codes::INCLUDE,
                    format!("include `{name}` comes from a remote source (`{kind}`), and no source of remote blueprints is configured"),
                    at,
                )
                .with_help("a library user supplies one (`strata_spec::ChildSource`); the command line reads local files only")
                .with_path(base.key("metadata").key("sourceType")),
            );
        };
        match source.fetch(name, written, metadata) {
            Ok((display, text)) => {
                let path = PathBuf::from(format!("{kind}:{display}"));
                let mut reader = Reader::new(self.files, self.db, self.limits);
                load::read_fetched(&mut reader, &path, &text).map(|loaded| (path, loaded))
            }
            Err(message) => Outcome::error(
                Diagnostic::error(
                    codes::INCLUDE,
                    format!("include `{name}` cannot be fetched: {message}"),
                    include.name_span,
                )
                .with_path(base),
            ),
        }
    }

    /// A local include, below the root, not already in `chain`.
    fn read_local(
        &mut self,
        name: &str,
        include: &crate::model::Include,
        parent: &Path,
        written: &str,
        chain: &[PathBuf],
    ) -> Outcome<(PathBuf, Loaded)> {
        let at = FieldPath::root().key("include").key(name).key("path");
        let Some(path) = local_path(self.root.as_deref(), parent, written) else {
            return Outcome::error(
                Diagnostic::error(
                    strata_fs::codes::OUTSIDE_ROOT,
                    format!("the path `{written}` of include `{name}` lies outside the root the blueprint was opened in"),
                    include.path.span(),
                )
                .with_help("give `--root` a folder that holds both blueprints")
                .with_path(at),
            );
        };
        if chain.contains(&path) {
            let cycle: Vec<String> = chain
                .iter()
                .chain(std::iter::once(&path))
                .map(|step| step.display().to_string())
                .collect();
            return Outcome::error(
                Diagnostic::error(
                    codes::INCLUDE_CYCLE,
                    format!("includes form a cycle: {}", cycle.join(" → ")),
                    include.path.span(),
                )
                .with_path(at),
            );
        }
        let mut reader = Reader::new(self.files, self.db, self.limits);
        load::read_included(&mut reader, &path, include.path.span()).map(|loaded| (path, loaded))
    }

    /// Every value, read as its declared type and checked against it.
    fn values(
        &self,
        blueprint: &Blueprint,
        env: &Environment<'_>,
        secrets: &Secrets,
        resolved: &mut ResolvedBlueprint,
        problems: &mut Vec<Diagnostic>,
    ) {
        for (name, definition) in &blueprint.values {
            if self.steps.exhausted() {
                return;
            }
            let path = FieldPath::root().key("values").key(name);
            let reported = problems.len();
            let value = as_declared(
                resolve_tree(
                    &definition.value,
                    env,
                    self.db,
                    &path.key("value"),
                    problems,
                ),
                definition.value_type.value,
            );
            // A value whose evaluation failed is not also of the wrong type.
            let evaluated = problems.len() == reported;
            if evaluated
                && value.unknown().is_none()
                && !value_fits(definition.value_type.value, &value)
            {
                problems.push(
                    Diagnostic::error(
                        codes::VALUE_TYPE,
                        format!(
                            "`{name}` gives {}, its type is {}",
                            value.types(),
                            definition.value_type.value
                        ),
                        definition.value.span(),
                    )
                    .with_path(path.key("value")),
                );
            }
            if secrets.elements.contains(&Element::Value(name.clone())) {
                resolved.secret.insert(format!("values.{name}"));
            }
            resolved
                .declared
                .insert(format!("values.{name}"), definition.value_type.value);
            resolved.values.insert(name.clone(), value);
        }
    }

    /// Every resource: `each` expanded, conditions decided.
    fn resources(
        &self,
        blueprint: &Blueprint,
        env: &Environment<'_>,
        secrets: &Secrets,
        resolved: &mut ResolvedBlueprint,
        problems: &mut Vec<Diagnostic>,
    ) {
        for (name, resource) in &blueprint.resources {
            if self.steps.exhausted() {
                return;
            }
            let path = FieldPath::root().key("resources").key(name);
            let instances = match env.each_items(resource) {
                None => vec![None],
                Some(Ok(items)) => items.into_iter().enumerate().map(Some).collect(),
                Some(Err(Failure::Pending(what))) => {
                    let unexpanded = Instance::pending(env);
                    let mut pending =
                        self.resource(name, resource, &path, &unexpanded, None, secrets, problems);
                    pending.pending = Some(format!("each: {what}"));
                    resolved.resources.insert(name.clone(), pending);
                    continue;
                }
                Some(Err(Failure::Error(error))) => {
                    if let Some(each) = &resource.each {
                        problems.push(tree_error(&error, each, self.db, &path.key("each")));
                    }
                    continue;
                }
            };
            for instance in instances {
                if self.steps.exhausted() {
                    return;
                }
                let (instance_name, env): (String, Box<dyn Env + '_>) = match &instance {
                    Some((index, elem)) => (
                        format!("{name}_{index}"),
                        Box::new(
                            Instance::new(env, elem.clone(), *index)
                                .with_secret_elem(secrets.each.contains(name)),
                        ),
                    ),
                    None => (name.clone(), Box::new(EnvRef(env))),
                };
                let pending = match &resource.condition {
                    None => None,
                    Some(condition) => match condition_value(condition, env.as_ref()) {
                        Ok(true) => None,
                        Ok(false) => continue,
                        Err((Failure::Pending(what), _)) => Some(format!("condition: {what}")),
                        Err((Failure::Error(error), leaf)) => {
                            let at = path.key("condition");
                            problems.push(tree_error(&error, leaf, self.db, &at));
                            continue;
                        }
                    },
                };
                let index = instance.as_ref().map(|(index, _)| *index);
                let mut resolved_resource = self.resource(
                    name,
                    resource,
                    &path,
                    env.as_ref(),
                    index,
                    secrets,
                    problems,
                );
                resolved_resource.pending = pending;
                resolved.resources.insert(instance_name, resolved_resource);
            }
        }
    }

    /// Every export, evaluated and checked against its type.
    fn exports(
        &self,
        blueprint: &Blueprint,
        env: &Environment<'_>,
        secrets: &Secrets,
        resolved: &mut ResolvedBlueprint,
        problems: &mut Vec<Diagnostic>,
    ) {
        for (name, export) in &blueprint.exports {
            if self.steps.exhausted() {
                return;
            }
            let path = FieldPath::root().key("exports").key(name);
            let declared = export.export_type.value;
            resolved
                .declared
                .insert(format!("exports.{name}"), declared);
            let Some(reference) = &export.reference else {
                continue;
            };
            let value = match evaluate_expr(reference, env) {
                Ok(value) => match value.unknown() {
                    Some(what) => Value::Unknown(what.clone()),
                    None => value,
                },
                Err(Failure::Pending(what)) => Value::Unknown(what),
                Err(Failure::Error(error)) => {
                    problems.push(error_at(
                        &error,
                        self.db,
                        export.field.span,
                        &export.field.value,
                        &path.key("field"),
                    ));
                    continue;
                }
            };
            if value.unknown().is_none() && !value_fits(declared, &value) {
                problems.push(
                    Diagnostic::error(
                        codes::EXPORT_TYPE,
                        format!(
                            "`{}` gives {}, the export's type is {declared}",
                            export.field.value,
                            value.types()
                        ),
                        export.field.span,
                    )
                    .with_secondary(export.export_type.span, "the export's type")
                    .with_path(path.key("field")),
                );
            }
            let reads_secret = matches!(
                &reference.kind,
                strata_subst::ExprKind::Reference(reference) if secrets.reads(reference, None)
            );
            if reads_secret {
                resolved.secret.insert(format!("exports.{name}"));
            }
            resolved.exports.insert(name.clone(), value);
        }
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one resource's context, passed once"
    )]
    fn resource(
        &self,
        name: &str,
        resource: &crate::model::Resource,
        path: &FieldPath,
        env: &dyn Env,
        index: Option<usize>,
        secrets: &Secrets,
        problems: &mut Vec<Diagnostic>,
    ) -> ResolvedResource {
        let mut metadata = IndexMap::new();
        let metadata_path = path.key("metadata");
        if let Some(display) = &resource.metadata.display_name {
            metadata.insert(
                "displayName".to_owned(),
                resolve_tree(
                    display,
                    env,
                    self.db,
                    &metadata_path.key("displayName"),
                    problems,
                ),
            );
        }
        if !resource.metadata.labels.is_empty() {
            let labels = resource
                .metadata
                .labels
                .iter()
                .map(|(key, label)| (key.clone(), Value::String(label.value.clone())))
                .collect();
            metadata.insert("labels".to_owned(), Value::Object(labels));
        }
        if !resource.metadata.annotations.is_empty() {
            let annotations = resource
                .metadata
                .annotations
                .iter()
                .map(|(key, (_, tree))| {
                    let path = metadata_path.key("annotations").key(key);
                    (
                        key.clone(),
                        resolve_tree(tree, env, self.db, &path, problems),
                    )
                })
                .collect();
            metadata.insert("annotations".to_owned(), Value::Object(annotations));
        }
        if let Some(custom) = &resource.metadata.custom {
            metadata.insert(
                "custom".to_owned(),
                resolve_tree(custom, env, self.db, &metadata_path.key("custom"), problems),
            );
        }
        let spec_path = path.key("spec");
        let spec = resolve_tree(&resource.spec, env, self.db, &spec_path, problems);
        // The secret fields below `spec` and `metadata`, from there.
        let below = |section: &str| -> Vec<FieldPath> {
            secrets
                .fields
                .get(name)
                .into_iter()
                .flatten()
                .filter_map(|field| match field.segments().split_first() {
                    Some((Segment::Key(key), rest)) if key == section => {
                        let mut path = FieldPath::root();
                        for segment in rest {
                            path.push(segment.clone());
                        }
                        Some(path)
                    }
                    _ => None,
                })
                .collect()
        };
        let secret_fields = below("spec");
        let secret_metadata = below("metadata");
        ResolvedResource {
            template: name.to_owned(),
            index,
            resource_type: resource.resource_type.value.clone(),
            metadata: Value::Object(metadata),
            link_selector: resource
                .link_selector
                .iter()
                .map(|(key, value)| (key.clone(), value.value.clone()))
                .collect(),
            spec,
            pending: None,
            secret_fields,
            secret_metadata,
            spec_span: resource.spec.span(),
        }
    }

    /// Reads, checks and resolves one include.
    fn child(
        &mut self,
        name: &str,
        include: &crate::model::Include,
        parent: &Path,
        env: &Environment<'_>,
        secrets: &Secrets,
        chain: &mut Vec<PathBuf>,
    ) -> Outcome<ResolvedBlueprint> {
        let base = FieldPath::root().key("include").key(name);
        let mut problems = Vec::new();
        let path_value = resolve_tree(
            &include.path,
            env,
            self.db,
            &base.key("path"),
            &mut problems,
        );
        let Value::String(written) = path_value else {
            problems.push(
                Diagnostic::error(
                    codes::INCLUDE,
                    format!(
                        "the path of include `{name}` must be a string known before deployment"
                    ),
                    include.path.span(),
                )
                .with_path(base.key("path")),
            );
            return Outcome::failed(problems);
        };
        let metadata = include.metadata.as_ref().map_or(Value::Null, |tree| {
            resolve_tree(tree, env, self.db, &base.key("metadata"), &mut problems)
        });
        let remote = match &metadata {
            Value::Object(fields) => fields.get("sourceType").and_then(|kind| match kind {
                Value::String(kind) => Some(kind.clone()),
                _ => None,
            }),
            _ => None,
        };
        if let Err(too_many) = self.count_includes(1, name, include) {
            problems.extend(too_many);
            return Outcome::failed(problems);
        }
        // The path and source of an include computed from a secret are
        // not quoted when it cannot be read.
        let path_secret = secrets.tree_reads(&include.path, None)
            || include
                .metadata
                .as_ref()
                .is_some_and(|metadata| secrets.tree_reads(metadata, None));
        let read = match remote {
            Some(kind) => self.fetch(name, include, &kind, &written, &metadata),
            None => self.read_local(name, include, parent, &written, chain),
        };
        let read = if path_secret {
            withhold_read(read, name, include)
        } else {
            read
        };
        let Some((child_path, loaded)) = read.report(&mut problems) else {
            return Outcome::failed(problems);
        };
        if problems.iter().any(Diagnostic::is_error) {
            return Outcome::failed(problems);
        }
        let mut inputs = Inputs::default();
        let mut given = Vec::new();
        for (variable, (key_span, tree)) in &include.variables {
            let path = base.key("variables").key(variable);
            let value = resolve_tree(tree, env, self.db, &path, &mut problems);
            let secret = secrets.tree_reads(tree, None);
            given.push((variable.clone(), value.clone(), secret));
            inputs.given.push(Given {
                name: variable.clone(),
                value: GivenValue::Value(value),
                span: tree.span(),
                name_span: *key_span,
                origin: Origin::Include,
                secret,
            });
        }
        // The same file with the same variables resolves the same: once.
        if let Some(earlier) = self
            .children
            .resolved
            .iter()
            .find(|earlier| earlier.path == child_path && earlier.given == given)
        {
            // Its problems were reported where it was first included; its
            // own includes count again, as they are copied again.
            let child = earlier.child.clone();
            let nested = child.as_ref().map_or(0, ResolvedBlueprint::includes);
            if let Err(too_many) = self.count_includes(nested, name, include) {
                problems.extend(too_many);
                return Outcome::failed(problems);
            }
            return Outcome::new(child, problems);
        }
        chain.push(child_path.clone());
        let child = self.blueprint(&loaded, &child_path, &inputs, None, chain);
        chain.pop();
        let child = child.report(&mut problems);
        self.children.resolved.push(ResolvedChild {
            path: child_path,
            given,
            child: child.clone(),
        });
        match child {
            Some(child) => Outcome::new(Some(child), problems),
            None => Outcome::failed(problems),
        }
    }
}

impl Resolver<'_> {
    /// Counts `more` includes made by include `name`: an error once the
    /// render has made more than [`MAX_INCLUDES`], with the problem the
    /// first time (the includes that fail after it say nothing more).
    fn count_includes(
        &mut self,
        more: usize,
        name: &str,
        include: &crate::model::Include,
    ) -> Result<(), Option<Diagnostic>> {
        let before = self.children.included;
        self.children.included = before.saturating_add(more);
        if self.children.included <= MAX_INCLUDES {
            return Ok(());
        }
        Err((before <= MAX_INCLUDES).then(|| {
            Diagnostic::error(
                codes::TOO_MANY_INCLUDES,
                format!("the blueprint includes more than {MAX_INCLUDES} blueprints in all"),
                include.name_span,
            )
            .with_note("each include of a file counts, however often the file is included")
            .with_path(FieldPath::root().key("include").key(name))
        }))
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

/// A failed read of include `name` whose path or source reads a secret:
/// every problem about the reading itself (reported at the include, which
/// may quote the path it computed) says only that it could not be read.
fn withhold_read(
    read: Outcome<(PathBuf, Loaded)>,
    name: &str,
    include: &crate::model::Include,
) -> Outcome<(PathBuf, Loaded)> {
    let at_include = [include.path.span(), include.name_span];
    let diagnostics = read
        .diagnostics
        .into_iter()
        .map(|diagnostic| {
            if at_include.contains(&diagnostic.primary.span)
                || include
                    .metadata
                    .as_ref()
                    .is_some_and(|metadata| metadata.span().contains(diagnostic.primary.span))
            {
                Diagnostic {
                    message: format!("include `{name}` cannot be read"),
                    help: None,
                    notes: vec![strata_subst::WITHHELD_NOTE.to_owned()],
                    ..diagnostic
                }
            } else {
                diagnostic
            }
        })
        .collect();
    Outcome::new(read.value, diagnostics)
}

/// The exports of the child included as `name`, as its parent reads them:
/// what waits on the child's deployment says so in the parent's terms
/// (`children.<name>.<export>`).
fn exports_seen_from_parent(name: &str, child: &ResolvedBlueprint) -> Value {
    Value::Object(
        child
            .exports
            .iter()
            .map(|(export, value)| {
                let value = match value {
                    Value::Unknown(_) => Value::Unknown(format!("children.{name}.{export}").into()),
                    known => known.clone(),
                };
                (export.clone(), value)
            })
            .collect(),
    )
}

/// The path below the root of a local include written `written` in the
/// blueprint at `parent`; `None` when it lies outside the root (`root` is
/// the root's absolute folder, for absolute paths).
fn local_path(root: Option<&Path>, parent: &Path, written: &str) -> Option<PathBuf> {
    let written = Path::new(written);
    let joined = if written.is_absolute() {
        written.strip_prefix(root?).ok()?.to_path_buf()
    } else {
        parent.parent().unwrap_or(Path::new("")).join(written)
    };
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::Normal(part) => normal.push(part),
            Component::ParentDir => {
                if !normal.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(normal)
}

/// `&Environment` as a boxed `Env`.
struct EnvRef<'e, 'a>(&'e Environment<'a>);

impl Env for EnvRef<'_, '_> {
    fn reference(&self, reference: &Reference) -> strata_subst::Lookup {
        self.0.reference(reference)
    }
    fn secret(&self, reference: &Reference) -> bool {
        self.0.secret(reference)
    }
    fn steps(&self) -> &Steps {
        self.0.steps()
    }
    fn link(&self, from: &str, to: &str) -> strata_subst::Lookup {
        self.0.link(from, to)
    }
    fn cwd(&self) -> Result<String, String> {
        self.0.cwd()
    }
    fn now_unix(&self) -> i64 {
        self.0.now_unix()
    }
}

/// The includes in the order their references ask: a child whose
/// `variables` read `children.a` comes after `a`; otherwise as written.
fn child_order(loaded: &Loaded) -> Vec<String> {
    let names: Vec<&String> = loaded.blueprint.include.keys().collect();
    let mut done: Vec<String> = Vec::new();
    while done.len() < names.len() {
        let before = done.len();
        for name in &names {
            if done.contains(name) {
                continue;
            }
            let waits = loaded
                .references
                .dependencies(&crate::validate::Element::Child((*name).clone()))
                .into_iter()
                .any(|dependency| match dependency {
                    crate::validate::Element::Child(other) => {
                        other != *name && !done.contains(other)
                    }
                    _ => false,
                });
            if !waits {
                done.push((*name).clone());
            }
        }
        if done.len() == before {
            // A cycle between children (reported by the check): as written.
            done.extend(
                names
                    .iter()
                    .filter(|name| !done.contains(name))
                    .map(|name| (*name).clone())
                    .collect::<Vec<_>>(),
            );
        }
    }
    done
}

/// The `--datasources` document's fields, checked against the exports.
fn datasource_values(
    blueprint: &Blueprint,
    document: &Node,
    problems: &mut Vec<Diagnostic>,
) -> IndexMap<String, IndexMap<String, Value>> {
    let mut found = IndexMap::new();
    let Some(map) = document.as_map() else {
        problems.push(Diagnostic::error(
            codes::DATASOURCE_INPUT,
            format!(
                "a data sources file maps data source names to their fields, not {}",
                document.value.kind_name()
            ),
            document.span,
        ));
        return found;
    };
    for (name, entry) in map {
        let Some(datasource) = blueprint.datasources.get(name) else {
            let mut problem = Diagnostic::error(
                codes::DATASOURCE_INPUT,
                format!("the blueprint has no data source `{name}`"),
                entry.key_span,
            );
            if let Some(near) =
                strata_syntax::did_you_mean(name, blueprint.datasources.keys().map(String::as_str))
            {
                problem = problem.with_help(format!("did you mean `{near}`?"));
            }
            problems.push(problem);
            continue;
        };
        let Some(fields) = entry.value.as_map() else {
            problems.push(Diagnostic::error(
                codes::DATASOURCE_INPUT,
                format!("the fields of `{name}` are a mapping of exported field to value"),
                entry.value.span,
            ));
            continue;
        };
        let mut values = IndexMap::new();
        for (field, value) in fields {
            let Some(export) = datasource.exports.get(field) else {
                let mut problem = Diagnostic::error(
                    codes::DATASOURCE_INPUT,
                    format!("`{name}` exports no field `{field}`"),
                    value.key_span,
                );
                if let Some((key, _)) = datasource.exports.iter().find(|(_, export)| {
                    export
                        .alias_for
                        .as_ref()
                        .is_some_and(|alias| &alias.value == field)
                }) {
                    problem = problem.with_help(format!(
                        "`{field}` is the provider's name of the export `{key}`: give it as `{key}`"
                    ));
                }
                problems.push(problem);
                continue;
            };
            let typed = Value::from_node(&value.value);
            if !value_fits(export.field_type.value, &typed) {
                problems.push(
                    Diagnostic::error(
                        codes::DATASOURCE_INPUT,
                        format!(
                            "`{name}.{field}` is {}, the export's type is {}",
                            typed.types(),
                            export.field_type.value
                        ),
                        value.value.span,
                    )
                    .with_secondary(export.field_type.span, "the export's type"),
                );
                continue;
            }
            values.insert(field.clone(), as_declared(typed, export.field_type.value));
        }
        found.insert(name.clone(), values);
    }
    found
}

/// Whether a known value has the declared type (an integer is a float).
fn value_fits(declared: Types, value: &Value) -> bool {
    let found = value.types();
    found.meets(declared) || (declared.meets(Types::FLOAT) && found.meets(Types::INTEGER))
}

/// `and` (`decisive` false) or `or` (`decisive` true) of `items`: the
/// decisive value as soon as one item has it, else pending when one item
/// waits on deployment, else the other value.
fn combined<'c>(
    items: &'c [Condition],
    env: &dyn Env,
    decisive: bool,
) -> Result<bool, (Failure, &'c Tree)> {
    let mut pending = None;
    for item in items {
        match condition_value(item, env) {
            Ok(value) if value == decisive => return Ok(decisive),
            Ok(_) => {}
            Err(waiting @ (Failure::Pending(_), _)) => {
                pending = pending.or(Some(waiting));
            }
            Err(error) => return Err(error),
        }
    }
    pending.map_or(Ok(!decisive), Err)
}

/// A condition's value: `Err(Pending)` when it waits on deployment; a
/// failure with the leaf it comes from.
fn condition_value<'c>(
    condition: &'c Condition,
    env: &dyn Env,
) -> Result<bool, (Failure, &'c Tree)> {
    match condition {
        Condition::Leaf(tree) => {
            match crate::environment::evaluate_tree(tree, env).map_err(|failure| (failure, tree))? {
                Value::Bool(value) => Ok(value),
                other => Err((
                    Failure::Error(SubstError::new(
                        codes::CONDITION,
                        format!("a condition must be a boolean, it gave {}", other.types()),
                        0..0,
                    )),
                    tree,
                )),
            }
        }
        // `and` is decided by a false item, `or` by a true one; otherwise a
        // pending item keeps it pending.
        Condition::And(items, _) => combined(items, env, false),
        Condition::Or(items, _) => combined(items, env, true),
        Condition::Not(inner, _) => condition_value(inner, env).map(|value| !value),
    }
}

/// An evaluation failure of the field `tree`: a problem of the whole field
/// (a condition that is not a boolean, an `each` that is not an array) at
/// the field, any other where it lies in the text.
fn tree_error(error: &SubstError, tree: &Tree, db: &SourceDb, path: &FieldPath) -> Diagnostic {
    match tree {
        Tree::Template { node, .. }
            if !matches!(error.code, codes::CONDITION | codes::EACH_TYPE) =>
        {
            error_at(
                error,
                db,
                node.span,
                node.as_str().unwrap_or_default(),
                path,
            )
        }
        _ => Diagnostic::error(error.code, error.message.clone(), tree.span())
            .with_path(path.clone()),
    }
}

/// A field's value: templates evaluated, what waits on deployment left
/// unknown, each failure reported where it is written.
fn resolve_tree(
    tree: &Tree,
    env: &dyn Env,
    db: &SourceDb,
    path: &FieldPath,
    problems: &mut Vec<Diagnostic>,
) -> Value {
    match tree {
        Tree::Literal(node) => Value::from_node(node),
        Tree::Template { template, node } => match evaluate(template, env) {
            Ok(value) => value,
            Err(Failure::Pending(what)) => Value::Unknown(what),
            Err(Failure::Error(error)) => {
                problems.push(error_at(
                    &error,
                    db,
                    node.span,
                    node.as_str().unwrap_or_default(),
                    path,
                ));
                Value::Null
            }
        },
        Tree::Seq { items, .. } => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(index, item)| resolve_tree(item, env, db, &path.index(index), problems))
                .collect(),
        ),
        Tree::Map { entries, .. } => Value::Object(
            entries
                .iter()
                .map(|(key, (_, tree))| {
                    (
                        key.clone(),
                        resolve_tree(tree, env, db, &path.key(key), problems),
                    )
                })
                .collect(),
        ),
    }
}

fn error_at(
    error: &SubstError,
    db: &SourceDb,
    scalar: Span,
    text: &str,
    path: &FieldPath,
) -> Diagnostic {
    error.diagnostic(db, scalar, text).with_path(path.clone())
}

impl ResolvedBlueprint {
    /// The resolved blueprint as a document: `variables`, `values`,
    /// `datasources`, `resources`, `include` (children inline), `exports`;
    /// secrets masked unless `show_secrets`.
    #[must_use]
    pub fn to_node(&self, show_secrets: bool) -> Node {
        let masked = |secret: bool, node: Node| {
            if secret && !show_secrets {
                text_node(MASK)
            } else {
                node
            }
        };
        let typed = |section: &str, name: &str, value: &Value| {
            let key = format!("{section}.{name}");
            let node = value_node(value, self.declared.get(&key).copied());
            masked(self.secret.contains(&key), node)
        };
        let mut root: Vec<(String, Node)> = vec![("version".to_owned(), text_node(crate::VERSION))];
        let variables = self.variables.iter().map(|(name, resolved)| {
            (
                name.clone(),
                masked(resolved.secret, value_node(&resolved.value, None)),
            )
        });
        root.push(("variables".to_owned(), map_node(variables)));
        let values = self
            .values
            .iter()
            .map(|(name, value)| (name.clone(), typed("values", name, value)));
        root.push(("values".to_owned(), map_node(values)));
        if !self.datasources.is_empty() {
            let datasources = self.datasources.iter().map(|(name, fields)| {
                (
                    name.clone(),
                    value_node(&Value::Object(fields.clone()), None),
                )
            });
            root.push(("datasources".to_owned(), map_node(datasources)));
        }
        let resources = self
            .resources
            .iter()
            .map(|(name, resource)| (name.clone(), resource.to_node(name, show_secrets)));
        root.push(("resources".to_owned(), map_node(resources)));
        if !self.children.is_empty() {
            let children = self
                .children
                .iter()
                .map(|(name, child)| (name.clone(), child.to_node(show_secrets)));
            root.push(("include".to_owned(), map_node(children)));
        }
        if !self.exports.is_empty() {
            let exports = self
                .exports
                .iter()
                .map(|(name, value)| (name.clone(), typed("exports", name, value)));
            root.push(("exports".to_owned(), map_node(exports)));
        }
        map_node(root)
    }
}

impl ResolvedResource {
    /// The resource as a document: `type`, `template` (for an instance),
    /// `pending`, `metadata`, `linkSelector`, `spec` (secret fields masked
    /// unless `show_secrets`).
    #[must_use]
    pub fn to_node(&self, name: &str, show_secrets: bool) -> Node {
        let mut fields = vec![("type".to_owned(), text_node(&self.resource_type))];
        if self.template != name {
            fields.push(("template".to_owned(), text_node(&self.template)));
        }
        if let Some(what) = &self.pending {
            fields.push(("pending".to_owned(), text_node(what)));
        }
        if matches!(&self.metadata, Value::Object(map) if !map.is_empty()) {
            let mut metadata = value_node(&self.metadata, None);
            if !show_secrets {
                for path in &self.secret_metadata {
                    if let Some(field) = metadata.at_mut(path.segments()) {
                        *field = text_node(MASK);
                    }
                }
            }
            fields.push(("metadata".to_owned(), metadata));
        }
        if !self.link_selector.is_empty() {
            let labels = self
                .link_selector
                .iter()
                .map(|(key, value)| (key.clone(), text_node(value)));
            let selector = map_node([("byLabel".to_owned(), map_node(labels))]);
            fields.push(("linkSelector".to_owned(), selector));
        }
        let mut spec = value_node(&self.spec, None);
        if !show_secrets {
            for path in &self.secret_fields {
                if let Some(field) = spec.at_mut(path.segments()) {
                    *field = text_node(MASK);
                }
            }
        }
        fields.push(("spec".to_owned(), spec));
        map_node(fields)
    }
}

/// A string node (output has no source).
fn text_node(text: &str) -> Node {
    Node::new(
        strata_syntax::Value::String(text.to_owned()),
        Span::default(),
    )
}

/// A mapping node of `entries`, in order (output has no source).
fn map_node(entries: impl IntoIterator<Item = (String, Node)>) -> Node {
    let map: Mapping = entries
        .into_iter()
        .map(|(key, value)| {
            let entry = strata_syntax::Entry {
                key_span: Span::default(),
                value,
            };
            (key, entry)
        })
        .collect();
    Node::new(strata_syntax::Value::Map(map), Span::default())
}

/// A value as a document node: unknown parts as
/// `!known-after-deploy {waitsOn: REF, type: T}` (the type where declared).
#[must_use]
pub fn value_node(value: &Value, declared: Option<Types>) -> Node {
    let span = Span::default();
    let node = |value| Node::new(value, span);
    match value {
        Value::Unknown(what) => {
            let mut marker = Mapping::default();
            marker.insert(
                "waitsOn".to_owned(),
                strata_syntax::Entry {
                    key_span: span,
                    value: node(strata_syntax::Value::String(what.to_string())),
                },
            );
            if let Some(declared) = declared {
                marker.insert(
                    "type".to_owned(),
                    strata_syntax::Entry {
                        key_span: span,
                        value: node(strata_syntax::Value::String(declared.to_string())),
                    },
                );
            }
            node(strata_syntax::Value::Map(marker)).with_tag(Some(Tag::new(KNOWN_AFTER_DEPLOY)))
        }
        Value::Array(items) => node(strata_syntax::Value::Seq(
            items.iter().map(|item| value_node(item, None)).collect(),
        )),
        Value::Object(fields) => node(strata_syntax::Value::Map(
            fields
                .iter()
                .map(|(key, item)| {
                    (
                        key.clone(),
                        strata_syntax::Entry {
                            key_span: span,
                            value: value_node(item, None),
                        },
                    )
                })
                .collect(),
        )),
        Value::Function(function) => node(strata_syntax::Value::String(function.to_string())),
        scalar => scalar
            .to_node(span)
            .unwrap_or_else(|| node(strata_syntax::Value::Null)),
    }
}

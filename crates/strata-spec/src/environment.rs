//! What substitutions see before deployment: the [`Environment`] that
//! answers references for evaluation (`strata spec eval`, and the
//! resolution that part 2 builds on).
//!
//! - Variables: the resolved values ([`crate::variables::resolve`]), or
//!   values given without a blueprint.
//! - Values: evaluated on demand, in dependency order, each once; a
//!   literal content is read as the declared type (`"3"` for an integer is
//!   3).
//! - Resources: a mapping of `spec` (evaluated where it can be, fields that
//!   wait on deployment left unknown), `metadata`, and `state`, unknown
//!   until deployment. A reference to a field of `spec` evaluates that
//!   field alone, once. A resource with `each` is the array of its instances
//!   (`resources.r[1].spec…`), each evaluated with its `elem` and `i`; an
//!   `each` that waits on deployment leaves the resource unknown.
//! - Data sources and children: the values given
//!   ([`Environment::with_datasources`], [`Environment::with_children`]),
//!   else known after deployment.
//! - `elem` and `i` have values only while `each` is expanded
//!   ([`Instance`]).
//! - Secrets: a reference to what is secret, or reads something secret,
//!   is secret material ([`Env::secret`]), so errors about what is
//!   computed from it withhold the values.
//! - Every evaluation spends the render's [`Steps`].

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use indexmap::IndexMap;
use strata_subst::{Accessor, Env, Failure, Lookup, Reference, Steps, Types, Value, evaluate};

use crate::model::{Blueprint, Metadata, Resource, Tree};
use crate::secrets::{Secrets, secret_elements};

/// References answered from a blueprint and variable values.
pub struct Environment<'a> {
    blueprint: Option<&'a Blueprint>,
    // Shared, as the values and resources evaluated are: a reference reads
    // in place and copies only what its accessors lead to.
    variables: IndexMap<String, Arc<Value>>,
    datasources: IndexMap<String, IndexMap<String, Arc<Value>>>,
    children: IndexMap<String, Arc<Value>>,
    cwd: String,
    now_unix: i64,
    steps: &'a Steps,
    secrets: Secrets,
    // Shared by the threads that resolve resources at once: each memo is
    // locked only to read or to record, never while evaluating (two
    // threads may compute one entry, and record the same result).
    values: Mutex<HashMap<String, Lookup>>,
    resources: Mutex<HashMap<String, Lookup>>,
    /// The fields of resources' `spec`s read alone, by the address of
    /// their tree in the blueprint (borrowed for the environment's life,
    /// so it does not move): most references read one field of a
    /// resource, and evaluating the whole resource for it was a tenth of a
    /// render.
    fields: Mutex<HashMap<usize, Arc<Value>>>,
    /// The values and resources being evaluated, each with the thread
    /// evaluating it: a thread's own are its evaluation's chain.
    evaluating: Mutex<Vec<(ThreadId, String)>>,
    /// The state fields of resources already deployed, by name.
    deployed: HashMap<String, Value>,
    /// The fields of links whose resources are deployed, by (from, to).
    deployed_links: HashMap<(String, String), Value>,
}

impl<'a> Environment<'a> {
    /// An environment of `variables`, with `blueprint`'s values and
    /// resources when there is one; `cwd()` and `datetime()` answer `cwd`
    /// and `now_unix`; evaluation spends `steps`.
    #[must_use]
    pub fn new(
        blueprint: Option<&'a Blueprint>,
        variables: IndexMap<String, Value>,
        cwd: String,
        now_unix: i64,
        steps: &'a Steps,
    ) -> Environment<'a> {
        Environment {
            blueprint,
            variables: shared(variables),
            datasources: IndexMap::new(),
            children: IndexMap::new(),
            cwd,
            now_unix,
            steps,
            secrets: Secrets::default(),
            values: Mutex::default(),
            resources: Mutex::default(),
            fields: Mutex::default(),
            evaluating: Mutex::default(),
            deployed: HashMap::new(),
            deployed_links: HashMap::new(),
        }
    }

    /// With what is deployed of this blueprint (named relative to it):
    /// a deployed resource's `state` reads its state fields, and `link(a,
    /// b)` between deployed resources the link's fields, instead of
    /// waiting on deployment.
    #[must_use]
    pub fn with_deployed(mut self, deployed: &crate::resolve::Deployed) -> Environment<'a> {
        self.deployed = deployed
            .states
            .iter()
            .map(|(name, state)| (name.clone(), Value::from_json(state)))
            .collect();
        self.deployed_links = deployed
            .links
            .iter()
            .map(|(pair, fields)| (pair.clone(), Value::from_json(fields)))
            .collect();
        self
    }

    /// With the data sources' fields known (by data source, then by the
    /// export's key).
    #[must_use]
    pub fn with_datasources(
        mut self,
        datasources: IndexMap<String, IndexMap<String, Value>>,
    ) -> Environment<'a> {
        self.datasources = datasources
            .into_iter()
            .map(|(name, fields)| (name, shared(fields)))
            .collect();
        self
    }

    /// With the children's exports known (a mapping of exports per include
    /// name; an export known after deployment is [`Value::Unknown`]).
    #[must_use]
    pub fn with_children(mut self, children: IndexMap<String, Value>) -> Environment<'a> {
        self.children = shared(children);
        self
    }

    /// With the variables named secret (the blueprint's own `secret: true`
    /// ones, and any other given as secret), and what reads them.
    #[must_use]
    pub fn with_secret_variables(mut self, names: &[&str]) -> Environment<'a> {
        if let Some(blueprint) = self.blueprint {
            self.secrets = secret_elements(blueprint, names, &HashSet::new());
        }
        self
    }

    /// With what is secret, as resolution computed it (children's exports
    /// included).
    #[must_use]
    pub(crate) fn with_secrets(mut self, secrets: Secrets) -> Environment<'a> {
        self.secrets = secrets;
        self
    }

    /// The elements `each` gives for `resource`: `None` when it has no
    /// `each`; the failure when it waits on deployment or fails.
    pub fn each_items(&self, resource: &Resource) -> Option<Result<Vec<Value>, Failure>> {
        let each = resource.each.as_ref()?;
        Some(evaluate_tree(each, self).and_then(|items| match items {
            Value::Array(items) => Ok(items),
            other => Err(Failure::Error(strata_subst::SubstError::new(
                crate::codes::EACH_TYPE,
                format!("`each` must give an array, it gave {}", other.types()),
                0..0,
            ))),
        }))
    }

    fn value(&self, name: &str) -> Lookup {
        if let Some(done) = recorded(&self.values, name) {
            return done;
        }
        let Some(definition) = self
            .blueprint
            .and_then(|blueprint| blueprint.values.get(name))
        else {
            return Lookup::Missing(format!("there is no value `{name}`"));
        };
        let Some(_open) = self.open(name) else {
            return Lookup::Missing(format!("`values.{name}` depends on itself"));
        };
        let result = match evaluate_tree(&definition.value, self) {
            Ok(value) => Lookup::Shared(Arc::new(as_declared(value, definition.value_type.value))),
            Err(Failure::Pending(_)) => Lookup::Pending,
            Err(Failure::Error(error)) => Lookup::Missing(format!(
                "`values.{name}` cannot be evaluated: {}",
                error.message
            )),
        };
        record(&self.values, name, &result);
        result
    }

    fn resource(&self, name: &str) -> Lookup {
        if let Some(done) = recorded(&self.resources, name) {
            return done;
        }
        let Some(resource) = self
            .blueprint
            .and_then(|blueprint| blueprint.resources.get(name))
        else {
            return Lookup::Missing(format!("there is no resource `{name}`"));
        };
        let Some(_open) = self.open(name) else {
            return Lookup::Missing(format!("`resources.{name}` depends on itself"));
        };
        let found = match self.each_items(resource) {
            None => Lookup::Shared(Arc::new(resource_value(
                resource,
                name,
                self,
                self.deployed.get(name),
            ))),
            Some(Ok(items)) => Lookup::Shared(Arc::new(Value::Array(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(index, elem)| {
                        let instance = Instance::new(self, elem, index)
                            .with_secret_elem(self.secrets.each.contains(name));
                        let deployed = self.deployed.get(&format!("{name}_{index}"));
                        resource_value(resource, &format!("{name}[{index}]"), &instance, deployed)
                    })
                    .collect(),
            ))),
            Some(Err(Failure::Pending(_))) => Lookup::Pending,
            Some(Err(Failure::Error(error))) => Lookup::Missing(format!(
                "`each` of `{name}` cannot be evaluated: {}",
                error.message
            )),
        };
        record(&self.resources, name, &found);
        found
    }

    /// The field of the resource `name`'s `spec` that `path` reads,
    /// evaluated alone and once, when `path` names one field the blueprint
    /// writes there (or one it does not write: computed by the provider,
    /// pending). `None` otherwise (the whole `spec`, `metadata`, `state`,
    /// or a resource with `each`): the whole resource is evaluated then.
    fn resource_field(&self, name: &str, path: &[Accessor]) -> Option<Lookup> {
        let resource = self.blueprint?.resources.get(name)?;
        if resource.each.is_some() {
            return None;
        }
        let (Accessor::Field(first), below) = path.split_first()? else {
            return None;
        };
        if first.text != "spec" {
            return None;
        }
        let mut tree = &resource.spec;
        let mut read = 1;
        for accessor in below {
            let (Tree::Map { entries, .. }, Accessor::Field(field)) = (tree, accessor) else {
                break;
            };
            let Some((_, entry)) = entries.get(&field.text) else {
                return Some(Lookup::Pending);
            };
            tree = entry;
            read += 1;
        }
        if read == 1 {
            return None;
        }
        let key = std::ptr::from_ref(tree) as usize;
        let value = if let Some(done) = recorded(&self.fields, &key) {
            done
        } else {
            let Some(_open) = self.open(name) else {
                return Some(Lookup::Missing(format!(
                    "`resources.{name}` depends on itself"
                )));
            };
            let value = Arc::new(partial(tree, self));
            record(&self.fields, &key, &value);
            value
        };
        Some(if unwritten(Some(&value), &path[read..]) {
            Lookup::Pending
        } else {
            Lookup::SharedBelow { value, read }
        })
    }

    /// Notes that this thread evaluates `name` until the guard is dropped;
    /// none when its evaluation is already open on this thread (`name`
    /// depends on itself).
    fn open(&self, name: &str) -> Option<Open<'_>> {
        let thread = std::thread::current().id();
        let mut evaluating = self.evaluating.lock().ok()?;
        if evaluating
            .iter()
            .any(|(by, open)| *by == thread && open == name)
        {
            return None;
        }
        evaluating.push((thread, name.to_owned()));
        Some(Open {
            evaluating: &self.evaluating,
            thread,
        })
    }
}

/// An evaluation open on a thread ([`Environment::open`]): closed, its
/// entry removed, when dropped.
struct Open<'e> {
    evaluating: &'e Mutex<Vec<(ThreadId, String)>>,
    thread: ThreadId,
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        if let Ok(mut evaluating) = self.evaluating.lock()
            && let Some(last) = evaluating.iter().rposition(|(by, _)| *by == self.thread)
        {
            evaluating.remove(last);
        }
    }
}

/// What `memo` recorded for `key`.
fn recorded<K, V: Clone>(memo: &Mutex<HashMap<K::Owned, V>>, key: &K) -> Option<V>
where
    K: Hash + Eq + ToOwned + ?Sized,
    K::Owned: Hash + Eq + Borrow<K>,
{
    memo.lock().ok()?.get(key).cloned()
}

/// Records `found` for `key` in `memo`.
fn record<K, V: Clone>(memo: &Mutex<HashMap<K::Owned, V>>, key: &K, found: &V)
where
    K: Hash + Eq + ToOwned + ?Sized,
    K::Owned: Hash + Eq + Borrow<K>,
{
    if let Ok(mut memo) = memo.lock() {
        memo.insert(key.to_owned(), found.clone());
    }
}

/// `found`, or pending when `path` reads a field of the resource's `spec`
/// that the blueprint does not write: such a field is computed by the
/// provider (an `arn`, an `id`, an `endpoint`) and known after deployment,
/// as Bluelink reads `resources.X.spec.Y` since it combined spec and state.
/// A leading `[n]` (an `each` resource's instance) is passed; an index past
/// the end of a written list or a field of a scalar stays the evaluator's
/// error.
fn computed_field(found: Lookup, path: &[Accessor]) -> Lookup {
    let Lookup::Shared(value) = &found else {
        return found;
    };
    let mut rest = path;
    let mut at: &Value = value;
    if let (Some(Accessor::Index { index, .. }), Value::Array(items)) = (rest.first(), at) {
        let Some(item) = items.get(index.unwrap_or(0)) else {
            return found;
        };
        at = item;
        rest = &rest[1..];
    }
    let Some((Accessor::Field(first), fields)) = rest.split_first() else {
        return found;
    };
    if first.text != "spec" {
        return found;
    }
    let Value::Object(resource) = at else {
        return found;
    };
    if unwritten(resource.get("spec"), fields) {
        Lookup::Pending
    } else {
        found
    }
}

/// Whether `fields`, read from `at` (a part of a resource's `spec` as
/// the blueprint writes it), name a field that is not written there.
fn unwritten(mut at: Option<&Value>, fields: &[Accessor]) -> bool {
    for accessor in fields {
        match (at, accessor) {
            (Some(Value::Object(entries)), Accessor::Field(field)) => {
                match entries.get(&field.text) {
                    Some(child) => at = Some(child),
                    None => return true,
                }
            }
            (Some(Value::Array(items)), Accessor::Index { index, .. }) => {
                at = items.get(index.unwrap_or(0));
            }
            _ => return false,
        }
    }
    false
}

/// A resource as references read it: `spec` (as written; a field it does
/// not write is known after deployment, [`computed_field`]), `metadata`,
/// and `state` (`deployed`, else unknown until deployment).
fn resource_value(
    resource: &Resource,
    name: &str,
    env: &dyn Env,
    deployed: Option<&Value>,
) -> Value {
    let mut fields = IndexMap::new();
    fields.insert("spec".to_owned(), partial(&resource.spec, env));
    fields.insert(
        "metadata".to_owned(),
        metadata_value(&resource.metadata, env),
    );
    fields.insert(
        "state".to_owned(),
        deployed
            .cloned()
            .unwrap_or_else(|| Value::Unknown(format!("resources.{name}.state").into())),
    );
    Value::Object(fields)
}

/// A resource's metadata: `displayName`, `labels`, `annotations`, `custom`.
fn metadata_value(metadata: &Metadata, env: &dyn Env) -> Value {
    let mut fields = IndexMap::new();
    if let Some(display) = &metadata.display_name {
        fields.insert("displayName".to_owned(), partial(display, env));
    }
    let labels = metadata
        .labels
        .iter()
        .map(|(key, label)| (key.clone(), Value::String(label.value.clone())))
        .collect();
    fields.insert("labels".to_owned(), Value::Object(labels));
    let annotations = metadata
        .annotations
        .iter()
        .map(|(key, (_, tree))| (key.clone(), partial(tree, env)))
        .collect();
    fields.insert("annotations".to_owned(), Value::Object(annotations));
    if let Some(custom) = &metadata.custom {
        fields.insert("custom".to_owned(), partial(custom, env));
    }
    Value::Object(fields)
}

/// The environment of one instance of an `each` resource: `elem` and `i`
/// bound, everything else from the blueprint's environment. An instance
/// of an `each` that waits on deployment has them known after deployment.
pub(crate) struct Instance<'e> {
    base: &'e dyn Env,
    item: Option<(Value, usize)>,
    secret_elem: bool,
}

impl<'e> Instance<'e> {
    /// The instance at `index`, whose item is `elem`.
    #[must_use]
    pub(crate) fn new(base: &'e dyn Env, elem: Value, index: usize) -> Instance<'e> {
        Instance {
            base,
            item: Some((elem, index)),
            secret_elem: false,
        }
    }

    /// With `elem` secret (the resource's `each` reads a secret) when
    /// `secret`.
    #[must_use]
    pub(crate) fn with_secret_elem(mut self, secret: bool) -> Instance<'e> {
        self.secret_elem = secret;
        self
    }

    /// The one instance known before deployment of an `each` that waits on
    /// it: `elem` and `i` are known after deployment.
    #[must_use]
    pub(crate) fn pending(base: &'e dyn Env) -> Instance<'e> {
        Instance {
            base,
            item: None,
            secret_elem: false,
        }
    }
}

impl Env for Instance<'_> {
    fn reference(&self, reference: &Reference) -> Lookup {
        match reference {
            Reference::Elem { .. } => self
                .item
                .as_ref()
                .map_or(Lookup::Pending, |(elem, _)| Lookup::Known(elem.clone())),
            Reference::ElemIndex => self
                .item
                .as_ref()
                .and_then(|(_, index)| i64::try_from(*index).ok())
                .map_or(Lookup::Pending, |index| Lookup::Known(Value::Int(index))),
            other => self.base.reference(other),
        }
    }

    fn secret(&self, reference: &Reference) -> bool {
        match reference {
            Reference::Elem { .. } => self.secret_elem,
            other => self.base.secret(other),
        }
    }

    fn steps(&self) -> &Steps {
        self.base.steps()
    }

    fn link(&self, from: &str, to: &str) -> Lookup {
        self.base.link(from, to)
    }

    fn cwd(&self) -> Result<String, String> {
        self.base.cwd()
    }

    fn now_unix(&self) -> i64 {
        self.base.now_unix()
    }
}

impl Env for Environment<'_> {
    fn reference(&self, reference: &Reference) -> Lookup {
        match reference {
            Reference::Variable { name } => self.variables.get(&name.text).map_or_else(
                || {
                    Lookup::Missing(format!(
                        "no value is given for the variable `{}`",
                        name.text
                    ))
                },
                |value| Lookup::Shared(value.clone()),
            ),
            Reference::Value { name, .. } => self.value(&name.text),
            Reference::Resource { name, path, .. } => self
                .resource_field(&name.text, path)
                .unwrap_or_else(|| computed_field(self.resource(&name.text), path)),
            Reference::Datasource { name, field, .. } => self
                .datasources
                .get(&name.text)
                .and_then(|fields| fields.get(&field.text))
                .map_or(Lookup::Pending, |value| Lookup::Shared(value.clone())),
            Reference::Child { name, .. } => self
                .children
                .get(&name.text)
                .map_or(Lookup::Pending, |exports| Lookup::Shared(exports.clone())),
            Reference::Elem { .. } | Reference::ElemIndex => Lookup::Missing(
                "`elem` and `i` have values only while a resource's `each` is expanded".to_owned(),
            ),
        }
    }

    fn secret(&self, reference: &Reference) -> bool {
        self.secrets.reads(reference, None)
    }

    fn steps(&self) -> &Steps {
        self.steps
    }

    /// The fields of the link between two resources of the blueprint once
    /// both are deployed, else pending (links are made by deployment); an
    /// error when either is not a resource.
    fn link(&self, from: &str, to: &str) -> Lookup {
        let Some(blueprint) = self.blueprint else {
            return Lookup::Pending;
        };
        match [from, to]
            .into_iter()
            .find(|name| !blueprint.resources.contains_key(*name))
        {
            Some(missing) => Lookup::Missing(format!(
                "`link` takes two resources of the blueprint, and `{missing}` is not one"
            )),
            None => self
                .deployed_links
                .get(&(from.to_owned(), to.to_owned()))
                .map_or(Lookup::Pending, |fields| Lookup::Known(fields.clone())),
        }
    }

    fn cwd(&self) -> Result<String, String> {
        Ok(self.cwd.clone())
    }

    fn now_unix(&self) -> i64 {
        self.now_unix
    }
}

/// Each value of `values`, shared.
fn shared(values: IndexMap<String, Value>) -> IndexMap<String, Arc<Value>> {
    values
        .into_iter()
        .map(|(name, value)| (name, Arc::new(value)))
        .collect()
}

/// The value of a field: literals as written, templates evaluated.
pub fn evaluate_tree(tree: &Tree, env: &dyn Env) -> Result<Value, Failure> {
    Ok(match tree {
        Tree::Literal(node) => Value::from_node(node),
        Tree::Template { template, .. } => evaluate(template, env)?,
        Tree::Seq { items, .. } => Value::Array(
            items
                .iter()
                .map(|item| evaluate_tree(item, env))
                .collect::<Result<_, _>>()?,
        ),
        Tree::Map { entries, .. } => Value::Object(
            entries
                .iter()
                .map(|(key, (_, tree))| Ok((key.clone(), evaluate_tree(tree, env)?)))
                .collect::<Result<_, Failure>>()?,
        ),
    })
}

/// As [`evaluate_tree`], with each field that cannot be known yet (or
/// fails: resolving the resource itself reports it) left unknown, for
/// reading the known parts of a resource.
fn partial(tree: &Tree, env: &dyn Env) -> Value {
    match tree {
        Tree::Seq { items, .. } => {
            Value::Array(items.iter().map(|item| partial(item, env)).collect())
        }
        Tree::Map { entries, .. } => Value::Object(
            entries
                .iter()
                .map(|(key, (_, tree))| (key.clone(), partial(tree, env)))
                .collect(),
        ),
        _ => evaluate_tree(tree, env).unwrap_or_else(|failure| match failure {
            Failure::Pending(what) => Value::Unknown(what),
            Failure::Error(error) => Value::Unknown(error.message.into()),
        }),
    }
}

/// A value's content read as its declared type: a string is parsed for an
/// integer, float or boolean value; an integer is a float.
#[must_use]
pub(crate) fn as_declared(value: Value, declared: Types) -> Value {
    match value {
        Value::String(text) if declared == Types::INTEGER => {
            text.trim().parse().map_or(Value::String(text), Value::Int)
        }
        Value::String(text) if declared == Types::FLOAT => text
            .trim()
            .parse()
            .map_or(Value::String(text), Value::Float),
        Value::String(text) if declared == Types::BOOLEAN => match text.trim() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(text),
        },
        #[expect(
            clippy::cast_precision_loss,
            reason = "an integer content of a float value is that float"
        )]
        Value::Int(int) if declared == Types::FLOAT => Value::Float(int as f64),
        other => other,
    }
}

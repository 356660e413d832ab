//! Change staging (`strata spec plan`): a resolved blueprint compared with
//! the state of a previous deployment.
//!
//! - The state file ([`State`]) is JSON with a format version (only
//!   [`STATE_FORMAT`] is read; any other is an error, never ignored): each
//!   resource's type, resolved spec, state fields and links, the children
//!   (each a state of the same shape) and the exports. No state: everything
//!   is created.
//! - Each resource is created (`+`), updated (`~`, with a field-level diff),
//!   replaced (`-/+`: its type changed, or a [`ResourceProvider`] says a
//!   changed field forces a new resource), deleted (`-`) or unchanged. A
//!   field that waits on deployment is a change to "known after deploy".
//! - Links (as the graph makes them, unsupported ones aside) and children
//!   likewise; a child's plan is nested.
//! - A provider also checks the resolved spec of its types; the built-in
//!   [`CoreProvider`] knows `core/file` and `core/value`, for examples and
//!   tests. Resource types no provider knows are accepted unchecked.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use strata_subst::Value;
use strata_syntax::{Diagnostic, FieldPath, Node, Outcome};

use super::address::{Edges, ResourceEdges, child_prefix};
use super::graph::{Graph, LinkState};
use crate::codes;
use crate::resolve::{MASK, ResolvedBlueprint};
use crate::validate::Element;

/// The state file format this release reads and writes.
pub const STATE_FORMAT: u32 = 1;

/// The record of a previous deployment of one blueprint instance.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The format of the file: 1.
    pub format_version: u32,
    /// The resources deployed, by name (instances of `each` resources as
    /// `<name>_<index>`).
    #[serde(default)]
    pub resources: BTreeMap<String, StateResource>,
    /// The children deployed, by include name.
    #[serde(default)]
    pub children: BTreeMap<String, State>,
    /// The exports at the end of the deployment.
    #[serde(default)]
    pub exports: BTreeMap<String, Json>,
    /// The exports that read secret material: masked where shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secret_exports: Vec<String>,
}

/// One deployed resource.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StateResource {
    /// The resource type.
    #[serde(rename = "type")]
    pub resource_type: String,
    /// The spec it was deployed with.
    #[serde(default)]
    pub spec: Json,
    /// The fields the provider reported after deployment.
    #[serde(default)]
    pub state: Json,
    /// The resources it links to.
    #[serde(default)]
    pub links: Vec<String>,
    /// The fields the link provider gave a link of it, by the resource
    /// linked to (links without fields are not listed): what
    /// `${link(this, that)}` reads once both are deployed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub link_fields: BTreeMap<String, Json>,
    /// What it was deployed after (the order's edges into it, by address:
    /// a resource, or `children.c` for every resource of include `c`):
    /// deleted before them, even once the blueprint no longer says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
    /// The spec fields that held secret material when it was deployed
    /// (`env.password`, `args[1]`): a plan masks their old values too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secret_fields: Vec<String>,
}

impl State {
    /// The state a deployment of `resolved` would record: each resource's
    /// type and spec (fields known only after deployment as `null`, no
    /// state fields), the links of `graph` (unsupported ones aside), and
    /// the children likewise (with their graphs' links). For tests,
    /// benchmarks and tools that write a first state.
    #[must_use]
    pub fn of(resolved: &ResolvedBlueprint, graph: &Graph) -> State {
        State::with_edges(resolved, &mut Edges::of(graph), "")
    }

    /// [`State::of`] for the blueprint whose addresses start with
    /// `prefix`, its graph's (and its children's) `edges` by address.
    fn with_edges(resolved: &ResolvedBlueprint, edges: &mut Edges, prefix: &str) -> State {
        State {
            format_version: STATE_FORMAT,
            resources: resolved
                .resources
                .iter()
                .map(|(name, resource)| {
                    let ResourceEdges {
                        links,
                        link_fields,
                        depends_on,
                    } = edges.take(&format!("{prefix}{name}"));
                    let deployed = StateResource {
                        resource_type: resource.resource_type.clone(),
                        spec: known_json(&resource.spec),
                        state: Json::Null,
                        links,
                        depends_on,
                        link_fields,
                        secret_fields: resource
                            .secret_fields
                            .iter()
                            .map(ToString::to_string)
                            .collect(),
                    };
                    (name.clone(), deployed)
                })
                .collect(),
            children: resolved
                .children
                .iter()
                .map(|(name, child)| {
                    let prefix = format!("{prefix}{}", child_prefix(name));
                    (name.clone(), State::with_edges(child, edges, &prefix))
                })
                .collect(),
            exports: resolved
                .exports
                .iter()
                .map(|(name, value)| (name.clone(), known_json(value)))
                .collect(),
            secret_exports: secret_exports(resolved),
        }
    }
}

/// The names of the exports of `resolved` that read a secret, in order.
pub(crate) fn secret_exports(resolved: &ResolvedBlueprint) -> Vec<String> {
    resolved
        .exports
        .keys()
        .filter(|name| resolved.secret.contains(&Element::Export((*name).clone())))
        .cloned()
        .collect()
}

/// A value as JSON, what waits on deployment as `null`.
fn known_json(value: &Value) -> Json {
    match value {
        Value::Array(items) => Json::Array(items.iter().map(known_json).collect()),
        Value::Object(fields) => Json::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), known_json(value)))
                .collect(),
        ),
        other => other.to_json().unwrap_or(Json::Null),
    }
}

/// A resource type's provider, as change staging uses it.
pub trait ResourceProvider: Send + Sync {
    /// Whether this provider owns `resource_type`.
    fn handles(&self, resource_type: &str) -> bool;

    /// The problems of a resolved spec: each a field path (inside `spec`)
    /// and a message.
    fn check_spec(&self, resource_type: &str, spec: &Value) -> Vec<(FieldPath, String)>;

    /// Whether changing the spec field at `path` needs a new resource.
    fn recreates(&self, resource_type: &str, path: &FieldPath) -> bool;
}

/// What happens to one resource, link or child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// Created.
    Create,
    /// Updated in place.
    Update,
    /// Deleted and created again.
    Replace,
    /// Deleted.
    Delete,
    /// Left as it is.
    NoChange,
}

impl Action {
    /// The terraform-style mark: `+`, `~`, `-/+`, `-`, `=`.
    #[must_use]
    pub fn mark(self) -> &'static str {
        match self {
            Action::Create => "+",
            Action::Update => "~",
            Action::Replace => "-/+",
            Action::Delete => "-",
            Action::NoChange => "=",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Replace => "replace",
            Action::Delete => "delete",
            Action::NoChange => "no-change",
        }
    }
}

/// One changed field of a resource's spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The field, inside `spec`.
    pub path: FieldPath,
    /// Its value before (`None`: it is new).
    pub before: Option<Json>,
    /// Its value after (`None`: it is removed); a value that waits on
    /// deployment is the string it waits on, with `known_after_deploy`.
    pub after: Option<Json>,
    /// Whether `after` is known only after deployment.
    pub known_after_deploy: bool,
    /// Whether the change needs a new resource.
    pub forces_replacement: bool,
}

/// What happens to one resource.
#[derive(Debug, Clone)]
pub struct ResourcePlan {
    /// The resource's name.
    pub name: String,
    /// Its type (after, or before for a deletion).
    pub resource_type: String,
    /// What happens.
    pub action: Action,
    /// The changed fields (for an update or a replacement), or the fields
    /// set (for a creation).
    pub changes: Vec<Change>,
    /// Why it is replaced.
    pub reason: Option<String>,
}

/// What happens to one link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPlan {
    /// The linking resource.
    pub from: String,
    /// The linked resource.
    pub to: String,
    /// Created, deleted or unchanged.
    pub action: Action,
}

/// The staged changes of a blueprint and its children.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The resources, in blueprint order, deletions last.
    pub resources: Vec<ResourcePlan>,
    /// The links.
    pub links: Vec<LinkPlan>,
    /// The children, by include name: created, deleted or planned.
    pub children: BTreeMap<String, (Action, Plan)>,
}

/// Reads a state document (already parsed): its format version first.
pub fn read_state(document: &Node) -> Outcome<State> {
    static DECODER: std::sync::LazyLock<strata_schema::Decoder<State>> =
        std::sync::LazyLock::new(strata_schema::Decoder::new);
    if let Some(version) = document.get("formatVersion")
        && !matches!(version.value, strata_syntax::Value::Int(found) if found == i64::from(STATE_FORMAT))
    {
        return Outcome::error(
            Diagnostic::error(
                codes::STATE,
                format!("this state file has the format version `{}`; this release reads version {STATE_FORMAT}", strata_syntax::emit::to_json(version).unwrap_or_default().trim()),
                version.span,
            )
            .with_path(FieldPath::root().key("formatVersion")),
        );
    }
    match DECODER.decode(document) {
        Ok(state) => Outcome::ok(state),
        Err(problems) => Outcome::failed(problems),
    }
}

/// Stages the changes from `state` (none: a first deployment) to
/// `resolved`, with the links of `graph` (a child's, of its own graph);
/// `providers` check specs and say which changes recreate.
pub fn plan(
    resolved: &ResolvedBlueprint,
    graph: &Graph,
    state: Option<&State>,
    providers: &[Arc<dyn ResourceProvider>],
) -> Outcome<Plan> {
    let mut problems = Vec::new();
    let empty = State::default();
    let state = state.unwrap_or(&empty);
    let mut plan = Plan {
        resources: plan_resources(resolved, state, providers, &mut problems),
        links: plan_links(graph, state),
        children: BTreeMap::new(),
    };
    let no_graph = Graph::default();
    for (name, child) in &resolved.children {
        let child_graph = graph.children.get(name).unwrap_or(&no_graph);
        let before = state.children.get(name);
        let nested = plan_child(child, child_graph, before, providers, &mut problems);
        let action = if before.is_some() {
            summary_action(&nested)
        } else {
            Action::Create
        };
        plan.children.insert(name.clone(), (action, nested));
    }
    for (name, before) in &state.children {
        if !resolved.children.contains_key(name) {
            plan.children
                .insert(name.clone(), (Action::Delete, deleted(before)));
        }
    }
    Outcome::new(Some(plan), problems).valid()
}

/// Each resolved resource against its state, then the deployed resources
/// the blueprint no longer has.
fn plan_resources(
    resolved: &ResolvedBlueprint,
    state: &State,
    providers: &[Arc<dyn ResourceProvider>],
    problems: &mut Vec<Diagnostic>,
) -> Vec<ResourcePlan> {
    // Each resource alone, on every core, in the blueprint's order.
    let resources: Vec<_> = resolved.resources.iter().collect();
    let planned = strata_dialect::map_ordered(&resources, |(name, resource)| {
        let mut found = Vec::new();
        let plan = plan_resource(name, resource, state, providers, &mut found);
        (plan, found)
    });
    let mut plans = Vec::with_capacity(planned.len());
    for (plan, found) in planned {
        plans.push(plan);
        problems.extend(found);
    }
    for (name, before) in &state.resources {
        if !resolved.resources.contains_key(name) {
            plans.push(ResourcePlan {
                name: name.clone(),
                resource_type: before.resource_type.clone(),
                action: Action::Delete,
                changes: Vec::new(),
                reason: None,
            });
        }
    }
    plans
}

/// One resolved resource against its state (none: created); a provider's
/// problems with its spec go to `problems`.
fn plan_resource(
    name: &str,
    resource: &crate::ResolvedResource,
    state: &State,
    providers: &[Arc<dyn ResourceProvider>],
    problems: &mut Vec<Diagnostic>,
) -> ResourcePlan {
    let provider = providers
        .iter()
        .find(|provider| provider.handles(&resource.resource_type));
    if let Some(provider) = provider {
        for (path, message) in provider.check_spec(&resource.resource_type, &resource.spec) {
            let mut full = FieldPath::root()
                .key("resources")
                .key(&resource.template)
                .key("spec");
            for segment in path.segments() {
                full.push(segment.clone());
            }
            problems.push(
                Diagnostic::error(
                    codes::PROVIDER_SPEC,
                    format!("`{name}`: {message}"),
                    resource.spec_span,
                )
                .with_path(full),
            );
        }
    }
    // Compared as resolved, shown with secrets masked.
    let after = value_json(&resource.spec);
    let Some(before) = state.resources.get(name) else {
        return ResourcePlan {
            name: name.to_owned(),
            resource_type: resource.resource_type.clone(),
            action: Action::Create,
            changes: masked(
                diff(None, Some(&after), &FieldPath::root()),
                &resource.secret_fields,
            ),
            reason: None,
        };
    };
    // Secret now, or secret when deployed: either side may hold one.
    let mut secrets = resource.secret_fields.clone();
    secrets.extend(
        before
            .secret_fields
            .iter()
            .filter_map(|field| FieldPath::parse(field).ok()),
    );
    let mut changes = masked(
        diff(Some(&before.spec), Some(&after), &FieldPath::root()),
        &secrets,
    );
    let mut reason = None;
    if let Some(provider) = provider {
        for change in &mut changes {
            change.forces_replacement = provider.recreates(&resource.resource_type, &change.path);
            if change.forces_replacement && reason.is_none() {
                reason = Some(format!("changing `{}` needs a new resource", change.path));
            }
        }
    }
    if before.resource_type != resource.resource_type {
        reason = Some(format!("its type changes from `{}`", before.resource_type));
    }
    let action = match (&reason, changes.is_empty()) {
        (Some(_), _) => Action::Replace,
        (None, true) => Action::NoChange,
        (None, false) => Action::Update,
    };
    ResourcePlan {
        name: name.to_owned(),
        resource_type: resource.resource_type.clone(),
        action,
        changes,
        reason,
    }
}

/// The links the graph makes against those the state records.
fn plan_links(graph: &Graph, state: &State) -> Vec<LinkPlan> {
    let wanted: BTreeSet<(String, String)> = graph
        .links
        .iter()
        .filter(|link| link.state != LinkState::Unsupported)
        .map(|link| (link.from.clone(), link.to.clone()))
        .collect();
    let had: BTreeSet<(String, String)> = state
        .resources
        .iter()
        .flat_map(|(from, resource)| {
            resource
                .links
                .iter()
                .map(move |to| (from.clone(), to.clone()))
        })
        .collect();
    wanted
        .union(&had)
        .map(|pair| LinkPlan {
            from: pair.0.clone(),
            to: pair.1.clone(),
            action: match (wanted.contains(pair), had.contains(pair)) {
                (true, true) => Action::NoChange,
                (true, false) => Action::Create,
                _ => Action::Delete,
            },
        })
        .collect()
}

fn plan_child(
    child: &ResolvedBlueprint,
    graph: &Graph,
    state: Option<&State>,
    providers: &[Arc<dyn ResourceProvider>],
    problems: &mut Vec<Diagnostic>,
) -> Plan {
    let outcome = plan(child, graph, state, providers);
    problems.extend(outcome.diagnostics);
    outcome.value.unwrap_or_default()
}

/// Everything of a state deleted.
fn deleted(state: &State) -> Plan {
    Plan {
        resources: state
            .resources
            .iter()
            .map(|(name, resource)| ResourcePlan {
                name: name.clone(),
                resource_type: resource.resource_type.clone(),
                action: Action::Delete,
                changes: Vec::new(),
                reason: None,
            })
            .collect(),
        links: Vec::new(),
        children: state
            .children
            .iter()
            .map(|(name, child)| (name.clone(), (Action::Delete, deleted(child))))
            .collect(),
    }
}

/// A child's action: unchanged when nothing in it changes, else updated.
fn summary_action(plan: &Plan) -> Action {
    if plan.has_changes() {
        Action::Update
    } else {
        Action::NoChange
    }
}

/// The changes that touch secret material masked, both sides: a change
/// at or below a secret field, and a change of a field that holds one
/// below it (a list or a mapping replaced whole, or a value that changes
/// kind). A secret that changes is an update, shown `********`.
fn masked(mut changes: Vec<Change>, secrets: &[FieldPath]) -> Vec<Change> {
    for change in &mut changes {
        let (at, secrets) = (change.path.segments(), secrets.iter());
        let secret = secrets
            .map(FieldPath::segments)
            .any(|secret| at.starts_with(secret) || secret.starts_with(at));
        if secret {
            let mask = |value: &mut Option<Json>| {
                if value.is_some() {
                    *value = Some(Json::String(MASK.to_owned()));
                }
            };
            mask(&mut change.before);
            mask(&mut change.after);
        }
    }
    changes
}

/// The marker key of a value known only after deployment, in plans.
const KNOWN_AFTER_DEPLOY: &str = "knownAfterDeploy";

fn value_json(value: &Value) -> Json {
    match value {
        Value::Unknown(what) => serde_json::json!({ KNOWN_AFTER_DEPLOY: what.to_string() }),
        Value::Array(items) => Json::Array(items.iter().map(value_json).collect()),
        Value::Object(fields) => Json::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), value_json(value)))
                .collect(),
        ),
        other => other.to_json().unwrap_or(Json::Null),
    }
}

fn unknown_of(json: &Json) -> Option<&str> {
    match json {
        Json::Object(fields) if fields.len() == 1 => {
            fields.get(KNOWN_AFTER_DEPLOY).and_then(Json::as_str)
        }
        _ => None,
    }
}

/// The field-level changes from `before` to `after`.
fn diff(before: Option<&Json>, after: Option<&Json>, path: &FieldPath) -> Vec<Change> {
    match (before, after) {
        (Some(Json::Object(old)), Some(Json::Object(new)))
            if unknown_of(after.unwrap_or(&Json::Null)).is_none() =>
        {
            let mut changes = Vec::new();
            for (key, value) in new {
                changes.extend(diff(old.get(key), Some(value), &path.key(key)));
            }
            for (key, value) in old {
                if !new.contains_key(key) {
                    changes.extend(diff(Some(value), None, &path.key(key)));
                }
            }
            changes
        }
        (None, Some(Json::Object(new)))
            if unknown_of(after.unwrap_or(&Json::Null)).is_none() && !new.is_empty() =>
        {
            new.iter()
                .flat_map(|(key, value)| diff(None, Some(value), &path.key(key)))
                .collect()
        }
        // Lists item by item, so a change names the item it is in (and a
        // secret item is masked alone).
        (Some(Json::Array(old)), Some(Json::Array(new))) => (0..old.len().max(new.len()))
            .flat_map(|index| diff(old.get(index), new.get(index), &path.index(index)))
            .collect(),
        (before, after) if before == after => Vec::new(),
        (before, after) => {
            let known_after_deploy = after.and_then(unknown_of).is_some();
            vec![Change {
                path: path.clone(),
                before: before.cloned(),
                after: after.map(|after| {
                    unknown_of(after)
                        .map_or_else(|| after.clone(), |what| Json::String(what.to_owned()))
                }),
                known_after_deploy,
                forces_replacement: false,
            }]
        }
    }
}

impl Plan {
    /// Whether anything is created, updated, replaced or deleted.
    #[must_use]
    pub fn has_changes(&self) -> bool {
        self.resources
            .iter()
            .any(|resource| resource.action != Action::NoChange)
            || self
                .links
                .iter()
                .any(|link| link.action != Action::NoChange)
            || self
                .children
                .values()
                .any(|(action, plan)| *action != Action::NoChange || plan.has_changes())
    }

    /// How many resources (children's included) each action touches.
    #[must_use]
    pub fn counts(&self) -> BTreeMap<Action, usize> {
        let mut counts = BTreeMap::new();
        for resource in &self.resources {
            *counts.entry(resource.action).or_insert(0) += 1;
        }
        for (_, child) in self.children.values() {
            for (action, count) in child.counts() {
                *counts.entry(action).or_insert(0) += count;
            }
        }
        counts
    }

    /// The plan as text, in the manner of a terraform plan.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        self.write_text(&mut text, "");
        let counts = self.counts();
        let count = |action| counts.get(&action).copied().unwrap_or_default();
        let _ = writeln!(
            text,
            "\nPlan: {} to create, {} to update, {} to replace, {} to delete, {} unchanged.",
            count(Action::Create),
            count(Action::Update),
            count(Action::Replace),
            count(Action::Delete),
            count(Action::NoChange)
        );
        text
    }

    fn write_text(&self, text: &mut String, prefix: &str) {
        for resource in &self.resources {
            let mut line = format!(
                "{} {prefix}resources.{} ({})",
                resource.action.mark(),
                resource.name,
                resource.resource_type
            );
            if let Some(reason) = &resource.reason {
                let _ = write!(line, ": {reason}");
            }
            let _ = writeln!(text, "{line}");
            for change in &resource.changes {
                let show = |json: &Option<Json>| {
                    json.as_ref()
                        .map_or_else(|| "(none)".to_owned(), ToString::to_string)
                };
                let after = if change.known_after_deploy {
                    format!(
                        "(known after deploy: {})",
                        change
                            .after
                            .as_ref()
                            .and_then(Json::as_str)
                            .unwrap_or_default()
                    )
                } else {
                    show(&change.after)
                };
                let note = if change.forces_replacement {
                    "   # forces replacement"
                } else {
                    ""
                };
                let _ = match (resource.action, &change.before) {
                    (Action::Create, _) | (_, None) => {
                        writeln!(text, "    + {} = {after}{note}", change.path)
                    }
                    (_, before) if change.after.is_none() => {
                        writeln!(text, "    - {} = {}{note}", change.path, show(before))
                    }
                    (_, before) => writeln!(
                        text,
                        "    ~ {}: {} -> {after}{note}",
                        change.path,
                        show(before)
                    ),
                };
            }
        }
        for link in &self.links {
            if link.action != Action::NoChange {
                let _ = writeln!(
                    text,
                    "{} {prefix}link {} -> {}",
                    link.action.mark(),
                    link.from,
                    link.to
                );
            }
        }
        for (name, (action, child)) in &self.children {
            let _ = writeln!(text, "{} {prefix}children.{name}", action.mark());
            child.write_text(text, &format!("{prefix}children.{name}."));
        }
    }

    /// The plan as JSON, for machines.
    #[must_use]
    pub fn to_json(&self) -> Json {
        let resources: Vec<Json> = self
            .resources
            .iter()
            .map(|resource| {
                let changes: Vec<Json> = resource
                    .changes
                    .iter()
                    .map(|change| {
                        serde_json::json!({
                            "path": change.path.to_string(),
                            "before": change.before,
                            "after": change.after,
                            "knownAfterDeploy": change.known_after_deploy,
                            "forcesReplacement": change.forces_replacement,
                        })
                    })
                    .collect();
                serde_json::json!({
                    "name": resource.name,
                    "type": resource.resource_type,
                    "action": resource.action.name(),
                    "reason": resource.reason,
                    "changes": changes,
                })
            })
            .collect();
        let links: Vec<Json> = self
            .links
            .iter()
            .map(|link| serde_json::json!({"from": link.from, "to": link.to, "action": link.action.name()}))
            .collect();
        let children: serde_json::Map<String, Json> = self
            .children
            .iter()
            .map(|(name, (action, plan))| {
                let mut child = plan.to_json();
                child["action"] = Json::String(action.name().to_owned());
                (name.clone(), child)
            })
            .collect();
        let counts: serde_json::Map<String, Json> = self
            .counts()
            .into_iter()
            .map(|(action, count)| (action.name().to_owned(), Json::from(count)))
            .collect();
        serde_json::json!({
            "resources": resources,
            "links": links,
            "children": children,
            "summary": counts,
            "hasChanges": self.has_changes(),
        })
    }
}

//! The deployer: a plan applied through providers, every change recorded
//! in a state store, so that a deploy that dies anywhere is finished or
//! undone by the next one.
//!
//! 1. **Lock**: the store's lock is taken (a holder that is going away is
//!    waited for up to 2 s); held: [`DeployError::Held`], exit 3.
//! 2. **Recovery**: each intent without an outcome (a deploy died between
//!    its provider call and its commit) is resolved by reading the
//!    resource back: what the intent planned is there (adopted), nothing
//!    changed (abandoned; the plan does it again), or something foreign is
//!    there ([`DeployError::Foreign`], exit 4, nothing touched).
//! 3. **Groups**: the blueprint is rendered again before each group of
//!    the deployment order with the states recorded so far, so a spec
//!    reading `${resources.x.state.f}` gets what `x`'s provider reported;
//!    each resource of the group that the plan changes is created,
//!    updated or replaced (deleted, then created). Resources the blueprint
//!    no longer has are deleted last, dependents first.
//! 4. Each change commits its intent before the provider call and its
//!    outcome with the resource's record after it, in one transaction.
//! 5. **Rollback** (the default): when a change fails, the changes this
//!    deploy made are undone in reverse order from their records before,
//!    so the instance is as it was; a step that cannot be undone is
//!    reported and its record stays true to what is there. Without
//!    rollback, what succeeded is kept. Either way the failure is in the
//!    journal, never among the resources.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as Json;
use strata_subst::Value;

use super::address::{self, Edges, ResourceEdges};
use super::graph::Graph;
use super::plan::{Action, Plan, ResourcePlan, ResourceProvider, State, StateResource};
use super::provider::{Live, Provider};
use super::store::{Intent, Outcome, StateStore, StoreError};
use crate::resolve::{Deployed, ResolvedBlueprint};

/// How long a deploy waits for a lock whose holder is going away.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);

/// Why a deploy stopped before applying anything, or failed.
#[derive(Debug)]
pub enum DeployError {
    /// Another deploy holds the state (exit 3).
    Held(Option<strata_fs::Holder>),
    /// Recovery found something it must not touch (exit 4).
    Foreign(String),
    /// The store or the render failed.
    Failed(String),
}

impl std::fmt::Display for DeployError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeployError::Held(holder) => {
                write!(f, "{}", StoreError::Held(holder.clone()))
            }
            DeployError::Foreign(message) | DeployError::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for DeployError {}

impl From<StoreError> for DeployError {
    fn from(error: StoreError) -> DeployError {
        match error {
            StoreError::Held(holder) => DeployError::Held(holder),
            StoreError::Failed(message) => DeployError::Failed(message),
        }
    }
}

/// One change made (or undone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The resource.
    pub resource: String,
    /// `create`, `update`, `delete`.
    pub action: String,
}

/// What a deploy did.
#[derive(Debug, Default)]
pub struct Report {
    /// What recovery resolved: resource and `adopted` or `abandoned`.
    pub recovered: Vec<(String, String)>,
    /// The changes made, in order.
    pub applied: Vec<Step>,
    /// The change that failed, and why.
    pub failed: Option<(Step, String)>,
    /// The plan, as made at the start (after recovery and refresh).
    pub plan: Plan,
    /// The changes undone, in order.
    pub reverted: Vec<Step>,
    /// The undo steps that failed, and why.
    pub unreverted: Vec<(Step, String)>,
    /// The exports recorded after a deploy that succeeded.
    pub exports: BTreeMap<String, Json>,
    /// Which of them read a secret.
    pub secret_exports: Vec<String>,
}

impl Report {
    /// Whether every change succeeded.
    #[must_use]
    pub fn succeeded(&self) -> bool {
        self.failed.is_none()
    }
}

/// A render of the blueprint with the states recorded so far, and its
/// graph.
pub type Render<'r> = dyn FnMut(&Deployed) -> Result<(ResolvedBlueprint, Graph), String> + 'r;

/// What a deploy runs with.
pub struct Deployer<'a> {
    /// Where the instance's state is.
    pub store: &'a dyn StateStore,
    /// The providers of the resource types.
    pub providers: &'a [Arc<dyn Provider>],
    /// The instance.
    pub instance: &'a str,
    /// This deploy's id, in the journal.
    pub deploy: String,
    /// Whether a failure undoes this deploy's changes.
    pub rollback: bool,
}

impl Deployer<'_> {
    fn provider(&self, resource_type: &str) -> Result<&dyn Provider, String> {
        self.providers
            .iter()
            .find(|provider| provider.handles(resource_type))
            .map(AsRef::as_ref)
            .ok_or_else(|| format!("no provider deploys `{resource_type}` resources"))
    }

    /// Records the exports of the blueprint rendered with every state
    /// deployed, and which of them read a secret, in the store and in
    /// `report`.
    fn record_exports(
        &self,
        render: &mut Render<'_>,
        report: &mut Report,
    ) -> Result<(), DeployError> {
        let state = self.store.load(self.instance)?;
        let (resolved, graph) = render(&state.deployed()).map_err(DeployError::Failed)?;
        let outputs = State::of(&resolved, &graph).outputs();
        self.store.set_outputs(self.instance, &outputs)?;
        report.exports = outputs.exports;
        report.secret_exports = outputs.secret_exports;
        Ok(())
    }

    /// Recovery, then the plan applied group by group (see the module
    /// documentation); `render` renders and plans the blueprint with the
    /// states recorded so far.
    ///
    /// # Errors
    /// A held lock, something foreign found by recovery, a store failure.
    pub fn deploy(&self, render: &mut Render<'_>) -> Result<Report, DeployError> {
        let _lock = self.store.lock(LOCK_WAIT)?;
        let mut report = Report {
            recovered: self.recover()?,
            ..Report::default()
        };
        let state = self.store.load(self.instance)?;
        let mut drift = self.refresh(&state)?;
        let (resolved, graph) = render(&state.deployed()).map_err(DeployError::Failed)?;
        report.plan = self.plan(&resolved, &graph, &drift)?;
        // What reads the state of a resource this deploy changes is known
        // only after it: planned again without those states, for showing.
        let mut deployed = state.deployed();
        // Whether a group's deploy can change what a later group reads:
        // something of this render waits on a deploy, with the states of
        // the resources this deploy changes withheld.
        let mut reads_deploys = waits_on_deploys(&resolved);
        if report.plan.keep_unchanged(&mut deployed) {
            let (resolved, graph) = render(&deployed).map_err(DeployError::Failed)?;
            report.plan = self.plan(&resolved, &graph, &drift)?;
            reads_deploys = waits_on_deploys(&resolved);
        }
        let mut done: Vec<(String, Option<StateResource>, Option<StateResource>)> = Vec::new();
        let mut failure = None;
        // The render, the graph's edges and the plan each group deploys from, and
        // the records as this deploy changes them (it alone writes, under
        // the lock). Rendered again before each group only when a group's
        // deploy can change what a later one reads: otherwise a chain of N
        // resources would be rendered N times for nothing.
        let mut current: Option<(ResolvedBlueprint, Edges, BTreeMap<String, ResourcePlan>)> = None;
        let mut records = BTreeMap::new();
        'groups: for group in &address::groups(&graph) {
            if current.is_none() || reads_deploys {
                let state = self.store.load(self.instance)?;
                let (resolved, graph) = render(&state.deployed()).map_err(DeployError::Failed)?;
                let plan = self.plan_from(state.clone(), &resolved, &graph, &drift)?;
                records = state.addressed();
                let planned = plan
                    .addressed()
                    .into_iter()
                    .map(|(address, planned)| (address, planned.clone()))
                    .collect();
                current = Some((resolved, Edges::of(&graph), planned));
            }
            let Some((resolved, edges, planned_by_address)) = &current else {
                break;
            };
            for name in group {
                let Some(planned) = planned_by_address.get(name) else {
                    continue;
                };
                let steps = match planned.action {
                    Action::Create | Action::Update => vec![planned.action],
                    Action::Replace => vec![Action::Delete, Action::Create],
                    Action::Delete | Action::NoChange => Vec::new(),
                };
                for action in steps {
                    let current = records.get(name).cloned();
                    let after = match action {
                        Action::Delete => None,
                        _ => match record_of(resolved, edges, name) {
                            Ok(record) => Some(record),
                            Err(why) => {
                                failure = Some((step(name, action), why));
                                break 'groups;
                            }
                        },
                    };
                    // A record whose resource is gone is created again.
                    let action = match (action, drift.get(name)) {
                        (Action::Update, Some(None)) => Action::Create,
                        (action, _) => action,
                    };
                    match self.change(name, action, current.as_ref(), after.as_ref())? {
                        Ok(record) => {
                            report.applied.push(step(name, action));
                            drift.remove(name);
                            match &record {
                                Some(record) => records.insert(name.clone(), record.clone()),
                                None => records.remove(name),
                            };
                            done.push((name.clone(), current, record));
                        }
                        Err(why) => {
                            failure = Some((step(name, action), why));
                            break 'groups;
                        }
                    }
                }
            }
        }
        if failure.is_none() {
            failure = self.delete_removed(render, &mut report, &mut done)?;
        }
        match failure {
            None => self.record_exports(render, &mut report)?,
            Some(failed) => {
                report.failed = Some(failed);
                if self.rollback {
                    self.undo(&done, &mut report)?;
                }
            }
        }
        Ok(report)
    }

    /// Deletes what the state holds and the blueprint no longer does,
    /// dependents first; the failure, if one fails.
    fn delete_removed(
        &self,
        render: &mut Render<'_>,
        report: &mut Report,
        done: &mut Vec<(String, Option<StateResource>, Option<StateResource>)>,
    ) -> Result<Option<(Step, String)>, DeployError> {
        let state = self.store.load(self.instance)?;
        let (resolved, _) = render(&state.deployed()).map_err(DeployError::Failed)?;
        let removed: BTreeMap<String, StateResource> = state
            .addressed()
            .into_iter()
            .filter(|(address, _)| address::resource_at(&resolved, address).is_none())
            .collect();
        for name in dependents_first(&removed) {
            let record = removed[&name].clone();
            match self.change(&name, Action::Delete, Some(&record), None)? {
                Ok(_) => {
                    report.applied.push(step(&name, Action::Delete));
                    done.push((name, Some(record), None));
                }
                Err(why) => return Ok(Some((step(&name, Action::Delete), why))),
            }
        }
        Ok(None)
    }

    /// What differs on disk from the records: by resource, `None` when it
    /// is gone, else the fields it has now (a deploy repairs both).
    fn refresh(&self, state: &State) -> Result<BTreeMap<String, Option<Json>>, DeployError> {
        let mut drift = BTreeMap::new();
        for (name, record) in &state.addressed() {
            let Ok(provider) = self.provider(&record.resource_type) else {
                continue;
            };
            match provider.read(&record.resource_type, record) {
                Ok(Live::Absent) => {
                    drift.insert(name.clone(), None);
                }
                Ok(Live::Present { spec, .. }) if !same_spec(&spec, &record.spec) => {
                    drift.insert(name.clone(), Some(spec));
                }
                Ok(Live::Present { .. }) => {}
                Err(error) => return Err(DeployError::Failed(error.message)),
            }
        }
        Ok(drift)
    }

    /// The plan from the recorded state, as refreshed by `drift`, to
    /// `resolved`.
    fn plan(
        &self,
        resolved: &ResolvedBlueprint,
        graph: &Graph,
        drift: &BTreeMap<String, Option<Json>>,
    ) -> Result<Plan, DeployError> {
        let state = self.store.load(self.instance)?;
        self.plan_from(state, resolved, graph, drift)
    }

    /// The plan from `state`, as refreshed by `drift`, to `resolved`.
    fn plan_from(
        &self,
        mut state: State,
        resolved: &ResolvedBlueprint,
        graph: &Graph,
        drift: &BTreeMap<String, Option<Json>>,
    ) -> Result<Plan, DeployError> {
        for (address, live) in drift {
            if let Some(record) = state.addressed_mut(address) {
                // Gone: every field is set again.
                record.spec = live.clone().unwrap_or(Json::Null);
            }
        }
        let checks = checking(self.providers);
        let planned = super::plan::plan(resolved, graph, Some(&state), &checks);
        planned.value.ok_or_else(|| {
            let why = planned
                .diagnostics
                .first()
                .map_or_else(String::new, |problem| problem.message.clone());
            DeployError::Failed(format!("the blueprint cannot be planned: {why}"))
        })
    }

    /// One change through its provider, recorded: the intent first, then
    /// the outcome with the record; the provider's failure as `Err`.
    fn change(
        &self,
        name: &str,
        action: Action,
        before: Option<&StateResource>,
        after: Option<&StateResource>,
    ) -> Result<Result<Option<StateResource>, String>, DeployError> {
        self.recorded(name, action, before, after, Outcome::Done)
    }

    /// A change through its provider, recorded: the intent first, then
    /// the outcome (`done` of the record after it, or the failure) with
    /// the record, in one transaction; the provider's failure as `Err`.
    fn recorded(
        &self,
        name: &str,
        action: Action,
        before: Option<&StateResource>,
        after: Option<&StateResource>,
        done: fn(Option<StateResource>) -> Outcome,
    ) -> Result<Result<Option<StateResource>, String>, DeployError> {
        let intent = Intent {
            deploy: self.deploy.clone(),
            resource: name.to_owned(),
            action: action_name(action).to_owned(),
            before: before.cloned(),
            after: after.cloned(),
        };
        let id = self.store.begin(self.instance, &intent)?;
        let (outcome, result) = match self.call(action, before, after) {
            Ok(record) => (done(record.clone()), Ok(record)),
            Err(why) => (Outcome::Failed(why.clone()), Err(why)),
        };
        self.store.finish(self.instance, id, &outcome)?;
        Ok(result)
    }

    /// The provider call of a change; the record after it.
    fn call(
        &self,
        action: Action,
        before: Option<&StateResource>,
        after: Option<&StateResource>,
    ) -> Result<Option<StateResource>, String> {
        let fail = |error: super::provider::ProviderError| error.message;
        crate::deploy::failpoint("before-call");
        let outcome = match (action, before, after) {
            (Action::Delete, Some(before), _) => {
                self.provider(&before.resource_type)?
                    .delete(&before.resource_type, before)
                    .map_err(fail)?;
                None
            }
            (Action::Update, Some(before), Some(after)) => {
                let state = self
                    .provider(&after.resource_type)?
                    .update(&after.resource_type, before, &after.spec)
                    .map_err(fail)?;
                Some(StateResource {
                    state,
                    ..after.clone()
                })
            }
            (_, _, Some(after)) => {
                let state = self
                    .provider(&after.resource_type)?
                    .create(&after.resource_type, &after.spec)
                    .map_err(fail)?;
                Some(StateResource {
                    state,
                    ..after.clone()
                })
            }
            _ => return Err("nothing to change".to_owned()),
        };
        crate::deploy::failpoint("after-call");
        Ok(outcome)
    }

    /// Undoes `done`, newest first.
    fn undo(
        &self,
        done: &[(String, Option<StateResource>, Option<StateResource>)],
        report: &mut Report,
    ) -> Result<(), DeployError> {
        for (name, before, after) in done.iter().rev() {
            let (action, undo_before, undo_after) = match (before, after) {
                (None, Some(after)) => (Action::Delete, Some(after), None),
                (Some(before), Some(after)) => (Action::Update, Some(after), Some(before)),
                (Some(before), None) => (Action::Create, None, Some(before)),
                (None, None) => continue,
            };
            match self.recorded(name, action, undo_before, undo_after, Outcome::Reverted)? {
                Ok(_) => report.reverted.push(step(name, action)),
                Err(why) => report.unreverted.push((step(name, action), why)),
            }
        }
        Ok(())
    }

    /// Resolves every intent without an outcome by reading its resource
    /// back; what was resolved, by resource.
    fn recover(&self) -> Result<Vec<(String, String)>, DeployError> {
        let mut recovered = Vec::new();
        for entry in self.store.journal(self.instance)? {
            if entry.status != "intent" {
                continue;
            }
            let intent = &entry.intent;
            let Some(record) = intent.after.as_ref().or(intent.before.as_ref()) else {
                continue;
            };
            let provider = self
                .provider(&record.resource_type)
                .map_err(DeployError::Failed)?;
            provider
                .recover(&record.resource_type, &record.spec)
                .map_err(|error| DeployError::Failed(error.message))?;
            let live = provider
                .read(&record.resource_type, record)
                .map_err(|error| DeployError::Failed(error.message))?;
            let matches = |expected: Option<&StateResource>| match (&live, expected) {
                (Live::Absent, None) => true,
                (Live::Present { spec, .. }, Some(expected)) => same_spec(spec, &expected.spec),
                _ => false,
            };
            let outcome = if matches(intent.after.as_ref()) {
                let adopted = intent.after.as_ref().map(|after| StateResource {
                    state: match &live {
                        Live::Present { state, .. } => state.clone(),
                        Live::Absent => Json::Null,
                    },
                    ..after.clone()
                });
                recovered.push((intent.resource.clone(), "adopted".to_owned()));
                Outcome::Done(adopted)
            } else if matches(intent.before.as_ref())
                || (intent.action == "update" && live == Live::Absent)
            {
                recovered.push((intent.resource.clone(), "abandoned".to_owned()));
                Outcome::Abandoned
            } else {
                return Err(DeployError::Foreign(format!(
                    "recovery of `{}` (an interrupted {} of deploy {}) found something neither it nor the state made: it is left untouched",
                    intent.resource, intent.action, intent.deploy
                )));
            };
            self.store.finish(self.instance, entry.id, &outcome)?;
        }
        Ok(recovered)
    }
}

/// Whether a live spec is the expected one: every expected field equal.
fn same_spec(live: &Json, expected: &Json) -> bool {
    match (live, expected) {
        (Json::Object(live), Json::Object(expected)) => expected
            .iter()
            .all(|(key, value)| live.get(key).is_some_and(|found| same_spec(found, value))),
        _ => live == expected,
    }
}

fn step(name: &str, action: Action) -> Step {
    Step {
        resource: name.to_owned(),
        action: action_name(action).to_owned(),
    }
}

fn action_name(action: Action) -> &'static str {
    match action {
        Action::Create | Action::Replace => "create",
        Action::Update => "update",
        Action::Delete => "delete",
        Action::NoChange => "none",
    }
}

/// The record a deploy makes of the resource at address `name`: its
/// type, its spec (every field known), its links; the state fields come
/// from the provider.
fn record_of(
    resolved: &ResolvedBlueprint,
    edges: &Edges,
    name: &str,
) -> Result<StateResource, String> {
    let resource = address::resource_at(resolved, name)
        .ok_or_else(|| format!("the blueprint has no resource `{name}`"))?;
    if let Some(waiting) = &resource.pending {
        return Err(format!(
            "`{name}` waits on `{waiting}`, which no deployed resource gives"
        ));
    }
    let spec = deployable(&resource.spec).map_err(|waiting| {
        format!("`{name}`'s spec waits on `{waiting}`, which no deployed resource gives")
    })?;
    let ResourceEdges {
        links,
        link_fields,
        depends_on,
    } = edges.of_resource(name);
    Ok(StateResource {
        depends_on,
        link_fields,
        resource_type: resource.resource_type.clone(),
        spec,
        state: Json::Null,
        links,
        secret_fields: resource
            .secret_fields
            .iter()
            .map(ToString::to_string)
            .collect(),
    })
}

/// A resolved value as JSON, or what it still waits on.
fn deployable(value: &Value) -> Result<Json, String> {
    Ok(match value {
        Value::Unknown(what) => return Err(what.to_string()),
        Value::Array(items) => Json::Array(items.iter().map(deployable).collect::<Result<_, _>>()?),
        Value::Object(fields) => Json::Object(
            fields
                .iter()
                .map(|(key, value)| Ok((key.clone(), deployable(value)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.to_json().unwrap_or(Json::Null),
    })
}

/// Whether something of `resolved` waits on a deploy: a resource's `each`
/// or condition, or a value known only after one (a state field, a
/// link's fields), here or in an included blueprint.
fn waits_on_deploys(resolved: &ResolvedBlueprint) -> bool {
    resolved.resources.values().any(|resource| {
        resource.pending.is_some()
            || resource.spec.unknown().is_some()
            || resource.metadata.unknown().is_some()
    }) || resolved.children.values().any(waits_on_deploys)
}

/// The names of `records`, each after every record that links to it or
/// was deployed after it (`depends_on`).
pub(crate) fn dependents_first(records: &BTreeMap<String, StateResource>) -> Vec<String> {
    let mut left: Vec<&String> = records.keys().collect();
    let mut order = Vec::new();
    while !left.is_empty() {
        let free: Vec<&String> = left
            .iter()
            .copied()
            .filter(|name| {
                !left.iter().any(|other| {
                    let record = &records[*other];
                    // Named within the other record's blueprint.
                    let within = address::prefix_of(other);
                    let reads = |dependency: &String| {
                        address::covers(&format!("{within}{dependency}"), name)
                    };
                    other != name
                        && (record.links.iter().any(reads) || record.depends_on.iter().any(reads))
                })
            })
            .collect();
        // A cycle in recorded links: the rest in name order.
        let next = if free.is_empty() { left.clone() } else { free };
        for name in &next {
            order.push((*name).clone());
        }
        left.retain(|name| !next.contains(name));
    }
    order
}

/// The providers as the plan sees them.
#[must_use]
pub fn checking(providers: &[Arc<dyn Provider>]) -> Vec<Arc<dyn ResourceProvider>> {
    providers
        .iter()
        .map(|provider| provider.clone() as Arc<dyn ResourceProvider>)
        .collect()
}

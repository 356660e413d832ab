//! `strata spec deploy|destroy|drift|state`: deployments on the command
//! line, their state in a store named by `--state`:
//!
//! - `sqlite:PATH` (the default, `sqlite:.strata/state.db` in the working
//!   directory): the embedded store ([`crate::deploy::SqliteStore`]);
//! - a `.json` file: a state as `plan --state` reads it, read-only.
//!
//! Exit status: 0 done; 1 failed (after the rollback); 2 drift found; 3
//! another deploy holds the state (the message names its process, host
//! and start); 4 recovery found something it must not touch.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value as Json, json};
use strata_dialect::{Done, Expect, Session};
use strata_syntax::{Diagnostic, Span};

use super::{ResolveArgs, prepare};
use crate::codes;
use crate::deploy::{
    CoreProvider, DeployError, Deployer, Live, PostgresStore, Provider, SqliteStore, State,
    StateStore,
};

/// Where an instance's state is.
#[derive(Debug, Args)]
pub(super) struct StoreArgs {
    /// The instance: one deployment of a blueprint.
    #[arg(long, value_name = "NAME")]
    instance: String,
    /// The state store: `sqlite:PATH`, `postgres://…`, or a JSON state file (read by `drift` and `state show|export` only).
    #[arg(
        long = "state",
        value_name = "STORE",
        default_value = "sqlite:.strata/state.db"
    )]
    store: String,
}

/// Whether a failed deploy undoes its changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Rollback {
    /// Undo this deploy's changes, newest first.
    Auto,
    /// Keep what succeeded.
    None,
}

/// `deploy` arguments.
#[derive(Debug, Args)]
pub(super) struct DeployArgs {
    #[command(flatten)]
    resolve: ResolveArgs,
    #[command(flatten)]
    store: StoreArgs,
    /// Undo this deploy's changes when one fails (`auto`), or keep them (`none`).
    #[arg(long, value_enum, default_value = "auto")]
    rollback: Rollback,
}

/// `destroy` arguments.
#[derive(Debug, Args)]
pub(super) struct InstanceArgs {
    #[command(flatten)]
    store: StoreArgs,
}

/// `drift` arguments.
#[derive(Debug, Args)]
pub(super) struct DriftArgs {
    /// The blueprint the instance was deployed from (checked).
    #[command(flatten)]
    resolve: ResolveArgs,
    #[command(flatten)]
    store: StoreArgs,
}

/// `state` verbs.
#[derive(Debug, Subcommand)]
pub(super) enum StateCommand {
    /// Print the instance's state (secret fields masked).
    Show(ShowArgs),
    /// Print the instance's state as the JSON `plan --state` reads (secret fields masked).
    Export(ShowArgs),
    /// Replace the instance's state by a JSON state file.
    Import(ImportArgs),
    /// Say who holds the state's lock; a lock goes with its process.
    Unlock(UnlockArgs),
}

/// `state show|export` arguments.
#[derive(Debug, Args)]
pub(super) struct ShowArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Write secret fields instead of masking them.
    #[arg(long)]
    show_secrets: bool,
}

/// `state import` arguments.
#[derive(Debug, Args)]
pub(super) struct ImportArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// The JSON state file.
    #[arg(value_name = "FILE")]
    file: String,
}

/// `state unlock` arguments.
#[derive(Debug, Args)]
pub(super) struct UnlockArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Break a lock whose holder cannot be reached.
    #[arg(long)]
    force: bool,
}

/// The providers of the command line.
fn providers() -> Vec<Arc<dyn Provider>> {
    vec![Arc::new(CoreProvider)]
}

/// The store `--state` names: `sqlite:PATH` or `postgres://…`; a JSON
/// state file (read-only) or another kind is a problem.
fn open_store(session: &mut Session, store: &str) -> Option<Box<dyn StateStore>> {
    let span = strata_dialect::command_line(&mut session.db, "--state", store);
    let opened = if let Some(path) = store.strip_prefix("sqlite:") {
        SqliteStore::open(Path::new(path)).map(|store| Box::new(store) as Box<dyn StateStore>)
    } else if store.starts_with("postgres://") || store.starts_with("postgresql://") {
        PostgresStore::connect(store).map(|store| Box::new(store) as Box<dyn StateStore>)
    } else {
        let message = if Path::new(store)
            .extension()
            .is_some_and(|ext| ext == "json")
        {
            format!(
                "`{store}` is a JSON state, which `plan`, `drift` and `state show|export` read; deploys keep their state in `sqlite:PATH` or `postgres://…`"
            )
        } else {
            format!(
                "`{store}` is not a state store: `sqlite:PATH`, `postgres://…`, or a JSON state file (read-only)"
            )
        };
        session
            .diagnostics
            .push(Diagnostic::error(codes::STATE, message, span));
        return None;
    };
    match opened {
        Ok(opened) => Some(opened),
        Err(error) => {
            session
                .diagnostics
                .push(Diagnostic::error(codes::STATE, error.to_string(), span));
            None
        }
    }
}

/// Whether `store` names a store (not a JSON state file).
fn is_store(store: &str) -> bool {
    store.starts_with("sqlite:")
        || store.starts_with("postgres://")
        || store.starts_with("postgresql://")
}

/// The state `--state` names, for the commands that only read it (`plan`,
/// `drift`, `state show|export`): `instance`'s in a store, or a JSON state
/// file (one instance's: `--instance` is not read). `None` (reported) when
/// it cannot be read, or no instance is named for a store.
pub(super) fn state_named(
    session: &mut Session,
    store: &str,
    instance: Option<&str>,
) -> Option<State> {
    if !is_store(store) {
        let document = session
            .read(store, Expect::One)
            .report(&mut session.diagnostics)?
            .into_document()?;
        return crate::deploy::read_state(&document).report(&mut session.diagnostics);
    }
    let Some(instance) = instance else {
        let span = strata_dialect::command_line(&mut session.db, "--state", store);
        session.diagnostics.push(Diagnostic::error(
            codes::STATE,
            "a state store holds instances: name one with `--instance`",
            span,
        ));
        return None;
    };
    let opened = open_store(session, store)?;
    match opened.load(instance) {
        Ok(state) => Some(state),
        Err(error) => {
            let span = strata_dialect::command_line(&mut session.db, "--state", store);
            session
                .diagnostics
                .push(Diagnostic::error(codes::STATE, error.to_string(), span));
            None
        }
    }
}

/// A deploy's id: its start and process.
fn deploy_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    format!("{nanos}-{}", std::process::id())
}

/// The diagnostic of a deploy that stopped, at the `--state` value, and
/// its exit status.
fn stopped(session: &mut Session, store: &str, error: &DeployError) -> u8 {
    let at = strata_dialect::command_line(&mut session.db, "--state", store);
    let (code, status) = match error {
        DeployError::Held(_) => (codes::LOCKED, 3),
        DeployError::Foreign(_) => (codes::RECOVERY, 4),
        DeployError::Failed(_) => (codes::DEPLOY, 1),
    };
    session
        .diagnostics
        .push(Diagnostic::error(code, error.to_string(), at));
    status
}

/// Where a change of `resource` is written: its spec in the blueprint
/// (with its field path), else the `--state` value (a resource the
/// blueprint no longer has).
fn place_of(
    session: &mut Session,
    resolved: &crate::ResolvedBlueprint,
    store: &str,
    resource: &str,
) -> (Span, Option<strata_syntax::FieldPath>) {
    match crate::deploy::resource_at(resolved, resource) {
        Some(written) => (
            written.spec_span,
            Some(
                strata_syntax::FieldPath::root()
                    .key("resources")
                    .key(&written.template)
                    .key("spec"),
            ),
        ),
        None => (
            strata_dialect::command_line(&mut session.db, "--state", store),
            None,
        ),
    }
}

pub(super) fn deploy(mut session: Session, args: &DeployArgs) -> Done {
    let json_output = session.invocation.output.is_some();
    let Some((spec, request)) = prepare(&mut session, &args.resolve) else {
        return session.finish(|_| None);
    };
    let Some(first) = session.render(&spec, &request) else {
        return session.finish(|_| None);
    };
    let Some(store) = open_store(&mut session, &args.store.store) else {
        return session.finish(|_| None);
    };
    let providers = providers();
    let instance = args.store.instance.as_str();
    let mut render = |deployed: &crate::Deployed| spec.render_deployed(&request, deployed, &[]);
    let deployer = Deployer {
        store: store.as_ref(),
        providers: &providers,
        instance,
        deploy: deploy_id(),
        rollback: args.rollback == Rollback::Auto,
    };
    let outcome = deployer.deploy(&mut render);
    let report = match outcome {
        Ok(report) => report,
        Err(error) => {
            let status = stopped(&mut session, &args.store.store, &error);
            let mut done = session.finish(|_| None);
            done.status = status;
            return done;
        }
    };
    report_failure(&mut session, &first, args, &report);
    let mut exports = report.exports.clone();
    mask_exports(&mut exports, &report.secret_exports);
    session.finish(|_| {
        let plan = &report.plan;
        if json_output {
            let steps = |list: &[crate::deploy::Step]| -> Vec<Json> {
                list.iter().map(|step| json!({"resource": step.resource, "action": step.action})).collect()
            };
            let value = json!({
                "plan": plan.to_json(),
                "recovered": report.recovered.iter().map(|(resource, how)| json!({"resource": resource, "how": how})).collect::<Vec<_>>(),
                "applied": steps(&report.applied),
                "reverted": steps(&report.reverted),
                "exports": exports,
            });
            return serde_json::to_string_pretty(&value).ok().map(|text| text + "\n");
        }
        let mut text = plan.to_text();
        for (resource, how) in &report.recovered {
            let _ = writeln!(text, "recovered {resource}: {how}");
        }
        for step in &report.applied {
            let _ = writeln!(text, "{} {}", past(&step.action), step.resource);
        }
        if !exports.is_empty() {
            text.push_str("\nExports:\n");
            for (name, value) in &exports {
                let _ = writeln!(text, "  {name} = {value}");
            }
        }
        Some(text)
    })
}

/// The failed change of `report` and the undo steps that failed, as
/// diagnostics at their resources in the blueprint `first` rendered.
fn report_failure(
    session: &mut Session,
    first: &crate::ResolvedBlueprint,
    args: &DeployArgs,
    report: &crate::deploy::Report,
) {
    if let Some((step, why)) = &report.failed {
        let (at, path) = place_of(session, first, &args.store.store, &step.resource);
        let mut failed = Diagnostic::error(
            codes::DEPLOY,
            format!("{} of `{}` failed: {why}", step.action, step.resource),
            at,
        )
        .with_note(if args.rollback == Rollback::Auto {
            format!("{} change(s) of this deploy undone", report.reverted.len())
        } else {
            "what succeeded is kept (`--rollback none`)".to_owned()
        });
        if let Some(path) = path {
            failed = failed.with_path(path);
        }
        session.diagnostics.push(failed);
        for (step, why) in &report.unreverted {
            let (at, path) = place_of(session, first, &args.store.store, &step.resource);
            let mut unreverted = Diagnostic::error(
                codes::DEPLOY,
                format!(
                    "undoing the {} of `{}` failed: {why}; the state records what is there",
                    step.action, step.resource
                ),
                at,
            );
            if let Some(path) = path {
                unreverted = unreverted.with_path(path);
            }
            session.diagnostics.push(unreverted);
        }
    }
}

/// The past tense of an action.
fn past(action: &str) -> &'static str {
    match action {
        "create" => "created",
        "update" => "updated",
        _ => "deleted",
    }
}

pub(super) fn destroy(mut session: Session, args: &InstanceArgs) -> Done {
    let Some(store) = open_store(&mut session, &args.store.store) else {
        return session.finish(|_| None);
    };
    let providers = providers();
    let deployer = Deployer {
        store: store.as_ref(),
        providers: &providers,
        instance: &args.store.instance,
        deploy: deploy_id(),
        rollback: false,
    };
    // The plan of an empty blueprint: every recorded resource deleted.
    let mut render = |_: &crate::Deployed| {
        Ok((
            crate::ResolvedBlueprint::default(),
            crate::deploy::Graph::default(),
        ))
    };
    match deployer.deploy(&mut render) {
        Ok(report) => {
            if let Some((step, why)) = &report.failed {
                let at =
                    strata_dialect::command_line(&mut session.db, "--state", &args.store.store);
                session.diagnostics.push(Diagnostic::error(
                    codes::DEPLOY,
                    format!("{} of `{}` failed: {why}", step.action, step.resource),
                    at,
                ));
            }
            session.finish(|_| {
                let lines: Vec<String> = report
                    .applied
                    .iter()
                    .map(|step| format!("deleted {}\n", step.resource))
                    .collect();
                Some(lines.concat())
            })
        }
        Err(error) => {
            let status = stopped(&mut session, &args.store.store, &error);
            let mut done = session.finish(|_| None);
            done.status = status;
            done
        }
    }
}

pub(super) fn drift(mut session: Session, args: &DriftArgs) -> Done {
    if prepare(&mut session, &args.resolve).is_none() {
        return session.finish(|_| None);
    }
    let Some(state) = state_named(&mut session, &args.store.store, Some(&args.store.instance))
    else {
        return session.finish(|_| None);
    };
    let providers = providers();
    // Each drifted resource: its name, `missing`, `changed` (with the
    // fields) or `unreadable` (with why).
    let mut drifted: Vec<(String, &str, Vec<String>)> = Vec::new();
    for (name, record) in &state.addressed() {
        let Some(provider) = providers.iter().find(|p| p.handles(&record.resource_type)) else {
            let why = format!("no provider reads `{}` resources", record.resource_type);
            drifted.push((name.clone(), "unreadable", vec![why]));
            continue;
        };
        match provider.read(&record.resource_type, record) {
            Ok(Live::Absent) => drifted.push((name.clone(), "missing", Vec::new())),
            Ok(Live::Present { spec, .. }) => {
                let mut changed: Vec<String> = record
                    .spec
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(key, value)| spec.get(key.as_str()) != Some(value))
                    .map(|(key, _)| key.clone())
                    .collect();
                changed.sort();
                if !changed.is_empty() {
                    drifted.push((name.clone(), "changed", changed));
                }
            }
            Err(error) => drifted.push((name.clone(), "unreadable", vec![error.to_string()])),
        }
    }
    let json_output = session.invocation.output.is_some();
    let lines: Vec<String> = drifted
        .iter()
        .map(|(name, how, detail)| match *how {
            "missing" => format!("- {name}: missing\n"),
            "changed" => {
                let fields: Vec<String> = detail.iter().map(|key| format!("`{key}`")).collect();
                format!("~ {name}: changed {}\n", fields.join(", "))
            }
            _ => format!("? {name}: cannot be read: {}\n", detail.join("; ")),
        })
        .collect();
    let report = json!(
        drifted
            .iter()
            .map(|(name, how, detail)| json!({"resource": name, "drift": how, "details": detail}))
            .collect::<Vec<_>>()
    );
    let done = session.finish(|_| {
        if json_output {
            serde_json::to_string_pretty(&report)
                .ok()
                .map(|text| text + "\n")
        } else {
            Some(lines.concat())
        }
    });
    if drifted.is_empty() {
        done
    } else {
        done.succeeding_with(2)
    }
}

pub(super) fn state(mut session: Session, command: &StateCommand) -> Done {
    match command {
        StateCommand::Show(args) | StateCommand::Export(args) => {
            let export = matches!(command, StateCommand::Export(_));
            let Some(mut state) =
                state_named(&mut session, &args.store.store, Some(&args.store.instance))
            else {
                return session.finish(|_| None);
            };
            session.finish(|session| {
                if !args.show_secrets {
                    mask(&mut state);
                }
                let value = serde_json::to_value(&state).ok()?;
                if export {
                    serde_json::to_string_pretty(&value)
                        .ok()
                        .map(|text| text + "\n")
                } else {
                    session.write_value(&value, strata_dialect::DocumentFormat::Yaml)
                }
            })
        }
        StateCommand::Import(args) => {
            let Some(store) = open_store(&mut session, &args.store.store) else {
                return session.finish(|_| None);
            };
            let state = session
                .read(&args.file, Expect::One)
                .report(&mut session.diagnostics)
                .and_then(strata_dialect::Read::into_document)
                .and_then(|document| {
                    crate::deploy::read_state(&document).report(&mut session.diagnostics)
                });
            if let Some(state) = state {
                let imported = store
                    .lock(crate::deploy::LOCK_WAIT)
                    .and_then(|_lock| store.replace(&args.store.instance, &state));
                if let Err(error) = imported {
                    let status = stopped(&mut session, &args.store.store, &error.into());
                    let mut done = session.finish(|_| None);
                    done.status = status;
                    return done;
                }
            }
            session.finish(|_| None)
        }
        StateCommand::Unlock(args) => unlock(session, args),
    }
}

/// `state unlock`: who holds the lock; with `--force`, the lock of a
/// holder that cannot be reached ended.
fn unlock(mut session: Session, args: &UnlockArgs) -> Done {
    let Some(store) = open_store(&mut session, &args.store.store) else {
        return session.finish(|_| None);
    };
    let at = strata_dialect::command_line(&mut session.db, "--state", &args.store.store);
    let holder = match store.holder() {
        Ok(holder) => holder,
        Err(error) => {
            session
                .diagnostics
                .push(Diagnostic::error(codes::STATE, error.to_string(), at));
            return session.finish(|_| None);
        }
    };
    let Some(holder) = holder else {
        return session.finish(|_| Some("the state is not locked\n".to_owned()));
    };
    if args.force {
        match store.break_lock() {
            Ok(_) => {
                return session.finish(|_| Some("the lock is ended\n".to_owned()));
            }
            Err(error) => {
                session
                    .diagnostics
                    .push(Diagnostic::error(codes::LOCKED, error.to_string(), at));
            }
        }
    } else {
        session.diagnostics.push(Diagnostic::error(
            codes::LOCKED,
            format!(
                "the state is {}: a lock ends with its holder, so stop that deploy (`--force` ends a lock whose holder cannot be reached)",
                strata_fs::LockError::Held(holder)
            ),
            at,
        ));
    }
    let mut done = session.finish(|_| None);
    done.status = 3;
    done
}

/// The `secret` exports, masked.
fn mask_exports(exports: &mut BTreeMap<String, Json>, secret: &[String]) {
    for name in secret {
        if let Some(value) = exports.get_mut(name) {
            *value = Json::String(crate::resolve::MASK.to_owned());
        }
    }
}

/// The secret fields of every record, masked, in its spec and its
/// state, and the secret exports, children's included.
fn mask(state: &mut State) {
    mask_exports(&mut state.exports, &state.secret_exports);
    state.children.values_mut().for_each(mask);
    for record in state.resources.values_mut() {
        for field in &record.secret_fields {
            let Ok(path) = strata_syntax::FieldPath::parse(field) else {
                continue;
            };
            let pointer: String = path
                .segments()
                .iter()
                .map(|segment| match segment {
                    strata_syntax::Segment::Key(key) => {
                        format!("/{}", key.replace('~', "~0").replace('/', "~1"))
                    }
                    strata_syntax::Segment::Index(index) => format!("/{index}"),
                    strata_syntax::Segment::Wildcard => "/*".to_owned(),
                })
                .collect();
            // The state field of the same name reports the same value
            // (`core/value`'s `value`).
            for tree in [&mut record.spec, &mut record.state] {
                if let Some(value) = tree.pointer_mut(&pointer) {
                    *value = Json::String(crate::resolve::MASK.to_owned());
                }
            }
        }
    }
}

//! Deployment staging, apart from loading and resolution: what a resolved
//! blueprint needs before anything is deployed.
//!
//! - `graph`: links by label (decided by [`LinkProvider`]s), the
//!   deployment order and its parallel groups ([`Graph`]).
//! - `plan`: the changes from a previous deployment's [`State`] to the
//!   resolved blueprint ([`Plan`]), [`ResourceProvider`]s checking specs
//!   and deciding replacements.
//! - `provider`: [`Provider`]s creating, reading, updating and deleting
//!   resources; the built-in [`CoreProvider`] (`core/file`, `core/value`).
//! - `store`, `postgres`: where deployed states and the journal of
//!   changes are kept ([`StateStore`]; [`SqliteStore`] embedded,
//!   [`PostgresStore`] for teams).
//! - `apply`: the [`Deployer`]: lock, recovery, the plan applied group by
//!   group through providers, rollback.
//! - `address`: the resources of a blueprint and of the blueprints it
//!   includes named in one flat space (`children.c.name`), as deploys,
//!   stores and [`crate::RenderRequest::deployed`] name them.

mod address;
mod apply;
mod graph;
mod plan;
mod postgres;
mod provider;
mod store;

pub use address::resource_at;
pub use apply::{DeployError, Deployer, LOCK_WAIT, Render, Report, Step, checking};
pub use graph::{Graph, Link, LinkKind, LinkProvider, LinkState, Side, Why, graph};
pub use plan::{
    Action, Change, LinkPlan, Plan, ResourcePlan, ResourceProvider, STATE_FORMAT, State,
    StateResource, plan, read_state,
};
pub use postgres::PostgresStore;
pub use provider::{CoreProvider, Live, Provider, ProviderError};
pub use store::{Entry, Intent, Outcome, SqliteStore, StateStore, StoreError};

/// A crash on purpose, for the tests that prove recovery and locking: in
/// a debug build, when `STRATA_FAILPOINT` names `point` (`before-call`,
/// `after-call`), the process aborts there, as `kill -9` would stop it;
/// `point:pause` stops there until the process is killed, `point:sleep`
/// for three seconds. Release builds have no failpoints.
pub(crate) fn failpoint(point: &str) {
    #[cfg(debug_assertions)]
    if let Some(wanted) = std::env::var_os("STRATA_FAILPOINT") {
        let wanted = wanted.to_string_lossy();
        if wanted == point {
            std::process::abort();
        }
        if wanted.strip_suffix(":pause") == Some(point) {
            loop {
                std::thread::sleep(std::time::Duration::from_mins(1));
            }
        }
        if wanted.strip_suffix(":sleep") == Some(point) {
            std::thread::sleep(std::time::Duration::from_secs(3));
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = point;
}

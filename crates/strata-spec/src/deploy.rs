//! Deployment staging, apart from loading and resolution: what a resolved
//! blueprint needs before anything is deployed.
//!
//! - `graph`: links by label (decided by [`LinkProvider`]s), the
//!   deployment order and its parallel groups ([`Graph`]).
//! - `plan`: the changes from a previous deployment's [`State`] to the
//!   resolved blueprint ([`Plan`]), [`ResourceProvider`]s checking specs
//!   and deciding replacements, the built-in [`CoreProvider`].

mod graph;
mod plan;

pub use graph::{Graph, Link, LinkKind, LinkProvider, LinkState, Side, Why, graph};
pub use plan::{
    Action, Change, CoreProvider, LinkPlan, Plan, ResourcePlan, ResourceProvider, STATE_FORMAT,
    State, StateResource, plan, read_state,
};

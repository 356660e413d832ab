//! Addresses: the resources of a blueprint and of every blueprint it
//! includes, named in one flat space, as the deployer, the state stores,
//! the journal and [`crate::RenderRequest::deployed`] name them.
//!
//! - A resource of the blueprint is addressed by its name (an `each`
//!   instance by `<name>_<index>`).
//! - A resource of include `c` is `children.c.<name>`; of include `d` of
//!   `c`, `children.c.children.d.<name>`: the plan's text names them so.
//!
//! Names of resources and includes hold no `.`, so an address has one
//! reading. A deploy works on addresses throughout: one journal, one lock
//! and one rollback for a blueprint and its children; the stores keep the
//! records by address and [`State`] nests them again by child.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;

use super::graph::{Graph, LinkState};
use super::plan::{Action, Plan, ResourcePlan, State, StateResource};
use crate::resolve::Deployed;
use crate::resolve::{ResolvedBlueprint, ResolvedResource};

/// The prefix of the addresses inside include `child`.
pub(crate) fn child_prefix(child: &str) -> String {
    format!("children.{child}.")
}

/// The include names an address goes through, and the resource's name
/// inside the last of them.
fn split(address: &str) -> (Vec<&str>, &str) {
    let mut children = Vec::new();
    let mut name = address;
    while let Some(rest) = name.strip_prefix("children.") {
        let Some((child, inner)) = rest.split_once('.') else {
            break;
        };
        children.push(child);
        name = inner;
    }
    (children, name)
}

/// The resource of `resolved` (or of one of its children) at `address`.
#[must_use]
pub fn resource_at<'r>(
    resolved: &'r ResolvedBlueprint,
    address: &str,
) -> Option<&'r ResolvedResource> {
    let (children, name) = split(address);
    let mut blueprint = resolved;
    for child in children {
        blueprint = blueprint.children.get(child)?;
    }
    blueprint.resources.get(name)
}

/// The deployment order by address: the graph's groups in order, a
/// child's node replaced by its own groups (after the resources of the
/// group it is in), so each child's order holds inside it.
pub(crate) fn groups(graph: &Graph) -> Vec<Vec<String>> {
    let mut groups = Vec::new();
    collect_groups(graph, "", &mut groups);
    groups
}

fn collect_groups(graph: &Graph, prefix: &str, groups: &mut Vec<Vec<String>>) {
    for group in &graph.groups {
        let (children, resources): (Vec<&String>, Vec<&String>) = group
            .iter()
            .partition(|node| matches!(graph.nodes.get(*node), Some(None)));
        if !resources.is_empty() {
            groups.push(
                resources
                    .into_iter()
                    .map(|name| format!("{prefix}{name}"))
                    .collect(),
            );
        }
        for node in children {
            let child = node.strip_prefix("children.").unwrap_or(node);
            if let Some(child_graph) = graph.children.get(child) {
                collect_groups(
                    child_graph,
                    &format!("{prefix}{}", child_prefix(child)),
                    groups,
                );
            }
        }
    }
}

/// The address prefix of the blueprint the resource at `address` is in
/// (empty for the top one): a record's `links` and `depends_on` are
/// named within it.
pub(crate) fn prefix_of(address: &str) -> &str {
    let (_, name) = split(address);
    &address[..address.len() - name.len()]
}

/// The links and the deployment order of a graph and of its children's,
/// by address: what a resource's record names of them, gathered in one
/// pass over each graph's edges (looking them up per resource would scan
/// every edge for every resource recorded).
#[derive(Debug, Default)]
pub(crate) struct Edges {
    by_address: HashMap<String, ResourceEdges>,
}

/// What a resource's record names of its graph's edges, each named
/// within its blueprint (links and the order run between resources of
/// one blueprint; a child's node is `children.c`, standing for every
/// resource of it).
#[derive(Clone, Debug, Default)]
pub(crate) struct ResourceEdges {
    /// What it links to (unsupported links aside), in the graph's order.
    pub(crate) links: Vec<String>,
    /// The fields of the links that have some, by the resource linked to.
    pub(crate) link_fields: BTreeMap<String, Json>,
    /// What it is deployed after: the order's edges into it.
    pub(crate) depends_on: Vec<String>,
}

impl Edges {
    /// The edges of `graph` and of its children's, by address.
    pub(crate) fn of(graph: &Graph) -> Edges {
        let mut edges = Edges::default();
        edges.add(graph, "");
        edges
    }

    fn add(&mut self, graph: &Graph, prefix: &str) {
        for link in graph
            .links
            .iter()
            .filter(|link| link.state != LinkState::Unsupported)
        {
            let from = self.at(prefix, &link.from);
            from.links.push(link.to.clone());
            if !link.fields.is_empty() {
                let fields = strata_subst::Value::Object(link.fields.clone());
                from.link_fields
                    .insert(link.to.clone(), fields.to_json().unwrap_or(Json::Null));
            }
        }
        for (before, after) in graph.order.keys() {
            self.at(prefix, after).depends_on.push(before.clone());
        }
        for (child, child_graph) in &graph.children {
            self.add(child_graph, &format!("{prefix}{}", child_prefix(child)));
        }
    }

    fn at(&mut self, prefix: &str, name: &str) -> &mut ResourceEdges {
        self.by_address
            .entry(format!("{prefix}{name}"))
            .or_default()
    }

    /// The edges of the resource at `address` (none for an address no
    /// graph names).
    pub(crate) fn of_resource(&self, address: &str) -> ResourceEdges {
        self.by_address.get(address).cloned().unwrap_or_default()
    }

    /// As [`Edges::of_resource`], taken out: for the one record of each
    /// resource.
    pub(crate) fn take(&mut self, address: &str) -> ResourceEdges {
        self.by_address.remove(address).unwrap_or_default()
    }
}

/// Whether a record that depends on `dependency` (an address, or a
/// child's `children.c`) depends on the resource at `address`.
pub(crate) fn covers(dependency: &str, address: &str) -> bool {
    address == dependency
        || address
            .strip_prefix(dependency)
            .is_some_and(|rest| rest.starts_with('.'))
}

impl State {
    /// Every resource recorded, children's included, by address.
    #[must_use]
    pub fn addressed(&self) -> BTreeMap<String, StateResource> {
        let mut records = BTreeMap::new();
        self.collect_records("", &mut records);
        records
    }

    fn collect_records(&self, prefix: &str, records: &mut BTreeMap<String, StateResource>) {
        for (name, record) in &self.resources {
            records.insert(format!("{prefix}{name}"), record.clone());
        }
        for (child, state) in &self.children {
            state.collect_records(&format!("{prefix}{}", child_prefix(child)), records);
        }
    }

    /// What is deployed, as [`crate::RenderRequest::deployed`] takes it:
    /// the state fields recorded, by address, and the links recorded whose
    /// two resources are, with their fields.
    #[must_use]
    pub fn deployed(&self) -> Deployed {
        let records = self.addressed();
        let mut links = BTreeMap::new();
        for (address, record) in &records {
            let within = prefix_of(address);
            for to in &record.links {
                let to_address = format!("{within}{to}");
                if records.contains_key(&to_address) {
                    let fields = record
                        .link_fields
                        .get(to)
                        .cloned()
                        .unwrap_or_else(|| Json::Object(serde_json::Map::new()));
                    links.insert((address.clone(), to_address), fields);
                }
            }
        }
        Deployed {
            states: records
                .into_iter()
                .map(|(address, record)| (address, record.state))
                .collect(),
            links,
        }
    }

    /// The state without its resources: the exports, and the children
    /// (likewise) that were deployed, as a store keeps them beside the
    /// records.
    #[must_use]
    pub fn outputs(&self) -> State {
        State {
            format_version: self.format_version,
            resources: BTreeMap::new(),
            children: self
                .children
                .iter()
                .map(|(name, child)| (name.clone(), child.outputs()))
                .collect(),
            exports: self.exports.clone(),
            secret_exports: self.secret_exports.clone(),
        }
    }

    /// Puts a record, by address, into `self` (a state's outputs), in the
    /// child its address names (a child not yet there is added).
    pub fn insert_addressed(&mut self, address: &str, record: StateResource) {
        let (children, name) = split(address);
        let mut state = self;
        for child in children {
            let format_version = state.format_version;
            state = state
                .children
                .entry(child.to_owned())
                .or_insert_with(|| State {
                    format_version,
                    ..State::default()
                });
        }
        state.resources.insert(name.to_owned(), record);
    }

    /// The record at `address`, to change in place.
    pub(crate) fn addressed_mut(&mut self, address: &str) -> Option<&mut StateResource> {
        let (children, name) = split(address);
        let mut state = self;
        for child in children {
            state = state.children.get_mut(child)?;
        }
        state.resources.get_mut(name)
    }
}

impl Plan {
    /// Every resource's plan, children's included, by address.
    #[must_use]
    pub fn addressed(&self) -> BTreeMap<String, &ResourcePlan> {
        let mut planned = BTreeMap::new();
        self.collect_planned("", &mut planned);
        planned
    }

    /// Keeps in `deployed` what concerns the resources this plan leaves
    /// unchanged (their states, the links between two of them): what
    /// reads a resource that changes is known only after the deploy.
    /// Whether anything was dropped.
    pub fn keep_unchanged(&self, deployed: &mut Deployed) -> bool {
        let planned = self.addressed();
        let unchanged = |address: &String| {
            planned
                .get(address)
                .is_some_and(|resource| resource.action == Action::NoChange)
        };
        let before = (deployed.states.len(), deployed.links.len());
        deployed.states.retain(|address, _| unchanged(address));
        deployed
            .links
            .retain(|(from, to), _| unchanged(from) && unchanged(to));
        (deployed.states.len(), deployed.links.len()) != before
    }

    fn collect_planned<'p>(
        &'p self,
        prefix: &str,
        planned: &mut BTreeMap<String, &'p ResourcePlan>,
    ) {
        for resource in &self.resources {
            planned.insert(format!("{prefix}{}", resource.name), resource);
        }
        for (child, (_, plan)) in &self.children {
            plan.collect_planned(&format!("{prefix}{}", child_prefix(child)), planned);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(resource_type: &str) -> StateResource {
        StateResource {
            resource_type: resource_type.to_owned(),
            spec: serde_json::json!({}),
            state: serde_json::Value::Null,
            links: Vec::new(),
            depends_on: Vec::new(),
            link_fields: BTreeMap::new(),
            secret_fields: Vec::new(),
        }
    }

    #[test]
    fn addresses_nest_and_flatten_back() {
        let mut state = State::default();
        for address in [
            "a",
            "children.net.b",
            "children.net.children.dns.c",
            "children.db.d",
        ] {
            state.insert_addressed(address, record(address));
        }
        assert_eq!(state.resources.len(), 1);
        assert_eq!(state.children["net"].resources.len(), 1);
        assert!(
            state.children["net"].children["dns"]
                .resources
                .contains_key("c")
        );
        let addressed = state.addressed();
        let names: Vec<&str> = addressed.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "a",
                "children.db.d",
                "children.net.b",
                "children.net.children.dns.c"
            ]
        );
        for (address, record) in &addressed {
            assert_eq!(&record.resource_type, address);
        }
        let outputs = state.outputs();
        assert!(outputs.addressed().is_empty());
        assert!(outputs.children["net"].children.contains_key("dns"));
    }

    #[test]
    fn dependents_are_deleted_first_across_children() {
        let depending = |on: &str| StateResource {
            depends_on: vec![on.to_owned()],
            ..record("core/file")
        };
        let records = BTreeMap::from([
            ("index".to_owned(), depending("children.site")),
            ("children.site.page".to_owned(), record("core/file")),
            ("children.site.copy".to_owned(), depending("page")),
            ("children.siteB.other".to_owned(), record("core/file")),
        ]);
        let order = super::super::apply::dependents_first(&records);
        let at = |address: &str| order.iter().position(|name| name == address);
        assert!(at("index") < at("children.site.page"), "{order:?}");
        assert!(at("index") < at("children.site.copy"), "{order:?}");
        assert!(
            at("children.site.copy") < at("children.site.page"),
            "{order:?}"
        );
        assert_eq!(order.len(), 4);
        assert!(!covers("children.site", "children.siteB.other"));
    }

    #[test]
    fn edges_are_gathered_by_address_in_the_graph_order() {
        use super::super::graph::{Link, Side, Why};
        let link = |from: &str, to: &str, state: LinkState, field: Option<&str>| Link {
            from: from.into(),
            to: to.into(),
            state,
            fields: field
                .map(|value| {
                    [(
                        "env".to_owned(),
                        strata_subst::Value::String(value.to_owned()),
                    )]
                    .into_iter()
                    .collect()
                })
                .unwrap_or_default(),
        };
        let mut child = Graph::default();
        child
            .links
            .push(link("p", "q", LinkState::Soft, Some("inner")));
        child.order.insert(("q".into(), "p".into()), Why::Reference);
        let mut graph = Graph::default();
        graph.links.extend([
            link("a", "c", LinkState::Hard(Side::To), None),
            link("a", "b", LinkState::Unchecked, Some("B")),
            link("a", "d", LinkState::Unsupported, Some("D")),
        ]);
        for (before, after) in [("c", "a"), ("b", "a"), ("children.net", "a")] {
            graph.order.insert((before.into(), after.into()), Why::Link);
        }
        graph.children.insert("net".into(), child);
        let edges = Edges::of(&graph);
        let a = edges.of_resource("a");
        // Links in the graph's order, an unsupported one left out; the
        // order's edges into `a` in the order's (sorted) order.
        assert_eq!(a.links, ["c", "b"]);
        assert_eq!(
            a.link_fields,
            BTreeMap::from([("b".to_owned(), serde_json::json!({"env": "B"}))])
        );
        assert_eq!(a.depends_on, ["b", "c", "children.net"]);
        // A child's resource by its address, named within its blueprint.
        let p = edges.of_resource("children.net.p");
        assert_eq!(p.links, ["q"]);
        assert_eq!(p.link_fields["q"], serde_json::json!({"env": "inner"}));
        assert_eq!(p.depends_on, ["q"]);
        assert!(edges.of_resource("p").links.is_empty());
        assert!(edges.of_resource("children.other.p").links.is_empty());
    }

    #[test]
    fn a_child_graph_is_ordered_inside_its_node() {
        let mut child = Graph::default();
        child.nodes.insert("x".into(), Some("core/value".into()));
        child.nodes.insert("y".into(), Some("core/value".into()));
        child.groups = vec![vec!["x".into()], vec!["y".into()]];
        let mut graph = Graph::default();
        graph.nodes.insert("a".into(), Some("core/value".into()));
        graph.nodes.insert("children.c".into(), None);
        graph.nodes.insert("z".into(), Some("core/value".into()));
        graph.groups = vec![vec!["a".into(), "children.c".into()], vec!["z".into()]];
        graph.children.insert("c".into(), child);
        assert_eq!(
            groups(&graph),
            [
                vec!["a".to_owned()],
                vec!["children.c.x".to_owned()],
                vec!["children.c.y".to_owned()],
                vec!["z".to_owned()],
            ]
        );
    }
}

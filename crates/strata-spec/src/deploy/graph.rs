//! Links and deployment order of a resolved blueprint (`strata spec
//! graph`).
//!
//! - **Links by label.** A resource with `linkSelector.byLabel` links to
//!   every other resource of the same blueprint whose labels contain *all*
//!   the selector's pairs (the reference implementation matched a resource
//!   carrying any one of them: a known flaw); never to itself; each
//!   instance of an `each` resource is selected on its own labels.
//! - **Providers.** A [`LinkProvider`] says, for a pair of resource types,
//!   whether a link is supported and of which kind: a *hard* link orders
//!   the two (the side it names is deployed first), a *soft* link does not.
//!   The first provider that knows the pair decides, and may add fields
//!   to the link; without one the link is *unchecked* and orders nothing.
//! - **Order.** Edges run from what must be deployed first to what reads
//!   it: a reference (`${resources.a…}` or `link(a, …)` in b, also through
//!   values; `children.c` in a resource or an include), and hard links.
//!   Each child blueprint is one node. A cycle of order edges is an error
//!   printing it. Nodes with no path between them form parallel groups:
//!   group n holds the nodes whose longest chain of predecessors has n
//!   links, sorted by name.
//!
//! A library user registers what it knows of its provider's links:
//!
//! ```
//! use std::path::PathBuf;
//! use std::sync::Arc;
//!
//! use strata_fs::MemoryFs;
//! use strata_spec::deploy::{LinkKind, LinkProvider, Side};
//! use strata_spec::{Dialect, Options, RenderRequest, Settings, Spec};
//! use strata_syntax::{Limits, SourceDb};
//!
//! /// A function is deployed after the table it links to.
//! struct Tables;
//!
//! impl LinkProvider for Tables {
//!     fn link(&self, from: &str, to: &str) -> Option<LinkKind> {
//!         (from == "aws/lambda/function" && to == "aws/dynamodb/table")
//!             .then_some(LinkKind::Hard { first: Side::To })
//!     }
//! }
//!
//! let blueprint = "version: 2023-04-20
//! resources:
//!   orders:
//!     type: aws/dynamodb/table
//!     metadata: {labels: {app: orders}}
//!     spec: {name: orders}
//!   api:
//!     type: aws/lambda/function
//!     linkSelector: {byLabel: {app: orders}}
//!     spec: {handler: main}
//! ";
//! let files = Arc::new(MemoryFs::new().with("blueprint.yaml", blueprint));
//! let settings = Settings { path: PathBuf::from("blueprint.yaml"), root: None };
//! let opened = Spec::open(files, Options::new(Limits::default(), settings));
//! let spec = opened.outcome.value.unwrap();
//! let mut db = SourceDb::extending(opened.sources);
//! let resolved = spec.render(&RenderRequest::default(), &mut db).value.unwrap();
//! let providers: [Arc<dyn LinkProvider>; 1] = [Arc::new(Tables)];
//! let graph = spec.graph(&resolved, &providers).value.unwrap();
//! assert_eq!(graph.groups, [vec!["orders"], vec!["api"]]);
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;

use strata_subst::Value;
use strata_syntax::{Diagnostic, MapHasher, Outcome, Span};

use crate::codes;
use crate::load::Loaded;
use crate::resolve::ResolvedBlueprint;
use crate::validate::Element;

/// Which side of a hard link is deployed first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The resource whose selector made the link.
    From,
    /// The resource selected.
    To,
}

/// What a provider says of a link between two resource types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// The link orders the two: `first` is deployed first.
    Hard {
        /// The side deployed first.
        first: Side,
    },
    /// The link does not order them.
    Soft,
    /// The provider does not support a link between these types.
    Unsupported,
}

/// Knows the links between resource types of one provider.
pub trait LinkProvider: Send + Sync {
    /// The link from a resource of type `from` to one of type `to`; `None`
    /// when this provider does not know the pair.
    fn link(&self, from: &str, to: &str) -> Option<LinkKind>;

    /// Fields the provider adds to a link between resources of these
    /// types (an IAM policy, an environment variable name); none by
    /// default.
    fn fields(&self, from: &str, to: &str) -> indexmap::IndexMap<String, Value> {
        let _ = (from, to);
        indexmap::IndexMap::new()
    }
}

/// How a link was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// A provider made it a hard link.
    Hard(Side),
    /// A provider made it a soft link.
    Soft,
    /// A provider refuses the pair: the selector matched, no link is made.
    Unsupported,
    /// No provider knows the pair: listed, orders nothing.
    Unchecked,
}

impl LinkState {
    fn name(self) -> &'static str {
        match self {
            LinkState::Hard(_) => "hard",
            LinkState::Soft => "soft",
            LinkState::Unsupported => "unsupported",
            LinkState::Unchecked => "unchecked",
        }
    }
}

/// A link made by a selector.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The resource whose selector matched.
    pub from: String,
    /// The resource selected.
    pub to: String,
    /// What the providers say.
    pub state: LinkState,
    /// The fields the deciding provider adds.
    pub fields: indexmap::IndexMap<String, Value>,
}

/// Why one node is deployed before another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Why {
    /// The later one reads the earlier one.
    Reference,
    /// A hard link.
    Link,
}

/// The links and order of a resolved blueprint.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// Resources (instance names) and children (`children.NAME`), with
    /// their resource type (none for a child).
    pub nodes: BTreeMap<String, Option<String>>,
    /// The links selectors made.
    pub links: Vec<Link>,
    /// `(before, after)` edges and why, without repeats.
    pub order: BTreeMap<(String, String), Why>,
    /// Parallel groups, in deployment order.
    pub groups: Vec<Vec<String>>,
    /// Each child's own graph, by include name (its resources' order
    /// inside the child's node).
    pub children: BTreeMap<String, Graph>,
}

/// The node name of a child.
fn child_node(name: &str) -> String {
    format!("children.{name}")
}

/// Builds the graph of `resolved` (the blueprint of `loaded`), and of
/// each of its children.
pub fn graph(
    loaded: &Loaded,
    resolved: &ResolvedBlueprint,
    providers: &[Arc<dyn LinkProvider>],
) -> Outcome<Graph> {
    let mut problems = Vec::new();
    let mut children = BTreeMap::new();
    for (name, child) in &resolved.children {
        if let Some(child_loaded) = &child.loaded
            && let Some(child_graph) = graph(child_loaded, child, providers).report(&mut problems)
        {
            children.insert(name.clone(), child_graph);
        }
    }
    let Some(mut graph) = own_graph(loaded, resolved, providers).report(&mut problems) else {
        return Outcome::failed(problems);
    };
    graph.children = children;
    Outcome::new(Some(graph), problems).valid()
}

/// The graph of `resolved` itself: each child one node. The order its
/// references ask and the links its selectors make are found at once,
/// each on a core; a hard link's order is then written over the
/// reference's for the same pair.
fn own_graph(
    loaded: &Loaded,
    resolved: &ResolvedBlueprint,
    providers: &[Arc<dyn LinkProvider>],
) -> Outcome<Graph> {
    let (mut graph, (links, linked_order)) = strata_dialect::join(
        || reference_graph(loaded, resolved),
        || link_by_labels(resolved, providers),
    );
    graph.links = links;
    for pair in linked_order {
        graph.order.insert(pair, Why::Link);
    }
    match groups(&graph) {
        Ok(groups) => {
            graph.groups = groups;
            Outcome::ok(graph)
        }
        Err(cycle) => Outcome::error(Diagnostic::error(
            codes::ORDER_CYCLE,
            format!("the deployment order has a cycle: {}", cycle.join(" → ")),
            Span::file_start(loaded.tree.span.source),
        )
        .with_help("a hard link and the references between two resources ask for opposite orders: remove one, or make the link soft in its provider")),
    }
}

/// The nodes of `resolved` and the order its references ask.
fn reference_graph(loaded: &Loaded, resolved: &ResolvedBlueprint) -> Graph {
    let mut graph = Graph::default();
    for (name, resource) in &resolved.resources {
        graph
            .nodes
            .insert(name.clone(), Some(resource.resource_type.clone()));
    }
    // The instances of each resource of the blueprint, and each child's
    // node, by name.
    let mut instances: HashMap<&str, Vec<&str>, MapHasher> = HashMap::default();
    for (name, resource) in &resolved.resources {
        instances
            .entry(resource.template.as_str())
            .or_default()
            .push(name);
    }
    let child_names: Vec<String> = resolved
        .children
        .keys()
        .map(|name| child_node(name))
        .collect();
    for node in &child_names {
        graph.nodes.insert(node.clone(), None);
    }
    let child_nodes: HashMap<&str, [&str; 1], MapHasher> = resolved
        .children
        .keys()
        .zip(&child_names)
        .map(|(name, node)| (name.as_str(), [node.as_str()]))
        .collect();
    let nodes_of = |element: &Element| -> &[&str] {
        match element {
            Element::Resource(name) => instances.get(name.as_str()).map_or(&[], Vec::as_slice),
            Element::Child(name) => child_nodes.get(name.as_str()).map_or(&[], |node| node),
            _ => &[],
        }
    };
    // What each element reads, through values.
    let mut reads: Reads<'_> = HashMap::default();
    for edge in &loaded.references.edges {
        reads.entry(&edge.from).or_default().insert(&edge.to);
    }
    // Every (before, after) pair once, sorted, so the map is built in one
    // pass; links add theirs after.
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for &element in reads.keys() {
        let readers = nodes_of(element);
        if readers.is_empty() {
            continue;
        }
        for read in deployed_dependencies(&reads, element) {
            for &before in nodes_of(read) {
                pairs.extend(
                    readers
                        .iter()
                        .filter(|after| **after != before)
                        .map(|after| (before, *after)),
                );
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    graph.order = pairs
        .into_iter()
        .map(|(before, after)| ((before.to_owned(), after.to_owned()), Why::Reference))
        .collect();
    graph
}

/// The links selectors make, and the `(before, after)` pairs hard links
/// add to the order.
fn link_by_labels(
    resolved: &ResolvedBlueprint,
    providers: &[Arc<dyn LinkProvider>],
) -> (Vec<Link>, Vec<(String, String)>) {
    let (mut links, mut order) = (Vec::new(), Vec::new());
    // Resources by each of their labels, so a selector looks only at the
    // resources carrying its first pair.
    let mut labelled: HashMap<(&str, &str), Vec<&str>, MapHasher> = HashMap::default();
    for (name, resource) in &resolved.resources {
        if let Value::Object(metadata) = &resource.metadata
            && let Some(Value::Object(labels)) = metadata.get("labels")
        {
            for (key, value) in labels {
                if let Value::String(value) = value {
                    labelled
                        .entry((key.as_str(), value.as_str()))
                        .or_default()
                        .push(name);
                }
            }
        }
    }
    for (from, resource) in &resolved.resources {
        let Some((key, value)) = resource.link_selector.first() else {
            continue;
        };
        let candidates = labelled
            .get(&(key.as_str(), value.as_str()))
            .map_or(&[][..], Vec::as_slice);
        for to in candidates {
            let target = &resolved.resources[*to];
            if from == to || !has_labels(&target.metadata, &resource.link_selector) {
                continue;
            }
            let to = &(*to).to_owned();
            let (from_type, to_type) = (&resource.resource_type, &target.resource_type);
            let decided = providers
                .iter()
                .find_map(|provider| Some((provider.link(from_type, to_type)?, provider)));
            let state = decided
                .as_ref()
                .map_or(LinkState::Unchecked, |(kind, _)| match kind {
                    LinkKind::Hard { first } => LinkState::Hard(*first),
                    LinkKind::Soft => LinkState::Soft,
                    LinkKind::Unsupported => LinkState::Unsupported,
                });
            let fields = match &decided {
                Some((LinkKind::Hard { .. } | LinkKind::Soft, provider)) => {
                    provider.fields(from_type, to_type)
                }
                _ => indexmap::IndexMap::new(),
            };
            if let LinkState::Hard(first) = state {
                let (before, after) = match first {
                    Side::From => (from.clone(), to.clone()),
                    Side::To => (to.clone(), from.clone()),
                };
                order.push((before, after));
            }
            links.push(Link {
                from: from.clone(),
                to: to.clone(),
                state,
                fields,
            });
        }
    }
    (links, order)
}

/// What each element reads, directly.
type Reads<'a> = HashMap<&'a Element, BTreeSet<&'a Element>, MapHasher>;

/// The resources and children `element` reads, directly or through values.
fn deployed_dependencies<'a>(reads: &Reads<'a>, element: &'a Element) -> BTreeSet<&'a Element> {
    let mut found = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![element];
    while let Some(at) = stack.pop() {
        for next in reads.get(at).into_iter().flatten() {
            match next {
                Element::Resource(_) | Element::Child(_) => {
                    found.insert(*next);
                }
                Element::Value(_) if seen.insert(*next) => stack.push(next),
                _ => {}
            }
        }
    }
    found
}

/// Whether a resource's resolved metadata carries every pair of `selector`.
fn has_labels(metadata: &Value, selector: &indexmap::IndexMap<String, String>) -> bool {
    let Value::Object(metadata) = metadata else {
        return false;
    };
    let Some(Value::Object(labels)) = metadata.get("labels") else {
        return false;
    };
    selector.iter().all(
        |(key, wanted)| matches!(labels.get(key), Some(Value::String(value)) if value == wanted),
    )
}

/// Parallel groups by longest path from the start, or a cycle.
fn groups(graph: &Graph) -> Result<Vec<Vec<String>>, Vec<String>> {
    // Hashed: each group is sorted, and a cycle is walked from the least
    // name left, so no order comes from these maps.
    let mut incoming: HashMap<&str, usize, MapHasher> =
        graph.nodes.keys().map(|name| (name.as_str(), 0)).collect();
    let mut outgoing: HashMap<&str, Vec<&str>, MapHasher> = HashMap::default();
    for (before, after) in graph.order.keys() {
        *incoming.entry(after).or_default() += 1;
        incoming.entry(before).or_default();
        outgoing.entry(before).or_default().push(after);
    }
    let mut groups = Vec::new();
    let mut ready: Vec<&str> = incoming
        .iter()
        .filter(|(_, count)| **count == 0)
        .map(|(name, _)| *name)
        .collect();
    let mut placed = 0;
    while !ready.is_empty() {
        ready.sort_unstable();
        let mut next = Vec::new();
        for name in &ready {
            for after in outgoing.get(name).into_iter().flatten() {
                let count = incoming.entry(after).or_default();
                *count -= 1;
                if *count == 0 {
                    next.push(*after);
                }
            }
        }
        placed += ready.len();
        groups.push(ready.iter().map(|name| (*name).to_owned()).collect());
        ready = next;
    }
    if placed == incoming.len() {
        return Ok(groups);
    }
    // A cycle among the nodes left: walk back from one of them.
    let left: BTreeSet<&str> = incoming
        .iter()
        .filter(|(_, count)| **count > 0)
        .map(|(name, _)| *name)
        .collect();
    let start = left.iter().next().copied().unwrap_or_default();
    let mut path = vec![start];
    let mut at = start;
    while let Some(next) = outgoing
        .get(at)
        .into_iter()
        .flatten()
        .find(|next| left.contains(**next))
    {
        if let Some(position) = path.iter().position(|step| step == next) {
            let mut cycle: Vec<String> = path[position..]
                .iter()
                .map(|step| (*step).to_owned())
                .collect();
            cycle.push((*next).to_owned());
            return Err(cycle);
        }
        path.push(next);
        at = next;
    }
    Err(path.iter().map(|step| (*step).to_owned()).collect())
}

impl Graph {
    /// The graph in Graphviz's DOT language: resources as boxes (name and
    /// type), children as folders, order edges solid, links dashed (with
    /// their state), one rank per parallel group.
    #[must_use]
    pub fn to_dot(&self) -> String {
        let quote = |text: &str| format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""));
        let mut dot = String::from(
            "digraph blueprint {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n",
        );
        for (name, resource_type) in &self.nodes {
            match resource_type {
                Some(resource_type) => {
                    let label = quote(&format!("{name}\n{resource_type}"));
                    let _ = writeln!(
                        dot,
                        "  {} [label={}];",
                        quote(name),
                        label.replace('\n', "\\n")
                    );
                }
                None => {
                    let _ = writeln!(dot, "  {} [shape=folder];", quote(name));
                }
            }
        }
        for ((before, after), why) in &self.order {
            let style = match why {
                Why::Reference => "",
                Why::Link => " [label=\"hard link\"]",
            };
            let _ = writeln!(dot, "  {} -> {}{style};", quote(before), quote(after));
        }
        for link in &self.links {
            let _ = writeln!(
                dot,
                "  {} -> {} [style=dashed, color=gray40, constraint=false, label={}];",
                quote(&link.from),
                quote(&link.to),
                quote(&format!("{} link", link.state.name()))
            );
        }
        for group in &self.groups {
            let members: Vec<String> = group.iter().map(|name| quote(name)).collect();
            let _ = writeln!(dot, "  {{ rank=same; {}; }}", members.join("; "));
        }
        dot.push_str("}\n");
        dot
    }

    /// The graph as JSON: `nodes`, `links`, `order`, `groups`.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        let nodes: Vec<serde_json::Value> = self
            .nodes
            .iter()
            .map(|(name, resource_type)| match resource_type {
                Some(resource_type) => {
                    serde_json::json!({"name": name, "kind": "resource", "type": resource_type})
                }
                None => serde_json::json!({"name": name, "kind": "child"}),
            })
            .collect();
        let links: Vec<serde_json::Value> = self
            .links
            .iter()
            .map(|link| {
                let mut entry = serde_json::json!({"from": link.from, "to": link.to, "kind": link.state.name()});
                if !link.fields.is_empty() {
                    let fields = Value::Object(link.fields.clone());
                    entry["fields"] = fields.to_json().unwrap_or_default();
                }
                if let LinkState::Hard(first) = link.state {
                    entry["first"] = serde_json::json!(match first {
                        Side::From => &link.from,
                        Side::To => &link.to,
                    });
                }
                entry
            })
            .collect();
        let order: Vec<serde_json::Value> = self
            .order
            .iter()
            .map(|((before, after), why)| {
                let why = match why {
                    Why::Reference => "reference",
                    Why::Link => "link",
                };
                serde_json::json!({"before": before, "after": after, "why": why})
            })
            .collect();
        serde_json::json!({"nodes": nodes, "links": links, "order": order, "groups": self.groups})
    }
}

//! The reference graph: cycles (printed as their chain) and an `each` that
//! depends on what only deployment knows.

use std::collections::{BTreeSet, HashMap};

use strata_syntax::{Diagnostic, FieldPath};

use super::{Edge, Element, References};
use crate::codes;

/// The references leaving each element, in the order written.
pub(super) type Graph<'a> = HashMap<&'a Element, Vec<&'a Edge>>;

pub(super) fn graph(references: &References) -> Graph<'_> {
    let mut graph: Graph<'_> = HashMap::new();
    for edge in &references.edges {
        graph.entry(&edge.from).or_default().push(edge);
    }
    graph
}

/// Whether references through `element` order deployment (values,
/// resources, data sources, children; not variables or exports).
pub(super) fn is_ordered(element: &Element) -> bool {
    matches!(
        element,
        Element::Value(_) | Element::Resource(_) | Element::Datasource(_) | Element::Child(_)
    )
}

/// `each` reading, through values, a resource or a child.
pub(super) fn each_dependencies(references: &References, graph: &Graph<'_>) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for edge in references.edges.iter().filter(|edge| edge.in_each) {
        let Element::Resource(name) = &edge.from else {
            continue;
        };
        let mut chain = vec![edge.to.clone()];
        if let Some(reached) = reaches_deployed(graph, &edge.to, &mut chain, &mut BTreeSet::new()) {
            let through = chain
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" → ");
            problems.push(
                Diagnostic::error(
                    codes::EACH_DEPENDENCY,
                    format!("`each` of `{name}` depends on `{reached}`: `each` may depend only on variables, values and data sources"),
                    edge.span,
                )
                .with_note(format!("through {through}"))
                .with_path(FieldPath::root().key("resources").key(name).key("each")),
            );
        }
    }
    problems
}

/// The resource or child `element` reaches through values, if any;
/// `chain` ends with it.
pub(super) fn reaches_deployed(
    graph: &Graph<'_>,
    element: &Element,
    chain: &mut Vec<Element>,
    seen: &mut BTreeSet<Element>,
) -> Option<Element> {
    match element {
        // A resource read directly from `each` is reported where it is read.
        Element::Resource(_) | Element::Child(_) if chain.len() > 1 => Some(element.clone()),
        Element::Value(_) if seen.insert(element.clone()) => {
            for edge in graph.get(element).into_iter().flatten() {
                chain.push(edge.to.clone());
                if let Some(found) = reaches_deployed(graph, &edge.to, chain, seen) {
                    return Some(found);
                }
                chain.pop();
            }
            None
        }
        _ => None,
    }
}

/// Every cycle of references among values, resources, data sources and
/// children: one diagnostic per strongly connected group, printing one
/// cycle through it. Tarjan's algorithm, iterative, so a long chain of
/// references cannot exhaust the stack.
pub(super) fn cycles(graph: &Graph<'_>) -> Vec<Diagnostic> {
    let mut nodes: Vec<&Element> = graph
        .keys()
        .copied()
        .filter(|node| is_ordered(node))
        .collect();
    nodes.sort();
    let successors = |node: &Element| -> Vec<&Element> {
        graph
            .get(node)
            .into_iter()
            .flatten()
            .map(|edge| &edge.to)
            .filter(|to| is_ordered(to))
            .collect()
    };
    let mut index: HashMap<&Element, usize> = HashMap::new();
    let mut low: HashMap<&Element, usize> = HashMap::new();
    let mut on_stack: BTreeSet<&Element> = BTreeSet::new();
    let mut stack: Vec<&Element> = Vec::new();
    let mut groups: Vec<Vec<&Element>> = Vec::new();
    for &root in &nodes {
        if index.contains_key(root) {
            continue;
        }
        // (node, its successors, the next successor to visit)
        let mut work: Vec<(&Element, Vec<&Element>, usize)> = vec![(root, successors(root), 0)];
        index.insert(root, index.len());
        low.insert(root, index[root]);
        stack.push(root);
        on_stack.insert(root);
        while let Some((node, next, at)) = work.last_mut() {
            let node = *node;
            if let Some(&to) = next.get(*at) {
                *at += 1;
                if !index.contains_key(to) {
                    let order = index.len();
                    index.insert(to, order);
                    low.insert(to, order);
                    stack.push(to);
                    on_stack.insert(to);
                    work.push((to, successors(to), 0));
                } else if on_stack.contains(to) {
                    let lowest = low[node].min(index[to]);
                    low.insert(node, lowest);
                }
                continue;
            }
            work.pop();
            if let Some((parent, _, _)) = work.last() {
                let lowest = low[*parent].min(low[node]);
                low.insert(*parent, lowest);
            }
            if low[node] == index[node] {
                let mut group = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack.remove(member);
                    group.push(member);
                    if member == node {
                        break;
                    }
                }
                let looped = group.len() > 1 || successors(node).contains(&node);
                if looped {
                    group.sort();
                    groups.push(group);
                }
            }
        }
    }
    groups.sort();
    groups
        .iter()
        .filter_map(|group| cycle_in(graph, group))
        .collect()
}

/// One cycle through the group's first member, as a diagnostic.
pub(super) fn cycle_in(graph: &Graph<'_>, group: &[&Element]) -> Option<Diagnostic> {
    let start = *group.first()?;
    // Breadth first from `start` within the group, back to `start`.
    let mut came_by: HashMap<&Element, &Edge> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut closing = None;
    while let Some(node) = queue.pop_front() {
        for edge in graph.get(node).into_iter().flatten() {
            if &edge.to == start {
                closing = Some(*edge);
                break;
            }
            if group.contains(&&edge.to) && !came_by.contains_key(&edge.to) {
                came_by.insert(&edge.to, edge);
                queue.push_back(&edge.to);
            }
        }
        if closing.is_some() {
            break;
        }
    }
    let mut cycle = vec![closing?];
    while cycle[0].from != *start {
        let edge = came_by.get(&cycle[0].from)?;
        cycle.insert(0, edge);
    }
    let chain: Vec<String> = std::iter::once(start.to_string())
        .chain(cycle.iter().map(|edge| edge.to.to_string()))
        .collect();
    let mut problem = Diagnostic::error(
        codes::CYCLE,
        format!("references form a cycle: {}", chain.join(" → ")),
        cycle[0].span,
    );
    for edge in &cycle[1..] {
        problem = problem.with_secondary(edge.span, format!("`{}` reads `{}`", edge.from, edge.to));
    }
    Some(problem)
}

//! The reference graph: cycles (printed as their chain) and an `each` that
//! depends on what only deployment knows.

use std::collections::{BTreeSet, HashMap};

use strata_syntax::{Diagnostic, FieldPath, MapHasher};

use super::{Edge, Element, References};
use crate::codes;

/// The references leaving each element, in the order written.
pub(super) type Graph<'a> = HashMap<&'a Element, Vec<&'a Edge>, MapHasher>;

pub(super) fn graph(references: &References) -> Graph<'_> {
    let mut graph: Graph<'_> = HashMap::default();
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
/// references cannot exhaust the stack, over the elements numbered in
/// their sorted order: the search starts from each in that order, so what
/// it finds does not depend on hashing, and a group sorted by number is
/// sorted by element.
pub(super) fn cycles(graph: &Graph<'_>) -> Vec<Diagnostic> {
    let mut nodes: Vec<&Element> = graph
        .keys()
        .copied()
        .filter(|node| is_ordered(node))
        .collect();
    nodes.sort();
    let number: HashMap<&Element, usize, MapHasher> = nodes
        .iter()
        .enumerate()
        .map(|(at, node)| (*node, at))
        .collect();
    // An element that references nothing is in no cycle: it is left out of
    // the successors.
    let successors: Vec<Vec<usize>> = nodes
        .iter()
        .map(|node| {
            graph[node]
                .iter()
                .filter_map(|edge| number.get(&edge.to).copied())
                .collect()
        })
        .collect();
    let mut groups = strongly_connected(&successors);
    groups.sort();
    groups
        .iter()
        .filter_map(|group| {
            let members: Vec<&Element> = group.iter().map(|&at| nodes[at]).collect();
            cycle_in(graph, &members)
        })
        .collect()
}

/// The groups of nodes of `successors` that reach one another and loop
/// (more than one node, or one that is its own successor), each sorted.
fn strongly_connected(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; successors.len()];
    let mut low = vec![0; successors.len()];
    let mut on_stack = vec![false; successors.len()];
    let mut numbered = 0;
    let mut stack: Vec<usize> = Vec::new();
    let mut groups = Vec::new();
    for root in 0..successors.len() {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, the next of its successors to visit)
        let mut work = vec![(root, 0)];
        index[root] = numbered;
        low[root] = numbered;
        numbered += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some((node, at)) = work.last_mut() {
            let node = *node;
            if let Some(&to) = successors[node].get(*at) {
                *at += 1;
                if index[to] == UNSEEN {
                    index[to] = numbered;
                    low[to] = numbered;
                    numbered += 1;
                    stack.push(to);
                    on_stack[to] = true;
                    work.push((to, 0));
                } else if on_stack[to] {
                    low[node] = low[node].min(index[to]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                let mut group = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    group.push(member);
                    if member == node {
                        break;
                    }
                }
                if group.len() > 1 || successors[node].contains(&node) {
                    group.sort_unstable();
                    groups.push(group);
                }
            }
        }
    }
    groups
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

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn groups_are_the_loops_each_sorted_and_a_chain_is_none() {
        // 0 → 1 → 2 → 0 (a loop), 3 → 3 (its own successor), 4 → 0 and
        // 5 → 4 (a chain into the loop), 6 → 7 → 6 reached from 5.
        let successors = vec![
            vec![1],
            vec![2],
            vec![0],
            vec![3],
            vec![0],
            vec![4, 7],
            vec![7],
            vec![6],
        ];
        let mut groups = strongly_connected(&successors);
        groups.sort();
        assert_eq!(groups, vec![vec![0, 1, 2], vec![3], vec![6, 7]]);
        assert!(strongly_connected(&[vec![1], vec![2], vec![]]).is_empty());
    }

    #[test]
    fn a_long_chain_does_not_exhaust_the_stack() {
        let length = 200_000;
        let mut successors: Vec<Vec<usize>> = (1..length).map(|next| vec![next]).collect();
        successors.push(vec![0]);
        let groups = strongly_connected(&successors);
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].len(), length);
    }
}

//! The `dependsOn` graphs of the composed blueprint: every name must exist
//! and the graph must be acyclic, for Terraform components (named by
//! `name`, else `path`) and for kustomizations (by `name`) separately.
//!
//! | code | when |
//! |---|---|
//! | `features/unknown-dependency` | a `dependsOn` entry names nothing (did-you-mean) |
//! | `features/dependency-cycle` | the graph has a cycle; the message prints it (`a -> b -> a`) |

use std::collections::HashMap;

use strata_syntax::{Diagnostic, Node};

use crate::compose::{LeftOut, Section};

/// The name other entries depend on this one by.
#[must_use]
pub fn id(entry: &Node, section: Section) -> &str {
    let text = |key: &str| {
        entry
            .get(key)
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())
    };
    match section {
        Section::Terraform => text("name").or_else(|| text("path")),
        Section::Kustomize => text("name"),
    }
    .unwrap_or_default()
}

/// Every problem of one graph. A dependency on an entry left out because
/// of an error is not reported again; one on an entry whose `when` was
/// false says so.
#[must_use]
pub fn check(entries: &[Node], section: Section, left_out: &LeftOut) -> Vec<Diagnostic> {
    let ids: Vec<&str> = entries.iter().map(|entry| id(entry, section)).collect();
    let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut problems = Vec::new();
    // Edges with the node that wrote each, for positions.
    let mut edges: Vec<Vec<(usize, &Node)>> = vec![Vec::new(); entries.len()];
    for (from, entry) in entries.iter().enumerate() {
        let depends_on = entry
            .get("dependsOn")
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for dependency in depends_on {
            let Some(name) = dependency.as_str() else {
                continue;
            };
            let key = (section, name.to_owned());
            match index.get(name) {
                Some(&to) => edges[from].push((to, dependency)),
                None if left_out.failed.contains(&key) => {}
                None => {
                    let mut problem = Diagnostic::error(
                        "features/unknown-dependency",
                        format!(
                            "`{}` depends on `{name}`, which is not in `{}`",
                            ids[from],
                            section.key()
                        ),
                        dependency.span,
                    );
                    if left_out.skipped.contains(&key) {
                        problem = problem
                            .with_note(format!("`{name}` is defined, but its `when` is false"));
                    } else {
                        let others = ids.iter().copied().filter(|id| *id != ids[from]);
                        problem = problem.with_suggestion(name, others);
                    }
                    problems.push(problem);
                }
            }
        }
    }
    problems.extend(cycles(&ids, &edges, section));
    problems
}

/// One diagnostic per cycle found by a depth-first walk (iterative, so a
/// long chain cannot overflow the stack).
fn cycles(ids: &[&str], edges: &[Vec<(usize, &Node)>], section: Section) -> Vec<Diagnostic> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Open,
        Done,
    }
    let mut state = vec![State::New; ids.len()];
    let mut problems = Vec::new();
    for start in 0..ids.len() {
        if state[start] != State::New {
            continue;
        }
        // The path being walked: (node, next edge to try).
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = State::Open;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&(to, written)) = edges[node].get(*next) {
                *next += 1;
                match state[to] {
                    State::New => {
                        state[to] = State::Open;
                        stack.push((to, 0));
                    }
                    State::Open => {
                        let from = stack.iter().position(|(n, _)| *n == to).unwrap_or(0);
                        let mut names: Vec<&str> =
                            stack[from..].iter().map(|(n, _)| ids[*n]).collect();
                        names.push(ids[to]);
                        problems.push(Diagnostic::error(
                            "features/dependency-cycle",
                            format!(
                                "`dependsOn` of `{}` has a cycle: {}",
                                section.key(),
                                names.join(" -> ")
                            ),
                            written.span,
                        ));
                    }
                    State::Done => {}
                }
            } else {
                state[node] = State::Done;
                stack.pop();
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use strata_syntax::{Format, Limits, SourceDb};

    use super::*;

    fn entries(text: &str) -> Vec<Node> {
        let mut db = SourceDb::new();
        let id = db.add("b.yaml", text);
        strata_syntax::parse(&db, id, Format::Yaml, &Limits::default())
            .documents
            .remove(0)
            .as_seq()
            .unwrap()
            .to_vec()
    }

    fn messages(entries: &[Node], section: Section) -> Vec<String> {
        check(entries, section, &LeftOut::default())
            .into_iter()
            .map(|d| d.message)
            .collect()
    }

    #[test]
    fn names_must_exist_and_cycles_are_printed() {
        let terraform = entries(
            "- {path: network/vpc}\n- {path: cluster, dependsOn: [network/vpc, dns]}\n- {name: dns, path: x/dns, dependsOn: [network/vcp]}\n",
        );
        assert_eq!(
            messages(&terraform, Section::Terraform),
            ["`dns` depends on `network/vcp`, which is not in `terraform`"]
        );
        let kustomize = entries(
            "- {name: a, dependsOn: [b]}\n- {name: b, dependsOn: [c]}\n- {name: c, dependsOn: [a]}\n- {name: d, dependsOn: [d]}\n",
        );
        assert_eq!(
            messages(&kustomize, Section::Kustomize),
            [
                "`dependsOn` of `kustomize` has a cycle: a -> b -> c -> a",
                "`dependsOn` of `kustomize` has a cycle: d -> d",
            ]
        );
    }

    #[test]
    fn long_chains_do_not_overflow() {
        let text: String = (0..20_000)
            .map(|i| format!("- {{name: n{i}, dependsOn: [n{}]}}\n", i + 1))
            .chain(std::iter::once("- {name: n20000}\n".to_owned()))
            .collect();
        assert!(messages(&entries(&text), Section::Kustomize).is_empty());
    }
}

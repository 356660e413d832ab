//! The `dependsOn` graphs of the composed blueprint: a name that is not in
//! it is a warning (as Windsor: another context may provide it), and the
//! graph must be acyclic, for Terraform components (named by `name`, else
//! `path`) and for kustomizations (by `name`) separately.
//!
//! Codes: [`codes::UNKNOWN_DEPENDENCY`] (with a did-you-mean) and
//! [`codes::DEPENDENCY_CYCLE`] (the message prints the cycle, `a -> b -> a`).

use std::collections::{HashMap, HashSet};

use strata_syntax::{Diagnostic, Node, Segment};

use crate::codes;
use crate::model::{BlueprintFile, Section};

/// Entries that did not make it into the composition, and why.
#[derive(Debug, Default)]
pub(crate) struct LeftOut {
    /// Their `when` was false.
    pub(crate) skipped: HashSet<(Section, String)>,
    /// They failed (an expression error); already reported.
    pub(crate) failed: HashSet<(Section, String)>,
}

/// Every problem of one graph of the composed `blueprint`, whose tree is
/// `tree` (for positions). A dependency on an entry left out because of an
/// error is not reported again; one on an entry whose `when` was false says
/// so.
pub(crate) fn check(
    blueprint: &BlueprintFile,
    tree: &Node,
    section: Section,
    left_out: &LeftOut,
) -> Vec<Diagnostic> {
    let ids = blueprint.ids(section);
    let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut problems = Vec::new();
    // Edges with the node that wrote each, for positions.
    let mut edges: Vec<Vec<(usize, &Node)>> = vec![Vec::new(); ids.len()];
    for (from, depends_on) in blueprint.depends_on(section).into_iter().enumerate() {
        for (position, name) in depends_on.iter().enumerate() {
            let written = [
                Segment::Key(section.key().to_owned()),
                Segment::Index(from),
                Segment::Key("dependsOn".to_owned()),
                Segment::Index(position),
            ];
            let Some(written) = tree.at(&written) else {
                continue;
            };
            let key = (section, name.clone());
            match index.get(name.as_str()) {
                Some(&to) => edges[from].push((to, written)),
                None if left_out.failed.contains(&key) => {}
                None => {
                    // As Windsor: another context may provide it, so a
                    // warning (`--strict` makes it an error).
                    let mut problem = Diagnostic::warning(
                        codes::UNKNOWN_DEPENDENCY,
                        format!(
                            "`{}` depends on `{name}`, which is not in `{}`",
                            ids[from],
                            section.key()
                        ),
                        written.span,
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
                            codes::DEPENDENCY_CYCLE,
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
    use std::sync::LazyLock;

    use strata_schema::Decoder;
    use strata_syntax::{Format, Limits, SourceDb};

    use super::*;

    static BLUEPRINT: LazyLock<Decoder<BlueprintFile>> = LazyLock::new(Decoder::new);

    fn messages(section: Section, entries: &str) -> Vec<String> {
        let text = format!(
            "kind: Blueprint\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata: {{name: b}}\n{}:\n{entries}",
            section.key()
        );
        let mut db = SourceDb::new();
        let id = db.add("b.yaml", text);
        let tree = strata_syntax::parse(&db, id, Format::Yaml, &Limits::default())
            .documents
            .remove(0);
        let blueprint = BLUEPRINT.decode(&tree).unwrap();
        check(&blueprint, &tree, section, &LeftOut::default())
            .into_iter()
            .map(|d| d.message)
            .collect()
    }

    #[test]
    fn names_must_exist_and_cycles_are_printed() {
        assert_eq!(
            messages(
                Section::Terraform,
                "- {path: network/vpc}\n- {path: cluster, dependsOn: [network/vpc, dns]}\n- {name: dns, path: x/dns, dependsOn: [network/vcp]}\n",
            ),
            ["`dns` depends on `network/vcp`, which is not in `terraform`"]
        );
        assert_eq!(
            messages(
                Section::Kustomize,
                "- {name: a, dependsOn: [b]}\n- {name: b, dependsOn: [c]}\n- {name: c, dependsOn: [a]}\n- {name: d, dependsOn: [d]}\n",
            ),
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
        assert!(messages(Section::Kustomize, &text).is_empty());
    }
}

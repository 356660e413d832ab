//! Inheritance: every blueprint resolved over its `template` chain.
//!
//! A blueprint's chain runs from the root template to itself. Resolution
//! is depth-first from the root: the root is taken as written, and each
//! layer below it is merged on top of its parent's resolved tree with the
//! catalogue's strategies. `isTemplate` is stripped from the parent before
//! merging, so a concrete blueprint never inherits it.
//!
//! Each blueprint is resolved once and shared (memoised): a child starts
//! from its parent's finished tree, never recomputing the chain above it.
//! The walk is iterative, so a long chain cannot exhaust the stack. Every
//! node of a resolved tree carries the [`LayerId`] of its position in the
//! chain (0 is the root), which [`Resolved::chain`] names. A chain shares
//! its parent's names ([`Chain`]), so a catalogue of n nested templates
//! holds n names, not n²/2.
//!
//! A chain holds at most [`MAX_TEMPLATE_DEPTH`] blueprints. Real catalogues
//! nest a handful of templates; the bound keeps what a chain costs to list
//! (every blueprint with its whole chain) linear in the catalogue's size.
//! The first blueprint beyond it is reported, and the blueprints below it
//! are left out without a word more, as below a cycle.
//!
//! Codes: `platform/unknown-template` (with a did-you-mean),
//! `platform/invalid-template` (not a string), `platform/template-cycle`
//! (printing the whole chain `a -> b -> c -> a`),
//! `platform/template-too-deep`, and the merge's own codes with a note
//! naming the blueprints being composed.

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use strata_merge::Strategies;
use strata_syntax::{Diagnostic, LayerId, Node, Value};

use crate::load::Definition;

use crate::codes;

/// The most blueprints one chain of templates may hold, its root and the
/// blueprint itself included.
pub const MAX_TEMPLATE_DEPTH: usize = 100;

/// A blueprint resolved over its chain.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The merged tree, before CEL evaluation (shared with the reopened
    /// catalogue that resolved the same chain again).
    pub node: Arc<Node>,
    /// The chain of names, root first, this blueprint last.
    pub chain: Chain,
}

/// The names of a blueprint's chain, root first, this blueprint last. A
/// chain extends its parent's without copying it.
#[derive(Debug, Clone)]
pub struct Chain {
    last: Arc<Link>,
    depth: usize,
}

/// One name of a chain and the chain above it.
#[derive(Debug)]
struct Link {
    name: String,
    parent: Option<Arc<Link>>,
}

impl Drop for Link {
    /// Unlinks iteratively: dropping a long chain link by link would
    /// recurse once per template.
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(link) = next {
            next = Arc::try_unwrap(link)
                .ok()
                .and_then(|mut link| link.parent.take());
        }
    }
}

impl Chain {
    /// The chain of a root blueprint.
    #[must_use]
    pub fn root(name: &str) -> Chain {
        Chain {
            last: Arc::new(Link {
                name: name.to_owned(),
                parent: None,
            }),
            depth: 1,
        }
    }

    /// This chain with `name` below its last blueprint.
    #[must_use]
    pub fn extended(&self, name: &str) -> Chain {
        Chain {
            last: Arc::new(Link {
                name: name.to_owned(),
                parent: Some(Arc::clone(&self.last)),
            }),
            depth: self.depth + 1,
        }
    }

    /// How many blueprints the chain holds: 1 for a root.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The blueprint the chain ends with.
    #[must_use]
    pub fn last(&self) -> &str {
        &self.last.name
    }

    /// The names, this blueprint first, the root last.
    pub fn upwards(&self) -> impl Iterator<Item = &str> {
        std::iter::successors(Some(&self.last), |link| link.parent.as_ref())
            .map(|link| link.name.as_str())
    }

    /// The names, root first.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.upwards().map(str::to_owned).collect();
        names.reverse();
        names
    }
}

impl Resolved {
    /// Whether the blueprint is a template (`isTemplate: true`).
    #[must_use]
    pub fn is_template(&self) -> bool {
        is_template(&self.node)
    }
}

pub(crate) fn is_template(node: &Node) -> bool {
    matches!(
        node.get("isTemplate").map(|n| &n.value),
        Some(Value::Bool(true))
    )
}

/// Resolves every definition; those whose chain is broken are left out,
/// with the break reported once where it is.
/// What resolving a catalogue gave, for a reopening to reuse: the
/// definitions it resolved, what each resolved to, and the problems
/// composing each found.
pub(crate) struct Earlier<'a> {
    pub(crate) definitions: &'a IndexMap<String, Definition>,
    pub(crate) resolved: &'a IndexMap<String, Resolved>,
    pub(crate) composing: &'a HashMap<String, Vec<Diagnostic>>,
}

/// Resolves every blueprint: its chain's definitions merged, root first.
/// With `earlier` (a reopening, with the same strategies), a blueprint
/// whose definition is identical to the one resolved then, and whose
/// parent was reused too, takes the resolution of then, and its
/// problems, without merging again. Also the problems composing each
/// blueprint found, by name.
pub(crate) fn resolve_all(
    definitions: &IndexMap<String, Definition>,
    strategies: &Strategies,
    earlier: Option<&Earlier<'_>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> (IndexMap<String, Resolved>, HashMap<String, Vec<Diagnostic>>) {
    let mut composing: HashMap<String, Vec<Diagnostic>> = HashMap::new();
    // The blueprints whose resolution of then was taken.
    let mut reused: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let reusable = |name: &str, parent: Option<&str>, reused: &std::collections::HashSet<&str>| {
        let earlier = earlier?;
        if parent.is_some_and(|parent| !reused.contains(parent)) {
            return None;
        }
        let (then, now) = (
            &earlier.definitions.get(name)?.node,
            &definitions[name].node,
        );
        if !Arc::ptr_eq(then, now) && !then.identical(now) {
            return None;
        }
        Some((
            earlier.resolved.get(name)?.clone(),
            earlier.composing.get(name).cloned().unwrap_or_default(),
        ))
    };
    let parents = parents(definitions, diagnostics);
    let in_cycle = report_cycles(definitions, &parents, diagnostics);
    // Blueprints left out: on or below a cycle, a broken `template` or a
    // chain too deep. Remembered, so a walk up stops at the first one.
    let mut left_out: std::collections::HashSet<&str> =
        in_cycle.iter().map(String::as_str).collect();
    let mut resolved: IndexMap<String, Resolved> = IndexMap::new();
    for name in definitions.keys() {
        // Walk up to the nearest resolved ancestor (or the root).
        let mut pending = Vec::new();
        let mut current = Some(name.as_str());
        let mut broken = false;
        while let Some(step) = current {
            if resolved.contains_key(step) {
                break;
            }
            if left_out.contains(step) {
                broken = true;
                break;
            }
            pending.push(step);
            current = match parents.get(step) {
                Some(Parent::Root) => None,
                Some(Parent::Named(parent)) => Some(parent.as_str()),
                Some(Parent::Broken) | None => {
                    broken = true;
                    None
                }
            };
        }
        if broken {
            left_out.extend(pending);
            continue;
        }
        // Resolve downwards, root-most first.
        let mut downwards = pending.into_iter().rev();
        while let Some(step) = downwards.next() {
            let definition = &definitions[step];
            let parent = match parents.get(step) {
                Some(Parent::Named(parent)) => Some(parent.as_str()),
                _ => None,
            };
            if let Some((then, problems)) = reusable(step, parent, &reused) {
                diagnostics.extend(problems.iter().cloned());
                composing.insert(step.to_owned(), problems);
                reused.insert(step);
                resolved.insert(step.to_owned(), then);
                continue;
            }
            let next = if let Some(Parent::Named(parent)) = parents.get(step) {
                let base = &resolved[parent.as_str()];
                if base.chain.depth() == MAX_TEMPLATE_DEPTH {
                    diagnostics.push(too_deep_at(definition, &base.chain));
                    left_out.insert(step);
                    left_out.extend(downwards);
                    break;
                }
                let mut problems = Vec::new();
                let composed = compose(base, definition, strategies, &mut problems);
                diagnostics.extend(problems.iter().cloned());
                composing.insert(step.to_owned(), problems);
                composed
            } else {
                let mut node = Node::clone(&definition.node);
                node.stamp_layer(LayerId(0));
                Resolved {
                    node: Arc::new(node),
                    chain: Chain::root(step),
                }
            };
            resolved.insert(step.to_owned(), next);
        }
    }
    resolved.sort_keys();
    (resolved, composing)
}

/// `platform/template-too-deep` at `definition`'s `template`, whose parent's
/// chain is `full`.
fn too_deep_at(definition: &Definition, full: &Chain) -> Diagnostic {
    Diagnostic::error(
        codes::TEMPLATE_TOO_DEEP,
        format!(
            "blueprint `{}` would make a chain of {} templates; a chain holds at most {MAX_TEMPLATE_DEPTH}",
            definition.name,
            full.depth() + 1
        ),
        template_span(definition),
    )
    .with_help(format!(
        "the chain's root is `{}`; inherit from a blueprint nearer to it",
        full.upwards().last().unwrap_or_default()
    ))
}

/// Where `definition` names its template (the blueprint, when it names none).
fn template_span(definition: &Definition) -> strata_syntax::Span {
    definition
        .node
        .get("template")
        .map_or(definition.node.span, |template| template.span)
}

/// `definition` merged over its parent's resolved tree.
fn compose(
    parent: &Resolved,
    definition: &Definition,
    strategies: &Strategies,
    diagnostics: &mut Vec<Diagnostic>,
) -> Resolved {
    let mut lower = Node::clone(&parent.node);
    if let Value::Map(map) = &mut lower.value {
        map.shift_remove("isTemplate");
    }
    let mut upper = Node::clone(&definition.node);
    let layer = u32::try_from(parent.chain.depth()).unwrap_or(u32::MAX);
    upper.stamp_layer(LayerId(layer));
    let merged = strata_merge::merge(lower, upper, strategies);
    let parent_name = parent.chain.last();
    diagnostics.extend(merged.diagnostics.into_iter().map(|diagnostic| {
        diagnostic.with_note(format!(
            "while composing `{}` over `{parent_name}`",
            definition.name
        ))
    }));
    Resolved {
        node: Arc::new(merged.root),
        chain: parent.chain.extended(&definition.name),
    }
}

enum Parent {
    Root,
    Named(String),
    Broken,
}

/// Each definition's parent, checking that `template` names one.
fn parents(
    definitions: &IndexMap<String, Definition>,
    diagnostics: &mut Vec<Diagnostic>,
) -> IndexMap<String, Parent> {
    definitions
        .iter()
        .map(|(name, definition)| {
            let parent = match definition.node.get("template") {
                None
                | Some(Node {
                    value: Value::Null, ..
                }) => Parent::Root,
                Some(Node {
                    value: Value::String(parent),
                    ..
                }) if definitions.contains_key(parent) => Parent::Named(parent.clone()),
                Some(
                    node @ Node {
                        value: Value::String(parent),
                        ..
                    },
                ) => {
                    diagnostics.push(
                        Diagnostic::error(
                            codes::UNKNOWN_TEMPLATE,
                            format!("blueprint `{name}` names an unknown template `{parent}`"),
                            node.span,
                        )
                        .with_suggestion(parent, definitions.keys().map(String::as_str)),
                    );
                    Parent::Broken
                }
                Some(node) => {
                    diagnostics.push(Diagnostic::error(
                        codes::INVALID_TEMPLATE,
                        format!(
                            "`template` names a blueprint and must be a string, found {}",
                            node.value.kind_name()
                        ),
                        node.span,
                    ));
                    Parent::Broken
                }
            };
            (name.clone(), parent)
        })
        .collect()
}

/// Reports each template cycle once and returns the names on cycles.
fn report_cycles(
    definitions: &IndexMap<String, Definition>,
    parents: &IndexMap<String, Parent>,
    diagnostics: &mut Vec<Diagnostic>,
) -> std::collections::HashSet<String> {
    let mut on_cycle = std::collections::HashSet::new();
    let mut finished = std::collections::HashSet::new();
    for start in definitions.keys() {
        let mut path: Vec<&str> = Vec::new();
        let mut current = Some(start.as_str());
        while let Some(name) = current {
            if finished.contains(name) {
                break;
            }
            if let Some(position) = path.iter().position(|seen| *seen == name) {
                let cycle = &path[position..];
                // Report at the `template` of the cycle's first member in sorted order.
                let first = cycle.iter().min().copied().unwrap_or(name);
                let rotated_start = cycle.iter().position(|n| *n == first).unwrap_or(0);
                let mut ordered: Vec<&str> = cycle[rotated_start..]
                    .iter()
                    .chain(&cycle[..rotated_start])
                    .copied()
                    .collect();
                ordered.push(first);
                let span = template_span(&definitions[first]);
                diagnostics.push(
                    Diagnostic::error(
                        codes::TEMPLATE_CYCLE,
                        format!("template cycle: {}", ordered.join(" -> ")),
                        span,
                    )
                    .with_help(
                        "a blueprint cannot inherit from itself, directly or through others",
                    ),
                );
                on_cycle.extend(cycle.iter().map(|n| (*n).to_owned()));
                break;
            }
            path.push(name);
            current = match parents.get(name) {
                Some(Parent::Named(parent)) => Some(parent.as_str()),
                _ => None,
            };
        }
        finished.extend(path.into_iter().map(str::to_owned));
    }
    on_cycle
}

#[cfg(test)]
mod tests {
    use super::Chain;

    #[test]
    fn a_chain_shares_its_parents_names() {
        let root = Chain::root("base");
        let child = root.extended("python");
        let grandchild = child.extended("python-data");
        assert_eq!(grandchild.names(), ["base", "python", "python-data"]);
        assert_eq!((grandchild.depth(), grandchild.last()), (3, "python-data"));
        assert_eq!(
            grandchild.upwards().collect::<Vec<_>>(),
            ["python-data", "python", "base"]
        );
        assert_eq!(
            root.names(),
            ["base"],
            "extending leaves the parent as it was"
        );
    }

    #[test]
    fn a_very_long_chain_drops_without_recursion() {
        // Dropped link by link, a million links would overflow a test
        // thread's stack.
        let mut chain = Chain::root("t0");
        for index in 1..1_000_000 {
            chain = chain.extended(&format!("t{index}"));
        }
        assert_eq!(chain.depth(), 1_000_000);
        drop(chain);
    }
}

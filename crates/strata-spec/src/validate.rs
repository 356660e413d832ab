//! The rules of the specification that the schema cannot state, checked on
//! the typed model: references, types, `each`, conditions, filters, and
//! cycles. Every rule runs on every part that could be built; problems
//! come all at once.
//!
//! - References must exist: variables, values, data sources and their
//!   exported fields (by the export's key; `aliasFor` names the provider's
//!   field), children (an include's name), resources (`resources.name` or
//!   the bare name). A resource is read through `.spec…`, `.state…` or
//!   `.metadata.displayName|labels|annotations|custom`; an index first
//!   (`resources.r[1].spec`) only when it has `each`. `elem` and `i` only
//!   inside a resource with `each` (not in the `each` itself).
//! - `each` may depend only on variables, values and data sources, and
//!   values it reads may not reach a resource or a child; it must give an
//!   array where its type is known.
//! - Types: variable defaults and allowed values fit the type (an integer
//!   is a valid float), booleans take no allowed values, a default lies in
//!   the allowed values; a value's literal content parses as its type and
//!   a substitution's known type fits it; an export's field type fits the
//!   export's type where known; a condition's leaves are booleans; a
//!   filter's search value fits its operator.
//! - The references form the blueprint's [`References`] graph; a cycle
//!   through values, resources, data sources or children is an error that
//!   prints the whole cycle.
//!
//! The `Checker` walks the blueprint element by element, a module each
//! (`variables`, `values`, `includes`, `datasources`, `resources`,
//! `exports`); `scope` is what a reference may name, `cycles` the checks
//! on the whole reference graph.

mod cycles;
mod datasources;
mod exports;
mod includes;
mod resources;
mod scope;
mod values;
mod variables;

use cycles::{cycles, each_dependencies, graph};
use scope::BlueprintScope;

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;

use strata_subst::{SubstError, Template, Types, check_template};
use strata_syntax::{Diagnostic, FieldPath, MapHasher, Node, SourceDb, Span};

use crate::model::{Blueprint, Resource, Tree, node_types};

/// Something a blueprint defines, as a node of the reference graph.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Element {
    /// `variables.<name>`.
    Variable(String),
    /// `values.<name>`.
    Value(String),
    /// `datasources.<name>`.
    Datasource(String),
    /// `include.<name>` (`children.<name>` when referenced).
    Child(String),
    /// `resources.<name>`.
    Resource(String),
    /// `exports.<name>`.
    Export(String),
    /// The blueprint's `metadata`.
    Metadata,
}

impl std::fmt::Display for Element {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Element::Variable(name) => write!(f, "variables.{name}"),
            Element::Value(name) => write!(f, "values.{name}"),
            Element::Datasource(name) => write!(f, "datasources.{name}"),
            Element::Child(name) => write!(f, "children.{name}"),
            Element::Resource(name) => write!(f, "resources.{name}"),
            Element::Export(name) => write!(f, "exports.{name}"),
            Element::Metadata => f.write_str("metadata"),
        }
    }
}

/// One reference: `from` reads `to`, at `span`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The element whose field holds the reference.
    pub from: Element,
    /// The element referred to.
    pub to: Element,
    /// Where the reference is written.
    pub span: Span,
    /// Whether the reference is in a resource's `each`.
    pub in_each: bool,
}

impl Edge {
    /// The same reference written `by` bytes later (earlier when negative).
    fn moved(&self, by: i64) -> Edge {
        Edge {
            span: self.span.moved(by),
            ..self.clone()
        }
    }
}

/// Every reference of a blueprint, in the order written.
#[derive(Debug, Clone, Default)]
pub struct References {
    /// The references.
    pub edges: Vec<Edge>,
}

impl References {
    /// What `element` refers to, in order, without repeats.
    #[must_use]
    pub fn dependencies(&self, element: &Element) -> Vec<&Element> {
        let mut seen = BTreeSet::new();
        self.edges
            .iter()
            .filter(|edge| &edge.from == element && seen.insert(&edge.to))
            .map(|edge| &edge.to)
            .collect()
    }
}

/// Where a field text stands, which decides what it may reference.
#[derive(Clone, Copy)]
struct Site<'a> {
    /// The element the field belongs to.
    owner: &'a Element,
    /// The resource with `each` whose fields may read `elem` and `i`.
    each_resource: Option<&'a Resource>,
    /// Whether the field is the `each` itself.
    in_each: bool,
}

/// Checks a blueprint; gives its references and every problem.
///
/// `defined` names every element the document writes, well formed or not:
/// a reference to one the model could not build (its definition has a
/// structure problem, reported) is not reported as unknown.
pub(crate) fn validate(
    blueprint: &Blueprint,
    defined: &BTreeSet<Element>,
    db: &SourceDb,
    earlier: Option<&EarlierChecks<'_>>,
) -> Checked {
    let mut checker = Checker::new(blueprint, defined, db);
    checker.variables();
    checker.values();
    checker.includes();
    checker.datasources();
    let resources = checker.resources(earlier);
    checker.exports();
    if let Some(metadata) = &blueprint.metadata {
        let owner = Element::Metadata;
        checker.tree(metadata, &FieldPath::root().key("metadata"), site(&owner));
    }
    let references = References {
        edges: checker.edges,
    };
    let mut problems = checker.problems;
    let graph = graph(&references);
    problems.extend(each_dependencies(&references, &graph));
    problems.extend(cycles(&graph));
    Checked {
        references,
        problems,
        resources,
    }
}

/// What [`validate`] found: the references, every problem, and each
/// resource's own part of both.
pub(crate) struct Checked {
    /// Every reference.
    pub(crate) references: References,
    /// Every problem.
    pub(crate) problems: Vec<Diagnostic>,
    /// Each resource's check, in the blueprint's order.
    pub(crate) resources: Vec<ResourceCheck>,
}

/// One resource's check: where its references lie in
/// [`References::edges`], and what it found.
#[derive(Debug, Clone)]
pub(crate) struct ResourceCheck {
    /// Its references' place in the blueprint's.
    pub(crate) edges: Range<usize>,
    /// Its problems.
    pub(crate) problems: Vec<Diagnostic>,
}

/// The checks of a blueprint's resources before an edit, and which still
/// hold: a check holds when the resource's model was kept
/// ([`crate::model::Earlier`], moved or not) and nothing its references
/// reach, directly or through other elements' references, changed
/// ([`reaching`]), in a blueprint with the same elements in the same
/// order. What it found then is moved as far as the resource moved.
pub(crate) struct EarlierChecks<'a> {
    /// The references found before.
    pub(crate) references: &'a References,
    /// Each resource's check before, in the blueprint's order.
    pub(crate) resources: &'a [ResourceCheck],
    /// How far each resource whose check holds moved, in the same order.
    pub(crate) holds: Vec<Option<i64>>,
}

/// `changed` and every element whose references reach one of them along
/// `references`: the elements whose check may differ now. A reference's
/// check reads its target's definition (a declared type, a field's
/// literal shape); going on through the targets' own references costs
/// little, and stays right should a type ever be inferred through them.
pub(crate) fn reaching(
    references: &References,
    changed: Vec<Element>,
) -> HashSet<Element, MapHasher> {
    let mut readers: HashMap<&Element, Vec<&Element>, MapHasher> = HashMap::default();
    for edge in &references.edges {
        readers.entry(&edge.to).or_default().push(&edge.from);
    }
    let mut reached: HashSet<Element, MapHasher> = changed.iter().cloned().collect();
    let mut pending = changed;
    while let Some(element) = pending.pop() {
        for reader in readers.get(&element).into_iter().flatten() {
            if reached.insert((*reader).clone()) {
                pending.push((*reader).clone());
            }
        }
    }
    reached
}

/// Checks a field text written outside the blueprint (a command-line
/// expression) against `blueprint`'s definitions, as a field of its
/// `metadata` would be: its static type and every problem.
#[must_use]
pub(crate) fn check_text(blueprint: &Blueprint, template: &Template) -> (Types, Vec<SubstError>) {
    let owner = Element::Metadata;
    let defined = BTreeSet::new();
    let scope = BlueprintScope {
        blueprint,
        defined: &defined,
        site: site(&owner),
        found: RefCell::new(Vec::new()),
    };
    check_template(template, &scope)
}

fn site(owner: &Element) -> Site<'_> {
    Site {
        owner,
        each_resource: None,
        in_each: false,
    }
}

struct Checker<'a> {
    blueprint: &'a Blueprint,
    defined: &'a BTreeSet<Element>,
    db: &'a SourceDb,
    edges: Vec<Edge>,
    problems: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    /// A checker of `blueprint` that has found nothing yet.
    fn new(
        blueprint: &'a Blueprint,
        defined: &'a BTreeSet<Element>,
        db: &'a SourceDb,
    ) -> Checker<'a> {
        Checker {
            blueprint,
            defined,
            db,
            edges: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Checks every template of a field; gives the field's static type when
    /// it is one template, else the tree's literal type.
    fn tree(&mut self, tree: &Tree, path: &FieldPath, site: Site<'_>) -> Option<Types> {
        let mut single = None;
        tree.each_template(&mut |trail, template, node| {
            let types = self.template(template, node, || path.join(trail), site);
            if matches!(tree, Tree::Template { .. }) {
                single = Some(types);
            }
        });
        single.or_else(|| tree.literal_types())
    }

    /// Checks one template, written at `node`, of the field at `path`
    /// (built only for a problem).
    fn template(
        &mut self,
        template: &Template,
        node: &Node,
        path: impl FnOnce() -> FieldPath,
        site: Site<'_>,
    ) -> Types {
        let text = node.as_str().unwrap_or_default();
        let scope = BlueprintScope {
            blueprint: self.blueprint,
            defined: self.defined,
            site,
            found: RefCell::new(Vec::new()),
        };
        let (types, errors) = check_template(template, &scope);
        for (to, range) in scope.found.into_inner() {
            let span = self
                .db
                .span_in_scalar(node.span, text, range)
                .unwrap_or(node.span);
            self.edges.push(Edge {
                from: site.owner.clone(),
                to,
                span,
                in_each: site.in_each,
            });
        }
        if !errors.is_empty() {
            let path = path();
            for error in errors {
                self.problems.push(
                    error
                        .diagnostic(self.db, node.span, text)
                        .with_path(path.clone()),
                );
            }
        }
        types
    }
}

/// Whether a literal is of `types` (an integer is a valid float).
fn fits(types: Types, node: &Node) -> bool {
    compatible(types, node_types(node))
}

/// Whether what an expression gives can be a field of the declared type
/// (an integer can be a float).
fn compatible(declared: Types, found: Types) -> bool {
    found.meets(declared) || (declared.meets(Types::FLOAT) && found.meets(Types::INTEGER))
}

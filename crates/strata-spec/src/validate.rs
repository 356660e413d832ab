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

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use strata_subst::{
    Accessor, Expr, ExprKind, Name, Reference, Scope, SubstError, Template, Types, check_template,
};
use strata_syntax::{Diagnostic, FieldPath, Node, SourceDb, Span, Value, did_you_mean};

use crate::codes;
use crate::model::{Blueprint, Condition, Operator, Resource, Tree, VariableType, node_types};

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
) -> (References, Vec<Diagnostic>) {
    let mut checker = Checker {
        blueprint,
        defined,
        db,
        edges: Vec::new(),
        problems: Vec::new(),
    };
    checker.variables();
    checker.values();
    checker.includes();
    checker.datasources();
    checker.resources();
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
    (references, problems)
}

/// Checks a field text written outside the blueprint (a command-line
/// expression) against `blueprint`'s definitions, as a field of its
/// `metadata` would be: its static type and every problem.
#[must_use]
pub fn check_text(blueprint: &Blueprint, template: &Template) -> (Types, Vec<SubstError>) {
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

impl Checker<'_> {
    /// Checks every template of a field; gives the field's static type when
    /// it is one template, else the tree's literal type.
    fn tree(&mut self, tree: &Tree, path: &FieldPath, site: Site<'_>) -> Option<Types> {
        let mut single = None;
        for (path, template, node) in tree.templates(path) {
            let types = self.template(template, node, &path, site);
            if matches!(tree, Tree::Template { .. }) {
                single = Some(types);
            }
        }
        single.or_else(|| tree.literal_types())
    }

    fn template(
        &mut self,
        template: &Template,
        node: &Node,
        path: &FieldPath,
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
        for error in errors {
            self.problems.push(
                error
                    .diagnostic(self.db, node.span, text)
                    .with_path(path.clone()),
            );
        }
        types
    }

    fn variables(&mut self) {
        for (name, variable) in &self.blueprint.variables {
            let path = FieldPath::root().key("variables").key(name);
            let declared = &variable.variable_type;
            if let VariableType::Custom(custom) = &declared.value
                && !is_custom_type(custom)
            {
                let builtin = ["string", "integer", "float", "boolean"];
                let mut problem = Diagnostic::error(
                    codes::VARIABLE_TYPE,
                    format!("`{custom}` is not a variable type: use string, integer, float, boolean or a provider's type such as `aws/region`"),
                    declared.span,
                )
                .with_path(path.key("type"));
                if let Some(near) = did_you_mean(custom, builtin) {
                    problem = problem.with_help(format!("did you mean `{near}`?"));
                }
                self.problems.push(problem);
            }
            let types = declared.value.types();
            if let Some(allowed) = &variable.allowed_values {
                if declared.value == VariableType::Boolean {
                    self.problems.push(
                        Diagnostic::error(
                            codes::ALLOWED_VALUES,
                            format!("`{name}` is a boolean: booleans take no `allowedValues`"),
                            allowed.span,
                        )
                        .with_path(path.key("allowedValues")),
                    );
                } else {
                    for (index, item) in allowed.value.iter().enumerate() {
                        if !fits(types, item) {
                            self.problems.push(
                                Diagnostic::error(
                                    codes::ALLOWED_VALUES,
                                    format!(
                                        "allowed value {} of `{name}` is {}, the variable is {}",
                                        index + 1,
                                        node_types(item),
                                        declared.value.name()
                                    ),
                                    item.span,
                                )
                                .with_path(path.key("allowedValues").index(index)),
                            );
                        }
                    }
                }
            }
            if let Some(default) = &variable.default {
                let path = path.key("default");
                if !fits(types, default) {
                    self.problems.push(
                        Diagnostic::error(
                            codes::VARIABLE_DEFAULT,
                            format!(
                                "the default of `{name}` is {}, the variable is {}",
                                node_types(default),
                                declared.value.name()
                            ),
                            default.span,
                        )
                        .with_path(path),
                    );
                } else if let Some(allowed) = &variable.allowed_values
                    && declared.value != VariableType::Boolean
                    && !allowed.value.iter().any(|item| same_scalar(item, default))
                {
                    self.problems.push(
                        Diagnostic::error(
                            codes::VARIABLE_DEFAULT,
                            format!("the default of `{name}` is not one of its allowed values"),
                            default.span,
                        )
                        .with_secondary(allowed.span, "the allowed values")
                        .with_path(path),
                    );
                }
            }
        }
    }

    fn values(&mut self) {
        for (name, value) in &self.blueprint.values {
            let owner = Element::Value(name.clone());
            let path = FieldPath::root().key("values").key(name);
            let declared = value.value_type.value;
            let found = self.tree(&value.value, &path.key("value"), site(&owner));
            if let Some(description) = &value.description {
                self.tree(description, &path.key("description"), site(&owner));
            }
            let problem = match &value.value {
                Tree::Literal(node) => literal_fits(declared, node),
                Tree::Template { template, .. } if template.as_single().is_none() => {
                    (!declared.meets(Types::SCALAR)).then(|| {
                        format!("a string interpolation gives a string; an {declared} value comes from one `${{..}}`")
                    })
                }
                _ => found.filter(|found| !compatible(declared, *found)).map(|found| {
                    format!("the value gives {found}, its type is {declared}")
                }),
            };
            if let Some(message) = problem {
                self.problems.push(
                    Diagnostic::error(
                        codes::VALUE_TYPE,
                        format!("`{name}`: {message}"),
                        value.value.span(),
                    )
                    .with_secondary(value.value_type.span, "the declared type")
                    .with_path(path.key("value")),
                );
            }
        }
    }

    fn includes(&mut self) {
        for (name, include) in &self.blueprint.include {
            let owner = Element::Child(name.clone());
            let path = FieldPath::root().key("include").key(name);
            self.tree(&include.path, &path.key("path"), site(&owner));
            for (variable, (_, tree)) in &include.variables {
                self.tree(tree, &path.key("variables").key(variable), site(&owner));
            }
            for (key, tree) in [
                ("metadata", &include.metadata),
                ("description", &include.description),
            ] {
                if let Some(tree) = tree {
                    self.tree(tree, &path.key(key), site(&owner));
                }
            }
        }
    }

    fn metadata(&mut self, metadata: &crate::model::Metadata, path: &FieldPath, site: Site<'_>) {
        if let Some(display) = &metadata.display_name {
            self.tree(display, &path.key("displayName"), site);
        }
        for (key, (_, tree)) in &metadata.annotations {
            self.tree(tree, &path.key("annotations").key(key), site);
        }
        if let Some(custom) = &metadata.custom {
            self.tree(custom, &path.key("custom"), site);
        }
    }

    fn datasources(&mut self) {
        for (name, datasource) in &self.blueprint.datasources {
            let owner = Element::Datasource(name.clone());
            let path = FieldPath::root().key("datasources").key(name);
            self.metadata(&datasource.metadata, &path.key("metadata"), site(&owner));
            if let Some(description) = &datasource.description {
                self.tree(description, &path.key("description"), site(&owner));
            }
            let Some(filter) = &datasource.filter else {
                continue;
            };
            let search_path = path.key("filter").key("search");
            let search = self.tree(&filter.search, &search_path, site(&owner));
            let field_type = datasource
                .exports
                .iter()
                .find(|(key, export)| {
                    export
                        .alias_for
                        .as_ref()
                        .map_or(key.as_str(), |alias| alias.value.as_str())
                        == filter.field.value
                })
                .map(|(_, export)| export.field_type.value);
            if let Some(message) = search_problem(filter.operator.value, search, field_type) {
                self.problems.push(
                    Diagnostic::error(codes::FILTER_SEARCH, message, filter.search.span())
                        .with_secondary(filter.operator.span, "the operator")
                        .with_path(search_path),
                );
            }
        }
    }

    fn resources(&mut self) {
        for (name, resource) in &self.blueprint.resources {
            let owner = Element::Resource(name.clone());
            let path = FieldPath::root().key("resources").key(name);
            let each_resource = resource.each.is_some().then_some(resource);
            let inside = Site {
                owner: &owner,
                each_resource,
                in_each: false,
            };
            if let Some(each) = &resource.each {
                let each_site = Site {
                    owner: &owner,
                    each_resource: None,
                    in_each: true,
                };
                let types = self.tree(each, &path.key("each"), each_site);
                if let Some(types) = types
                    && !types.meets(Types::ARRAY)
                {
                    let mut problem = Diagnostic::error(
                        codes::EACH_TYPE,
                        format!("`each` must give an array, it gives {types}"),
                        each.span(),
                    )
                    .with_path(path.key("each"));
                    if types.meets(Types::OBJECT) {
                        problem = problem.with_help(
                            "to iterate over a mapping, use `${vals(...)}` or `${keys(...)}`",
                        );
                    } else if types.meets(Types::STRING) {
                        problem = problem.with_help(
                            "to iterate over a delimited string, use `${split(..., \",\")}`; over a JSON array, `${jsondecode(...)}`",
                        );
                    }
                    self.problems.push(problem);
                }
            }
            if let Some(description) = &resource.description {
                self.tree(description, &path.key("description"), inside);
            }
            self.metadata(&resource.metadata, &path.key("metadata"), inside);
            if let Some(condition) = &resource.condition {
                self.condition(condition, &path.key("condition"), inside);
            }
            self.tree(&resource.spec, &path.key("spec"), inside);
        }
    }

    fn condition(&mut self, condition: &Condition, path: &FieldPath, site: Site<'_>) {
        match condition {
            Condition::Leaf(tree) => {
                let types = self.tree(tree, path, site);
                if let Some(types) = types
                    && !types.meets(Types::BOOLEAN)
                {
                    self.problems.push(
                        Diagnostic::error(
                            codes::CONDITION,
                            format!("a condition must be a boolean, this is {types}"),
                            tree.span(),
                        )
                        .with_path(path.clone()),
                    );
                }
            }
            Condition::And(items, _) | Condition::Or(items, _) => {
                let key = if matches!(condition, Condition::And(..)) {
                    "and"
                } else {
                    "or"
                };
                for (index, item) in items.iter().enumerate() {
                    self.condition(item, &path.key(key).index(index), site);
                }
            }
            Condition::Not(inner, _) => self.condition(inner, &path.key("not"), site),
        }
    }

    fn exports(&mut self) {
        for (name, export) in &self.blueprint.exports {
            let owner = Element::Export(name.clone());
            let path = FieldPath::root().key("exports").key(name);
            if let Some(description) = &export.description {
                self.tree(description, &path.key("description"), site(&owner));
            }
            let field = &export.field;
            let reference = match &export.reference {
                Some(
                    expr @ Expr {
                        kind: ExprKind::Reference(_),
                        ..
                    },
                ) => expr,
                other => {
                    let what = match other.as_ref().map(|expr| &expr.kind) {
                        Some(ExprKind::Call(_)) => {
                            "a function call: exports cannot compute; compute it in a value and export `values.NAME`"
                        }
                        Some(ExprKind::Literal(_)) => "a literal: an export names what it exports",
                        Some(ExprKind::Bare(_)) => {
                            "a resource without a field: read `.spec…`, `.state…` or `.metadata…`"
                        }
                        _ => "not a reference",
                    };
                    self.problems.push(
                        Diagnostic::error(
                            codes::EXPORT_FIELD,
                            format!("the field `{}` is {what}", field.value),
                            field.span,
                        )
                        .with_help("write a reference without `${..}`: `resources.NAME.state.FIELD`, `values.NAME`, `children.NAME.EXPORT`, `variables.NAME`, `datasources.NAME.FIELD`")
                        .with_path(path.key("field")),
                    );
                    continue;
                }
            };
            let template = Template {
                parts: vec![strata_subst::Part::Substitution(
                    strata_subst::Substitution {
                        range: reference.range.clone(),
                        expr: reference.clone(),
                    },
                )],
            };
            let node = Node::new(Value::String(field.value.clone()), field.span);
            let found = self.template(&template, &node, &path.key("field"), site(&owner));
            let declared = export.export_type.value;
            if found != Types::ANY && !compatible(declared, found) {
                self.problems.push(
                    Diagnostic::error(
                        codes::EXPORT_TYPE,
                        format!(
                            "`{}` is {found}, the export's type is {declared}",
                            field.value
                        ),
                        field.span,
                    )
                    .with_secondary(export.export_type.span, "the export's type")
                    .with_path(path.key("field")),
                );
            }
        }
    }
}

/// Whether a custom variable type is written `provider/type[/…]`.
fn is_custom_type(name: &str) -> bool {
    let segments: Vec<&str> = name.split('/').collect();
    segments.len() >= 2
        && segments.iter().all(|segment| {
            !segment.is_empty()
                && segment
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
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

/// Scalars equal as values (an integer and a float numerically).
#[expect(
    clippy::float_cmp,
    reason = "a default is one of the allowed values when it is exactly equal to one"
)]
fn same_scalar(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Int(x), Value::Float(y)) | (Value::Float(y), Value::Int(x)) => {
            #[expect(
                clippy::cast_precision_loss,
                reason = "numeric comparison of an integer with a float"
            )]
            let x = *x as f64;
            x == *y
        }
        _ => a.same_content(b),
    }
}

/// Why a literal value does not fit its declared type (strings are parsed
/// for integer, float and boolean).
fn literal_fits(declared: Types, node: &Node) -> Option<String> {
    let text = match &node.value {
        Value::String(text) => text.trim(),
        _ => {
            return (!fits(declared, node))
                .then(|| format!("the value is {}, its type is {declared}", node_types(node)));
        }
    };
    let parses = if declared == Types::INTEGER {
        text.parse::<i64>().is_ok()
    } else if declared == Types::FLOAT {
        text.parse::<f64>().is_ok_and(f64::is_finite)
    } else if declared == Types::BOOLEAN {
        matches!(text, "true" | "false")
    } else if declared == Types::STRING {
        true
    } else {
        return Some(format!(
            "an {declared} value comes from a `${{..}}` substitution, not a literal"
        ));
    };
    (!parses).then(|| format!("`{text}` does not parse as {declared}"))
}

/// Why a filter's search value does not fit its operator.
fn search_problem(
    operator: Operator,
    search: Option<Types>,
    field: Option<Types>,
) -> Option<String> {
    let search = search?;
    let (wanted, why) = match operator {
        Operator::In | Operator::NotIn => (
            Types::ARRAY,
            "`in` and `not in` compare the field with a list of values, an array".to_owned(),
        ),
        Operator::HasKey | Operator::NotHasKey => (
            Types::STRING,
            "`has key` and `not has key` look for a key, a string".to_owned(),
        ),
        Operator::StartsWith
        | Operator::NotStartsWith
        | Operator::EndsWith
        | Operator::NotEndsWith => (
            Types::STRING,
            "`starts with` and `ends with` compare the field with a string".to_owned(),
        ),
        Operator::Contains | Operator::NotContains => (
            Types::SCALAR,
            "`contains` and `not contains` look for one value, a string, number or boolean"
                .to_owned(),
        ),
        Operator::Equal | Operator::NotEqual => match field {
            Some(field) if field == Types::ARRAY => (
                Types::ARRAY,
                "the field is an array: `=` and `!=` compare it with an array".to_owned(),
            ),
            Some(field) if field != Types::ANY => (
                field,
                format!("the field is {field}: `=` and `!=` compare it with a value of its type"),
            ),
            _ => return None,
        },
    };
    (!compatible(wanted, search)).then(|| format!("the search value is {search}, but {why}"))
}

/// The references leaving each element, in the order written.
type Graph<'a> = HashMap<&'a Element, Vec<&'a Edge>>;

fn graph(references: &References) -> Graph<'_> {
    let mut graph: Graph<'_> = HashMap::new();
    for edge in &references.edges {
        graph.entry(&edge.from).or_default().push(edge);
    }
    graph
}

/// Whether references through `element` order deployment (values,
/// resources, data sources, children; not variables or exports).
fn is_ordered(element: &Element) -> bool {
    matches!(
        element,
        Element::Value(_) | Element::Resource(_) | Element::Datasource(_) | Element::Child(_)
    )
}

/// `each` reading, through values, a resource or a child.
fn each_dependencies(references: &References, graph: &Graph<'_>) -> Vec<Diagnostic> {
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
fn reaches_deployed(
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
fn cycles(graph: &Graph<'_>) -> Vec<Diagnostic> {
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
fn cycle_in(graph: &Graph<'_>, group: &[&Element]) -> Option<Diagnostic> {
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

/// What references see from one field.
struct BlueprintScope<'a> {
    blueprint: &'a Blueprint,
    /// Every element the document writes, well formed or not.
    defined: &'a BTreeSet<Element>,
    site: Site<'a>,
    /// Every element referenced, with where.
    found: RefCell<Vec<(Element, Range<usize>)>>,
}

impl BlueprintScope<'_> {
    fn record(&self, element: Element, range: Range<usize>) {
        self.found.borrow_mut().push((element, range));
    }

    /// Whether `element` is written but malformed (the model has no
    /// definition for it): it is recorded and may be anything.
    fn malformed(&self, element: Element, range: Range<usize>) -> bool {
        if self.defined.contains(&element) {
            self.record(element, range);
            true
        } else {
            false
        }
    }

    fn unknown(code: strata_syntax::Code, what: &str, name: &Name, known: Vec<&str>) -> SubstError {
        let mut error = SubstError::new(
            code,
            format!("there is no {what} `{}`", name.text),
            name.range.clone(),
        );
        if let Some(near) = did_you_mean(&name.text, known) {
            error = error.with_help(format!("did you mean `{near}`?"));
        }
        error
    }

    fn in_each(&self, what: &str, range: Range<usize>) -> Result<(), SubstError> {
        if self.site.in_each {
            return Err(SubstError::new(
                codes::EACH_DEPENDENCY,
                format!(
                    "`each` may depend only on variables, values and data sources, not on {what}"
                ),
                range,
            ));
        }
        Ok(())
    }

    fn resource_path(
        resource: &Resource,
        name: &str,
        path: &[Accessor],
        range: Range<usize>,
    ) -> Result<Types, SubstError> {
        let mut rest = path;
        if let Some(Accessor::Index {
            range: index_range, ..
        }) = rest.first()
        {
            if resource.each.is_none() {
                return Err(SubstError::new(
                    codes::RESOURCE_FIELD,
                    format!("`{name}` has no `each`: it is one resource, not a list"),
                    index_range.clone(),
                ));
            }
            rest = &rest[1..];
        }
        let field = |accessor: Option<&Accessor>| match accessor {
            Some(Accessor::Field(field)) => Some(field.clone()),
            _ => None,
        };
        let Some(section) = field(rest.first()) else {
            let at = rest.first().map_or(range, Accessor::range);
            return Err(SubstError::new(
                codes::RESOURCE_FIELD,
                format!(
                    "read a resource through `.spec…`, `.state…` or `.metadata…`: `{name}` alone is only an argument of `link`"
                ),
                at,
            ));
        };
        match section.text.as_str() {
            "spec" => Ok(spec_types(&resource.spec, &rest[1..])),
            "state" => Ok(Types::ANY),
            "metadata" => {
                let Some(part) = field(rest.get(1)) else {
                    return Err(SubstError::new(
                        codes::RESOURCE_FIELD,
                        "read a resource's metadata through `.displayName`, `.labels`, `.annotations` or `.custom`",
                        section.range.clone(),
                    ));
                };
                let depth = rest.len() - 2;
                match (part.text.as_str(), depth) {
                    ("displayName", 0) | ("labels", 1) => Ok(Types::STRING),
                    ("labels" | "annotations", 0) => Ok(Types::OBJECT),
                    ("annotations", 1) => Ok(Types::SCALAR),
                    ("custom", _) => Ok(Types::ANY),
                    ("displayName" | "labels" | "annotations", _) => Err(SubstError::new(
                        codes::RESOURCE_FIELD,
                        format!("`metadata.{}` has no further fields", part.text),
                        rest[2].range().start..rest[rest.len() - 1].range().end,
                    )),
                    (other, _) => Err(SubstError::new(
                        codes::RESOURCE_FIELD,
                        format!(
                            "a resource's metadata has no `{other}`: use `displayName`, `labels`, `annotations` or `custom`"
                        ),
                        part.range.clone(),
                    )),
                }
            }
            other => {
                let mut error = SubstError::new(
                    codes::RESOURCE_FIELD,
                    format!(
                        "a resource is read through `.spec`, `.state` or `.metadata`, not `.{other}`"
                    ),
                    section.range.clone(),
                );
                if let Some(near) = did_you_mean(other, ["spec", "state", "metadata"]) {
                    error = error.with_help(format!("did you mean `{near}`?"));
                }
                Err(error)
            }
        }
    }
}

/// The type of a spec field read by `path`, when the spec writes it
/// literally.
fn spec_types(spec: &Tree, path: &[Accessor]) -> Types {
    let mut at = spec;
    for accessor in path {
        at = match (at, accessor) {
            (Tree::Map { entries, .. }, Accessor::Field(name)) => match entries.get(&name.text) {
                Some((_, tree)) => tree,
                None => return Types::ANY,
            },
            (Tree::Seq { items, .. }, Accessor::Index { index, .. }) => {
                match items.get(index.unwrap_or(0)) {
                    Some(tree) => tree,
                    None => return Types::ANY,
                }
            }
            _ => return Types::ANY,
        };
    }
    match at {
        // A string interpolation is a string; one `${..}` is not known here.
        Tree::Template { template, .. } if template.as_single().is_none() => Types::STRING,
        Tree::Template { .. } => Types::ANY,
        other => other.literal_types().unwrap_or(Types::ANY),
    }
}

impl Scope for BlueprintScope<'_> {
    #[expect(
        clippy::too_many_lines,
        reason = "one arm per kind of reference, each with its own rules"
    )]
    fn reference(&self, reference: &Reference, range: Range<usize>) -> Result<Types, SubstError> {
        let blueprint = self.blueprint;
        match reference {
            Reference::Variable { name } => {
                if !blueprint.variables.contains_key(&name.text)
                    && self.malformed(Element::Variable(name.text.clone()), range.clone())
                {
                    return Ok(Types::ANY);
                }
                let variable = blueprint.variables.get(&name.text).ok_or_else(|| {
                    Self::unknown(
                        codes::UNKNOWN_VARIABLE,
                        "variable",
                        name,
                        blueprint.variables.keys().map(String::as_str).collect(),
                    )
                })?;
                self.record(Element::Variable(name.text.clone()), range);
                Ok(variable.variable_type.value.types())
            }
            Reference::Value { name, path } => {
                if !blueprint.values.contains_key(&name.text)
                    && self.malformed(Element::Value(name.text.clone()), range.clone())
                {
                    return Ok(Types::ANY);
                }
                let value = blueprint.values.get(&name.text).ok_or_else(|| {
                    Self::unknown(
                        codes::UNKNOWN_VALUE,
                        "value",
                        name,
                        blueprint.values.keys().map(String::as_str).collect(),
                    )
                })?;
                self.record(Element::Value(name.text.clone()), range);
                let declared = value.value_type.value;
                match path.first() {
                    None => Ok(declared),
                    Some(first) if !declared.meets(Types::ARRAY | Types::OBJECT) => {
                        Err(SubstError::new(
                            codes::VALUE_ACCESSOR,
                            format!(
                                "`values.{}` is {declared}: it has no fields or items",
                                name.text
                            ),
                            first.range(),
                        ))
                    }
                    Some(_) => Ok(Types::ANY),
                }
            }
            Reference::Datasource { name, field, index } => {
                if !blueprint.datasources.contains_key(&name.text)
                    && self.malformed(Element::Datasource(name.text.clone()), range.clone())
                {
                    return Ok(Types::ANY);
                }
                let datasource = blueprint.datasources.get(&name.text).ok_or_else(|| {
                    Self::unknown(
                        codes::UNKNOWN_DATASOURCE,
                        "data source",
                        name,
                        blueprint.datasources.keys().map(String::as_str).collect(),
                    )
                })?;
                self.record(Element::Datasource(name.text.clone()), range);
                let Some(export) = datasource.exports.get(&field.text) else {
                    let mut error = Self::unknown(
                        codes::UNKNOWN_DATASOURCE_FIELD,
                        &format!("field exported by `{}` named", name.text),
                        field,
                        datasource.exports.keys().map(String::as_str).collect(),
                    );
                    if let Some((key, _)) = datasource.exports.iter().find(|(_, export)| {
                        export
                            .alias_for
                            .as_ref()
                            .is_some_and(|alias| alias.value == field.text)
                    }) {
                        error = error.with_help(format!(
                            "`{}` is the provider's name of the field exported as `{key}`: reference `datasources.{}.{key}`",
                            field.text, name.text
                        ));
                    }
                    return Err(error);
                };
                let declared = export.field_type.value;
                match index {
                    None => Ok(declared),
                    Some(accessor) if !declared.meets(Types::ARRAY) => Err(SubstError::new(
                        codes::VALUE_ACCESSOR,
                        format!(
                            "`datasources.{}.{}` is {declared}: it has no items",
                            name.text, field.text
                        ),
                        accessor.range(),
                    )),
                    Some(_) => Ok(Types::SCALAR),
                }
            }
            Reference::Child { name, .. } => {
                self.in_each("a child blueprint", range.clone())?;
                if !blueprint.include.contains_key(&name.text)
                    && !self.defined.contains(&Element::Child(name.text.clone()))
                {
                    return Err(Self::unknown(
                        codes::UNKNOWN_CHILD,
                        "included blueprint",
                        name,
                        blueprint.include.keys().map(String::as_str).collect(),
                    ));
                }
                self.record(Element::Child(name.text.clone()), range);
                Ok(Types::ANY)
            }
            Reference::Resource {
                name,
                path,
                prefixed,
            } => {
                self.in_each("a resource", range.clone())?;
                if !blueprint.resources.contains_key(&name.text)
                    && self.malformed(Element::Resource(name.text.clone()), range.clone())
                {
                    return Ok(Types::ANY);
                }
                let Some(resource) = blueprint.resources.get(&name.text) else {
                    let what = if *prefixed {
                        "resource"
                    } else {
                        "resource (nor any other kind of reference) named"
                    };
                    return Err(Self::unknown(
                        codes::UNKNOWN_RESOURCE,
                        what,
                        name,
                        blueprint.resources.keys().map(String::as_str).collect(),
                    ));
                };
                self.record(Element::Resource(name.text.clone()), range.clone());
                Self::resource_path(resource, &name.text, path, range)
            }
            Reference::Elem { .. } | Reference::ElemIndex => {
                let which = if matches!(reference, Reference::ElemIndex) {
                    "i"
                } else {
                    "elem"
                };
                if self.site.in_each {
                    return Err(SubstError::new(
                        codes::EACH_DEPENDENCY,
                        format!(
                            "`{which}` is the current item of `each`: `each` itself cannot read it"
                        ),
                        range,
                    ));
                }
                if self.site.each_resource.is_none() {
                    return Err(SubstError::new(
                        codes::ELEM_OUTSIDE_EACH,
                        format!("`{which}` is only defined inside a resource with `each`"),
                        range,
                    ));
                }
                Ok(if which == "i" {
                    Types::INTEGER
                } else {
                    Types::ANY
                })
            }
        }
    }

    fn resource(&self, name: &Name) -> Result<(), SubstError> {
        let element = Element::Resource(name.text.clone());
        if self.blueprint.resources.contains_key(&name.text) || self.defined.contains(&element) {
            self.record(element, name.range.clone());
            Ok(())
        } else {
            Err(Self::unknown(
                codes::UNKNOWN_RESOURCE,
                "resource",
                name,
                self.blueprint
                    .resources
                    .keys()
                    .map(String::as_str)
                    .collect(),
            ))
        }
    }
}

//! The typed model of a blueprint, with the span of every field, built
//! from a tree whose structure the schema ([`crate::schema`]) has checked.
//!
//! Every field that may hold `${..}` is a [`Tree`]: the document with each
//! string parsed as a [`Template`], so later phases evaluate it without
//! parsing again. Fields that may not hold substitutions keep their text
//! ([`Spanned`]); the rule checks ([`crate::placement`]) have reported any
//! `${` there.
//!
//! The builder is tolerant: a part whose structure is wrong (already
//! reported by the schema) is left out, so every valid part is checked.

use std::sync::Arc;

use indexmap::IndexMap;
use strata_subst::{Expr, Part, SubstError, Template, Types, parse_expr, parse_template};
use strata_syntax::substitution::has_opening;
use strata_syntax::{FieldPath, MapHasher, Mapping, Node, PathStep, Span, Value};

/// A section or mapping of the model: its entries by name, in the order
/// written, hashed as the tree's own mappings are.
pub type Named<T> = IndexMap<String, T, MapHasher>;

/// A value and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

/// A document value whose strings may hold substitutions.
#[derive(Debug, Clone)]
pub enum Tree {
    /// A scalar without substitutions (a string without `${`, a number, a
    /// boolean, `null`).
    Literal(Node),
    /// A string with substitutions.
    Template {
        /// The parsed text.
        template: Template,
        /// The scalar as written (its value is the text).
        node: Node,
    },
    /// A sequence.
    Seq {
        /// The items.
        items: Vec<Tree>,
        /// Where it was written.
        span: Span,
    },
    /// A mapping.
    Map {
        /// The entries, in order, with where each key was written.
        entries: Named<(Span, Tree)>,
        /// Where it was written.
        span: Span,
    },
}

impl Tree {
    /// Moves every span of the tree `by` bytes ([`Span::moved`]).
    fn move_by(&mut self, by: i64) {
        match self {
            Tree::Literal(node) | Tree::Template { node, .. } => node.move_by(by),
            Tree::Seq { items, span } => {
                *span = span.moved(by);
                for item in items.iter_mut() {
                    item.move_by(by);
                }
            }
            Tree::Map { entries, span } => {
                *span = span.moved(by);
                for (key_span, tree) in entries.values_mut() {
                    *key_span = key_span.moved(by);
                    tree.move_by(by);
                }
            }
        }
    }

    /// Where the value was written.
    #[must_use]
    pub fn span(&self) -> Span {
        match self {
            Tree::Literal(node) | Tree::Template { node, .. } => node.span,
            Tree::Seq { span, .. } | Tree::Map { span, .. } => *span,
        }
    }

    /// Every template in the tree with its path (below `base`) and its
    /// scalar, depth first.
    #[must_use]
    pub fn templates(&self, base: &FieldPath) -> Vec<(FieldPath, &Template, &Node)> {
        let mut found = Vec::new();
        self.each_template(&mut |trail, template, node| {
            found.push((base.join(trail), template, node));
        });
        found
    }

    /// Calls `found` with every template in the tree, depth first, with
    /// the way down to it (borrowed, so that a path is built only by a
    /// caller that needs one) and its scalar.
    pub fn each_template<'a>(
        &'a self,
        found: &mut dyn FnMut(&[PathStep<'a>], &'a Template, &'a Node),
    ) {
        self.visit_templates(&mut Vec::new(), found);
    }

    fn visit_templates<'a>(
        &'a self,
        trail: &mut Vec<PathStep<'a>>,
        found: &mut dyn FnMut(&[PathStep<'a>], &'a Template, &'a Node),
    ) {
        match self {
            Tree::Literal(_) => {}
            Tree::Template { template, node } => found(trail, template, node),
            Tree::Seq { items, .. } => {
                for (index, item) in items.iter().enumerate() {
                    trail.push(PathStep::Index(index));
                    item.visit_templates(trail, found);
                    trail.pop();
                }
            }
            Tree::Map { entries, .. } => {
                for (key, (_, tree)) in entries {
                    trail.push(PathStep::Key(key));
                    tree.visit_templates(trail, found);
                    trail.pop();
                }
            }
        }
    }

    /// The literal type of the tree, when no substitution decides it.
    #[must_use]
    pub fn literal_types(&self) -> Option<Types> {
        match self {
            Tree::Literal(node) => Some(node_types(node)),
            Tree::Template { .. } => None,
            Tree::Seq { .. } => Some(Types::ARRAY),
            Tree::Map { .. } => Some(Types::OBJECT),
        }
    }

    /// The entry under `key`, for a mapping.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Tree> {
        match self {
            Tree::Map { entries, .. } => entries.get(key).map(|(_, tree)| tree),
            _ => None,
        }
    }
}

/// The type of a document scalar or collection.
#[must_use]
pub fn node_types(node: &Node) -> Types {
    match &node.value {
        Value::Null => Types::NULL,
        Value::Bool(_) => Types::BOOLEAN,
        Value::Int(_) => Types::INTEGER,
        Value::Float(_) => Types::FLOAT,
        Value::String(_) => Types::STRING,
        Value::Seq(_) => Types::ARRAY,
        Value::Map(_) => Types::OBJECT,
    }
}

/// A variable's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariableType {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `float`.
    Float,
    /// `boolean`.
    Boolean,
    /// A provider's type (`aws/region`): an enum of labels, strings.
    Custom(String),
}

impl VariableType {
    /// The type a blueprint names.
    #[must_use]
    pub fn from_name(name: &str) -> VariableType {
        match name {
            "string" => VariableType::String,
            "integer" => VariableType::Integer,
            "float" => VariableType::Float,
            "boolean" => VariableType::Boolean,
            other => VariableType::Custom(other.to_owned()),
        }
    }

    /// The values of the type in the substitution language.
    #[must_use]
    pub fn types(&self) -> Types {
        match self {
            VariableType::String | VariableType::Custom(_) => Types::STRING,
            VariableType::Integer => Types::INTEGER,
            VariableType::Float => Types::FLOAT,
            VariableType::Boolean => Types::BOOLEAN,
        }
    }

    /// The type as written.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            VariableType::String => "string",
            VariableType::Integer => "integer",
            VariableType::Float => "float",
            VariableType::Boolean => "boolean",
            VariableType::Custom(name) => name,
        }
    }
}

/// `variables.<name>`.
#[derive(Debug, Clone)]
pub struct Variable {
    /// Where the name was written.
    pub name_span: Span,
    /// The type.
    pub variable_type: Spanned<VariableType>,
    /// The description.
    pub description: Option<Spanned<String>>,
    /// Whether the value is masked.
    pub secret: bool,
    /// The default.
    pub default: Option<Node>,
    /// The allowed values, and where the list was written.
    pub allowed_values: Option<Spanned<Vec<Node>>>,
}

/// `values.<name>`.
#[derive(Debug, Clone)]
pub struct ValueDef {
    /// Where the name was written.
    pub name_span: Span,
    /// The declared type.
    pub value_type: Spanned<Types>,
    /// The content.
    pub value: Tree,
    /// The description.
    pub description: Option<Tree>,
    /// Whether the value is masked.
    pub secret: bool,
}

/// `include.<name>`.
#[derive(Debug, Clone)]
pub struct Include {
    /// Where the name was written.
    pub name_span: Span,
    /// The child's path.
    pub path: Tree,
    /// Values of the child's variables.
    pub variables: Named<(Span, Tree)>,
    /// Metadata (a remote source).
    pub metadata: Option<Tree>,
    /// The description.
    pub description: Option<Tree>,
}

/// A resource's or data source's metadata.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    /// `displayName`.
    pub display_name: Option<Tree>,
    /// `annotations`.
    pub annotations: Named<(Span, Tree)>,
    /// `labels` (resources only; no substitutions).
    pub labels: Named<Spanned<String>>,
    /// `custom`.
    pub custom: Option<Tree>,
}

/// A resource condition.
#[derive(Debug, Clone)]
pub enum Condition {
    /// A `${..}` that gives a boolean (or a literal).
    Leaf(Tree),
    /// `and: [...]`.
    And(Vec<Condition>, Span),
    /// `or: [...]`.
    Or(Vec<Condition>, Span),
    /// `not: ...`.
    Not(Box<Condition>, Span),
}

impl Condition {
    fn move_by(&mut self, by: i64) {
        match self {
            Condition::Leaf(tree) => tree.move_by(by),
            Condition::And(items, span) | Condition::Or(items, span) => {
                *span = span.moved(by);
                for item in items.iter_mut() {
                    item.move_by(by);
                }
            }
            Condition::Not(inner, span) => {
                *span = span.moved(by);
                inner.move_by(by);
            }
        }
    }

    /// Every leaf, in order.
    pub fn leaves(&self) -> Vec<&Tree> {
        match self {
            Condition::Leaf(tree) => vec![tree],
            Condition::And(items, _) | Condition::Or(items, _) => {
                items.iter().flat_map(Condition::leaves).collect()
            }
            Condition::Not(inner, _) => inner.leaves(),
        }
    }
}

/// `resources.<name>`.
#[derive(Debug, Clone)]
pub struct Resource {
    /// Where the name was written.
    pub name_span: Span,
    /// The resource type.
    pub resource_type: Spanned<String>,
    /// The description.
    pub description: Option<Tree>,
    /// The metadata.
    pub metadata: Metadata,
    /// The condition.
    pub condition: Option<Condition>,
    /// The `each` expression.
    pub each: Option<Tree>,
    /// `linkSelector.byLabel`.
    pub link_selector: Named<Spanned<String>>,
    /// The spec.
    pub spec: Tree,
}

impl Resource {
    /// This resource written `by` bytes later (earlier when negative): every
    /// span moved ([`Span::moved`]).
    #[must_use]
    pub(crate) fn moved(&self, by: i64) -> Resource {
        let mut resource = self.clone();
        let Resource {
            name_span,
            resource_type,
            description,
            metadata,
            condition,
            each,
            link_selector,
            spec,
        } = &mut resource;
        *name_span = name_span.moved(by);
        resource_type.span = resource_type.span.moved(by);
        let Metadata {
            display_name,
            annotations,
            labels,
            custom,
        } = metadata;
        for tree in [description, each, display_name, custom]
            .into_iter()
            .flatten()
            .chain(std::iter::once(spec))
        {
            tree.move_by(by);
        }
        for (key_span, tree) in annotations.values_mut() {
            *key_span = key_span.moved(by);
            tree.move_by(by);
        }
        for text in labels.values_mut().chain(link_selector.values_mut()) {
            text.span = text.span.moved(by);
        }
        if let Some(condition) = condition {
            condition.move_by(by);
        }
        resource
    }
}

/// A data source filter operator, as written.
pub use crate::schema::Operator;

/// `datasources.<name>.filter`.
#[derive(Debug, Clone)]
pub struct Filter {
    /// The field of the external resource.
    pub field: Spanned<String>,
    /// The operator.
    pub operator: Spanned<Operator>,
    /// The search value(s).
    pub search: Tree,
}

/// `datasources.<name>.exports.<field>`.
#[derive(Debug, Clone)]
pub struct DatasourceExport {
    /// Where the key was written.
    pub name_span: Span,
    /// The field's type.
    pub field_type: Spanned<Types>,
    /// The field's name in the provider's data.
    pub alias_for: Option<Spanned<String>>,
    /// The description.
    pub description: Option<Spanned<String>>,
}

/// `datasources.<name>`.
#[derive(Debug, Clone)]
pub struct Datasource {
    /// Where the name was written.
    pub name_span: Span,
    /// The data source type.
    pub datasource_type: Spanned<String>,
    /// The metadata.
    pub metadata: Metadata,
    /// The filter.
    pub filter: Option<Filter>,
    /// The exported fields.
    pub exports: Named<DatasourceExport>,
    /// The description.
    pub description: Option<Tree>,
}

/// `exports.<name>`.
#[derive(Debug, Clone)]
pub struct Export {
    /// Where the name was written.
    pub name_span: Span,
    /// The exported type.
    pub export_type: Spanned<Types>,
    /// The field as written.
    pub field: Spanned<String>,
    /// The field parsed as a reference, when it parses.
    pub reference: Option<Expr>,
    /// The description.
    pub description: Option<Tree>,
}

/// A blueprint: every section, in the order written.
#[derive(Debug, Clone)]
pub struct Blueprint {
    /// The whole document.
    pub span: Span,
    /// `transform`.
    pub transform: Vec<Spanned<String>>,
    /// `variables`.
    pub variables: Named<Variable>,
    /// `values`.
    pub values: Named<ValueDef>,
    /// `include`.
    pub include: Named<Include>,
    /// `resources` (shared: a reopening keeps the model of every resource
    /// whose entry did not change).
    pub resources: Named<Arc<Resource>>,
    /// `datasources`.
    pub datasources: Named<Datasource>,
    /// `exports`.
    pub exports: Named<Export>,
    /// `metadata`.
    pub metadata: Option<Tree>,
}

/// Builds the model from a tree; `problems` receives each field text that
/// does not parse, with its scalar, for the caller to report there.
pub(crate) struct Builder<'a> {
    pub(crate) problems: &'a mut Vec<(SubstError, Node)>,
}

/// One entry of the tree's `resources` as built: its model (none when its
/// structure is wrong) and the field texts in it that do not parse.
#[derive(Debug, Clone)]
pub(crate) struct BuiltResource {
    /// The model.
    pub(crate) model: Option<Arc<Resource>>,
    /// The texts that do not parse, with their scalars.
    pub(crate) problems: Vec<(SubstError, Node)>,
}

/// What the resource entry whose key is written at `key_span` gives: its
/// model, and the texts in it that do not parse. It depends on the entry
/// alone, so it is built while the rest of the file is still being parsed
/// ([`Prebuilt`]), or kept from before an edit ([`Earlier`]).
pub(crate) fn build_resource(key_span: Span, node: &Node) -> BuiltResource {
    let mut problems = Vec::new();
    let model = Builder {
        problems: &mut problems,
    }
    .resource(key_span, node)
    .map(Arc::new);
    BuiltResource { model, problems }
}

/// What resource entries gave, built as the parse handed each out
/// ([`strata_dialect::Reader::read_handing_off`]), with the span of each
/// entry's value (which tells the entry in the parse that built it), in
/// the order written.
pub(crate) type Prebuilt = Vec<(Span, BuiltResource)>;

/// The resources of a blueprint as built before, to keep: a resource's
/// model depends on its entry alone, so an entry identical to the one it
/// was built from (every span included) keeps what it gave, and one
/// identical but moved whole by an edit before it keeps a copy with its
/// spans moved as far.
#[derive(Clone, Copy)]
pub(crate) struct Earlier<'a> {
    /// The `resources` of the tree built before.
    pub(crate) entries: &'a Mapping,
    /// What each of its entries gave, in its order.
    pub(crate) built: &'a [BuiltResource],
}

impl Earlier<'_> {
    /// What the entry `name`, its key at `key_span`, gave before, when it
    /// is identical now, or identical but moved (an edit before it changed
    /// the text's length), with its spans moved as far; and how far.
    fn kept(&self, name: &str, key_span: Span, node: &Node) -> Option<(BuiltResource, i64)> {
        let (index, _, entry) = self.entries.get_full(name)?;
        let by = moved_by(entry, key_span, node)?;
        let built = self.built.get(index)?;
        if by == 0 {
            return Some((built.clone(), 0));
        }
        let moved = BuiltResource {
            model: built.model.as_ref().map(|model| Arc::new(model.moved(by))),
            problems: built
                .problems
                .iter()
                .map(|(error, node)| {
                    let mut node = node.clone();
                    node.move_by(by);
                    (error.clone(), node)
                })
                .collect(),
        };
        Some((moved, by))
    }
}

/// How far the entry written `before` moved to be the key at `key_span`
/// over `node`, when it is otherwise identical ([`Node::identical_moved`]).
pub(crate) fn moved_by(before: &strata_syntax::Entry, key_span: Span, node: &Node) -> Option<i64> {
    let by = i64::from(key_span.start) - i64::from(before.key_span.start);
    (before.key_span.moved(by) == key_span && before.value.identical_moved(node, by)).then_some(by)
}

/// The resources of a tree: what each entry gave, in order, and how far
/// each kept from [`Earlier`] moved (none for an entry built anew).
pub(crate) struct Resources {
    /// What each entry of `resources` gave.
    pub(crate) built: Vec<BuiltResource>,
    /// How far each entry moved since [`Earlier`], when it was kept.
    pub(crate) moved: Vec<Option<i64>>,
}

fn entries(node: Option<&Node>) -> impl Iterator<Item = (&String, Span, &Node)> {
    node.and_then(Node::as_map).into_iter().flat_map(|map| {
        map.iter()
            .map(|(key, entry)| (key, entry.key_span, &entry.value))
    })
}

fn text(node: Option<&Node>) -> Option<Spanned<String>> {
    let node = node?;
    Some(Spanned {
        value: node.as_str()?.to_owned(),
        span: node.span,
    })
}

fn value_types(node: Option<&Node>) -> Option<Spanned<Types>> {
    let node = node?;
    Some(Spanned {
        value: Types::from_name(node.as_str()?)?,
        span: node.span,
    })
}

impl Builder<'_> {
    /// A field that may hold substitutions.
    pub(crate) fn tree(&mut self, node: &Node) -> Tree {
        match &node.value {
            Value::String(text) if has_opening(text) => match parse_template(text) {
                Ok(template) if template.has_substitutions() => Tree::Template {
                    template: without_final_line_break(template),
                    node: node.clone(),
                },
                Ok(_) => Tree::Literal(node.clone()),
                Err(errors) => {
                    self.problems
                        .extend(errors.into_iter().map(|error| (error, node.clone())));
                    Tree::Literal(node.clone())
                }
            },
            Value::Seq(items) => Tree::Seq {
                items: items.iter().map(|item| self.tree(item)).collect(),
                span: node.span,
            },
            Value::Map(map) => Tree::Map {
                entries: map
                    .iter()
                    .map(|(key, entry)| (key.clone(), (entry.key_span, self.tree(&entry.value))))
                    .collect(),
                span: node.span,
            },
            _ => Tree::Literal(node.clone()),
        }
    }

    fn optional_tree(&mut self, node: Option<&Node>) -> Option<Tree> {
        node.map(|node| self.tree(node))
    }

    fn tree_entries(&mut self, node: Option<&Node>) -> Named<(Span, Tree)> {
        entries(node)
            .map(|(key, span, value)| (key.clone(), (span, self.tree(value))))
            .collect()
    }

    /// The model of `root`, and what its resources gave; every resource
    /// entry identical to one of `earlier` is kept, not built again (its
    /// texts that do not parse are reported again all the same).
    pub(crate) fn blueprint(
        &mut self,
        root: &Node,
        earlier: Option<Earlier<'_>>,
        prebuilt: Prebuilt,
    ) -> (Blueprint, Resources) {
        let resources = Builder::resources(root.get("resources"), earlier, prebuilt);
        self.problems.extend(
            resources
                .built
                .iter()
                .flat_map(|built| built.problems.iter().cloned()),
        );
        let transform = match root.get("transform") {
            Some(node) => match &node.value {
                Value::Seq(items) => items.iter().filter_map(|item| text(Some(item))).collect(),
                _ => text(Some(node)).into_iter().collect(),
            },
            None => Vec::new(),
        };
        let blueprint = Blueprint {
            span: root.span,
            transform,
            variables: entries(root.get("variables"))
                .filter_map(|(name, span, node)| Some((name.clone(), variable(span, node)?)))
                .collect(),
            values: entries(root.get("values"))
                .filter_map(|(name, span, node)| Some((name.clone(), self.value(span, node)?)))
                .collect(),
            include: entries(root.get("include"))
                .filter_map(|(name, span, node)| Some((name.clone(), self.include(span, node)?)))
                .collect(),
            resources: resources
                .built
                .iter()
                .zip(entries(root.get("resources")))
                .filter_map(|(built, (name, _, _))| Some((name.clone(), built.model.clone()?)))
                .collect(),
            datasources: entries(root.get("datasources"))
                .filter_map(|(name, span, node)| Some((name.clone(), self.datasource(span, node)?)))
                .collect(),
            exports: entries(root.get("exports"))
                .filter_map(|(name, span, node)| Some((name.clone(), self.export(span, node)?)))
                .collect(),
            metadata: self
                .optional_tree(root.get("metadata").filter(|node| node.as_map().is_some())),
        };
        (blueprint, resources)
    }

    /// The resources of `node`, each taken from `prebuilt`, kept from
    /// `earlier` or built, on every core (most of a large blueprint is its
    /// resources, each built alone), in their order.
    fn resources(
        node: Option<&Node>,
        earlier: Option<Earlier<'_>>,
        prebuilt: Prebuilt,
    ) -> Resources {
        let written: Vec<_> = entries(node).collect();
        // Both in the order written, so taken in step; an entry a merge key
        // moved ahead of the others is not met in step and is built again.
        let mut prebuilt = prebuilt.into_iter().peekable();
        let ready: Vec<_> = written
            .iter()
            .map(|(_, _, node)| {
                while prebuilt
                    .next_if(|(span, _)| span.start < node.span.start)
                    .is_some()
                {}
                prebuilt
                    .next_if(|(span, _)| *span == node.span)
                    .map(|(_, built)| built)
            })
            .collect();
        let missing: Vec<_> = written
            .iter()
            .zip(&ready)
            .filter(|(_, ready)| ready.is_none())
            .map(|(entry, _)| entry)
            .collect();
        let mut fresh = strata_dialect::map_ordered(&missing, |(name, span, node)| {
            match earlier.and_then(|earlier| earlier.kept(name, *span, node)) {
                Some((kept, by)) => (kept, Some(by)),
                None => (build_resource(*span, node), None),
            }
        })
        .into_iter();
        let (built, moved) = ready
            .into_iter()
            .filter_map(|ready| match ready {
                Some(built) => Some((built, None)),
                None => fresh.next(),
            })
            .unzip();
        Resources { built, moved }
    }

    fn value(&mut self, name_span: Span, node: &Node) -> Option<ValueDef> {
        Some(ValueDef {
            name_span,
            value_type: value_types(node.get("type"))?,
            value: self.tree(node.get("value")?),
            description: self.optional_tree(node.get("description")),
            secret: node
                .get("secret")
                .is_some_and(|secret| matches!(secret.value, Value::Bool(true))),
        })
    }

    fn include(&mut self, name_span: Span, node: &Node) -> Option<Include> {
        Some(Include {
            name_span,
            path: self.tree(node.get("path")?),
            variables: self.tree_entries(node.get("variables")),
            metadata: self.optional_tree(node.get("metadata")),
            description: self.optional_tree(node.get("description")),
        })
    }

    fn metadata(&mut self, node: Option<&Node>) -> Metadata {
        let Some(node) = node.filter(|node| node.as_map().is_some()) else {
            return Metadata::default();
        };
        Metadata {
            display_name: self.optional_tree(node.get("displayName")),
            annotations: self.tree_entries(node.get("annotations")),
            labels: entries(node.get("labels"))
                .filter_map(|(key, _, value)| Some((key.clone(), text(Some(value))?)))
                .collect(),
            custom: self.optional_tree(node.get("custom")),
        }
    }

    fn condition(&mut self, node: &Node) -> Option<Condition> {
        if node.as_map().is_none() {
            return Some(Condition::Leaf(self.tree(node)));
        }
        let list = |builder: &mut Self, items: &Node| -> Vec<Condition> {
            items
                .as_seq()
                .unwrap_or_default()
                .iter()
                .filter_map(|item| builder.condition(item))
                .collect()
        };
        // Exactly one of the three is checked by the rules; the first
        // written is the one built.
        let (key, entry) = node.as_map()?.iter().next()?;
        Some(match key.as_str() {
            "and" => Condition::And(list(self, &entry.value), node.span),
            "or" => Condition::Or(list(self, &entry.value), node.span),
            "not" => Condition::Not(Box::new(self.condition(&entry.value)?), node.span),
            _ => return None,
        })
    }

    fn resource(&mut self, name_span: Span, node: &Node) -> Option<Resource> {
        Some(Resource {
            name_span,
            resource_type: text(node.get("type"))?,
            description: self.optional_tree(node.get("description")),
            metadata: self.metadata(node.get("metadata")),
            condition: present(node.get("condition"))
                .and_then(|condition| self.condition(condition)),
            each: self.optional_tree(present(node.get("each"))),
            link_selector: entries(
                node.get("linkSelector")
                    .and_then(|selector| selector.get("byLabel")),
            )
            .filter_map(|(key, _, value)| Some((key.clone(), text(Some(value))?)))
            .collect(),
            spec: self.tree(node.get("spec")?),
        })
    }

    fn datasource(&mut self, name_span: Span, node: &Node) -> Option<Datasource> {
        let filter = node.get("filter").and_then(|filter| {
            let operator = filter.get("operator")?;
            Some(Filter {
                field: text(filter.get("field"))?,
                operator: Spanned {
                    value: strata_schema::from_node(operator).ok()?,
                    span: operator.span,
                },
                search: self.tree(filter.get("search")?),
            })
        });
        Some(Datasource {
            name_span,
            datasource_type: text(node.get("type"))?,
            metadata: self.metadata(node.get("metadata")),
            filter,
            exports: entries(node.get("exports"))
                .map(|(key, span, export)| {
                    (
                        key.clone(),
                        DatasourceExport {
                            name_span: span,
                            // A type the schema refuses (reported there)
                            // leaves the field's type open.
                            field_type: value_types(export.get("type")).unwrap_or(Spanned {
                                value: Types::ANY,
                                span,
                            }),
                            alias_for: text(export.get("aliasFor")),
                            description: text(export.get("description")),
                        },
                    )
                })
                .collect(),
            description: self.optional_tree(node.get("description")),
        })
    }

    fn export(&mut self, name_span: Span, node: &Node) -> Option<Export> {
        let field = text(node.get("field"))?;
        Some(Export {
            name_span,
            export_type: value_types(node.get("type"))?,
            reference: parse_expr(&field.value).ok(),
            field,
            description: self.optional_tree(node.get("description")),
        })
    }
}

/// A template that is one `${..}` followed only by the line break a
/// literal block (`|`) ends with is that one substitution: the field keeps
/// its type, as in the specification's own example of an array value
/// written `value: |` over several lines.
fn without_final_line_break(mut template: Template) -> Template {
    if let [Part::Substitution(_), Part::Text { text, .. }] = template.parts.as_slice()
        && text.ends_with('\n')
        && text.trim().is_empty()
    {
        template.parts.pop();
    }
    template
}

/// `node`, unless it is absent or an explicit `null` (which the schema
/// allows for optional fields and means the same as leaving them out).
fn present(node: Option<&Node>) -> Option<&Node> {
    node.filter(|node| !matches!(node.value, Value::Null))
}

fn variable(name_span: Span, node: &Node) -> Option<Variable> {
    let variable_type = text(node.get("type"))?;
    Some(Variable {
        name_span,
        variable_type: Spanned {
            value: VariableType::from_name(&variable_type.value),
            span: variable_type.span,
        },
        description: text(node.get("description")),
        secret: node
            .get("secret")
            .is_some_and(|secret| matches!(secret.value, Value::Bool(true))),
        default: node.get("default").cloned(),
        allowed_values: node.get("allowedValues").and_then(|list| {
            Some(Spanned {
                value: list.as_seq()?.to_vec(),
                span: list.span,
            })
        }),
    })
}

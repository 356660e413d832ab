//! The resolved blueprint as a document (`strata spec render`'s output):
//! every section in the file's order, values and exports written with their
//! declared types where unknown, secrets masked unless asked otherwise.

use strata_subst::{Types, Value};
use strata_syntax::{Mapping, Node, Span, Tag};

use super::{KNOWN_AFTER_DEPLOY, MASK, ResolvedBlueprint, ResolvedResource};
use crate::validate::Element;

impl ResolvedBlueprint {
    /// The resolved blueprint as a document: `variables`, `values`,
    /// `datasources`, `resources`, `include` (children inline), `exports`;
    /// secrets masked unless `show_secrets`.
    #[must_use]
    pub fn to_node(&self, show_secrets: bool) -> Node {
        let masked = |secret: bool, node: Node| {
            if secret && !show_secrets {
                text_node(MASK)
            } else {
                node
            }
        };
        let typed = |element: Element, value: &Value| {
            let node = value_node(value, self.declared.get(&element).copied());
            masked(self.secret.contains(&element), node)
        };
        let mut root: Vec<(String, Node)> = vec![("version".to_owned(), text_node(crate::VERSION))];
        let variables = self.variables.iter().map(|(name, resolved)| {
            (
                name.clone(),
                masked(resolved.secret, value_node(&resolved.value, None)),
            )
        });
        root.push(("variables".to_owned(), map_node(variables)));
        let values = self
            .values
            .iter()
            .map(|(name, value)| (name.clone(), typed(Element::Value(name.clone()), value)));
        root.push(("values".to_owned(), map_node(values)));
        if !self.datasources.is_empty() {
            let datasources = self.datasources.iter().map(|(name, fields)| {
                (
                    name.clone(),
                    value_node(&Value::Object(fields.clone()), None),
                )
            });
            root.push(("datasources".to_owned(), map_node(datasources)));
        }
        let resources = self
            .resources
            .iter()
            .map(|(name, resource)| (name.clone(), resource.to_node(name, show_secrets)));
        root.push(("resources".to_owned(), map_node(resources)));
        if !self.children.is_empty() {
            let children = self
                .children
                .iter()
                .map(|(name, child)| (name.clone(), child.to_node(show_secrets)));
            root.push(("include".to_owned(), map_node(children)));
        }
        if !self.exports.is_empty() {
            let exports = self
                .exports
                .iter()
                .map(|(name, value)| (name.clone(), typed(Element::Export(name.clone()), value)));
            root.push(("exports".to_owned(), map_node(exports)));
        }
        map_node(root)
    }
}

impl ResolvedResource {
    /// The resource as a document: `type`, `template` (for an instance),
    /// `pending`, `metadata`, `linkSelector`, `spec` (secret fields masked
    /// unless `show_secrets`).
    #[must_use]
    pub fn to_node(&self, name: &str, show_secrets: bool) -> Node {
        let mut fields = vec![("type".to_owned(), text_node(&self.resource_type))];
        if self.template != name {
            fields.push(("template".to_owned(), text_node(&self.template)));
        }
        if let Some(what) = &self.pending {
            fields.push(("pending".to_owned(), text_node(what)));
        }
        if matches!(&self.metadata, Value::Object(map) if !map.is_empty()) {
            let mut metadata = value_node(&self.metadata, None);
            if !show_secrets {
                for path in &self.secret_metadata {
                    if let Some(field) = metadata.at_mut(path.segments()) {
                        *field = text_node(MASK);
                    }
                }
            }
            fields.push(("metadata".to_owned(), metadata));
        }
        if !self.link_selector.is_empty() {
            let labels = self
                .link_selector
                .iter()
                .map(|(key, value)| (key.clone(), text_node(value)));
            let selector = map_node([("byLabel".to_owned(), map_node(labels))]);
            fields.push(("linkSelector".to_owned(), selector));
        }
        let mut spec = value_node(&self.spec, None);
        if !show_secrets {
            for path in &self.secret_fields {
                if let Some(field) = spec.at_mut(path.segments()) {
                    *field = text_node(MASK);
                }
            }
        }
        fields.push(("spec".to_owned(), spec));
        map_node(fields)
    }
}

/// A string node (output has no source).
pub(super) fn text_node(text: &str) -> Node {
    Node::new(
        strata_syntax::Value::String(text.to_owned()),
        Span::default(),
    )
}

/// A mapping node of `entries`, in order (output has no source).
pub(super) fn map_node(entries: impl IntoIterator<Item = (String, Node)>) -> Node {
    let map: Mapping = entries
        .into_iter()
        .map(|(key, value)| {
            let entry = strata_syntax::Entry {
                key_span: Span::default(),
                value,
            };
            (key, entry)
        })
        .collect();
    Node::new(strata_syntax::Value::Map(map), Span::default())
}

/// A value as a document node: unknown parts as
/// `!known-after-deploy {waitsOn: REF, type: T}` (the type where declared).
#[must_use]
pub(crate) fn value_node(value: &Value, declared: Option<Types>) -> Node {
    let span = Span::default();
    let node = |value| Node::new(value, span);
    match value {
        Value::Unknown(what) => {
            let mut marker = Mapping::default();
            marker.insert(
                "waitsOn".to_owned(),
                strata_syntax::Entry {
                    key_span: span,
                    value: node(strata_syntax::Value::String(what.to_string())),
                },
            );
            if let Some(declared) = declared {
                marker.insert(
                    "type".to_owned(),
                    strata_syntax::Entry {
                        key_span: span,
                        value: node(strata_syntax::Value::String(declared.to_string())),
                    },
                );
            }
            node(strata_syntax::Value::Map(marker)).with_tag(Some(Tag::new(KNOWN_AFTER_DEPLOY)))
        }
        Value::Array(items) => node(strata_syntax::Value::Seq(
            items.iter().map(|item| value_node(item, None)).collect(),
        )),
        Value::Object(fields) => node(strata_syntax::Value::Map(
            fields
                .iter()
                .map(|(key, item)| {
                    (
                        key.clone(),
                        strata_syntax::Entry {
                            key_span: span,
                            value: value_node(item, None),
                        },
                    )
                })
                .collect(),
        )),
        Value::Function(function) => node(strata_syntax::Value::String(function.to_string())),
        scalar => scalar
            .to_node(span)
            .unwrap_or_else(|| node(strata_syntax::Value::Null)),
    }
}

//! What a reference may name: the blueprint's elements as the `${..}`
//! checker sees them, each reference recorded as an edge of the graph.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::ops::Range;

use strata_subst::{Accessor, Name, Reference, Scope, SubstError, Types};
use strata_syntax::did_you_mean;

use super::{Element, Site};
use crate::codes;
use crate::model::{Blueprint, Resource, Tree};

/// What references see from one field.
pub(super) struct BlueprintScope<'a> {
    pub(super) blueprint: &'a Blueprint,
    /// Every element the document writes, well formed or not.
    pub(super) defined: &'a BTreeSet<Element>,
    pub(super) site: Site<'a>,
    /// Every element referenced, with where.
    pub(super) found: RefCell<Vec<(Element, Range<usize>)>>,
}

impl BlueprintScope<'_> {
    pub(super) fn record(&self, element: Element, range: Range<usize>) {
        self.found.borrow_mut().push((element, range));
    }

    /// Whether `element` is written but malformed (the model has no
    /// definition for it): it is recorded and may be anything.
    pub(super) fn malformed(&self, element: Element, range: Range<usize>) -> bool {
        if self.defined.contains(&element) {
            self.record(element, range);
            true
        } else {
            false
        }
    }

    pub(super) fn unknown(
        code: strata_syntax::Code,
        what: &str,
        name: &Name,
        known: Vec<&str>,
    ) -> SubstError {
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

    pub(super) fn in_each(&self, what: &str, range: Range<usize>) -> Result<(), SubstError> {
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

    pub(super) fn resource_path(
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
pub(super) fn spec_types(spec: &Tree, path: &[Accessor]) -> Types {
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

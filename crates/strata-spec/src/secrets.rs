//! What is secret in a blueprint, and what reads it.
//!
//! A secret variable is secret; so is every value that is secret or reads
//! something secret, every resource field (`spec…`, `metadata…`) that
//! reads something secret (through values, other resources' fields, or a
//! secret `each`'s `elem`), and every child export that reads one. The
//! closure is computed once per blueprint ([`secret_elements`]) and read
//! three ways: output masks what is secret, evaluation withholds the
//! values from errors about what reads it ([`strata_subst::Env::secret`]),
//! and a plan masks every change that touches it.

use std::collections::{HashMap, HashSet};

use strata_subst::{Accessor, Reference};
use strata_syntax::{FieldPath, Segment};

use crate::model::{Blueprint, Tree};
use crate::validate::Element;

/// What is secret in one blueprint, or reads a secret: what is masked,
/// and what makes a field that reads it masked too.
#[derive(Debug, Clone, Default)]
pub(crate) struct Secrets {
    /// The secret variables, and the values that are secret or read one.
    pub(crate) elements: HashSet<Element>,
    /// Per resource, its fields (`spec…`, `metadata…`) that read one.
    pub(crate) fields: HashMap<String, Vec<FieldPath>>,
    /// The resources whose `each` reads one: their `elem` is secret.
    pub(crate) each: HashSet<String>,
    /// The children's exports that read one, as (child, export).
    pub(crate) exports: HashSet<(String, String)>,
}

impl Secrets {
    fn size(&self) -> usize {
        self.elements.len() + self.each.len() + self.fields.values().map(Vec::len).sum::<usize>()
    }

    /// Whether `reference` (written in the resource `within`, for `elem`)
    /// reads a secret.
    pub(crate) fn reads(&self, reference: &Reference, within: Option<&str>) -> bool {
        match reference {
            Reference::Variable { name } => self
                .elements
                .contains(&Element::Variable(name.text.clone())),
            Reference::Value { name, .. } => {
                self.elements.contains(&Element::Value(name.text.clone()))
            }
            Reference::Resource { name, path, .. } => {
                let path = match path.split_first() {
                    Some((Accessor::Index { .. }, rest)) => rest,
                    _ => path.as_slice(),
                };
                // A bare resource (an argument of `link`) reads no field.
                !path.is_empty()
                    && self
                        .fields
                        .get(&name.text)
                        .is_some_and(|fields| fields.iter().any(|field| overlaps(field, path)))
            }
            Reference::Child { name, path } => match path.first() {
                Some(Accessor::Field(export)) => self
                    .exports
                    .contains(&(name.text.clone(), export.text.clone())),
                _ => self.exports.iter().any(|(child, _)| *child == name.text),
            },
            Reference::Elem { .. } => within.is_some_and(|resource| self.each.contains(resource)),
            Reference::Datasource { .. } | Reference::ElemIndex => false,
        }
    }

    pub(crate) fn template_reads(
        &self,
        template: &strata_subst::Template,
        within: Option<&str>,
    ) -> bool {
        template
            .references()
            .into_iter()
            .any(|reference| self.reads(reference, within))
    }

    pub(crate) fn tree_reads(&self, tree: &Tree, within: Option<&str>) -> bool {
        tree.templates(&FieldPath::root())
            .into_iter()
            .any(|(_, template, _)| self.template_reads(template, within))
    }
}

/// Whether a field at `field` (from the resource) and a reference's
/// accessors after the resource name lie one within the other.
fn overlaps(field: &FieldPath, accessors: &[Accessor]) -> bool {
    field
        .segments()
        .iter()
        .zip(accessors)
        .all(|(segment, accessor)| match (segment, accessor) {
            (Segment::Key(key), Accessor::Field(name)) => *key == name.text,
            (Segment::Index(at), Accessor::Index { index, .. }) => *at == index.unwrap_or(0),
            _ => false,
        })
}

/// The secret variables (`variables`), the values that are secret or read
/// one, the resource fields that read one (through values, other
/// resources' fields and a secret `each`'s `elem` too), given the
/// children's exports that read one (`exports`).
pub(crate) fn secret_elements(
    blueprint: &Blueprint,
    variables: &[&str],
    exports: &HashSet<(String, String)>,
) -> Secrets {
    // Nothing reads a secret when nothing is one: no resource need be read.
    if variables.is_empty() && exports.is_empty() && !blueprint.values.values().any(|v| v.secret) {
        return Secrets::default();
    }
    let mut secrets = Secrets {
        elements: variables
            .iter()
            .map(|name| Element::Variable((*name).to_owned()))
            .collect(),
        exports: exports.clone(),
        ..Secrets::default()
    };
    loop {
        let before = secrets.size();
        for (name, value) in &blueprint.values {
            if value.secret || secrets.tree_reads(&value.value, None) {
                secrets.elements.insert(Element::Value(name.clone()));
            }
        }
        for (name, resource) in &blueprint.resources {
            if resource
                .each
                .as_ref()
                .is_some_and(|each| secrets.tree_reads(each, None))
            {
                secrets.each.insert(name.clone());
            }
            let metadata = FieldPath::root().key("metadata");
            let mut trees = vec![(FieldPath::root().key("spec"), &resource.spec)];
            if let Some(display) = &resource.metadata.display_name {
                trees.push((metadata.key("displayName"), display));
            }
            for (key, (_, tree)) in &resource.metadata.annotations {
                trees.push((metadata.key("annotations").key(key), tree));
            }
            if let Some(custom) = &resource.metadata.custom {
                trees.push((metadata.key("custom"), custom));
            }
            let fields = trees
                .iter()
                .flat_map(|(base, tree)| tree.templates(base))
                .filter(|(_, template, _)| secrets.template_reads(template, Some(name)))
                .map(|(path, _, _)| path)
                .collect();
            secrets.fields.insert(name.clone(), fields);
        }
        if secrets.size() == before {
            return secrets;
        }
    }
}

/// Whether a field text reads a secret variable or value of `blueprint`
/// (a value computed from a secret is secret, so is a resource field that
/// reads one), for outputs that must mask it.
#[must_use]
pub(crate) fn template_reads_secret(
    blueprint: &Blueprint,
    template: &strata_subst::Template,
) -> bool {
    let variables: Vec<&str> = blueprint
        .variables
        .iter()
        .filter(|(_, variable)| variable.secret)
        .map(|(name, _)| name.as_str())
        .collect();
    secret_elements(blueprint, &variables, &HashSet::new()).template_reads(template, None)
}

//! Includes and metadata: paths, variables and metadata fields checked
//! where they stand.

use strata_syntax::FieldPath;

use super::{Checker, Element, Site, site};

impl Checker<'_> {
    pub(super) fn includes(&mut self) {
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

    pub(super) fn metadata(
        &mut self,
        metadata: &crate::model::Metadata,
        path: &FieldPath,
        site: Site<'_>,
    ) {
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
}

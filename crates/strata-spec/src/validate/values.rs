//! Values: the content of each fits its declared type.

use strata_subst::Types;
use strata_syntax::{Diagnostic, FieldPath};

use super::variables::literal_fits;
use super::{Checker, Element, compatible, site};
use crate::codes;
use crate::model::Tree;

impl Checker<'_> {
    pub(super) fn values(&mut self) {
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
}

//! Values, in dependency order, each read as its declared type and checked
//! against it; a value that reads a secret is secret.

use strata_syntax::{Diagnostic, FieldPath};

use super::trees::{resolve_tree, value_fits};
use super::{ResolvedBlueprint, Resolver};
use crate::codes;
use crate::environment::{Environment, as_declared};
use crate::model::Blueprint;
use crate::secrets::Secrets;
use crate::validate::Element;

impl Resolver<'_> {
    /// Every value, read as its declared type and checked against it.
    pub(super) fn values(
        &self,
        blueprint: &Blueprint,
        env: &Environment<'_>,
        secrets: &Secrets,
        resolved: &mut ResolvedBlueprint,
        problems: &mut Vec<Diagnostic>,
    ) {
        for (name, definition) in &blueprint.values {
            if self.steps.exhausted() {
                return;
            }
            let path = FieldPath::root().key("values").key(name);
            let reported = problems.len();
            let value = as_declared(
                resolve_tree(
                    &definition.value,
                    env,
                    self.db,
                    &path.key("value"),
                    problems,
                ),
                definition.value_type.value,
            );
            // A value whose evaluation failed is not also of the wrong type.
            let evaluated = problems.len() == reported;
            if evaluated
                && value.unknown().is_none()
                && !value_fits(definition.value_type.value, &value)
            {
                problems.push(
                    Diagnostic::error(
                        codes::VALUE_TYPE,
                        format!(
                            "`{name}` gives {}, its type is {}",
                            value.types(),
                            definition.value_type.value
                        ),
                        definition.value.span(),
                    )
                    .with_path(path.key("value")),
                );
            }
            if secrets.elements.contains(&Element::Value(name.clone())) {
                resolved.secret.insert(Element::Value(name.clone()));
            }
            resolved
                .declared
                .insert(Element::Value(name.clone()), definition.value_type.value);
            resolved.values.insert(name.clone(), value);
        }
    }
}

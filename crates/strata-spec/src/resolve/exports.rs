//! Exports: evaluated and checked against their type; an export that reads
//! a secret is secret.

use strata_subst::{Failure, Value, evaluate_expr};
use strata_syntax::{Diagnostic, FieldPath};

use super::trees::{error_at, value_fits};
use super::{ResolvedBlueprint, Resolver};
use crate::codes;
use crate::environment::Environment;
use crate::model::Blueprint;
use crate::secrets::Secrets;
use crate::validate::Element;

impl Resolver<'_> {
    /// Every export, evaluated and checked against its type.
    pub(super) fn exports(
        &self,
        blueprint: &Blueprint,
        env: &Environment<'_>,
        secrets: &Secrets,
        resolved: &mut ResolvedBlueprint,
        problems: &mut Vec<Diagnostic>,
    ) {
        for (name, export) in &blueprint.exports {
            if self.steps.exhausted() {
                return;
            }
            let path = FieldPath::root().key("exports").key(name);
            let declared = export.export_type.value;
            resolved
                .declared
                .insert(Element::Export(name.clone()), declared);
            let Some(reference) = &export.reference else {
                continue;
            };
            let value = match evaluate_expr(reference, env) {
                Ok(value) => match value.unknown() {
                    Some(what) => Value::Unknown(what.clone()),
                    None => value,
                },
                Err(Failure::Pending(what)) => Value::Unknown(what),
                Err(Failure::Error(error)) => {
                    problems.push(error_at(
                        &error,
                        self.db,
                        export.field.span,
                        &export.field.value,
                        &path.key("field"),
                    ));
                    continue;
                }
            };
            if value.unknown().is_none() && !value_fits(declared, &value) {
                problems.push(
                    Diagnostic::error(
                        codes::EXPORT_TYPE,
                        format!(
                            "`{}` gives {}, the export's type is {declared}",
                            export.field.value,
                            value.types()
                        ),
                        export.field.span,
                    )
                    .with_secondary(export.export_type.span, "the export's type")
                    .with_path(path.key("field")),
                );
            }
            let reads_secret = matches!(
                &reference.kind,
                strata_subst::ExprKind::Reference(reference) if secrets.reads(reference, None)
            );
            if reads_secret {
                resolved.secret.insert(Element::Export(name.clone()));
            }
            resolved.exports.insert(name.clone(), value);
        }
    }
}

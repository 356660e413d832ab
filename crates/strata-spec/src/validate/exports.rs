//! Exports: each reads a field of the declared type.

use strata_subst::{Expr, ExprKind, Template, Types};
use strata_syntax::{Diagnostic, FieldPath, Node, Value};

use super::{Checker, Element, compatible, site};
use crate::codes;

impl Checker<'_> {
    pub(super) fn exports(&mut self) {
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
                        .with_help("write a reference without `${..}`: `resources.NAME.spec.FIELD`, `values.NAME`, `children.NAME.EXPORT`, `variables.NAME`, `datasources.NAME.FIELD`")
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
            let found = self.template(&template, &node, || path.key("field"), site(&owner));
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

//! Variables: their types (a custom type is named by a provider), defaults
//! and `allowedValues` that fit the type, a secret's default.

use strata_subst::Types;
use strata_syntax::{Diagnostic, FieldPath, Node, Value, did_you_mean};

use super::{Checker, fits};
use crate::codes;
use crate::model::{VariableType, node_types};

impl Checker<'_> {
    pub(super) fn variables(&mut self) {
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
}

/// Whether a custom variable type is written `provider/type[/…]`.
pub(super) fn is_custom_type(name: &str) -> bool {
    let segments: Vec<&str> = name.split('/').collect();
    segments.len() >= 2
        && segments.iter().all(|segment| {
            !segment.is_empty()
                && segment
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// Scalars equal as values (an integer and a float numerically).
#[expect(
    clippy::float_cmp,
    reason = "a default is one of the allowed values when it is exactly equal to one"
)]
pub(super) fn same_scalar(a: &Node, b: &Node) -> bool {
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
pub(super) fn literal_fits(declared: Types, node: &Node) -> Option<String> {
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

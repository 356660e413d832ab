//! Evaluating field texts against an environment of known values.
//!
//! - A text that is exactly one `${..}` gives the substitution's value,
//!   whatever its type; any other text gives a string: the literal text
//!   with each substitution's value written in (strings as they are,
//!   numbers and booleans as written, `null` as nothing). An array or a
//!   mapping inside an interpolation is an error, as is a function value
//!   where a value is expected.
//! - References are answered by an [`Env`]: the value referred to, "known
//!   after deploy" ([`Lookup::Pending`]), or missing. Accessors then read
//!   into the value: `.name` and `["name"]` into mappings, `[n]` and `[]`
//!   (the first item) into arrays.
//! - A result that depends on something known only after deployment is
//!   [`Failure::Pending`], naming what it waits on
//!   (`resources.orders.state.arn`), not an error.
//! - Evaluation is deterministic: the environment is the only input
//!   (`cwd()` and `datetime()` ask it too).

use std::ops::Range;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::ast::{Accessor, Call, Expr, ExprKind, Literal, Part, Reference, Template};
use crate::functions::{self, Def, Fail, Function};
use crate::types::Types;
use crate::value::Value;
use crate::{SubstError, codes};

/// What a reference finds.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The value.
    Known(Value),
    /// Known only after deployment.
    Pending,
    /// Nothing: the message says why.
    Missing(String),
}

/// The values a substitution can refer to.
pub trait Env {
    /// The value a reference's root names, before its accessors: a
    /// variable's or value's value, a data source's exported field, a
    /// child's exports as a mapping, a resource as a mapping of `spec`,
    /// `metadata` and `state` (an array of them for an `each` resource),
    /// the current `each` item or index.
    fn reference(&self, reference: &Reference) -> Lookup;

    /// The state of the link between two resources.
    fn link(&self, from: &str, to: &str) -> Lookup {
        let _ = (from, to);
        Lookup::Pending
    }

    /// The working directory, for `cwd()`.
    fn cwd(&self) -> Result<String, String>;

    /// The current time as seconds since the Unix epoch, for `datetime()`.
    fn now_unix(&self) -> i64;
}

/// Why evaluation gave no value.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The value is known only after deployment; says what it waits on.
    Pending(Arc<str>),
    /// Evaluation failed.
    Error(SubstError),
}

impl From<SubstError> for Failure {
    fn from(error: SubstError) -> Failure {
        Failure::Error(error)
    }
}

/// The value of a field text.
pub fn evaluate(template: &Template, env: &dyn Env) -> Result<Value, Failure> {
    if let Some(single) = template.as_single() {
        let value = evaluate_expr(&single.expr, env)?;
        return value_of_field(value, single.range.clone());
    }
    let mut text = String::new();
    for part in &template.parts {
        match part {
            Part::Text { text: literal, .. } => text.push_str(literal),
            Part::Substitution(substitution) => {
                let value = evaluate_expr(&substitution.expr, env)?;
                let value = value_of_field(value, substitution.range.clone())?;
                match value {
                    Value::Array(_) | Value::Object(_) => {
                        return Err(SubstError::new(
                            codes::COMPLEX_INTERPOLATION,
                            format!(
                                "`{}` is {} inside a string: only strings, numbers and booleans can be interpolated",
                                substitution.expr,
                                a_type(value.types())
                            ),
                            substitution.range.clone(),
                        )
                        .into());
                    }
                    scalar => text.push_str(&scalar.to_string()),
                }
            }
        }
    }
    Ok(Value::String(text))
}

/// A field's value must be a value: not a function, not partly unknown.
fn value_of_field(value: Value, range: Range<usize>) -> Result<Value, Failure> {
    if let Value::Function(function) = &value {
        return Err(SubstError::new(
            codes::FUNCTION_VALUE,
            format!("`{function}` is a function: a field needs a value"),
            range,
        )
        .into());
    }
    if let Some(what) = value.unknown() {
        return Err(Failure::Pending(what.clone()));
    }
    Ok(value)
}

fn a_type(types: Types) -> String {
    let name = types.to_string();
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

/// The value of one expression.
pub fn evaluate_expr(expr: &Expr, env: &dyn Env) -> Result<Value, Failure> {
    match &expr.kind {
        ExprKind::Literal(literal) => Ok(match literal {
            Literal::Bool(value) => Value::Bool(*value),
            Literal::Int(value) => Value::Int(*value),
            Literal::Float(value) => Value::Float(*value),
            Literal::String(text) => Value::String(text.clone()),
        }),
        ExprKind::Reference(reference) => {
            let root = match env.reference(reference) {
                Lookup::Known(value) => value,
                Lookup::Pending => return Err(Failure::Pending(expr.to_string().into())),
                Lookup::Missing(message) => {
                    return Err(SubstError::new(codes::EVAL, message, expr.range.clone()).into());
                }
            };
            read_path(root, reference.path(), expr)
        }
        ExprKind::Bare(name) => Err(bare_name_error(&name.text, expr.range.clone()).into()),
        ExprKind::Call(call) => {
            let value = evaluate_call(call, expr, env)?;
            read_path(value, &call.path, expr)
        }
    }
}

/// Why a bare name cannot stand where it stands (written at `range`): a
/// function where a value is expected, or a resource without a field.
pub(crate) fn bare_name_error(name: &str, range: Range<usize>) -> SubstError {
    if functions::lookup(name).is_some() {
        SubstError::new(
            codes::FUNCTION_VALUE,
            format!(
                "`{name}` is a function: call it, or pass it to a function that takes a function"
            ),
            range,
        )
    } else {
        SubstError::new(
            codes::REFERENCE,
            format!(
                "`{name}` names a resource without a field: read `{name}.spec…`, `{name}.state…` or `{name}.metadata…` (a bare resource name is only an argument of `link`)"
            ),
            range,
        )
    }
}

fn evaluate_call(call: &Call, expr: &Expr, env: &dyn Env) -> Result<Value, Failure> {
    let Some(def) = functions::lookup(&call.function.text) else {
        return Err(SubstError::new(
            codes::UNKNOWN_FUNCTION,
            format!("there is no function `{}`", call.function.text),
            call.function.range.clone(),
        )
        .into());
    };
    named_arguments(def, call)?;
    let mut values = Vec::new();
    let mut named = IndexMap::new();
    let mut ranges = Vec::new();
    for argument in &call.args {
        let param = def.param(values.len());
        let value = match &argument.value.kind {
            ExprKind::Bare(name)
                if param.is_some_and(|param| param.types.meets(Types::FUNCTION)) =>
            {
                match functions::lookup(&name.text) {
                    Some(function) => Value::Function(Function::Core(function)),
                    None => {
                        return Err(SubstError::new(
                            codes::UNKNOWN_FUNCTION,
                            format!("there is no function `{}`", name.text),
                            name.range.clone(),
                        )
                        .into());
                    }
                }
            }
            ExprKind::Bare(name) if def.name == "link" => Value::String(name.text.clone()),
            ExprKind::Reference(Reference::Resource { name, path, .. })
                if def.name == "link" && path.is_empty() =>
            {
                Value::String(name.text.clone())
            }
            _ => evaluate_expr(&argument.value, env)?,
        };
        if let Some(name) = &argument.name {
            named.insert(name.text.clone(), value);
        } else {
            values.push(value);
            ranges.push(argument.value.range.clone());
        }
    }
    functions::call(def, values, named, env).map_err(|failure| match failure {
        Fail::Pending(what) => Failure::Pending(what),
        Fail::Error { message, argument } => {
            let range = argument
                .and_then(|index| ranges.get(index).cloned())
                .unwrap_or_else(|| expr.range.clone());
            Failure::Error(SubstError::new(codes::EVAL, message, range))
        }
    })
}

/// Refuses the named arguments the check refuses (before any argument is
/// evaluated): a name given to a function other than `object`, a name
/// given twice, a positional argument given to `object`.
fn named_arguments(def: &Def, call: &Call) -> Result<(), SubstError> {
    let mut seen: Vec<&str> = Vec::new();
    for argument in &call.args {
        let (message, range) = match &argument.name {
            Some(name) if !def.named => (
                format!(
                    "`{}` takes no named arguments: only `object` does",
                    def.name
                ),
                name.range.clone(),
            ),
            Some(name) if seen.contains(&name.text.as_str()) => (
                format!("the argument `{}` is given twice", name.text),
                name.range.clone(),
            ),
            Some(name) => {
                seen.push(&name.text);
                continue;
            }
            None if def.named => (
                format!(
                    "`{}` takes named arguments only: `{}(name = value)`",
                    def.name, def.name
                ),
                argument.value.range.clone(),
            ),
            None => continue,
        };
        return Err(SubstError::new(codes::NAMED_ARGUMENT, message, range));
    }
    Ok(())
}

/// Reads `path` into `value`; `expr` is the whole reference, for messages.
fn read_path(mut value: Value, path: &[Accessor], expr: &Expr) -> Result<Value, Failure> {
    for accessor in path {
        value = match (value, accessor) {
            (Value::Unknown(_), _) => return Err(Failure::Pending(expr.to_string().into())),
            (Value::Object(mut fields), Accessor::Field(name)) => fields
                .shift_remove(&name.text)
                .ok_or_else(|| {
                let known: Vec<&str> = fields.keys().map(String::as_str).collect();
                let mut error = SubstError::new(
                    codes::EVAL,
                    format!("there is no field `{}` here", name.text),
                    name.range.clone(),
                );
                if let Some(near) = strata_syntax::did_you_mean(&name.text, known.iter().copied()) {
                    error = error.with_help(format!("did you mean `{near}`?"));
                }
                Failure::Error(error)
            })?,
            (Value::Array(items), Accessor::Index { index, range }) => {
                let at = index.unwrap_or(0);
                let len = items.len();
                items.into_iter().nth(at).ok_or_else(|| {
                    Failure::Error(SubstError::new(
                        codes::EVAL,
                        format!("index {at} is out of range: the array has {len} items"),
                        range.clone(),
                    ))
                })?
            }
            (other, accessor) => {
                let wanted = match accessor {
                    Accessor::Field(name) => format!("field `{}`", name.text),
                    Accessor::Index { .. } => "an item".to_owned(),
                };
                return Err(SubstError::new(
                    codes::EVAL,
                    format!("cannot read {wanted} of {}", a_type(other.types())),
                    accessor.range(),
                )
                .into());
            }
        };
    }
    Ok(value)
}

//! Static checks: everything about a field text that can be known before
//! evaluation.
//!
//! - References are checked by the [`Scope`] the caller supplies (the spec
//!   dialect knows which variables, values, resources exist and their
//!   types); it answers each reference's static [`Types`].
//! - Calls: the function exists (with a did-you-mean), the number of
//!   arguments fits, named arguments only for `object` (each name once),
//!   each argument's known type is one its parameter takes, function
//!   values only where a function is expected (there, a bare name is that
//!   function), `datetime` formats, `link` between existing resources.
//! - `list` items of known, different types are an error.
//! - A field that is one substitution has that substitution's type; a
//!   function there is an error. In an interpolation, a substitution whose
//!   type is known to be an array or a mapping is an error.
//!
//! Only what is known to be wrong is reported: a type that may be right
//! (a resource's `spec` field, decoded JSON) passes.

use std::ops::Range;

use crate::ast::{Argument, Call, Expr, ExprKind, Literal, Name, Part, Reference, Template};
use crate::eval::bare_name_error;
use crate::functions::{self, DATETIME_FORMATS, Def, arity_text};
use crate::types::Types;
use crate::{SubstError, codes};

/// What the references of a field text can see.
pub trait Scope {
    /// The static type of what `reference` (written at `range`) reads,
    /// accessors included, or why it is wrong (a missing variable, `elem`
    /// outside `each`).
    fn reference(&self, reference: &Reference, range: Range<usize>) -> Result<Types, SubstError>;

    /// Whether `name` names a resource, for `link`.
    fn resource(&self, name: &Name) -> Result<(), SubstError>;
}

/// The scope of a text checked on its own (`strata spec eval` without a
/// blueprint): every reference may be anything, every name a resource.
/// Calls, literals and types are still checked.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unscoped;

impl Scope for Unscoped {
    fn reference(&self, _: &Reference, _: Range<usize>) -> Result<Types, SubstError> {
        Ok(Types::ANY)
    }

    fn resource(&self, _: &Name) -> Result<(), SubstError> {
        Ok(())
    }
}

/// Checks a field text; gives its static type (a string for an
/// interpolation) and every problem.
pub fn check_template(template: &Template, scope: &dyn Scope) -> (Types, Vec<SubstError>) {
    let mut errors = Vec::new();
    if let Some(single) = template.as_single() {
        let types = check_expr(&single.expr, scope, &mut errors);
        if types == Types::FUNCTION {
            errors.push(SubstError::new(
                codes::FUNCTION_VALUE,
                format!("`{}` is a function: a field needs a value", single.expr),
                single.range.clone(),
            ));
        }
        return (types.intersect(Types::ANY | Types::FUNCTION), errors);
    }
    for part in &template.parts {
        if let Part::Substitution(substitution) = part {
            let types = check_expr(&substitution.expr, scope, &mut errors);
            if !types.is_empty() && !types.meets(Types::SCALAR | Types::NULL) {
                let code = if types == Types::FUNCTION {
                    codes::FUNCTION_VALUE
                } else {
                    codes::COMPLEX_INTERPOLATION
                };
                errors.push(SubstError::new(
                    code,
                    format!(
                        "`{}` is {types}, inside a string: only strings, numbers and booleans can be interpolated",
                        substitution.expr
                    ),
                    substitution.range.clone(),
                ));
            }
        }
    }
    (Types::STRING, errors)
}

/// The static type of `expr`; problems go to `errors`. An expression with
/// a problem has the type [`Types::ANY`], so one mistake is reported once.
pub fn check_expr(expr: &Expr, scope: &dyn Scope, errors: &mut Vec<SubstError>) -> Types {
    match &expr.kind {
        ExprKind::Literal(literal) => match literal {
            Literal::Bool(_) => Types::BOOLEAN,
            Literal::Int(_) => Types::INTEGER,
            Literal::Float(_) => Types::FLOAT,
            Literal::String(_) => Types::STRING,
        },
        ExprKind::Reference(reference) => scope
            .reference(reference, expr.range.clone())
            .unwrap_or_else(|error| {
                errors.push(error);
                Types::ANY
            }),
        ExprKind::Bare(name) => {
            // A name that is neither a function nor a resource is reported
            // as the missing resource it would have to be.
            let error = match scope.resource(name) {
                Err(missing) if functions::lookup(&name.text).is_none() => missing,
                _ => bare_name_error(&name.text, expr.range.clone()),
            };
            errors.push(error);
            Types::ANY
        }
        ExprKind::Call(call) => check_call(call, scope, errors),
    }
}

fn check_call(call: &Call, scope: &dyn Scope, errors: &mut Vec<SubstError>) -> Types {
    let Some(def) = functions::lookup(&call.function.text) else {
        let mut error = SubstError::new(
            codes::UNKNOWN_FUNCTION,
            format!("there is no function `{}`", call.function.text),
            call.function.range.clone(),
        );
        let names = functions::all().iter().map(|def| def.name);
        if let Some(near) = strata_syntax::did_you_mean(&call.function.text, names) {
            error = error.with_help(format!("did you mean `{near}`?"));
        }
        errors.push(error);
        for argument in &call.args {
            check_expr(&argument.value, scope, errors);
        }
        return Types::ANY;
    };
    let positional: Vec<&Argument> = call.args.iter().filter(|arg| arg.name.is_none()).collect();
    let named_problems = errors.len();
    check_named(def, call, errors);
    let too_few = positional.len() < def.required();
    let too_many = def.maximum().is_some_and(|max| positional.len() > max);
    // A misplaced named argument is one mistake: not also a wrong count.
    if (too_few || too_many) && errors.len() == named_problems {
        let range = if too_many {
            let first_extra = def.maximum().unwrap_or_default();
            let start = positional[first_extra].value.range.start;
            start..positional.last().map_or(start, |arg| arg.value.range.end)
        } else {
            call.function.range.clone()
        };
        errors.push(
            SubstError::new(
                codes::ARITY,
                format!(
                    "`{}` takes {}, given {}",
                    def.name,
                    arity_text(def),
                    positional.len()
                ),
                range,
            )
            .with_note(format!("signature: {}", def.signature())),
        );
    }
    let mut item_types: Vec<(Types, Range<usize>)> = Vec::new();
    for (index, argument) in positional.iter().enumerate() {
        let Some(param) = def.param(index) else {
            check_expr(&argument.value, scope, errors);
            continue;
        };
        let types = check_argument(def, param.types, &argument.value, scope, errors);
        if def.name == "datetime" {
            check_datetime(&argument.value, errors);
        }
        if !types.meets(param.types) && types != Types::ANY {
            let code = if types == Types::FUNCTION || param.types == Types::FUNCTION {
                codes::FUNCTION_VALUE
            } else {
                codes::ARGUMENT_TYPE
            };
            errors.push(
                SubstError::new(
                    code,
                    format!(
                        "argument {} (`{}`) of `{}` must be {}, `{}` is {types}",
                        index + 1,
                        param.name,
                        def.name,
                        param.types,
                        argument.value
                    ),
                    argument.value.range.clone(),
                )
                .with_note(format!("signature: {}", def.signature())),
            );
        }
        item_types.push((types, argument.value.range.clone()));
    }
    for argument in call.args.iter().filter(|arg| arg.name.is_some()) {
        check_expr(&argument.value, scope, errors);
    }
    if def.name == "list" {
        check_list_items(&item_types, errors);
    }
    if !call.path.is_empty() {
        if !def.returns.meets(Types::ARRAY | Types::OBJECT) {
            let first = &call.path[0];
            errors.push(SubstError::new(
                codes::REFERENCE,
                format!(
                    "`{}` gives {}: it has no fields or items to read",
                    def.name, def.returns
                ),
                first.range(),
            ));
        }
        return Types::ANY;
    }
    def.returns
}

fn check_named(def: &Def, call: &Call, errors: &mut Vec<SubstError>) {
    let mut seen: Vec<&str> = Vec::new();
    for argument in &call.args {
        match &argument.name {
            Some(name) if !def.named => errors.push(
                SubstError::new(
                    codes::NAMED_ARGUMENT,
                    format!(
                        "`{}` takes no named arguments: only `object` does",
                        def.name
                    ),
                    name.range.clone(),
                )
                .with_help(format!("pass `{}` by position", argument.value)),
            ),
            Some(name) if seen.contains(&name.text.as_str()) => errors.push(SubstError::new(
                codes::NAMED_ARGUMENT,
                format!("the argument `{}` is given twice", name.text),
                name.range.clone(),
            )),
            Some(name) => seen.push(&name.text),
            None if def.named => errors.push(SubstError::new(
                codes::NAMED_ARGUMENT,
                format!(
                    "`{}` takes named arguments only: `{}(name = value)`",
                    def.name, def.name
                ),
                argument.value.range.clone(),
            )),
            None => {}
        }
    }
}

/// An argument's type; a bare name is a function where one is expected,
/// and a resource name as an argument of `link`.
fn check_argument(
    def: &Def,
    expected: Types,
    value: &Expr,
    scope: &dyn Scope,
    errors: &mut Vec<SubstError>,
) -> Types {
    match &value.kind {
        ExprKind::Bare(name) if expected.meets(Types::FUNCTION) => {
            if functions::lookup(&name.text).is_some() {
                Types::FUNCTION
            } else {
                let names = functions::all().iter().map(|def| def.name);
                let mut error = SubstError::new(
                    codes::UNKNOWN_FUNCTION,
                    format!("there is no function `{}`", name.text),
                    name.range.clone(),
                );
                if let Some(near) = strata_syntax::did_you_mean(&name.text, names) {
                    error = error.with_help(format!("did you mean `{near}`?"));
                }
                errors.push(error);
                Types::ANY
            }
        }
        ExprKind::Bare(name) if def.name == "link" => {
            if let Err(error) = scope.resource(name) {
                errors.push(error);
            }
            Types::STRING
        }
        ExprKind::Reference(Reference::Resource { name, path, .. })
            if def.name == "link" && path.is_empty() =>
        {
            if let Err(error) = scope.resource(name) {
                errors.push(error);
            }
            Types::STRING
        }
        ExprKind::Literal(Literal::String(text)) if def.name == "link" => {
            let name = Name {
                text: text.clone(),
                range: value.range.clone(),
            };
            if let Err(error) = scope.resource(&name) {
                errors.push(error);
            }
            Types::STRING
        }
        _ => check_expr(value, scope, errors),
    }
}

fn check_datetime(value: &Expr, errors: &mut Vec<SubstError>) {
    if let ExprKind::Literal(Literal::String(format)) = &value.kind
        && !DATETIME_FORMATS.contains(&format.as_str())
    {
        let mut error = SubstError::new(
            codes::DATETIME_FORMAT,
            format!(
                "`{format}` is not a datetime format: use one of {}",
                DATETIME_FORMATS.join(", ")
            ),
            value.range.clone(),
        );
        if let Some(near) = strata_syntax::did_you_mean(format, DATETIME_FORMATS) {
            error = error.with_help(format!("did you mean `{near}`?"));
        }
        errors.push(error);
    }
}

/// `list` items whose types are each known and differ.
fn check_list_items(items: &[(Types, Range<usize>)], errors: &mut Vec<SubstError>) {
    let known = |types: Types| {
        [
            Types::STRING,
            Types::BOOLEAN,
            Types::ARRAY,
            Types::OBJECT,
            Types::NUMBER,
        ]
        .into_iter()
        .find(|kind| kind.contains(types) && !types.is_empty())
    };
    let Some((first, _)) = items.first() else {
        return;
    };
    let Some(first_kind) = known(*first) else {
        return;
    };
    for (types, range) in &items[1..] {
        if let Some(kind) = known(*types)
            && kind != first_kind
        {
            errors.push(SubstError::new(
                codes::ARGUMENT_TYPE,
                format!(
                    "`list` takes items of one type: the first is {first}, this one is {types}"
                ),
                range.clone(),
            ));
        }
    }
}

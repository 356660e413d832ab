//! The CEL environment Strata evaluates in: the standard library, the
//! extensions, `env()`, the cost guards and their budget, and how runtime
//! errors become diagnostics.

use std::any::Any;
use std::cell::Cell;

use cel::common::types::{CelBytes, CelNull, CelString, DYN_TYPE, Kind, STRING_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{Context, DeclarationError, Env, ExecutionError, extensions};
use strata_syntax::{Diagnostic, Span, lowercase_first};

use crate::scope::Scope;
use crate::{CelOptions, MAX_ELEMENTS, MAX_ITERATIONS, MAX_STRING_BYTES};

use crate::codes;

/// The hidden function that charges a comprehension's range to the budget.
pub(crate) const RANGE_GUARD: &str = "@strata_range";

/// The hidden function that bounds the size of a computed value.
pub(crate) const SIZE_GUARD: &str = "@strata_size";

const ENV_FUNCTION: &str = "env";
const NORMALIZE_DNS_FUNCTION: &str = "normalizeDNS";
const ENV_DISABLED: &str = "disabled";
const ENV_HELP: &str = "enable it with `cel: {allowEnv: true}` in the catalogue's .strata.yaml";

thread_local! {
    /// Comprehension iterations the current evaluation may still run.
    static ITERATIONS_LEFT: Cell<u64> = const { Cell::new(0) };
}

/// The environment: standard library, extensions, `env` and the guards.
pub(crate) fn environment(options: CelOptions) -> Env {
    declare(options).unwrap_or_else(|error| {
        unreachable!("strata's functions clash with the cel crate's: {error}")
    })
}

fn declare(options: CelOptions) -> Result<Env, DeclarationError> {
    let mut env = Env::stdlib();
    env.add_extension(extensions::strings)?;
    env.add_extension(extensions::lists)?;
    env.add_extension(extensions::math)?;
    env.add_extension(extensions::encoders)?;
    let env_function = if options.allow_env {
        read_env
    } else {
        refuse_env
    };
    env.add_overload(ENV_FUNCTION, "env_string", vec![STRING_TYPE], env_function)?;
    env.add_overload(
        NORMALIZE_DNS_FUNCTION,
        "normalizeDNS_string",
        vec![STRING_TYPE],
        normalize_dns,
    )?;
    env.add_overload(RANGE_GUARD, RANGE_GUARD, vec![DYN_TYPE], charge_range)?;
    env.add_overload(SIZE_GUARD, SIZE_GUARD, vec![DYN_TYPE], check_size)?;
    Ok(env)
}

/// A context over `env` that resolves the variables of `scope`, with the
/// functions that are not overloads of the environment (`max`, `min`).
pub(crate) fn context(env: std::sync::Arc<Env>, scope: &Scope) -> Context<'_, '_> {
    let mut context = Context::with_env(env);
    context.set_variable_resolver(scope.resolver());
    // Adding fails only for a name the environment declares as an overload,
    // which `max` and `min` are not (the tests call both).
    let _ = context.add_function("max", cel::functions::max);
    let _ = context.add_function("min", cel::functions::min);
    context
}

/// Gives the next evaluation on this thread its full iteration budget.
pub(crate) fn reset_budget() {
    ITERATIONS_LEFT.set(MAX_ITERATIONS);
}

/// The one argument of a hidden function.
fn only<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let count = args.len();
    let mut args = args.into_iter();
    match (args.next(), args.next()) {
        (Some(arg), None) => Ok(arg),
        _ => Err(ExecutionError::invalid_argument_count(1, count)),
    }
}

/// The text of the one argument (empty when it is not a string).
fn only_text(args: Vec<CowVal<'_, '_>>) -> Result<String, ExecutionError> {
    let arg = only(args)?;
    Ok(arg
        .downcast_ref::<CelString>()
        .map(CelString::inner)
        .unwrap_or_default()
        .to_owned())
}

fn read_env<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let name = only_text(args)?;
    // Names the platform cannot hold are simply unset.
    if name.is_empty() || name.contains(['=', '\0']) {
        return Ok(CowVal::owned(CelNull));
    }
    Ok(match std::env::var_os(&name) {
        Some(value) => CowVal::owned(CelString::from(value.to_string_lossy().into_owned())),
        None => CowVal::owned(CelNull),
    })
}

fn normalize_dns<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    Ok(CowVal::owned(CelString::from(crate::dns_label(
        &only_text(args)?,
    ))))
}

fn refuse_env<'b, 'v>(_: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    Err(ExecutionError::function_error(ENV_FUNCTION, ENV_DISABLED))
}

fn charge_range<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let range = only(args)?;
    if range.as_iterable().is_some() {
        let size = size_of(&*range);
        let left = ITERATIONS_LEFT.get();
        if size > left {
            ITERATIONS_LEFT.set(0);
            return Err(ExecutionError::function_error(
                RANGE_GUARD,
                format!("comprehensions would run more than {MAX_ITERATIONS} iterations"),
            ));
        }
        ITERATIONS_LEFT.set(left - size);
    }
    Ok(range)
}

fn check_size<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let value = only(args)?;
    let too_large = |what: &str, size: usize, limit: usize| {
        ExecutionError::function_error(
            SIZE_GUARD,
            format!("a computed {what} holds {size}, more than the limit of {limit}"),
        )
    };
    match value.get_type().kind() {
        Kind::String => {
            let bytes = value
                .downcast_ref::<CelString>()
                .map_or(0, |text| text.inner().len());
            if bytes > MAX_STRING_BYTES {
                return Err(too_large("string", bytes, MAX_STRING_BYTES));
            }
        }
        Kind::Bytes => {
            let bytes = value
                .downcast_ref::<CelBytes>()
                .map_or(0, |bytes| bytes.inner().len());
            if bytes > MAX_STRING_BYTES {
                return Err(too_large("bytes value", bytes, MAX_STRING_BYTES));
            }
        }
        Kind::List | Kind::Map => {
            let entries = usize::try_from(size_of(&*value)).unwrap_or(usize::MAX);
            if entries > MAX_ELEMENTS {
                return Err(too_large("collection", entries, MAX_ELEMENTS));
            }
        }
        _ => {}
    }
    Ok(value)
}

/// The number of entries of a list or map (0 for anything else).
fn size_of(value: &dyn Val) -> u64 {
    value
        .as_sizer()
        .and_then(|sizer| u64::try_from(*sizer.size().inner()).ok())
        .unwrap_or(0)
}

/// The diagnostic for a runtime error of the expression at `span`.
pub(crate) fn eval_error(error: &ExecutionError, span: Span, scope: &Scope) -> Diagnostic {
    match error {
        ExecutionError::FunctionError { function, message }
            if function == ENV_FUNCTION && message == ENV_DISABLED =>
        {
            Diagnostic::error(codes::ENV_DISABLED, "`env()` is disabled", span).with_help(ENV_HELP)
        }
        ExecutionError::FunctionError { function, message }
            if function == RANGE_GUARD || function == SIZE_GUARD =>
        {
            Diagnostic::error(codes::LIMIT, message, span)
        }
        ExecutionError::UndeclaredReference(name) => {
            Diagnostic::error(codes::EVAL, lowercase_first(&error.to_string()), span)
                .with_suggestion(name, scope.names())
        }
        _ => Diagnostic::error(codes::EVAL, lowercase_first(&error.to_string()), span),
    }
}

/// The text of a caught panic.
pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("an unknown panic");
    lowercase_first(text)
}

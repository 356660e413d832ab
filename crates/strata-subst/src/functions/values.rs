//! Function values and access: `compose` (right to left) and `pipe` (left
//! to right) of function values, `getattr` and `getelem` as functions,
//! and `link`, which only a deployment can answer.

use super::{Args, Fail, Function, fail, fail_at};
use crate::eval::Lookup;
use crate::value::Value;

pub(super) fn functions(args: &Args<'_>) -> Result<Vec<Function>, Fail> {
    (0..args.values.len())
        .map(|index| args.function(index).cloned())
        .collect()
}

pub(super) fn compose(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Function(Function::Compose(functions(args)?)))
}

pub(super) fn pipe(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Function(Function::Pipe(functions(args)?)))
}

pub(super) fn getattr(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Function(Function::Attr(args.string(0)?.to_owned())))
}

pub(super) fn getelem(args: &Args<'_>) -> Result<Value, Fail> {
    let index = args.int(0)?;
    usize::try_from(index)
        .map(|index| Value::Function(Function::Elem(index)))
        .map_err(|_| {
            fail_at(0, format!("an index is zero or more, not {index}"))
                .withholding("an index is zero or more")
        })
}

pub(super) fn link(args: &Args<'_>) -> Result<Value, Fail> {
    let (from, to) = (args.string(0)?, args.string(1)?);
    match args.env.link(from, to) {
        Lookup::Known(value) => Ok(value),
        // A link is read whole: nothing below it was read.
        Lookup::Shared(value) | Lookup::SharedBelow { value, .. } => Ok(Value::clone(&value)),
        Lookup::Pending => Err(Fail::Pending(format!("link({from}, {to})").into())),
        Lookup::Missing(message) => {
            Err(fail(message).withholding("`link` takes two resources of the blueprint"))
        }
    }
}

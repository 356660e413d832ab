//! Booleans and comparisons: `and`, `or`, `not`; `eq` as deep equality
//! (an integer and a float compare numerically, any other mix of types is
//! an error); `gt`, `ge`, `lt`, `le` over integers and floats, mixed.

use std::cmp::Ordering;

use super::{Args, Fail, Number, fail_at};
use crate::types::Types;
use crate::value::Value;

pub(super) fn same_type(a: &Value, b: &Value) -> bool {
    a.types() == b.types() || (Types::NUMBER.contains(a.types() | b.types()))
}

/// Deep equality; the types of the first two values found to differ in
/// type (at the top or deep inside) when they do (integers and floats
/// compare numerically).
pub(super) fn equal(a: &Value, b: &Value) -> Result<bool, (Types, Types)> {
    Ok(match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            let number = |value: &Value| match value {
                Value::Int(value) => Number::Int(*value),
                Value::Float(value) => Number::Float(*value),
                _ => Number::Float(f64::NAN),
            };
            number(a).compare(number(b)) == Some(Ordering::Equal)
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Ok(false);
            }
            for (a, b) in a.iter().zip(b) {
                if !equal(a, b)? {
                    return Ok(false);
                }
            }
            true
        }
        (Value::Object(a), Value::Object(b)) => {
            if a.len() != b.len() {
                return Ok(false);
            }
            for (key, a) in a {
                match b.get(key) {
                    Some(b) if equal(a, b)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        (Value::Function(a), Value::Function(b)) => a == b,
        _ => return Err((a.types(), b.types())),
    })
}

pub(super) fn and(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Bool(args.boolean(0)? && args.boolean(1)?))
}

pub(super) fn or(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Bool(args.boolean(0)? || args.boolean(1)?))
}

pub(super) fn not(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Bool(!args.boolean(0)?))
}

pub(super) fn eq(args: &Args<'_>) -> Result<Value, Fail> {
    let (a, b) = (args.get(0)?, args.get(1)?);
    equal(a, b).map(Value::Bool).map_err(|(a, b)| {
        fail_at(
            1,
            format!("`eq` compares values of one type: {a} and {b} differ"),
        )
    })
}

pub(super) fn compare(args: &Args<'_>, accept: fn(Ordering) -> bool) -> Result<Value, Fail> {
    let (a, b) = (args.number(0)?, args.number(1)?);
    Ok(Value::Bool(a.compare(b).is_some_and(accept)))
}

pub(super) fn gt(args: &Args<'_>) -> Result<Value, Fail> {
    compare(args, Ordering::is_gt)
}

pub(super) fn ge(args: &Args<'_>) -> Result<Value, Fail> {
    compare(args, Ordering::is_ge)
}

pub(super) fn lt(args: &Args<'_>) -> Result<Value, Fail> {
    compare(args, Ordering::is_lt)
}

pub(super) fn le(args: &Args<'_>) -> Result<Value, Fail> {
    compare(args, Ordering::is_le)
}

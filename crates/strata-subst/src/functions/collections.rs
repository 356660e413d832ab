//! The functions of arrays and mappings: building them (`list`, `object`),
//! their keys and values in order, and the higher-order `map`, `filter`,
//! `reduce`, `sort` and `flatmap`, whose function arguments are called
//! within the call's budget.

use std::cmp::Ordering;

use super::logic::same_type;
use super::{Args, Budget, Fail, fail, fail_at};
use crate::value::Value;

pub(super) fn list(args: &Args<'_>) -> Result<Value, Fail> {
    if let Some(first) = args.values.first()
        && let Some(position) = args.values.iter().position(|item| !same_type(first, item))
    {
        return Err(fail_at(
            position,
            format!(
                "`list` takes items of one type: the first is {}, item {} is {}",
                first.types(),
                position + 1,
                args.values[position].types()
            ),
        ));
    }
    Ok(Value::Array(args.values.clone()))
}

pub(super) fn object(args: &Args<'_>) -> Result<Value, Fail> {
    if !args.values.is_empty() {
        return Err(fail_at(
            0,
            "`object` takes named arguments only: `object(name = value)`",
        ));
    }
    Ok(Value::Object(args.named.clone()))
}

pub(super) fn keys(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Array(
        args.object(0)?.keys().cloned().map(Value::String).collect(),
    ))
}

pub(super) fn vals(args: &Args<'_>) -> Result<Value, Fail> {
    Ok(Value::Array(args.object(0)?.values().cloned().collect()))
}

pub(super) fn position_value(position: usize) -> Value {
    i64::try_from(position).map_or(Value::Null, Value::Int)
}

pub(super) fn map(args: &Args<'_>) -> Result<Value, Fail> {
    let items = args.array(0)?;
    let mut mapped = Vec::with_capacity(items.len());
    let mut budget = Budget::default();
    for (position, item) in items.iter().enumerate() {
        let what = format!("on item {position}");
        let result = args.apply(1, vec![item.clone(), position_value(position)], &what)?;
        budget.add(&result).map_err(fail)?;
        mapped.push(result);
    }
    Ok(Value::Array(mapped))
}

pub(super) fn filter(args: &Args<'_>) -> Result<Value, Fail> {
    let items = args.array(0)?;
    let mut kept = Vec::new();
    for (position, item) in items.iter().enumerate() {
        let what = format!("on item {position}");
        match args.apply(1, vec![item.clone()], &what)? {
            Value::Bool(true) => kept.push(item.clone()),
            Value::Bool(false) => {}
            other => {
                return Err(fail_at(
                    1,
                    format!(
                        "the function given to `filter` must give a boolean, it gave {} for item {position}",
                        other.types()
                    ),
                )
                .withholding(format!(
                    "the function given to `filter` must give a boolean, it gave {}",
                    other.types()
                )));
            }
        }
    }
    Ok(Value::Array(kept))
}

pub(super) fn reduce(args: &Args<'_>) -> Result<Value, Fail> {
    let items = args.array(0)?;
    let mut accumulator = args.get(2)?.clone();
    for (position, item) in items.iter().enumerate() {
        let what = format!("on item {position}");
        accumulator = args.apply(
            1,
            vec![accumulator, item.clone(), position_value(position)],
            &what,
        )?;
    }
    Ok(accumulator)
}

pub(super) fn sort(args: &Args<'_>) -> Result<Value, Fail> {
    let items = args.array(0)?.to_vec();
    let sorted = merge_sort(items, &mut |a, b| match args.apply(
        1,
        vec![a.clone(), b.clone()],
        "comparing two items",
    )? {
        Value::Int(order) => Ok(order.cmp(&0)),
        other => Err(fail_at(
            1,
            format!(
                "the comparator given to `sort` must give an integer, it gave {}",
                other.types()
            ),
        )),
    })?;
    Ok(Value::Array(sorted))
}

/// A stable merge sort by a comparator that may fail, stopping at the
/// first failure. Unlike the standard library's sorts, which may panic
/// when the order is not total, it takes any comparator: a blueprint's
/// (`sort(xs, index)`) need not be one.
pub(super) fn merge_sort(
    mut items: Vec<Value>,
    compare: &mut dyn FnMut(&Value, &Value) -> Result<Ordering, Fail>,
) -> Result<Vec<Value>, Fail> {
    if items.len() < 2 {
        return Ok(items);
    }
    let right = items.split_off(items.len() / 2);
    let left = merge_sort(items, compare)?;
    let right = merge_sort(right, compare)?;
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let (mut left, mut right) = (left.into_iter().peekable(), right.into_iter().peekable());
    while let (Some(a), Some(b)) = (left.peek(), right.peek()) {
        let take_right = compare(a, b)? == Ordering::Greater;
        merged.extend(if take_right {
            right.next()
        } else {
            left.next()
        });
    }
    merged.extend(left);
    merged.extend(right);
    Ok(merged)
}

pub(super) fn flatmap(args: &Args<'_>) -> Result<Value, Fail> {
    let items = args.array(0)?;
    let mut flat = Vec::new();
    let mut budget = Budget::default();
    for (position, item) in items.iter().enumerate() {
        let what = format!("on item {position}");
        match args.apply(1, vec![item.clone(), position_value(position)], &what)? {
            Value::Array(values) => {
                values
                    .iter()
                    .try_for_each(|value| budget.add(value))
                    .map_err(fail)?;
                flat.extend(values);
            }
            other => {
                return Err(fail_at(
                    1,
                    format!(
                        "the function given to `flatmap` must give an array, it gave {} for item {position}",
                        other.types()
                    ),
                )
                .withholding(format!(
                    "the function given to `flatmap` must give an array, it gave {}",
                    other.types()
                )));
            }
        }
    }
    Ok(Value::Array(flat))
}

//! expr's functions of a list and a predicate: the predicate (the second
//! argument, an expression or a `{ closure }`) is evaluated for each item,
//! `#` standing for the item, `.name` for `#.name`, `#index` for its index
//! and, in `reduce`, `#acc` for the value so far.
//!
//! | function | gives |
//! |---|---|
//! | `all`, `any`, `one`, `none` | whether the predicate holds for every, some, exactly one, no item |
//! | `filter`, `map` | the items it holds for; its value for each item |
//! | `find`, `findIndex`, `findLast`, `findLastIndex` | the first/last item it holds for (or `null`), its index (or -1) |
//! | `count(list[, p])` | how many items it holds for (without `p`: how many are `true`) |
//! | `sum(list[, e])` | the sum of the items (or of `e` for each): an integer while every term is one |
//! | `groupBy(list, e)` | a mapping from each value of `e` (as text) to the items that give it |
//! | `sortBy(list, e[, order])` | the items ordered by `e`, stably, `"asc"` or `"desc"` |
//! | `reduce(list, e[, initial])` | `#acc` after `e` for each item; it starts as `initial`, else as the first item |
//!
//! A predicate that must decide gives `true` or `false`; each evaluation
//! costs one item of the evaluation's budget.

use std::ops::Range;

use strata_syntax::{Entry, Mapping, Node, Span, Value};

use crate::CondError;
use crate::eval::{Evaluator, Item, kind, plain};
use crate::functions::{Function, check_arity, descending, sort_by_keys};
use crate::go::go_string;
use crate::parse::{BinaryOp, Expr};

/// `function` (a predicate one) applied to `arguments`, the predicate
/// evaluated for each item.
pub(crate) fn call(
    evaluator: &Evaluator<'_>,
    function: &Function,
    arguments: &[Expr],
    range: &Range<usize>,
) -> Result<Node, CondError> {
    check_arity(function, arguments.len(), range)?;
    let run = Run {
        evaluator,
        name: function.name,
        predicate: arguments.get(1),
    };
    run.apply(&arguments[0], arguments.get(2), range)
}

/// One call of a predicate function.
struct Run<'e, 'a> {
    evaluator: &'e Evaluator<'a>,
    name: &'e str,
    predicate: Option<&'e Expr>,
}

impl Run<'_, '_> {
    /// The predicate's value for `item` (the item itself when there is no
    /// predicate).
    fn value(
        &self,
        item: &Node,
        index: usize,
        accumulator: Option<&Node>,
    ) -> Result<Node, CondError> {
        let Some(predicate) = self.predicate else {
            return Ok(item.clone());
        };
        let budget = self.evaluator.budget();
        budget.spend(1, &predicate.range)?;
        let inner = self.evaluator.for_item(Item {
            value: item,
            index,
            accumulator,
        });
        let value = inner.eval(predicate)?;
        budget.own(value, &predicate.range)
    }

    /// Whether the predicate holds for `item`.
    fn holds(&self, item: &Node, index: usize) -> Result<bool, CondError> {
        let value = self.value(item, index, None)?;
        match value.value {
            Value::Bool(holds) => Ok(holds),
            _ => Err(crate::eval_error(
                format!(
                    "the predicate of `{}` must be true or false, found {}",
                    self.name,
                    kind(&value)
                ),
                self.predicate
                    .map_or(0..0, |predicate| predicate.range.clone()),
            )),
        }
    }

    fn apply(
        &self,
        list: &Expr,
        third: Option<&Expr>,
        range: &Range<usize>,
    ) -> Result<Node, CondError> {
        let evaluated = self.evaluator.eval(list)?;
        let Value::Seq(items) = &evaluated.value else {
            return Err(crate::eval_error(
                format!("`{}` takes a list, found {}", self.name, kind(&evaluated)),
                list.range.clone(),
            ));
        };
        let value = match self.name {
            // `all`, `any` and `none` stop at the first item that decides,
            // as expr's do.
            "all" | "any" | "none" => {
                let stop_when = self.name != "all";
                for (index, item) in items.iter().enumerate() {
                    if self.holds(item, index)? == stop_when {
                        return Ok(plain(Value::Bool(self.name == "any")));
                    }
                }
                Value::Bool(self.name != "any")
            }
            "one" | "count" => {
                let mut hits = 0_usize;
                for (index, item) in items.iter().enumerate() {
                    hits += usize::from(self.holds(item, index)?);
                }
                if self.name == "one" {
                    Value::Bool(hits == 1)
                } else {
                    Value::Int(i64::try_from(hits).unwrap_or(i64::MAX))
                }
            }
            "filter" => {
                let mut kept = Vec::new();
                for (index, item) in items.iter().enumerate() {
                    if self.holds(item, index)? {
                        self.evaluator.budget().spend(1, range)?;
                        kept.push(item.clone());
                    }
                }
                Value::Seq(kept)
            }
            "map" => {
                let mut mapped = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    mapped.push(self.value(item, index, None)?);
                }
                Value::Seq(mapped)
            }
            "find" | "findIndex" | "findLast" | "findLastIndex" => return self.find(items),
            "sum" => {
                let mut total = plain(Value::Int(0));
                for (index, item) in items.iter().enumerate() {
                    let term = self.value(item, index, None)?;
                    total = add(
                        &total,
                        &term,
                        self.predicate.map_or(&list.range, |p| &p.range),
                    )?;
                }
                return Ok(total);
            }
            "groupBy" => self.group_by(items, range)?,
            "sortBy" => {
                let order = match third {
                    Some(order) => Some((
                        self.evaluator.eval(order)?.into_owned(),
                        order.range.clone(),
                    )),
                    None => None,
                };
                let descending = descending(self.name, order.as_ref())?;
                let mut keys = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    keys.push(self.value(item, index, None)?);
                }
                self.evaluator.budget().spend(items.len(), range)?;
                let mut sorted = items.clone();
                let at = self.predicate.map_or(range, |predicate| &predicate.range);
                sort_by_keys(self.name, &mut sorted, Some(keys), descending, at)?;
                Value::Seq(sorted)
            }
            _ => return self.reduce(items, third, range),
        };
        Ok(plain(value))
    }

    /// `find`, `findIndex`, `findLast`, `findLastIndex`.
    fn find(&self, items: &[Node]) -> Result<Node, CondError> {
        let backwards = self.name.starts_with("findLast");
        let mut order: Box<dyn Iterator<Item = (usize, &Node)>> = if backwards {
            Box::new(items.iter().enumerate().rev())
        } else {
            Box::new(items.iter().enumerate())
        };
        let found = order.try_fold(None, |found, (index, item)| {
            if found.is_some() {
                return Ok::<_, CondError>(found);
            }
            Ok(self.holds(item, index)?.then_some((index, item)))
        })?;
        Ok(match (found, self.name.ends_with("Index")) {
            (Some((index, _)), true) => plain(Value::Int(i64::try_from(index).unwrap_or(i64::MAX))),
            (None, true) => plain(Value::Int(-1)),
            (Some((_, item)), false) => item.clone(),
            (None, false) => plain(Value::Null),
        })
    }

    /// `groupBy`: the items under the text of their key.
    fn group_by(&self, items: &[Node], range: &Range<usize>) -> Result<Value, CondError> {
        let mut groups = Mapping::default();
        for (index, item) in items.iter().enumerate() {
            let key = self.value(item, index, None)?;
            let key = match &key.value {
                Value::String(text) => text.clone(),
                Value::Seq(_) | Value::Map(_) => {
                    return Err(crate::eval_error(
                        format!(
                            "`groupBy` groups by a string, number or boolean, found {}",
                            kind(&key)
                        ),
                        self.predicate
                            .map_or(0..0, |predicate| predicate.range.clone()),
                    ));
                }
                _ => go_string(&key),
            };
            self.evaluator.budget().spend(1, range)?;
            let group = groups.entry(key).or_insert_with(|| Entry {
                key_span: Span::default(),
                value: plain(Value::Seq(Vec::new())),
            });
            if let Value::Seq(members) = &mut group.value.value {
                members.push(item.clone());
            }
        }
        Ok(Value::Map(groups))
    }

    /// `reduce(list, e[, initial])`.
    fn reduce(
        &self,
        items: &[Node],
        initial: Option<&Expr>,
        range: &Range<usize>,
    ) -> Result<Node, CondError> {
        let (mut accumulator, start) = match initial {
            Some(initial) => (self.evaluator.owned(initial)?, 0),
            None => match items.first() {
                Some(first) => (first.clone(), 1),
                None => {
                    return Err(crate::eval_error(
                        "`reduce` of an empty list needs an initial value: `reduce(list, #acc + #, 0)`",
                        range.clone(),
                    ));
                }
            },
        };
        for (index, item) in items.iter().enumerate().skip(start) {
            accumulator = self.value(item, index, Some(&accumulator))?;
        }
        Ok(accumulator)
    }
}

/// `a + b` of two numbers for `sum`: integers while both are.
fn add(a: &Node, b: &Node, range: &Range<usize>) -> Result<Node, CondError> {
    match (&a.value, &b.value) {
        (Value::Int(x), Value::Int(y)) => x
            .checked_add(*y)
            .map(|sum| plain(Value::Int(sum)))
            .ok_or_else(|| crate::eval_error("`sum` overflows", range.clone())),
        (x, y) => crate::eval::float(x)
            .zip(crate::eval::float(y))
            .map(|(x, y)| plain(Value::Float(x + y)))
            .ok_or_else(|| crate::eval::mismatch(BinaryOp::Add, a, b, range.clone())),
    }
}

//! Evaluating an [`Expr`] against the configuration, with expr's semantics
//! (v1.17) except where the manual's "differences from expr" says why not.
//!
//! - A name is a `let` variable, else a top-level key of the configuration
//!   (`$env` is the whole configuration). A missing key anywhere in a path
//!   is `null` (`cluster.endpoint` on a configuration without `cluster`),
//!   and so is an index past the end of a list; reading a field of a
//!   string, number or boolean is an error. A mapping indexed by a number
//!   looks up the number's text (`groupBy(..)[1]`).
//! - `??` gives its right side when the left is `null` (the right side is
//!   not evaluated otherwise). `&&`, `||` and `!` take booleans and treat
//!   `null` as false; they short-circuit.
//! - `==`/`!=` compare any two values deeply (`1 == 1.0`); `<`, `<=`, `>`,
//!   `>=` compare two numbers, two strings, two dates or two durations;
//!   comparing with `null` is an error that suggests `??`.
//! - `+`, `-`, `*` keep integers integers and make floats of anything
//!   else; `/` always divides as floats; `%` takes integers; `**` is a
//!   float. `+` also joins strings and moves dates by durations. Integer
//!   overflow and division by zero are errors.
//! - `x in list` is membership, `key in map` a key test, anything `in null`
//!   false. A negative index counts from the end; `[a:b]` slices lists and
//!   strings (by character), clamping its bounds as expr does.
//! - Functions: see [`crate::functions`] and [`crate::predicates`].
//!
//! Work and memory are bounded: an evaluation makes at most [`MAX_ITEMS`]
//! items (list items, predicate calls, copies of values, every 64 bytes of
//! text counting as one), whatever the expression.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::ops::Range;

use strata_syntax::{Diagnostic, Node, Span, Value};

use crate::CondError;
use crate::parse::{BinaryOp, Expr, ExprKind, Pointer, UnaryOp};
use crate::time;

/// What expressions may ask of the world.
pub trait Host {
    /// `jsonnet(path)`: the value of a Jsonnet file.
    fn jsonnet(&self, path: &str) -> Result<Node, HostError>;
    /// `file(path)`: the text of a file.
    fn file(&self, path: &str) -> Result<String, HostError>;
}

/// Why a [`Host`] could not answer a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// The call itself failed (a path outside the folder, a file that
    /// cannot be read): reported at the call, with this message.
    Call(String),
    /// The code the call ran failed where that code is written: this
    /// diagnostic, with the call as its secondary place.
    Failed(Box<Diagnostic>),
}

pub use crate::functions::{FUNCTIONS, Function};

/// The most items one evaluation may make: list items (ranges, splits,
/// maps, concatenations), predicate calls, copies of values into new
/// lists and mappings, and text (every 64 bytes one item). A bound on its
/// work and memory whatever the expression (`[1..100000, 1..100000, ...]`,
/// `split(file("big.txt"), "")`, `reduce(1..99, #acc + #acc, "x")`).
pub const MAX_ITEMS: i64 = 1_000_000;

/// The most bytes one string may hold.
pub const MAX_TEXT: usize = 16 << 20;

/// Evaluates `expr` with `scope` (a mapping) as its names. A date or a
/// duration in the result becomes a plain value (see [`crate::time`]).
pub fn evaluate(expr: &Expr, scope: &Node, host: &dyn Host) -> Result<Node, CondError> {
    evaluate_with(expr, scope, host, |value| match value {
        Cow::Owned(value) => time::to_plain(value),
        // Read from the scope: no date or duration of an evaluation in it.
        Cow::Borrowed(value) => value.clone(),
    })
}

/// Evaluates `expr` and gives `use_value` the result as it is: read from
/// the scope without a copy, dates and durations still tagged (for a
/// caller that only reads it, or writes it as Go does).
pub(crate) fn evaluate_with<R>(
    expr: &Expr,
    scope: &Node,
    host: &dyn Host,
    use_value: impl FnOnce(Cow<'_, Node>) -> R,
) -> Result<R, CondError> {
    let budget = Cell::new(MAX_ITEMS);
    let patterns = RefCell::new(HashMap::new());
    let evaluator = Evaluator {
        scope,
        host,
        budget: &budget,
        patterns: &patterns,
        item: None,
        locals: None,
    };
    Ok(use_value(evaluator.eval(expr)?))
}

/// What is left of [`MAX_ITEMS`], shared by everything one evaluation
/// runs.
pub(crate) struct Budget<'a>(pub(crate) &'a Cell<i64>);

impl Budget<'_> {
    /// Takes `count` items, or the error at `range` when there are not that
    /// many left.
    pub(crate) fn spend(&self, count: usize, range: &Range<usize>) -> Result<(), CondError> {
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        if count > self.0.get() {
            return Err(crate::eval_error(
                format!(
                    "the expression makes more than {MAX_ITEMS} items (list items, predicate calls, copies, 64 bytes of text each)"
                ),
                range.clone(),
            ));
        }
        self.0.set(self.0.get() - count);
        Ok(())
    }

    /// Takes what a new string of `text` costs, refusing one longer than
    /// [`MAX_TEXT`].
    pub(crate) fn text(&self, text: String, range: &Range<usize>) -> Result<Node, CondError> {
        if text.len() > MAX_TEXT {
            return Err(crate::eval_error(
                format!("the string would be longer than {MAX_TEXT} bytes"),
                range.clone(),
            ));
        }
        self.spend(text.len() / 64, range)?;
        Ok(plain(Value::String(text)))
    }

    /// An owned copy of `value`, paid for when it is a copy.
    pub(crate) fn own(
        &self,
        value: Cow<'_, Node>,
        range: &Range<usize>,
    ) -> Result<Node, CondError> {
        if let Cow::Borrowed(node) = &value {
            self.spend(weight(node), range)?;
        }
        Ok(value.into_owned())
    }
}

/// What copying `node` costs: one per node, one per 64 bytes of text.
fn weight(node: &Node) -> usize {
    match &node.value {
        Value::String(text) => 1 + text.len() / 64,
        Value::Seq(items) => 1 + items.iter().map(weight).sum::<usize>(),
        Value::Map(entries) => {
            1 + entries
                .iter()
                .map(|(key, entry)| key.len() / 64 + weight(&entry.value))
                .sum::<usize>()
        }
        _ => 1,
    }
}

/// The item a predicate is evaluated for.
#[derive(Clone, Copy)]
pub(crate) struct Item<'a> {
    /// `#`.
    pub(crate) value: &'a Node,
    /// `#index`.
    pub(crate) index: usize,
    /// `#acc`, in `reduce`.
    pub(crate) accumulator: Option<&'a Node>,
}

/// A `let` variable and the ones it shadows.
struct Local<'a> {
    name: &'a str,
    value: &'a Node,
    outer: Option<&'a Local<'a>>,
}

/// Evaluates expressions in one scope.
#[derive(Clone, Copy)]
pub(crate) struct Evaluator<'a> {
    scope: &'a Node,
    pub(crate) host: &'a dyn Host,
    budget: &'a Cell<i64>,
    /// The `matches` patterns compiled so far: a predicate runs one per
    /// item.
    patterns: &'a RefCell<HashMap<String, regex::Regex>>,
    item: Option<Item<'a>>,
    locals: Option<&'a Local<'a>>,
}

/// A value not read from a file.
pub(crate) fn plain(value: Value) -> Node {
    Node::new(value, Span::default())
}

/// The kind of a value with its article, for messages (`an integer`).
pub(crate) fn kind(node: &Node) -> &'static str {
    if time::is_date(node) {
        return "a date";
    }
    if time::is_duration(node) {
        return "a duration";
    }
    match node.value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) => "an integer",
        Value::Float(_) => "a float",
        Value::String(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a mapping",
    }
}

impl<'a> Evaluator<'a> {
    /// The budget of this evaluation.
    pub(crate) fn budget(&self) -> Budget<'a> {
        Budget(self.budget)
    }

    /// An evaluator of the same scope with `item` as `#`.
    pub(crate) fn for_item<'b>(&self, item: Item<'b>) -> Evaluator<'b>
    where
        'a: 'b,
    {
        Evaluator {
            item: Some(item),
            ..*self
        }
    }

    /// The value of `expr`. Paths into the configuration are followed by
    /// reference: only a value computed along the way is owned, so
    /// `cluster.workers.count` copies nothing but the count.
    pub(crate) fn eval(&self, expr: &Expr) -> Result<Cow<'a, Node>, CondError> {
        stacker::maybe_grow(crate::STACK_RED_ZONE, crate::STACK_SEGMENT, || {
            self.value(expr)
        })
    }

    fn value(&self, expr: &Expr) -> Result<Cow<'a, Node>, CondError> {
        let range = expr.range.clone();
        let owned = |value| Ok(Cow::Owned(plain(value)));
        match &expr.kind {
            ExprKind::Null => owned(Value::Null),
            ExprKind::Bool(b) => owned(Value::Bool(*b)),
            ExprKind::Int(i) => owned(Value::Int(*i)),
            ExprKind::Float(f) => owned(Value::Float(*f)),
            ExprKind::String(s) => owned(Value::String(s.clone())),
            ExprKind::List(items) => {
                let mut values = Vec::with_capacity(items.len());
                for item in items {
                    values.push(self.owned(item)?);
                }
                owned(Value::Seq(values))
            }
            ExprKind::Map(entries) => self.map(entries).map(Cow::Owned),
            ExprKind::Name(name) => Ok(self.name(name)),
            ExprKind::Member(target, name) => {
                let target = self.eval(target)?;
                descend(target, Step::Field(name), range)
            }
            ExprKind::Index(target, index) => {
                let target = self.eval(target)?;
                let index = self.eval(index)?;
                descend(target, Step::Index(&index), range)
            }
            ExprKind::Slice(target, from, to) => {
                let target = self.eval(target)?;
                let bound = |bound: &Option<Box<Expr>>| match bound {
                    Some(bound) => self
                        .eval(bound)
                        .map(|value| Some((value, bound.range.clone()))),
                    None => Ok(None),
                };
                let from = bound(from)?;
                let to = bound(to)?;
                slice(&target, from, to, range, &self.budget()).map(Cow::Owned)
            }
            ExprKind::Call(name, arguments) => self.call(name, arguments, range).map(Cow::Owned),
            ExprKind::Method(target, name, arguments) => {
                let target = self.eval(target)?;
                let mut values = Vec::with_capacity(arguments.len());
                for argument in arguments {
                    values.push((self.eval(argument)?.into_owned(), argument.range.clone()));
                }
                time::method(&target, name, &values, range).map(Cow::Owned)
            }
            ExprKind::Pointer(pointer) => self.pointer(*pointer, range),
            ExprKind::Unary(op, operand) => {
                let value = self.eval(operand)?;
                unary(*op, &value, range).map(Cow::Owned)
            }
            ExprKind::Binary(op, left, right) => self.binary(*op, left, right, range),
            ExprKind::Conditional(condition, then, otherwise) => {
                let decided = self.eval(condition)?;
                match decided.value {
                    Value::Bool(true) => self.eval(then),
                    Value::Bool(false) => self.eval(otherwise),
                    _ => Err(crate::eval_error(
                        format!(
                            "a condition of `? :` or `if` must be true or false, found {}",
                            kind(&decided)
                        ),
                        condition.range.clone(),
                    )),
                }
            }
            ExprKind::Let(name, value, body) => {
                let value = self.eval(value)?;
                let local = Local {
                    name,
                    value: &value,
                    outer: self.locals,
                };
                let inner = Evaluator {
                    locals: Some(&local),
                    ..*self
                };
                let result = inner.eval(body)?;
                self.budget().own(result, &range).map(Cow::Owned)
            }
            ExprKind::Sequence(items) => {
                let Some((last, before)) = items.split_last() else {
                    return owned(Value::Null);
                };
                for item in before {
                    self.eval(item)?;
                }
                self.eval(last)
            }
        }
    }

    /// The owned value of `expr`, its copy paid for.
    pub(crate) fn owned(&self, expr: &Expr) -> Result<Node, CondError> {
        let value = self.eval(expr)?;
        self.budget().own(value, &expr.range)
    }

    /// A name's value: a `let` variable, `$env`, or a key of the scope.
    fn name(&self, name: &str) -> Cow<'a, Node> {
        let mut local = self.locals;
        while let Some(variable) = local {
            if variable.name == name {
                return Cow::Borrowed(variable.value);
            }
            local = variable.outer;
        }
        if name == "$env" {
            return Cow::Borrowed(self.scope);
        }
        self.scope
            .get(name)
            .map_or_else(|| Cow::Owned(plain(Value::Null)), Cow::Borrowed)
    }

    fn pointer(&self, pointer: Pointer, range: Range<usize>) -> Result<Cow<'a, Node>, CondError> {
        let Some(item) = self.item else {
            return Err(crate::eval_error(
                "`#` (and `.name`, `#index`, `#acc`) stands for an item only inside a predicate: `filter(list, # > 1)`",
                range,
            ));
        };
        match pointer {
            Pointer::Item => Ok(Cow::Borrowed(item.value)),
            Pointer::Index => Ok(Cow::Owned(plain(Value::Int(
                i64::try_from(item.index).unwrap_or(i64::MAX),
            )))),
            Pointer::Accumulator => item.accumulator.map(Cow::Borrowed).ok_or_else(|| {
                crate::eval_error("`#acc` stands for the accumulator only in `reduce`", range)
            }),
        }
    }

    /// A `{key: value}` literal: keys must be strings (a written name or
    /// number is one); a repeated key keeps its last value.
    fn map(&self, entries: &[(Expr, Expr)]) -> Result<Node, CondError> {
        let mut pairs = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            let key_value = self.eval(key)?;
            let Value::String(text) = &key_value.value else {
                return Err(crate::eval_error(
                    format!("a mapping key must be a string, found {}", kind(&key_value)),
                    key.range.clone(),
                ));
            };
            pairs.push((text.clone(), self.owned(value)?));
        }
        Ok(Node::mapping(pairs))
    }

    fn call(&self, name: &str, arguments: &[Expr], range: Range<usize>) -> Result<Node, CondError> {
        let Some(function) = crate::functions::lookup(name) else {
            let error = crate::eval_error(format!("there is no function `{name}`"), range);
            let names = FUNCTIONS.iter().map(|function| function.name);
            // A near name is the likely fix; without one, the whole list.
            if let Some(near) = strata_syntax::did_you_mean(name, names) {
                return Err(error.with_help(format!("did you mean `{near}`?")));
            }
            let names: Vec<String> = FUNCTIONS
                .iter()
                .map(|function| format!("`{}`", function.name))
                .collect();
            return Err(error.with_note(format!("the functions are {}", names.join(", "))));
        };
        if function.group == crate::functions::Group::Predicate {
            return crate::predicates::call(self, function, arguments, &range);
        }
        let mut values = Vec::with_capacity(arguments.len());
        for argument in arguments {
            values.push((self.eval(argument)?.into_owned(), argument.range.clone()));
        }
        crate::functions::call(self, function, &values, range)
    }

    fn binary(
        &self,
        op: BinaryOp,
        left: &Expr,
        right: &Expr,
        range: Range<usize>,
    ) -> Result<Cow<'a, Node>, CondError> {
        match op {
            BinaryOp::Coalesce => {
                let value = self.eval(left)?;
                if matches!(value.value, Value::Null) {
                    self.eval(right)
                } else {
                    Ok(value)
                }
            }
            BinaryOp::And | BinaryOp::Or => {
                let first = truth(op, &*self.eval(left)?, left.range.clone())?;
                if first == (op == BinaryOp::Or) {
                    return Ok(Cow::Owned(plain(Value::Bool(first))));
                }
                let second = truth(op, &*self.eval(right)?, right.range.clone())?;
                Ok(Cow::Owned(plain(Value::Bool(second))))
            }
            _ => {
                let a = self.eval(left)?;
                let b = self.eval(right)?;
                if let Some(result) = time::binary(op, &a, &b, &range) {
                    return result.map(Cow::Owned);
                }
                match op {
                    BinaryOp::Power | BinaryOp::Range | BinaryOp::Matches => {
                        extended(op, &a, &b, range, &self.budget(), self.patterns)
                    }
                    BinaryOp::Add => match (&a.value, &b.value) {
                        (Value::String(x), Value::String(y)) => {
                            self.budget().text(format!("{x}{y}"), &range)
                        }
                        _ => arithmetic(op, &a, &b, range),
                    },
                    _ => arithmetic(op, &a, &b, range),
                }
                .map(Cow::Owned)
            }
        }
    }
}

/// One step down a value: `.field` or `[index]`.
#[derive(Clone, Copy)]
enum Step<'k> {
    Field(&'k str),
    Index(&'k Node),
}

/// The value one step down `target`: borrowed when `target` is, `null`
/// for a missing key or an index past the end.
fn descend<'a>(
    target: Cow<'a, Node>,
    step: Step<'_>,
    range: Range<usize>,
) -> Result<Cow<'a, Node>, CondError> {
    let null = || Cow::Owned(plain(Value::Null));
    Ok(match target {
        Cow::Borrowed(node) => child(node, step, range)?.map_or_else(null, Cow::Borrowed),
        Cow::Owned(node) => {
            child(&node, step, range)?.map_or_else(null, |found| Cow::Owned(found.clone()))
        }
    })
}

/// The child `step` leads to, if any.
fn child<'n>(
    target: &'n Node,
    step: Step<'_>,
    range: Range<usize>,
) -> Result<Option<&'n Node>, CondError> {
    let key_of_number = |index: &Node| match index.value {
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(strata_syntax::go_float(f)),
        _ => None,
    };
    match (&target.value, step) {
        (Value::Null, _) => Ok(None),
        (Value::Map(entries), Step::Field(key)) => Ok(entries.get(key).map(|entry| &entry.value)),
        (Value::Map(entries), Step::Index(index)) => {
            if let Value::String(key) = &index.value {
                return Ok(entries.get(key.as_str()).map(|entry| &entry.value));
            }
            match key_of_number(index) {
                Some(key) => Ok(entries.get(key.as_str()).map(|entry| &entry.value)),
                None => Err(crate::eval_error(
                    format!("cannot index a mapping with {}", kind(index)),
                    range,
                )),
            }
        }
        (
            Value::Seq(items),
            Step::Index(Node {
                value: Value::Int(i),
                ..
            }),
        ) => Ok(position(*i, items.len()).and_then(|p| items.get(p))),
        (_, Step::Field(key)) => Err(crate::eval_error(
            format!("cannot read the field `{key}` of {}", kind(target)),
            range,
        )),
        (_, Step::Index(index)) => Err(crate::eval_error(
            format!("cannot index {} with {}", kind(target), kind(index)),
            range,
        )),
    }
}

/// The position `index` names in a list of `len` items (a negative index
/// counts from the end, as in expr), if it is inside the list.
pub(crate) fn position(index: i64, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let at = if index < 0 { len + index } else { index };
    usize::try_from(at)
        .ok()
        .filter(|at| i64::try_from(*at).is_ok_and(|at| at < len))
}

/// `target[from:to]` of a list or a string (by character): negative bounds
/// count from the end, and bounds are clamped into the value, as expr's.
fn slice(
    target: &Node,
    from: Option<(Cow<'_, Node>, Range<usize>)>,
    to: Option<(Cow<'_, Node>, Range<usize>)>,
    range: Range<usize>,
    budget: &Budget<'_>,
) -> Result<Node, CondError> {
    let len = match &target.value {
        Value::Seq(items) => items.len(),
        Value::String(text) => text.chars().count(),
        _ => {
            return Err(crate::eval_error(
                format!("cannot slice {}", kind(target)),
                range,
            ));
        }
    };
    let signed_len = i64::try_from(len).unwrap_or(i64::MAX);
    let bound = |bound: Option<(Cow<'_, Node>, Range<usize>)>, default: i64| match bound {
        None => Ok(default),
        Some((value, at)) => match value.value {
            Value::Int(i) => Ok(if i < 0 { signed_len + i } else { i }),
            _ => Err(crate::eval_error(
                format!("a slice bound must be an integer, found {}", kind(&value)),
                at,
            )),
        },
    };
    let to = bound(to, signed_len)?.clamp(0, signed_len);
    let from = bound(from, 0)?.clamp(0, to);
    let (from, to) = (
        usize::try_from(from).unwrap_or(0),
        usize::try_from(to).unwrap_or(0),
    );
    Ok(match &target.value {
        Value::Seq(items) => {
            let part = &items[from..to];
            budget.spend(part.iter().map(weight).sum(), &range)?;
            plain(Value::Seq(part.to_vec()))
        }
        Value::String(text) => plain(Value::String(
            text.chars().skip(from).take(to - from).collect(),
        )),
        _ => unreachable!("checked above"),
    })
}

/// A boolean operand of `op`; `null` is false.
fn truth(op: BinaryOp, value: &Node, range: Range<usize>) -> Result<bool, CondError> {
    match value.value {
        Value::Bool(b) => Ok(b),
        Value::Null => Ok(false),
        _ => Err(crate::eval_error(
            format!("`{}` takes booleans, found {}", op.symbol(), kind(value)),
            range,
        )),
    }
}

fn unary(op: UnaryOp, value: &Node, range: Range<usize>) -> Result<Node, CondError> {
    if let Some(result) = time::negate(op, value, &range) {
        return result;
    }
    match (op, &value.value) {
        (UnaryOp::Not, Value::Bool(b)) => Ok(plain(Value::Bool(!b))),
        (UnaryOp::Not, Value::Null) => Ok(plain(Value::Bool(true))),
        (UnaryOp::Negate, Value::Int(i)) => i
            .checked_neg()
            .map(|i| plain(Value::Int(i)))
            .ok_or_else(|| crate::eval_error("the negation overflows", range)),
        (UnaryOp::Negate, Value::Float(f)) => Ok(plain(Value::Float(-f))),
        (UnaryOp::Plus, Value::Int(_) | Value::Float(_)) => Ok(value.clone()),
        (UnaryOp::Not, _) => Err(crate::eval_error(
            format!("`!` takes a boolean, found {}", kind(value)),
            range,
        )),
        (UnaryOp::Negate | UnaryOp::Plus, _) => Err(crate::eval_error(
            format!(
                "`{}` takes a number, found {}",
                if op == UnaryOp::Plus { "+" } else { "-" },
                kind(value)
            ),
            range,
        )),
    }
}

/// A number as a float, for mixed arithmetic.
#[expect(
    clippy::cast_precision_loss,
    reason = "mixed arithmetic is float arithmetic"
)]
pub(crate) fn float(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// The order of two numbers, two strings (or two dates, two durations:
/// see [`crate::time::order`]); `None` for anything else.
pub(crate) fn order(a: &Node, b: &Node) -> Option<Ordering> {
    if time::is_timed(a) || time::is_timed(b) {
        return time::order(a, b);
    }
    match (&a.value, &b.value) {
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (x, y) => float(x).zip(float(y)).and_then(|(x, y)| x.partial_cmp(&y)),
    }
}

fn arithmetic(op: BinaryOp, a: &Node, b: &Node, range: Range<usize>) -> Result<Node, CondError> {
    let overflow = || crate::eval_error(format!("`{}` overflows", op.symbol()), range.clone());
    let mismatch = || mismatch(op, a, b, range.clone());
    let boolean = |b: bool| Ok(plain(Value::Bool(b)));
    let integers = |checked: fn(i64, i64) -> Option<i64>, floats: fn(f64, f64) -> f64| match (
        &a.value, &b.value,
    ) {
        (Value::Int(x), Value::Int(y)) => checked(*x, *y)
            .map(|v| plain(Value::Int(v)))
            .ok_or_else(overflow),
        (x, y) => float(x)
            .zip(float(y))
            .map(|(x, y)| plain(Value::Float(floats(x, y))))
            .ok_or_else(mismatch),
    };
    match op {
        BinaryOp::Equal => boolean(equal(a, b)),
        BinaryOp::NotEqual => boolean(!equal(a, b)),
        BinaryOp::Less | BinaryOp::LessEqual | BinaryOp::Greater | BinaryOp::GreaterEqual => {
            let ordering = order(a, b).ok_or_else(mismatch)?;
            boolean(match op {
                BinaryOp::Less => ordering == Ordering::Less,
                BinaryOp::LessEqual => ordering != Ordering::Greater,
                BinaryOp::Greater => ordering == Ordering::Greater,
                _ => ordering != Ordering::Less,
            })
        }
        BinaryOp::In => {
            let found = match &b.value {
                Value::Null => false,
                Value::Seq(items) => items.iter().any(|item| equal(a, item)),
                Value::Map(entries) => match &a.value {
                    Value::String(key) => entries.contains_key(key),
                    _ => return Err(mismatch()),
                },
                _ => return Err(mismatch()),
            };
            boolean(found)
        }
        BinaryOp::Contains | BinaryOp::StartsWith | BinaryOp::EndsWith => {
            let (Value::String(text), Value::String(part)) = (&a.value, &b.value) else {
                return Err(mismatch());
            };
            boolean(match op {
                BinaryOp::Contains => text.contains(part.as_str()),
                BinaryOp::StartsWith => text.starts_with(part.as_str()),
                _ => text.ends_with(part.as_str()),
            })
        }
        BinaryOp::Add => integers(i64::checked_add, |x, y| x + y),
        BinaryOp::Subtract => integers(i64::checked_sub, |x, y| x - y),
        BinaryOp::Multiply => integers(i64::checked_mul, |x, y| x * y),
        BinaryOp::Divide => {
            let (x, y) = float(&a.value).zip(float(&b.value)).ok_or_else(mismatch)?;
            if y == 0.0 {
                return Err(crate::eval_error("division by zero", range));
            }
            Ok(plain(Value::Float(x / y)))
        }
        BinaryOp::Remainder => match (&a.value, &b.value) {
            (Value::Int(_), Value::Int(0)) => {
                Err(crate::eval_error("remainder of a division by zero", range))
            }
            (Value::Int(x), Value::Int(y)) => x
                .checked_rem(*y)
                .map(|v| plain(Value::Int(v)))
                .ok_or_else(overflow),
            _ => Err(mismatch()),
        },
        BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Coalesce
        | BinaryOp::Power
        | BinaryOp::Range
        | BinaryOp::Matches => {
            unreachable!("handled before the operands are evaluated, or by `extended`")
        }
    }
}

/// The error of `op` applied to operands it does not take.
pub(crate) fn mismatch(op: BinaryOp, a: &Node, b: &Node, range: Range<usize>) -> CondError {
    let mut error = crate::eval_error(
        format!("`{}` cannot take {} and {}", op.symbol(), kind(a), kind(b)),
        range,
    );
    if matches!(a.value, Value::Null) || matches!(b.value, Value::Null) {
        error = error.with_help("a missing value is `null`; give a default with `??`");
    }
    error
}

/// Deep equality; integers and floats compare by value, dates by the
/// instant they name.
#[must_use]
pub fn equal(a: &Node, b: &Node) -> bool {
    if time::is_timed(a) || time::is_timed(b) {
        return time::order(a, b) == Some(Ordering::Equal);
    }
    match (&a.value, &b.value) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (x @ (Value::Int(_) | Value::Float(_)), y @ (Value::Int(_) | Value::Float(_))) => {
            float(x) == float(y)
        }
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter().all(|(key, entry)| {
                    y.get(key)
                        .is_some_and(|other| equal(&entry.value, &other.value))
                })
        }
        _ => false,
    }
}

/// The most items a `..` range may give: a bound on the work and memory
/// one expression may ask for.
pub const MAX_RANGE: i64 = 100_000;

/// The most `matches` patterns one evaluation keeps compiled.
const MAX_CACHED_PATTERNS: usize = 64;

/// The most bytes a `matches` pattern may compile to.
pub(crate) const MAX_PATTERN_BYTES: usize = 1 << 20;

/// The `matches` pattern compiled, from `patterns` when it was before.
fn cached_regex(
    patterns: &RefCell<HashMap<String, regex::Regex>>,
    pattern: &str,
    range: &Range<usize>,
) -> Result<regex::Regex, CondError> {
    if let Some(compiled) = patterns.borrow().get(pattern) {
        return Ok(compiled.clone());
    }
    let compiled = regex(pattern, "`matches`", range)?;
    let mut patterns = patterns.borrow_mut();
    // Patterns computed per item could be many: the cache stays small.
    if patterns.len() >= MAX_CACHED_PATTERNS {
        patterns.clear();
    }
    patterns.insert(pattern.to_owned(), compiled.clone());
    Ok(compiled)
}

/// A regular expression (RE2's syntax, as Go's `regexp` that expr uses),
/// its size bounded; `what` names its user in the error.
pub(crate) fn regex(
    pattern: &str,
    what: &str,
    range: &Range<usize>,
) -> Result<regex::Regex, CondError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(MAX_PATTERN_BYTES)
        .build()
        .map_err(|error| {
            // The parser's message draws the pattern over lines; its last
            // line says what is wrong.
            let text = error.to_string();
            let problem = text.lines().last().unwrap_or_default();
            let problem = problem.strip_prefix("error: ").unwrap_or(problem);
            crate::eval_error(
                format!("{what} takes a regular expression: {problem}"),
                range.clone(),
            )
        })
}

/// `**` (a float, as expr's), `..` (the integers from `a` to `b`, both
/// included; none when `b < a`; at most [`MAX_RANGE`]) and `matches` (a
/// string against a regular expression).
fn extended(
    op: BinaryOp,
    a: &Node,
    b: &Node,
    range: Range<usize>,
    budget: &Budget<'_>,
    patterns: &RefCell<HashMap<String, regex::Regex>>,
) -> Result<Node, CondError> {
    let mismatch = || mismatch(op, a, b, range.clone());
    match op {
        BinaryOp::Power => {
            let (x, y) = float(&a.value).zip(float(&b.value)).ok_or_else(mismatch)?;
            let power = x.powf(y);
            if !power.is_finite() {
                return Err(crate::eval_error("the power is not a finite number", range));
            }
            Ok(plain(Value::Float(power)))
        }
        BinaryOp::Range => {
            let (Value::Int(from), Value::Int(to)) = (&a.value, &b.value) else {
                return Err(mismatch());
            };
            let count = to.saturating_sub(*from).saturating_add(1).max(0);
            if count > MAX_RANGE {
                return Err(crate::eval_error(
                    format!("the range has {count} items, more than {MAX_RANGE}"),
                    range,
                ));
            }
            budget.spend(usize::try_from(count).unwrap_or(usize::MAX), &range)?;
            Ok(plain(Value::Seq(
                (*from..=*to).map(|i| plain(Value::Int(i))).collect(),
            )))
        }
        _ => {
            let (Value::String(text), Value::String(pattern)) = (&a.value, &b.value) else {
                return Err(mismatch());
            };
            let regex = cached_regex(patterns, pattern, &range)?;
            Ok(plain(Value::Bool(regex.is_match(text))))
        }
    }
}

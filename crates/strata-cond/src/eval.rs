//! Evaluating an [`Expr`] against the configuration.
//!
//! - A name is a top-level key of the configuration. A missing key anywhere
//!   in a path is `null` (`cluster.endpoint` on a configuration without
//!   `cluster`), and so is an index past the end of a list; reading a field
//!   of a string, number or boolean is an error.
//! - `??` gives its right side when the left is `null` (the right side is
//!   not evaluated otherwise). `&&`, `||` and `!` take booleans and treat
//!   `null` as false; they short-circuit.
//! - `==`/`!=` compare any two values deeply (`1 == 1.0`); `<`, `<=`, `>`,
//!   `>=` compare two numbers or two strings; comparing with `null` is an
//!   error that suggests `??`.
//! - `+` adds numbers or concatenates strings; `-`, `*` take numbers; `/`
//!   always divides as floats (as expr does); `%` takes integers. Integer
//!   overflow and division by zero are errors.
//! - `x in list` is membership, `key in map` a key test, anything `in null`
//!   false; `not in` is the opposite. A negative index counts from the end.
//! - Functions: `values(map)` (the values in key order), `jsonnet(path)`
//!   and `file(path)` (through the [`Host`]).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::ops::Range;

use strata_syntax::{Diagnostic, Node, Span, Value};

use crate::CondError;
use crate::parse::{BinaryOp, Expr, ExprKind, UnaryOp};

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

/// A function expressions may call.
#[derive(Debug, Clone, Copy)]
pub struct Function {
    /// Its name.
    pub name: &'static str,
    /// How it is called.
    pub signature: &'static str,
    /// What it gives.
    pub summary: &'static str,
}

/// The functions there are: for calls, did-you-mean and editors.
pub const FUNCTIONS: &[Function] = &[
    Function {
        name: "values",
        signature: "values(mapping) -> list",
        summary: "the values of a mapping, in the order of its sorted keys",
    },
    Function {
        name: "jsonnet",
        signature: "jsonnet(path: string) -> any",
        summary: "the value of a Jsonnet file, relative to the file the expression is in and confined to the template folder; it reads the context's values as `std.extVar(\"context\")`",
    },
    Function {
        name: "file",
        signature: "file(path: string) -> string",
        summary: "the text of a file, relative to the file the expression is in and confined to the template folder",
    },
    Function {
        name: "len",
        signature: "len(string | list | mapping) -> int",
        summary: "the characters of a string, the items of a list, the keys of a mapping",
    },
    Function {
        name: "keys",
        signature: "keys(mapping) -> list",
        summary: "the keys of a mapping, sorted",
    },
    Function {
        name: "split",
        signature: "split(text: string, separator: string) -> list",
        summary: "the parts of a string between each separator (an empty separator splits into characters)",
    },
    Function {
        name: "join",
        signature: "join(list, separator: string = \"\") -> string",
        summary: "the strings of a list joined by a separator",
    },
    Function {
        name: "upper",
        signature: "upper(string) -> string",
        summary: "a string in upper case",
    },
    Function {
        name: "lower",
        signature: "lower(string) -> string",
        summary: "a string in lower case",
    },
    Function {
        name: "filter",
        signature: "filter(list, predicate) -> list",
        summary: "the items for which the predicate (`#` the item, `.name` its field) is true",
    },
    Function {
        name: "map",
        signature: "map(list, expression) -> list",
        summary: "the expression's value for each item (`#` the item)",
    },
    Function {
        name: "all",
        signature: "all(list, predicate) -> bool",
        summary: "whether the predicate is true for every item",
    },
    Function {
        name: "any",
        signature: "any(list, predicate) -> bool",
        summary: "whether the predicate is true for an item",
    },
    Function {
        name: "none",
        signature: "none(list, predicate) -> bool",
        summary: "whether the predicate is true for no item",
    },
    Function {
        name: "one",
        signature: "one(list, predicate) -> bool",
        summary: "whether the predicate is true for exactly one item",
    },
    Function {
        name: "count",
        signature: "count(list, predicate) -> int",
        summary: "how many items the predicate is true for",
    },
    Function {
        name: "find",
        signature: "find(list, predicate) -> any",
        summary: "the first item the predicate is true for, else null",
    },
    Function {
        name: "findIndex",
        signature: "findIndex(list, predicate) -> int",
        summary: "the index of the first item the predicate is true for, else -1",
    },
    Function {
        name: "trim",
        signature: "trim(string, characters: string = whitespace) -> string",
        summary: "a string without the given characters (whitespace by default) at either end",
    },
];

/// Evaluates `expr` with `scope` (a mapping) as its names.
pub fn evaluate(expr: &Expr, scope: &Node, host: &dyn Host) -> Result<Node, CondError> {
    let items_left = std::cell::Cell::new(MAX_ITEMS);
    let evaluator = Evaluator {
        scope,
        host,
        items_left: &items_left,
        pointer: None,
    };
    evaluator.eval(expr).map(Cow::into_owned)
}

/// expr's functions of a list and a predicate.
const PREDICATES: &[&str] = &[
    "filter",
    "map",
    "all",
    "any",
    "none",
    "one",
    "count",
    "find",
    "findIndex",
];

/// Takes `count` items out of what is left of [`MAX_ITEMS`], or the error
/// at `range` when there are not that many.
fn spend(
    items_left: &std::cell::Cell<i64>,
    count: i64,
    range: &Range<usize>,
) -> Result<(), CondError> {
    if count > items_left.get() {
        return Err(crate::eval_error(
            format!("the expression's lists make more than {MAX_ITEMS} items"),
            range.clone(),
        ));
    }
    items_left.set(items_left.get() - count);
    Ok(())
}

/// The most list items the ranges, splits and maps of one evaluation may make
/// together: a bound on its memory whatever the expression (`[1..100000,
/// 1..100000, ...]`, `split(file("big.txt"), "")`).
pub const MAX_ITEMS: i64 = 1_000_000;

struct Evaluator<'a> {
    scope: &'a Node,
    host: &'a dyn Host,
    /// What is left of [`MAX_ITEMS`], shared with the predicates' own
    /// evaluators.
    items_left: &'a std::cell::Cell<i64>,
    /// The item a predicate is evaluated for (`#`).
    pointer: Option<&'a Node>,
}

fn plain(value: Value) -> Node {
    Node::new(value, Span::default())
}

/// The kind of a value with its article, for messages (`an integer`).
fn kind(node: &Node) -> &'static str {
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
    /// The value of `expr`. Paths into the configuration are followed by
    /// reference: only a value computed along the way is owned, so
    /// `cluster.workers.count` copies nothing but the count.
    fn eval(&self, expr: &Expr) -> Result<Cow<'a, Node>, CondError> {
        let range = expr.range.clone();
        let owned = |value| Ok(Cow::Owned(plain(value)));
        match &expr.kind {
            ExprKind::Null => owned(Value::Null),
            ExprKind::Bool(b) => owned(Value::Bool(*b)),
            ExprKind::Int(i) => owned(Value::Int(*i)),
            ExprKind::Float(f) => owned(Value::Float(*f)),
            ExprKind::String(s) => owned(Value::String(s.clone())),
            ExprKind::List(items) => owned(Value::Seq(
                items
                    .iter()
                    .map(|item| self.eval(item).map(Cow::into_owned))
                    .collect::<Result<_, _>>()?,
            )),
            ExprKind::Name(name) => Ok(self
                .scope
                .get(name)
                .map_or_else(|| Cow::Owned(plain(Value::Null)), Cow::Borrowed)),
            ExprKind::Member(target, name) => {
                let target = self.eval(target)?;
                descend(target, Step::Field(name), range)
            }
            ExprKind::Index(target, index) => {
                let target = self.eval(target)?;
                let index = self.eval(index)?;
                descend(target, Step::Index(&index), range)
            }
            ExprKind::Call(name, arguments) => self.call(name, arguments, range).map(Cow::Owned),
            ExprKind::Pointer => self.pointer.map(Cow::Borrowed).ok_or_else(|| {
                crate::eval_error(
                    "`#` (and `.name`) stands for an item only inside a predicate: `filter(list, # > 1)`",
                    range.clone(),
                )
            }),
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
                            "a condition of `? :` must be true or false, found {}",
                            kind(&decided)
                        ),
                        condition.range.clone(),
                    )),
                }
            }
        }
    }

    fn call(&self, name: &str, arguments: &[Expr], range: Range<usize>) -> Result<Node, CondError> {
        if !FUNCTIONS.iter().any(|function| function.name == name) {
            let names: Vec<String> = FUNCTIONS
                .iter()
                .map(|function| format!("`{}`", function.name))
                .collect();
            let mut error = crate::eval_error(format!("there is no function `{name}`"), range)
                .with_note(format!("the functions are {}", names.join(", ")));
            let names = FUNCTIONS.iter().map(|function| function.name);
            if let Some(near) = strata_syntax::did_you_mean(name, names) {
                error = error.with_help(format!("did you mean `{near}`?"));
            }
            return Err(error);
        }
        if let Some(result) = self.builtin(name, arguments, &range) {
            return result;
        }
        if let Some(result) = self.predicate(name, arguments, &range) {
            return result;
        }
        let [argument] = arguments else {
            return Err(crate::eval_error(
                format!("`{name}` takes one argument, found {}", arguments.len()),
                range,
            ));
        };
        let value = self.eval(argument)?;
        let argument_range = argument.range.clone();
        if name == "values" {
            let Value::Map(entries) = &value.value else {
                return Err(crate::eval_error(
                    format!("`values` takes a mapping, found {}", kind(&value)),
                    argument_range,
                ));
            };
            let mut sorted: Vec<_> = entries.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            return Ok(plain(Value::Seq(
                sorted
                    .into_iter()
                    .map(|(_, entry)| entry.value.clone())
                    .collect(),
            )));
        }
        let Value::String(path) = &value.value else {
            return Err(crate::eval_error(
                format!("`{name}` takes a path string, found {}", kind(&value)),
                argument_range,
            ));
        };
        let result = if name == "jsonnet" {
            self.host.jsonnet(path)
        } else {
            self.host.file(path).map(|text| plain(Value::String(text)))
        };
        result.map_err(|error| crate::host_error(error, range))
    }

    /// expr's functions of a list and a predicate (`filter`, `map`, `all`,
    /// `any`, `none`, `one`, `count`, `find`, `findIndex`): the predicate
    /// evaluated for each item, `#` standing for it; `None` for the others.
    /// A predicate gives true or false (`map`'s, any value).
    fn predicate(
        &self,
        name: &str,
        arguments: &[Expr],
        range: &Range<usize>,
    ) -> Option<Result<Node, CondError>> {
        if !PREDICATES.contains(&name) {
            return None;
        }
        let [list, predicate] = arguments else {
            return Some(Err(crate::eval_error(
                format!(
                    "`{name}` takes a list and a predicate, found {} arguments",
                    arguments.len()
                ),
                range.clone(),
            )));
        };
        Some(self.each(name, list, predicate))
    }

    fn each(&self, name: &str, list: &Expr, predicate: &Expr) -> Result<Node, CondError> {
        let items = self.eval(list)?;
        let Value::Seq(items) = &items.value else {
            return Err(crate::eval_error(
                format!("`{name}` takes a list, found {}", kind(&items)),
                list.range.clone(),
            ));
        };
        let mut kept = Vec::new();
        let mut hits = 0_i64;
        for (index, item) in items.iter().enumerate() {
            let evaluator = Evaluator {
                scope: self.scope,
                host: self.host,
                items_left: self.items_left,
                pointer: Some(item),
            };
            let value = evaluator.eval(predicate)?.into_owned();
            if name == "map" {
                spend(self.items_left, 1, &predicate.range)?;
                kept.push(value);
                continue;
            }
            let Value::Bool(holds) = value.value else {
                return Err(crate::eval_error(
                    format!(
                        "the predicate of `{name}` must be true or false, found {}",
                        kind(&value)
                    ),
                    predicate.range.clone(),
                ));
            };
            if !holds {
                continue;
            }
            hits += 1;
            match name {
                "filter" => kept.push(item.clone()),
                "find" => return Ok(item.clone()),
                "findIndex" => {
                    return Ok(plain(Value::Int(i64::try_from(index).unwrap_or(i64::MAX))));
                }
                _ => {}
            }
        }
        let total = i64::try_from(items.len()).unwrap_or(i64::MAX);
        Ok(plain(match name {
            "map" | "filter" => Value::Seq(kept),
            "all" => Value::Bool(hits == total),
            "any" => Value::Bool(hits > 0),
            "none" => Value::Bool(hits == 0),
            "one" => Value::Bool(hits == 1),
            "count" => Value::Int(hits),
            "findIndex" => Value::Int(-1),
            _ => Value::Null,
        }))
    }

    /// The functions of expr's standard library (`len`, `keys`, `split`,
    /// `join`, `upper`, `lower`, `trim`), with expr's semantics; `None` for
    /// the others. `keys` is sorted, where expr's order is Go's random map
    /// order: Strata's output is deterministic.
    fn builtin(
        &self,
        name: &str,
        arguments: &[Expr],
        range: &Range<usize>,
    ) -> Option<Result<Node, CondError>> {
        let arity = match name {
            "len" | "keys" | "upper" | "lower" => 1..=1,
            "split" => 2..=2,
            "join" | "trim" => 1..=2,
            _ => return None,
        };
        if !arity.contains(&arguments.len()) {
            let wanted = if arity.start() == arity.end() {
                arity.start().to_string()
            } else {
                format!("{} or {}", arity.start(), arity.end())
            };
            return Some(Err(crate::eval_error(
                format!(
                    "`{name}` takes {wanted} arguments, found {}",
                    arguments.len()
                ),
                range.clone(),
            )));
        }
        let mut values = Vec::with_capacity(arguments.len());
        for argument in arguments {
            match self.eval(argument) {
                Ok(value) => values.push((value.into_owned(), argument.range.clone())),
                Err(error) => return Some(Err(error)),
            }
        }
        Some(builtin(name, &values, self.items_left))
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
            BinaryOp::Power | BinaryOp::Range | BinaryOp::Matches => {
                let a = self.eval(left)?;
                let b = self.eval(right)?;
                extended(op, &a, &b, range, self.items_left).map(Cow::Owned)
            }
            _ => {
                let a = self.eval(left)?;
                let b = self.eval(right)?;
                arithmetic(op, &a, &b, range).map(Cow::Owned)
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
    match (&target.value, step) {
        (Value::Null, _) => Ok(None),
        (Value::Map(entries), Step::Field(key)) => Ok(entries.get(key).map(|entry| &entry.value)),
        (
            Value::Map(entries),
            Step::Index(Node {
                value: Value::String(key),
                ..
            }),
        ) => Ok(entries.get(key.as_str()).map(|entry| &entry.value)),
        (
            Value::Seq(items),
            Step::Index(Node {
                value: Value::Int(i),
                ..
            }),
        ) => {
            // A negative index counts from the end, as in expr.
            let position = if *i < 0 {
                i64::try_from(items.len()).ok().map(|len| len + i)
            } else {
                Some(*i)
            };
            Ok(position
                .and_then(|p| usize::try_from(p).ok())
                .and_then(|p| items.get(p)))
        }
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
    match (op, &value.value) {
        (UnaryOp::Not, Value::Bool(b)) => Ok(plain(Value::Bool(!b))),
        (UnaryOp::Not, Value::Null) => Ok(plain(Value::Bool(true))),
        (UnaryOp::Negate, Value::Int(i)) => i
            .checked_neg()
            .map(|i| plain(Value::Int(i)))
            .ok_or_else(|| crate::eval_error("the negation overflows", range)),
        (UnaryOp::Negate, Value::Float(f)) => Ok(plain(Value::Float(-f))),
        (UnaryOp::Not, _) => Err(crate::eval_error(
            format!("`!` takes a boolean, found {}", kind(value)),
            range,
        )),
        (UnaryOp::Negate, _) => Err(crate::eval_error(
            format!("`-` takes a number, found {}", kind(value)),
            range,
        )),
    }
}

/// A number as a float, for mixed arithmetic.
#[expect(
    clippy::cast_precision_loss,
    reason = "mixed arithmetic is float arithmetic"
)]
fn float(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn arithmetic(op: BinaryOp, a: &Node, b: &Node, range: Range<usize>) -> Result<Node, CondError> {
    let overflow = || crate::eval_error(format!("`{}` overflows", op.symbol()), range.clone());
    let mismatch = || {
        let mut error = crate::eval_error(
            format!("`{}` cannot take {} and {}", op.symbol(), kind(a), kind(b)),
            range.clone(),
        );
        if matches!(a.value, Value::Null) || matches!(b.value, Value::Null) {
            error = error.with_help("a missing value is `null`; give a default with `??`");
        }
        error
    };
    let boolean = |b: bool| Ok(plain(Value::Bool(b)));
    match op {
        BinaryOp::Equal => boolean(equal(a, b)),
        BinaryOp::NotEqual => boolean(!equal(a, b)),
        BinaryOp::Less | BinaryOp::LessEqual | BinaryOp::Greater | BinaryOp::GreaterEqual => {
            let ordering = match (&a.value, &b.value) {
                (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
                (x, y) => float(x).zip(float(y)).and_then(|(x, y)| x.partial_cmp(&y)),
            }
            .ok_or_else(mismatch)?;
            boolean(match op {
                BinaryOp::Less => ordering == Ordering::Less,
                BinaryOp::LessEqual => ordering != Ordering::Greater,
                BinaryOp::Greater => ordering == Ordering::Greater,
                _ => ordering != Ordering::Less,
            })
        }
        BinaryOp::In | BinaryOp::NotIn => {
            let found = match &b.value {
                Value::Null => false,
                Value::Seq(items) => items.iter().any(|item| equal(a, item)),
                Value::Map(entries) => match &a.value {
                    Value::String(key) => entries.contains_key(key),
                    _ => return Err(mismatch()),
                },
                _ => return Err(mismatch()),
            };
            boolean(found == (op == BinaryOp::In))
        }
        BinaryOp::Contains | BinaryOp::StartsWith | BinaryOp::EndsWith => {
            text_test(op, a, b).map_or_else(|| Err(mismatch()), boolean)
        }
        BinaryOp::Add => match (&a.value, &b.value) {
            (Value::String(x), Value::String(y)) => Ok(plain(Value::String(format!("{x}{y}")))),
            (Value::Int(x), Value::Int(y)) => x
                .checked_add(*y)
                .map(|v| plain(Value::Int(v)))
                .ok_or_else(overflow),
            (x, y) => float(x)
                .zip(float(y))
                .map(|(x, y)| plain(Value::Float(x + y)))
                .ok_or_else(mismatch),
        },
        BinaryOp::Subtract => match (&a.value, &b.value) {
            (Value::Int(x), Value::Int(y)) => x
                .checked_sub(*y)
                .map(|v| plain(Value::Int(v)))
                .ok_or_else(overflow),
            (x, y) => float(x)
                .zip(float(y))
                .map(|(x, y)| plain(Value::Float(x - y)))
                .ok_or_else(mismatch),
        },
        BinaryOp::Multiply => match (&a.value, &b.value) {
            (Value::Int(x), Value::Int(y)) => x
                .checked_mul(*y)
                .map(|v| plain(Value::Int(v)))
                .ok_or_else(overflow),
            (x, y) => float(x)
                .zip(float(y))
                .map(|(x, y)| plain(Value::Float(x * y)))
                .ok_or_else(mismatch),
        },
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

/// Deep equality; integers and floats compare by value.
#[must_use]
pub fn equal(a: &Node, b: &Node) -> bool {
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

/// A string argument, or an error at it naming what `name` takes.
fn text_argument<'v>(
    name: &str,
    (value, range): &'v (Node, Range<usize>),
) -> Result<&'v str, CondError> {
    value.as_str().ok_or_else(|| {
        crate::eval_error(
            format!("`{name}` takes a string, found {}", kind(value)),
            range.clone(),
        )
    })
}

/// `name` applied to its evaluated `arguments` (their number checked).
fn builtin(
    name: &str,
    arguments: &[(Node, Range<usize>)],
    items_left: &std::cell::Cell<i64>,
) -> Result<Node, CondError> {
    let first = &arguments[0];
    let value = match name {
        "len" => {
            let count = match &first.0.value {
                Value::String(text) => text.chars().count(),
                Value::Seq(items) => items.len(),
                Value::Map(entries) => entries.len(),
                _ => {
                    return Err(crate::eval_error(
                        format!(
                            "`len` takes a string, a list or a mapping, found {}",
                            kind(&first.0)
                        ),
                        first.1.clone(),
                    ));
                }
            };
            Value::Int(i64::try_from(count).unwrap_or(i64::MAX))
        }
        "keys" => {
            let Value::Map(entries) = &first.0.value else {
                return Err(crate::eval_error(
                    format!("`keys` takes a mapping, found {}", kind(&first.0)),
                    first.1.clone(),
                ));
            };
            let mut keys: Vec<&String> = entries.keys().collect();
            keys.sort();
            Value::Seq(
                keys.into_iter()
                    .map(|key| plain(Value::String(key.clone())))
                    .collect(),
            )
        }
        "split" => {
            let text = text_argument(name, first)?;
            let separator = text_argument(name, &arguments[1])?;
            let count = if separator.is_empty() {
                text.chars().count()
            } else {
                text.matches(separator).count() + 1
            };
            let count = i64::try_from(count).unwrap_or(i64::MAX);
            spend(items_left, count, &first.1)?;
            let parts: Vec<Node> = if separator.is_empty() {
                text.chars()
                    .map(|c| plain(Value::String(c.to_string())))
                    .collect()
            } else {
                text.split(separator)
                    .map(|part| plain(Value::String(part.to_owned())))
                    .collect()
            };
            Value::Seq(parts)
        }
        "join" => {
            let Value::Seq(items) = &first.0.value else {
                return Err(crate::eval_error(
                    format!("`join` takes a list, found {}", kind(&first.0)),
                    first.1.clone(),
                ));
            };
            let separator = match arguments.get(1) {
                Some(argument) => text_argument(name, argument)?,
                None => "",
            };
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                let Some(text) = item.as_str() else {
                    return Err(crate::eval_error(
                        format!("`join` takes a list of strings, found {} in it", kind(item)),
                        first.1.clone(),
                    ));
                };
                parts.push(text);
            }
            Value::String(parts.join(separator))
        }
        "upper" => Value::String(text_argument(name, first)?.to_uppercase()),
        "lower" => Value::String(text_argument(name, first)?.to_lowercase()),
        _ => {
            let text = text_argument(name, first)?;
            let trimmed = match arguments.get(1) {
                Some(argument) => {
                    let characters = text_argument(name, argument)?;
                    text.trim_matches(|c| characters.contains(c))
                }
                None => text.trim(),
            };
            Value::String(trimmed.to_owned())
        }
    };
    Ok(plain(value))
}

/// `contains`, `startsWith` or `endsWith` of two strings; `None` for
/// another kind of operand.
fn text_test(op: BinaryOp, a: &Node, b: &Node) -> Option<bool> {
    let (Value::String(text), Value::String(part)) = (&a.value, &b.value) else {
        return None;
    };
    Some(match op {
        BinaryOp::Contains => text.contains(part.as_str()),
        BinaryOp::StartsWith => text.starts_with(part.as_str()),
        _ => text.ends_with(part.as_str()),
    })
}

/// The most items a `..` range may give: a bound on the work and memory
/// one expression may ask for.
pub const MAX_RANGE: i64 = 100_000;

/// The most bytes a `matches` pattern may compile to.
const MAX_PATTERN_BYTES: usize = 1 << 20;

/// `**` (a float, as expr's), `..` (the integers from `a` to `b`, both
/// included; none when `b < a`; at most [`MAX_RANGE`]) and `matches` (a
/// string against a regular expression, RE2's syntax as expr's Go
/// `regexp`).
fn extended(
    op: BinaryOp,
    a: &Node,
    b: &Node,
    range: Range<usize>,
    items_left: &std::cell::Cell<i64>,
) -> Result<Node, CondError> {
    let mismatch = || {
        crate::eval_error(
            format!("`{}` cannot take {} and {}", op.symbol(), kind(a), kind(b)),
            range.clone(),
        )
    };
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
            spend(items_left, count, &range)?;
            Ok(plain(Value::Seq(
                (*from..=*to).map(|i| plain(Value::Int(i))).collect(),
            )))
        }
        _ => {
            let (Value::String(text), Value::String(pattern)) = (&a.value, &b.value) else {
                return Err(mismatch());
            };
            let regex = regex::RegexBuilder::new(pattern)
                .size_limit(MAX_PATTERN_BYTES)
                .build()
                .map_err(|error| {
                    // The parser's message draws the pattern over lines;
                    // its last line says what is wrong.
                    let text = error.to_string();
                    let what = text.lines().last().unwrap_or_default();
                    let what = what.strip_prefix("error: ").unwrap_or(what);
                    crate::eval_error(
                        format!("`matches` takes a regular expression: {what}"),
                        range.clone(),
                    )
                })?;
            Ok(plain(Value::Bool(regex.is_match(text))))
        }
    }
}

//! expr's builtin functions (v1.17, its `docs/language-definition.md`)
//! that take values, with expr's semantics, and Windsor's `jsonnet` and
//! `file`; the functions of a list and a predicate are in
//! [`crate::predicates`], dates and durations in [`crate::time`].
//!
//! Where expr follows Go, so does Strata: `string(v)` writes `v` as Go's
//! `%v` does (`1e+06`, `[1 2]`, `map[a:1]`), `toJSON` as Go's
//! `json.MarshalIndent(v, "", "  ")` (sorted keys, `<>&` escaped),
//! `fromJSON` reads every number as a float, `split(s, sep, n)` is Go's
//! `SplitN`. Where Go's order is random (`keys`, `values`, `toPairs`), the
//! keys are sorted: the result is the same on every run.

use std::cmp::Ordering;
use std::ops::Range;

use base64::Engine as _;
use strata_syntax::{Mapping, Node, Value};

use crate::CondError;
use crate::eval::{Budget, Evaluator, equal, float, kind, order, plain, position};
use crate::go::{from_json, go_json, go_string};

/// A function expressions may call.
#[derive(Debug, Clone, Copy)]
pub struct Function {
    /// Its name.
    pub name: &'static str,
    /// How it is called.
    pub signature: &'static str,
    /// What it gives.
    pub summary: &'static str,
    /// The fewest arguments it takes.
    pub min_arguments: usize,
    /// The most arguments it takes.
    pub max_arguments: usize,
    /// Which part of the evaluator runs it.
    pub(crate) group: Group,
}

/// The families of functions, each run by one part of the evaluator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    /// Windsor's, answered by the [`crate::Host`].
    Host,
    Strings,
    Numbers,
    /// A list and a predicate ([`crate::predicates`]): the only ones whose
    /// arguments are not evaluated before the call.
    Predicate,
    /// Lists and mappings.
    Lists,
    Conversions,
    Bits,
    /// Dates, durations and zones ([`crate::time`]).
    Time,
}

const fn function(
    group: Group,
    name: &'static str,
    (min_arguments, max_arguments): (usize, usize),
    signature: &'static str,
    summary: &'static str,
) -> Function {
    Function {
        name,
        signature,
        summary,
        min_arguments,
        max_arguments,
        group,
    }
}

/// The function called `name`.
pub(crate) fn lookup(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|function| function.name == name)
}

/// As many arguments as given.
const ANY: usize = usize::MAX;

/// The functions there are: for calls, did-you-mean and editors.
#[rustfmt::skip]
pub const FUNCTIONS: &[Function] = &[
    // Windsor's.
    function(Group::Host, "jsonnet", (1, 1), "jsonnet(path: string) -> any", "the value of a Jsonnet file, relative to the file the expression is in and confined to the template folder; it reads the context's values as `std.extVar(\"context\")`"),
    function(Group::Host, "file", (1, 1), "file(path: string) -> string", "the text of a file, relative to the file the expression is in and confined to the template folder"),
    // Strings.
    function(Group::Strings, "trim", (1, 2), "trim(string, characters: string = whitespace) -> string", "a string without the given characters (whitespace by default) at either end"),
    function(Group::Strings, "trimPrefix", (1, 2), "trimPrefix(string, prefix: string = \" \") -> string", "a string without the prefix, if it starts with it"),
    function(Group::Strings, "trimSuffix", (1, 2), "trimSuffix(string, suffix: string = \" \") -> string", "a string without the suffix, if it ends with it"),
    function(Group::Strings, "upper", (1, 1), "upper(string) -> string", "a string in upper case"),
    function(Group::Strings, "lower", (1, 1), "lower(string) -> string", "a string in lower case"),
    function(Group::Strings, "split", (2, 3), "split(string, separator: string, n: int = -1) -> list", "the parts of a string between each separator (an empty separator splits into characters); with `n` > 0 at most `n` parts, the last one the rest"),
    function(Group::Strings, "splitAfter", (2, 3), "splitAfter(string, separator: string, n: int = -1) -> list", "as `split`, each part keeping its separator"),
    function(Group::Strings, "replace", (3, 4), "replace(string, old: string, new: string, n: int = -1) -> string", "a string with `old` replaced by `new` (the first `n` times when `n` is given)"),
    function(Group::Strings, "repeat", (2, 2), "repeat(string, n: int) -> string", "a string repeated `n` times"),
    function(Group::Strings, "indexOf", (2, 2), "indexOf(string, part: string) -> int", "where the part first starts, in characters, or -1"),
    function(Group::Strings, "lastIndexOf", (2, 2), "lastIndexOf(string, part: string) -> int", "where the part last starts, in characters, or -1"),
    function(Group::Strings, "hasPrefix", (2, 2), "hasPrefix(string, prefix: string) -> bool", "whether the string starts with the prefix"),
    function(Group::Strings, "hasSuffix", (2, 2), "hasSuffix(string, suffix: string) -> bool", "whether the string ends with the suffix"),
    // Numbers.
    function(Group::Numbers, "max", (1, ANY), "max(number | list, ...) -> number", "the largest of the numbers (lists are searched)"),
    function(Group::Numbers, "min", (1, ANY), "min(number | list, ...) -> number", "the smallest of the numbers (lists are searched)"),
    function(Group::Numbers, "abs", (1, 1), "abs(number) -> number", "the number without its sign"),
    function(Group::Numbers, "ceil", (1, 1), "ceil(number) -> float", "the least whole number not below it"),
    function(Group::Numbers, "floor", (1, 1), "floor(number) -> float", "the greatest whole number not above it"),
    function(Group::Numbers, "round", (1, 1), "round(number) -> float", "the nearest whole number, halves away from zero"),
    function(Group::Numbers, "mean", (1, ANY), "mean(number | list, ...) -> float", "the average of the numbers (0 for none)"),
    function(Group::Numbers, "median", (1, ANY), "median(number | list, ...) -> float", "the median of the numbers (0 for none)"),
    // Lists and predicates.
    function(Group::Predicate, "all", (2, 2), "all(list, predicate) -> bool", "whether the predicate (`#` the item, `.name` its field) is true for every item"),
    function(Group::Predicate, "any", (2, 2), "any(list, predicate) -> bool", "whether the predicate is true for an item"),
    function(Group::Predicate, "one", (2, 2), "one(list, predicate) -> bool", "whether the predicate is true for exactly one item"),
    function(Group::Predicate, "none", (2, 2), "none(list, predicate) -> bool", "whether the predicate is true for no item"),
    function(Group::Predicate, "map", (2, 2), "map(list, expression) -> list", "the expression's value for each item (`#` the item, `#index` its index)"),
    function(Group::Predicate, "filter", (2, 2), "filter(list, predicate) -> list", "the items for which the predicate is true"),
    function(Group::Predicate, "find", (2, 2), "find(list, predicate) -> any", "the first item the predicate is true for, else null"),
    function(Group::Predicate, "findIndex", (2, 2), "findIndex(list, predicate) -> int", "the index of the first item the predicate is true for, else -1"),
    function(Group::Predicate, "findLast", (2, 2), "findLast(list, predicate) -> any", "the last item the predicate is true for, else null"),
    function(Group::Predicate, "findLastIndex", (2, 2), "findLastIndex(list, predicate) -> int", "the index of the last item the predicate is true for, else -1"),
    function(Group::Predicate, "groupBy", (2, 2), "groupBy(list, expression) -> mapping", "the items in lists under the expression's value for each (as text)"),
    function(Group::Predicate, "count", (1, 2), "count(list, predicate = #) -> int", "how many items the predicate is true for (without one, how many are `true`)"),
    function(Group::Lists, "concat", (1, ANY), "concat(list, list, ...) -> list", "the lists one after the other"),
    function(Group::Lists, "flatten", (1, 1), "flatten(list) -> list", "the items of nested lists in one list"),
    function(Group::Lists, "uniq", (1, 1), "uniq(list) -> list", "the items without repeats, first ones kept"),
    function(Group::Lists, "join", (1, 2), "join(list, separator: string = \"\") -> string", "the strings of a list joined by a separator"),
    function(Group::Predicate, "reduce", (2, 3), "reduce(list, expression, initial = first item) -> any", "the list folded into one value: `#acc` the value so far, `#` the item, `#index` its index"),
    function(Group::Predicate, "sum", (1, 2), "sum(list, expression = #) -> number", "the sum of the numbers (or of the expression for each item)"),
    function(Group::Lists, "first", (1, 1), "first(list) -> any", "the first item, or null"),
    function(Group::Lists, "last", (1, 1), "last(list) -> any", "the last item, or null"),
    function(Group::Lists, "take", (2, 2), "take(list, n: int) -> list", "the first `n` items"),
    function(Group::Lists, "reverse", (1, 1), "reverse(list) -> list", "the items in reverse order"),
    function(Group::Lists, "sort", (1, 2), "sort(list, order: \"asc\" | \"desc\" = \"asc\") -> list", "the numbers or strings in order"),
    function(Group::Predicate, "sortBy", (2, 3), "sortBy(list, expression, order: \"asc\" | \"desc\" = \"asc\") -> list", "the items ordered by the expression's value for each (stable)"),
    // Mappings.
    function(Group::Lists, "keys", (1, 1), "keys(mapping) -> list", "the keys of a mapping, sorted"),
    function(Group::Lists, "values", (1, 1), "values(mapping) -> list", "the values of a mapping, in the order of its sorted keys"),
    function(Group::Lists, "toPairs", (1, 1), "toPairs(mapping) -> list", "the `[key, value]` pairs of a mapping, in the order of its sorted keys"),
    function(Group::Lists, "fromPairs", (1, 1), "fromPairs(list) -> mapping", "a mapping of `[key, value]` pairs"),
    // Conversions.
    function(Group::Conversions, "type", (1, 1), "type(any) -> string", "`nil`, `bool`, `int`, `float`, `string`, `array`, `map`, `time.Time` or `time.Duration`"),
    function(Group::Conversions, "int", (1, 1), "int(number | string) -> int", "an integer: a float truncated, a decimal string read"),
    function(Group::Conversions, "float", (1, 1), "float(number | string) -> float", "a float: a number converted, a string read"),
    function(Group::Conversions, "string", (1, 1), "string(any) -> string", "the value as Go's `%v` writes it"),
    function(Group::Conversions, "toJSON", (1, 1), "toJSON(any) -> string", "the value as indented JSON"),
    function(Group::Conversions, "fromJSON", (1, 1), "fromJSON(string) -> any", "the value of a JSON text (every number a float)"),
    function(Group::Conversions, "toBase64", (1, 1), "toBase64(string) -> string", "the string in standard Base64"),
    function(Group::Conversions, "fromBase64", (1, 1), "fromBase64(string) -> string", "the text of a standard Base64 string"),
    // Miscellaneous.
    function(Group::Conversions, "len", (1, 1), "len(string | list | mapping) -> int", "the characters of a string, the items of a list, the keys of a mapping"),
    function(Group::Conversions, "get", (2, 2), "get(list | mapping, index | key) -> any", "the item at an index or under a key, or null"),
    // Bits.
    function(Group::Bits, "bitand", (2, 2), "bitand(int, int) -> int", "bitwise and"),
    function(Group::Bits, "bitor", (2, 2), "bitor(int, int) -> int", "bitwise or"),
    function(Group::Bits, "bitxor", (2, 2), "bitxor(int, int) -> int", "bitwise exclusive or"),
    function(Group::Bits, "bitnand", (2, 2), "bitnand(int, int) -> int", "bitwise and not"),
    function(Group::Bits, "bitnot", (1, 1), "bitnot(int) -> int", "bitwise not"),
    function(Group::Bits, "bitshl", (2, 2), "bitshl(int, n: int) -> int", "shifted left by `n` bits"),
    function(Group::Bits, "bitshr", (2, 2), "bitshr(int, n: int) -> int", "shifted right by `n` bits, keeping the sign"),
    function(Group::Bits, "bitushr", (2, 2), "bitushr(int, n: int) -> int", "shifted right by `n` bits as an unsigned number"),
    // Dates.
    function(Group::Time, "now", (0, 1), "now() -> date", "refused: a composed blueprint must not depend on when it was composed"),
    function(Group::Time, "duration", (1, 1), "duration(string) -> duration", "a duration written as Go writes them (`1h30m`, `250ms`)"),
    function(Group::Time, "date", (1, 3), "date(string, layout: string = any common one, timezone: string = \"UTC\") -> date", "a date read from text, with Go's layout (`2006-01-02`) when given"),
    function(Group::Time, "timezone", (1, 1), "timezone(name: string) -> string", "a time zone of the IANA database, checked (for `date` and `.In`)"),
];

/// An argument and where it is written.
pub(crate) type Argument = (Node, Range<usize>);

/// The error of a wrong argument: `` `name` takes what, found kind ``.
pub(crate) fn wrong(name: &str, what: &str, (value, range): &Argument) -> CondError {
    crate::eval_error(
        format!("`{name}` takes {what}, found {}", kind(value)),
        range.clone(),
    )
}

/// A string argument.
pub(crate) fn text<'v>(name: &str, argument: &'v Argument) -> Result<&'v str, CondError> {
    argument
        .0
        .as_str()
        .ok_or_else(|| wrong(name, "a string", argument))
}

/// An integer argument.
pub(crate) fn integer(name: &str, argument: &Argument) -> Result<i64, CondError> {
    match argument.0.value {
        Value::Int(i) => Ok(i),
        _ => Err(wrong(name, "an integer", argument)),
    }
}

/// A list argument.
pub(crate) fn list<'v>(name: &str, argument: &'v Argument) -> Result<&'v [Node], CondError> {
    argument
        .0
        .as_seq()
        .ok_or_else(|| wrong(name, "a list", argument))
}

fn mapping<'v>(name: &str, argument: &'v Argument) -> Result<&'v Mapping, CondError> {
    argument
        .0
        .as_map()
        .ok_or_else(|| wrong(name, "a mapping", argument))
}

/// The entries of a mapping in the order of their keys.
pub(crate) fn sorted(entries: &Mapping) -> Vec<(&String, &Node)> {
    let mut sorted: Vec<_> = entries
        .iter()
        .map(|(key, entry)| (key, &entry.value))
        .collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    sorted
}

fn count_of(count: usize) -> Value {
    Value::Int(i64::try_from(count).unwrap_or(i64::MAX))
}

/// Checks the number of arguments of `function`.
pub(crate) fn check_arity(
    function: &Function,
    given: usize,
    range: &Range<usize>,
) -> Result<(), CondError> {
    if (function.min_arguments..=function.max_arguments).contains(&given) {
        return Ok(());
    }
    let wanted = match (function.min_arguments, function.max_arguments) {
        (min, max) if min == max => format!("{min}"),
        (min, ANY) => format!("at least {min}"),
        (min, max) if max == min + 1 => format!("{min} or {max}"),
        (min, max) => format!("{min} to {max}"),
    };
    Err(crate::eval_error(
        format!(
            "`{}` takes {wanted} argument{}, found {given}",
            function.name,
            if wanted == "1" { "" } else { "s" }
        ),
        range.clone(),
    )
    .with_note(format!("`{}`", function.signature)))
}

/// `function` (not a predicate one) applied to its evaluated `arguments`.
pub(crate) fn call(
    evaluator: &Evaluator<'_>,
    function: &Function,
    arguments: &[Argument],
    range: Range<usize>,
) -> Result<Node, CondError> {
    check_arity(function, arguments.len(), &range)?;
    let budget = evaluator.budget();
    let name = function.name;
    match function.group {
        Group::Host => host(evaluator, name, arguments, &budget, range),
        Group::Strings => strings(name, arguments, &budget, range),
        Group::Numbers => numbers(name, arguments, range),
        Group::Lists => lists(name, arguments, &budget, range),
        Group::Conversions => conversions(name, arguments, &budget, range),
        Group::Bits => Ok(plain(Value::Int(bits(name, arguments)?))),
        Group::Time => crate::time::call(name, arguments, range),
        Group::Predicate => {
            unreachable!("predicates are called before their arguments are evaluated")
        }
    }
}

/// Windsor's functions, answered by the host.
fn host(
    evaluator: &Evaluator<'_>,
    name: &str,
    arguments: &[Argument],
    budget: &Budget<'_>,
    range: Range<usize>,
) -> Result<Node, CondError> {
    match name {
        "jsonnet" => {
            let path = text(name, &arguments[0])?;
            evaluator
                .host
                .jsonnet(path)
                .map_err(|error| crate::host_error(error, range))
        }
        "file" => {
            let path = text(name, &arguments[0])?;
            let contents = evaluator
                .host
                .file(path)
                .map_err(|error| crate::host_error(error, range.clone()))?;
            budget.text(contents, &range)
        }
        _ => unreachable!("`{name}` is not Windsor's"),
    }
}

/// The string functions.
fn strings(
    name: &str,
    arguments: &[Argument],
    budget: &Budget<'_>,
    range: Range<usize>,
) -> Result<Node, CondError> {
    let first = &arguments[0];
    let second = arguments.get(1);
    let value = match name {
        "trim" => {
            let input = text(name, first)?;
            Value::String(match second {
                Some(characters) => {
                    let characters = text(name, characters)?;
                    input.trim_matches(|c| characters.contains(c)).to_owned()
                }
                None => input.trim().to_owned(),
            })
        }
        "trimPrefix" | "trimSuffix" => {
            let input = text(name, first)?;
            let part = match second {
                Some(part) => text(name, part)?,
                None => " ",
            };
            let trimmed = if name == "trimPrefix" {
                input.strip_prefix(part)
            } else {
                input.strip_suffix(part)
            };
            Value::String(trimmed.unwrap_or(input).to_owned())
        }
        "upper" => Value::String(text(name, first)?.to_uppercase()),
        "lower" => Value::String(text(name, first)?.to_lowercase()),
        "split" | "splitAfter" => {
            let limit = match arguments.get(2) {
                Some(n) => integer(name, n)?,
                None => -1,
            };
            let parts = split(
                text(name, first)?,
                text(name, &arguments[1])?,
                limit,
                name == "splitAfter",
            );
            budget.spend(parts.len(), &range)?;
            Value::Seq(
                parts
                    .into_iter()
                    .map(|part| plain(Value::String(part.to_owned())))
                    .collect(),
            )
        }
        "replace" => {
            let input = text(name, first)?;
            let old = text(name, &arguments[1])?;
            let new = text(name, &arguments[2])?;
            let replaced = match arguments.get(3) {
                Some(n) => match usize::try_from(integer(name, n)?) {
                    Ok(n) => input.replacen(old, new, n),
                    Err(_) => input.replace(old, new),
                },
                None => input.replace(old, new),
            };
            return budget.text(replaced, &range);
        }
        "repeat" => {
            let input = text(name, first)?;
            let times = integer(name, &arguments[1])?;
            let Ok(times) = usize::try_from(times) else {
                return Err(wrong(name, "a count that is not negative", &arguments[1]));
            };
            if input.len().saturating_mul(times) > crate::eval::MAX_TEXT {
                return Err(crate::eval_error(
                    format!(
                        "the string would be longer than {} bytes",
                        crate::eval::MAX_TEXT
                    ),
                    range,
                ));
            }
            return budget.text(input.repeat(times), &range);
        }
        "indexOf" | "lastIndexOf" => {
            let input = text(name, first)?;
            let part = text(name, &arguments[1])?;
            let found = if name == "indexOf" {
                input.find(part)
            } else {
                input.rfind(part)
            };
            Value::Int(found.map_or(-1, |at| {
                i64::try_from(input[..at].chars().count()).unwrap_or(i64::MAX)
            }))
        }
        "hasPrefix" => Value::Bool(text(name, first)?.starts_with(text(name, &arguments[1])?)),
        "hasSuffix" => Value::Bool(text(name, first)?.ends_with(text(name, &arguments[1])?)),
        _ => unreachable!("`call` sends only the strings here"),
    };
    Ok(plain(value))
}

/// The number functions.
fn numbers(name: &str, arguments: &[Argument], range: Range<usize>) -> Result<Node, CondError> {
    let first = &arguments[0];
    let value = match name {
        "max" | "min" => return extreme(name, arguments),
        "abs" => match first.0.value {
            Value::Int(i) => Value::Int(
                i.checked_abs()
                    .ok_or_else(|| crate::eval_error("`abs` overflows", range.clone()))?,
            ),
            Value::Float(f) => Value::Float(f.abs()),
            _ => return Err(wrong(name, "a number", first)),
        },
        "ceil" | "floor" | "round" => {
            let number = float(&first.0.value).ok_or_else(|| wrong(name, "a number", first))?;
            Value::Float(match name {
                "ceil" => number.ceil(),
                "floor" => number.floor(),
                _ => number.round(),
            })
        }
        "mean" | "median" => {
            let mut numbers: Vec<f64> = numbers_in(name, arguments)?
                .into_iter()
                .filter_map(|number| float(&number.value))
                .collect();
            Value::Float(if numbers.is_empty() {
                0.0
            } else if name == "mean" {
                numbers.iter().sum::<f64>() / float(&count_of(numbers.len())).unwrap_or(1.0)
            } else {
                numbers.sort_by(f64::total_cmp);
                let middle = numbers.len() / 2;
                if numbers.len() % 2 == 1 {
                    numbers[middle]
                } else {
                    f64::midpoint(numbers[middle - 1], numbers[middle])
                }
            })
        }
        _ => unreachable!("`call` sends only the numbers here"),
    };
    Ok(plain(value))
}

/// The list and mapping functions that take no predicate.
fn lists(
    name: &str,
    arguments: &[Argument],
    budget: &Budget<'_>,
    range: Range<usize>,
) -> Result<Node, CondError> {
    let first = &arguments[0];
    let second = arguments.get(1);
    let value = match name {
        "concat" => {
            let mut items = Vec::new();
            for argument in arguments {
                let part = list(name, argument)?;
                budget.spend(part.len(), &range)?;
                items.extend_from_slice(part);
            }
            Value::Seq(items)
        }
        "flatten" => {
            let mut items = Vec::new();
            flatten(list(name, first)?, &mut items, budget, &range)?;
            Value::Seq(items)
        }
        "uniq" => {
            let mut kept: Vec<Node> = Vec::new();
            for item in list(name, first)? {
                if !kept.iter().any(|seen| equal(seen, item)) {
                    kept.push(item.clone());
                }
            }
            Value::Seq(kept)
        }
        "join" => {
            let items = list(name, first)?;
            let separator = match second {
                Some(separator) => text(name, separator)?,
                None => "",
            };
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                let Some(part) = item.as_str() else {
                    return Err(crate::eval_error(
                        format!("`join` takes a list of strings, found {} in it", kind(item)),
                        first.1.clone(),
                    ));
                };
                parts.push(part);
            }
            return budget.text(parts.join(separator), &range);
        }
        "first" | "last" => {
            let items = list(name, first)?;
            let item = if name == "first" {
                items.first()
            } else {
                items.last()
            };
            return Ok(item.cloned().unwrap_or_else(|| plain(Value::Null)));
        }
        "take" => {
            let items = list(name, first)?;
            let n = integer(name, &arguments[1])?;
            let n = usize::try_from(n).unwrap_or(0).min(items.len());
            Value::Seq(items[..n].to_vec())
        }
        "reverse" => Value::Seq(list(name, first)?.iter().rev().cloned().collect()),
        "sort" => {
            let mut items = list(name, first)?.to_vec();
            let descending = descending(name, second)?;
            sort_by_keys(name, &mut items, None, descending, &first.1)?;
            Value::Seq(items)
        }
        "keys" => Value::Seq(
            sorted(mapping(name, first)?)
                .into_iter()
                .map(|(key, _)| plain(Value::String(key.clone())))
                .collect(),
        ),
        "values" => Value::Seq(
            sorted(mapping(name, first)?)
                .into_iter()
                .map(|(_, value)| value.clone())
                .collect(),
        ),
        "toPairs" => Value::Seq(
            sorted(mapping(name, first)?)
                .into_iter()
                .map(|(key, value)| {
                    plain(Value::Seq(vec![
                        plain(Value::String(key.clone())),
                        value.clone(),
                    ]))
                })
                .collect(),
        ),
        "fromPairs" => Value::Map(from_pairs(list(name, first)?, &first.1)?),
        _ => unreachable!("`call` sends only the lists here"),
    };
    Ok(plain(value))
}

/// The conversions, `len` and `get`.
fn conversions(
    name: &str,
    arguments: &[Argument],
    budget: &Budget<'_>,
    range: Range<usize>,
) -> Result<Node, CondError> {
    let first = &arguments[0];
    let value = match name {
        "type" => Value::String(type_name(&first.0).to_owned()),
        "int" => Value::Int(to_int(first)?),
        "float" => Value::Float(to_float(first)?),
        "string" => return budget.text(go_string(&first.0), &range),
        "toJSON" => return budget.text(go_json(&first.0), &range),
        "fromJSON" => return from_json(text(name, first)?, &first.1),
        "toBase64" => {
            let encoded = base64::engine::general_purpose::STANDARD.encode(text(name, first)?);
            return budget.text(encoded, &range);
        }
        "fromBase64" => {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(text(name, first)?)
                .map_err(|error| {
                    crate::eval_error(format!("`fromBase64`: {error}"), first.1.clone())
                })?;
            let decoded = String::from_utf8(decoded).map_err(|_| {
                crate::eval_error(
                    "`fromBase64` gives bytes that are not UTF-8 text",
                    first.1.clone(),
                )
            })?;
            Value::String(decoded)
        }
        "len" => count_of(match &first.0.value {
            Value::String(text) => text.chars().count(),
            Value::Seq(items) => items.len(),
            Value::Map(entries) => entries.len(),
            _ => return Err(wrong(name, "a string, a list or a mapping", first)),
        }),
        "get" => return Ok(get(&first.0, &arguments[1].0)),
        _ => unreachable!("`call` sends only the conversions here"),
    };
    Ok(plain(value))
}

/// Go's `SplitN`/`SplitAfterN`: `limit` < 0 every part, 0 none, else at
/// most `limit` parts (the last one the rest).
fn split<'t>(input: &'t str, separator: &str, limit: i64, keep: bool) -> Vec<&'t str> {
    if limit == 0 {
        return Vec::new();
    }
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut parts = Vec::new();
    let mut rest = input;
    while parts.len() + 1 < limit {
        let found = if separator.is_empty() {
            rest.chars()
                .next()
                .filter(|_| !rest.is_empty())
                .map(|c| (c.len_utf8(), 0))
        } else {
            rest.find(separator).map(|at| (at, separator.len()))
        };
        let Some((at, width)) = found else { break };
        if separator.is_empty() && at == rest.len() {
            break;
        }
        let end = if keep { at + width } else { at };
        parts.push(&rest[..end]);
        rest = &rest[at + width..];
    }
    parts.push(rest);
    parts
}

/// `max`/`min` of numbers and lists of numbers (searched deeply): the
/// number itself, integer or float; `null` for none.
fn extreme(name: &str, arguments: &[Argument]) -> Result<Node, CondError> {
    let wanted = if name == "max" {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    let mut best: Option<&Node> = None;
    for node in numbers_in(name, arguments)? {
        if best.is_none_or(|best| order(node, best) == Some(wanted)) {
            best = Some(node);
        }
    }
    Ok(best.cloned().unwrap_or_else(|| plain(Value::Null)))
}

/// The numbers of `arguments`, in order, lists searched; the error at the
/// first thing that is not a number.
fn numbers_in<'n>(name: &str, arguments: &'n [Argument]) -> Result<Vec<&'n Node>, CondError> {
    let mut numbers = Vec::new();
    let mut stack: Vec<(&Node, &Range<usize>)> =
        arguments.iter().rev().map(|(n, r)| (n, r)).collect();
    while let Some((node, range)) = stack.pop() {
        match &node.value {
            Value::Seq(items) => stack.extend(items.iter().rev().map(|item| (item, range))),
            Value::Int(_) | Value::Float(_) => numbers.push(node),
            _ => {
                return Err(crate::eval_error(
                    format!(
                        "`{name}` takes numbers and lists of numbers, found {}",
                        kind(node)
                    ),
                    range.clone(),
                ));
            }
        }
    }
    Ok(numbers)
}

fn flatten(
    items: &[Node],
    into: &mut Vec<Node>,
    budget: &crate::eval::Budget<'_>,
    range: &Range<usize>,
) -> Result<(), CondError> {
    for item in items {
        if let Value::Seq(inner) = &item.value {
            flatten(inner, into, budget, range)?;
        } else {
            budget.spend(1, range)?;
            into.push(item.clone());
        }
    }
    Ok(())
}

/// Whether an order argument asks for descending order (`"asc"` or
/// `"desc"`).
pub(crate) fn descending(name: &str, order: Option<&Argument>) -> Result<bool, CondError> {
    match order {
        None => Ok(false),
        Some(argument) => match text(name, argument)? {
            "asc" => Ok(false),
            "desc" => Ok(true),
            other => Err(crate::eval_error(
                format!("`{name}`'s order is \"asc\" or \"desc\", found {other:?}"),
                argument.1.clone(),
            )),
        },
    }
}

/// Sorts `items` (stably) by `keys` (the items themselves when `None`):
/// numbers, strings, dates or durations, all of one kind.
pub(crate) fn sort_by_keys(
    name: &str,
    items: &mut Vec<Node>,
    keys: Option<Vec<Node>>,
    descending: bool,
    range: &Range<usize>,
) -> Result<(), CondError> {
    let keys = keys.unwrap_or_else(|| items.clone());
    // Every key must order against the first (and so against each other).
    if let Some(first) = keys.first()
        && let Some(other) = keys.iter().find(|key| order(first, key).is_none())
    {
        return Err(crate::eval_error(
            format!(
                "`{name}` orders numbers, strings, dates or durations of one kind, found {} and {}",
                kind(first),
                kind(other)
            ),
            range.clone(),
        ));
    }
    let mut indexed: Vec<(Node, Node)> = keys.into_iter().zip(std::mem::take(items)).collect();
    indexed.sort_by(|(a, _), (b, _)| {
        let ordering = order(a, b).unwrap_or(Ordering::Equal);
        if descending {
            ordering.reverse()
        } else {
            ordering
        }
    });
    *items = indexed.into_iter().map(|(_, item)| item).collect();
    Ok(())
}

fn from_pairs(pairs: &[Node], range: &Range<usize>) -> Result<Mapping, CondError> {
    let mut mapping = Mapping::default();
    for pair in pairs {
        let Some([key, value]) = pair
            .as_seq()
            .and_then(|pair| <&[Node; 2]>::try_from(pair).ok())
        else {
            return Err(crate::eval_error(
                format!(
                    "`fromPairs` takes a list of [key, value] pairs, found {} in it",
                    kind(pair)
                ),
                range.clone(),
            ));
        };
        let key = match &key.value {
            Value::String(text) => text.clone(),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => go_string(key),
            _ => {
                return Err(crate::eval_error(
                    format!(
                        "`fromPairs` takes keys that are strings, found {}",
                        kind(key)
                    ),
                    range.clone(),
                ));
            }
        };
        mapping.insert(
            key,
            strata_syntax::Entry {
                key_span: strata_syntax::Span::default(),
                value: value.clone(),
            },
        );
    }
    Ok(mapping)
}

/// `type(v)`: expr's names of the kinds.
fn type_name(node: &Node) -> &'static str {
    if crate::time::is_date(node) {
        return "time.Time";
    }
    if crate::time::is_duration(node) {
        return "time.Duration";
    }
    match node.value {
        Value::Null => "nil",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::String(_) => "string",
        Value::Seq(_) => "array",
        Value::Map(_) => "map",
    }
}

#[expect(
    clippy::cast_possible_truncation,
    reason = "int() truncates a float, as Go's conversion does"
)]
fn to_int(argument: &Argument) -> Result<i64, CondError> {
    match &argument.0.value {
        Value::Int(i) => Ok(*i),
        Value::Float(f) if f.is_finite() && f.abs() < 9.2e18 => Ok(f.trunc() as i64),
        Value::String(text) => text.parse::<i64>().map_err(|_| {
            crate::eval_error(
                format!("`int` cannot read {text:?} as an integer"),
                argument.1.clone(),
            )
        }),
        _ => Err(wrong("int", "a number or a string", argument)),
    }
}

fn to_float(argument: &Argument) -> Result<f64, CondError> {
    match &argument.0.value {
        Value::String(text) => text
            .replace('_', "")
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .ok_or_else(|| {
                crate::eval_error(
                    format!("`float` cannot read {text:?} as a number"),
                    argument.1.clone(),
                )
            }),
        value => float(value).ok_or_else(|| wrong("float", "a number or a string", argument)),
    }
}

/// `get(list, index)`, `get(mapping, key)`: `null` when absent.
fn get(target: &Node, index: &Node) -> Node {
    let found = match (&target.value, &index.value) {
        (Value::Seq(items), Value::Int(i)) => {
            position(*i, items.len()).and_then(|at| items.get(at))
        }
        (Value::Map(entries), Value::String(key)) => entries.get(key).map(|entry| &entry.value),
        _ => None,
    };
    found.cloned().unwrap_or_else(|| plain(Value::Null))
}

fn bits(name: &str, arguments: &[Argument]) -> Result<i64, CondError> {
    let x = integer(name, &arguments[0])?;
    if name == "bitnot" {
        return Ok(!x);
    }
    let y = integer(name, &arguments[1])?;
    let shift = || {
        u32::try_from(y).map_err(|_| {
            crate::eval_error(
                format!("`{name}` cannot shift by a negative count {y}"),
                arguments[1].1.clone(),
            )
        })
    };
    Ok(match name {
        "bitand" => x & y,
        "bitor" => x | y,
        "bitxor" => x ^ y,
        "bitnand" => x & !y,
        "bitshl" => x.checked_shl(shift()?).unwrap_or(0),
        "bitshr" => x
            .checked_shr(shift()?)
            .unwrap_or(if x < 0 { -1 } else { 0 }),
        _ => {
            #[expect(
                clippy::cast_sign_loss,
                clippy::cast_possible_wrap,
                reason = "an unsigned shift reads the bits as unsigned, as Go's uint(x) >> y"
            )]
            let shifted = (x as u64).checked_shr(shift()?).unwrap_or(0) as i64;
            shifted
        }
    })
}

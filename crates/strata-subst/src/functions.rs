//! The 50 core functions of the Blueprint Specification v2023-04-20, and
//! function values.
//!
//! Each [`Def`] states its parameters with their [`Types`] (checked before
//! evaluation where the argument types are known, and again when called),
//! its result type and a one-line summary. Semantics worth knowing:
//!
//! - Strings are counted in characters, not bytes: `len`, `substr`,
//!   `index`, `last_index`.
//! - `substr(s, start, end?)`: `end` is exclusive and defaults to the end;
//!   a negative, reversed or out-of-range index is an error.
//! - `split(s, "")` splits into characters (as Go's `strings.Split`).
//! - `fromjson(json, pointer)`: the document's root must be an object; the
//!   pointer is RFC 6901, as `/a/b` or in URI-fragment form `#/a/b`
//!   (percent-decoded); a pointer that finds nothing is an error.
//! - `keys` and `vals` keep the mapping's order.
//! - `eq` is deep equality; an integer and a float compare numerically
//!   (`eq(1, 1.0)` is true); any other mix of types is an error. `gt`,
//!   `ge`, `lt`, `le` take integers and floats, mixed.
//! - `list` takes arguments of one type (integers and floats mix).
//! - Function values: a function written bare where a function is expected
//!   (`map(xs, trim)`), a `_g` variant with its static arguments bound
//!   (`split_g(",")` is the function `x -> split(x, ",")`), `getattr`,
//!   `getelem`, `compose` (right to left) and `pipe` (left to right). A
//!   function value given more arguments than it takes (`map` passes the
//!   item and its index) uses the first ones.
//! - Evaluation is bounded: a value weighs at most [`MAX_VALUE_BYTES`] and
//!   nests at most [`MAX_VALUE_DEPTH`] deep; a call that would exceed
//!   either is an error, found before the value is built.
//! - `datetime(format)`: the current time in UTC as `unix`, `rfc3339`
//!   (`2006-01-02T15:04:05Z`), `tag` (`2006-01-02--15-04-05`) or
//!   `tagcompact` (`20060102150405`).
//!
//! This module holds what every function shares (the table of [`Def`]s,
//! calling with arguments checked, the budget a call spends) and the
//! bodies live by topic, as a standard library is split: `strings`,
//! `collections`, `logic` (booleans, equality, comparisons), `values`
//! (function values and access) and `system` (`cwd`, `datetime`).

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::eval::Env;
use crate::types::Types;
use crate::value::Value;

mod collections;
mod logic;
mod strings;
mod system;
mod values;

use collections::{filter, flatmap, keys, list, map, object, reduce, sort, vals};
use logic::{and, eq, ge, gt, le, lt, not, or};
use strings::{
    contains, fromjson, has_prefix, has_suffix, index, join, jsondecode, last_index, len, replace,
    split, substr, to_lower, to_upper, trim, trimprefix, trimsuffix,
};
use system::{cwd, datetime};
use values::{compose, getattr, getelem, link, pipe};

/// A parameter of a function.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Its name, for signatures and messages.
    pub name: &'static str,
    /// The types it takes.
    pub types: Types,
    /// Whether it may be left out (only trailing parameters).
    pub optional: bool,
}

const fn param(name: &'static str, types: Types) -> Param {
    Param {
        name,
        types,
        optional: false,
    }
}

const fn optional(name: &'static str, types: Types) -> Param {
    Param {
        name,
        types,
        optional: true,
    }
}

/// How a function computes its result.
#[derive(Clone, Copy)]
enum Body {
    /// From its arguments.
    Eval(fn(&Args<'_>) -> Result<Value, Fail>),
    /// A `_g` variant: the named function with these arguments bound after
    /// its first.
    Partial(&'static str),
}

/// A core function.
pub struct Def {
    /// Its name.
    pub name: &'static str,
    /// Its positional parameters.
    pub params: &'static [Param],
    /// Further arguments of one kind (`list`, `compose`, `pipe`).
    pub rest: Option<Param>,
    /// Whether it takes named arguments instead (`object`).
    pub named: bool,
    /// What it returns.
    pub returns: Types,
    /// What it does, in one line.
    pub summary: &'static str,
    body: Body,
}

impl fmt::Debug for Def {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Def({})", self.name)
    }
}

impl Def {
    /// How many positional arguments it needs.
    #[must_use]
    pub fn required(&self) -> usize {
        self.params.iter().filter(|param| !param.optional).count()
    }

    /// How many positional arguments it takes, `None` when unbounded.
    #[must_use]
    pub fn maximum(&self) -> Option<usize> {
        if self.rest.is_some() {
            None
        } else {
            Some(self.params.len())
        }
    }

    /// The parameter an argument at `index` is given for.
    #[must_use]
    pub fn param(&self, index: usize) -> Option<&Param> {
        self.params.get(index).or(self.rest.as_ref())
    }

    /// `substr(text: string, start: integer, end?: integer) -> string`.
    #[must_use]
    pub fn signature(&self) -> String {
        let mut params: Vec<String> = self
            .params
            .iter()
            .map(|param| {
                let mark = if param.optional { "?" } else { "" };
                format!("{}{mark}: {}", param.name, param.types)
            })
            .collect();
        if let Some(rest) = &self.rest {
            params.push(format!("{}...: {}", rest.name, rest.types));
        }
        if self.named {
            params.push("name = value...".to_owned());
        }
        format!("{}({}) -> {}", self.name, params.join(", "), self.returns)
    }
}

/// A function value.
#[derive(Debug, Clone)]
pub enum Function {
    /// A core function written bare (`trim`).
    Core(&'static Def),
    /// A core function with the arguments after its first bound
    /// (`split_g(",")`).
    Partial {
        /// The function.
        def: &'static Def,
        /// Its arguments after the first.
        bound: Vec<Value>,
    },
    /// `getattr(name)`.
    Attr(String),
    /// `getelem(index)`.
    Elem(usize),
    /// `compose(f, g)`: `g` first.
    Compose(Vec<Function>),
    /// `pipe(f, g)`: `f` first.
    Pipe(Vec<Function>),
}

impl PartialEq for Function {
    fn eq(&self, other: &Function) -> bool {
        match (self, other) {
            (Function::Core(a), Function::Core(b)) => a.name == b.name,
            (Function::Partial { def: a, bound: x }, Function::Partial { def: b, bound: y }) => {
                a.name == b.name && x == y
            }
            (Function::Attr(a), Function::Attr(b)) => a == b,
            (Function::Elem(a), Function::Elem(b)) => a == b,
            (Function::Compose(a), Function::Compose(b))
            | (Function::Pipe(a), Function::Pipe(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Function::Core(def) => f.write_str(def.name),
            Function::Partial { def, .. } => write!(f, "{}_g(..)", def.name),
            Function::Attr(name) => write!(f, "getattr(\"{name}\")"),
            Function::Elem(index) => write!(f, "getelem({index})"),
            Function::Compose(_) => f.write_str("compose(..)"),
            Function::Pipe(_) => f.write_str("pipe(..)"),
        }
    }
}

/// Why a call gave no value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fail {
    /// An argument is known only after deployment.
    Pending(Arc<str>),
    /// The call failed; `argument` is the position of the argument at
    /// fault, when one is. `withheld` says the same without the values it
    /// was given (their text, length, positions or keys), for a call whose
    /// arguments hold secret material; `None` when `message` quotes none.
    Error {
        message: String,
        withheld: Option<String>,
        argument: Option<usize>,
    },
}

impl Fail {
    /// With `message`, said without the values, for secret arguments.
    fn withholding(self, message: impl Into<String>) -> Fail {
        match self {
            Fail::Error {
                message: shown,
                argument,
                ..
            } => Fail::Error {
                message: shown,
                withheld: Some(message.into()),
                argument,
            },
            pending @ Fail::Pending(_) => pending,
        }
    }
}

fn fail(message: impl Into<String>) -> Fail {
    Fail::Error {
        message: message.into(),
        withheld: None,
        argument: None,
    }
}

fn fail_at(argument: usize, message: impl Into<String>) -> Fail {
    Fail::Error {
        message: message.into(),
        withheld: None,
        argument: Some(argument),
    }
}

/// The arguments of one call.
pub(crate) struct Args<'a> {
    pub(crate) name: &'static str,
    pub(crate) values: Vec<Value>,
    pub(crate) named: IndexMap<String, Value>,
    pub(crate) env: &'a dyn Env,
}

impl Args<'_> {
    fn get(&self, index: usize) -> Result<&Value, Fail> {
        self.values
            .get(index)
            .ok_or_else(|| fail(format!("`{}` is missing argument {}", self.name, index + 1)))
    }

    fn wrong(&self, index: usize, expected: &str, found: &Value) -> Fail {
        fail_at(
            index,
            format!(
                "argument {} of `{}` must be {expected}, found {}",
                index + 1,
                self.name,
                found.types()
            ),
        )
    }

    fn string(&self, index: usize) -> Result<&str, Fail> {
        match self.get(index)? {
            Value::String(text) => Ok(text),
            other => Err(self.wrong(index, "a string", other)),
        }
    }

    fn int(&self, index: usize) -> Result<i64, Fail> {
        match self.get(index)? {
            Value::Int(value) => Ok(*value),
            other => Err(self.wrong(index, "an integer", other)),
        }
    }

    fn boolean(&self, index: usize) -> Result<bool, Fail> {
        match self.get(index)? {
            Value::Bool(value) => Ok(*value),
            other => Err(self.wrong(index, "a boolean", other)),
        }
    }

    fn array(&self, index: usize) -> Result<&[Value], Fail> {
        match self.get(index)? {
            Value::Array(items) => Ok(items),
            other => Err(self.wrong(index, "an array", other)),
        }
    }

    fn object(&self, index: usize) -> Result<&IndexMap<String, Value>, Fail> {
        match self.get(index)? {
            Value::Object(fields) => Ok(fields),
            other => Err(self.wrong(index, "an object", other)),
        }
    }

    fn function(&self, index: usize) -> Result<&Function, Fail> {
        match self.get(index)? {
            Value::Function(function) => Ok(function),
            other => Err(self.wrong(index, "a function", other)),
        }
    }

    fn number(&self, index: usize) -> Result<Number, Fail> {
        match self.get(index)? {
            Value::Int(value) => Ok(Number::Int(*value)),
            Value::Float(value) => Ok(Number::Float(*value)),
            other => Err(self.wrong(index, "an integer or a float", other)),
        }
    }

    /// Applies the function at `index` to `args`; its failure is reported
    /// at that argument.
    fn apply(&self, index: usize, args: Vec<Value>, what: &str) -> Result<Value, Fail> {
        let function = self.function(index)?;
        apply(function, args, self.env).map_err(|failure| match failure {
            Fail::Error {
                message, withheld, ..
            } => {
                let withheld = format!(
                    "the function given to `{}` failed: {}",
                    self.name,
                    withheld.as_deref().unwrap_or(&message)
                );
                fail_at(index, format!("{function} failed {what}: {message}")).withholding(withheld)
            }
            pending @ Fail::Pending(_) => pending,
        })
    }
}

/// Applies a function value to `args` (a step of evaluation).
pub(crate) fn apply(function: &Function, args: Vec<Value>, env: &dyn Env) -> Result<Value, Fail> {
    env.steps().spend(1).map_err(fail)?;
    match function {
        Function::Core(def) => {
            let mut args = args;
            if let Some(max) = def.maximum() {
                args.truncate(max);
            }
            call(def, args, IndexMap::new(), env)
        }
        Function::Partial { def, bound } => {
            let mut all: Vec<Value> = args.into_iter().take(1).collect();
            all.extend(bound.iter().cloned());
            call(def, all, IndexMap::new(), env)
        }
        Function::Attr(name) => match args.into_iter().next() {
            Some(Value::Object(mut fields)) => fields.shift_remove(name).ok_or_else(|| {
                fail(format!("the object has no attribute `{name}`"))
                    .withholding("the object has no such attribute")
            }),
            Some(other) => Err(fail(format!(
                "getattr(\"{name}\") takes an object, found {}",
                other.types()
            ))
            .withholding(format!("getattr takes an object, found {}", other.types()))),
            None => Err(fail("getattr needs a value")),
        },
        Function::Elem(index) => match args.into_iter().next() {
            Some(Value::Array(items)) => {
                let len = items.len();
                items.into_iter().nth(*index).ok_or_else(|| {
                    fail(format!(
                        "index {index} is out of range for an array of {len}"
                    ))
                    .withholding("the index is out of range for the array")
                })
            }
            Some(other) => Err(fail(format!(
                "getelem({index}) takes an array, found {}",
                other.types()
            ))
            .withholding(format!("getelem takes an array, found {}", other.types()))),
            None => Err(fail("getelem needs a value")),
        },
        Function::Compose(functions) => {
            let mut functions = functions.iter().rev();
            let first = functions
                .next()
                .ok_or_else(|| fail("compose of no function"))?;
            functions.try_fold(apply(first, args, env)?, |value, function| {
                apply(function, vec![value], env)
            })
        }
        Function::Pipe(functions) => {
            let mut functions = functions.iter();
            let first = functions
                .next()
                .ok_or_else(|| fail("pipe of no function"))?;
            functions.try_fold(apply(first, args, env)?, |value, function| {
                apply(function, vec![value], env)
            })
        }
    }
}

/// Calls `def` with evaluated arguments: checks their count and types, then
/// runs it. An argument that is known only after deployment makes the call
/// pending.
pub(crate) fn call(
    def: &'static Def,
    values: Vec<Value>,
    named: IndexMap<String, Value>,
    env: &dyn Env,
) -> Result<Value, Fail> {
    if let Some(what) = values.iter().chain(named.values()).find_map(Value::unknown) {
        return Err(Fail::Pending(what.clone()));
    }
    if values.len() < def.required() || def.maximum().is_some_and(|max| values.len() > max) {
        return Err(fail(format!(
            "`{}` takes {}, given {}",
            def.name,
            arity_text(def),
            values.len()
        )));
    }
    for (index, value) in values.iter().enumerate() {
        if let Some(param) = def.param(index)
            && !param.types.meets(value.types())
        {
            return Err(fail_at(
                index,
                format!(
                    "argument {} (`{}`) of `{}` must be {}, found {}",
                    index + 1,
                    param.name,
                    def.name,
                    param.types,
                    value.types()
                ),
            ));
        }
    }
    let mut budget = Budget::default();
    for value in values.iter().chain(named.values()) {
        budget.add(value).map_err(fail)?;
    }
    // A call's work is its arguments and its result, each weighed once.
    env.steps().spend(budget.steps()).map_err(fail)?;
    match def.body {
        Body::Eval(body) => {
            let result = body(&Args {
                name: def.name,
                values,
                named,
                env,
            })?;
            let mut weighed = Budget::default();
            weighed.add(&result).map_err(fail)?;
            env.steps().spend(weighed.steps()).map_err(fail)?;
            Ok(result)
        }
        Body::Partial(base) => {
            let def = lookup(base).ok_or_else(|| fail(format!("no function `{base}`")))?;
            Ok(Value::Function(Function::Partial { def, bound: values }))
        }
    }
}

/// The most a value may weigh (each item 32 bytes, plus the bytes of its
/// strings): no input makes evaluation exhaust memory.
pub const MAX_VALUE_BYTES: usize = 16 * 1024 * 1024;
/// The deepest a value may nest (each call adds at most one level).
pub const MAX_VALUE_DEPTH: usize = 128;

/// What the values of one call weigh, against [`MAX_VALUE_BYTES`] and
/// [`MAX_VALUE_DEPTH`]. Every call's arguments and result are weighed, and
/// the functions whose result can outgrow their arguments (`replace`,
/// `join`, `map`, `flatmap`) weigh it before building it.
#[derive(Default)]
struct Budget {
    used: usize,
}

/// How many bytes a value weighs per step of evaluation it costs (its
/// nodes weigh 32 bytes each, its strings their length): a copy of it is
/// one step a node, and one per 32 bytes of text.
pub(crate) const BYTES_PER_STEP: usize = 32;

impl Budget {
    fn add(&mut self, value: &Value) -> Result<(), String> {
        self.weigh(value, 0)
    }

    /// The steps of evaluation what was weighed costs.
    fn steps(&self) -> u64 {
        u64::try_from(self.used / BYTES_PER_STEP).unwrap_or(u64::MAX)
    }

    fn reserve(&mut self, bytes: usize) -> Result<(), String> {
        self.used = self.used.saturating_add(bytes);
        if self.used > MAX_VALUE_BYTES {
            return Err(format!(
                "the value would take more than {} MiB: evaluation is bounded",
                MAX_VALUE_BYTES >> 20
            ));
        }
        Ok(())
    }

    fn weigh(&mut self, value: &Value, depth: usize) -> Result<(), String> {
        if depth > MAX_VALUE_DEPTH {
            return Err(format!(
                "the value nests deeper than {MAX_VALUE_DEPTH} levels: evaluation is bounded"
            ));
        }
        self.reserve(BYTES_PER_STEP)?;
        match value {
            Value::String(text) => self.reserve(text.len()),
            Value::Array(items) => items
                .iter()
                .try_for_each(|item| self.weigh(item, depth + 1)),
            Value::Object(fields) => fields.iter().try_for_each(|(key, item)| {
                self.reserve(key.len())?;
                self.weigh(item, depth + 1)
            }),
            _ => Ok(()),
        }
    }
}

/// `2 arguments`, `1 to 2 arguments`, `at least 1 argument`.
#[must_use]
pub fn arity_text(def: &Def) -> String {
    let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
    let required = def.required();
    match def.maximum() {
        None => format!("at least {required} {}", plural(required)),
        Some(max) if max == required => format!("{max} {}", plural(max)),
        Some(max) => format!("{required} to {max} {}", plural(max)),
    }
}

/// The function named `name`.
#[must_use]
pub fn lookup(name: &str) -> Option<&'static Def> {
    FUNCTIONS.iter().find(|def| def.name == name)
}

/// Every core function, in the order of the specification's table.
#[must_use]
pub fn all() -> &'static [Def] {
    &FUNCTIONS
}

/// A number argument.
#[derive(Clone, Copy)]
enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    fn compare(self, other: Number) -> Option<Ordering> {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => Some(a.cmp(&b)),
            (a, b) => a.as_f64().partial_cmp(&b.as_f64()),
        }
    }

    #[expect(
        clippy::cast_precision_loss,
        reason = "comparing an integer with a float is done in floating point, as the specification's numeric comparison"
    )]
    fn as_f64(self) -> f64 {
        match self {
            Number::Int(value) => value as f64,
            Number::Float(value) => value,
        }
    }
}

const S: Types = Types::STRING;
const I: Types = Types::INTEGER;
const B: Types = Types::BOOLEAN;
const A: Types = Types::ARRAY;
const O: Types = Types::OBJECT;
const F: Types = Types::FUNCTION;
const ANY: Types = Types::ANY;
const NUM: Types = Types::NUMBER;

macro_rules! def {
    ($name:literal, [$($param:expr),*], $returns:expr, $summary:literal, $body:expr) => {
        Def {
            name: $name,
            params: &[$($param),*],
            rest: None,
            named: false,
            returns: $returns,
            summary: $summary,
            body: $body,
        }
    };
}

static FUNCTIONS: [Def; 50] = [
    def!(
        "fromjson",
        [param("json", S), param("pointer", S)],
        ANY,
        "the value at an RFC 6901 pointer (`/a/b` or `#/a/b`) of a JSON object",
        Body::Eval(fromjson)
    ),
    def!(
        "fromjson_g",
        [param("pointer", S)],
        F,
        "composable fromjson: a function of the JSON string",
        Body::Partial("fromjson")
    ),
    def!(
        "jsondecode",
        [param("json", S)],
        ANY,
        "decodes a JSON string into a primitive, array or mapping",
        Body::Eval(jsondecode)
    ),
    def!(
        "len",
        [param("value", S.or(A).or(O))],
        I,
        "the characters of a string, the items of an array, the pairs of a mapping",
        Body::Eval(len)
    ),
    def!(
        "substr",
        [param("text", S), param("start", I), optional("end", I)],
        S,
        "the characters from start (inclusive) to end (exclusive, default: the end)",
        Body::Eval(substr)
    ),
    def!(
        "substr_g",
        [param("start", I), optional("end", I)],
        F,
        "composable substr: a function of the string",
        Body::Partial("substr")
    ),
    def!(
        "replace",
        [
            param("text", S),
            param("search", S),
            param("replacement", S)
        ],
        S,
        "replaces every occurrence of search",
        Body::Eval(replace)
    ),
    def!(
        "replace_g",
        [param("search", S), param("replacement", S)],
        F,
        "composable replace: a function of the string",
        Body::Partial("replace")
    ),
    def!(
        "trim",
        [param("text", S)],
        S,
        "strips leading and trailing whitespace",
        Body::Eval(trim)
    ),
    def!(
        "trimprefix",
        [param("text", S), param("prefix", S)],
        S,
        "removes the prefix if present",
        Body::Eval(trimprefix)
    ),
    def!(
        "trimprefix_g",
        [param("prefix", S)],
        F,
        "composable trimprefix: a function of the string",
        Body::Partial("trimprefix")
    ),
    def!(
        "trimsuffix",
        [param("text", S), param("suffix", S)],
        S,
        "removes the suffix if present",
        Body::Eval(trimsuffix)
    ),
    def!(
        "trimsuffix_g",
        [param("suffix", S)],
        F,
        "composable trimsuffix: a function of the string",
        Body::Partial("trimsuffix")
    ),
    def!(
        "split",
        [param("text", S), param("delimiter", S)],
        A,
        "splits into an array of strings (an empty delimiter splits into characters)",
        Body::Eval(split)
    ),
    def!(
        "split_g",
        [param("delimiter", S)],
        F,
        "composable split: a function of the string",
        Body::Partial("split")
    ),
    def!(
        "join",
        [param("items", A), param("delimiter", S)],
        S,
        "joins an array of strings with the delimiter",
        Body::Eval(join)
    ),
    def!(
        "index",
        [param("text", S), param("search", S)],
        I,
        "the character position of the first occurrence, -1 if none",
        Body::Eval(index)
    ),
    def!(
        "last_index",
        [param("text", S), param("search", S)],
        I,
        "the character position of the last occurrence, -1 if none",
        Body::Eval(last_index)
    ),
    def!(
        "to_upper",
        [param("text", S)],
        S,
        "the text in upper case",
        Body::Eval(to_upper)
    ),
    def!(
        "to_lower",
        [param("text", S)],
        S,
        "the text in lower case",
        Body::Eval(to_lower)
    ),
    def!(
        "has_prefix",
        [param("text", S), param("prefix", S)],
        B,
        "whether the text starts with the prefix",
        Body::Eval(has_prefix)
    ),
    def!(
        "has_prefix_g",
        [param("prefix", S)],
        F,
        "composable has_prefix: a function of the string",
        Body::Partial("has_prefix")
    ),
    def!(
        "has_suffix",
        [param("text", S), param("suffix", S)],
        B,
        "whether the text ends with the suffix",
        Body::Eval(has_suffix)
    ),
    def!(
        "has_suffix_g",
        [param("suffix", S)],
        F,
        "composable has_suffix: a function of the string",
        Body::Partial("has_suffix")
    ),
    def!(
        "contains",
        [param("haystack", S.or(A)), param("needle", ANY)],
        B,
        "whether a string holds a substring, or an array an item",
        Body::Eval(contains)
    ),
    def!(
        "contains_g",
        [param("needle", ANY)],
        F,
        "composable contains: a function of the string or array",
        Body::Partial("contains")
    ),
    Def {
        name: "list",
        params: &[],
        rest: Some(param("item", ANY)),
        named: false,
        returns: A,
        summary: "the arguments, all of one type, as an array",
        body: Body::Eval(list),
    },
    Def {
        name: "object",
        params: &[],
        rest: None,
        named: true,
        returns: O,
        summary: "a mapping from the named arguments (`object(a = 1, b = \"x\")`)",
        body: Body::Eval(object),
    },
    def!(
        "keys",
        [param("mapping", O)],
        A,
        "the keys, in the mapping's order",
        Body::Eval(keys)
    ),
    def!(
        "vals",
        [param("mapping", O)],
        A,
        "the values, in the mapping's order",
        Body::Eval(vals)
    ),
    def!(
        "map",
        [param("items", A), param("function", F)],
        A,
        "applies the function (item, index?) to each item",
        Body::Eval(map)
    ),
    def!(
        "filter",
        [param("items", A), param("function", F)],
        A,
        "keeps the items for which the function (item) is true",
        Body::Eval(filter)
    ),
    def!(
        "reduce",
        [
            param("items", A),
            param("function", F),
            param("initial", ANY)
        ],
        ANY,
        "folds left: the function (accumulator, item, index?) from the initial value",
        Body::Eval(reduce)
    ),
    def!(
        "sort",
        [param("items", A), param("function", F)],
        A,
        "a sorted copy by the comparator (a, b) giving a negative, zero or positive integer",
        Body::Eval(sort)
    ),
    def!(
        "flatmap",
        [param("items", A), param("function", F)],
        A,
        "applies the function (item, index?), which gives arrays, and flattens one level",
        Body::Eval(flatmap)
    ),
    Def {
        name: "compose",
        params: &[param("function", F)],
        rest: Some(param("function", F)),
        named: false,
        returns: F,
        summary: "the functions composed right to left",
        body: Body::Eval(compose),
    },
    Def {
        name: "pipe",
        params: &[param("function", F)],
        rest: Some(param("function", F)),
        named: false,
        returns: F,
        summary: "the functions composed left to right",
        body: Body::Eval(pipe),
    },
    def!(
        "getattr",
        [param("name", S)],
        F,
        "a function extracting the named attribute of an object",
        Body::Eval(getattr)
    ),
    def!(
        "getelem",
        [param("index", I)],
        F,
        "a function extracting the item at the index of an array",
        Body::Eval(getelem)
    ),
    def!(
        "link",
        [param("from", S), param("to", S)],
        O,
        "the state of the link between two resources (bare names name resources)",
        Body::Eval(link)
    ),
    def!(
        "and",
        [param("a", B), param("b", B)],
        B,
        "logical and",
        Body::Eval(and)
    ),
    def!(
        "or",
        [param("a", B), param("b", B)],
        B,
        "logical or",
        Body::Eval(or)
    ),
    def!(
        "not",
        [param("value", B)],
        B,
        "logical not",
        Body::Eval(not)
    ),
    def!(
        "eq",
        [param("a", ANY), param("b", ANY)],
        B,
        "deep equality (integers and floats compare numerically; other mixes are errors)",
        Body::Eval(eq)
    ),
    def!(
        "gt",
        [param("a", NUM), param("b", NUM)],
        B,
        "a > b",
        Body::Eval(gt)
    ),
    def!(
        "ge",
        [param("a", NUM), param("b", NUM)],
        B,
        "a >= b",
        Body::Eval(ge)
    ),
    def!(
        "lt",
        [param("a", NUM), param("b", NUM)],
        B,
        "a < b",
        Body::Eval(lt)
    ),
    def!(
        "le",
        [param("a", NUM), param("b", NUM)],
        B,
        "a <= b",
        Body::Eval(le)
    ),
    def!(
        "cwd",
        [],
        S,
        "the working directory of the tool",
        Body::Eval(cwd)
    ),
    def!(
        "datetime",
        [param("format", S)],
        S,
        "the current time in UTC as unix, rfc3339, tag (2006-01-02--15-04-05) or tagcompact (20060102150405)",
        Body::Eval(datetime)
    ),
];

/// The formats `datetime` takes.
pub const DATETIME_FORMATS: [&str; 4] = ["unix", "rfc3339", "tag", "tagcompact"];

//! Evaluating field texts against an environment of known values.
//!
//! - A text that is exactly one `${..}` gives the substitution's value,
//!   whatever its type; any other text gives a string: the literal text
//!   with each substitution's value written in (strings as they are,
//!   numbers and booleans as written, `null` as nothing). An array or a
//!   mapping inside an interpolation is an error, as is a function value
//!   where a value is expected.
//! - References are answered by an [`Env`]: the value referred to, "known
//!   after deploy" ([`Lookup::Pending`]), or missing. Accessors then read
//!   into the value: `.name` and `["name"]` into mappings, `[n]` and `[]`
//!   (the first item) into arrays.
//! - A result that depends on something known only after deployment is
//!   [`Failure::Pending`], naming what it waits on
//!   (`resources.orders.state.arn`), not an error.
//! - Evaluation is deterministic: the environment is the only input
//!   (`cwd()` and `datetime()` ask it too).
//! - Secrets: a reference the environment calls secret ([`Env::secret`])
//!   taints what is computed from it. An error of an expression whose
//!   inputs are tainted says what went wrong without the values (no text,
//!   length, position or key of them: a function's withheld message, no
//!   did-you-mean of a secret object's keys), with a note saying why.
//! - Evaluation is bounded in work, not only in value sizes: every
//!   expression node, every function application and every node a
//!   reference copies or a call weighs is a step of the environment's
//!   [`Steps`]; past its limit, evaluation fails with `subst/step-limit`.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use indexmap::IndexMap;

use crate::ast::{Accessor, Call, Expr, ExprKind, Literal, Part, Reference, Template};
use crate::functions::{self, BYTES_PER_STEP, Def, Fail, Function};
use crate::types::Types;
use crate::value::Value;
use crate::{SubstError, codes};

/// What a reference finds.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The value.
    Known(Value),
    /// A value the environment keeps and shares: the reference's accessors
    /// read it in place, and only what they lead to is copied (a reference
    /// into a large value does not copy the value).
    Shared(Arc<Value>),
    /// What the reference's first `read` accessors lead to, kept and
    /// shared by the environment: the accessors after them read it in
    /// place. An environment that evaluates only the part of a large value
    /// a reference reads (one field of a resource's `spec`) gives this.
    SharedBelow {
        /// The value below the accessors read.
        value: Arc<Value>,
        /// How many of the reference's accessors lead to `value`.
        read: usize,
    },
    /// Known only after deployment.
    Pending,
    /// Nothing: the message says why.
    Missing(String),
}

/// The note an error about secret material carries.
pub const WITHHELD_NOTE: &str =
    "the values involved are not shown: the expression reads secret material";

/// The evaluation steps one render may take, shared by all its
/// evaluations through [`Env::steps`]: an expression node, a function
/// application, a node of a value a reference copies or a call weighs,
/// each one step. Quadratic or exponential blueprints (an `each` over
/// 60,000 items whose instances each copy the 60,000 items; a `map` with
/// a `compose` of 10,000 functions) end in an error within seconds.
#[derive(Debug)]
pub struct Steps {
    left: AtomicU64,
    limit: u64,
}

impl Steps {
    /// The default limit: ten million steps, about a second of evaluation
    /// and at most some hundreds of megabytes of values copied (a
    /// generated blueprint of 10,000 resources, 6.7 MB, takes 1.5 million).
    pub const DEFAULT_LIMIT: u64 = 10_000_000;

    /// A budget of `limit` steps.
    #[must_use]
    pub const fn new(limit: u64) -> Steps {
        Steps {
            left: AtomicU64::new(limit),
            limit,
        }
    }

    /// Takes `steps` from the budget; past its end, why evaluation stops
    /// (and every later spending fails too).
    pub fn spend(&self, steps: u64) -> Result<(), String> {
        let spent = self
            .left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(steps)
            });
        if spent.is_ok() {
            return Ok(());
        }
        self.left.store(0, Ordering::Relaxed);
        Err(format!(
            "evaluation took more than {} steps: the blueprint asks for too much work (a value copied into every instance of a large `each`, a long `compose` applied to many items)",
            self.limit
        ))
    }

    /// Whether the budget has run out.
    #[must_use]
    pub fn exhausted(&self) -> bool {
        self.left.load(Ordering::Relaxed) == 0
    }

    /// The steps taken so far.
    #[must_use]
    pub fn used(&self) -> u64 {
        self.limit - self.left.load(Ordering::Relaxed)
    }
}

impl Default for Steps {
    fn default() -> Steps {
        Steps::new(Steps::DEFAULT_LIMIT)
    }
}

/// The values a substitution can refer to.
pub trait Env {
    /// The value a reference's root names, before its accessors: a
    /// variable's or value's value, a data source's exported field, a
    /// child's exports as a mapping, a resource as a mapping of `spec`,
    /// `metadata` and `state` (an array of them for an `each` resource),
    /// the current `each` item or index.
    fn reference(&self, reference: &Reference) -> Lookup;

    /// Whether what `reference` reads is secret material (a secret
    /// variable, or something computed from one): errors about what is
    /// computed from it withhold the values.
    fn secret(&self, reference: &Reference) -> bool {
        let _ = reference;
        false
    }

    /// The render's evaluation budget.
    fn steps(&self) -> &Steps;

    /// The state of the link between two resources.
    fn link(&self, from: &str, to: &str) -> Lookup {
        let _ = (from, to);
        Lookup::Pending
    }

    /// The working directory, for `cwd()`.
    fn cwd(&self) -> Result<String, String>;

    /// The current time as seconds since the Unix epoch, for `datetime()`.
    fn now_unix(&self) -> i64;
}

/// Why evaluation gave no value.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The value is known only after deployment; says what it waits on.
    Pending(Arc<str>),
    /// Evaluation failed.
    Error(SubstError),
}

impl From<SubstError> for Failure {
    fn from(error: SubstError) -> Failure {
        Failure::Error(error)
    }
}

/// The value of a field text.
pub fn evaluate(template: &Template, env: &dyn Env) -> Result<Value, Failure> {
    if let Some(single) = template.as_single() {
        let value = evaluate_expr(&single.expr, env)?;
        return value_of_field(value, single.range.clone());
    }
    let mut text = String::new();
    for part in &template.parts {
        match part {
            Part::Text { text: literal, .. } => text.push_str(literal),
            Part::Substitution(substitution) => {
                let value = evaluate_expr(&substitution.expr, env)?;
                let value = value_of_field(value, substitution.range.clone())?;
                match value {
                    Value::Array(_) | Value::Object(_) => {
                        return Err(SubstError::new(
                            codes::COMPLEX_INTERPOLATION,
                            format!(
                                "`{}` is {} inside a string: only strings, numbers and booleans can be interpolated",
                                substitution.expr,
                                a_type(value.types())
                            ),
                            substitution.range.clone(),
                        )
                        .into());
                    }
                    scalar => text.push_str(&scalar.to_string()),
                }
            }
        }
    }
    Ok(Value::String(text))
}

/// A field's value must be a value: not a function, not partly unknown.
fn value_of_field(value: Value, range: Range<usize>) -> Result<Value, Failure> {
    if let Value::Function(function) = &value {
        return Err(SubstError::new(
            codes::FUNCTION_VALUE,
            format!("`{function}` is a function: a field needs a value"),
            range,
        )
        .into());
    }
    if let Some(what) = value.unknown() {
        return Err(Failure::Pending(what.clone()));
    }
    Ok(value)
}

fn a_type(types: Types) -> String {
    let name = types.to_string();
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

/// The value of one expression.
pub fn evaluate_expr(expr: &Expr, env: &dyn Env) -> Result<Value, Failure> {
    evaluate_tainted(expr, env).map(|tainted| tainted.value)
}

/// A value, and whether secret material went into it.
struct Tainted {
    value: Value,
    secret: bool,
}

fn step_limit(message: String, range: Range<usize>) -> Failure {
    SubstError::new(codes::STEP_LIMIT, message, range).into()
}

/// How many steps a copy of `value` costs: a step a node, and one per
/// [`BYTES_PER_STEP`] bytes of its strings and keys (as a call weighs its
/// arguments).
fn weight(value: &Value) -> u64 {
    let bytes = |text: &str| u64::try_from(text.len() / BYTES_PER_STEP).unwrap_or(u64::MAX);
    1 + match value {
        Value::String(text) => bytes(text),
        Value::Array(items) => items.iter().map(weight).sum(),
        Value::Object(fields) => fields
            .iter()
            .map(|(key, item)| bytes(key) + weight(item))
            .sum(),
        _ => 0,
    }
}

fn evaluate_tainted(expr: &Expr, env: &dyn Env) -> Result<Tainted, Failure> {
    env.steps()
        .spend(1)
        .map_err(|message| step_limit(message, expr.range.clone()))?;
    match &expr.kind {
        ExprKind::Literal(literal) => Ok(Tainted {
            value: match literal {
                Literal::Bool(value) => Value::Bool(*value),
                Literal::Int(value) => Value::Int(*value),
                Literal::Float(value) => Value::Float(*value),
                Literal::String(text) => Value::String(text.clone()),
            },
            secret: false,
        }),
        ExprKind::Reference(reference) => {
            let secret = env.secret(reference);
            let value = match env.reference(reference) {
                Lookup::Known(value) => read_owned(value, reference.path(), expr, secret)?,
                Lookup::Shared(value) => read_path(&value, reference.path(), expr, secret)?.clone(),
                Lookup::SharedBelow { value, read } => {
                    let rest = reference.path().get(read..).unwrap_or_default();
                    read_path(&value, rest, expr, secret)?.clone()
                }
                Lookup::Pending => return Err(Failure::Pending(expr.to_string().into())),
                Lookup::Missing(message) => {
                    let error = SubstError::new(codes::EVAL, message, expr.range.clone());
                    return Err(withheld_if(secret, error).into());
                }
            };
            // What the reference copies into the expression is its work.
            env.steps()
                .spend(weight(&value))
                .map_err(|message| step_limit(message, expr.range.clone()))?;
            Ok(Tainted { value, secret })
        }
        ExprKind::Bare(name) => Err(bare_name_error(&name.text, expr.range.clone()).into()),
        ExprKind::Call(call) => {
            let Tainted { value, secret } = evaluate_call(call, expr, env)?;
            let value = read_owned(value, &call.path, expr, secret)?;
            Ok(Tainted { value, secret })
        }
    }
}

/// `error`, said without the values when they are secret: its message
/// kept (it quotes none), its help dropped (a did-you-mean may list a
/// secret object's keys), a note saying why.
fn withheld_if(secret: bool, error: SubstError) -> SubstError {
    if secret {
        SubstError {
            help: None,
            notes: vec![WITHHELD_NOTE.to_owned()],
            ..error
        }
    } else {
        error
    }
}

/// Why a bare name cannot stand where it stands (written at `range`): a
/// function where a value is expected, or a resource without a field.
pub(crate) fn bare_name_error(name: &str, range: Range<usize>) -> SubstError {
    if functions::lookup(name).is_some() {
        SubstError::new(
            codes::FUNCTION_VALUE,
            format!(
                "`{name}` is a function: call it, or pass it to a function that takes a function"
            ),
            range,
        )
    } else {
        SubstError::new(
            codes::REFERENCE,
            format!(
                "`{name}` names a resource without a field: read `{name}.spec…`, `{name}.state…` or `{name}.metadata…` (a bare resource name is only an argument of `link`)"
            ),
            range,
        )
    }
}

fn evaluate_call(call: &Call, expr: &Expr, env: &dyn Env) -> Result<Tainted, Failure> {
    let Some(def) = functions::lookup(&call.function.text) else {
        return Err(SubstError::new(
            codes::UNKNOWN_FUNCTION,
            format!("there is no function `{}`", call.function.text),
            call.function.range.clone(),
        )
        .into());
    };
    named_arguments(def, call)?;
    let mut values = Vec::new();
    let mut named = IndexMap::new();
    let mut ranges = Vec::new();
    let mut secret = false;
    for argument in &call.args {
        let param = def.param(values.len());
        let value = match &argument.value.kind {
            ExprKind::Bare(name)
                if param.is_some_and(|param| param.types.meets(Types::FUNCTION)) =>
            {
                match functions::lookup(&name.text) {
                    Some(function) => Value::Function(Function::Core(function)),
                    None => {
                        return Err(SubstError::new(
                            codes::UNKNOWN_FUNCTION,
                            format!("there is no function `{}`", name.text),
                            name.range.clone(),
                        )
                        .into());
                    }
                }
            }
            ExprKind::Bare(name) if def.name == "link" => Value::String(name.text.clone()),
            ExprKind::Reference(Reference::Resource { name, path, .. })
                if def.name == "link" && path.is_empty() =>
            {
                Value::String(name.text.clone())
            }
            _ => {
                let argument = evaluate_tainted(&argument.value, env)?;
                secret |= argument.secret;
                argument.value
            }
        };
        if let Some(name) = &argument.name {
            named.insert(name.text.clone(), value);
        } else {
            values.push(value);
            ranges.push(argument.value.range.clone());
        }
    }
    let value = functions::call(def, values, named, env).map_err(|failure| match failure {
        // What waits names the call as written, not the values it was
        // given (a `link` of names computed from a secret).
        Fail::Pending(_) if secret => Failure::Pending(expr.to_string().into()),
        Fail::Pending(what) => Failure::Pending(what),
        Fail::Error {
            message,
            withheld,
            argument,
        } => {
            let range = argument
                .and_then(|index| ranges.get(index).cloned())
                .unwrap_or_else(|| expr.range.clone());
            let code = if env.steps().exhausted() {
                codes::STEP_LIMIT
            } else {
                codes::EVAL
            };
            let message = match withheld {
                Some(withheld) if secret => withheld,
                _ => message,
            };
            Failure::Error(withheld_if(secret, SubstError::new(code, message, range)))
        }
    })?;
    Ok(Tainted { value, secret })
}

/// Refuses the named arguments the check refuses (before any argument is
/// evaluated): a name given to a function other than `object`, a name
/// given twice, a positional argument given to `object`.
fn named_arguments(def: &Def, call: &Call) -> Result<(), SubstError> {
    let mut seen: Vec<&str> = Vec::new();
    for argument in &call.args {
        let (message, range) = match &argument.name {
            Some(name) if !def.named => (
                format!(
                    "`{}` takes no named arguments: only `object` does",
                    def.name
                ),
                name.range.clone(),
            ),
            Some(name) if seen.contains(&name.text.as_str()) => (
                format!("the argument `{}` is given twice", name.text),
                name.range.clone(),
            ),
            Some(name) => {
                seen.push(&name.text);
                continue;
            }
            None if def.named => (
                format!(
                    "`{}` takes named arguments only: `{}(name = value)`",
                    def.name, def.name
                ),
                argument.value.range.clone(),
            ),
            None => continue,
        };
        return Err(SubstError::new(codes::NAMED_ARGUMENT, message, range));
    }
    Ok(())
}

/// Reads `path` into an owned `value` (a call's result), moving it when
/// there is nothing to read.
fn read_owned(
    value: Value,
    path: &[Accessor],
    expr: &Expr,
    secret: bool,
) -> Result<Value, Failure> {
    if path.is_empty() {
        return Ok(value);
    }
    read_path(&value, path, expr, secret).cloned()
}

/// Reads `path` into `value`, in place; `expr` is the whole reference, for
/// messages, which quote nothing of a `secret` value.
fn read_path<'v>(
    mut value: &'v Value,
    path: &[Accessor],
    expr: &Expr,
    secret: bool,
) -> Result<&'v Value, Failure> {
    for accessor in path {
        value = match (value, accessor) {
            (Value::Unknown(_), _) => return Err(Failure::Pending(expr.to_string().into())),
            (Value::Object(fields), Accessor::Field(name)) => {
                fields.get(&name.text).ok_or_else(|| {
                    let mut error = SubstError::new(
                        codes::EVAL,
                        format!("there is no field `{}` here", name.text),
                        name.range.clone(),
                    );
                    if let Some(near) =
                        strata_syntax::did_you_mean(&name.text, fields.keys().map(String::as_str))
                    {
                        error = error.with_help(format!("did you mean `{near}`?"));
                    }
                    Failure::Error(withheld_if(secret, error))
                })?
            }
            (Value::Array(items), Accessor::Index { index, range }) => {
                let at = index.unwrap_or(0);
                items.get(at).ok_or_else(|| {
                    let message = if secret {
                        format!("index {at} is out of range")
                    } else {
                        format!(
                            "index {at} is out of range: the array has {} items",
                            items.len()
                        )
                    };
                    Failure::Error(withheld_if(
                        secret,
                        SubstError::new(codes::EVAL, message, range.clone()),
                    ))
                })?
            }
            (other, accessor) => {
                let wanted = match accessor {
                    Accessor::Field(name) => format!("field `{}`", name.text),
                    Accessor::Index { .. } => "an item".to_owned(),
                };
                return Err(withheld_if(
                    secret,
                    SubstError::new(
                        codes::EVAL,
                        format!("cannot read {wanted} of {}", a_type(other.types())),
                        accessor.range(),
                    ),
                )
                .into());
            }
        };
    }
    Ok(value)
}

//! Variable values a user gives (`--vars FILE`, `--var NAME=VALUE`),
//! checked against the blueprint's definitions.
//!
//! - Sources in order: the definition's `default`, then the file, then the
//!   flags; the later wins.
//! - A flag's text is read by the variable's declared type (`integer`,
//!   `float`: numbers; `boolean`: `true`/`false`; `string` and custom
//!   types: the text as it is); a file's value must already have the type
//!   (an integer is a valid float).
//! - A value outside `allowedValues` is an error; so is a name the
//!   blueprint does not define, and a variable without a default that is
//!   given no value. Each message names the variable and where the value
//!   came from.
//! - A secret's value (the variable's `secret: true`, or a value given as
//!   secret: an include's variable computed from a parent's secret) is
//!   never quoted, and neither is the source line it is written on; nor
//!   is the line of a name the blueprint does not define, which may be a
//!   secret's name mistyped.

use indexmap::IndexMap;
use strata_subst::Value;
use strata_syntax::{Diagnostic, FieldPath, Node, Outcome, Span, did_you_mean};

use crate::codes;
use crate::model::{Blueprint, Variable, VariableType};

/// Where a variable's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The definition's `default`.
    Default,
    /// A `--vars` file.
    File,
    /// A `--var NAME=VALUE` flag.
    Flag,
    /// The including blueprint's `include.<name>.variables`.
    Include,
}

impl Origin {
    fn describe(self) -> &'static str {
        match self {
            Origin::Default => "the default",
            Origin::File => "the variables file",
            Origin::Flag => "`--var`",
            Origin::Include => "the include",
        }
    }
}

/// One value given for a variable.
#[derive(Debug, Clone)]
pub struct Given {
    /// The variable's name.
    pub name: String,
    /// The value: text to read by the variable's type (a flag), or a
    /// document value (a file).
    pub value: GivenValue,
    /// Where the value was written.
    pub span: Span,
    /// Where the name was written (a file's key, a flag's text before `=`).
    pub name_span: Span,
    /// Where it came from.
    pub origin: Origin,
    /// Whether the value is secret material whatever the definition says
    /// (an include's variable computed from the parent's secret): it is
    /// checked, reported and resolved as a secret variable's value is.
    pub secret: bool,
}

/// A given value before it is typed.
#[derive(Debug, Clone)]
pub enum GivenValue {
    /// Text, read by the variable's type.
    Text(String),
    /// A value of a file.
    Node(Node),
    /// An evaluated value (an include's variable); one known only after
    /// deployment passes unchecked.
    Value(Value),
}

/// The values given, in order (a later one wins).
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The values.
    pub given: Vec<Given>,
}

impl Inputs {
    /// Adds the entries of a variables file's document (a mapping).
    pub fn add_file(&mut self, document: &Node) -> Outcome<()> {
        let Some(map) = document.as_map() else {
            return Outcome::error(Diagnostic::error(
                codes::VARIABLE_INPUT,
                format!(
                    "a variables file holds a mapping of names to values, not {}",
                    document.value.kind_name()
                ),
                document.span,
            ));
        };
        for (name, entry) in map {
            self.given.push(Given {
                name: name.clone(),
                value: GivenValue::Node(entry.value.clone()),
                span: entry.value.span,
                name_span: entry.key_span,
                origin: Origin::File,
                secret: false,
            });
        }
        Outcome::ok(())
    }
}

/// A variable's value and whether it is secret.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The value.
    pub value: Value,
    /// Where it came from.
    pub origin: Origin,
    /// Whether the definition says `secret: true`.
    pub secret: bool,
}

/// What a variable with no default and no value given is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unset {
    /// An error (`spec/missing-variable`) whose help says to pass it on
    /// the command line.
    CommandLine,
    /// An error whose help says to give it in the `variables` of the
    /// include that reads the blueprint.
    Include,
    /// No problem: the variable has no value (`spec eval`, where a variable
    /// nobody gave is an error only where the text reads it).
    Allowed,
}

impl Unset {
    /// The problem of the variable `name`, which has no value.
    fn problem(self, name: &str, variable: &Variable) -> Option<Diagnostic> {
        let help = match self {
            Unset::CommandLine => format!("pass `--var {name}=VALUE` or a `--vars` file"),
            Unset::Include => {
                "give it in the `variables` of the include that reads this blueprint".to_owned()
            }
            Unset::Allowed => return None,
        };
        let problem = Diagnostic::error(
            codes::MISSING_VARIABLE,
            format!("the variable `{name}` has no default and no value was given"),
            variable.name_span,
        );
        Some(
            problem
                .with_path(FieldPath::root().key("variables").key(name))
                .with_help(help),
        )
    }
}

/// Every defined variable's value from its default and `inputs`, checked:
/// the variables that have a value, and every problem (a variable with
/// neither is what `unset` says).
pub fn resolve(
    blueprint: &Blueprint,
    inputs: &Inputs,
    unset: Unset,
) -> Outcome<IndexMap<String, Resolved>> {
    let mut problems = Vec::new();
    let mut chosen: IndexMap<&str, Resolved> = IndexMap::new();
    // A variable whose given value was refused is not also "missing".
    let mut refused: Vec<&str> = Vec::new();
    for given in &inputs.given {
        let Some(variable) = blueprint.variables.get(&given.name) else {
            let mut problem = Diagnostic::error(
                codes::VARIABLE_INPUT,
                format!(
                    "{} gives `{}`, which the blueprint does not define",
                    given.origin.describe(),
                    given.name
                ),
                given.name_span,
            )
            // The name may be a secret's, mistyped: its value is not shown.
            .concealing_source();
            if let Some(near) =
                did_you_mean(&given.name, blueprint.variables.keys().map(String::as_str))
            {
                problem = problem.with_help(format!("did you mean `{near}`?"));
            }
            problems.push(problem);
            continue;
        };
        let secret = variable.secret || given.secret;
        match typed(variable, &given.value) {
            Ok(value) => {
                if let Some(problem) = outside_allowed(variable, &value, given, secret) {
                    problems.push(problem);
                    refused.push(&given.name);
                    continue;
                }
                chosen.insert(
                    given.name.as_str(),
                    Resolved {
                        value,
                        origin: given.origin,
                        secret,
                    },
                );
            }
            Err(message) => {
                let message = if secret {
                    format!(
                        "a value that is not {} (the variable is secret: its value is not shown)",
                        variable.variable_type.value.name()
                    )
                } else {
                    message
                };
                let problem = Diagnostic::error(
                    codes::VARIABLE_INPUT,
                    format!(
                        "{} gives `{}` {message}",
                        given.origin.describe(),
                        given.name
                    ),
                    given.span,
                )
                .with_secondary(variable.variable_type.span, "the variable's type");
                problems.push(if secret {
                    problem.concealing_source()
                } else {
                    problem
                });
                refused.push(&given.name);
            }
        }
    }
    let mut resolved = IndexMap::new();
    for (name, variable) in &blueprint.variables {
        if let Some(value) = chosen.shift_remove(name.as_str()) {
            resolved.insert(name.clone(), value);
        } else if let Some(default) = &variable.default {
            let value = typed(variable, &GivenValue::Node(default.clone()))
                .unwrap_or_else(|_| Value::from_node(default));
            resolved.insert(
                name.clone(),
                Resolved {
                    value,
                    origin: Origin::Default,
                    secret: variable.secret,
                },
            );
        } else if !refused.contains(&name.as_str()) {
            problems.extend(unset.problem(name, variable));
        }
    }
    Outcome::new(Some(resolved), problems)
}

/// The given value read by the variable's type, or why it does not fit.
fn typed(variable: &Variable, given: &GivenValue) -> Result<Value, String> {
    let declared = &variable.variable_type.value;
    let wrong = |found: &str| format!("{found}, but the variable is {}", declared.name());
    match given {
        GivenValue::Text(text) => match declared {
            VariableType::String | VariableType::Custom(_) => Ok(Value::String(text.clone())),
            VariableType::Integer => text
                .trim()
                .parse()
                .map(Value::Int)
                .map_err(|_| wrong(&format!("`{text}`, which is not an integer"))),
            VariableType::Float => text
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|value| value.is_finite())
                .map(Value::Float)
                .ok_or_else(|| wrong(&format!("`{text}`, which is not a number"))),
            VariableType::Boolean => match text.trim() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(wrong(&format!("`{text}`, which is not `true` or `false`"))),
            },
        },
        GivenValue::Node(node) => typed_value(declared, Value::from_node(node)),
        GivenValue::Value(value) => typed_value(declared, value.clone()),
    }
}

/// A value read as the declared type: an integer is a float, an unknown
/// value passes.
fn typed_value(declared: &VariableType, value: Value) -> Result<Value, String> {
    match (declared, value) {
        (_, unknown @ Value::Unknown(_)) => Ok(unknown),
        (VariableType::Float, Value::Int(int)) => {
            #[expect(
                clippy::cast_precision_loss,
                reason = "an integer given for a float variable is that float"
            )]
            let float = int as f64;
            Ok(Value::Float(float))
        }
        (declared, value) if declared.types().contains(value.types()) => Ok(value),
        (declared, value) => Err(format!(
            "a value of type {}, but the variable is {}",
            value.types(),
            declared.name()
        )),
    }
}

/// A value outside the variable's `allowedValues`; a `secret` value is
/// not quoted, nor is the source it is written in shown.
fn outside_allowed(
    variable: &Variable,
    value: &Value,
    given: &Given,
    secret: bool,
) -> Option<Diagnostic> {
    let allowed = variable.allowed_values.as_ref()?;
    let typed_allowed: Vec<Value> = allowed
        .value
        .iter()
        .filter_map(|item| typed(variable, &GivenValue::Node(item.clone())).ok())
        .collect();
    if typed_allowed.contains(value) {
        return None;
    }
    let listed: Vec<String> = typed_allowed.iter().map(ToString::to_string).collect();
    // A secret's value is not written in a diagnostic either.
    let shown = if secret {
        crate::resolve::MASK.to_owned()
    } else {
        value.to_string()
    };
    let problem = Diagnostic::error(
        codes::VARIABLE_INPUT,
        format!(
            "{} gives `{}` the value `{}`, which is not one of its allowed values",
            given.origin.describe(),
            given.name,
            shown
        ),
        given.span,
    )
    .with_secondary(allowed.span, "the allowed values")
    .with_help(format!("allowed: {}", listed.join(", ")));
    Some(if secret {
        problem.concealing_source()
    } else {
        problem
    })
}

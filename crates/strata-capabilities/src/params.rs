//! A package's parameters, as Kure's launcher resolves them: `kurel.yaml`
//! (`kind: Package`) beside `app.yaml` declares typed parameters
//! (`string`, `integer`, `boolean`) with defaults and `required`, and
//! `app.yaml` names them as `${name}` in its values (never in keys).
//!
//! - The values given (a `--values` file's mapping, then each `--set
//!   NAME=VALUE`, the later winning) are coerced to the declared type: a
//!   text `"3"` to an integer, `true`/`1`/`t`/`T`/`TRUE`/`True` (and the
//!   false ones) to a boolean as Go's `strconv.ParseBool`, a scalar to text
//!   for a `string`. A name no parameter declares is an error.
//! - Each parameter without a value takes its default, in declaration
//!   order; a text default may name earlier parameters as `${name}`.
//! - A `required` parameter left without a value is an error.
//! - A value that is exactly `${name}` becomes the typed value (`replicas:
//!   ${replicas}` an integer); `${name}` inside a longer text is replaced
//!   by the value's text and the result stays text.
//!
//! Every problem is reported, each at its place (the placeholder, the
//! declaration, the value in the values file or on the command line), with
//! [`codes::PARAMETER`]; a `kurel.yaml` whose declarations contradict
//! themselves is [`codes::INVALID_PACKAGE`]. Without a `kurel.yaml`,
//! placeholders are left as written and values given are an error.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use strata_schema::Decoder;
use strata_syntax::{Diagnostic, FieldPath, Node, Outcome, Span, Value};

use crate::codes;
use crate::model::{PackageDescriptor, PropertyType};

/// The package descriptor beside `app.yaml`.
pub const PACKAGE_FILE: &str = "kurel.yaml";

static PACKAGE: LazyLock<Decoder<PackageDescriptor>> = LazyLock::new(Decoder::new);

/// `${name}` anywhere in a text, as the launcher matches it.
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    #[expect(clippy::unwrap_used, reason = "a constant pattern")]
    Regex::new(r"\$\{([^}]+)\}").unwrap()
});

/// The values a build is given for the parameters.
#[derive(Debug, Clone, Default)]
pub struct Supplied {
    /// Each value, in the order given: a `--values` file's entries, then
    /// the `--set` ones (a later one of a name wins). Each node's span is
    /// where the value was written.
    pub values: Vec<(String, Node)>,
}

impl Supplied {
    /// The entries of a `--values` file's document (a mapping; `null` for
    /// an empty file), or why it is not one.
    ///
    /// # Errors
    ///
    /// A [`codes::PARAMETER`] diagnostic when the document is not a mapping.
    pub fn add_file(&mut self, document: &Node) -> Result<(), Diagnostic> {
        match &document.value {
            Value::Null => Ok(()),
            Value::Map(entries) => {
                self.values.extend(
                    entries
                        .iter()
                        .map(|(name, entry)| (name.clone(), entry.value.clone())),
                );
                Ok(())
            }
            other => Err(Diagnostic::error(
                codes::PARAMETER,
                format!(
                    "a values file is a mapping of parameter names to values, not a {}",
                    other.kind_name()
                ),
                document.span,
            )),
        }
    }
}

/// One declared parameter, with where it is declared.
struct Parameter<'a> {
    name: &'a str,
    kind: PropertyType,
    required: bool,
    default: Option<&'a Node>,
    at: Span,
}

/// The declarations of `kurel.yaml`, checked: the schema's problems, two
/// parameters of one name, and defaults that do not fit their type.
pub(crate) fn check_descriptor(tree: &Node) -> Vec<Diagnostic> {
    // The rules below read what the schema accepted of each declaration,
    // so every problem is reported at once.
    let mut problems = PACKAGE.validate(tree);
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for (index, parameter) in parameters(tree).iter().enumerate() {
        let path = FieldPath::root().key("spec").key("parameters").index(index);
        if let Some(first) = seen.insert(parameter.name, parameter.at) {
            problems.push(
                Diagnostic::error(
                    codes::INVALID_PACKAGE,
                    format!("the parameter `{}` is declared twice", parameter.name),
                    parameter.at,
                )
                .with_secondary(first, "first declared here")
                .with_path(path.clone().key("name")),
            );
        }
        if let Some(default) = parameter.default
            && !default
                .as_str()
                .is_some_and(|text| PLACEHOLDER.is_match(text))
            && let Err(why) = coerce(default, parameter.kind)
        {
            problems.push(
                Diagnostic::error(
                    codes::INVALID_PACKAGE,
                    format!("the default of `{}` {why}", parameter.name),
                    default.span,
                )
                .with_path(path.key("default")),
            );
        }
    }
    problems
}

/// The declared parameters of a descriptor the schema accepted.
fn parameters(tree: &Node) -> Vec<Parameter<'_>> {
    let declared = tree
        .get("spec")
        .and_then(|spec| spec.get("parameters"))
        .and_then(Node::as_seq)
        .unwrap_or_default();
    declared
        .iter()
        .filter_map(|declaration| {
            let name = declaration.get("name")?;
            let kind = match declaration.get("type")?.as_str()? {
                "integer" => PropertyType::Integer,
                "boolean" => PropertyType::Boolean,
                _ => PropertyType::String,
            };
            Some(Parameter {
                name: name.as_str()?,
                kind,
                required: declaration
                    .get("required")
                    .is_some_and(|required| matches!(required.value, Value::Bool(true))),
                default: declaration
                    .get("default")
                    .filter(|default| !matches!(default.value, Value::Null)),
                at: name.span,
            })
        })
        .collect()
}

/// `application` with its placeholders resolved against the descriptor
/// `package` and the values `supplied`.
pub(crate) fn resolve(application: &Node, package: &Node, supplied: &Supplied) -> Outcome<Node> {
    let declared = parameters(package);
    let mut problems = Vec::new();
    let mut values: HashMap<&str, Node> = HashMap::new();
    for (name, value) in &supplied.values {
        let Some(parameter) = declared.iter().find(|p| p.name == name) else {
            problems.push(
                Diagnostic::error(
                    codes::PARAMETER,
                    format!("no parameter `{name}` is declared in `{PACKAGE_FILE}`"),
                    value.span,
                )
                .with_suggestion(name, declared.iter().map(|p| p.name)),
            );
            continue;
        };
        match coerce(value, parameter.kind) {
            Ok(coerced) => {
                values.insert(parameter.name, coerced);
            }
            Err(why) => problems.push(Diagnostic::error(
                codes::PARAMETER,
                format!("the value of `{name}` {why}"),
                value.span,
            )),
        }
    }
    for parameter in &declared {
        if values.contains_key(parameter.name) {
            continue;
        }
        if let Some(default) = parameter.default {
            match default_value(default, parameter, &values) {
                Ok(value) => {
                    values.insert(parameter.name, value);
                }
                Err(why) => problems.push(Diagnostic::error(codes::PARAMETER, why, default.span)),
            }
        } else if parameter.required {
            problems.push(
                Diagnostic::error(
                    codes::PARAMETER,
                    format!("the required parameter `{}` has no value", parameter.name),
                    parameter.at,
                )
                .with_help(format!(
                    "give it with `--set {}=VALUE` or in a `--values` file",
                    parameter.name
                )),
            );
        }
    }
    let resolved = application
        .clone()
        .map_scalars(&mut |node| substitute(node, &declared, &values, &mut problems));
    Outcome::new(Some(resolved), problems).valid()
}

/// A default's value: a text one with its `${name}`s replaced by earlier
/// parameters' values, then coerced.
fn default_value(
    default: &Node,
    parameter: &Parameter<'_>,
    values: &HashMap<&str, Node>,
) -> Result<Node, String> {
    let Some(text) = default.as_str().filter(|text| PLACEHOLDER.is_match(text)) else {
        return coerce(default, parameter.kind)
            .map_err(|why| format!("the default of `{}` {why}", parameter.name));
    };
    let mut missing = None;
    let replaced = PLACEHOLDER.replace_all(text, |captures: &regex::Captures<'_>| {
        let name = &captures[1];
        values.get(name).map_or_else(
            || {
                missing.get_or_insert_with(|| name.to_owned());
                String::new()
            },
            text_of,
        )
    });
    if let Some(name) = missing {
        return Err(format!(
            "the default of `{}` names `{name}`, which has no value before it: a default may name only earlier parameters that have one",
            parameter.name
        ));
    }
    coerce(
        &Node::new(Value::String(replaced.into_owned()), default.span),
        parameter.kind,
    )
    .map_err(|why| format!("the default of `{}` {why}", parameter.name))
}

/// A scalar of the application with its placeholders resolved.
fn substitute(
    node: Node,
    declared: &[Parameter<'_>],
    values: &HashMap<&str, Node>,
    problems: &mut Vec<Diagnostic>,
) -> Node {
    let Some(text) = node
        .as_str()
        .filter(|text| PLACEHOLDER.is_match(text))
        .map(str::to_owned)
    else {
        return node;
    };
    let span = node.span;
    let mut lookup = |name: &str| -> Option<&Node> {
        if !declared.iter().any(|p| p.name == name) {
            problems.push(
                Diagnostic::error(
                    codes::PARAMETER,
                    format!("`${{{name}}}` names no parameter declared in `{PACKAGE_FILE}`"),
                    span,
                )
                .with_suggestion(name, declared.iter().map(|p| p.name)),
            );
            return None;
        }
        let value = values.get(name);
        if value.is_none() {
            problems.push(
                Diagnostic::error(
                    codes::PARAMETER,
                    format!("the parameter `{name}` has no value"),
                    span,
                )
                .with_help(format!(
                    "give it with `--set {name}=VALUE`, in a `--values` file, or as a default"
                )),
            );
        }
        value
    };
    if let Some(captures) = PLACEHOLDER.captures(&text)
        && captures.get(0).is_some_and(|whole| whole.as_str() == text)
    {
        return match lookup(&captures[1]) {
            Some(value) => Node::new(value.value.clone(), span),
            None => node,
        };
    }
    let replaced = PLACEHOLDER
        .replace_all(&text, |captures: &regex::Captures<'_>| {
            lookup(&captures[1]).map(text_of).unwrap_or_default()
        })
        .into_owned();
    Node::new(Value::String(replaced), span).with_tag(node.tag)
}

/// A value as the text `${name}` inside a longer text becomes.
fn text_of(value: &Node) -> String {
    match &value.value {
        Value::String(text) => text.clone(),
        Value::Int(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        Value::Float(number) => strata_syntax::go_float(*number),
        _ => String::new(),
    }
}

/// `value` as a value of type `kind`, or why it is not one (the text
/// follows the parameter's name in a message).
fn coerce(value: &Node, kind: PropertyType) -> Result<Node, String> {
    let coerced = match (kind, &value.value) {
        (PropertyType::Integer, Value::Int(_))
        | (PropertyType::Boolean, Value::Bool(_))
        | (PropertyType::String, Value::String(_)) => value.value.clone(),
        #[expect(clippy::cast_possible_truncation, reason = "whole, checked")]
        (PropertyType::Integer, Value::Float(number))
            if number.fract() == 0.0 && number.abs() < 9.0e15 =>
        {
            Value::Int(*number as i64)
        }
        (PropertyType::Integer, Value::String(text)) => Value::Int(
            text.parse()
                .map_err(|_| format!("is `{text}`, not an integer"))?,
        ),
        (PropertyType::Boolean, Value::String(text)) => Value::Bool(match text.as_str() {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => true,
            "0" | "f" | "F" | "FALSE" | "false" | "False" => false,
            _ => return Err(format!("is `{text}`, not a boolean (`true` or `false`)")),
        }),
        (PropertyType::String, Value::Int(_) | Value::Float(_) | Value::Bool(_)) => {
            Value::String(text_of(value))
        }
        (kind, other) => {
            return Err(format!(
                "is a {}, not {}",
                other.kind_name(),
                match kind {
                    PropertyType::String => "a string",
                    PropertyType::Integer => "an integer",
                    PropertyType::Boolean => "a boolean",
                }
            ));
        }
    };
    Ok(Node::new(coerced, value.span))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use super::*;

    fn text(value: &str) -> Node {
        Node::new(Value::String(value.to_owned()), Span::default())
    }

    /// What `coerce` makes of `value`, as JSON.
    fn coerced(value: &Node, kind: PropertyType) -> Result<Json, String> {
        coerce(value, kind).map(|node| node.to_json_value())
    }

    #[test]
    fn given_text_is_coerced_as_the_launcher_coerces_it() {
        let integer = |value: &str| coerced(&text(value), PropertyType::Integer);
        assert_eq!(integer("42"), Ok(json!(42)));
        assert_eq!(integer("-3"), Ok(json!(-3)));
        assert!(integer("4.5").is_err());
        assert!(integer("many").is_err());
        for (written, meant) in [
            ("1", true),
            ("t", true),
            ("TRUE", true),
            ("True", true),
            ("0", false),
            ("F", false),
            ("false", false),
        ] {
            assert_eq!(
                coerced(&text(written), PropertyType::Boolean),
                Ok(json!(meant)),
                "{written}"
            );
        }
        assert!(coerced(&text("yes"), PropertyType::Boolean).is_err());
        let number = Node::new(Value::Int(8080), Span::default());
        assert_eq!(coerced(&number, PropertyType::String), Ok(json!("8080")));
        let list = Node::new(Value::Seq(Vec::new()), Span::default());
        assert_eq!(
            coerced(&list, PropertyType::String).unwrap_err(),
            "is a sequence, not a string"
        );
    }

    #[test]
    fn whole_placeholders_keep_the_type_and_inline_ones_make_text() {
        let mut db = strata_syntax::SourceDb::new();
        let mut parse = |name: &str, text: &str| {
            let id = db.add(name, text);
            strata_syntax::parse(
                &db,
                id,
                strata_syntax::Format::Yaml,
                &strata_syntax::Limits::default(),
            )
            .documents
            .remove(0)
        };
        let package = parse(
            "kurel.yaml",
            "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Package\nmetadata: {name: p}\nspec:\n  parameters:\n    - {name: n, type: integer, default: 2}\n    - {name: s, type: string, default: 'v${n}'}\n",
        );
        let app = parse("app.yaml", "a: ${n}\nb: 'x-${n}'\nc: ${s}\n'${n}': key\n");
        let resolved = resolve(&app, &package, &Supplied::default()).value.unwrap();
        assert_eq!(
            resolved.to_json_value(),
            json!({"a": 2, "b": "x-2", "c": "v2", "${n}": "key"})
        );
    }
}

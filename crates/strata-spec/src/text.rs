//! Evaluating one `${..}` text outside a blueprint's fields (`strata spec
//! eval`): in the terms of a blueprint ([`Spec::evaluate`](crate::Spec::evaluate):
//! its variables typed and checked, references checked against what it
//! defines, a result that reads a secret said so) or of none
//! ([`evaluate_text`] without one: each variable read as a YAML scalar, any
//! reference allowed). A variable nobody gave is an error only where the
//! text reads it; a result that waits on deployment is a note
//! (`spec/known-after-deploy`), not a value.

use std::time::{SystemTime, UNIX_EPOCH};

use indexmap::IndexMap;
use strata_subst::{Failure, Steps, Value, check_template, evaluate, parse_template};
use strata_syntax::{Diagnostic, Format, Outcome, SourceDb, Span};

use crate::codes;
use crate::environment::Environment;
use crate::model::Blueprint;
use crate::secrets::template_reads_secret;
use crate::validate::check_text;
use crate::variables::{GivenValue, Inputs, Unset, resolve as resolve_variables};

/// What a text evaluated to.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluated {
    /// The value.
    pub value: Value,
    /// Whether it reads a secret (a secret variable, or a value that reads
    /// one): a face masks it unless asked otherwise.
    pub reads_secret: bool,
}

/// Evaluates `text`, registered in `db` as `<text>` (so its diagnostics
/// point into it), with the variables `inputs` gives, in the terms of
/// `blueprint` when there is one. The working directory and the clock
/// are the process's.
pub fn evaluate_text(
    blueprint: Option<&Blueprint>,
    text: &str,
    inputs: &Inputs,
    db: &mut SourceDb,
) -> Outcome<Evaluated> {
    let mut problems = Vec::new();
    let (variables, secret_variables) = match blueprint {
        Some(blueprint) => {
            let resolved = resolve_variables(blueprint, inputs, Unset::Allowed);
            problems.extend(resolved.diagnostics);
            if problems.iter().any(Diagnostic::is_error) {
                return Outcome::failed(problems);
            }
            let resolved = resolved.value.unwrap_or_default();
            let secret = resolved
                .iter()
                .filter(|(_, resolved)| resolved.secret)
                .map(|(name, _)| name.clone())
                .collect();
            let values = resolved
                .into_iter()
                .map(|(name, resolved)| (name, resolved.value))
                .collect();
            (values, secret)
        }
        None => (untyped(db, inputs), Vec::<String>::new()),
    };
    let source = db.add("<text>", text);
    let at = Span::new(source, 0, text.len());
    let template = match parse_template(text) {
        Ok(template) => template,
        Err(errors) => {
            problems.extend(errors.iter().map(|error| error.diagnostic(db, at, text)));
            return Outcome::failed(problems);
        }
    };
    let (_, checked) = match blueprint {
        Some(blueprint) => check_text(blueprint, &template),
        None => check_template(&template, &strata_subst::check::Unscoped),
    };
    problems.extend(
        checked
            .iter()
            .map(|problem| problem.diagnostic(db, at, text)),
    );
    if problems.iter().any(Diagnostic::is_error) {
        return Outcome::failed(problems);
    }
    let cwd =
        std::env::current_dir().map_or_else(|_| ".".to_owned(), |dir| dir.display().to_string());
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|elapsed| i64::try_from(elapsed.as_secs()).ok())
        .unwrap_or_default();
    let steps = Steps::default();
    let secret: Vec<&str> = secret_variables.iter().map(String::as_str).collect();
    let environment =
        Environment::new(blueprint, variables, cwd, now, &steps).with_secret_variables(&secret);
    match evaluate(&template, &environment) {
        Ok(value) => {
            let reads_secret =
                blueprint.is_some_and(|blueprint| template_reads_secret(blueprint, &template));
            Outcome::new(
                Some(Evaluated {
                    value,
                    reads_secret,
                }),
                problems,
            )
        }
        Err(Failure::Pending(what)) => {
            problems.push(Diagnostic::note(
                codes::KNOWN_AFTER_DEPLOY,
                format!("known after deploy: {what}"),
                at,
            ));
            Outcome::failed(problems)
        }
        Err(Failure::Error(error)) => {
            problems.push(error.diagnostic(db, at, text));
            Outcome::failed(problems)
        }
    }
}

/// The variables `inputs` gives, without a blueprint to type them: a value
/// given as text is read as a YAML scalar where it is one (`3`, `true`),
/// else kept as the text.
fn untyped(db: &mut SourceDb, inputs: &Inputs) -> IndexMap<String, Value> {
    let mut variables = IndexMap::new();
    for given in &inputs.given {
        let value = match &given.value {
            GivenValue::Node(node) => Value::from_node(node),
            GivenValue::Value(value) => value.clone(),
            GivenValue::Text(text) => {
                let limits = strata_syntax::Limits::default();
                let parsed =
                    strata_dialect::parse_document(db, &given.name, text, Format::Yaml, &limits);
                parsed
                    .ok()
                    .filter(|node| {
                        !matches!(
                            node.value,
                            strata_syntax::Value::Seq(_) | strata_syntax::Value::Map(_)
                        )
                    })
                    .map_or_else(
                        || Value::String(text.clone()),
                        |node| Value::from_node(&node),
                    )
            }
        };
        variables.insert(given.name.clone(), value);
    }
    variables
}

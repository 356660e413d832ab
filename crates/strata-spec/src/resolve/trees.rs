//! Evaluating one field: a tree of templates substituted in an
//! environment, conditions decided (or left pending), failures placed at
//! the character of the text or at the whole field.

use strata_subst::{Env, Failure, Reference, Steps, SubstError, Types, Value, evaluate};
use strata_syntax::{Diagnostic, FieldPath, PathStep, SourceDb, Span};

use crate::codes;
use crate::environment::Environment;
use crate::model::{Condition, Tree};

/// `&Environment` as a boxed `Env`.
pub(super) struct EnvRef<'e, 'a>(pub(super) &'e Environment<'a>);

impl Env for EnvRef<'_, '_> {
    fn reference(&self, reference: &Reference) -> strata_subst::Lookup {
        self.0.reference(reference)
    }
    fn secret(&self, reference: &Reference) -> bool {
        self.0.secret(reference)
    }
    fn steps(&self) -> &Steps {
        self.0.steps()
    }
    fn link(&self, from: &str, to: &str) -> strata_subst::Lookup {
        self.0.link(from, to)
    }
    fn cwd(&self) -> Result<String, String> {
        self.0.cwd()
    }
    fn now_unix(&self) -> i64 {
        self.0.now_unix()
    }
}

/// Whether a known value has the declared type (an integer is a float).
pub(super) fn value_fits(declared: Types, value: &Value) -> bool {
    let found = value.types();
    found.meets(declared) || (declared.meets(Types::FLOAT) && found.meets(Types::INTEGER))
}

/// `and` (`decisive` false) or `or` (`decisive` true) of `items`: the
/// decisive value as soon as one item has it, else pending when one item
/// waits on deployment, else the other value.
pub(super) fn combined<'c>(
    items: &'c [Condition],
    env: &dyn Env,
    decisive: bool,
) -> Result<bool, (Failure, &'c Tree)> {
    let mut pending = None;
    for item in items {
        match condition_value(item, env) {
            Ok(value) if value == decisive => return Ok(decisive),
            Ok(_) => {}
            Err(waiting @ (Failure::Pending(_), _)) => {
                pending = pending.or(Some(waiting));
            }
            Err(error) => return Err(error),
        }
    }
    pending.map_or(Ok(!decisive), Err)
}

/// A condition's value: `Err(Pending)` when it waits on deployment; a
/// failure with the leaf it comes from.
pub(super) fn condition_value<'c>(
    condition: &'c Condition,
    env: &dyn Env,
) -> Result<bool, (Failure, &'c Tree)> {
    match condition {
        Condition::Leaf(tree) => {
            match crate::environment::evaluate_tree(tree, env).map_err(|failure| (failure, tree))? {
                Value::Bool(value) => Ok(value),
                other => Err((
                    Failure::Error(SubstError::new(
                        codes::CONDITION,
                        format!("a condition must be a boolean, it gave {}", other.types()),
                        0..0,
                    )),
                    tree,
                )),
            }
        }
        // `and` is decided by a false item, `or` by a true one; otherwise a
        // pending item keeps it pending.
        Condition::And(items, _) => combined(items, env, false),
        Condition::Or(items, _) => combined(items, env, true),
        Condition::Not(inner, _) => condition_value(inner, env).map(|value| !value),
    }
}

/// An evaluation failure of the field `tree`: a problem of the whole field
/// (a condition that is not a boolean, an `each` that is not an array) at
/// the field, any other where it lies in the text.
pub(super) fn tree_error(
    error: &SubstError,
    tree: &Tree,
    db: &SourceDb,
    path: &FieldPath,
) -> Diagnostic {
    match tree {
        Tree::Template { node, .. }
            if !matches!(error.code, codes::CONDITION | codes::EACH_TYPE) =>
        {
            error_at(
                error,
                db,
                node.span,
                node.as_str().unwrap_or_default(),
                path,
            )
        }
        _ => Diagnostic::error(error.code, error.message.clone(), tree.span())
            .with_path(path.clone()),
    }
}

/// A field's value: templates evaluated, what waits on deployment left
/// unknown, each failure reported where it is written (`path`, the
/// field's).
pub(super) fn resolve_tree(
    tree: &Tree,
    env: &dyn Env,
    db: &SourceDb,
    path: &FieldPath,
    problems: &mut Vec<Diagnostic>,
) -> Value {
    resolve_below(tree, env, db, path, &mut Vec::new(), problems)
}

/// [`resolve_tree`] of the node `trail` leads to below `base`.
fn resolve_below<'t>(
    tree: &'t Tree,
    env: &dyn Env,
    db: &SourceDb,
    base: &FieldPath,
    trail: &mut Vec<PathStep<'t>>,
    problems: &mut Vec<Diagnostic>,
) -> Value {
    match tree {
        Tree::Literal(node) => Value::from_node(node),
        Tree::Template { template, node } => match evaluate(template, env) {
            Ok(value) => value,
            Err(Failure::Pending(what)) => Value::Unknown(what),
            Err(Failure::Error(error)) => {
                problems.push(error_at(
                    &error,
                    db,
                    node.span,
                    node.as_str().unwrap_or_default(),
                    &base.join(trail),
                ));
                Value::Null
            }
        },
        Tree::Seq { items, .. } => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(index, item)| {
                    trail.push(PathStep::Index(index));
                    let value = resolve_below(item, env, db, base, trail, problems);
                    trail.pop();
                    value
                })
                .collect(),
        ),
        Tree::Map { entries, .. } => Value::Object(
            entries
                .iter()
                .map(|(key, (_, tree))| {
                    trail.push(PathStep::Key(key));
                    let value = resolve_below(tree, env, db, base, trail, problems);
                    trail.pop();
                    (key.clone(), value)
                })
                .collect(),
        ),
    }
}

pub(super) fn error_at(
    error: &SubstError,
    db: &SourceDb,
    scalar: Span,
    text: &str,
    path: &FieldPath,
) -> Diagnostic {
    error.diagnostic(db, scalar, text).with_path(path.clone())
}

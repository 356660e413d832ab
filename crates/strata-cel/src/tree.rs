//! Walking a tree for its `!cel` scalars. Recursive: trees are as deep as
//! the loader allows, and the walk runs on the worker's stack. The walk
//! keeps the way down as borrowed [`PathStep`]s and builds a [`FieldPath`] only
//! for a diagnostic: most trees have a few expressions among many keys.

use std::panic::{AssertUnwindSafe, catch_unwind};

use cel::Context;
use strata_syntax::{Diagnostic, FieldPath, Node, PathStep, Value};

use crate::result::to_node;
use crate::runtime::{self, eval_error, panic_message};
use crate::scope::Scope;
use crate::{CEL_TAG, Programs};

use crate::codes;

/// Compiles every `!cel` scalar of `root`.
pub(crate) fn compile(programs: &Programs, root: &Node) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    visit(root, &mut Vec::new(), &mut |node, path| match &node.value {
        Value::String(text) => {
            if let Err(diagnostic) = programs.compile_here(text, node.span) {
                diagnostics.push(diagnostic.with_path(FieldPath::root().join(path)));
            }
        }
        _ => diagnostics.push(not_a_string(node).with_path(FieldPath::root().join(path))),
    });
    diagnostics
}

/// Evaluates every `!cel` scalar of `root` against `scope`.
pub(crate) fn evaluate(
    programs: &Programs,
    mut root: Node,
    scope: &Scope,
) -> (Node, Vec<Diagnostic>) {
    let context = runtime::context(programs.env(), scope);
    let mut diagnostics = Vec::new();
    visit_mut(&mut root, &mut Vec::new(), &mut |node, path| {
        let outcome = match &node.value {
            Value::String(_) => evaluate_scalar(programs, &context, scope, node),
            _ => Err(not_a_string(node)),
        };
        if let Err(diagnostic) = outcome {
            diagnostics.push(diagnostic.with_path(FieldPath::root().join(path)));
        }
    });
    (root, diagnostics)
}

/// Replaces a `!cel` string scalar with its value, or says why it cannot.
fn evaluate_scalar(
    programs: &Programs,
    context: &Context<'_, '_>,
    scope: &Scope,
    node: &mut Node,
) -> Result<(), Diagnostic> {
    let Value::String(text) = &node.value else {
        return Ok(());
    };
    let span = node.span;
    let compiled = programs.compile_here(text, span)?;
    runtime::reset_budget();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        cel::Value::resolve(compiled.expr(), context)
    }));
    let value = match outcome {
        Ok(Ok(value)) => value,
        Ok(Err(error)) => return Err(eval_error(&error, span, scope)),
        Err(panic) => {
            return Err(Diagnostic::error(
                codes::EVAL,
                format!("the cel evaluator failed: {}", panic_message(&*panic)),
                span,
            ));
        }
    };
    match to_node(&value, span, node.layer) {
        Ok(result) => {
            *node = result;
            Ok(())
        }
        Err(problem) => {
            let diagnostic = Diagnostic::error(codes::RESULT, problem.message, span);
            Err(match problem.help {
                Some(help) => diagnostic.with_help(help),
                None => diagnostic,
            })
        }
    }
}

fn is_cel(node: &Node) -> bool {
    node.tag.as_ref().is_some_and(|tag| tag.as_str() == CEL_TAG)
}

fn not_a_string(node: &Node) -> Diagnostic {
    Diagnostic::error(
        codes::NOT_A_STRING,
        format!(
            "`{CEL_TAG}` tags a {}, not an expression string",
            node.value.kind_name()
        ),
        node.span,
    )
    .with_help(format!(
        "write the expression as a string: `{CEL_TAG} \"a + b\"`"
    ))
}

/// Calls `on_cel` for every `!cel` node, and goes on below nodes that are
/// not strings (a `!cel` mapping is reported, its children still visited).
fn visit<'a>(
    node: &'a Node,
    path: &mut Vec<PathStep<'a>>,
    on_cel: &mut dyn FnMut(&Node, &[PathStep<'_>]),
) {
    if is_cel(node) {
        on_cel(node, path);
    }
    match &node.value {
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push(PathStep::Index(index));
                visit(item, path, on_cel);
                path.pop();
            }
        }
        Value::Map(map) => {
            for (key, entry) in map {
                path.push(PathStep::Key(key));
                visit(&entry.value, path, on_cel);
                path.pop();
            }
        }
        _ => {}
    }
}

/// [`visit`] with the nodes mutable. A string replaced by `on_cel` is not
/// visited again, whatever it became.
fn visit_mut<'a>(
    node: &'a mut Node,
    path: &mut Vec<PathStep<'a>>,
    on_cel: &mut dyn FnMut(&mut Node, &[PathStep<'_>]),
) {
    if is_cel(node) {
        let was_string = matches!(node.value, Value::String(_));
        on_cel(node, path);
        if was_string {
            return;
        }
    }
    match &mut node.value {
        Value::Seq(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                path.push(PathStep::Index(index));
                visit_mut(item, path, on_cel);
                path.pop();
            }
        }
        Value::Map(map) => {
            for (key, entry) in map.iter_mut() {
                path.push(PathStep::Key(key));
                visit_mut(&mut entry.value, path, on_cel);
                path.pop();
            }
        }
        _ => {}
    }
}

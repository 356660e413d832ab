//! Compiling one expression: the text limit, parsing through the
//! environment (so that its macros and the optional syntax apply), the depth
//! limit, and the guards that bound the cost of evaluating it.
//!
//! Guards are calls of hidden functions (their names start with `@`, which
//! CEL source cannot write) inserted into the syntax tree:
//!
//! - the range of every comprehension becomes `@strata_range(range)`, which
//!   charges its size to the iteration budget;
//! - every call (operators included) and every comprehension `e` becomes
//!   `@strata_size(e)`, which checks the size of its value. The calls that a
//!   macro builds around its accumulator (`@result + [x]`, `@result && p`)
//!   are left alone: the evaluator recognises their shape to append in place.

use std::panic::{AssertUnwindSafe, catch_unwind};

use cel::common::ast::{CallExpr, EntryExpr, Expr, IdedEntryExpr};
use cel::{IdedExpr, ParseErrors};
use strata_syntax::{Diagnostic, Span, lowercase_first};

use crate::runtime::{RANGE_GUARD, SIZE_GUARD, panic_message};
use crate::{CEL_TAG, MAX_DEPTH, MAX_EXPRESSION_BYTES, MAX_NESTING};

use crate::codes;

/// A compiled expression, ready to be evaluated any number of times.
#[derive(Debug)]
pub struct CompiledExpr {
    source: String,
    expr: IdedExpr,
}

impl CompiledExpr {
    /// The expression text it was compiled from.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The syntax tree, guards included.
    pub(crate) fn expr(&self) -> &IdedExpr {
        &self.expr
    }
}

/// Why an expression did not compile: at least one problem.
#[derive(Debug)]
pub(crate) struct CompileError {
    first: Problem,
    rest: Vec<Problem>,
}

#[derive(Debug)]
struct Problem {
    code: strata_syntax::Code,
    message: String,
    /// 1-based line and column (in characters) inside the expression.
    at: Option<(usize, usize)>,
}

impl CompileError {
    fn one(code: strata_syntax::Code, message: String) -> CompileError {
        CompileError {
            first: Problem {
                code,
                message,
                at: None,
            },
            rest: Vec::new(),
        }
    }

    /// The problems as one diagnostic about the expression `expr` written at
    /// `span`: the first is the primary label, the others secondary labels
    /// (or notes, when they cannot be placed exactly).
    pub(crate) fn diagnostic(&self, expr: &str, span: Span) -> Diagnostic {
        let first = &self.first;
        let mut diagnostic = match (locate(expr, span, first.at), first.at) {
            (Some(exact), _) => Diagnostic::error(first.code, &first.message, exact),
            (None, Some((line, column))) => Diagnostic::error(first.code, &first.message, span)
                .with_label("in this expression")
                .with_note(format!("at line {line}, column {column} of the expression")),
            (None, None) => {
                Diagnostic::error(first.code, &first.message, span).with_label("in this expression")
            }
        };
        for problem in &self.rest {
            diagnostic = match (locate(expr, span, problem.at), problem.at) {
                (Some(exact), _) => diagnostic.with_secondary(exact, &problem.message),
                (None, Some((line, column))) => diagnostic.with_note(format!(
                    "also: {} (line {line}, column {column} of the expression)",
                    problem.message
                )),
                (None, None) => diagnostic.with_note(format!("also: {}", problem.message)),
            };
        }
        diagnostic
    }
}

/// Parses, checks and guards `source`. Recurses as deeply as the
/// expression nests: run it on the worker's stack.
pub(crate) fn compile(env: &cel::Env, source: &str) -> Result<CompiledExpr, CompileError> {
    if source.len() > MAX_EXPRESSION_BYTES {
        return Err(CompileError::one(
            codes::LIMIT,
            format!(
                "the expression is {} bytes long, more than the limit of {MAX_EXPRESSION_BYTES}",
                source.len()
            ),
        ));
    }
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        env.parser().max_recursion_depth(MAX_NESTING).parse(source)
    }));
    let mut expr = match parsed {
        Ok(Ok(expr)) => expr,
        Ok(Err(errors)) => return Err(parse_errors(&errors)),
        Err(panic) => {
            return Err(CompileError::one(
                codes::PARSE,
                format!("the cel parser failed: {}", panic_message(&*panic)),
            ));
        }
    };
    let (depth, max_id) = measure(&expr);
    if depth > MAX_DEPTH {
        return Err(CompileError::one(
            codes::LIMIT,
            format!("the expression nests {depth} levels deep, more than the limit of {MAX_DEPTH}"),
        ));
    }
    let mut ids = max_id;
    guard(&mut expr, &mut ids);
    Ok(CompiledExpr {
        source: source.to_owned(),
        expr,
    })
}

fn parse_errors(errors: &ParseErrors) -> CompileError {
    let mut problems = Vec::new();
    let mut too_deep = false;
    for error in &errors.errors {
        let at = usize::try_from(error.pos.0)
            .ok()
            .zip(usize::try_from(error.pos.1).ok())
            .filter(|&(line, column)| line > 0 && column > 0);
        // The parser reports its recursion limit as a syntax error wrapping
        // another error, once for every rule it unwinds: keep the first.
        if error.msg.contains("Recursion limit") {
            if !too_deep {
                too_deep = true;
                problems.push(Problem {
                    code: codes::LIMIT,
                    message: format!("the expression nests more than {MAX_NESTING} levels deep"),
                    at,
                });
            }
            continue;
        }
        problems.push(Problem {
            code: codes::PARSE,
            message: lowercase_first(&error.msg),
            at,
        });
    }
    let mut problems = problems.into_iter();
    match problems.next() {
        Some(first) => CompileError {
            first,
            rest: problems.collect(),
        },
        None => CompileError::one(codes::PARSE, "the expression does not parse".to_owned()),
    }
}

/// The byte range in the file of the character at `at` (1-based line and
/// column inside `expr`), when the expression's place in `span` is known.
fn locate(expr: &str, span: Span, at: Option<(usize, usize)>) -> Option<Span> {
    let (line, column) = at?;
    let start = expression_start(expr, span)?;
    let offset = offset_in(expr, line, column)?;
    let width = expr[offset..].chars().next().map_or(0, char::len_utf8);
    Some(Span::new(
        span.source,
        start + offset,
        start + offset + width,
    ))
}

/// Where `expr` starts in the file, inferred from the length of the
/// scalar's span: the text itself (plain) or the text in quotes, preceded or
/// not by the `!cel` tag and one space. Escapes, folding and block scalars
/// change the length, so they are not recognised and give `None`.
fn expression_start(expr: &str, span: Span) -> Option<usize> {
    if expr.contains(['\n', '\r']) {
        return None;
    }
    let range = span.range();
    let tag = CEL_TAG.len() + 1;
    let closing_quote = match range.len().checked_sub(expr.len())? {
        0 => 0,
        2 => 1,
        extra if extra == tag => 0,
        extra if extra == tag + 2 => 1,
        _ => return None,
    };
    Some(range.end - closing_quote - expr.len())
}

/// The byte offset of a 1-based line and character column in `text`; a
/// column past the end of its line is the line's end.
fn offset_in(text: &str, line: usize, column: usize) -> Option<usize> {
    let line_start = match line {
        0 => return None,
        1 => 0,
        _ => text.match_indices('\n').nth(line - 2)?.0 + 1,
    };
    let line_text = text[line_start..].split('\n').next().unwrap_or_default();
    let in_line = line_text
        .char_indices()
        .nth(column.checked_sub(1)?)
        .map_or(line_text.len(), |(offset, _)| offset);
    Some(line_start + in_line)
}

/// The depth of a syntax tree and its largest node id, without recursion
/// (the tree is not yet known to be shallow).
fn measure(root: &IdedExpr) -> (usize, u64) {
    let mut depth = 0;
    let mut max_id = 0;
    let mut stack = vec![(root, 1)];
    while let Some((expr, level)) = stack.pop() {
        depth = depth.max(level);
        max_id = max_id.max(expr.id);
        for_each_child(&expr.expr, |child| stack.push((child, level + 1)));
    }
    (depth, max_id)
}

fn for_each_child<'a>(expr: &'a Expr, mut visit: impl FnMut(&'a IdedExpr)) {
    match expr {
        Expr::Call(call) => {
            call.target.iter().for_each(|target| visit(target));
            call.args.iter().for_each(visit);
        }
        Expr::Comprehension(comprehension) => {
            visit(&comprehension.iter_range);
            visit(&comprehension.accu_init);
            visit(&comprehension.loop_cond);
            visit(&comprehension.loop_step);
            visit(&comprehension.result);
        }
        Expr::List(list) => list.elements.iter().for_each(visit),
        Expr::Map(map) => entries_children(&map.entries, visit),
        Expr::Struct(strukt) => entries_children(&strukt.entries, visit),
        Expr::Select(select) => visit(&select.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// The expressions of map or struct entries: keys and values.
fn entries_children<'a>(entries: &'a [IdedEntryExpr], mut visit: impl FnMut(&'a IdedExpr)) {
    for entry in entries {
        match &entry.expr {
            EntryExpr::MapEntry(entry) => {
                visit(&entry.key);
                visit(&entry.value);
            }
            EntryExpr::StructField(field) => visit(&field.value),
        }
    }
}

/// Guards the expressions of map or struct entries.
fn guard_entries(entries: &mut [IdedEntryExpr], ids: &mut u64) {
    for entry in entries {
        match &mut entry.expr {
            EntryExpr::MapEntry(entry) => {
                guard(&mut entry.key, ids);
                guard(&mut entry.value, ids);
            }
            EntryExpr::StructField(field) => guard(&mut field.value, ids),
        }
    }
}

/// Inserts the cost guards (see the module docs) below and at `expr`.
/// Recursive: the depth was checked first.
fn guard(expr: &mut IdedExpr, ids: &mut u64) {
    match &mut expr.expr {
        Expr::Call(call) => {
            if let Some(target) = call.target.as_deref_mut() {
                guard(target, ids);
            }
            call.args.iter_mut().for_each(|arg| guard(arg, ids));
            if !is_internal(call) {
                wrap(expr, SIZE_GUARD, ids);
            }
        }
        Expr::Comprehension(comprehension) => {
            guard(&mut comprehension.iter_range, ids);
            wrap(&mut comprehension.iter_range, RANGE_GUARD, ids);
            guard(&mut comprehension.accu_init, ids);
            guard(&mut comprehension.loop_cond, ids);
            guard(&mut comprehension.loop_step, ids);
            guard(&mut comprehension.result, ids);
            wrap(expr, SIZE_GUARD, ids);
        }
        Expr::List(list) => list.elements.iter_mut().for_each(|item| guard(item, ids)),
        Expr::Map(map) => guard_entries(&mut map.entries, ids),
        Expr::Struct(strukt) => guard_entries(&mut strukt.entries, ids),
        Expr::Select(select) => guard(&mut select.operand, ids),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// Whether a call is one a macro built: a hidden function, or one applied
/// to a hidden variable such as a comprehension's accumulator.
fn is_internal(call: &CallExpr) -> bool {
    call.func_name.starts_with('@')
        || call
            .args
            .iter()
            .any(|arg| matches!(&arg.expr, Expr::Ident(name) if name.starts_with('@')))
}

/// Replaces `expr` with `function(expr)`.
fn wrap(expr: &mut IdedExpr, function: &str, ids: &mut u64) {
    *ids += 1;
    let inner = std::mem::take(expr);
    *expr = IdedExpr {
        id: *ids,
        expr: Expr::Call(CallExpr {
            func_name: function.to_owned(),
            target: None,
            args: vec![inner],
        }),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_syntax::SourceId;

    fn span(start: usize, end: usize) -> Span {
        Span::new(SourceId::default(), start, end)
    }

    #[test]
    fn the_expression_is_found_in_plain_and_quoted_scalars() {
        // `!cel "a +"` at 10..20, `"a +"` at 15..20, `a +` at 5..8.
        assert_eq!(expression_start("a +", span(10, 20)), Some(16));
        assert_eq!(expression_start("a +", span(15, 20)), Some(16));
        assert_eq!(expression_start("a +", span(5, 8)), Some(5));
        assert_eq!(expression_start("a +", span(0, 8)), Some(5));
        // Escapes or block scalars: unknown.
        assert_eq!(expression_start("a +", span(0, 12)), None);
        assert_eq!(expression_start("a\n+", span(0, 3)), None);
    }

    #[test]
    fn offsets_count_lines_and_characters() {
        assert_eq!(offset_in("ab\nçd", 2, 2), Some(5));
        assert_eq!(offset_in("ab", 1, 3), Some(2));
        assert_eq!(offset_in("ab", 1, 9), Some(2));
        assert_eq!(offset_in("ab", 2, 1), None);
        assert_eq!(offset_in("ab", 0, 1), None);
    }

    #[test]
    fn comprehensions_and_calls_are_guarded_but_accumulator_steps_are_not() {
        let env = crate::runtime::environment(crate::CelOptions::default());
        let compiled = compile(&env, "[1, 2].map(x, x + 1)").unwrap();
        let Expr::Call(size) = &compiled.expr().expr else {
            panic!("not guarded: {:?}", compiled.expr());
        };
        assert_eq!(size.func_name, SIZE_GUARD);
        let Expr::Comprehension(comprehension) = &size.args[0].expr else {
            panic!("not a comprehension: {size:?}");
        };
        let Expr::Call(range) = &comprehension.iter_range.expr else {
            panic!("range not guarded: {comprehension:?}");
        };
        assert_eq!(range.func_name, RANGE_GUARD);
        let Expr::Call(step) = &comprehension.loop_step.expr else {
            panic!("unexpected step: {comprehension:?}");
        };
        assert_eq!(step.func_name, "_+_", "the append step keeps its shape");
    }
}

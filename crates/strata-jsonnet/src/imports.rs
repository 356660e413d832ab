//! The imports a Jsonnet file writes (`import`, `importstr`, `importbin`
//! with a literal path), found by jrsonnet's own parser, so that comments,
//! strings and text blocks never pass for an import. An editor follows
//! them; a file that does not parse has none.
//!
//! The tree is walked with an explicit stack. The parser itself recurses:
//! call [`imports`] on the evaluation stack
//! ([`on_evaluation_stack`](crate::on_evaluation_stack)), once for many
//! files, as an evaluation is.

use std::ops::Range;

use jrsonnet_parser::{
    ArgsDesc, AssertStmt, BindSpec, CompSpec, Expr, FieldMember, FieldName, LocExpr, Member,
    ObjBody, ParamsDesc, ParserSettings, Source,
};

/// One import as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The bytes of the path's string literal, quotes included.
    pub range: Range<usize>,
    /// The path, as written.
    pub path: String,
}

/// Every import of `text` with a literal path, in the order written. Run
/// it on the evaluation stack (module docs).
#[must_use]
pub fn imports(text: &str) -> Vec<Import> {
    let settings = ParserSettings {
        source: Source::new_virtual("<imports>".into(), text.into()),
    };
    let Ok(root) = jrsonnet_parser::parse(text, &settings) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut pending = vec![root];
    while let Some(expr) = pending.pop() {
        children(&expr, &mut pending, &mut found);
    }
    found.sort_by_key(|import: &Import| import.range.start);
    found
}

/// Pushes the expressions directly below `expr` on `pending`, and records
/// `expr` itself when it is an import of a literal path.
fn children(expr: &LocExpr, pending: &mut Vec<LocExpr>, found: &mut Vec<Import>) {
    let mut push = |expr: &LocExpr| pending.push(expr.clone());
    match expr.expr() {
        Expr::Import(path) | Expr::ImportStr(path) | Expr::ImportBin(path) => {
            if let Expr::Str(text) = path.expr() {
                let span = path.span();
                found.push(Import {
                    range: span.1 as usize..span.2 as usize,
                    path: text.to_string(),
                });
            } else {
                push(path);
            }
        }
        Expr::Literal(_) | Expr::Str(_) | Expr::Num(_) | Expr::Var(_) => {}
        Expr::Arr(items) => items.iter().for_each(push),
        Expr::ArrComp(item, specs) => {
            push(item);
            comp_specs(specs, &mut push);
        }
        Expr::Obj(body) => object(body, &mut push),
        Expr::ObjExtend(base, body) => {
            push(base);
            object(body, &mut push);
        }
        Expr::Parened(inner)
        | Expr::UnaryOp(_, inner)
        | Expr::ErrorStmt(inner)
        | Expr::Function(_, inner) => {
            if let Expr::Function(params, _) = expr.expr() {
                parameters(params, &mut push);
            }
            push(inner);
        }
        Expr::BinaryOp(left, _, right) => {
            push(left);
            push(right);
        }
        Expr::AssertExpr(assertion, rest) => {
            assert_stmt(assertion, &mut push);
            push(rest);
        }
        Expr::LocalExpr(binds, rest) => {
            for bind in binds {
                bind_spec(bind, &mut push);
            }
            push(rest);
        }
        Expr::Apply(function, arguments, _) => {
            push(function);
            args(arguments, &mut push);
        }
        Expr::Index { indexable, parts } => {
            push(indexable);
            for part in parts {
                push(&part.value);
            }
        }
        Expr::IfElse {
            cond,
            cond_then,
            cond_else,
        } => {
            push(&cond.0);
            push(cond_then);
            cond_else.iter().for_each(push);
        }
        Expr::Slice(sliced, slice) => {
            push(sliced);
            [&slice.start, &slice.end, &slice.step]
                .into_iter()
                .flatten()
                .for_each(push);
        }
    }
}

fn object(body: &ObjBody, push: &mut impl FnMut(&LocExpr)) {
    match body {
        ObjBody::MemberList(members) => {
            for member in members {
                match member {
                    Member::Field(field) => field_member(field, push),
                    Member::BindStmt(bind) => bind_spec(bind, push),
                    Member::AssertStmt(assertion) => assert_stmt(assertion, push),
                }
            }
        }
        ObjBody::ObjComp(comprehension) => {
            comprehension
                .pre_locals
                .iter()
                .chain(&comprehension.post_locals)
                .for_each(|bind| bind_spec(bind, push));
            field_member(&comprehension.field, push);
            comp_specs(&comprehension.compspecs, push);
        }
    }
}

fn field_member(field: &FieldMember, push: &mut impl FnMut(&LocExpr)) {
    if let FieldName::Dyn(name) = &field.name {
        push(name);
    }
    if let Some(params) = &field.params {
        parameters(params, push);
    }
    push(&field.value);
}

fn bind_spec(bind: &BindSpec, push: &mut impl FnMut(&LocExpr)) {
    match bind {
        BindSpec::Field { value, .. } => push(value),
        BindSpec::Function { params, value, .. } => {
            parameters(params, push);
            push(value);
        }
    }
}

fn parameters(params: &ParamsDesc, push: &mut impl FnMut(&LocExpr)) {
    params
        .iter()
        .filter_map(|param| param.1.as_ref())
        .for_each(push);
}

fn args(arguments: &ArgsDesc, push: &mut impl FnMut(&LocExpr)) {
    arguments.unnamed.iter().for_each(&mut *push);
    arguments.named.iter().for_each(|(_, value)| push(value));
}

fn assert_stmt(assertion: &AssertStmt, push: &mut impl FnMut(&LocExpr)) {
    push(&assertion.0);
    assertion.1.iter().for_each(push);
}

fn comp_specs(specs: &[CompSpec], push: &mut impl FnMut(&LocExpr)) {
    for spec in specs {
        match spec {
            CompSpec::IfSpec(condition) => push(&condition.0),
            CompSpec::ForSpec(each) => push(&each.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Import, imports};

    #[test]
    fn imports_are_found_wherever_they_are_written() {
        crate::on_evaluation_stack(found_wherever_they_are_written);
    }

    fn found_wherever_they_are_written() {
        let text = r#"// import "not.libsonnet"
local a = import "a.libsonnet";
{
  b: importstr 'b.txt',
  /* importbin "nor.bin" */
  c: [x for x in (import "c.json")],
  d(p=import "d.libsonnet"):: p,
  e: "import \"e.libsonnet\"",
  f: import "f" + "g",
}
"#;
        let found: Vec<String> = imports(text)
            .into_iter()
            .map(|import| import.path)
            .collect();
        assert_eq!(found, ["a.libsonnet", "b.txt", "c.json", "d.libsonnet"]);
        let first = &imports(text)[0];
        assert_eq!(&text[first.range.clone()], "\"a.libsonnet\"");
        assert_eq!(
            imports("local x = import 'x.jsonnet'; x"),
            [Import {
                range: 17..28,
                path: "x.jsonnet".to_owned()
            }]
        );
        assert_eq!(imports("{ a: "), []);
    }
}

//! The parser's shapes, precedence and errors.

use super::*;

/// The expression with explicit parentheses.
fn shape(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Null => "null".to_owned(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Int(i) => i.to_string(),
        ExprKind::Float(f) => format!("{f:?}"),
        ExprKind::String(s) => format!("{s:?}"),
        ExprKind::List(items) => format!("[{}]", shapes(items)),
        ExprKind::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(key, value)| format!("{}: {}", shape(key), shape(value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Slice(target, from, to) => format!(
            "{}[{}:{}]",
            shape(target),
            from.as_deref().map(shape).unwrap_or_default(),
            to.as_deref().map(shape).unwrap_or_default()
        ),
        ExprKind::Method(target, name, args) => {
            format!("{}.{name}({})", shape(target), shapes(args))
        }
        ExprKind::Let(name, value, body) => {
            format!("(let {name} = {}; {})", shape(value), shape(body))
        }
        ExprKind::Sequence(items) => format!("({})", {
            let parts: Vec<String> = items.iter().map(shape).collect();
            parts.join("; ")
        }),
        ExprKind::Name(name) => name.clone(),
        ExprKind::Member(target, name) => format!("{}.{name}", shape(target)),
        ExprKind::Index(target, index) => format!("{}[{}]", shape(target), shape(index)),
        ExprKind::Call(name, args) => format!("{name}({})", shapes(args)),
        ExprKind::Unary(UnaryOp::Not, operand) => format!("(!{})", shape(operand)),
        ExprKind::Unary(UnaryOp::Negate, operand) => format!("(-{})", shape(operand)),
        ExprKind::Unary(UnaryOp::Plus, operand) => format!("(+{})", shape(operand)),
        ExprKind::Binary(op, left, right) => {
            format!("({} {} {})", shape(left), op.symbol(), shape(right))
        }
        ExprKind::Pointer(Pointer::Item) => "#".to_owned(),
        ExprKind::Pointer(Pointer::Accumulator) => "#acc".to_owned(),
        ExprKind::Pointer(Pointer::Index) => "#index".to_owned(),
        ExprKind::Conditional(condition, then, otherwise) => format!(
            "({} ? {} : {})",
            shape(condition),
            shape(then),
            shape(otherwise)
        ),
    }
}

fn shapes(items: &[Expr]) -> String {
    items.iter().map(shape).collect::<Vec<_>>().join(", ")
}

#[test]
fn expr_syntax_beyond_operators() {
    assert_eq!(
        parsed("{a: 1, 'b c': 2, 3: x, (k): 4,}"),
        "{\"a\": 1, \"b c\": 2, \"3\": x, k: 4}"
    );
    assert_eq!(
        parsed("a[1:-1] + a[:2] + a[3:] + a[:]"),
        "(((a[1:(-1)] + a[:2]) + a[3:]) + a[:])"
    );
    assert_eq!(
        parsed("let x = 1; let y = x; y"),
        "(let x = 1; (let y = x; y))"
    );
    assert_eq!(parsed("if a { 1 } else { 2 }"), "(a ? 1 : 2)");
    assert_eq!(parsed("a ?: b"), "(a ? true : b)");
    assert_eq!(parsed("s | lower() | split(' ')"), "split(lower(s), \" \")");
    assert_eq!(parsed("xs | map(# * 2)"), "map(xs, (# * 2))");
    assert_eq!(
        parsed("reduce(xs, #acc + #index, 0)"),
        "reduce(xs, (#acc + #index), 0)"
    );
    assert_eq!(
        parsed("filter(xs, { let y = #; y > 1 })"),
        "filter(xs, (let y = #; (y > 1)))"
    );
    assert_eq!(parsed("1 < x <= 3"), "((1 < x) && (x <= 3))");
    assert_eq!(parsed("a not contains 'b'"), "(!(a contains \"b\"))");
    assert_eq!(parsed("!a * b"), "(!(a * b))");
    assert_eq!(parsed("!a + b"), "((!a) + b)");
    assert_eq!(parsed("2 ^ 3"), "(2 ** 3)");
    assert_eq!(parsed("0x1F + 0o17 + 0b11 + .5"), "(((31 + 15) + 3) + 0.5)");
    assert_eq!(parsed("`raw\\n` // comment"), "\"raw\\\\n\"");
    assert_eq!(parsed("/* a */ 1 /* b */"), "1");
    assert_eq!(parsed("d.Year() + $env.x"), "(d.Year() + $env.x)");
    assert_eq!(parsed("1; 2;"), "(1; 2)");
    assert_eq!(parsed("a?.[0]?.b"), "a[0].b");
}

#[test]
fn powers_ranges_and_matches_bind_as_in_expr() {
    assert_eq!(parsed("-2 ** 2"), "(-(2 ** 2))");
    assert_eq!(parsed("2 ** 3 ** 2"), "(2 ** (3 ** 2))");
    assert_eq!(parsed("1 + 2 .. 4 * 2"), "((1 + 2) .. (4 * 2))");
    assert_eq!(parsed("a matches 'x' || b"), "((a matches \"x\") || b)");
}

#[test]
fn the_ternary_is_loosest_and_groups_to_the_right() {
    assert_eq!(parsed("a || b ? c : d"), "((a || b) ? c : d)");
    assert_eq!(parsed("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
    assert_eq!(parsed("a ?? b ? c : d"), "((a ?? b) ? c : d)");
    assert_eq!(
        parsed("x contains 'a' && y startsWith 'b'"),
        "((x contains \"a\") && (y startsWith \"b\"))"
    );
}

fn parsed(text: &str) -> String {
    shape(&parse(text).unwrap())
}

#[test]
fn precedence_follows_expr() {
    assert_eq!(parsed("a || b && c == d"), "(a || (b && (c == d)))");
    assert_eq!(parsed("a ?? b ?? c"), "((a ?? b) ?? c)");
    assert_eq!(parsed("2 * a ?? 1"), "(2 * (a ?? 1))");
    assert_eq!(parsed("!x.enabled ?? false"), "(!(x.enabled ?? false))");
    assert_eq!(
        parsed("(p == 'aws' || p == \"azure\") && c.e"),
        "(((p == \"aws\") || (p == \"azure\")) && c.e)"
    );
    assert_eq!(parsed("a - b - c"), "((a - b) - c)");
    assert_eq!(parsed("p in ['a', 'b']"), "(p in [\"a\", \"b\"])");
    assert_eq!(
        parsed("jsonnet('t.jsonnet').workers[0]"),
        "jsonnet(\"t.jsonnet\").workers[0]"
    );
    assert_eq!(parsed("not a and b or c"), "(((!a) && b) || c)");
    assert_eq!(parsed("1.5e3 + 1_000 + -2"), "((1500.0 + 1000) + (-2))");
    assert_eq!(parsed("nil == null"), "(null == null)");
    assert_eq!(
        parsed("'c' not in zones && x"),
        "((!(\"c\" in zones)) && x)"
    );
    assert_eq!(parsed("not a"), "(!a)");
    assert_eq!(parsed("'\\u00e9t\\u00E9'"), "\"été\"");
}

#[test]
fn ranges_cover_the_text() {
    let expr = parse("cluster.workers.count + 2").unwrap();
    assert_eq!(expr.range, 0..25);
    let ExprKind::Binary(_, left, right) = expr.kind else {
        panic!()
    };
    assert_eq!(left.range, 0..21);
    assert_eq!(right.range, 24..25);
}

#[test]
fn errors_point_at_the_character() {
    let error = |text: &str| {
        let e = parse(text).unwrap_err();
        (e.message, e.range)
    };
    assert_eq!(
        error("a = 'b'"),
        ("unexpected `=`; equality is `==`".to_owned(), 2..3)
    );
    assert_eq!(
        error("a & b"),
        ("unexpected `&`; did you mean `&&`?".to_owned(), 2..3)
    );
    assert_eq!(
        error("(a == b"),
        ("expected `)`, found end of the expression".to_owned(), 7..7)
    );
    assert_eq!(
        error("'open"),
        ("the string is not closed".to_owned(), 0..5)
    );
    assert_eq!(
        error("a b"),
        ("unexpected `b` after the expression".to_owned(), 2..3)
    );
    assert_eq!(error(""), ("the expression is empty".to_owned(), 0..0));
    assert_eq!(
        error("a."),
        (
            "expected a field name after `.`, found end of the expression".to_owned(),
            2..2
        )
    );
    assert_eq!(
        error("(x)(1)"),
        ("only a function name can be called".to_owned(), 0..3)
    );
    assert_eq!(
        error("a ?? b + 1"),
        (
            "`+` and `??` cannot be mixed; put either in parentheses".to_owned(),
            7..8
        )
    );
    assert_eq!(
        error("#item"),
        (
            "there is no `#item`: `#` is the item, `#index` its index, `#acc` the accumulator of `reduce`".to_owned(),
            0..5
        )
    );
    assert_eq!(
        error("x | y"),
        (
            "expected `(` after `y`: `|` passes its left side to a call".to_owned(),
            5..5
        )
    );
    assert_eq!(
        error("/* open"),
        ("the comment is not closed by `*/`".to_owned(), 0..7)
    );
    assert_eq!(
        error("99999999999999999999"),
        (
            "`99999999999999999999` is not a number this language can hold".to_owned(),
            0..20
        )
    );
    let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    assert!(error(&deep).0.contains("nested more than 128 deep"));
    // Chains nest as deep as they are long: operators and accessors.
    let chain = format!("{}true", "true && ".repeat(200));
    assert!(
        error(&chain)
            .0
            .contains("each operator or accessor of a chain")
    );
    let members = format!("a{}", ".b".repeat(200));
    assert!(
        error(&members)
            .0
            .contains("each operator or accessor of a chain")
    );
    assert!(parse(&format!("{}true", "true && ".repeat(100))).is_ok());
}

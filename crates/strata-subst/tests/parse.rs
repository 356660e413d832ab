//! The parser, production by production: each test writes a field text and
//! the tree it gives, with the byte range of every node, or the problems it
//! gives, each with its code and exact byte range.
//!
//! Trees are written as one line (see [`tree`]): `"text"@0..2` for literal
//! text, `${expr}@2..9` for a substitution, and each expression followed by
//! `@range`: literals as Rust writes them, `(call name@r (args) accessors)`,
//! `(variable name@r)`, `(value name@r accessors)`, `(datasource name@r
//! field@r index)`, `(child name@r accessors)`, `(resource name@r
//! accessors)` for `resources.name`, `(bare-resource name@r accessors)` for
//! a resource by its bare name, `(elem accessors)`, `(i)`, `(bare name@r)`.
//! Accessors are `.name@r` (`r` the name's range, without quotes or
//! brackets), `[3]@r` and `[]@r` (`r` from `[` to `]`).
#![expect(clippy::panic, reason = "a test stops at the first surprise")]

use std::ops::Range;

use strata_subst::codes;
use strata_subst::{
    Accessor, Expr, ExprKind, Literal, MAX_DEPTH, MAX_LENGTH, Part, Reference, SubstError,
    Template, parse_expr, parse_template,
};

// ---------------------------------------------------------------------------
// Helpers

fn accessors(path: &[Accessor]) -> String {
    path.iter()
        .map(|accessor| match accessor {
            Accessor::Field(name) => format!(" .{}@{:?}", name.text, name.range),
            Accessor::Index { index: None, range } => format!(" []@{range:?}"),
            Accessor::Index {
                index: Some(index),
                range,
            } => format!(" [{index}]@{range:?}"),
        })
        .collect()
}

fn expr(expr: &Expr) -> String {
    let kind = match &expr.kind {
        ExprKind::Literal(Literal::Bool(value)) => format!("{value}"),
        ExprKind::Literal(Literal::Int(value)) => format!("{value}"),
        ExprKind::Literal(Literal::Float(value)) => format!("{value:?}"),
        ExprKind::Literal(Literal::String(text)) => format!("{text:?}"),
        ExprKind::Bare(name) => format!("(bare {}@{:?})", name.text, name.range),
        ExprKind::Reference(reference) => match reference {
            Reference::Variable { name } => format!("(variable {}@{:?})", name.text, name.range),
            Reference::Value { name, path } => {
                format!("(value {}@{:?}{})", name.text, name.range, accessors(path))
            }
            Reference::Datasource { name, field, index } => format!(
                "(datasource {}@{:?} {}@{:?}{})",
                name.text,
                name.range,
                field.text,
                field.range,
                accessors(index.as_slice())
            ),
            Reference::Child { name, path } => {
                format!("(child {}@{:?}{})", name.text, name.range, accessors(path))
            }
            Reference::Resource {
                name,
                prefixed,
                path,
            } => format!(
                "({} {}@{:?}{})",
                if *prefixed {
                    "resource"
                } else {
                    "bare-resource"
                },
                name.text,
                name.range,
                accessors(path)
            ),
            Reference::Elem { path } => format!("(elem{})", accessors(path)),
            Reference::ElemIndex => "(i)".to_owned(),
        },
        ExprKind::Call(call) => {
            let args: Vec<String> = call
                .args
                .iter()
                .map(|argument| match &argument.name {
                    Some(name) => format!(
                        "{}@{:?} = {}",
                        name.text,
                        name.range,
                        self::expr(&argument.value)
                    ),
                    None => self::expr(&argument.value),
                })
                .collect();
            format!(
                "(call {}@{:?} ({}){})",
                call.function.text,
                call.function.range,
                args.join(", "),
                accessors(&call.path)
            )
        }
    };
    format!("{kind}@{:?}", expr.range)
}

/// A template as one line, every node with its range.
fn tree(template: &Template) -> String {
    template
        .parts
        .iter()
        .map(|part| match part {
            Part::Text { text, range } => format!("{text:?}@{range:?}"),
            Part::Substitution(substitution) => {
                format!(
                    "${{{}}}@{:?}",
                    self::expr(&substitution.expr),
                    substitution.range
                )
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn parse(text: &str) -> Template {
    parse_template(text).unwrap_or_else(|errors| panic!("`{text}` does not parse: {errors:?}"))
}

/// `text` parses to `expected`, which prints back to `text` when `text` is
/// canonical.
#[track_caller]
fn check(text: &str, expected: &str) {
    assert_eq!(tree(&parse(text)), expected, "the tree of `{text}`");
}

/// `text` parses and its canonical printing is `printed`.
#[track_caller]
fn prints(text: &str, printed: &str) {
    assert_eq!(parse(text).to_string(), printed, "the printing of `{text}`");
}

/// The one substitution's expression.
fn single(text: &str) -> Expr {
    let template = parse(text);
    match template.as_single() {
        Some(substitution) => substitution.expr.clone(),
        None => panic!("`{text}` is not one substitution"),
    }
}

fn errors(text: &str) -> Vec<SubstError> {
    match parse_template(text) {
        Ok(template) => panic!("`{text}` parses as {}", tree(&template)),
        Err(errors) => errors,
    }
}

/// `text` gives exactly these problems, as (code, range).
#[track_caller]
fn fails(text: &str, expected: &[(strata_syntax::Code, Range<usize>)]) {
    let found: Vec<(strata_syntax::Code, Range<usize>)> = errors(text)
        .into_iter()
        .map(|error| (error.code, error.range))
        .collect();
    assert_eq!(found, expected, "the problems of `{text}`");
}

/// `text` gives one problem; it is returned.
#[track_caller]
fn fails_once(text: &str, code: strata_syntax::Code, range: Range<usize>) -> SubstError {
    let mut found = errors(text);
    assert_eq!(found.len(), 1, "one problem in `{text}`: {found:?}");
    let error = found.remove(0);
    assert_eq!((error.code, error.range.clone()), (code, range), "`{text}`");
    error
}

/// The range of the one occurrence of `needle` in `text`.
fn range_of(text: &str, needle: &str) -> Range<usize> {
    let start = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` is not in `{text}`"));
    assert_eq!(
        text.rfind(needle),
        Some(start),
        "`{needle}` twice in `{text}`"
    );
    start..start + needle.len()
}

// ---------------------------------------------------------------------------
// Literals

#[test]
fn booleans() {
    check("${true}", "${true@2..6}@0..7");
    check("${false}", "${false@2..7}@0..8");
}

#[test]
fn integers() {
    check("${42}", "${42@2..4}@0..5");
    check("${0}", "${0@2..3}@0..4");
    check("${-7}", "${-7@2..4}@0..5");
    check(
        "${9223372036854775807}",
        "${9223372036854775807@2..21}@0..22",
    );
    check(
        "${-9223372036854775808}",
        "${-9223372036854775808@2..22}@0..23",
    );
    // Leading zeros are digits like any other.
    check("${007}", "${7@2..5}@0..6");
}

#[test]
fn floats() {
    check("${3.25}", "${3.25@2..6}@0..7");
    check("${-0.5}", "${-0.5@2..6}@0..7");
    check("${10.0}", "${10.0@2..6}@0..7");
    assert_eq!(
        single("${0.1}").kind,
        ExprKind::Literal(Literal::Float(0.1))
    );
    assert_eq!(
        single("${-123.000456}").kind,
        ExprKind::Literal(Literal::Float(-123.000_456))
    );
}

#[test]
fn strings() {
    let text = r#"${"a \"q\" b"}"#;
    let literal = single(text);
    assert_eq!(
        literal.kind,
        ExprKind::Literal(Literal::String("a \"q\" b".into()))
    );
    assert_eq!(literal.range, 2..13);
    assert_eq!(
        parse(text).as_single().map(|s| s.range.clone()),
        Some(0..14)
    );

    // A backslash not before a quote stands for itself.
    assert_eq!(
        single(r#"${"a\b\\c"}"#).kind,
        ExprKind::Literal(Literal::String(r"a\b\\c".into()))
    );
    // `\\"` is a backslash and an escaped quote.
    assert_eq!(
        single(r#"${"\\""}"#).kind,
        ExprKind::Literal(Literal::String(r#"\""#.into()))
    );
    // Braces, `${` and line breaks inside a string are its characters.
    assert_eq!(
        single("${\"}{${x}\n\"}").kind,
        ExprKind::Literal(Literal::String("}{${x}\n".into()))
    );
    check(r#"${""}"#, r#"${""@2..4}@0..5"#);
    // Ranges are in bytes.
    check(r#"${"héllo"}"#, r#"${"héllo"@2..10}@0..11"#);
}

// ---------------------------------------------------------------------------
// Function calls

#[test]
fn call_without_arguments() {
    check("${cwd()}", "${(call cwd@2..5 ())@2..7}@0..8");
}

#[test]
fn call_with_positional_arguments() {
    check(
        r#"${substr("abc", 1, 2)}"#,
        r#"${(call substr@2..8 ("abc"@9..14, 1@16..17, 2@19..20))@2..21}@0..22"#,
    );
}

#[test]
fn call_with_named_arguments() {
    check(
        r#"${object(a = 1, b = "x")}"#,
        r#"${(call object@2..8 (a@9..10 = 1@13..14, b@16..17 = "x"@20..23))@2..24}@0..25"#,
    );
    // Named and positional mix in the grammar; the check refuses it.
    check(
        "${f(1, k=true)}",
        "${(call f@2..3 (1@4..5, k@7..8 = true@9..13))@2..14}@0..15",
    );
}

#[test]
fn nested_calls() {
    check(
        r#"${join(split(values.x, ","), "-")}"#,
        r#"${(call join@2..6 ((call split@7..12 ((value x@20..21)@13..21, ","@23..26))@7..27, "-"@29..32))@2..33}@0..34"#,
    );
    check(
        "${map(xs.spec, trim)}",
        "${(call map@2..5 ((bare-resource xs@6..8 .spec@9..13)@6..13, (bare trim@15..19)@15..19))@2..20}@0..21",
    );
}

#[test]
fn accessors_after_calls() {
    check(
        r#"${jsondecode("[]")[0].a["b.c"][]}"#,
        r#"${(call jsondecode@2..12 ("[]"@13..17) [0]@18..21 .a@22..23 .b.c@25..28 []@30..32)@2..32}@0..33"#,
    );
    // The seed's example.
    check(
        r#"${map(variables.hosts, trimprefix_g("http://"))[0]}"#,
        r#"${(call map@2..5 ((variable hosts@16..21)@6..21, (call trimprefix_g@23..35 ("http://"@36..45))@23..46) [0]@47..50)@2..50}@0..51"#,
    );
}

#[test]
fn whitespace_and_line_breaks_between_tokens() {
    check(
        "${ \n join ( split ( \"a\" , \",\" ) ,\n\t\"-\" ) \n}",
        r#"${(call join@5..9 ((call split@12..17 ("a"@20..23, ","@26..29))@12..31, "-"@35..38))@5..40}@0..43"#,
    );
    check(
        r#"${values . a [ 0 ] [ "b" ]}"#,
        "${(value a@11..12 [0]@13..18 .b@22..23)@2..26}@0..27",
    );
    check(
        "${ object ( k\n=\n1 ) }",
        "${(call object@3..9 (k@12..13 = 1@16..17))@3..19}@0..21",
    );
}

#[test]
fn ranges_end_at_the_last_token_not_at_the_spaces_after_it() {
    check("${ cwd()  }", "${(call cwd@3..6 ())@3..8}@0..11");
    check(
        "${ len(x.y) }",
        "${(call len@3..6 ((bare-resource x@7..8 .y@9..10)@7..10))@3..11}@0..13",
    );
    check("${ i }", "${(i)@3..4}@0..6");
    check("${ elem [] }", "${(elem []@8..10)@3..10}@0..12");
}

// ---------------------------------------------------------------------------
// References

#[test]
fn variable_references() {
    check("${variables.env}", "${(variable env@12..15)@2..15}@0..16");
    check(
        r#"${variables["my.var"]}"#,
        "${(variable my.var@13..19)@2..21}@0..22",
    );
    check("${variables._a-1}", "${(variable _a-1@12..16)@2..16}@0..17");
}

#[test]
fn value_references() {
    check(
        "${values.cfg.buckets[0].name}",
        "${(value cfg@9..12 .buckets@13..20 [0]@20..23 .name@24..28)@2..28}@0..29",
    );
    check(
        "${values.hosts[]}",
        "${(value hosts@9..14 []@14..16)@2..16}@0..17",
    );
    check(
        r#"${values["a.b"]["c"]}"#,
        "${(value a.b@10..13 .c@17..18)@2..20}@0..21",
    );
    check("${values.x}", "${(value x@9..10)@2..10}@0..11");
}

#[test]
fn datasource_references() {
    check(
        "${datasources.network.vpc}",
        "${(datasource network@14..21 vpc@22..25)@2..25}@0..26",
    );
    check(
        "${datasources.network.subnets[]}",
        "${(datasource network@14..21 subnets@22..29 []@29..31)@2..31}@0..32",
    );
    check(
        r#"${datasources["net.work"]["sub.nets"][2]}"#,
        "${(datasource net.work@15..23 sub.nets@27..35 [2]@37..40)@2..40}@0..41",
    );
}

#[test]
fn child_references() {
    check(
        "${children.coreInfra.ordersTopicInfo.arn}",
        "${(child coreInfra@11..20 .ordersTopicInfo@21..36 .arn@37..40)@2..40}@0..41",
    );
    check(
        "${children.core[1]}",
        "${(child core@11..15 [1]@15..18)@2..18}@0..19",
    );
}

#[test]
fn resource_references() {
    check(
        "${resources.cacheCluster.state.hostConfig[].hostInfo.endpoints[]}",
        "${(resource cacheCluster@12..24 .state@25..30 .hostConfig@31..41 []@41..43 .hostInfo@44..52 .endpoints@53..62 []@62..64)@2..64}@0..65",
    );
    check(
        "${resources.cache}",
        "${(resource cache@12..17)@2..17}@0..18",
    );
    check(
        r#"${resources["my.cache"].spec}"#,
        "${(resource my.cache@13..21 .spec@24..28)@2..28}@0..29",
    );
    check(
        "${cacheCluster.spec.clusterSize}",
        "${(bare-resource cacheCluster@2..14 .spec@15..19 .clusterSize@20..31)@2..31}@0..32",
    );
    check(
        r#"${cacheClusters[1].metadata.annotations["my.populate"]}"#,
        "${(bare-resource cacheClusters@2..15 [1]@15..18 .metadata@19..27 .annotations@28..39 .my.populate@41..52)@2..54}@0..55",
    );
    check(
        "${_my-res.spec}",
        "${(bare-resource _my-res@2..9 .spec@10..14)@2..14}@0..15",
    );
}

#[test]
fn elem_and_index_references() {
    check("${elem}", "${(elem)@2..6}@0..7");
    check(
        r#"${elem["config"].attrs[0]}"#,
        "${(elem .config@8..14 .attrs@17..22 [0]@22..25)@2..25}@0..26",
    );
    check("${elem[]}", "${(elem []@6..8)@2..8}@0..9");
    check("${i}", "${(i)@2..3}@0..4");
}

#[test]
fn bare_names() {
    check("${cache}", "${(bare cache@2..7)@2..7}@0..8");
    check("${trim}", "${(bare trim@2..6)@2..6}@0..7");
    // Names that only start like a keyword are names.
    check(
        "${items.spec}",
        "${(bare-resource items@2..7 .spec@8..12)@2..12}@0..13",
    );
    check("${truex}", "${(bare truex@2..7)@2..7}@0..8");
    check("${elements}", "${(bare elements@2..10)@2..10}@0..11");
}

#[test]
fn keywords_followed_by_parentheses_are_calls() {
    check("${values()}", "${(call values@2..8 ())@2..10}@0..11");
    check("${i(1)}", "${(call i@2..3 (1@4..5))@2..6}@0..7");
}

// ---------------------------------------------------------------------------
// Text outside `${..}`

#[test]
fn plain_text() {
    check("plain text", r#""plain text"@0..10"#);
    let empty = parse("");
    assert!(empty.parts.is_empty());
    assert!(!empty.has_substitutions());
    check("{ } \" }", r#""{ } \" }"@0..7"#);
    check("a $ b $", r#""a $ b $"@0..7"#);
    check("$", r#""$"@0..1"#);
    check("$$", r#""$$"@0..2"#);
    check("é${i}ü", r#""é"@0..2 ${(i)@4..5}@2..6 "ü"@6..8"#);
}

#[test]
fn interpolations() {
    check(
        "a-${variables.x}-b",
        r#""a-"@0..2 ${(variable x@14..15)@4..15}@2..16 "-b"@16..18"#,
    );
    check("${i}${i}", "${(i)@2..3}@0..4 ${(i)@6..7}@4..8");
    check("a\n${i}\nb", r#""a\n"@0..2 ${(i)@4..5}@2..6 "\nb"@6..8"#);
    let template = parse("x${i}y${elem}z");
    assert_eq!(template.substitutions().count(), 2);
    assert!(template.has_substitutions());
}

#[test]
fn there_is_no_escape_every_dollar_brace_opens_a_substitution() {
    check("$${i}", r#""$"@0..1 ${(i)@3..4}@1..5"#);
    check(
        "cost $5, $$ and $${i}",
        r#""cost $5, $$ and $"@0..17 ${(i)@19..20}@17..21"#,
    );
    prints("$${i}", "$${i}");
    prints("$$${i}", "$$${i}");
}

#[test]
fn as_single() {
    assert_eq!(
        parse("${i}").as_single().map(|s| s.range.clone()),
        Some(0..4)
    );
    assert!(parse(" ${i}").as_single().is_none());
    assert!(parse("${i} ").as_single().is_none());
    assert!(parse("${i}${i}").as_single().is_none());
    assert!(parse("").as_single().is_none());
    assert!(parse("text").as_single().is_none());
    let dollar = parse("$${i}");
    assert!(dollar.as_single().is_none());
    assert!(dollar.has_substitutions());
}

// ---------------------------------------------------------------------------
// Printing

#[test]
fn canonical_printing() {
    prints(
        "${ join ( list( \"a\" ,\"b\" ) , \"-\" ) }",
        r#"${join(list("a", "b"), "-")}"#,
    );
    prints("${object(a=1,b=2.50)}", "${object(a = 1, b = 2.5)}");
    prints(
        r#"${values["plain"]["not.plain"]}"#,
        r#"${values.plain["not.plain"]}"#,
    );
    prints(r#"${resources["x"].spec}"#, "${resources.x.spec}");
    prints("${x.spec}", "${x.spec}");
    prints(r#"${resources["a.b"].spec}"#, r#"${resources["a.b"].spec}"#);
    prints("${007}", "${7}");
    prints("${10.0}", "${10.0}");
    prints("${-0.0}", "${-0.0}");
    prints(r#"${"a\"b\c"}"#, r#"${"a\"b\c"}"#);
    prints("a${i}$${b.spec}", "a${i}$${b.spec}");
}

// ---------------------------------------------------------------------------
// Problems

#[test]
fn unclosed_substitution() {
    let error = fails_once("a ${variables.x", codes::UNCLOSED, 2..4);
    assert_eq!(error.message, "this `${` is never closed: a `}` is missing");
    fails_once("${", codes::UNCLOSED, 0..2);
    // The only `}` is inside a string literal (which is closed).
    fails_once(r#"${"}""#, codes::UNCLOSED, 0..2);
    fails_once("${i} ${", codes::UNCLOSED, 5..7);
    // A string left open hides the `}`: the string is the problem.
    let error = fails_once(r#"${"abc}"#, codes::SYNTAX, 2..7);
    assert_eq!(
        error.message,
        "this string literal is not closed: a `\"` is missing"
    );
}

#[test]
fn empty_substitution() {
    let error = fails_once("${}", codes::EMPTY, 0..3);
    assert_eq!(error.message, "`${}` holds no substitution");
    fails_once("x ${  \n } y", codes::EMPTY, 2..9);
}

#[test]
fn unterminated_string() {
    // In a field text an open string hides the closing `}` (above); in an
    // expression it is reported as such.
    let error = parse_expr(r#""abc"#).unwrap_err();
    assert_eq!((error.code, error.range), (codes::SYNTAX, 0..4));
    assert_eq!(
        error.message,
        "this string literal is not closed: a `\"` is missing"
    );
    let error = parse_expr(r#"len("a\")"#).unwrap_err();
    assert_eq!((error.code, error.range), (codes::SYNTAX, 4..9));
}

#[test]
fn characters_outside_the_language() {
    let error = fails_once("${a + b}", codes::SYNTAX, 4..5);
    assert_eq!(
        error.message,
        "`+` is not part of the substitution language"
    );
    // A character's whole encoding.
    fails_once("${é}", codes::SYNTAX, 2..4);
    fails_once("${values.é}", codes::SYNTAX, 9..11);
    fails_once("${@}", codes::SYNTAX, 2..3);
    fails_once("${'a'}", codes::SYNTAX, 2..3);
    fails_once("${-}", codes::SYNTAX, 2..3);
    fails_once("${- 1}", codes::SYNTAX, 2..3);
}

#[test]
fn unexpected_tokens() {
    let error = fails_once("${a b}", codes::SYNTAX, 4..5);
    assert_eq!(
        error.message,
        "expected `}` to close the substitution, or an accessor, found `b`"
    );
    let error = fails_once("${f(1,)}", codes::SYNTAX, 6..7);
    assert_eq!(
        error.message,
        "expected a function call, a reference or a literal, found `)`"
    );
    let error = fails_once("${f(1 2)}", codes::SYNTAX, 6..7);
    assert_eq!(
        error.message,
        "expected `,` or `)` after an argument, found a number"
    );
    let error = fails_once("${values.}", codes::SYNTAX, 9..10);
    assert_eq!(error.message, "expected a name after `.`, found `}`");
    let error = fails_once("${values[}", codes::SYNTAX, 9..10);
    assert_eq!(
        error.message,
        "expected an index, a quoted name or `]` after `[`, found `}`"
    );
    fails_once("${values[1.5]}", codes::SYNTAX, 9..12);
    let error = fails_once("${values[1}", codes::SYNTAX, 10..11);
    assert_eq!(error.message, "expected `]` after the index, found `}`");
    let error = fails_once(r#"${values["a"}"#, codes::SYNTAX, 12..13);
    assert_eq!(
        error.message,
        "expected `]` after the quoted name, found `}`"
    );
    fails_once("${.x}", codes::SYNTAX, 2..3);
    fails_once("${x)}", codes::SYNTAX, 3..4);
    fails_once("${f(a = )}", codes::SYNTAX, 8..9);
    fails_once("${f(}", codes::SYNTAX, 4..5);
    fails_once("${1.5.3}", codes::SYNTAX, 5..6);
    fails_once("${true.x}", codes::SYNTAX, 6..7);
    fails_once(r#"${"a"[0]}"#, codes::SYNTAX, 5..6);
    // A call's result is never called.
    fails_once("${f()()}", codes::FUNCTION_VALUE, 2..6);
    fails_once("${x = 1}", codes::SYNTAX, 4..5);
}

#[test]
fn numbers_out_of_range() {
    let error = fails_once("${99999999999999999999}", codes::SYNTAX, 2..22);
    assert_eq!(
        error.message,
        "`99999999999999999999` does not fit in a 64-bit number"
    );
    fails_once("${9223372036854775808}", codes::SYNTAX, 2..21);
    fails_once("${-9223372036854775809}", codes::SYNTAX, 2..22);
    let huge = format!("${{1{}.0}}", "0".repeat(400));
    fails_once(&huge, codes::SYNTAX, 2..huge.len() - 1);
    let error = fails_once("${values.x[-1]}", codes::SYNTAX, 11..13);
    assert_eq!(error.message, "an index is a natural number");
    fails_once("${values.x[99999999999999999999]}", codes::SYNTAX, 11..31);
}

#[test]
fn variables_take_one_name_and_no_accessor() {
    let error = fails_once("${variables.x.y}", codes::REFERENCE, 14..15);
    assert_eq!(
        error.message,
        "variables are primitives: `variables.x` takes no accessor"
    );
    assert_eq!(
        error.help.as_deref(),
        Some("to read into a JSON string, use `fromjson(variables.NAME, \"/path\")`")
    );
    // From the first extra accessor to the end of the reference.
    fails_once("${variables.x[0].y}", codes::REFERENCE, 13..18);
    fails_once(r#"${variables.x["y"]}"#, codes::REFERENCE, 15..18);
    let error = fails_once("${variables[0]}", codes::REFERENCE, 11..14);
    assert_eq!(
        error.message,
        "`variables` is followed by a variable's name, not an index"
    );
    let error = fails_once("${variables}", codes::REFERENCE, 2..11);
    assert_eq!(
        error.message,
        "`variables` must be followed by a variable's name, as `variables.NAME`"
    );
}

#[test]
fn values_need_a_name() {
    fails_once("${values}", codes::REFERENCE, 2..8);
    fails_once("${values[]}", codes::REFERENCE, 8..10);
    fails_once("${resources}", codes::REFERENCE, 2..11);
    fails_once("${resources[0].spec}", codes::REFERENCE, 11..14);
    fails_once("${children}", codes::REFERENCE, 2..10);
}

#[test]
fn datasources_take_a_name_a_field_and_at_most_one_index() {
    let error = fails_once("${datasources.d}", codes::REFERENCE, 2..13);
    assert_eq!(
        error.help.as_deref(),
        Some("a data source is referenced as `datasources.NAME.FIELD`")
    );
    fails_once("${datasources}", codes::REFERENCE, 2..13);
    fails_once("${datasources.d[0]}", codes::REFERENCE, 15..18);
    let error = fails_once("${datasources.d.f.g}", codes::REFERENCE, 18..19);
    assert_eq!(
        error.message,
        "a data source field takes at most one index accessor (`[n]`), not a field"
    );
    let error = fails_once("${datasources.d.f[0][1]}", codes::REFERENCE, 20..23);
    assert_eq!(
        error.message,
        "a data source field takes at most one index accessor"
    );
    fails_once("${datasources.d.f[0][1].x}", codes::REFERENCE, 20..25);
}

#[test]
fn children_need_an_accessor_after_the_name() {
    let error = fails_once("${children.c}", codes::REFERENCE, 2..12);
    assert_eq!(
        error.message,
        "`children.c` needs the export to read, as `children.c.EXPORT`"
    );
    fails_once(r#"${children["c.d"]}"#, codes::REFERENCE, 2..17);
}

#[test]
fn the_index_takes_no_accessor() {
    let error = fails_once("${i.x}", codes::REFERENCE, 4..5);
    assert_eq!(
        error.message,
        "`i` is the index of the current `each` item, an integer: it takes no accessor"
    );
    fails_once("${i[0]}", codes::REFERENCE, 3..6);
    fails_once("${i[].a}", codes::REFERENCE, 3..7);
}

#[test]
fn quoted_names() {
    let message = "a quoted name holds letters, digits, `_`, `-` and `.`, at least one";
    let error = fails_once(r#"${values["a b"]}"#, codes::SYNTAX, 9..14);
    assert_eq!(error.message, message);
    fails_once(r#"${values[""]}"#, codes::SYNTAX, 9..11);
    fails_once(r#"${values["a\"b"]}"#, codes::SYNTAX, 9..15);
    fails_once(r#"${values["a/b"]}"#, codes::SYNTAX, 9..14);
    fails_once(r#"${values["é"]}"#, codes::SYNTAX, 9..13);
    fails_once(r#"${values["a}b"]}"#, codes::SYNTAX, 9..14);
    // Digits and dots may start a quoted name.
    check(r#"${values["1.x"]}"#, "${(value 1.x@10..13)@2..15}@0..16");
}

#[test]
fn texts_longer_than_the_bound() {
    let longest = "a".repeat(MAX_LENGTH);
    assert!(parse_template(&longest).is_ok());
    let text = "a".repeat(MAX_LENGTH + 1);
    let error = fails_once(&text, codes::TOO_LONG, 0..MAX_LENGTH + 1);
    assert_eq!(
        error.message,
        format!(
            "the text is {} bytes long, longer than the {MAX_LENGTH} bytes a field may hold",
            MAX_LENGTH + 1
        )
    );
    let error = parse_expr(&text).unwrap_err();
    assert_eq!(
        (error.code, error.range),
        (codes::TOO_LONG, 0..MAX_LENGTH + 1)
    );
}

fn nested(depth: usize) -> String {
    format!("${{{}1{}}}", "f(".repeat(depth), ")".repeat(depth))
}

#[test]
fn calls_nested_deeper_than_the_bound() {
    assert!(parse_template(&nested(MAX_DEPTH)).is_ok());
    let text = nested(MAX_DEPTH + 1);
    // The call one level too deep, from its name to its `(`.
    let start = 2 + 2 * MAX_DEPTH;
    let error = fails_once(&text, codes::TOO_DEEP, start..start + 2);
    assert_eq!(
        error.message,
        format!("calls are nested more than {MAX_DEPTH} deep")
    );
    // Far deeper: still one problem, no exhausted stack.
    let text = nested(20_000);
    fails_once(&text, codes::TOO_DEEP, start..start + 2);
    // Siblings do not add up.
    let siblings = format!("${{f({})}}", vec!["g(1)"; 200].join(", "));
    assert!(parse_template(&siblings).is_ok());
}

#[test]
fn every_broken_substitution_is_reported() {
    let text = r#"${a b} ok ${} and ${variables.x.y} then ${"x"#;
    fails(
        text,
        &[
            (codes::SYNTAX, 4..5),
            (codes::EMPTY, range_of(text, "${}")),
            (codes::REFERENCE, 32..33),
            (codes::SYNTAX, 42..44),
        ],
    );
    // Good substitutions between broken ones are not reported.
    let text = "${f(} ${i} ${values[-1]} ${g(,)}";
    fails(
        text,
        &[
            (codes::SYNTAX, 4..5),
            (codes::SYNTAX, 20..22),
            (codes::SYNTAX, 29..30),
        ],
    );
}

#[test]
fn parse_expr_reads_one_whole_expression() {
    let expr = parse_expr("len(values.x)").unwrap();
    assert_eq!(expr.range, 0..13);
    assert_eq!(expr.to_string(), "len(values.x)");
    assert_eq!(parse_expr(" i ").unwrap().range, 1..2);
    let error = parse_expr("").unwrap_err();
    assert_eq!((error.code, error.range), (codes::SYNTAX, 0..0));
    assert_eq!(
        error.message,
        "expected a function call, a reference or a literal, found the end of the text"
    );
    let error = parse_expr("a b").unwrap_err();
    assert_eq!(
        (error.code, error.range, error.message.as_str()),
        (
            codes::SYNTAX,
            2..3,
            "expected the end of the expression, found `b`"
        )
    );
    let error = parse_expr("${i}").unwrap_err();
    assert_eq!((error.code, error.range), (codes::SYNTAX, 0..1));
    let error = parse_expr("i}").unwrap_err();
    assert_eq!((error.code, error.range), (codes::SYNTAX, 1..2));
    let error = parse_expr("variables.a.b").unwrap_err();
    assert_eq!((error.code, error.range), (codes::REFERENCE, 12..13));
}

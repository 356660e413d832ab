//! The static checks of calls through `check_template`: unknown
//! functions, arity, named arguments, argument and result types.

use std::ops::Range;

use strata_subst::codes;
use strata_subst::{Name, Reference, Scope, SubstError, Types, check_template, parse_template};

pub(super) fn check(text: &str) -> (Types, Vec<SubstError>) {
    let template = parse_template(text).unwrap_or_else(|errors| panic!("`{text}`: {errors:?}"));
    check_template(&template, &TestScope)
}

/// `text` checks with the type `types` and no problem.
#[track_caller]
pub(super) fn checks(text: &str, types: Types) {
    let (found, errors) = check(text);
    assert!(errors.is_empty(), "`{text}`: {errors:?}");
    assert_eq!(found, types, "`{text}`");
}

/// `text` gives exactly these problems, as (code, range).
#[track_caller]
pub(super) fn problems(
    text: &str,
    expected: &[(strata_syntax::Code, Range<usize>)],
) -> Vec<SubstError> {
    let (_, errors) = check(text);
    let found: Vec<(strata_syntax::Code, Range<usize>)> = errors
        .iter()
        .map(|error| (error.code, error.range.clone()))
        .collect();
    assert_eq!(found, expected, "`{text}`: {errors:?}");
    errors
}

#[test]
fn check_types_of_fields() {
    checks(r#"${len("x")}"#, Types::INTEGER);
    checks("${variables.count}", Types::INTEGER);
    checks("${variables.region}", Types::STRING);
    checks("a-${variables.count}", Types::STRING);
    checks("text", Types::STRING);
    checks(r#"${fromjson("{}", "/a")}"#, Types::ANY);
    checks(r#"${split("a", ",")[0]}"#, Types::ANY);
    checks("${list()}", Types::ARRAY);
    checks("${object(a = 1)}", Types::OBJECT);
    checks("${map(values.hosts, trim)}", Types::ARRAY);
    checks("${map(values.any, values.any)}", Types::ARRAY);
    checks("${link(orders, queue)}", Types::OBJECT);
    checks(r#"${link("orders", resources.queue)}"#, Types::OBJECT);
    checks(r#"${datetime("tag")}"#, Types::STRING);
    checks("${list(1, 2.5)}", Types::ARRAY);
    checks("${list(values.any, 1)}", Types::ARRAY);
    checks("${elem.x}", Types::ANY);
}

#[test]
fn check_unknown_functions() {
    let errors = problems(
        r#"${jion(list("a"), ",")}"#,
        &[(codes::UNKNOWN_FUNCTION, 2..6)],
    );
    assert_eq!(errors[0].message, "there is no function `jion`");
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `join`?"));
    let errors = problems("${frobnicate()}", &[(codes::UNKNOWN_FUNCTION, 2..12)]);
    assert_eq!(errors[0].help, None);
    // The arguments are still checked.
    problems(
        "${frobnicate(len(1))}",
        &[
            (codes::UNKNOWN_FUNCTION, 2..12),
            (codes::ARGUMENT_TYPE, 17..18),
        ],
    );
    let errors = problems(
        r#"${map(list("a"), trimm)}"#,
        &[(codes::UNKNOWN_FUNCTION, 17..22)],
    );
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `trim`?"));
}

#[test]
fn check_arity() {
    let errors = problems(r#"${substr("a")}"#, &[(codes::ARITY, 2..8)]);
    assert_eq!(
        errors[0].message,
        "`substr` takes 2 to 3 arguments, given 1"
    );
    assert_eq!(
        errors[0].notes,
        ["signature: substr(text: string, start: integer, end?: integer) -> string"]
    );
    let errors = problems(r#"${trim("a", "b", "c")}"#, &[(codes::ARITY, 12..20)]);
    assert_eq!(errors[0].message, "`trim` takes 1 argument, given 3");
    let errors = problems("${cwd(1)}", &[(codes::ARITY, 6..7)]);
    assert_eq!(errors[0].message, "`cwd` takes 0 arguments, given 1");
    // A field that holds a function is a second problem.
    let errors = problems(
        "${compose()}",
        &[(codes::ARITY, 2..9), (codes::FUNCTION_VALUE, 0..12)],
    );
    assert_eq!(
        errors[0].message,
        "`compose` takes at least 1 argument, given 0"
    );
    problems("${reduce(list(), and)}", &[(codes::ARITY, 2..8)]);
}

#[test]
fn check_named_arguments() {
    // A misplaced named argument is one mistake, not also a wrong count.
    let errors = problems(r#"${len(value = "x")}"#, &[(codes::NAMED_ARGUMENT, 6..11)]);
    assert_eq!(
        errors[0].message,
        "`len` takes no named arguments: only `object` does"
    );
    assert_eq!(errors[0].help.as_deref(), Some(r#"pass `"x"` by position"#));
    let errors = problems(
        "${object(a = 1, a = 2)}",
        &[(codes::NAMED_ARGUMENT, 16..17)],
    );
    assert_eq!(errors[0].message, "the argument `a` is given twice");
    // A positional argument of `object` is one mistake, not also a count.
    let errors = problems(r#"${object("x")}"#, &[(codes::NAMED_ARGUMENT, 9..12)]);
    assert_eq!(
        errors[0].message,
        "`object` takes named arguments only: `object(name = value)`"
    );
    // Named arguments' values are checked.
    problems("${object(a = len(1))}", &[(codes::ARGUMENT_TYPE, 17..18)]);
}

#[test]
fn check_argument_types_of_literals() {
    let errors = problems("${len(1)}", &[(codes::ARGUMENT_TYPE, 6..7)]);
    assert_eq!(
        errors[0].message,
        "argument 1 (`value`) of `len` must be string, array or object, `1` is integer"
    );
    assert_eq!(
        errors[0].notes,
        ["signature: len(value: string, array or object) -> integer"]
    );
    problems(
        r#"${substr("abc", "1")}"#,
        &[(codes::ARGUMENT_TYPE, 16..19)],
    );
    problems("${and(true, 1)}", &[(codes::ARGUMENT_TYPE, 12..13)]);
    problems(r#"${gt("a", 1)}"#, &[(codes::ARGUMENT_TYPE, 5..8)]);
    problems(
        r#"${join(list("a"), 1)}"#,
        &[(codes::ARGUMENT_TYPE, 18..19)],
    );
    problems(r#"${keys(list("a"))}"#, &[(codes::ARGUMENT_TYPE, 7..16)]);
    // Types the scope knows.
    problems("${len(variables.count)}", &[(codes::ARGUMENT_TYPE, 6..21)]);
    problems("${not(variables.region)}", &[(codes::ARGUMENT_TYPE, 6..22)]);
    // Types that may be right pass.
    checks("${len(values.anything)}", Types::INTEGER);
    checks("${not(elem.flag)}", Types::BOOLEAN);
    // The scope's own problems.
    problems("${len(variables.nope)}", &[(codes::REFERENCE, 6..20)]);
}

#[test]
fn check_function_values() {
    let errors = problems("${trim}", &[(codes::FUNCTION_VALUE, 2..6)]);
    assert_eq!(
        errors[0].message,
        "`trim` is a function: call it, or pass it to a function that takes a function"
    );
    let errors = problems(r#"${split_g(",")}"#, &[(codes::FUNCTION_VALUE, 0..15)]);
    assert_eq!(
        errors[0].message,
        r#"`split_g(",")` is a function: a field needs a value"#
    );
    problems("${len(trim)}", &[(codes::FUNCTION_VALUE, 6..10)]);
    let errors = problems(r#"${len(split_g(","))}"#, &[(codes::FUNCTION_VALUE, 6..18)]);
    assert_eq!(
        errors[0].message,
        r#"argument 1 (`value`) of `len` must be string, array or object, `split_g(",")` is function"#
    );
    problems(
        "${eq(trim, to_upper)}",
        &[
            (codes::FUNCTION_VALUE, 5..9),
            (codes::FUNCTION_VALUE, 11..19),
        ],
    );
    // A value where a function is expected.
    let errors = problems(
        r#"${map(list("a"), "x")}"#,
        &[(codes::FUNCTION_VALUE, 17..20)],
    );
    assert_eq!(
        errors[0].message,
        r#"argument 2 (`function`) of `map` must be function, `"x"` is string"#
    );
    problems(
        "${map(values.hosts, len(values.hosts))}",
        &[(codes::FUNCTION_VALUE, 20..37)],
    );
    problems(
        r#"${compose(trim, "x")}"#,
        &[
            (codes::FUNCTION_VALUE, 16..19),
            (codes::FUNCTION_VALUE, 0..21),
        ],
    );
    checks(
        r#"${map(values.hosts, compose(trim, getattr("a")))}"#,
        Types::ARRAY,
    );
    // A bare name that is no function, where a value is expected.
    problems("${orders}", &[(codes::REFERENCE, 2..8)]);
}

#[test]
fn check_datetime_formats() {
    let errors = problems(
        r#"${datetime("rfc339")}"#,
        &[(codes::DATETIME_FORMAT, 11..19)],
    );
    assert_eq!(
        errors[0].message,
        "`rfc339` is not a datetime format: use one of unix, rfc3339, tag, tagcompact"
    );
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `rfc3339`?"));
    for format in ["unix", "rfc3339", "tag", "tagcompact"] {
        checks(&format!(r#"${{datetime("{format}")}}"#), Types::STRING);
    }
    // Only literals are known before evaluation.
    checks("${datetime(variables.region)}", Types::STRING);
}

#[test]
fn check_complex_interpolation() {
    let errors = problems(
        r#"a-${list("x")}"#,
        &[(codes::COMPLEX_INTERPOLATION, 2..14)],
    );
    assert_eq!(
        errors[0].message,
        r#"`list("x")` is array, inside a string: only strings, numbers and booleans can be interpolated"#
    );
    problems(
        "a-${object(k = 1)}",
        &[(codes::COMPLEX_INTERPOLATION, 2..18)],
    );
    problems("a-${values.cfg}", &[(codes::COMPLEX_INTERPOLATION, 2..15)]);
    problems(r#"a-${split_g(",")}"#, &[(codes::FUNCTION_VALUE, 2..17)]);
    // Once: the bare function is reported, not its interpolation as well.
    problems("a-${trim}", &[(codes::FUNCTION_VALUE, 4..8)]);
    checks("a-${values.any}", Types::STRING);
    checks(r#"a-${len("x")}-${variables.debug}"#, Types::STRING);
}

#[test]
fn check_list_items() {
    let errors = problems(
        r#"${list("a", 1, true)}"#,
        &[
            (codes::ARGUMENT_TYPE, 12..13),
            (codes::ARGUMENT_TYPE, 15..19),
        ],
    );
    assert_eq!(
        errors[0].message,
        "`list` takes items of one type: the first is string, this one is integer"
    );
    problems(
        r#"${list(1, values.any, "x")}"#,
        &[(codes::ARGUMENT_TYPE, 22..25)],
    );
    problems(
        "${list(values.hosts, values.cfg)}",
        &[(codes::ARGUMENT_TYPE, 21..31)],
    );
    checks(r#"${list("a", variables.region)}"#, Types::ARRAY);
}

#[test]
fn check_accessors_after_calls() {
    let errors = problems(r#"${len("x").a}"#, &[(codes::REFERENCE, 11..12)]);
    assert_eq!(
        errors[0].message,
        "`len` gives integer: it has no fields or items to read"
    );
    problems(r#"${trim("x")[0]}"#, &[(codes::REFERENCE, 11..14)]);
    checks("${object(a = 1).a}", Types::ANY);
}

#[test]
fn check_links() {
    problems("${link(orders, nothere)}", &[(codes::REFERENCE, 15..22)]);
    problems(r#"${link("nothere", queue)}"#, &[(codes::REFERENCE, 7..16)]);
    problems(
        "${link(resources.nothere, queue)}",
        &[(codes::REFERENCE, 17..24)],
    );
}

struct TestScope;

impl Scope for TestScope {
    fn reference(&self, reference: &Reference, range: Range<usize>) -> Result<Types, SubstError> {
        Ok(match reference {
            Reference::Variable { name } => match name.text.as_str() {
                "count" => Types::INTEGER,
                "region" => Types::STRING,
                "debug" => Types::BOOLEAN,
                other => {
                    return Err(SubstError::new(
                        codes::REFERENCE,
                        format!("there is no variable `{other}`"),
                        range,
                    ));
                }
            },
            Reference::Value { name, path } if path.is_empty() => match name.text.as_str() {
                "hosts" => Types::ARRAY,
                "cfg" => Types::OBJECT,
                _ => Types::ANY,
            },
            Reference::ElemIndex => Types::INTEGER,
            _ => Types::ANY,
        })
    }

    fn resource(&self, name: &Name) -> Result<(), SubstError> {
        if ["orders", "queue"].contains(&name.text.as_str()) {
            Ok(())
        } else {
            Err(SubstError::new(
                codes::REFERENCE,
                format!("there is no resource `{}`", name.text),
                name.range.clone(),
            ))
        }
    }
}

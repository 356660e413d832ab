//! Function values and access, booleans and comparisons, the
//! surroundings (`cwd`, `datetime`), references and interpolation.

use serde_json::json;
use strata_subst::codes;
use strata_subst::{Lookup, Value};

use super::{
    ENV, EVAL, Plain, TestEnv, at, error_in, eval_in, fails, from_json, gives, gives_json, pending,
    pending_in, s, strings,
};

#[test]
fn compose_is_right_to_left_and_pipe_left_to_right() {
    gives(
        r#"${map(list("abc"), compose(to_upper, trimprefix_g("a")))}"#,
        &strings(&["BC"]),
    );
    gives(
        r#"${map(list("abc"), compose(trimprefix_g("a"), to_upper))}"#,
        &strings(&["ABC"]),
    );
    gives(
        r#"${map(list("abc"), pipe(to_upper, trimprefix_g("a")))}"#,
        &strings(&["ABC"]),
    );
    gives(
        r#"${map(list("abc"), pipe(trimprefix_g("a"), to_upper))}"#,
        &strings(&["BC"]),
    );
    gives(
        r#"${map(list(" a,b "), pipe(trim, split_g(","), getelem(1)))}"#,
        &strings(&["b"]),
    );
    gives(
        r#"${map(list(" a,b "), compose(getelem(1), split_g(","), trim))}"#,
        &strings(&["b"]),
    );
    // One function is itself.
    gives(r#"${map(list(" a "), pipe(trim))}"#, &strings(&["a"]));
    fails(
        r#"${compose(trim, "x")}"#,
        EVAL,
        16..19,
        "argument 2 (`function`) of `compose` must be function, found string",
    );
    fails(
        "${pipe()}",
        EVAL,
        2..8,
        "`pipe` takes at least 1 argument, given 0",
    );
    let text = r#"${map(list("a"), pipe(trim, len, trim))}"#;
    fails(
        text,
        EVAL,
        at(text, "pipe(trim, len, trim)"),
        "pipe(..) failed on item 0: argument 1 (`text`) of `trim` must be string, found integer",
    );
}

#[test]
fn getattr_and_getelem() {
    gives_json(
        r#"${map(jsondecode("[{\"id\":1},{\"id\":2}]"), getattr("id"))}"#,
        &json!([1, 2]),
    );
    let text = r#"${map(jsondecode("[{}]"), getattr("id"))}"#;
    fails(
        text,
        EVAL,
        at(text, r#"getattr("id")"#),
        "getattr(\"id\") failed on item 0: the object has no attribute `id`",
    );
    let text = r#"${map(list("x"), getattr("id"))}"#;
    fails(
        text,
        EVAL,
        at(text, r#"getattr("id")"#),
        "getattr(\"id\") failed on item 0: getattr(\"id\") takes an object, found string",
    );
    gives(
        r#"${map(list(list("a", "b"), list("c", "d")), getelem(1))}"#,
        &strings(&["b", "d"]),
    );
    let text = r#"${map(list(list("a")), getelem(3))}"#;
    fails(
        text,
        EVAL,
        at(text, "getelem(3)"),
        "getelem(3) failed on item 0: index 3 is out of range for an array of 1",
    );
    let text = r#"${map(list("x"), getelem(0))}"#;
    fails(
        text,
        EVAL,
        at(text, "getelem(0)"),
        "getelem(0) failed on item 0: getelem(0) takes an array, found string",
    );
    let text = r#"${map(list(list("a")), getelem(-1))}"#;
    fails(
        text,
        EVAL,
        at(text, "-1"),
        "an index is zero or more, not -1",
    );
    // The `_g` and attribute functions are values, not fields.
    fails(
        r#"${getattr("id")}"#,
        codes::FUNCTION_VALUE,
        0..16,
        "`getattr(\"id\")` is a function: a field needs a value",
    );
}

// ---------------------------------------------------------------------------
// Links, logic, comparisons

#[test]
fn link() {
    // The default `Env::link` waits on deployment.
    pending_in(&Plain, "${link(orders, queue)}", "link(orders, queue)");
    pending_in(
        &Plain,
        r#"${link("orders", resources.queue)}"#,
        "link(orders, queue)",
    );
    let env = TestEnv {
        link: Some(Lookup::Known(from_json(&json!({"linked": true})))),
        ..ENV
    };
    assert_eq!(
        eval_in(&env, "${link(orders, queue).linked}"),
        Value::Bool(true)
    );
    let env = TestEnv {
        link: Some(Lookup::Missing(
            "`orders` and `queue` are not linked".into(),
        )),
        ..ENV
    };
    let error = error_in(&env, "${link(orders, queue)}");
    assert_eq!(
        (error.code, error.range, error.message.as_str()),
        (EVAL, 2..21, "`orders` and `queue` are not linked")
    );
}

#[test]
fn and_or_not() {
    for (a, b) in [(true, true), (true, false), (false, true), (false, false)] {
        gives(&format!("${{and({a}, {b})}}"), &Value::Bool(a && b));
        gives(&format!("${{or({a}, {b})}}"), &Value::Bool(a || b));
    }
    gives("${not(true)}", &Value::Bool(false));
    gives("${not(false)}", &Value::Bool(true));
    gives("${not(variables.debug)}", &Value::Bool(false));
    fails(
        "${and(1, true)}",
        EVAL,
        6..7,
        "argument 1 (`a`) of `and` must be boolean, found integer",
    );
    fails(
        r#"${or(false, "true")}"#,
        EVAL,
        12..18,
        "argument 2 (`b`) of `or` must be boolean, found string",
    );
    fails(
        "${not(0)}",
        EVAL,
        6..7,
        "argument 1 (`value`) of `not` must be boolean, found integer",
    );
}

#[test]
fn eq() {
    gives(r#"${eq("a", "a")}"#, &Value::Bool(true));
    gives(r#"${eq("a", "b")}"#, &Value::Bool(false));
    gives("${eq(true, true)}", &Value::Bool(true));
    // Integers and floats compare numerically.
    gives("${eq(1, 1.0)}", &Value::Bool(true));
    gives("${eq(1, 1.5)}", &Value::Bool(false));
    // Deep equality; mappings regardless of their order.
    gives(
        r#"${eq(jsondecode("{\"a\":[1,{\"b\":null}]}"), jsondecode("{\"a\":[1.0,{\"b\":null}]}"))}"#,
        &Value::Bool(true),
    );
    gives(
        "${eq(object(a = 1, b = 2), object(b = 2, a = 1))}",
        &Value::Bool(true),
    );
    gives(
        "${eq(object(a = 1), object(a = 1, b = 2))}",
        &Value::Bool(false),
    );
    gives("${eq(list(1, 2), list(2, 1))}", &Value::Bool(false));
    gives("${eq(list(1), list(1, 2))}", &Value::Bool(false));
    gives(
        r#"${eq(jsondecode("null"), jsondecode("null"))}"#,
        &Value::Bool(true),
    );
    gives(
        r#"${eq(variables.region, "eu-west-1")}"#,
        &Value::Bool(true),
    );
    let text = r#"${eq(1, "1")}"#;
    fails(
        text,
        EVAL,
        at(text, r#""1""#),
        "`eq` compares values of one type: integer and string differ",
    );
    fails(
        r#"${eq(list("a"), object())}"#,
        EVAL,
        16..24,
        "`eq` compares values of one type: array and object differ",
    );
    // A mix deep inside is an error too.
    fails(
        r#"${eq(jsondecode("[1]"), jsondecode("[\"1\"]"))}"#,
        EVAL,
        24..45,
        "`eq` compares values of one type: integer and string differ",
    );
}

#[test]
fn comparisons_mix_integers_and_floats() {
    gives("${gt(2, 1.5)}", &Value::Bool(true));
    gives("${gt(1, 1)}", &Value::Bool(false));
    gives("${gt(-1.5, -2)}", &Value::Bool(true));
    gives("${ge(1, 1.0)}", &Value::Bool(true));
    gives("${ge(0.5, 1)}", &Value::Bool(false));
    gives("${lt(-1, 0)}", &Value::Bool(true));
    gives("${lt(0.5, 0.25)}", &Value::Bool(false));
    gives("${le(2.5, 2)}", &Value::Bool(false));
    gives("${le(2, 2)}", &Value::Bool(true));
    gives("${le(variables.count, 3)}", &Value::Bool(true));
    gives("${gt(variables.ratio, 0)}", &Value::Bool(true));
    gives(
        "${gt(9223372036854775807, -9223372036854775808)}",
        &Value::Bool(true),
    );
    fails(
        r#"${gt("a", 1)}"#,
        EVAL,
        5..8,
        "argument 1 (`a`) of `gt` must be integer or float, found string",
    );
    fails(
        "${lt(1, true)}",
        EVAL,
        8..12,
        "argument 2 (`b`) of `lt` must be integer or float, found boolean",
    );
}

// ---------------------------------------------------------------------------
// The environment's functions

#[test]
fn cwd() {
    gives("${cwd()}", &s("/work/project"));
    gives("dir=${cwd()}/x", &s("dir=/work/project/x"));
    let env = TestEnv {
        cwd: Err("the working directory is not known".into()),
        ..ENV
    };
    let error = error_in(&env, "${cwd()}");
    assert_eq!(
        (error.code, error.range, error.message.as_str()),
        (EVAL, 2..7, "the working directory is not known")
    );
}

#[test]
fn datetime() {
    gives(r#"${datetime("unix")}"#, &s("1700000000"));
    gives(r#"${datetime("rfc3339")}"#, &s("2023-11-14T22:13:20Z"));
    gives(r#"${datetime("tag")}"#, &s("2023-11-14--22-13-20"));
    gives(r#"${datetime("tagcompact")}"#, &s("20231114221320"));
    let leap = TestEnv {
        now: 951_782_400,
        ..ENV
    };
    assert_eq!(
        eval_in(&leap, r#"${datetime("rfc3339")}"#),
        s("2000-02-29T00:00:00Z")
    );
    assert_eq!(
        eval_in(&leap, r#"${datetime("tag")}"#),
        s("2000-02-29--00-00-00")
    );
    let before = TestEnv { now: -1, ..ENV };
    assert_eq!(
        eval_in(&before, r#"${datetime("rfc3339")}"#),
        s("1969-12-31T23:59:59Z")
    );
    assert_eq!(eval_in(&before, r#"${datetime("unix")}"#), s("-1"));
    let epoch = TestEnv { now: 0, ..ENV };
    assert_eq!(
        eval_in(&epoch, r#"${datetime("tagcompact")}"#),
        s("19700101000000")
    );
    fails(
        r#"${datetime("iso")}"#,
        EVAL,
        11..16,
        "`iso` is not a datetime format: use one of unix, rfc3339, tag, tagcompact",
    );
    fails(
        "${datetime(1)}",
        EVAL,
        11..12,
        "argument 1 (`format`) of `datetime` must be string, found integer",
    );
}

// ---------------------------------------------------------------------------
// References, accessors and interpolation

#[test]
fn references_read_the_environment() {
    gives("${variables.region}", &s("eu-west-1"));
    gives("${values.cfg.tags[1]}", &s("y"));
    gives("${values.cfg.tags[]}", &s("x"));
    gives("${datasources.network.subnets[1]}", &s("s2"));
    gives("${datasources.network.subnets[]}", &s("s1"));
    gives("${datasources.network.vpc}", &s("vpc-1"));
    gives("${children.core.topic.arn}", &s("arn:1"));
    gives(r#"${children.core["topic"].arn}"#, &s("arn:1"));
    gives("${orders.spec.name}", &s("orders"));
    gives("${resources.orders.metadata.displayName}", &s("Orders"));
    gives("${resources.queues[1].spec.name}", &s("q1"));
    gives("${elem.config.attrs[0]}", &Value::Int(7));
    gives("${i}", &Value::Int(2));
    gives("${values.mixed.a}", &Value::Int(1));
}

#[test]
fn reading_what_is_not_there() {
    fails(
        "${variables.nope}",
        EVAL,
        2..16,
        "there is no variable `nope`",
    );
    let error = error_in(&ENV, "${orders.spec.nme}");
    assert_eq!(
        (error.code, error.range, error.message.as_str()),
        (EVAL, 14..17, "there is no field `nme` here")
    );
    assert_eq!(error.help.as_deref(), Some("did you mean `name`?"));
    fails(
        "${values.hosts[5]}",
        EVAL,
        14..17,
        "index 5 is out of range: the array has 2 items",
    );
    fails(
        "${values.cfg.name.x}",
        EVAL,
        18..19,
        "cannot read field `x` of a string",
    );
    fails(
        "${values.cfg[0]}",
        EVAL,
        12..15,
        "cannot read an item of an object",
    );
    fails(
        r#"${jsondecode("null").a}"#,
        EVAL,
        21..22,
        "cannot read field `a` of a null",
    );
    fails(
        "${orders}",
        codes::REFERENCE,
        2..8,
        "`orders` names a resource without a field: read `orders.spec…`, `orders.state…` or `orders.metadata…` (a bare resource name is only an argument of `link`)",
    );
    fails(
        "${nosuch(1)}",
        codes::UNKNOWN_FUNCTION,
        2..8,
        "there is no function `nosuch`",
    );
}

#[test]
fn known_after_deploy() {
    pending("${values.later}", "values.later");
    pending("${variables.later}", "variables.later");
    pending("${len(values.later)}", "values.later");
    pending("x-${values.later}-y", "values.later");
    // Reading into an unknown part.
    pending("${orders.state.id}", "orders.state.id");
    pending("${resources.queues[0].state}", "resources.q0.state");
    // A value holding an unknown part, as a field or as an argument.
    pending("${resources.orders.state}", "resources.orders.state");
    pending("${values.mixed}", "resources.orders.state.id");
    pending("${keys(values.mixed)}", "resources.orders.state.id");
    pending("${map(list(orders.state), trim)}", "resources.orders.state");
    pending("${eq(orders.state, 1)}", "resources.orders.state");
    pending("${map(list(values.later), trim)}", "values.later");
}

#[test]
fn interpolation() {
    gives(
        r#"n=${variables.count}, f=${variables.ratio}, b=${variables.debug}, s=${"x"}, null=${jsondecode("null")}"#,
        &s("n=3, f=0.5, b=true, s=x, null="),
    );
    gives("${i}${i}", &s("22"));
    gives("$${i}", &s("$2"));
    gives("", &s(""));
    gives("plain", &s("plain"));
    // One substitution keeps its type.
    gives("${variables.count}", &Value::Int(3));
    gives(" ${variables.count}", &s(" 3"));
    fails(
        r#"a-${list("x")}"#,
        codes::COMPLEX_INTERPOLATION,
        2..14,
        "`list(\"x\")` is an array inside a string: only strings, numbers and booleans can be interpolated",
    );
    fails(
        "a-${values.cfg}",
        codes::COMPLEX_INTERPOLATION,
        2..15,
        "`values.cfg` is an object inside a string: only strings, numbers and booleans can be interpolated",
    );
    fails(
        r#"a-${split_g(",")}"#,
        codes::FUNCTION_VALUE,
        2..17,
        "`split_g(..)` is a function: a field needs a value",
    );
    fails(
        "${trim}",
        codes::FUNCTION_VALUE,
        2..6,
        "`trim` is a function: call it, or pass it to a function that takes a function",
    );
    fails(
        r#"${split_g(",")}"#,
        codes::FUNCTION_VALUE,
        0..15,
        "`split_g(..)` is a function: a field needs a value",
    );
}

// ---------------------------------------------------------------------------
// Static checks

//! The fuzz target's oracle (`fuzz/fuzz_targets/subst.rs`) over inputs
//! that once went wrong or sit on an edge. A crash the fuzzer finds is
//! added here as one more text.
#![expect(clippy::panic, reason = "a test stops at the first surprise")]

use std::ops::Range;

use strata_subst::{
    Env, Failure, Lookup, MAX_DEPTH, MAX_LENGTH, Name, Reference, Scope, SubstError, Types, Value,
    check_template, evaluate, parse_template,
};

/// Evaluation without a step limit: these tests bound values, not work.
static UNLIMITED: strata_subst::Steps = strata_subst::Steps::new(u64::MAX);

/// Every reference is known: a string, an array, a mapping with an unknown
/// part, an integer (as in the fuzz target).
struct Fixed;

impl Env for Fixed {
    fn reference(&self, reference: &Reference) -> Lookup {
        let json = match reference {
            Reference::Variable { .. } => serde_json::json!("v"),
            Reference::Datasource { .. } => serde_json::json!(["a", "b"]),
            Reference::ElemIndex => serde_json::json!(0),
            Reference::Value { .. } | Reference::Child { .. } | Reference::Elem { .. } => {
                serde_json::json!({"a": [1, 2.5, "x", null, {"b": true}], "s": "{\"k\": [1]}"})
            }
            Reference::Resource { .. } => {
                let mut resource = Value::from_json(&serde_json::json!({"spec": {"n": 1}}));
                if let Value::Object(fields) = &mut resource {
                    fields.insert("state".to_owned(), Value::Unknown("state".into()));
                }
                return Lookup::Known(resource);
            }
        };
        Lookup::Known(Value::from_json(&json))
    }

    fn steps(&self) -> &strata_subst::Steps {
        &UNLIMITED
    }

    fn cwd(&self) -> Result<String, String> {
        Ok("/work".to_owned())
    }

    fn now_unix(&self) -> i64 {
        1_700_000_000
    }
}

/// Every reference may be anything; every resource exists.
struct Open;

impl Scope for Open {
    fn reference(&self, _: &Reference, _: Range<usize>) -> Result<Types, SubstError> {
        Ok(Types::ANY)
    }

    fn resource(&self, _: &Name) -> Result<(), SubstError> {
        Ok(())
    }
}

#[track_caller]
fn inside(text: &str, error: &SubstError) {
    let Range { start, end } = error.range.clone();
    assert!(start <= end && end <= text.len(), "{text:?}: {error:?}");
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "{text:?}: {error:?}"
    );
}

/// What the fuzz target asserts of one text; the outcome of evaluating
/// it, for the tests that say more.
#[track_caller]
fn oracle(text: &str) -> Option<Result<Value, Failure>> {
    match parse_template(text) {
        Ok(template) => {
            let printed = template.to_string();
            let again = parse_template(&printed)
                .unwrap_or_else(|errors| panic!("{text:?} prints as {printed:?}: {errors:?}"));
            assert_eq!(again.to_string(), printed, "{text:?}");
            let (_, errors) = check_template(&template, &Open);
            for error in &errors {
                inside(text, error);
            }
            let outcome = evaluate(&template, &Fixed);
            if let Err(Failure::Error(error)) = &outcome {
                inside(text, error);
            }
            Some(outcome)
        }
        Err(errors) => {
            assert!(!errors.is_empty(), "{text:?}");
            for error in &errors {
                inside(text, error);
            }
            None
        }
    }
}

#[test]
fn edges_of_the_text() {
    for text in [
        "",
        "$",
        "$$",
        "$$$",
        "${",
        "$${",
        "$$${",
        "${}",
        "}",
        "{",
        "${\"",
        "${\"}\"",
        "${\"\\\"}",
        "${\\",
        "é${",
        "${é",
        "${é}",
        "a$${b}$",
        "${i}$",
        "$${i}${i}",
        "${ }",
        "${\n}",
        "${\"a\"}${",
        "${${i}}",
        "${a}}",
        "${{}}",
        "\u{0}${i}\u{0}",
    ] {
        oracle(text);
    }
}

#[test]
fn edges_of_the_grammar() {
    for text in [
        "${-}",
        "${--1}",
        "${-0}",
        "${1.}",
        "${.5}",
        "${1.5.}",
        "${99999999999999999999}",
        "${values.x[99999999999999999999]}",
        "${values.x[9223372036854775807]}",
        "${values.x[-0]}",
        r#"${values[""]}"#,
        r#"${values["é"]}"#,
        r#"${values["a"]["b"]["c"]}"#,
        "${variables.x.y.z}",
        "${datasources.d.f[0][1][2]}",
        "${children.c}",
        "${i.x}",
        "${f(,)}",
        "${f(a=)}",
        "${f(a==1)}",
        "${f(1)(2)}",
        "${object(a = 1, a = 2)}",
        "${cwd(x = 1)}",
        "${trim}",
        "a-${trim}",
        "${split_g(\",\")}",
        "${ cwd()  }",
        r#"${children["c.d"]}"#,
    ] {
        oracle(text);
    }
}

#[test]
fn bounds() {
    oracle(&"a".repeat(MAX_LENGTH + 1));
    oracle(&format!("${{{}}}", "(".repeat(MAX_LENGTH)));
    oracle(&format!(
        "${{{}1{}}}",
        "f(".repeat(MAX_DEPTH),
        ")".repeat(MAX_DEPTH)
    ));
    oracle(&format!(
        "${{{}1{}}}",
        "f(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    ));
    oracle(&format!(
        "${{{}\"a\"{}}}",
        "trim(".repeat(MAX_DEPTH),
        ")".repeat(MAX_DEPTH)
    ));
    oracle(&"${i}".repeat(MAX_LENGTH / 4));
    oracle(&format!("${{list({})}}", vec!["1"; 20_000].join(",")));
    // JSON nested past serde_json's limit is an error, not an overflow.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let outcome = oracle(&format!("${{jsondecode(\"{deep}\")}}"));
    assert!(matches!(outcome, Some(Err(Failure::Error(_)))));
}

#[test]
fn functions_on_edges() {
    for text in [
        r#"${substr("héllo", 1, 3)}"#,
        r#"${substr("abc", 9223372036854775807)}"#,
        r#"${substr("abc", -9223372036854775808)}"#,
        r#"${replace("ab", "", "-")}"#,
        r#"${split("", "")}"#,
        r#"${index("héllo", "")}"#,
        r#"${last_index("héllo", "")}"#,
        r##"${fromjson("{}", "#")}"##,
        r##"${fromjson("{}", "#%")}"##,
        r##"${fromjson("{}", "#%e9")}"##,
        r##"${fromjson("{}", "#%C3%A9")}"##,
        r#"${fromjson("{\"a\":[1]}", "/a/01")}"#,
        r#"${fromjson("{\"a\":[1]}", "/a/-")}"#,
        r#"${fromjson("{\"a\":1}", "/a~2")}"#,
        r#"${jsondecode("1e400")}"#,
        r#"${jsondecode("-0")}"#,
        r#"${map(list(list("a")), getelem(9223372036854775807))}"#,
        r#"${map(list("a"), list)}"#,
        r#"${map(list("a"), object)}"#,
        r#"${map(list("a"), map)}"#,
        r#"${map(list("a"), compose(compose(trim)))}"#,
        r#"${reduce(list("a"), reduce, 1)}"#,
        r#"${sort(list("b", "a", "c"), sort)}"#,
        "${sort(list(1, 2, 3), eq)}",
        r#"${eq(jsondecode("[1]"), jsondecode("[\"1\"]"))}"#,
        r#"${eq(getattr("a"), getattr("a"))}"#,
        "${gt(9223372036854775807, 9223372036854775807.0)}",
        r#"${datetime("unix")}${datetime("tag")}"#,
        "${link(a, b)}",
        "${link(values.a, b)}",
        "x${orders.state.id}",
        "${len(values.s)}${len(values.a)}",
        "${fromjson(values.s, \"/k/0\")}",
        "${keys(orders)}",
        "${datasources.d.f[5]}",
        "${elem.a[4].b}",
    ] {
        oracle(text);
    }
}

/// `sort` with a comparator that is not a total order: the standard
/// library's sort panicked on it.
#[test]
fn sort_with_an_inconsistent_comparator() {
    let items = "ba,,,a,,a,a,,a,aa,a,b,ab,,aa,,a,b,,bb,";
    let outcome = oracle(&format!(r#"${{sort(split("{items}", ","), index)}}"#));
    assert!(matches!(outcome, Some(Ok(Value::Array(sorted))) if sorted.len() == 21));
    // Every pair of lengths and orders of a small alphabet.
    let words = ["", "a", "b", "ab", "ba", "aa", "bb", "aba", "bab"];
    for length in 20..60 {
        let items: Vec<&str> = (0..length)
            .map(|at| words[(at * 7 + length) % words.len()])
            .collect();
        for comparator in ["index", "last_index"] {
            let text = format!(
                r#"${{sort(split("{}", ","), {comparator})}}"#,
                items.join(",")
            );
            assert!(matches!(oracle(&text), Some(Ok(_))), "{text}");
        }
    }
}

/// Evaluation is bounded: runaway growth is an error, not exhausted memory.
#[test]
fn runaway_values_are_errors() {
    use strata_subst::{Env, Failure, Lookup, Reference, evaluate, parse_template};
    struct Nothing;
    impl Env for Nothing {
        fn reference(&self, _: &Reference) -> Lookup {
            Lookup::Missing("nothing".into())
        }
        fn steps(&self) -> &strata_subst::Steps {
            &UNLIMITED
        }

        fn cwd(&self) -> Result<String, String> {
            Ok(String::new())
        }
        fn now_unix(&self) -> i64 {
            0
        }
    }
    let big = "x".repeat(5000);
    for text in [
        format!(r#"${{replace(replace("{big}", "", "{big}"), "", "{big}")}}"#),
        format!(r#"${{join(split("{big}", ""), "{big}")}}"#),
        format!(r#"${{map(split("{big}", ""), replace_g("", "{big}"))}}"#),
    ] {
        let template = parse_template(&text).unwrap();
        match evaluate(&template, &Nothing) {
            Err(Failure::Error(error)) => assert!(
                error.message.contains("evaluation is bounded"),
                "{}",
                error.message
            ),
            Err(Failure::Pending(what)) => panic!("pending on {what}"),
            Ok(value) => panic!("a value of type {}", value.types()),
        }
    }
}

//! The diagnostic codes of the `${..}` substitution language.

strata_syntax::declare_codes! {
    SYNTAX = "subst/syntax" {
        when: "the text inside `${..}` does not follow the grammar",
        why: r"A substitution is a literal, a reference or a function call, with accessors; nothing else is part of the language, not even operators such as `+`. Each problem is reported at its character, and a broken substitution does not hide problems in the ones after it.",
        fix: r"Rewrite the substitution in the grammar: close every string and call, put a name after every `.`, and use functions where an operator was meant; to join texts, write them side by side in the field (`${variables.prefix}-table`) or use `join`.",
        example: r#"strata spec eval '${"orders" + "-table"}'"#,
    }

    UNCLOSED = "subst/unclosed" {
        when: "a `${` has no closing `}`",
        why: r"A substitution ends at the first `}` outside a string literal; a `${` without one runs to the end of the text. The language has no escape: every `${` opens a substitution.",
        fix: r"Add the missing `}`, and check for an unclosed string literal or call inside the substitution.",
        example: r#"strata spec eval '${to_upper("x")'"#,
    }

    EMPTY = "subst/empty" {
        when: "`${}` holds nothing",
        why: r"`${}` opens a substitution that holds nothing to substitute, blanks included, so it has no value.",
        fix: r"Write the substitution inside the braces, or remove the `${}`.",
        example: r"strata spec eval 'orders-${}'",
    }

    TOO_LONG = "subst/too-long" {
        when: "a field text is longer than the bound",
        why: r"A field's text may be at most 64 KiB (65,536 bytes) long: the parser's input is bounded, so that no blueprint or command line can make parsing exhaust resources.",
        fix: r"Split the text over several fields or values, or keep long data outside the blueprint and read it through variables or data sources.",
        example: r#"strata spec eval "$(head -c 70000 /dev/zero | tr '\0' x)""#,
    }

    TOO_DEEP = "subst/too-deep" {
        when: "calls are nested deeper than the bound",
        why: r"Calls may nest at most 64 deep: the parser recurses into each call, and the bound keeps any input from exhausting its stack.",
        fix: r"Nest fewer calls: compute an inner part in a value under `values` and reference it with `${values.NAME}`.",
        example: r#"strata spec eval "\${$(printf 'trim(%.0s' $(seq 65))\"x\"$(printf ')%.0s' $(seq 65))}""#,
    }

    REFERENCE = "subst/reference" {
        when: "a reference has a shape its kind does not allow (`variables.x.y`, `datasources.d.f.g`, `children.c` alone)",
        why: r"Each kind of reference has a fixed shape. Variables are primitives and take no accessor; a data source field takes at most one index (`datasources.NAME.FIELD[n]`); `children.NAME` needs the export to read; `i` takes no accessor; and a function that gives no array or object has nothing to index.",
        fix: r#"Write the reference in its kind's shape, for example `children.coreInfra.databaseHost`; to read into a JSON string held by a variable, use `fromjson(variables.NAME, "/path")`."#,
        example: r"strata spec eval '${variables.config.host}'",
    }

    UNKNOWN_FUNCTION = "subst/unknown-function" {
        when: "a call names no function",
        why: r"A call must name one of the core functions; a near name is suggested. `strata spec functions` lists them with their signatures.",
        fix: r"Correct the name, such as `to_upper` for `toupper`.",
        example: r#"strata spec eval '${toupper("orders")}'"#,
    }

    ARITY = "subst/arity" {
        when: "a call passes too few or too many arguments",
        why: r"Each core function takes a fixed number of arguments, some of them optional; the signature is printed in a note.",
        fix: r"Pass the arguments the signature lists, no more and no fewer.",
        example: r#"strata spec eval '${split("a,b")}'"#,
    }

    ARGUMENT_TYPE = "subst/argument-type" {
        when: "an argument's type is known and is not one the parameter takes",
        why: r"Each parameter takes values of given types. When an argument's type is known before evaluation (a literal, a variable, a value, a function's result) and it is not one of them, the call could only fail.",
        fix: r"Pass an argument of the parameter's type, converting it first where a function does so (`jsondecode`, `fromjson`), or call the function meant for that type.",
        example: r"strata spec eval '${to_upper(42)}'",
    }

    NAMED_ARGUMENT = "subst/named-argument" {
        when: "a named argument given to a function other than `object`, or a name repeated",
        why: r"Arguments are passed by position; only `object` takes named arguments (`object(key = value)`), which become its keys, so each name may appear once.",
        fix: r"Pass the argument by position, or give each key of `object` once.",
        example: r#"strata spec eval '${to_upper(text = "orders")}'"#,
    }

    FUNCTION_VALUE = "subst/function-value" {
        when: "a function where a value is expected, or a value where a function is",
        why: r#"A function value (a function name written alone, or a partial application such as `trimprefix_g("x")`) is only an argument of a function that takes one, such as `map`, `filter`, `reduce`, `sort`, `flatmap`, `compose` and `pipe`. A field needs a value, and such a parameter needs a function."#,
        fix: r"Call the function on its arguments to get a value, or pass a function name (not a string) where a function is expected: `map(items, to_upper)`.",
        example: r#"strata spec eval '${trimprefix_g("x")}'"#,
    }

    DATETIME_FORMAT = "subst/datetime-format" {
        when: "`datetime` is given a format other than `unix`, `rfc3339`, `tag`, `tagcompact`",
        why: r"`datetime` formats the current time in one of four formats: `unix`, `rfc3339`, `tag` and `tagcompact`.",
        fix: r"Pass one of the four formats.",
        example: r#"strata spec eval '${datetime("iso8601")}'"#,
    }

    COMPLEX_INTERPOLATION = "subst/complex-interpolation" {
        when: "an array or mapping inside a string interpolation",
        why: r"A substitution with text around it is interpolated into a string, and only strings, numbers and booleans have a text form. An array or a mapping has one only as the whole field.",
        fix: r#"Make the substitution the whole field, or turn the array or mapping into text first, for example with `join(..., ",")`."#,
        example: r#"strata spec eval 'regions-${split("a,b", ",")}'"#,
    }

    EVAL = "subst/eval" {
        when: "evaluating failed: a function's error, an index out of range, a missing field, an overflow",
        why: r"Evaluation failed on a value that was only known then: a function refused its input, an index was out of range, a field was missing, a number overflowed, or a variable read was given no value.",
        fix: r"Read the message for the failing call, and correct its input or the variables and values that feed it.",
        example: r#"strata spec eval '${substr("orders", 4, 2)}'"#,
    }

    STEP_LIMIT = "subst/step-limit" {
        when: "evaluation took more steps than the render's budget ([`crate::Steps`])",
        why: r"Evaluation is bounded: each expression node, function application and copied value node is a step, and a render may take 10,000,000 steps unless `--max-steps` says otherwise, so that no blueprint makes a render run without end.",
        fix: r"Ask for less work, for example by not copying a large value into every instance of a large `each`; or raise the budget with `--max-steps`.",
        example: r#"# blueprint.yaml, with `strata spec render blueprint.yaml --max-steps 100`
version: 2023-04-20
values:
  items:
    type: array
    value: ${split("a,b,c,d,e,f,g,h", ",")}
resources:
  queue:
    type: aws/sqs/queue
    each: ${values.items}
    spec:
      all: ${join(values.items, "-")}"#,
    }
}

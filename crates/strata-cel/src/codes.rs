//! The diagnostic codes of CEL expressions.

strata_syntax::declare_codes! {
    PARSE = "cel/parse" {
        when: "the expression does not parse",
        where: "the offending character when it can be mapped, else the scalar",
        why: r"A `!cel` scalar holds a CEL expression, compiled when the catalogue is loaded; text that is not valid CEL has no value. The diagnostic points at the offending character when the scalar is written on one line without escapes, else at the scalar with the position in a note.",
        fix: r"Correct the expression: close every string and bracket, and inside a YAML double-quoted scalar write CEL's string literals with `'`.",
        example: r#"# catalogue/a.yaml, with `strata platform check catalogue`
name: a
image: x
env:
  SPLASH: !cel "'unclosed""#,
    }

    LIMIT = "cel/limit" {
        when: "a cost bound below was hit",
        where: "the scalar (or the character, for nesting)",
        why: r"Expressions may come from repository overlays, so evaluating one must not crash, hang or exhaust memory. An expression longer than 8 KiB, nesting more than 64 levels while parsing or deeper than 256 in its syntax tree is refused; an evaluation stops past 100,000 comprehension iterations, a list or map of more than 10,000 entries, or a string of more than 1 MiB.",
        fix: r"Simplify the expression or shrink the data it builds: iterate over fewer items, split a long expression over several scalars, or write large constant data in the file instead.",
        example: r#"# catalogue/a.yaml, with `strata platform check catalogue`
name: a
image: x
env:
  COUNT: !cel "string(size(lists.range(20000)))""#,
    }

    EVAL = "cel/eval" {
        when: "evaluation failed: no such key, no matching overload, unknown variable or function, division by zero, ... (the `cel` crate's message, lowercased)",
        where: "the scalar",
        why: r"The expression compiled but failed against the scope: a key the scope lacks, an operator or function with no overload for the types given, an unknown variable or function, a division by zero. The `cel` crate reports no position, so the diagnostic points at the whole scalar; a near name is suggested for an unknown variable.",
        fix: r"Correct the expression against what the scope holds (in a platform render: `user`, `workspaceName`, `metadata`, `blueprint`): fix names, convert types with `string(...)` or `int(...)`, and test optional keys with `has(...)`.",
        example: r#"# catalogue/a.yaml, with `strata platform check catalogue`
name: a
image: x
env:
  HOST: !cel "user.usernme + '.example.com'""#,
    }

    ENV_DISABLED = "cel/env-disabled" {
        when: "`env()` was called without [`CelOptions::allow_env`](crate::CelOptions::allow_env)",
        where: "the scalar",
        why: r"`env(name)` reads the environment of the process running Strata, which on a server holds its secrets, and catalogue expressions (repository overlays included) must not read them by default. So `env()` is refused unless the catalogue allows it.",
        fix: r"If the catalogue's expressions may read the environment, allow it with `cel: {allowEnv: true}` in the catalogue's `.strata.yaml`; otherwise pass the value in through the scope.",
        example: r#"# catalogue/a.yaml, with `strata platform check catalogue` (no `cel.allowEnv` in .strata.yaml)
name: a
image: x
env:
  HOME_DIR: !cel "env('HOME')""#,
    }

    RESULT = "cel/result" {
        when: "the value cannot be put in the tree (see the crate docs)",
        where: "the scalar",
        why: r"A result replaces its scalar in the tree, so it must be a value the tree can hold. An unsigned integer beyond the signed 64-bit range, bytes that are not UTF-8, and a map whose keys collide once written as text (`{1: 'a', '1': 'b'}`) cannot be; the scalar keeps its text and tag.",
        fix: r"Make the result representable: encode bytes with `base64.encode(...)`, keep integers within the signed 64-bit range, and give a map keys that stay distinct as text.",
        example: r#"# catalogue/a.yaml, with `strata platform check catalogue`
name: a
image: x
env:
  BIG: !cel "18446744073709551615u""#,
    }

    NOT_A_STRING = "cel/not-a-string" {
        when: "`!cel` tags a mapping, a sequence or a non-string scalar",
        where: "the node",
        why: r"`!cel` marks a string scalar as a CEL expression. A mapping, a sequence or a number or boolean has no expression text to compile.",
        fix: r#"Tag the string scalar that holds the expression, or write the whole value as one expression that builds it, such as `!cel "['code-server', '--user', user.username]"`."#,
        example: r"# catalogue/a.yaml, with `strata platform check catalogue`
name: a
image: x
apps:
  code:
    start: !cel [code-server, --user]",
    }
}

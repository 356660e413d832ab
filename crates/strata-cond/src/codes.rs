//! The diagnostic codes of the features expression language.
//!
//! A `jsonnet()` file that fails is reported where it failed, with the
//! host's code (`jsonnet/eval`), the expression as its secondary place.

strata_syntax::declare_codes! {
    PARSE = "cond/parse" {
        when: "the text is not an expression, or a `${` is malformed",
        why: r"Feature `when:` conditions and the `${..}` in inputs, substitutions and patches are written in the features expression language (the subset of expr Windsor uses). Text that is not an expression (a single `=` or `&`, an unclosed string, parenthesis or `${`, an empty `${}`, nesting deeper than 128) is reported at the character where reading stopped; `when` takes a bare expression, without `${ }`.",
        fix: r"Correct the expression at the character shown: `==` for equality, `&&` (or `and`) for conjunction, close strings, brackets and `${..}`, and write `when` without `${ }`.",
        example: r"# contexts/_template/features/aws.yaml
kind: Feature
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: aws
when: provider = 'aws'",
    }

    EVAL = "cond/eval" {
        when: "evaluation failed: types, overflow, a function's error",
        why: r"The expression parsed but could not be evaluated: an operator given the wrong types (`name + 1`, or a missing key, which is `null`, compared with a number), a division by zero, an integer overflow, an unknown function or a function's own error, or a `when` that yields neither a boolean nor `null`.",
        fix: r"Make the operand types match; give values that may be missing a default with `??` (`cluster.workers ?? 1`); call only `values`, `jsonnet` and `file`; make `when` yield a boolean (`count > 0`, not `count`).",
        example: r"# contexts/_template/features/workers.yaml (the context's values have no `cluster`)
kind: Feature
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: workers
when: cluster.workers > 2",
    }
}

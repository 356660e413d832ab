//! The diagnostic codes of Jsonnet evaluation.

strata_syntax::declare_codes! {
    EVAL = "jsonnet/eval" {
        when: "an evaluation failed (a component, a variable's code, a post-processor, a `jsonnet()` call) or did not finish in time",
        why: r"Jsonnet evaluation failed: a runtime error (`error`, a missing field, a wrong type), a syntax error, an import that cannot be resolved or leaves the root, calls nested more than 500 deep, or an evaluation still running after its time bound (`--eval-timeout`). It is reported where it failed, with the Jsonnet trace in the notes (and, for `jsonnet()`, the calling expression as a second place).",
        fix: r"Correct the Jsonnet at the innermost place of the trace; for a timeout, look for a computation that does not end, or raise `--eval-timeout`.",
        example: r"// components/web.jsonnet
local config = { replicas: 2 };
{
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas: config.replica },
}",
    }

    TRACE = "jsonnet/trace" {
        when: "a `std.trace` message (a note), where it was called",
        why: r"`std.trace(message, value)` prints a message while Jsonnet evaluates and returns `value`. Each message is reported as a note at its call, naming the evaluation it came from (a component, a `jsonnet()` call), so debugging output comes with the other diagnostics; it is not a problem.",
        fix: r"Nothing needs fixing; remove the `std.trace` call once its message is no longer wanted.",
        example: r"// components/web.jsonnet
local replicas = std.trace('replicas for ' + std.extVar('qbec.io/env'), 3);
{
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas: replicas },
}",
    }
}

//! The diagnostic codes of the language server itself: a check stopped at
//! its budget. Every other diagnostic it publishes is a dialect's.

strata_syntax::declare_codes! {
    CHECK_MEMORY = "lsp/check-memory" {
        when: "a check's evaluation held more memory than its budget (`strata lsp --check-memory`) and was stopped; reported at the step it was running (a component, a `jsonnet()` file)",
        why: r"The language server runs a check's evaluation (a components environment, a features `jsonnet()` file) in a child process, so that Jsonnet that allocates without end cannot end the editor session. Past its memory budget (1 GiB by default) the child is stopped, and this is published at the start of the file it was evaluating; the check's other problems show once it can finish.",
        fix: r"Look in the named file for an evaluation that grows without end (an unbounded recursion, a huge array); if the project needs more memory, raise `strata lsp --check-memory` (`0` for no bound).",
        example: r"// components/a.jsonnet, open in an editor running: strata lsp --check-memory 256MiB
std.makeArray(1e9, function(i) i)",
    }

    CHECK_TIME = "lsp/check-time" {
        when: "a check's evaluation ran longer than its budget (`strata lsp --check-time`) and was stopped; reported at the step it was running",
        why: r"A check's evaluation in its child process also has a time budget (30 seconds by default): a Jsonnet VM cannot be interrupted, so a program that loops would otherwise keep the check running forever. Past it the child is stopped, and this is published at the start of the file it was evaluating.",
        fix: r"Look in the named file for a computation that does not end or is far too large; if the project needs longer, raise `strata lsp --check-time` (`0s` for no bound).",
        example: r"// components/sum.jsonnet, open in an editor running: strata lsp --check-time 2s
std.foldl(function(sum, i) sum + i, std.range(1, 1e9), 0)",
    }
}

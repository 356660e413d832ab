//! The diagnostic codes of the command line itself.

strata_syntax::declare_codes! {
    MEMORY_LIMIT = "run/memory-limit" {
        when: "the run held more resident memory than `--memory-limit` and was stopped",
        why: r"Inputs are bounded where they are read, but an evaluation (a Jsonnet program, say) can still grow without end and cannot be interrupted. So a watcher reads the process's resident memory every few milliseconds and, past `--memory-limit` (4 GiB by default; Linux only), ends the run with this error and exit status 1, before it takes the machine's memory.",
        fix: r"Look for an evaluation that grows without end (an unbounded recursion, a huge array); if the input legitimately needs more memory, raise `--memory-limit` (`0` turns the limit off).",
        example: r"# components/bomb.jsonnet holds: std.makeArray(1e9, function(i) i)
strata --memory-limit 512MiB components render app --env dev",
    }
}

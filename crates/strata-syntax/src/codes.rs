//! The diagnostic codes of loading and emitting YAML and JSON.

crate::declare_codes! {
    NON_FINITE_FLOAT = "emit/non-finite-float" {
        when: "JSON output cannot hold a NaN or an infinite float",
        why: r"JSON has no way to write NaN or an infinite number, which YAML can (`.nan`, `.inf`). Rather than write invalid JSON or change the value, the JSON output refuses it, at the value.",
        fix: r"Write YAML output (`-o yaml`), or replace the value with a finite number (or a string, if the consumer expects one).",
        example: r"# limits.yaml (with: strata merge -o json limits.yaml)
limits:
  max: .inf",
    }

    ALIAS_EXPANSION = "syntax/alias-expansion" {
        when: "aliases expand to more nodes than the configured bound",
        why: r#"Each YAML alias (`*name`) stands for a copy of its anchored node, so a chain of aliases that repeats the one before (a "billion laughs") grows exponentially from a small file. The expanded document may hold at most 1,000,000 nodes added by aliases and 16 MiB of added text (`--max-alias-bytes`)."#,
        fix: r"Write the repeated parts out, or restructure the document so it does not multiply aliases of aliases; raise `--max-alias-bytes` only if the input is legitimately that large.",
        example: r"# laughs.yaml
a: &a [ha, ha, ha, ha, ha, ha, ha, ha, ha, ha]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]",
    }

    COMPLEX_KEY = "syntax/complex-key" {
        when: "a mapping key is a sequence or a mapping",
        why: r"Documents are read into trees whose mapping keys are strings (as in JSON and in every dialect's files), so a key that is itself a sequence or a mapping (YAML's `? ` complex keys) has no representation.",
        fix: r"Use a scalar key; if the composite key matters, join it into a string (`a,b`) or move it into the value.",
        example: r"# ports.yaml
? {host: web, port: 80}
: allowed",
    }

    DUPLICATE_KEY = "syntax/duplicate-key" {
        when: "a mapping has the same key twice (both places named)",
        why: r"A mapping with the same key twice is ambiguous: YAML parsers disagree on which value wins, and one of the two is usually a mistake. Both places are named.",
        fix: r"Remove one of the two entries, or merge their values into one.",
        example: r"# app.yaml
image: web:1
replicas: 2
image: web:2",
    }

    INTEGER_OUT_OF_RANGE = "syntax/integer-out-of-range" {
        when: "an integer does not fit in 64 bits",
        why: r"Integers are held as 64-bit signed numbers; one larger than that cannot be kept exactly, and turning it silently into a float would change it.",
        fix: r#"Quote it to keep it as a string (`"123456789012345678901234567890"`), or use a value within range."#,
        example: r"# app.yaml
id: 98765432109876543210",
    }

    INVALID_MERGE_KEY = "syntax/invalid-merge-key" {
        when: "a `<<` merge key's value is not a mapping or a list of mappings",
        why: r"A `<<` merge key copies the entries of a mapping (or of each mapping in a list) into the mapping that holds it, so its value must be a mapping or a list of mappings; a scalar or a list of scalars has no entries to merge.",
        fix: r"Point `<<` at an anchored mapping (`<<: *defaults`) or a list of them, or write the key without `<<`.",
        example: r"# app.yaml
service:
  <<: defaults
  name: web",
    }

    INVALID_TAGGED_VALUE = "syntax/invalid-tagged-value" {
        when: "a `!!int`/`!!float`/`!!bool`/`!!null` scalar does not hold that type",
        why: r"An explicit core tag (`!!int`, `!!float`, `!!bool`, `!!null`) says which type the scalar has; a scalar that is not a value of that type contradicts its tag, and is refused rather than read as a string.",
        fix: r"Correct the value (`!!int 3`), or remove the tag (or use `!!str`) to keep it as text.",
        example: r"# app.yaml
enabled: !!bool maybe",
    }

    JSON = "syntax/json" {
        when: "the JSON parser rejected the text",
        why: r"A `.json` file (or JSON input) is parsed strictly as JSON: no trailing commas, no comments, double-quoted strings and keys. The parser's message says what it found and where.",
        fix: r"Correct the JSON at the position shown (a trailing comma is the most common cause), or write the file as YAML.",
        example: r#"{
  "name": "web",
  "replicas": 2,
}"#,
    }

    TOO_DEEP = "syntax/too-deep" {
        when: "nesting deeper than the configured bound",
        why: r"Documents are read no deeper than the nesting bound (128 levels by default, `--max-depth`), so that a hostile document of nested brackets cannot exhaust the stack. Real configuration nests far less.",
        fix: r"Flatten the document, or raise `--max-depth` if the nesting is legitimate.",
        example: r"# app.yaml (with: strata merge --max-depth 2 app.yaml)
server:
  tls:
    cert: /etc/tls/cert.pem",
    }

    TOO_LARGE = "syntax/too-large" {
        when: "the input is larger than the configured bound",
        why: r"Every file and input is read within a size bound (64 MiB by default, `--max-input-bytes`), so that an unexpectedly huge file cannot take the process's memory; it is refused before it is parsed.",
        fix: r"Split or shrink the input, or raise `--max-input-bytes` if it is legitimately that large.",
        example: r"# app.yaml (with: strata merge --max-input-bytes 10 app.yaml)
image: registry.example.com/web:1",
    }

    YAML = "syntax/yaml" {
        when: "the YAML scanner or parser rejected the text",
        why: r"The YAML scanner or parser could not read the text: bad indentation, an unclosed bracket or quote, a tab used for indentation, a list item mixed into a mapping. The message is the parser's, at the position it stopped.",
        fix: r"Correct the YAML at the position shown; the mistake is often on the line before, such as a key at the wrong indentation.",
        example: r"# app.yaml
env:
  - name: A
  value: 1",
    }
}

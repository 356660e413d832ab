//! Blueprint-like documents and random edits of them, for the tests that
//! hold a faster parse to a full one.

/// The resources a blueprint-like document is made of, in several shapes.
pub(crate) const SHAPES: [&str; 6] = [
    "  NAME:\n    type: aws/table\n    metadata:\n      labels: {app: NAME}\n    spec:\n      name: \"${variables.region}-NAME\"\n      items:\n        - one\n        - two\n",
    "  NAME:\n    type: aws/queue\n    spec:\n      script: |\n        line one\n          line two\n\n      after: 1\n",
    "  # the NAME resource\n  NAME:\n    type: aws/role\n    spec: {policy: \"read\", ttl: 30}\n",
    "  NAME:\n    type: aws/fn\n    linkSelector:\n      byLabel:\n        app: NAME\n    spec:\n      env:\n        - {name: A, value: 'x: y'}\n        - name: B\n          value: >\n            folded\n            text\n",
    "  NAME:\n    type: aws/topic\n    condition:\n      and:\n        - \"${variables.on}\"\n    spec:\n      plain: a multi\n        line plain scalar\n",
    "  NAME:\n    type: aws/script\n    spec:\n      script: |\n",
];

/// Pieces an edit inserts: text, structure, and what YAML treats apart.
pub(crate) const PIECES: [&str; 28] = [
    "\n",
    "  ",
    "    ",
    "x",
    ": ",
    "r1",
    "r0:",
    "\n  r9:\n    type: t\n",
    "# c",
    "- ",
    "{",
    "}",
    "\"",
    "'",
    "|",
    "<<: {a: 1}",
    "---",
    "\t",
    "&a ",
    "*a",
    "!tag ",
    "\n  ",
    "\nexports:\n",
    "[",
    "]",
    ",",
    "\n      k: v",
    "\nr5:\n  type: t\n",
];

pub(crate) fn document(shapes: &[usize], tail: bool) -> String {
    let mut text =
        String::from("version: 2023-04-20\nvariables:\n  region: {type: string}\nresources:\n");
    for (index, shape) in shapes.iter().enumerate() {
        text.push_str(&SHAPES[*shape].replace("NAME", &format!("r{index}")));
    }
    if tail {
        text.push_str(
            "# the exports\nexports:\n  e: {type: string, field: resources.r0.spec.name}\n",
        );
    }
    text
}

/// `text` with `removed` bytes at `at` (wrapped to its length) replaced by
/// `inserted`.
pub(crate) fn edited(text: &str, at: usize, removed: usize, inserted: &str) -> String {
    let at = at % (text.len() + 1);
    let end = (at + removed).min(text.len());
    format!("{}{inserted}{}", &text[..at], &text[end..])
}

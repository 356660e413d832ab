//! The diagnostic codes of the layered merge.

strata_syntax::declare_codes! {
    ITEM_NOT_MAPPING = "merge/item-not-mapping" {
        when: "a by-key strategy met an item that is not a mapping (the item is kept)",
        why: r"`merge-by-key:<field>` and `replace-by-key:<field>` match items by the value of their `<field>`, so every item must be a mapping. An item that is not is reported and kept, appended after the matched items, so nothing is lost.",
        fix: r"Write the item as a mapping with the key field, or register a strategy that does not match by key (`append`, `union`, `replace`) at that path.",
        example: r"# overlay.yaml, with `strata merge base.yaml overlay.yaml --strategy initScripts=merge-by-key:name`
initScripts:
  - apt-get update",
    }

    MISSING_KEY_FIELD = "merge/missing-key-field" {
        when: "a by-key strategy met an item without the key field (the item is kept)",
        why: r"A by-key strategy matches items by their `<field>`, so every item needs one, and as a scalar. An item without it, or with a mapping or sequence there, is reported and kept, appended after the matched items.",
        fix: r"Give every item the key field, with a scalar value.",
        example: r"# base.yaml, with `strata merge base.yaml overlay.yaml --strategy initScripts=merge-by-key:name`
initScripts:
  - name: apt
    script: apt-get update
  - script: pip install -U pip",
    }

    STRATEGY_FAILED = "merge/strategy-failed" {
        when: "a custom strategy reported a problem",
        why: r"A strategy that a library user registered as a Rust function (`Strategies::register_fn`) reported a problem through `SequenceMerge::report`; the message is the strategy's. The command line and the built-in strategies never report it.",
        fix: r"Follow the strategy's message: it says what the layers must hold at that path.",
        example: r#"// Rust: a strategy for `pairs`, given the layers `pairs: [1]` and `pairs: [1, 2]`
strategies.register_fn("pairs", "zip", |cx, lower, upper| {
    if lower.len() != upper.len() {
        let span = upper.first().map_or_else(Default::default, |item| item.span);
        cx.report(span, "layers must have as many items");
    }
    lower
})?;"#,
    }
}

//! Where `${..}` may not appear: the seed's "${..} Substitution Reference
//! Usage" rules, each with its own code.
//!
//! Never in mapping keys (anywhere), transforms, variable definitions, a
//! value's `type`, a resource's `type`, `metadata.labels` and
//! `linkSelector`, a data source's `type`, `exports`, `filter.field` and
//! `filter.operator`, and an export's `type` and `field`. Everywhere else
//! they are allowed: value `value` and `description`, resource
//! `description`, `condition`, `each`, `spec`, `metadata.displayName`,
//! `annotations` and `custom`, every include field, data source
//! `description`, `metadata` and `filter.search`, export `description` and
//! the blueprint's `metadata`.
//!
//! A text counts as holding a substitution when it parses to one, or when
//! it holds a `${` that does not parse (there is no escape: `$${x}` is a
//! `$` and then `${x}`).

use std::ops::Range;

use strata_subst::parse_template;
use strata_syntax::substitution::find_opening;
use strata_syntax::{Diagnostic, FieldPath, Node, PathStep, SourceDb, Span, Value};

use crate::codes;

/// Where the first substitution of a text stands, when it holds one (a
/// `${` that does not parse counts, to the end of the text).
fn substitution_range(text: &str) -> Option<Range<usize>> {
    let start = find_opening(text)?;
    if let Ok(template) = parse_template(text) {
        template
            .substitutions()
            .next()
            .map(|substitution| substitution.range.clone())
    } else {
        Some(start..text.len())
    }
}

/// One forbidden place: its code and how to name it.
struct Place {
    code: strata_syntax::Code,
    what: &'static str,
}

const KEY: Place = Place {
    code: codes::SUBST_IN_KEY,
    what: "a mapping key",
};
const TRANSFORM: Place = Place {
    code: codes::SUBST_IN_TRANSFORM,
    what: "`transform`",
};
const VARIABLE: Place = Place {
    code: codes::SUBST_IN_VARIABLE,
    what: "a variable definition",
};
const VALUE_TYPE: Place = Place {
    code: codes::SUBST_IN_VALUE_TYPE,
    what: "a value's `type`",
};
const RESOURCE_TYPE: Place = Place {
    code: codes::SUBST_IN_RESOURCE_TYPE,
    what: "a resource's `type`",
};
const LABELS: Place = Place {
    code: codes::SUBST_IN_LABELS,
    what: "a resource's `metadata.labels`",
};
const LINK_SELECTOR: Place = Place {
    code: codes::SUBST_IN_LINK_SELECTOR,
    what: "a resource's `linkSelector`",
};
const DATASOURCE_TYPE: Place = Place {
    code: codes::SUBST_IN_DATASOURCE_TYPE,
    what: "a data source's `type`",
};
const DATASOURCE_EXPORTS: Place = Place {
    code: codes::SUBST_IN_DATASOURCE_EXPORTS,
    what: "a data source's `exports`",
};
const FILTER_FIELD: Place = Place {
    code: codes::SUBST_IN_FILTER_FIELD,
    what: "a data source's `filter.field`",
};
const FILTER_OPERATOR: Place = Place {
    code: codes::SUBST_IN_FILTER_OPERATOR,
    what: "a data source's `filter.operator`",
};
const EXPORT_TYPE: Place = Place {
    code: codes::SUBST_IN_EXPORT_TYPE,
    what: "an export's `type`",
};
const EXPORT_FIELD: Place = Place {
    code: codes::SUBST_IN_EXPORT_FIELD,
    what: "an export's `field`",
};

/// The problems found, each with the span of the whole scalar (or key)
/// that holds the forbidden substitution.
struct Found<'a> {
    db: &'a SourceDb,
    problems: Vec<(Diagnostic, Span)>,
}

/// Every substitution written where the specification forbids one, each
/// pointing at the substitution, with the span of the scalar (or key) that
/// holds it.
pub(crate) fn check(root: &Node, db: &SourceDb) -> Vec<(Diagnostic, Span)> {
    let mut found = Found {
        db,
        problems: Vec::new(),
    };
    check_into(root, &mut found);
    found.problems
}

fn check_into(root: &Node, found: &mut Found<'_>) {
    keys(root, &mut Vec::new(), found);
    let section = |name: &str| root.get(name).and_then(Node::as_map).into_iter().flatten();
    if let Some(transform) = root.get("transform") {
        scalars(
            transform,
            &FieldPath::root().key("transform"),
            &TRANSFORM,
            found,
        );
    }
    for (name, entry) in section("variables") {
        let path = FieldPath::root().key("variables").key(name);
        scalars(&entry.value, &path, &VARIABLE, found);
    }
    for (name, entry) in section("values") {
        let path = FieldPath::root().key("values").key(name);
        field(&entry.value, &path, "type", &VALUE_TYPE, found);
    }
    for (name, entry) in section("resources") {
        let path = FieldPath::root().key("resources").key(name);
        field(&entry.value, &path, "type", &RESOURCE_TYPE, found);
        if let Some(labels) = entry
            .value
            .get("metadata")
            .and_then(|metadata| metadata.get("labels"))
        {
            scalars(labels, &path.key("metadata").key("labels"), &LABELS, found);
        }
        if let Some(selector) = entry.value.get("linkSelector") {
            scalars(selector, &path.key("linkSelector"), &LINK_SELECTOR, found);
        }
    }
    for (name, entry) in section("datasources") {
        let path = FieldPath::root().key("datasources").key(name);
        field(&entry.value, &path, "type", &DATASOURCE_TYPE, found);
        if let Some(exports) = entry.value.get("exports") {
            scalars(exports, &path.key("exports"), &DATASOURCE_EXPORTS, found);
        }
        if let Some(filter) = entry.value.get("filter") {
            let path = path.key("filter");
            field(filter, &path, "field", &FILTER_FIELD, found);
            field(filter, &path, "operator", &FILTER_OPERATOR, found);
        }
    }
    for (name, entry) in section("exports") {
        let path = FieldPath::root().key("exports").key(name);
        field(&entry.value, &path, "type", &EXPORT_TYPE, found);
        field(&entry.value, &path, "field", &EXPORT_FIELD, found);
    }
}

/// Reports the substitution in `text`, written at `node_span`; `path`
/// is only built when there is one.
fn report(
    place: &Place,
    node_span: Span,
    text: &str,
    path: impl FnOnce() -> FieldPath,
    found: &mut Found<'_>,
) {
    let Some(range) = substitution_range(text) else {
        return;
    };
    let span = found
        .db
        .span_in_scalar(node_span, text, range)
        .unwrap_or(node_span);
    found.problems.push((
        Diagnostic::error(
            place.code,
            format!("`${{..}}` cannot be used in {}", place.what),
            span,
        )
        .with_path(path())
        .with_help(format!(
            "{} is read before substitutions are resolved: write it literally",
            upper_first(place.what)
        )),
        node_span,
    ));
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// `node.<key>`, a forbidden place.
fn field(node: &Node, path: &FieldPath, key: &str, place: &Place, found: &mut Found<'_>) {
    if let Some(value) = node.get(key) {
        scalars(value, &path.key(key), place, found);
    }
}

/// Every string scalar under `node`, a forbidden place.
fn scalars(node: &Node, path: &FieldPath, place: &Place, found: &mut Found<'_>) {
    scalars_below(node, path, &mut Vec::new(), place, found);
}

fn scalars_below<'a>(
    node: &'a Node,
    base: &FieldPath,
    steps: &mut Vec<PathStep<'a>>,
    place: &Place,
    found: &mut Found<'_>,
) {
    match &node.value {
        Value::String(text) => report(place, node.span, text, || base.join(steps), found),
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                steps.push(PathStep::Index(index));
                scalars_below(item, base, steps, place, found);
                steps.pop();
            }
        }
        Value::Map(map) => {
            for (key, entry) in map {
                steps.push(PathStep::Key(key));
                scalars_below(&entry.value, base, steps, place, found);
                steps.pop();
            }
        }
        _ => {}
    }
}

/// Every mapping key in the document.
fn keys<'a>(node: &'a Node, steps: &mut Vec<PathStep<'a>>, found: &mut Found<'_>) {
    match &node.value {
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                steps.push(PathStep::Index(index));
                keys(item, steps, found);
                steps.pop();
            }
        }
        Value::Map(map) => {
            for (key, entry) in map {
                steps.push(PathStep::Key(key));
                report(
                    &KEY,
                    entry.key_span,
                    key,
                    || FieldPath::root().join(steps),
                    found,
                );
                keys(&entry.value, steps, found);
                steps.pop();
            }
        }
        _ => {}
    }
}

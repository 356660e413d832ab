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
/// holds it; the resource entries whose value `checked_apart` holds (by
/// its span) are left out but for their key ([`check_resource`] checked
/// them).
pub(crate) fn check(
    root: &Node,
    db: &SourceDb,
    checked_apart: impl Fn(Span) -> bool,
) -> Vec<(Diagnostic, Span)> {
    let mut found = Found {
        db,
        problems: Vec::new(),
    };
    check_into(root, &checked_apart, &mut found);
    found.problems
}

/// The substitutions written where the specification forbids one in the
/// entry `name` of `resources`, its value `node`: its keys, its `type`,
/// its labels and its link selector.
pub(crate) fn check_resource(name: &str, node: &Node, db: &SourceDb) -> Vec<(Diagnostic, Span)> {
    let mut found = Found {
        db,
        problems: Vec::new(),
    };
    let mut steps = vec![PathStep::Key("resources"), PathStep::Key(name)];
    resource(node, &mut steps, &mut found);
    found.problems
}

fn check_into(root: &Node, checked_apart: &dyn Fn(Span) -> bool, found: &mut Found<'_>) {
    let mut steps = Vec::new();
    let Some(top) = root.as_map() else {
        keys(root, &mut steps, found);
        return;
    };
    for (section, entry) in top {
        steps.push(PathStep::Key(section));
        key(section, entry.key_span, &steps, found);
        match entry.value.as_map() {
            Some(resources) if section == "resources" => {
                for (name, written) in resources {
                    steps.push(PathStep::Key(name));
                    key(name, written.key_span, &steps, found);
                    if !checked_apart(written.value.span) {
                        resource(&written.value, &mut steps, found);
                    }
                    steps.pop();
                }
            }
            _ => keys(&entry.value, &mut steps, found),
        }
        steps.pop();
    }
    let section = |name: &'static str| {
        root.get(name)
            .and_then(Node::as_map)
            .into_iter()
            .flatten()
            .map(move |(key, entry)| (vec![PathStep::Key(name), PathStep::Key(key)], &entry.value))
    };
    if let Some(transform) = root.get("transform") {
        scalars(
            transform,
            &mut vec![PathStep::Key("transform")],
            &TRANSFORM,
            found,
        );
    }
    for (mut steps, variable) in section("variables") {
        scalars(variable, &mut steps, &VARIABLE, found);
    }
    for (mut steps, value) in section("values") {
        field(value, &mut steps, "type", &VALUE_TYPE, found);
    }
    for (mut steps, datasource) in section("datasources") {
        field(datasource, &mut steps, "type", &DATASOURCE_TYPE, found);
        field(
            datasource,
            &mut steps,
            "exports",
            &DATASOURCE_EXPORTS,
            found,
        );
        if let Some(filter) = datasource.get("filter") {
            steps.push(PathStep::Key("filter"));
            field(filter, &mut steps, "field", &FILTER_FIELD, found);
            field(filter, &mut steps, "operator", &FILTER_OPERATOR, found);
        }
    }
    for (mut steps, export) in section("exports") {
        field(export, &mut steps, "type", &EXPORT_TYPE, found);
        field(export, &mut steps, "field", &EXPORT_FIELD, found);
    }
}

/// The forbidden places of the resource entry `node`, at `steps`
/// (`resources.NAME`): the keys below it, its `type`, labels and link
/// selector.
fn resource<'a>(node: &'a Node, steps: &mut Vec<PathStep<'a>>, found: &mut Found<'_>) {
    keys(node, steps, found);
    field(node, steps, "type", &RESOURCE_TYPE, found);
    if let Some(metadata) = node.get("metadata") {
        steps.push(PathStep::Key("metadata"));
        field(metadata, steps, "labels", &LABELS, found);
        steps.pop();
    }
    field(node, steps, "linkSelector", &LINK_SELECTOR, found);
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

/// `node.<key>`, a forbidden place, at `steps`.
fn field<'a>(
    node: &'a Node,
    steps: &mut Vec<PathStep<'a>>,
    key: &'a str,
    place: &Place,
    found: &mut Found<'_>,
) {
    if let Some(value) = node.get(key) {
        steps.push(PathStep::Key(key));
        scalars(value, steps, place, found);
        steps.pop();
    }
}

/// Every string scalar under `node`, at `steps`, a forbidden place.
fn scalars<'a>(
    node: &'a Node,
    steps: &mut Vec<PathStep<'a>>,
    place: &Place,
    found: &mut Found<'_>,
) {
    match &node.value {
        Value::String(text) => report(
            place,
            node.span,
            text,
            || FieldPath::root().join(steps),
            found,
        ),
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                steps.push(PathStep::Index(index));
                scalars(item, steps, place, found);
                steps.pop();
            }
        }
        Value::Map(map) => {
            for (key, entry) in map {
                steps.push(PathStep::Key(key));
                scalars(&entry.value, steps, place, found);
                steps.pop();
            }
        }
        _ => {}
    }
}

/// The mapping key `text`, written at `span`, at `steps`: a forbidden
/// place.
fn key(text: &str, span: Span, steps: &[PathStep<'_>], found: &mut Found<'_>) {
    report(&KEY, span, text, || FieldPath::root().join(steps), found);
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
            for (text, entry) in map {
                steps.push(PathStep::Key(text));
                key(text, entry.key_span, steps, found);
                keys(&entry.value, steps, found);
                steps.pop();
            }
        }
        _ => {}
    }
}

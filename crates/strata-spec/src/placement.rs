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
//! it holds a `${` that does not parse (`$${` is a literal `${`).

use strata_subst::parse_template;
use strata_syntax::{Diagnostic, FieldPath, Node, Value};

use crate::codes;

/// Whether a text holds a substitution.
pub(crate) fn has_substitution(text: &str) -> bool {
    text.contains("${")
        && parse_template(text).map_or(true, |template| template.has_substitutions())
}

/// One forbidden place: its code and how to name it.
struct Place {
    code: &'static str,
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

/// Every substitution written where the specification forbids one.
pub(crate) fn check(root: &Node) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    keys(root, &mut FieldPath::root(), &mut found);
    let section = |name: &str| root.get(name).and_then(Node::as_map).into_iter().flatten();
    if let Some(transform) = root.get("transform") {
        scalars(
            transform,
            &FieldPath::root().key("transform"),
            &TRANSFORM,
            &mut found,
        );
    }
    for (name, entry) in section("variables") {
        let path = FieldPath::root().key("variables").key(name);
        scalars(&entry.value, &path, &VARIABLE, &mut found);
    }
    for (name, entry) in section("values") {
        let path = FieldPath::root().key("values").key(name);
        field(&entry.value, &path, "type", &VALUE_TYPE, &mut found);
    }
    for (name, entry) in section("resources") {
        let path = FieldPath::root().key("resources").key(name);
        field(&entry.value, &path, "type", &RESOURCE_TYPE, &mut found);
        if let Some(labels) = entry
            .value
            .get("metadata")
            .and_then(|metadata| metadata.get("labels"))
        {
            scalars(
                labels,
                &path.key("metadata").key("labels"),
                &LABELS,
                &mut found,
            );
        }
        if let Some(selector) = entry.value.get("linkSelector") {
            scalars(
                selector,
                &path.key("linkSelector"),
                &LINK_SELECTOR,
                &mut found,
            );
        }
    }
    for (name, entry) in section("datasources") {
        let path = FieldPath::root().key("datasources").key(name);
        field(&entry.value, &path, "type", &DATASOURCE_TYPE, &mut found);
        if let Some(exports) = entry.value.get("exports") {
            scalars(
                exports,
                &path.key("exports"),
                &DATASOURCE_EXPORTS,
                &mut found,
            );
        }
        if let Some(filter) = entry.value.get("filter") {
            let path = path.key("filter");
            field(filter, &path, "field", &FILTER_FIELD, &mut found);
            field(filter, &path, "operator", &FILTER_OPERATOR, &mut found);
        }
    }
    for (name, entry) in section("exports") {
        let path = FieldPath::root().key("exports").key(name);
        field(&entry.value, &path, "type", &EXPORT_TYPE, &mut found);
        field(&entry.value, &path, "field", &EXPORT_FIELD, &mut found);
    }
    found
}

fn report(
    place: &Place,
    node_span: strata_syntax::Span,
    path: FieldPath,
    found: &mut Vec<Diagnostic>,
) {
    found.push(
        Diagnostic::error(
            place.code,
            format!("`${{..}}` cannot be used in {}", place.what),
            node_span,
        )
        .with_path(path)
        .with_help(format!(
            "{} is read before substitutions are resolved: write it literally",
            upper_first(place.what)
        )),
    );
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// `node.<key>`, a forbidden place.
fn field(node: &Node, path: &FieldPath, key: &str, place: &Place, found: &mut Vec<Diagnostic>) {
    if let Some(value) = node.get(key) {
        scalars(value, &path.key(key), place, found);
    }
}

/// Every string scalar under `node`, a forbidden place.
fn scalars(node: &Node, path: &FieldPath, place: &Place, found: &mut Vec<Diagnostic>) {
    match &node.value {
        Value::String(text) if has_substitution(text) => {
            report(place, node.span, path.clone(), found)
        }
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                scalars(item, &path.index(index), place, found);
            }
        }
        Value::Map(map) => {
            for (key, entry) in map {
                scalars(&entry.value, &path.key(key), place, found);
            }
        }
        _ => {}
    }
}

/// Every mapping key in the document.
fn keys(node: &Node, path: &mut FieldPath, found: &mut Vec<Diagnostic>) {
    match &node.value {
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push(strata_syntax::Segment::Index(index));
                keys(item, path, found);
                path.pop();
            }
        }
        Value::Map(map) => {
            for (key, entry) in map {
                if has_substitution(key) {
                    report(&KEY, entry.key_span, path.key(key), found);
                }
                path.push(strata_syntax::Segment::Key(key.clone()));
                keys(&entry.value, path, found);
                path.pop();
            }
        }
        _ => {}
    }
}

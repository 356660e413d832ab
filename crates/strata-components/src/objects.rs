//! From a component's output to Kubernetes objects.
//!
//! An output is, recursively, one of:
//!
//! - a Kubernetes object: a mapping whose `kind` and `apiVersion` are
//!   non-empty strings;
//! - a list: such a mapping with an `items` array of outputs (`List`,
//!   `ConfigMapList`, ...), as qbec reads it; a `kind: List` without an
//!   `items` array is an error;
//! - a mapping of outputs (any other mapping);
//! - an array of outputs;
//! - `null`, which yields nothing.
//!
//! Anything else where an output is expected is an error naming the JSON
//! path inside the output (`$.deployments[1].spec`); so is an object without
//! `metadata.name` or `metadata.generateName`.
//!
//! Codes: [`codes::NOT_AN_OBJECT`], [`codes::INVALID_LIST`], [`codes::NO_NAME`],
//! [`codes::INVALID_METADATA`].

use crate::codes;
use strata_syntax::{Diagnostic, Entry, Node, Value};

/// Walks `output`, collecting its objects in order; every problem is reported.
#[must_use]
pub(crate) fn extract(output: Node, component: &str) -> (Vec<Node>, Vec<Diagnostic>) {
    let mut walk = Walk {
        component,
        objects: Vec::new(),
        problems: Vec::new(),
    };
    walk.output(output, &mut String::from("$"));
    (walk.objects, walk.problems)
}

struct Walk<'a> {
    component: &'a str,
    objects: Vec<Node>,
    problems: Vec<Diagnostic>,
}

impl Walk<'_> {
    fn output(&mut self, node: Node, path: &mut String) {
        let span = node.span;
        match node.value {
            Value::Null => {}
            Value::Seq(items) => {
                for (index, item) in items.into_iter().enumerate() {
                    self.nested(path, &format!("[{index}]"), |walk, path| {
                        walk.output(item, path);
                    });
                }
            }
            Value::Map(entries) if is_object(&entries) => {
                let node = Node {
                    value: Value::Map(entries),
                    ..node
                };
                let has_items = node.get("items").is_some_and(|items| items.as_seq().is_some());
                if has_items || node.get("kind").and_then(Node::as_str) == Some("List") {
                    self.list(node, path);
                } else {
                    self.object(node, path);
                }
            }
            Value::Map(entries) => {
                for (key, entry) in entries {
                    self.nested(path, &member(&key), |walk, path| {
                        walk.output(entry.value, path);
                    });
                }
            }
            scalar => self.problems.push(
                Diagnostic::error(
                    codes::NOT_AN_OBJECT,
                    format!(
                        "component `{}`: expected a Kubernetes object, a List, a map or an array at `{path}`, found {}",
                        self.component,
                        scalar.kind_name()
                    ),
                    span,
                ),
            ),
        }
    }

    fn list(&mut self, node: Node, path: &mut String) {
        let span = node.span;
        let Value::Map(mut entries) = node.value else {
            return;
        };
        match entries.shift_remove("items").map(|entry| entry.value) {
            Some(
                items @ Node {
                    value: Value::Seq(_),
                    ..
                },
            ) => {
                self.nested(path, ".items", |walk, path| walk.output(items, path));
            }
            _ => self.problems.push(Diagnostic::error(
                codes::INVALID_LIST,
                format!(
                    "component `{}`: the List at `{path}` has no `items` array",
                    self.component
                ),
                span,
            )),
        }
    }

    fn object(&mut self, node: Node, path: &str) {
        let metadata = node.get("metadata");
        if metadata.is_some_and(|m| m.as_map().is_none()) {
            self.problems.push(Diagnostic::error(
                codes::INVALID_METADATA,
                format!(
                    "component `{}`: the `metadata` of the object at `{path}` is not a mapping",
                    self.component
                ),
                metadata.map_or(node.span, |m| m.span),
            ));
            return;
        }
        let mut wrong = false;
        for section in ["labels", "annotations"] {
            let value = metadata.and_then(|m| m.get(section));
            if value.is_some_and(|v| v.as_map().is_none() && !matches!(v.value, Value::Null)) {
                self.problems.push(Diagnostic::error(
                    codes::INVALID_METADATA,
                    format!(
                        "component `{}`: `metadata.{section}` of the object at `{path}` is not a mapping",
                        self.component
                    ),
                    value.map_or(node.span, |v| v.span),
                ));
                return;
            }
            // Kubernetes takes only strings here: `true` or `3` would be
            // refused by the API server, after the deployment started.
            let entries = value.and_then(Node::as_map).into_iter().flatten();
            for (key, entry) in entries {
                if !matches!(entry.value.value, Value::String(_)) {
                    wrong = true;
                    let found = entry.value.value.kind_name();
                    let article = if found.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    };
                    self.problems.push(
                        Diagnostic::error(
                            codes::INVALID_METADATA,
                            format!(
                                "component `{}`: `metadata.{section}.{key}` of the object at `{path}` is {article} {found}; Kubernetes takes only strings",
                                self.component
                            ),
                            entry.value.span,
                        )
                        .with_help(format!("quote it: `\"{}\"`", strata_syntax::emit::to_json(&entry.value).unwrap_or_default().trim())),
                    );
                }
            }
        }
        if wrong {
            return;
        }
        if name(&node).is_none() {
            let kind = node.get("kind").and_then(Node::as_str).unwrap_or("object");
            self.problems.push(
                Diagnostic::error(
                    codes::NO_NAME,
                    format!(
                        "component `{}`: the {kind} at `{path}` has no `metadata.name` or `metadata.generateName`",
                        self.component
                    ),
                    node.span,
                )
                .with_help("give it a name"),
            );
            return;
        }
        self.objects.push(node);
    }

    /// Runs `inner` with `segment` appended to the path.
    fn nested(
        &mut self,
        path: &mut String,
        segment: &str,
        inner: impl FnOnce(&mut Self, &mut String),
    ) {
        let length = path.len();
        path.push_str(segment);
        inner(self, path);
        path.truncate(length);
    }
}

/// `kind` and `apiVersion` are non-empty strings.
#[must_use]
pub(crate) fn is_object(entries: &strata_syntax::Mapping) -> bool {
    ["kind", "apiVersion"].iter().all(|key| {
        entries
            .get(*key)
            .and_then(|entry| entry.value.as_str())
            .is_some_and(|text| !text.is_empty())
    })
}

/// Sorts every mapping's keys, as qbec writes objects (Go marshals maps
/// sorted), so output does not depend on how a component ordered them.
pub(crate) fn sort_keys(node: &mut Node) {
    match &mut node.value {
        Value::Map(entries) => {
            // Jsonnet's objects come sorted already; sorting rebuilds the
            // map's index even then.
            if !entries.keys().is_sorted() {
                entries.sort_keys();
            }
            for entry in entries.values_mut() {
                sort_keys(&mut entry.value);
            }
        }
        Value::Seq(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

/// `.key`, or `['key']` when the key is not a plain identifier.
fn member(key: &str) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!(".{key}")
    } else {
        format!("['{}']", key.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// `metadata.name`, else `metadata.generateName`, when a non-empty string.
#[must_use]
pub(crate) fn name(object: &Node) -> Option<&str> {
    let metadata = object.get("metadata")?;
    ["name", "generateName"]
        .into_iter()
        .filter_map(|key| metadata.get(key).and_then(Node::as_str))
        .find(|name| !name.is_empty())
}

/// The sort key of an object: namespace, kind, name.
#[must_use]
pub(crate) fn identity(object: &Node) -> (String, String, String) {
    let text = |node: Option<&Node>| node.and_then(Node::as_str).unwrap_or_default().to_owned();
    let metadata = object.get("metadata");
    (
        text(metadata.and_then(|m| m.get("namespace"))),
        text(object.get("kind")),
        name(object).unwrap_or_default().to_owned(),
    )
}

/// Sets `metadata.<section>.<key>` to `value`, creating the mappings; the
/// problem when `metadata.<section>` is not a mapping.
pub(crate) fn set_metadata(
    object: &mut Node,
    section: &str,
    key: &str,
    value: &str,
) -> Result<(), Diagnostic> {
    let span = object.span;
    let metadata = entry(object, "metadata")?;
    let section_node = entry(metadata, section)?;
    let Value::Map(entries) = &mut section_node.value else {
        return Err(Diagnostic::error(
            codes::INVALID_METADATA,
            format!("`metadata.{section}` is not a mapping"),
            section_node.span,
        ));
    };
    entries.insert(
        key.to_owned(),
        Entry {
            key_span: span,
            value: Node::new(Value::String(value.to_owned()), span),
        },
    );
    Ok(())
}

/// The mapping under `key`, created empty when absent.
fn entry<'a>(node: &'a mut Node, key: &str) -> Result<&'a mut Node, Diagnostic> {
    let span = node.span;
    let Value::Map(entries) = &mut node.value else {
        return Err(Diagnostic::error(
            codes::INVALID_METADATA,
            format!("expected a mapping holding `{key}`"),
            span,
        ));
    };
    let value = &mut entries
        .entry(key.to_owned())
        .or_insert_with(|| Entry {
            key_span: span,
            value: Node::new(Value::Map(strata_syntax::Mapping::default()), span),
        })
        .value;
    if matches!(value.value, Value::Null) {
        value.value = Value::Map(strata_syntax::Mapping::default());
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use strata_syntax::{Format, Limits, SourceDb, Span};

    use super::*;

    fn output(text: &str) -> (SourceDb, Node) {
        let mut db = SourceDb::new();
        let id = db.add("out.yaml", text);
        let mut parsed = strata_syntax::parse(&db, id, Format::Yaml, &Limits::default());
        assert!(!parsed.has_errors());
        let node = parsed
            .documents
            .pop()
            .unwrap_or_else(|| Node::new(Value::Null, Span::default()));
        (db, node)
    }

    fn names(objects: &[Node]) -> Vec<&str> {
        objects.iter().filter_map(name).collect()
    }

    #[test]
    fn the_four_shapes_nest() {
        let (_, node) = output(
            "
web:
  deployment: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}}
  extras:
    - {apiVersion: v1, kind: Service, metadata: {name: web-svc}}
    - null
    - apiVersion: v1
      kind: List
      items:
        - {apiVersion: v1, kind: ConfigMap, metadata: {generateName: cfg-}}
        - [{apiVersion: v1, kind: Secret, metadata: {name: s}}]
nothing: null
",
        );
        let (objects, problems) = extract(node, "web");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(names(&objects), ["web", "web-svc", "cfg-", "s"]);
    }

    #[test]
    fn problems_name_the_path_inside_the_output() {
        let (db, node) = output(
            "
deployments:
  - {apiVersion: apps/v1, kind: Deployment, metadata: {name: ok}}
  - 42
'odd.key': [true]
list: {apiVersion: v1, kind: List}
unnamed: {apiVersion: v1, kind: ConfigMap, metadata: {labels: {}}}
",
        );
        let (objects, problems) = extract(node, "web");
        assert_eq!(names(&objects), ["ok"]);
        let messages: Vec<(String, u32)> = problems
            .iter()
            .map(|d| {
                let record = d.record(&db);
                (record.message, record.line)
            })
            .collect();
        assert_eq!(
            messages,
            [
                ("component `web`: expected a Kubernetes object, a List, a map or an array at `$.deployments[1]`, found integer".to_owned(), 4),
                ("component `web`: expected a Kubernetes object, a List, a map or an array at `$['odd.key'][0]`, found boolean".to_owned(), 5),
                ("component `web`: the List at `$.list` has no `items` array".to_owned(), 6),
                ("component `web`: the ConfigMap at `$.unnamed` has no `metadata.name` or `metadata.generateName`".to_owned(), 7),
            ]
        );
    }

    #[test]
    fn metadata_is_created_as_needed() {
        let (_, node) =
            output("{apiVersion: v1, kind: ConfigMap, metadata: {name: x, labels: null}}");
        let mut object = node;
        set_metadata(&mut object, "labels", "qbec.io/environment", "dev").unwrap();
        set_metadata(&mut object, "annotations", "qbec.io/component", "c").unwrap();
        let labels = object
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .unwrap();
        assert_eq!(
            labels.get("qbec.io/environment").and_then(Node::as_str),
            Some("dev")
        );
        assert_eq!(
            identity(&object),
            (String::new(), "ConfigMap".to_owned(), "x".to_owned())
        );
        let (_, mut bad) =
            output("{apiVersion: v1, kind: ConfigMap, metadata: {name: x, labels: [1]}}");
        assert!(set_metadata(&mut bad, "labels", "a", "b").is_err());
    }
}

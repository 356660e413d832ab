//! The values expressions see: the context's block of `windsor.yaml`,
//! `contexts/<NAME>/values.yaml` deep-merged over it, then each `--set`.
//!
//! - The deep merge merges mappings key by key; anything else (lists
//!   included) from `values.yaml` replaces. A missing `values.yaml` is fine;
//!   one that is not a mapping is an error.
//! - As in Windsor, `context` is the context's name unless the values set it.
//! - `--set PATH=VALUE`: `PATH` is a dotted field path (`cluster.workers.count`,
//!   `["a.b"]` for a key with a dot); `VALUE` is read as YAML (`3` is a
//!   number, `true` a boolean, `[a, b]` a list, anything else a string).
//!   Mappings along the path are created; a path through a non-mapping is an
//!   error.
//!
//! Codes: [`codes::UNKNOWN_CONTEXT`] (the known ones are listed),
//! [`codes::INVALID_SET`], [`codes::NOT_A_MAPPING`].

use std::path::Path;

use strata_dialect::{Expect, Place, Reader};
use strata_merge::{Strategies, Strategy};
use strata_syntax::{Diagnostic, Entry, FieldPath, Format, Mapping, Node, Segment, Span, Value};

use crate::codes;

/// The file at the project root.
pub(crate) const WINDSOR_FILE: &str = "windsor.yaml";

/// The template's schema, whose defaults lie under every context's values.
pub(crate) const SCHEMA_FILE: &str = "schema.yaml";

/// The defaults a JSON Schema declares, as Windsor extracts them: each
/// property's `default`, and for a property of `type: object` the defaults
/// of its own properties (which take the place of its `default` when there
/// are any). `None` when the schema declares none.
pub(crate) fn schema_defaults(schema: &Node) -> Option<Node> {
    let properties = schema.get("properties")?.as_map()?;
    let mut defaults = Mapping::default();
    for (name, entry) in properties {
        let property = &entry.value;
        if let Some(default) = property.get("default") {
            defaults.insert(
                name.clone(),
                Entry {
                    key_span: entry.key_span,
                    value: default.clone(),
                },
            );
        }
        if property.get("type").and_then(Node::as_str) == Some("object")
            && let Some(nested) = schema_defaults(property)
        {
            defaults.insert(
                name.clone(),
                Entry {
                    key_span: entry.key_span,
                    value: nested,
                },
            );
        }
    }
    (!defaults.is_empty()).then(|| Node::new(Value::Map(defaults), schema.span))
}

/// The values of `context`, with every problem recorded, as Windsor v0.8
/// layers them (each over the one before, mappings merged deeply): the
/// schema's `defaults`, the context's block of the root `windsor.yaml`,
/// `contexts/<context>/windsor.yaml` (or `.yml`, where `windsor init`
/// writes a context's settings), `contexts/<context>/values.yaml`; then
/// the empty `cluster.controlplanes.nodes` and `cluster.workers.nodes`
/// Windsor adds so expressions can read them, `context`, and `sets`. A
/// context none of the files names is an error.
pub(crate) fn values(
    windsor: &Node,
    defaults: Option<&Node>,
    files: &mut Reader<'_>,
    context: &str,
    sets: &[(String, String)],
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let contexts = windsor.get("contexts");
    let folder = Path::new("contexts").join(context);
    let context_file = ["windsor.yaml", "windsor.yml"]
        .map(|name| folder.join(name))
        .into_iter()
        .find(|path| files.is_file(path));
    let values_file = Some(folder.join("values.yaml")).filter(|path| files.is_file(path));
    let block = contexts.and_then(|c| c.get(context));
    if block.is_none() && context_file.is_none() && values_file.is_none() {
        diagnostics.push(unknown_context(windsor, files, context));
        return None;
    }
    let mut config = match block.map(|block| &block.value) {
        Some(Value::Map(_)) => block.cloned()?,
        Some(Value::Null) | None => {
            let span = block.map_or(windsor.span, |block| block.span);
            Node::new(Value::Map(Mapping::default()), span)
        }
        Some(other) => {
            diagnostics.push(Diagnostic::error(
                codes::NOT_A_MAPPING,
                format!(
                    "`contexts.{context}` must be a mapping, found {}",
                    other.kind_name()
                ),
                block.map_or(windsor.span, |block| block.span),
            ));
            return None;
        }
    };
    for path in context_file.iter().chain(values_file.iter()) {
        let layer = files
            .read(path, Format::Yaml, Expect::AtMostOne, Place::File)
            .report(diagnostics)?
            .into_document()?;
        if !matches!(layer.value, Value::Map(_) | Value::Null) {
            diagnostics.push(Diagnostic::error(
                codes::NOT_A_MAPPING,
                format!(
                    "`{}` must be a mapping, found {}",
                    files.display(path),
                    layer.value.kind_name()
                ),
                layer.span,
            ));
            return None;
        }
        let merged =
            strata_merge::merge(config, layer, &Strategies::with_fallback(Strategy::Replace));
        diagnostics.extend(merged.diagnostics);
        config = merged.root;
    }
    if let Some(defaults) = defaults {
        // Given values win over defaults at every depth.
        let merged = strata_merge::merge(
            defaults.clone(),
            config,
            &Strategies::with_fallback(Strategy::Replace),
        );
        diagnostics.extend(merged.diagnostics);
        config = merged.root;
    }
    with_cluster_nodes(&mut config);
    if let Value::Map(entries) = &mut config.value
        && !entries.contains_key("context")
    {
        let span = config.span;
        entries.insert(
            "context".to_owned(),
            Entry {
                key_span: span,
                value: Node::new(Value::String(context.to_owned()), span),
            },
        );
    }
    let mut ok = true;
    for (path, value) in sets {
        ok &= set(&mut config, path, value, files, diagnostics);
    }
    ok.then_some(config)
}

/// `--context NAME` names no context: at the name, with the contexts
/// `windsor.yaml` declares.
fn unknown_context(windsor: &Node, files: &mut Reader<'_>, context: &str) -> Diagnostic {
    let known: Vec<&str> = windsor
        .get("contexts")
        .and_then(Node::as_map)
        .map(|map| map.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let text = format!("--context {context}");
    let id = files.register("<command line>", &text);
    Diagnostic::error(
        codes::UNKNOWN_CONTEXT,
        format!("`{WINDSOR_FILE}` has no context `{context}`"),
        Span::new(id, "--context ".len(), text.len()),
    )
    .with_note(if known.is_empty() {
        format!("`{WINDSOR_FILE}` declares no `contexts`")
    } else {
        format!(
            "the contexts are: {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
    .with_suggestion(context, known.iter().copied())
}

/// The empty `cluster.controlplanes.nodes` and `cluster.workers.nodes`
/// Windsor v0.8 puts in a context's values where they are missing (its
/// `GetContextValues`): a missing or null `cluster` becomes both; in a
/// `cluster` mapping, a group that is not a mapping becomes one with
/// `nodes`, and one without `nodes` gets them. A `cluster` of another
/// kind is left as it is.
fn with_cluster_nodes(config: &mut Node) {
    let span = config.span;
    let empty = || Node::new(Value::Map(Mapping::default()), span);
    let group = || {
        let mut group = empty();
        group.insert("nodes", empty());
        group
    };
    let Value::Map(entries) = &mut config.value else {
        return;
    };
    let cluster = entries
        .entry("cluster".to_owned())
        .or_insert_with(|| Entry {
            key_span: span,
            value: Node::new(Value::Null, span),
        });
    if matches!(cluster.value.value, Value::Null) {
        cluster.value = empty();
    }
    let cluster = &mut cluster.value;
    if !matches!(cluster.value, Value::Map(_)) {
        return;
    }
    for name in ["controlplanes", "workers"] {
        match cluster.get(name).map(|group| &group.value) {
            Some(Value::Map(nodes)) if nodes.contains_key("nodes") => {}
            Some(Value::Map(_)) => {
                if let Some(existing) = cluster.at_mut(&[Segment::Key(name.to_owned())]) {
                    existing.insert("nodes", empty());
                }
            }
            _ => {
                cluster.insert(name, group());
            }
        }
    }
}

/// Applies one `--set PATH=VALUE`.
fn set(
    config: &mut Node,
    path: &str,
    value: &str,
    files: &mut Reader<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let text = format!("{path}={value}");
    let id = files.register("--set", &text);
    let path_span = Span::new(id, 0, path.len());
    let segments = match FieldPath::parse(path) {
        Ok(parsed) if !parsed.segments().is_empty() => parsed.segments().to_vec(),
        _ => {
            diagnostics.push(Diagnostic::error(
                codes::INVALID_SET,
                format!("`{path}` is not a field path (`cluster.workers.count`)"),
                path_span,
            ));
            return false;
        }
    };
    // The value is YAML of its own (its problems point into it); the
    // value set is its first document, at the argument.
    let read = files
        .read_text("--set value", value, Format::Yaml, Expect::All)
        .valid();
    let Some(read) = read.report(diagnostics) else {
        return false;
    };
    let value_span = Span::new(id, path.len() + 1, text.len());
    let mut new_value = read
        .documents
        .into_iter()
        .next()
        .unwrap_or_else(|| Node::new(Value::Null, value_span));
    new_value.span = value_span;
    let mut target = config;
    for (index, segment) in segments.iter().enumerate() {
        let Segment::Key(key) = segment else {
            diagnostics.push(Diagnostic::error(
                codes::INVALID_SET,
                format!("`{path}`: `--set` takes keys, not indices or wildcards"),
                path_span,
            ));
            return false;
        };
        let last = index + 1 == segments.len();
        if matches!(target.value, Value::Null) {
            target.value = Value::Map(strata_syntax::Mapping::default());
        }
        let kind = target.value.kind_name();
        let Value::Map(entries) = &mut target.value else {
            diagnostics.push(Diagnostic::error(
                codes::INVALID_SET,
                format!(
                    "`{path}` goes through a {kind} at `{}`",
                    FieldPath::from(segments[..index].to_vec())
                ),
                path_span,
            ));
            return false;
        };
        if last {
            entries.insert(
                key.clone(),
                Entry {
                    key_span: path_span,
                    value: new_value,
                },
            );
            return true;
        }
        target = &mut entries
            .entry(key.clone())
            .or_insert_with(|| Entry {
                key_span: path_span,
                value: Node::new(Value::Map(strata_syntax::Mapping::default()), path_span),
            })
            .value;
    }
    true
}

#[cfg(test)]
mod tests {
    use strata_fs::MemoryFs;
    use strata_syntax::{Limits, SourceDb};

    use super::*;

    fn values_of(
        fs: &MemoryFs,
        context: &str,
        sets: &[(&str, &str)],
    ) -> (SourceDb, Option<Node>, Vec<Diagnostic>) {
        let mut db = SourceDb::new();
        let mut diagnostics = Vec::new();
        let sets: Vec<(String, String)> = sets
            .iter()
            .map(|(p, v)| ((*p).to_owned(), (*v).to_owned()))
            .collect();
        let mut files = Reader::new(fs, &mut db, Limits::default());
        let windsor = files
            .read(
                Path::new(WINDSOR_FILE),
                Format::Yaml,
                Expect::AtMostOne,
                Place::File,
            )
            .report(&mut diagnostics)
            .and_then(strata_dialect::Read::into_document);
        let defaults = files
            .is_file(Path::new("contexts/_template/schema.yaml"))
            .then(|| {
                files
                    .read(
                        Path::new("contexts/_template/schema.yaml"),
                        Format::Yaml,
                        Expect::One,
                        Place::File,
                    )
                    .report(&mut diagnostics)
            })
            .flatten()
            .and_then(strata_dialect::Read::into_document)
            .and_then(|schema| schema_defaults(&schema));
        let config = values(
            &windsor.unwrap(),
            defaults.as_ref(),
            &mut files,
            context,
            &sets,
            &mut diagnostics,
        );
        (db, config, diagnostics)
    }

    #[test]
    fn schema_defaults_lie_under_the_values_at_every_depth() {
        let fs = project().with(
            "contexts/_template/schema.yaml",
            r"$schema: https://json-schema.org/draft/2020-12/schema
type: object
properties:
  provider: {type: string, default: generic}
  ingress:
    type: object
    properties:
      enabled: {type: boolean, default: true}
  cluster:
    type: object
    default: {ignored: true}
    properties:
      workers:
        type: object
        properties:
          count: {type: integer, default: 2}
          size: {type: string, default: small}
  network:
    type: object
    default: {cidr_block: 10.0.0.0/16}
",
        );
        let (_, config, diagnostics) = values_of(&fs, "aws", &[]);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(
            config.unwrap().to_json_value(),
            serde_json::json!({
                "provider": "aws",
                "ingress": {"enabled": true},
                "cluster": {
                    "workers": {"count": 2, "size": "small", "nodes": {}},
                    "controlplanes": {"nodes": {}},
                },
                "network": {"cidr_block": "10.0.0.0/16"},
                "context": "aws",
            })
        );
        // A given value wins; its siblings keep their defaults.
        let (_, config, _) = values_of(&fs, "local", &[("cluster.workers.count", "5")]);
        let config = config.unwrap().to_json_value();
        assert_eq!(
            config["cluster"]["workers"],
            serde_json::json!({"count": 5, "size": "small", "nodes": {}})
        );
        assert_eq!(config["cluster"]["zones"], serde_json::json!(["c"]));
    }

    fn project() -> MemoryFs {
        MemoryFs::new()
            .with(
                WINDSOR_FILE,
                "version: v1alpha1\ncontexts:\n  local:\n    provider: local\n    cluster: {workers: {count: 1}, zones: [a, b]}\n  aws:\n    provider: aws\n",
            )
            .with("contexts/local/values.yaml", "cluster: {workers: {count: 3}, zones: [c]}\ndns: {domain: test}\n")
    }

    #[test]
    fn values_merge_over_the_context_then_sets_apply() {
        let (_, config, diagnostics) = values_of(
            &project(),
            "local",
            &[
                ("cluster.workers.count", "5"),
                ("observability.enabled", "true"),
                ("name", "shop"),
            ],
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(
            config.unwrap().to_json_value(),
            serde_json::json!({
                "provider": "local",
                "cluster": {
                    "workers": {"count": 5, "nodes": {}},
                    "zones": ["c"],
                    "controlplanes": {"nodes": {}},
                },
                "dns": {"domain": "test"},
                "context": "local",
                "observability": {"enabled": true},
                "name": "shop",
            })
        );
        // No values.yaml is fine.
        let (_, config, diagnostics) = values_of(&project(), "aws", &[]);
        assert!(diagnostics.is_empty());
        assert_eq!(
            config.unwrap().to_json_value(),
            serde_json::json!({
                "provider": "aws",
                "cluster": {"controlplanes": {"nodes": {}}, "workers": {"nodes": {}}},
                "context": "aws",
            })
        );
    }

    #[test]
    fn unknown_contexts_and_bad_sets_are_reported() {
        let (db, config, diagnostics) = values_of(&project(), "locla", &[]);
        assert!(config.is_none());
        let record = diagnostics[0].record(&db);
        assert_eq!(record.code, codes::UNKNOWN_CONTEXT);
        assert_eq!(record.help.as_deref(), Some("did you mean `local`?"));
        assert_eq!(record.notes, ["the contexts are: `local`, `aws`"]);
        let (db, config, diagnostics) =
            values_of(&project(), "local", &[("provider.x", "1"), ("a..b", "2")]);
        assert!(config.is_none());
        let messages: Vec<String> = diagnostics.iter().map(|d| d.record(&db).message).collect();
        assert_eq!(
            messages,
            [
                "`provider.x` goes through a string at `provider`",
                "`a..b` is not a field path (`cluster.workers.count`)"
            ]
        );
    }
}

//! The scope `!cel` expressions see at render time.
//!
//! | variable | contents |
//! |---|---|
//! | `user` | the authenticated user: `username`, `uid`, `gid`, `roles`, `allowedBlueprints`, and any further fields given |
//! | `workspaceName` | the workspace's canonical id |
//! | `metadata` | `name` (normalised to a DNS label), `repoName`, `repoOwner`, `repoRef`, `repoAddress` |
//! | `blueprint` | the resolved blueprint's name (set by the renderer) |
//!
//! `metadata.name` is normalised as Kubernetes object names require:
//! lowercased, every run of characters outside `[a-z0-9-]` becomes one `-`,
//! leading and trailing `-` trimmed, at most 53 characters (room for
//! suffixes within the 63 of a label).

use strata_syntax::{Diagnostic, Node, Span, Value};

use crate::codes;

/// The longest `metadata.name` after normalisation.
pub(crate) const MAX_NAME_LENGTH: usize = 53;

/// What a render evaluates `!cel` against.
#[derive(Debug, Clone)]
pub struct Scope {
    /// `user`.
    pub user: Node,
    /// `workspaceName`.
    pub workspace_name: String,
    /// `metadata`, with `name` already normalised.
    pub metadata: Node,
}

impl Scope {
    /// The synthetic scope every concrete blueprint is checked against at load,
    /// and that `render` uses when no scope is given.
    #[must_use]
    pub fn test() -> Scope {
        let text = |s: &str| plain(Value::String(s.to_owned()));
        let user = mapping([
            ("username", text("strata-test")),
            ("uid", plain(Value::Int(1000))),
            ("gid", plain(Value::Int(1000))),
            ("roles", plain(Value::Seq(Vec::new()))),
            ("allowedBlueprints", plain(Value::Seq(vec![text("*")]))),
        ]);
        let metadata = mapping([
            ("name", text("strata-test")),
            ("repoName", text("example")),
            ("repoOwner", text("strata")),
            ("repoRef", text("main")),
            (
                "repoAddress",
                text("https://git.example.invalid/strata/example.git"),
            ),
        ]);
        Scope {
            user,
            workspace_name: "strata-test-workspace".to_owned(),
            metadata,
        }
    }

    /// A scope read from a document with `user`, `workspaceName` and
    /// `metadata`; every problem is reported with its span.
    pub fn from_node(node: &Node) -> Result<Scope, Vec<Diagnostic>> {
        let mut problems = Vec::new();
        let Some(map) = node.as_map() else {
            return Err(vec![Diagnostic::error(
                codes::INVALID_SCOPE,
                format!(
                    "a scope is a mapping with `user`, `workspaceName` and `metadata`, found {}",
                    node.value.kind_name()
                ),
                node.span,
            )]);
        };
        for (key, entry) in map {
            if !["user", "workspaceName", "metadata"].contains(&key.as_str()) {
                problems.push(
                    Diagnostic::error(
                        codes::INVALID_SCOPE,
                        format!("unknown scope key `{key}`"),
                        entry.key_span,
                    )
                    .with_suggestion(key, ["user", "workspaceName", "metadata"]),
                );
            }
        }
        let mut required_map = |key: &str| match node.get(key) {
            Some(value) if value.as_map().is_some() => value.clone(),
            Some(value) => {
                problems.push(Diagnostic::error(
                    codes::INVALID_SCOPE,
                    format!(
                        "`{key}` must be a mapping, found {}",
                        value.value.kind_name()
                    ),
                    value.span,
                ));
                mapping([])
            }
            None => {
                problems.push(Diagnostic::error(
                    codes::INVALID_SCOPE,
                    format!("the scope has no `{key}`"),
                    node.span,
                ));
                mapping([])
            }
        };
        let user = required_map("user");
        let mut metadata = required_map("metadata");
        let workspace_name = match node.get("workspaceName") {
            Some(Node {
                value: Value::String(name),
                ..
            }) => name.clone(),
            Some(other) => {
                problems.push(Diagnostic::error(
                    codes::INVALID_SCOPE,
                    format!(
                        "`workspaceName` must be a string, found {}",
                        other.value.kind_name()
                    ),
                    other.span,
                ));
                String::new()
            }
            None => {
                problems.push(Diagnostic::error(
                    codes::INVALID_SCOPE,
                    "the scope has no `workspaceName`",
                    node.span,
                ));
                String::new()
            }
        };
        if let Value::Map(map) = &mut metadata.value
            && let Some(Value::String(name)) =
                map.get_mut("name").map(|entry| &mut entry.value.value)
        {
            *name = dns_label(name);
        }
        if problems.is_empty() {
            Ok(Scope {
                user,
                workspace_name,
                metadata,
            })
        } else {
            Err(problems)
        }
    }
}

impl Scope {
    /// The CEL variables for rendering `blueprint`.
    #[must_use]
    pub fn cel_scope(&self, blueprint: &str) -> strata_cel::Scope {
        let text = |s: &str| plain(Value::String(s.to_owned()));
        strata_cel::Scope::new()
            .with("user", &self.user)
            .with("workspaceName", &text(&self.workspace_name))
            .with("metadata", &self.metadata)
            .with("blueprint", &text(blueprint))
    }
}

/// `text` as a DNS label: lowercase, `[a-z0-9-]`, at most [`MAX_NAME_LENGTH`].
#[must_use]
pub(crate) fn dns_label(text: &str) -> String {
    let mut label = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            label.push(c);
        } else if !label.ends_with('-') {
            label.push('-');
        }
    }
    let trimmed = label.trim_matches('-');
    let mut end = trimmed.len().min(MAX_NAME_LENGTH);
    while !trimmed.is_char_boundary(end) {
        end -= 1;
    }
    trimmed[..end].trim_end_matches('-').to_owned()
}

fn plain(value: Value) -> Node {
    Node::new(value, Span::default())
}

fn mapping<const N: usize>(entries: [(&str, Node); N]) -> Node {
    Node::mapping(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_dns_labels() {
        assert_eq!(dns_label("My Repo_Name!!"), "my-repo-name");
        assert_eq!(dns_label("--a--b--"), "a-b");
        assert_eq!(dns_label(&"x".repeat(80)).len(), MAX_NAME_LENGTH);
        assert_eq!(
            dns_label(&format!("{}-{}", "a".repeat(52), "b")),
            "a".repeat(52)
        );
        assert_eq!(dns_label("Ünïcode"), "n-code");
    }
}

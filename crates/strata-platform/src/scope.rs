//! The scope `!cel` expressions see at render time.
//!
//! | variable | contents |
//! |---|---|
//! | `user` | the user, with k8shell's field names: `username`, `organization`, `isValid`, `expiresAt`, `uid`, `gid`, `fullname`, `email`, `locked`, `roles`, `blueprints`, `source`, `shell`, `sudo` (and `manageRepos`, `gitAddress` when set), and any further fields given |
//! | `workspaceName` | the workspace's canonical id |
//! | `metadata` | `name`, `repoName`, `repoOwner`, `repoRef`, `repoAddress` |
//! | `blueprint` | the rendered blueprint's name |
//!
//! As k8shell does on every render, `metadata.name` is the rendered
//! blueprint's name as a DNS label ([`strata_cel::dns_label`]: lowercased,
//! every run of characters outside `[a-z0-9-]` one `-`, trimmed, at most 53
//! characters), whatever the scope gives. A user's password is never in
//! the scope.

use strata_syntax::{Diagnostic, Node, Span, Value};

use crate::codes;
use crate::service::UserEntry;

/// What a render evaluates `!cel` against.
#[derive(Debug, Clone)]
pub struct Scope {
    /// `user`.
    pub user: Node,
    /// `workspaceName`.
    pub workspace_name: String,
    /// `metadata` (its `name` is replaced by the rendered blueprint's).
    pub metadata: Node,
}

impl Scope {
    /// The synthetic scope every concrete blueprint is checked against at load,
    /// and that `render` uses when no scope is given.
    #[must_use]
    pub fn test() -> Scope {
        let text = |s: &str| plain(Value::String(s.to_owned()));
        let user = UserEntry {
            username: "strata-test".to_owned(),
            token_sha256: String::new(),
            uid: 1000,
            gid: 1000,
            roles: Vec::new(),
            allowed_blueprints: vec!["*".to_owned()],
            organization: "strata".to_owned(),
            fullname: "Strata Test".to_owned(),
            email: "strata-test@example.invalid".to_owned(),
            shell: "/bin/bash".to_owned(),
            sudo: false,
            source: "strata".to_owned(),
            expires_at: Some("2099-12-31T23:59:59Z".to_owned()),
        }
        .cel_user();
        let metadata = mapping([
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
        let metadata = required_map("metadata");
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
    /// The CEL variables for rendering `blueprint`: `metadata.name` is its
    /// name as a DNS label.
    #[must_use]
    pub fn cel_scope(&self, blueprint: &str) -> strata_cel::Scope {
        let text = |s: &str| plain(Value::String(s.to_owned()));
        let mut metadata = self.metadata.clone();
        if let Value::Map(entries) = &mut metadata.value {
            entries.insert(
                "name".to_owned(),
                strata_syntax::Entry {
                    key_span: Span::default(),
                    value: text(&strata_cel::dns_label(blueprint)),
                },
            );
        }
        strata_cel::Scope::new()
            .with("user", &self.user)
            .with("workspaceName", &text(&self.workspace_name))
            .with("metadata", &metadata)
            .with("blueprint", &text(blueprint))
    }
}

fn plain(value: Value) -> Node {
    Node::new(value, Span::default())
}

fn mapping<const N: usize>(entries: [(&str, Node); N]) -> Node {
    Node::mapping(entries)
}

//! What the platform's service (`strata platform serve`, the
//! `strata-server` crate) reads besides the catalogue, as typed, strict
//! structs: the users file and the body of a compose request. Their
//! schemas are what `strata platform schema users|compose` prints; the
//! service decodes and validates through the same [`Decoder`]s.

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::Deserialize;
use strata_schema::Decoder;
use strata_syntax::{Node, Span, Value};

/// The users file, as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsersFile {
    /// The users.
    pub users: Vec<UserEntry>,
}

/// One user, as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserEntry {
    /// The name `user.username` gives to CEL.
    #[schemars(length(min = 1))]
    pub username: String,
    /// The hex SHA-256 of the user's bearer token.
    #[schemars(regex(pattern = r"^[0-9a-fA-F]{64}$"))]
    pub token_sha256: String,
    /// The workspace user id.
    pub uid: u32,
    /// The workspace group id.
    pub gid: u32,
    /// Roles; `admin` may use every blueprint.
    #[serde(default)]
    pub roles: Vec<String>,
    /// Blueprint names and globs the user may list and compose (CEL's
    /// `user.blueprints`, k8shell's name).
    #[serde(default)]
    pub allowed_blueprints: Vec<String>,
    /// The user's organization (k8shell's `user.organization`).
    #[serde(default)]
    pub organization: String,
    /// The user's full name.
    #[serde(default)]
    pub fullname: String,
    /// The user's e-mail address.
    #[serde(default)]
    pub email: String,
    /// The user's login shell.
    #[serde(default)]
    pub shell: String,
    /// Whether the user may use `sudo` in the workspace.
    #[serde(default)]
    pub sudo: bool,
    /// Where the user comes from (an identity provider's name).
    #[serde(default)]
    pub source: String,
    /// When the user's access ends (k8shell's `user.expiresAt`, RFC 3339).
    pub expires_at: Option<String>,
}

impl UserEntry {
    /// `user` as CEL sees it: k8shell's user model, field for field (the token
    /// digest never; `blueprints` is the users file's `allowedBlueprints`;
    /// `expiresAt` when the user's access ends).
    #[must_use]
    pub fn cel_user(&self) -> Node {
        let text = |value: &str| node(Value::String(value.to_owned()));
        let strings =
            |items: &[String]| node(Value::Seq(items.iter().map(|item| text(item)).collect()));
        let expires_at = self
            .expires_at
            .as_deref()
            .map(|expires_at| ("expiresAt", text(expires_at)));
        Node::mapping(
            [
                ("username", text(&self.username)),
                ("organization", text(&self.organization)),
                ("isValid", node(Value::Bool(true))),
                ("uid", node(Value::Int(i64::from(self.uid)))),
                ("gid", node(Value::Int(i64::from(self.gid)))),
                ("fullname", text(&self.fullname)),
                ("email", text(&self.email)),
                ("locked", node(Value::Bool(false))),
                ("roles", strings(&self.roles)),
                ("blueprints", strings(&self.allowed_blueprints)),
                ("source", text(&self.source)),
                ("shell", text(&self.shell)),
                ("sudo", node(Value::Bool(self.sudo))),
            ]
            .into_iter()
            .chain(expires_at),
        )
    }
}

/// A node of `value` with a default span, for trees built in code.
fn node(value: Value) -> Node {
    Node::new(value, Span::default())
}

/// The decoder of the users file.
pub static USERS_FILE: LazyLock<Decoder<UsersFile>> = LazyLock::new(Decoder::new);

/// A compose request, for its schema: the service reads the validated
/// tree, whose spans the diagnostics need, not this type.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComposeRequest {
    /// The blueprint; may be left out when `repo` names its template.
    pub blueprint: Option<String>,
    /// The workspace's canonical id.
    #[schemars(length(min = 1))]
    pub workspace_name: String,
    /// The workspace and its repository.
    pub metadata: RequestMetadata,
    /// The repository's `.k8shell.yaml`, as text or as an object.
    pub repo: Option<RepoFile>,
}

/// The `metadata` of a compose request.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestMetadata {
    /// The workspace's name (normalised to a DNS label for CEL).
    #[schemars(length(min = 1))]
    pub name: String,
    /// The repository's name.
    pub repo_name: Option<String>,
    /// Its owner.
    pub repo_owner: Option<String>,
    /// The ref checked out.
    pub repo_ref: Option<String>,
    /// Its address.
    pub repo_address: Option<String>,
}

/// The `repo` of a compose request: a `.k8shell.yaml`, as text or as an
/// object.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RepoFile {
    /// Text, parsed as YAML.
    Text(String),
    /// A mapping.
    Object(serde_json::Map<String, serde_json::Value>),
}

/// The validator of a compose request.
pub static COMPOSE_REQUEST: LazyLock<Decoder<ComposeRequest>> = LazyLock::new(Decoder::new);

/// The JSON Schema of the users file.
#[must_use]
pub fn users_schema() -> &'static serde_json::Value {
    USERS_FILE.schema()
}

/// The JSON Schema of a compose request.
#[must_use]
pub fn compose_request_schema() -> &'static serde_json::Value {
    COMPOSE_REQUEST.schema()
}

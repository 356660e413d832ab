//! The users file: who may call the service, and which blueprints each may use.
//!
//! ```yaml
//! users:
//!   - username: alice
//!     tokenSha256: 9c220f200955d76c0a38d308225e0ef10c5f971acaf2f8d1d8f732affa5bd1dc  # sha256 of "alice-token"
//!     uid: 1000
//!     gid: 1000
//!     roles: [developer]
//!     allowedBlueprints: [python-*, go-services]
//!     organization: acme        # optional, as k8shell's user model:
//!     fullname: Alice Example   # fullname, email, shell, sudo, source, expiresAt
//! ```
//!
//! - `tokenSha256` is the hex SHA-256 of the user's bearer token, so the file
//!   holds no secret; a request's token is hashed and looked up.
//! - `allowedBlueprints` holds names and globs (`*`, `?`, `[a-z]`); a user
//!   with the role `admin` may use every blueprint.
//! - The file is decoded strictly (YAML or JSON, by extension); usernames and
//!   token digests must be unique and every glob must compile.
//!
//! Codes: [`crate::codes`] (`users/*`), and `schema/*`, `syntax/*` and
//! `io/*` for the file's structure, syntax and reading.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use strata_dialect::{Expect, Opened, Place, Read, Reader};
use strata_fs::PlainFs;
use strata_platform::service::USERS_FILE;
use strata_syntax::{Diagnostic, Format, Limits, Node, Outcome, SourceDb, Span};

use crate::codes;

/// The role that may use every blueprint.
pub(crate) const ADMIN_ROLE: &str = "admin";

/// An authenticated caller.
#[derive(Debug)]
pub struct User {
    /// The username.
    pub username: String,
    /// Whether the user has the `admin` role.
    pub is_admin: bool,
    allowed: Vec<glob::Pattern>,
    /// `user` as CEL sees it, k8shell's user model: `username`,
    /// `organization`, `isValid`, `uid`, `gid`, `fullname`, `email`,
    /// `locked`, `roles`, `blueprints` (the file's `allowedBlueprints`),
    /// `source`, `shell`, `sudo`, `expiresAt` when given (never the token
    /// digest): [`strata_platform::service::UserEntry::cel_user`].
    pub scope: Node,
}

impl User {
    /// Whether the user may list and compose the blueprint `name`.
    #[must_use]
    pub fn may_use(&self, name: &str) -> bool {
        self.is_admin || self.allowed.iter().any(|pattern| pattern.matches(name))
    }
}

/// Every user, by the SHA-256 of its token.
#[derive(Debug, Default)]
pub struct Users {
    by_token_digest: HashMap<[u8; 32], Arc<User>>,
}

impl Users {
    /// The user whose token this is.
    #[must_use]
    pub fn authenticate(&self, token: &str) -> Option<Arc<User>> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        self.by_token_digest.get(&digest).cloned()
    }

    /// How many users there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_token_digest.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_token_digest.is_empty()
    }

    /// Reads and checks the users file at `path` (YAML, or JSON by its
    /// extension): the users when the file holds no error; the diagnostics
    /// resolve in the sources.
    pub fn load(path: &Path, limits: &Limits) -> Opened<Users> {
        let mut db = SourceDb::new();
        let format = Format::from_name(&path.to_string_lossy());
        let read =
            Reader::new(&PlainFs, &mut db, *limits).read(path, format, Expect::One, Place::File);
        let outcome = Outcome::new(read.value.and_then(Read::into_document), read.diagnostics)
            .and_then(|node| users(&node).into())
            .valid();
        Opened::new(db, outcome)
    }
}

/// Decodes and checks the users document.
fn users(node: &Node) -> Result<Users, Vec<Diagnostic>> {
    let file = USERS_FILE.decode(node)?;
    let entries = node.get("users").and_then(Node::as_seq).unwrap_or_default();
    let mut problems = Vec::new();
    let mut users = Users::default();
    let mut by_name: HashMap<&str, Span> = HashMap::new();
    for (entry, written) in file.users.iter().zip(entries) {
        let span_of = |key: &str| written.get(key).map_or(written.span, |n| n.span);
        if let Some(first) = by_name.insert(&entry.username, span_of("username")) {
            problems.push(
                Diagnostic::error(
                    codes::DUPLICATE,
                    format!("the username `{}` is given twice", entry.username),
                    span_of("username"),
                )
                .with_secondary(first, "first given here"),
            );
        }
        let mut allowed = Vec::new();
        let globs = written
            .get("allowedBlueprints")
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for (glob, glob_node) in entry.allowed_blueprints.iter().zip(globs) {
            match glob::Pattern::new(glob) {
                Ok(pattern) => allowed.push(pattern),
                Err(error) => problems.push(Diagnostic::error(
                    codes::INVALID_GLOB,
                    format!("`{glob}` is not a glob: {}", error.msg),
                    glob_node.span,
                )),
            }
        }
        let user = User {
            username: entry.username.clone(),
            is_admin: entry.roles.iter().any(|role| role == ADMIN_ROLE),
            allowed,
            scope: entry.cel_user(),
        };
        let mut digest = [0u8; 32];
        // The schema's pattern guarantees 64 hex digits.
        if hex::decode_to_slice(&entry.token_sha256, &mut digest).is_ok()
            && users
                .by_token_digest
                .insert(digest, Arc::new(user))
                .is_some()
        {
            problems.push(Diagnostic::error(
                codes::DUPLICATE,
                format!(
                    "`{}` has the same token digest as another user",
                    entry.username
                ),
                span_of("tokenSha256"),
            ));
        }
    }
    if problems.is_empty() {
        Ok(users)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALICE: &str = "9c220f200955d76c0a38d308225e0ef10c5f971acaf2f8d1d8f732affa5bd1dc";

    fn load(text: &str) -> (SourceDb, Result<Users, Vec<Diagnostic>>) {
        let mut db = SourceDb::new();
        let id = db.add("users.yaml", text);
        let mut parsed = strata_syntax::parse(&db, id, Format::Yaml, &Limits::default());
        assert!(!parsed.has_errors());
        let result = users(&parsed.documents.remove(0));
        (db, result)
    }

    fn codes(db: &SourceDb, result: Result<Users, Vec<Diagnostic>>) -> Vec<(String, u32)> {
        result
            .unwrap_err()
            .iter()
            .map(|d| {
                let record = d.record(db);
                (record.code.to_string(), record.line)
            })
            .collect()
    }

    #[test]
    fn a_token_authenticates_by_its_digest_and_globs_decide_access() {
        let (_, users) = load(&format!(
            "users:\n- username: alice\n  tokenSha256: {ALICE}\n  uid: 1000\n  gid: 100\n  allowedBlueprints: [python-*, go]\n"
        ));
        let users = users.unwrap();
        // sha256("alice-token")
        let alice = users.authenticate("alice-token").unwrap();
        assert_eq!(alice.username, "alice");
        assert!(alice.may_use("python-data"));
        assert!(alice.may_use("go"));
        assert!(!alice.may_use("go-services"));
        assert!(users.authenticate("alice-token ").is_none());
        assert!(matches!(
            alice.scope.get("uid").map(|n| &n.value),
            Some(strata_syntax::Value::Int(1000))
        ));
    }

    #[test]
    fn admins_may_use_everything() {
        let (_, users) = load(&format!(
            "users:\n- {{username: root, tokenSha256: '{}', uid: 0, gid: 0, roles: [admin]}}\n",
            ALICE.to_uppercase()
        ));
        let root = users.unwrap().authenticate("alice-token").unwrap();
        assert!(root.is_admin && root.may_use("anything"));
    }

    #[test]
    fn duplicates_bad_globs_and_bad_digests_are_reported_where_they_are() {
        let (db, users) = load(&format!(
            "users:\n- {{username: a, tokenSha256: {ALICE}, uid: 1, gid: 1, allowedBlueprints: ['[x']}}\n- {{username: a, tokenSha256: {ALICE}, uid: 1, gid: 1}}\n"
        ));
        assert_eq!(
            codes(&db, users),
            [
                ("users/invalid-glob".to_owned(), 2),
                ("users/duplicate".to_owned(), 3),
                ("users/duplicate".to_owned(), 3)
            ]
        );
        let (db, users) = load("users:\n- {username: a, tokenSha256: abc, uid: -1, gid: 1}\n");
        assert_eq!(
            codes(&db, users),
            [
                ("schema/constraint".to_owned(), 2),
                ("schema/constraint".to_owned(), 2)
            ]
        );
    }
}

//! Providers: what creates, reads, updates and deletes the resources of a
//! type ([`Provider`]), beyond checking their specs for a plan
//! ([`ResourceProvider`]). A library user registers its own; the built-in
//! [`CoreProvider`] knows two types:
//!
//! - `core/file`: `path`, `content` and an optional `mode` (octal text,
//!   `"0640"`). Missing folders are created, as Terraform's `local_file`
//!   creates them. The file is written whole (a temporary file beside it,
//!   synced, renamed over the target, the folder synced) and nothing else
//!   is left beside it: no temporary, mark or lock file (an interrupted
//!   write's temporary file is removed by the next operation on the path).
//!   A file is Strata's when the state records it: creating over a file
//!   that exists is an error naming the path, never an overwrite. Changing
//!   `path` replaces the resource. State fields: `path`, `size`, `sha256`.
//! - `core/value`: `value`, anything; its state field is `value`. It has
//!   nothing outside the state, so it never drifts.

use serde_json::{Value as Json, json};
use sha2::{Digest as _, Sha256};
use strata_fs::Files as _;
use strata_subst::Value;
use strata_syntax::FieldPath;

use super::plan::{ResourceProvider, StateResource};

/// Why a provider could not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderError {
    /// What went wrong, lowercase.
    pub message: String,
}

impl ProviderError {
    fn new(message: impl Into<String>) -> ProviderError {
        ProviderError {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ProviderError {}

/// A resource read back from where it lives.
#[derive(Debug, Clone, PartialEq)]
pub enum Live {
    /// Nothing is there.
    Absent,
    /// It is there, as this spec says (its fields as the provider reads
    /// them), with these state fields.
    Present {
        /// The spec it has.
        spec: Json,
        /// Its state fields.
        state: Json,
    },
}

/// A resource type's lifecycle. Each call is one change the deployer
/// records: it writes its intent before the call and its outcome after.
pub trait Provider: ResourceProvider {
    /// Creates the resource `spec` describes; its state fields.
    ///
    /// # Errors
    /// Why it cannot be created (something foreign is in the way).
    fn create(&self, resource_type: &str, spec: &Json) -> Result<Json, ProviderError>;

    /// Reads back the resource `recorded` describes, for drift and for
    /// recovery.
    ///
    /// # Errors
    /// Why it cannot be read.
    fn read(&self, resource_type: &str, recorded: &StateResource) -> Result<Live, ProviderError>;

    /// Changes the resource `before` describes to `spec`; its state fields.
    ///
    /// # Errors
    /// Why it cannot be changed.
    fn update(
        &self,
        resource_type: &str,
        before: &StateResource,
        spec: &Json,
    ) -> Result<Json, ProviderError>;

    /// Deletes the resource `recorded` describes (gone already is done).
    ///
    /// # Errors
    /// Why it cannot be deleted.
    fn delete(&self, resource_type: &str, recorded: &StateResource) -> Result<(), ProviderError>;

    /// Clears what an operation on `spec` that was interrupted may have
    /// left (a temporary file); run by recovery before anything else.
    ///
    /// # Errors
    /// Why it cannot be cleared.
    fn recover(&self, resource_type: &str, spec: &Json) -> Result<(), ProviderError> {
        let _ = (resource_type, spec);
        Ok(())
    }
}

/// The built-in provider of `core/file` and `core/value`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CoreProvider;

/// The most bytes a `core/file` is read back with.
const MAX_FILE: usize = 64 * 1024 * 1024;

impl ResourceProvider for CoreProvider {
    fn handles(&self, resource_type: &str) -> bool {
        matches!(resource_type, "core/file" | "core/value")
    }

    fn check_spec(&self, resource_type: &str, spec: &Value) -> Vec<(FieldPath, String)> {
        let Value::Object(fields) = spec else {
            return vec![(FieldPath::root(), "the spec must be a mapping".to_owned())];
        };
        let (required, allowed): (&[&str], &[&str]) = match resource_type {
            "core/file" => (&["path"], &["path", "content", "mode"]),
            _ => (&["value"], &["value"]),
        };
        let mut problems = Vec::new();
        for name in required {
            if !fields.contains_key(*name) {
                problems.push((
                    FieldPath::root(),
                    format!("`{resource_type}` needs `{name}`"),
                ));
            }
        }
        for (name, value) in fields {
            let path = FieldPath::root().key(name);
            if !allowed.contains(&name.as_str()) {
                let known = allowed
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>();
                problems.push((
                    path,
                    format!(
                        "`{resource_type}` has no field `{name}` (it has {})",
                        known.join(", ")
                    ),
                ));
            } else if resource_type == "core/file"
                && !matches!(value, Value::String(_) | Value::Unknown(_))
            {
                problems.push((
                    path,
                    format!("`{name}` of a file is a string, not {}", value.types()),
                ));
            } else if name == "mode"
                && let Value::String(mode) = value
                && parse_mode(mode).is_none()
            {
                problems.push((
                    path,
                    format!("`{mode}` is not a file mode: octal permission bits such as `0644`"),
                ));
            }
        }
        problems
    }

    fn recreates(&self, resource_type: &str, path: &FieldPath) -> bool {
        resource_type == "core/file" && path.to_string() == "path"
    }
}

/// Octal permission bits (`0644`, `640`).
fn parse_mode(text: &str) -> Option<u32> {
    u32::from_str_radix(text, 8)
        .ok()
        .filter(|mode| *mode <= 0o7777)
}

/// A file spec's fields.
struct FileSpec<'a> {
    path: &'a str,
    content: &'a str,
    mode: Option<u32>,
}

impl<'a> FileSpec<'a> {
    fn of(spec: &'a Json) -> Result<FileSpec<'a>, ProviderError> {
        let path = spec["path"]
            .as_str()
            .filter(|path| !path.is_empty())
            .ok_or_else(|| ProviderError::new("a file needs a `path`"))?;
        let mode = match spec.get("mode").and_then(Json::as_str) {
            Some(text) => Some(
                parse_mode(text)
                    .ok_or_else(|| ProviderError::new(format!("`{text}` is not a file mode")))?,
            ),
            None => None,
        };
        Ok(FileSpec {
            path,
            content: spec["content"].as_str().unwrap_or_default(),
            mode,
        })
    }

    fn state(&self) -> Json {
        json!({
            "path": self.path,
            "sha256": hex::encode(Sha256::digest(self.content.as_bytes())),
            "size": self.content.len(),
        })
    }

    fn write(&self) -> Result<Json, ProviderError> {
        let path = std::path::Path::new(self.path);
        strata_fs::remove_stale_temporaries(path)
            .and_then(|()| {
                strata_fs::write_atomically_with_mode(path, self.content.as_bytes(), self.mode)
            })
            .map_err(|error| ProviderError::new(error.to_string()))?;
        Ok(self.state())
    }
}

/// Whether something is at `path` (a file, a folder, a link).
fn occupied(path: &str) -> Result<bool, ProviderError> {
    std::path::Path::new(path)
        .symlink_metadata()
        .map(|_| true)
        .or_else(|error| match error.kind() {
            std::io::ErrorKind::NotFound => Ok(false),
            _ => Err(ProviderError::new(format!(
                "cannot look at `{path}`: {error}"
            ))),
        })
}

impl Provider for CoreProvider {
    fn create(&self, resource_type: &str, spec: &Json) -> Result<Json, ProviderError> {
        if resource_type != "core/file" {
            return Ok(json!({"value": spec["value"]}));
        }
        let file = FileSpec::of(spec)?;
        if occupied(file.path)? {
            return Err(ProviderError::new(format!(
                "`{}` exists and is not Strata's (the state records no file there): it is neither overwritten nor deleted",
                file.path
            )));
        }
        file.write()
    }

    fn read(&self, resource_type: &str, recorded: &StateResource) -> Result<Live, ProviderError> {
        if resource_type != "core/file" {
            return Ok(Live::Present {
                spec: recorded.spec.clone(),
                state: recorded.state.clone(),
            });
        }
        let file = FileSpec::of(&recorded.spec)?;
        let path = std::path::Path::new(file.path);
        if !occupied(file.path)? {
            return Ok(Live::Absent);
        }
        let content = strata_fs::PlainFs
            .read(path, MAX_FILE)
            .map_err(|error| ProviderError::new(error.to_string()))?;
        let mut spec = json!({"path": file.path, "content": content});
        if recorded.spec.get("mode").is_some() {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = path
                .symlink_metadata()
                .map(|metadata| metadata.permissions().mode() & 0o7777)
                .map_err(|error| ProviderError::new(error.to_string()))?;
            spec["mode"] = json!(format!("{mode:04o}"));
        }
        let live = FileSpec {
            path: file.path,
            content: spec["content"].as_str().unwrap_or_default(),
            mode: None,
        };
        Ok(Live::Present {
            state: live.state(),
            spec,
        })
    }

    /// A file is written whole again, whatever it held before.
    fn update(
        &self,
        resource_type: &str,
        _before: &StateResource,
        spec: &Json,
    ) -> Result<Json, ProviderError> {
        if resource_type != "core/file" {
            return Ok(json!({"value": spec["value"]}));
        }
        FileSpec::of(spec)?.write()
    }

    fn delete(&self, resource_type: &str, recorded: &StateResource) -> Result<(), ProviderError> {
        if resource_type != "core/file" {
            return Ok(());
        }
        let file = FileSpec::of(&recorded.spec)?;
        let path = std::path::Path::new(file.path);
        strata_fs::remove_stale_temporaries(path)
            .map_err(|error| ProviderError::new(error.to_string()))?;
        match std::fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(ProviderError::new(format!(
                "cannot delete `{}`: {error}",
                file.path
            ))),
        }
    }

    fn recover(&self, resource_type: &str, spec: &Json) -> Result<(), ProviderError> {
        if resource_type != "core/file" {
            return Ok(());
        }
        let file = FileSpec::of(spec)?;
        strata_fs::remove_stale_temporaries(std::path::Path::new(file.path))
            .map_err(|error| ProviderError::new(error.to_string()))
    }
}

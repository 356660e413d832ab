//! The rules of a final blueprint that span fields, after strict decoding.
//!
//! | code | rule |
//! |---|---|
//! | `platform/invalid-hostname` | `hostname` and `subdomain`, when not empty, are DNS labels (k8shell's `plainhostname`: no dots, 1-63 of `[A-Za-z0-9-]`, not starting or ending with `-`) |
//! | `platform/invalid-env-name` | environment variable names are letters, digits, `_`, `-`, `.`, not starting with a digit |
//! | `platform/invalid-cidr` | `network.allowEgressToCIDRs` entries are CIDRs (`10.0.0.0/8`, `fd00::/8`) |
//! | `k8s/invalid-quantity` | `resources.cpu`, `resources.memory`, `sizeLimit` are Kubernetes quantities |
//! | `platform/missing-field` | an enabled storage has an absolute `path`; enabled podman has `image`; an enabled `shared` storage without `id` or `existingClaim` is a warning (its claim would be named `pvc-NAME-`) |
//! | `platform/invalid-path` | storage paths and `extFiles` keys are absolute |
//! | `platform/size-limit-not-allowed` | `sizeLimit` only on `emptyDir` and `memory` storages |
//! | `platform/security-context` | `runAsUser`/`runAsGroup` are 0, `runAsNonRoot` and `readOnlyRootFilesystem` are not true, `allowPrivilegeEscalation` is not false, and `CHOWN`, `SETUID`, `SETGID` are not dropped (`drop: [ALL]` drops them unless `add` restores them) |
//!
//! Each `claimSpec` is decoded strictly as a Kubernetes
//! `PersistentVolumeClaimSpec` (`strata-k8s`). Every problem is reported
//! with its field path and the span of the node in the file and layer that
//! supplied it.

use std::collections::BTreeMap;

use strata_syntax::{Diagnostic, FieldPath, Node};

use crate::model::{Blueprint, Resources, Storage, StorageType};

use crate::codes;

/// Capabilities `k8shelld` needs in the workspace container.
const REQUIRED_CAPABILITIES: &[&str] = &["CHOWN", "SETUID", "SETGID"];

/// Checks `blueprint`, decoded from `node`, and returns every problem.
#[must_use]
pub(crate) fn validate(blueprint: &Blueprint, node: &Node) -> Vec<Diagnostic> {
    let mut checker = Checker {
        node,
        problems: Vec::new(),
    };
    checker.blueprint(blueprint);
    checker
        .problems
        .sort_by_key(|d| (d.primary.span.source, d.primary.span.start));
    checker.problems
}

struct Checker<'a> {
    node: &'a Node,
    problems: Vec<Diagnostic>,
}

fn path(text: &[&str]) -> FieldPath {
    let mut path = FieldPath::root();
    for key in text {
        path.push(strata_syntax::Segment::Key((*key).to_owned()));
    }
    path
}

impl Checker<'_> {
    /// A problem at the node at `at` (or the root, when it is not there).
    fn diagnostic(&self, code: strata_syntax::Code, message: String, at: FieldPath) -> Diagnostic {
        let span = self
            .node
            .at(at.segments())
            .map_or(self.node.span, |node| node.span);
        Diagnostic::error(code, message, span).with_path(at)
    }

    fn report(&mut self, code: strata_syntax::Code, message: String, at: FieldPath) {
        let problem = self.diagnostic(code, message, at);
        self.problems.push(problem);
    }

    /// As [`Checker::report`], a warning: the blueprint renders.
    fn warn(&mut self, code: strata_syntax::Code, message: String, at: FieldPath) {
        let mut problem = self.diagnostic(code, message, at);
        problem.severity = strata_syntax::Severity::Warning;
        self.problems.push(problem);
    }

    fn blueprint(&mut self, blueprint: &Blueprint) {
        for (key, value) in [
            ("hostname", &blueprint.hostname),
            ("subdomain", &blueprint.subdomain),
        ] {
            if let Some(name) = value
                .as_deref()
                .filter(|name| !name.is_empty() && !is_dns_label(name))
            {
                self.report(
                    codes::INVALID_HOSTNAME,
                    format!("`{name}` is not a valid host name (one DNS label: letters, digits and `-`, no dots)"),
                    path(&[key]),
                );
            }
        }
        for name in blueprint.env.keys().filter(|name| !is_env_name(name)) {
            self.report(
                codes::INVALID_ENV_NAME,
                format!("`{name}` is not a valid environment variable name"),
                path(&["env", name]),
            );
        }
        if let Some(network) = &blueprint.network {
            for (index, cidr) in network.allow_egress_to_cidrs.iter().enumerate() {
                if !is_cidr(cidr) {
                    self.report(
                        codes::INVALID_CIDR,
                        format!("`{cidr}` is not a cidr such as `10.0.0.0/8`"),
                        path(&["network", "allowEgressToCIDRs"]).index(index),
                    );
                }
            }
        }
        if let Some(resources) = &blueprint.resources {
            self.resources(resources, &path(&["resources"]));
        }
        for file in blueprint.ext_files.keys() {
            if !file.starts_with('/') {
                self.report(
                    codes::INVALID_PATH,
                    format!("`extFiles` paths must be absolute, found `{file}`"),
                    path(&["extFiles", file]),
                );
            }
        }
        self.storages(&blueprint.storages, &path(&["storages"]));
        if let Some(podman) = &blueprint.podman {
            if podman.enabled && podman.image.as_deref().is_none_or(str::is_empty) {
                self.report(
                    codes::MISSING_FIELD,
                    "enabled podman needs an `image`".to_owned(),
                    path(&["podman"]),
                );
            }
            if let Some(resources) = &podman.resources {
                self.resources(resources, &path(&["podman", "resources"]));
            }
            self.storages(&podman.storages, &path(&["podman", "storages"]));
        }
        if let Some(context) = &blueprint.security_context {
            self.security_context(context);
        }
    }

    fn resources(&mut self, resources: &Resources, at: &FieldPath) {
        for (key, value) in [("cpu", &resources.cpu), ("memory", &resources.memory)] {
            if value.is_some() {
                self.quantity(at.key(key));
            }
        }
    }

    fn quantity(&mut self, at: FieldPath) {
        if let Some(node) = self.node.at(at.segments())
            && let Err(problem) = strata_k8s::check_quantity(node, at)
        {
            self.problems.push(problem);
        }
    }

    fn storages(&mut self, storages: &BTreeMap<String, Storage>, at: &FieldPath) {
        for (name, storage) in storages {
            let here = at.key(name);
            let kind = storage.storage_type();
            if storage.enabled {
                match storage.path.as_deref() {
                    None | Some("") => self.report(
                        codes::MISSING_FIELD,
                        format!("enabled storage `{name}` needs a `path`"),
                        here.clone(),
                    ),
                    Some(mount) if !mount.starts_with('/') => self.report(
                        codes::INVALID_PATH,
                        format!("storage paths must be absolute, found `{mount}`"),
                        here.key("path"),
                    ),
                    Some(_) => {}
                }
                let unset = |value: &Option<String>| value.as_deref().is_none_or(str::is_empty);
                if kind == StorageType::Shared
                    && unset(&storage.id)
                    && unset(&storage.existing_claim)
                {
                    self.warn(
                        codes::MISSING_FIELD,
                        format!("enabled shared storage `{name}` has neither an `id` nor an `existingClaim`: its claim would be named `pvc-{name}-`"),
                        here.clone(),
                    );
                }
            }
            if storage.size_limit.is_some() {
                if matches!(kind, StorageType::EmptyDir | StorageType::Memory) {
                    self.quantity(here.key("sizeLimit"));
                } else {
                    self.report(
                        codes::SIZE_LIMIT_NOT_ALLOWED,
                        format!("`sizeLimit` is only allowed on `emptyDir` and `memory` storages, not on `{}`", storage_type_name(kind)),
                        here.key("sizeLimit"),
                    );
                }
            }
            if storage.claim_spec.is_some() {
                let spec_path = here.key("claimSpec");
                if let Some(spec) = self.node.at(spec_path.segments())
                    && let Err(problems) = strata_k8s::decode_pvc_spec_at(spec, &spec_path)
                {
                    self.problems.extend(problems);
                }
            }
        }
    }

    fn security_context(&mut self, context: &k8s_openapi::api::core::v1::SecurityContext) {
        let at = |key: &str| path(&["securityContext", key]);
        for (key, value) in [
            ("runAsUser", context.run_as_user),
            ("runAsGroup", context.run_as_group),
        ] {
            if let Some(id) = value.filter(|id| *id != 0) {
                self.report(
                    codes::SECURITY_CONTEXT,
                    format!("`{key}` must be 0 for k8shelld, found {id}"),
                    at(key),
                );
            }
        }
        for (key, value) in [
            ("runAsNonRoot", context.run_as_non_root),
            ("readOnlyRootFilesystem", context.read_only_root_filesystem),
        ] {
            if value == Some(true) {
                self.report(
                    codes::SECURITY_CONTEXT,
                    format!("`{key}` cannot be true: k8shelld runs as root and writes to the root file system"),
                    at(key),
                );
            }
        }
        if context.allow_privilege_escalation == Some(false) {
            self.report(
                codes::SECURITY_CONTEXT,
                "`allowPrivilegeEscalation` cannot be false: k8shelld switches users".to_owned(),
                at("allowPrivilegeEscalation"),
            );
        }
        if let Some(capabilities) = &context.capabilities {
            let dropped = capabilities.drop.as_deref().unwrap_or_default();
            let added = capabilities.add.as_deref().unwrap_or_default();
            let drops_all = dropped.iter().any(|c| c.eq_ignore_ascii_case("ALL"));
            let lost: Vec<&str> = REQUIRED_CAPABILITIES
                .iter()
                .copied()
                .filter(|required| {
                    let named = |list: &[String]| {
                        list.iter().any(|c| {
                            let c = c.strip_prefix("CAP_").unwrap_or(c);
                            c.eq_ignore_ascii_case(required)
                        })
                    };
                    (drops_all || named(dropped)) && !named(added)
                })
                .collect();
            if !lost.is_empty() {
                let help = if drops_all {
                    format!("add them back: `add: [{}]`", lost.join(", "))
                } else {
                    "remove them from `drop`".to_owned()
                };
                let problem = self.diagnostic(
                    codes::SECURITY_CONTEXT,
                    format!("k8shelld needs {}, which this drops", lost.join(", ")),
                    path(&["securityContext", "capabilities", "drop"]),
                );
                self.problems.push(problem.with_help(help));
            }
        }
    }
}

fn storage_type_name(kind: StorageType) -> &'static str {
    match kind {
        StorageType::Local => "local",
        StorageType::Shared => "shared",
        StorageType::EmptyDir => "emptyDir",
        StorageType::Memory => "memory",
    }
}

/// One DNS label, as k8shell's `plainhostname` rule reads it: Kubernetes'
/// DNS-1123 label, upper case allowed.
fn is_dns_label(name: &str) -> bool {
    strata_k8s::names::is_dns1123_label(&name.to_ascii_lowercase())
}

/// Kubernetes' rule for environment variable names.
fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn is_cidr(text: &str) -> bool {
    let Some((address, prefix)) = text.split_once('/') else {
        return false;
    };
    let Ok(prefix) = prefix.parse::<u8>() else {
        return false;
    };
    match address.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(_)) => prefix <= 32,
        Ok(std::net::IpAddr::V6(_)) => prefix <= 128,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_cidrs() {
        assert!(is_dns_label("dev-box") && is_dns_label("Dev1"));
        assert!(!is_dns_label("dev-box.example.com") && !is_dns_label("-bad"));
        assert!(!is_dns_label("under_score") && !is_dns_label(&"a".repeat(64)));
        assert!(is_env_name("PYTHON_PATH") && is_env_name("a.b-c"));
        assert!(!is_env_name("1X") && !is_env_name("A=B") && !is_env_name(""));
        assert!(is_cidr("10.0.0.0/8") && is_cidr("fd00::/8"));
        assert!(!is_cidr("10.0.0.0/33") && !is_cidr("10.0.0.0") && !is_cidr("x/8"));
    }
}

//! The main container's security context, checked as Kure's launcher
//! checks it (`parseSecurityContext`): contradictions between fields are
//! errors, and a privileged container is refused by Kure's policy.

use serde_json::{Map, Value, json};
use strata_syntax::FieldPath;

use super::codes;
use super::report::Report;
use super::spec::{Capabilities, ProfileType, SeccompProfile, SecurityContext};

pub(crate) fn security_context(
    report: &mut Report<'_>,
    context: &SecurityContext,
    path: &FieldPath,
) -> Map<String, Value> {
    let mut written = Map::new();
    for (key, value) in [
        ("runAsUser", context.run_as_user),
        ("runAsGroup", context.run_as_group),
    ] {
        if let Some(value) = value {
            if value < 0 {
                report.error(
                    codes::INVALID_PROPERTY,
                    &path.key(key),
                    format!("`{key}` is at least 0"),
                );
            }
            written.insert(key.into(), json!(value));
        }
    }
    for (key, value) in [
        ("runAsNonRoot", context.run_as_non_root),
        ("readOnlyRootFilesystem", context.read_only_root_filesystem),
        (
            "allowPrivilegeEscalation",
            context.allow_privilege_escalation,
        ),
        ("privileged", context.privileged),
    ] {
        if let Some(value) = value {
            written.insert(key.into(), json!(value));
        }
    }
    if context.run_as_user == Some(0) && context.run_as_non_root == Some(true) {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("runAsUser"),
            "`runAsUser: 0` is root, which `runAsNonRoot: true` forbids",
        );
    }
    if context.privileged == Some(true) {
        if context.allow_privilege_escalation == Some(false) {
            report.error(codes::INVALID_PROPERTY, &path.key("allowPrivilegeEscalation"), "a privileged container always escalates; `allowPrivilegeEscalation: false` contradicts `privileged: true`");
        }
        report.error(
            codes::POLICY,
            &path.key("privileged"),
            "privileged containers are not allowed by Kure's policy",
        );
    }
    if let Some(capabilities) = &context.capabilities
        && let Some(written_capabilities) =
            self::capabilities(report, capabilities, context, &path.key("capabilities"))
    {
        written.insert("capabilities".into(), written_capabilities);
    }
    for (key, profile, relative) in [
        ("seccompProfile", &context.seccomp_profile, true),
        ("appArmorProfile", &context.app_armor_profile, false),
    ] {
        if let Some(profile) = profile {
            written.insert(
                key.into(),
                self::profile(report, profile, relative, &path.key(key)),
            );
        }
    }
    if let Some(options) = &context.se_linux_options {
        let mut selinux = Map::new();
        for (key, value) in [
            ("user", &options.user),
            ("role", &options.role),
            ("type", &options.kind),
            ("level", &options.level),
        ] {
            if let Some(value) = value.as_deref().filter(|value| !value.is_empty()) {
                selinux.insert(key.into(), json!(value));
            }
        }
        written.insert("seLinuxOptions".into(), Value::Object(selinux));
    }
    if let Some(mount) = context.proc_mount {
        written.insert("procMount".into(), json!(format!("{mount:?}")));
    }
    written
}

fn capabilities(
    report: &mut Report<'_>,
    capabilities: &Capabilities,
    context: &SecurityContext,
    path: &FieldPath,
) -> Option<Value> {
    let add: Vec<&String> = capabilities
        .add
        .iter()
        .filter(|name| !name.is_empty())
        .collect();
    let drop: Vec<&String> = capabilities
        .drop
        .iter()
        .filter(|name| !name.is_empty())
        .collect();
    if context.allow_privilege_escalation == Some(false)
        && add
            .iter()
            .any(|name| matches!(name.as_str(), "SYS_ADMIN" | "CAP_SYS_ADMIN"))
    {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("add"),
            "`SYS_ADMIN` grants escalation, which `allowPrivilegeEscalation: false` forbids",
        );
    }
    let mut written = Map::new();
    if !add.is_empty() {
        written.insert("add".into(), json!(add));
    }
    if !drop.is_empty() {
        written.insert("drop".into(), json!(drop));
    }
    (!written.is_empty()).then_some(Value::Object(written))
}

fn profile(
    report: &mut Report<'_>,
    profile: &SeccompProfile,
    relative: bool,
    path: &FieldPath,
) -> Value {
    let mut written = json!({"type": format!("{:?}", profile.kind)});
    match (&profile.localhost_profile, profile.kind) {
        (Some(file), ProfileType::Localhost) => {
            if relative && file.starts_with('/') {
                report.error(
                    codes::INVALID_PROPERTY,
                    &path.key("localhostProfile"),
                    "a seccomp `localhostProfile` is relative to the kubelet's seccomp folder",
                );
            }
            written["localhostProfile"] = json!(file);
        }
        (None, ProfileType::Localhost) => report.error(
            codes::INVALID_PROPERTY,
            path,
            "a `Localhost` profile needs `localhostProfile`",
        ),
        (Some(_), _) => report.error(
            codes::INVALID_PROPERTY,
            &path.key("localhostProfile"),
            "`localhostProfile` goes only with `type: Localhost`",
        ),
        (None, _) => {}
    }
    written
}

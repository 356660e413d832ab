//! The traits that add policy objects: `networkpolicy`,
//! `cilium-networkpolicy`, `rbac`, `volsync`; and the two Flux traits
//! that a build cannot apply (`fluxcd-patches`, `fluxcd-postbuild`).
//!
//! Stricter than Kure, or fixed where Kure's output is harmful:
//! - a `networkpolicy` peer's `matchExpressions` are kept (Kure drops
//!   them, which widens the peer to every pod, bug B5), a port's `endPort`
//!   is kept, and an explicit `ingress: []` or `egress: []` writes that
//!   policy type (Kure writes none, so `egress: []` denies ingress);
//! - Kure's known bugs keep Kure's output with a warning: `rbac` binds a
//!   `ServiceAccount` whose token is not mounted (B3), `volsync` backs up a
//!   claim the build does not make (B2); `--fix-kure-bugs` mounts the
//!   token, and points `volsync` at the claim the component makes;
//! - `fluxcd-patches` and `fluxcd-postbuild` change nothing in a build
//!   (they configure a Flux Kustomization `kurel build` never writes):
//!   checked, then a warning says so.

use serde_json::{Map, Value, json};

use super::Owner;
use super::netpol::APP_LABELLED;
use crate::build::codes;
use crate::build::props::Props;
use crate::build::report::Report;

/// Builds a `networkpolicy` trait: `<component>-allow`.
pub(crate) fn networkpolicy(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
) -> Vec<Value> {
    props.unknown(report, &["ingress", "egress", "scope"]);
    if !props.has("ingress") && !props.has("egress") {
        report.error(
            codes::INVALID_PROPERTY,
            &props.path,
            "a `networkpolicy` needs `ingress` or `egress` rules",
        );
    }
    let name = owner.component.name;
    if !APP_LABELLED.contains(&owner.component_type) {
        report.warning(
            codes::INVALID_PROPERTY,
            &props.path,
            format!("the policy selects pods labelled `app: {name}`, which the pods of a `{}` component do not carry: it protects nothing", owner.component_type),
        );
    }
    let mut spec = Map::new();
    let mut types = Vec::new();
    for (key, peers_key, policy_type) in
        [("ingress", "from", "Ingress"), ("egress", "to", "Egress")]
    {
        if !props.has(key) {
            continue;
        }
        let rules: Vec<Value> = props
            .objects(report, key)
            .iter()
            .map(|rule| {
                rule.unknown(report, &[peers_key, "ports"]);
                let mut written = Map::new();
                let peers: Vec<Value> = rule
                    .objects(report, peers_key)
                    .iter()
                    .map(|peer| self::peer(report, peer))
                    .collect();
                if !peers.is_empty() {
                    written.insert(peers_key.into(), Value::Array(peers));
                }
                let ports: Vec<Value> = rule
                    .objects(report, "ports")
                    .iter()
                    .map(|port| self::port(report, port))
                    .collect();
                if !ports.is_empty() {
                    written.insert("ports".into(), Value::Array(ports));
                }
                Value::Object(written)
            })
            .collect();
        types.push(policy_type);
        if !rules.is_empty() {
            spec.insert(key.into(), Value::Array(rules));
        }
    }
    spec.insert("podSelector".into(), json!({"matchLabels": {"app": name}}));
    if !types.is_empty() {
        spec.insert("policyTypes".into(), json!(types));
    }
    vec![json!({
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"labels": {"app": name}, "name": format!("{name}-allow"), "namespace": owner.component.namespace},
        "spec": spec,
    })]
}

/// A peer: pod and namespace selectors (labels and expressions) and IP
/// blocks.
fn peer(report: &mut Report<'_>, peer: &Props<'_>) -> Value {
    peer.unknown(report, &["podSelector", "namespaceSelector", "ipBlock"]);
    let mut written = Map::new();
    for key in ["podSelector", "namespaceSelector"] {
        if let Some(selector) = peer.object(report, key) {
            written.insert(key.into(), label_selector(report, &selector));
        }
    }
    if let Some(block) = peer.object(report, "ipBlock") {
        block.unknown(report, &["cidr", "except"]);
        let cidr = block.text(report, "cidr");
        if cidr.is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &block.at("cidr"),
                "an `ipBlock` needs `cidr`",
            );
        }
        let mut out = json!({"cidr": cidr.unwrap_or_default()});
        let except = block.strings(report, "except");
        if !except.is_empty() {
            out["except"] = json!(except);
        }
        written.insert("ipBlock".into(), out);
    }
    Value::Object(written)
}

/// The operators of a label selector's expressions.
const OPERATORS: &[&str] = &["In", "NotIn", "Exists", "DoesNotExist"];

/// A label selector: `matchLabels` and `matchExpressions`.
fn label_selector(report: &mut Report<'_>, selector: &Props<'_>) -> Value {
    selector.unknown(report, &["matchLabels", "matchExpressions"]);
    let mut written = Map::new();
    let labels: Map<String, Value> = selector
        .text_map(report, "matchLabels")
        .into_iter()
        .map(|(k, v)| (k, json!(v)))
        .collect();
    if !labels.is_empty() {
        written.insert("matchLabels".into(), Value::Object(labels));
    }
    let expressions: Vec<Value> = selector
        .objects(report, "matchExpressions")
        .iter()
        .map(|expression| {
            expression.unknown(report, &["key", "operator", "values"]);
            let key = expression.text(report, "key").unwrap_or_default();
            let operator = expression.text(report, "operator").unwrap_or_default();
            if !OPERATORS.contains(&operator) {
                report.error(
                    codes::INVALID_PROPERTY,
                    &expression.at("operator"),
                    format!(
                        "`{operator}` is not a selector operator: one of {}",
                        OPERATORS.join(", ")
                    ),
                );
            }
            let values = expression.strings(report, "values");
            let needs_values = matches!(operator, "In" | "NotIn");
            if needs_values == values.is_empty() {
                let message = if needs_values {
                    format!("`{operator}` needs `values`")
                } else {
                    format!("`{operator}` takes no `values`")
                };
                report.error(codes::INVALID_PROPERTY, &expression.at("values"), message);
            }
            let mut out = json!({"key": key, "operator": operator});
            if !values.is_empty() {
                out["values"] = json!(values);
            }
            out
        })
        .collect();
    if !expressions.is_empty() {
        written.insert("matchExpressions".into(), Value::Array(expressions));
    }
    Value::Object(written)
}

/// A port: a number or a name, `TCP` unless another protocol is given.
fn port(report: &mut Report<'_>, port: &Props<'_>) -> Value {
    port.unknown(report, &["port", "protocol", "endPort"]);
    let value = match port
        .get("port")
        .map(|node| (crate::build::props::whole(node), node.as_str()))
    {
        Some((Some(number), _)) if (1..=65535).contains(&number) => json!(number),
        Some((None, Some(name))) if !name.is_empty() => json!(name),
        _ => {
            report.error(
                codes::INVALID_PROPERTY,
                &port.at("port"),
                "`port` is a port number (1 to 65535) or a named port",
            );
            json!(0)
        }
    };
    let protocol = port
        .text(report, "protocol")
        .map_or_else(|| "TCP".to_owned(), str::to_ascii_uppercase);
    if !["TCP", "UDP", "SCTP"].contains(&protocol.as_str()) {
        report.error(
            codes::INVALID_PROPERTY,
            &port.at("protocol"),
            format!("`{protocol}` is not a protocol: TCP, UDP or SCTP"),
        );
    }
    let mut written = json!({"port": value, "protocol": protocol});
    if let Some(end) = port.integer(report, "endPort") {
        written["endPort"] = json!(end);
    }
    written
}

/// Builds a `cilium-networkpolicy` trait: the rule as written.
pub(crate) fn cilium(report: &mut Report<'_>, owner: &Owner<'_>, props: &Props<'_>) -> Vec<Value> {
    props.unknown(
        report,
        &["name", "endpointSelector", "ingress", "egress", "scope"],
    );
    let name = props.text(report, "name");
    if name.is_none() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("name"),
            "a `cilium-networkpolicy` needs `name`",
        );
    }
    if !props.has("ingress") && !props.has("egress") {
        report.error(
            codes::INVALID_PROPERTY,
            &props.path,
            "a `cilium-networkpolicy` needs `ingress` or `egress` rules",
        );
    }
    if !props.has("endpointSelector") {
        // Kure writes the policy without one, which Cilium's CRD refuses.
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("endpointSelector"),
            "a `cilium-networkpolicy` needs `endpointSelector`: the endpoints it applies to (`matchLabels: {app: NAME}` for the component's pods)",
        );
    }
    for key in ["ingress", "egress"] {
        for (index, rule) in props.list(report, key).iter().enumerate() {
            for (number, ports) in rule.items("toPorts").iter().enumerate() {
                for (item, port) in ports.items("ports").iter().enumerate() {
                    if port
                        .get("port")
                        .is_some_and(|value| value.as_str().is_none())
                    {
                        let at = props
                            .at(key)
                            .index(index)
                            .key("toPorts")
                            .index(number)
                            .key("ports")
                            .index(item)
                            .key("port");
                        report.error(
                            codes::INVALID_PROPERTY,
                            &at,
                            "Cilium writes a port as text: quote it (`\"8080\"`)",
                        );
                    }
                }
            }
        }
    }
    let mut spec = Map::new();
    for key in ["endpointSelector", "ingress", "egress"] {
        if let Some(value) = props.get(key) {
            spec.insert(key.into(), value.to_json_value());
        }
    }
    vec![json!({
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumNetworkPolicy",
        "metadata": {"name": name.unwrap_or_default(), "namespace": owner.component.namespace},
        "spec": spec,
    })]
}

/// Builds an `rbac` trait: a Role and `RoleBinding` for the component's
/// `ServiceAccount`, and the cluster-wide pair with `clusterWide`.
pub(crate) fn rbac(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    objects: &mut [Value],
) -> Vec<Value> {
    props.unknown(report, &["rules", "clusterWide", "scope"]);
    let rules: Vec<Value> = props
        .objects(report, "rules")
        .iter()
        .map(|rule| {
            rule.unknown(
                report,
                &[
                    "apiGroups",
                    "resources",
                    "verbs",
                    "resourceNames",
                    "nonResourceURLs",
                ],
            );
            let mut written = Map::new();
            for key in [
                "apiGroups",
                "resources",
                "verbs",
                "resourceNames",
                "nonResourceURLs",
            ] {
                let items = rule.strings(report, key);
                if items.is_empty() && matches!(key, "resources" | "verbs") {
                    report.error(
                        codes::INVALID_PROPERTY,
                        &rule.at(key),
                        format!("a rule needs `{key}`"),
                    );
                }
                if !items.is_empty() {
                    written.insert(key.into(), json!(items));
                }
            }
            Value::Object(written)
        })
        .collect();
    if rules.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("rules"),
            "`rbac` needs `rules`",
        );
    }
    let name = owner.component.name;
    let namespace = owner.component.namespace;
    let has_account = objects
        .iter()
        .any(|object| object["kind"] == "ServiceAccount" && object["metadata"]["name"] == name);
    if !has_account {
        report.warning(
            codes::INVALID_PROPERTY,
            &props.path,
            format!(
                "`rbac` binds the ServiceAccount `{name}`, which a `{}` component does not make",
                owner.component_type
            ),
        );
    } else if owner.component.fixes {
        for object in objects.iter_mut() {
            let spec = match object["kind"].as_str() {
                Some("Deployment" | "StatefulSet" | "DaemonSet") => {
                    &mut object["spec"]["template"]["spec"]
                }
                Some("CronJob") => &mut object["spec"]["jobTemplate"]["spec"]["template"]["spec"],
                _ => continue,
            };
            spec["automountServiceAccountToken"] = json!(true);
        }
    } else {
        report.warning(
            codes::KURE_BUG,
            &props.path,
            format!("the ServiceAccount `{name}` does not mount its token, so the pods cannot use what `rbac` grants (Kure bug B3); the build keeps Kure's output"),
        );
        report.help("`--fix-kure-bugs` mounts the token in the component's pods");
    }
    let labels = json!({"app": name});
    let subject = json!([{"kind": "ServiceAccount", "name": name, "namespace": namespace}]);
    let mut objects_out = vec![
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"labels": labels, "name": name, "namespace": namespace}, "rules": rules}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"labels": labels, "name": name, "namespace": namespace}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name}, "subjects": subject}),
    ];
    if props.boolean(report, "clusterWide") == Some(true) {
        objects_out.push(json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"labels": labels, "name": name}, "rules": rules}));
        objects_out.push(json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"labels": labels, "name": name}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}, "subjects": subject}));
    }
    objects_out
}

/// Builds a `volsync` trait: a restic `ReplicationSource` backing up
/// `sourcePVC`.
pub(crate) fn volsync(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    objects: &[Value],
) -> Vec<Value> {
    props.unknown(
        report,
        &[
            "sourcePVC",
            "schedule",
            "repository",
            "copyMethod",
            "storageClassName",
            "volumeSnapshotClassName",
            "pruneIntervalDays",
            "retain",
            "scope",
        ],
    );
    let source = props.text(report, "sourcePVC").unwrap_or_default();
    if source.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("sourcePVC"),
            "`volsync` needs `sourcePVC`, the claim it backs up",
        );
    }
    let schedule = props.text(report, "schedule");
    if schedule.is_none() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("schedule"),
            "`volsync` needs a `schedule`",
        );
    }
    let copy_method = props.text(report, "copyMethod").unwrap_or("Snapshot");
    if !["Snapshot", "Direct", "Clone"].contains(&copy_method) {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("copyMethod"),
            format!("`{copy_method}` is not a copy method: Snapshot, Direct or Clone"),
        );
    }
    let claim = claim_of(objects, source);
    let target = match &claim {
        Some(actual) if actual != source && owner.component.fixes => actual.clone(),
        Some(actual) if actual != source => {
            report.warning(codes::KURE_BUG, &props.at("sourcePVC"), format!("the component makes no claim `{source}` (its claim is `{actual}`), so this backup never runs (Kure bug B2); the build keeps Kure's output"));
            report.help(format!(
                "write `sourcePVC: {actual}`, or build with `--fix-kure-bugs`"
            ));
            source.to_owned()
        }
        _ => source.to_owned(),
    };
    let prune = props.integer(report, "pruneIntervalDays").unwrap_or(14);
    if !(1..=i64::from(i32::MAX)).contains(&prune) {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("pruneIntervalDays"),
            "`pruneIntervalDays` is at least 1",
        );
    }
    let mut retain = json!({"daily": 7, "monthly": 3, "weekly": 4});
    if let Some(written) = props.object(report, "retain") {
        written.unknown(report, &["daily", "weekly", "monthly"]);
        for key in ["daily", "weekly", "monthly"] {
            if let Some(count) = written.integer(report, key) {
                if count < 0 {
                    report.error(
                        codes::INVALID_PROPERTY,
                        &written.at(key),
                        format!("`retain.{key}` is at least 0"),
                    );
                }
                retain[key] = json!(count);
            }
        }
    }
    let repository = props.text(report, "repository").map_or_else(
        || format!("{}-volsync-secret", owner.component.name),
        str::to_owned,
    );
    let mut restic = json!({"copyMethod": copy_method, "customCA": {}, "pruneIntervalDays": prune, "repository": repository, "retain": retain});
    if let Some(class) = props
        .text(report, "storageClassName")
        .filter(|_| copy_method != "Direct")
    {
        restic["storageClassName"] = json!(class);
    }
    if let Some(class) = props
        .text(report, "volumeSnapshotClassName")
        .filter(|_| copy_method == "Snapshot")
    {
        restic["volumeSnapshotClassName"] = json!(class);
    }
    vec![json!({
        "apiVersion": "volsync.backube/v1alpha1",
        "kind": "ReplicationSource",
        "metadata": {"name": format!("{source}-backup"), "namespace": owner.component.namespace},
        "spec": {"restic": restic, "sourcePVC": target, "trigger": {"schedule": schedule.unwrap_or_default()}},
    })]
}

/// The claim the component's objects make for `name`: a claim of that
/// name, the claim of a pod volume of that name, or the first replica's
/// claim of a `StatefulSet` claim template of that name.
fn claim_of(objects: &[Value], name: &str) -> Option<String> {
    if objects.iter().any(|object| {
        object["kind"] == "PersistentVolumeClaim" && object["metadata"]["name"] == name
    }) {
        return Some(name.to_owned());
    }
    for object in objects {
        let spec = &object["spec"]["template"]["spec"];
        for volume in spec["volumes"].as_array().into_iter().flatten() {
            if volume["name"] == name
                && let Some(claim) = volume["persistentVolumeClaim"]["claimName"].as_str()
            {
                return Some(claim.to_owned());
            }
        }
        let templates = object["spec"]["volumeClaimTemplates"].as_array();
        if templates
            .into_iter()
            .flatten()
            .any(|template| template["metadata"]["name"] == name)
        {
            let set = object["metadata"]["name"].as_str().unwrap_or_default();
            return Some(format!("{name}-{set}-0"));
        }
    }
    None
}

/// Checks a `fluxcd-patches` trait, which a build cannot apply.
pub(crate) fn fluxcd_patches(report: &mut Report<'_>, props: &Props<'_>) -> Vec<Value> {
    props.unknown(report, &["patches", "scope"]);
    let patches = props.objects(report, "patches");
    if patches.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("patches"),
            "`fluxcd-patches` needs `patches`",
        );
    }
    for patch in &patches {
        patch.unknown(report, &["patch", "target"]);
        if patch.text(report, "patch").is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &patch.at("patch"),
                "a patch needs its `patch` text",
            );
        }
        if let Some(target) = patch.object(report, "target") {
            let keys = [
                "group",
                "version",
                "kind",
                "name",
                "namespace",
                "labelSelector",
                "annotationSelector",
            ];
            target.unknown(report, &keys);
            for key in keys {
                target.string(report, key);
            }
        }
    }
    no_effect(
        report,
        props,
        "fluxcd-patches",
        "its patches are never applied",
    );
    Vec::new()
}

/// Checks a `fluxcd-postbuild` trait, which a build cannot apply.
pub(crate) fn fluxcd_postbuild(report: &mut Report<'_>, props: &Props<'_>) -> Vec<Value> {
    props.unknown(report, &["substitute", "substituteFrom", "scope"]);
    if let Some(substitute) = props.object(report, "substitute") {
        for (key, entry) in substitute.node.as_map().into_iter().flatten() {
            if entry.value.as_str().is_none() {
                report.error(
                    codes::INVALID_PROPERTY,
                    &substitute.at(key),
                    format!("`substitute.{key}` must be a string (quote it)"),
                );
            }
        }
    }
    let from = props.objects(report, "substituteFrom");
    for source in &from {
        source.unknown(report, &["kind", "name", "optional"]);
        let kind = source.text(report, "kind").unwrap_or_default();
        if kind != "ConfigMap" && kind != "Secret" {
            report.error(
                codes::INVALID_PROPERTY,
                &source.at("kind"),
                "`substituteFrom` entries are a `ConfigMap` or a `Secret`",
            );
        }
        if source.text(report, "name").is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &source.at("name"),
                "a `substituteFrom` entry needs `name`",
            );
        }
        source.boolean(report, "optional");
    }
    if !props.has("substitute") && from.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.path,
            "`fluxcd-postbuild` needs `substitute` or `substituteFrom`",
        );
    }
    no_effect(
        report,
        props,
        "fluxcd-postbuild",
        "no `${VAR}` is substituted",
    );
    Vec::new()
}

/// The warning of a trait a build cannot apply (Kure bug B9).
fn no_effect(report: &mut Report<'_>, props: &Props<'_>, trait_type: &str, consequence: &str) {
    report.warning(
        codes::NO_EFFECT,
        &props.path,
        format!("`{trait_type}` has no effect on a build: it configures the Flux Kustomization, which `capabilities build` (like `kurel build`) does not write, so {consequence}"),
    );
}

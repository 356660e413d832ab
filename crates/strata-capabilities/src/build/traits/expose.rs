//! `expose`: the portable routing trait, lowered to `ingress` or
//! `httproute` by the profile's `expose` binding (`controllerType`), as
//! Kure's `ExposeRule` lowers it; the lowered properties are then built
//! by that trait.
//!
//! - **ingress**: `hostnames` without `rules` become one rule per host
//!   (path `/`); every host must fit `allowedHostnameWildcard`. With a
//!   `certManagerClusterIssuer` the Ingress gets the issuer annotation and
//!   one TLS entry (the rules' hosts, secret `secretName` or
//!   `<component>-tls`); without one, `secretName` is an error.
//!   `sslRedirect`/`forceSslRedirect` become nginx annotations;
//!   `allowedGroups` turns on external authentication through the
//!   profile's `authURL`.
//! - **gateway**: the route's parent is the profile's Gateway
//!   (`gatewayName`, `gatewayNamespace` or `gateway-system`); `hostnames`
//!   must fit the wildcard; ingress-only keys are errors.
//!
//! Stricter than Kure: rules written for the other controller (`host` and
//! `paths` under a gateway profile, `matches` or `backendRefs` under an
//! ingress one) are errors, where Kure builds a route that matches
//! everything (bug B7); an authored `tls` (which expose never uses) and
//! authored `parentRefs` (which the profile's Gateway replaces) are
//! warnings.

use serde_json::Value;
use strata_syntax::{Node, Value as Tree};

use super::{Owner, Route, hostname_allowed};
use crate::build::codes;
use crate::build::props::Props;
use crate::build::report::Report;

/// The annotation cert-manager's ingress-shim reads.
const ISSUER_ANNOTATION: &str = "cert-manager.io/cluster-issuer";

/// Keys only the ingress branch takes.
const INGRESS_ONLY: &[&str] = &[
    "sslRedirect",
    "forceSslRedirect",
    "allowedGroups",
    "authSigninURL",
    "secretName",
];

/// The keys an `expose` lowered to `ingress` may keep.
const INGRESS_KEYS: &[&str] = &[
    "rules",
    "annotations",
    "ingressClassName",
    "tls",
    "name",
    "scope",
    "servicePort",
    "serviceName",
    "networkPolicy",
];

/// The keys an `expose` lowered to `httproute` may keep.
const GATEWAY_KEYS: &[&str] = &[
    "rules",
    "hostnames",
    "annotations",
    "parentRefs",
    "name",
    "scope",
    "servicePort",
    "serviceName",
    "networkPolicy",
];

/// Lowers and builds the `expose` trait.
pub(crate) fn build(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    routes: &mut Vec<Route>,
) -> Vec<Value> {
    let mut lowered = props.node.clone();
    let controller = props.text(report, "controllerType").unwrap_or_default();
    let issuer = props
        .text(report, "certManagerClusterIssuer")
        .map(str::to_owned);
    let wildcard = props
        .text(report, "allowedHostnameWildcard")
        .map(str::to_owned);
    for key in [
        "controllerType",
        "certManagerClusterIssuer",
        "allowedHostnameWildcard",
    ] {
        remove(&mut lowered, key);
    }
    match controller {
        "ingress" => {
            let Some(lowered) = to_ingress(
                report,
                owner,
                props,
                lowered,
                issuer.as_deref(),
                wildcard.as_deref(),
            ) else {
                return Vec::new();
            };
            super::ingress::build(report, owner, &Props::root(&lowered), routes)
        }
        "gateway" => {
            let Some(lowered) = to_gateway(report, props, lowered, wildcard.as_deref()) else {
                return Vec::new();
            };
            super::httproute::build(report, owner, &Props::root(&lowered), routes)
        }
        // The profile's rendering schema reports a missing or unknown
        // controller type.
        _ => Vec::new(),
    }
}

/// The `ingress` properties of an `expose`.
fn to_ingress(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    mut lowered: Node,
    issuer: Option<&str>,
    wildcard: Option<&str>,
) -> Option<Node> {
    let span = props.node.span;
    let hostnames: Vec<String> = props
        .strings(report, "hostnames")
        .into_iter()
        .filter(|host| !host.is_empty())
        .map(str::to_owned)
        .collect();
    remove(&mut lowered, "hostnames");
    let rules = props.objects(report, "rules");
    for rule in &rules {
        for key in ["matches", "backendRefs", "filters", "timeouts"] {
            if rule.has(key) {
                report.error(
                    codes::INVALID_PROPERTY,
                    &rule.at(key),
                    format!("`{key}` is a Gateway API rule key, but the profile routes `expose` through an Ingress; write `host` and `paths`"),
                );
            }
        }
    }
    let mut hosts: Vec<String> = rules
        .iter()
        .filter_map(|rule| rule.get("host").and_then(Node::as_str).map(str::to_owned))
        .collect();
    if rules.is_empty() && !props.has("rules") && !hostnames.is_empty() {
        let shorthand = hostnames
            .iter()
            .map(|host| {
                Node::mapping([
                    ("host", text_node(host, span)),
                    (
                        "paths",
                        Node::new(
                            Tree::Seq(vec![Node::mapping(Vec::<(&str, Node)>::new())]),
                            span,
                        ),
                    ),
                ])
            })
            .collect();
        lowered.insert("rules", Node::new(Tree::Seq(shorthand), span));
        hosts.clone_from(&hostnames);
    }
    if let Some(wildcard) = wildcard {
        let mut checked = hosts.clone();
        checked.extend(hostnames.iter().cloned());
        checked.dedup();
        for host in checked
            .iter()
            .filter(|host| !hostname_allowed(host, wildcard))
        {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at("rules"),
                format!("the host `{host}` is not allowed by the profile's `allowedHostnameWildcard` `{wildcard}`"),
            );
        }
    }
    let mut annotations: Vec<(String, String)> = props.text_map(report, "annotations");
    managed_tls(
        report,
        owner,
        props,
        &mut lowered,
        &mut annotations,
        issuer,
        &hosts,
    );
    for (key, annotation) in [
        ("sslRedirect", "nginx.ingress.kubernetes.io/ssl-redirect"),
        (
            "forceSslRedirect",
            "nginx.ingress.kubernetes.io/force-ssl-redirect",
        ),
    ] {
        if let Some(flag) = props.boolean(report, key) {
            set(&mut annotations, annotation, &flag.to_string());
        }
        remove(&mut lowered, key);
    }
    external_auth(report, props, &mut annotations);
    for key in [
        "allowedGroups",
        "authURL",
        "authSigninURL",
        "authResponseHeaders",
    ] {
        remove(&mut lowered, key);
    }
    if props.has("annotations") || !annotations.is_empty() {
        let entries = annotations
            .into_iter()
            .map(|(key, value)| {
                let node = text_node(&value, span);
                (key, node)
            })
            .collect::<Vec<_>>();
        lowered.insert("annotations", Node::mapping(entries));
    }
    keep_only(report, props, &lowered, INGRESS_KEYS, "an Ingress").then_some(lowered)
}

/// Platform-managed TLS: with the profile's cert-manager issuer, the
/// issuer annotation and one TLS entry for the rules' hosts; without one,
/// a `secretName` is an error. An authored `tls` is dropped with a
/// warning.
fn managed_tls(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    lowered: &mut Node,
    annotations: &mut Vec<(String, String)>,
    issuer: Option<&str>,
    hosts: &[String],
) {
    let span = props.node.span;
    let secret = props.string(report, "secretName");
    if secret.is_some_and(str::is_empty) {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("secretName"),
            "`secretName` must not be empty",
        );
    }
    if props.has("tls") {
        report.warning(
            codes::INVALID_PROPERTY,
            &props.at("tls"),
            "`expose` ignores an authored `tls`: TLS is the platform's (its `certManagerClusterIssuer`)",
        );
    }
    for key in ["secretName", "tls"] {
        remove(lowered, key);
    }
    match issuer {
        Some(issuer) => {
            if let Some((_, written)) = annotations.iter().find(|(key, _)| key == ISSUER_ANNOTATION)
                && written != issuer
            {
                report.error(
                    codes::INVALID_PROPERTY,
                    &props.at("annotations").key(ISSUER_ANNOTATION),
                    format!("`{ISSUER_ANNOTATION}` is the platform's (`{issuer}`) and cannot be overridden"),
                );
            }
            set(annotations, ISSUER_ANNOTATION, issuer);
            let mut unique: Vec<String> = Vec::new();
            for host in hosts {
                if !unique.contains(host) {
                    unique.push(host.clone());
                }
            }
            let secret = secret
                .filter(|secret| !secret.is_empty())
                .map_or_else(|| format!("{}-tls", owner.component.name), str::to_owned);
            let tls = Node::mapping([
                ("hosts", Node::new(Tree::Seq(unique.iter().map(|host| text_node(host, span)).collect()), span)),
                ("secretName", text_node(&secret, span)),
            ]);
            lowered.insert("tls", Node::new(Tree::Seq(vec![tls]), span));
        }
        None if secret.is_some_and(|secret| !secret.is_empty()) => report.error(
            codes::INVALID_PROPERTY,
            &props.at("secretName"),
            "`secretName` needs platform-managed TLS, and the profile's `expose` has no `certManagerClusterIssuer`",
        ),
        None => {}
    }
}

/// `allowedGroups`: oauth2-proxy style external authentication through
/// the profile's `authURL`.
fn external_auth(
    report: &mut Report<'_>,
    props: &Props<'_>,
    annotations: &mut Vec<(String, String)>,
) {
    if !props.has("allowedGroups") {
        return;
    }
    let groups = props.strings(report, "allowedGroups");
    if groups.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("allowedGroups"),
            "`allowedGroups` must name at least one group",
        );
    }
    let Some(url) = props.text(report, "authURL") else {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("allowedGroups"),
            "external authentication is not offered here: the profile's `expose` has no `authURL`",
        );
        return;
    };
    set(
        annotations,
        "nginx.ingress.kubernetes.io/auth-url",
        &format!("{url}?allowed_groups={}", groups.join(",")),
    );
    if let Some(signin) = props.text(report, "authSigninURL") {
        set(
            annotations,
            "nginx.ingress.kubernetes.io/auth-signin",
            signin,
        );
    }
    if let Some(headers) = props.text(report, "authResponseHeaders") {
        set(
            annotations,
            "nginx.ingress.kubernetes.io/auth-response-headers",
            headers,
        );
    }
}

/// The `httproute` properties of an `expose`.
fn to_gateway(
    report: &mut Report<'_>,
    props: &Props<'_>,
    mut lowered: Node,
    wildcard: Option<&str>,
) -> Option<Node> {
    let span = props.node.span;
    for key in INGRESS_ONLY.iter().filter(|key| props.has(key)) {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at(key),
            format!("`{key}` goes only with an Ingress, and the profile routes `expose` through a Gateway"),
        );
    }
    for (index, rule) in props.objects(report, "rules").iter().enumerate() {
        for key in ["host", "paths"] {
            if rule.has(key) {
                strip_rule_key(&mut lowered, index, key);
                report.error(
                    codes::INVALID_PROPERTY,
                    &rule.at(key),
                    format!("`{key}` is an Ingress rule key, but the profile routes `expose` through a Gateway: this rule would match every request; write `matches`"),
                );
            }
        }
    }
    if let Some(wildcard) = wildcard {
        for host in props.strings(report, "hostnames") {
            if !hostname_allowed(host, wildcard) {
                report.error(
                    codes::INVALID_PROPERTY,
                    &props.at("hostnames"),
                    format!("the host `{host}` is not allowed by the profile's `allowedHostnameWildcard` `{wildcard}`"),
                );
            }
        }
    }
    if props.has("parentRefs") {
        report.warning(
            codes::INVALID_PROPERTY,
            &props.at("parentRefs"),
            "`expose` replaces authored `parentRefs` by the profile's Gateway",
        );
    }
    let gateway = props.text(report, "gatewayName").unwrap_or_default();
    let namespace = props
        .text(report, "gatewayNamespace")
        .unwrap_or("gateway-system");
    for key in [
        "gatewayName",
        "gatewayNamespace",
        "authURL",
        "authResponseHeaders",
        "ingressClassName",
    ] {
        remove(&mut lowered, key);
    }
    let parent = Node::mapping([
        ("name", text_node(gateway, span)),
        ("namespace", text_node(namespace, span)),
    ]);
    lowered.insert("parentRefs", Node::new(Tree::Seq(vec![parent]), span));
    keep_only(report, props, &lowered, GATEWAY_KEYS, "an HTTPRoute").then_some(lowered)
}

/// Removes `key` from the rule at `index` of `lowered` (reported
/// already, so the lowered trait does not report it again).
fn strip_rule_key(lowered: &mut Node, index: usize, key: &str) {
    let segments = [
        strata_syntax::Segment::Key("rules".to_owned()),
        strata_syntax::Segment::Index(index),
    ];
    if let Some(rule) = lowered.at_mut(&segments) {
        remove(rule, key);
    }
}

/// Reports every key of `lowered` the lowered trait does not take (Kure
/// validates the lowered trait strictly); whether there was none.
fn keep_only(
    report: &mut Report<'_>,
    props: &Props<'_>,
    lowered: &Node,
    keys: &[&str],
    what: &str,
) -> bool {
    let mut clean = true;
    for key in lowered.as_map().into_iter().flat_map(|map| map.keys()) {
        if !keys.contains(&key.as_str()) {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at(key),
                format!("`{key}` is not a property of `expose` when it becomes {what}"),
            );
            clean = false;
        }
    }
    clean
}

/// Sets `key` in an ordered list of annotations.
fn set(annotations: &mut Vec<(String, String)>, key: &str, value: &str) {
    match annotations.iter_mut().find(|(existing, _)| existing == key) {
        Some((_, existing)) => value.clone_into(existing),
        None => annotations.push((key.to_owned(), value.to_owned())),
    }
}

/// Removes `key` from a mapping node.
fn remove(node: &mut Node, key: &str) {
    if let Tree::Map(map) = &mut node.value {
        map.shift_remove(key);
    }
}

/// A text node at `span`.
fn text_node(text: &str, span: strata_syntax::Span) -> Node {
    Node::new(Tree::String(text.to_owned()), span)
}

//! `httproute`: a `gateway.networking.k8s.io/v1` `HTTPRoute` attaching the
//! component's Service (or others) to Gateways, as Kure's
//! `HTTPRouteHandler` builds it.
//!
//! - **Gateways**: the written `parentRefs` (a ref without a `namespace`
//!   gets none), else one ref to `gatewayName` in `gatewayNamespace`
//!   (default `gateway-system`), usually from the profile's `httproute`
//!   binding. With neither, the trait is refused: the route would attach
//!   to nothing.
//! - **Rules**: at least one. A rule without `backendRefs` routes to the
//!   component's Service on its port (`rules: [{}]` is a catch-all); an
//!   explicit `backendRefs: []` routes nowhere, as a rule with a
//!   `RequestRedirect` filter does (the Gateway API refuses backends beside
//!   a redirect; Kure adds the default one, bug B13). A
//!   backendRef without a `name`, or naming the component's Service, is
//!   the component's port (another port is an error); one naming another
//!   Service needs its `port`. A component without a Service port needs
//!   the trait's `servicePort` (and optionally `serviceName`).
//! - **Matches**: a `path` defaults to `PathPrefix` `/`, a header match to
//!   `Exact`. **Filters** are written in order, each with its settings
//!   block, and checked as Kure checks them (a block that sets nothing is
//!   refused). **Timeouts** are Go durations, written as Go writes them
//!   (`90s` → `1m30s`); `backendRequest` may not exceed `request`.
//! - `annotations` values are written as text (`8080` → `"8080"`).
//! - The object is named `name`, else `<component>-httproute-<scope>`,
//!   else `<component>-httproute`.
//!
//! Stricter than Kure, which reads these silently in a way the author did
//! not mean, so the route would match or send more than written:
//! - a key the handler never reads (top level, rule, match, header,
//!   backendRef, parentRef, filter and its blocks) is a warning: Kure
//!   drops a match's `method` and `queryParams` (widening the match), a
//!   backendRef's `weight`, a rule's `retry` or `sessionPersistence`;
//! - a path match `type` other than `PathPrefix`, `Exact` or
//!   `RegularExpression` is an error (Kure makes it `PathPrefix`), as is a
//!   header match `type` other than `Exact` or `RegularExpression` (Kure
//!   makes it `Exact`);
//! - a backendRef `port` that is not a port number (text, a fraction, out
//!   of range) is an error (Kure ignores a text port, so the component's
//!   port is used, and passes other numbers through); an empty backendRef
//!   `name` is an error (Kure routes to a Service named `""`);
//! - numbers in filters must be whole and within their field's range
//!   (Kure truncates fractions and wraps large numbers): an `externalAuth`
//!   `forwardBody.maxSize` above 65535 is an error (Kure wraps it to 16
//!   bits, 70000 becoming 4464);
//! - a value of the wrong type is an error where Kure ignores it.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};
use strata_k8s::Duration;
use strata_syntax::Node;

use super::{
    Backend, Owner, Route, RoutePort, check_backend_selector, object_name, traffic_sources,
};
use crate::build::codes;
use crate::build::props::{Props, whole, wrong_type};
use crate::build::report::Report;

/// The keys `httproute` reads.
const KNOWN: &[&str] = &[
    "parentRefs",
    "gatewayName",
    "gatewayNamespace",
    "hostnames",
    "rules",
    "annotations",
    "servicePort",
    "serviceName",
    "name",
    "scope",
    "networkPolicy",
];

/// The keys of a rule Kure reads.
const RULE_KEYS: &[&str] = &["matches", "backendRefs", "filters", "timeouts"];

/// The namespace of a Gateway named by `gatewayName` alone.
const DEFAULT_GATEWAY_NAMESPACE: &str = "gateway-system";

/// The types a path match may have.
const PATH_TYPES: &[&str] = &["PathPrefix", "Exact", "RegularExpression"];

/// The types a header match may have.
const HEADER_TYPES: &[&str] = &["Exact", "RegularExpression"];

/// The types of a path modifier, each with the key of its value.
const PATH_MODIFIERS: &[(&str, &str)] = &[
    ("ReplaceFullPath", "replaceFullPath"),
    ("ReplacePrefixMatch", "replacePrefixMatch"),
];

/// The status codes a redirect may answer with.
const REDIRECT_CODES: &[i64] = &[301, 302, 303, 307, 308];

/// The keys of a `requestRedirect` block.
const REDIRECT_KEYS: &[&str] = &["scheme", "hostname", "port", "statusCode", "path"];

/// The keys of a `cors` block.
const CORS_KEYS: &[&str] = &[
    "allowOrigins",
    "allowCredentials",
    "allowMethods",
    "allowHeaders",
    "exposeHeaders",
    "maxAge",
];

/// Reads a filter's settings block into what the `HTTPRoute` carries.
type Settings = fn(&mut Report<'_>, &Props<'_>) -> Value;

/// The filter types: each with the key of its settings block and how
/// that block is read.
const FILTERS: &[(&str, &str, Settings)] = &[
    ("RequestRedirect", "requestRedirect", request_redirect),
    (
        "RequestHeaderModifier",
        "requestHeaderModifier",
        header_modifier,
    ),
    (
        "ResponseHeaderModifier",
        "responseHeaderModifier",
        header_modifier,
    ),
    ("URLRewrite", "urlRewrite", url_rewrite),
    ("RequestMirror", "requestMirror", request_mirror),
    ("CORS", "cors", cors),
    ("ExternalAuth", "externalAuth", external_auth),
];

/// Builds the `HTTPRoute`; what it routes is recorded in `routes` for
/// the generated network policies.
pub(crate) fn build(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    routes: &mut Vec<Route>,
) -> Vec<Value> {
    props.unknown(report, KNOWN);
    let backend = Backend::resolve(report, owner, props, "backendRef `port` or `name`");
    let mut route = Route::new(owner, traffic_sources(report, props));
    let mut spec = Map::new();
    spec.insert(
        "parentRefs".into(),
        Value::Array(parent_refs(report, props)),
    );
    let hostnames = props.strings(report, "hostnames");
    if !hostnames.is_empty() {
        spec.insert("hostnames".into(), json!(hostnames));
    }
    let rules_written = props.objects(report, "rules");
    if missing(props, "rules") {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("rules"),
            "an httproute needs `rules`: at least one (`{}` routes every request to the component)",
        );
    }
    let rules: Vec<Value> = rules_written
        .iter()
        .map(|item| rule(report, owner, &backend, item, &mut route))
        .collect();
    spec.insert("rules".into(), Value::Array(rules));
    let name = object_name(report, owner, props, "httproute");
    let metadata = owner.annotated_metadata(report, props, &name);
    routes.push(route);
    vec![json!({
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": metadata,
        "spec": spec,
    })]
}

/// Whether the list `key` is absent or empty (a value of another type is
/// not: its getter reports it).
fn missing(props: &Props<'_>, key: &str) -> bool {
    props
        .get(key)
        .is_none_or(|node| node.as_seq().is_some_and(<[Node]>::is_empty))
}

/// The Gateways the route attaches to: the written `parentRefs`, else the
/// one `gatewayName` names.
fn parent_refs(report: &mut Report<'_>, props: &Props<'_>) -> Vec<Value> {
    let gateway = props.text(report, "gatewayName");
    let namespace = props
        .text(report, "gatewayNamespace")
        .unwrap_or(DEFAULT_GATEWAY_NAMESPACE);
    if !missing(props, "parentRefs") {
        return props
            .objects(report, "parentRefs")
            .iter()
            .map(|reference| parent_ref(report, reference))
            .collect();
    }
    let Some(gateway) = gateway else {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("parentRefs"),
            "an httproute needs `parentRefs`, or a `gatewayName` (usually from the profile's `httproute` binding) to attach to",
        );
        return Vec::new();
    };
    vec![json!({"name": gateway, "namespace": namespace})]
}

/// One written parentRef: a Gateway's name and, when written, its
/// namespace (Kure gives a written ref no default namespace).
fn parent_ref(report: &mut Report<'_>, reference: &Props<'_>) -> Value {
    reference.unknown(report, &["name", "namespace"]);
    let name = required_text(
        report,
        reference,
        "name",
        "a parentRef needs the `name` of its Gateway",
    );
    let mut written = json!({"name": name.unwrap_or_default()});
    if let Some(namespace) = reference.text(report, "namespace") {
        written["namespace"] = json!(namespace);
    }
    written
}

/// One rule: its matches, backends, filters and timeouts, each left out
/// when it has none.
fn rule(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    backend: &Backend,
    rule: &Props<'_>,
    route: &mut Route,
) -> Value {
    rule.unknown(report, RULE_KEYS);
    let mut written = Map::new();
    let matches: Vec<Value> = rule
        .objects(report, "matches")
        .iter()
        .map(|item| route_match(report, item))
        .collect();
    if !matches.is_empty() {
        written.insert("matches".into(), Value::Array(matches));
    }
    // A redirect answers the request itself: the Gateway API refuses
    // backends beside it (Kure adds the default one, an object the API
    // server refuses, bug B13).
    let redirects = rule
        .list(report, "filters")
        .iter()
        .any(|filter| filter.get("type").and_then(Node::as_str) == Some("RequestRedirect"));
    if redirects && !rule.list(report, "backendRefs").is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &rule.at("backendRefs"),
            "a rule with a `RequestRedirect` filter has no `backendRefs`: the redirect answers the request",
        );
    }
    // Only an absent `backendRefs` means the component's Service: Kure
    // keeps an empty list empty.
    let refs: Vec<Value> = if rule.has("backendRefs") || redirects {
        rule.objects(report, "backendRefs")
            .iter()
            .map(|reference| backend_ref(report, owner, backend, reference, route))
            .collect()
    } else {
        let port = backend.implicit_port(report, owner, None, &rule.path);
        route.add_backend(&backend.service, false, route_port(port), rule);
        vec![json!({"name": backend.service, "port": port})]
    };
    if !refs.is_empty() {
        written.insert("backendRefs".into(), Value::Array(refs));
    }
    let filters: Vec<Value> = rule
        .objects(report, "filters")
        .iter()
        .filter_map(|item| filter(report, item))
        .collect();
    if !filters.is_empty() {
        written.insert("filters".into(), Value::Array(filters));
    }
    if let Some(block) = rule.object(report, "timeouts") {
        written.insert("timeouts".into(), timeouts(report, &block));
    }
    Value::Object(written)
}

/// The port a route records for the generated network policies (none when
/// it could not be determined, which is reported).
fn route_port(port: i64) -> Option<RoutePort> {
    (port != 0).then_some(RoutePort::Number(port))
}

/// One match: a path and headers, each only when written.
fn route_match(report: &mut Report<'_>, written: &Props<'_>) -> Value {
    written.unknown(report, &["path", "headers"]);
    let mut out = Map::new();
    if let Some(path) = written.object(report, "path") {
        path.unknown(report, &["type", "value"]);
        let kind = path.text(report, "type").unwrap_or("PathPrefix");
        check_one_of(report, &path, "type", kind, PATH_TYPES, "path match type");
        let value = path.string(report, "value").unwrap_or("/");
        out.insert("path".into(), json!({"type": kind, "value": value}));
    }
    let headers: Vec<Value> = written
        .objects(report, "headers")
        .iter()
        .map(|header| header_match(report, header))
        .collect();
    if !headers.is_empty() {
        out.insert("headers".into(), Value::Array(headers));
    }
    Value::Object(out)
}

/// One header match: a name, a value (which may be empty) and a type.
fn header_match(report: &mut Report<'_>, header: &Props<'_>) -> Value {
    header.unknown(report, &["name", "type", "value"]);
    let name = required_text(
        report,
        header,
        "name",
        "a header match needs the `name` of its header",
    );
    let kind = header.text(report, "type").unwrap_or("Exact");
    check_one_of(
        report,
        header,
        "type",
        kind,
        HEADER_TYPES,
        "header match type",
    );
    let value = header.string(report, "value");
    if value.is_none_or(str::is_empty) {
        report.error(
            codes::INVALID_PROPERTY,
            &header.at("value"),
            "a header match needs a `value` (the Gateway API refuses an empty one)",
        );
    }
    json!({"name": name.unwrap_or_default(), "type": kind, "value": value.unwrap_or_default()})
}

/// One backendRef: the component's Service on its port, or another
/// Service on the port written.
fn backend_ref(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    backend: &Backend,
    reference: &Props<'_>,
    route: &mut Route,
) -> Value {
    reference.unknown(report, &["name", "port", "backendSelector"]);
    let name = reference.string(report, "name");
    if name == Some("") {
        report.error(
            codes::INVALID_PROPERTY,
            &reference.at("name"),
            "a backendRef `name` must not be empty: leave it out to route to the component's Service",
        );
    }
    let service = name
        .filter(|name| !name.is_empty())
        .unwrap_or(backend.service.as_str());
    // Naming the component's own Service is the implicit backend, held to
    // its port like a backendRef without a name.
    let explicit = service != backend.service;
    let asked = reference.get("port").map(|node| {
        let number = whole(node).filter(|port| (1..=65535).contains(port));
        if number.is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &reference.at("port"),
                "`port` is a port number between 1 and 65535",
            );
        }
        number.unwrap_or_default()
    });
    check_backend_selector(report, reference, explicit);
    let port = if explicit {
        if asked.is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &reference.at("port"),
                format!("a backendRef to the Service `{service}` needs its `port`"),
            );
        }
        asked.unwrap_or_default()
    } else {
        backend.implicit_port(report, owner, asked, &reference.at("port"))
    };
    route.add_backend(service, explicit, route_port(port), reference);
    json!({"name": service, "port": port})
}

/// One filter: its `type` and its settings block; `None` (reported) when
/// the type is missing or not one Kure builds, or the block is missing.
fn filter(report: &mut Report<'_>, filter: &Props<'_>) -> Option<Value> {
    let types: Vec<&str> = FILTERS.iter().map(|(kind, _, _)| *kind).collect();
    let types = types.join(", ");
    let kind = required_text(
        report,
        filter,
        "type",
        &format!("a filter needs a `type`: one of {types}"),
    )?;
    if kind == "ExtensionRef" {
        report.error(
            codes::INVALID_PROPERTY,
            &filter.at("type"),
            "an `ExtensionRef` filter is not supported (Kure does not build one)",
        );
        return None;
    }
    let Some(&(_, key, settings)) = FILTERS.iter().find(|(name, _, _)| *name == kind) else {
        report.error(
            codes::INVALID_PROPERTY,
            &filter.at("type"),
            format!("`{kind}` is not a filter type: one of {types}"),
        );
        return None;
    };
    filter.unknown(report, &["type", key]);
    let block = filter.object(report, key);
    if !filter.has(key) {
        report.error(
            codes::INVALID_PROPERTY,
            &filter.at(key),
            format!("a `{kind}` filter needs its settings under `{key}`"),
        );
    }
    let block = block?;
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    out.insert(key.into(), settings(report, &block));
    Some(Value::Object(out))
}

/// A `requestRedirect` block: scheme, hostname, port, status code and
/// path, each only when set; at least one is.
fn request_redirect(report: &mut Report<'_>, block: &Props<'_>) -> Value {
    block.unknown(report, REDIRECT_KEYS);
    let mut out = Map::new();
    if let Some(scheme) = block.text(report, "scheme") {
        check_one_of(
            report,
            block,
            "scheme",
            scheme,
            &["http", "https"],
            "redirect scheme",
        );
        out.insert("scheme".into(), json!(scheme));
    }
    if let Some(hostname) = block.text(report, "hostname") {
        out.insert("hostname".into(), json!(hostname));
    }
    if let Some(port) = ranged(report, block, "port", 1, 65535) {
        out.insert("port".into(), json!(port));
    }
    if let Some(code) = block.integer(report, "statusCode") {
        if !REDIRECT_CODES.contains(&code) {
            report.error(
                codes::INVALID_PROPERTY,
                &block.at("statusCode"),
                format!("`statusCode` is one of 301, 302, 303, 307, 308, not {code}"),
            );
        }
        out.insert("statusCode".into(), json!(code));
    }
    if let Some(path) = block.object(report, "path") {
        out.insert("path".into(), path_modifier(report, &path));
    }
    at_least_one(report, block, REDIRECT_KEYS, "a `requestRedirect`");
    Value::Object(out)
}

/// A `urlRewrite` block: a hostname and a path, at least one of them.
fn url_rewrite(report: &mut Report<'_>, block: &Props<'_>) -> Value {
    block.unknown(report, &["hostname", "path"]);
    let mut out = Map::new();
    if let Some(hostname) = block.text(report, "hostname") {
        out.insert("hostname".into(), json!(hostname));
    }
    if let Some(path) = block.object(report, "path") {
        out.insert("path".into(), path_modifier(report, &path));
    }
    at_least_one(report, block, &["hostname", "path"], "a `urlRewrite`");
    Value::Object(out)
}

/// The `path` of a redirect or a rewrite: its `type` and the (non-empty)
/// value that type takes.
fn path_modifier(report: &mut Report<'_>, path: &Props<'_>) -> Value {
    let mut out = Map::new();
    let Some(kind) = required_text(
        report,
        path,
        "type",
        "a path modifier needs a `type`: ReplaceFullPath or ReplacePrefixMatch",
    ) else {
        path.unknown(report, &["type", "replaceFullPath", "replacePrefixMatch"]);
        return Value::Object(out);
    };
    let Some(&(kind, key)) = PATH_MODIFIERS.iter().find(|(name, _)| *name == kind) else {
        report.error(
            codes::INVALID_PROPERTY,
            &path.at("type"),
            format!(
                "`{kind}` is not a path modifier type: one of ReplaceFullPath, ReplacePrefixMatch"
            ),
        );
        path.unknown(report, &["type", "replaceFullPath", "replacePrefixMatch"]);
        return Value::Object(out);
    };
    // The other type's value is not read: it is an unknown key here.
    path.unknown(report, &["type", key]);
    let value = required_text(
        report,
        path,
        key,
        &format!("a `{kind}` path modifier needs `{key}`"),
    );
    out.insert("type".into(), json!(kind));
    out.insert(key.into(), json!(value.unwrap_or_default()));
    Value::Object(out)
}

/// A request or response header modifier: headers to set, to add and to
/// remove; at least one.
fn header_modifier(report: &mut Report<'_>, block: &Props<'_>) -> Value {
    block.unknown(report, &["set", "add", "remove"]);
    let mut out = Map::new();
    for key in ["set", "add"] {
        let headers: Vec<Value> = block
            .objects(report, key)
            .iter()
            .map(|header| {
                header.unknown(report, &["name", "value"]);
                let name = required_text(report, header, "name", "a header needs a `name`");
                // Kure writes a missing value as an empty one, which the
                // Gateway API refuses.
                let value = required_text(
                    report,
                    header,
                    "value",
                    "a header needs a `value` (the Gateway API refuses an empty one)",
                )
                .unwrap_or_default();
                json!({"name": name.unwrap_or_default(), "value": value})
            })
            .collect();
        if !headers.is_empty() {
            out.insert(key.into(), Value::Array(headers));
        }
    }
    insert_names(report, block, "remove", &mut out);
    at_least_one(
        report,
        block,
        &["set", "add", "remove"],
        "a header modifier",
    );
    Value::Object(out)
}

/// A `requestMirror` block: the Service mirrored to, and the share of
/// requests mirrored (`percent` or `fraction`, not both).
fn request_mirror(report: &mut Report<'_>, block: &Props<'_>) -> Value {
    block.unknown(report, &["backendRef", "percent", "fraction"]);
    let mut out = Map::new();
    out.insert(
        "backendRef".into(),
        filter_backend(report, block, "a `requestMirror`"),
    );
    if let Some(percent) = ranged(report, block, "percent", 0, 100) {
        out.insert("percent".into(), json!(percent));
    }
    if let Some(fraction) = block.object(report, "fraction") {
        fraction.unknown(report, &["numerator", "denominator"]);
        if !fraction.has("numerator") {
            report.error(
                codes::INVALID_PROPERTY,
                &fraction.at("numerator"),
                "a `fraction` needs a `numerator`",
            );
        }
        let numerator = ranged(report, &fraction, "numerator", 0, i64::from(i32::MAX));
        let mut written = json!({"numerator": numerator.unwrap_or_default()});
        if let Some(denominator) = ranged(report, &fraction, "denominator", 1, i64::from(i32::MAX))
        {
            written["denominator"] = json!(denominator);
        }
        out.insert("fraction".into(), written);
    }
    if block.has("percent") && block.has("fraction") {
        report.error(
            codes::INVALID_PROPERTY,
            &block.at("fraction"),
            "a `requestMirror` takes `percent` or `fraction`, not both",
        );
    }
    Value::Object(out)
}

/// A `cors` block: its lists (of non-empty texts), `allowCredentials` and
/// `maxAge`; at least one.
fn cors(report: &mut Report<'_>, block: &Props<'_>) -> Value {
    block.unknown(report, CORS_KEYS);
    let mut out = Map::new();
    for key in [
        "allowOrigins",
        "allowMethods",
        "allowHeaders",
        "exposeHeaders",
    ] {
        insert_names(report, block, key, &mut out);
    }
    if let Some(allow) = block.boolean(report, "allowCredentials") {
        out.insert("allowCredentials".into(), json!(allow));
    }
    if let Some(age) = ranged(report, block, "maxAge", 1, i64::from(i32::MAX)) {
        out.insert("maxAge".into(), json!(age));
    }
    at_least_one(report, block, CORS_KEYS, "a `cors` block");
    Value::Object(out)
}

/// An `externalAuth` block: its protocol and Service, and the optional
/// `grpc`, `http` and `forwardBody` settings (each written, possibly
/// empty, when present).
fn external_auth(report: &mut Report<'_>, block: &Props<'_>) -> Value {
    block.unknown(
        report,
        &["protocol", "backendRef", "grpc", "http", "forwardBody"],
    );
    let mut out = Map::new();
    let protocol = required_text(
        report,
        block,
        "protocol",
        "an `externalAuth` needs a `protocol`: HTTP or GRPC",
    );
    if let Some(protocol) = protocol {
        check_one_of(
            report,
            block,
            "protocol",
            protocol,
            &["HTTP", "GRPC"],
            "external auth protocol",
        );
    }
    out.insert("protocol".into(), json!(protocol.unwrap_or_default()));
    out.insert(
        "backendRef".into(),
        filter_backend(report, block, "an `externalAuth`"),
    );
    if let Some(grpc) = block.object(report, "grpc") {
        grpc.unknown(report, &["allowedHeaders"]);
        let mut written = Map::new();
        insert_names(report, &grpc, "allowedHeaders", &mut written);
        out.insert("grpc".into(), Value::Object(written));
    }
    // The Gateway API needs the block of the protocol, even empty; Kure
    // leaves it out when nothing is written in it.
    match protocol {
        Some("GRPC") if !block.has("grpc") => {
            out.insert("grpc".into(), Value::Object(Map::new()));
        }
        Some("HTTP") if !block.has("http") => {
            out.insert("http".into(), Value::Object(Map::new()));
        }
        _ => {}
    }
    if let Some(http) = block.object(report, "http") {
        http.unknown(
            report,
            &["path", "allowedHeaders", "allowedResponseHeaders"],
        );
        let mut written = Map::new();
        if let Some(path) = http.text(report, "path") {
            written.insert("path".into(), json!(path));
        }
        insert_names(report, &http, "allowedHeaders", &mut written);
        insert_names(report, &http, "allowedResponseHeaders", &mut written);
        out.insert("http".into(), Value::Object(written));
    }
    if let Some(forward) = block.object(report, "forwardBody") {
        forward.unknown(report, &["maxSize"]);
        let mut written = Map::new();
        // The Gateway API field is 16 bits; Kure wraps larger sizes.
        let size = ranged(report, &forward, "maxSize", 0, i64::from(u16::MAX));
        if let Some(size) = size.filter(|size| *size > 0) {
            written.insert("maxSize".into(), json!(size));
        }
        out.insert("forwardBody".into(), Value::Object(written));
    }
    Value::Object(out)
}

/// The `backendRef` of a mirror or an external auth filter: a Service's
/// `name` and `port`, both required.
fn filter_backend(report: &mut Report<'_>, block: &Props<'_>, what: &str) -> Value {
    let Some(reference) = block.object(report, "backendRef") else {
        if !block.has("backendRef") {
            report.error(
                codes::INVALID_PROPERTY,
                &block.at("backendRef"),
                format!("{what} needs a `backendRef`: the `name` and `port` of a Service"),
            );
        }
        return Value::Object(Map::new());
    };
    reference.unknown(report, &["name", "port"]);
    let name = required_text(
        report,
        &reference,
        "name",
        "a `backendRef` needs the `name` of its Service",
    );
    if !reference.has("port") {
        report.error(
            codes::INVALID_PROPERTY,
            &reference.at("port"),
            "a `backendRef` needs a `port`",
        );
    }
    let port = ranged(report, &reference, "port", 1, 65535);
    json!({"name": name.unwrap_or_default(), "port": port.unwrap_or_default()})
}

/// A rule's `timeouts`: `request` and `backendRequest`, each written only
/// when longer than zero; at least one is, and `backendRequest` is not
/// longer than `request`.
fn timeouts(report: &mut Report<'_>, block: &Props<'_>) -> Value {
    block.unknown(report, &["request", "backendRequest"]);
    let request = duration(report, block, "request");
    let backend = duration(report, block, "backendRequest");
    let mut out = Map::new();
    let mut reported = false;
    for (key, value) in [("request", request), ("backendRequest", backend)] {
        reported |= value.is_none() && is_set(block, key);
        if let Some(value) = value.filter(|value| value.nanos() > 0) {
            match gateway_duration(value) {
                Some(text) => {
                    out.insert(key.into(), json!(text));
                }
                None => report.error(
                    codes::INVALID_PROPERTY,
                    &block.at(key),
                    format!("`{key}` cannot be written as a Gateway API duration (whole milliseconds, at most 99999 of each unit)"),
                ),
            }
        }
    }
    if out.is_empty() && !reported {
        report.error(
            codes::INVALID_PROPERTY,
            &block.path,
            "`timeouts` needs a `request` or a `backendRequest` longer than zero",
        );
    }
    if let (Some(request), Some(backend)) = (request, backend)
        && request.nanos() > 0
        && backend.nanos() > request.nanos()
    {
        report.error(
            codes::INVALID_PROPERTY,
            &block.at("backendRequest"),
            format!(
                "`backendRequest` ({}) must not be longer than `request` ({})",
                backend.go_string(),
                request.go_string()
            ),
        );
    }
    Value::Object(out)
}

/// A duration as the Gateway API accepts it (`^([0-9]{1,5}(h|m|s|ms)){1,4}$`):
/// Go's `Duration.String()` when that fits, as Kure writes it (`1m30s`);
/// otherwise its hours, minutes, seconds and milliseconds (`1s500ms` for
/// `1500ms`, which Go writes `1.5s` and the API server refuses).
fn gateway_duration(duration: Duration) -> Option<String> {
    let go = duration.go_string();
    if is_gateway_duration(&go) {
        return Some(go);
    }
    let nanos = u64::try_from(duration.nanos()).ok()?;
    if nanos % 1_000_000 != 0 {
        return None;
    }
    let millis = nanos / 1_000_000;
    let parts = [
        (millis / 3_600_000, "h"),
        (millis / 60_000 % 60, "m"),
        (millis / 1000 % 60, "s"),
        (millis % 1000, "ms"),
    ];
    let mut text = String::new();
    for (value, unit) in parts.iter().filter(|(value, _)| *value > 0) {
        let _ = write!(text, "{value}{unit}");
    }
    is_gateway_duration(&text).then_some(text)
}

/// Whether `text` matches the Gateway API's duration pattern.
fn is_gateway_duration(text: &str) -> bool {
    let mut rest = text;
    let mut groups = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=5).contains(&digits) {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ms", "h", "m", "s"]
            .into_iter()
            .find(|unit| rest.starts_with(unit));
        let Some(unit) = unit else {
            return false;
        };
        rest = &rest[unit.len()..];
        groups += 1;
    }
    (1..=4).contains(&groups)
}

/// The Go duration of `key`; an invalid or negative one is reported, and
/// `None`, as is an absent or empty one.
fn duration(report: &mut Report<'_>, block: &Props<'_>, key: &str) -> Option<Duration> {
    let text = block.text(report, key)?;
    match Duration::parse(text) {
        Ok(duration) if duration.nanos() < 0 => {
            report.error(
                codes::INVALID_PROPERTY,
                &block.at(key),
                format!("`{key}` must not be negative, not `{text}`"),
            );
            None
        }
        Ok(duration) => Some(duration),
        Err(why) => {
            report.error(codes::INVALID_PROPERTY, &block.at(key), why);
            None
        }
    }
}

/// The non-empty text of `key`; when it is absent or empty, `message` is
/// reported (a value of another type is reported by the getter).
fn required_text<'a>(
    report: &mut Report<'_>,
    props: &Props<'a>,
    key: &str,
    message: &str,
) -> Option<&'a str> {
    let text = props.text(report, key);
    if text.is_none() && props.get(key).is_none_or(|node| node.as_str().is_some()) {
        report.error(codes::INVALID_PROPERTY, &props.at(key), message);
    }
    text
}

/// Reports `value`, written at `key`, when it is not one of `allowed`.
fn check_one_of(
    report: &mut Report<'_>,
    props: &Props<'_>,
    key: &str,
    value: &str,
    allowed: &[&str],
    what: &str,
) {
    if !allowed.contains(&value) {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at(key),
            format!("`{value}` is not a {what}: one of {}", allowed.join(", ")),
        );
    }
}

/// The whole number of `key`, reported when outside `min..=max` (Kure
/// would truncate or wrap it).
fn ranged(
    report: &mut Report<'_>,
    props: &Props<'_>,
    key: &str,
    min: i64,
    max: i64,
) -> Option<i64> {
    let number = props.integer(report, key)?;
    if !(min..=max).contains(&number) {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at(key),
            format!("`{key}` must be between {min} and {max}, not {number}"),
        );
    }
    Some(number)
}

/// Inserts the list of non-empty texts `key` into `out` when it has any;
/// an item that is not a text, or is empty, is reported.
fn insert_names(
    report: &mut Report<'_>,
    props: &Props<'_>,
    key: &str,
    out: &mut Map<String, Value>,
) {
    let names: Vec<&str> = props
        .list(report, key)
        .iter()
        .enumerate()
        .filter_map(|(index, node)| {
            let path = props.at(key).index(index);
            match node.as_str() {
                Some("") => {
                    report.error(
                        codes::INVALID_PROPERTY,
                        &path,
                        format!("an entry of `{key}` must not be empty"),
                    );
                    None
                }
                Some(text) => Some(text),
                None => {
                    wrong_type(report, &path, node, "a string");
                    None
                }
            }
        })
        .collect();
    if !names.is_empty() {
        out.insert(key.into(), json!(names));
    }
}

/// Whether `key` is written with something in it: not an empty text nor
/// an empty list, which Kure counts as unset.
fn is_set(props: &Props<'_>, key: &str) -> bool {
    props.get(key).is_some_and(|node| {
        node.as_str().is_none_or(|text| !text.is_empty())
            && node.as_seq().is_none_or(|items| !items.is_empty())
    })
}

/// Reports a settings block that sets none of `keys`: Kure refuses it, as
/// it would do nothing.
fn at_least_one(report: &mut Report<'_>, block: &Props<'_>, keys: &[&str], what: &str) {
    if keys.iter().any(|key| is_set(block, key)) {
        return;
    }
    let names: Vec<String> = keys.iter().map(|key| format!("`{key}`")).collect();
    report.error(
        codes::INVALID_PROPERTY,
        &block.path,
        format!("{what} needs at least one of {}", names.join(", ")),
    );
}

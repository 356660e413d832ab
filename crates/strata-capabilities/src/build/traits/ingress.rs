//! `ingress`: a `networking.k8s.io/v1` Ingress routing hosts and paths to
//! the component's Service (or another one), as Kure's `IngressHandler`
//! builds it.
//!
//! - Each path defaults to `/` and `Prefix`, and to the component's
//!   Service and port. A component without a Service port needs the
//!   trait's `servicePort` (and optionally `serviceName`), or an explicit
//!   `backend` with a `port` or `portName` on every path.
//! - A path may name another Service (`backend`); routing the component's
//!   own Service to a port it does not expose is an error.
//! - `annotations` values are written as text (`8080` → `"8080"`).
//! - The object is named `name`, else `<component>-ingress-<scope>`, else
//!   `<component>-ingress`.

use serde_json::{Map, Value, json};

use super::{Owner, Route, RoutePort, hostname_allowed, object_name, traffic_sources};
use crate::build::codes;
use crate::build::props::{Props, whole};
use crate::build::report::Report;

/// The keys `ingress` reads.
const KNOWN: &[&str] = &[
    "rules",
    "tls",
    "annotations",
    "ingressClassName",
    "servicePort",
    "serviceName",
    "name",
    "scope",
    "allowedHostnameWildcard",
    "networkPolicy",
];

/// The path types an Ingress path may have.
const PATH_TYPES: &[&str] = &["Prefix", "Exact", "ImplementationSpecific"];

/// Builds the Ingress; what it routes is recorded in `routes` for the
/// generated `NetworkPolicies`.
pub(crate) fn build(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    routes: &mut Vec<Route>,
) -> Vec<Value> {
    props.unknown(report, KNOWN);
    let backend = super::Backend::resolve(report, owner, props, "path-level 'port' or 'backend'");
    let wildcard = props.text(report, "allowedHostnameWildcard");
    let mut route = Route::new(owner, traffic_sources(report, props));
    let mut rules = Vec::new();
    let rules_written = props.objects(report, "rules");
    if rules_written.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &props.at("rules"),
            "`ingress` needs `rules`: at least one host with its paths",
        );
    }
    for rule in &rules_written {
        let host = rule.text(report, "host");
        if host.is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &rule.at("host"),
                "a rule needs a `host`",
            );
        }
        if let (Some(host), Some(wildcard)) = (host, wildcard)
            && !hostname_allowed(host, wildcard)
        {
            report.error(
                codes::INVALID_PROPERTY,
                &rule.at("host"),
                format!("the host `{host}` is not allowed by the profile's `allowedHostnameWildcard` `{wildcard}`"),
            );
        }
        let paths_written = rule.objects(report, "paths");
        if paths_written.is_empty() {
            report.error(
                codes::INVALID_PROPERTY,
                &rule.at("paths"),
                "a rule needs `paths`",
            );
        }
        let paths: Vec<Value> = paths_written
            .iter()
            .map(|path| self::path(report, owner, &backend, path, &mut route))
            .collect();
        rules.push(json!({"host": host.unwrap_or_default(), "http": {"paths": paths}}));
    }
    let mut spec = Map::new();
    if let Some(class) = props.text(report, "ingressClassName") {
        spec.insert("ingressClassName".into(), json!(class));
    }
    spec.insert("rules".into(), Value::Array(rules));
    let tls: Vec<Value> = props
        .objects(report, "tls")
        .iter()
        .map(|entry| {
            let mut written = Map::new();
            let hosts = entry.strings(report, "hosts");
            if !hosts.is_empty() {
                written.insert("hosts".into(), json!(hosts));
            }
            if let Some(secret) = entry.text(report, "secretName") {
                written.insert("secretName".into(), json!(secret));
            }
            Value::Object(written)
        })
        .collect();
    if !tls.is_empty() {
        spec.insert("tls".into(), Value::Array(tls));
    }
    let name = object_name(report, owner, props, "ingress");
    let metadata = owner.annotated_metadata(report, props, &name);
    routes.push(route);
    vec![json!({
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": metadata,
        "spec": spec,
    })]
}

/// One path: its backend Service and port resolved.
fn path(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    backend: &super::Backend,
    path: &Props<'_>,
    route: &mut Route,
) -> Value {
    let text = path.string(report, "path").unwrap_or("/");
    let path_type = path.string(report, "pathType").unwrap_or("Prefix");
    if !PATH_TYPES.contains(&path_type) {
        report.error(
            codes::INVALID_PROPERTY,
            &path.at("pathType"),
            format!(
                "`{path_type}` is not a path type: one of {}",
                PATH_TYPES.join(", ")
            ),
        );
    }
    let service = path.text(report, "backend").unwrap_or(&backend.service);
    let explicit = service != backend.service;
    let port = path.get("port").map(|node| {
        let number = whole(node).filter(|port| (1..=65535).contains(port));
        if number.is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &path.at("port"),
                "`port` is a port number between 1 and 65535",
            );
        }
        number.unwrap_or_default()
    });
    let port_name = if path.has("port") {
        None
    } else {
        path.text(report, "portName")
    };
    let number = match (explicit, port) {
        (true, port) => port.unwrap_or_default(),
        (false, port) => backend.implicit_port(report, owner, port, &path.at("port")),
    };
    super::check_backend_selector(report, path, explicit);
    let port_value = if number == 0 {
        if let Some(name) = port_name {
            json!({"name": name})
        } else {
            if !explicit && backend.port.is_none() {
                // Already reported: the component has no port.
            } else {
                report.error(
                    codes::INVALID_PROPERTY,
                    &path.path,
                    "the backend port cannot be determined: give the path a `port` or `portName`",
                );
            }
            json!({"number": 0})
        }
    } else {
        json!({"number": number})
    };
    route.add_backend(
        service,
        explicit,
        if number == 0 {
            port_name.map(|name| RoutePort::Name(name.to_owned()))
        } else {
            Some(RoutePort::Number(number))
        },
        path,
    );
    json!({
        "backend": {"service": {"name": service, "port": port_value}},
        "path": text,
        "pathType": path_type,
    })
}

//! The built-in traits of `capabilities build`, each as Kure's launcher's
//! handler builds it (`pkg/oam/builtin/traits`). A trait sees its
//! effective properties (the profile's binding merged under what the
//! author wrote) and its component; it emits objects of its own, placed
//! after every component of its tier, or changes the component's objects
//! in place (a mount, an annotation).
//!
//! What the routing traits (`ingress`, `httproute`, and `expose`, lowered
//! to one of them) route is recorded as [`Route`]s, from which the
//! `NetworkPolicies` a profile's `networkPolicy.trafficSources` asks for are
//! generated ([`netpol`]).

mod decorators;
mod emitters;
mod expose;
mod httproute;
mod ingress;
pub(crate) mod netpol;
mod policies;

use serde_json::{Value, json};
use strata_syntax::{FieldPath, Node};

use super::Component;
use super::codes;
use super::props::{Props, whole};
use super::report::Report;

/// The component a trait is applied to.
pub(crate) struct Owner<'a> {
    /// The component.
    pub component: &'a Component<'a>,
    /// Its type.
    pub component_type: &'a str,
    /// Its Service, when its type makes one.
    pub service: Option<&'a Service>,
}

impl Owner<'_> {
    /// The metadata of an object a trait makes for the component: `name`,
    /// labelled `app: <component>`, in the component's namespace.
    pub(crate) fn metadata(&self, name: &str) -> Value {
        json!({
            "labels": {"app": self.component.name},
            "name": name,
            "namespace": self.component.namespace,
        })
    }

    /// [`Owner::metadata`] with the trait's `annotations`, left out when
    /// there are none (as Go's `omitempty` leaves an empty map out).
    pub(crate) fn annotated_metadata(
        &self,
        report: &mut Report<'_>,
        props: &Props<'_>,
        name: &str,
    ) -> Value {
        let mut metadata = self.metadata(name);
        let annotations = props.text_map(report, "annotations");
        if !annotations.is_empty() {
            metadata["annotations"] = annotations
                .into_iter()
                .map(|(key, value)| (key, json!(value)))
                .collect();
        }
        metadata
    }
}

/// The Service a component makes: its name and port (a statefulset
/// without a `port` makes a headless Service without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Service {
    /// The Service's name.
    pub name: String,
    /// Its port.
    pub port: Option<i64>,
}

/// Applies the trait `trait_type` with `properties` to `owner`: its own
/// objects are returned; a trait that changes the component changes
/// `objects` (the component's). `None` when the type is not a built-in
/// trait.
pub(crate) fn apply(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    trait_type: &str,
    properties: &Node,
    routes: &mut Vec<Route>,
    objects: &mut [Value],
) -> Option<Vec<Value>> {
    let props = Props::root(properties);
    Some(match trait_type {
        "ingress" => ingress::build(report, owner, &props, routes),
        "httproute" => httproute::build(report, owner, &props, routes),
        "expose" => expose::build(report, owner, &props, routes),
        "certificate" => emitters::certificate(report, owner, &props),
        "scaler" => emitters::scaler(report, owner, &props),
        "pvc" => emitters::pvc(report, owner, &props),
        "configmap" => decorators::configmap(report, owner, &props, objects),
        "external-secret" => decorators::external_secret(report, owner, &props, objects),
        "security-context" => decorators::security_context(report, owner, &props, objects),
        "prune-protection" => decorators::prune_protection(report, &props, objects),
        "networkpolicy" => policies::networkpolicy(report, owner, &props),
        "cilium-networkpolicy" => policies::cilium(report, owner, &props),
        "rbac" => policies::rbac(report, owner, &props, objects),
        "volsync" => policies::volsync(report, owner, &props, objects),
        "fluxcd-patches" => policies::fluxcd_patches(report, &props),
        "fluxcd-postbuild" => policies::fluxcd_postbuild(report, &props),
        _ => return None,
    })
}

/// How a routing trait reaches its backend by default: the component's
/// Service (or the trait's `serviceName`) on its port (or the trait's
/// `servicePort`).
pub(crate) struct Backend {
    /// The Service routed to by default.
    pub service: String,
    /// Its port, when the component or the trait gives one.
    pub port: Option<i64>,
}

impl Backend {
    /// The default backend of a routing trait; `hint` names the
    /// per-route overrides in the messages.
    pub(crate) fn resolve(
        report: &mut Report<'_>,
        owner: &Owner<'_>,
        props: &Props<'_>,
        hint: &str,
    ) -> Backend {
        let component_port = owner.service.and_then(|service| service.port);
        let service_port = props.get("servicePort").map(|node| {
            let port = whole(node).filter(|port| (1..=65535).contains(port));
            if port.is_none() {
                report.error(
                    codes::INVALID_PROPERTY,
                    &props.at("servicePort"),
                    "`servicePort` is a port number between 1 and 65535",
                );
            }
            port
        });
        if let (Some(_), Some(port)) = (&service_port, component_port) {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at("servicePort"),
                format!("`servicePort` may not be set on a component that already exposes the Service port {port}; use {hint} overrides instead"),
            );
        }
        let service_name = props.text(report, "serviceName");
        if service_name.is_some() && service_port.is_none() {
            report.error(
                codes::INVALID_PROPERTY,
                &props.at("serviceName"),
                "`serviceName` needs a `servicePort` on the trait",
            );
        }
        let service = service_name
            .map(str::to_owned)
            .or_else(|| owner.service.map(|service| service.name.clone()))
            .unwrap_or_else(|| owner.component.name.to_owned());
        Backend {
            service,
            port: service_port.flatten().or(component_port),
        }
    }

    /// The port of a route to the default Service: its port; a route
    /// asking for another port of it is an error, as is a component
    /// without one.
    pub(crate) fn implicit_port(
        &self,
        report: &mut Report<'_>,
        owner: &Owner<'_>,
        asked: Option<i64>,
        at: &FieldPath,
    ) -> i64 {
        let Some(port) = self.port else {
            report.error(
                codes::NO_SERVICE_PORT,
                at,
                format!(
                    "the `{}` component `{}` has no Service port to route to",
                    owner.component_type, owner.component.name
                ),
            );
            report.help("give the trait `servicePort` (and `serviceName`), or route to an explicit backend with a port");
            return 0;
        };
        if let Some(asked) = asked.filter(|asked| *asked != port && *asked != 0) {
            report.error(
                codes::INVALID_PROPERTY,
                at,
                format!(
                    "the component's Service `{}` exposes port {port}, not {asked}",
                    self.service
                ),
            );
        }
        port
    }
}

/// The name of a routing trait's object: `name`, else
/// `<component>-<kind>-<scope>`, else `<component>-<kind>`.
pub(crate) fn object_name(
    report: &mut Report<'_>,
    owner: &Owner<'_>,
    props: &Props<'_>,
    kind: &str,
) -> String {
    if let Some(name) = props.text(report, "name") {
        return name.to_owned();
    }
    match props.text(report, "scope") {
        Some(scope) => format!("{}-{kind}-{scope}", owner.component.name),
        None => format!("{}-{kind}", owner.component.name),
    }
}

/// Whether `host` is allowed by the profile's `wildcard`: equal to it, or,
/// for `*.suffix`, exactly one label followed by `.suffix`.
pub(crate) fn hostname_allowed(host: &str, wildcard: &str) -> bool {
    match wildcard.strip_prefix("*.") {
        Some(suffix) => host
            .strip_suffix(suffix)
            .and_then(|label| label.strip_suffix('.'))
            .is_some_and(|label| !label.is_empty() && !label.contains('.')),
        None => host == wildcard,
    }
}

/// A route's `backendSelector`: only with an explicit backend, only
/// `matchLabels`, not empty, text values. It only feeds the generated
/// `NetworkPolicies`.
pub(crate) fn check_backend_selector(report: &mut Report<'_>, route: &Props<'_>, explicit: bool) {
    let Some(selector) = route.object(report, "backendSelector") else {
        return;
    };
    if !explicit {
        report.error(
            codes::INVALID_PROPERTY,
            &selector.path,
            "`backendSelector` goes only with an explicit external `backend`",
        );
    }
    selector.unknown(report, &["matchLabels"]);
    let labels = selector.text_map(report, "matchLabels");
    if labels.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &selector.at("matchLabels"),
            "`backendSelector.matchLabels` must not be empty",
        );
    }
}

/// The peers of the profile's `networkPolicy.trafficSources` (`None`
/// when there is no `networkPolicy`).
pub(crate) fn traffic_sources(report: &mut Report<'_>, props: &Props<'_>) -> Option<Vec<Value>> {
    let policy = props.object(report, "networkPolicy")?;
    policy.unknown(report, &["trafficSources"]);
    if !policy.has("trafficSources") {
        report.error(
            codes::INVALID_PROPERTY,
            &policy.path,
            "`networkPolicy` needs `trafficSources` (`[]` turns the generated policy off)",
        );
        return None;
    }
    let peers = policy
        .objects(report, "trafficSources")
        .iter()
        .map(|source| {
            source.unknown(report, &["namespace", "podSelector"]);
            let namespace = source.text(report, "namespace");
            if namespace.is_none() {
                report.error(
                    codes::INVALID_PROPERTY,
                    &source.at("namespace"),
                    "a traffic source needs a `namespace`",
                );
            }
            let mut peer = json!({"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace.unwrap_or_default()}}});
            if let Some(selector) = source.object(report, "podSelector") {
                selector.unknown(report, &["matchLabels"]);
                let labels: serde_json::Map<String, Value> = selector
                    .text_map(report, "matchLabels")
                    .into_iter()
                    .map(|(key, value)| (key, json!(value)))
                    .collect();
                peer["podSelector"] = json!({"matchLabels": labels});
            }
            peer
        })
        .collect();
    Some(peers)
}

/// A port a route reaches.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RoutePort {
    /// By number.
    Number(i64),
    /// By name.
    Name(String),
}

/// What one routing trait routes, for the generated `NetworkPolicies`.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    /// The component the trait is on.
    pub component: String,
    /// The component's own Service name.
    pub own_service: String,
    /// The peers traffic comes from (`None`: no `networkPolicy`).
    pub peers: Option<Vec<Value>>,
    /// The backends: Service, port, and an explicit backend's selector.
    pub backends: Vec<RouteBackend>,
}

/// One backend of a route.
#[derive(Debug, Clone)]
pub(crate) struct RouteBackend {
    /// The Service.
    pub service: String,
    /// Its port, when known.
    pub port: Option<RoutePort>,
    /// The labels of an external backend's pods (`backendSelector`).
    pub selector: Option<serde_json::Map<String, Value>>,
}

impl Route {
    /// A route of `owner`'s trait with the profile's `peers`.
    pub(crate) fn new(owner: &Owner<'_>, peers: Option<Vec<Value>>) -> Route {
        Route {
            component: owner.component.name.to_owned(),
            own_service: owner.service.map_or_else(
                || owner.component.name.to_owned(),
                |service| service.name.clone(),
            ),
            peers,
            backends: Vec::new(),
        }
    }

    /// Records a backend of the route (its `backendSelector`, when it has
    /// a valid one, read from `route`).
    pub(crate) fn add_backend(
        &mut self,
        service: &str,
        explicit: bool,
        port: Option<RoutePort>,
        route: &Props<'_>,
    ) {
        let selector = route
            .get("backendSelector")
            .filter(|_| explicit)
            .and_then(|selector| selector.get("matchLabels"))
            .and_then(Node::as_map)
            .map(|labels| {
                labels
                    .iter()
                    .filter_map(|(key, entry)| {
                        super::props::go_text(&entry.value.value)
                            .map(|text| (key.clone(), json!(text)))
                    })
                    .collect::<serde_json::Map<String, Value>>()
            })
            .filter(|labels| !labels.is_empty());
        self.backends.push(RouteBackend {
            service: service.to_owned(),
            port,
            selector,
        });
    }
}

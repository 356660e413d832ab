//! The `NetworkPolicies` a profile asks for through a routing capability's
//! `networkPolicy.trafficSources`: each routed component admits traffic
//! from those sources on the ports its routes reach.
//!
//! - A route to the component's own Service, or to a sibling component's
//!   Service, adds a rule (its sources, its ports) to that component's
//!   `<component>-allow-ingress-traffic`; a route to an external Service
//!   with a `backendSelector` adds one to `<service>-allow-ingress-traffic`
//!   selecting those pods.
//! - Ports are the numbers and names the routes reach, numbers ascending,
//!   then names; identical rules are written once.
//! - The policies come after every trait object of the target's tier:
//!   the components' in the order their first route was met, then the
//!   external Services', by name.
//!
//! Kure's policies select `launcher.gokure.dev/component: <name>`, a label
//! no pod Kure builds carries (bug B8), so they admit nothing. Here a
//! workload's policy selects the `app` label its pods carry; for other
//! component types the build keeps Kure's selector and warns.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Route, RoutePort};

/// The label Kure's generated policies select.
const KURE_COMPONENT_LABEL: &str = "launcher.gokure.dev/component";

/// The component types whose pods carry `app: <component>`.
pub(crate) const APP_LABELLED: &[&str] = &[
    "webservice",
    "worker",
    "cronjob",
    "daemonset",
    "statefulset",
];

/// A component a policy may target.
pub(crate) struct Target<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its type.
    pub component_type: &'a str,
    /// Its Service's name (its own name when it has none).
    pub service: &'a str,
    /// Its namespace.
    pub namespace: &'a str,
}

/// One generated policy: its target and its rules, in order.
#[derive(Debug)]
pub(crate) struct Policy {
    /// The component it is for (`None`: an external Service's).
    pub component: Option<String>,
    /// The object.
    pub object: Value,
}

/// The policies `routes` ask for, given every component of the build.
pub(crate) fn synthesize(routes: &[Route], targets: &[Target<'_>]) -> Vec<Policy> {
    let mut by_component: Vec<(String, Vec<Value>)> = Vec::new();
    let mut external: BTreeMap<String, (serde_json::Map<String, Value>, Vec<Value>)> =
        BTreeMap::new();
    for route in routes {
        let Some(peers) = route.peers.as_ref().filter(|peers| !peers.is_empty()) else {
            continue;
        };
        let mut ports: Vec<(String, Vec<RoutePort>)> = Vec::new();
        let mut external_ports: Vec<(String, serde_json::Map<String, Value>, Vec<RoutePort>)> =
            Vec::new();
        for backend in &route.backends {
            let Some(port) = backend.port.clone() else {
                continue;
            };
            let target = if backend.service == route.own_service {
                Some(route.component.clone())
            } else {
                targets
                    .iter()
                    .find(|target| target.service == backend.service)
                    .map(|target| target.name.to_owned())
            };
            match (target, &backend.selector) {
                (Some(target), _) => push_port(&mut ports, &target, port),
                (None, Some(selector)) => {
                    match external_ports
                        .iter_mut()
                        .find(|(service, _, _)| *service == backend.service)
                    {
                        Some((_, _, list)) => list.push(port),
                        None => external_ports.push((
                            backend.service.clone(),
                            selector.clone(),
                            vec![port],
                        )),
                    }
                }
                (None, None) => {}
            }
        }
        // The route's own component first, then the siblings it reaches.
        ports.sort_by_key(|(target, _)| *target != route.component);
        for (target, list) in ports {
            let rule = rule(peers, list);
            match by_component.iter_mut().find(|(name, _)| *name == target) {
                Some((_, rules)) if rules.contains(&rule) => {}
                Some((_, rules)) => rules.push(rule),
                None => by_component.push((target, vec![rule])),
            }
        }
        for (service, selector, list) in external_ports {
            let rule = rule(peers, list);
            let entry = external
                .entry(service)
                .or_insert_with(|| (selector, Vec::new()));
            if !entry.1.contains(&rule) {
                entry.1.push(rule);
            }
        }
    }
    let mut policies = Vec::new();
    for (name, rules) in by_component {
        let Some(target) = targets.iter().find(|target| target.name == name) else {
            continue;
        };
        let selector = if APP_LABELLED.contains(&target.component_type) {
            json!({"app": name})
        } else {
            json!({KURE_COMPONENT_LABEL: name})
        };
        policies.push(Policy {
            component: Some(name.clone()),
            object: policy(
                &format!("{name}-allow-ingress-traffic"),
                target.namespace,
                &selector,
                &rules,
            ),
        });
    }
    let namespace = targets.first().map_or("default", |target| target.namespace);
    for (service, (selector, rules)) in external {
        policies.push(Policy {
            component: None,
            object: policy(
                &format!("{service}-allow-ingress-traffic"),
                namespace,
                &Value::Object(selector),
                &rules,
            ),
        });
    }
    policies
}

/// Adds `port` to the ports of `target`.
fn push_port(ports: &mut Vec<(String, Vec<RoutePort>)>, target: &str, port: RoutePort) {
    match ports.iter_mut().find(|(name, _)| name == target) {
        Some((_, list)) => list.push(port),
        None => ports.push((target.to_owned(), vec![port])),
    }
}

/// A rule admitting `peers` on `ports` (sorted, each once).
fn rule(peers: &[Value], mut ports: Vec<RoutePort>) -> Value {
    ports.sort();
    ports.dedup();
    let ports: Vec<Value> = ports
        .into_iter()
        .map(|port| match port {
            RoutePort::Number(number) => json!({"port": number, "protocol": "TCP"}),
            RoutePort::Name(name) => json!({"port": name, "protocol": "TCP"}),
        })
        .collect();
    json!({"from": peers, "ports": ports})
}

fn policy(name: &str, namespace: &str, selector: &Value, rules: &[Value]) -> Value {
    json!({
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "ingress": rules,
            "podSelector": {"matchLabels": selector},
            "policyTypes": ["Ingress"],
        },
    })
}

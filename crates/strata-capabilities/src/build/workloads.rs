//! The workload component types, each built as Kure's launcher builds it
//! (`webservice.go`, `worker.go`, `cronjob.go`, `daemonset.go`,
//! `statefulset.go`): every object labelled `app: <component>`, named after
//! the component, in the build's namespace, in Kure's order.
//!
//! | type | objects, in order |
//! |---|---|
//! | `webservice` | Deployment, Service, ServiceAccount, claims |
//! | `worker` | Deployment, ServiceAccount, claims |
//! | `cronjob` | CronJob, ServiceAccount, claims |
//! | `daemonset` | DaemonSet, Service (with a `port`), ServiceAccount, claims |
//! | `statefulset` | StatefulSet, headless Service, ServiceAccount, claims |

use std::sync::LazyLock;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use strata_schema::Decoder;
use strata_syntax::FieldPath;

use super::pod::{self, BuiltPod, MainPort};
use super::report::Report;
use super::spec::{Cronjob, Daemonset, RestartPolicy, Statefulset, Webservice, Worker};
use super::traits::Service;
use super::{Built, Component, codes};

/// The decoders of the workload types' properties.
static WEBSERVICE: LazyLock<Decoder<Webservice>> = LazyLock::new(Decoder::new);
static WORKER: LazyLock<Decoder<Worker>> = LazyLock::new(Decoder::new);
static CRONJOB: LazyLock<Decoder<Cronjob>> = LazyLock::new(Decoder::new);
static DAEMONSET: LazyLock<Decoder<Daemonset>> = LazyLock::new(Decoder::new);
static STATEFULSET: LazyLock<Decoder<Statefulset>> = LazyLock::new(Decoder::new);

/// The JSON Schema of a workload type's properties.
pub(crate) fn schema(component_type: &str) -> Option<&'static serde_json::Value> {
    Some(match component_type {
        "webservice" => WEBSERVICE.schema(),
        "worker" => WORKER.schema(),
        "cronjob" => CRONJOB.schema(),
        "daemonset" => DAEMONSET.schema(),
        "statefulset" => STATEFULSET.schema(),
        _ => return None,
    })
}

/// Builds a workload component; `None` when `component_type` is not one.
pub(crate) fn build(
    report: &mut Report<'_>,
    component: &Component<'_>,
    component_type: &str,
) -> Option<Built> {
    Some(match component_type {
        "webservice" => decode(report, component, &WEBSERVICE, webservice),
        "worker" => decode(report, component, &WORKER, worker),
        "cronjob" => decode(report, component, &CRONJOB, cronjob),
        "daemonset" => decode(report, component, &DAEMONSET, daemonset),
        "statefulset" => decode(report, component, &STATEFULSET, statefulset),
        _ => return None,
    })
}

/// Decodes the properties strictly ([`Report::decode`]), then builds
/// what decodes.
fn decode<T: DeserializeOwned>(
    report: &mut Report<'_>,
    component: &Component<'_>,
    decoder: &Decoder<T>,
    build: fn(&mut Report<'_>, &Component<'_>, &T) -> Built,
) -> Built {
    report
        .decode(decoder, true)
        .map_or_else(Built::default, |properties| {
            build(report, component, &properties)
        })
}

/// `metadata` of a workload's object: `app` label, name, namespace.
fn metadata(component: &Component<'_>, name: &str) -> Value {
    json!({"labels": {"app": component.name}, "name": name, "namespace": component.namespace})
}

/// The pod template: labels, and the spec with the pod's containers.
fn template(component: &Component<'_>, pod: &BuiltPod, extra: Map<String, Value>) -> Value {
    let mut spec = extra;
    spec.insert("containers".into(), pod.containers());
    spec.insert("serviceAccountName".into(), json!(component.name));
    pod.finish_spec(&mut spec);
    json!({"metadata": {"labels": {"app": component.name}}, "spec": spec})
}

/// The selector every workload uses.
fn selector(component: &Component<'_>) -> Value {
    json!({"matchLabels": {"app": component.name}})
}

/// The `ServiceAccount` of every workload; its token is not mounted.
fn service_account(component: &Component<'_>) -> Value {
    json!({
        "apiVersion": "v1",
        "automountServiceAccountToken": false,
        "kind": "ServiceAccount",
        "metadata": metadata(component, component.name),
    })
}

/// A `ClusterIP` Service on `port`, named `http`.
fn cluster_service(component: &Component<'_>, port: i64) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata(component, component.name),
        "spec": {
            "ports": [{"name": "http", "port": port, "protocol": "TCP", "targetPort": port}],
            "selector": {"app": component.name},
            "type": "ClusterIP",
        },
    })
}

/// A port property: 1 to 65535.
fn check_port(report: &mut Report<'_>, port: i64) {
    if !(1..=65535).contains(&port) {
        report.error(
            codes::INVALID_PROPERTY,
            &FieldPath::root().key("port"),
            format!("port {port} is not between 1 and 65535"),
        );
    }
}

/// A replica count: at least 0.
fn check_replicas(report: &mut Report<'_>, replicas: i64) {
    if !(0..=i64::from(i32::MAX)).contains(&replicas) {
        report.error(
            codes::INVALID_PROPERTY,
            &FieldPath::root().key("replicas"),
            format!("`replicas` is between 0 and {}, not {replicas}", i32::MAX),
        );
    }
}

/// A Deployment (webservice and worker): `Recreate` when a claim is
/// exclusive, which also forbids more than one replica.
fn deployment(
    report: &mut Report<'_>,
    component: &Component<'_>,
    pod: &BuiltPod,
    replicas: i64,
    topology_spread: Option<bool>,
    affinity: Option<Value>,
) -> Value {
    let mut strategy = json!({});
    if let Some(claim) = &pod.exclusive_claim {
        strategy = json!({"type": "Recreate"});
        if replicas > 1 {
            report.error(
                codes::SHARED_CLAIM,
                &FieldPath::root().key("replicas"),
                format!(
                    "{replicas} replicas cannot share the `ReadWriteOnce` claim of `{}`",
                    report.full_path(claim)
                ),
            );
            report.help("use one replica, or give the volume `accessModes: [ReadWriteMany]`");
        }
    }
    let mut extra = Map::new();
    if let Some(constraints) = pod::topology_spread(component, replicas, topology_spread) {
        extra.insert("topologySpreadConstraints".into(), constraints);
    }
    if let Some(affinity) = affinity {
        extra.insert("affinity".into(), affinity);
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata(component, component.name),
        "spec": {
            "replicas": replicas,
            "selector": selector(component),
            "strategy": strategy,
            "template": template(component, pod, extra),
        },
    })
}

fn webservice(
    report: &mut Report<'_>,
    component: &Component<'_>,
    properties: &Webservice,
) -> Built {
    let port = properties.port.unwrap_or(80);
    check_port(report, port);
    let replicas = properties.replicas.unwrap_or(1);
    check_replicas(report, replicas);
    let main = MainPort {
        number: Some(port),
        name: "http",
        named_allowed: true,
    };
    let mut pod = pod::build(report, component, &properties.pod, main);
    pod::sidecars(report, &properties.sidecars, &mut pod);
    let affinity = pod::affinity(component, properties.affinity.as_ref());
    let mut objects = vec![
        deployment(
            report,
            component,
            &pod,
            replicas,
            properties.topology_spread,
            affinity,
        ),
        cluster_service(component, port),
        service_account(component),
    ];
    objects.append(&mut pod.claims);
    Built {
        objects,
        service: Some(Service {
            name: component.name.to_owned(),
            port: Some(port),
        }),
    }
}

fn worker(report: &mut Report<'_>, component: &Component<'_>, properties: &Worker) -> Built {
    let replicas = properties.replicas.unwrap_or(1);
    check_replicas(report, replicas);
    let main = MainPort {
        number: None,
        name: "",
        named_allowed: false,
    };
    let mut pod = pod::build(report, component, &properties.pod, main);
    pod::sidecars(report, &properties.sidecars, &mut pod);
    let affinity = pod::affinity(component, properties.affinity.as_ref());
    let mut objects = vec![
        deployment(
            report,
            component,
            &pod,
            replicas,
            properties.topology_spread,
            affinity,
        ),
        service_account(component),
    ];
    objects.append(&mut pod.claims);
    Built {
        objects,
        service: None,
    }
}

/// Whether `schedule` has the five fields Kure requires.
fn five_fields(schedule: &str) -> bool {
    schedule.split_whitespace().count() == 5
        && !schedule.starts_with(char::is_whitespace)
        && !schedule.ends_with(char::is_whitespace)
}

fn cronjob(report: &mut Report<'_>, component: &Component<'_>, properties: &Cronjob) -> Built {
    if !five_fields(&properties.schedule) {
        report.error(
            codes::INVALID_PROPERTY,
            &FieldPath::root().key("schedule"),
            format!(
                "`{}` is not a five-field cron schedule",
                properties.schedule
            ),
        );
        report.help("write minute, hour, day of month, month and day of week: `0 2 * * *` (`@daily` and seconds are not accepted)");
    }
    let mut limits = Vec::new();
    for (key, value, default) in [
        (
            "successfulJobsHistoryLimit",
            properties.successful_jobs_history_limit,
            3,
        ),
        (
            "failedJobsHistoryLimit",
            properties.failed_jobs_history_limit,
            1,
        ),
    ] {
        let value = value.unwrap_or(default);
        if !(0..=i64::from(i32::MAX)).contains(&value) {
            report.error(
                codes::INVALID_PROPERTY,
                &FieldPath::root().key(key),
                format!("`{key}` is at least 0, not {value}"),
            );
        }
        limits.push(value);
    }
    let main = MainPort {
        number: None,
        name: "",
        named_allowed: false,
    };
    let mut pod = pod::build(report, component, &properties.pod, main);
    let restart = match properties
        .restart_policy
        .unwrap_or(RestartPolicy::OnFailure)
    {
        RestartPolicy::OnFailure => "OnFailure",
        RestartPolicy::Never => "Never",
    };
    let mut extra = Map::new();
    extra.insert("restartPolicy".into(), json!(restart));
    let template = template(component, &pod, extra);
    let mut objects = vec![
        json!({
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": metadata(component, component.name),
            "spec": {
                "failedJobsHistoryLimit": limits[1],
                "jobTemplate": {"metadata": {"labels": {"app": component.name}}, "spec": {"template": template}},
                "schedule": properties.schedule,
                "successfulJobsHistoryLimit": limits[0],
            },
        }),
        service_account(component),
    ];
    objects.append(&mut pod.claims);
    Built {
        objects,
        service: None,
    }
}

fn daemonset(report: &mut Report<'_>, component: &Component<'_>, properties: &Daemonset) -> Built {
    let port = properties.port.filter(|port| *port != 0);
    if let Some(port) = port {
        check_port(report, port);
    }
    let main = MainPort {
        number: port,
        name: "http",
        named_allowed: true,
    };
    let mut pod = pod::build(report, component, &properties.pod, main);
    let mut extra = Map::new();
    if !properties.tolerations.is_empty() {
        let tolerations: Vec<Value> = properties
            .tolerations
            .iter()
            .map(|toleration| {
                let key = toleration.key.as_deref().unwrap_or_default();
                let operator = toleration.operator.map_or(
                    if key.is_empty() { "Exists" } else { "Equal" },
                    |operator| match operator {
                        super::spec::TolerationOperator::Exists => "Exists",
                        super::spec::TolerationOperator::Equal => "Equal",
                    },
                );
                let mut entry = json!({"operator": operator});
                if !key.is_empty() {
                    entry["key"] = json!(key);
                }
                if let Some(value) = toleration
                    .value
                    .as_deref()
                    .filter(|value| !value.is_empty())
                {
                    entry["value"] = json!(value);
                }
                if let Some(effect) = toleration.effect {
                    entry["effect"] = json!(format!("{effect:?}"));
                }
                entry
            })
            .collect();
        extra.insert("tolerations".into(), Value::Array(tolerations));
    }
    let mut objects = vec![json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": metadata(component, component.name),
        "spec": {
            "selector": selector(component),
            "template": template(component, &pod, extra),
            "updateStrategy": {},
        },
    })];
    if let Some(port) = port {
        objects.push(cluster_service(component, port));
    }
    objects.push(service_account(component));
    objects.append(&mut pod.claims);
    Built {
        objects,
        service: port.map(|port| Service {
            name: component.name.to_owned(),
            port: Some(port),
        }),
    }
}

fn statefulset(
    report: &mut Report<'_>,
    component: &Component<'_>,
    properties: &Statefulset,
) -> Built {
    let replicas = properties.replicas.unwrap_or(1);
    check_replicas(report, replicas);
    let port = properties.port.filter(|port| *port != 0);
    if let Some(port) = port {
        check_port(report, port);
    }
    let service_name = properties
        .service_name
        .as_deref()
        .filter(|name| !name.is_empty())
        .unwrap_or(component.name);
    let main = MainPort {
        number: port,
        name: "tcp",
        named_allowed: true,
    };
    let mut pod = pod::build(report, component, &properties.pod, main);
    pod::sidecars(report, &properties.sidecars, &mut pod);
    let path = FieldPath::root().key("volumeClaimTemplates");
    let mut templates = Vec::new();
    let mut mounts = Vec::new();
    for (index, claim) in properties.volume_claim_templates.iter().enumerate() {
        let at = path.index(index);
        let size = pod::quantity(report, &claim.size, &at.key("size")).map(|size| size.canonical());
        let modes = pod::access_modes(
            report,
            claim.access_modes.as_deref(),
            &at.key("accessModes"),
        );
        let mut spec = json!({"accessModes": modes, "resources": {"requests": {"storage": size.unwrap_or_default()}}});
        if let Some(class) = claim
            .storage_class
            .as_deref()
            .filter(|class| !class.is_empty())
        {
            spec["storageClassName"] = json!(class);
        }
        // A nested object keeps Go's empty `status`.
        templates.push(json!({"metadata": {"name": claim.name}, "spec": spec, "status": {}}));
        mounts.push(json!({"mountPath": claim.mount_path, "name": claim.name}));
    }
    if !mounts.is_empty() {
        // The claim templates' mounts come before the volumes'.
        let existing = pod.container.remove("volumeMounts");
        pod::append_mounts(&mut pod.container, mounts);
        if let Some(Value::Array(existing)) = existing {
            pod::append_mounts(&mut pod.container, existing);
        }
    }
    let mut extra = Map::new();
    if let Some(affinity) = pod::affinity(component, properties.affinity.as_ref()) {
        extra.insert("affinity".into(), affinity);
    }
    let mut spec = json!({
        "podManagementPolicy": "OrderedReady",
        "replicas": replicas,
        "selector": selector(component),
        "serviceName": service_name,
        "template": template(component, &pod, extra),
        "updateStrategy": {},
    });
    if !templates.is_empty() {
        spec["volumeClaimTemplates"] = Value::Array(templates);
    }
    let mut service_spec = json!({"clusterIP": "None", "selector": {"app": component.name}});
    if let Some(port) = port {
        service_spec["ports"] =
            json!([{"name": "tcp", "port": port, "protocol": "TCP", "targetPort": port}]);
    }
    let mut objects = vec![
        json!({
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": metadata(component, component.name),
            "spec": spec,
        }),
        json!({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": metadata(component, service_name),
            "spec": service_spec,
        }),
        service_account(component),
    ];
    objects.append(&mut pod.claims);
    Built {
        objects,
        service: Some(Service {
            name: service_name.to_owned(),
            port,
        }),
    }
}

//! Probes and lifecycle hooks of the main container, checked as Kure's
//! launcher checks them (`parseProbes`, `parseLifecycle`): one handler
//! each, timings in range, ports by number or by the container port's
//! name where the type allows it.

use serde_json::{Map, Value, json};
use strata_syntax::FieldPath;

use super::codes;
use super::pod::MainPort;
use super::report::Report;
use super::spec::{Exec, Grpc, Hook, HttpGet, Lifecycle, PortValue, Probe, Probes, TcpSocket};

/// A port of a probe or hook: a number in range, or the main container's
/// port name where names are allowed.
fn probe_port(
    report: &mut Report<'_>,
    port: &PortValue,
    main: MainPort<'_>,
    path: &FieldPath,
) -> Value {
    match port {
        PortValue::Number(number) => {
            if !(1..=65535).contains(number) {
                report.error(
                    codes::INVALID_PROPERTY,
                    path,
                    format!("port {number} is not between 1 and 65535"),
                );
            }
            json!(number)
        }
        PortValue::Name(name) => {
            if !main.named_allowed || main.number.is_none() {
                report.error(codes::INVALID_PROPERTY, path, format!("the port `{name}` is named, but this container has no named port; write the number"));
            } else if name != main.name {
                report.error(
                    codes::INVALID_PROPERTY,
                    path,
                    format!(
                        "the container's port is named `{}`, not `{name}`",
                        main.name
                    ),
                );
            }
            json!(name)
        }
    }
}

fn http_get(report: &mut Report<'_>, get: &HttpGet, main: MainPort<'_>, path: &FieldPath) -> Value {
    let mut written = Map::new();
    written.insert(
        "port".into(),
        probe_port(report, &get.port, main, &path.key("port")),
    );
    if let Some(text) = get.path.as_deref().filter(|text| !text.is_empty()) {
        written.insert("path".into(), json!(text));
    }
    if let Some(host) = get.host.as_deref().filter(|host| !host.is_empty()) {
        written.insert("host".into(), json!(host));
    }
    if let Some(scheme) = get.scheme.as_deref().filter(|scheme| !scheme.is_empty()) {
        let upper = scheme.to_ascii_uppercase();
        if upper != "HTTP" && upper != "HTTPS" {
            report.error(
                codes::INVALID_PROPERTY,
                &path.key("scheme"),
                format!("`{scheme}` is not `HTTP` or `HTTPS`"),
            );
        }
        written.insert("scheme".into(), json!(upper));
    }
    if !get.http_headers.is_empty() {
        let headers: Vec<Value> = get
            .http_headers
            .iter()
            .enumerate()
            .map(|(index, header)| {
                let token = !header.name.is_empty()
                    && header
                        .name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
                if !token {
                    report.error(
                        codes::INVALID_PROPERTY,
                        &path.key("httpHeaders").index(index).key("name"),
                        format!("`{}` is not an HTTP header name", header.name),
                    );
                }
                json!({"name": header.name, "value": header.value.clone().unwrap_or_default()})
            })
            .collect();
        written.insert("httpHeaders".into(), Value::Array(headers));
    }
    Value::Object(written)
}

fn tcp_socket(
    report: &mut Report<'_>,
    socket: &TcpSocket,
    main: MainPort<'_>,
    path: &FieldPath,
) -> Value {
    let mut written = json!({"port": probe_port(report, &socket.port, main, &path.key("port"))});
    if let Some(host) = socket.host.as_deref().filter(|host| !host.is_empty()) {
        written["host"] = json!(host);
    }
    written
}

fn exec(report: &mut Report<'_>, exec: &Exec, path: &FieldPath) -> Value {
    if exec.command.is_empty() {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("command"),
            "`exec.command` needs at least the program to run",
        );
    }
    json!({"command": exec.command})
}

pub(crate) fn add_probes(
    report: &mut Report<'_>,
    container: &mut Map<String, Value>,
    probes: &Probes,
    main: MainPort<'_>,
    path: &FieldPath,
) {
    for (key, probe, name) in [
        ("readinessProbe", &probes.readiness, "readiness"),
        ("livenessProbe", &probes.liveness, "liveness"),
        ("startupProbe", &probes.startup, "startup"),
    ] {
        if let Some(probe) = probe {
            let written = self::probe(report, probe, name, main, &path.key(name));
            container.insert(key.into(), written);
        }
    }
}

fn probe(
    report: &mut Report<'_>,
    probe: &Probe,
    name: &str,
    main: MainPort<'_>,
    path: &FieldPath,
) -> Value {
    let mut written = Map::new();
    let mut handlers = Vec::new();
    if let Some(get) = &probe.http_get {
        handlers.push("httpGet");
        written.insert(
            "httpGet".into(),
            http_get(report, get, main, &path.key("httpGet")),
        );
    }
    if let Some(socket) = &probe.tcp_socket {
        handlers.push("tcpSocket");
        written.insert(
            "tcpSocket".into(),
            tcp_socket(report, socket, main, &path.key("tcpSocket")),
        );
    }
    if let Some(command) = &probe.exec {
        handlers.push("exec");
        written.insert("exec".into(), exec(report, command, &path.key("exec")));
    }
    if let Some(grpc) = &probe.grpc {
        handlers.push("grpc");
        written.insert("grpc".into(), self::grpc(report, grpc, &path.key("grpc")));
    }
    if handlers.len() != 1 {
        let message = if handlers.is_empty() {
            format!("the {name} probe needs one of `httpGet`, `tcpSocket`, `exec`, `grpc`")
        } else {
            format!(
                "the {name} probe takes one handler, not {}",
                handlers.join(" and ")
            )
        };
        report.error(codes::INVALID_PROPERTY, path, message);
    }
    let timings = [
        ("initialDelaySeconds", probe.initial_delay_seconds, 0),
        ("periodSeconds", probe.period_seconds, 1),
        ("timeoutSeconds", probe.timeout_seconds, 1),
        ("successThreshold", probe.success_threshold, 1),
        ("failureThreshold", probe.failure_threshold, 1),
        (
            "terminationGracePeriodSeconds",
            probe.termination_grace_period_seconds,
            1,
        ),
    ];
    for (key, value, minimum) in timings {
        let Some(value) = value else { continue };
        if value < minimum {
            report.error(
                codes::INVALID_PROPERTY,
                &path.key(key),
                format!("`{key}` is at least {minimum}, not {value}"),
            );
        }
        // Go's `omitempty` leaves a zero out.
        if value != 0 {
            written.insert(key.into(), json!(value));
        }
    }
    if name != "readiness"
        && probe
            .success_threshold
            .is_some_and(|threshold| threshold != 1)
    {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("successThreshold"),
            format!("a {name} probe's `successThreshold` must be 1"),
        );
    }
    if name == "readiness" && probe.termination_grace_period_seconds.is_some() {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("terminationGracePeriodSeconds"),
            "a readiness probe takes no `terminationGracePeriodSeconds`",
        );
    }
    Value::Object(written)
}

pub(crate) fn lifecycle_hooks(
    report: &mut Report<'_>,
    lifecycle: &Lifecycle,
    main: MainPort<'_>,
    path: &FieldPath,
) -> Option<Value> {
    let mut written = Map::new();
    for (key, hook) in [
        ("postStart", &lifecycle.post_start),
        ("preStop", &lifecycle.pre_stop),
    ] {
        if let Some(hook) = hook {
            written.insert(key.into(), self::hook(report, hook, main, &path.key(key)));
        }
    }
    (!written.is_empty()).then_some(Value::Object(written))
}

fn hook(report: &mut Report<'_>, hook: &Hook, main: MainPort<'_>, path: &FieldPath) -> Value {
    let mut written = Map::new();
    let mut handlers = 0;
    if let Some(get) = &hook.http_get {
        handlers += 1;
        written.insert(
            "httpGet".into(),
            http_get(report, get, main, &path.key("httpGet")),
        );
    }
    if let Some(command) = &hook.exec {
        handlers += 1;
        written.insert("exec".into(), exec(report, command, &path.key("exec")));
    }
    if let Some(sleep) = &hook.sleep {
        handlers += 1;
        if sleep.seconds < 0 {
            report.error(
                codes::INVALID_PROPERTY,
                &path.key("sleep").key("seconds"),
                "`sleep.seconds` is at least 0",
            );
        }
        written.insert("sleep".into(), json!({"seconds": sleep.seconds}));
    }
    if hook.tcp_socket.is_some() {
        report.error(
            codes::INVALID_PROPERTY,
            &path.key("tcpSocket"),
            "`tcpSocket` is not a lifecycle hook handler",
        );
        report.help("use `httpGet`, `exec` or `sleep`");
    } else if handlers != 1 {
        report.error(
            codes::INVALID_PROPERTY,
            path,
            "a hook takes one of `httpGet`, `exec`, `sleep`",
        );
    }
    Value::Object(written)
}

/// A gRPC check; `service` is written even when absent (`null`), as Go's
/// `GRPCAction.Service`, a pointer without `omitempty`, is.
fn grpc(report: &mut Report<'_>, grpc: &Grpc, at: &FieldPath) -> Value {
    if !(1..=65535).contains(&grpc.port) {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("port"),
            format!("port {} is not between 1 and 65535", grpc.port),
        );
    }
    if grpc
        .service
        .as_deref()
        .is_some_and(|service| service.len() > 63)
    {
        report.error(
            codes::INVALID_PROPERTY,
            &at.key("service"),
            "a gRPC service name is at most 63 characters",
        );
    }
    json!({"port": grpc.port, "service": grpc.service})
}

//! The HTTP API on a loopback port: compose, who may do what, bad requests,
//! the unauthenticated endpoints and shutdown.

mod support;

use std::io::{Read, Write};

use support::{ALICE, ROOT, Running, catalogue, compose_body};

fn running() -> Running {
    Running::start(&[("all.yaml", &catalogue("v1"))])
}

#[test]
fn compose_end_to_end() {
    let service = running();
    let answer = service.post("/v1/compose", Some(ALICE), &compose_body("python-data"));
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.generation, Some(1));
    assert_eq!(answer.content_type, "application/json");
    let blueprint = answer.json();
    assert_eq!(blueprint["name"], "python-data");
    // `user` comes from the token, `metadata.name` is normalised.
    assert_eq!(blueprint["hostname"], "python-data-alice");
    assert_eq!(blueprint["env"]["MARK"], "v1");
    assert!(blueprint.get("isTemplate").is_none());

    // The repository file, as text, names the template; YAML both ways.
    let request = "workspaceName: w1
metadata: {name: repo-ws}
repo: |
  blueprint:
    template: python-data
    env: {EXTRA: !cel \"user.username + '-' + workspaceName\"}
";
    let answer = service.post_as(
        "/v1/compose",
        Some(ALICE),
        request,
        "application/yaml",
        "application/yaml",
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.content_type, "application/yaml");
    assert!(
        answer.text.starts_with("name: python-data\n"),
        "{}",
        answer.text
    );
    assert!(answer.text.contains("EXTRA: alice-w1\n"), "{}", answer.text);

    // The same repository file as an object.
    let request = serde_json::json!({
        "workspaceName": "w2",
        "metadata": {"name": "obj"},
        "repo": {"blueprint": {"template": "python-data", "env": {"EXTRA": "plain"}}},
    });
    let answer = service.post("/v1/compose", Some(ALICE), &request.to_string());
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.json()["env"]["EXTRA"], "plain");
}

#[test]
fn a_token_is_required_and_must_be_known() {
    let service = running();
    for path in ["/v1/blueprints", "/v1/blueprints/python-data", "/v1/status"] {
        for token in [None, Some("not-a-token")] {
            let answer = service.get(path, token);
            assert_eq!(answer.status, 401, "{path} {token:?}");
            assert!(answer.json()["error"].is_string());
        }
    }
    let answer = service.post("/v1/compose", None, &compose_body("python-data"));
    assert_eq!(answer.status, 401);
    // Probes and metrics need none.
    for path in ["/healthz", "/readyz", "/metrics"] {
        assert_eq!(service.get(path, None).status, 200, "{path}");
    }
}

#[test]
fn users_see_and_compose_only_what_they_may_use() {
    let service = running();
    let listed = service.get("/v1/blueprints", Some(ALICE));
    assert_eq!(listed.status, 200);
    assert_eq!(
        listed.json(),
        serde_json::json!({"blueprints": [
            {"name": "python-data", "description": "Python for data"},
            {"name": "python-web", "description": "Python for the web"},
        ]})
    );
    let everything = service.get("/v1/blueprints", Some(ROOT)).json();
    assert_eq!(everything["blueprints"].as_array().map(Vec::len), Some(3));

    // An existing blueprint and a missing one get the same 403: nothing
    // tells alice that `ops-console` exists.
    let mut forbidden = Vec::new();
    for name in ["ops-console", "ops-consol"] {
        let answer = service.post("/v1/compose", Some(ALICE), &compose_body(name));
        assert_eq!(answer.status, 403, "{}", answer.text);
        let diagnostics = answer.json()["diagnostics"].clone();
        assert_eq!(diagnostics[0]["code"], "platform/blueprint-not-allowed");
        assert!(diagnostics[0].get("help").is_none());
        forbidden.push(
            diagnostics[0]["message"]
                .as_str()
                .map(|m| m.replace(name, "NAME")),
        );
        let answer = service.get(&format!("/v1/blueprints/{name}"), Some(ALICE));
        assert_eq!(answer.status, 403);
    }
    assert_eq!(forbidden[0], forbidden[1]);

    // Within what she may use, a typo gets a suggestion from that set only.
    let answer = service.post("/v1/compose", Some(ALICE), &compose_body("python-dta"));
    assert_eq!(answer.status, 422);
    let diagnostic = &answer.json()["diagnostics"][0];
    assert_eq!(diagnostic["code"], "platform/unknown-blueprint");
    assert_eq!(diagnostic["help"], "did you mean `python-data`?");
    assert_eq!(diagnostic["file"], "<request>");
    let answer = service.get("/v1/blueprints/python-dta", Some(ALICE));
    assert_eq!(answer.status, 404);

    // The admin may use everything; a template is not a blueprint to use.
    let answer = service.post("/v1/compose", Some(ROOT), &compose_body("ops-console"));
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(service.get("/v1/blueprints/base", Some(ROOT)).status, 404);
}

#[test]
fn the_resolved_blueprint_keeps_its_expressions() {
    let service = running();
    let answer = service.get_as(
        "/v1/blueprints/python-data",
        Some(ALICE),
        "application/yaml",
    );
    assert_eq!(answer.status, 200);
    assert_eq!(answer.generation, Some(1));
    assert!(
        answer
            .text
            .contains("hostname: !cel metadata.name + '-' + user.username\n"),
        "{}",
        answer.text
    );
    // In JSON a tagged scalar is a one-key object.
    let answer = service.get("/v1/blueprints/python-data", Some(ALICE));
    assert_eq!(
        answer.json()["hostname"]["!cel"],
        "metadata.name + '-' + user.username"
    );
}

#[test]
fn bad_requests_say_what_and_where() {
    let service = Running::start_with(&[("all.yaml", &catalogue("v1"))], |config| {
        config.body_limit = 4096;
    });
    let compose = |body: &str| service.post("/v1/compose", Some(ALICE), body);

    let answer = compose("{\"workspaceName\": \"w\",\n \"metadata\": {\"name\": \"x\"},}");
    assert_eq!(answer.status, 400);
    let body = answer.json();
    assert_eq!(body["error"], "the body is not valid JSON");
    assert_eq!(body["diagnostics"][0]["code"], "syntax/json");
    assert_eq!(
        (
            &body["diagnostics"][0]["line"],
            &body["diagnostics"][0]["column"]
        ),
        (&serde_json::json!(2), &serde_json::json!(27))
    );

    let answer = service.post_as(
        "/v1/compose",
        Some(ALICE),
        "workspaceName: [w\n",
        "application/yaml",
        "application/json",
    );
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["error"], "the body is not valid YAML");

    let answer =
        compose(r#"{"blueprint": "python-data", "workspaceNam": "w", "metadata": {"name": "x"}}"#);
    assert_eq!(answer.status, 422);
    let codes: Vec<_> = answer.json()["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(codes, ["schema/required", "schema/unknown-key"]);

    let answer =
        compose(r#"{"workspaceName": "w", "metadata": {"name": "x"}, "repo": "blueprint: [\n"}"#);
    assert_eq!(answer.status, 400);
    let body = answer.json();
    assert_eq!(body["error"], "`repo` is not valid YAML");
    assert_eq!(body["diagnostics"][0]["file"], "<request>.repo");

    // A repository may not loosen security settings: the problem points into it.
    let repo = "blueprint:\n  template: python-data\n  securityContext: {runAsUser: 1000}\n";
    let request =
        serde_json::json!({"workspaceName": "w", "metadata": {"name": "x"}, "repo": repo});
    let answer = compose(&request.to_string());
    assert_eq!(answer.status, 422, "{}", answer.text);
    let diagnostic = &answer.json()["diagnostics"][0];
    assert_eq!(diagnostic["file"], "<request>.repo");
    assert_eq!(diagnostic["line"], 3);

    let answer = compose(&format!(
        r#"{{"workspaceName": "{}", "metadata": {{"name": "x"}}}}"#,
        "w".repeat(5000)
    ));
    assert_eq!(answer.status, 413);
    assert_eq!(answer.json()["error"], "the body is larger than 4096 bytes");
}

#[test]
fn non_utf8_bodies_are_rejected() {
    let service = running();
    let body: &[u8] = b"{\"workspaceName\": \"\xff\"}";
    let mut stream = std::net::TcpStream::connect(service.address).expect("connect");
    write!(
        stream,
        "POST /v1/compose HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .expect("head");
    stream.write_all(body).expect("body");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("reply");
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert!(
        reply.contains("not UTF-8 text (invalid byte at offset 19)"),
        "{reply}"
    );
}

#[test]
fn compose_failures_are_422_with_positions_in_the_catalogue() {
    let broken = catalogue("v1").replace(
        "description: Python for the web",
        "description: Python for the web\n    subdomain: !cel \"metadata.repoName.size() > 3 ? metadata.repoName : [1]\"",
    );
    let service = Running::start(&[("all.yaml", &broken)]);
    // The test scope passes (its repoName is long); this request's does not.
    let mut request = compose_body("python-web");
    request = request.replace("\"repoName\":\"analysis\"", "\"repoName\":\"ab\"");
    let answer = service.post("/v1/compose", Some(ALICE), &request);
    assert_eq!(answer.status, 422, "{}", answer.text);
    let diagnostic = &answer.json()["diagnostics"][0];
    assert!(
        diagnostic["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("all.yaml"))
    );
    assert_eq!(diagnostic["line"], 14);
    assert_eq!(diagnostic["path"], "subdomain");
}

#[test]
fn status_health_readiness_and_metrics() {
    let service = running();
    let status = service.status();
    assert_eq!(status["ready"], true);
    assert_eq!(status["generation"], 1);
    assert_eq!(status["blueprints"], 3);
    assert!(
        status["digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:"))
    );
    assert!(status["lastReloadError"].is_null());
    assert_eq!(status["users"]["count"], 2);
    assert_eq!(service.get("/readyz", None).json()["ready"], true);

    service.post("/v1/compose", Some(ALICE), &compose_body("python-data"));
    service.get("/v1/blueprints", None);
    let metrics = service.get("/metrics", None).text;
    for line in [
        r#"strata_http_requests_total{method="POST",route="/v1/compose",status="200"} 1"#,
        r#"strata_http_requests_total{method="GET",route="/v1/blueprints",status="401"} 1"#,
        r#"strata_reloads_total{target="catalogue",outcome="loaded"} 1"#,
        r#"strata_reloads_total{target="users",outcome="loaded"} 1"#,
        "strata_catalogue_generation 1",
        "strata_catalogue_blueprints 3",
    ] {
        assert!(
            metrics.lines().any(|l| l == line),
            "no `{line}` in\n{metrics}"
        );
    }
    assert!(metrics.contains(r#"strata_http_request_duration_seconds_count{method="POST",route="/v1/compose",status="200"} 1"#));
    assert_eq!(service.get("/nowhere", None).status, 404);
}

#[test]
fn an_invalid_catalogue_at_start_is_not_ready_until_fixed() {
    let service = Running::start(&[("all.yaml", "blueprints: [{name: x}]\n")]);
    let ready = service.get("/readyz", None);
    assert_eq!(ready.status, 503);
    assert_eq!(ready.json()["waitingFor"], serde_json::json!(["catalogue"]));
    assert_eq!(service.get("/v1/blueprints", Some(ALICE)).status, 503);
    let status = service.status();
    assert!(status["generation"].is_null());
    assert_eq!(
        status["lastReloadError"]["diagnostics"][0]["code"],
        "schema/required"
    );
    // Only admins see the diagnostics themselves.
    let seen_by_alice = service.get("/v1/status", Some(ALICE)).json();
    assert_eq!(seen_by_alice["lastReloadError"]["errors"], 1);
    assert!(
        seen_by_alice["lastReloadError"]
            .get("diagnostics")
            .is_none()
    );

    support::replace(&service.catalogue.join("all.yaml"), &catalogue("v1"));
    service.wait_for_generation(1);
    assert_eq!(service.get("/readyz", None).status, 200);
}

#[test]
fn shutdown_lets_requests_in_flight_finish() {
    let service = running();
    let body = compose_body("python-data");
    let (head, tail) = body.split_at(body.len() / 2);
    let mut stream = std::net::TcpStream::connect(service.address).expect("connect");
    write!(
        stream,
        "POST /v1/compose HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{head}",
        body.len()
    )
    .expect("the first half");
    stream.flush().expect("flush");
    // Let the server start reading the request before the signal.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let address = service.address;
    let stopping = std::thread::spawn(move || service.shut_down());
    std::thread::sleep(std::time::Duration::from_millis(200));
    stream.write_all(tail.as_bytes()).expect("the second half");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("the reply");
    assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    assert!(reply.contains("\"hostname\": \"python-data-alice\""));
    stopping
        .join()
        .expect("no panic")
        .expect("serve ends cleanly");
    // New connections are refused once it has stopped.
    assert!(std::net::TcpStream::connect(address).is_err());
}

#[test]
fn a_request_that_takes_too_long_is_cut_off() {
    let service = Running::start_with(&[("all.yaml", &catalogue("v1"))], |config| {
        config.request_timeout = std::time::Duration::from_millis(300);
    });
    // The body never arrives in full.
    let mut stream = std::net::TcpStream::connect(service.address).expect("connect");
    write!(
        stream,
        "POST /v1/compose HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"work"
    )
    .expect("a part of the request");
    stream
        .set_read_timeout(Some(support::PATIENCE))
        .expect("a read timeout");
    let mut reply = [0u8; 64];
    let read = stream
        .read(&mut reply)
        .expect("an answer before the body ends");
    let reply = String::from_utf8_lossy(&reply[..read]);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    let metrics = service.get("/metrics", None).text;
    assert!(metrics.contains(
        r#"strata_http_requests_total{method="POST",route="/v1/compose",status="408"} 1"#
    ));
}

#[test]
fn a_connection_that_never_finishes_its_headers_is_closed() {
    let service = Running::start_with(&[("all.yaml", &catalogue("v1"))], |config| {
        config.request_timeout = std::time::Duration::from_millis(300);
    });
    let mut stream = std::net::TcpStream::connect(service.address).expect("connect");
    write!(stream, "GET /healthz HTTP/1.1\r\nHost: x\r\n").expect("half the headers");
    stream
        .set_read_timeout(Some(support::PATIENCE))
        .expect("a read timeout");
    let mut reply = Vec::new();
    // The server closes the connection (answering 408 or nothing); a read
    // that timed out instead would be an error here.
    stream
        .read_to_end(&mut reply)
        .expect("the connection is closed");
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.is_empty() || reply.starts_with("HTTP/1.1 408"),
        "{reply}"
    );
    // The service itself is fine.
    assert_eq!(service.get("/healthz", None).status, 200);
}

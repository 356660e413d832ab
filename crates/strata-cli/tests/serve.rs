//! `strata platform serve` through the binary: the bundled example served on
//! an ephemeral loopback port, composed over HTTP, stopped by SIGTERM.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

mod support;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(20);
const ADA: &str = "ada-example-token";

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/platform")
}

/// A service process, killed if the test ends before stopping it.
struct Service(Child);

impl Drop for Service {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// `strata platform serve` on the example catalogue, its JSON log lines
/// arriving on a channel.
fn serve() -> (Service, mpsc::Receiver<serde_json::Value>) {
    serve_in(&examples(), &[])
}

/// `strata platform serve` on `dir/catalogue` with `dir/users.yaml`, and
/// `options`.
fn serve_in(
    dir: &std::path::Path,
    options: &[&str],
) -> (Service, mpsc::Receiver<serde_json::Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["platform", "serve", "catalogue", "--users", "users.yaml"])
        .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
        .args(options)
        .current_dir(dir)
        .env("RUST_LOG", "debug")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strata starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let event = serde_json::from_str(&line)
                .unwrap_or_else(|_| serde_json::json!({ "unparsed": line }));
            if lines.send(event).is_err() {
                break;
            }
        }
    });
    (Service(child), received)
}

/// An HTTP client that reads every status as an answer.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(PATIENCE))
        .build()
        .into()
}

/// The next log event for which `pick` gives something, and every event before it.
fn wait_for<T>(
    logs: &mpsc::Receiver<serde_json::Value>,
    seen: &mut Vec<serde_json::Value>,
    pick: impl Fn(&serde_json::Value) -> Option<T>,
) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = logs
            .recv_timeout(left)
            .expect("the log line arrives in time");
        let picked = pick(&event);
        seen.push(event);
        if let Some(picked) = picked {
            return picked;
        }
    }
}

#[test]
fn serves_the_example_and_stops_on_sigterm() {
    let (mut service, logs) = serve();
    let mut seen = Vec::new();
    let address = wait_for(&logs, &mut seen, |event| {
        (event["message"] == "listening").then(|| event["address"].as_str().map(str::to_owned))
    })
    .expect("the address is logged");
    let reload = seen
        .iter()
        .find(|e| e["message"] == "catalogue reload")
        .expect("the first load is logged");
    assert_eq!(reload["outcome"], "loaded");
    assert_eq!(reload["generation"], 1);

    let agent = agent();
    let body = std::fs::read_to_string(examples().join("compose.json")).expect("compose.json");
    let mut response = agent
        .post(&format!("http://{address}/v1/compose"))
        .header("Authorization", &format!("Bearer {ADA}"))
        .header("Accept", "application/yaml")
        .send(body.as_bytes())
        .expect("the service answers");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response
            .headers()
            .get("x-strata-generation")
            .map(ureq::http::HeaderValue::as_bytes),
        Some(&b"1"[..])
    );
    let text = response.body_mut().read_to_string().expect("text");
    assert!(text.starts_with("name: data-science\n"), "{text}");
    assert!(text.contains("hostname: data-science-ada\n"), "{text}");
    let forbidden = agent
        .post(&format!("http://{address}/v1/compose"))
        .header("Authorization", &format!("Bearer {ADA}"))
        .send(r#"{"blueprint": "go-services", "workspaceName": "w", "metadata": {"name": "w"}}"#)
        .expect("the service answers");
    assert_eq!(forbidden.status().as_u16(), 403);

    let terminated = Command::new("kill")
        .args(["-TERM", &service.0.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(terminated.success());
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = service.0.try_wait().expect("the child can be waited for") {
            break status;
        }
        assert!(Instant::now() < deadline, "the service did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    wait_for(&logs, &mut seen, |event| {
        (event["message"] == "stopped").then_some(())
    });
    // Requests were logged at debug level; the token never was.
    assert!(
        seen.iter()
            .any(|e| e["message"] == "request" && e["route"] == "/v1/compose")
    );
    let everything: String = seen.iter().map(ToString::to_string).collect();
    assert!(!everything.contains(ADA));
}

#[test]
fn a_port_in_use_is_an_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = taken.local_addr().expect("its address").to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "platform",
            "serve",
            "catalogue",
            "--users",
            "users.yaml",
            "--listen",
            &address,
        ])
        .current_dir(examples())
        .env("NO_COLOR", "1")
        .output()
        .expect("strata runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on {address}")),
        "{stderr}"
    );
}

/// Replicas agree: two servers on the same catalogue report the same
/// digest, and after the same edit both load it and report the same new
/// digest.
#[test]
fn two_servers_on_one_catalogue_converge_on_one_digest() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    support::copy_tree(&examples(), scratch.path());
    let started: Vec<_> = (0..2).map(|_| serve_in(scratch.path(), &[])).collect();
    let mut addresses = Vec::new();
    for (_, logs) in &started {
        let mut seen = Vec::new();
        let address = wait_for(logs, &mut seen, |event| {
            (event["message"] == "listening").then(|| event["address"].as_str().map(str::to_owned))
        })
        .expect("the address is logged");
        addresses.push(address);
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(PATIENCE))
        .build()
        .into();
    let status = |address: &str| -> serde_json::Value {
        let mut response = agent
            .get(&format!("http://{address}/v1/status"))
            .header("Authorization", &format!("Bearer {ADA}"))
            .call()
            .expect("the status");
        serde_json::from_str(&response.body_mut().read_to_string().expect("text")).expect("JSON")
    };
    let before: Vec<_> = addresses.iter().map(|address| status(address)).collect();
    assert_eq!(before[0]["digest"], before[1]["digest"], "{before:?}");
    assert!(before[0]["digest"].is_string());

    let edited = scratch.path().join("catalogue/blueprints/go-services.yaml");
    let text = std::fs::read_to_string(&edited).expect("the blueprint");
    std::fs::write(
        &edited,
        text.replace("integration tests", "integration tests, edited"),
    )
    .expect("the edit");
    for (_, logs) in &started {
        let mut seen = Vec::new();
        let outcome = wait_for(logs, &mut seen, |event| {
            (event["message"] == "catalogue reload" && event["generation"] == 2)
                .then(|| event["outcome"].clone())
        });
        assert_eq!(outcome, "loaded");
    }
    let after: Vec<_> = addresses.iter().map(|address| status(address)).collect();
    assert_eq!(after[0]["generation"], 2);
    assert_eq!(after[0]["digest"], after[1]["digest"], "{after:?}");
    assert_ne!(after[0]["digest"], before[0]["digest"]);
}

/// The example's `data-science.yaml` rewritten in place every 50 ms for
/// 2.5 s (truncated, then written 5 ms later, so that it is empty for a
/// moment) while ada composes it over HTTP, with a reload at least every
/// 100 ms (`--max-wait`): every answer is a 200 with one of the versions
/// written, a reload that read the file mid-rewrite is logged as
/// `unsettled` and not served, and the last version is served once the
/// edits stop. (`--settle` is longer than the writer's 5 ms pause even as a
/// loaded machine's scheduler stretches it.)
#[test]
fn a_file_rewritten_in_place_is_never_served_half_written() {
    const REWRITES: u32 = 50;
    let scratch = tempfile::tempdir().expect("a scratch folder");
    support::copy_tree(&examples(), scratch.path());
    let options = [
        "--debounce",
        "100ms",
        "--max-wait",
        "100ms",
        "--settle",
        "250ms",
    ];
    let (_service, logs) = serve_in(scratch.path(), &options);
    let mut seen = Vec::new();
    let address = wait_for(&logs, &mut seen, |event| {
        (event["message"] == "listening").then(|| event["address"].as_str().map(str::to_owned))
    })
    .expect("the address is logged");
    let agent = agent();
    let body = std::fs::read_to_string(examples().join("compose.json")).expect("compose.json");
    // The status and the memory of the composed blueprint.
    let compose = || {
        let mut response = agent
            .post(&format!("http://{address}/v1/compose"))
            .header("Authorization", &format!("Bearer {ADA}"))
            .send(body.as_bytes())
            .expect("the service answers");
        let text = response.body_mut().read_to_string().expect("text");
        let memory = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|json| json["resources"]["memory"].as_str().map(str::to_owned));
        (response.status().as_u16(), memory.unwrap_or(text))
    };
    let edited = scratch
        .path()
        .join("catalogue/blueprints/data-science.yaml");
    let original = std::fs::read_to_string(&edited).expect("the blueprint");
    assert!(original.contains("memory: 8Gi"));
    let writer = std::thread::spawn(move || {
        use std::io::Write as _;
        for version in 1..=REWRITES {
            let mut file = std::fs::File::create(&edited).expect("the file is truncated");
            std::thread::sleep(Duration::from_millis(5));
            let text = original.replace("memory: 8Gi", &format!("memory: {version}Gi"));
            file.write_all(text.as_bytes())
                .expect("the file is written");
            drop(file);
            std::thread::sleep(Duration::from_millis(45));
        }
    });
    let mut answers = Vec::new();
    while !writer.is_finished() {
        answers.push(compose());
    }
    writer.join().expect("the writer does not panic");
    let written: Vec<String> = (1..=REWRITES)
        .chain([8])
        .map(|version| format!("{version}Gi"))
        .collect();
    let torn: Vec<_> = answers
        .iter()
        .filter(|(status, memory)| *status != 200 || !written.contains(memory))
        .collect();
    assert!(torn.is_empty(), "of {} answers: {torn:?}", answers.len());
    let deadline = Instant::now() + PATIENCE;
    while compose() != (200, format!("{REWRITES}Gi")) {
        assert!(Instant::now() < deadline, "the last version is served");
        std::thread::sleep(Duration::from_millis(20));
    }
    seen.extend(logs.try_iter());
    let unsettled = seen
        .iter()
        .find(|e| e["message"] == "catalogue reload" && e["outcome"] == "unsettled")
        .expect("a reload that read the file mid-rewrite is logged");
    assert!(
        unsettled["changed"]
            .as_str()
            .is_some_and(|changed| changed.ends_with("data-science.yaml")),
        "{unsettled}"
    );
}

//! Fuzzes the service's compose endpoint: arbitrary bytes are the body of
//! `POST /v1/compose` from a signed-in developer, as JSON or as YAML (the
//! first byte chooses), against a small catalogue loaded once. The body is
//! parsed, checked, composed and rendered; every answer is a 200 or a 4xx
//! with diagnostics, never a panic and never a 500.
//!
//! Run from this directory with `cargo fuzz run compose` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use std::sync::{Arc, LazyLock};

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use libfuzzer_sys::fuzz_target;
use strata_server::{Config, Service, router};
use tower::ServiceExt as _;

/// `alice` may use `python-*`; her token is `alice-token`.
const USERS: &str = "users:
  - username: alice
    tokenSha256: 9c220f200955d76c0a38d308225e0ef10c5f971acaf2f8d1d8f732affa5bd1dc
    uid: 1000
    gid: 1000
    roles: [developer]
    allowedBlueprints: [python-*]
";

const CATALOGUE: &str = "blueprints:
  - name: base
    isTemplate: true
    image: registry.example.com/base:1
    storages:
      data: {type: local, path: /data, fsOwnerUid: !cel \"user.uid\"}
  - name: python-data
    template: base
    hostname: !cel \"metadata.name + '-' + user.username + '.example.com'\"
    env:
      REPO: !cel \"metadata.repoOwner + '/' + metadata.repoName\"
  - name: ops-console
    template: base
";

/// A runtime and the service's router over the catalogue, made once.
static SERVICE: LazyLock<(tokio::runtime::Runtime, Router)> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("strata-fuzz-compose-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("catalogue")).expect("a scratch folder");
    std::fs::write(dir.join("catalogue/blueprints.yaml"), CATALOGUE).expect("the catalogue");
    std::fs::write(dir.join("users.yaml"), USERS).expect("the users file");
    let service = Service::new(Config::new(dir.join("catalogue"), dir.join("users.yaml")));
    assert!(service.reload_users(), "the users file loads");
    let _ = service.reload_catalogue();
    assert!(service.generation().is_some(), "the catalogue loads");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    (runtime, router(Arc::new(service)))
});

fuzz_target!(|data: &[u8]| {
    let (runtime, app) = &*SERVICE;
    let content_type = if data.first().is_some_and(|byte| byte % 2 == 0) {
        "application/json"
    } else {
        "application/yaml"
    };
    let request = Request::post("/v1/compose")
        .header("Authorization", "Bearer alice-token")
        .header("Content-Type", content_type)
        .body(Body::from(data.to_vec()))
        .expect("a request");
    let response = runtime
        .block_on(app.clone().oneshot(request))
        .expect("the router answers");
    let status = response.status().as_u16();
    assert!(
        status == 200 || (400..500).contains(&status),
        "compose answered {status} to {:?}",
        String::from_utf8_lossy(data)
    );
});

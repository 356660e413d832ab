//! `deploy/`, Strata's own deployment as a components application: both
//! environments render, every object passes `kubernetes-validate --strict`
//! (from the Python package index, installed in a virtual environment
//! below the target folder when missing) for the Kubernetes version the
//! manual names (`docs/src/running-in-a-cluster.md`), and the objects say
//! what that page says of them.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

#[path = "support/python.rs"]
mod python;

use std::path::PathBuf;
use std::process::Command;

/// The Kubernetes version the manifests are checked against (the manual's,
/// in `docs/src/running-in-a-cluster.md`).
const KUBERNETES: &str = "1.33.0";

fn deploy() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../deploy")
}

/// `strata components render deploy --env ENV -o json`, as objects.
fn render(environment: &str) -> (String, Vec<serde_json::Value>) {
    let render = |format: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["components", "render"])
            .arg(deploy())
            .args(["--env", environment, "-o", format])
            .output()
            .expect("strata runs");
        assert!(output.status.success(), "{environment}: {output:?}");
        String::from_utf8(output.stdout).expect("UTF-8")
    };
    let objects = serde_json::from_str(&render("json")).expect("a JSON array");
    (render("yaml"), objects)
}

fn find<'a>(objects: &'a [serde_json::Value], kind: &str) -> Option<&'a serde_json::Value> {
    objects.iter().find(|object| object["kind"] == kind)
}

#[test]
fn both_environments_render_valid_kubernetes_objects() {
    let validate = python::tool("kubernetes-validate==1.37.0", "kubernetes-validate");
    let scratch = tempfile::tempdir().expect("a scratch folder");
    for environment in ["dev", "prod"] {
        let (yaml, objects) = render(environment);
        let file = scratch.path().join(format!("{environment}.yaml"));
        std::fs::write(&file, yaml).expect("written");
        let checked = Command::new(&validate)
            .args(["--strict", "--quiet", "-k", KUBERNETES])
            .arg(&file)
            .output()
            .expect("kubernetes-validate runs");
        assert!(checked.status.success(), "{environment}: {checked:?}");
        let kinds: Vec<&str> = objects.iter().filter_map(|o| o["kind"].as_str()).collect();
        for kind in [
            "Deployment",
            "Service",
            "PodDisruptionBudget",
            "NetworkPolicy",
            "HorizontalPodAutoscaler",
        ] {
            assert!(kinds.contains(&kind), "{environment}: {kinds:?}");
        }
        // The users file is referenced, never contained.
        assert!(!kinds.contains(&"Secret"), "{environment}: {kinds:?}");
        let pod = &find(&objects, "Deployment").expect("a Deployment")["spec"]["template"]["spec"];
        let container = &pod["containers"][0];
        assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz");
        assert_eq!(container["livenessProbe"]["httpGet"]["path"], "/healthz");
        let security = &container["securityContext"];
        assert_eq!(security["readOnlyRootFilesystem"], true);
        assert_eq!(security["runAsNonRoot"], true);
        assert_eq!(security["capabilities"]["drop"], serde_json::json!(["ALL"]));
        assert_eq!(security["seccompProfile"]["type"], "RuntimeDefault");
        assert!(container["resources"]["limits"]["memory"].is_string());
        let volumes = pod["volumes"].as_array().expect("volumes");
        assert!(
            volumes
                .iter()
                .any(|v| v["secret"]["secretName"] == "strata-users")
        );
    }
    // prod: replicas, and the catalogue as a ConfigMap; dev: a git-sync sidecar.
    let (_, prod) = render("prod");
    assert!(
        find(&prod, "Deployment").expect("a Deployment")["spec"]["replicas"].as_u64() >= Some(2)
    );
    let catalogue = find(&prod, "ConfigMap").expect("the catalogue");
    assert!(catalogue["data"]["templates__base.yaml"].is_string());
    let (_, dev) = render("dev");
    assert!(find(&dev, "ConfigMap").is_none());
    let containers =
        &find(&dev, "Deployment").expect("a Deployment")["spec"]["template"]["spec"]["containers"];
    assert_eq!(containers[1]["name"], "git-sync");

    // The validator is not blind: a misspelt field fails it.
    let bad = scratch.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {porst: []}\n",
    )
    .expect("written");
    let refused = Command::new(&validate)
        .args(["--strict", "--quiet", "-k", KUBERNETES])
        .arg(&bad)
        .output()
        .expect("kubernetes-validate runs");
    assert!(!refused.status.success(), "{refused:?}");
}

/// The catalogue the manifests ship is a valid catalogue.
#[test]
fn the_shipped_catalogue_checks() {
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["platform", "check"])
        .arg(deploy().join("catalogue"))
        .output()
        .expect("strata runs");
    assert!(output.status.success(), "{output:?}");
}

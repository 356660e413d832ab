//! `strata capabilities build` through the binary: the objects of the
//! build fixtures in their Kubernetes core kinds pass `kubernetes-validate
//! --strict` for Kubernetes 1.33 (installed from the Python package index
//! when missing); `--out-dir` writes one file, whole, named after the
//! Application, holding what standard output would; `-n` wins over the
//! Application's namespace; `-o json` is the same objects; a package
//! folder is read as its `app.yaml` would be; a build that fails writes
//! nothing.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

#[path = "support/python.rs"]
mod python;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Kubernetes version the core kinds are checked against.
const KUBERNETES: &str = "1.33.0";

/// The API groups of Kubernetes itself (custom resources are checked by
/// `custom_resources.rs`).
const CORE: &[&str] = &[
    "v1",
    "apps/v1",
    "batch/v1",
    "networking.k8s.io/v1",
    "autoscaling/v2",
    "policy/v1",
    "rbac.authorization.k8s.io/v1",
];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/capabilities")
        .join(name)
}

/// `strata capabilities build ARGS` in `folder`.
fn build(folder: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .current_dir(folder)
        .args(["capabilities", "build"])
        .args(args)
        .output()
        .expect("strata runs")
}

fn text(output: &Output) -> String {
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

#[test]
fn core_objects_are_valid_for_kubernetes() {
    let validate = python::tool("kubernetes-validate==1.37.0", "kubernetes-validate");
    let scratch = tempfile::tempdir().expect("a scratch folder");
    for name in [
        "build-workloads",
        "build-traits",
        "build-gateway",
        "build-kure-bugs-fixed",
    ] {
        let folder = fixture(name);
        let args: Vec<String> = std::fs::read_to_string(folder.join("args"))
            .expect("args")
            .lines()
            .skip(2)
            .map(str::to_owned)
            .chain(["-o".to_owned(), "json".to_owned()])
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let objects: Vec<serde_json::Value> =
            serde_json::from_str(&text(&build(&folder, &args))).expect("a JSON array");
        let core: Vec<&serde_json::Value> = objects
            .iter()
            .filter(|object| CORE.contains(&object["apiVersion"].as_str().unwrap_or_default()))
            .collect();
        assert!(core.len() > 3, "{name}: {core:?}");
        let file = scratch.path().join(format!("{name}.json"));
        let documents: Vec<String> = core
            .iter()
            .map(|object| serde_json::to_string(object).expect("JSON"))
            .collect();
        std::fs::write(&file, documents.join("\n---\n")).expect("written");
        let checked = Command::new(&validate)
            .args(["--strict", "--quiet", "-k", KUBERNETES])
            .arg(&file)
            .output()
            .expect("kubernetes-validate runs");
        assert!(checked.status.success(), "{name}: {checked:?}");
    }
}

#[test]
fn out_dir_holds_one_file_named_after_the_application() {
    let folder = fixture("build-workloads");
    let stdout = text(&build(&folder, &["app.yaml", "--profile", "cluster.yaml"]));
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let out = scratch.path().join("rendered/deep");
    let output = build(
        &folder,
        &["app.yaml", "--profile", "cluster.yaml", "--out-dir"],
    );
    assert!(!output.status.success(), "--out-dir needs a value");
    let written = build(
        &folder,
        &[
            "app.yaml",
            "--profile",
            "cluster.yaml",
            "--out-dir",
            out.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(text(&written), "", "nothing on standard output");
    let names: Vec<String> = std::fs::read_dir(&out)
        .expect("the folder is made")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(names, ["bookshop.yaml"]);
    assert_eq!(
        std::fs::read_to_string(out.join("bookshop.yaml")).expect("the file"),
        stdout
    );
    // A file where the folder should be: an `io/write` error, exit 1.
    let blocked = scratch.path().join("blocked");
    std::fs::write(&blocked, "").expect("written");
    let refused = build(
        &folder,
        &[
            "app.yaml",
            "--profile",
            "cluster.yaml",
            "--out-dir",
            blocked.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("io/write"), "{stderr}");
}

#[test]
fn namespace_flag_wins_and_json_is_the_same_objects() {
    let folder = fixture("build-workloads");
    let yaml = text(&build(
        &folder,
        &["app.yaml", "--profile", "cluster.yaml", "-n", "elsewhere"],
    ));
    assert!(yaml.contains("namespace: elsewhere"));
    assert!(!yaml.contains("namespace: shop"));
    let json: Vec<serde_json::Value> = serde_json::from_str(&text(&build(
        &folder,
        &[
            "app.yaml",
            "--profile",
            "cluster.yaml",
            "-n",
            "elsewhere",
            "-o",
            "json",
        ],
    )))
    .expect("a JSON array");
    assert_eq!(json.len(), yaml.matches("\napiVersion: ").count() + 1);
    assert!(
        json.iter()
            .all(|object| object["metadata"]["namespace"] == "elsewhere")
    );
}

#[test]
fn a_package_folder_builds_as_its_app_file_does() {
    let folder = fixture("build-workloads");
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let package = scratch.path().join("bookshop");
    std::fs::create_dir(&package).expect("made");
    std::fs::copy(folder.join("app.yaml"), package.join("app.yaml")).expect("copied");
    // Other files in the folder are not read.
    std::fs::write(package.join("notes.yaml"), "not: [valid").expect("written");
    let from_file = text(&build(&folder, &["app.yaml", "--profile", "cluster.yaml"]));
    let from_folder = text(&build(
        &folder,
        &[
            "--profile",
            "cluster.yaml",
            package.to_str().expect("utf-8"),
        ],
    ));
    assert_eq!(from_file, from_folder);
}

#[test]
fn a_failed_build_writes_nothing() {
    let folder = fixture("build-errors");
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let output = build(
        &folder,
        &[
            "app.yaml",
            "--profile",
            "cluster.yaml",
            "--out-dir",
            scratch.path().to_str().expect("utf-8"),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert_eq!(
        std::fs::read_dir(scratch.path()).expect("listed").count(),
        0
    );
}

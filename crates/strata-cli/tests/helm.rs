//! qbec's two ways to Helm through the binary, with a program written by
//! the test standing in for `helm`: a `helm3://` data source and the
//! `expandHelmTemplate` native. The stand-in logs the folder it ran in,
//! its arguments and its input (a file per run: runs may be concurrent), and writes two documents (and an empty
//! one) as `helm template` does.

#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const FAKE_HELM: &str = r#"#!/bin/sh
{
  echo "cwd=$(pwd)"
  for arg in "$@"; do echo "arg=$arg"; done
  echo "stdin=$(cat)"
} > "$HELM_LOG/run-$$"
cat <<'YAML'
---
# Source: demo/templates/config.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: from-helm
immutable: yes
---
---
# Source: demo/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: from-helm
spec:
  ports:
    - port: 80
YAML
"#;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().expect("a folder")).expect("a folder");
    fs::write(path, text).expect("a file");
}

/// An application with a `helm3://` source read by `chart`, and `native`,
/// which expands a local chart through `expandHelmTemplate`.
fn application(root: &Path) {
    write(
        root,
        "qbec.yaml",
        "apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  dataSources:
    - helm3://helm?configVar=helmSetup
  environments:
    dev:
      server: https://dev.example.invalid
      defaultNamespace: shop-dev
  vars:
    computed:
      - name: helmSetup
        code: '{}'
      - name: apacheConfig
        code: |
          {
            name: 'mock-release',
            options: { repo: 'https://charts.example.com/stable', version: '11.2.17', includeCrds: true, apiVersions: ['a/v1', 'b/v2'], password: 'hunter2' },
            values: { key: 'value' },
          }
      - name: urlConfig
        code: '{ options: { namespace: \"edge\" } }'
",
    );
    write(
        root,
        "components/chart.jsonnet",
        "import 'data://helm/apache?config-from=apacheConfig'\n",
    );
    write(
        root,
        "components/url.jsonnet",
        "[o + { metadata+: { name: 'by-url-' + super.name } } for o in import 'data://helm/charts.example.com/demo-1.0.0.tgz?config-from=urlConfig']\n",
    );
    write(
        root,
        "components/native/index.jsonnet",
        "[o + { metadata+: { name: 'native-' + super.name } } for o in std.native('expandHelmTemplate')('./charts/redis', { name: 'redis', replicas: 2 }, { namespace: 'cache', thisFile: std.thisFile, execute: ['templates/a.yaml'], verbose: true })]\n",
    );
}

/// A folder holding the stand-in `helm`.
fn fake_helm(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).expect("a folder");
    let helm = bin.join("helm");
    fs::write(&helm, FAKE_HELM).expect("the stand-in");
    fs::set_permissions(&helm, fs::Permissions::from_mode(0o755)).expect("mode");
    bin
}

fn render(root: &Path, path: &Path, log: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["components", "render"])
        .arg(root)
        .args(["--env", "dev"])
        .args(extra)
        .env("PATH", path)
        .env("HELM_LOG", log)
        .output()
        .expect("strata runs")
}

/// The stand-in's runs, each its log's lines.
fn runs(log: &Path) -> Vec<Vec<String>> {
    fs::read_dir(log)
        .expect("the log folder")
        .map(|entry| {
            fs::read_to_string(entry.expect("a run").path())
                .expect("a run's log")
                .lines()
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

#[test]
fn helm_runs_with_qbecs_arguments_and_its_documents_are_the_objects() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    // As the program sees its folder: a temporary folder may be behind a
    // symlink.
    let app = dir.path().canonicalize().expect("a folder").join("app");
    application(&app);
    let bin = fake_helm(dir.path());
    let log = dir.path().join("helm-runs");
    fs::create_dir(&log).expect("a folder");
    let path = std::env::join_paths([bin.as_path(), Path::new("/usr/bin"), Path::new("/bin")])
        .expect("a PATH");

    let output = render(&app, Path::new(&path), &log, &["-c", "chart", "-o", "json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let objects: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON objects");
    let objects = objects.as_array().expect("an array");
    assert_eq!(objects.len(), 2, "the empty document is left out");
    assert_eq!(objects[0]["kind"], "ConfigMap");
    assert_eq!(objects[0]["immutable"], true, "YAML 1.1, as qbec reads it");
    assert_eq!(objects[1]["spec"]["ports"][0]["port"], 80);
    assert!(!stderr.contains("hunter2"), "the password is not shown");
    assert_eq!(
        runs(&log),
        [[
            format!("cwd={}", app.display()),
            "arg=template".to_owned(),
            "arg=--debug".to_owned(),
            "arg=--namespace=shop-dev".to_owned(),
            "arg=--api-versions=a/v1".to_owned(),
            "arg=--api-versions=b/v2".to_owned(),
            "arg=--include-crds".to_owned(),
            "arg=--password=hunter2".to_owned(),
            "arg=--repo=https://charts.example.com/stable".to_owned(),
            "arg=--version=11.2.17".to_owned(),
            "arg=mock-release".to_owned(),
            "arg=apache".to_owned(),
            "arg=--values".to_owned(),
            "arg=-".to_owned(),
            r#"stdin={"key":"value"}"#.to_owned(),
        ]]
    );

    fs::remove_dir_all(&log).expect("reset");
    fs::create_dir(&log).expect("a folder");
    let output = render(&app, Path::new(&path), &log, &["-c", "url", "-c", "native"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("name: by-url-from-helm"), "{stdout}");
    assert!(stdout.contains("name: native-from-helm"), "{stdout}");
    assert!(
        stderr.contains("[helm template] cd ")
            && stderr.contains(" && helm template ./charts/redis --execute"),
        "`verbose` reports the command: {stderr}"
    );
    let runs = runs(&log);
    let url = runs
        .iter()
        .find(|run| run.iter().any(|line| line.contains("demo-1.0.0.tgz")))
        .expect("the chart named by its URL");
    assert_eq!(
        url[1..],
        [
            "arg=template",
            "arg=--debug",
            "arg=--namespace=edge",
            "arg=https://charts.example.com/demo-1.0.0.tgz",
            "arg=--values",
            "arg=-",
            "stdin=null",
        ]
    );
    let native = runs
        .iter()
        .find(|run| run.iter().any(|line| line == "arg=./charts/redis"))
        .expect("the native's run");
    assert_eq!(
        native[..10],
        [
            format!("cwd={}", app.join("components/native").display()),
            "arg=template".to_owned(),
            "arg=./charts/redis".to_owned(),
            "arg=--execute".to_owned(),
            "arg=templates/a.yaml".to_owned(),
            "arg=--namespace".to_owned(),
            "arg=cache".to_owned(),
            "arg=--values".to_owned(),
            "arg=-".to_owned(),
            "stdin=name: redis".to_owned(),
        ]
    );
    assert_eq!(native[10], "replicas: 2");
}

#[test]
fn without_helm_each_use_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let app = dir.path().join("app");
    application(&app);
    let empty = dir.path().join("empty");
    fs::create_dir_all(&empty).expect("a folder");
    let log = dir.path().join("helm-runs");

    let output = render(&app, &empty, &log, &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "the command `helm` is not found (helm3:// data sources run Helm 3's `helm template`"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("expandHelmTemplate: `helm` is not found on PATH"),
        "{stderr}"
    );
    assert!(!log.exists(), "nothing ran");
}

//! qbec's `exec://` data sources through the binary: a source runs only
//! when a selected component imports from it, and once per path per render
//! however many components import it.

#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;

/// An application whose data source appends a line to `runs` at each run;
/// `web` and `api` import the same path, `plain` imports nothing.
fn application(root: &Path, runs: &Path) {
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        fs::create_dir_all(path.parent().expect("a folder")).expect("a folder");
        fs::write(path, text).expect("a file");
    };
    write(
        "qbec.yaml",
        &format!(
            "apiVersion: qbec.io/v1alpha1\nkind: App\nmetadata:\n  name: shop\nspec:\n  dataSources:\n    - exec://settings?configVar=settingsConfig\n  environments:\n    dev:\n      server: https://dev.example.invalid\n  vars:\n    computed:\n      - name: settingsConfig\n        code: \"{{ command: 'ds.sh', env: {{ RUNS: '{}' }} }}\"\n",
            runs.display()
        ),
    );
    write(
        "ds.sh",
        "#!/bin/sh\necho \"$__DS_PATH__\" >> \"$RUNS\"\necho '{\"replicas\": 3}'\n",
    );
    fs::set_permissions(root.join("ds.sh"), fs::Permissions::from_mode(0o755)).expect("mode");
    for name in ["web", "api"] {
        write(
            &format!("components/{name}.jsonnet"),
            &format!(
                "{{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: '{name}' }}, data: {{ replicas: std.toString((import 'data://settings/shared').replicas) }} }}"
            ),
        );
    }
    write(
        "components/plain.jsonnet",
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' } }",
    );
}

fn render(root: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["components", "render"])
        .arg(root)
        .args(["--env", "dev"])
        .args(extra)
        .output()
        .expect("strata runs")
}

#[test]
fn a_data_source_runs_once_and_only_for_its_readers() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let app = dir.path().join("app");
    let runs = dir.path().join("runs.txt");
    application(&app, &runs);

    let output = render(&app, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.matches("replicas: \"3\"").count(), 2, "{stdout}");
    let ran = fs::read_to_string(&runs).expect("the source ran");
    assert_eq!(
        ran, "/shared\n",
        "one run for two components importing one path"
    );

    fs::remove_file(&runs).expect("reset");
    let output = render(&app, &["-c", "plain"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !runs.exists(),
        "a render that imports nothing from the source does not run it"
    );
}

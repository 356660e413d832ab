//! Every example file of every dialect passes its dialect's schema (`strata
//! <dialect> schema ...`) in an independent validator, as an editor that
//! knows only the schema would check it: `check-jsonschema` (Python),
//! installed in a virtual environment below the target folder when it is
//! not there. Tags read as their plain values (`support/yaml_to_json.py`),
//! as yaml-language-server reads the custom tags the manual says to
//! declare (`docs/src/editor-setup.md`).

#[path = "support/python.rs"]
mod python;

use std::path::PathBuf;
use std::process::Command;

/// The examples (and `deploy/`), each file with the schema command it is
/// checked by.
const CASES: &[(&[&str], &[&str])] = &[
    (
        &["platform", "schema", "blueprint"],
        &[
            "platform/catalogue/blueprints/data-science.yaml",
            "platform/catalogue/blueprints/go-services.yaml",
            "platform/catalogue/templates/base.yaml",
            "platform/catalogue/templates/languages.yaml",
            "../deploy/catalogue/templates/base.yaml",
            "../deploy/catalogue/blueprints/workspaces.yaml",
        ],
    ),
    (
        &["platform", "schema", "repo"],
        &["platform/repo/.k8shell.yaml"],
    ),
    (&["platform", "schema", "users"], &["platform/users.yaml"]),
    (
        &["platform", "schema", "compose"],
        &["platform/compose.json"],
    ),
    (
        &["components", "schema"],
        &["components/qbec.yaml", "../deploy/qbec.yaml"],
    ),
    (
        &["features", "schema", "blueprint"],
        &["features/contexts/_template/blueprint.yaml"],
    ),
    (
        &["features", "schema", "feature"],
        &[
            "features/contexts/_template/features/aws.yaml",
            "features/contexts/_template/features/local.yaml",
            "features/contexts/_template/features/observability/stack.yaml",
            "features/contexts/_template/features/policy.yaml",
            "features/contexts/_template/features/sizing.yaml",
        ],
    ),
    (
        &["capabilities", "schema", "profile"],
        &[
            "capabilities/gateway-cluster.yaml",
            "capabilities/ingress-cluster.yaml",
        ],
    ),
    (
        &["capabilities", "schema", "definition"],
        &[
            "capabilities/log-shipper.yaml",
            "capabilities/shop/definitions/redis-sidecar.yaml",
        ],
    ),
    (
        &["capabilities", "schema", "application"],
        &["capabilities/shop/app.yaml"],
    ),
    (
        &["spec", "schema"],
        &["spec/blueprint.yaml", "spec/core-infra.yaml"],
    ),
];

#[test]
fn every_example_passes_its_schema_in_an_independent_validator() {
    let tool = python::tool("check-jsonschema==0.29.4", "check-jsonschema");
    let python = tool.with_file_name("python");
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let converter = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/yaml_to_json.py");
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let mut failures = Vec::new();
    for (index, (command, files)) in CASES.iter().enumerate() {
        let schema = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(*command)
            .output()
            .expect("strata runs");
        assert!(schema.status.success(), "{command:?}");
        let schema_file = scratch.path().join(format!("{index}.schema.json"));
        std::fs::write(&schema_file, &schema.stdout).expect("the schema is written");
        let json_dir = scratch.path().join(index.to_string());
        let status = Command::new(&python)
            .arg(&converter)
            .arg(&json_dir)
            .args(files.iter().map(|file| examples.join(file)))
            .status()
            .expect("the converter runs");
        assert!(status.success(), "converting {files:?}");
        let mut documents: Vec<PathBuf> = std::fs::read_dir(&json_dir)
            .expect("the converted files")
            .map(|entry| entry.expect("an entry").path())
            .collect();
        documents.sort();
        assert!(documents.len() >= files.len(), "{files:?}");
        let checked = Command::new(&tool)
            .arg("--schemafile")
            .arg(&schema_file)
            .args(&documents)
            .output()
            .expect("check-jsonschema runs");
        if !checked.status.success() {
            failures.push(format!(
                "{} on {files:?}:\n{}{}",
                command.join(" "),
                String::from_utf8_lossy(&checked.stdout),
                String::from_utf8_lossy(&checked.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The validator is not blind: a blueprint with a value out of its enum
    // fails the same schema.
    let bad = scratch.path().join("bad.json");
    std::fs::write(&bad, r#"{"name": "a", "imagePullPolicy": "Sometimes"}"#).expect("written");
    let refused = Command::new(&tool)
        .arg("--schemafile")
        .arg(scratch.path().join("0.schema.json"))
        .arg(&bad)
        .output()
        .expect("check-jsonschema runs");
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
}

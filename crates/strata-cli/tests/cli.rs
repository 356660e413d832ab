//! The `strata` binary end to end: global options, exit statuses, and
//! snapshots of the human diagnostics (`insta`).
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

#[path = "support/qbec.rs"]
mod qbec;
mod support;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Runs `strata` in `dir` (relative to `tests/fixtures`) with `args`.
fn strata(dir: &str, args: &[&str]) -> Output {
    strata_with(dir, args, &[], None)
}

fn strata_with(dir: &str, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_strata"));
    command
        .args(args)
        .current_dir(fixtures().join(dir))
        .env_remove("NO_COLOR")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("strata runs");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    pipe.write_all(stdin.unwrap_or_default().as_bytes())
        .expect("stdin is written");
    drop(pipe);
    child.wait_with_output().expect("strata finishes")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8 stderr")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 stdout")
}

/// Checks a failing run: exit 1, nothing on stdout; returns stderr.
fn failing(dir: &str, args: &[&str]) -> String {
    let output = strata(dir, args);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(output.stdout.is_empty(), "nothing half-written on stdout");
    stderr(&output)
}

#[test]
fn human_diagnostic_for_a_duplicate_key() {
    let text = failing(
        "syntax/duplicate-key",
        &["merge", "input.yaml", "--color", "never"],
    );
    insta::assert_snapshot!(text);
}

#[test]
fn human_diagnostics_for_every_broken_file() {
    let text = failing(
        "syntax/every-problem-reported",
        &[
            "merge",
            "a.yaml",
            "b.yaml",
            "c.json",
            "missing.yaml",
            "--color",
            "never",
        ],
    );
    insta::assert_snapshot!(text);
}

#[test]
fn human_diagnostics_for_merge_by_key_problems() {
    let text = failing(
        "merge/by-key-errors",
        &[
            "merge",
            "base.yaml",
            "overlay.yaml",
            "--strategy",
            "initScripts=merge-by-key:name",
            "--color",
            "never",
        ],
    );
    insta::assert_snapshot!(text);
}

#[test]
fn human_diagnostic_for_alias_expansion() {
    let text = failing(
        "syntax/billion-laughs",
        &["merge", "input.yaml", "--color", "never"],
    );
    insta::assert_snapshot!(text);
}

#[test]
fn json_diagnostics_are_one_object_per_line() {
    let text = failing(
        "syntax/duplicate-key",
        &["merge", "input.yaml", "--diagnostics", "json"],
    );
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is json"))
        .collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["code"], "syntax/duplicate-key");
    assert_eq!(records[0]["file"], "input.yaml");
    assert_eq!(records[0]["line"], 5);
    assert_eq!(records[0]["column"], 5);
    assert_eq!(records[0]["path"], "storages.home.path");
}

#[test]
fn color_follows_the_option_and_no_color() {
    let args = ["merge", "input.yaml"];
    let always = strata_with(
        "syntax/duplicate-key",
        &[&args[..], &["--color", "always"]].concat(),
        &[],
        None,
    );
    assert!(stderr(&always).contains("\u{1b}["), "--color always colors");
    let never = strata_with(
        "syntax/duplicate-key",
        &[&args[..], &["--color", "never"]].concat(),
        &[],
        None,
    );
    assert!(!stderr(&never).contains("\u{1b}["));
    // Standard error is a pipe here, so `auto` does not color either; NO_COLOR keeps it so.
    let auto = strata_with("syntax/duplicate-key", &args, &[("NO_COLOR", "1")], None);
    assert!(!stderr(&auto).contains("\u{1b}["));
}

#[test]
fn standard_input_is_read_for_dash() {
    let output = strata_with(
        "syntax/stdin",
        &["merge", "base.yaml", "-"],
        &[],
        Some("b: 3\nc: [1]\n"),
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "a: 1\nb: 3\nc:\n  - 1\n");
    let broken = strata_with(
        "syntax/stdin",
        &["merge", "-", "--diagnostics", "json"],
        &[],
        Some("a: [\n"),
    );
    assert_eq!(broken.status.code(), Some(1));
    assert!(stderr(&broken).contains(r#""file":"<stdin>""#));
}

#[test]
fn json_output_is_pretty_and_parses() {
    let output = strata(
        "merge/json-layers",
        &["merge", "-o", "json", "base.json", "overlay.yaml"],
    );
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(value["ports"], serde_json::json!([80, 443]));
}

#[test]
fn explain_names_file_and_line_of_each_scalar() {
    let output = strata(
        "merge/three-layers-explain",
        &["merge", "--explain", "root.yaml", "project.yaml"],
    );
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(
        text.contains("name: my-project  # project.yaml:1\n"),
        "{text}"
    );
    assert!(text.contains("image: base:1  # root.yaml:2\n"), "{text}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["merge"][..],
        &["merge", "base.yaml", "--strategy", "ports=appendd"],
        &["merge", "base.yaml", "--strategy", "ports"],
        &["merge", "base.yaml", "--strategy", "a[0]=replace"],
        &["merge", "base.yaml", "--explain", "-o", "json"],
        &["merge", "base.yaml", "-o", "toml"],
        &["frobnicate"],
    ] {
        let output = strata("merge/json-layers", args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty());
    }
    let output = strata(
        "merge/json-layers",
        &["merge", "x", "--strategy", "ports=appendd"],
    );
    assert!(stderr(&output).contains("unknown merge strategy `appendd`"));
}

#[test]
fn help_and_version_succeed() {
    let help = strata(".", &["merge", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("--strategy <PATH=STRATEGY>"));
    let version = strata(".", &["--version"]);
    assert_eq!(version.status.code(), Some(0));
}

#[test]
fn platform_check_accepts_the_bundled_catalogue() {
    let output = strata(
        "../../examples/platform",
        &["platform", "check", "catalogue"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
}

#[test]
fn platform_render_composes_the_bundled_repository() {
    let output = strata(
        "../../examples/platform",
        &[
            "platform",
            "render",
            "catalogue",
            "--repo",
            "repo/.k8shell.yaml",
            "--scope",
            "scope.yaml",
            "-o",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(value["name"], "data-science");
    assert_eq!(value["hostname"], "data-science-ada");
    assert_eq!(value["storages"]["home"]["path"], "/home/ada");
    assert_eq!(value["env"]["PROJECT"], "analytics/forecasting");
}

#[test]
fn platform_schemas_are_json_schemas() {
    for kind in ["blueprint", "repo", "users", "compose"] {
        let output = strata(".", &["platform", "schema", kind]);
        assert_eq!(output.status.code(), Some(0));
        let schema: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
        assert!(
            schema["$schema"]
                .as_str()
                .is_some_and(|s| s.contains("json-schema.org"))
        );
        // A blueprint file holds a blueprint, a wrapper or a list of them.
        let document = if kind == "blueprint" {
            &schema["anyOf"][0]
        } else {
            &schema
        };
        assert_eq!(document["additionalProperties"], false, "{kind} is closed");
    }
    // As written, a blueprint needs only its name: a parent supplies the rest.
    let blueprint = strata(".", &["platform", "schema"]);
    let schema: serde_json::Value = serde_json::from_str(&stdout(&blueprint)).expect("json");
    assert_eq!(schema["anyOf"][0]["required"], serde_json::json!(["name"]));
    assert_eq!(
        schema["anyOf"][1]["required"],
        serde_json::json!(["blueprint"])
    );
    let yaml = strata(".", &["platform", "schema", "repo", "-o", "yaml"]);
    assert!(stdout(&yaml).contains("additionalProperties: false"));
}

#[test]
fn platform_render_needs_a_blueprint_or_a_repository() {
    let output = strata("platform/templates", &["platform", "render", "catalogue"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--blueprint NAME"));
}

#[test]
fn human_diagnostics_for_a_platform_claim_spec() {
    let text = failing(
        "platform/claim-spec",
        &["platform", "check", "catalogue", "--color", "never"],
    );
    insta::assert_snapshot!(text);
}

#[test]
fn human_diagnostics_for_a_repository_overlay() {
    let text = failing(
        "platform/repo-forbidden-keys",
        &[
            "platform",
            "render",
            "catalogue",
            "--repo",
            "repo.yaml",
            "--color",
            "never",
        ],
    );
    insta::assert_snapshot!(text);
}

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn strata_in_examples(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .current_dir(examples())
        .env_remove("NO_COLOR")
        .output()
        .expect("strata runs")
}

#[test]
fn components_render_list_and_check_the_bundled_application() {
    let output = strata_in_examples(&["components", "render", "components", "--env", "dev"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("---\napiVersion: apps/v1\nkind: Deployment\n"),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| *l == "---").count(), 10);
    assert!(text.contains("qbec.io/environment: dev\n"));

    let json = strata_in_examples(&[
        "components",
        "render",
        "components",
        "--env",
        "prod",
        "-o",
        "json",
    ]);
    let objects: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("a JSON array");
    assert_eq!(objects.as_array().map(Vec::len), Some(9));

    let list = strata_in_examples(&[
        "components",
        "list",
        "components",
        "--env",
        "prod",
        "-o",
        "json",
    ]);
    let components: serde_json::Value = serde_json::from_str(&stdout(&list)).expect("json");
    assert_eq!(components[3]["name"], "debug-tools");
    assert_eq!(components[3]["included"], false);

    let check = strata_in_examples(&["components", "check", "components"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    assert!(stdout(&check).is_empty());

    let schema = strata_in_examples(&["components", "schema"]);
    let schema: serde_json::Value = serde_json::from_str(&stdout(&schema)).expect("json");
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn eval_concurrency_out_of_range_is_clamped_as_qbec_does() {
    let default = strata_in_examples(&["components", "render", "components", "--env", "dev"]);
    for workers in ["0", "-4", "1000"] {
        let args = [
            "components",
            "render",
            "components",
            "--env",
            "dev",
            "--eval-concurrency",
            workers,
        ];
        let output = strata_in_examples(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{workers}: {}",
            stderr(&output)
        );
        assert_eq!(output.stdout, default.stdout, "{workers}");
    }
}

#[test]
fn components_usage_errors_exit_2() {
    for args in [
        &["components", "render", "components"][..],
        &[
            "components",
            "render",
            "components",
            "--env",
            "dev",
            "--eval-concurrency",
            "many",
        ],
        &[
            "components",
            "render",
            "components",
            "--env",
            "dev",
            "--vm:ext-str",
            "=x",
        ],
    ] {
        let output = strata_in_examples(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // `NAME` alone reads the environment variable.
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "components",
            "render",
            "components",
            "--env",
            "dev",
            "--component",
            "api",
        ])
        .args(["--vm:ext-str", "image_tag"])
        .env("image_tag", "9.9.9")
        .current_dir(examples())
        .output()
        .expect("strata runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("image: registry.example.com/shop/api:9.9.9\n"));
}

#[test]
fn features_render_check_and_schema_the_bundled_project() {
    let local = strata_in_examples(&["features", "render", "features", "--context", "local"]);
    assert_eq!(local.status.code(), Some(0), "{}", stderr(&local));
    let text = stdout(&local);
    assert!(text.contains("  - path: cluster/talos\n"), "{text}");
    assert!(text.contains("      worker_count: 2\n"));
    assert!(!text.contains("when:") && !text.contains("strategy:"));

    let aws = strata_in_examples(&[
        "features",
        "render",
        "features",
        "--context",
        "aws",
        "--set",
        "cluster.workers.count=4",
        "-o",
        "json",
    ]);
    let blueprint: serde_json::Value = serde_json::from_str(&stdout(&aws)).expect("json");
    let eks = &blueprint["terraform"][2];
    assert_eq!(eks["path"], "cluster/eks");
    assert_eq!(eks["inputs"]["node_count"], 8);
    assert_eq!(blueprint["kustomize"][0]["path"], "policy/strict");

    let explained = strata_in_examples(&[
        "features",
        "render",
        "features",
        "--context",
        "aws",
        "--explain",
    ]);
    assert!(stdout(&explained).contains("  - path: cluster/bootstrap  # from: blueprint, aws\n"));

    let check = strata_in_examples(&["features", "check", "features", "--context", "local"]);
    assert_eq!(check.status.code(), Some(0));
    assert!(stdout(&check).is_empty());
    let unknown = strata_in_examples(&["features", "check", "features", "--context", "lokal"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(stderr(&unknown).contains("did you mean `local`?"));

    for kind in ["blueprint", "feature"] {
        let schema = strata_in_examples(&["features", "schema", kind]);
        let schema: serde_json::Value = serde_json::from_str(&stdout(&schema)).expect("json");
        assert!(schema["properties"]["kind"].is_object(), "{kind}");
    }
    for args in [
        &[
            "features",
            "render",
            "features",
            "--context",
            "aws",
            "--explain",
            "-o",
            "json",
        ][..],
        &[
            "features",
            "render",
            "features",
            "--context",
            "aws",
            "--set",
            "novalue",
        ],
        &["features", "render", "features"],
    ] {
        assert_eq!(strata_in_examples(args).status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn components_that_run_too_long_are_reported_and_the_command_ends() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let app = scratch.path();
    qbec::qbec_app(
        app,
        "forever.jsonnet",
        "std.foldl(function(a, b) a + b, std.range(0, 2000000000), 0)",
    );
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "components",
            "render",
            "--env",
            "dev",
            "--eval-timeout",
            "200ms",
        ])
        .arg(app)
        .env("NO_COLOR", "1")
        .output()
        .expect("strata runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("component `forever`: the evaluation did not finish within 200ms"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).is_empty());
}

#[test]
fn dot_output_is_for_spec_graphs_only() {
    let root = env!("CARGO_MANIFEST_DIR").replace("/crates/strata-cli", "");
    let refused = strata(
        &root,
        &["merge", "examples/spec/core-infra.yaml", "-o", "dot"],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("`-o dot` is the output of `spec graph` only"));
    assert!(stdout(&refused).is_empty());
    let args = [
        "spec",
        "graph",
        "examples/spec/blueprint.yaml",
        "--var",
        "databasePassword=x",
        "-o",
        "dot",
    ];
    let drawn = strata(&root, &args);
    assert_eq!(drawn.status.code(), Some(0), "{}", stderr(&drawn));
    assert!(stdout(&drawn).starts_with("digraph blueprint {\n"));
}

#[test]
fn spec_render_refuses_standard_input() {
    let root = env!("CARGO_MANIFEST_DIR").replace("/crates/strata-cli", "");
    let output = strata(&root, &["spec", "render", "-", "--diagnostics", "json"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("\"code\":\"spec/include\""));
}

#[test]
fn plan_detailed_exit_code_says_whether_anything_changes() {
    let root = env!("CARGO_MANIFEST_DIR").replace("/crates/strata-cli", "");
    let plan = |extra: &[&str]| {
        let mut args = vec![
            "spec",
            "plan",
            "examples/spec/blueprint.yaml",
            "--var",
            "databasePassword=x",
        ];
        args.extend_from_slice(extra);
        strata(&root, &args)
    };
    // Without a state everything is created: 0 plainly, 2 when asked.
    assert_eq!(plan(&[]).status.code(), Some(0));
    let detailed = plan(&["--detailed-exitcode"]);
    assert_eq!(detailed.status.code(), Some(2), "{}", stderr(&detailed));
    assert!(
        stdout(&detailed).contains("Plan: 3 to create"),
        "{}",
        stdout(&detailed)
    );
    // A state file that cannot be read is an error, never an empty state.
    let missing = plan(&["--state", "no-such-state.json", "--detailed-exitcode"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stdout(&missing).is_empty());
}

/// A FIFO in a catalogue is refused by name instead of blocking the check
/// (and the service's reloads) forever; a symlink leading out of the
/// catalogue (to `/dev/zero`) is skipped with a warning naming it. The run
/// must end by itself: it is killed, and the test fails, after 20 s.
#[cfg(unix)]
#[test]
fn special_files_in_a_catalogue_are_refused_and_outward_links_named() {
    let root = std::env::temp_dir().join(format!("strata-cli-special-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    support::copy_tree(&fixtures().join("../../examples/platform/catalogue"), &root);
    let made = Command::new("mkfifo")
        .arg(root.join("blueprints/pipe.yaml"))
        .status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo");
    std::os::unix::fs::symlink("/dev/zero", root.join("blueprints/zero.yaml")).expect("a symlink");

    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["platform", "check"])
        .arg(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strata runs");
    let started = std::time::Instant::now();
    while child.try_wait().expect("the child is waited for").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("`strata platform check` did not finish within 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("strata finishes");
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("io/not-a-file") && text.contains("pipe.yaml` is a FIFO, not a regular file"),
        "{text}"
    );
    assert!(
        text.contains("io/skipped")
            && text.contains(
                "`blueprints/zero.yaml` is skipped: it is a symlink leading outside the root"
            ),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The bash completions load in bash and complete a subcommand and the
/// verbs of a dialect; the other shells' scripts are written.
#[test]
fn completions_complete_in_bash() {
    let output = strata(".", &["completions", "bash"]);
    assert_eq!(output.status.code(), Some(0));
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let script = scratch.path().join("strata.bash");
    std::fs::write(&script, &output.stdout).expect("the script");
    let complete = |words: &str, current: usize, word: &str, previous: &str| {
        let run = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD={current}; _strata strata '{word}' '{previous}'; echo \"${{COMPREPLY[*]}}\"",
            script.display()
        );
        let output = Command::new("bash")
            .args(["--norc", "-c", &run])
            .output()
            .expect("bash runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).expect("UTF-8")
    };
    assert_eq!(complete("strata pl", 1, "pl", "strata").trim(), "platform");
    let verbs = complete("strata platform ''", 2, "", "platform");
    for verb in ["check", "list", "render", "schema", "serve"] {
        assert!(verbs.split_whitespace().any(|word| word == verb), "{verbs}");
    }
    for shell in ["zsh", "fish", "powershell"] {
        let output = strata(".", &["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        assert!(stdout(&output).contains("strata"), "{shell}");
    }
}

/// `strata man DIR` writes a page for `strata` and each subcommand, and
/// each renders with `man -l` (or is roff with a title, where `man` is
/// missing).
#[test]
fn man_pages_render() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let dir = scratch.path().join("man1");
    let dir_text = dir.to_string_lossy().into_owned();
    let output = strata(".", &["man", &dir_text]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .expect("the folder")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    pages.sort();
    for page in [
        "strata.1",
        "strata-platform.1",
        "strata-platform-check.1",
        "strata-lsp.1",
    ] {
        assert!(pages.iter().any(|p| p == page), "{page} in {pages:?}");
    }
    let man = Command::new("man")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    for page in &pages {
        let path = dir.join(page);
        let text = std::fs::read_to_string(&path).expect("the page");
        assert!(text.contains(".TH "), "{page}");
        if man {
            let rendered = Command::new("man")
                .arg("-l")
                .arg(&path)
                .env("MANPAGER", "cat")
                .env("MANWIDTH", "80")
                .output()
                .expect("man runs");
            assert!(rendered.status.success(), "{page}: {rendered:?}");
            assert!(
                String::from_utf8_lossy(&rendered.stdout).contains("NAME"),
                "{page}"
            );
        }
    }
    let top = std::fs::read_to_string(dir.join("strata.1")).expect("strata.1");
    assert!(top.contains("layered configuration blueprints"), "{top}");
}

/// `strata --help` opens with what Strata is, and each dialect's help
/// with what it is compatible with.
#[test]
fn help_says_what_strata_is() {
    let help = stdout(&strata(".", &["--help"]));
    assert!(
        help.starts_with("Strata checks, composes and renders layered configuration blueprints"),
        "{help}"
    );
    for (dialect, compatible) in [
        ("platform", "k8shell"),
        ("components", "qbec"),
        ("features", "Windsor"),
        ("capabilities", "Kure"),
        ("spec", "Blueprint Specification"),
    ] {
        let help = stdout(&strata(".", &[dialect, "--help"]));
        let first = help.lines().next().unwrap_or_default();
        assert!(first.contains(compatible), "{dialect}: {first}");
    }
}

/// `strata explain CODE` says what a code means from its table; an unknown
/// code is a usage error naming it and the nearest one.
#[test]
fn explain_prints_what_a_code_means() {
    let explained = strata(".", &["explain", "features/unknown-context"]);
    assert_eq!(explained.status.code(), Some(0));
    let text = stdout(&explained);
    assert!(
        text.starts_with("features/unknown-context: no file names the context"),
        "{text}"
    );
    for heading in ["\nWhy\n", "\nHow to fix it\n", "\nExample\n"] {
        assert!(text.contains(heading), "{heading:?} in {text}");
    }

    let json = strata(".", &["explain", "cel/parse", "-o", "json"]);
    let record: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON object");
    assert_eq!(record["code"], "cel/parse");
    assert!(
        record["where"].is_string(),
        "the table's `where` column: {record}"
    );

    let unknown = strata(".", &["explain", "features/unknown-contxt"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(unknown.stdout.is_empty());
    let error = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        error.contains("no diagnostic code is named `features/unknown-contxt`; did you mean `features/unknown-context`?"),
        "{error}"
    );

    let all = stdout(&strata(".", &["explain", "--all"]));
    assert!(all.lines().count() > 170, "{all}");
    assert!(
        all.lines()
            .any(|line| line.starts_with("run/memory-limit ")),
        "{all}"
    );
}

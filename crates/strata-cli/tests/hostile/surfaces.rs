//! Hostile input at the newest surfaces, each case kept from a bug it
//! fixed: one request cannot stop the service, files that are not text
//! are named where they break, includes stay in their folder, and a
//! secret is never printed.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use super::{COMPOSE_METADATA, SPEC_RESOURCE, Service, not_utf8, write};

/// A 1 MiB body whose 400 kB string is referred to by thousands of
/// aliases (86 GB once expanded) is refused alone, with 413, as is the
/// same inside a JSON body's `repo` text; the service goes on composing in
/// a bounded amount of memory, whatever the process's memory limit.
#[test]
fn one_request_cannot_stop_the_service() {
    let service = Service::start("1GiB");
    let long = "x".repeat(400_000);
    let mut yaml = format!(
        "workspaceName: w\nmetadata: {{name: n, repoName: r, repoOwner: o, repoRef: main, repoAddress: 'https://git.example.com/o/r.git'}}\nblueprint: data-science\nextra: &a {long}\nrefs:\n"
    );
    while yaml.len() < 1_000_000 {
        yaml.push_str("  - *a\n");
    }
    let (status, answer) = service.compose("application/yaml", yaml.as_bytes());
    assert_eq!(status, 413, "{answer}");
    assert_eq!(answer["diagnostics"][0]["code"], "syntax/alias-expansion");

    let mut repo =
        format!("blueprint:\n  template: data-science\n  env:\n    A: &a {long}\n    L:\n");
    while repo.len() < 900_000 {
        repo.push_str("      - *a\n");
    }
    let json = format!(
        r#"{{{COMPOSE_METADATA}, "repo": {}}}"#,
        serde_json::json!(repo)
    );
    let (status, answer) = service.compose("application/json", json.as_bytes());
    assert_eq!(status, 413, "{answer}");
    assert_eq!(
        answer["error"],
        "`repo` is larger than a request may be once its aliases are expanded"
    );

    // The largest request the body limit lets through still composes.
    let env = (0..68_000).fold(String::new(), |mut env, n| {
        let _ = writeln!(env, "    K{n}: v");
        env
    });
    let repo = format!("blueprint:\n  template: data-science\n  env:\n{env}");
    let json = format!(
        r#"{{{COMPOSE_METADATA}, "repo": {}}}"#,
        serde_json::json!(repo)
    );
    let (status, answer) = service.compose("application/json", json.as_bytes());
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["env"]["K67999"], "v");
    let peak = service.peak_mib();
    assert!(peak < 512, "the service held {peak} MiB");
}

/// Runs the binary with `args` in `dir`: its exit status and its JSON
/// diagnostics, one value a line.
fn strata_json(dir: &Path, args: &[&str]) -> (i32, Vec<serde_json::Value>) {
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .args(["--diagnostics", "json"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("strata runs");
    let diagnostics = String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON diagnostic"))
        .collect();
    (output.status.code().unwrap_or(-1), diagnostics)
}

/// A file that is not UTF-8 is named, at its first bad byte; a device
/// named where a file is expected is not a file (it used to be read as
/// "0 bytes, more than the limit").
#[test]
fn files_that_are_not_text_are_named_where_they_break() {
    let root = tempfile::tempdir().expect("a scratch folder");
    write(
        &root.path().join("catalogue/a.yaml"),
        not_utf8("name: a\nimage: caf\u{e9} ", "\n"),
    );
    let (exit, diagnostics) = strata_json(root.path(), &["platform", "check", "catalogue"]);
    assert_eq!(exit, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let diagnostic = &diagnostics[0];
    assert_eq!(diagnostic["code"], "io/not-utf8");
    assert_eq!(
        diagnostic["message"],
        "`a.yaml` is not valid utf-8 text: the byte 0xff at line 2, column 13 is not utf-8"
    );
    assert_eq!(diagnostic["file"], "catalogue/a.yaml");
    assert_eq!(
        (&diagnostic["line"], &diagnostic["column"]),
        (&2.into(), &13.into())
    );

    write(
        &root.path().join("blueprint.yaml"),
        format!("{SPEC_RESOURCE}      name: a\n"),
    );
    let (exit, diagnostics) = strata_json(
        root.path(),
        &["spec", "plan", "blueprint.yaml", "--state", "/dev/zero"],
    );
    assert_eq!(exit, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "io/not-a-file");
    assert_eq!(
        diagnostics[0]["message"],
        "`/dev/zero` is a device, not a regular file, and is not read"
    );
}

/// Includes are confined to the blueprint's folder unless `--root` says
/// otherwise (the working directory was the default: from `/`, a
/// blueprint could include `/proc/self/environ`), and a file that does
/// not parse as a blueprint is shown no further than its first line.
#[test]
fn includes_stay_in_the_blueprints_folder_and_show_one_line() {
    let root = tempfile::tempdir().expect("a scratch folder");
    write(
        &root.path().join("environ"),
        "TOKEN_ONE=first-secret\nTOKEN_TWO=second-secret\n",
    );
    write(
        &root.path().join("project/blueprint.yaml"),
        format!(
            "version: 2023-04-20\ninclude:\n  env:\n    path: ../environ\n{}      name: a\n",
            &SPEC_RESOURCE["version: 2023-04-20\n".len()..]
        ),
    );
    let (exit, diagnostics) =
        strata_json(root.path(), &["spec", "render", "project/blueprint.yaml"]);
    assert_eq!(exit, 1);
    let codes: Vec<&str> = diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["io/outside-root"], "{diagnostics:?}");
    let everything = format!("{diagnostics:?}");
    assert!(!everything.contains("secret"), "{everything}");

    // With a root that holds it, the file is read, and shown one line deep.
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["spec", "render", "project/blueprint.yaml", "--root", "."])
        .args(["--color", "never"])
        .current_dir(root.path())
        .output()
        .expect("strata runs");
    let shown = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("1 │ TOKEN_ONE=first-secret"), "{shown}");
    assert!(!shown.contains("second-secret"), "{shown}");
}

/// A blueprint whose errors all come from secret material: each must say
/// what went wrong without the value, its length or its keys.
const SECRET_ERRORS: &str = r#"version: 2023-04-20
variables:
  password: {type: string, secret: true}
  index: {type: integer, secret: true}
  mode: {type: string, secret: true}
values:
  config:
    type: object
    value: ${object(key = variables.password)}
resources:
  db:
    type: aws/rds/instance
    spec:
      when: ${datetime(variables.password)}
      pointer: '${fromjson("{\"a\": 1}", variables.password)}'
      attr: ${map(list(object(a = 1)), getattr(variables.password))}
      elem: ${map(list(list(1)), getelem(variables.index))}
      part: ${substr(variables.password, 0, 100)}
      key: ${values.config.kee}
  linked:
    type: aws/rds/instance
    condition: ${eq(link(variables.password, db).x, "y")}
    spec: {name: l}
include:
  bypath:
    path: ${variables.password}.yaml
  bysource:
    path: child.yaml
    metadata:
      sourceType: ${variables.password}
  allowed:
    path: child.yaml
    variables:
      mode: ${variables.mode}
"#;

/// The child `SECRET_ERRORS` includes: its `mode` allows `a` or `b`.
const SECRET_CHILD: &str = "version: 2023-04-20\nvariables:\n  mode: {type: string, allowedValues: [a, b]}\nresources:\n  c: {type: aws/sqs/queue, spec: {name: \"${variables.mode}\"}}\n";

/// A blueprint that plans: a secret inside a list, and under a field whose
/// deployed value was of another kind.
const SECRET_PLAN: &str = "version: 2023-04-20\nvariables:\n  password: {type: string, secret: true}\nresources:\n  db:\n    type: aws/rds/instance\n    spec:\n      args: [\"--db-password\", \"${variables.password}\"]\n      env:\n        pw: ${variables.password}\n";

/// Its previous deployment: the old password in the list, `env` a string.
const SECRET_STATE: &str = r#"{"formatVersion": 1, "resources": {"db": {"type": "aws/rds/instance", "spec": {"args": ["--db-password", "TOPSECRET_OLD"], "env": "not-an-object"}}}}"#;

/// No command prints a secret, in any output: errors computed from one
/// (`datetime`, a `fromjson` pointer, `getattr` through `map`, a negative
/// `getelem` index, `substr`'s range, a did-you-mean of a secret object's
/// keys, an include's path or source, a child's allowed values, `link`),
/// plans (a secret in a list, a change of kind), variables files (the
/// line of a secret of the wrong type) and mistyped `--var` names.
#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one list of runs, each a command line"
)]
fn secrets_are_never_printed() {
    let root = tempfile::tempdir().expect("a scratch folder");
    let dir = root.path();
    write(&dir.join("errors.yaml"), SECRET_ERRORS);
    write(&dir.join("child.yaml"), SECRET_CHILD);
    write(&dir.join("plan.yaml"), SECRET_PLAN);
    write(&dir.join("state.json"), SECRET_STATE);
    write(
        &dir.join("vars.yaml"),
        "password: TOPSECRET_FILE\nindex: TOPSECRET_FILE\n",
    );
    let vars = [
        "--var",
        "password=TOPSECRET",
        "--var",
        "index=-7",
        "--var",
        "mode=TOPSECRET",
    ];
    let with = |command: &[&'static str], extra: &[&'static str]| -> Vec<&'static str> {
        command.iter().chain(extra).copied().collect()
    };
    let runs: Vec<(Vec<&str>, &[&str])> = vec![
        (
            with(&["spec", "render", "errors.yaml"], &vars),
            &[
                "io/read",
                "spec/include",
                "spec/variable-input",
                "subst/eval",
            ],
        ),
        (
            with(&["spec", "check", "errors.yaml"], &vars),
            &["subst/eval"],
        ),
        (
            with(&["spec", "graph", "errors.yaml"], &vars),
            &["subst/eval"],
        ),
        (
            with(
                &[
                    "spec",
                    "eval",
                    "${substr(variables.password, 0, 100)}",
                    "--blueprint",
                    "errors.yaml",
                ],
                &vars,
            ),
            &["subst/eval"],
        ),
        (
            with(
                &[
                    "spec",
                    "eval",
                    "${values.config.kee}",
                    "--blueprint",
                    "errors.yaml",
                ],
                &vars,
            ),
            &["subst/eval"],
        ),
        (
            vec![
                "spec",
                "plan",
                "plan.yaml",
                "--state",
                "state.json",
                "--var",
                "password=TOPSECRET",
            ],
            &[],
        ),
        (
            vec![
                "spec",
                "plan",
                "plan.yaml",
                "--state",
                "state.json",
                "--var",
                "password=TOPSECRET",
                "-o",
                "json",
            ],
            &[],
        ),
        (
            vec![
                "spec",
                "check",
                "errors.yaml",
                "--vars",
                "vars.yaml",
                "--var",
                "pasword=TOPSECRET_TYPO",
            ],
            &["spec/variable-input"],
        ),
    ];
    let problems: Vec<String> = runs
        .iter()
        .flat_map(|(args, expected)| leaks(dir, args, expected))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Runs `args` in `dir` with human and with JSON diagnostics: what either
/// shows of a secret (its text, its length, a key of a secret object, a
/// secret index), and the `expected` codes it does not name.
fn leaks(dir: &Path, args: &[&str], expected: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    for diagnostics in ["human", "json"] {
        let output = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(args)
            .args(["--diagnostics", diagnostics, "--color", "never"])
            .current_dir(dir)
            .output()
            .expect("strata runs");
        let everything = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        for leak in ["TOPSECRET", "9 characters", "`key`", "-7"] {
            if everything.contains(leak) {
                problems.push(format!(
                    "{args:?} ({diagnostics}) shows {leak}:\n{everything}"
                ));
            }
        }
        for code in expected {
            if !everything.contains(code) {
                problems.push(format!(
                    "{args:?} ({diagnostics}) has no {code}:\n{everything}"
                ));
            }
        }
    }
    problems
}

//! `strata spec deploy|destroy|drift|state` through the binary, with real
//! files, real processes killed with `SIGKILL`, and the `SQLite` state store:
//!
//! - a deploy makes exactly the declared files, a spec reading another
//!   resource's state gets what its provider reported, and a second deploy
//!   changes nothing;
//! - drift (an edit, a deletion) is named by `drift` (exit 2) and repaired
//!   by `deploy`;
//! - a failure undoes the deploy's changes (`--rollback auto`) or keeps
//!   them (`--rollback none`), recorded in the journal, not the resources;
//! - a deploy killed anywhere (at failpoints after a provider call and
//!   before its commit, and at random moments of a deploy of 1,000 files)
//!   converges at the next deploy: files exactly as declared, no temporary
//!   file left, state equal to disk, nothing left to do;
//! - a held state is exit 3 naming its holder, free at once when the
//!   holder is killed; of two deploys started at once, one applies;
//! - something foreign where an interrupted change was made is exit 4;
//! - a secret is never printed, and masked in `state export`.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// `strata spec ARGS` in `folder`, with `env`.
fn spec(folder: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .current_dir(folder)
        .arg("spec")
        .args(args)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .output()
        .expect("strata runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A blueprint of `count` files in `out/`, ten folders.
fn files_blueprint(count: usize) -> String {
    let mut text = String::from("version: 2023-04-20\nresources:\n");
    for i in 0..count {
        let _ = writeln!(
            text,
            "  f{i}:\n    type: core/file\n    spec: {{path: out/d{}/f{i}.txt, content: \"file {i}\"}}",
            i % 10
        );
    }
    text
}

/// Every file below `folder`, as `relative path = content`, sorted.
fn tree(folder: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(folder)
                    .expect("below")
                    .display()
                    .to_string();
                let content = std::fs::read_to_string(&path).unwrap_or_default();
                found.push(format!("{relative} = {content}"));
            }
        }
    }
    found.sort();
    found
}

/// The files `files_blueprint(count)` declares, as `tree` lists them.
fn declared(count: usize) -> Vec<String> {
    let mut files: Vec<String> = (0..count)
        .map(|i| format!("d{}/f{i}.txt = file {i}", i % 10))
        .collect();
    files.sort();
    files
}

fn scratch_with(blueprint: &str) -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let folder = scratch.path().to_path_buf();
    std::fs::write(folder.join("bp.yaml"), blueprint).expect("written");
    (scratch, folder)
}

const DEPLOY: &[&str] = &["deploy", "bp.yaml", "--instance", "dev"];

#[test]
fn a_deploy_makes_the_declared_files_and_reads_states_it_recorded() {
    let blueprint = "version: 2023-04-20
resources:
  config:
    type: core/file
    spec: {path: out/config.txt, content: hello}
  digest:
    type: core/file
    spec:
      path: out/digest.txt
      content: ${resources.config.state.sha256}
";
    let (_scratch, folder) = scratch_with(blueprint);
    let first = spec(&folder, DEPLOY, &[]);
    assert!(first.status.success(), "{first:?}");
    let stdout = text(&first.stdout);
    assert!(
        stdout.contains("created config\ncreated digest\n"),
        "{stdout}"
    );
    assert_eq!(
        tree(&folder.join("out")),
        [
            "config.txt = hello",
            "digest.txt = 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        ]
    );
    let again = spec(&folder, DEPLOY, &[]);
    assert!(again.status.success(), "{again:?}");
    assert!(
        text(&again.stdout)
            .contains("0 to create, 0 to update, 0 to replace, 0 to delete, 2 unchanged")
    );
    // The state store and its lock are beside, never in the deployed folder.
    assert!(folder.join(".strata/state.db").is_file());
}

#[test]
fn drift_is_named_and_repaired() {
    let (_scratch, folder) = scratch_with(&files_blueprint(3));
    assert!(spec(&folder, DEPLOY, &[]).status.success());
    std::fs::write(folder.join("out/d0/f0.txt"), "edited").expect("edited");
    std::fs::remove_file(folder.join("out/d1/f1.txt")).expect("removed");
    let drift = spec(&folder, &["drift", "bp.yaml", "--instance", "dev"], &[]);
    assert_eq!(drift.status.code(), Some(2));
    assert_eq!(
        text(&drift.stdout),
        "~ f0: changed `content`\n- f1: missing\n"
    );
    let repaired = spec(&folder, DEPLOY, &[]);
    assert!(repaired.status.success(), "{repaired:?}");
    assert_eq!(tree(&folder.join("out")), declared(3));
    let clean = spec(&folder, &["drift", "bp.yaml", "--instance", "dev"], &[]);
    assert_eq!(clean.status.code(), Some(0), "{clean:?}");
}

#[test]
fn a_failure_is_undone_or_kept_as_asked() {
    let blueprint = format!(
        "{}  z_blocked:\n    type: core/file\n    spec: {{path: blocker/x.txt, content: x}}\n",
        files_blueprint(3)
    );
    let (_scratch, folder) = scratch_with(&blueprint);
    // A regular file where the folder should be.
    std::fs::write(folder.join("blocker"), "").expect("written");
    let failed = spec(&folder, DEPLOY, &[]);
    assert_eq!(failed.status.code(), Some(1));
    let stderr = text(&failed.stderr);
    assert!(stderr.contains("spec/deploy"), "{stderr}");
    assert!(
        stderr.contains("3 change(s) of this deploy undone"),
        "{stderr}"
    );
    assert!(tree(&folder.join("out")).is_empty());
    let export = spec(&folder, &["state", "export", "--instance", "dev"], &[]);
    let state: serde_json::Value = serde_json::from_slice(&export.stdout).expect("JSON");
    assert_eq!(state["resources"], serde_json::json!({}));
    let kept = spec(
        &folder,
        &[
            "deploy",
            "bp.yaml",
            "--instance",
            "dev",
            "--rollback",
            "none",
        ],
        &[],
    );
    assert_eq!(kept.status.code(), Some(1));
    assert_eq!(tree(&folder.join("out")), declared(3));
    let export = spec(&folder, &["state", "export", "--instance", "dev"], &[]);
    let state: serde_json::Value = serde_json::from_slice(&export.stdout).expect("JSON");
    let names: Vec<&String> = state["resources"]
        .as_object()
        .expect("resources")
        .keys()
        .collect();
    assert_eq!(names, ["f0", "f1", "f2"]);
}

/// After a crash, the next deploy converges: the files as declared,
/// nothing more in the folder, nothing left to do, no drift.
fn converges(folder: &Path, count: usize) {
    let deploy = spec(folder, DEPLOY, &[]);
    assert!(deploy.status.success(), "{deploy:?}");
    assert_eq!(tree(&folder.join("out")), declared(count));
    let again = spec(folder, DEPLOY, &[]);
    let stdout = text(&again.stdout);
    assert!(stdout.contains(&format!("{count} unchanged")), "{stdout}");
    let drift = spec(folder, &["drift", "bp.yaml", "--instance", "dev"], &[]);
    assert_eq!(drift.status.code(), Some(0), "{drift:?}");
}

#[test]
fn a_crash_around_a_provider_call_converges() {
    for point in ["before-call", "after-call"] {
        let (_scratch, folder) = scratch_with(&files_blueprint(5));
        let crashed = spec(&folder, DEPLOY, &[("STRATA_FAILPOINT", point)]);
        assert!(!crashed.status.success(), "{point}: {crashed:?}");
        converges(&folder, 5);
        let recovered = spec(&folder, &["state", "export", "--instance", "dev"], &[]);
        assert!(recovered.status.success());
    }
}

#[test]
fn random_kills_of_a_large_deploy_converge() {
    let count = 1_000;
    let (_scratch, folder) = scratch_with(&files_blueprint(count));
    // Deterministic "random" moments: a linear congruential sequence.
    let mut seed: u64 = 0x5eed;
    for _ in 0..8 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let delay = Duration::from_millis(50 + (seed >> 33) % 600);
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .current_dir(&folder)
            .arg("spec")
            .args(DEPLOY)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("strata starts");
        std::thread::sleep(delay);
        // SIGKILL: nothing runs after it.
        let _ = child.kill();
        let _ = child.wait();
    }
    converges(&folder, count);
}

#[test]
fn a_held_state_is_exit_3_and_free_once_its_holder_is_killed() {
    let (_scratch, folder) = scratch_with(&files_blueprint(2));
    let mut holder = Command::new(env!("CARGO_BIN_EXE_strata"))
        .current_dir(&folder)
        .arg("spec")
        .args(DEPLOY)
        .env("STRATA_FAILPOINT", "after-call:pause")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("strata starts");
    // Wait until the holder has made its first change.
    for _ in 0..100 {
        if folder.join("out/d0/f0.txt").is_file() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let refused = spec(&folder, DEPLOY, &[]);
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("spec/locked"), "{stderr}");
    assert!(
        stderr.contains(&format!("held by process {}", holder.id())),
        "{stderr}"
    );
    let unlock = spec(&folder, &["state", "unlock", "--instance", "dev"], &[]);
    assert_eq!(unlock.status.code(), Some(3));
    holder.kill().expect("killed");
    holder.wait().expect("reaped");
    // No unlock needed: the kernel released the lock with the process.
    converges(&folder, 2);
}

#[test]
fn of_two_deploys_started_at_once_one_applies() {
    for round in 0..5 {
        let (_scratch, folder) = scratch_with(&files_blueprint(20));
        let start = || {
            Command::new(env!("CARGO_BIN_EXE_strata"))
                .current_dir(&folder)
                .arg("spec")
                .args(DEPLOY)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("strata starts")
        };
        let (first, second) = (start(), start());
        let outputs = [
            first.wait_with_output().expect("ran"),
            second.wait_with_output().expect("ran"),
        ];
        let applied = outputs
            .iter()
            .filter(|output| text(&output.stdout).contains("created f0\n"))
            .count();
        assert_eq!(applied, 1, "round {round}: {outputs:?}");
        for output in &outputs {
            assert!(matches!(output.status.code(), Some(0 | 3)), "{output:?}");
        }
        assert_eq!(tree(&folder.join("out")), declared(20));
    }
}

#[test]
fn something_foreign_where_a_change_was_interrupted_is_exit_4() {
    let (_scratch, folder) = scratch_with(&files_blueprint(1));
    let crashed = spec(&folder, DEPLOY, &[("STRATA_FAILPOINT", "before-call")]);
    assert!(!crashed.status.success());
    std::fs::create_dir_all(folder.join("out/d0")).expect("made");
    std::fs::write(folder.join("out/d0/f0.txt"), "someone else's").expect("written");
    let refused = spec(&folder, DEPLOY, &[]);
    assert_eq!(refused.status.code(), Some(4), "{refused:?}");
    assert!(text(&refused.stderr).contains("spec/recovery"));
    assert_eq!(
        std::fs::read_to_string(folder.join("out/d0/f0.txt")).expect("kept"),
        "someone else's"
    );
}

#[test]
fn a_secret_is_never_printed_and_masked_in_exports() {
    let blueprint = "version: 2023-04-20
variables:
  token:
    type: string
    secret: true
resources:
  credentials:
    type: core/value
    spec:
      value: ${variables.token}
";
    let (_scratch, folder) = scratch_with(blueprint);
    let deploy = spec(
        &folder,
        &[
            "deploy",
            "bp.yaml",
            "--instance",
            "dev",
            "--var",
            "token=hunter2",
        ],
        &[],
    );
    assert!(deploy.status.success(), "{deploy:?}");
    assert!(!text(&deploy.stdout).contains("hunter2"));
    assert!(!text(&deploy.stderr).contains("hunter2"));
    let export = spec(&folder, &["state", "export", "--instance", "dev"], &[]);
    assert!(!text(&export.stdout).contains("hunter2"), "{export:?}");
    assert!(text(&export.stdout).contains("********"));
    let shown = spec(
        &folder,
        &["state", "export", "--instance", "dev", "--show-secrets"],
        &[],
    );
    assert!(text(&shown.stdout).contains("hunter2"));
}

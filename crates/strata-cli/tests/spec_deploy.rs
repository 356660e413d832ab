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
//! - a secret is never printed, and masked in `state export`;
//! - a blueprint in the shapes Bluelink users write (templates, conditions,
//!   values built with functions) deploys, moves with its variables and is
//!   destroyed;
//! - a blueprint including another deploys the child's resources in its
//!   order before what reads the child's exports, and drift, rollback,
//!   removal and `state export` reach them;
//! - each of these with the `PostgreSQL` store too (a server of the test's
//!   own), and a deploy whose lock was ended cannot write (the epoch).
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

#[path = "support/postgres.rs"]
mod postgres;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// The embedded store, in the scratch folder.
const SQLITE: &str = "sqlite:.strata/state.db";

/// `strata spec ARGS --state STORE` in `folder`, with `env`.
fn spec(folder: &Path, store: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    command(folder, store, args)
        .envs(env.iter().copied())
        .output()
        .expect("strata runs")
}

/// The command of `strata spec ARGS --state STORE` in `folder`.
fn command(folder: &Path, store: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_strata"));
    command
        .current_dir(folder)
        .arg("spec")
        .args(args)
        .args(["--state", store])
        .env("NO_COLOR", "1");
    command
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

fn a_deploy_makes_the_declared_files_and_reads_states_it_recorded(store: &str) {
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
    let first = spec(&folder, store, DEPLOY, &[]);
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
    let again = spec(&folder, store, DEPLOY, &[]);
    assert!(again.status.success(), "{again:?}");
    assert!(
        text(&again.stdout)
            .contains("0 to create, 0 to update, 0 to replace, 0 to delete, 2 unchanged")
    );
    // The state store and its lock are beside, never in the deployed folder.
    assert_eq!(folder.join(".strata/state.db").is_file(), store == SQLITE);
}

fn drift_is_named_and_repaired(store: &str) {
    let (_scratch, folder) = scratch_with(&files_blueprint(3));
    assert!(spec(&folder, store, DEPLOY, &[]).status.success());
    std::fs::write(folder.join("out/d0/f0.txt"), "edited").expect("edited");
    std::fs::remove_file(folder.join("out/d1/f1.txt")).expect("removed");
    let drift = spec(
        &folder,
        store,
        &["drift", "bp.yaml", "--instance", "dev"],
        &[],
    );
    assert_eq!(drift.status.code(), Some(2));
    assert_eq!(
        text(&drift.stdout),
        "~ f0: changed `content`\n- f1: missing\n"
    );
    let as_json = spec(
        &folder,
        store,
        &["drift", "bp.yaml", "--instance", "dev", "-o", "json"],
        &[],
    );
    assert_eq!(as_json.status.code(), Some(2));
    let found: serde_json::Value = serde_json::from_slice(&as_json.stdout).expect("JSON");
    assert_eq!(
        found,
        serde_json::json!([
            {"resource": "f0", "drift": "changed", "details": ["content"]},
            {"resource": "f1", "drift": "missing", "details": []},
        ])
    );
    // A JSON state (as `state export` writes it) is read by `drift` and
    // `state show` alike; a deploy refuses it (it cannot record).
    let exported = text_of(&spec(
        &folder,
        store,
        &["state", "export", "--instance", "dev"],
        &[],
    ));
    std::fs::write(folder.join("exported.json"), exported).expect("written");
    let file = "exported.json";
    let drift_of_file = spec(
        &folder,
        file,
        &["drift", "bp.yaml", "--instance", "dev"],
        &[],
    );
    assert_eq!(drift_of_file.stdout, drift.stdout, "{drift_of_file:?}");
    assert_eq!(drift_of_file.status.code(), Some(2));
    let shown = text_of(&spec(
        &folder,
        file,
        &["state", "show", "--instance", "dev"],
        &[],
    ));
    assert!(shown.contains("path: out/d0/f0.txt"), "{shown}");
    let refused = spec(&folder, file, DEPLOY, &[]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("is a JSON state"),
        "{refused:?}"
    );
    let repaired = spec(&folder, store, DEPLOY, &[]);
    assert!(repaired.status.success(), "{repaired:?}");
    assert_eq!(tree(&folder.join("out")), declared(3));
    let clean = spec(
        &folder,
        store,
        &["drift", "bp.yaml", "--instance", "dev"],
        &[],
    );
    assert_eq!(clean.status.code(), Some(0), "{clean:?}");
}

fn a_failure_is_undone_or_kept_as_asked(store: &str) {
    let blueprint = format!(
        "{}  z_blocked:\n    type: core/file\n    spec: {{path: blocker/x.txt, content: x}}\n",
        files_blueprint(3)
    );
    let (_scratch, folder) = scratch_with(&blueprint);
    // A regular file where the folder should be.
    std::fs::write(folder.join("blocker"), "").expect("written");
    let failed = spec(&folder, store, DEPLOY, &[]);
    assert_eq!(failed.status.code(), Some(1));
    let stderr = text(&failed.stderr);
    assert!(stderr.contains("spec/deploy"), "{stderr}");
    assert!(
        stderr.contains("3 change(s) of this deploy undone"),
        "{stderr}"
    );
    assert!(tree(&folder.join("out")).is_empty());
    let export = spec(
        &folder,
        store,
        &["state", "export", "--instance", "dev"],
        &[],
    );
    let state: serde_json::Value = serde_json::from_slice(&export.stdout).expect("JSON");
    assert_eq!(state["resources"], serde_json::json!({}));
    let kept = spec(
        &folder,
        store,
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
    let export = spec(
        &folder,
        store,
        &["state", "export", "--instance", "dev"],
        &[],
    );
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
fn converges(folder: &Path, store: &str, count: usize) {
    let deploy = spec(folder, store, DEPLOY, &[]);
    assert!(deploy.status.success(), "{deploy:?}");
    assert_eq!(tree(&folder.join("out")), declared(count));
    let again = spec(folder, store, DEPLOY, &[]);
    let stdout = text(&again.stdout);
    assert!(stdout.contains(&format!("{count} unchanged")), "{stdout}");
    let drift = spec(
        folder,
        store,
        &["drift", "bp.yaml", "--instance", "dev"],
        &[],
    );
    assert_eq!(drift.status.code(), Some(0), "{drift:?}");
}

fn a_crash_around_a_provider_call_converges(store: &str) {
    for point in ["before-call", "after-call"] {
        let (_scratch, folder) = scratch_with(&files_blueprint(5));
        let crashed = spec(&folder, store, DEPLOY, &[("STRATA_FAILPOINT", point)]);
        assert!(!crashed.status.success(), "{point}: {crashed:?}");
        converges(&folder, store, 5);
        let recovered = spec(
            &folder,
            store,
            &["state", "export", "--instance", "dev"],
            &[],
        );
        assert!(recovered.status.success());
    }
}

fn random_kills_of_a_large_deploy_converge(store: &str) {
    let count = 1_000;
    let (_scratch, folder) = scratch_with(&files_blueprint(count));
    // Deterministic "random" moments: a linear congruential sequence.
    let mut seed: u64 = 0x5eed;
    for _ in 0..8 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let delay = Duration::from_millis(50 + (seed >> 33) % 600);
        let mut child = command(&folder, store, DEPLOY)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("strata starts");
        std::thread::sleep(delay);
        // SIGKILL: nothing runs after it.
        let _ = child.kill();
        let _ = child.wait();
    }
    converges(&folder, store, count);
}

fn a_held_state_is_exit_3_and_free_once_its_holder_is_killed(store: &str) {
    let (_scratch, folder) = scratch_with(&files_blueprint(2));
    let mut holder = command(&folder, store, DEPLOY)
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
    let refused = spec(&folder, store, DEPLOY, &[]);
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("spec/locked"), "{stderr}");
    assert!(
        stderr.contains(&format!("held by process {}", holder.id())),
        "{stderr}"
    );
    let unlock = spec(
        &folder,
        store,
        &["state", "unlock", "--instance", "dev"],
        &[],
    );
    assert_eq!(unlock.status.code(), Some(3));
    holder.kill().expect("killed");
    holder.wait().expect("reaped");
    // No unlock needed: the kernel released the lock with the process.
    converges(&folder, store, 2);
}

fn of_two_deploys_started_at_once_one_applies(store: &str) {
    for round in 0..5 {
        let (_scratch, folder) = scratch_with(&files_blueprint(20));
        let start = || {
            command(&folder, store, DEPLOY)
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

fn something_foreign_where_a_change_was_interrupted_is_exit_4(store: &str) {
    let (_scratch, folder) = scratch_with(&files_blueprint(1));
    let crashed = spec(
        &folder,
        store,
        DEPLOY,
        &[("STRATA_FAILPOINT", "before-call")],
    );
    assert!(!crashed.status.success());
    std::fs::create_dir_all(folder.join("out/d0")).expect("made");
    std::fs::write(folder.join("out/d0/f0.txt"), "someone else's").expect("written");
    let refused = spec(&folder, store, DEPLOY, &[]);
    assert_eq!(refused.status.code(), Some(4), "{refused:?}");
    assert!(text(&refused.stderr).contains("spec/recovery"));
    assert_eq!(
        std::fs::read_to_string(folder.join("out/d0/f0.txt")).expect("kept"),
        "someone else's"
    );
}

fn a_secret_is_never_printed_and_masked_in_exports(store: &str) {
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
exports:
  token: {type: string, field: variables.token}
  credentials: {type: string, field: resources.credentials.spec.value}
";
    let (_scratch, folder) = scratch_with(blueprint);
    let deploy = spec(
        &folder,
        store,
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
    assert!(text(&deploy.stdout).contains("  token = \"********\"\n"));
    assert!(!text(&deploy.stderr).contains("hunter2"));
    let export = spec(
        &folder,
        store,
        &["state", "export", "--instance", "dev"],
        &[],
    );
    assert!(!text(&export.stdout).contains("hunter2"), "{export:?}");
    assert!(text(&export.stdout).contains("\"token\": \"********\""));
    assert!(text(&export.stdout).contains("\"credentials\": \"********\""));
    let show = spec(&folder, store, &["state", "show", "--instance", "dev"], &[]);
    assert!(!text(&show.stdout).contains("hunter2"), "{show:?}");
    let shown = spec(
        &folder,
        store,
        &["state", "export", "--instance", "dev", "--show-secrets"],
        &[],
    );
    assert!(text(&shown.stdout).contains("hunter2"));
}

#[test]
fn a_deploy_makes_the_declared_files_and_reads_states_it_recorded_sqlite() {
    a_deploy_makes_the_declared_files_and_reads_states_it_recorded(SQLITE);
}

#[test]
fn drift_is_named_and_repaired_sqlite() {
    drift_is_named_and_repaired(SQLITE);
}

#[test]
fn a_failure_is_undone_or_kept_as_asked_sqlite() {
    a_failure_is_undone_or_kept_as_asked(SQLITE);
}

#[test]
fn a_crash_around_a_provider_call_converges_sqlite() {
    a_crash_around_a_provider_call_converges(SQLITE);
}

#[test]
fn random_kills_of_a_large_deploy_converge_sqlite() {
    random_kills_of_a_large_deploy_converge(SQLITE);
}

#[test]
fn a_held_state_is_exit_3_and_free_once_its_holder_is_killed_sqlite() {
    a_held_state_is_exit_3_and_free_once_its_holder_is_killed(SQLITE);
}

#[test]
fn of_two_deploys_started_at_once_one_applies_sqlite() {
    of_two_deploys_started_at_once_one_applies(SQLITE);
}

#[test]
fn something_foreign_where_a_change_was_interrupted_is_exit_4_sqlite() {
    something_foreign_where_a_change_was_interrupted_is_exit_4(SQLITE);
}

#[test]
fn a_secret_is_never_printed_and_masked_in_exports_sqlite() {
    a_secret_is_never_printed_and_masked_in_exports(SQLITE);
}

#[test]
fn every_guarantee_holds_with_postgresql() {
    let server = postgres::Postgres::start();
    a_deploy_makes_the_declared_files_and_reads_states_it_recorded(
        &server.database("a_deploy_makes_the_declared_files_and_re"),
    );
    drift_is_named_and_repaired(&server.database("drift_is_named_and_repaired"));
    a_failure_is_undone_or_kept_as_asked(&server.database("a_failure_is_undone_or_kept_as_asked"));
    a_crash_around_a_provider_call_converges(
        &server.database("a_crash_around_a_provider_call_converges"),
    );
    random_kills_of_a_large_deploy_converge(
        &server.database("random_kills_of_a_large_deploy_converge"),
    );
    a_held_state_is_exit_3_and_free_once_its_holder_is_killed(
        &server.database("a_held_state_is_exit_3_and_free_once_its"),
    );
    of_two_deploys_started_at_once_one_applies(
        &server.database("of_two_deploys_started_at_once_one_appli"),
    );
    something_foreign_where_a_change_was_interrupted_is_exit_4(
        &server.database("something_foreign_where_a_change_was_int"),
    );
    a_secret_is_never_printed_and_masked_in_exports(
        &server.database("a_secret_is_never_printed_and_masked_in_"),
    );
    an_included_blueprint_deploys_with_its_parent(&server.database("includes"));
    a_writer_that_lost_its_lock_cannot_write(&server.database("fencing"));
}

/// A deploy whose lock was ended (`state unlock --force`, for a holder that
/// cannot be reached) while it worked, and another deploy that then took
/// the lock and finished: the first one's next write is refused by the
/// epoch, and the state is the second one's.
fn a_writer_that_lost_its_lock_cannot_write(store: &str) {
    let (_scratch, folder) = scratch_with(&files_blueprint(3));
    let stale = command(&folder, store, DEPLOY)
        .env("STRATA_FAILPOINT", "after-call:sleep")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strata starts");
    for _ in 0..100 {
        if folder.join("out/d0/f0.txt").is_file() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let ended = spec(
        &folder,
        store,
        &["state", "unlock", "--instance", "dev", "--force"],
        &[],
    );
    assert!(ended.status.success(), "{ended:?}");
    let took_over = spec(&folder, store, DEPLOY, &[]);
    assert!(took_over.status.success(), "{took_over:?}");
    let stale = stale.wait_with_output().expect("ran");
    assert_eq!(stale.status.code(), Some(1), "{stale:?}");
    assert!(
        text(&stale.stderr).contains("no longer holds the state's lock"),
        "{stale:?}"
    );
    converges(&folder, store, 3);
}

/// A blueprint including another: the parent reads `${children.site.…}`.
const PARENT: &str = "version: 2023-04-20
include:
  site:
    path: site.yaml
    variables:
      folder: out/site
resources:
  index:
    type: core/file
    spec:
      path: out/index.txt
      content: ${children.site.pageDigest}
exports:
  pageDigest:
    type: string
    field: children.site.pageDigest
";

/// The included blueprint: `copy` reads `page`'s state; its export too.
const CHILD: &str = "version: 2023-04-20
variables:
  folder:
    type: string
resources:
  page:
    type: core/file
    spec: {path: '${variables.folder}/page.txt', content: hello}
  copy:
    type: core/file
    spec:
      path: ${variables.folder}/copy.txt
      content: ${resources.page.state.sha256}
exports:
  pageDigest:
    type: string
    field: resources.page.state.sha256
";

/// The digest of `hello`.
const HELLO_SHA256: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

/// A blueprint with an include deploys the child's resources in the
/// child's order, before the parent's resources that read its exports;
/// its state nests them under `children`; drift and destroy reach them;
/// a resource the child drops, and the child the parent drops, are
/// deleted; a failure in the child undoes the parent's changes too.
fn an_included_blueprint_deploys_with_its_parent(store: &str) {
    let (_scratch, folder) = scratch_with(PARENT);
    std::fs::write(folder.join("site.yaml"), CHILD).expect("written");
    let first = text_of(&spec(&folder, store, DEPLOY, &[]));
    assert!(
        first.contains("created children.site.page\ncreated children.site.copy\ncreated index\n"),
        "{first}"
    );
    assert!(
        first.ends_with(&format!("Exports:\n  pageDigest = \"{HELLO_SHA256}\"\n")),
        "{first}"
    );
    let deployed = [
        format!("index.txt = {HELLO_SHA256}"),
        format!("site/copy.txt = {HELLO_SHA256}"),
        "site/page.txt = hello".to_owned(),
    ];
    assert_eq!(tree(&folder.join("out")), deployed);
    let again = text_of(&spec(&folder, store, DEPLOY, &[]));
    assert!(
        again.contains("0 to create, 0 to update, 0 to replace, 0 to delete, 3 unchanged"),
        "{again}"
    );
    let state = exported(&folder, store);
    let site = &state["children"]["site"];
    assert_eq!(
        site["resources"]["page"]["state"]["sha256"], HELLO_SHA256,
        "{state}"
    );
    assert_eq!(site["exports"]["pageDigest"], HELLO_SHA256, "{state}");
    assert_eq!(
        state["resources"].as_object().map(serde_json::Map::len),
        Some(1)
    );
    // Recorded for deleting in reverse order once the blueprint is gone,
    // named within the record's own blueprint.
    assert_eq!(
        state["resources"]["index"]["dependsOn"],
        serde_json::json!(["children.site"])
    );
    assert_eq!(
        site["resources"]["copy"]["dependsOn"],
        serde_json::json!(["page"])
    );
    // A JSON state exported plans as the store does: nothing to do.
    std::fs::write(folder.join("state.json"), state.to_string()).expect("written");
    let plan = Command::new(env!("CARGO_BIN_EXE_strata"))
        .current_dir(&folder)
        .args(["spec", "plan", "bp.yaml", "--state", "state.json"])
        .output()
        .expect("strata runs");
    assert!(text(&plan.stdout).contains("3 unchanged"), "{plan:?}");

    std::fs::write(folder.join("out/site/page.txt"), "edited").expect("edited");
    let drift = spec(
        &folder,
        store,
        &["drift", "bp.yaml", "--instance", "dev"],
        &[],
    );
    assert_eq!(drift.status.code(), Some(2), "{drift:?}");
    assert!(
        text(&drift.stdout).contains("~ children.site.page: changed `content`"),
        "{drift:?}"
    );
    assert!(spec(&folder, store, DEPLOY, &[]).status.success());
    assert_eq!(tree(&folder.join("out")), deployed);
    an_included_blueprint_fails_and_goes_with_its_parent(&folder, store, &deployed);
}

/// The second half of `an_included_blueprint_deploys_with_its_parent`,
/// from its deployed instance: a failure in the child undoes the parent's
/// changes too; a resource the child drops, and the child the parent
/// drops, are deleted.
fn an_included_blueprint_fails_and_goes_with_its_parent(
    folder: &Path,
    store: &str,
    deployed: &[String],
) {
    // A regular file where the child's folder should be: the child fails
    // after the parent's `note` (in the same group, before it) was
    // created and the child's `page` deleted to move it; both undone.
    let failing = PARENT.replace("out/site", "out/index.txt/site").replace(
        "resources:\n",
        "resources:\n  note:\n    type: core/file\n    spec: {path: out/note.txt, content: note}\n",
    );
    std::fs::write(folder.join("bp.yaml"), failing).expect("written");
    let failed = spec(folder, store, DEPLOY, &[]);
    assert_eq!(failed.status.code(), Some(1), "{failed:?}");
    // `note` created, `page` deleted to be made again elsewhere: undone.
    let stderr = text(&failed.stderr);
    assert!(
        stderr.contains("create of `children.site.page` failed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("2 change(s) of this deploy undone"),
        "{stderr}"
    );
    assert_eq!(tree(&folder.join("out")), deployed);

    std::fs::write(folder.join("bp.yaml"), PARENT).expect("written");
    let without_copy = CHILD.replace("  copy:\n    type: core/file\n    spec:\n      path: ${variables.folder}/copy.txt\n      content: ${resources.page.state.sha256}\n", "");
    std::fs::write(folder.join("site.yaml"), without_copy).expect("written");
    let dropped = text_of(&spec(folder, store, DEPLOY, &[]));
    assert!(dropped.contains("deleted children.site.copy"), "{dropped}");
    let alone = "version: 2023-04-20\nresources:\n  index:\n    type: core/file\n    spec: {path: out/index.txt, content: alone}\n";
    std::fs::write(folder.join("bp.yaml"), alone).expect("written");
    let no_child = text_of(&spec(folder, store, DEPLOY, &[]));
    assert!(
        no_child.contains("deleted children.site.page"),
        "{no_child}"
    );
    assert_eq!(tree(&folder.join("out")), ["index.txt = alone"]);
    let state = exported(folder, store);
    assert_eq!(state["children"], serde_json::json!({}), "{state}");
}

/// `state export` of instance `dev`.
fn exported(folder: &Path, store: &str) -> serde_json::Value {
    let export = spec(
        folder,
        store,
        &["state", "export", "--instance", "dev"],
        &[],
    );
    serde_json::from_slice(&export.stdout).expect("a JSON state")
}

#[test]
fn an_included_blueprint_deploys_with_its_parent_sqlite() {
    an_included_blueprint_deploys_with_its_parent(SQLITE);
}

/// A plan after a deploy reads the states recorded: nothing to do when
/// nothing changed; when a resource changes, what reads its state is
/// known only after the deploy, and the deploy then updates it too.
#[test]
fn a_plan_knows_what_waits_on_a_changing_state() {
    let blueprint = "version: 2023-04-20
variables:
  text: {type: string}
resources:
  page:
    type: core/file
    spec: {path: out/page.txt, content: '${variables.text}'}
  digest:
    type: core/file
    spec: {path: out/digest.txt, content: '${resources.page.state.sha256}'}
";
    let (_scratch, folder) = scratch_with(blueprint);
    let deploy = |text: &str| {
        spec(
            &folder,
            SQLITE,
            &[
                "deploy",
                "bp.yaml",
                "--instance",
                "dev",
                "--var",
                &format!("text={text}"),
            ],
            &[],
        )
    };
    let plan = |text: &str| {
        let args = [
            "plan",
            "bp.yaml",
            "--instance",
            "dev",
            "--var",
            &format!("text={text}"),
        ];
        text_of(&spec(&folder, SQLITE, &args, &[]))
    };
    assert!(deploy("one").status.success());
    assert!(plan("one").contains("0 to update, 0 to replace, 0 to delete, 2 unchanged"));
    let changed = plan("two");
    assert!(
        changed.contains("(known after deploy: resources.page.state.sha256)"),
        "{changed}"
    );
    assert!(changed.contains("2 to update"), "{changed}");
    let applied = deploy("two");
    assert!(
        text(&applied.stdout).contains("updated page\nupdated digest\n"),
        "{applied:?}"
    );
    let digest = std::fs::read_to_string(folder.join("out/digest.txt")).expect("written");
    assert_eq!(
        digest,
        "3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3"
    );
}

fn text_of(output: &Output) -> String {
    assert!(output.status.success(), "{output:?}");
    text(&output.stdout)
}

/// A blueprint written as Bluelink users write them (values built with
/// functions, a resource template over a list, a condition, labels,
/// descriptions, exports) deploys, follows a change of its variables
/// (replacing what moved, deleting what its condition no longer keeps),
/// shows no drift, and is destroyed without a file left.
#[test]
fn a_bluelink_shaped_blueprint_deploys_moves_and_is_destroyed() {
    let blueprint = r#"version: 2023-04-20
variables:
  environment:
    type: string
    description: The environment to deploy to.
    default: staging
  sites:
    type: string
    default: '["alpha","beta"]'
values:
  baseDir:
    type: string
    value: out/${variables.environment}
  siteList:
    type: array
    value: ${jsondecode(variables.sites)}
resources:
  config:
    type: core/value
    metadata:
      displayName: Shared configuration
      labels: {app: sites}
    spec:
      value: ${to_upper(variables.environment)}
  sitePage:
    type: core/file
    description: One page per site.
    metadata:
      labels: {app: sites}
    each: ${values.siteList}
    spec:
      path: ${values.baseDir}/${elem}.html
      content: "<h1>${elem} (${resources.config.spec.value})</h1>"
  index:
    type: core/file
    condition: ${eq(variables.environment, "staging")}
    spec:
      path: ${values.baseDir}/index.txt
      content: ${join(values.siteList, ",")}
exports:
  indexPath:
    type: string
    field: resources.index.spec.path
"#;
    let (_scratch, folder) = scratch_with(blueprint);
    let first = spec(&folder, SQLITE, DEPLOY, &[]);
    let first = text_of(&first);
    assert!(first.contains("4 to create, 0 to update"), "{first}");
    assert!(
        first.ends_with("\nExports:\n  indexPath = \"out/staging/index.txt\"\n"),
        "{first}"
    );
    assert_eq!(
        tree(&folder.join("out")),
        [
            "staging/alpha.html = <h1>alpha (STAGING)</h1>",
            "staging/beta.html = <h1>beta (STAGING)</h1>",
            "staging/index.txt = alpha,beta",
        ]
    );
    let prod = [DEPLOY, &["--var", "environment=prod"]].concat();
    let moved = text_of(&spec(&folder, SQLITE, &prod, &[]));
    assert!(
        moved.contains("0 to create, 1 to update, 2 to replace, 1 to delete"),
        "{moved}"
    );
    assert_eq!(
        tree(&folder.join("out")),
        [
            "prod/alpha.html = <h1>alpha (PROD)</h1>",
            "prod/beta.html = <h1>beta (PROD)</h1>",
        ]
    );
    let drift = [
        &["drift", "bp.yaml", "--instance", "dev"][..],
        &["--var", "environment=prod"],
    ]
    .concat();
    assert_eq!(spec(&folder, SQLITE, &drift, &[]).status.code(), Some(0));
    let destroyed = spec(&folder, SQLITE, &["destroy", "--instance", "dev"], &[]);
    assert!(destroyed.status.success(), "{destroyed:?}");
    assert!(tree(&folder.join("out")).is_empty());
    let export = text_of(&spec(
        &folder,
        SQLITE,
        &["state", "export", "--instance", "dev"],
        &[],
    ));
    assert!(export.contains("\"resources\": {}"), "{export}");
}

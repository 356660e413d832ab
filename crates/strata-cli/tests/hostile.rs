//! Hostile input through the binary, for every dialect: each case is a
//! project made to hurt (a 100 MB file, a mapping of a million keys, a
//! 10,000-long chain, a 64 KiB expression, a Jsonnet program that
//! allocates without end, a symlink loop, a file that is not UTF-8, a FIFO
//! where a YAML file is expected), and each run must end by itself, with
//! the exit status and diagnostic codes the case expects. A run is killed,
//! and the test fails, after [`KILL_AFTER`].
//!
//! The same cases are measured (wall time and peak memory, for the
//! manual's reliability page, `docs/src/reliability.md`) by the ignored test
//! at the end:
//!
//! ```sh
//! cargo test --release -p strata-cli --test hostile -- --ignored --nocapture
//! ```
#![cfg(unix)]
#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a test stops at the first surprise"
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

#[path = "hostile/surfaces.rs"]
mod surfaces;

/// How long a run may take before the test calls it a hang (a debug
/// build, on a loaded machine; the release build ends each case in
/// seconds, see `docs/src/reliability.md`).
const KILL_AFTER: Duration = Duration::from_mins(2);

/// The memory limit the cases run under: far above what any of them
/// needs, so only a run that grows without end meets it.
const MEMORY_LIMIT: &str = "2GiB";

/// One hostile run: a command in a folder, and what must come of it.
struct Case {
    dialect: &'static str,
    name: &'static str,
    dir: PathBuf,
    args: Vec<&'static str>,
    /// The exit status expected.
    exit: i32,
    /// The distinct codes the diagnostics must name, in order: these and
    /// no other (no follow-on noise beside the one clear error).
    codes: &'static [&'static str],
}

/// What a run did.
struct Run {
    status: ExitStatus,
    stdout_bytes: u64,
    diagnostics: String,
    elapsed: Duration,
}

/// Writes `text` at `path`, making its folders.
fn write(path: &Path, text: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
    std::fs::write(path, text).expect("a case file");
}

fn fifo(path: &Path) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo");
}

fn symlink_loop(folder: &Path) {
    std::os::unix::fs::symlink(
        format!(
            "../{}",
            folder.file_name().and_then(|n| n.to_str()).expect("a name")
        ),
        folder.join("self"),
    )
    .expect("a symlink");
}

/// `head` then lines `{indent}K: vvv...` up to 100 MB.
fn hundred_megabytes(head: &str, indent: &str) -> Vec<u8> {
    let line = format!("{indent}K: {}\n", "v".repeat(90));
    let mut text = head.as_bytes().to_vec();
    while text.len() < 100 * 1024 * 1024 {
        text.extend_from_slice(line.as_bytes());
    }
    text
}

/// `head` then a million lines `{indent}K{n}: v`.
fn million_keys(head: &str, indent: &str) -> String {
    let mut text = head.to_owned();
    for key in 0..1_000_000 {
        let _ = writeln!(text, "{indent}K{key}: v");
    }
    text
}

/// `head` (ending in a key) then a 400 kB string anchored there, then a
/// key `refs` at `indent` with `- *a` items up to 1 MiB: 86 GB of text
/// once expanded.
fn aliased_string(head: &str, indent: &str) -> String {
    let mut text = format!("{head} &a {}\n{indent}refs:\n", "x".repeat(400_000));
    let mut reference = String::new();
    let _ = writeln!(reference, "{indent}  - *a");
    while text.len() < 1024 * 1024 {
        text.push_str(&reference);
    }
    text
}

/// `head` then bytes that are not UTF-8, then `tail`.
fn not_utf8(head: &str, tail: &str) -> Vec<u8> {
    [head.as_bytes(), b"\xff\xfe", tail.as_bytes()].concat()
}

const QBEC: &str = "apiVersion: qbec.io/v1alpha1\nkind: App\nmetadata: {name: a}\nspec:\n  libPaths: [lib]\n  environments: {dev: {server: https://dev.example.com}}\n";
const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n";
const WINDSOR: &str = "version: v1alpha1\ncontexts:\n  local:\n    provider: local\n";
const WINDSOR_BLUEPRINT: &str =
    "kind: Blueprint\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata: {name: a}\n";
const FEATURE: &str =
    "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata: {name: a}\n";
const PROFILE: &str = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: ClusterProfile\nmetadata: {name: c}\nspec: {}\n";
const APPLICATION: &str = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Application\nmetadata: {name: a, namespace: a}\nspec:\n  components:\n    - name: web\n      type: webservice\n      properties:\n        image: x\n        env:\n";
const SPEC_RESOURCE: &str =
    "version: 2023-04-20\nresources:\n  a:\n    type: aws/s3/bucket\n    spec:\n";
/// A Jsonnet program that asks for an array of a billion numbers, which
/// jrsonnet fills one by one (tens of gigabytes).
const ALLOCATES_WITHOUT_END: &str = "std.makeArray(1e9, function(i) i)\n";

/// Every case, its inputs written under `root`.
#[expect(
    clippy::too_many_lines,
    reason = "one list of cases, dialect by dialect"
)]
fn cases(root: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut case = |dialect, name, dir: PathBuf, args: Vec<&'static str>, exit, codes| {
        cases.push(Case {
            dialect,
            name,
            dir,
            args,
            exit,
            codes,
        });
    };

    // Platform: catalogue folders, `platform check`.
    let platform = root.join("platform");
    let check = || vec!["platform", "check", "."];
    write(
        &platform.join("big/a.yaml"),
        hundred_megabytes("name: a\nimage: x\nenv:\n", "  "),
    );
    case(
        "platform",
        "a 100 MB file",
        platform.join("big"),
        check(),
        1,
        &["syntax/too-large"],
    );
    write(
        &platform.join("keys/a.yaml"),
        million_keys("name: a\nimage: x\nenv:\n", "  "),
    );
    case(
        "platform",
        "one mapping of a million keys (12 MB)",
        platform.join("keys"),
        check(),
        0,
        &[],
    );
    write(
        &platform.join("aliases/a.yaml"),
        aliased_string("name: a\nimage: x\ndescription:", ""),
    );
    case(
        "platform",
        "a 1 MiB file aliasing a 400 kB string",
        platform.join("aliases"),
        check(),
        1,
        &["syntax/alias-expansion"],
    );
    let mut chain = String::from("blueprints:\n  - name: b0\n    isTemplate: true\n    image: x\n");
    for n in 1..10_000 {
        let _ = writeln!(
            chain,
            "  - name: b{n}\n    template: b{}\n    isTemplate: true",
            n - 1
        );
    }
    write(&platform.join("chain/a.yaml"), chain);
    case(
        "platform",
        "a 10,000-deep template chain",
        platform.join("chain"),
        check(),
        1,
        &["platform/template-too-deep"],
    );
    case(
        "platform",
        "a 10,000-deep template chain, listed",
        platform.join("chain"),
        vec!["platform", "list", "--strict", "."],
        1,
        &["platform/template-too-deep"],
    );
    write(
        &platform.join("expr/a.yaml"),
        format!(
            "name: a\nimage: x\nhostname: !cel \"{}'a'\"\n",
            "'a' + ".repeat(10_922)
        ),
    );
    case(
        "platform",
        "a 64 KiB `!cel` expression",
        platform.join("expr"),
        check(),
        1,
        &["cel/limit"],
    );
    write(&platform.join("loop/a.yaml"), "name: a\nimage: x\n");
    symlink_loop(&platform.join("loop"));
    case(
        "platform",
        "a symlink loop in the folder",
        platform.join("loop"),
        check(),
        0,
        &[],
    );
    write(
        &platform.join("utf8/a.yaml"),
        not_utf8("name: a\nimage: ", "\n"),
    );
    case(
        "platform",
        "a file that is not UTF-8",
        platform.join("utf8"),
        check(),
        1,
        &["io/not-utf8"],
    );
    write(&platform.join("fifo/a.yaml"), "name: a\nimage: x\n");
    fifo(&platform.join("fifo/pipe.yaml"));
    case(
        "platform",
        "a FIFO named `pipe.yaml`",
        platform.join("fifo"),
        check(),
        1,
        &["io/not-a-file"],
    );

    // Components: qbec applications, `components render --env dev`.
    let components = root.join("components");
    let render = || vec!["components", "render", "--env", "dev", "."];
    let app = |name: &str, file: &str, text: &[u8]| {
        let dir = components.join(name);
        write(&dir.join("qbec.yaml"), QBEC);
        write(&dir.join("components").join(file), text);
        dir
    };
    let dir = app("big", "a.yaml", &hundred_megabytes(CONFIG_MAP, "  "));
    case(
        "components",
        "a 100 MB file",
        dir,
        render(),
        1,
        &["syntax/too-large"],
    );
    let dir = app("keys", "a.yaml", million_keys(CONFIG_MAP, "  ").as_bytes());
    case(
        "components",
        "one mapping of a million keys (12 MB)",
        dir,
        render(),
        0,
        &[],
    );
    let dir = app(
        "aliases",
        "a.yaml",
        aliased_string(&format!("{CONFIG_MAP}  a:"), "  ").as_bytes(),
    );
    case(
        "components",
        "a 1 MiB file aliasing a 400 kB string",
        dir,
        render(),
        1,
        &["syntax/alias-expansion"],
    );
    let dir = app("chain", "a.jsonnet", b"import 'i0.libsonnet'\n");
    for n in 0..9_999 {
        write(
            &dir.join(format!("lib/i{n}.libsonnet")),
            format!("import 'i{}.libsonnet'\n", n + 1),
        );
    }
    write(
        &dir.join("lib/i9999.libsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'deep' } }\n",
    );
    case(
        "components",
        "a 10,000-deep import chain",
        dir,
        render(),
        1,
        &["jsonnet/eval"],
    );
    let program = format!(
        "{{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: 'a' }}, data: {{ n: std.toString({}1) }} }}\n",
        "1 + ".repeat(16_383)
    );
    let dir = app("expr", "a.jsonnet", program.as_bytes());
    case(
        "components",
        "a 64 KiB expression (16,384 additions)",
        dir,
        render(),
        0,
        &[],
    );
    let dir = app("alloc", "a.jsonnet", ALLOCATES_WITHOUT_END.as_bytes());
    case(
        "components",
        "a program that allocates without end",
        dir,
        render(),
        1,
        &["run/memory-limit"],
    );
    let config_map = b"{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }\n";
    let dir = app("loop", "a.jsonnet", config_map);
    symlink_loop(&dir.join("components"));
    case(
        "components",
        "a symlink loop in the folder",
        dir,
        render(),
        0,
        &[],
    );
    let dir = app("utf8", "a.yaml", &not_utf8(CONFIG_MAP, "\n"));
    case(
        "components",
        "a file that is not UTF-8",
        dir,
        render(),
        1,
        &["io/not-utf8"],
    );
    let dir = app("fifo", "a.jsonnet", config_map);
    fifo(&dir.join("components/pipe.yaml"));
    case(
        "components",
        "a FIFO named `pipe.yaml`",
        dir,
        render(),
        1,
        &["io/not-a-file"],
    );

    // Features: Windsor projects, `features render --context local`.
    let features = root.join("features");
    let render = || vec!["features", "render", ".", "--context", "local"];
    let project = |name: &str, feature: &[u8]| {
        let dir = features.join(name);
        write(&dir.join("windsor.yaml"), WINDSOR);
        write(
            &dir.join("contexts/_template/blueprint.yaml"),
            WINDSOR_BLUEPRINT,
        );
        write(&dir.join("contexts/_template/features/a.yaml"), feature);
        dir
    };
    let substitutions =
        format!("{FEATURE}kustomize:\n  - name: a\n    path: a\n    substitutions:\n");
    let dir = project("big", &hundred_megabytes(&substitutions, "      "));
    case(
        "features",
        "a 100 MB file",
        dir,
        render(),
        1,
        &["syntax/too-large"],
    );
    let dir = project("keys", million_keys(&substitutions, "      ").as_bytes());
    case(
        "features",
        "one mapping of a million keys (12 MB)",
        dir,
        render(),
        0,
        &[],
    );
    let dir = project(
        "aliases",
        aliased_string(&format!("{FEATURE}description:"), "").as_bytes(),
    );
    case(
        "features",
        "a 1 MiB file aliasing a 400 kB string",
        dir,
        render(),
        1,
        &["syntax/alias-expansion"],
    );
    let mut chain = format!("{FEATURE}kustomize:\n  - name: k0\n    path: k0\n");
    for n in 1..10_000 {
        let _ = writeln!(
            chain,
            "  - name: k{n}\n    path: k{n}\n    dependsOn: [k{}]",
            n - 1
        );
    }
    let dir = project("chain", chain.as_bytes());
    case(
        "features",
        "a 10,000-long `dependsOn` chain",
        dir,
        render(),
        0,
        &[],
    );
    let condition = format!(
        "{FEATURE}when: {}true\n",
        "provider == 'local' && ".repeat(2_730)
    );
    let dir = project("expr", condition.as_bytes());
    case(
        "features",
        "a 64 KiB `when` condition (2,731 terms)",
        dir,
        render(),
        1,
        &["cond/parse"],
    );
    let dir = project(
        "alloc",
        format!("{substitutions}      x: ${{jsonnet('bomb.jsonnet')}}\n").as_bytes(),
    );
    write(
        &dir.join("contexts/_template/features/bomb.jsonnet"),
        ALLOCATES_WITHOUT_END,
    );
    case(
        "features",
        "a `jsonnet()` file that allocates without end",
        dir,
        render(),
        1,
        &["run/memory-limit"],
    );
    let plain = format!("{FEATURE}kustomize:\n  - name: a\n    path: a\n");
    let dir = project("loop", plain.as_bytes());
    symlink_loop(&dir.join("contexts/_template/features"));
    case(
        "features",
        "a symlink loop in the folder",
        dir,
        render(),
        0,
        &[],
    );
    let dir = project(
        "utf8",
        &not_utf8(
            &format!("{FEATURE}kustomize:\n  - name: a\n    path: "),
            "\n",
        ),
    );
    case(
        "features",
        "a file that is not UTF-8",
        dir,
        render(),
        1,
        &["io/not-utf8"],
    );
    let dir = project("fifo", plain.as_bytes());
    fifo(&dir.join("contexts/_template/features/pipe.yaml"));
    case(
        "features",
        "a FIFO named `pipe.yaml`",
        dir,
        render(),
        1,
        &["io/not-a-file"],
    );

    // Capabilities: packages, `capabilities check app --profile profile.yaml`.
    let capabilities = root.join("capabilities");
    let check = || vec!["capabilities", "check", "app", "--profile", "profile.yaml"];
    let package = |name: &str, application: &[u8]| {
        let dir = capabilities.join(name);
        write(&dir.join("profile.yaml"), PROFILE);
        write(&dir.join("app/app.yaml"), application);
        dir
    };
    let dir = package("big", &hundred_megabytes(APPLICATION, "          "));
    case(
        "capabilities",
        "a 100 MB file",
        dir,
        check(),
        1,
        &["syntax/too-large"],
    );
    let dir = package("keys", million_keys(APPLICATION, "          ").as_bytes());
    case(
        "capabilities",
        "one mapping of a million keys (12 MB)",
        dir,
        check(),
        0,
        &[],
    );
    let dir = package(
        "aliases",
        aliased_string(&format!("{APPLICATION}          A:"), "          ").as_bytes(),
    );
    case(
        "capabilities",
        "a 1 MiB file aliasing a 400 kB string",
        dir,
        check(),
        1,
        &["syntax/alias-expansion"],
    );
    let plain = format!("{APPLICATION}          A: b\n");
    let dir = package("loop", plain.as_bytes());
    std::fs::create_dir_all(dir.join("app/definitions")).expect("a folder");
    symlink_loop(&dir.join("app/definitions"));
    case(
        "capabilities",
        "a symlink loop in the definitions folder",
        dir,
        check(),
        0,
        &[],
    );
    let dir = package(
        "utf8",
        &not_utf8(&format!("{APPLICATION}          A: \""), "\"\n"),
    );
    case(
        "capabilities",
        "a file that is not UTF-8",
        dir,
        check(),
        1,
        &["io/not-utf8"],
    );
    let dir = package("fifo", plain.as_bytes());
    fifo(&dir.join("app/definitions/pipe.yaml"));
    case(
        "capabilities",
        "a FIFO named `definitions/pipe.yaml`",
        dir,
        check(),
        1,
        &["io/not-a-file"],
    );

    // Spec: blueprints, `spec check blueprint.yaml`.
    let spec = root.join("spec");
    let check = || vec!["spec", "check", "blueprint.yaml"];
    let blueprint = |name: &str, text: &[u8]| {
        let dir = spec.join(name);
        write(&dir.join("blueprint.yaml"), text);
        dir
    };
    let tags = format!("{SPEC_RESOURCE}      tags:\n");
    let dir = blueprint("big", &hundred_megabytes(&tags, "        "));
    case(
        "spec",
        "a 100 MB file",
        dir,
        check(),
        1,
        &["syntax/too-large"],
    );
    let dir = blueprint("keys", million_keys(&tags, "        ").as_bytes());
    case(
        "spec",
        "one mapping of a million keys (12 MB)",
        dir,
        check(),
        0,
        &[],
    );
    let dir = blueprint(
        "aliases",
        aliased_string(&format!("{SPEC_RESOURCE}      name:"), "      ").as_bytes(),
    );
    case(
        "spec",
        "a 1 MiB file aliasing a 400 kB string",
        dir,
        check(),
        1,
        &["spec/yaml-alias", "syntax/alias-expansion"],
    );
    let mut chain =
        String::from("version: 2023-04-20\nvalues:\n  v0:\n    type: string\n    value: x\n");
    for n in 1..10_000 {
        let _ = writeln!(
            chain,
            "  v{n}:\n    type: string\n    value: ${{values.v{}}}",
            n - 1
        );
    }
    chain.push_str(
        "resources:\n  a:\n    type: aws/s3/bucket\n    spec:\n      name: ${values.v9999}\n",
    );
    let dir = blueprint("chain", chain.as_bytes());
    case(
        "spec",
        "a 10,000-long chain of values",
        dir,
        check(),
        0,
        &[],
    );
    let field = format!(
        "{SPEC_RESOURCE}      names: '${{list({}\"a\")}}'\n",
        "\"a\", ".repeat(13_100)
    );
    let dir = blueprint("expr", field.as_bytes());
    case(
        "spec",
        "a 64 KiB `${..}` field (a call of 13,101 arguments)",
        dir,
        check(),
        0,
        &[],
    );
    // Work, not size: an `each` over 60,000 items whose every instance
    // copies the 60,000 items; a `compose` of 10,000 functions mapped over
    // 10,000 items; a chain of includes where each file includes the next
    // twice (2⁴⁰ blueprints).
    let items: Vec<String> = (0..60_000).map(|n| format!("i{n}")).collect();
    let dir = blueprint(
        "each",
        format!(
            "version: 2023-04-20\nvalues:\n  csv:\n    type: string\n    value: \"{}\"\n  items:\n    type: array\n    value: ${{split(values.csv, \",\")}}\nresources:\n  r:\n    type: aws/sqs/queue\n    each: ${{values.items}}\n    spec:\n      name: ${{elem}}\n      all: ${{values.items}}\n",
            items.join(",")
        )
        .as_bytes(),
    );
    for verb in ["render", "plan", "graph"] {
        case(
            "spec",
            match verb {
                "render" => "an `each` of 60,000 copying them all, rendered",
                "plan" => "an `each` of 60,000 copying them all, planned",
                _ => "an `each` of 60,000 copying them all, graphed",
            },
            dir.clone(),
            vec!["spec", verb, "blueprint.yaml"],
            1,
            &["subst/step-limit"],
        );
    }
    let dir = blueprint(
        "compose",
        format!(
            "version: 2023-04-20\nvalues:\n  xs:\n    type: array\n    value: ${{split(\"{}\", \",\")}}\n  ys:\n    type: array\n    value: ${{map(values.xs, compose({}))}}\n{}      name: ${{len(values.ys)}}\n",
            vec!["a"; 10_000].join(","),
            vec!["trim"; 10_000].join(", "),
            &SPEC_RESOURCE["version: 2023-04-20\n".len()..]
        )
        .as_bytes(),
    );
    case(
        "spec",
        "a `compose` of 10,000 functions mapped over 10,000 items",
        dir,
        vec!["spec", "render", "blueprint.yaml"],
        1,
        &["subst/step-limit"],
    );
    let dir = spec.join("includes");
    for n in 0..40 {
        write(
            &dir.join(format!("b{n}.yaml")),
            format!(
                "version: 2023-04-20\ninclude:\n  x:\n    path: b{next}.yaml\n  y:\n    path: b{next}.yaml\n{}      name: r{n}\n",
                &SPEC_RESOURCE["version: 2023-04-20\n".len()..],
                next = n + 1
            ),
        );
    }
    write(
        &dir.join("b40.yaml"),
        format!("{SPEC_RESOURCE}      name: end\n"),
    );
    case(
        "spec",
        "40 files, each including the next twice",
        dir,
        vec!["spec", "render", "b0.yaml"],
        1,
        &["spec/too-many-includes"],
    );
    let dir = blueprint(
        "utf8",
        &not_utf8(&format!("{SPEC_RESOURCE}      name: \""), "\"\n"),
    );
    case(
        "spec",
        "a file that is not UTF-8",
        dir,
        check(),
        1,
        &["io/not-utf8"],
    );
    let dir = blueprint(
        "fifo",
        "version: 2023-04-20\ninclude:\n  child:\n    path: child.yaml\nresources:\n  a:\n    type: aws/s3/bucket\n    spec:\n      name: a\n".as_bytes(),
    );
    fifo(&dir.join("child.yaml"));
    case(
        "spec",
        "a FIFO where a child blueprint is expected",
        dir,
        vec!["spec", "render", "blueprint.yaml", "--root", "."],
        1,
        &["io/not-a-file"],
    );
    cases
}

/// Runs `case` with `program` before the binary (`/usr/bin/time`, say),
/// killed after [`KILL_AFTER`].
fn run(case: &Case, program: &[&str]) -> Run {
    let out = case.dir.join("strata.out");
    let err = case.dir.join("strata.err");
    let (first, rest) = program
        .split_first()
        .map_or((env!("CARGO_BIN_EXE_strata"), &[][..]), |(first, rest)| {
            (*first, rest)
        });
    let mut command = Command::new(first);
    command.args(rest);
    if !program.is_empty() {
        command.arg(env!("CARGO_BIN_EXE_strata"));
    }
    let started = Instant::now();
    let mut child = command
        .args(&case.args)
        .args(["--diagnostics", "json", "--memory-limit", MEMORY_LIMIT])
        .current_dir(&case.dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("an output file"))
        .stderr(std::fs::File::create(&err).expect("a diagnostics file"))
        .spawn()
        .expect("strata runs");
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child is waited for") {
            break status;
        }
        if started.elapsed() > KILL_AFTER {
            let _ = child.kill();
            panic!(
                "{} / {}: still running after {KILL_AFTER:?}",
                case.dialect, case.name
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        status,
        stdout_bytes: std::fs::metadata(&out).map_or(0, |m| m.len()),
        diagnostics: std::fs::read_to_string(&err).unwrap_or_default(),
        elapsed: started.elapsed(),
    }
}

/// The distinct codes of JSON diagnostic lines.
fn codes(diagnostics: &str) -> Vec<String> {
    let mut codes: Vec<String> = diagnostics
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|record| record["code"].as_str().map(str::to_owned))
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

#[test]
fn hostile_input_ends_in_a_clear_answer() {
    let root = tempfile::tempdir().expect("a scratch folder");
    let cases = cases(root.path());
    let mut problems = Vec::new();
    for case in &cases {
        let run = run(case, &[]);
        let found = codes(&run.diagnostics);
        if run.status.code() != Some(case.exit) || found != case.codes {
            problems.push(format!(
                "{} / {}: exit {:?} (expected {}), codes {found:?} (expected {:?}) in {:?}\n{}",
                case.dialect,
                case.name,
                run.status.code(),
                case.exit,
                case.codes,
                run.elapsed,
                run.diagnostics
                    .lines()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
        if case.exit != 0 && run.stdout_bytes > 0 {
            problems.push(format!(
                "{} / {}: a failed run wrote output",
                case.dialect, case.name
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The manual's table of hostile cases (`docs/src/reliability.md`): each
/// case's exit, codes, wall time and peak memory (`/usr/bin/time`),
/// measured with a release build.
#[test]
#[ignore = "a measurement: run with --release --ignored --nocapture"]
fn hostile_input_measured() {
    let root = tempfile::tempdir().expect("a scratch folder");
    let mut table = String::from(
        "| dialect | case | exit | codes | time | peak memory |\n|---|---|---|---|---|---|\n",
    );
    for case in &cases(root.path()) {
        let timing = case.dir.join("time.txt");
        let timing_arg = timing.to_str().expect("a UTF-8 path");
        let run = run(case, &["/usr/bin/time", "-o", timing_arg, "-f", "%e %M"]);
        let measured = std::fs::read_to_string(&timing).expect("/usr/bin/time wrote its figures");
        let mut figures = measured
            .lines()
            .last()
            .unwrap_or_default()
            .split_whitespace();
        let seconds = figures.next().unwrap_or("?");
        let kib: u64 = figures.next().and_then(|kib| kib.parse().ok()).unwrap_or(0);
        let codes = codes(&run.diagnostics);
        let codes = if codes.is_empty() {
            "-".to_owned()
        } else {
            codes
                .iter()
                .map(|code| format!("`{code}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            table,
            "| {} | {} | {} | {codes} | {seconds} s | {} MiB |",
            case.dialect,
            case.name,
            run.status
                .code()
                .map_or("killed".to_owned(), |code| code.to_string()),
            kib / 1024
        );
    }
    println!("{table}");
}

/// `strata platform serve` on the example catalogue under a memory limit,
/// and the address it listens on (read from its JSON log).
struct Service {
    child: std::process::Child,
    address: String,
}

impl Service {
    fn start(memory_limit: &str) -> Service {
        use std::io::{BufRead, BufReader};
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/platform");
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["platform", "serve", "catalogue", "--users", "users.yaml"])
            .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
            .args(["--memory-limit", memory_limit])
            .current_dir(examples)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("strata starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut lines = BufReader::new(stderr).lines().map_while(Result::ok);
        let address = lines
            .find_map(|line| {
                let event: serde_json::Value = serde_json::from_str(&line).ok()?;
                (event["message"] == "listening")
                    .then(|| event["address"].as_str().map(str::to_owned))?
            })
            .expect("the service logs its address");
        // Keep reading the log so the service never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Service { child, address }
    }

    /// Composes `body` as `grace`: the status and the body of the answer.
    fn compose(&self, content_type: &str, body: &[u8]) -> (u16, serde_json::Value) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(KILL_AFTER))
            .build()
            .into();
        let mut response = agent
            .post(&format!("http://{}/v1/compose", self.address))
            .header("Authorization", "Bearer grace-example-token")
            .header("Content-Type", content_type)
            .send(body)
            .expect("the service answers");
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().expect("a body");
        (status, serde_json::from_str(&text).expect("a JSON answer"))
    }

    /// The most resident memory the process has held, in MiB.
    fn peak_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the process is alive");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|kib| kib.trim().trim_end_matches(" kB").parse::<u64>().ok())
            .expect("VmHWM")
            / 1024
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const COMPOSE_METADATA: &str = r#""workspaceName": "w", "metadata": {"name": "n", "repoName": "r", "repoOwner": "o", "repoRef": "main", "repoAddress": "https://git.example.com/o/r.git"}"#;

//! A deterministic platform catalogue of [`BLUEPRINTS`] blueprints with
//! inheritance [`DEPTH`] levels deep, shared by `benches/catalogue.rs`
//! (which includes this file with `#[path = ...] mod catalogue;`).
//!
//! The tree of templates is a full [`FANOUT`]-ary tree: the root template
//! `base`, four language templates (`python`, `go`, ...), four stacks under
//! each (`python-web`, ..., `python-ops`), four teams under each stack
//! (`python-web-alpha`, ...), every one `isTemplate: true`. The remaining
//! blueprints are concrete workspaces, spread round-robin over the team
//! templates, so every concrete chain is `base -> language -> stack -> team
//! -> workspace`.
//!
//! Every blueprint has a realistic body: environment maps, storages (local
//! ones with a `claimSpec`, shared, `emptyDir`), `initScripts` (merged by
//! name), apps, resources, network egress (merged as a union, from the
//! settings file), podman for the `ops` stacks, and `!cel` scalars that read
//! `user`, `workspaceName`, `metadata` and `blueprint`. The root includes
//! its security context and every language template its first init scripts
//! from `shared/`.
//!
//! Files: the settings file, two included fragments, the root alone in one
//! file, the templates in `blueprints: [...]` files (the teams of odd stacks
//! as a top-level sequence), then [`SINGLE_FILES`] workspaces in files of
//! their own (half a bare mapping, half `blueprint: {...}`) and the rest
//! [`PER_FILE`] to a `blueprints: [...]` file: 100 files in all.
//!
//! The values that vary (versions, sizes, extra variables) come from a
//! `fastrand` sequence seeded per blueprint, so the text is the same on
//! every run and machine.

use std::fmt::Write as _;

use fastrand::Rng;

use strata_syntax::{Node, Value};

/// How many blueprints the catalogue holds, templates included.
pub(crate) const BLUEPRINTS: usize = 1_000;
/// The length of every concrete blueprint's chain, root to itself.
pub(crate) const DEPTH: usize = 5;
/// Children of each template above the workspaces.
pub(crate) const FANOUT: usize = 4;
/// Workspaces written to a file of their own.
pub(crate) const SINGLE_FILES: usize = 40;
/// Workspaces per `blueprints: [...]` file, after the single ones.
pub(crate) const PER_FILE: usize = 25;
/// The workspace the render benchmark composes: an `ops` stack (podman) in
/// a shared file.
pub(crate) const RENDERED: &str = "python-ops-alpha-ws076";

/// The request scope the render benchmark evaluates against.
pub(crate) const REQUEST_SCOPE: &str = "\
user:
  username: ada
  uid: 1001
  gid: 1001
  roles: [developer, admin]
  allowedBlueprints: ['*']
workspaceName: ada-payments-api-7f3c
metadata:
  name: Payments API
  repoName: payments-api
  repoOwner: acme
  repoRef: main
  repoAddress: https://git.example.com/acme/payments-api.git
";

/// The `!cel` scalars of [`RENDERED`] resolved over its chain: 17 written
/// along it, less the root's `hostname` and `splash`, which the workspace
/// and its language template override.
pub(crate) const RENDERED_CEL: usize = 15;

/// The host name [`RENDERED`] gets in [`REQUEST_SCOPE`].
pub(crate) const RENDERED_HOSTNAME: &str = "python-ops-alpha-ws076-ada.dev.example.com";

/// A language template: its name, image, a variable computed by CEL, and
/// the app it offers (name, binary, port).
struct Language {
    name: &'static str,
    image: &'static str,
    cache_var: &'static str,
    cache_dir: &'static str,
    app: &'static str,
    binary: &'static str,
    port: u16,
}

const LANGUAGES: [Language; FANOUT] = [
    Language {
        name: "python",
        image: "python:3.12",
        cache_var: "UV_CACHE_DIR",
        cache_dir: ".cache/uv",
        app: "jupyter",
        binary: "jupyter-lab",
        port: 8888,
    },
    Language {
        name: "go",
        image: "go:1.23",
        cache_var: "GOPATH",
        cache_dir: "go",
        app: "pkgsite",
        binary: "pkgsite",
        port: 6060,
    },
    Language {
        name: "node",
        image: "node:22",
        cache_var: "NPM_CONFIG_CACHE",
        cache_dir: ".npm",
        app: "storybook",
        binary: "storybook",
        port: 6006,
    },
    Language {
        name: "jvm",
        image: "temurin:21",
        cache_var: "GRADLE_USER_HOME",
        cache_dir: ".gradle",
        app: "jshell-server",
        binary: "jwebserver",
        port: 8000,
    },
];

const STACKS: [&str; FANOUT] = ["web", "data", "ml", "ops"];
const TEAMS: [&str; FANOUT] = ["alpha", "beta", "gamma", "delta"];
const MEMORY: &[&str] = &["2Gi", "4Gi", "6Gi", "8Gi", "12Gi", "16Gi"];
const STORAGE_CLASSES: &[&str] = &["ssd", "standard", "premium-rwo"];
const LOG_LEVELS: &[&str] = &["debug", "info", "warn"];

/// The generated catalogue.
pub(crate) struct Generated {
    /// Every file, path relative to the root and text, settings file first.
    pub files: Vec<(String, String)>,
    /// Templates among the blueprints.
    pub templates: usize,
    /// Concrete blueprints.
    pub concrete: usize,
}

impl Generated {
    /// The total size of the files, in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.files.iter().map(|(_, text)| text.len()).sum()
    }

    /// The `!cel` tags written in the files (each tags one scalar).
    pub(crate) fn cel_written(&self) -> usize {
        self.files
            .iter()
            .map(|(_, text)| text.matches("!cel ").count())
            .sum()
    }

    /// The files as an in-memory tree.
    pub(crate) fn memory_fs(&self) -> strata_fs::MemoryFs {
        self.files
            .iter()
            .fold(strata_fs::MemoryFs::new(), |fs, (path, text)| {
                fs.with(path, text)
            })
    }
}

/// The number of `!cel` scalars in a tree.
pub(crate) fn cel_scalars(node: &Node) -> usize {
    let own = usize::from(node.tag.as_ref().is_some_and(|tag| tag.as_str() == "!cel"));
    own + match &node.value {
        Value::Seq(items) => items.iter().map(cel_scalars).sum(),
        Value::Map(map) => map.values().map(|entry| cel_scalars(&entry.value)).sum(),
        _ => 0,
    }
}

/// Generates the catalogue.
pub(crate) fn generate() -> Generated {
    let mut files = vec![
        (".strata.yaml".to_owned(), SETTINGS.to_owned()),
        (
            "shared/security-context.yaml".to_owned(),
            SECURITY_CONTEXT.to_owned(),
        ),
        (
            "shared/init-scripts.yaml".to_owned(),
            INIT_SCRIPTS.to_owned(),
        ),
        ("templates/base.yaml".to_owned(), ROOT.to_owned()),
    ];
    let mut templates = 1;

    let languages: Vec<String> = LANGUAGES.iter().map(language).collect();
    templates += languages.len();
    files.push((
        "templates/languages.yaml".to_owned(),
        list_file("Language templates", &languages),
    ));

    let mut teams = Vec::new();
    for (l, lang) in LANGUAGES.iter().enumerate() {
        let stacks: Vec<String> = STACKS
            .iter()
            .enumerate()
            .map(|(s, stack)| stack_template(lang, s, stack))
            .collect();
        templates += stacks.len();
        files.push((
            format!("templates/stacks/{}.yaml", lang.name),
            list_file(&format!("Stacks of {}", lang.name), &stacks),
        ));
        for (s, stack) in STACKS.iter().enumerate() {
            let parent = format!("{}-{stack}", lang.name);
            let bodies: Vec<String> = TEAMS
                .iter()
                .enumerate()
                .map(|(t, team)| {
                    teams.push(format!("{parent}-{team}"));
                    team_template(&parent, (l * FANOUT + s) * FANOUT + t, team)
                })
                .collect();
            templates += bodies.len();
            let header = format!("Teams of {parent}");
            let text = if s % 2 == 0 {
                list_file(&header, &bodies)
            } else {
                sequence_file(&header, &bodies)
            };
            files.push((format!("templates/teams/{parent}.yaml"), text));
        }
    }

    let concrete = BLUEPRINTS - templates;
    let mut batch = Vec::new();
    for index in 0..concrete {
        let parent = &teams[index % teams.len()];
        let name = format!("{parent}-ws{index:03}");
        let body = workspace(parent, &name, index);
        if index < SINGLE_FILES {
            let lang = parent.split('-').next().unwrap_or_default();
            let text = if index % 2 == 0 {
                format!("# Workspace {name}\n{body}")
            } else {
                format!("# Workspace {name}\nblueprint:\n{}", indent(&body, "  "))
            };
            files.push((format!("workspaces/{lang}/{name}.yaml"), text));
        } else {
            batch.push(body);
            if batch.len() == PER_FILE || index + 1 == concrete {
                let number = (index - SINGLE_FILES) / PER_FILE;
                files.push((
                    format!("workspaces/batch-{number:02}.yaml"),
                    list_file(&format!("Workspaces, batch {number}"), &batch),
                ));
                batch.clear();
            }
        }
    }
    Generated {
        files,
        templates,
        concrete,
    }
}

const SETTINGS: &str = "\
# Catalogue settings: strategies over the platform defaults.
mergeStrategies:
  network.allowEgressToCIDRs: union
cel:
  allowEnv: false
";

const SECURITY_CONTEXT: &str = "\
# Included by the root template: what k8shelld needs to run.
runAsUser: 0
runAsGroup: 0
allowPrivilegeEscalation: true
capabilities:
  drop: [ALL]
  add: [CHOWN, SETUID, SETGID, DAC_OVERRIDE, FOWNER]
";

const INIT_SCRIPTS: &str = "\
# Included by every language template.
- name: git-config
  script: |
    git config --global init.defaultBranch main
    git config --global pull.rebase true
    git config --global fetch.prune true
- name: certificates
  script: update-ca-certificates --fresh
";

const ROOT: &str = "\
# The root template every workspace starts from.
name: base
description: Defaults every workspace starts from
isTemplate: true
image: registry.example.com/workspaces/base:2024.10
imagePullPolicy: IfNotPresent
hostname: !cel \"metadata.name + '-' + user.username\"
splash: !cel \"'Welcome, ' + user.username + '!'\"
k8shelld:
  image: registry.example.com/k8shelld:1.8.2
  imagePullPolicy: IfNotPresent
  ignoreOrphans: [ssh-agent]
  connection:
    allowAnyNS: false
    allowAnySA: false
env:
  TZ: UTC
  LANG: C.UTF-8
  EDITOR: vim
  WORKSPACE: !cel \"workspaceName\"
network:
  networkPolicyClass: workspace
  allowEgressToCIDRs: [10.20.0.0/16, 10.21.0.0/16]
resources:
  cpu: \"1\"
  memory: 2Gi
securityContext: !include ../shared/security-context.yaml
storages:
  home:
    enabled: true
    type: local
    path: !cel \"'/home/' + user.username\"
    fsOwnerUid: !cel \"user.uid\"
    fsOwnerGid: !cel \"user.gid\"
    claimSpec:
      accessModes: [ReadWriteOnce]
      storageClassName: ssd
      resources:
        requests:
          storage: 10Gi
  scratch:
    enabled: true
    type: emptyDir
    path: /scratch
    sizeLimit: 4Gi
extFiles:
  /etc/profile.d/strata.sh: |
    export PS1='\\u@\\h:\\w\\$ '
initScripts:
  - name: git-config
    script: git config --global init.defaultBranch main
  - name: motd
    script: echo \"workspace ready\" > /etc/motd
";

/// A `blueprints: [...]` file of `bodies`.
fn list_file(header: &str, bodies: &[String]) -> String {
    let mut out = format!("# {header}\nblueprints:\n");
    for body in bodies {
        out.push_str(&item(body, "  "));
    }
    out
}

/// A file holding a top-level sequence of `bodies`.
fn sequence_file(header: &str, bodies: &[String]) -> String {
    let mut out = format!("# {header}\n");
    for body in bodies {
        out.push_str(&item(body, ""));
    }
    out
}

/// `body` (a mapping at column 0) as a sequence item at `margin`.
fn item(body: &str, margin: &str) -> String {
    let mut out = String::with_capacity(body.len() + body.len() / 8);
    for (number, line) in body.lines().enumerate() {
        let lead = if number == 0 { "- " } else { "  " };
        let _ = writeln!(out, "{margin}{lead}{line}");
    }
    out
}

/// `body` with every line indented by `margin`.
fn indent(body: &str, margin: &str) -> String {
    body.lines().fold(String::new(), |mut out, line| {
        let _ = writeln!(out, "{margin}{line}");
        out
    })
}

/// A language template, below the root.
fn language(lang: &Language) -> String {
    let name = lang.name;
    let mut out = String::new();
    let _ = writeln!(out, "name: {name}");
    let _ = writeln!(
        out,
        "description: {name} development, with {} offered as an app",
        lang.app
    );
    out.push_str("isTemplate: true\ntemplate: base\n");
    let _ = writeln!(out, "image: registry.example.com/workspaces/{}", lang.image);
    let _ = writeln!(
        out,
        "env:\n  LANGUAGE: {name}\n  {}: !cel \"'/home/' + user.username + '/{}'\"",
        lang.cache_var, lang.cache_dir
    );
    let _ = writeln!(
        out,
        "resources:\n  cpu: \"2\"\n  memory: 4Gi\ninitScripts: !include ../shared/init-scripts.yaml"
    );
    let _ = writeln!(
        out,
        "enableApps: true\napps:\n  {app}:\n    name: {app}\n    enabled: true\n    binary: {binary}\n    versionCmd: [{binary}, --version]\n    versionRegex: '([0-9]+\\.[0-9]+\\.[0-9]+)'\n    start: [{binary}, --port, \"{port}\"]\n    listen: {port}\n    restartPolicy: on-failure\n    maxRestartBackoff: 30s\n    protocol: http",
        app = lang.app,
        binary = lang.binary,
        port = lang.port,
    );
    let _ = writeln!(
        out,
        "splash: !cel \"'Welcome to {name}, ' + user.username + ' (' + blueprint + ')'\""
    );
    out
}

/// A stack template, below a language; `ops` stacks run podman.
fn stack_template(lang: &Language, number: usize, stack: &str) -> String {
    let name = format!("{}-{stack}", lang.name);
    let mut rng = Rng::with_seed(seed(10_000 + number));
    let mut out = String::new();
    let _ = writeln!(out, "name: {name}");
    let _ = writeln!(
        out,
        "description: {} {stack} services and their data",
        lang.name
    );
    let _ = writeln!(out, "isTemplate: true\ntemplate: {}", lang.name);
    let _ = writeln!(
        out,
        "env:\n  STACK: {stack}\n  SERVICE_URL: !cel \"'https://' + metadata.name + '.{stack}.svc.example.com'\"\n  OTEL_SERVICE_NAME: {name}"
    );
    let _ = writeln!(
        out,
        "resources:\n  memory: {}",
        MEMORY[rng.usize(..MEMORY.len())]
    );
    let _ = writeln!(
        out,
        "storages:\n  data:\n    enabled: true\n    type: local\n    path: /data\n    fsOwnerUid: !cel \"user.uid\"\n    fsOwnerGid: 100\n    claimSpec:\n      accessModes: [ReadWriteOnce]\n      storageClassName: {}\n      resources:\n        requests:\n          storage: {}Gi",
        STORAGE_CLASSES[rng.usize(..STORAGE_CLASSES.len())],
        20 + 10 * rng.u64(..5)
    );
    let _ = writeln!(
        out,
        "initScripts:\n  - name: {stack}-tools\n    script: |\n      mkdir -p /data/{stack}\n      echo \"{stack} tools ready\""
    );
    let _ = writeln!(
        out,
        "network:\n  allowEgressToCIDRs: [10.{}.0.0/16]",
        40 + number
    );
    if stack == "ops" {
        out.push_str(
            "podman:\n  enabled: true\n  image: registry.example.com/podman:5.2\n  createDockerSockSymlink: true\n  parentStorages: true\n  resources:\n    cpu: 500m\n    memory: 1Gi\n",
        );
    }
    out
}

/// A team template, below a stack.
fn team_template(parent: &str, number: usize, team: &str) -> String {
    let name = format!("{parent}-{team}");
    let mut rng = Rng::with_seed(seed(20_000 + number));
    let mut out = String::new();
    let _ = writeln!(out, "name: {name}");
    let _ = writeln!(out, "description: Team {team}'s defaults for {parent}");
    let _ = writeln!(out, "isTemplate: true\ntemplate: {parent}");
    let _ = writeln!(
        out,
        "env:\n  TEAM: {team}\n  TEAM_CHANNEL: !cel \"'#{team}-' + metadata.repoName\"\n  COST_CENTER: \"{}\"",
        4000 + rng.u64(..1000)
    );
    let _ = writeln!(
        out,
        "storages:\n  team:\n    enabled: true\n    type: shared\n    path: /team\n    readonly: true\n    existingClaim: team-{team}-{parent}\n  home:\n    claimSpec:\n      resources:\n        requests:\n          storage: {}Gi\n    claimSpecAnnotations:\n      team.example.com/owner: {team}\n      backup.example.com/schedule: daily",
        20 + 5 * rng.u64(..8)
    );
    let _ = writeln!(
        out,
        "initScripts:\n  - name: team-{team}\n    script: cp /team/dotfiles/.bashrc \"$HOME/.bashrc.d/{team}\""
    );
    let _ = writeln!(
        out,
        "network:\n  allowEgressToCIDRs: [10.{}.{}.0/24]",
        120 + number / 32,
        number % 32 * 8
    );
    out
}

/// A concrete workspace, below a team.
fn workspace(parent: &str, name: &str, index: usize) -> String {
    let mut rng = Rng::with_seed(seed(index));
    let mut out = String::new();
    let _ = writeln!(out, "name: {name}");
    let _ = writeln!(
        out,
        "description: Workspace {index} of {parent}, with its own projects volume"
    );
    let _ = writeln!(out, "template: {parent}");
    if rng.u64(..3) == 0 {
        let _ = writeln!(
            out,
            "image: registry.example.com/workspaces/{parent}:1.{}.{}",
            rng.u64(..20),
            rng.u64(..100)
        );
    }
    let _ = writeln!(out, "hostname: !cel \"'{name}-' + user.username\"");
    out.push_str("env:\n");
    let _ = writeln!(out, "  PROJECT: {name}");
    out.push_str("  REPO: !cel \"metadata.repoOwner + '/' + metadata.repoName\"\n");
    out.push_str("  WORKSPACE_ID: !cel \"workspaceName + '-' + metadata.name\"\n");
    out.push_str("  LOG_LEVEL: !cel \"user.roles.exists(r, r == 'admin') ? 'debug' : 'info'\"\n");
    let _ = writeln!(
        out,
        "  DEFAULT_LOG_LEVEL: {}",
        LOG_LEVELS[rng.usize(..LOG_LEVELS.len())]
    );
    let _ = writeln!(out, "  MAX_WORKERS: \"{}\"", 2 + rng.u64(..15));
    for var in 0..3 + rng.u64(..5) {
        let _ = writeln!(out, "  SETTING_{var:02}: value-{:08x}", rng.u64(..) >> 32);
    }
    let _ = writeln!(
        out,
        "resources:\n  cpu: {}m\n  memory: {}",
        500 * (1 + rng.u64(..8)),
        MEMORY[rng.usize(..MEMORY.len())]
    );
    let _ = writeln!(
        out,
        "storages:\n  projects:\n    enabled: true\n    type: local\n    path: !cel \"'/home/' + user.username + '/projects/{name}'\"\n    claimSpec:\n      accessModes: [ReadWriteOnce]\n      storageClassName: {}\n      resources:\n        requests:\n          storage: {}Gi\n    claimSpecAnnotations:\n      strata.example.com/workspace: {name}",
        STORAGE_CLASSES[rng.usize(..STORAGE_CLASSES.len())],
        5 * (1 + rng.u64(..10))
    );
    if rng.u64(..4) == 0 {
        out.push_str("  scratch:\n    enabled: false\n");
    } else {
        let _ = writeln!(out, "  scratch:\n    sizeLimit: {}Gi", 1 + rng.u64(..8));
    }
    let _ = writeln!(
        out,
        "initScripts:\n  - name: motd\n    script: echo \"{name} ready\" > /etc/motd\n  - name: clone\n    script: !cel \"'git clone --branch ' + metadata.repoRef + ' ' + metadata.repoAddress + ' /home/' + user.username + '/src'\"\n  - name: warm-cache\n    script: |\n      cd \"$HOME/src\"\n      make deps || true"
    );
    let port = 3000 + rng.u64(..1000);
    let _ = writeln!(
        out,
        "apps:\n  preview:\n    name: Preview {name}\n    enabled: {}\n    binary: make\n    start: [make, serve, \"PORT={port}\"]\n    listen: {port}\n    restartPolicy: always\n    autoStart: {}\n    protocol: http",
        rng.u64(..5) != 0,
        rng.u64(..2) == 0
    );
    let _ = writeln!(
        out,
        "network:\n  allowEgressToCIDRs: [10.{}.{}.0/24]",
        200 + index / 256,
        index % 256
    );
    out
}

/// A generator seed from a blueprint's number.
fn seed(number: usize) -> u64 {
    u64::try_from(number).unwrap_or(u64::MAX)
}

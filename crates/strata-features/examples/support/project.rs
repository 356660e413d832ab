//! A deterministic Windsor project for `benches/render.rs` (which includes
//! this file with `#[path = ...] mod project;`).
//!
//! The project:
//!
//! - `windsor.yaml`: three contexts; [`CONTEXT`] holds nested values: the
//!   provider and its account, a cluster (three control planes and six
//!   workers as `nodes` maps, pools, taints), the network (subnets, zones),
//!   DNS, observability and [`TOGGLES`] feature toggles;
//! - `contexts/bench/values.yaml`: merged over it: two more workers (the
//!   count goes from 6 to 8), a longer retention and every fifth toggle
//!   flipped;
//! - `contexts/_template/blueprint.yaml`: [`Size::BENCH`]'s 150 Terraform
//!   components (a third named, inputs with nested maps, lists and a few
//!   `${..}`, each depending on up to three of the 25 before it, so the
//!   graph is acyclic) and 50 kustomizations (components,
//!   substitutions, inline and `path:` patches, Flux settings);
//! - 100 feature files below `contexts/_template/features/`, a
//!   fifth of them two folders deep and two fifths one folder deep. Each
//!   has a `when` built from atoms whose truth is known here (`==`, `!=`,
//!   `<`, `>=`, `in` on lists and on maps, `??`, `!`/`not`, `+`, `*`, `/`,
//!   `%`, unary `-`, indexing) combined by `&&`, `||` and `!`, true for
//!   about two thirds. A feature merges into one to three base Terraform
//!   components (inputs with typed `${..}` and text templates, `dependsOn`
//!   on earlier components), replaces one now and then (keeping its name,
//!   path and source), adds up to two components of its own, merges into
//!   one or two kustomizations (components, substitutions, inline patches
//!   with `${..}`), replaces one now and then and may add one. A fifth of
//!   the added entries carry their own `when`.
//!
//! There are no `jsonnet()` calls; every [`FILE_EVERY`]th feature (five,
//! at every folder depth) reads the small `certs/ca.crt` with `file()`
//! into a substitution, so the render measures the composition, not
//! Jsonnet or the disk.
//!
//! Since the truth of every condition is computed while writing it, the
//! generator knows the features that apply and the number of components
//! the composed blueprint holds; the benchmark checks both.

#[path = "project/conditions.rs"]
mod conditions;
#[path = "project/features.rs"]
mod features;
#[path = "project/yaml.rs"]
mod yaml;

use features::feature;
use yaml::{Y, document, flow, m, r, s};

use fastrand::Rng;
use strata_fs::MemoryFs;

/// The context rendered.
pub(crate) const CONTEXT: &str = "bench";
/// How much to generate; the generator example takes other sizes than
/// the benchmark's. Past the name lists (150 Terraform components, 50
/// kustomizations, 120 features) names take a round number (`network2`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Size {
    /// Terraform components in `blueprint.yaml`, at least two.
    pub(crate) terraform: usize,
    /// Kustomizations in `blueprint.yaml`, at least two.
    pub(crate) kustomize: usize,
    /// Feature files.
    pub(crate) features: usize,
}

impl Size {
    /// The benchmark's project.
    pub(crate) const BENCH: Size = Size {
        terraform: 150,
        kustomize: 50,
        features: 100,
    };
}
/// Every this many features, one reads `certs/ca.crt` with `file()`.
pub(crate) const FILE_EVERY: usize = 23;

/// The feature toggles of the context, `toggles.<name>`.
pub(crate) const TOGGLES: [&str; 40] = [
    "argocd",
    "cert_manager",
    "external_dns",
    "external_secrets",
    "velero",
    "kyverno",
    "falco",
    "istio",
    "linkerd",
    "keda",
    "karpenter",
    "cluster_autoscaler",
    "metrics_server",
    "prometheus",
    "grafana",
    "loki",
    "tempo",
    "jaeger",
    "opentelemetry",
    "vault",
    "consul",
    "crossplane",
    "flagger",
    "knative",
    "rook_ceph",
    "longhorn",
    "minio",
    "postgres_operator",
    "redis_operator",
    "kafka",
    "rabbitmq",
    "nats",
    "harbor",
    "gitea",
    "dex",
    "oauth2_proxy",
    "trivy",
    "gatekeeper",
    "descheduler",
    "node_problem_detector",
];

/// `cluster.workers.count` after `values.yaml`.
const WORKERS: u32 = 8;
/// `cluster.controlplanes.count`.
const CONTROLPLANES: u32 = 3;
/// `observability.retention_days` after `values.yaml`.
const RETENTION: u32 = 30;

const CATEGORIES: [&str; 15] = [
    "network",
    "iam",
    "cluster",
    "dns",
    "storage",
    "database",
    "compute",
    "security",
    "observability",
    "backup",
    "messaging",
    "edge",
    "registry",
    "secrets",
    "delivery",
];
const NOUNS: [&str; 10] = [
    "core", "primary", "replica", "shared", "regional", "zonal", "edge", "internal", "public",
    "private",
];
const AREAS: [&str; 10] = [
    "ingress",
    "cert-manager",
    "dns",
    "policy",
    "observability",
    "logging",
    "tracing",
    "storage",
    "backup",
    "gitops",
];
const VARIANTS: [&str; 5] = ["crds", "operator", "base", "config", "addons"];
const SUFFIXES: [&str; 3] = ["base", "ha", "tuning"];
const INPUT_KEYS: [&str; 24] = [
    "region",
    "name",
    "node_count",
    "instance_type",
    "cidr",
    "enable_nat",
    "zones",
    "retention_hours",
    "controlplanes",
    "role_arn",
    "endpoint",
    "bucket",
    "replicas",
    "volume_size",
    "addon_enabled",
    "total_nodes",
    "half_workers",
    "shard",
    "regions",
    "worker_nodes",
    "is_aws",
    "has_gpu",
    "capacity",
    "unset_setting",
];

/// The generated project.
pub(crate) struct Generated {
    /// The project's files: `windsor.yaml`, `contexts/bench/values.yaml`,
    /// and below `contexts/_template` the blueprint, the features and
    /// `certs/ca.crt`.
    pub project: MemoryFs,
    /// Every YAML file, path relative to the project root and text: the
    /// parse baseline (`certs/ca.crt` is not among them).
    pub files: Vec<(String, String)>,
    /// The names of the features whose `when` holds, in the order they
    /// apply (by name).
    pub applied: Vec<String>,
    /// Terraform components in the composed blueprint.
    pub terraform: usize,
    /// Kustomizations in the composed blueprint.
    pub kustomize: usize,
    /// `file()` calls written (in features that apply or not).
    pub file_calls: usize,
}

impl Generated {
    /// The total size of the YAML files, in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.files.iter().map(|(_, text)| text.len()).sum()
    }
}

/// Generates the project.
pub(crate) fn generate(size: Size) -> Generated {
    let toggles = toggle_values();
    let windsor = windsor_yaml(&toggles);
    let values = values_yaml(&toggles);
    let base = base_components(size);
    let blueprint = blueprint_yaml(&base);

    let mut project = MemoryFs::new()
        .with("windsor.yaml", &windsor)
        .with("contexts/bench/values.yaml", &values)
        .with("contexts/_template/blueprint.yaml", &blueprint)
        .with("contexts/_template/certs/ca.crt", CA_CERT);
    let mut files = vec![
        ("windsor.yaml".to_owned(), windsor),
        ("contexts/bench/values.yaml".to_owned(), values),
        ("contexts/_template/blueprint.yaml".to_owned(), blueprint),
    ];

    let mut applied = Vec::new();
    let mut terraform = size.terraform;
    let mut kustomize = size.kustomize;
    let mut file_calls = 0;
    for index in 0..size.features {
        let feature = feature(index, &toggles, &base);
        project = project.with(
            &format!("contexts/_template/{}", feature.path),
            &feature.text,
        );
        if feature.applies {
            applied.push(feature.name.clone());
            terraform += feature.added_terraform;
            kustomize += feature.added_kustomize;
        }
        file_calls += feature.file_calls;
        files.push((format!("contexts/_template/{}", feature.path), feature.text));
    }
    applied.sort();
    Generated {
        project,
        files,
        applied,
        terraform,
        kustomize,
        file_calls,
    }
}

const CA_CERT: &str = "\
-----BEGIN CERTIFICATE-----
MIIBdzCCAR2gAwIBAgIUBenchmarkOnlyNotARealCertificate0wCgYIKoZIzj0E
AwIwEjEQMA4GA1UEAwwHYmVuY2gtY2EwHhcNMjQwMTAxMDAwMDAwWhcNMzQwMTAx
-----END CERTIFICATE-----
";

// ---------------------------------------------------------------------------
// A small YAML writer, so that every file is well-formed by construction.

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.usize(..items.len())]
}

// ---------------------------------------------------------------------------
// The values.

/// The final value of every toggle (after `values.yaml`).
fn toggle_values() -> Vec<bool> {
    let mut rng = Rng::with_seed(7);
    TOGGLES.iter().map(|_| rng.u32(..10) < 6).collect()
}

/// A node of the cluster.
fn node(name: &str, ip: &str, zone: &str, role: &str, size: u32) -> (String, Y) {
    (
        name.to_owned(),
        m([
            ("hostname", s(format!("{name}.bench.internal"))),
            ("ip", s(ip)),
            ("zone", s(zone)),
            (
                "labels",
                m([("role", s(role)), ("topology.kubernetes.io/zone", s(zone))]),
            ),
            ("disk", m([("size", r(size)), ("type", s("gp3"))])),
        ]),
    )
}

const ZONES: [&str; 3] = ["us-east-1a", "us-east-1b", "us-east-1c"];

/// The cluster of the bench context, six workers before `values.yaml`.
fn cluster() -> Y {
    let controlplanes: Vec<(String, Y)> = (1..=CONTROLPLANES as usize)
        .map(|n| {
            node(
                &format!("cp-{n}"),
                &format!("10.20.0.{}", 10 + n),
                ZONES[(n - 1) % 3],
                "control-plane",
                50,
            )
        })
        .collect();
    let workers: Vec<(String, Y)> = (1..=6)
        .map(|n| {
            node(
                &format!("w-{n}"),
                &format!("10.20.16.{}", 10 + n),
                ZONES[(n - 1) % 3],
                "worker",
                100,
            )
        })
        .collect();
    m([
        ("enabled", r(true)),
        ("driver", s("eks")),
        ("name", s("bench")),
        ("version", s("1.31")),
        ("endpoint", s("https://bench.k8s.example.com:6443")),
        (
            "controlplanes",
            m([
                ("count", r(CONTROLPLANES)),
                ("schedulable", r(false)),
                ("instance_type", s("m6i.large")),
                ("nodes", Y::M(controlplanes)),
            ]),
        ),
        (
            "workers",
            m([
                ("count", r(6)),
                ("instance_type", s("m6i.xlarge")),
                ("volume_size", r(100)),
                ("pools", flow(["general", "compute", "gpu"])),
                (
                    "taints",
                    Y::L(vec![
                        m([
                            ("key", s("nvidia.com/gpu")),
                            ("value", s("present")),
                            ("effect", s("NoSchedule")),
                        ]),
                        m([
                            ("key", s("dedicated")),
                            ("value", s("compute")),
                            ("effect", s("PreferNoSchedule")),
                        ]),
                    ]),
                ),
                ("nodes", Y::M(workers)),
            ]),
        ),
    ])
}

fn windsor_yaml(toggles: &[bool]) -> String {
    // Every fifth toggle is written flipped here; `values.yaml` sets it back.
    let toggle_entries: Vec<(String, Y)> = TOGGLES
        .iter()
        .zip(toggles)
        .enumerate()
        .map(|(i, (name, on))| ((*name).to_owned(), r(if i % 5 == 0 { !on } else { *on })))
        .collect();
    let bench = Y::M(vec![
        ("id".to_owned(), s("bench-7f3a")),
        ("provider".to_owned(), s("aws")),
        (
            "aws".to_owned(),
            m([
                ("region", s("us-east-1")),
                ("account_id", s("123456789012")),
                ("profile", s("bench")),
                ("endpoint_url", Y::R("null".to_owned())),
            ]),
        ),
        ("cluster".to_owned(), cluster()),
        (
            "network".to_owned(),
            m([
                ("cidr_block", s("10.20.0.0/16")),
                ("enable_nat", r(true)),
                ("azs", flow(ZONES)),
                (
                    "subnets",
                    m([
                        (
                            "private",
                            flow(["10.20.0.0/20", "10.20.16.0/20", "10.20.32.0/20"]),
                        ),
                        (
                            "public",
                            flow(["10.20.128.0/24", "10.20.129.0/24", "10.20.130.0/24"]),
                        ),
                    ]),
                ),
                (
                    "loadbalancer",
                    m([("type", s("nlb")), ("internal", r(false))]),
                ),
            ]),
        ),
        (
            "dns".to_owned(),
            m([
                ("domain", s("bench.example.com")),
                ("private", r(false)),
                (
                    "zones",
                    flow(["bench.example.com", "internal.bench.example.com"]),
                ),
            ]),
        ),
        (
            "observability".to_owned(),
            m([
                ("enabled", r(true)),
                ("retention_days", r(14)),
                ("backend", s("prometheus")),
                (
                    "tracing",
                    m([("enabled", r(false)), ("sample_rate", r(0.1))]),
                ),
            ]),
        ),
        ("toggles".to_owned(), Y::M(toggle_entries)),
    ]);
    let local = m([
        ("provider", s("local")),
        (
            "cluster",
            m([
                ("enabled", r(true)),
                ("driver", s("talos")),
                ("workers", m([("count", r(1))])),
            ]),
        ),
        ("dns", m([("domain", s("test"))])),
    ]);
    let staging = m([
        ("provider", s("aws")),
        ("aws", m([("region", s("eu-west-1"))])),
        ("cluster", m([("enabled", r(true)), ("driver", s("eks"))])),
    ]);
    let text = document(&[
        ("version".to_owned(), s("v1alpha1")),
        ("toolsManager".to_owned(), s("aqua")),
        (
            "contexts".to_owned(),
            Y::M(vec![
                ("local".to_owned(), local),
                (CONTEXT.to_owned(), bench),
                ("staging".to_owned(), staging),
            ]),
        ),
    ]);
    format!("# The Windsor project of the render benchmark.\n{text}")
}

fn values_yaml(toggles: &[bool]) -> String {
    let workers: Vec<(String, Y)> = (7..=WORKERS as usize)
        .map(|n| {
            node(
                &format!("w-{n}"),
                &format!("10.20.16.{}", 10 + n),
                ZONES[(n - 1) % 3],
                "worker",
                200,
            )
        })
        .collect();
    let flipped: Vec<(String, Y)> = TOGGLES
        .iter()
        .zip(toggles)
        .step_by(5)
        .map(|(name, on)| ((*name).to_owned(), r(*on)))
        .collect();
    let text = document(&[
        (
            "cluster".to_owned(),
            m([(
                "workers",
                m([("count", r(WORKERS)), ("nodes", Y::M(workers))]),
            )]),
        ),
        (
            "observability".to_owned(),
            m([("retention_days", r(RETENTION))]),
        ),
        ("toggles".to_owned(), Y::M(flipped)),
    ]);
    format!("# Merged over `contexts.bench` of windsor.yaml.\n{text}")
}

// ---------------------------------------------------------------------------
// Conditions whose truth is known.

/// Atoms that read fixed values: one true, one false under the bench values.
const FIXED_ATOMS: [(&str, &str); 9] = [
    ("provider == 'aws'", "provider == 'gcp'"),
    ("provider != 'local'", "provider != 'aws'"),
    (
        "provider in ['aws', 'azure']",
        "provider in ['local', 'gcp']",
    ),
    (
        "'gpu' in cluster.workers.pools",
        "'arm64' in cluster.workers.pools",
    ),
    ("dns.domain != null", "dns.private_zone != null"),
    ("network.bastion == null", "cluster.endpoint == null"),
    ("cluster.version >= '1.30'", "cluster.version < '1.29'"),
    (
        "network.azs[0] == 'us-east-1a'",
        "network.azs[1] == 'us-east-1a'",
    ),
    (
        "observability.enabled && cluster.enabled",
        "(observability.tracing.enabled ?? false)",
    ),
];

// ---------------------------------------------------------------------------
// `${..}` values.

/// A typed single expression or a text template, for inputs.
fn input_value(rng: &mut Rng, key: &str) -> Y {
    let toggle = pick(rng, &TOGGLES);
    let text = match key {
        "region" => "${aws.region}".to_owned(),
        "name" => format!("${{cluster.name}}-{}", pick(rng, &NOUNS)),
        "node_count" => "${cluster.workers.count}".to_owned(),
        "instance_type" => "${cluster.workers.instance_type ?? 'm6i.large'}".to_owned(),
        "cidr" => "${network.cidr_block ?? '10.0.0.0/16'}".to_owned(),
        "enable_nat" => "${network.enable_nat ?? true}".to_owned(),
        "zones" => "${network.azs}".to_owned(),
        "retention_hours" => "${observability.retention_days * 24}".to_owned(),
        "controlplanes" => "${values(cluster.controlplanes.nodes)}".to_owned(),
        "role_arn" => format!(
            "arn:aws:iam::${{aws.account_id}}:role/${{cluster.name}}-{}",
            pick(rng, &CATEGORIES)
        ),
        "endpoint" => format!("https://{}.${{dns.domain}}", pick(rng, &AREAS)),
        "bucket" => format!(
            "s3://${{cluster.name}}-{}-${{aws.account_id}}",
            pick(rng, &CATEGORIES)
        ),
        "replicas" => format!("${{cluster.workers.count / {}}}", rng.u32(1..5)),
        "volume_size" => "${cluster.workers.volume_size ?? 50}".to_owned(),
        "addon_enabled" => format!("${{toggles.{toggle} ?? false}}"),
        "total_nodes" => "${cluster.controlplanes.count + cluster.workers.count}".to_owned(),
        "half_workers" => "${cluster.workers.count % 3}".to_owned(),
        "shard" => format!("${{cluster.name}}.${{aws.region}}.shard-{}", rng.u32(..16)),
        "regions" => "${[aws.region, 'us-west-2']}".to_owned(),
        "worker_nodes" => "${cluster.workers.nodes}".to_owned(),
        "is_aws" => "${provider == 'aws'}".to_owned(),
        "has_gpu" => "${'gpu' in cluster.workers.pools}".to_owned(),
        "capacity" => "${cluster.workers.count}x${cluster.workers.instance_type}".to_owned(),
        // Null: dropped from the inputs.
        _ => "${cluster.unset_setting}".to_owned(),
    };
    s(text)
}

/// A literal input value.
fn literal_input(rng: &mut Rng, path: &str) -> (String, Y) {
    match rng.u32(..8) {
        0 => ("instance_count".to_owned(), r(1 + rng.u32(..6))),
        1 => ("enabled".to_owned(), r(rng.bool())),
        2 => (
            "subnet_cidr".to_owned(),
            s(format!("10.{}.{}.0/24", 20 + rng.u32(..4), rng.u32(..256))),
        ),
        3 => (
            "tags".to_owned(),
            m([
                ("Environment", s("${cluster.name}")),
                ("Component", s(path)),
                ("ManagedBy", s("windsor")),
                ("CostCenter", s((4000 + rng.u32(..1000)).to_string())),
            ]),
        ),
        4 => (
            "allowed_cidrs".to_owned(),
            Y::L(vec![
                s(format!("10.{}.0.0/16", rng.u32(..256))),
                s("${network.cidr_block}"),
            ]),
        ),
        5 => (
            "settings".to_owned(),
            m([
                ("log_level", s(*pick(rng, &["debug", "info", "warn"]))),
                ("timeout_seconds", r(30 * (1 + rng.u32(..10)))),
                (
                    "limits",
                    m([
                        ("cpu", s(format!("{}m", 250 * (1 + rng.u32(..8))))),
                        ("memory", s(format!("{}Mi", 256 * (1 + rng.u32(..16))))),
                    ]),
                ),
                ("features", flow(["metrics", "audit"])),
            ]),
        ),
        6 => ("deletion_protection".to_owned(), r(rng.u32(..3) != 0)),
        _ => (
            "description".to_owned(),
            s(format!("Managed {path} for the ${{cluster.name}} cluster")),
        ),
    }
}

// ---------------------------------------------------------------------------
// The blueprint.

/// A base Terraform component, as features need to know it.
struct TerraformBase {
    path: String,
    source: Option<&'static str>,
    name: Option<String>,
}

impl TerraformBase {
    /// The name others depend on it by.
    fn id(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.path)
    }

    /// The keys that match it, and its name when it has one.
    fn identity(&self) -> Vec<(String, Y)> {
        let mut out = Vec::new();
        if let Some(name) = &self.name {
            out.push(("name".to_owned(), s(name.as_str())));
        }
        out.push(("path".to_owned(), s(self.path.as_str())));
        if let Some(source) = self.source {
            out.push(("source".to_owned(), s(source)));
        }
        out
    }
}

/// The base components: Terraform, then kustomization names.
struct Base {
    terraform: Vec<TerraformBase>,
    kustomize: Vec<(String, &'static str)>,
    terraform_entries: Vec<Y>,
    kustomize_entries: Vec<Y>,
}

/// The `index`th name of `names`, then of `names` again with a round
/// number (`network2`, ...), so any count of names stays distinct.
fn cycled(names: &[&str], index: usize) -> String {
    let name = names[index % names.len()];
    match index / names.len() {
        0 => name.to_owned(),
        round => format!("{name}{}", round + 1),
    }
}

/// Up to `most` distinct earlier indices, among the `window` before `index`.
fn earlier(rng: &mut Rng, index: usize, window: usize, most: usize) -> Vec<usize> {
    let mut found = Vec::new();
    if index == 0 {
        return found;
    }
    let low = index.saturating_sub(window);
    for _ in 0..rng.usize(..=most) {
        let j = rng.usize(low..index);
        if !found.contains(&j) {
            found.push(j);
        }
    }
    found.sort_unstable();
    found
}

fn base_components(size: Size) -> Base {
    let mut rng = Rng::with_seed(42);
    let (terraform, terraform_entries) = base_terraform(&mut rng, size.terraform);
    let (kustomize, kustomize_entries) = base_kustomize(&mut rng, size.kustomize);
    Base {
        terraform,
        kustomize,
        terraform_entries,
        kustomize_entries,
    }
}

/// The base Terraform components and their entries.
fn base_terraform(rng: &mut Rng, count: usize) -> (Vec<TerraformBase>, Vec<Y>) {
    let mut terraform: Vec<TerraformBase> = Vec::new();
    let mut terraform_entries = Vec::new();
    for index in 0..count {
        let category = cycled(&CATEGORIES, index / NOUNS.len());
        let noun = NOUNS[index % NOUNS.len()];
        let path = format!("{category}/{noun}");
        let source = match rng.u32(..20) {
            0..12 => Some("core"),
            12..17 => Some("platform"),
            _ => None,
        };
        let name = (index % 3 == 0).then(|| format!("{category}-{noun}"));
        let component = TerraformBase { path, source, name };
        let mut entry = component.identity();
        let mut depends: Vec<usize> = earlier(rng, index, 25, 3);
        // The first of a category waits for the first of the one before.
        if index % NOUNS.len() == 0 && index > 0 && !depends.contains(&(index - NOUNS.len())) {
            depends.insert(0, index - NOUNS.len());
        }
        if !depends.is_empty() {
            let ids: Vec<&str> = depends.iter().map(|&j| terraform[j].id()).collect();
            entry.push(("dependsOn".to_owned(), flow(ids.iter().copied())));
        }
        let mut inputs: Vec<(String, Y)> = Vec::new();
        for _ in 0..3 + rng.usize(..6) {
            let (key, value) = if rng.u32(..4) == 0 {
                let key = *pick(rng, &INPUT_KEYS[..INPUT_KEYS.len() - 1]);
                (key.to_owned(), input_value(rng, key))
            } else {
                literal_input(rng, &component.path)
            };
            if !inputs.iter().any(|(k, _)| *k == key) {
                inputs.push((key, value));
            }
        }
        entry.push(("inputs".to_owned(), Y::M(inputs)));
        if rng.u32(..6) == 0 {
            entry.push(("destroy".to_owned(), r(false)));
        }
        if rng.u32(..8) == 0 {
            entry.push(("parallelism".to_owned(), r(1 + rng.u32(..20))));
        }
        terraform_entries.push(Y::M(entry));
        terraform.push(component);
    }
    (terraform, terraform_entries)
}

/// The base kustomizations (name and source) and their entries.
fn base_kustomize(rng: &mut Rng, count: usize) -> (Vec<(String, &'static str)>, Vec<Y>) {
    let mut kustomize: Vec<(String, &'static str)> = Vec::new();
    let mut kustomize_entries = Vec::new();
    for index in 0..count {
        let area = cycled(&AREAS, index / VARIANTS.len());
        let variant = VARIANTS[index % VARIANTS.len()];
        let name = format!("{area}-{variant}");
        let source = if rng.u32(..4) == 0 {
            "platform"
        } else {
            "core"
        };
        let mut entry = vec![
            ("name".to_owned(), s(name.as_str())),
            ("path".to_owned(), s(format!("{area}/{variant}"))),
            ("source".to_owned(), s(source)),
        ];
        let mut depends = earlier(rng, index, 15, 2);
        if index % VARIANTS.len() > 0 && !depends.contains(&(index - 1)) {
            depends.push(index - 1);
        }
        if !depends.is_empty() {
            let names: Vec<&str> = depends.iter().map(|&j| kustomize[j].0.as_str()).collect();
            entry.push(("dependsOn".to_owned(), flow(names)));
        }
        let components: Vec<String> = (0..rng.usize(..4))
            .map(|c| format!("{area}/{}", ["prometheus", "ha", "tls", "webhook"][c]))
            .collect();
        if !components.is_empty() {
            entry.push((
                "components".to_owned(),
                Y::L(components.into_iter().map(Y::S).collect()),
            ));
        }
        entry.push(("substitutions".to_owned(), substitutions(rng, &area, None)));
        if rng.u32(..3) == 0 {
            entry.push((
                "patches".to_owned(),
                Y::L(vec![
                    m([("path", s(format!("patches/{area}-{variant}.yaml")))]),
                    inline_patch(rng, &area),
                ]),
            ));
        }
        entry.push((
            "interval".to_owned(),
            s(*pick(rng, &["5m", "10m", "30m", "1h"])),
        ));
        entry.push(("timeout".to_owned(), s(*pick(rng, &["5m", "10m"]))));
        if rng.bool() {
            entry.push(("retryInterval".to_owned(), s("2m")));
        }
        entry.push(("wait".to_owned(), r(rng.bool())));
        entry.push(("prune".to_owned(), r(true)));
        if variant == "crds" {
            entry.push((
                "cleanup".to_owned(),
                flow(["customresourcedefinitions", "webhooks"]),
            ));
        }
        kustomize_entries.push(Y::M(entry));
        kustomize.push((name, source));
    }
    (kustomize, kustomize_entries)
}

/// Substitutions for a kustomization of `area`; `ca` is the relative path
/// to `certs/ca.crt` when one should be read with `file()`.
fn substitutions(rng: &mut Rng, area: &str, ca: Option<&str>) -> Y {
    let mut entries: Vec<(String, Y)> = vec![("domain".to_owned(), s("${dns.domain}"))];
    let extra: [(&str, Y); 6] = [
        ("replicas", s("${cluster.workers.count}")),
        ("retention", s("${observability.retention_days ?? 7}d")),
        ("host", s(format!("{area}.${{dns.domain}}"))),
        ("storage_class", s("gp3")),
        ("cluster_name", s("${cluster.name}-${provider}")),
        ("ha", s("${cluster.controlplanes.count > 1}")),
    ];
    for (key, value) in extra {
        if rng.bool() {
            entries.push((key.to_owned(), value));
        }
    }
    if let Some(path) = ca {
        entries.push(("ca_bundle".to_owned(), s(format!("${{file('{path}')}}"))));
    }
    Y::M(entries)
}

/// An inline patch with `${..}`, JSON 6902 or strategic merge.
fn inline_patch(rng: &mut Rng, area: &str) -> Y {
    let patch = if rng.bool() {
        format!(
            "- op: replace\n  path: /spec/replicas\n  value: ${{cluster.workers.count ?? 1}}\n- op: add\n  path: /metadata/labels/cluster\n  value: ${{cluster.name}}-{area}"
        )
    } else {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {area}-controller\nspec:\n  template:\n    spec:\n      nodeSelector:\n        pool: ${{cluster.workers.pools[0]}}\n      containers:\n        - name: manager\n          args:\n            - --cluster=${{cluster.name}}\n            - --log-level=info\n            - --replicas=${{cluster.workers.count * 2}}"
        )
    };
    m([
        ("patch", Y::Block(patch)),
        (
            "target",
            m([
                ("kind", s("Deployment")),
                ("name", s(format!("{area}-controller"))),
                ("namespace", s(area)),
            ]),
        ),
    ])
}

fn blueprint_yaml(base: &Base) -> String {
    let text = document(&[
        ("kind".to_owned(), s("Blueprint")),
        (
            "apiVersion".to_owned(),
            s("blueprints.windsorcli.dev/v1alpha1"),
        ),
        (
            "metadata".to_owned(),
            m([
                ("name", s("bench-platform")),
                (
                    "description",
                    s("A generated platform, composed per context from features"),
                ),
                ("authors", flow(["platform-team"])),
            ]),
        ),
        (
            "repository".to_owned(),
            m([
                ("url", s("https://github.com/example/bench-platform")),
                ("ref", m([("branch", s("main"))])),
            ]),
        ),
        (
            "sources".to_owned(),
            Y::L(vec![
                m([
                    ("name", s("core")),
                    ("url", s("https://github.com/windsorcli/core")),
                    ("ref", m([("tag", s("v0.5.0"))])),
                ]),
                m([
                    ("name", s("platform")),
                    ("url", s("https://github.com/example/platform-modules")),
                    ("pathPrefix", s("modules")),
                    ("ref", m([("semver", s(">=1.4.0 <2.0.0"))])),
                ]),
            ]),
        ),
        ("terraform".to_owned(), Y::L(base.terraform_entries.clone())),
        ("kustomize".to_owned(), Y::L(base.kustomize_entries.clone())),
    ]);
    format!("# The base blueprint of the render benchmark.\n{text}")
}

// ---------------------------------------------------------------------------
// Features.

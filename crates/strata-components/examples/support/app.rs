//! A deterministic qbec application for benchmarks and comparisons, shared
//! by `benches/render.rs` and `examples/generate_app.rs` (each includes this
//! file with `#[path = ...] mod app;`).
//!
//! [`write_app`] writes, below a folder:
//!
//! - `qbec.yaml`: the application `bench`, two environments (`dev` in
//!   `bench-dev`, `prod` in `bench-prod`) whose `properties` are merged over
//!   `baseProperties` (a nested `features` map merged key by key; no
//!   `null`s, which merge differently in qbec and in a JSON merge patch),
//!   `libPaths: [lib]`, one globally excluded component that `dev`
//!   includes, one component `prod` excludes, and the external variable
//!   `release` with an object as its default;
//! - `lib/k.libsonnet`: builders of Deployments, Services, ConfigMaps,
//!   Secrets, HPAs, PDBs, cron jobs, ingresses, network policies, service
//!   accounts and cluster roles, with labels, env lists, resources and a
//!   checksum helper;
//! - `components/`: one component in twenty a JSON file, one in twenty a
//!   YAML file (multi-document for half of them), the rest (180 of 200)
//!   Jsonnet. Every Jsonnet component imports the library, reads
//!   `qbec.io/envProperties`, `qbec.io/env`, `qbec.io/defaultNs`,
//!   `qbec.io/cleanMode` and `release`, and computes its objects with
//!   `std.map`, comprehensions, formatting, hashing and conditionals. There
//!   are four families, drawn per component: a web service (a map with a
//!   conditional field, a `null` and a `List`), a queue worker (an array, a
//!   Secret per queue), scheduled jobs (a `List` of cron jobs in a second
//!   namespace) and a gateway (nested maps, an Ingress per host, sometimes a
//!   cluster-scoped role). Each gives 3 to 6 objects in `dev`.
//!
//! Nothing calls `std.native`, so the plain Jsonnet implementations can
//! evaluate the same files (`bench/components/compare.py` does). The values
//! that vary come from a `fastrand` sequence seeded per component, so a
//! component's text depends only on its index: the same on every run and
//! machine, whatever the number of components.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::Path;

use fastrand::Rng;

/// The seed every component's sequence starts from (plus its index).
pub(crate) const SEED: u64 = 0x0051_7a7a_c0de;

/// The number of components a default application has.
pub(crate) const DEFAULT_COMPONENTS: usize = 200;

/// What [`write_app`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Jsonnet components.
    pub jsonnet: usize,
    /// JSON components.
    pub json: usize,
    /// YAML components.
    pub yaml: usize,
    /// Files written, `qbec.yaml` and the library included.
    pub files: usize,
    /// Bytes written.
    pub bytes: usize,
}

/// Writes an application of `components` components below `dir` (created
/// if missing; files of the same names are replaced).
pub(crate) fn write_app(dir: &Path, components: usize) -> io::Result<Summary> {
    fs::create_dir_all(dir.join("components"))?;
    fs::create_dir_all(dir.join("lib"))?;
    let mut summary = Summary::default();
    let mut write = |path: &str, text: &str| -> io::Result<()> {
        debug_assert!(!text.contains('@'), "{path}: a placeholder is left");
        fs::write(dir.join(path), text)?;
        summary.files += 1;
        summary.bytes += text.len();
        Ok(())
    };
    let names: Vec<String> = (0..components).map(component_name).collect();
    write("qbec.yaml", &app_file(&names))?;
    write("lib/k.libsonnet", LIB)?;
    for (index, name) in names.iter().enumerate() {
        let mut rng = Rng::with_seed(SEED.wrapping_add(index as u64));
        let (extension, text) = match kind(index) {
            Kind::Json => ("json", json_component(&mut rng, name)),
            Kind::Yaml => ("yaml", yaml_component(&mut rng, name, index)),
            Kind::Jsonnet => ("jsonnet", jsonnet_component(&mut rng, name, index)),
        };
        write(&format!("components/{name}.{extension}"), &text)?;
    }
    for index in 0..components {
        match kind(index) {
            Kind::Json => summary.json += 1,
            Kind::Yaml => summary.yaml += 1,
            Kind::Jsonnet => summary.jsonnet += 1,
        }
    }
    Ok(summary)
}

enum Kind {
    Jsonnet,
    Json,
    Yaml,
}

/// One in twenty JSON, one in twenty YAML, the rest Jsonnet.
fn kind(index: usize) -> Kind {
    match index % 20 {
        7 => Kind::Json,
        13 => Kind::Yaml,
        _ => Kind::Jsonnet,
    }
}

/// The four families of Jsonnet components.
#[derive(Clone, Copy)]
enum Family {
    Web,
    Worker,
    Jobs,
    Gateway,
}

const DOMAINS: &[&str] = &[
    "payments",
    "catalog",
    "search",
    "checkout",
    "accounts",
    "orders",
    "shipping",
    "inventory",
    "pricing",
    "reviews",
    "media",
    "notify",
    "ledger",
    "identity",
    "analytics",
    "support",
];
const TEAMS: &[&str] = &["atlas", "borealis", "cobalt", "dune", "ember", "fjord"];
const QUEUES: &[&str] = &[
    "created", "updated", "deleted", "retried", "exported", "audited", "priced", "archived",
];
const JOBS: &[(&str, &str)] = &[
    ("cleanup", "*/15 * * * *"),
    ("report", "0 6 * * 1-5"),
    ("reindex", "30 2 * * *"),
    ("backup", "0 */4 * * *"),
    ("rotate", "0 0 1 * *"),
    ("sync", "*/5 * * * *"),
];
const HOSTS: &[&str] = &["www", "api", "admin", "static", "m", "partners"];
const EXTRA_SETTINGS: &[(&str, &str)] = &[
    ("max-connections", "200"),
    ("timeout-ms", "1500"),
    ("retry-budget", "0.25"),
    ("compression", "'gzip'"),
    ("tracing", "true"),
    ("locale", "'en-GB'"),
    ("sample-ratio", "0.5"),
    ("pool-size", "16"),
];

/// The family of the Jsonnet component at `index` (drawn from its own
/// sequence, so the name and the body agree).
fn family(index: usize) -> Family {
    let mut rng = Rng::with_seed(SEED.wrapping_add(index as u64) ^ 0xfa);
    match rng.usize(0..4) {
        0 => Family::Web,
        1 => Family::Worker,
        2 => Family::Jobs,
        _ => Family::Gateway,
    }
}

fn component_name(index: usize) -> String {
    let domain = DOMAINS[(index * 7 + index / DOMAINS.len()) % DOMAINS.len()];
    let role = match kind(index) {
        Kind::Json => "quotas",
        Kind::Yaml => "access",
        Kind::Jsonnet => match family(index) {
            Family::Web => "api",
            Family::Worker => "worker",
            Family::Jobs => "jobs",
            Family::Gateway => "gateway",
        },
    };
    format!("{domain}-{role}-{index:03}")
}

/// `qbec.yaml`.
fn app_file(names: &[String]) -> String {
    // The second component only `dev` renders; the third `prod` leaves out.
    let excluded = names.get(1).map(String::as_str);
    let dropped = names.get(2).map(String::as_str);
    let list = |name: Option<&str>| name.map_or_else(|| "[]".to_owned(), |n| format!("[{n}]"));
    format!(
        "\
# A generated application of {count} components (see
# crates/strata-components/examples/support/app.rs).
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: bench
spec:
  componentsDir: components
  libPaths: [lib]
  excludes: {excludes}
  baseProperties:
    registry: registry.example.com/bench
    replicas: 1
    logLevel: info
    cacheFactor: 1
    resourceScale: 1
    workerConcurrency: 2
    autoscale: false
    tls: false
    domain: dev.example.com
    features:
      search-v2: true
      checkout-v2: false
      recommendations: false
      audit-log: true
  environments:
    dev:
      defaultNamespace: bench-dev
      server: https://dev.k8s.example.com:6443
      includes: {excludes}
      properties:
        logLevel: debug
        features:
          recommendations: true
    prod:
      defaultNamespace: bench-prod
      server: https://prod.k8s.example.com:6443
      excludes: {dropped}
      properties:
        replicas: 3
        autoscale: true
        tls: true
        resourceScale: 2
        cacheFactor: 4
        workerConcurrency: 8
        domain: example.com
        features:
          checkout-v2: true
          audit-log: false
  vars:
    external:
      - name: release
        default:
          tag: 2.7.1
          channel: stable
",
        count = names.len(),
        excludes = list(excluded),
        dropped = list(dropped),
    )
}

/// The library every Jsonnet component imports.
const LIB: &str = r"// Builders shared by the components of the generated application.
{
  // The labels every object of an app carries.
  labels(app, team, tier):: {
    app: app,
    team: team,
    tier: tier,
    'app.kubernetes.io/name': app,
    'app.kubernetes.io/part-of': 'bench',
    'app.kubernetes.io/managed-by': 'qbec',
  },

  metadata(name, namespace, labels, annotations={}):: {
    name: name,
    [if namespace != null then 'namespace']: namespace,
    labels: labels,
    [if std.length(annotations) > 0 then 'annotations']: annotations,
  },

  // `{'log-level': 'debug'}` as `[{name: 'LOG_LEVEL', value: 'debug'}]`.
  envList(vars):: [
    { name: std.asciiUpper(std.strReplace(key, '-', '_')), value: std.toString(vars[key]) }
    for key in std.objectFields(vars)
  ],

  resources(cpu, memory, scale=1):: {
    requests: { cpu: '%dm' % cpu, memory: '%dMi' % memory },
    limits: { cpu: '%dm' % (cpu * 2 * scale), memory: '%dMi' % (memory * scale) },
  },

  container(name, image, env={}, ports=[], resources=null, args=[]):: {
    name: name,
    image: image,
    imagePullPolicy: if std.endsWith(image, ':latest') then 'Always' else 'IfNotPresent',
    env: $.envList(env),
    [if std.length(args) > 0 then 'args']: args,
    [if std.length(ports) > 0 then 'ports']: [
      { name: port.name, containerPort: port.port, protocol: 'TCP' }
      for port in ports
    ],
    [if std.length(ports) > 0 then 'readinessProbe']: {
      httpGet: { path: '/healthz', port: ports[0].name },
      periodSeconds: 10,
      failureThreshold: 3,
    },
    [if resources != null then 'resources']: resources,
    securityContext: { runAsNonRoot: true, readOnlyRootFilesystem: true },
  },

  podTemplate(labels, containers, annotations={}, account=null, restart=null):: {
    metadata: { labels: labels, [if std.length(annotations) > 0 then 'annotations']: annotations },
    spec: {
      containers: containers,
      terminationGracePeriodSeconds: 30,
      [if account != null then 'serviceAccountName']: account,
      [if restart != null then 'restartPolicy']: restart,
    },
  },

  deployment(name, namespace, labels, replicas, containers, annotations={}):: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: $.metadata(name, namespace, labels),
    spec: {
      replicas: replicas,
      revisionHistoryLimit: 5,
      selector: { matchLabels: { app: labels.app } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: $.podTemplate(labels, containers, annotations),
    },
  },

  service(name, namespace, labels, ports, headless=false):: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: $.metadata(name, namespace, labels),
    spec: {
      selector: { app: labels.app },
      [if headless then 'clusterIP']: 'None',
      ports: [
        { name: port.name, port: port.port, targetPort: port.name, protocol: 'TCP' }
        for port in ports
      ],
    },
  },

  configMap(name, namespace, labels, data):: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: $.metadata(name, namespace, labels),
    data: { [key]: std.toString(data[key]) for key in std.objectFields(data) },
  },

  secret(name, namespace, labels, values):: {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: $.metadata(name, namespace, labels),
    stringData: values,
  },

  serviceAccount(name, namespace, labels):: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: $.metadata(name, namespace, labels),
    automountServiceAccountToken: false,
  },

  hpa(name, namespace, labels, min, max, cpu):: {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: $.metadata(name, namespace, labels),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: name },
      minReplicas: min,
      maxReplicas: max,
      metrics: [{
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: cpu } },
      }],
    },
  },

  pdb(name, namespace, labels, minAvailable):: {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: $.metadata(name, namespace, labels),
    spec: { minAvailable: minAvailable, selector: { matchLabels: { app: labels.app } } },
  },

  cronJob(name, namespace, labels, schedule, container, enabled=true):: {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: $.metadata(name, namespace, labels),
    spec: {
      schedule: schedule,
      suspend: !enabled,
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      jobTemplate: {
        spec: {
          backoffLimit: 2,
          template: $.podTemplate(labels, [container], account=labels.app, restart='OnFailure'),
        },
      },
    },
  },

  ingress(name, namespace, labels, route, service, port, tls):: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: $.metadata(name, namespace, labels, {
      'nginx.ingress.kubernetes.io/ssl-redirect': std.toString(tls),
      'nginx.ingress.kubernetes.io/proxy-body-size': '8m',
    }),
    spec: {
      ingressClassName: 'nginx',
      rules: [{
        host: route.host,
        http: {
          paths: [{
            path: route.path,
            pathType: 'Prefix',
            backend: { service: { name: service, port: { number: port } } },
          }],
        },
      }],
      [if tls then 'tls']: [{ hosts: [route.host], secretName: name + '-tls' }],
    },
  },

  networkPolicy(name, namespace, labels, allowed):: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: $.metadata(name, namespace, labels),
    spec: {
      podSelector: { matchLabels: { app: labels.app } },
      policyTypes: ['Ingress'],
      ingress: [{
        from: [{ podSelector: { matchLabels: { app: app } } } for app in allowed],
      }],
    },
  },

  clusterRole(name, labels, resources):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: $.metadata(name, null, labels),
    rules: [{ apiGroups: [''], resources: resources, verbs: ['get', 'list', 'watch'] }],
  },

  list(items):: { apiVersion: 'v1', kind: 'List', items: items },

  // A short, stable hash of a value, for checksum annotations.
  checksum(value):: std.substr(std.md5(std.manifestJsonEx(value, '  ')), 0, 16),
}
";

/// The locals every Jsonnet component starts with.
const PRELUDE: &str = "\
local k = import 'k.libsonnet';
local props = std.extVar('qbec.io/envProperties');
local env = std.extVar('qbec.io/env');
local ns = std.extVar('qbec.io/defaultNs');
local release = std.extVar('release');
local image(domain, name) = '%s/%s/%s:%s' % [props.registry, domain, name, release.tag];
";

const WEB: &str = "\
local name = '@NAME@';
local port = @PORT@;
local labels = k.labels(name, '@TEAM@', 'web');
local enabled = std.sort([f for f in std.objectFields(props.features) if props.features[f]]);
local upstreams = @UPSTREAMS@;
local settings = {
  'log-level': props.logLevel,
  'http-port': port,
  'cache-ttl-seconds': @TTL@ * props.cacheFactor,
  'feature-flags': std.join(',', enabled),
  upstreams: std.join(',', ['http://%s.%s.svc:8080' % [u, ns] for u in upstreams]),
  'clean-mode': std.extVar('qbec.io/cleanMode'),
  'debug-endpoints': if env == 'dev' then 'on' else 'off',
} + @EXTRA@;
local replicas = std.max(1, std.floor(props.replicas * @WEIGHT@));
local annotations = {
  'checksum/config': k.checksum(settings),
  'prometheus.io/scrape': 'true',
  'prometheus.io/port': '9090',
};
local ports = [{ name: 'http', port: port }, { name: 'metrics', port: 9090 }];

{
  deployment: k.deployment(name, ns, labels, replicas, [
    k.container(
      name,
      image('@DOMAIN@', name),
      settings { environment: env, 'release-channel': release.channel },
      ports,
      k.resources(@CPU@, @MEMORY@, props.resourceScale),
    ),
  ], annotations),
  service: k.service(name, ns, labels, ports),
  config: k.configMap(name + '-config', ns, labels, settings),
  [if props.autoscale then 'autoscaler']: k.hpa(name, ns, labels, replicas, replicas * @SCALE@, @CPU_TARGET@),
  extras: [
    if env == 'prod' then k.pdb(name, ns, labels, std.max(1, replicas - 1)),
    @ACCOUNT@
  ],
}
";

const WORKER: &str = "\
local name = '@NAME@';
local labels = k.labels(name, '@TEAM@', 'worker');
local queues = @QUEUES@;
local concurrency = { [q]: (std.length(q) % 3 + 1) * props.workerConcurrency for q in queues };
local args = ['--queues=' + std.join(',', queues)]
             + ['--concurrency=%s:%d' % [q, concurrency[q]] for q in queues];
local vars = {
  'log-level': props.logLevel,
  'broker-url': 'amqp://broker.%s.svc:5672/@DOMAIN@' % ns,
  'batch-size': @BATCH@,
  'dry-run': env != 'prod',
};

[
  k.deployment(name, ns, labels, props.replicas * @PARALLEL@, [
    k.container(
      name,
      image('@DOMAIN@', name),
      vars,
      resources=k.resources(@CPU@, @MEMORY@, props.resourceScale),
      args=args,
    ),
  ], { 'checksum/queues': k.checksum(concurrency) }),
  k.configMap(name + '-queues', ns, labels, concurrency),
] + [
  k.secret('%s-%s' % [name, q], ns, labels { queue: q }, {
    username: '%s-%s' % [q, env],
    password: std.md5(name + q + env),
  })
  for q in queues
]
";

const JOBS_TEMPLATE: &str = "\
local name = '@NAME@';
local labels = k.labels(name, '@TEAM@', 'batch');
local jobNs = ns + '-jobs';
local jobs = @JOBS@;
local container(job) = k.container(
  job.name,
  image('@DOMAIN@', name),
  { 'job-name': job.name, 'log-level': props.logLevel, 'dry-run': env != 'prod' },
  resources=k.resources(@CPU@, @MEMORY@, props.resourceScale),
  args=job.args,
);
local schedule(i, job) = if env == 'prod' then job.schedule else '%d 3 * * *' % (i * 7 % 60);

{
  account: k.serviceAccount(name, jobNs, labels),
  jobs: k.list(std.mapWithIndex(
    function(i, job) k.cronJob(
      '%s-%s' % [name, job.name],
      jobNs,
      labels { job: job.name },
      schedule(i, job),
      container(job),
      enabled=env == 'prod' || i == 0,
    ),
    jobs,
  )),
  settings: {
    schedules: k.configMap(name + '-schedules', jobNs, labels, {
      [job.name]: schedule(i, jobs[i])
      for i in std.range(0, std.length(jobs) - 1)
      for job in [jobs[i]]
    }),
  },
}
";

const GATEWAY: &str = "\
local name = '@NAME@';
local port = @PORT@;
local labels = k.labels(name, '@TEAM@', 'edge');
local hosts = @HOSTS@;
local routes = std.map(function(h) { host: '%s.%s' % [h, props.domain], path: '/@DOMAIN@/' + h }, hosts);
local vars = {
  'upstream-timeout': '@TIMEOUT@s',
  tls: props.tls,
  hosts: std.join(' ', [route.host for route in routes]),
  'log-level': if env == 'prod' then 'warn' else props.logLevel,
};

{
  edge: {
    deployment: k.deployment(name, ns, labels, props.replicas + @EXTRA_REPLICAS@, [
      k.container(
        name,
        image('@DOMAIN@', name),
        vars,
        [{ name: 'https', port: port }],
        k.resources(@CPU@, @MEMORY@, props.resourceScale),
      ),
    ]),
    service: k.service(name, ns, labels, [{ name: 'https', port: port }]),
  },
  routes: [
    k.ingress('%s-%s' % [name, hosts[i]], ns, labels, routes[i], name, port, props.tls)
    for i in std.range(0, std.length(hosts) - 1)
  ],
  policy: k.networkPolicy(name, ns, labels, @ALLOWED@),
  @ACCESS@
}
";

/// A Jsonnet array of strings.
fn strings<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{}'", s.as_ref())).collect();
    format!("[{}]", quoted.join(", "))
}

/// Distinct items of `pool`, as many as drawn from `count`, in the pool's order.
fn pick<'a, T>(rng: &mut Rng, pool: &'a [T], count: std::ops::Range<usize>) -> Vec<&'a T> {
    let count = rng.usize(count);
    let mut indices: Vec<usize> = (0..pool.len()).collect();
    rng.shuffle(&mut indices);
    indices.truncate(count.min(pool.len()));
    indices.sort_unstable();
    indices.into_iter().map(|i| &pool[i]).collect()
}

/// `template` with every `@KEY@` replaced.
fn fill(template: &str, values: &[(&str, String)]) -> String {
    values
        .iter()
        .fold(template.to_owned(), |text, (key, value)| {
            text.replace(&format!("@{key}@"), value)
        })
}

fn jsonnet_component(rng: &mut Rng, name: &str, index: usize) -> String {
    let domain = name.split('-').next().unwrap_or(name);
    let team = TEAMS[rng.usize(0..TEAMS.len())];
    let family = family(index);
    let common = [
        ("NAME", name.to_owned()),
        ("DOMAIN", domain.to_owned()),
        ("TEAM", team.to_owned()),
        ("CPU", (rng.u32(1..20) * 50).to_string()),
        ("MEMORY", (rng.u32(1..16) * 64).to_string()),
    ];
    let (what, body) = match family {
        Family::Web => {
            let upstreams: Vec<String> = pick(rng, DOMAINS, 0..4)
                .into_iter()
                .map(|d| format!("{d}-api"))
                .collect();
            let mut extra = String::from("{");
            for (key, value) in pick(rng, EXTRA_SETTINGS, 0..4) {
                let _ = write!(extra, " '{key}': {value},");
            }
            extra.push_str(" }");
            let account = if rng.bool() {
                "k.list([k.serviceAccount(name, ns, labels)]),"
            } else {
                "null,"
            };
            let values = [
                ("PORT", (8000 + rng.u32(0..100)).to_string()),
                ("UPSTREAMS", strings(&upstreams)),
                ("TTL", (rng.u32(1..12) * 30).to_string()),
                ("EXTRA", extra),
                (
                    "WEIGHT",
                    ["0.5", "1", "1.5", "2"][rng.usize(0..4)].to_owned(),
                ),
                ("SCALE", rng.u32(2..6).to_string()),
                ("CPU_TARGET", (rng.u32(5..9) * 10).to_string()),
                ("ACCOUNT", account.to_owned()),
            ];
            ("a web service", fill(WEB, &values))
        }
        Family::Worker => {
            let queues: Vec<String> = pick(rng, QUEUES, 1..5)
                .into_iter()
                .map(|q| format!("{domain}-{q}"))
                .collect();
            let values = [
                ("QUEUES", strings(&queues)),
                ("BATCH", (rng.u32(1..11) * 25).to_string()),
                ("PARALLEL", rng.u32(1..4).to_string()),
            ];
            ("a queue worker", fill(WORKER, &values))
        }
        Family::Jobs => {
            let mut jobs = String::from("[\n");
            for (job, schedule) in pick(rng, JOBS, 1..5) {
                let retention = rng.u32(1..31);
                let _ = writeln!(
                    jobs,
                    "  {{ name: '{job}', schedule: '{schedule}', args: ['{job}', '--retention-days={retention}'] }},"
                );
            }
            jobs.push(']');
            ("scheduled jobs", fill(JOBS_TEMPLATE, &[("JOBS", jobs)]))
        }
        Family::Gateway => {
            let hosts = pick(rng, HOSTS, 1..4);
            let access = if hosts.len() < 3 && rng.bool() {
                "access: k.clusterRole(name, labels, ['configmaps', 'endpoints', 'services']),"
            } else {
                ""
            };
            let allowed: Vec<String> = pick(rng, DOMAINS, 1..4)
                .into_iter()
                .map(|d| format!("{d}-api"))
                .collect();
            let values = [
                ("PORT", (8443 + rng.u32(0..10)).to_string()),
                ("HOSTS", strings(&hosts)),
                ("TIMEOUT", (rng.u32(1..13) * 5).to_string()),
                ("EXTRA_REPLICAS", rng.u32(0..3).to_string()),
                ("ALLOWED", strings(&allowed)),
                ("ACCESS", access.to_owned()),
            ];
            ("a gateway", fill(GATEWAY, &values))
        }
    };
    let header = format!("// {name}: {what} of the {domain} domain, owned by team {team}.\n");
    header + PRELUDE + "\n" + &fill(&body, &common)
}

/// A JSON component: a ConfigMap, a `List`, or a map of objects.
fn json_component(rng: &mut Rng, name: &str) -> String {
    let labels = serde_json::json!({ "app": name, "tier": "platform" });
    let quota = serde_json::json!({
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": { "name": format!("{name}-compute"), "namespace": "bench-shared", "labels": labels },
        "spec": { "hard": {
            "requests.cpu": (rng.u32(4..33)).to_string(),
            "requests.memory": format!("{}Gi", rng.u32(8..129)),
            "pods": rng.u32(20..200),
        } },
    });
    let limits = serde_json::json!({
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": { "name": format!("{name}-defaults"), "namespace": "bench-shared", "labels": labels },
        "spec": { "limits": [{
            "type": "Container",
            "default": { "cpu": "500m", "memory": format!("{}Mi", rng.u32(2..9) * 128) },
            "defaultRequest": { "cpu": "100m", "memory": "128Mi" },
        }] },
    });
    let config = serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": { "name": format!("{name}-settings"), "namespace": "bench-shared", "labels": labels },
        "data": {
            "max-pods": rng.u32(10..100).to_string(),
            "enabled": "true",
            "mode": "on",
            "version": "1.10",
            "owner": TEAMS[rng.usize(0..TEAMS.len())],
        },
    });
    let priority = serde_json::json!({
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": { "name": format!("{name}-priority"), "labels": labels },
        "value": rng.u32(1000..100_000),
        "globalDefault": false,
        "description": format!("Priority of the workloads {name} admits."),
    });
    let value = match rng.usize(0..3) {
        0 => serde_json::json!({
            "apiVersion": "v1",
            "kind": "List",
            "items": [quota, limits, config],
        }),
        1 => serde_json::json!({ "quota": quota, "limits": limits, "priority": priority }),
        _ => serde_json::json!([config, priority]),
    };
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// A YAML component: RBAC objects over three documents, or one ConfigMap
/// with a block scalar.
fn yaml_component(rng: &mut Rng, name: &str, index: usize) -> String {
    let team = TEAMS[rng.usize(0..TEAMS.len())];
    if index % 40 == 13 {
        let verbs = strings(&pick(
            rng,
            &["get", "list", "watch", "create", "update"],
            2..5,
        ));
        format!(
            "\
# {name}: what team {team} may do in the shared namespace.
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {name}
  namespace: bench-shared
  labels: {{app: {name}, team: {team}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {name}-editor
  namespace: bench-shared
  labels:
    app: {name}
    team: {team}
rules:
  - apiGroups: ['', apps]
    resources: [configmaps, deployments]
    verbs: {verbs}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {name}-editor
  namespace: bench-shared
  labels:
    app: {name}
    team: {team}
subjects:
  - kind: ServiceAccount
    name: {name}
    namespace: bench-shared
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {name}-editor
"
        )
    } else {
        let workers = rng.u32(1..9);
        let connections = rng.u32(1..9) * 512;
        format!(
            "\
# {name}: the proxy configuration of team {team}.
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}-proxy
  namespace: bench-shared
  labels:
    app: {name}
    team: {team}
  annotations:
    description: \"Proxy settings: workers, connections, and logging.\"
data:
  workers: \"{workers}\"
  keepalive: 'on'
  nginx.conf: |
    worker_processes {workers};
    events {{
      worker_connections {connections};
    }}
    http {{
      access_log /dev/stdout;
      server {{
        listen 8080;
        location /healthz {{ return 200 'ok'; }}
      }}
    }}
"
        )
    }
}

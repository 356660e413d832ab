// The service: stateless replicas, each loading and watching its own
// catalogue, probed on /readyz and /healthz, with a restricted security
// context (non-root, read-only root filesystem, no capabilities, the
// runtime's default seccomp profile).
local s = import 'strata.libsonnet';
local props = s.props;

local restricted = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

local strata = {
  name: 'strata',
  image: props.image,
  args: [
    'platform', 'serve', s.catalogueDir,
    '--users', s.usersRoot + '/users.yaml',
    '--listen', '0.0.0.0:%d' % s.port,
    '--log-format', 'json',
  ],
  ports: [{ name: 'http', containerPort: s.port, protocol: 'TCP' }],
  readinessProbe: {
    httpGet: { path: '/readyz', port: 'http' },
    periodSeconds: 5,
    failureThreshold: 2,
  },
  livenessProbe: {
    httpGet: { path: '/healthz', port: 'http' },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    failureThreshold: 3,
  },
  resources: props.resources,
  securityContext: restricted,
  volumeMounts: [
    { name: 'catalogue', mountPath: s.catalogueRoot, readOnly: true },
    { name: 'users', mountPath: s.usersRoot, readOnly: true },
  ],
};

// The alternative to the ConfigMap: git-sync keeps a checkout current in
// a volume the service reads.
local gitSync = {
  name: 'git-sync',
  image: 'registry.k8s.io/git-sync/git-sync:v4.4.2',
  args: [
    '--repo=' + props.catalogue.repository,
    '--ref=' + props.catalogue.ref,
    '--root=' + s.catalogueRoot,
    '--link=current',
    '--period=30s',
  ],
  resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
  securityContext: restricted,
  volumeMounts: [
    { name: 'catalogue', mountPath: s.catalogueRoot },
    { name: 'tmp', mountPath: '/tmp' },
  ],
};

local catalogueVolume = if s.fromGit
then { name: 'catalogue', emptyDir: {} }
else {
  name: 'catalogue',
  configMap: {
    name: 'strata-catalogue',
    // ConfigMap keys are flat: each file goes back to its folder.
    items: [
      { key: s.configMapKey(path), path: path }
      for path in std.objectFields(import 'catalogue.libsonnet')
    ],
  },
};

s.object('apps/v1', 'Deployment', s.name, {
  spec: {
    replicas: props.replicas,
    revisionHistoryLimit: 5,
    selector: { matchLabels: s.labels },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
    template: {
      metadata: { labels: s.labels },
      spec: {
        automountServiceAccountToken: false,
        securityContext: {
          runAsNonRoot: true,
          runAsUser: 65532,
          runAsGroup: 65532,
          fsGroup: 65532,
          seccompProfile: { type: 'RuntimeDefault' },
        },
        containers: [strata] + (if s.fromGit then [gitSync] else []),
        volumes: [
          catalogueVolume,
          { name: 'users', secret: { secretName: props.usersSecret } },
        ] + (if s.fromGit then [{ name: 'tmp', emptyDir: {} }] else []),
      },
    },
  },
})

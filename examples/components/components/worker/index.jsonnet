// A folder component: `index.jsonnet` is evaluated, its neighbours are imports.
local k = import 'k.libsonnet';
local settings = import 'settings.libsonnet';

[
  k.deployment('worker', settings.image, settings.replicas[std.extVar('qbec.io/env')], { QUEUE: settings.queue }),
  {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'worker-queues' }, data: { queues: std.join(',', settings.queues) } },
    ],
  },
]

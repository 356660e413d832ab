// The service in front of the replicas.
local s = import 'strata.libsonnet';

s.object('v1', 'Service', s.name, {
  spec: {
    type: 'ClusterIP',
    selector: s.labels,
    ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
  },
})

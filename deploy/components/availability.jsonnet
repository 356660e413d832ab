// Availability: at most one replica down at a time for voluntary
// disruptions, and replicas added on CPU load.
local s = import 'strata.libsonnet';
local props = s.props;

[
  s.object('policy/v1', 'PodDisruptionBudget', s.name, {
    spec: { maxUnavailable: 1, selector: { matchLabels: s.labels } },
  }),
  s.object('autoscaling/v2', 'HorizontalPodAutoscaler', s.name, {
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: s.name },
      minReplicas: props.replicas,
      maxReplicas: props.maxReplicas,
      metrics: [{
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
      }],
    },
  }),
]

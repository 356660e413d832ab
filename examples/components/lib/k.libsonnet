// Small builders for the objects this application needs.
{
  deployment(name, image, replicas, env={}):: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: name },
    spec: {
      replicas: replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{
            name: name,
            image: image,
            env: [{ name: k, value: std.toString(env[k]) } for k in std.objectFields(env)],
          }],
        },
      },
    },
  },

  service(name, port):: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: name },
    spec: {
      selector: { app: name },
      ports: [{ port: port, targetPort: port }],
    },
  },
}

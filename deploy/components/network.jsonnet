// Who may talk to the service, and whom it may talk to: the client
// namespaces in, DNS out, and HTTPS out for git-sync.
local s = import 'strata.libsonnet';
local props = s.props;

local dns = {
  to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
  ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }],
};
local https = { ports: [{ protocol: 'TCP', port: 443 }] };

s.object('networking.k8s.io/v1', 'NetworkPolicy', s.name, {
  spec: {
    podSelector: { matchLabels: s.labels },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [{
      from: [
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': client } } }
        for client in props.clients
      ],
      ports: [{ protocol: 'TCP', port: s.port }],
    }],
    egress: [dns] + (if s.fromGit then [https] else []),
  },
})

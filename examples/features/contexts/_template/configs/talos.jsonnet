// Evaluated by `jsonnet("../configs/talos.jsonnet")` with the context's values.
local context = std.extVar('context');
{
  worker_config_patches: [
    { op: 'add', path: '/machine/kubelet/extraArgs', value: { 'max-pods': '110' } },
    { op: 'add', path: '/cluster/clusterName', value: 'shop-' + context.provider },
  ],
}

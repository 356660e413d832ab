// The catalogue as a ConfigMap (when it is not synced from git). Every
// replica mounts it; kubelet updates the mounted files at its sync
// interval and each replica reloads on the change.
local s = import 'strata.libsonnet';
local files = import 'catalogue.libsonnet';

if s.fromGit then [] else [
  s.object('v1', 'ConfigMap', 'strata-catalogue', {
    data: { [s.configMapKey(path)]: files[path] for path in std.objectFields(files) },
  }),
]

// What every object of the deployment shares: names, labels, the
// environment's properties, and the ports and paths of the service.
local props = std.extVar('qbec.io/envProperties');

{
  props:: props,
  name:: 'strata',
  labels:: { 'app.kubernetes.io/name': 'strata', 'app.kubernetes.io/component': 'platform-service' },
  port:: 8080,
  // Where the container reads its catalogue and its users file.
  catalogueRoot:: '/var/lib/strata/catalogue',
  usersRoot:: '/etc/strata/users',
  // The catalogue folder the service watches: the ConfigMap's mount, or the
  // checkout git-sync keeps current (its `current` link, then the path).
  catalogueDir:: if props.catalogue.source == 'git'
  then self.catalogueRoot + '/current/' + props.catalogue.path
  else self.catalogueRoot,
  fromGit:: props.catalogue.source == 'git',
  // A ConfigMap key for a catalogue file: keys cannot hold `/`.
  configMapKey(path):: std.strReplace(path, '/', '__'),

  object(apiVersion, kind, name, spec):: {
    apiVersion: apiVersion,
    kind: kind,
    metadata: { name: name, labels: $.labels },
  } + spec,
}

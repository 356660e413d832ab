// Every object passes through here: add the owning team and a default namespace.
function(object)
  object {
    metadata+: {
      labels+: { team: 'shop' },
      [if !std.objectHas(object.metadata, 'namespace') && object.kind != 'Namespace' then 'namespace']:
        std.extVar('qbec.io/defaultNs'),
    },
  }

// The API: a function of the top-level argument `replicas`, which defaults
// to the environment's property.
local k = import 'k.libsonnet';
local props = std.extVar('qbec.io/envProperties');
local image = props.image.repository + ':' + std.extVar('image_tag');

function(replicas=props.replicas) {
  deployment: k.deployment('api', image, replicas, { LOG_LEVEL: props.logLevel, ENV: std.extVar('qbec.io/env') }),
  service: k.service('api', 8080),
}

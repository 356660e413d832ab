// What a `jsonnet()` file reads as `std.extVar("helpers")`, as Windsor
// gives it: reads of the context by a dotted path with a default, typed
// reads that fail on another type, and two helpers for text and trees.
local walk(value, keys) =
  if std.length(keys) == 0 then value
  else if !std.isObject(value) || !std.objectHasAll(value, keys[0]) then null
  else walk(value[keys[0]], keys[1:]);

local typed(helpers, kind, value, path, default, convert=function(v) v) =
  local found = helpers.get(value, path, null);
  if found == null then default
  else if std.type(found) == kind then convert(found)
  else error 'Expected ' + kind + " for '" + path + "' but got "
             + std.type(found) + ': ' + std.toString(found);

local kept(value) =
  if std.isObject(value) then std.length(std.objectFields(value)) > 0
  else if std.isArray(value) then std.length(value) > 0
  else value != null && value != '';

{
  // The value at `path` (`a.b.c`), or `default` where there is none. A
  // path of one key gives the key's value as it is, `null` included.
  get(value, path, default=null)::
    if std.length(std.findSubstr('.', path)) == 0 then
      if std.isObject(value) && std.objectHasAll(value, path) then value[path] else default
    else
      local found = walk(value, std.split(path, '.'));
      if found == null then default else found,

  getString(value, path, default='')::
    typed(self, 'string', value, path, default),
  getInt(value, path, default=0)::
    typed(self, 'number', value, path, default, std.floor),
  getNumber(value, path, default=0)::
    typed(self, 'number', value, path, default),
  getBool(value, path, default=false)::
    typed(self, 'boolean', value, path, default),
  getObject(value, path, default={})::
    typed(self, 'object', value, path, default),
  getArray(value, path, default=[])::
    typed(self, 'array', value, path, default),

  // Whether `path` leads to a value other than `null`.
  has(value, path):: self.get(value, path, null) != null,

  // The host of an endpoint: without `https://` or `http://` and without
  // the port.
  baseUrl(endpoint)::
    local rest =
      if std.startsWith(endpoint, 'https://') then std.substr(endpoint, 8, std.length(endpoint) - 8)
      else if std.startsWith(endpoint, 'http://') then std.substr(endpoint, 7, std.length(endpoint) - 7)
      else endpoint;
    local colon = std.findSubstr(':', rest);
    if endpoint == '' then ''
    else if std.length(colon) > 0 then std.substr(rest, 0, colon[0])
    else rest,

  // `value` without `null`, empty strings, and objects and arrays left
  // empty once cleaned, at every depth.
  removeEmptyKeys(value)::
    local clean(v) =
      if std.isObject(v) then
        { [key]: clean(v[key]) for key in std.objectFields(v) if kept(clean(v[key])) }
      else if std.isArray(v) then
        [clean(item) for item in v if kept(clean(item))]
      else v;
    clean(value),
}

// The files of `catalogue/`, by their path below it: what the ConfigMap
// holds and where each file goes back in the mount.
local files = import 'glob-importstr:../catalogue/**/*.yaml';
local prefix = '../catalogue/';

{
  [std.substr(path, std.length(prefix), std.length(path))]: files[path]
  for path in std.objectFields(files)
}

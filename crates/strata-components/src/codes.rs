//! The diagnostic codes of the components dialect.
//!
//! Evaluation failures and `std.trace` are `jsonnet/eval` and
//! `jsonnet/trace` (`strata-jsonnet`); files that cannot be read or hold
//! the wrong number of documents, `io/*` (`strata-fs`, `strata-dialect`);
//! `qbec.yaml`'s structure, `schema/*`.

strata_syntax::declare_codes! {
    DUPLICATE_COMPONENT = "components/duplicate-component" {
        when: "two components share a name",
        why: r"A component is named after its file without the extension (`web.jsonnet` is `web`) or after its folder, and the name is what environments, filters and labels refer to, so two components may not share one. Both places are named.",
        fix: r"Rename or remove one of the two, for instance `web.jsonnet` beside `web.yaml` or beside a folder `web/`.",
        example: r"# components/web.jsonnet (beside components/web.yaml)
{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' } }",
    }

    UNKNOWN_COMPONENT = "components/unknown-component" {
        when: "`excludes`, `includes`, a top-level argument's `components` or `--component` names no component",
        why: r"`spec.excludes`, an environment's `includes` and `excludes`, a top-level argument's `components`, and `-c`/`-C` on the command line select components by name; a name that matches no component would silently select nothing, so it is an error with a did-you-mean.",
        fix: r"Correct the name to one of the application's components (a file's name without its extension, or a folder's name), or remove the entry.",
        example: r"# qbec.yaml
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  excludes: [wbe]
  environments:
    dev: {server: https://dev.example.com}",
    }

    INVALID_PATH = "components/invalid-path" {
        when: "`componentsDir`, a `libPaths` or `envFiles` entry or `postProcessor` leaves the root, an `envFiles` entry is a URL or a glob matching nothing, or the post-processor is missing",
        why: r"Everything an application reads comes from its own folder, so `componentsDir`, `libPaths`, `envFiles`, `postProcessor` and `--vm:jpath` must name paths inside it. An `envFiles` entry is not downloaded from a URL, must match at least one file when it is a glob, and the post-processor file must exist.",
        fix: r"Name a path relative to the application folder that stays inside it (copy or vendor shared files into the application), and check that globs and post-processor paths name existing files.",
        example: r"# qbec.yaml
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  envFiles:
    - ../shared/envs.yaml
  environments:
    dev: {server: https://dev.example.com}",
    }

    DUPLICATE_VAR = "components/duplicate-var" {
        when: "a variable is declared twice",
        why: r"Each variable in `spec.vars` is declared once: external and computed variables share one namespace (both are `std.extVar`s), and top-level arguments have their own. A second declaration would make its default or code ambiguous.",
        fix: r"Remove or rename one of the declarations; the secondary place shows the first.",
        example: r#"# qbec.yaml
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  environments:
    dev: {server: https://dev.example.com}
  vars:
    external: [{name: imageTag}]
    computed: [{name: imageTag, code: "'latest'"}]"#,
    }

    UNSUPPORTED = "components/unsupported" {
        when: "`paramsFile`, `dsExamples`",
        why: r"qbec's `paramsFile` and `dsExamples` describe data outside the Jsonnet evaluation, which Strata does not read. Rather than ignoring them and rendering something other than qbec would, they are reported.",
        fix: r"Remove the key: give environments `properties` in `qbec.yaml` instead of `paramsFile`, and compute data in Jsonnet or pass it as a variable instead of a data source.",
        example: r"# qbec.yaml
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  paramsFile: params.libsonnet
  environments:
    dev: {server: https://dev.example.com}",
    }

    INVALID_NAME = "components/invalid-name" {
        when: "the application's or an environment's name, or `--app-tag`, is not a label value, an environment is named `_`, or there is no environment",
        why: r"The application's name, each environment's name and the `--app-tag` become the values of the `qbec.io/*` labels, so each must be a Kubernetes label value. `_` is reserved for the baseline environment, and an application must declare at least one environment.",
        fix: r"Use at most 63 letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit; rename an environment called `_`; declare an environment under `spec.environments` or in an `envFiles` file.",
        example: r#"# qbec.yaml
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: "my shop!"
spec:
  environments:
    dev: {server: https://dev.example.com}"#,
    }

    INVALID_ENVIRONMENT = "components/invalid-environment" {
        when: "an environment names neither or both of `server` and `context`, or a context starting with `__`",
        why: r"As qbec requires, each environment names exactly one cluster: a `server` (the API server's URL) or a kubeconfig `context`. A context starting with `__` is one of qbec's keywords (`__current__`), not a context name.",
        fix: r"Give the environment either `server` or `context`, not both and not neither, and name a real kubeconfig context.",
        example: r"# qbec.yaml
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  environments:
    prod:
      server: https://k8s.example.com
      context: prod",
    }

    OVERRIDDEN_ENVIRONMENT = "components/overridden-environment" {
        when: "a warning: an environment file defines an environment again, replacing the earlier definition (as qbec)",
        why: r"Environment files (`envFiles`) are read in order after `spec.environments`, and as in qbec a later definition of an environment replaces the earlier one whole rather than merging with it. The warning points at the replacing definition and the earlier one.",
        fix: r"Keep one definition of each environment, or remove the earlier one if the replacement is intended.",
        example: r"# envs/more.yaml (qbec.yaml defines `dev` and lists this file in `envFiles`)
apiVersion: qbec.io/v1alpha1
kind: EnvironmentMap
spec:
  environments:
    dev: {server: https://dev2.example.com}",
    }

    INCLUDE_EXCLUDE = "components/include-exclude" {
        when: "an environment, or the command line (`-c` and `-C`), both includes and excludes a component",
        why: r"An environment's `includes` and `excludes` (or `-c` and `-C` on the command line) decide whether a component is rendered; naming the same component in both is a contradiction with no meaningful answer.",
        fix: r"Remove the component from one of the two lists (or flags).",
        example: r"# qbec.yaml
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  environments:
    dev:
      server: https://dev.example.com
      includes: [web]
      excludes: [web]",
    }

    NO_COMPONENTS = "components/no-components" {
        when: "an error when `componentsDir` matches no folder (as qbec); a warning when the folders it matches hold no component (nothing is rendered, as qbec)",
        why: r"Components are the `.jsonnet`, `.json` and `.yaml` files directly in `componentsDir`, and its subfolders holding an `index.jsonnet` or `index.yaml`. A `componentsDir` that names no folder is refused, as qbec refuses it; folders that hold no component render nothing (as in qbec), which usually means misplaced files.",
        fix: r"Point `componentsDir` at the folder holding the components (default `components`), or add a component there.",
        example: r"# qbec.yaml (there is no folder `nowhere`)
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  componentsDir: nowhere
  environments:
    dev: {server: https://dev.example.com}",
    }

    UNKNOWN_ENVIRONMENT = "components/unknown-environment" {
        when: "`--env` names no environment (the known ones are listed)",
        why: r"`--env` chooses one of the environments of `spec.environments` and the `envFiles`, or `_` for the baseline; a name that is none of these cannot be rendered. The known ones are listed, with a did-you-mean.",
        fix: r"Pass one of the listed environments (or `_`), or declare the environment in `qbec.yaml`.",
        example: r"# qbec.yaml (rendered with: strata components render . --env prd)
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  environments:
    prod: {server: https://prod.example.com}",
    }

    EXCLUDED = "components/excluded" {
        when: "a note: `--component` names a component the environment excludes",
        why: r"`--component` selects a component that the requested environment excludes (through `spec.excludes` or its own `excludes`), so nothing is rendered for it. It is a note, since the selection is not wrong, only empty.",
        fix: r"Render an environment that includes the component, or add it to the environment's `includes`.",
        example: r"# qbec.yaml (rendered with: strata components render . --env dev -c web)
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  excludes: [web]
  environments:
    dev: {server: https://dev.example.com}",
    }

    UNDECLARED_VAR = "components/undeclared-var" {
        when: "a variable given on the command line is not declared (a warning, an error with `--strict-vars`)",
        why: r"Variables given with `--vm:ext-*` should be declared in `spec.vars.external`, and top-level arguments with `--vm:tla-*` in `spec.vars.topLevel`. As in qbec, an undeclared external variable still reaches every component and an undeclared argument reaches none, so a typo goes unnoticed; it is a warning, an error with `--strict-vars`.",
        fix: r"Correct the name (see the did-you-mean), or declare the variable in `spec.vars`.",
        example: r"# qbec.yaml (rendered with: strata components render . --env dev --vm:ext-str imagetag=1.2)
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  environments:
    dev: {server: https://dev.example.com}
  vars:
    external:
      - name: imageTag",
    }

    MISSING_VAR = "components/missing-var" {
        when: "a component reads a declared external variable that has no value and no default, or `--strict-vars` and a declared variable or argument is not given",
        why: r"A declared external variable without a `default` has no value unless the command line gives one, and a component that reads it fails at the read (as in qbec, only the components that read it). With `--strict-vars`, every declared variable and top-level argument must be given on the command line.",
        fix: r"Give the variable with `--vm:ext-str NAME=VALUE` or `--vm:ext-code NAME=CODE` (`--vm:tla-*` for arguments), or declare a `default`.",
        example: r"# qbec.yaml (a component calls std.extVar('region'); rendered without --vm:ext-str region=...)
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  environments:
    dev: {server: https://dev.example.com}
  vars:
    external:
      - name: region",
    }

    POST_PROCESSOR = "components/post-processor" {
        when: "a post-processor did not return an object with a name, or two post-processors share a file name",
        why: r"A post-processor is a Jsonnet function of `object` that must return an object with `kind`, `apiVersion` and a name, since its result replaces the object. Several post-processors separated by `:` must have distinct file names, as qbec refuses two of one name.",
        fix: r"Make the function return the (modified) object, for example `function(object) object { metadata+: { labels+: { team: 'web' } } }`, and rename one of two post-processors sharing a file name.",
        example: r"// pp.jsonnet (named in qbec.yaml: spec.postProcessor: pp.jsonnet)
function(object) null",
    }

    DUPLICATE_OBJECT = "components/duplicate-object" {
        when: "two objects share kind, namespace and name",
        why: r"Objects are identified in a cluster by kind, namespace and name, so two objects of the application with the same three would overwrite each other when applied. The error names the component(s) each came from.",
        fix: r"Rename one of the objects, put it in another namespace, or remove the duplicate from one component.",
        example: r"// components/web.jsonnet
[
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' } },
]",
    }

    NOT_AN_OBJECT = "components/not-an-object" {
        when: "a scalar where an output is expected",
        why: r"A component's output is, recursively, a Kubernetes object (`kind` and `apiVersion` non-empty strings), a List, a mapping or an array of outputs, or `null`. A string, a number or a boolean where an output is expected is no object to render; the message names its JSON path (`$.deployments[1]`).",
        fix: r"Remove the scalar from the output, or wrap it in an object (a ConfigMap's `data`, say).",
        example: r"// components/web.jsonnet
{
  deployments: [
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } },
    'oops',
  ],
}",
    }

    INVALID_LIST = "components/invalid-list" {
        when: "a `List` without an `items` array",
        why: r"An object of `kind: List` is read as a list of outputs, so it must have an `items` array; one without would render nothing, or render the List itself.",
        fix: r"Give the List an `items` array of objects (or return the array itself).",
        example: r"// components/web.jsonnet
{ apiVersion: 'v1', kind: 'List', itemz: [] }",
    }

    NO_NAME = "components/no-name" {
        when: "an object without `metadata.name` or `generateName`",
        why: r"Every Kubernetes object needs a name: `metadata.name`, or `metadata.generateName` for the API server to complete. An object without either cannot be applied.",
        fix: r"Give the object a `metadata.name` (or a `generateName`).",
        example: r#"# components/config.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  labels: {app: web}
data:
  x: "1""#,
    }

    INVALID_METADATA = "components/invalid-metadata" {
        when: "`metadata`, its `labels` or its `annotations` is not a mapping",
        why: r"An object's `metadata`, `metadata.labels` and `metadata.annotations` must be mappings, and label and annotation values strings: Kubernetes refuses `enabled: true` or `replicas: 3` there, and the `qbec.io/*` labels cannot be added to anything else.",
        fix: r#"Write `metadata`, `labels` and `annotations` as mappings and quote non-string values (`enabled: "true"`)."#,
        example: r"# components/config.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: config
  labels:
    enabled: true",
    }

    DATA_SOURCE = "components/data-source" {
        when: "a `spec.dataSources` entry that is not `exec://NAME?configVar=VAR` or `helm3://NAME?configVar=VAR`, or two entries of one name",
        why: r"qbec's data sources are declared in `qbec.yaml` as URLs: the scheme says how the data is fetched, the name is what `data://NAME/...` imports read, and `configVar` names the variable whose value configures the source. An entry that cannot be read this way would leave the imports that use it without a source.",
        fix: r"Write the entry as `exec://NAME?configVar=VAR`, with a name used once, and declare `VAR` as an external or computed variable.",
        example: r"# qbec.yaml, with `strata components check app`
apiVersion: qbec.io/v1alpha1
kind: App
metadata:
  name: shop
spec:
  dataSources:
    - exec://config
  environments:
    dev:
      server: https://dev.example.invalid",
    }
}

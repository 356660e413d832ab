//! The diagnostic codes of the features dialect.
//!
//! Expressions report `cond/parse` and `cond/eval` (`strata-cond`), a
//! failing `jsonnet()` file `jsonnet/eval` (`strata-jsonnet`), files that
//! cannot be read or hold several documents `io/*`, the files' structure
//! `schema/*`.

strata_syntax::declare_codes! {
    NOT_A_MAPPING = "features/not-a-mapping" {
        when: "`windsor.yaml`, a context's block or `values.yaml` is not a mapping",
        why: r"The values that expressions see are a mapping: the context's block under `contexts.<NAME>` in `windsor.yaml`, with `contexts/<NAME>/values.yaml` deep-merged over it key by key. A list or a scalar in either place cannot be merged, and ignoring it would silently lose the context's values.",
        fix: r"Write the context's block and `values.yaml` as `key: value` mappings; an empty block (`local: {}`) or an empty `values.yaml` is fine.",
        example: r"# contexts/local/values.yaml
- provider: aws",
    }

    UNKNOWN_CONTEXT = "features/unknown-context" {
        when: "no file names the context: no `contexts.<NAME>` in `windsor.yaml`, no `contexts/<NAME>/windsor.yaml` or `values.yaml` (the known ones are listed)",
        why: r"`--context NAME` chooses the context whose values the render sees: the block `contexts.<NAME>` of `windsor.yaml`, a folder `contexts/<NAME>/` with its own `windsor.yaml` (or `.yml`), or its `values.yaml`. With none of them, the name is no context. The message lists the contexts `windsor.yaml` declares and suggests the closest one.",
        fix: r"Pass one of the listed names to `--context`, add the context under `contexts:` in `windsor.yaml`, or write its settings in `contexts/<NAME>/windsor.yaml` (as `windsor init` does).",
        example: r"# windsor.yaml (rendered with: strata features render . --context locla)
version: v1alpha1
contexts:
  local: {}
  aws: {}",
    }

    INVALID_SET = "features/invalid-set" {
        when: "a malformed `--set`, or a path through a non-mapping",
        why: r#"`--set PATH=VALUE` sets one key of the context's values: `PATH` must be a dotted field path of keys (`cluster.workers.count`, `["a.b"]` for a key with a dot), and every step along it must be a mapping or absent. A path that does not parse, uses an index or a wildcard, or goes through a string or a list has no key to set."#,
        fix: r"Write the path as dotted keys, and set a whole value where the path would go through a non-mapping (`--set 'zones=[a, c]'` rather than `--set zones.0=c`).",
        example: r"# windsor.yaml (rendered with: strata features render . --context local --set provider.region=us-east-1)
version: v1alpha1
contexts:
  local:
    provider: local",
    }

    NO_CONTEXT_BLUEPRINT = "features/no-context-blueprint" {
        when: "a project without `contexts/_template` whose context has no `contexts/<NAME>/blueprint.yaml`",
        why: r"A project made before templates has no `contexts/_template`: each context's blueprint is its own `contexts/<NAME>/blueprint.yaml`, read as written (as Windsor reads it). With neither, the context has no blueprint to render.",
        fix: r"Write the context's blueprint in `contexts/<NAME>/blueprint.yaml`, or add a template folder `contexts/_template` with a `blueprint.yaml` or features.",
        example: r"# windsor.yaml (and no contexts/_template, no contexts/local/blueprint.yaml)
# strata features render . --context local
version: v1alpha1
contexts:
  local:
    provider: local",
    }

    DUPLICATE_FEATURE = "features/duplicate-feature" {
        when: "two features share a name (both files named)",
        why: r"Features are identified and applied in the order of their `metadata.name`, so two feature files may not share a name; which of them would apply first would be ambiguous. Both files are named.",
        fix: r"Rename one of the features (its `metadata.name`), or merge the two files into one.",
        example: r"# contexts/_template/features/a.yaml (and features/b.yaml with the same name)
kind: Feature
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: shared",
    }

    DUPLICATE_ENTRY = "features/duplicate-entry" {
        when: "the base blueprint gives the same component or kustomization twice",
        why: r"In `blueprint.yaml`, each Terraform component (by `path` and `source`) and each kustomization (by `name`) may be given once: the base blueprint states what every context starts from, and a second entry would say two things at once. The second is reported and left out. (A feature may list an entry several times, each under its own `when`: as Windsor, each that applies merges in turn.)",
        fix: r"Combine the two entries into one, or give them different `path`s (components) or `name`s (kustomizations).",
        example: r"# contexts/_template/blueprint.yaml
kind: Blueprint
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: demo
kustomize:
  - name: ingress
    path: ingress/one
  - name: ingress
    path: ingress/two",
    }

    MISSING_PATH = "features/missing-path" {
        when: "a composed kustomization has no `path`",
        why: r"A feature may give a kustomization without a `path` to merge into one of the same name, but after every feature has applied, each kustomization of the composed blueprint must have a `path` for Flux to reconcile. One without is reported at its name.",
        fix: r"Add `path:` to the kustomization, or make sure an entry of the same `name` with a `path` is in the blueprint or in a feature whose `when` holds.",
        example: r"# contexts/_template/features/extra.yaml
kind: Feature
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: extra
kustomize:
  - name: without-path
    components: [x]",
    }

    SOURCE_MISMATCH = "features/source-mismatch" {
        when: "a warning: a feature's component has an existing one's `path` but another `source`, so it is added, not merged",
        why: r"Terraform components match on both `path` and `source`, as in Windsor. A feature's component with the `path` of one already in the blueprint but another (or no) `source` is therefore a new component, added beside the existing one rather than merged into it, which is rarely what was meant.",
        fix: r"Give the feature's component the same `source` as the existing one to merge into it; if two components of one path from different sources are intended, the warning can be left.",
        example: r"# contexts/_template/features/mirror.yaml (the blueprint has `path: network/vpc`, `source: core`)
kind: Feature
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: mirror
terraform:
  - path: network/vpc
    source: mirror",
    }

    UNKNOWN_DEPENDENCY = "features/unknown-dependency" {
        when: "a warning: a `dependsOn` entry names nothing in this blueprint (did-you-mean; another context may provide it)",
        why: r"Each `dependsOn` entry should name an entry of the composed blueprint: a Terraform component by its `name`, else its `path`; a kustomization by its `name`. As in Windsor another context may provide it, so it is a warning (an error with `--strict`); a name whose entry was left out because its `when` was false is said to be so.",
        fix: r"Correct the name (the did-you-mean helps; a named component is depended on by `name`, not `path`), or make sure the entry it names is composed in this context.",
        example: r"# contexts/_template/blueprint.yaml
kind: Blueprint
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: demo
kustomize:
  - name: ingress
    path: ingress
  - name: dns
    path: dns
    dependsOn: [ingres]",
    }

    DEPENDENCY_CYCLE = "features/dependency-cycle" {
        when: "a `dependsOn` graph has a cycle; the message prints it (`a -> b -> a`)",
        why: r"`dependsOn` orders the Terraform components and, separately, the kustomizations; an order exists only if neither graph has a cycle. The message prints the cycle found (`a -> b -> a`), at the `dependsOn` entry that closes it.",
        fix: r"Remove one of the `dependsOn` entries in the printed cycle, checking the features too, since a feature's `merge` appends to `dependsOn`.",
        example: r"# contexts/_template/blueprint.yaml
kind: Blueprint
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: demo
kustomize:
  - name: x
    path: x
    dependsOn: [y]
  - name: y
    path: y
    dependsOn: [x]",
    }
}

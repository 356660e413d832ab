//! The diagnostic codes of the platform dialect.

strata_syntax::declare_codes! {
    BLUEPRINT_MISMATCH = "platform/blueprint-mismatch" {
        when: "`--blueprint` and the repository's `template` name different blueprints",
        why: r"A render composes one blueprint: the one `--blueprint` names, or the one the repository file's `template` names when `--blueprint` is left out. When both are given and name different blueprints, it is unclear which was meant, so nothing is composed.",
        fix: r"Leave out `--blueprint` so the repository's `template` decides, or make the two name the same blueprint.",
        example: r"# .k8shell.yaml (rendered with: strata platform render catalogue --blueprint go --repo .k8shell.yaml)
blueprint:
  template: python",
    }

    BLUEPRINT_NOT_ALLOWED = "platform/blueprint-not-allowed" {
        when: "the caller may not use the blueprint asked for, whether it exists or not",
        why: r"The platform service lets each user compose only the blueprints their `allowedBlueprints` names or globs match (admins may use every one). The answer is the same whether the blueprint exists or not, so that a caller cannot discover blueprints they may not use.",
        fix: r"Ask for a blueprint the user may use, or add its name (or a glob matching it) to the user's `allowedBlueprints` in the users file.",
        example: r#"# users.yaml has `allowedBlueprints: [data-*]` for ada; the request:
curl -H "Authorization: Bearer $ADA_TOKEN" localhost:8080/v1/compose \
  -d '{"blueprint": "go-services", "workspaceName": "w", "metadata": {"name": "w"}}'"#,
    }

    DUPLICATE_NAME = "platform/duplicate-name" {
        when: "two blueprints share a name (both files named)",
        why: r"Blueprints refer to each other and are asked for by `name`, so every blueprint of the catalogue must have its own, across all files. The second one is reported, with where the first is defined.",
        fix: r"Rename one of the blueprints (and the `template` references to it), or remove the duplicate.",
        example: r"# catalogue/web.yaml
blueprints:
  - name: web
    image: registry.example.com/web:1
  - name: web
    image: registry.example.com/web:2",
    }

    INCLUDE_CYCLE = "platform/include-cycle" {
        when: "includes form a cycle (the chain is printed)",
        why: r"`!include PATH` replaces a node with the document of another file, which may include further files; a file that includes itself, directly or through others, would expand without end. The chain of files is printed.",
        fix: r"Break the chain: move the shared part into a file that includes none of the files that include it.",
        example: r"# catalogue/a.yaml (includes itself)
name: a
image: x
env: !include a.yaml",
    }

    INCLUDE_ESCAPES = "platform/include-escapes" {
        when: "an `!include` path leaves the catalogue folder",
        why: r"An `!include` path is resolved against the including file and must stay inside the catalogue folder (symlinks included), so that the catalogue is everything it depends on and nothing outside it can be read through it.",
        fix: r"Move the included file into the catalogue folder and include it by a relative path that stays inside it.",
        example: r"# catalogue/a.yaml
name: a
image: x
splash: !include ../../outside.yaml",
    }

    INCLUDE_IN_REPO = "platform/include-in-repo" {
        when: "a repository file uses `!include`",
        why: r"A repository file (`.k8shell.yaml`) comes from outside the catalogue, from the user's repository, so it may not `!include` files: it could otherwise read files of the machine or catalogue it is composed on.",
        fix: r"Write the values inline in the repository file instead of including them.",
        example: r"# .k8shell.yaml
blueprint:
  template: base
  env: !include secrets.yaml",
    }

    INCLUDE_INVALID = "platform/include-invalid" {
        when: "`!include` on something other than a path string",
        why: r"`!include` replaces its node with the document of the file it names, so the tagged node must be a string holding a path; a mapping, a list or a number names no file.",
        fix: r"Tag a plain path string: `key: !include shared/file.yaml`.",
        example: r"# catalogue/a.yaml
name: a
image: x
resources: !include [shared, resources.yaml]",
    }

    INVALID_CIDR = "platform/invalid-cidr" {
        when: "`network.allowEgressToCIDRs` entries are CIDRs (`10.0.0.0/8`, `fd00::/8`)",
        why: r"`network.allowEgressToCIDRs` lists the address ranges a workspace may reach, each an IPv4 or IPv6 address with a prefix length no larger than the address allows (`/32`, `/128`). Anything else cannot become a network policy rule.",
        fix: r"Write each entry as an address and a prefix, such as `10.0.0.0/8` or `fd00::/8`.",
        example: r"# catalogue/a.yaml
name: a
image: x
network:
  allowEgressToCIDRs: [10.0.0.0/40, not-a-cidr]",
    }

    INVALID_ENV_NAME = "platform/invalid-env-name" {
        when: "environment variable names are letters, digits, `_`, `-`, `.`, not starting with a digit",
        why: r"The keys of `env` become the environment variables of the workspace container, and Kubernetes accepts only names of letters, digits, `_`, `-` and `.` that do not start with a digit.",
        fix: r"Rename the variable to follow that rule, such as `BAD_1` for `1BAD`.",
        example: r"# catalogue/a.yaml
name: a
image: x
env:
  1BAD: x",
    }

    INVALID_FILE = "platform/invalid-file" {
        when: "a catalogue file's document is not a blueprint, a list of them, `blueprint:` or `blueprints:`",
        why: r"A catalogue file holds blueprints in one of four shapes: one blueprint mapping, a list of blueprints, `blueprint: {...}` or `blueprints: [...]`. A document of another shape (a string, a number, a `blueprints` that is not a list, a list entry that is not a mapping) holds no blueprint.",
        fix: r"Write the file as a blueprint mapping or a list of them; move fragments that are not blueprints into files that are only `!include`d.",
        example: r"# catalogue/c.yaml
just a string",
    }

    INVALID_HOSTNAME = "platform/invalid-hostname" {
        when: "`hostname` and `subdomain` are plain DNS names",
        why: r"`hostname` and `subdomain` become DNS names of the workspace: dot-separated labels of letters, digits and `-`, each 1 to 63 characters, not starting or ending with `-`, 253 characters in all.",
        fix: r"Use a plain DNS name such as `dev-box.example.com`; with `!cel`, make sure the expression yields one (no `_`, no spaces).",
        example: r"# catalogue/a.yaml
name: a
image: x
hostname: -bad-.example.com",
    }

    INVALID_PATH = "platform/invalid-path" {
        when: "storage paths and `extFiles` keys are absolute",
        why: r"A storage's `path` is where it is mounted in the container and an `extFiles` key is where the file is written, so both must be absolute paths; a relative one has no place to go.",
        fix: r"Start the path with `/`, such as `/work` for `work`.",
        example: r"# catalogue/a.yaml
name: a
image: x
storages:
  work:
    path: work",
    }

    INVALID_REPO = "platform/invalid-repo" {
        when: "a repository file is not `blueprint: {template: NAME, ...}`, or has other keys",
        why: r"A repository file holds one key, `blueprint`, a mapping whose `template` names the catalogue blueprint it starts from, with the keys it overrides. Other top-level keys, a `blueprint` that is not a mapping, or one without `template` cannot be composed.",
        fix: r"Write the file as `blueprint: {template: NAME, ...}`, with every setting under `blueprint`.",
        example: r"# .k8shell.yaml
blueprint: [python]
owner: team-a",
    }

    INVALID_SCOPE = "platform/invalid-scope" {
        when: "a `--scope` file is not `user`, `workspaceName` and `metadata` of the right types",
        why: r"A scope says who asks and for which workspace: a mapping of exactly `user` (a mapping), `workspaceName` (a string) and `metadata` (a mapping). The CEL expressions of the blueprint read these, so a missing or mistyped part, or an unknown key, is reported.",
        fix: r"Give the scope file `user`, `workspaceName` and `metadata` with those types, and no other keys.",
        example: r"# scope.yaml (rendered with: strata platform render catalogue --blueprint a --scope scope.yaml)
user: grace
metadata: {name: x}
workspace: y",
    }

    INVALID_STRATEGY = "platform/invalid-strategy" {
        when: "a strategy in `.strata.yaml` or the settings is not a strategy, or its path is not a pattern",
        why: r"`mergeStrategies` in `.strata.yaml` (or the editor's settings) maps a field path to the merge strategy used when a blueprint is composed over its template. The strategy must be one of `append`, `replace`, `union`, `merge-by-key:<field>` and `replace-by-key:<field>`, and the path must name keys, not sequence indices.",
        fix: r"Correct the strategy name (the message suggests one) and write the path as dotted keys, with `*` for any key.",
        example: r"# catalogue/.strata.yaml
mergeStrategies:
  ports: unoin
  a[0]: replace",
    }

    INVALID_TEMPLATE = "platform/invalid-template" {
        when: "`template` is not a string",
        why: r"`template` names the blueprint this one inherits from (in a catalogue blueprint or a repository file), so it must be a string; a number, a list or a mapping names nothing.",
        fix: r#"Write the template's name as a string, quoting it if it looks like a number (`template: "5"`)."#,
        example: r"# catalogue/f.yaml
name: f
template: 5
image: x",
    }

    MISSING_FIELD = "platform/missing-field" {
        when: "an enabled storage has no `path`; enabled podman has no `image`; a warning: an enabled `shared` storage has neither `id` nor `existingClaim`",
        why: r"Some fields are required by what else is set: an enabled storage (`enabled: true`; storages are off otherwise) must say where it is mounted (`path`), and enabled podman needs an `image` to run. An enabled `shared` storage without `id` or `existingClaim` still renders, as in k8shell, but its claim would be named `pvc-NAME-`, which is rarely what was meant.",
        fix: r"Add the missing field, or set `enabled: false` on the storage or podman; give a shared storage its `id` or `existingClaim`.",
        example: r"# catalogue/a.yaml
name: a
image: x
storages:
  cache:
    type: emptyDir
    enabled: true",
    }

    MISSING_NAME = "platform/missing-name" {
        when: "a blueprint has no `name`, or it is not a non-empty string",
        why: r"Every blueprint is known by its `name`: renders ask for it and other blueprints name it as their `template`. A blueprint without one, or whose `name` is not a non-empty string, cannot be referred to and is left out.",
        fix: r"Add `name: ...` with a non-empty string to the blueprint.",
        example: r#"# catalogue/b.yaml
blueprints:
  - image: nameless
  - name: ""
    image: z"#,
    }

    NO_BLUEPRINT = "platform/no-blueprint" {
        when: "a render names no blueprint and has no repository file naming one",
        why: r"A compose request must say which blueprint to compose: by naming it, or by a repository file whose `template` names it. A request with neither has nothing to compose; the command line refuses it before this, so it comes from the service's `POST /v1/compose`.",
        fix: r"Give `blueprint` in the request, or a `repo` whose `blueprint.template` names one.",
        example: r#"# POST /v1/compose, to: strata platform serve catalogue --users users.yaml
{"workspaceName": "w", "metadata": {"name": "w"}}"#,
    }

    REPO_KEY_NOT_ALLOWED = "platform/repo-key-not-allowed" {
        when: "a repository sets a key outside the ones a repository may set",
        why: r"A repository file may set only `name`, `template`, `splash`, `image`, `env`, `network`, `resources`, `storages`, `initScripts`, `enableApps` and `apps`. Everything else (`securityContext`, `k8shelld`, `isTemplate`, ...) belongs to the platform, so that a repository cannot loosen its security.",
        fix: r"Remove the key from the repository file; if the setting is needed, ask for it in a catalogue blueprint.",
        example: r"# .k8shell.yaml
blueprint:
  template: base
  securityContext:
    privileged: true",
    }

    SECURITY_CONTEXT = "platform/security-context" {
        when: "`runAsUser`/`runAsGroup` are 0, `runAsNonRoot` and `readOnlyRootFilesystem` are not true, `allowPrivilegeEscalation` is not false, and `CHOWN`, `SETUID`, `SETGID` are not dropped (`drop: [ALL]` drops them unless `add` restores them)",
        why: r"k8shelld runs as root, writes to the root file system and switches users, so the container's security context must allow it: `runAsUser` and `runAsGroup` 0, `runAsNonRoot` and `readOnlyRootFilesystem` not true, `allowPrivilegeEscalation` not false, and the capabilities `CHOWN`, `SETUID` and `SETGID` kept. A workspace that breaks any of these would not start.",
        fix: r"Set the fields as above; with `drop: [ALL]`, add the needed capabilities back (`add: [CHOWN, SETUID, SETGID]`), otherwise remove them from `drop`.",
        example: r"# catalogue/a.yaml
name: a
image: x
securityContext:
  runAsUser: 1000
  capabilities:
    drop: [ALL]",
    }

    SIZE_LIMIT_NOT_ALLOWED = "platform/size-limit-not-allowed" {
        when: "`sizeLimit` only on `emptyDir` and `memory` storages",
        why: r"`sizeLimit` bounds a volume held by the node, which only `emptyDir` and `memory` storages are; a `local` or `shared` storage is a claim whose size is set in its `claimSpec`.",
        fix: r"Remove `sizeLimit` from the storage, and size a claim through `claimSpec.resources.requests.storage`.",
        example: r"# catalogue/a.yaml
name: a
image: x
storages:
  big:
    type: local
    path: /big
    sizeLimit: 10Gi",
    }

    TEMPLATE_CYCLE = "platform/template-cycle" {
        when: "a chain of templates is a cycle (printed)",
        why: r"A blueprint is composed over its `template`, that one over its own, up to a blueprint without `template`. A chain that comes back to a blueprint already in it never reaches such a root, so none of its blueprints can be composed; the cycle is printed.",
        fix: r"Remove or change one `template` in the printed cycle so that the chain ends at a blueprint without `template`.",
        example: r"# catalogue/cycle.yaml
blueprints:
  - name: a
    template: b
    image: x
  - name: b
    template: a
    image: x",
    }

    TEMPLATE_TOO_DEEP = "platform/template-too-deep" {
        when: "a blueprint's chain of templates is deeper than [`MAX_TEMPLATE_DEPTH`](crate::MAX_TEMPLATE_DEPTH) (reported once, at the first blueprint beyond it)",
        why: r"A chain of templates holds at most 100 blueprints, which keeps resolving and listing the catalogue linear in its size (real catalogues nest a handful). It is reported once, at the `template` of the first blueprint beyond the bound.",
        fix: r"Inherit from a blueprint nearer the chain's root, flattening the chain.",
        example: r"# catalogue/chain.yaml
blueprints:
  - name: b0
    image: x
  - name: b1
    template: b0
  # ... b2 to b99, each with `template:` the one before ...
  - name: b100
    template: b99",
    }

    TEMPLATE_NOT_COMPOSABLE = "platform/template-not-composable" {
        when: "the blueprint asked for is a template",
        why: r"A blueprint with `isTemplate: true` is a base for other blueprints, not a workspace of its own, so it cannot be rendered or composed.",
        fix: r"Ask for a concrete blueprint that inherits from it, or remove `isTemplate` if it should be usable as it is.",
        example: r"# catalogue/base.yaml (rendered with: strata platform render catalogue --blueprint base)
name: base
isTemplate: true
image: x",
    }

    TEST_SCOPE = "platform/test-scope" {
        when: "a note: no `--scope` was given, so the synthetic test scope was used",
        why: r"A render evaluates the blueprint's `!cel` expressions against a scope (the user, the workspace, the repository). Without `--scope`, a synthetic test scope (user `strata-test`, uid 1000, ...) is used, and this note says so, since the values in the output come from it.",
        fix: r"Pass `--scope FILE` with `user`, `workspaceName` and `metadata` to render for a real request; the note is harmless otherwise.",
        example: r"strata platform render catalogue --blueprint go-services",
    }

    UNKNOWN_BLUEPRINT = "platform/unknown-blueprint" {
        when: "no blueprint has the name asked for (did-you-mean among the usable ones)",
        why: r"No blueprint of the catalogue has the name the render or request asked for. Suggestions come only from the concrete blueprints the caller may use.",
        fix: r"Use one of the names `strata platform list` prints (the did-you-mean helps), or add the blueprint to the catalogue.",
        example: r"strata platform render catalogue --blueprint pyhton",
    }

    UNKNOWN_TEMPLATE = "platform/unknown-template" {
        when: "`template` names no blueprint",
        why: r"`template` names the blueprint this one inherits from, which must be a blueprint of the catalogue; the blueprint cannot be composed over a template that does not exist.",
        fix: r"Correct the name (the did-you-mean helps) or add the template blueprint to the catalogue.",
        example: r"# catalogue/e.yaml
name: e
template: bsae
image: x",
    }
}

//! The diagnostic codes of the capabilities dialect.
//!
//! Unknown keys, missing required keys and wrong types, in a document or in
//! a rendering validated against a definition, are `schema/*`.

strata_syntax::declare_codes! {
    INVALID_NAME = "capabilities/invalid-name" {
        when: "a name does not follow the Kubernetes grammar it becomes (the `names` module's table): a profile's or an Application's `metadata.name` not a DNS-1123 subdomain, a namespace, a component's name or a `CapabilityDefinition`'s name not a DNS-1123 label",
        why: r"Every name a package or a profile writes ends up in a Kubernetes object's `metadata`, a label or a file name of the build, so each must follow the grammar of what it becomes: a DNS-1123 subdomain for object names, a DNS-1123 label for a namespace, a component's name and a capability's name.",
        fix: r"Use lowercase letters, digits and `-` (and `.` in a subdomain), starting and ending with a letter or digit; a label is at most 63 characters.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: Shop_App}
spec:
  components:
    - name: web
      type: webservice",
    }

    INVALID_BINDING_KEY = "capabilities/invalid-binding-key" {
        when: "a `spec.capabilities` key is not `<traitType>` or `<traitType>.<scope>`",
        why: r"A profile binds a capability under the trait type it serves, optionally with a scope: `expose`, or `expose.public` for the traits that ask for `scope: public`. The trait type and the scope are each DNS-1123 labels.",
        fix: r"Write the key as `<traitType>` or `<traitType>.<scope>`, in lowercase letters, digits and `-`.",
        example: r"# cluster.yaml, with `strata capabilities check --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: ClusterProfile
metadata: {name: prod}
spec:
  capabilities:
    Expose.Public:
      rendering: {controllerType: ingress, ingressClassName: nginx}",
    }

    MISSING_RENDERING_KEY = "capabilities/missing-rendering-key" {
        when: "a rendering misses a key its branch requires (`ingressClassName` when `controllerType` is `ingress`)",
        why: r"The `expose` rendering has two branches, chosen by `controllerType`: `ingress` needs the `ingressClassName` to use, and `gateway` the `gatewayName` of the Gateway.",
        fix: r"Add the key the branch requires, or choose the other `controllerType`.",
        example: r"# cluster.yaml, with `strata capabilities check --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: ClusterProfile
metadata: {name: prod}
spec:
  capabilities:
    expose:
      rendering:
        controllerType: ingress",
    }

    BRANCH_KEY = "capabilities/branch-key" {
        when: "a rendering key belongs to another branch (`gatewayName` under `ingress`), or needs a key that is absent (`authSigninURL` without `authURL`)",
        why: r"Each branch of the `expose` rendering takes its own keys: `gatewayName` and `gatewayNamespace` only with `gateway`; `ingressClassName`, `certManagerClusterIssuer`, the SSL redirects and the auth keys only with `ingress`. `authSigninURL` and `authResponseHeaders` only refine an `authURL`.",
        fix: r"Remove the key, switch `controllerType` to the branch it belongs to, or add the `authURL` it refines.",
        example: r"# cluster.yaml, with `strata capabilities check --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: ClusterProfile
metadata: {name: prod}
spec:
  capabilities:
    expose:
      rendering:
        controllerType: ingress
        ingressClassName: nginx
        gatewayName: public",
    }

    INVALID_RENDERING = "capabilities/invalid-rendering" {
        when: "a rendering value breaks a rule its type cannot state (`authURL` with a query string)",
        why: r"Some rules of a rendering are beyond what its type states: the `authURL` of `expose` must be given without a query string.",
        fix: r"Give the value in the form the rule asks for, such as the `authURL` without its `?...` part.",
        example: r"# cluster.yaml, with `strata capabilities check --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: ClusterProfile
metadata: {name: prod}
spec:
  capabilities:
    expose:
      rendering:
        controllerType: ingress
        ingressClassName: nginx
        authURL: https://auth.example.com/check?rd=1",
    }

    INVALID_DEFINITION = "capabilities/invalid-definition" {
        when: "a definition's default does not have its property's type",
        why: r"A `CapabilityDefinition`'s default fills a binding that leaves its property out, so it must be of that property's type.",
        fix: r"Write the default with the property's `type`, or remove it.",
        example: r"# log-shipper.yaml, with `strata capabilities check --profile cluster.yaml --capability-def log-shipper.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: CapabilityDefinition
metadata: {name: log-shipper}
spec:
  rendering:
    properties:
      endpoint: {type: string, required: true}
      batchSize: {type: integer, default: many}",
    }

    BUILTIN_DEFINITION = "capabilities/builtin-definition" {
        when: "a `CapabilityDefinition` names a built-in handler's type",
        why: r"The rendering schemas of the built-in handlers (`expose`, `certificate`, `pvc`, ...) are built in; a `CapabilityDefinition` describes a custom capability only, and cannot replace a built-in schema.",
        fix: r"Remove the definition. `strata capabilities schema rendering TYPE` prints a built-in trait's rendering schema.",
        example: r"# defs.yaml, with `strata capabilities check --profile cluster.yaml --capability-def defs.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: CapabilityDefinition
metadata: {name: expose}
spec:
  rendering:
    properties:
      controllerType: {type: string}",
    }

    CONFLICTING_DEFINITION = "capabilities/conflicting-definition" {
        when: "two definitions of one trait type differ",
        why: r"A trait type has one rendering schema. Definitions of it may come from several places (the package's `definitions/`, `--capability-def` files); identical ones are fine, but two that differ leave no single schema to check bindings against.",
        fix: r"Keep one definition of the trait type, or make the copies identical.",
        example: r"# defs.yaml, with `strata capabilities check --profile cluster.yaml --capability-def defs.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: CapabilityDefinition
metadata: {name: redis-sidecar}
spec: {rendering: {properties: {maxMemory: {type: string, default: 256Mi}}}}
---
apiVersion: launcher.gokure.dev/v1alpha1
kind: CapabilityDefinition
metadata: {name: redis-sidecar}
spec: {rendering: {properties: {maxMemory: {type: string, default: 512Mi}}}}",
    }

    WRONG_KIND = "capabilities/wrong-kind" {
        when: "a document of another kind where one kind is required (`app.yaml`, the profile)",
        why: r"Each file holds one kind of document: a package's `app.yaml` an `Application`, and the profile file a `ClusterProfile` (empty documents aside). A document of another kind there is not what the file is read for.",
        fix: r"Move the document to its own file, or correct its `kind`.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Package
metadata: {name: shop}",
    }

    UNKNOWN_COMPONENT = "capabilities/unknown-component" {
        when: "a component type has no registered component handler",
        why: r"A component is built by the handler registered for its `type`: one of the launcher's built-in component types (`webservice`, `worker`, `cronjob`, `daemonset`, `statefulset`, ...). A near name is suggested.",
        fix: r"Correct the type; `strata capabilities list` lists every handler.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservic",
    }

    UNKNOWN_TRAIT = "capabilities/unknown-trait" {
        when: "a trait type has no registered trait handler (a definition does not make one)",
        why: r"A trait is applied by the handler registered for its `type`: a built-in trait, or a custom one registered with `--custom-trait TYPE`. A `CapabilityDefinition` only validates a custom capability's binding; it does not make a handler.",
        fix: r"Correct the type, or register the custom trait with `--custom-trait TYPE`; `strata capabilities list` lists every handler.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: cache
      type: worker
      traits:
        - type: redis-sidecar",
    }

    DUPLICATE_NAME = "capabilities/duplicate-name" {
        when: "two components, or two policies, of one application share a name",
        why: r"A component's name becomes the names and labels of its objects, so no two components of one application may share a name; nor may two of its policies.",
        fix: r"Give each component, and each policy, a name of its own.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservice
    - name: web
      type: worker",
    }

    TRAIT_NOT_ALLOWED = "capabilities/trait-not-allowed" {
        when: "a `scaler` trait on a component other than `webservice` or `worker`",
        why: r"The launcher applies the `scaler` trait only to `webservice` and `worker` components.",
        fix: r"Remove the trait, or move it to a `webservice` or `worker` component.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: nightly
      type: cronjob
      traits:
        - type: scaler",
    }

    MISSING_BINDING = "capabilities/missing-binding" {
        when: "a trait that needs a capability binding finds none in the profile",
        why: r"Some traits cannot be rendered without the platform's settings (of the built-ins, `expose` needs the cluster's ingress controller or gateway). The cluster profile binds them under `spec.capabilities`: a trait with a `scope` takes the binding `<traitType>.<scope>`, else `<traitType>`; one without takes `<traitType>`.",
        fix: r"Bind the capability in the cluster profile, or check against the profile of a cluster that provides it.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml` (the profile binds no `expose`)
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservice
      traits:
        - {type: expose, properties: {scope: public}}",
    }

    RESERVED_PROPERTY = "capabilities/reserved-property" {
        when: "an application sets a property only the profile may supply",
        why: r"Some trait properties are the platform's to decide, such as `controllerType`, `gatewayName` or `allowedHostnameWildcard` of `expose`: they come from the cluster profile's binding, and an application may not override them.",
        fix: r"Remove the property from the application; the cluster profile's binding supplies it.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservice
      traits:
        - type: expose
          properties: {hostnames: [shop.apps.example.com], controllerType: gateway}",
    }

    UNVALIDATED_CAPABILITY = "capabilities/unvalidated-capability" {
        when: "a custom capability the application uses has no definition (a warning; an error with `--strict-capabilities`)",
        why: r"A custom capability bound in the profile is checked against its `CapabilityDefinition`; without one, its rendering passes to the handler unchecked. This is a warning, or an error with `--strict-capabilities`.",
        fix: r"Ship a `CapabilityDefinition` in the package's `definitions/`, or give one with `--capability-def`.",
        example: r"# pkg/app.yaml, with `strata capabilities check pkg --profile cluster.yaml --custom-trait redis-sidecar`
# (the profile binds `redis-sidecar`, and no definition describes it)
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: cache
      type: worker
      traits:
        - type: redis-sidecar",
    }

    PARAMETER = "capabilities/parameter" {
        when: "a package parameter cannot be resolved: a `${name}` that names no parameter or one without a value, a required parameter without a value, a value given for an undeclared name or of the wrong type, a default naming a later parameter, or values given to a package without `kurel.yaml`",
        why: r"`kurel.yaml` declares the parameters a package's `app.yaml` takes as `${name}`, each typed (`string`, `integer`, `boolean`), with a default or `required`; a build gives values with `--values FILE` and `--set NAME=VALUE`. A placeholder left unresolved would reach the cluster as the text `${name}`.",
        fix: r"Declare the parameter in `kurel.yaml`, give it a value (`--set NAME=VALUE`, a `--values` file, or a default), or correct the value to the declared type.",
        example: r"# pkg/kurel.yaml declares `image` (string, required); pkg/app.yaml uses `${image}` and `${tag}`
# strata capabilities render pkg --profile cluster.yaml --set replicas=two
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservice
      properties: {image: '${image}:${tag}'}",
    }

    INVALID_PACKAGE = "capabilities/invalid-package" {
        when: "`kurel.yaml` declares one parameter twice, or a default that does not fit its parameter's type",
        why: r"A parameter's name is what `${name}` refers to, so it must be unique; a default is used as the parameter's value, so it must be of its type (a text default may also name earlier parameters as `${name}`, checked when the package is built).",
        fix: r"Rename or remove the repeated parameter; write the default as a value of the declared type.",
        example: r"# pkg/kurel.yaml, with `strata capabilities check pkg --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Package
metadata: {name: shop}
spec:
  parameters:
    - {name: replicas, type: integer, default: many}",
    }

    INVALID_PROPERTY = "capabilities/invalid-property" {
        when: "a component's property has a value `capabilities build` refuses: a quantity that is not one, a request above its limit, a probe with two handlers, a cron schedule without five fields, a volume key of another volume type, a port out of range",
        why: r"Kure's launcher checks a component's properties while it builds the objects (`common.go`); some mistakes it refuses, others it silently repairs (a quoted `replicas` becomes 1, an env `value: 8080` becomes empty, a limit below the default request makes an object the API server refuses). `capabilities build` refuses each, at the property, so the objects it writes are the ones the Application describes and Kubernetes accepts.",
        fix: r"Correct the value as the message says; `strata capabilities schema component TYPE` lists each type's properties.",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: cleanup
      type: cronjob
      properties:
        image: ghcr.io/example/cleanup:v1.0.0
        schedule: '@daily'",
    }

    IMAGE_REFERENCE = "capabilities/image-reference" {
        when: "a container image has no tag or digest, uses `:latest`, or is not an image reference",
        why: r"A build names what it deploys: Kure's launcher refuses an image without a version (`nginx`, `nginx:latest`), since what it pulls would change under the same manifests. A reference with uppercase letters in the repository or a malformed digest is refused too, as the container runtime would refuse it.",
        fix: r"Write an explicit version tag (`ghcr.io/example/web:v1.2.3`) or a digest (`@sha256:` and 64 hex digits).",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservice
      properties: {image: 'nginx:latest'}",
    }

    POLICY = "capabilities/policy" {
        when: "the build meets what Kure's policy refuses: a `hostPath` volume, a privileged container, or a `spec.policies` entry (Kure's launcher has no policy handler)",
        why: r"`kurel build` applies Kure's default environment policy, which denies host paths and privileged containers, and registers no handler for Application policies, so any policy fails its build. `capabilities build` refuses the same, at the property or the policy, rather than writing objects Kure would not.",
        fix: r"Mount a `pvc`, `configMap`, `secret` or `emptyDir` volume instead of a host path; drop `privileged`; remove the policy.",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: agent
      type: daemonset
      properties:
        image: ghcr.io/example/agent:v1.0.0
        volumes:
          - {name: logs, type: hostPath, path: /var/log, mountPath: /logs}",
    }

    SHARED_CLAIM = "capabilities/shared-claim" {
        when: "a Deployment with more than one replica mounts a `ReadWriteOnce` or `ReadWriteOncePod` claim",
        why: r"A claim that only one node (or one pod) may mount cannot serve several replicas: all but one would wait for the volume forever. Kure's launcher refuses it for `webservice` and `worker`, and gives such a Deployment the `Recreate` strategy so that an update releases the claim first.",
        fix: r"Run one replica, or ask for `accessModes: [ReadWriteMany]` from a storage class that supports it.",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: api
      type: webservice
      properties:
        image: ghcr.io/example/api:v1.0.0
        replicas: 2
        volumes:
          - {name: data, type: pvc, size: 1Gi, mountPath: /data}",
    }

    KURE_BUG = "capabilities/kure-bug" {
        when: "warning: the build writes what Kure writes where Kure is wrong (a claim name with doubled hyphens, …); the message names the bug",
        why: r"A migration from `kurel build` must not change a running deployment by surprise: a renamed claim is a new, empty volume. So where Kure's output is wrong in a way a cluster already depends on, `capabilities build` writes Kure's output and warns, naming the bug (the manual lists them, B1 to B9). `--fix-kure-bugs` writes the fixed output instead, for new deployments or a planned move.",
        fix: r"Keep Kure's output (the warning stays), or build with `--fix-kure-bugs` and migrate what changes (the manual says what, bug by bug).",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: api-server
      type: webservice
      properties:
        image: ghcr.io/example/api:v1.0.0
        volumes:
          - {name: data, type: pvc, size: 1Gi, mountPath: /data}",
    }

    UNSUPPORTED_COMPONENT = "capabilities/unsupported-component" {
        when: "a component's type is a custom one a library user registered: `capabilities build` builds Kure's eleven built-in component types",
        why: r"`capabilities check` accepts any component type with a registered handler; a build makes the objects of Kure's built-in types (and custom traits through their handlers). A custom component type has no way to build its objects, so it is reported rather than left out of the output.",
        fix: r"Use a built-in component type (`passthrough` carries any object as written), or build the custom type with the tool that defines it.",
        example: r"# app.yaml, built by a program that registered a component handler `lambda`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: resize
      type: lambda",
    }

    UNSUPPORTED_TRAIT = "capabilities/unsupported-trait" {
        when: "`capabilities build` does not build this trait type",
        why: r"`capabilities check` validates every trait type Kure knows and the custom ones registered; `capabilities build` reports a trait it cannot build rather than leaving its objects out of the output.",
        fix: r"Remove the trait, or build with a handler registered for it.",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml --custom-trait backup`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservice
      properties: {image: 'ghcr.io/example/web:v1.0.0'}
      traits:
        - type: backup",
    }

    NO_SERVICE_PORT = "capabilities/no-service-port" {
        when: "a routing trait (`ingress`, `httproute`, `expose`) routes to the Service of a component that has no Service port",
        why: r"A route's default backend is its component's Service on the component's port. `worker`, `cronjob` and the other types without a `port` make no Service, so a route to them has nowhere to go; Kure's launcher refuses it.",
        fix: r"Give the component a `port` (webservice, daemonset, statefulset), set the trait's `servicePort` (and `serviceName`) for a Service made elsewhere, or route each path to an explicit `backend` with a `port`.",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: jobs
      type: worker
      properties: {image: 'ghcr.io/example/jobs:v1.0.0'}
      traits:
        - type: ingress
          properties:
            rules:
              - host: jobs.example.com
                paths: [{path: /}]",
    }

    DUPLICATE_OBJECT = "capabilities/duplicate-object" {
        when: "two components or traits make an object of the same kind, namespace and name",
        why: r"Kure's launcher writes both objects (its bug B6), and applying the output keeps only the last: a second `pvc` trait's claim, a certificate whose Secret an `expose` also names, two routes with one `name`. The build refuses it and names both origins.",
        fix: r"Give one of the two a different `name` (or `secretName`), or remove the duplicate trait.",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservice
      properties: {image: 'ghcr.io/example/web:v1.0.0'}
      traits:
        - type: pvc
          properties: {name: data, size: 1Gi}
        - type: pvc
          properties: {name: data, size: 2Gi}",
    }

    NO_EFFECT = "capabilities/no-effect" {
        when: "warning: a trait changes nothing in a build (`fluxcd-patches`, `fluxcd-postbuild`)",
        why: r"`fluxcd-patches` and `fluxcd-postbuild` configure the Flux Kustomization that would deploy the objects; `kurel build` writes the objects only, never that Kustomization, so the patches are not applied and no `${VAR}` is substituted (Kure's bug B9: it says nothing). The traits are still checked, and the build says they had no effect.",
        fix: r"Apply the patch or the substitution in the objects themselves, or in the Flux Kustomization your GitOps repository holds; or remove the trait.",
        example: r"# app.yaml, with `strata capabilities build app.yaml --profile cluster.yaml`
apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: web
      type: webservice
      properties: {image: 'ghcr.io/example/web:v1.0.0'}
      traits:
        - type: fluxcd-postbuild
          properties:
            substitute: {CLUSTER: prod}",
    }
}

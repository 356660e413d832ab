//! Cluster profiles evaluated: every rule, each problem at its file, line,
//! column and field path, and the effective profile with its defaults.

use strata_capabilities::{Definitions, Registry, evaluate_profile};
use strata_syntax::emit::to_yaml;
use strata_syntax::{Format, Limits, Node, SourceDb};

const HEADER: &str = "apiVersion: launcher.gokure.dev/v1alpha1\nkind: ClusterProfile\nmetadata: {name: prod.example.com}\n";

fn parse(db: &mut SourceDb, name: &str, text: &str) -> Vec<Node> {
    let id = db.add(name, text.to_owned());
    let parsed = strata_syntax::parse(db, id, Format::Yaml, &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.documents
}

/// Evaluates `spec` (the profile's `spec`, indented) with `definitions`:
/// each diagnostic as `code line:column path`, and the effective profile.
fn evaluate(spec: &str, definitions: &str) -> (Vec<String>, Option<String>) {
    let mut db = SourceDb::new();
    let mut known = Definitions::new();
    let documents = parse(&mut db, "definitions.yaml", definitions);
    let mut diagnostics = known.add_documents(&documents);
    let profile = parse(&mut db, "cluster.yaml", &format!("{HEADER}spec:\n{spec}"));
    let outcome = evaluate_profile(&profile[0], &Registry::builtin(), &known);
    diagnostics.extend(outcome.diagnostics);
    let lines = diagnostics
        .iter()
        .map(|d| {
            let r = d.record(&db);
            format!(
                "{} {}:{}:{} {}",
                r.code,
                r.file,
                r.line,
                r.column,
                r.path.unwrap_or_default()
            )
        })
        .collect();
    (
        lines,
        outcome.value.map(|effective| to_yaml(&effective.tree)),
    )
}

fn problems(spec: &str) -> Vec<String> {
    evaluate(spec, "").0
}

#[test]
fn gateway_bindings_get_their_default_and_the_engine_is_fluxcd() {
    let (problems, effective) = evaluate(
        "  capabilities:\n    expose: {rendering: {controllerType: gateway, gatewayName: public}}\n    certificate:\n      rendering: {issuerRef: {name: letsencrypt}}\n    pvc: {}\n",
        "",
    );
    assert!(problems.is_empty(), "{problems:?}");
    let effective = effective.expect("an effective profile");
    assert!(
        effective.contains("gatewayNamespace: gateway-system"),
        "{effective}"
    );
    assert!(effective.contains("kind: ClusterIssuer"), "{effective}");
    assert!(effective.contains("gitopsEngine: fluxcd"), "{effective}");
    // An ingress binding gets no gateway default.
    let (_, effective) = evaluate(
        "  gitopsEngine: ''\n  capabilities:\n    expose.internal: {rendering: {controllerType: ingress, ingressClassName: nginx}}\n",
        "",
    );
    let effective = effective.expect("an effective profile");
    assert!(!effective.contains("gatewayNamespace"), "{effective}");
    assert!(effective.contains("gitopsEngine: fluxcd"), "{effective}");
}

#[test]
fn each_branch_requires_its_keys_and_refuses_the_other_branch() {
    assert_eq!(
        problems(
            "  capabilities:\n    expose: {rendering: {controllerType: ingress, gatewayName: g}}\n"
        ),
        [
            "capabilities/missing-rendering-key cluster.yaml:6:25 spec.capabilities.expose.rendering",
            "capabilities/branch-key cluster.yaml:6:51 spec.capabilities.expose.rendering.gatewayName",
        ]
    );
    assert_eq!(
        problems(
            "  capabilities:\n    expose:\n      rendering:\n        controllerType: gateway\n        gatewayName: g\n        sslRedirect: true\n        authSigninURL: https://login\n"
        ),
        [
            "capabilities/branch-key cluster.yaml:10:9 spec.capabilities.expose.rendering.sslRedirect",
            "capabilities/branch-key cluster.yaml:11:9 spec.capabilities.expose.rendering.authSigninURL",
        ]
    );
    assert_eq!(
        problems(
            "  capabilities:\n    expose: {rendering: {controllerType: ingress, ingressClassName: n, authURL: 'https://auth?x=1'}}\n"
        ),
        [
            "capabilities/invalid-rendering cluster.yaml:6:72 spec.capabilities.expose.rendering.authURL"
        ]
    );
    assert_eq!(
        problems(
            "  capabilities:\n    expose: {rendering: {controllerType: ingress, ingressClassName: n, authSigninURL: x}}\n"
        ),
        [
            "capabilities/branch-key cluster.yaml:6:72 spec.capabilities.expose.rendering.authSigninURL"
        ]
    );
}

#[test]
fn renderings_decode_strictly() {
    assert_eq!(
        problems(
            "  capabilities:\n    expose: {rendering: {controllerType: nginx}}\n    configmap: {rendering: {name: x}}\n    certificate: {rendering: {issuerRef: {nam: x}}}\n    pvc: {rendering: {storageClass: fast}}\n"
        ),
        [
            "schema/enum cluster.yaml:6:42 spec.capabilities.expose.rendering.controllerType",
            "schema/unknown-key cluster.yaml:7:29 spec.capabilities.configmap.rendering.name",
            "schema/required cluster.yaml:8:42 spec.capabilities.certificate.rendering.issuerRef",
            "schema/unknown-key cluster.yaml:8:43 spec.capabilities.certificate.rendering.issuerRef.nam",
            "schema/unknown-key cluster.yaml:9:23 spec.capabilities.pvc.rendering.storageClass",
        ]
    );
}

#[test]
fn names_keys_and_documents_are_checked() {
    let mut db = SourceDb::new();
    let profile = parse(
        &mut db,
        "cluster.yaml",
        "apiVersion: launcher.gokure.dev/v1alpha1\nkind: ClusterProfile\nmetadata: {name: Prod_Cluster, labels: {}}\nspec:\n  gitopsEngine: argocd\n  capabilities:\n    .internal: {}\n    expose.: {}\n",
    );
    let outcome = evaluate_profile(&profile[0], &Registry::builtin(), &Definitions::new());
    let codes: Vec<&str> = outcome
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(
        codes,
        [
            "schema/unknown-key",
            "schema/enum",
            "capabilities/invalid-name",
            "capabilities/invalid-binding-key",
            "capabilities/invalid-binding-key",
        ]
    );
    assert!(outcome.value.is_none());
}

const REDIS: &str = "apiVersion: launcher.gokure.dev/v1alpha1
kind: CapabilityDefinition
metadata: {name: redis-sidecar}
spec:
  description: A Redis sidecar.
  rendering:
    properties:
      image: {type: string, required: true}
      maxMemory: {type: string, default: 256Mi}
      replicas: {type: integer, default: 1}
---
apiVersion: launcher.gokure.dev/v1alpha1
kind: Package
metadata: {name: skipped}
";

#[test]
fn custom_bindings_follow_their_definition() {
    let (problems, effective) = evaluate(
        "  capabilities:\n    redis-sidecar: {rendering: {image: 'redis:7', replicas: 2.0}}\n",
        REDIS,
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert!(effective.expect("effective").contains("maxMemory: 256Mi"));
    let (problems, _) = evaluate(
        "  capabilities:\n    redis-sidecar: {rendering: {imag: 'redis:7', replicas: two}}\n",
        REDIS,
    );
    assert_eq!(
        problems,
        [
            "schema/unknown-key cluster.yaml:6:33 spec.capabilities.redis-sidecar.rendering.imag",
            "schema/type cluster.yaml:6:60 spec.capabilities.redis-sidecar.rendering.replicas",
            "schema/required cluster.yaml:6:32 spec.capabilities.redis-sidecar.rendering",
        ]
    );
}

#[test]
fn definitions_conflict_shadow_builtins_or_carry_bad_defaults() {
    let twice = format!("{REDIS}---\n{REDIS}");
    assert!(
        evaluate("  capabilities: {}\n", &twice).0.is_empty(),
        "identical ones are one"
    );
    let differing = format!("{REDIS}---\n{}", REDIS.replace("256Mi", "512Mi"));
    assert_eq!(
        evaluate("  capabilities: {}\n", &differing).0,
        ["capabilities/conflicting-definition definitions.yaml:18:18 "]
    );
    let builtin = REDIS.replace("redis-sidecar", "expose");
    assert_eq!(
        evaluate("  capabilities: {}\n", &builtin).0,
        ["capabilities/builtin-definition definitions.yaml:3:18 "]
    );
    let bad_default = REDIS.replace("default: 1}", "default: one}");
    assert_eq!(
        evaluate("  capabilities: {}\n", &bad_default).0,
        [
            "capabilities/invalid-definition definitions.yaml:10:42 spec.rendering.properties.replicas.default"
        ]
    );
}

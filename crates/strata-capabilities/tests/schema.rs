//! The published rendering schemas agree with the validator: a rendering
//! the validator accepts passes its schema, and each one it refuses fails
//! it — on a list of cases for every rule and on every binding of every
//! capabilities fixture.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::path::Path;

use strata_capabilities::Registry;
use strata_syntax::{Format, Limits, Node, SourceDb};

fn parse(text: &str) -> Node {
    let mut db = SourceDb::new();
    let id = db.add("rendering.yaml", text.to_owned());
    strata_syntax::parse(&db, id, Format::Yaml, &Limits::default())
        .documents
        .remove(0)
}

/// Whether the validator and the published schema of `trait_type` agree
/// on `rendering`; gives the validator's verdict.
fn agree(registry: &Registry, trait_type: &str, rendering: &Node) -> bool {
    let schema = registry
        .get(trait_type)
        .and_then(|handler| handler.rendering())
        .expect("a capability-aware built-in");
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema.schema())
        .expect("the published schema compiles");
    let accepted = !schema.validate_and_default(rendering).has_errors();
    let passes = validator.is_valid(&rendering.to_json_value());
    assert_eq!(
        accepted,
        passes,
        "{trait_type}: the validator {} `{}` and the schema {} it",
        if accepted { "accepts" } else { "refuses" },
        rendering.to_json_value(),
        if passes { "accepts" } else { "refuses" },
    );
    accepted
}

#[test]
fn every_rule_of_expose_is_in_its_schema() {
    let registry = Registry::builtin();
    let cases = [
        ("{controllerType: ingress, ingressClassName: nginx}", true),
        (
            "{controllerType: ingress, ingressClassName: nginx, authURL: 'https://a', authSigninURL: 'https://s', authResponseHeaders: X-User}",
            true,
        ),
        ("{controllerType: gateway, gatewayName: public}", true),
        (
            "{controllerType: gateway, gatewayName: public, gatewayNamespace: edge, networkPolicy: {}}",
            true,
        ),
        ("{}", false),
        ("{controllerType: nginx}", false),
        ("{controllerType: ingress}", false),
        (
            "{controllerType: ingress, ingressClassName: n, gatewayName: g}",
            false,
        ),
        (
            "{controllerType: ingress, ingressClassName: n, gatewayNamespace: g}",
            false,
        ),
        (
            "{controllerType: ingress, ingressClassName: n, authURL: 'https://a?b=c'}",
            false,
        ),
        (
            "{controllerType: ingress, ingressClassName: n, authSigninURL: x}",
            false,
        ),
        (
            "{controllerType: ingress, ingressClassName: n, authResponseHeaders: x}",
            false,
        ),
        ("{controllerType: gateway}", false),
        (
            "{controllerType: gateway, gatewayName: g, ingressClassName: n}",
            false,
        ),
        (
            "{controllerType: gateway, gatewayName: g, certManagerClusterIssuer: c}",
            false,
        ),
        (
            "{controllerType: gateway, gatewayName: g, sslRedirect: true}",
            false,
        ),
        (
            "{controllerType: gateway, gatewayName: g, authURL: 'https://a'}",
            false,
        ),
        (
            "{controllerType: gateway, gatewayName: g, colour: blue}",
            false,
        ),
    ];
    for (text, valid) in cases {
        assert_eq!(agree(&registry, "expose", &parse(text)), valid, "{text}");
    }
    for (trait_type, text, valid) in [
        ("certificate", "{issuerRef: {name: le}}", true),
        ("certificate", "{issuerRef: {kind: Issuer}}", false),
        (
            "external-secret",
            "{secretStoreRef: {name: vault}, refreshInterval: 1h}",
            true,
        ),
        ("external-secret", "{}", false),
        ("configmap", "{}", true),
        ("networkpolicy", "{allow: all}", false),
        ("pvc", "{storageClassName: fast}", true),
        ("volsync", "{storageClass: fast}", false),
    ] {
        assert_eq!(
            agree(&registry, trait_type, &parse(text)),
            valid,
            "{trait_type} {text}"
        );
    }
}

#[test]
fn every_fixture_binding_is_judged_alike() {
    let registry = Registry::builtin();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/capabilities");
    let mut judged = 0;
    for case in std::fs::read_dir(&fixtures)
        .expect("the fixtures")
        .flatten()
    {
        let Ok(text) = std::fs::read_to_string(case.path().join("cluster.yaml")) else {
            continue;
        };
        let profile = parse(&text);
        let bindings = profile
            .get("spec")
            .and_then(|spec| spec.get("capabilities"))
            .and_then(Node::as_map)
            .cloned()
            .unwrap_or_default();
        for (key, binding) in &bindings {
            let trait_type = key.split('.').next().unwrap_or_default();
            let aware = registry
                .get(trait_type)
                .is_some_and(|h| h.rendering().is_some());
            if let (true, Some(rendering)) = (aware, binding.value.get("rendering")) {
                agree(&registry, trait_type, rendering);
                judged += 1;
            }
        }
    }
    assert!(judged >= 10, "bindings judged: {judged}");
}

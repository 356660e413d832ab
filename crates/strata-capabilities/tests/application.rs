//! Applications dispatched against the handlers and an evaluated profile.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::sync::Arc;

use strata_capabilities::{Definitions, Dispatch, PassThroughTrait, Registry, evaluate_profile};
use strata_syntax::emit::to_yaml;
use strata_syntax::{Format, Limits, Node, SourceDb};

const PROFILE: &str = "apiVersion: launcher.gokure.dev/v1alpha1
kind: ClusterProfile
metadata: {name: prod}
spec:
  capabilities:
    expose: {rendering: {controllerType: ingress, ingressClassName: nginx}}
    expose.internal: {rendering: {controllerType: ingress, ingressClassName: internal}}
    redis-sidecar: {rendering: {image: 'redis:7'}}
";

fn parse(db: &mut SourceDb, name: &str, text: &str) -> Node {
    let id = db.add(name, text.to_owned());
    strata_syntax::parse(db, id, Format::Yaml, &Limits::default())
        .documents
        .remove(0)
}

/// Dispatches `components` (the application's `spec.components`,
/// indented) against the profile: each diagnostic as
/// `severity code line path`, and the effective application.
fn dispatch(components: &str, strict: bool) -> (Vec<String>, Option<String>) {
    dispatch_against(components, strict, true)
}

/// As [`dispatch`], against the profile or (as an editor) none.
fn dispatch_against(
    components: &str,
    strict: bool,
    with_profile: bool,
) -> (Vec<String>, Option<String>) {
    let mut db = SourceDb::new();
    let profile = parse(&mut db, "cluster.yaml", PROFILE);
    let mut registry = Registry::builtin();
    registry
        .register(Arc::new(PassThroughTrait::new("redis-sidecar")))
        .expect("a new type");
    let definitions = Definitions::new();
    let profile = evaluate_profile(&profile, &registry, &definitions)
        .value
        .expect("the profile is valid");
    let text = format!(
        "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Application\nmetadata: {{name: shop}}\nspec:\n  components:\n{components}"
    );
    let application = parse(&mut db, "app.yaml", &text);
    let dispatch = Dispatch {
        registry: &registry,
        definitions: &definitions,
        profile: with_profile.then_some(&profile),
        strict_capabilities: strict,
        strict_properties: false,
    };
    let outcome = dispatch.application(&application);
    let lines = outcome
        .diagnostics
        .iter()
        .map(|d| {
            let r = d.record(&db);
            let severity = format!("{:?}", r.severity).to_lowercase();
            format!(
                "{severity} {} {} {}",
                r.code,
                r.line,
                r.path.unwrap_or_default()
            )
        })
        .collect();
    (lines, outcome.value.map(|tree| to_yaml(&tree)))
}

#[test]
fn traits_get_the_binding_of_their_scope_under_what_the_author_wrote() {
    let (problems, effective) = dispatch(
        "    - name: web\n      type: webservice\n      traits:\n        - {type: expose, properties: {hostnames: [shop.example.com], scope: internal}}\n        - {type: scaler, properties: {min: 2}}\n",
        false,
    );
    assert!(problems.is_empty(), "{problems:?}");
    let effective = effective.expect("an effective application");
    assert!(
        effective.contains("ingressClassName: internal"),
        "{effective}"
    );
    assert!(effective.contains("- shop.example.com"), "{effective}");
    assert!(!effective.contains("scope:"), "{effective}");
}

#[test]
fn unknown_types_reserved_keys_and_misplaced_traits_are_errors() {
    let (problems, effective) = dispatch(
        "    - name: web\n      type: webservic\n      traits:\n        - {type: expos}\n    - name: job\n      type: cronjob\n      traits:\n        - {type: scaler}\n        - {type: expose, properties: {controllerType: gateway}}\n    - name: Web_1\n      type: worker\n    - name: job\n      type: worker\n",
        false,
    );
    assert_eq!(
        problems,
        [
            "error capabilities/unknown-component 7 spec.components[0].type",
            "error capabilities/unknown-trait 9 spec.components[0].traits[0].type",
            "error capabilities/trait-not-allowed 13 spec.components[1].traits[0].type",
            "error capabilities/reserved-property 14 spec.components[1].traits[1].properties.controllerType",
            "error capabilities/invalid-name 15 spec.components[2].name",
            "error capabilities/duplicate-name 17 spec.components[3].name",
        ]
    );
    assert!(effective.is_none());
}

#[test]
fn without_a_profile_the_structure_is_checked_and_nothing_bound() {
    // What needs no binding is found as with a profile; an unknown trait
    // may be a build's own handler, which only the command line is told
    // of: a warning.
    let (problems, _) = dispatch_against(
        "    - name: web\n      type: webservic\n      traits:\n        - {type: expos}\n    - name: job\n      type: cronjob\n      traits:\n        - {type: scaler}\n        - {type: expose, properties: {controllerType: gateway}}\n",
        false,
        false,
    );
    assert_eq!(
        problems,
        [
            "error capabilities/unknown-component 7 spec.components[0].type",
            "warning capabilities/unknown-trait 9 spec.components[0].traits[0].type",
            "error capabilities/trait-not-allowed 13 spec.components[1].traits[0].type",
            "error capabilities/reserved-property 14 spec.components[1].traits[1].properties.controllerType",
        ]
    );
    // A custom capability without a definition (an error when strict),
    // properties a binding could complete (a certificate's issuer) and a
    // scoped binding: the profile decides each, so without one none is
    // reported, and the properties stay as written.
    let bound = "    - name: cache\n      type: worker\n      traits:\n        - {type: redis-sidecar}\n        - {type: certificate}\n        - {type: expose, properties: {scope: internal}}\n";
    let (problems, effective) = dispatch_against(bound, true, false);
    assert!(problems.is_empty(), "{problems:?}");
    let effective = effective.expect("an application");
    assert!(effective.contains("scope: internal"), "{effective}");
    assert!(!effective.contains("ingressClassName"), "{effective}");
    let (problems, _) = dispatch_against(bound, true, true);
    assert_eq!(
        problems,
        [
            "error capabilities/unvalidated-capability 9 spec.components[0].traits[0].type",
            "error schema/required 10 spec.components[0].traits[1].properties",
            "error schema/required 10 spec.components[0].traits[1].properties",
        ],
        "the profile decides what the editor cannot"
    );
}

#[test]
fn a_used_custom_capability_without_a_definition_warns_or_fails_when_strict() {
    let components =
        "    - name: cache\n      type: worker\n      traits:\n        - {type: redis-sidecar}\n";
    let (problems, effective) = dispatch(components, false);
    assert_eq!(
        problems,
        ["warning capabilities/unvalidated-capability 9 spec.components[0].traits[0].type"]
    );
    assert!(
        effective
            .expect("warnings do not fail")
            .contains("image: redis:7")
    );
    let (problems, effective) = dispatch(components, true);
    assert_eq!(
        problems,
        ["error capabilities/unvalidated-capability 9 spec.components[0].traits[0].type"]
    );
    assert!(effective.is_none());
}

#[test]
fn a_trait_that_needs_a_binding_names_what_is_missing() {
    let mut db = SourceDb::new();
    let profile = parse(
        &mut db,
        "cluster.yaml",
        "apiVersion: launcher.gokure.dev/v1alpha1\nkind: ClusterProfile\nmetadata: {name: bare}\nspec: {}\n",
    );
    let registry = Registry::builtin();
    let definitions = Definitions::new();
    let profile = evaluate_profile(&profile, &registry, &definitions)
        .value
        .expect("an empty profile is valid");
    let application = parse(
        &mut db,
        "app.yaml",
        "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Application\nmetadata: {name: shop}\nspec:\n  components:\n    - {name: web, type: webservice, traits: [{type: expose, properties: {scope: public}}]}\n  policies: [{name: p}, {name: p}]\n",
    );
    let dispatch = Dispatch {
        registry: &registry,
        definitions: &definitions,
        profile: Some(&profile),
        strict_capabilities: false,
        strict_properties: false,
    };
    let outcome = dispatch.application(&application);
    let codes: Vec<&str> = outcome
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(
        codes,
        [
            "capabilities/missing-binding",
            "capabilities/duplicate-name"
        ]
    );
    let messages: Vec<&str> = outcome
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "the `expose` trait of component `web` needs a capability binding, and the profile `bare` has none (`expose.public` or `expose`)",
            "two policies are named `p`",
        ]
    );
}

#[test]
fn structural_problems_hide_no_other_problem() {
    let (problems, effective) = dispatch(
        "    - name: web\n      type: webservice\n      colour: blue\n      traits:\n        - {properties: {}}\n        - {type: expos}\n",
        false,
    );
    assert_eq!(
        problems,
        [
            "error schema/unknown-key 8 spec.components[0].colour",
            "error schema/required 10 spec.components[0].traits[0]",
            "error capabilities/unknown-trait 11 spec.components[0].traits[1].type",
        ]
    );
    assert!(effective.is_none());
}

//! `strata_capabilities::build` through the library: a custom trait's
//! registered handler receives the trait's effective properties (the
//! profile's binding passed through, merged under what the author wrote)
//! and its objects reach the output after the component's; a handler's
//! refusal is an error at the trait; a pass-through handler builds nothing
//! and says so; the origins name the component or trait of each object.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::sync::Arc;

use serde_json::{Value, json};
use strata_capabilities::{
    BuildOptions, Dialect, Handler, HandlerKind, Options, Package, PassThroughTrait, Registry,
    RenderRequest, Settings, Supplied, TraitInput, build,
};
use strata_fs::{Files, MemoryFs};
use strata_syntax::{Format, Limits, Outcome, SourceDb};

const APP: &str = "apiVersion: launcher.gokure.dev/v1alpha1
kind: Application
metadata: {name: shop, namespace: shop}
spec:
  components:
    - name: web
      type: webservice
      properties: {image: 'registry.example.org/web:1.0.0', port: 8080}
      traits:
        - type: redis-cache
          properties: {memory: 256Mi}
";

const PROFILE: &str = "apiVersion: launcher.gokure.dev/v1alpha1
kind: ClusterProfile
metadata: {name: lab}
spec:
  capabilities:
    redis-cache:
      rendering: {image: 'redis:7.4', memory: 64Mi}
";

/// A downstream handler: a ConfigMap of the cache's settings.
struct RedisCache;

impl Handler for RedisCache {
    fn type_name(&self) -> &'static str {
        "redis-cache"
    }

    fn kind(&self) -> HandlerKind {
        HandlerKind::Trait
    }

    fn build(&self, input: &TraitInput<'_>) -> Result<Vec<Value>, String> {
        let image = input.properties["image"]
            .as_str()
            .ok_or("the binding names no `image`")?;
        Ok(vec![json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": format!("{}-redis", input.component), "namespace": input.namespace},
            "data": {"image": image, "memory": input.properties["memory"]},
        })])
    }
}

/// Checks the package `app` against the profile, then builds it with
/// `registry`.
fn built(
    registry: Registry,
    app: &str,
    profile: &str,
) -> (Outcome<strata_capabilities::Manifests>, SourceDb) {
    let files: Arc<dyn Files> = Arc::new(MemoryFs::new().with("app.yaml", app));
    let settings = Settings {
        registry: registry.clone(),
        ..Settings::default()
    };
    let opened = Package::open(files, Options::new(Limits::default(), settings));
    let mut db = SourceDb::extending(opened.sources);
    let package = opened.outcome.value.expect("a package");
    let id = db.add("cluster.yaml", profile.to_owned());
    let profile = strata_syntax::parse(&db, id, Format::Yaml, &Limits::default())
        .documents
        .remove(0);
    let request = RenderRequest {
        profile,
        definitions: Vec::new(),
        supplied: Supplied::default(),
    };
    let rendered = package
        .render(&request, &mut db)
        .value
        .expect("the package checks");
    let options = BuildOptions {
        registry,
        ..BuildOptions::default()
    };
    (build(&rendered, &options), db)
}

#[test]
fn a_custom_handler_builds_from_its_binding_and_the_author_wins() {
    let mut registry = Registry::builtin();
    registry.register(Arc::new(RedisCache)).expect("a new type");
    let (outcome, _) = built(registry, APP, PROFILE);
    let manifests = outcome.value.expect("built");
    let kinds: Vec<&str> = manifests
        .objects
        .iter()
        .filter_map(|object| object["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        ["Deployment", "Service", "ServiceAccount", "ConfigMap"]
    );
    let cache = &manifests.objects[3];
    assert_eq!(cache["metadata"]["name"], "web-redis");
    assert_eq!(
        cache["data"],
        json!({"image": "redis:7.4", "memory": "256Mi"})
    );
    let origins: Vec<String> = manifests.origins.iter().map(ToString::to_string).collect();
    assert_eq!(
        origins,
        [
            "spec.components[0]",
            "spec.components[0]",
            "spec.components[0]",
            "spec.components[0].traits[0]"
        ]
    );
    assert!(
        manifests
            .to_yaml()
            .contains("\n---\napiVersion: v1\ndata:\n  image: redis:7.4\n")
    );
}

#[test]
fn a_handler_that_refuses_is_an_error_at_the_trait() {
    let mut registry = Registry::builtin();
    registry.register(Arc::new(RedisCache)).expect("a new type");
    let unbound = PROFILE.replace("image: 'redis:7.4', ", "");
    let (outcome, db) = built(registry, APP, &unbound);
    assert!(outcome.value.is_none());
    let records: Vec<_> = outcome.diagnostics.iter().map(|d| d.record(&db)).collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].code, "capabilities/unsupported-trait");
    assert_eq!(
        records[0].message,
        "the handler of `redis-cache` cannot build it: the binding names no `image`"
    );
    assert_eq!(
        records[0].path.as_deref(),
        Some("spec.components[0].traits[0].properties")
    );
    assert_eq!(
        (records[0].file.as_str(), records[0].line),
        ("app.yaml", 11)
    );
}

#[test]
fn a_pass_through_handler_builds_nothing_and_says_so() {
    let mut registry = Registry::builtin();
    registry
        .register(Arc::new(PassThroughTrait::new("redis-cache")))
        .expect("a new type");
    let (outcome, db) = built(registry, APP, PROFILE);
    let records: Vec<_> = outcome.diagnostics.iter().map(|d| d.record(&db)).collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].code, "capabilities/no-effect");
    assert_eq!(outcome.value.expect("built").objects.len(), 3);
}

/// A component handler a library registered, for a custom type.
struct Lambda;

impl Handler for Lambda {
    fn type_name(&self) -> &'static str {
        "lambda"
    }

    fn kind(&self) -> HandlerKind {
        HandlerKind::Component
    }
}

#[test]
fn a_custom_component_type_is_reported_not_left_out() {
    let mut registry = Registry::builtin();
    registry.register(Arc::new(Lambda)).expect("a new type");
    registry.register(Arc::new(RedisCache)).expect("a new type");
    let app = APP.replace("type: webservice", "type: lambda");
    let (outcome, db) = built(registry, &app, PROFILE);
    let records: Vec<_> = outcome.diagnostics.iter().map(|d| d.record(&db)).collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].code, "capabilities/unsupported-component");
    assert_eq!(
        records[0].path.as_deref(),
        Some("spec.components[0].properties")
    );
}

//! Typed rendering schemas: what a capability-aware handler accepts from a
//! cluster profile, and how it validates and completes it.
//!
//! Each built-in schema is one Rust struct (the decode target and the
//! source of its JSON Schema, as Kure's typed Go structs are) plus the rules
//! a struct cannot state: conditional requirements, keys that belong to
//! another branch, and defaults that apply only in the branch where they
//! mean something. [`Rendering::validate_and_default`] is the counterpart of
//! Kure's `ValidateAndApplyDefaults`: strict decode (unknown keys at the
//! key, with a did-you-mean), required keys, enums, the conditional rules,
//! then the defaults for absent keys. Every problem is reported, each at its
//! node.
#![expect(
    dead_code,
    reason = "the decode targets of nested parts (issuer and store references, storage classes) state the schema; the rules read the fields that decide"
)]

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use strata_schema::Decoder;
use strata_syntax::{Diagnostic, FieldPath, Node, Outcome, Segment};

use crate::codes;

/// What a capability-aware handler accepts from a profile.
pub trait Rendering: Send + Sync {
    /// The JSON Schema of the rendering keys (closed).
    fn schema(&self) -> &serde_json::Value;

    /// Checks `rendering` (a binding's `rendering` mapping) and gives it
    /// with its defaults: the value replaces the binding's rendering. No
    /// value when any diagnostic is an error.
    fn validate_and_default(&self, rendering: &Node) -> Outcome<Node>;

    /// The keys the schema accepts, in the schema's order.
    fn keys(&self) -> Vec<String> {
        self.schema()
            .get("properties")
            .and_then(serde_json::Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// The rules of a rendering beyond its struct: diagnostics about `node`
/// (decoded as `value`), and the defaults to add where keys are absent.
pub trait Rules: Sized {
    /// Problems the struct cannot state.
    fn check(&self, _node: &Node) -> Vec<Diagnostic> {
        Vec::new()
    }

    /// Values to add where they are absent, each at a path of keys (a
    /// nested default goes only into a mapping that is there).
    fn defaults(&self) -> Vec<(&'static [&'static str], serde_json::Value)> {
        Vec::new()
    }

    /// Writes the rules and defaults into the published JSON Schema
    /// (`if`/`then`, `default`), so that it accepts what the rules accept.
    fn publish(_schema: &mut serde_json::Value) {}
}

/// A rendering schema from the struct `T`.
pub struct Typed<T> {
    decoder: Decoder<T>,
    /// The decoder's schema with the rules written in.
    published: serde_json::Value,
    target: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned + JsonSchema + Rules> Typed<T> {
    /// The schema of `T`, with its rules.
    #[must_use]
    pub fn new() -> Typed<T> {
        let decoder = Decoder::new();
        let mut published = decoder.schema().clone();
        T::publish(&mut published);
        Typed {
            decoder,
            published,
            target: PhantomData,
        }
    }
}

impl<T: DeserializeOwned + JsonSchema + Rules> Default for Typed<T> {
    fn default() -> Typed<T> {
        Typed::new()
    }
}

impl<T: DeserializeOwned + JsonSchema + Rules> Rendering for Typed<T> {
    /// The published schema: the struct's, closed, with the rules as
    /// `if`/`then` and the defaults (Kure's is "approximate for
    /// conditional constraints"; this one agrees with the validator).
    fn schema(&self) -> &serde_json::Value {
        &self.published
    }

    fn validate_and_default(&self, rendering: &Node) -> Outcome<Node> {
        let decoded = match self.decoder.decode(rendering) {
            Ok(decoded) => decoded,
            Err(problems) => return Outcome::failed(problems),
        };
        let problems = decoded.check(rendering);
        if !problems.is_empty() {
            return Outcome::failed(problems);
        }
        let mut completed = rendering.clone();
        for (path, value) in decoded.defaults() {
            set_default(&mut completed, path, &value);
        }
        Outcome::ok(completed)
    }
}

/// Sets `value` at `path` below `node` when nothing is there; the mappings
/// along the path must exist. The default is spanned at the mapping that
/// receives it.
pub(crate) fn set_default(node: &mut Node, path: &[&str], value: &serde_json::Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let parents: Vec<Segment> = parents
        .iter()
        .map(|key| Segment::Key((*key).to_owned()))
        .collect();
    let Some(target) = node.at_mut(&parents) else {
        return;
    };
    if target
        .as_map()
        .is_some_and(|entries| !entries.contains_key(*last))
    {
        let mut default = Node::from_json_value(value);
        default.span = target.span;
        target.insert(last, default);
    }
}

/// A problem of a rendering at the key `key` (or the mapping, when absent).
fn at_key(node: &Node, key: &str, code: strata_syntax::Code, message: String) -> Diagnostic {
    let (span, path) = match node.as_map().and_then(|entries| entries.get(key)) {
        Some(entry) => (entry.key_span, FieldPath::root().key(key)),
        None => (node.span, FieldPath::root()),
    };
    Diagnostic::error(code, message, span).with_path(path)
}

/// `expose`: how applications are reached, through an ingress controller or
/// a Gateway API gateway.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExposeRendering {
    /// `ingress` or `gateway`. Required.
    pub controller_type: ControllerType,
    /// The `IngressClass`. Required with `ingress`, refused with `gateway`.
    pub ingress_class_name: Option<String>,
    /// The Gateway. Required with `gateway`, refused with `ingress`.
    pub gateway_name: Option<String>,
    /// The Gateway's namespace; `gateway-system` when absent with `gateway`.
    pub gateway_namespace: Option<String>,
    /// cert-manager's cluster issuer for platform-managed TLS (ingress only).
    pub cert_manager_cluster_issuer: Option<String>,
    /// The wildcard application host names must fall under
    /// (`*.apps.example.com`).
    pub allowed_hostname_wildcard: Option<String>,
    /// nginx-ingress `ssl-redirect` default (ingress only).
    pub ssl_redirect: Option<bool>,
    /// nginx-ingress `force-ssl-redirect` default (ingress only).
    pub force_ssl_redirect: Option<bool>,
    /// External authentication URL, without a query string (ingress only).
    #[serde(rename = "authURL")]
    pub auth_url: Option<String>,
    /// Where to sign in (only with `authURL`).
    #[serde(rename = "authSigninURL")]
    pub auth_signin_url: Option<String>,
    /// Headers passed back from authentication (only with `authURL`).
    pub auth_response_headers: Option<String>,
    /// The network policy applications get.
    pub network_policy: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `expose.controllerType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ControllerType {
    /// An ingress controller.
    Ingress,
    /// A Gateway API gateway.
    Gateway,
}

/// The keys only the `ingress` branch takes.
const INGRESS_ONLY: &[&str] = &[
    "ingressClassName",
    "certManagerClusterIssuer",
    "sslRedirect",
    "forceSslRedirect",
    "authURL",
    "authSigninURL",
    "authResponseHeaders",
];

/// The keys only the `gateway` branch takes.
const GATEWAY_ONLY: &[&str] = &["gatewayName", "gatewayNamespace"];

impl Rules for ExposeRendering {
    fn check(&self, node: &Node) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        let (branch, required, other, refused) = match self.controller_type {
            ControllerType::Ingress => ("ingress", "ingressClassName", "gateway", GATEWAY_ONLY),
            ControllerType::Gateway => ("gateway", "gatewayName", "ingress", INGRESS_ONLY),
        };
        let present = |key: &str| node.get(key).is_some();
        if !present(required) {
            problems.push(at_key(
                node,
                required,
                codes::MISSING_RENDERING_KEY,
                format!("`{required}` is required when `controllerType` is `{branch}`"),
            ));
        }
        for key in refused.iter().filter(|key| present(key)) {
            problems.push(at_key(
                node,
                key,
                codes::BRANCH_KEY,
                format!("`{key}` is only valid when `controllerType` is `{other}`"),
            ));
        }
        if let Some(url) = &self.auth_url
            && url.contains('?')
        {
            problems.push(at_key(
                node,
                "authURL",
                codes::INVALID_RENDERING,
                format!("`authURL` `{url}` has a query string; give the URL without one"),
            ));
        }
        if self.controller_type == ControllerType::Ingress && self.auth_url.is_none() {
            for key in ["authSigninURL", "authResponseHeaders"] {
                if present(key) {
                    problems.push(at_key(
                        node,
                        key,
                        codes::BRANCH_KEY,
                        format!("`{key}` is only valid with `authURL`"),
                    ));
                }
            }
        }
        problems.sort_by_key(|d| d.primary.span.start);
        problems
    }

    fn publish(schema: &mut serde_json::Value) {
        let required_any = |keys: &[&str]| -> Vec<serde_json::Value> {
            keys.iter()
                .map(|k| serde_json::json!({"required": [k]}))
                .collect()
        };
        let branch = |value: &str| {
            serde_json::json!({
                "properties": {"controllerType": {"const": value}},
                "required": ["controllerType"],
            })
        };
        let rules = serde_json::json!([
            {
                "if": branch("ingress"),
                "then": {
                    "required": ["ingressClassName"],
                    "not": {"anyOf": required_any(GATEWAY_ONLY)},
                },
            },
            {
                "if": branch("gateway"),
                "then": {
                    "required": ["gatewayName"],
                    "not": {"anyOf": required_any(INGRESS_ONLY)},
                    "properties": {"gatewayNamespace": {"default": "gateway-system"}},
                },
            },
            {
                "if": {"allOf": [branch("ingress"), {"not": {"required": ["authURL"]}}]},
                "then": {"not": {"anyOf": required_any(&["authSigninURL", "authResponseHeaders"])}},
            },
        ]);
        if let Some(object) = schema.as_object_mut() {
            object.insert("allOf".to_owned(), rules);
        }
        if let Some(url) = schema.pointer_mut("/properties/authURL")
            && let Some(object) = url.as_object_mut()
        {
            object.insert("pattern".to_owned(), "^[^?]*$".into());
        }
    }

    fn defaults(&self) -> Vec<(&'static [&'static str], serde_json::Value)> {
        match self.controller_type {
            ControllerType::Gateway => vec![(&["gatewayNamespace"], "gateway-system".into())],
            ControllerType::Ingress => Vec::new(),
        }
    }
}

/// A reference to a cert-manager issuer.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct IssuerRef {
    /// The issuer's name. Required.
    #[schemars(length(min = 1))]
    pub name: String,
    /// `ClusterIssuer` when absent.
    pub kind: Option<String>,
}

/// `certificate`: the issuer certificates come from.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CertificateRendering {
    /// The issuer. Required.
    pub issuer_ref: IssuerRef,
}

impl Rules for CertificateRendering {
    fn defaults(&self) -> Vec<(&'static [&'static str], serde_json::Value)> {
        vec![(&["issuerRef", "kind"], "ClusterIssuer".into())]
    }

    fn publish(schema: &mut serde_json::Value) {
        publish_default(schema, "/$defs/IssuerRef/properties/kind", "ClusterIssuer");
    }
}

/// A reference to an external-secrets store.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct SecretStoreRef {
    /// The store's name. Required.
    #[schemars(length(min = 1))]
    pub name: String,
    /// `ClusterSecretStore` when absent.
    pub kind: Option<String>,
}

/// `external-secret`: the store secrets come from.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExternalSecretRendering {
    /// The store. Required.
    pub secret_store_ref: SecretStoreRef,
    /// How often secrets are refreshed (`1h`).
    pub refresh_interval: Option<String>,
}

impl Rules for ExternalSecretRendering {
    fn defaults(&self) -> Vec<(&'static [&'static str], serde_json::Value)> {
        vec![(&["secretStoreRef", "kind"], "ClusterSecretStore".into())]
    }

    fn publish(schema: &mut serde_json::Value) {
        publish_default(
            schema,
            "/$defs/SecretStoreRef/properties/kind",
            "ClusterSecretStore",
        );
    }
}

/// Writes `default` into the property schema at `pointer`.
fn publish_default(schema: &mut serde_json::Value, pointer: &str, default: &str) {
    if let Some(object) = schema
        .pointer_mut(pointer)
        .and_then(serde_json::Value::as_object_mut)
    {
        object.insert("default".to_owned(), default.into());
    }
}

/// `pvc`: the storage class claims get.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PvcRendering {
    /// The `StorageClass`.
    pub storage_class_name: Option<String>,
}

impl Rules for PvcRendering {}

/// `volsync`: the classes replicated volumes use.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VolsyncRendering {
    /// The `StorageClass`.
    pub storage_class_name: Option<String>,
    /// The `VolumeSnapshotClass`.
    pub volume_snapshot_class_name: Option<String>,
}

impl Rules for VolsyncRendering {}

/// A rendering that accepts no key at all (`configmap`, `networkpolicy`,
/// `cilium-networkpolicy`): any key the operator writes is an error.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(extend("properties" = {}))]
pub(crate) struct NoKeys {}

impl Rules for NoKeys {}

//! Typed property schemas of built-in traits: what an application author
//! may write in a trait's `properties`, checked on the effective properties
//! (the binding's rendering merged under what the author wrote).
//!
//! A missing required property or a value of the wrong type is an error;
//! an unknown property is a warning with a did-you-mean (an error when
//! strict), because Kure passes unknown properties through and its own
//! examples use keys its schemas lack. Nested objects Kure describes
//! loosely (`target`, `data`, `remoteRef`) are checked for their type only.
//!
//! Typed here: `expose`, `configmap`, `pvc`, `certificate`,
//! `external-secret`. Every other built-in passes its properties through.
#![expect(
    dead_code,
    reason = "the fields state each trait's properties for the schema and strict decoding; the rules read the decoded tree, not these values"
)]

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value as Json;
use strata_schema::Decoder;
use strata_syntax::{Diagnostic, Node, Severity};

use crate::rendering::{IssuerRef, SecretStoreRef};

/// `expose` properties: what the author writes and what the profile's
/// binding merges in (the platform-reserved ones only the profile may set).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExposeProperties {
    /// `ingress` or `gateway` (the profile's).
    pub controller_type: Option<crate::rendering::ControllerType>,
    /// cert-manager's cluster issuer for managed TLS (the profile's).
    pub cert_manager_cluster_issuer: Option<String>,
    /// The Secret of managed TLS, instead of `<component>-tls`.
    pub secret_name: Option<String>,
    /// The wildcard host names must fall under (the profile's).
    pub allowed_hostname_wildcard: Option<String>,
    /// The Gateway (the profile's).
    pub gateway_name: Option<String>,
    /// The Gateway's namespace (the profile's).
    pub gateway_namespace: Option<String>,
    /// Annotations of the generated resource.
    pub annotations: Option<serde_json::Map<String, Json>>,
    /// Ingress-style host rules.
    pub rules: Option<Vec<serde_json::Map<String, Json>>>,
    /// Host names: gateway routes, or one ingress rule each.
    pub hostnames: Option<Vec<String>>,
    /// The `IngressClass` (ingress only).
    pub ingress_class_name: Option<String>,
    /// nginx `ssl-redirect` (ingress only).
    pub ssl_redirect: Option<bool>,
    /// nginx `force-ssl-redirect` (ingress only).
    pub force_ssl_redirect: Option<bool>,
    /// oauth2-proxy groups allowed (ingress only).
    pub allowed_groups: Option<Vec<String>>,
    /// External authentication (the profile's).
    #[serde(rename = "authURL")]
    pub auth_url: Option<String>,
    /// Where to sign in (ingress only).
    #[serde(rename = "authSigninURL")]
    pub auth_signin_url: Option<String>,
    /// Headers passed back from authentication (the profile's).
    pub auth_response_headers: Option<String>,
    /// The port to route to when the component exposes none.
    pub service_port: Option<i64>,
    /// The Service to route to (with `servicePort`).
    pub service_name: Option<String>,
    /// The sub-application's name, for several expose traits.
    pub name: Option<String>,
    /// The network policy (the profile's).
    pub network_policy: Option<serde_json::Map<String, Json>>,
}

/// `configmap` properties.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ConfigmapProperties {
    /// The `ConfigMap`'s name. Required.
    pub name: String,
    /// Where the ConfigMap is mounted into the component's workload.
    pub mount_path: Option<String>,
    /// Its data (values are stringified).
    pub data: Option<serde_json::Map<String, Json>>,
}

/// `pvc` properties.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PvcProperties {
    /// The claim's name. Required.
    pub name: String,
    /// The requested size, a Kubernetes quantity.
    pub size: Option<String>,
    /// The `StorageClass` (the profile's binding may supply it).
    pub storage_class_name: Option<String>,
    /// Access modes (`ReadWriteOnce` when absent).
    pub access_modes: Option<Vec<AccessMode>>,
}

/// A volume access mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[expect(
    clippy::enum_variant_names,
    reason = "the names are Kubernetes' access modes, as written"
)]
pub(crate) enum AccessMode {
    /// `ReadWriteOnce`.
    ReadWriteOnce,
    /// `ReadOnlyMany`.
    ReadOnlyMany,
    /// `ReadWriteMany`.
    ReadWriteMany,
    /// `ReadWriteOncePod`.
    ReadWriteOncePod,
}

/// `certificate` properties.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CertificateProperties {
    /// The Secret holding the certificate. Required.
    pub secret_name: String,
    /// The issuer (the profile's binding may supply it); `name` required.
    pub issuer_ref: Option<IssuerRef>,
    /// The DNS names. Required.
    pub dns_names: Vec<String>,
    /// Validity (`2160h`).
    pub duration: Option<String>,
    /// Renewal ahead of expiry (`360h`).
    pub renew_before: Option<String>,
    /// The private key's settings.
    pub private_key: Option<PrivateKey>,
}

/// `certificate.privateKey`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PrivateKey {
    /// `RSA`, `ECDSA` or `Ed25519`.
    pub algorithm: Option<KeyAlgorithm>,
    /// Size in bits.
    pub size: Option<i64>,
    /// `PKCS1` or `PKCS8`.
    pub encoding: Option<KeyEncoding>,
    /// `Never` or `Always`.
    pub rotation_policy: Option<RotationPolicy>,
}

/// A private key algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum KeyAlgorithm {
    /// RSA.
    #[serde(rename = "RSA")]
    Rsa,
    /// ECDSA.
    #[serde(rename = "ECDSA")]
    Ecdsa,
    /// Ed25519.
    Ed25519,
}

/// A private key encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum KeyEncoding {
    /// PKCS #1.
    #[serde(rename = "PKCS1")]
    Pkcs1,
    /// PKCS #8.
    #[serde(rename = "PKCS8")]
    Pkcs8,
}

/// Whether the key is regenerated on renewal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum RotationPolicy {
    /// Keep the key.
    Never,
    /// Regenerate it.
    Always,
}

/// `external-secret` properties.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExternalSecretProperties {
    /// The `ExternalSecret`'s name and the default target. Required.
    pub secret_name: String,
    /// The store (the profile's binding may supply it); `name` required.
    pub secret_store_ref: Option<SecretStoreRef>,
    /// A `ClusterSecretStore` named in short, without `secretStoreRef`.
    pub provider: Option<String>,
    /// How often the secret is fetched again (`1h`).
    pub refresh_interval: Option<String>,
    /// The produced Secret's name, when not `secretName`.
    pub target_secret_name: Option<String>,
    /// Inject the Secret into the first container with `envFrom`.
    pub env_from: Option<bool>,
    /// Where the Secret is mounted into the component's workload.
    pub mount_path: Option<String>,
    /// The target Secret's policies and template.
    pub target: Option<serde_json::Map<String, Json>>,
    /// Keys fetched one by one.
    pub data: Option<Vec<Json>>,
    /// Keys fetched in bulk.
    pub data_from: Option<Vec<Json>>,
    /// The remote secret, for the shorthand form.
    pub remote_ref: Option<serde_json::Map<String, Json>>,
}

static EXPOSE: LazyLock<Decoder<ExposeProperties>> = LazyLock::new(Decoder::new);
static CONFIGMAP: LazyLock<Decoder<ConfigmapProperties>> = LazyLock::new(Decoder::new);
static PVC: LazyLock<Decoder<PvcProperties>> = LazyLock::new(Decoder::new);
static CERTIFICATE: LazyLock<Decoder<CertificateProperties>> = LazyLock::new(Decoder::new);
static EXTERNAL_SECRET: LazyLock<Decoder<ExternalSecretProperties>> = LazyLock::new(Decoder::new);

/// The problems of the effective `properties` of a `trait_type` trait,
/// paths relative to them; `None` for a trait whose properties pass
/// through. Unknown properties are warnings unless `strict`.
pub(crate) fn check(trait_type: &str, properties: &Node, strict: bool) -> Option<Vec<Diagnostic>> {
    let problems = match trait_type {
        "expose" => EXPOSE.validate(properties),
        "configmap" => CONFIGMAP.validate(properties),
        "pvc" => PVC.validate(properties),
        "certificate" => CERTIFICATE.validate(properties),
        "external-secret" => EXTERNAL_SECRET.validate(properties),
        _ => return None,
    };
    Some(
        problems
            .into_iter()
            .map(|mut problem| match problem.code {
                strata_schema::codes::UNKNOWN_KEY if !strict => {
                    problem.severity = Severity::Warning;
                    problem.with_note(
                        "unknown properties pass through to the handler; `--strict` refuses them",
                    )
                }
                _ => problem,
            })
            .collect(),
    )
}

//! Kubernetes knowledge: quantities, names, label selectors and strict
//! decoding of Kubernetes types.
//!
//! - [`names`]: one grammar for label names and values, DNS-1123 labels and
//!   subdomains, shared by every crate that checks them.
//! - [`Selector`]: label selectors as apimachinery's `labels.Parse` reads
//!   them (qbec's `labelsMatchSelector` native).
//! - [`Quantity`]: the API server's quantity grammar, and its canonical
//!   text ([`Quantity::canonical`], `1536Mi` for `1.5Gi`).
//! - [`Duration`]: `metav1.Duration`, read and written as Go does
//!   (`60m` is `1h0m0s`).
//! - [`to_go_yaml`]: objects written byte for byte as Go tools write them
//!   (`sigs.k8s.io/yaml`, yaml.v2's emitter).
//!
//! `k8s-openapi`'s types ignore unknown fields and know no spans, so they
//! are decoded through [`strata_schema::Decoder`]: their JSON Schema (from
//! `k8s-openapi`'s `schemars` feature) is closed, every problem is reported
//! with its span and field path, and only a clean tree reaches serde.
//!
//! # `PersistentVolumeClaimSpec`
//!
//! [`decode_pvc_spec`] checks, beyond the types and the keys:
//! - `accessModes` items are one of [`ACCESS_MODES`] and `volumeMode` one of
//!   [`VOLUME_MODES`] (the generated schema only says "string"; the values
//!   are added to it);
//! - `resources.requests` and `resources.limits` values are quantities.
//!   `k8s-openapi` describes `Quantity` as `x-kubernetes-int-or-string` with
//!   no `type`, so the schema accepts any value there and
//!   [`check_quantity`] validates it instead: a mapping, `10GB` or `.inf`
//!   is a `k8s/invalid-quantity`, reported alongside the schema's findings.
//!
//! Paths are relative to the node given; [`decode_pvc_spec_at`] puts a base
//! path in front (`storages.home.claimSpec.accessModes[0]`).
//!
//! An optional field may be `null`, which means absent, as for the API
//! server: an upper layer removes a lower layer's value that way. Required
//! fields (`selector.matchExpressions[0].key`) may not.
//!
//! # Diagnostic codes
//!
//! - `k8s/invalid-quantity`: not a quantity (`` `10GB` is not a valid
//!   kubernetes quantity ``); the label says why, the help suggests `10Gi` or
//!   `10G`, or names the valid suffixes.
//! - `schema/unknown-key`, `schema/type`, `schema/required`, `schema/enum`,
//!   `schema/constraint`, `schema/decode`: from [`strata_schema`].
//!
//! # Example
//!
//! ```
//! use strata_k8s::decode_pvc_spec_at;
//! use strata_syntax::{FieldPath, Format, Limits, SourceDb, parse};
//!
//! let mut db = SourceDb::new();
//! let text = "accesModes: [ReadWriteOnce]\nresources:\n  requests: {storage: 10GB}\n";
//! let id = db.add("claim.yaml", text);
//! let spec = parse(&db, id, Format::Yaml, &Limits::default()).documents.remove(0);
//!
//! let base = FieldPath::parse("storages.home.claimSpec").unwrap();
//! let diagnostics = decode_pvc_spec_at(&spec, &base).unwrap_err();
//! let records: Vec<_> = diagnostics.iter().map(|d| d.record(&db)).collect();
//!
//! assert_eq!(records[0].code, "schema/unknown-key");
//! assert_eq!(records[0].path.as_deref(), Some("storages.home.claimSpec.accesModes"));
//! assert_eq!(records[0].help.as_deref(), Some("did you mean `accessModes`?"));
//!
//! assert_eq!(records[1].code, "k8s/invalid-quantity");
//! assert_eq!(records[1].message, "`10GB` is not a valid kubernetes quantity");
//! assert_eq!((records[1].line, records[1].column), (3, 23));
//! ```

#![forbid(unsafe_code)]

mod canonical;
pub mod codes;
mod duration;
mod go_yaml;
pub mod names;
mod pvc;
mod quantity;
mod selector;

pub use duration::Duration;
pub use go_yaml::{key_order, to_go_yaml, to_go_yaml_stream};
pub use pvc::{ACCESS_MODES, VOLUME_MODES, decode_pvc_spec, decode_pvc_spec_at, pvc_spec_decoder};
pub use quantity::{Quantity, check_quantity, parse_quantity};
pub use selector::Selector;

//! The diagnostic codes of Kubernetes knowledge.
//!
//! | code | when |
//! |---|---|
//! | `k8s/invalid-quantity` | a value is not a Kubernetes quantity (`500m`, `1Gi`, `1E`) |

/// A value is not a Kubernetes quantity (`500m`, `1Gi`, `1E`).
pub const INVALID_QUANTITY: &str = "k8s/invalid-quantity";

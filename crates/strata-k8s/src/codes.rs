//! The diagnostic codes of Kubernetes knowledge.

strata_syntax::declare_codes! {
    INVALID_QUANTITY = "k8s/invalid-quantity" {
        when: "a value is not a Kubernetes quantity (`500m`, `1Gi`, `1E`)",
        why: r"Resource sizes (`resources.cpu` and `memory`, a storage's `sizeLimit`, a claim's requested storage) are Kubernetes quantities: a number with an optional binary suffix (`Ki` to `Ei`), decimal suffix (`n`, `u`, `m`, `k`, `M` to `E`) or exponent (`e3`). The API server refuses other spellings (`4GB`, `2 cores`), so they are reported at the value, with the likely quantity when there is one.",
        fix: r"Write the quantity with a valid suffix, such as `4Gi` (powers of 1024) or `4G` (powers of 1000) for `4GB`, and `2` or `2000m` for `2 cores`.",
        example: r"# catalogue/a.yaml
name: a
image: x
resources:
  cpu: 2 cores
  memory: 4GB",
    }
}

//! A generated cluster profile, definitions and package for the
//! capabilities benchmark: at [`Size::BENCH`], 500 bindings (built-in and
//! custom), 50 `CapabilityDefinition`s and an Application of 200 components
//! with three traits each (`expose` or a mounted `configmap`, a `scaler`
//! with a disruption budget, a custom capability), which builds; the
//! generator example takes other sizes.
//! Deterministic.

use std::fmt::Write;

/// How much to generate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Size {
    /// Bindings in the profile.
    pub(crate) bindings: usize,
    /// Custom capabilities, each with a definition.
    pub(crate) definitions: usize,
    /// Components of the Application.
    pub(crate) components: usize,
}

impl Size {
    /// The benchmark's package.
    pub(crate) const BENCH: Size = Size {
        bindings: 500,
        definitions: 50,
        components: 200,
    };
}

/// The generated texts.
pub(crate) struct Generated {
    /// `cluster.yaml`.
    pub(crate) profile: String,
    /// `definitions/custom.yaml`: every definition, one document each.
    pub(crate) definitions: String,
    /// `app.yaml`.
    pub(crate) application: String,
    /// The custom trait types, for the registry.
    pub(crate) custom_traits: Vec<String>,
}

/// Generates the three files.
pub(crate) fn generate(size: Size) -> Generated {
    let Size {
        bindings,
        definitions: definition_count,
        components,
    } = size;
    let custom_traits: Vec<String> = (0..definition_count)
        .map(|i| format!("custom-{i}"))
        .collect();
    let mut definitions = String::new();
    for name in &custom_traits {
        let _ = write!(
            definitions,
            "---\napiVersion: launcher.gokure.dev/v1alpha1\nkind: CapabilityDefinition\nmetadata: {{name: {name}}}\nspec:\n  description: A generated capability.\n  rendering:\n    properties:\n      endpoint: {{type: string, required: true}}\n      batchSize: {{type: integer, default: 500}}\n      enabled: {{type: boolean, default: true}}\n"
        );
    }
    let mut profile = String::from(
        "apiVersion: launcher.gokure.dev/v1alpha1\nkind: ClusterProfile\nmetadata: {name: bench.example.com}\nspec:\n  capabilities:\n",
    );
    for i in 0..bindings {
        let binding = match i % 6 {
            0 => format!(
                "    expose.scope-{i}:\n      rendering: {{controllerType: ingress, ingressClassName: nginx-{i}, certManagerClusterIssuer: le, sslRedirect: true}}\n"
            ),
            1 => format!(
                "    expose.gw-{i}:\n      rendering: {{controllerType: gateway, gatewayName: public-{i}}}\n"
            ),
            2 => format!(
                "    certificate.c-{i}:\n      rendering: {{issuerRef: {{name: issuer-{i}}}}}\n"
            ),
            3 => format!(
                "    external-secret.s-{i}:\n      rendering: {{secretStoreRef: {{name: vault-{i}}}, refreshInterval: 1h}}\n"
            ),
            4 => format!("    pvc.p-{i}:\n      rendering: {{storageClassName: class-{i}}}\n"),
            _ => format!(
                "    {}.b-{i}:\n      rendering: {{endpoint: 'https://e{i}.example.com'}}\n",
                custom_traits[i % definition_count]
            ),
        };
        profile.push_str(&binding);
    }
    for (i, name) in custom_traits.iter().enumerate() {
        let _ = write!(
            profile,
            "    {name}:\n      rendering: {{endpoint: 'https://d{i}.example.com', batchSize: 10}}\n"
        );
    }
    profile.push_str(
        "    expose:\n      rendering: {controllerType: ingress, ingressClassName: nginx}\n",
    );
    let mut application = String::from(
        "apiVersion: launcher.gokure.dev/v1alpha1\nkind: Application\nmetadata: {name: bench, namespace: bench}\nspec:\n  components:\n",
    );
    for i in 0..components {
        let custom = &custom_traits[i % definition_count];
        let (kind, properties, own_trait) = if i % 2 == 0 {
            (
                "webservice",
                format!("{{image: 'registry.example.com/c{i}:1.0', port: 8080}}"),
                format!(
                    "{{type: expose, properties: {{hostnames: [c{i}.apps.example.com], scope: scope-{}}}}}",
                    (i * 6) % bindings
                ),
            )
        } else {
            (
                "worker",
                format!("{{image: 'registry.example.com/c{i}:1.0', replicas: 2}}"),
                format!(
                    "{{type: configmap, properties: {{name: component-{i}-config, mountPath: /etc/config, data: {{mode: batch, workers: 4}}}}}}"
                ),
            )
        };
        let _ = write!(
            application,
            "    - name: component-{i}\n      type: {kind}\n      properties: {properties}\n      traits:\n        - {own_trait}\n        - {{type: scaler, properties: {{minReplicas: 2, maxReplicas: 6, enablePDB: true}}}}\n        - {{type: {custom}}}\n"
        );
    }
    Generated {
        profile,
        definitions,
        application,
        custom_traits,
    }
}

//! `capabilities build`: an Application, checked against a cluster profile
//! ([`crate::Rendered`]), becomes the Kubernetes objects Kure's `kurel
//! build` produces, in Kure's order, written as Kure writes them.
//!
//! - **Namespace**: the one given ([`BuildOptions::namespace`], `-n`),
//!   else the Application's `metadata.namespace`, else `default`.
//! - **Tiers**: each component is in a tier, `infra` (daemonset),
//!   `services` (postgresql) or `apps` (every other type), or the one its
//!   `launcher.gokure.dev/tier` annotation names. Tiers are built in that
//!   order; within a tier, each component's objects in declaration order,
//!   then its traits' objects.
//! - **Policies**: Kure's launcher registers no policy handler, so a
//!   `spec.policies` entry fails the build; here it is an error at the
//!   policy.
//! - **Kure's bugs**: where Kure's output is wrong in a way a migration
//!   must not change by surprise (claim names with doubled hyphens), the
//!   output stays Kure's and a warning names the bug;
//!   [`BuildOptions::fix_kure_bugs`] writes the fixed output instead.
//!
//! Every problem is reported at the component or trait property it
//! concerns, all at once; no object is written when any is an error.

mod env;
mod pod;
mod probes;
mod report;
mod security;
mod spec;
mod workloads;

use serde_json::Value;
use strata_syntax::{Diagnostic, FieldPath, Mapping, Node, Outcome, Span, Value as Tree};

use crate::codes;
use crate::package::Rendered;
use report::Report;

/// The annotation that puts a component in a tier.
const TIER_ANNOTATION: &str = "launcher.gokure.dev/tier";

/// The tiers, in the order they are built.
const TIERS: [&str; 3] = ["infra", "services", "apps"];

/// What a build is asked for besides the Application and the profile.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// The namespace of every namespaced object (`-n`), over the
    /// Application's.
    pub namespace: Option<String>,
    /// Write the fixed output where Kure's is wrong (its bugs, listed in
    /// the manual), instead of Kure's output and a warning.
    pub fix_kure_bugs: bool,
}

/// The objects of a build, in order.
#[derive(Debug, Clone)]
pub struct Manifests {
    /// The Application's name (the file name of `--out-dir`).
    pub name: String,
    /// The objects.
    pub objects: Vec<Value>,
}

impl Manifests {
    /// The objects as a YAML stream, byte for byte as Kure writes it.
    #[must_use]
    pub fn to_yaml(&self) -> String {
        strata_k8s::to_go_yaml_stream(&self.objects)
    }
}

/// One component being built.
pub(crate) struct Component<'a> {
    /// Its name.
    pub name: &'a str,
    /// The build's namespace.
    pub namespace: &'a str,
    /// Its properties (an empty mapping when none are written).
    pub properties: &'a Node,
    /// Whether Kure's bugs are fixed in the output.
    pub fixes: bool,
}

/// The JSON Schema of a built-in component type's properties, when the
/// build reads them strictly.
#[must_use]
pub fn component_schema(component_type: &str) -> Option<&'static serde_json::Value> {
    workloads::schema(component_type)
}

/// Builds the Application of `rendered` (see the module documentation).
pub fn build(rendered: &Rendered, options: &BuildOptions) -> Outcome<Manifests> {
    let Some(application) = &rendered.application else {
        return Outcome::failed(Vec::new());
    };
    let mut problems = Vec::new();
    let metadata = application.get("metadata");
    let name = metadata
        .and_then(|m| m.get("name"))
        .and_then(Node::as_str)
        .unwrap_or_default()
        .to_owned();
    let namespace = options
        .namespace
        .clone()
        .filter(|namespace| !namespace.is_empty())
        .or_else(|| {
            metadata
                .and_then(|m| m.get("namespace"))
                .and_then(Node::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "default".to_owned());
    let policies = FieldPath::root().key("spec").key("policies");
    for (index, policy) in items(application, &policies).iter().enumerate() {
        let kind = policy
            .get("type")
            .and_then(Node::as_str)
            .unwrap_or_default();
        let at = policy.get("type").map_or(policy.span, |node| node.span);
        problems.push(
            Diagnostic::error(
                codes::POLICY,
                format!("Kure has no handler for the policy type `{kind}`: `kurel build` fails on any policy"),
                at,
            )
            .with_path(policies.index(index).key("type"))
            .with_help("remove the policy; Kure's launcher applies none"),
        );
    }
    let components = FieldPath::root().key("spec").key("components");
    let mut tiers: [Vec<Vec<Value>>; 3] = Default::default();
    for (index, written) in items(application, &components).iter().enumerate() {
        let path = components.index(index);
        let component_type = written
            .get("type")
            .and_then(Node::as_str)
            .unwrap_or_default();
        let Some(tier) = tier_of(written, component_type, &path, &mut problems) else {
            continue;
        };
        let empty = Node::new(Tree::Map(Mapping::default()), type_span(written));
        let properties = written.get("properties").unwrap_or(&empty);
        let component = Component {
            name: written
                .get("name")
                .and_then(Node::as_str)
                .unwrap_or_default(),
            namespace: &namespace,
            properties,
            fixes: options.fix_kure_bugs,
        };
        let mut report = Report::new(properties, path.key("properties"));
        let objects =
            workloads::build(&mut report, &component, component_type).unwrap_or_else(|| {
                report.error(
                    codes::UNSUPPORTED_COMPONENT,
                    &FieldPath::root(),
                    format!(
                        "`capabilities build` does not build `{component_type}` components yet"
                    ),
                );
                Vec::new()
            });
        problems.append(&mut report.problems);
        tiers[tier].push(objects);
    }
    let objects = tiers.into_iter().flatten().flatten().collect();
    Outcome::new(Some(Manifests { name, objects }), problems).valid()
}

/// The tier of a component: its annotation's, else its type's.
fn tier_of(
    component: &Node,
    component_type: &str,
    path: &FieldPath,
    problems: &mut Vec<Diagnostic>,
) -> Option<usize> {
    if let Some(annotation) = component
        .get("annotations")
        .and_then(|annotations| annotations.get(TIER_ANNOTATION))
    {
        let value = annotation.as_str().unwrap_or_default();
        if let Some(tier) = TIERS.iter().position(|tier| *tier == value) {
            return Some(tier);
        }
        problems.push(
            Diagnostic::error(
                codes::INVALID_PROPERTY,
                format!("`{value}` is not a tier: one of {}", TIERS.join(", ")),
                annotation.span,
            )
            .with_path(path.key("annotations").key(TIER_ANNOTATION)),
        );
        return None;
    }
    Some(match component_type {
        "daemonset" => 0,
        "postgresql" => 1,
        _ => 2,
    })
}

/// Where a component's `type` is written.
fn type_span(node: &Node) -> Span {
    node.get("type").map_or(node.span, |n| n.span)
}

/// The sequence at `path` (none when absent).
fn items<'n>(node: &'n Node, path: &FieldPath) -> &'n [Node] {
    node.at(path.segments())
        .and_then(Node::as_seq)
        .unwrap_or_default()
}

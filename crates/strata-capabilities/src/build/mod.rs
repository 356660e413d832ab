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
mod postgres;
mod probes;
mod props;
mod report;
mod security;
mod sources;
mod spec;
mod traits;
mod workloads;

use std::collections::HashMap;

use serde_json::Value;
use strata_syntax::{Diagnostic, FieldPath, Mapping, Node, Outcome, Span, Value as Tree};

use crate::codes;
use crate::handlers::{Registry, TraitInput};
use crate::package::Rendered;
use report::Report;

/// The annotation that puts a component in a tier.
const TIER_ANNOTATION: &str = "launcher.gokure.dev/tier";

/// The tiers, in the order they are built.
const TIERS: [&str; 3] = ["infra", "services", "apps"];

/// What a build is asked for besides the Application and the profile.
#[derive(Clone)]
pub struct BuildOptions {
    /// The handlers: custom traits are built by theirs
    /// ([`crate::Handler::build`]).
    pub registry: Registry,
    /// The namespace of every namespaced object (`-n`), over the
    /// Application's.
    pub namespace: Option<String>,
    /// Write the fixed output where Kure's is wrong (its bugs, listed in
    /// the manual), instead of Kure's output and a warning.
    pub fix_kure_bugs: bool,
}

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions {
            registry: Registry::builtin(),
            namespace: None,
            fix_kure_bugs: false,
        }
    }
}

/// The objects of a build, in order.
#[derive(Debug, Clone)]
pub struct Manifests {
    /// The Application's name (the file name of `--out-dir`).
    pub name: String,
    /// The objects.
    pub objects: Vec<Value>,
    /// Where each object comes from: its component
    /// (`spec.components[0]`) or trait (`spec.components[0].traits[1]`);
    /// the root for a generated policy.
    pub origins: Vec<FieldPath>,
}

impl Manifests {
    /// The objects as a YAML stream, byte for byte as Kure writes it.
    #[must_use]
    pub fn to_yaml(&self) -> String {
        strata_k8s::to_go_yaml_stream(&self.objects)
    }
}

/// What a component type builds: its objects, and the Service routing
/// traits reach it by.
#[derive(Default)]
pub(crate) struct Built {
    /// The objects, in order.
    pub objects: Vec<Value>,
    /// Its Service, when its type makes one.
    pub service: Option<traits::Service>,
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
    match component_type {
        "postgresql" => Some(postgres::schema()),
        _ => workloads::schema(component_type).or_else(|| sources::schema(component_type)),
    }
}

/// Builds the Application of `rendered` (see the module documentation).
pub fn build(rendered: &Rendered, options: &BuildOptions) -> Outcome<Manifests> {
    match &rendered.application {
        Some(application) => build_application(application, options).valid(),
        None => Outcome::failed(Vec::new()),
    }
}

/// Builds an effective Application (each trait's properties merged with
/// its binding, as [`crate::Dispatch`] gives it): the objects built, and
/// every problem, even when some are errors (the editor shows what the
/// rest builds).
pub(crate) fn build_application(application: &Node, options: &BuildOptions) -> Outcome<Manifests> {
    let metadata = application.get("metadata");
    let text = |key: &str| {
        metadata
            .and_then(|m| m.get(key))
            .and_then(Node::as_str)
            .map(str::to_owned)
    };
    let namespace = options
        .namespace
        .clone()
        .filter(|namespace| !namespace.is_empty())
        .or_else(|| text("namespace"))
        .unwrap_or_else(|| "default".to_owned());
    let mut builder = Builder {
        registry: &options.registry,
        namespace,
        fixes: options.fix_kure_bugs,
        problems: policies(application),
        tiers: Default::default(),
        routes: Vec::new(),
        targets: Vec::new(),
        sources: sources::Sources::new(),
    };
    let components = FieldPath::root().key("spec").key("components");
    for (index, component) in items(application, &components).iter().enumerate() {
        builder.component(component, &components.index(index));
    }
    builder.generated_policies(application.span);
    let Builder {
        tiers,
        mut problems,
        ..
    } = builder;
    let ordered: Vec<(Value, Origin)> = tiers
        .into_iter()
        .flat_map(|tier| {
            tier.components
                .into_iter()
                .chain(tier.traits)
                .chain(tier.policies)
        })
        .collect();
    problems.extend(duplicates(&ordered));
    let (objects, origins) = ordered
        .into_iter()
        .map(|(object, origin)| (object, origin.path))
        .unzip();
    let name = text("name").unwrap_or_default();
    let manifests = Manifests {
        name,
        objects,
        origins,
    };
    Outcome::new(Some(manifests), problems)
}

/// Kure's launcher has no policy handler: every `spec.policies` entry is
/// an error at its type.
fn policies(application: &Node) -> Vec<Diagnostic> {
    let policies = FieldPath::root().key("spec").key("policies");
    items(application, &policies)
        .iter()
        .enumerate()
        .map(|(index, policy)| {
            let kind = policy.get("type").and_then(Node::as_str).unwrap_or_default();
            Diagnostic::error(
                codes::POLICY,
                format!("Kure has no handler for the policy type `{kind}`: `kurel build` fails on any policy"),
                type_span(policy),
            )
            .with_path(policies.index(index).key("type"))
            .with_help("remove the policy; Kure's launcher applies none")
        })
        .collect()
}

/// A build in progress.
struct Builder<'r> {
    /// The handlers, for custom traits.
    registry: &'r Registry,
    /// The namespace of every namespaced object.
    namespace: String,
    /// Whether Kure's bugs are fixed in the output.
    fixes: bool,
    /// What was found so far.
    problems: Vec<Diagnostic>,
    /// The objects, by tier.
    tiers: [Tier; 3],
    /// What the routing traits route, for the generated policies.
    routes: Vec<traits::Route>,
    /// Every component built: its tier, name, type and Service name.
    targets: Vec<(usize, String, String, String)>,
    /// The Flux sources written so far, shared by later components.
    sources: sources::Sources,
}

impl Builder<'_> {
    /// Builds one component, then its traits, in order.
    fn component(&mut self, node: &Node, path: &FieldPath) {
        let component_type = node.get("type").and_then(Node::as_str).unwrap_or_default();
        let Some(tier) = tier_of(node, component_type, path, &mut self.problems) else {
            return;
        };
        let empty = Node::new(Tree::Map(Mapping::default()), type_span(node));
        let properties = node.get("properties").unwrap_or(&empty);
        let component = Component {
            name: node.get("name").and_then(Node::as_str).unwrap_or_default(),
            namespace: &self.namespace,
            properties,
            fixes: self.fixes,
        };
        let mut report = Report::new(properties, path.key("properties"));
        let built = match component_type {
            "postgresql" => Some(postgres::build(&mut report, &component)),
            _ => workloads::build(&mut report, &component, component_type).or_else(|| {
                sources::build(&mut report, &component, component_type, &mut self.sources)
            }),
        };
        let built = built.unwrap_or_else(|| {
            report.error(
                codes::UNSUPPORTED_COMPONENT,
                &FieldPath::root(),
                format!("`{component_type}` is a custom component type: `capabilities build` builds Kure's built-in types"),
            );
            Built::default()
        });
        self.problems.append(&mut report.problems);
        if built.objects.is_empty() {
            // Unusable properties, already reported: the traits would only
            // report that the component has nothing they can act on.
            return;
        }
        let owner = traits::Owner {
            component: &component,
            component_type,
            service: built.service.as_ref(),
        };
        let mut objects = built.objects.clone();
        let mut trait_objects = Vec::new();
        for (position, written) in node.items("traits").iter().enumerate() {
            let trait_path = path.key("traits").index(position);
            let trait_type = written
                .get("type")
                .and_then(Node::as_str)
                .unwrap_or_default();
            let empty = Node::new(Tree::Map(Mapping::default()), type_span(written));
            let trait_properties = written.get("properties").unwrap_or(&empty);
            let mut report = Report::new(trait_properties, trait_path.key("properties"));
            let emitted = traits::apply(
                &mut report,
                &owner,
                trait_type,
                trait_properties,
                &mut self.routes,
                &mut objects,
            )
            .unwrap_or_else(|| {
                Self::custom_trait(
                    self.registry,
                    &mut report,
                    &owner,
                    trait_type,
                    trait_properties,
                )
            });
            self.problems.append(&mut report.problems);
            let origin = Origin::at(written, &trait_path);
            trait_objects.extend(emitted.into_iter().map(|object| (object, origin.clone())));
        }
        let origin = Origin::at(node, path);
        let service = built
            .service
            .map_or_else(|| component.name.to_owned(), |service| service.name);
        self.targets.push((
            tier,
            component.name.to_owned(),
            component_type.to_owned(),
            service,
        ));
        let tier = &mut self.tiers[tier];
        tier.components
            .extend(objects.into_iter().map(|object| (object, origin.clone())));
        tier.traits.extend(trait_objects);
    }

    /// A custom trait, built by its registered handler.
    fn custom_trait(
        registry: &Registry,
        report: &mut Report<'_>,
        owner: &traits::Owner<'_>,
        trait_type: &str,
        properties: &Node,
    ) -> Vec<Value> {
        let Some(handler) = registry.get(trait_type) else {
            report.error(
                codes::UNSUPPORTED_TRAIT,
                &FieldPath::root(),
                format!("no handler is registered to build `{trait_type}` traits"),
            );
            return Vec::new();
        };
        let properties = properties.to_json_value();
        let input = TraitInput {
            component: owner.component.name,
            component_type: owner.component_type,
            namespace: owner.component.namespace,
            properties: &properties,
        };
        match handler.build(&input) {
            Ok(objects) if objects.is_empty() => {
                report.warning(
                    codes::NO_EFFECT,
                    &FieldPath::root(),
                    format!("the custom trait `{trait_type}` builds no objects: its handler passes its rendering through only"),
                );
                objects
            }
            Ok(objects) => objects,
            Err(why) => {
                report.error(
                    codes::UNSUPPORTED_TRAIT,
                    &FieldPath::root(),
                    format!("the handler of `{trait_type}` cannot build it: {why}"),
                );
                Vec::new()
            }
        }
    }

    /// The generated policies the routes ask for, each in its target's tier.
    fn generated_policies(&mut self, at: Span) {
        let targets: Vec<traits::netpol::Target<'_>> = self
            .targets
            .iter()
            .map(
                |(_, name, component_type, service)| traits::netpol::Target {
                    name,
                    component_type,
                    service,
                    namespace: &self.namespace,
                },
            )
            .collect();
        let generated = traits::netpol::synthesize(&self.routes, &targets);
        for policy in generated {
            let tier = policy
                .component
                .as_ref()
                .and_then(|name| self.targets.iter().find(|(_, target, _, _)| target == name))
                .map_or(TIERS.len() - 1, |(tier, _, _, _)| *tier);
            let origin = Origin {
                span: at,
                path: FieldPath::root(),
            };
            self.tiers[tier].policies.push((policy.object, origin));
        }
    }
}

/// The objects of one tier: its components', its traits', the generated
/// policies, each with where it comes from.
#[derive(Default)]
struct Tier {
    components: Vec<(Value, Origin)>,
    traits: Vec<(Value, Origin)>,
    policies: Vec<(Value, Origin)>,
}

/// Where an object comes from: a component or a trait.
#[derive(Clone)]
struct Origin {
    span: Span,
    path: FieldPath,
}

impl Origin {
    /// The component or trait `node` (its `type`), at `path`.
    fn at(node: &Node, path: &FieldPath) -> Origin {
        Origin {
            span: type_span(node),
            path: path.clone(),
        }
    }
}

/// Two objects of one kind, namespace and name: Kure writes both, and the
/// second replaces the first when applied (bug B6); here it is an error
/// naming both origins.
fn duplicates(objects: &[(Value, Origin)]) -> Vec<Diagnostic> {
    let mut seen: HashMap<(String, String, String, String), &Origin> = HashMap::new();
    let mut problems = Vec::new();
    for (object, origin) in objects {
        let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
        let group = text(&object["apiVersion"]);
        let group = group
            .split_once('/')
            .map_or(String::new(), |(group, _)| group.to_owned());
        let key = (
            group,
            text(&object["kind"]),
            text(&object["metadata"]["namespace"]),
            text(&object["metadata"]["name"]),
        );
        if let Some(first) = seen.get(&key) {
            problems.push(
                Diagnostic::error(
                    codes::DUPLICATE_OBJECT,
                    format!(
                        "two objects are the {} `{}`: `{}` makes it, and `{}` already did; applied, one would replace the other",
                        key.1, key.3, origin.path, first.path
                    ),
                    origin.span,
                )
                .with_secondary(first.span, "the first one")
                .with_path(origin.path.clone()),
            );
        } else {
            seen.insert(key, origin);
        }
    }
    problems
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

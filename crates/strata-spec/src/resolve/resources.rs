//! Resources: `each` expanded into `<name>_<index>` instances, `condition`
//! deciding or marking, every field that can be known substituted.

use indexmap::IndexMap;
use strata_subst::{Env, Failure, Value};
use strata_syntax::{Diagnostic, FieldPath, Segment};

use super::trees::{EnvRef, condition_value, resolve_tree, tree_error};
use super::{ResolvedBlueprint, ResolvedResource, Resolver};
use crate::environment::{Environment, Instance};
use crate::model::Blueprint;
use crate::secrets::Secrets;

impl Resolver<'_> {
    /// Every resource: `each` expanded, conditions decided; on every core
    /// (a resource reads others through `env`'s shared memo), each
    /// resource's instances and problems gathered in the blueprint's order.
    pub(super) fn resources(
        &self,
        blueprint: &Blueprint,
        env: &Environment<'_>,
        secrets: &Secrets,
        resolved: &mut ResolvedBlueprint,
        problems: &mut Vec<Diagnostic>,
    ) {
        let written: Vec<_> = blueprint.resources.iter().collect();
        let done = strata_dialect::map_ordered(&written, |(name, resource)| {
            let mut instances = Vec::new();
            let mut found = Vec::new();
            self.instances(name, resource, env, secrets, &mut instances, &mut found);
            (instances, found)
        });
        for (instances, found) in done {
            resolved.resources.extend(instances);
            problems.extend(found);
        }
    }

    /// The instances of the resource `name` (one, or one per `each` item),
    /// but those whose condition is false.
    fn instances(
        &self,
        name: &str,
        resource: &crate::model::Resource,
        env: &Environment<'_>,
        secrets: &Secrets,
        instances: &mut Vec<(String, ResolvedResource)>,
        problems: &mut Vec<Diagnostic>,
    ) {
        if self.steps.exhausted() {
            return;
        }
        let path = FieldPath::root().key("resources").key(name);
        let items = match env.each_items(resource) {
            None => vec![None],
            Some(Ok(items)) => items.into_iter().enumerate().map(Some).collect(),
            Some(Err(Failure::Pending(what))) => {
                let unexpanded = Instance::pending(env);
                let mut pending =
                    self.resource(name, resource, &path, &unexpanded, None, secrets, problems);
                pending.pending = Some(format!("each: {what}"));
                instances.push((name.to_owned(), pending));
                return;
            }
            Some(Err(Failure::Error(error))) => {
                if let Some(each) = &resource.each {
                    problems.push(tree_error(&error, each, self.db, &path.key("each")));
                }
                return;
            }
        };
        for item in items {
            if self.steps.exhausted() {
                return;
            }
            let (instance_name, env): (String, Box<dyn Env + '_>) = match &item {
                Some((index, elem)) => (
                    format!("{name}_{index}"),
                    Box::new(
                        Instance::new(env, elem.clone(), *index)
                            .with_secret_elem(secrets.each.contains(name)),
                    ),
                ),
                None => (name.to_owned(), Box::new(EnvRef(env))),
            };
            let pending = match &resource.condition {
                None => None,
                Some(condition) => match condition_value(condition, env.as_ref()) {
                    Ok(true) => None,
                    Ok(false) => continue,
                    Err((Failure::Pending(what), _)) => Some(format!("condition: {what}")),
                    Err((Failure::Error(error), leaf)) => {
                        let at = path.key("condition");
                        problems.push(tree_error(&error, leaf, self.db, &at));
                        continue;
                    }
                },
            };
            let index = item.as_ref().map(|(index, _)| *index);
            let mut resolved_resource = self.resource(
                name,
                resource,
                &path,
                env.as_ref(),
                index,
                secrets,
                problems,
            );
            resolved_resource.pending = pending;
            instances.push((instance_name, resolved_resource));
        }
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one resource's context, passed once"
    )]
    pub(super) fn resource(
        &self,
        name: &str,
        resource: &crate::model::Resource,
        path: &FieldPath,
        env: &dyn Env,
        index: Option<usize>,
        secrets: &Secrets,
        problems: &mut Vec<Diagnostic>,
    ) -> ResolvedResource {
        let mut metadata = IndexMap::new();
        let metadata_path = path.key("metadata");
        if let Some(display) = &resource.metadata.display_name {
            metadata.insert(
                "displayName".to_owned(),
                resolve_tree(
                    display,
                    env,
                    self.db,
                    &metadata_path.key("displayName"),
                    problems,
                ),
            );
        }
        if !resource.metadata.labels.is_empty() {
            let labels = resource
                .metadata
                .labels
                .iter()
                .map(|(key, label)| (key.clone(), Value::String(label.value.clone())))
                .collect();
            metadata.insert("labels".to_owned(), Value::Object(labels));
        }
        if !resource.metadata.annotations.is_empty() {
            let annotations = resource
                .metadata
                .annotations
                .iter()
                .map(|(key, (_, tree))| {
                    let path = metadata_path.key("annotations").key(key);
                    (
                        key.clone(),
                        resolve_tree(tree, env, self.db, &path, problems),
                    )
                })
                .collect();
            metadata.insert("annotations".to_owned(), Value::Object(annotations));
        }
        if let Some(custom) = &resource.metadata.custom {
            metadata.insert(
                "custom".to_owned(),
                resolve_tree(custom, env, self.db, &metadata_path.key("custom"), problems),
            );
        }
        let spec_path = path.key("spec");
        let spec = resolve_tree(&resource.spec, env, self.db, &spec_path, problems);
        // The secret fields below `spec` and `metadata`, from there.
        let below = |section: &str| -> Vec<FieldPath> {
            secrets
                .fields
                .get(name)
                .into_iter()
                .flatten()
                .filter_map(|field| match field.segments().split_first() {
                    Some((Segment::Key(key), rest)) if key == section => {
                        let mut path = FieldPath::root();
                        for segment in rest {
                            path.push(segment.clone());
                        }
                        Some(path)
                    }
                    _ => None,
                })
                .collect()
        };
        let secret_fields = below("spec");
        let secret_metadata = below("metadata");
        ResolvedResource {
            template: name.to_owned(),
            index,
            resource_type: resource.resource_type.value.clone(),
            metadata: Value::Object(metadata),
            link_selector: resource
                .link_selector
                .iter()
                .map(|(key, value)| (key.clone(), value.value.clone()))
                .collect(),
            spec,
            pending: None,
            secret_fields,
            secret_metadata,
            spec_span: resource.spec.span(),
        }
    }
}

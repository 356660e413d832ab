//! Data sources: the fields a `--datasources` file gives (by the export's
//! key, typed by the export), else those a
//! [`DatasourceProvider`](super::DatasourceProvider) answers, else known
//! after deployment.

use indexmap::IndexMap;
use strata_subst::Value;
use strata_syntax::{Diagnostic, FieldPath, Node};

use super::Resolver;
use super::trees::{resolve_tree, value_fits};
use crate::codes;
use crate::environment::{Environment, as_declared};
use crate::model::Blueprint;
use crate::secrets::Secrets;
use crate::variables::Resolved;

impl Resolver<'_> {
    /// The data sources the `--datasources` values left out, from the
    /// request's providers, in the order written (each sees those before).
    pub(super) fn fetch_datasources(
        &self,
        blueprint: &Blueprint,
        variables: &IndexMap<String, Resolved>,
        secrets: &Secrets,
        cwd: &str,
        found: &mut IndexMap<String, IndexMap<String, Value>>,
        problems: &mut Vec<Diagnostic>,
    ) {
        let plain: IndexMap<String, Value> = variables
            .iter()
            .map(|(name, resolved)| (name.clone(), resolved.value.clone()))
            .collect();
        for (name, datasource) in &blueprint.datasources {
            let (Some(filter), false) = (&datasource.filter, found.contains_key(name)) else {
                continue;
            };
            let Some(provider) = self
                .request
                .datasource_providers
                .iter()
                .find(|provider| provider.handles(&datasource.datasource_type.value))
            else {
                continue;
            };
            let env = Environment::new(
                Some(blueprint),
                plain.clone(),
                cwd.to_owned(),
                self.request.now_unix,
                self.steps,
            )
            .with_datasources(found.clone())
            .with_secrets(secrets.clone());
            let path = FieldPath::root().key("datasources").key(name);
            let search = resolve_tree(
                &filter.search,
                &env,
                self.db,
                &path.key("filter").key("search"),
                problems,
            );
            if search.unknown().is_some() {
                continue;
            }
            let operator = serde_json::to_value(filter.operator.value)
                .ok()
                .and_then(|json| json.as_str().map(str::to_owned))
                .unwrap_or_default();
            match provider.fetch(
                &datasource.datasource_type.value,
                &filter.field.value,
                &operator,
                &search,
            ) {
                Ok(fields) => {
                    let mut values = IndexMap::new();
                    for (key, export) in &datasource.exports {
                        let field = export
                            .alias_for
                            .as_ref()
                            .map_or(key.as_str(), |alias| alias.value.as_str());
                        match fields.get(field) {
                            Some(value) if value_fits(export.field_type.value, value) => {
                                values.insert(key.clone(), as_declared(value.clone(), export.field_type.value));
                            }
                            Some(value) => problems.push(
                                Diagnostic::error(
                                    codes::DATASOURCE_INPUT,
                                    format!("the provider gives `{name}.{field}` as {}, the export's type is {}", value.types(), export.field_type.value),
                                    export.name_span,
                                )
                                .with_path(path.key("exports").key(key)),
                            ),
                            None => problems.push(
                                Diagnostic::error(
                                    codes::DATASOURCE_INPUT,
                                    format!("the provider's answer for `{name}` has no field `{field}`"),
                                    export.name_span,
                                )
                                .with_path(path.key("exports").key(key)),
                            ),
                        }
                    }
                    found.insert(name.clone(), values);
                }
                Err(message) => problems.push(
                    Diagnostic::error(
                        codes::DATASOURCE_INPUT,
                        format!(
                            "the provider of `{}` finds nothing for `{name}`: {message}",
                            datasource.datasource_type.value
                        ),
                        datasource.name_span,
                    )
                    .with_path(path.key("filter")),
                ),
            }
        }
    }
}

/// The `--datasources` document's fields, checked against the exports.
pub(super) fn datasource_values(
    blueprint: &Blueprint,
    document: &Node,
    problems: &mut Vec<Diagnostic>,
) -> IndexMap<String, IndexMap<String, Value>> {
    let mut found = IndexMap::new();
    let Some(map) = document.as_map() else {
        problems.push(Diagnostic::error(
            codes::DATASOURCE_INPUT,
            format!(
                "a data sources file maps data source names to their fields, not {}",
                document.value.kind_name()
            ),
            document.span,
        ));
        return found;
    };
    for (name, entry) in map {
        let Some(datasource) = blueprint.datasources.get(name) else {
            let mut problem = Diagnostic::error(
                codes::DATASOURCE_INPUT,
                format!("the blueprint has no data source `{name}`"),
                entry.key_span,
            );
            if let Some(near) =
                strata_syntax::did_you_mean(name, blueprint.datasources.keys().map(String::as_str))
            {
                problem = problem.with_help(format!("did you mean `{near}`?"));
            }
            problems.push(problem);
            continue;
        };
        let Some(fields) = entry.value.as_map() else {
            problems.push(Diagnostic::error(
                codes::DATASOURCE_INPUT,
                format!("the fields of `{name}` are a mapping of exported field to value"),
                entry.value.span,
            ));
            continue;
        };
        let mut values = IndexMap::new();
        for (field, value) in fields {
            let Some(export) = datasource.exports.get(field) else {
                let mut problem = Diagnostic::error(
                    codes::DATASOURCE_INPUT,
                    format!("`{name}` exports no field `{field}`"),
                    value.key_span,
                );
                if let Some((key, _)) = datasource.exports.iter().find(|(_, export)| {
                    export
                        .alias_for
                        .as_ref()
                        .is_some_and(|alias| &alias.value == field)
                }) {
                    problem = problem.with_help(format!(
                        "`{field}` is the provider's name of the export `{key}`: give it as `{key}`"
                    ));
                }
                problems.push(problem);
                continue;
            };
            let typed = Value::from_node(&value.value);
            if !value_fits(export.field_type.value, &typed) {
                problems.push(
                    Diagnostic::error(
                        codes::DATASOURCE_INPUT,
                        format!(
                            "`{name}.{field}` is {}, the export's type is {}",
                            typed.types(),
                            export.field_type.value
                        ),
                        value.value.span,
                    )
                    .with_secondary(export.field_type.span, "the export's type"),
                );
                continue;
            }
            values.insert(field.clone(), as_declared(typed, export.field_type.value));
        }
        found.insert(name.clone(), values);
    }
    found
}

//! Data sources: filters (fields, operators, searches) and exports.

use strata_subst::Types;
use strata_syntax::{Diagnostic, FieldPath};

use super::{Checker, Element, compatible, site};
use crate::codes;
use crate::model::Operator;

impl Checker<'_> {
    pub(super) fn datasources(&mut self) {
        for (name, datasource) in &self.blueprint.datasources {
            let owner = Element::Datasource(name.clone());
            let path = FieldPath::root().key("datasources").key(name);
            self.metadata(&datasource.metadata, &path.key("metadata"), site(&owner));
            if let Some(description) = &datasource.description {
                self.tree(description, &path.key("description"), site(&owner));
            }
            let Some(filter) = &datasource.filter else {
                continue;
            };
            let search_path = path.key("filter").key("search");
            let search = self.tree(&filter.search, &search_path, site(&owner));
            let field_type = datasource
                .exports
                .iter()
                .find(|(key, export)| {
                    export
                        .alias_for
                        .as_ref()
                        .map_or(key.as_str(), |alias| alias.value.as_str())
                        == filter.field.value
                })
                .map(|(_, export)| export.field_type.value);
            if let Some(message) = search_problem(filter.operator.value, search, field_type) {
                self.problems.push(
                    Diagnostic::error(codes::FILTER_SEARCH, message, filter.search.span())
                        .with_secondary(filter.operator.span, "the operator")
                        .with_path(search_path),
                );
            }
        }
    }
}

/// Why a filter's search value does not fit its operator.
pub(super) fn search_problem(
    operator: Operator,
    search: Option<Types>,
    field: Option<Types>,
) -> Option<String> {
    let search = search?;
    let (wanted, why) = match operator {
        Operator::In | Operator::NotIn => (
            Types::ARRAY,
            "`in` and `not in` compare the field with a list of values, an array".to_owned(),
        ),
        Operator::HasKey | Operator::NotHasKey => (
            Types::STRING,
            "`has key` and `not has key` look for a key, a string".to_owned(),
        ),
        Operator::StartsWith
        | Operator::NotStartsWith
        | Operator::EndsWith
        | Operator::NotEndsWith => (
            Types::STRING,
            "`starts with` and `ends with` compare the field with a string".to_owned(),
        ),
        Operator::Contains | Operator::NotContains => (
            Types::SCALAR,
            "`contains` and `not contains` look for one value, a string, number or boolean"
                .to_owned(),
        ),
        Operator::Equal | Operator::NotEqual => match field {
            Some(field) if field == Types::ARRAY => (
                Types::ARRAY,
                "the field is an array: `=` and `!=` compare it with an array".to_owned(),
            ),
            Some(field) if field != Types::ANY => (
                field,
                format!("the field is {field}: `=` and `!=` compare it with a value of its type"),
            ),
            _ => return None,
        },
    };
    (!compatible(wanted, search)).then(|| format!("the search value is {search}, but {why}"))
}

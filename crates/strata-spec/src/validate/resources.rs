//! Resources: `each`, `condition`, metadata, link selectors and specs.

use strata_subst::Types;
use strata_syntax::{Diagnostic, FieldPath};

use super::{Checker, EarlierChecks, Element, ResourceCheck, Site};
use crate::codes;
use crate::model::{Condition, Resource};

impl Checker<'_> {
    /// Checks every resource, on every core (each is checked alone), the
    /// references and problems gathered in the resources' order; a
    /// resource whose earlier check holds gives what it gave then.
    pub(super) fn resources(&mut self, earlier: Option<&EarlierChecks<'_>>) -> Vec<ResourceCheck> {
        let (blueprint, defined, db) = (self.blueprint, self.defined, self.db);
        let resources: Vec<_> = blueprint.resources.iter().enumerate().collect();
        let checked = strata_dialect::map_ordered(&resources, |(index, (name, resource))| {
            if let Some(earlier) = earlier
                && let Some(Some(by)) = earlier.holds.get(*index)
                && let Some(check) = earlier.resources.get(*index)
                && let Some(edges) = earlier.references.edges.get(check.edges.clone())
            {
                let edges = edges.iter().map(|edge| edge.moved(*by)).collect();
                let mut problems = check.problems.clone();
                for problem in &mut problems {
                    problem.move_by(*by);
                }
                return (edges, problems);
            }
            let mut checker = Checker::new(blueprint, defined, db);
            checker.resource(name, resource);
            (checker.edges, checker.problems)
        });
        checked
            .into_iter()
            .map(|(edges, problems)| {
                let start = self.edges.len();
                self.edges.extend(edges);
                self.problems.extend(problems.iter().cloned());
                ResourceCheck {
                    edges: start..self.edges.len(),
                    problems,
                }
            })
            .collect()
    }

    fn resource(&mut self, name: &str, resource: &Resource) {
        let owner = Element::Resource(name.to_owned());
        let path = FieldPath::root().key("resources").key(name);
        let each_resource = resource.each.is_some().then_some(resource);
        let inside = Site {
            owner: &owner,
            each_resource,
            in_each: false,
        };
        if let Some(each) = &resource.each {
            let each_site = Site {
                owner: &owner,
                each_resource: None,
                in_each: true,
            };
            let types = self.tree(each, &path.key("each"), each_site);
            if let Some(types) = types
                && !types.meets(Types::ARRAY)
            {
                let mut problem = Diagnostic::error(
                    codes::EACH_TYPE,
                    format!("`each` must give an array, it gives {types}"),
                    each.span(),
                )
                .with_path(path.key("each"));
                if types.meets(Types::OBJECT) {
                    problem = problem.with_help(
                        "to iterate over a mapping, use `${vals(...)}` or `${keys(...)}`",
                    );
                } else if types.meets(Types::STRING) {
                    problem = problem.with_help(
                            "to iterate over a delimited string, use `${split(..., \",\")}`; over a JSON array, `${jsondecode(...)}`",
                        );
                }
                self.problems.push(problem);
            }
        }
        if let Some(description) = &resource.description {
            self.tree(description, &path.key("description"), inside);
        }
        self.metadata(&resource.metadata, &path.key("metadata"), inside);
        if let Some(condition) = &resource.condition {
            self.condition(condition, &path.key("condition"), inside);
        }
        self.tree(&resource.spec, &path.key("spec"), inside);
    }

    pub(super) fn condition(&mut self, condition: &Condition, path: &FieldPath, site: Site<'_>) {
        match condition {
            Condition::Leaf(tree) => {
                let types = self.tree(tree, path, site);
                if let Some(types) = types
                    && !types.meets(Types::BOOLEAN)
                {
                    self.problems.push(
                        Diagnostic::error(
                            codes::CONDITION,
                            format!("a condition must be a boolean, this is {types}"),
                            tree.span(),
                        )
                        .with_path(path.clone()),
                    );
                }
            }
            Condition::And(items, _) | Condition::Or(items, _) => {
                let key = if matches!(condition, Condition::And(..)) {
                    "and"
                } else {
                    "or"
                };
                for (index, item) in items.iter().enumerate() {
                    self.condition(item, &path.key(key).index(index), site);
                }
            }
            Condition::Not(inner, _) => self.condition(inner, &path.key("not"), site),
        }
    }
}

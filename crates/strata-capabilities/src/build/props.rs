//! Reading a trait's properties (or a loosely typed part of a
//! component's) off the tree, as Kure's handlers read them: typed getters
//! that report a value of the wrong type as an error at its node (where
//! Kure drops it silently), and a check for keys the handler never reads
//! (a warning, with a did-you-mean).

use strata_syntax::{Diagnostic, FieldPath, Node, Value};

use super::codes;
use super::report::Report;

/// A mapping of properties and where it is (relative to the report's
/// base).
#[derive(Clone)]
pub(crate) struct Props<'a> {
    /// The mapping (or whatever was written there).
    pub node: &'a Node,
    /// Its path relative to the report's base.
    pub path: FieldPath,
}

impl<'a> Props<'a> {
    /// The properties at the report's base.
    pub(crate) fn root(node: &'a Node) -> Props<'a> {
        Props {
            node,
            path: FieldPath::root(),
        }
    }

    /// The value of `key`, unless absent or `null`.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Node> {
        self.node
            .get(key)
            .filter(|value| !matches!(value.value, Value::Null))
    }

    /// Whether `key` is written (and not `null`).
    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The path of `key`.
    pub(crate) fn at(&self, key: &str) -> FieldPath {
        self.path.key(key)
    }

    /// The mapping under `key`; another type is an error.
    pub(crate) fn object(&self, report: &mut Report<'_>, key: &str) -> Option<Props<'a>> {
        let node = self.get(key)?;
        if node.as_map().is_none() {
            wrong_type(report, &self.at(key), node, "a mapping");
            return None;
        }
        Some(Props {
            node,
            path: self.at(key),
        })
    }

    /// The text of `key`; another type is an error.
    pub(crate) fn string(&self, report: &mut Report<'_>, key: &str) -> Option<&'a str> {
        let node = self.get(key)?;
        let text = node.as_str();
        if text.is_none() {
            wrong_type(report, &self.at(key), node, "a string");
        }
        text
    }

    /// The text of `key` when it is not empty.
    pub(crate) fn text(&self, report: &mut Report<'_>, key: &str) -> Option<&'a str> {
        self.string(report, key).filter(|text| !text.is_empty())
    }

    /// The whole number of `key` (a float without a fraction counts);
    /// another type is an error.
    pub(crate) fn integer(&self, report: &mut Report<'_>, key: &str) -> Option<i64> {
        let node = self.get(key)?;
        let number = whole(node);
        if number.is_none() {
            wrong_type(report, &self.at(key), node, "a whole number");
        }
        number
    }

    /// The boolean of `key`; another type is an error.
    pub(crate) fn boolean(&self, report: &mut Report<'_>, key: &str) -> Option<bool> {
        let node = self.get(key)?;
        if let Value::Bool(value) = node.value {
            return Some(value);
        }
        wrong_type(report, &self.at(key), node, "`true` or `false`");
        None
    }

    /// The items of the list `key`; another type is an error.
    pub(crate) fn list(&self, report: &mut Report<'_>, key: &str) -> &'a [Node] {
        let Some(node) = self.get(key) else {
            return &[];
        };
        node.as_seq().unwrap_or_else(|| {
            wrong_type(report, &self.at(key), node, "a list");
            &[]
        })
    }

    /// The mappings of the list `key`; an item of another type is an error.
    pub(crate) fn objects(&self, report: &mut Report<'_>, key: &str) -> Vec<Props<'a>> {
        let path = self.at(key);
        self.list(report, key)
            .iter()
            .enumerate()
            .filter_map(|(index, node)| {
                if node.as_map().is_none() {
                    wrong_type(report, &path.index(index), node, "a mapping");
                    return None;
                }
                Some(Props {
                    node,
                    path: path.index(index),
                })
            })
            .collect()
    }

    /// The texts of the list `key`; an item of another type is an error.
    pub(crate) fn strings(&self, report: &mut Report<'_>, key: &str) -> Vec<&'a str> {
        let path = self.at(key);
        self.list(report, key)
            .iter()
            .enumerate()
            .filter_map(|(index, node)| {
                let text = node.as_str();
                if text.is_none() {
                    wrong_type(report, &path.index(index), node, "a string");
                }
                text
            })
            .collect()
    }

    /// The entries of the mapping `key`, each value a scalar written as
    /// Go's `%v` writes it (`8080`, `true`); a list or mapping value is an
    /// error.
    pub(crate) fn text_map(&self, report: &mut Report<'_>, key: &str) -> Vec<(String, String)> {
        let Some(map) = self.object(report, key) else {
            return Vec::new();
        };
        let entries = map.node.as_map().map(|m| m.iter()).into_iter().flatten();
        entries
            .filter_map(|(name, entry)| {
                let text = go_text(&entry.value.value);
                if text.is_none() {
                    wrong_type(report, &map.at(name), &entry.value, "a scalar");
                }
                text.map(|text| (name.clone(), text))
            })
            .collect()
    }

    /// Warns about every written key not in `known`: Kure's handler would
    /// ignore it, and so does the build.
    pub(crate) fn unknown(&self, report: &mut Report<'_>, known: &[&str]) {
        let Some(map) = self.node.as_map() else {
            return;
        };
        for (key, entry) in map {
            if known.contains(&key.as_str()) {
                continue;
            }
            let diagnostic = Diagnostic::warning(
                strata_schema::codes::UNKNOWN_KEY,
                format!("`{key}` is not a property this takes; it is ignored"),
                entry.key_span,
            )
            .with_suggestion(key, known.iter().copied());
            report.push(diagnostic, &self.at(key));
        }
    }
}

/// A whole number: an integer, or a float without a fraction.
pub(crate) fn whole(node: &Node) -> Option<i64> {
    match node.value {
        Value::Int(value) => Some(value),
        #[expect(
            clippy::cast_possible_truncation,
            reason = "checked to be whole and within range"
        )]
        Value::Float(value) if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 => {
            Some(value as i64)
        }
        _ => None,
    }
}

/// A scalar as Go's `%v` writes it; `None` for a list or a mapping.
pub(crate) fn go_text(value: &Value) -> Option<String> {
    Some(match value {
        Value::String(text) => text.clone(),
        Value::Int(number) => number.to_string(),
        Value::Float(number) => strata_syntax::go_float(*number),
        Value::Bool(flag) => flag.to_string(),
        Value::Null => "<nil>".to_owned(),
        Value::Seq(_) | Value::Map(_) => return None,
    })
}

/// Reports `node` at `path` as not being `wanted`.
pub(crate) fn wrong_type(report: &mut Report<'_>, path: &FieldPath, node: &Node, wanted: &str) {
    report.error(
        codes::INVALID_PROPERTY,
        path,
        format!("expected {wanted}, found {}", node.value.kind_name()),
    );
}

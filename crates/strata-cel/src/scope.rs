//! The variables an expression sees.

use std::collections::{BTreeMap, HashMap};

use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString,
};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use strata_syntax::{Mapping, Node, Value};

/// Named variables for expressions, given as tree nodes (so a scope can be
/// read from a YAML file) and converted to CEL values once, when inserted:
/// `null`, booleans, integers, floats (`double`), strings, sequences
/// (`list`) and mappings (`map` with string keys). Tags are ignored.
///
/// Evaluating borrows the values: a scope is built once per request and
/// read by every expression of the tree.
#[derive(Debug, Default)]
pub struct Scope {
    variables: Variables,
}

/// The converted values, resolved by name.
#[derive(Debug, Default)]
pub(crate) struct Variables(BTreeMap<String, Box<dyn Val>>);

impl VariableResolver for Variables {
    fn resolve<'b>(&'b self, name: &str) -> Option<CowVal<'b, 'b>> {
        self.0
            .get(name)
            .map(|value| CowVal::Borrowed(value.as_ref()))
    }
}

impl Scope {
    /// An empty scope.
    #[must_use]
    pub fn new() -> Scope {
        Scope::default()
    }

    /// A scope with one variable for each key of `mapping`.
    #[must_use]
    pub fn from_mapping(mapping: &Mapping) -> Scope {
        let mut scope = Scope::new();
        for (name, entry) in mapping {
            scope.insert(name.clone(), &entry.value);
        }
        scope
    }

    /// Sets the variable `name` to `value`, replacing any previous value.
    pub fn insert(&mut self, name: impl Into<String>, value: &Node) {
        self.variables.0.insert(name.into(), to_val(value));
    }

    /// The scope with the variable `name` set to `value`.
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, value: &Node) -> Scope {
        self.insert(name, value);
        self
    }

    /// The variable names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.variables.0.keys().map(String::as_str)
    }

    pub(crate) fn resolver(&self) -> &Variables {
        &self.variables
    }
}

/// A node as a CEL value. Recurses as deeply as the tree, which the loader
/// bounds.
fn to_val(node: &Node) -> Box<dyn Val> {
    match &node.value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Int(i) => Box::new(CelInt::from(*i)),
        Value::Float(f) => Box::new(CelDouble::from(*f)),
        Value::String(s) => Box::new(CelString::from(s.clone())),
        Value::Seq(items) => Box::new(CelList::from(items.iter().map(to_val).collect::<Vec<_>>())),
        Value::Map(map) => Box::new(CelMap::from(
            map.iter()
                .map(|(key, entry)| (CelMapKey::from(key.clone()), to_val(&entry.value)))
                .collect::<HashMap<_, _>>(),
        )),
    }
}

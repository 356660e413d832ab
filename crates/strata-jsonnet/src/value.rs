//! Between Jsonnet values and the spanned tree.
//!
//! - [`to_node`] forces a value completely (every field, every element) into
//!   a [`Node`]: object fields in Jsonnet's manifest order (sorted by name,
//!   hidden fields left out), whole numbers as integers, other numbers as
//!   floats. A function anywhere is an error, as in `jsonnet` manifesting.
//!   Nesting deeper than the limit is an error, not a stack overflow, and so
//!   is an output of more than [`MAX_VALUES`] values: a lazy Jsonnet array
//!   (`std.range(0, 1e12)`) costs nothing until it is forced, so forcing is
//!   where memory is bounded.
//! - [`from_node`] builds the value a JSON or YAML document stands for (tags
//!   dropped), for `parseJson`/`parseYaml`, top-level arguments and the
//!   post-processor's `object`.

use jrsonnet_evaluator::error::ErrorKind;
use jrsonnet_evaluator::val::{ArrValue, NumValue, StrValue};
use jrsonnet_evaluator::{ObjValueBuilder, Result, Val, in_description_frame};
use strata_syntax::{Entry, MapHasher, Mapping, Node, Span, Value};

/// The largest integer a Jsonnet number holds exactly (2^53).
const EXACT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// The most values (scalars and collections) one conversion produces.
pub const MAX_VALUES: usize = 4_000_000;

/// Forces `val` into a tree whose every node has `span`.
pub fn to_node(val: &Val, span: Span, max_depth: usize) -> Result<Node> {
    let mut budget = MAX_VALUES;
    convert(val, span, max_depth, &mut budget)
}

fn too_many() -> jrsonnet_evaluator::Error {
    ErrorKind::RuntimeError(format!("the output has more than {MAX_VALUES} values").into()).into()
}

/// [`to_node`] with `budget` values left to produce.
fn convert(val: &Val, span: Span, max_depth: usize, budget: &mut usize) -> Result<Node> {
    *budget = budget.checked_sub(1).ok_or_else(too_many)?;
    let value = match val {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Str(s) => Value::String(text_of(s)),
        Val::Num(n) => number(n.get()),
        Val::Arr(items) => {
            let depth = deeper(max_depth)?;
            if items.len() > *budget {
                return Err(too_many());
            }
            let mut nodes = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let node = in_description_frame(
                    || format!("array index [{index}]"),
                    || convert(&item?, span, depth, budget),
                )?;
                nodes.push(node);
            }
            Value::Seq(nodes)
        }
        Val::Obj(object) => {
            let depth = deeper(max_depth)?;
            // The visible fields, listed once: jrsonnet's `len` and `iter`
            // would each walk the object and its supers for them.
            let fields = object.fields();
            if fields.len() > *budget {
                return Err(too_many());
            }
            let mut mapping = Mapping::with_capacity_and_hasher(fields.len(), MapHasher::default());
            for field in fields {
                let node = in_description_frame(
                    || format!("field <{field}>"),
                    || {
                        let item = object.get(field.clone())?.ok_or_else(|| {
                            ErrorKind::RuntimeError(
                                format!(
                                    "the object lists the field <{field}> but has no value for it"
                                )
                                .into(),
                            )
                        })?;
                        convert(&item, span, depth, budget)
                    },
                )?;
                mapping.insert(
                    field.as_str().to_owned(),
                    Entry {
                        key_span: span,
                        value: node,
                    },
                );
            }
            Value::Map(mapping)
        }
        Val::Func(_) => {
            return Err(ErrorKind::RuntimeError("a function cannot be output".into()).into());
        }
    };
    Ok(Node::new(value, span))
}

/// The text of `value`, copied: a flat string (nearly all are) at once,
/// where `to_string` would pass it through the formatter.
fn text_of(value: &StrValue) -> String {
    match value {
        StrValue::Flat(text) => text.as_str().to_owned(),
        StrValue::Tree(_) => value.to_string(),
    }
}

/// One level less of the nesting allowed, or the error of having none left.
fn deeper(max_depth: usize) -> Result<usize> {
    max_depth
        .checked_sub(1)
        .ok_or_else(|| ErrorKind::RuntimeError("the output is nested too deeply".into()).into())
}

/// A whole number within the exact range is an integer.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() <= EXACT_INTEGER {
        // In range and whole: the conversion is exact.
        #[expect(
            clippy::cast_possible_truncation,
            reason = "checked to be whole and in range"
        )]
        Value::Int(n as i64)
    } else {
        Value::Float(n)
    }
}

/// The value a document stands for.
#[must_use]
pub fn from_node(node: &Node) -> Val {
    match &node.value {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        #[expect(clippy::cast_precision_loss, reason = "Jsonnet numbers are doubles")]
        Value::Int(i) => NumValue::new(*i as f64).map_or(Val::Null, Val::Num),
        Value::Float(f) => NumValue::new(*f).map_or(Val::Null, Val::Num),
        Value::String(s) => Val::Str(s.as_str().into()),
        Value::Seq(items) => Val::Arr(ArrValue::eager(items.iter().map(from_node).collect())),
        Value::Map(entries) => {
            let mut object = ObjValueBuilder::with_capacity(entries.len());
            for (key, entry) in entries {
                object.field(key.as_str()).value(from_node(&entry.value));
            }
            Val::Obj(object.build())
        }
    }
}

#[cfg(test)]
mod tests {
    use strata_syntax::emit::to_json;
    use strata_syntax::{Format, Limits, SourceDb};

    use super::*;

    /// Evaluates `code` in a VM with the standard library.
    fn evaluate(code: &str) -> std::result::Result<Val, crate::Failure> {
        let setup = crate::Setup {
            fs: std::sync::Arc::new(strata_fs::MemoryFs::new()),
            lib_paths: Vec::new(),
            ext_vars: Vec::new(),
            limits: Limits::default(),
            data_sources: crate::data::DataSources::new(),
        };
        crate::Vm::new(&setup).evaluate_snippet("test.jsonnet", code)
    }

    #[test]
    fn values_become_trees_in_manifest_order() {
        let val = evaluate("{b: [1, 2.5, null, true], a: {h:: 1, c: 'x'}, big: 1e300}").unwrap();
        let node = to_node(&val, Span::default(), 10).unwrap();
        assert_eq!(
            to_json(&node).unwrap(),
            "{\n  \"a\": {\n    \"c\": \"x\"\n  },\n  \"b\": [\n    1,\n    2.5,\n    null,\n    true\n  ],\n  \"big\": 1e300\n}\n"
        );
    }

    #[test]
    fn functions_and_deep_nesting_are_errors() {
        let val = evaluate("{f: function(x) x}").unwrap();
        let error = to_node(&val, Span::default(), 10).unwrap_err();
        assert!(error.to_string().contains("a function cannot be output"));
        let val = evaluate("[[[[1]]]]").unwrap();
        assert!(to_node(&val, Span::default(), 3).is_err());
        assert!(to_node(&val, Span::default(), 5).is_ok());
    }

    #[test]
    fn huge_lazy_arrays_are_an_error_not_an_allocation() {
        let val = evaluate("std.range(0, 2000000000)").unwrap();
        let error = to_node(&val, Span::default(), 10).unwrap_err();
        assert!(
            error.to_string().contains("more than 4000000 values"),
            "{error}"
        );
        let val = evaluate("[std.range(0, 3000000), std.range(0, 3000000)]").unwrap();
        assert!(to_node(&val, Span::default(), 10).is_err());
    }

    #[test]
    fn documents_round_trip() {
        let mut db = SourceDb::new();
        let id = db.add("x.yaml", "a: [1, -2, 0.5, 'x', null, {b: true}]\n");
        let parsed = strata_syntax::parse(&db, id, Format::Yaml, &Limits::default());
        let node = &parsed.documents[0];
        let back = to_node(&from_node(node), Span::default(), 10).unwrap();
        assert_eq!(to_json(&back).unwrap(), to_json(node).unwrap());
    }
}

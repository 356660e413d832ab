//! The standard library as go-jsonnet 0.22 writes it, where jrsonnet's
//! output differs (qbec embeds go-jsonnet, so an application's output must
//! be go-jsonnet's byte for byte): the functions below replace jrsonnet's
//! of the same name, every other one is jrsonnet's.
//!
//! | function | as go-jsonnet |
//! |---|---|
//! | `trim(s)` | whitespace removed at both ends (jrsonnet has none) |
//! | `manifestYamlDoc(v, indent_array_in_object, quote_keys)` | strings JSON-quoted unless they end with a newline (then a `\|` block), numbers in plain decimal, keys sorted and quoted unless `quote_keys=false` and safe bare |
//! | `manifestYamlStream(v, indent_array_in_object, c_document_end, quote_keys)` | `---` before each document, `...` at the end unless `c_document_end=false` |
//! | `native(name)` | the native function, or an error at the call naming it (go-jsonnet gives `null`, and the call fails later, at `1:1` of the component) |
//! | `parseYaml(s)` | YAML 1.1, as go-yaml reads it (`yes`, `on`, `y` booleans, `1_000` an integer); several documents an array |
//!
//! A number turned into text (`std.toString`, `+` with a string, `%s`) is
//! written as go-jsonnet's `unparseNumber` writes it (a whole number as an
//! integer, any other as `%.17g`: `0.33333333333333331`) by the evaluator
//! itself, a change Strata carries in its copy of `jrsonnet-evaluator`
//! (`vendor/README.md`); the `std.manifest*` functions keep the shortest
//! decimal, as go-jsonnet's do.
//!
//! `tests/stdlib_parity.rs` holds a table of cases whose expected strings
//! go-jsonnet wrote.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;

use jrsonnet_evaluator::function::FuncVal;
use jrsonnet_evaluator::{ContextBuilder, IStr, ObjValueBuilder, Result, Thunk, Val};
use jrsonnet_gcmodule::Trace;
use jrsonnet_macros::builtin;
use jrsonnet_parser::Source;
use strata_syntax::{Format, Limits, Node, Span, Value, emit};

use crate::natives::{parse_text, runtime_error};
use crate::value::{from_node, to_node};

/// The deepest value these functions manifest.
const MAX_DEPTH: usize = 1_000;

/// jrsonnet's standard library with go-jsonnet's versions of the functions
/// above.
#[derive(Trace)]
pub(crate) struct GoStdlib {
    inner: jrsonnet_stdlib::ContextInitializer,
    #[trace(skip)]
    limits: Limits,
    /// The natives `inner` holds, taken once: every imported file's `std`
    /// shares them.
    #[trace(skip)]
    natives: Rc<HashMap<IStr, FuncVal>>,
}

impl GoStdlib {
    /// jrsonnet's `inner` (its natives registered), `parseYaml` bounded by
    /// `limits`.
    pub(crate) fn new(inner: jrsonnet_stdlib::ContextInitializer, limits: Limits) -> GoStdlib {
        let natives = Rc::new(inner.settings().ext_natives.clone());
        GoStdlib {
            inner,
            limits,
            natives,
        }
    }
}

impl jrsonnet_evaluator::ContextInitializer for GoStdlib {
    fn reserve_vars(&self) -> usize {
        1
    }

    fn populate(&self, for_file: Source, builder: &mut ContextBuilder) {
        // jrsonnet's `std` (with this file's `thisFile`), then ours over it.
        let mut scratch = ContextBuilder::dangerous_empty_state();
        self.inner.populate(for_file, &mut scratch);
        let theirs = scratch
            .build()
            .binding("std".into())
            .and_then(|std| std.evaluate());
        let mut std = ObjValueBuilder::new();
        if let Ok(Val::Obj(theirs)) = theirs {
            std.with_super(theirs);
        }
        std.method("trim", builtin_trim::INST);
        std.method("manifestYamlDoc", builtin_manifest_yaml_doc::INST);
        std.method("manifestYamlStream", builtin_manifest_yaml_stream::INST);
        std.method(
            "native",
            builtin_native {
                natives: Rc::clone(&self.natives),
            },
        );
        std.method(
            "parseYaml",
            builtin_parse_yaml {
                limits: self.limits,
            },
        );
        builder.bind("std", Thunk::evaluated(Val::Obj(std.build())));
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[builtin]
#[expect(
    clippy::needless_pass_by_value,
    reason = "the builtin macro passes arguments owned"
)]
fn builtin_trim(str: IStr) -> String {
    str.trim().to_owned()
}

#[builtin]
#[expect(
    clippy::needless_pass_by_value,
    reason = "the builtin macro passes arguments owned"
)]
fn builtin_manifest_yaml_doc(
    value: Val,
    #[default(false)] indent_array_in_object: bool,
    #[default(true)] quote_keys: bool,
) -> Result<String> {
    let node = to_node(&value, Span::default(), MAX_DEPTH)?;
    let mut out = String::new();
    yaml(&node, &mut out, "", indent_array_in_object, quote_keys);
    Ok(out)
}

#[builtin]
#[expect(
    clippy::needless_pass_by_value,
    reason = "the builtin macro passes arguments owned"
)]
fn builtin_manifest_yaml_stream(
    value: Val,
    #[default(false)] indent_array_in_object: bool,
    #[default(true)] c_document_end: bool,
    #[default(true)] quote_keys: bool,
) -> Result<String> {
    let node = to_node(&value, Span::default(), MAX_DEPTH)?;
    let Value::Seq(documents) = &node.value else {
        return Err(runtime_error(format!(
            "manifestYamlStream only takes arrays, got {}",
            node.value.kind_name()
        )));
    };
    let mut out = String::from("---\n");
    for (index, document) in documents.iter().enumerate() {
        if index > 0 {
            out.push_str("\n---\n");
        }
        yaml(document, &mut out, "", indent_array_in_object, quote_keys);
    }
    out.push_str(if c_document_end { "\n...\n" } else { "\n" });
    Ok(out)
}

#[builtin(fields(
    #[trace(skip)]
    limits: Limits,
))]
#[expect(
    clippy::needless_pass_by_value,
    reason = "the builtin macro passes arguments owned"
)]
fn builtin_parse_yaml(this: &builtin_parse_yaml, str: IStr) -> Result<Val> {
    let documents =
        parse_text("parseYaml", &str, Format::Yaml11, &this.limits).map_err(runtime_error)?;
    Ok(match documents.as_slice() {
        [] => Val::Null,
        [one] => from_node(one),
        many => Val::Arr(many.iter().map(from_node).collect::<Vec<_>>().into()),
    })
}

#[builtin(fields(
    #[trace(skip)]
    natives: Rc<HashMap<IStr, FuncVal>>,
))]
#[expect(
    clippy::needless_pass_by_value,
    reason = "the builtin macro passes arguments owned"
)]
fn builtin_native(this: &builtin_native, name: IStr) -> Result<Val> {
    if let Some(function) = this.natives.get(&name) {
        return Ok(Val::Func(function.clone()));
    }
    let mut offered: Vec<&str> = this.natives.keys().map(|name| &**name).collect();
    offered.sort_unstable();
    Err(runtime_error(format!(
        "std.native: there is no native function `{name}`; the native functions are {}",
        offered.join(", ")
    )))
}

/// Whether a key may go bare in go-jsonnet's YAML (`yamlBareSafe`).
fn bare_safe(key: &str) -> bool {
    const RESERVED: &[&str] = &[
        "true", "false", "yes", "no", "on", "off", "y", "n", ".nan", "-.inf", "+.inf", ".inf",
        "null", "-", "---", "''",
    ];
    let is_number = key.parse::<i64>().is_ok() || key.parse::<f64>().is_ok();
    let timestamp = key.split('-').count() == 3
        && key
            .split('-')
            .all(|part| part.chars().all(|c| c.is_ascii_digit()));
    let unsigned = key.trim_start_matches(['-', '+']);
    let binary_or_hex = unsigned.starts_with("0b") || key.contains("0x");
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/' | '.'))
        && !RESERVED.iter().any(|word| word.eq_ignore_ascii_case(key))
        && !timestamp
        && !binary_or_hex
        && !is_number
}

/// go-jsonnet's `manifestYamlDoc` of `node`, at the indent `indent`.
fn yaml(node: &Node, out: &mut String, indent: &str, indent_arrays: bool, quote_keys: bool) {
    const STEP: &str = "  ";
    match &node.value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        // `strconv.FormatFloat(v, 'f', -1, 64)`: Rust's `{}` is that.
        Value::Float(f) => {
            let _ = write!(out, "{f}");
        }
        Value::String(text) if text.is_empty() => out.push_str("\"\""),
        Value::String(text) => match text.strip_suffix('\n') {
            Some(block) => {
                out.push('|');
                for line in block.split('\n') {
                    out.push('\n');
                    out.push_str(indent);
                    out.push_str(STEP);
                    out.push_str(line);
                }
            }
            None => out.push_str(&emit::json_string(text)),
        },
        Value::Seq(items) if items.is_empty() => out.push_str("[]"),
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push('\n');
                    out.push_str(indent);
                }
                out.push('-');
                let nested_list = matches!(&item.value, Value::Seq(inner) if !inner.is_empty());
                if nested_list {
                    out.push('\n');
                    out.push_str(indent);
                    out.push_str(STEP);
                } else {
                    out.push(' ');
                }
                let deeper = format!("{indent}{STEP}");
                let inner = if matches!(item.value, Value::Seq(_) | Value::Map(_)) {
                    deeper.as_str()
                } else {
                    indent
                };
                yaml(item, out, inner, indent_arrays, quote_keys);
            }
        }
        Value::Map(entries) if entries.is_empty() => out.push_str("{}"),
        Value::Map(entries) => {
            let mut keys: Vec<&String> = entries.keys().collect();
            keys.sort();
            for (index, key) in keys.into_iter().enumerate() {
                let value = &entries[key.as_str()].value;
                if index > 0 {
                    out.push('\n');
                    out.push_str(indent);
                }
                if quote_keys || !bare_safe(key) {
                    out.push_str(&emit::json_string(key));
                } else {
                    out.push_str(key);
                }
                out.push(':');
                let mut inner = indent.to_owned();
                match &value.value {
                    Value::Seq(items) if !items.is_empty() => {
                        out.push('\n');
                        out.push_str(indent);
                        if indent_arrays {
                            out.push_str(STEP);
                            inner.push_str(STEP);
                        }
                    }
                    Value::Map(fields) if !fields.is_empty() => {
                        out.push('\n');
                        out.push_str(indent);
                        out.push_str(STEP);
                        inner.push_str(STEP);
                    }
                    _ => out.push(' '),
                }
                yaml(value, out, &inner, indent_arrays, quote_keys);
            }
        }
    }
}

//! Results as tree nodes: the type mapping of the module docs.

use cel::objects::{Key, OptionalValue};
use strata_syntax::{Entry, LayerId, MapHasher, Mapping, Node, Span, Value};

/// Why a result cannot be put in the tree: a message and maybe a help line.
pub(crate) struct Unrepresentable {
    pub(crate) message: String,
    pub(crate) help: Option<&'static str>,
}

impl Unrepresentable {
    fn new(message: String) -> Unrepresentable {
        Unrepresentable {
            message,
            help: None,
        }
    }
}

/// `value` as a node (and every node below it) with `span` and `layer`.
pub(crate) fn to_node(
    value: &cel::Value,
    span: Span,
    layer: Option<LayerId>,
) -> Result<Node, Unrepresentable> {
    let node = |value| Node {
        value,
        span,
        tag: None,
        layer,
    };
    Ok(node(match value {
        cel::Value::Null => Value::Null,
        cel::Value::Bool(b) => Value::Bool(*b),
        cel::Value::Int(i) => Value::Int(*i),
        cel::Value::UInt(u) => Value::Int(i64::try_from(*u).map_err(|_| {
            Unrepresentable::new(format!(
                "the unsigned integer {u} does not fit in a signed 64-bit integer"
            ))
        })?),
        cel::Value::Float(f) => Value::Float(*f),
        cel::Value::String(s) => Value::String(s.as_ref().clone()),
        cel::Value::Bytes(bytes) => {
            Value::String(String::from_utf8(bytes.as_ref().clone()).map_err(|_| {
                Unrepresentable {
                    message: "the bytes are not valid utf-8".to_owned(),
                    help: Some("encode them with `base64.encode(...)`"),
                }
            })?)
        }
        cel::Value::Duration(duration) => Value::String(duration_text(
            duration.num_seconds(),
            duration.subsec_nanos(),
        )),
        cel::Value::Timestamp(timestamp) => Value::String(timestamp_text(
            &timestamp.naive_utc().format("%Y-%m-%dT%H:%M:%S"),
            timestamp.timestamp_subsec_nanos(),
        )),
        cel::Value::List(items) => Value::Seq(
            items
                .iter()
                .map(|item| to_node(item, span, layer))
                .collect::<Result<_, _>>()?,
        ),
        cel::Value::Map(map) => {
            let mut entries = map
                .map
                .iter()
                .map(|(key, value)| Ok((key_text(key), to_node(value, span, layer)?)))
                .collect::<Result<Vec<_>, _>>()?;
            entries.sort_by(|(a, _), (b, _)| a.cmp(b));
            let mut mapping =
                Mapping::with_capacity_and_hasher(entries.len(), MapHasher::default());
            for (key, value) in entries {
                if mapping.contains_key(&key) {
                    return Err(Unrepresentable::new(format!(
                        "the map has two keys written `{key}`"
                    )));
                }
                mapping.insert(
                    key,
                    Entry {
                        key_span: span,
                        value,
                    },
                );
            }
            Value::Map(mapping)
        }
        cel::Value::Opaque(opaque) => match opaque.downcast_ref::<OptionalValue>() {
            Some(optional) => {
                return optional
                    .value()
                    .map_or(Ok(node(Value::Null)), |value| to_node(value, span, layer));
            }
            None => return Err(cannot_hold(value)),
        },
        cel::Value::Struct(_) | cel::Value::Function(..) => return Err(cannot_hold(value)),
    }))
}

fn cannot_hold(value: &cel::Value) -> Unrepresentable {
    Unrepresentable::new(format!(
        "a value of type {} cannot be put in the tree",
        value.type_of()
    ))
}

fn key_text(key: &Key) -> String {
    match key {
        Key::String(s) => s.as_ref().clone(),
        Key::Int(i) => i.to_string(),
        Key::Uint(u) => u.to_string(),
        Key::Bool(b) => b.to_string(),
    }
}

/// A timestamp as CEL's `string()` writes it, from its UTC date and time
/// (`base`) and nanoseconds: `Z`, and the fraction of a second only when
/// there is one, without trailing zeros.
fn timestamp_text(base: &impl std::fmt::Display, nanos: u32) -> String {
    // A leap second counts its nanoseconds from 1_000_000_000.
    match nanos % 1_000_000_000 {
        0 => format!("{base}Z"),
        nanos => format!("{base}.{}Z", fraction(nanos)),
    }
}

/// A duration as CEL's `string()` writes it, from its whole seconds and
/// nanoseconds: seconds, with a fraction only when there is one (`90s`,
/// `-1.5s`).
fn duration_text(seconds: i64, nanos: i32) -> String {
    let sign = if seconds < 0 || nanos < 0 { "-" } else { "" };
    let seconds = seconds.unsigned_abs();
    match nanos.unsigned_abs() {
        0 => format!("{sign}{seconds}s"),
        nanos => format!("{sign}{seconds}.{}s", fraction(nanos)),
    }
}

/// Nanoseconds as the digits after a decimal point, without trailing zeros.
fn fraction(nanos: u32) -> String {
    format!("{nanos:09}").trim_end_matches('0').to_owned()
}

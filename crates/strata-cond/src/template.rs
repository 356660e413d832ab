//! `${..}` interpolation in strings.
//!
//! - A string without `${` is not a template: it passes through unchanged.
//! - `$${` is a literal `${`.
//! - An expression runs to the `}` that closes its `${`: braces nest, and a
//!   `}` inside a quoted string of the expression does not end it. An
//!   unclosed `${` and an empty `${}` are errors.
//! - A string that is exactly one `${..}` (nothing around it) keeps the
//!   expression's type: number, boolean, mapping, list or `null`.
//! - Otherwise the result is a string: text as written, each expression's
//!   value inserted (`null` as nothing, strings as they are, numbers and
//!   booleans as written, mappings and lists as compact JSON).

use strata_syntax::{Node, Span, Value};

use crate::CondError;
use crate::eval::{Host, evaluate};
use crate::parse::{Expr, parse_at};

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

/// A run of text or an expression.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    /// The expression, its ranges shifted to the template's text.
    Expr(Expr),
}

impl Template {
    /// Parses `text`; `None` when it holds no `${` (nothing to interpolate).
    pub fn parse(text: &str) -> Result<Option<Template>, CondError> {
        if !strata_syntax::substitution::has_opening(text) {
            return Ok(None);
        }
        if text.len() > crate::MAX_LENGTH {
            return Err(crate::parse_error(
                format!("the text is longer than {} bytes", crate::MAX_LENGTH),
                0..text.len(),
            ));
        }
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = 0;
        while let Some(found) = text[rest..].find('$') {
            let at = rest + found;
            let after = &text[at..];
            if after.starts_with("$${") {
                literal.push_str(&text[rest..at]);
                literal.push_str("${");
                rest = at + 3;
            } else if after.starts_with("${") {
                literal.push_str(&text[rest..at]);
                if !literal.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut literal)));
                }
                let start = at + 2;
                let end = closing_brace(text, start)
                    .map_err(|message| crate::parse_error(message, at..text.len()))?;
                let source = &text[start..end];
                if source.trim().is_empty() {
                    return Err(crate::parse_error("`${}` holds no expression", at..end + 1));
                }
                parts.push(Part::Expr(parse_at(source, start)?));
                rest = end + 1;
            } else {
                literal.push_str(&text[rest..=at]);
                rest = at + 1;
            }
        }
        literal.push_str(&text[rest..]);
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Ok(Some(Template { parts }))
    }

    /// The value: the expression's own when the template is exactly one,
    /// else the text with every value inserted. Nodes get `span`.
    pub fn render(&self, scope: &Node, host: &dyn Host, span: Span) -> Result<Node, CondError> {
        if let [Part::Expr(expr)] = self.parts.as_slice() {
            let mut value = evaluate(expr, scope, host)?;
            value.span = span;
            return Ok(value);
        }
        let mut text = String::new();
        for part in &self.parts {
            match part {
                Part::Text(literal) => text.push_str(literal),
                // Written as Windsor inserts it: a date as Go's `%v`.
                Part::Expr(expr) => {
                    text.push_str(&crate::eval::evaluate_with(expr, scope, host, |value| {
                        display(&value)
                    })?);
                }
            }
        }
        Ok(Node::new(Value::String(text), span))
    }
}

/// The offset of the `}` closing an expression that starts at `start`, or
/// why there is none.
fn closing_brace(text: &str, start: usize) -> Result<usize, &'static str> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (offset, c) in text[start..].char_indices() {
        if let Some(open) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' && open != '`' {
                escaped = true;
            } else if c == open {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '{' => depth += 1,
            '}' if depth == 0 => return Ok(start + offset),
            '}' => depth -= 1,
            _ => {}
        }
    }
    Err(if quote.is_some() {
        "a string inside `${..}` is not closed"
    } else {
        "`${` is not closed by `}`"
    })
}

/// A value as text inside a string, as Windsor inserts it: `null` as
/// nothing, strings as they are, other scalars as Go's `%v` writes them
/// (`1.5`, `1e+06`), mappings and lists as YAML (its blocks, trimmed).
#[must_use]
pub fn display(node: &Node) -> String {
    match &node.value {
        Value::Null => String::new(),
        Value::Seq(_) | Value::Map(_) => strata_syntax::emit::to_yaml(&sorted(node))
            .trim()
            .to_owned(),
        _ => crate::go::go_string(node),
    }
}

/// `node` with every mapping's keys sorted, as Go's YAML encoder writes a
/// map.
fn sorted(node: &Node) -> Node {
    let value = match &node.value {
        Value::Seq(items) => Value::Seq(items.iter().map(sorted).collect()),
        Value::Map(entries) => {
            let mut keys: Vec<&String> = entries.keys().collect();
            keys.sort();
            return Node::mapping(
                keys.into_iter()
                    .map(|key| (key.clone(), sorted(&entries[key].value))),
            );
        }
        other => other.clone(),
    };
    Node::new(value, node.span)
}

/// Where a template's expression ranges are: for error mapping in tests.
#[cfg(test)]
fn ranges(template: &Template) -> Vec<std::ops::Range<usize>> {
    template
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Expr(expr) => Some(expr.range.clone()),
            Part::Text(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use strata_syntax::{Format, Limits, SourceDb};

    use super::*;
    use crate::HostError;

    struct NoHost;

    impl Host for NoHost {
        fn jsonnet(&self, path: &str) -> Result<Node, HostError> {
            Err(HostError::Call(format!("no jsonnet here: {path}")))
        }
        fn file(&self, path: &str) -> Result<String, HostError> {
            Ok(format!("<{path}>"))
        }
    }

    fn scope() -> Node {
        let mut db = SourceDb::new();
        let id = db.add(
            "values.yaml",
            "cluster: {workers: {count: 3}, name: c1}\ndns: {domain: example.com}\nlist: [1, 'a']\nratio: 2.5\n",
        );
        strata_syntax::parse(&db, id, Format::Yaml, &Limits::default())
            .documents
            .remove(0)
    }

    fn render(text: &str) -> Result<Option<Node>, CondError> {
        Template::parse(text)?
            .map(|template| template.render(&scope(), &NoHost, Span::default()))
            .transpose()
    }

    fn json(text: &str) -> String {
        render(text).unwrap().unwrap().to_json_value().to_string()
    }

    #[test]
    fn one_expression_keeps_its_type() {
        assert_eq!(json("${cluster.workers.count}"), "3");
        assert_eq!(json("${cluster.workers.count + 2}"), "5");
        assert_eq!(json("q=${6 / 3}, r=${ratio}"), "\"q=2, r=2.5\"");
        assert_eq!(
            json("${cluster}"),
            "{\"workers\":{\"count\":3},\"name\":\"c1\"}"
        );
        assert_eq!(json("${missing.path}"), "null");
        assert_eq!(json("${true && dns.domain == 'example.com'}"), "true");
    }

    #[test]
    fn text_around_makes_a_string() {
        assert_eq!(json("${cluster.name}-config"), "\"c1-config\"");
        assert_eq!(
            json("n=${cluster.workers.count}, r=${ratio}, l=${list}, x=${missing}"),
            "\"n=3, r=2.5, l=- 1\\n- a, x=\""
        );
        assert_eq!(
            json("${1000000.0} ${2 ** 0.5}"),
            "\"1e+06 1.4142135623730951\""
        );
        assert_eq!(json(" ${cluster.name}"), "\" c1\"");
        assert_eq!(json("$${not} ${cluster.name}"), "\"${not} c1\"");
        assert_eq!(json("${'}' + '{'}"), "\"}{\"");
        assert_eq!(json("${file(\"a/b.pem\")}"), "\"<a/b.pem>\"");
        assert!(render("plain $ text").unwrap().is_none());
        assert_eq!(json("$${literal only}"), "\"${literal only}\"");
        // A date in text is Go's `%v` of a `time.Time`, as Windsor inserts
        // it; alone, the value is the date's RFC 3339 text.
        assert_eq!(
            json("at ${date('2023-08-14')}, for ${duration('90m')}"),
            "\"at 2023-08-14 00:00:00 +0000 UTC, for 1h30m0s\""
        );
        assert_eq!(json("${date('2023-08-14')}"), "\"2023-08-14T00:00:00Z\"");
    }

    #[test]
    fn errors_point_into_the_string() {
        let error = |text: &str| {
            let e = render(text).unwrap_err();
            (e.message, e.range)
        };
        assert_eq!(
            error("a ${b"),
            ("`${` is not closed by `}`".to_owned(), 2..5)
        );
        assert_eq!(
            error("x ${ }"),
            ("`${}` holds no expression".to_owned(), 2..6)
        );
        assert_eq!(
            error("v: ${cluster.workers.count > }"),
            (
                "expected a value, found end of the expression".to_owned(),
                29..29
            )
        );
        assert_eq!(
            error("${dns.domain.x}"),
            ("cannot read the field `x` of a string".to_owned(), 2..14)
        );
        assert_eq!(
            error("${jsonnet('t.jsonnet')}"),
            ("no jsonnet here: t.jsonnet".to_owned(), 2..22)
        );
        let template = Template::parse("a ${b} c ${d.e}").unwrap().unwrap();
        assert_eq!(ranges(&template), [4..5, 11..14]);
    }
}

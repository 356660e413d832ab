//! qbec's native functions, reached from Jsonnet as `std.native(NAME)`.
//!
//! [`register`] adds the functions qbec registers (its
//! `vm/internal/natives/nativefuncs.go`), with qbec's names, parameter names
//! and semantics (`expandHelmTemplate` is not among them: it runs Helm):
//!
//! - `parseJson(json)`: the value of one strict JSON text. A syntax error is
//!   a runtime error `parseJson: line L, column C: MESSAGE`; so is a text
//!   holding no value, as in qbec (Go's decoder reports `EOF`).
//! - `parseYaml(yaml)`: the documents of a YAML stream, always as an array
//!   (one element for one document, none for an empty text). Empty and
//!   `null` documents are left out, as qbec leaves out every document that
//!   decodes to `nil`. Errors as `parseJson`'s, prefixed `parseYaml:`.
//! - `renderYaml(data)`: YAML text. An array is a stream with one document
//!   per element (`null` elements give none); to render an array as one
//!   document, wrap it in a one-element array. Any other value is one
//!   document, and a top-level `null` is the empty string.
//! - `escapeStringRegex(str)`: `str` with every regex metacharacter
//!   backslash-escaped, exactly as Go's `regexp.QuoteMeta`.
//! - `regexMatch(regex, string)`: whether `regex` matches anywhere in
//!   `string`, as Go's `regexp.MatchString`.
//! - `regexSubst(regex, src, repl)`: `src` with every match of `regex`
//!   replaced by `repl`, in which `$1`, `$name` and `${name}` expand to
//!   groups, as Go's `ReplaceAllString` (the `regex` crate has the same
//!   expansion syntax, including `$1x` meaning the group named `1x`).
//! - `labelsMatchSelector(labels, selectorString)`: whether an object of
//!   string labels matches a Kubernetes label selector in the syntax of
//!   apimachinery's `labels.Parse` (`a=b, c!=d, e in (f, g), h notin (i),
//!   j, !k, l > 1`); the empty selector matches everything, and `!=` and
//!   `notin` also match when the key is absent.
//!
//! Regular expressions are the `regex` crate's, which accepts the RE2 syntax
//! Go's `regexp` does; one difference is that `\d`, `\w`, `\s` and `\b` are
//! Unicode-aware here and ASCII-only in Go.
//!
//! An invalid regex, selector or label value is a Jsonnet runtime error, so
//! it carries the caller's stack trace like any other.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use jrsonnet_evaluator::error::{Error, ErrorKind};
use jrsonnet_evaluator::val::ArrValue;
use jrsonnet_evaluator::{IStr, ObjValue, Result, Val, in_description_frame};
use jrsonnet_macros::builtin;
use jrsonnet_stdlib::ContextInitializer;
use regex::Regex;
use strata_syntax::{Format, Limits, Node, SourceDb, Span, Value, emit};

use crate::value::{from_node, to_node};

/// Adds qbec's native functions to `context` under qbec's names.
///
/// `limits` bounds what `parseJson` and `parseYaml` accept (size, nesting,
/// alias expansion) and how deeply nested a value `renderYaml` renders.
pub(crate) fn register(context: &ContextInitializer, limits: Limits) {
    context.add_native("parseJson", parseJson { limits });
    context.add_native("parseYaml", parseYaml { limits });
    context.add_native("renderYaml", renderYaml { limits });
    context.add_native("escapeStringRegex", escapeStringRegex::INST);
    // One cache for both regex functions: a component calls them in loops
    // over many objects with the same few patterns.
    let cache = Rc::new(RegexCache::default());
    context.add_native(
        "regexMatch",
        regexMatch {
            cache: Rc::clone(&cache),
        },
    );
    context.add_native("regexSubst", regexSubst { cache });
    context.add_native("labelsMatchSelector", labelsMatchSelector::INST);
}

// The builtins are named as in Jsonnet, because the macro turns the function
// name into the name shown in stack traces (`function <parseJson> call`), and
// the parameters too, because they are the names for named arguments.

#[builtin(fields(
    #[trace(skip)]
    limits: Limits,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn parseJson(this: &parseJson, json: IStr) -> Result<Val> {
    let documents = parse_text("parseJson", &json, Format::Json, &this.limits)?;
    match documents.first() {
        Some(document) => Ok(from_node(document)),
        None => Err(runtime_error(
            "parseJson: the text holds no JSON value".to_owned(),
        )),
    }
}

#[builtin(fields(
    #[trace(skip)]
    limits: Limits,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn parseYaml(this: &parseYaml, yaml: IStr) -> Result<Val> {
    let documents = parse_text("parseYaml", &yaml, Format::Yaml11, &this.limits)?;
    let values = documents
        .iter()
        .filter(|document| !matches!(document.value, Value::Null))
        .map(from_node)
        .collect();
    Ok(Val::Arr(ArrValue::eager(values)))
}

#[builtin(fields(
    #[trace(skip)]
    limits: Limits,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn renderYaml(this: &renderYaml, data: Val) -> Result<String> {
    let max_depth = this.limits.max_depth;
    match &data {
        Val::Null => Ok(String::new()),
        Val::Arr(items) => {
            let mut documents = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let item = item?;
                if matches!(item, Val::Null) {
                    continue;
                }
                let document = in_description_frame(
                    || format!("array index [{index}]"),
                    || to_node(&item, Span::default(), max_depth),
                )?;
                documents.push(document);
            }
            // qbec separates documents with `---` but does not open the first.
            let stream = emit::to_yaml_stream(&documents);
            Ok(stream.strip_prefix("---\n").unwrap_or(&stream).to_owned())
        }
        other => Ok(emit::to_yaml(&to_node(other, Span::default(), max_depth)?)),
    }
}

#[builtin]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn escapeStringRegex(str: IStr) -> String {
    quote_meta(&str)
}

#[builtin(fields(
    #[trace(skip)]
    cache: Rc<RegexCache>,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn regexMatch(this: &regexMatch, regex: IStr, string: IStr) -> Result<bool> {
    let compiled = this.cache.compile("regexMatch", &regex)?;
    Ok(compiled.is_match(&string))
}

#[builtin(fields(
    #[trace(skip)]
    cache: Rc<RegexCache>,
))]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn regexSubst(this: &regexSubst, regex: IStr, src: IStr, repl: IStr) -> Result<String> {
    let compiled = this.cache.compile("regexSubst", &regex)?;
    Ok(compiled.replace_all(&src, repl.as_str()).into_owned())
}

#[builtin]
#[expect(
    non_snake_case,
    clippy::needless_pass_by_value,
    reason = "named as in Jsonnet; the builtin macro passes arguments owned"
)]
fn labelsMatchSelector(labels: ObjValue, selectorString: IStr) -> Result<bool> {
    let mut set = BTreeMap::new();
    for (key, value) in labels.iter() {
        match value? {
            Val::Str(text) => {
                set.insert(key.to_string(), text.to_string());
            }
            other => {
                return Err(runtime_error(format!(
                    "invalid label map value for `{key}`, {}, want a string",
                    other.value_type()
                )));
            }
        }
    }
    let selector = parse_selector(&selectorString).map_err(|why| {
        runtime_error(format!(
            "invalid label selector: '{}': {why}",
            selectorString.as_str()
        ))
    })?;
    Ok(selector.iter().all(|requirement| requirement.matches(&set)))
}

/// A Jsonnet runtime error with `message`.
fn runtime_error(message: String) -> Error {
    ErrorKind::RuntimeError(message.into()).into()
}

/// The documents of `text`, or the first syntax error as a runtime error
/// prefixed with `function` and the error's position in `text`.
fn parse_text(function: &str, text: &str, format: Format, limits: &Limits) -> Result<Vec<Node>> {
    let mut db = SourceDb::new();
    let id = db.add(format!("<{function}>"), text);
    let parsed = strata_syntax::parse(&db, id, format, limits);
    // Warnings do not make the text unusable; the first error is the one
    // the rest most likely follow from.
    if let Some(error) = parsed.diagnostics.iter().find(|d| d.is_error()) {
        let record = error.record(&db);
        return Err(runtime_error(format!(
            "{function}: line {}, column {}: {}",
            record.line, record.column, record.message
        )));
    }
    Ok(parsed.documents)
}

/// `text` with Go's regex metacharacters escaped, exactly as Go's
/// `regexp.QuoteMeta` does.
///
/// Not `regex::escape`: that also escapes `#`, `&`, `-` and `~`, and the
/// result is often not fed back to a regex function but written into a
/// manifest (a Prometheus rule, an ingress path), where it must read as
/// qbec wrote it. Go's escaping is a valid Rust regex too: the four are
/// literal outside character classes.
fn quote_meta(text: &str) -> String {
    const META: &str = r"\.+*?()|[]{}^$";
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if META.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Compiled regular expressions by pattern, shared by the regex functions.
#[derive(Default)]
struct RegexCache(RefCell<HashMap<String, Regex>>);

/// How many patterns the cache keeps before it starts over: bounded so a
/// component that builds a pattern per object cannot grow it without end.
const REGEX_CACHE_SIZE: usize = 64;

impl RegexCache {
    /// The compiled `pattern`, or a runtime error naming it and `function`.
    fn compile(&self, function: &str, pattern: &str) -> Result<Regex> {
        if let Some(found) = self.0.borrow().get(pattern) {
            // A clone shares the compiled program.
            return Ok(found.clone());
        }
        let compiled = Regex::new(pattern).map_err(|error| {
            runtime_error(format!("{function}: invalid regex '{pattern}': {error}"))
        })?;
        let mut cache = self.0.borrow_mut();
        if cache.len() >= REGEX_CACHE_SIZE {
            cache.clear();
        }
        cache.insert(pattern.to_owned(), compiled.clone());
        Ok(compiled)
    }
}

// Kubernetes label selectors.
//
// Hand-written because no Rust library implements apimachinery's
// `labels.Parse`. It follows that parser's grammar and validation:
//
//   selector    := "" | requirement ("," requirement)*
//   requirement := "!" key | key | key op value | key ("in" | "notin") "(" values ")"
//   op          := "=" | "==" | "!=" | ">" | "<"
//   values      := [value] ("," [value])*      an omitted value is ""
//
// Whitespace may surround any token. A key is a qualified name (an optional
// DNS-subdomain prefix and "/", then a name), a value a label value; "in"
// and "notin" are keywords only where an operator is expected.

/// A selector token, borrowing identifiers from the selector text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token<'a> {
    /// A key, a value or the keywords `in` and `notin`.
    Word(&'a str),
    /// `!`.
    Not,
    /// `=`.
    Equals,
    /// `==`.
    DoubleEquals,
    /// `!=`.
    NotEquals,
    /// `>`.
    Greater,
    /// `<`.
    Less,
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// `,`.
    Comma,
    /// The end of the selector.
    End,
}

impl Token<'_> {
    /// The token as error messages quote it.
    fn describe(self) -> String {
        let text = match self {
            Token::Word(word) => word,
            Token::Not => "!",
            Token::Equals => "=",
            Token::DoubleEquals => "==",
            Token::NotEquals => "!=",
            Token::Greater => ">",
            Token::Less => "<",
            Token::Open => "(",
            Token::Close => ")",
            Token::Comma => ",",
            Token::End => return "the end of the selector".to_owned(),
        };
        format!("'{text}'")
    }
}

/// The characters that end a word (besides whitespace), as in apimachinery.
fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

/// The selector's tokens, ending with [`Token::End`].
fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        let Some(c) = rest.chars().next() else {
            tokens.push(Token::End);
            return tokens;
        };
        // Two-character operators first, as apimachinery's longest match.
        let (token, length) = if rest.starts_with("==") {
            (Token::DoubleEquals, 2)
        } else if rest.starts_with("!=") {
            (Token::NotEquals, 2)
        } else if is_special(c) {
            let token = match c {
                '=' => Token::Equals,
                '!' => Token::Not,
                '(' => Token::Open,
                ')' => Token::Close,
                ',' => Token::Comma,
                '>' => Token::Greater,
                _ => Token::Less,
            };
            (token, 1)
        } else {
            let length = rest
                .find(|c: char| c.is_whitespace() || is_special(c))
                .unwrap_or(rest.len());
            (Token::Word(&rest[..length]), length)
        };
        tokens.push(token);
        rest = &rest[length..];
    }
}

/// What a requirement asks of a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    /// The key is present.
    Exists,
    /// The key is absent.
    DoesNotExist,
    /// The key is present with one of the values (`=`, `==`, `in`).
    In,
    /// The key is absent or has none of the values (`!=`, `notin`).
    NotIn,
    /// The key's value and the one value are integers, the first greater.
    Greater,
    /// The key's value and the one value are integers, the first smaller.
    Less,
}

/// One comma-separated part of a selector.
#[derive(Debug, PartialEq, Eq)]
struct Requirement<'a> {
    key: &'a str,
    operator: Operator,
    values: Vec<&'a str>,
}

impl Requirement<'_> {
    /// Whether `labels` satisfy the requirement.
    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(self.key).map(String::as_str);
        match self.operator {
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::In => value.is_some_and(|value| self.values.contains(&value)),
            Operator::NotIn => value.is_none_or(|value| !self.values.contains(&value)),
            Operator::Greater | Operator::Less => {
                // Validation made the bound an integer; a label value that
                // is not one does not match, as in apimachinery.
                let (Some(Ok(actual)), Some(Ok(bound))) = (
                    value.map(str::parse::<i64>),
                    self.values.first().map(|bound| bound.parse::<i64>()),
                ) else {
                    return false;
                };
                if self.operator == Operator::Greater {
                    actual > bound
                } else {
                    actual < bound
                }
            }
        }
    }
}

/// Parses a selector into its requirements, or says what is wrong.
fn parse_selector(text: &str) -> std::result::Result<Vec<Requirement<'_>>, String> {
    let mut parser = SelectorParser {
        tokens: tokenize(text),
        position: 0,
    };
    let mut requirements = Vec::new();
    if parser.peek() == Token::End {
        return Ok(requirements);
    }
    loop {
        match parser.peek() {
            Token::Word(_) | Token::Not => requirements.push(parser.requirement()?),
            other => {
                return Err(format!("found {}, expected '!' or a key", other.describe()));
            }
        }
        match parser.next() {
            Token::End => return Ok(requirements),
            Token::Comma => {}
            other => {
                return Err(format!(
                    "found {}, expected ',' or the end of the selector",
                    other.describe()
                ));
            }
        }
    }
}

/// A cursor over a selector's tokens.
struct SelectorParser<'a> {
    tokens: Vec<Token<'a>>,
    position: usize,
}

impl<'a> SelectorParser<'a> {
    /// The next token, not consumed.
    fn peek(&self) -> Token<'a> {
        self.tokens
            .get(self.position)
            .copied()
            .unwrap_or(Token::End)
    }

    /// The next token, consumed.
    fn next(&mut self) -> Token<'a> {
        let token = self.peek();
        self.position += 1;
        token
    }

    /// One requirement, from its key (or `!`) on.
    fn requirement(&mut self) -> std::result::Result<Requirement<'a>, String> {
        let negated = self.peek() == Token::Not;
        if negated {
            self.next();
        }
        let key = match self.next() {
            Token::Word(key) => key,
            other => return Err(format!("found {}, expected a key", other.describe())),
        };
        validate_key(key)?;
        // `!key` stands alone; whatever follows is for the caller to reject.
        if negated || matches!(self.peek(), Token::End | Token::Comma) {
            let operator = if negated {
                Operator::DoesNotExist
            } else {
                Operator::Exists
            };
            return Ok(Requirement {
                key,
                operator,
                values: Vec::new(),
            });
        }
        let (operator, values) = match self.next() {
            Token::Word("in") => (Operator::In, self.value_set()?),
            Token::Word("notin") => (Operator::NotIn, self.value_set()?),
            Token::Equals | Token::DoubleEquals => (Operator::In, vec![self.value()?]),
            Token::NotEquals => (Operator::NotIn, vec![self.value()?]),
            Token::Greater => (Operator::Greater, vec![self.value()?]),
            Token::Less => (Operator::Less, vec![self.value()?]),
            other => {
                return Err(format!(
                    "found {}, expected one of '=', '==', '!=', 'in', 'notin', '>', '<'",
                    other.describe()
                ));
            }
        };
        for value in &values {
            validate_value(value)?;
        }
        if matches!(operator, Operator::Greater | Operator::Less)
            && values[0].parse::<i64>().is_err()
        {
            return Err(format!(
                "'{}' is not an integer, which '>' and '<' compare with",
                values[0]
            ));
        }
        Ok(Requirement {
            key,
            operator,
            values,
        })
    }

    /// The value after `=`, `==`, `!=`, `>` or `<`: empty when none follows.
    fn value(&mut self) -> std::result::Result<&'a str, String> {
        match self.peek() {
            Token::End | Token::Comma => Ok(""),
            Token::Word(value) => {
                self.next();
                Ok(value)
            }
            other => Err(format!("found {}, expected a value", other.describe())),
        }
    }

    /// The parenthesised values after `in` or `notin`; an omitted value
    /// (`()`, `(a,)`) is the empty one, as in apimachinery.
    fn value_set(&mut self) -> std::result::Result<Vec<&'a str>, String> {
        match self.next() {
            Token::Open => {}
            other => return Err(format!("found {}, expected '('", other.describe())),
        }
        let mut values = Vec::new();
        loop {
            let value = match self.peek() {
                Token::Word(value) => {
                    self.next();
                    value
                }
                _ => "",
            };
            if !values.contains(&value) {
                values.push(value);
            }
            match self.next() {
                Token::Comma => {}
                Token::Close => return Ok(values),
                other => {
                    return Err(format!(
                        "found {}, expected ',', ')' or a value",
                        other.describe()
                    ));
                }
            }
        }
    }
}

/// The longest label name and label value.
const MAX_NAME: usize = 63;
/// The longest DNS subdomain, the prefix of a key.
const MAX_PREFIX: usize = 253;

/// Checks a key: `[prefix/]name`, the prefix a DNS subdomain.
fn validate_key(key: &str) -> std::result::Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((_, name)) if name.contains('/') => {
            return Err(format!(
                "key '{key}' has more than one '/': a key is a name with an optional \
                 DNS subdomain prefix and '/' (e.g. 'example.com/name')"
            ));
        }
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix
        && !is_dns_subdomain(prefix)
    {
        return Err(format!(
            "key '{key}': the prefix must be a DNS subdomain: at most {MAX_PREFIX} characters, \
             dot-separated parts of lowercase letters, digits and '-', each starting and \
             ending with a letter or digit"
        ));
    }
    if !is_label_name(name) {
        return Err(format!(
            "key '{key}': the name must be 1 to {MAX_NAME} letters, digits, '-', '_' or '.', \
             starting and ending with a letter or digit"
        ));
    }
    Ok(())
}

/// Checks a value: empty, or what a name may be.
fn validate_value(value: &str) -> std::result::Result<(), String> {
    if value.is_empty() || is_label_name(value) {
        Ok(())
    } else {
        Err(format!(
            "value '{value}': a label value must be empty or up to {MAX_NAME} letters, digits, \
             '-', '_' or '.', starting and ending with a letter or digit"
        ))
    }
}

/// A label name: `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, at most 63 long.
fn is_label_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            bytes.len() <= MAX_NAME
                && first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// A DNS-1123 subdomain: dot-separated `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at
/// most 253 long.
fn is_dns_subdomain(prefix: &str) -> bool {
    let is_alphanumeric = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    prefix.len() <= MAX_PREFIX
        && prefix.split('.').all(|part| {
            let bytes = part.as_bytes();
            match (bytes.first(), bytes.last()) {
                (Some(first), Some(last)) => {
                    is_alphanumeric(first)
                        && is_alphanumeric(last)
                        && bytes.iter().all(|b| is_alphanumeric(b) || *b == b'-')
                }
                _ => false,
            }
        })
}

#[cfg(test)]
mod tests {
    use jrsonnet_evaluator::State;
    use jrsonnet_evaluator::trace::PathResolver;
    use serde_json::json;
    use strata_syntax::emit::to_json;

    use super::*;

    /// A state whose `std.native` has the natives, with default limits.
    fn state() -> State {
        state_with(Limits::default())
    }

    fn state_with(limits: Limits) -> State {
        let context = ContextInitializer::new(PathResolver::Absolute);
        register(&context, limits);
        let mut builder = State::builder();
        builder.context_initializer(context);
        builder.build()
    }

    /// The JSON value `code` evaluates to.
    fn eval(code: &str) -> serde_json::Value {
        let val = state()
            .evaluate_snippet("t.jsonnet", code)
            .unwrap_or_else(|error| panic!("{code}: {error}"));
        let node = to_node(&val, Span::default(), 64).unwrap();
        serde_json::from_str(&to_json(&node).unwrap()).unwrap()
    }

    /// The error message of evaluating `code`, which must fail.
    fn error(code: &str) -> String {
        match state().evaluate_snippet("t.jsonnet", code) {
            Ok(val) => panic!("{code} gave {val:?}, expected an error"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn parse_json_gives_the_value() {
        assert_eq!(
            eval(r#"std.native('parseJson')('{"foo": 3, "bar": [4, 0.5, null, true, "x"]}')"#),
            json!({"bar": [4, 0.5, null, true, "x"], "foo": 3})
        );
        assert_eq!(eval("std.native('parseJson')('null')"), json!(null));
        assert_eq!(
            eval(r#"local a = std.native('parseJson')('{"foo": 3, "bar": 4}'); a.foo + a.bar"#),
            json!(7)
        );
        // qbec's parameter name works as a named argument.
        assert_eq!(eval("std.native('parseJson')(json='[1]')"), json!([1]));
    }

    #[test]
    fn parse_json_errors_have_positions() {
        let message = error("std.native('parseJson')('{\\n  \"a\": 1,\\n  barf\\n}')");
        assert!(
            message.contains("parseJson: line 3, column 3: invalid json"),
            "{message}"
        );
        let message = error("std.native('parseJson')('barf{')");
        assert!(
            message.contains("parseJson: line 1, column 1:"),
            "{message}"
        );
        let message = error("std.native('parseJson')('')");
        assert!(
            message.contains("parseJson: the text holds no JSON value"),
            "{message}"
        );
        // Strict: YAML is not JSON.
        let message = error("std.native('parseJson')('a: 1')");
        assert!(message.contains("parseJson: line 1"), "{message}");
    }

    #[test]
    fn parse_yaml_always_gives_an_array() {
        assert_eq!(
            eval("std.native('parseYaml')('a: 1\\n---\\nb: 2')"),
            json!([{"a": 1}, {"b": 2}])
        );
        assert_eq!(
            eval("std.native('parseYaml')('a: [x, 2]')"),
            json!([{"a": ["x", 2]}])
        );
        assert_eq!(eval("std.native('parseYaml')('')"), json!([]));
        // Empty and null documents are left out, as qbec leaves out nils.
        assert_eq!(
            eval(
                "std.native('parseYaml')('---\\n---\\nhello\\n---\\nnull\\n---\\n~\\n---\\nworld')"
            ),
            json!(["hello", "world"])
        );
        assert_eq!(
            eval(
                "local a = std.native('parseYaml')('foo:\\n- 3\\n- 4\\n')[0]; a.foo[0] + a.foo[1]"
            ),
            json!(7)
        );
    }

    #[test]
    fn parse_yaml_errors_have_positions() {
        let message = error("std.native('parseYaml')('a: 1\\nb: [barf')");
        assert!(message.contains("parseYaml: line "), "{message}");
        assert!(message.contains("invalid yaml"), "{message}");
        let message = error("std.native('parseYaml')('a: 1\\na: 2')");
        assert!(
            message.contains("parseYaml: line 2, column 1: duplicate key `a`"),
            "{message}"
        );
    }

    #[test]
    fn parse_limits_apply() {
        let limits = Limits {
            max_bytes: 10,
            ..Limits::default()
        };
        let result = state_with(limits)
            .evaluate_snippet("t.jsonnet", "std.native('parseYaml')('a: 12345678901')");
        let message = result.unwrap_err().to_string();
        assert!(
            message.contains("more than the limit of 10 bytes"),
            "{message}"
        );
    }

    #[test]
    fn render_yaml_writes_documents() {
        assert_eq!(
            eval("std.native('renderYaml')({c: 'foo', a: 1, b: true, h:: 'hidden'})"),
            json!("a: 1\nb: true\nc: foo\n")
        );
        // An array is a stream, nulls left out.
        assert_eq!(
            eval("std.native('renderYaml')([{foo: 'bar'}, null, {foo: 'baz'}])"),
            json!("foo: bar\n---\nfoo: baz\n")
        );
        // Wrapped, an array is one document.
        assert_eq!(
            eval("std.native('renderYaml')([[1, 2]])"),
            json!("- 1\n- 2\n")
        );
        assert_eq!(eval("std.native('renderYaml')(null)"), json!(""));
        assert_eq!(eval("std.native('renderYaml')([])"), json!(""));
        assert_eq!(eval("std.native('renderYaml')('text')"), json!("text\n"));
    }

    #[test]
    fn render_yaml_round_trips_through_parse_yaml() {
        let code = "local data = [{a: 1, b: true, c: 'foo', d: [1.5, 'yes', null]}, {e: {}}];
            std.native('parseYaml')(std.native('renderYaml')(data)) == data";
        assert_eq!(eval(code), json!(true));
    }

    #[test]
    fn render_yaml_rejects_functions_and_deep_values() {
        let message = error("std.native('renderYaml')({f: function(x) x})");
        assert!(message.contains("a function cannot be output"), "{message}");
        let limits = Limits {
            max_depth: 3,
            ..Limits::default()
        };
        let result = state_with(limits).evaluate_snippet(
            "t.jsonnet",
            "std.native('renderYaml')({a: {b: {c: {d: 1}}}})",
        );
        let message = result.unwrap_err().to_string();
        assert!(message.contains("nested too deeply"), "{message}");
    }

    #[test]
    fn escape_string_regex_is_go_quote_meta() {
        assert_eq!(
            eval("std.native('escapeStringRegex')('[f]')"),
            json!("\\[f\\]")
        );
        assert_eq!(
            eval(r"std.native('escapeStringRegex')('a.b+c*d?e(f)g|h[i]j{k}l^m$n\\o-p#q&r~s')"),
            json!(r"a\.b\+c\*d\?e\(f\)g\|h\[i\]j\{k\}l\^m\$n\\o-p#q&r~s")
        );
        // What it escapes matches itself literally.
        assert_eq!(
            eval(
                "local s = 'a.b(c)-[d]'; \
                 std.native('regexMatch')('^' + std.native('escapeStringRegex')(s) + '$', s)"
            ),
            json!(true)
        );
    }

    #[test]
    fn regex_match_searches_anywhere() {
        assert_eq!(
            eval("std.native('regexMatch')('foo.*', 'seafood')"),
            json!(true)
        );
        assert_eq!(
            eval("std.native('regexMatch')('bar.*', 'seafood')"),
            json!(false)
        );
        assert_eq!(
            eval("std.native('regexMatch')('^sea', 'seafood')"),
            json!(true)
        );
        assert_eq!(
            eval("std.native('regexMatch')('^food', 'seafood')"),
            json!(false)
        );
        let message = error("std.native('regexMatch')('[f', 'foo')");
        assert!(
            message.contains("regexMatch: invalid regex '[f'"),
            "{message}"
        );
    }

    #[test]
    fn regex_subst_replaces_all_with_expansion() {
        assert_eq!(
            eval("std.native('regexSubst')('a(x*)b', '-ab-axxb-', 'T')"),
            json!("-T-T-")
        );
        assert_eq!(
            eval("std.native('regexSubst')('a(x*)b', '-ab-axxb-', '${1}W')"),
            json!("-W-xxW-")
        );
        // `$1W` names the group `1W`, which does not exist: empty, as in Go.
        assert_eq!(
            eval("std.native('regexSubst')('a(x*)b', '-ab-axxb-', '$1W')"),
            json!("---")
        );
        assert_eq!(
            eval("std.native('regexSubst')('(?P<k>\\\\w+)=(?P<v>\\\\w+)', 'a=1,b=2', '$v=$k')"),
            json!("1=a,2=b")
        );
        // The cache hands back the same pattern again.
        assert_eq!(
            eval("[std.native('regexSubst')('o', s, '0') for s in ['foo', 'boo']]"),
            json!(["f00", "b00"])
        );
        let message = error("std.native('regexSubst')('[f', 'foo', 'bar')");
        assert!(
            message.contains("regexSubst: invalid regex '[f'"),
            "{message}"
        );
    }

    /// Whether the labels match `selector`, through Jsonnet.
    fn selects(labels: &str, selector: &str) -> bool {
        let code = format!("std.native('labelsMatchSelector')({labels}, '{selector}')");
        match eval(&code) {
            serde_json::Value::Bool(b) => b,
            other => panic!("{code} gave {other}"),
        }
    }

    const LABELS: &str = "{env: 'dev', region: 'us-west', 'app.kubernetes.io/name': 'web', \
                          tier: '', replicas: '3'}";

    #[test]
    fn selectors_match_as_in_kubernetes() {
        let cases = [
            // qbec's own cases.
            ("env", true),
            ("!env", false),
            ("env,region", true),
            ("foo", false),
            ("region=us-west", true),
            ("env=prod", false),
            ("region=us-west,env=dev", true),
            ("region=us-west,!env", false),
            ("env in (prod, dev)", true),
            ("env notin (prod, dev)", false),
            // Equality spellings and whitespace.
            ("env==dev", true),
            ("  env  ==  dev  ,  region = us-west  ", true),
            ("env!=prod", true),
            ("env!=dev", false),
            // `!=` and `notin` match an absent key; `=` and `in` do not.
            ("owner!=me", true),
            ("owner notin (me, you)", true),
            ("owner=me", false),
            ("owner in (me)", false),
            ("!owner", true),
            // Prefixed keys.
            ("app.kubernetes.io/name=web", true),
            ("app.kubernetes.io/name in (api,worker)", false),
            ("app.kubernetes.io/name", true),
            ("!app.kubernetes.io/name", false),
            // Empty values.
            ("tier=", true),
            ("tier in ()", true),
            ("env in (,dev)", true),
            ("env in (prod,)", false),
            // `in` is a keyword only where an operator goes.
            ("in", false),
            ("env notin (in, notin)", true),
            // Integer comparisons.
            ("replicas>2", true),
            ("replicas<2", false),
            ("env>2", false),
            // The empty selector matches everything.
            ("", true),
            ("   ", true),
        ];
        for (selector, expected) in cases {
            assert_eq!(selects(LABELS, selector), expected, "selector {selector:?}");
        }
        assert!(selects("{}", ""));
        assert!(selects("{}", "!env"));
        assert!(!selects("{}", "env"));
    }

    #[test]
    fn malformed_selectors_are_errors() {
        let cases = [
            ("!!env", "found '!', expected a key"),
            (
                "env=dev,",
                "found the end of the selector, expected '!' or a key",
            ),
            (",env", "found ',', expected '!' or a key"),
            ("env dev", "found 'dev', expected one of '='"),
            ("env in dev", "found 'dev', expected '('"),
            ("env in (a b)", "found 'b', expected ',', ')' or a value"),
            (
                "env in (a",
                "found the end of the selector, expected ',', ')' or a value",
            ),
            (
                "env=a=b",
                "found '=', expected ',' or the end of the selector",
            ),
            (
                "!env=dev",
                "found '=', expected ',' or the end of the selector",
            ),
            ("env=(", "found '(', expected a value"),
            ("a/b/c", "more than one '/'"),
            ("Example.com/name", "the prefix must be a DNS subdomain"),
            ("/name", "the prefix must be a DNS subdomain"),
            ("-env", "the name must be"),
            ("example.com/", "the name must be"),
            ("env=-dev", "value '-dev'"),
            ("replicas>two", "'two' is not an integer"),
        ];
        for (selector, why) in cases {
            let message = error(&format!(
                "std.native('labelsMatchSelector')({LABELS}, '{selector}')"
            ));
            let prefix = format!("invalid label selector: '{selector}': ");
            assert!(message.contains(&prefix), "{selector:?}: {message}");
            assert!(message.contains(why), "{selector:?}: {message}");
        }
        let long = "a".repeat(64);
        let message = error(&format!(
            "std.native('labelsMatchSelector')({{}}, '{long}')"
        ));
        assert!(message.contains("the name must be 1 to 63"), "{message}");
    }

    #[test]
    fn labels_must_be_an_object_of_strings() {
        let message = error("std.native('labelsMatchSelector')({ foo: {} }, 'foo')");
        assert!(
            message.contains("invalid label map value for `foo`, object, want a string"),
            "{message}"
        );
        let message = error("std.native('labelsMatchSelector')({ foo: 1 }, 'foo')");
        assert!(message.contains("number, want a string"), "{message}");
        let message = error("std.native('labelsMatchSelector')([], 'foo')");
        assert!(message.contains("labels"), "{message}");
        let message = error("std.native('labelsMatchSelector')({}, {})");
        assert!(message.contains("selectorString"), "{message}");
        // Hidden fields are not labels.
        assert!(selects("{ foo:: {} }", "!foo"));
    }

    #[test]
    fn tokens_and_requirements() {
        assert_eq!(
            tokenize("a!=b,!c==(d)<>"),
            [
                Token::Word("a"),
                Token::NotEquals,
                Token::Word("b"),
                Token::Comma,
                Token::Not,
                Token::Word("c"),
                Token::DoubleEquals,
                Token::Open,
                Token::Word("d"),
                Token::Close,
                Token::Less,
                Token::Greater,
                Token::End,
            ]
        );
        assert_eq!(
            parse_selector("x in (b, a, b)").unwrap(),
            [Requirement {
                key: "x",
                operator: Operator::In,
                values: vec!["b", "a"],
            }]
        );
    }
}

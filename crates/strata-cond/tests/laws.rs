//! Properties of the language that hold for any input.

use proptest::prelude::*;
use strata_cond::{Host, HostError, Template, evaluate, parse};
use strata_syntax::{Mapping, Node, Span, Value};

struct NoFiles;

impl Host for NoFiles {
    fn jsonnet(&self, path: &str) -> Result<Node, HostError> {
        Err(HostError::Call(path.to_owned()))
    }
    fn file(&self, path: &str) -> Result<String, HostError> {
        Err(HostError::Call(path.to_owned()))
    }
}

fn empty() -> Node {
    Node::new(Value::Map(Mapping::default()), Span::default())
}

proptest! {
    /// Any text, with every `${` escaped as `$${`, renders to itself.
    #[test]
    fn escaped_text_renders_to_itself(text in "[a-z${} '\"]{0,40}") {
        let escaped = text.replace("${", "$${");
        let rendered = match Template::parse(&escaped).unwrap() {
            Some(template) => template.render(&empty(), &NoFiles, Span::default()).unwrap(),
            None => Node::new(Value::String(escaped.clone()), Span::default()),
        };
        prop_assert_eq!(rendered.as_str(), Some(text.as_str()));
    }

    /// Parsing never panics, and every error points inside the text.
    #[test]
    fn parse_errors_stay_in_the_text(text in "[a-z0-9 .()\\[\\]!&|=<>+*/%?'\"-]{0,40}") {
        if let Err(error) = parse(&text) {
            prop_assert!(error.range.start <= error.range.end && error.range.end <= text.len());
        }
        let template = format!("x ${{{text}}} y");
        if let Err(error) = Template::parse(&template) {
            prop_assert!(error.range.start <= error.range.end && error.range.end <= template.len());
        }
    }

    /// Integer arithmetic and comparison agree with Rust's.
    #[test]
    fn integer_arithmetic_matches(a in -1_000_000i64..1_000_000, b in -1_000_000i64..1_000_000) {
        let value = |text: String| evaluate(&parse(&text).unwrap(), &empty(), &NoFiles).unwrap().to_json_value();
        prop_assert_eq!(value(format!("{a} + ({b})")), serde_json::json!(a + b));
        prop_assert_eq!(value(format!("{a} * ({b})")), serde_json::json!(a * b));
        prop_assert_eq!(value(format!("{a} < ({b})")), serde_json::json!(a < b));
        prop_assert_eq!(value(format!("{a} == ({b}) || {a} != ({b})")), serde_json::json!(true));
    }

    /// A float written by `string` (as Go's `%v`) reads back as itself.
    #[test]
    fn floats_written_as_go_read_back(x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO) {
        let scope = Node::mapping([("x", Node::new(Value::Float(x), Span::default()))]);
        let written = evaluate(&parse("string(x)").unwrap(), &scope, &NoFiles).unwrap();
        let text = written.as_str().unwrap().to_owned();
        let read: f64 = text.parse().unwrap();
        prop_assert_eq!(read.to_bits(), x.to_bits(), "{}", text);
    }

    /// Any sequence of the language's tokens parses or fails at a place in
    /// the text, and evaluates or fails, without a panic and in bounded
    /// work.
    #[test]
    fn token_soup_never_panics(tokens in proptest::collection::vec(proptest::sample::select(TOKENS), 0..24)) {
        let text = tokens.join(" ");
        match parse(&text) {
            Ok(expr) => {
                if let Err(error) = evaluate(&expr, &soup_scope(), &NoFiles) {
                    prop_assert!(error.range.end <= text.len());
                }
            }
            Err(error) => prop_assert!(error.range.start <= error.range.end && error.range.end <= text.len()),
        }
    }
}

/// The tokens the soup is made of: literals, operators, names of
/// functions and of the scope, keywords.
const TOKENS: &[&str] = &[
    "1",
    "2.5",
    "0x1f",
    "'a'",
    "`b`",
    "nil",
    "true",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    "(",
    ")",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "^",
    "..",
    "??",
    "?",
    "?.",
    "&&",
    "||",
    "!",
    "not",
    "in",
    "contains",
    "matches",
    "==",
    "<",
    "<=",
    "#",
    "#acc",
    "#index",
    ".",
    ".a",
    "a",
    "xs",
    "$env",
    "let",
    "=",
    ";",
    "|",
    "if",
    "else",
    "map(",
    "filter(",
    "reduce(",
    "groupBy(",
    "sortBy(",
    "len(",
    "string(",
    "toJSON(",
    "date(",
    "duration(",
    "split(",
    "repeat(",
    "concat(",
    "1..3",
];

fn soup_scope() -> Node {
    let numbers = (1..=5)
        .map(|i| Node::new(Value::Int(i), Span::default()))
        .collect();
    Node::mapping([
        (
            "a",
            Node::mapping([("a", Node::new(Value::Int(1), Span::default()))]),
        ),
        ("xs", Node::new(Value::Seq(numbers), Span::default())),
    ])
}

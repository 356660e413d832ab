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
}

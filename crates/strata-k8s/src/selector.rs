//! Kubernetes label selectors, as apimachinery's `labels.Parse` reads them.
//!
//! Hand-written because no Rust library implements that parser. It follows
//! its grammar and validation:
//!
//! ```text
//! selector    := "" | requirement ("," requirement)*
//! requirement := "!" key | key | key op value | key ("in" | "notin") "(" values ")"
//! op          := "=" | "==" | "!=" | ">" | "<"
//! values      := [value] ("," [value])*      an omitted value is ""
//! ```
//!
//! Whitespace may surround any token. A key is a qualified name (an optional
//! DNS-subdomain prefix and "/", then a name), a value a label value
//! ([`crate::names`]); "in" and "notin" are keywords only where an operator
//! is expected. The empty selector matches everything; `!=` and `notin` also
//! match when the key is absent; `>` and `<` compare integers.
//!
//! ```
//! use std::collections::BTreeMap;
//! use strata_k8s::Selector;
//!
//! let labels = BTreeMap::from([("app".to_owned(), "web".to_owned())]);
//! assert!(Selector::parse("app in (web, api), !legacy").unwrap().matches(&labels));
//! assert!(Selector::parse("app = ").is_ok());
//! assert!(Selector::parse("app in web").is_err());
//! ```

use std::collections::BTreeMap;

use crate::names::{MAX_NAME, MAX_SUBDOMAIN, is_dns1123_subdomain, is_label_name};

/// A parsed selector, borrowing its keys and values from the text.
#[derive(Debug, PartialEq, Eq)]
pub struct Selector<'a> {
    requirements: Vec<Requirement<'a>>,
}

impl<'a> Selector<'a> {
    /// Parses `text`, or says what is wrong with it (in apimachinery's terms).
    pub fn parse(text: &'a str) -> Result<Selector<'a>, String> {
        parse_selector(text).map(|requirements| Selector { requirements })
    }

    /// Whether labels satisfy every requirement.
    #[must_use]
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements
            .iter()
            .all(|requirement| requirement.matches(labels))
    }
}

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
fn parse_selector(text: &str) -> Result<Vec<Requirement<'_>>, String> {
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
    fn requirement(&mut self) -> Result<Requirement<'a>, String> {
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
    fn value(&mut self) -> Result<&'a str, String> {
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
    fn value_set(&mut self) -> Result<Vec<&'a str>, String> {
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

/// Checks a key: `[prefix/]name`, the prefix a DNS subdomain.
fn validate_key(key: &str) -> Result<(), String> {
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
        && !is_dns1123_subdomain(prefix)
    {
        return Err(format!(
            "key '{key}': the prefix must be a DNS subdomain: at most {MAX_SUBDOMAIN} characters, \
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
fn validate_value(value: &str) -> Result<(), String> {
    if value.is_empty() || is_label_name(value) {
        Ok(())
    } else {
        Err(format!(
            "value '{value}': a label value must be empty or up to {MAX_NAME} letters, digits, \
             '-', '_' or '.', starting and ending with a letter or digit"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> BTreeMap<String, String> {
        [("app", "web"), ("tier", "front"), ("replicas", "3")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    fn selects(selector: &str) -> bool {
        Selector::parse(selector)
            .unwrap_or_else(|why| panic!("{selector}: {why}"))
            .matches(&labels())
    }

    #[test]
    fn requirements_match_as_in_kubernetes() {
        for (selector, expected) in [
            ("", true),
            ("app=web", true),
            ("app==web,tier!=back", true),
            ("app in (api, web)", true),
            ("app notin (web)", false),
            ("missing notin (x)", true),
            ("missing!=x", true),
            ("!missing, app", true),
            ("!app", false),
            ("replicas>2,replicas<4", true),
            ("tier>1", false),
            ("example.com/app in (,web)", false),
        ] {
            assert_eq!(selects(selector), expected, "{selector:?}");
        }
    }

    #[test]
    fn malformed_selectors_say_what_is_wrong() {
        for (selector, why) in [
            ("app in web", "expected '('"),
            (
                "a=b=c",
                "found '=', expected ',' or the end of the selector",
            ),
            ("app>x", "an integer"),
            ("-app", "key '-app'"),
            ("a/b/c", "more than one '/'"),
            ("app=-x", "value '-x'"),
        ] {
            let error = Selector::parse(selector).expect_err(selector);
            assert!(error.contains(why), "{selector:?}: {error}");
        }
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

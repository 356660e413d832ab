//! Tokens: the text of an expression cut into names, literals and
//! symbols, each with its byte range. Comments (`// ..` to the end of the
//! line, `/* .. */`) and whitespace separate tokens and are dropped.
//!
//! - Strings: `'..'` and `".."` with the escapes `\n \t \r \0 \\ \' \"
//!   \uXXXX`; `` `..` `` is raw (no escapes, may span lines).
//! - Numbers: `42`, `1_000`, `0x2A`, `0o52`, `0b101010` (integers), `0.5`,
//!   `.5`, `1e3`, `1.5e-3` (floats).
//! - Names: letters, digits, `_` and `$` (`$env`), not starting with a digit.

use std::ops::Range;

use crate::CondError;

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token {
    Int(i64),
    Float(f64),
    String(String),
    Ident(String),
    Symbol(&'static str),
    End,
}

impl Token {
    /// The token for messages: `` `+` ``, `number 1`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Token::Int(i) => format!("number `{i}`"),
            Token::Float(f) => format!("number `{f}`"),
            Token::String(s) => format!("string {s:?}"),
            Token::Ident(name) => format!("`{name}`"),
            Token::Symbol(symbol) => format!("`{symbol}`"),
            Token::End => "end of the expression".to_owned(),
        }
    }

    /// Whether a value can end with this token (so a `.` after it is an
    /// accessor, not the start of a number such as `.5`).
    fn ends_value(&self) -> bool {
        matches!(
            self,
            Token::Int(_)
                | Token::Float(_)
                | Token::String(_)
                | Token::Ident(_)
                | Token::Symbol(")" | "]" | "}" | "#")
        )
    }
}

/// The symbols, longest first where one is the start of another.
const SYMBOLS: &[&str] = &[
    "??", "?.", "?", ":", "**", "..", "#", "||", "&&", "==", "!=", "<=", ">=", "<", ">", "!", "+",
    "-", "*", "/", "%", "^", "|", "(", ")", "[", "]", "{", "}", ".", ",", ";", "=",
];

/// Cuts `text` into tokens; every range is moved by `offset` (where the
/// text starts in the file's scalar).
pub(crate) fn tokenize(text: &str, offset: usize) -> Result<Vec<(Token, Range<usize>)>, CondError> {
    let bytes = text.as_bytes();
    let mut tokens: Vec<(Token, Range<usize>)> = Vec::new();
    let at_offset = |range: Range<usize>| range.start + offset..range.end + offset;
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        if c.is_ascii_whitespace() {
            at += 1;
            continue;
        }
        let start = at;
        if text[at..].starts_with("//") {
            at = text[at..].find('\n').map_or(text.len(), |end| at + end);
            continue;
        }
        if text[at..].starts_with("/*") {
            let Some(end) = text[at + 2..].find("*/") else {
                return Err(crate::parse_error(
                    "the comment is not closed by `*/`",
                    at_offset(at..text.len()),
                ));
            };
            at += 2 + end + 2;
            continue;
        }
        let follows_value = tokens.last().is_some_and(|(token, _)| token.ends_value());
        let token = if c == b'\'' || c == b'"' {
            let (value, end) = string(text, at).map_err(|error| error.shifted(offset))?;
            at = end;
            Token::String(value)
        } else if c == b'`' {
            let Some(end) = text[at + 1..].find('`') else {
                return Err(crate::parse_error(
                    "the string is not closed",
                    at_offset(at..text.len()),
                ));
            };
            at += 1 + end + 1;
            Token::String(text[start + 1..at - 1].to_owned())
        } else if c.is_ascii_digit()
            || (c == b'.' && !follows_value && bytes.get(at + 1).is_some_and(u8::is_ascii_digit))
        {
            let (token, end) = number(text, at).map_err(|error| error.shifted(offset))?;
            at = end;
            token
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            while at < bytes.len()
                && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_' || bytes[at] == b'$')
            {
                at += 1;
            }
            Token::Ident(text[start..at].to_owned())
        } else if let Some(symbol) = SYMBOLS.iter().find(|s| text[at..].starts_with(**s)) {
            at += symbol.len();
            Token::Symbol(symbol)
        } else {
            let width = text[at..].chars().next().map_or(1, char::len_utf8);
            let shown = &text[at..at + width];
            let message = if shown == "&" {
                "unexpected `&`; did you mean `&&`?".to_owned()
            } else {
                format!("unexpected character `{shown}`")
            };
            return Err(crate::parse_error(message, at_offset(at..at + width)));
        };
        tokens.push((token, at_offset(start..at)));
    }
    tokens.push((Token::End, at_offset(text.len()..text.len())));
    Ok(tokens)
}

/// A quoted string starting at `start`: its value and where it ends.
fn string(text: &str, start: usize) -> Result<(String, usize), CondError> {
    let quote = text.as_bytes()[start] as char;
    let mut value = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        let at = start + 1 + offset;
        match c {
            c if c == quote => return Ok((value, at + 1)),
            '\\' => {
                let Some((_, escaped)) = chars.next() else {
                    break;
                };
                value.push(match escaped {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    '\\' | '\'' | '"' => escaped,
                    'u' => {
                        let digits: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
                        u32::from_str_radix(&digits, 16)
                            .ok()
                            .filter(|_| digits.len() == 4)
                            .and_then(char::from_u32)
                            .ok_or_else(|| {
                                crate::parse_error(
                                    format!("`\\u{digits}` is not a character"),
                                    at..at + 2 + digits.len(),
                                )
                            })?
                    }
                    other => {
                        return Err(crate::parse_error(
                            format!("unknown escape `\\{other}`"),
                            at..at + 1 + other.len_utf8(),
                        ));
                    }
                });
            }
            c => value.push(c),
        }
    }
    Err(crate::parse_error(
        "the string is not closed",
        start..text.len(),
    ))
}

/// A number starting at `start`: decimal, or `0x`/`0o`/`0b` integers.
fn number(text: &str, start: usize) -> Result<(Token, usize), CondError> {
    let bytes = text.as_bytes();
    let word_end = |from: usize| {
        let mut end = from;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
            end += 1;
        }
        end
    };
    let invalid = |end: usize| {
        crate::parse_error(
            format!(
                "`{}` is not a number this language can hold",
                &text[start..end]
            ),
            start..end,
        )
    };
    let radix = match text[start..]
        .get(..2)
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("0x") => Some(16),
        Some("0o") => Some(8),
        Some("0b") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        let end = word_end(start + 2);
        let digits = text[start + 2..end].replace('_', "");
        return i64::from_str_radix(&digits, radix)
            .map(|i| (Token::Int(i), end))
            .map_err(|_| invalid(end));
    }
    let mut end = start;
    let digits = |end: &mut usize| {
        while *end < bytes.len() && (bytes[*end].is_ascii_digit() || bytes[*end] == b'_') {
            *end += 1;
        }
    };
    digits(&mut end);
    let mut float = false;
    if end + 1 < bytes.len() && bytes[end] == b'.' && bytes[end + 1].is_ascii_digit() {
        float = true;
        end += 1;
        digits(&mut end);
    }
    if end < bytes.len() && (bytes[end] == b'e' || bytes[end] == b'E') {
        let mut exponent = end + 1;
        if exponent < bytes.len() && (bytes[exponent] == b'+' || bytes[exponent] == b'-') {
            exponent += 1;
        }
        if exponent < bytes.len() && bytes[exponent].is_ascii_digit() {
            float = true;
            end = exponent;
            digits(&mut end);
        }
    }
    let written = text[start..end].replace('_', "");
    let token = if float {
        written
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Token::Float)
    } else {
        written.parse().map(Token::Int).ok()
    };
    token.map(|token| (token, end)).ok_or_else(|| invalid(end))
}

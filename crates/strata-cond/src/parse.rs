//! Tokens and the parser: text to an [`Expr`] whose every node knows its
//! byte range in the text.
//!
//! Precedence, loosest first (all binary operators associate left):
//!
//! | operators | |
//! |---|---|
//! | `\|\|` `or` | either |
//! | `&&` `and` | both |
//! | `==` `!=` `<` `<=` `>` `>=` `in` | comparison, membership |
//! | `+` `-` | sum, concatenation |
//! | `*` `/` `%` | product |
//! | `!` `not` `-` (prefix) | negation |
//! | `??` | the right side when the left is `null` |
//! | `.name` `[index]` `f(args)` (postfix) | access, call |
//!
//! `??` binds tighter than arithmetic, as in expr: `a ?? 1 + 2` is
//! `(a ?? 1) + 2`.

use std::ops::Range;

use crate::CondError;

/// The deepest nesting of an expression.
pub const MAX_DEPTH: usize = 128;

/// An expression with its byte range.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is in the text.
    pub range: Range<usize>,
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `null` or `nil`.
    Null,
    /// `true`, `false`.
    Bool(bool),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal, unescaped.
    String(String),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// A top-level name of the configuration.
    Name(String),
    /// `target.name`.
    Member(Box<Expr>, String),
    /// `target[index]`.
    Index(Box<Expr>, Box<Expr>),
    /// `name(args)`.
    Call(String, Vec<Expr>),
    /// A prefix operator.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operator.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `condition ? then : otherwise`.
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `#`: the item a predicate is evaluated for (`.name` is `#.name`).
    Pointer,
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `!`, `not`.
    Not,
    /// `-`.
    Negate,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `||`.
    Or,
    /// `&&`.
    And,
    /// `==`.
    Equal,
    /// `!=`.
    NotEqual,
    /// `<`.
    Less,
    /// `<=`.
    LessEqual,
    /// `>`.
    Greater,
    /// `>=`.
    GreaterEqual,
    /// `in`.
    In,
    /// `not in`.
    NotIn,
    /// `+`.
    Add,
    /// `-`.
    Subtract,
    /// `*`.
    Multiply,
    /// `/`.
    Divide,
    /// `%`.
    Remainder,
    /// `??`.
    Coalesce,
    /// `contains` (a string holds another).
    Contains,
    /// `startsWith`.
    StartsWith,
    /// `endsWith`.
    EndsWith,
    /// `matches` (a string matches a regular expression).
    Matches,
    /// `..` (the integers from one to the other, both included).
    Range,
    /// `**` (a power, a float).
    Power,
}

impl BinaryOp {
    /// How the operator is written.
    #[must_use]
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Equal => "==",
            BinaryOp::NotEqual => "!=",
            BinaryOp::Less => "<",
            BinaryOp::LessEqual => "<=",
            BinaryOp::Greater => ">",
            BinaryOp::GreaterEqual => ">=",
            BinaryOp::In => "in",
            BinaryOp::NotIn => "not in",
            BinaryOp::Add => "+",
            BinaryOp::Subtract => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::Remainder => "%",
            BinaryOp::Coalesce => "??",
            BinaryOp::Contains => "contains",
            BinaryOp::StartsWith => "startsWith",
            BinaryOp::EndsWith => "endsWith",
            BinaryOp::Matches => "matches",
            BinaryOp::Range => "..",
            BinaryOp::Power => "**",
        }
    }

    /// How tightly it binds (higher is tighter).
    fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => 1,
            BinaryOp::And => 2,
            BinaryOp::Equal
            | BinaryOp::NotEqual
            | BinaryOp::Less
            | BinaryOp::LessEqual
            | BinaryOp::Greater
            | BinaryOp::GreaterEqual
            | BinaryOp::In
            | BinaryOp::NotIn
            | BinaryOp::Contains
            | BinaryOp::StartsWith
            | BinaryOp::EndsWith
            | BinaryOp::Matches => 3,
            BinaryOp::Range => 4,
            BinaryOp::Add | BinaryOp::Subtract => 5,
            BinaryOp::Multiply | BinaryOp::Divide | BinaryOp::Remainder => 6,
            BinaryOp::Power => 9,
            BinaryOp::Coalesce => 10,
        }
    }
}

/// The precedence of prefix operators: between products and powers
/// (`-2 ** 2` is `-(2 ** 2)`, as in expr).
const PREFIX: u8 = 8;

/// A token with its range.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Int(i64),
    Float(f64),
    String(String),
    Ident(String),
    Symbol(&'static str),
    End,
}

const SYMBOLS: &[&str] = &[
    "??", "?.", "?", ":", "**", "..", "#", "||", "&&", "==", "!=", "<=", ">=", "<", ">", "!", "+",
    "-", "*", "/", "%", "(", ")", "[", "]", ".", ",",
];

/// Parses a whole expression.
pub fn parse(text: &str) -> Result<Expr, CondError> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        position: 0,
        depth: 0,
    };
    if matches!(parser.peek(), Token::End) {
        return Err(crate::parse_error("the expression is empty", 0..text.len()));
    }
    let expr = parser.ternary()?;
    match parser.peek() {
        Token::End => Ok(expr),
        token => {
            let range = parser.range();
            Err(crate::parse_error(
                format!("unexpected {} after the expression", describe(token)),
                range,
            ))
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<(Token, Range<usize>)>, CondError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        if c.is_ascii_whitespace() {
            at += 1;
            continue;
        }
        let start = at;
        if c == b'\'' || c == b'"' {
            let (value, end) = string(text, at)?;
            tokens.push((Token::String(value), start..end));
            at = end;
        } else if c.is_ascii_digit() {
            let (token, end) = number(text, at)?;
            tokens.push((token, start..end));
            at = end;
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            while at < bytes.len()
                && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_' || bytes[at] == b'$')
            {
                at += 1;
            }
            tokens.push((Token::Ident(text[start..at].to_owned()), start..at));
        } else if let Some(symbol) = SYMBOLS.iter().find(|s| text[at..].starts_with(**s)) {
            at += symbol.len();
            tokens.push((Token::Symbol(symbol), start..at));
        } else {
            let width = text[at..].chars().next().map_or(1, char::len_utf8);
            let shown = &text[at..at + width];
            let message = if shown == "=" {
                "unexpected `=`; equality is `==`".to_owned()
            } else if shown == "&" || shown == "|" {
                format!("unexpected `{shown}`; did you mean `{shown}{shown}`?")
            } else {
                format!("unexpected character `{shown}`")
            };
            return Err(crate::parse_error(message, at..at + width));
        }
    }
    tokens.push((Token::End, text.len()..text.len()));
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

/// A number starting at `start`.
fn number(text: &str, start: usize) -> Result<(Token, usize), CondError> {
    let bytes = text.as_bytes();
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
        written.parse().map(Token::Float).ok()
    } else {
        written.parse().map(Token::Int).ok()
    };
    token.map(|token| (token, end)).ok_or_else(|| {
        crate::parse_error(
            format!(
                "`{}` is not a number this language can hold",
                &text[start..end]
            ),
            start..end,
        )
    })
}

fn describe(token: &Token) -> String {
    match token {
        Token::Int(i) => format!("number `{i}`"),
        Token::Float(f) => format!("number `{f}`"),
        Token::String(s) => format!("string {s:?}"),
        Token::Ident(name) => format!("`{name}`"),
        Token::Symbol(symbol) => format!("`{symbol}`"),
        Token::End => "end of the expression".to_owned(),
    }
}

struct Parser {
    tokens: Vec<(Token, Range<usize>)>,
    position: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.position].0
    }

    fn range(&self) -> Range<usize> {
        self.tokens[self.position].1.clone()
    }

    fn advance(&mut self) -> (Token, Range<usize>) {
        let token = self.tokens[self.position].clone();
        if self.position + 1 < self.tokens.len() {
            self.position += 1;
        }
        token
    }

    fn expect(&mut self, symbol: &'static str) -> Result<Range<usize>, CondError> {
        if self.peek() == &Token::Symbol(symbol) {
            return Ok(self.advance().1);
        }
        Err(crate::parse_error(
            format!("expected `{symbol}`, found {}", describe(self.peek())),
            self.range(),
        ))
    }

    fn binary_op(&self) -> Option<BinaryOp> {
        Some(match self.peek() {
            Token::Symbol("||") => BinaryOp::Or,
            Token::Ident(word) if word == "or" => BinaryOp::Or,
            Token::Symbol("&&") => BinaryOp::And,
            Token::Ident(word) if word == "and" => BinaryOp::And,
            Token::Symbol("==") => BinaryOp::Equal,
            Token::Symbol("!=") => BinaryOp::NotEqual,
            Token::Symbol("<") => BinaryOp::Less,
            Token::Symbol("<=") => BinaryOp::LessEqual,
            Token::Symbol(">") => BinaryOp::Greater,
            Token::Symbol(">=") => BinaryOp::GreaterEqual,
            Token::Ident(word) if word == "in" => BinaryOp::In,
            Token::Ident(word)
                if word == "not"
                    && matches!(self.tokens.get(self.position + 1), Some((Token::Ident(next), _)) if next == "in") =>
            {
                BinaryOp::NotIn
            }
            Token::Symbol("+") => BinaryOp::Add,
            Token::Symbol("-") => BinaryOp::Subtract,
            Token::Symbol("*") => BinaryOp::Multiply,
            Token::Symbol("/") => BinaryOp::Divide,
            Token::Symbol("%") => BinaryOp::Remainder,
            Token::Symbol("??") => BinaryOp::Coalesce,
            Token::Ident(word) if word == "contains" => BinaryOp::Contains,
            Token::Ident(word) if word == "startsWith" => BinaryOp::StartsWith,
            Token::Ident(word) if word == "endsWith" => BinaryOp::EndsWith,
            Token::Ident(word) if word == "matches" => BinaryOp::Matches,
            Token::Symbol("..") => BinaryOp::Range,
            Token::Symbol("**") => BinaryOp::Power,
            _ => return None,
        })
    }

    /// A whole expression: `condition ? then : otherwise` (the loosest,
    /// grouping to the right) or an operator expression.
    fn ternary(&mut self) -> Result<Expr, CondError> {
        let condition = self.expression(0)?;
        if self.peek() != &Token::Symbol("?") {
            return Ok(condition);
        }
        self.depth += 1;
        self.check_chain(1)?;
        self.advance();
        let then = self.ternary()?;
        self.expect(":")?;
        let otherwise = self.ternary()?;
        self.depth -= 1;
        let range = condition.range.start..otherwise.range.end;
        Ok(Expr {
            kind: ExprKind::Conditional(Box::new(condition), Box::new(then), Box::new(otherwise)),
            range,
        })
    }

    /// Operators binding tighter than `min`, by precedence climbing.
    fn expression(&mut self, min: u8) -> Result<Expr, CondError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(crate::parse_error(
                format!("the expression is nested more than {MAX_DEPTH} deep"),
                self.range(),
            ));
        }
        let mut left = self.prefix()?;
        // Each operator folded here nests `left` one level deeper: a chain
        // `a && b && ...` is as deep as it is long, and evaluating or
        // dropping it recurses that deep, so it counts toward the depth.
        let mut chained = 0;
        while let Some(op) = self.binary_op() {
            let precedence = op.precedence();
            if precedence <= min {
                break;
            }
            chained += 1;
            self.check_chain(chained)?;
            self.advance();
            if op == BinaryOp::NotIn {
                self.advance();
            }
            // `**` groups to the right: `2 ** 3 ** 2` is `2 ** (3 ** 2)`.
            let right = if op == BinaryOp::Power {
                self.expression(precedence - 1)?
            } else {
                self.expression(precedence)?
            };
            let range = left.range.start..right.range.end;
            left = Expr {
                kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
                range,
            };
        }
        self.depth -= 1;
        Ok(left)
    }

    fn prefix(&mut self) -> Result<Expr, CondError> {
        let op = match self.peek() {
            Token::Symbol("!") => Some(UnaryOp::Not),
            Token::Ident(word) if word == "not" => Some(UnaryOp::Not),
            Token::Symbol("-") => Some(UnaryOp::Negate),
            _ => None,
        };
        let Some(op) = op else {
            return self.postfix();
        };
        let (_, start) = self.advance();
        let operand = self.expression(PREFIX)?;
        let range = start.start..operand.range.end;
        Ok(Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            range,
        })
    }

    /// The error of a chain of `links` operators (or accessors) folded at
    /// the current depth that nests deeper than [`MAX_DEPTH`].
    fn check_chain(&self, links: usize) -> Result<(), CondError> {
        if self.depth + links > MAX_DEPTH {
            return Err(crate::parse_error(
                format!(
                    "the expression is nested more than {MAX_DEPTH} deep (each operator or accessor of a chain nests one level)"
                ),
                self.range(),
            ));
        }
        Ok(())
    }

    fn postfix(&mut self) -> Result<Expr, CondError> {
        let mut expr = self.primary()?;
        // Like a chain of operators, each accessor nests `expr` one level.
        let mut chained = 0;
        loop {
            if matches!(self.peek(), Token::Symbol("." | "?." | "[" | "(")) {
                chained += 1;
                self.check_chain(chained)?;
            }
            match self.peek() {
                // `?.` (optional chaining) reads as `.`: a missing key, or
                // a member of `null`, is already `null` here.
                Token::Symbol(symbol @ ("." | "?.")) => {
                    let optional = *symbol == "?.";
                    self.advance();
                    // `a?.[0]`: the index follows.
                    if optional && self.peek() == &Token::Symbol("[") {
                        continue;
                    }
                    let (token, range) = self.advance();
                    let Token::Ident(name) = token else {
                        return Err(crate::parse_error(
                            format!(
                                "expected a field name after `.`, found {}",
                                describe(&token)
                            ),
                            range,
                        ));
                    };
                    let whole = expr.range.start..range.end;
                    expr = Expr {
                        kind: ExprKind::Member(Box::new(expr), name),
                        range: whole,
                    };
                }
                Token::Symbol("[") => {
                    self.advance();
                    let index = self.ternary()?;
                    let close = self.expect("]")?;
                    let whole = expr.range.start..close.end;
                    expr = Expr {
                        kind: ExprKind::Index(Box::new(expr), Box::new(index)),
                        range: whole,
                    };
                }
                Token::Symbol("(") => {
                    let ExprKind::Name(name) = &expr.kind else {
                        return Err(crate::parse_error(
                            "only a function name can be called",
                            expr.range,
                        ));
                    };
                    let name = name.clone();
                    self.advance();
                    let arguments = self.items(")")?;
                    let close = self.expect(")")?;
                    let whole = expr.range.start..close.end;
                    expr = Expr {
                        kind: ExprKind::Call(name, arguments),
                        range: whole,
                    };
                }
                _ => return Ok(expr),
            }
        }
    }

    /// Comma-separated expressions up to (not including) `close`.
    fn items(&mut self, close: &'static str) -> Result<Vec<Expr>, CondError> {
        let mut items = Vec::new();
        while self.peek() != &Token::Symbol(close) {
            items.push(self.ternary()?);
            if self.peek() == &Token::Symbol(",") {
                self.advance();
            } else if self.peek() != &Token::Symbol(close) {
                return Err(crate::parse_error(
                    format!("expected `,` or `{close}`, found {}", describe(self.peek())),
                    self.range(),
                ));
            }
        }
        Ok(items)
    }

    fn primary(&mut self) -> Result<Expr, CondError> {
        let (token, range) = self.advance();
        let kind = match token {
            Token::Int(i) => ExprKind::Int(i),
            Token::Float(f) => ExprKind::Float(f),
            Token::String(s) => ExprKind::String(s),
            Token::Ident(word) => match word.as_str() {
                "true" => ExprKind::Bool(true),
                "false" => ExprKind::Bool(false),
                "null" | "nil" => ExprKind::Null,
                _ => ExprKind::Name(word),
            },
            Token::Symbol("(") => {
                let inner = self.ternary()?;
                let close = self.expect(")")?;
                return Ok(Expr {
                    kind: inner.kind,
                    range: range.start..close.end,
                });
            }
            Token::Symbol("[") => {
                let items = self.items("]")?;
                let close = self.expect("]")?;
                return Ok(Expr {
                    kind: ExprKind::List(items),
                    range: range.start..close.end,
                });
            }
            Token::Symbol("#") => ExprKind::Pointer,
            // `.name` in a predicate: a field of the item, `#.name`.
            Token::Symbol(".") if matches!(self.peek(), Token::Ident(_)) => {
                let (Token::Ident(name), name_range) = self.advance() else {
                    unreachable!("peeked a name")
                };
                let pointer = Expr {
                    kind: ExprKind::Pointer,
                    range: range.clone(),
                };
                return Ok(Expr {
                    kind: ExprKind::Member(Box::new(pointer), name),
                    range: range.start..name_range.end,
                });
            }
            other => {
                return Err(crate::parse_error(
                    format!("expected a value, found {}", describe(&other)),
                    range,
                ));
            }
        };
        Ok(Expr { kind, range })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expression with explicit parentheses.
    fn shape(expr: &Expr) -> String {
        match &expr.kind {
            ExprKind::Null => "null".to_owned(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Int(i) => i.to_string(),
            ExprKind::Float(f) => format!("{f:?}"),
            ExprKind::String(s) => format!("{s:?}"),
            ExprKind::List(items) => format!(
                "[{}]",
                items.iter().map(shape).collect::<Vec<_>>().join(", ")
            ),
            ExprKind::Name(name) => name.clone(),
            ExprKind::Member(target, name) => format!("{}.{name}", shape(target)),
            ExprKind::Index(target, index) => format!("{}[{}]", shape(target), shape(index)),
            ExprKind::Call(name, args) => format!(
                "{name}({})",
                args.iter().map(shape).collect::<Vec<_>>().join(", ")
            ),
            ExprKind::Unary(UnaryOp::Not, operand) => format!("(!{})", shape(operand)),
            ExprKind::Unary(UnaryOp::Negate, operand) => format!("(-{})", shape(operand)),
            ExprKind::Binary(op, left, right) => {
                format!("({} {} {})", shape(left), op.symbol(), shape(right))
            }
            ExprKind::Pointer => "#".to_owned(),
            ExprKind::Conditional(condition, then, otherwise) => format!(
                "({} ? {} : {})",
                shape(condition),
                shape(then),
                shape(otherwise)
            ),
        }
    }

    #[test]
    fn powers_ranges_and_matches_bind_as_in_expr() {
        assert_eq!(parsed("-2 ** 2"), "(-(2 ** 2))");
        assert_eq!(parsed("2 ** 3 ** 2"), "(2 ** (3 ** 2))");
        assert_eq!(parsed("1 + 2 .. 4 * 2"), "((1 + 2) .. (4 * 2))");
        assert_eq!(parsed("a matches 'x' || b"), "((a matches \"x\") || b)");
    }

    #[test]
    fn the_ternary_is_loosest_and_groups_to_the_right() {
        assert_eq!(parsed("a || b ? c : d"), "((a || b) ? c : d)");
        assert_eq!(parsed("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
        assert_eq!(parsed("a ?? b ? c : d"), "((a ?? b) ? c : d)");
        assert_eq!(
            parsed("x contains 'a' && y startsWith 'b'"),
            "((x contains \"a\") && (y startsWith \"b\"))"
        );
    }

    fn parsed(text: &str) -> String {
        shape(&parse(text).unwrap())
    }

    #[test]
    fn precedence_follows_expr() {
        assert_eq!(parsed("a || b && c == d"), "(a || (b && (c == d)))");
        assert_eq!(parsed("a ?? 1 + 2 * 3"), "((a ?? 1) + (2 * 3))");
        assert_eq!(parsed("!x.enabled ?? false"), "(!(x.enabled ?? false))");
        assert_eq!(
            parsed("(p == 'aws' || p == \"azure\") && c.e"),
            "(((p == \"aws\") || (p == \"azure\")) && c.e)"
        );
        assert_eq!(parsed("a - b - c"), "((a - b) - c)");
        assert_eq!(parsed("p in ['a', 'b']"), "(p in [\"a\", \"b\"])");
        assert_eq!(
            parsed("jsonnet('t.jsonnet').workers[0]"),
            "jsonnet(\"t.jsonnet\").workers[0]"
        );
        assert_eq!(parsed("not a and b or c"), "(((!a) && b) || c)");
        assert_eq!(parsed("1.5e3 + 1_000 + -2"), "((1500.0 + 1000) + (-2))");
        assert_eq!(parsed("nil == null"), "(null == null)");
        assert_eq!(
            parsed("'c' not in zones && x"),
            "((\"c\" not in zones) && x)"
        );
        assert_eq!(parsed("not a"), "(!a)");
        assert_eq!(parsed("'\\u00e9t\\u00E9'"), "\"été\"");
    }

    #[test]
    fn ranges_cover_the_text() {
        let expr = parse("cluster.workers.count + 2").unwrap();
        assert_eq!(expr.range, 0..25);
        let ExprKind::Binary(_, left, right) = expr.kind else {
            panic!()
        };
        assert_eq!(left.range, 0..21);
        assert_eq!(right.range, 24..25);
    }

    #[test]
    fn errors_point_at_the_character() {
        let error = |text: &str| {
            let e = parse(text).unwrap_err();
            (e.message, e.range)
        };
        assert_eq!(
            error("a = 'b'"),
            ("unexpected `=`; equality is `==`".to_owned(), 2..3)
        );
        assert_eq!(
            error("a & b"),
            ("unexpected `&`; did you mean `&&`?".to_owned(), 2..3)
        );
        assert_eq!(
            error("(a == b"),
            ("expected `)`, found end of the expression".to_owned(), 7..7)
        );
        assert_eq!(
            error("'open"),
            ("the string is not closed".to_owned(), 0..5)
        );
        assert_eq!(
            error("a b"),
            ("unexpected `b` after the expression".to_owned(), 2..3)
        );
        assert_eq!(error(""), ("the expression is empty".to_owned(), 0..0));
        assert_eq!(
            error("a."),
            (
                "expected a field name after `.`, found end of the expression".to_owned(),
                2..2
            )
        );
        assert_eq!(
            error("x.y(1)"),
            ("only a function name can be called".to_owned(), 0..3)
        );
        assert_eq!(
            error("99999999999999999999"),
            (
                "`99999999999999999999` is not a number this language can hold".to_owned(),
                0..20
            )
        );
        let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert!(error(&deep).0.contains("nested more than 128 deep"));
        // Chains nest as deep as they are long: operators and accessors.
        let chain = format!("{}true", "true && ".repeat(200));
        assert!(
            error(&chain)
                .0
                .contains("each operator or accessor of a chain")
        );
        let members = format!("a{}", ".b".repeat(200));
        assert!(
            error(&members)
                .0
                .contains("each operator or accessor of a chain")
        );
        assert!(parse(&format!("{}true", "true && ".repeat(100))).is_ok());
    }
}

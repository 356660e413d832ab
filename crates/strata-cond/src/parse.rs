//! The parser: tokens (see [`crate::lex`]) to an [`Expr`] whose every node
//! knows its byte range in the text. The grammar is expr's (v1.17):
//!
//! ```text
//! sequence   = expression { ";" expression } [ ";" ]
//! expression = "let" name "=" expression ";" sequence
//!            | "if" expression "{" sequence "}" "else" "{" sequence "}"
//!            | operators [ "?" expression ":" expression | "?:" expression ]
//! ```
//!
//! Operators, loosest first (binary ones group to the left, `**`/`^` to the
//! right):
//!
//! | operators | |
//! |---|---|
//! | `\|` | pipe: `x \| f(a)` is `f(x, a)` |
//! | `\|\|` `or` | either |
//! | `&&` `and` | both |
//! | `==` `!=` `<` `<=` `>` `>=` `in` `contains` `startsWith` `endsWith` `matches` | comparison; `a < b < c` is `a < b && b < c`; `not in`, `not contains`, … negate |
//! | `..` | range |
//! | `+` `-` | sum, concatenation |
//! | `not` `!` (prefix) | negation: `!a * b` is `!(a * b)`, `!a + b` is `(!a) + b`, as in expr |
//! | `*` `/` `%` | product |
//! | `-` `+` (prefix) | sign |
//! | `**` `^` | power |
//! | `??` | the right side when the left is `null`; mixing it with another operator without parentheses is an error, as in expr |
//! | `.name` `?.name` `[i]` `[a:b]` `.m(args)` `f(args)` (postfix) | access, slice, call |
//!
//! Primaries: literals, `[lists]`, `{maps}` (keys are names, strings,
//! numbers or `(expressions)`), names (`$env` is every name), `#` (a
//! predicate's item), `#acc`/`#index` (`reduce`'s accumulator, an index),
//! `.name` (`#.name`), and `(sequences)`. A predicate argument (the second
//! of `filter`, `map`, `reduce`, …) may be a `{ closure }`.

use std::ops::Range;

use crate::CondError;
use crate::lex::{Token, tokenize};

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
    /// `{key: value, (expression): value}`: each key is an expression (a
    /// written name, string or number is a string literal).
    Map(Vec<(Expr, Expr)>),
    /// A name: a `let` variable, else a top-level key of the configuration.
    Name(String),
    /// `target.name`, `target?.name`.
    Member(Box<Expr>, String),
    /// `target[index]`.
    Index(Box<Expr>, Box<Expr>),
    /// `target[from:to]`, either bound optional.
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `name(args)`.
    Call(String, Vec<Expr>),
    /// `target.name(args)`: a method of a date or a duration.
    Method(Box<Expr>, String, Vec<Expr>),
    /// A prefix operator.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operator.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `condition ? then : otherwise`, `if condition {then} else
    /// {otherwise}`; `condition ?: otherwise` has `true` as `then`.
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `let name = value; body`.
    Let(String, Box<Expr>, Box<Expr>),
    /// `a; b`: each evaluated, the last one's value.
    Sequence(Vec<Expr>),
    /// `#`, `#acc`, `#index`: what a predicate is evaluated for.
    Pointer(Pointer),
}

/// What a `#` stands for inside a predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointer {
    /// `#` (and `.name`, which is `#.name`): the item.
    Item,
    /// `#acc`: `reduce`'s accumulator.
    Accumulator,
    /// `#index`: the item's index.
    Index,
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `!`, `not`.
    Not,
    /// `-`.
    Negate,
    /// `+` (a number unchanged).
    Plus,
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
    /// `**`, `^` (a power, a float).
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

    /// How tightly it binds (higher is tighter): expr's own numbers.
    fn precedence(self) -> u16 {
        match self {
            BinaryOp::Or => 10,
            BinaryOp::And => 15,
            BinaryOp::Equal
            | BinaryOp::NotEqual
            | BinaryOp::Less
            | BinaryOp::LessEqual
            | BinaryOp::Greater
            | BinaryOp::GreaterEqual
            | BinaryOp::In
            | BinaryOp::Contains
            | BinaryOp::StartsWith
            | BinaryOp::EndsWith
            | BinaryOp::Matches => 20,
            BinaryOp::Range => 25,
            BinaryOp::Add | BinaryOp::Subtract => 30,
            BinaryOp::Multiply | BinaryOp::Divide | BinaryOp::Remainder => 60,
            BinaryOp::Power => 100,
            BinaryOp::Coalesce => 500,
        }
    }

    /// `<`, `<=`, `>`, `>=`: they chain (`a < b < c`).
    fn chains(self) -> bool {
        matches!(
            self,
            BinaryOp::Less | BinaryOp::LessEqual | BinaryOp::Greater | BinaryOp::GreaterEqual
        )
    }

    /// The operators `not` may negate in place (`not in`, `not matches`).
    fn negatable(self) -> bool {
        matches!(
            self,
            BinaryOp::In
                | BinaryOp::Contains
                | BinaryOp::StartsWith
                | BinaryOp::EndsWith
                | BinaryOp::Matches
        )
    }

    /// The operator a token is, if any.
    fn of(token: &Token) -> Option<BinaryOp> {
        Some(match token {
            Token::Symbol("||") => BinaryOp::Or,
            Token::Symbol("&&") => BinaryOp::And,
            Token::Symbol("==") => BinaryOp::Equal,
            Token::Symbol("!=") => BinaryOp::NotEqual,
            Token::Symbol("<") => BinaryOp::Less,
            Token::Symbol("<=") => BinaryOp::LessEqual,
            Token::Symbol(">") => BinaryOp::Greater,
            Token::Symbol(">=") => BinaryOp::GreaterEqual,
            Token::Symbol("+") => BinaryOp::Add,
            Token::Symbol("-") => BinaryOp::Subtract,
            Token::Symbol("*") => BinaryOp::Multiply,
            Token::Symbol("/") => BinaryOp::Divide,
            Token::Symbol("%") => BinaryOp::Remainder,
            Token::Symbol("??") => BinaryOp::Coalesce,
            Token::Symbol("..") => BinaryOp::Range,
            Token::Symbol("**" | "^") => BinaryOp::Power,
            Token::Ident(word) => match word.as_str() {
                "or" => BinaryOp::Or,
                "and" => BinaryOp::And,
                "in" => BinaryOp::In,
                "contains" => BinaryOp::Contains,
                "startsWith" => BinaryOp::StartsWith,
                "endsWith" => BinaryOp::EndsWith,
                "matches" => BinaryOp::Matches,
                _ => return None,
            },
            _ => return None,
        })
    }
}

/// The precedence of `!`/`not`, between sums and products (expr's 50).
const NOT: u16 = 50;
/// The precedence of prefix `-`/`+`, between products and powers (expr's
/// 90): `-2 ** 2` is `-(2 ** 2)`.
const SIGN: u16 = 90;
/// The precedence of `|`, the loosest operator.
const PIPE: u16 = 0;

/// Parses a whole expression.
pub fn parse(text: &str) -> Result<Expr, CondError> {
    parse_at(text, 0)
}

/// Parses `text` that starts at byte `offset` of a larger text: every range
/// (and every error's) is in the larger text.
pub(crate) fn parse_at(text: &str, offset: usize) -> Result<Expr, CondError> {
    let tokens = tokenize(text, offset)?;
    let mut parser = Parser {
        tokens,
        position: 0,
        depth: 0,
    };
    if matches!(parser.peek(), Token::End) {
        return Err(crate::parse_error(
            "the expression is empty",
            offset..offset + text.len(),
        ));
    }
    let expr = parser.sequence()?;
    match parser.peek() {
        Token::End => Ok(expr),
        token => Err(crate::parse_error(
            match token {
                Token::Symbol("=") => "unexpected `=`; equality is `==`".to_owned(),
                token => format!("unexpected {} after the expression", token.describe()),
            },
            parser.range(),
        )),
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

    /// The token after the next one.
    fn peek_second(&self) -> &Token {
        let at = (self.position + 1).min(self.tokens.len() - 1);
        &self.tokens[at].0
    }

    fn range(&self) -> Range<usize> {
        self.tokens[self.position].1.clone()
    }

    /// The token at hand, and the next one at hand. The parser never looks
    /// back, so the token is taken, not copied (the last, `End`, stays).
    fn advance(&mut self) -> (Token, Range<usize>) {
        let range = self.tokens[self.position].1.clone();
        if self.position + 1 == self.tokens.len() {
            return (self.tokens[self.position].0.clone(), range);
        }
        let token = std::mem::replace(&mut self.tokens[self.position].0, Token::End);
        self.position += 1;
        (token, range)
    }

    fn at_symbol(&self, symbol: &str) -> bool {
        matches!(self.peek(), Token::Symbol(s) if *s == symbol)
    }

    fn at_word(&self, word: &str) -> bool {
        matches!(self.peek(), Token::Ident(w) if w == word)
    }

    fn expect(&mut self, symbol: &'static str) -> Result<Range<usize>, CondError> {
        if self.at_symbol(symbol) {
            return Ok(self.advance().1);
        }
        Err(crate::parse_error(
            format!("expected `{symbol}`, found {}", self.peek().describe()),
            self.range(),
        ))
    }

    /// `left op right` and the comparisons that follow it: `a < b < c` is
    /// `a < b && b < c` (each middle operand is the right of one link and
    /// the left of the next, so it alone is copied).
    fn chain(
        &mut self,
        op: BinaryOp,
        left: Expr,
        mut right: Expr,
        precedence: u16,
        chained: &mut usize,
    ) -> Result<Expr, CondError> {
        let mut left = binary(op, left, right.clone());
        while let Some(next_op) = BinaryOp::of(self.peek()).filter(|op| op.chains()) {
            *chained += 1;
            self.check_chain(*chained)?;
            self.advance();
            let further = self.expression(precedence + 1)?;
            let link = binary(next_op, right, further.clone());
            left = binary(BinaryOp::And, left, link);
            right = further;
        }
        Ok(left)
    }

    /// A name (for `let`, after `.` or `|`), or the error saying `what`
    /// was expected.
    fn name(&mut self, what: &str) -> Result<(String, Range<usize>), CondError> {
        match self.advance() {
            (Token::Ident(name), range) => Ok((name, range)),
            (token, range) => Err(crate::parse_error(
                format!("expected {what}, found {}", token.describe()),
                range,
            )),
        }
    }

    /// Expressions separated by `;` (a trailing one allowed): the last
    /// one's value.
    fn sequence(&mut self) -> Result<Expr, CondError> {
        let first = self.expression(0)?;
        if !self.at_symbol(";") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.at_symbol(";") {
            self.advance();
            if matches!(self.peek(), Token::End | Token::Symbol(")" | "}")) {
                break;
            }
            items.push(self.expression(0)?);
        }
        if items.len() == 1 {
            return Ok(items.remove(0));
        }
        let range = items[0].range.start..items[items.len() - 1].range.end;
        Ok(Expr {
            kind: ExprKind::Sequence(items),
            range,
        })
    }

    /// Operators binding at least as tightly as `min`, by precedence
    /// climbing; at `min` 0 also `let`, `if` and the ternary.
    fn expression(&mut self, min: u16) -> Result<Expr, CondError> {
        // Nesting is bounded by `MAX_DEPTH`; the stack grows on demand so
        // that bound holds on a small thread stack too.
        stacker::maybe_grow(crate::STACK_RED_ZONE, crate::STACK_SEGMENT, || {
            self.nested(min)
        })
    }

    fn nested(&mut self, min: u16) -> Result<Expr, CondError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(crate::parse_error(
                format!("the expression is nested more than {MAX_DEPTH} deep"),
                self.range(),
            ));
        }
        let expr = if min == 0 && self.at_word("let") {
            self.let_binding()?
        } else if min == 0 && self.at_word("if") {
            self.if_else()?
        } else {
            let operators = self.operators(min)?;
            if min == 0 {
                self.ternary(operators)?
            } else {
                operators
            }
        };
        self.depth -= 1;
        Ok(expr)
    }

    fn operators(&mut self, min: u16) -> Result<Expr, CondError> {
        let mut left = self.prefix()?;
        // Each operator folded here nests `left` one level deeper: a chain
        // `a && b && ...` is as deep as it is long, and evaluating or
        // dropping it recurses that deep, so it counts toward the depth.
        let mut chained = 0;
        let mut previous: Option<BinaryOp> = None;
        loop {
            if self.at_symbol("|") {
                if min > PIPE {
                    break;
                }
                chained += 1;
                self.check_chain(chained)?;
                self.advance();
                let (name, name_range) = self.name("a function name after `|` (`||` is or)")?;
                if !self.at_symbol("(") {
                    return Err(crate::parse_error(
                        format!("expected `(` after `{name}`: `|` passes its left side to a call"),
                        self.range(),
                    ));
                }
                left = self.call(name, name_range, vec![left])?;
                previous = None;
                continue;
            }
            let negated = self.at_word("not");
            let token = if negated {
                self.peek_second()
            } else {
                self.peek()
            };
            let Some(op) = BinaryOp::of(token) else {
                if negated {
                    return Err(crate::parse_error(
                        "`not` after a value must be followed by `in`, `contains`, `startsWith`, `endsWith` or `matches`",
                        self.range(),
                    ));
                }
                break;
            };
            if negated && !op.negatable() {
                return Err(crate::parse_error(
                    format!("`not {}` is not an operator", op.symbol()),
                    self.range(),
                ));
            }
            let precedence = op.precedence();
            if precedence < min {
                break;
            }
            if previous == Some(BinaryOp::Coalesce) && op != BinaryOp::Coalesce {
                return Err(crate::parse_error(
                    format!(
                        "`{}` and `??` cannot be mixed; put either in parentheses",
                        op.symbol()
                    ),
                    self.range(),
                ));
            }
            chained += 1;
            self.check_chain(chained)?;
            let (_, op_range) = self.advance();
            if negated {
                self.advance();
            }
            // `**` groups to the right: `2 ** 3 ** 2` is `2 ** (3 ** 2)`.
            let next = if op == BinaryOp::Power {
                precedence
            } else {
                precedence + 1
            };
            let right = self.expression(next)?;
            if op.chains() {
                left = self.chain(op, left, right, precedence, &mut chained)?;
            } else {
                left = binary(op, left, right);
            }
            if negated {
                let range = op_range.start.min(left.range.start)..left.range.end;
                left = Expr {
                    kind: ExprKind::Unary(UnaryOp::Not, Box::new(left)),
                    range,
                };
            }
            previous = Some(op);
        }
        Ok(left)
    }

    /// `condition ? then : otherwise` and `condition ?: otherwise`, after
    /// `condition` (grouping to the right).
    fn ternary(&mut self, condition: Expr) -> Result<Expr, CondError> {
        if !self.at_symbol("?") {
            return Ok(condition);
        }
        self.check_chain(1)?;
        self.advance();
        let then = if self.at_symbol(":") {
            // `a ?: b`: `a ? a : b`, where `a` is a boolean.
            Expr {
                kind: ExprKind::Bool(true),
                range: condition.range.clone(),
            }
        } else {
            self.expression(0)?
        };
        self.expect(":")?;
        let otherwise = self.expression(0)?;
        let range = condition.range.start..otherwise.range.end;
        Ok(Expr {
            kind: ExprKind::Conditional(Box::new(condition), Box::new(then), Box::new(otherwise)),
            range,
        })
    }

    /// `let name = value; body`.
    fn let_binding(&mut self) -> Result<Expr, CondError> {
        let (_, start) = self.advance();
        let (name, _) = self.name("a variable name after `let`")?;
        self.expect("=")?;
        let value = self.expression(0)?;
        self.expect(";")?;
        let body = self.sequence()?;
        let range = start.start..body.range.end;
        Ok(Expr {
            kind: ExprKind::Let(name, Box::new(value), Box::new(body)),
            range,
        })
    }

    /// `if condition { then } else { otherwise }`.
    fn if_else(&mut self) -> Result<Expr, CondError> {
        let (_, start) = self.advance();
        let condition = self.expression(0)?;
        self.expect("{")?;
        let then = self.sequence()?;
        self.expect("}")?;
        if !self.at_word("else") {
            return Err(crate::parse_error(
                format!(
                    "expected `else` after `if {{..}}`, found {}",
                    self.peek().describe()
                ),
                self.range(),
            ));
        }
        self.advance();
        self.expect("{")?;
        let otherwise = self.sequence()?;
        let close = self.expect("}")?;
        Ok(Expr {
            kind: ExprKind::Conditional(Box::new(condition), Box::new(then), Box::new(otherwise)),
            range: start.start..close.end,
        })
    }

    fn prefix(&mut self) -> Result<Expr, CondError> {
        let (op, precedence) = match self.peek() {
            Token::Symbol("!") => (UnaryOp::Not, NOT),
            Token::Ident(word) if word == "not" => (UnaryOp::Not, NOT),
            Token::Symbol("-") => (UnaryOp::Negate, SIGN),
            Token::Symbol("+") => (UnaryOp::Plus, SIGN),
            _ => return self.postfix(),
        };
        let (_, start) = self.advance();
        let operand = self.expression(precedence)?;
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
            if !matches!(self.peek(), Token::Symbol("." | "?." | "[" | "(")) {
                return Ok(expr);
            }
            chained += 1;
            self.check_chain(chained)?;
            let (token, _) = self.advance();
            expr = match token {
                // `a?.[0]`: the index follows.
                Token::Symbol("?.") if self.at_symbol("[") => {
                    self.advance();
                    self.index(expr)?
                }
                Token::Symbol("." | "?.") => {
                    let (name, range) = self.name("a field name after `.`")?;
                    if self.at_symbol("(") {
                        self.advance();
                        let arguments = self.arguments(false)?;
                        let close = self.expect(")")?;
                        let whole = expr.range.start..close.end;
                        Expr {
                            kind: ExprKind::Method(Box::new(expr), name, arguments),
                            range: whole,
                        }
                    } else {
                        let whole = expr.range.start..range.end;
                        Expr {
                            kind: ExprKind::Member(Box::new(expr), name),
                            range: whole,
                        }
                    }
                }
                Token::Symbol("[") => self.index(expr)?,
                _ => {
                    return Err(crate::parse_error(
                        "only a function name can be called",
                        expr.range,
                    ));
                }
            };
        }
    }

    /// After `target[`: an index or a slice, up to its `]`.
    fn index(&mut self, target: Expr) -> Result<Expr, CondError> {
        let from = if self.at_symbol(":") {
            None
        } else {
            Some(self.expression(0)?)
        };
        if !self.at_symbol(":") {
            let close = self.expect("]")?;
            let whole = target.range.start..close.end;
            let Some(index) = from else {
                unreachable!("`[` without `:` parsed an index")
            };
            return Ok(Expr {
                kind: ExprKind::Index(Box::new(target), Box::new(index)),
                range: whole,
            });
        }
        self.advance();
        let to = if self.at_symbol("]") {
            None
        } else {
            Some(self.expression(0)?)
        };
        let close = self.expect("]")?;
        let whole = target.range.start..close.end;
        Ok(Expr {
            kind: ExprKind::Slice(Box::new(target), from.map(Box::new), to.map(Box::new)),
            range: whole,
        })
    }

    /// After `f(` (and any arguments a pipe gave): the arguments up to (not
    /// including) `)`; a trailing comma is allowed. With `predicate`, the
    /// second argument may be a `{ closure }`.
    fn arguments(&mut self, predicate: bool) -> Result<Vec<Expr>, CondError> {
        self.arguments_after(Vec::new(), predicate)
    }

    fn arguments_after(
        &mut self,
        mut items: Vec<Expr>,
        predicate: bool,
    ) -> Result<Vec<Expr>, CondError> {
        while !self.at_symbol(")") {
            let item = if predicate && items.len() == 1 && self.at_symbol("{") {
                let (_, open) = self.advance();
                let body = self.sequence()?;
                let close = self.expect("}")?;
                Expr {
                    kind: body.kind,
                    range: open.start..close.end,
                }
            } else {
                self.expression(0)?
            };
            items.push(item);
            self.comma_or(")")?;
        }
        Ok(items)
    }

    /// A call of `name` after its name, `(` next; `given` are the arguments
    /// a pipe passes.
    fn call(
        &mut self,
        name: String,
        name_range: Range<usize>,
        given: Vec<Expr>,
    ) -> Result<Expr, CondError> {
        self.expect("(")?;
        // A predicate function's second argument may be a `{closure}`.
        let predicate = crate::functions::lookup(&name)
            .is_some_and(|function| function.group == crate::functions::Group::Predicate);
        let arguments = self.arguments_after(given, predicate)?;
        let close = self.expect(")")?;
        let start = arguments.first().map_or(name_range.start, |first| {
            first.range.start.min(name_range.start)
        });
        Ok(Expr {
            kind: ExprKind::Call(name, arguments),
            range: start..close.end,
        })
    }

    /// After an item of a list: a `,` (taken), or `close` ahead.
    fn comma_or(&mut self, close: &'static str) -> Result<(), CondError> {
        if self.at_symbol(",") {
            self.advance();
            return Ok(());
        }
        if self.at_symbol(close) {
            return Ok(());
        }
        Err(crate::parse_error(
            format!(
                "expected `,` or `{close}`, found {}",
                self.peek().describe()
            ),
            self.range(),
        ))
    }

    /// `[a, b]` after its `[`.
    fn list(&mut self, open: Range<usize>) -> Result<Expr, CondError> {
        let mut items = Vec::new();
        while !self.at_symbol("]") {
            items.push(self.expression(0)?);
            self.comma_or("]")?;
        }
        let close = self.expect("]")?;
        Ok(Expr {
            kind: ExprKind::List(items),
            range: open.start..close.end,
        })
    }

    /// `{key: value, ...}` after its `{`.
    fn map(&mut self, open: Range<usize>) -> Result<Expr, CondError> {
        let mut entries = Vec::new();
        while !self.at_symbol("}") {
            let (token, range) = self.advance();
            let key = match token {
                Token::Ident(text) | Token::String(text) => ExprKind::String(text),
                Token::Int(i) => ExprKind::String(i.to_string()),
                Token::Float(f) => ExprKind::String(f.to_string()),
                Token::Symbol("(") => {
                    let inner = self.sequence()?;
                    self.expect(")")?;
                    inner.kind
                }
                other => {
                    return Err(crate::parse_error(
                        format!(
                            "a mapping key is a name, a string, a number or an expression in parentheses, found {}",
                            other.describe()
                        ),
                        range,
                    ));
                }
            };
            let key = Expr { kind: key, range };
            self.expect(":")?;
            let value = self.expression(0)?;
            entries.push((key, value));
            self.comma_or("}")?;
        }
        let close = self.expect("}")?;
        Ok(Expr {
            kind: ExprKind::Map(entries),
            range: open.start..close.end,
        })
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
                _ if self.at_symbol("(") => return self.call(word, range, Vec::new()),
                _ => ExprKind::Name(word),
            },
            Token::Symbol("(") => {
                let inner = self.sequence()?;
                let close = self.expect(")")?;
                return Ok(Expr {
                    kind: inner.kind,
                    range: range.start..close.end,
                });
            }
            Token::Symbol("[") => return self.list(range),
            Token::Symbol("{") => return self.map(range),
            Token::Symbol("#") => return self.pointer(range),
            // `.name` in a predicate: a field of the item, `#.name`.
            Token::Symbol(".") if matches!(self.peek(), Token::Ident(_)) => {
                let (name, name_range) = self.name("a field name after `.`")?;
                let pointer = Expr {
                    kind: ExprKind::Pointer(Pointer::Item),
                    range: range.clone(),
                };
                return Ok(Expr {
                    kind: ExprKind::Member(Box::new(pointer), name),
                    range: range.start..name_range.end,
                });
            }
            other => {
                return Err(crate::parse_error(
                    format!("expected a value, found {}", other.describe()),
                    range,
                ));
            }
        };
        Ok(Expr { kind, range })
    }

    /// After `#`: `#acc` and `#index` when the name touches it, else the
    /// item.
    fn pointer(&mut self, hash: Range<usize>) -> Result<Expr, CondError> {
        let item = Expr {
            kind: ExprKind::Pointer(Pointer::Item),
            range: hash.clone(),
        };
        let (Token::Ident(name), name_range) = &self.tokens[self.position] else {
            return Ok(item);
        };
        if name_range.start != hash.end || BinaryOp::of(self.peek()).is_some() {
            return Ok(item);
        }
        let pointer = match name.as_str() {
            "acc" => Pointer::Accumulator,
            "index" => Pointer::Index,
            other => {
                return Err(crate::parse_error(
                    format!(
                        "there is no `#{other}`: `#` is the item, `#index` its index, `#acc` the accumulator of `reduce`"
                    ),
                    hash.start..name_range.end,
                ));
            }
        };
        let (_, name_range) = self.advance();
        Ok(Expr {
            kind: ExprKind::Pointer(pointer),
            range: hash.start..name_range.end,
        })
    }
}

/// `left op right`, spanning both.
fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    let range = left.range.start..right.range.end;
    Expr {
        kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
        range,
    }
}

#[cfg(test)]
mod tests;

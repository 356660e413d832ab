//! Parsing field texts: the seed's "Substitution Grammar", exactly.
//!
//! - Text outside `${..}` is literal. The grammar has no escape: every
//!   `${` opens a substitution (`$${x}` is a `$` and then `${x}`, as the
//!   reference implementation reads it).
//! - Inside `${..}` whitespace (line breaks included) may stand between
//!   tokens. The substitution ends at the first `}` outside a string
//!   literal; an unclosed `${` and an empty `${}` are errors.
//! - Literals: `true`, `false`, `[-]digits` (64-bit), `[-]digits.digits`,
//!   `"text"` where `\"` is a quote and every other character stands for
//!   itself.
//! - Names: a letter or `_`, then letters, digits, `_` and `-`. Quoted
//!   names (`["a.b"]`) also take `.`, and at least one character.
//! - A name followed by `(` calls a function; its arguments are
//!   substitutions or `name = substitution`; accessors may follow the
//!   closing parenthesis.
//! - `variables`, `values`, `datasources`, `children`, `resources`, `elem`
//!   and `i` start references of their kind, each with the shape its
//!   reference format allows (see [`Reference`]); any other name is a
//!   resource by its bare name, or, written alone, a [`ExprKind::Bare`]
//!   name whose meaning depends on where it stands.
//! - Bounds: a text of at most [`MAX_LENGTH`] bytes and calls nested at
//!   most [`MAX_DEPTH`] deep, so no input exhausts the stack.
//!
//! Every problem is reported at its exact byte range; a broken
//! substitution does not hide problems in the ones after it.

use std::ops::Range;

use crate::ast::{
    Accessor, Argument, Call, Expr, ExprKind, Literal, Name, Part, Reference, Substitution,
    Template,
};
use crate::{SubstError, codes};

/// The longest field text accepted, in bytes.
pub const MAX_LENGTH: usize = 64 * 1024;
/// The deepest nesting of calls accepted.
pub const MAX_DEPTH: usize = 64;

/// Parses a field text into its literal text and substitutions, reporting
/// every problem.
pub fn parse_template(text: &str) -> Result<Template, Vec<SubstError>> {
    if text.len() > MAX_LENGTH {
        return Err(vec![SubstError::new(
            codes::TOO_LONG,
            format!(
                "the text is {} bytes long, longer than the {MAX_LENGTH} bytes a field may hold",
                text.len()
            ),
            0..text.len(),
        )]);
    }
    let mut parts = Vec::new();
    let mut errors = Vec::new();
    let mut literal = String::new();
    let mut literal_start = 0;
    let mut rest = 0;
    while let Some(found) = text[rest..].find('$') {
        let at = rest + found;
        let after = &text[at..];
        if after.starts_with("${") {
            literal.push_str(&text[rest..at]);
            if !literal.is_empty() {
                parts.push(Part::Text {
                    text: std::mem::take(&mut literal),
                    range: literal_start..at,
                });
            }
            let mut parser = Parser {
                text,
                pos: at + 2,
                depth: 0,
            };
            match parser.substitution(at) {
                Ok(substitution) => {
                    rest = substitution.range.end;
                    parts.push(Part::Substitution(substitution));
                }
                Err(error) => {
                    errors.push(error);
                    // Go on after the `}` that most likely closed it.
                    let Some(end) = closing_brace(text, at + 2) else {
                        rest = text.len();
                        break;
                    };
                    rest = end + 1;
                }
            }
            literal_start = rest;
        } else {
            literal.push_str(&text[rest..=at]);
            rest = at + 1;
        }
    }
    literal.push_str(&text[rest..]);
    if !literal.is_empty() {
        parts.push(Part::Text {
            text: literal,
            range: literal_start..text.len(),
        });
    }
    if errors.is_empty() {
        // Templates are kept (a blueprint holds tens of thousands): no
        // spare capacity.
        parts.shrink_to_fit();
        Ok(Template { parts })
    } else {
        Err(errors)
    }
}

/// Parses one expression written without `${..}` (an argument typed at the
/// command line, a test): the whole text must be the expression.
pub fn parse_expr(text: &str) -> Result<Expr, SubstError> {
    if text.len() > MAX_LENGTH {
        return Err(SubstError::new(
            codes::TOO_LONG,
            format!("the expression is longer than {MAX_LENGTH} bytes"),
            0..text.len(),
        ));
    }
    let mut parser = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    let expr = parser.expr()?;
    parser.skip_space();
    if parser.pos < text.len() {
        return Err(parser.unexpected("the end of the expression"));
    }
    Ok(expr)
}

/// The position of the `}` that ends a substitution whose body starts at
/// `start`: the first one outside a string literal.
fn closing_brace(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut in_string = false;
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' if in_string && bytes.get(index + 1) == Some(&b'"') => index += 1,
            b'"' => in_string = !in_string,
            b'}' if !in_string => return Some(index),
            _ => {}
        }
        index += 1;
    }
    None
}

/// Where a string literal that runs to the end of the text opens, for a
/// substitution whose body starts at `start` and finds no `}`.
fn open_string(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut open = None;
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' if open.is_some() && bytes.get(index + 1) == Some(&b'"') => index += 1,
            b'"' => open = if open.is_some() { None } else { Some(index) },
            _ => {}
        }
        index += 1;
    }
    open
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Str(String),
    Int(i64),
    Float(f64),
    Punct(char),
    End,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Name(name) => format!("`{name}`"),
            Token::Str(_) => "a string".to_owned(),
            Token::Int(_) | Token::Float(_) => "a number".to_owned(),
            Token::Punct(c) => format!("`{c}`"),
            Token::End => "the end of the text".to_owned(),
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The next token and its range, without consuming it.
    fn peek(&mut self) -> Result<(Token, Range<usize>), SubstError> {
        self.skip_space();
        let start = self.pos;
        let rest = &self.text[start..];
        let Some(first) = rest.chars().next() else {
            return Ok((Token::End, start..start));
        };
        if is_name_start(first) {
            let len = rest.find(|c| !is_name_char(c)).unwrap_or(rest.len());
            return Ok((Token::Name(rest[..len].to_owned()), start..start + len));
        }
        if first == '"' {
            let mut value = String::new();
            let mut chars = rest.char_indices().skip(1).peekable();
            while let Some((offset, c)) = chars.next() {
                match c {
                    '"' => return Ok((Token::Str(value), start..start + offset + 1)),
                    '\\' if chars.peek().is_some_and(|(_, next)| *next == '"') => {
                        chars.next();
                        value.push('"');
                    }
                    _ => value.push(c),
                }
            }
            return Err(SubstError::new(
                codes::SYNTAX,
                "this string literal is not closed: a `\"` is missing",
                start..self.text.len(),
            ));
        }
        if first.is_ascii_digit()
            || (first == '-' && rest[1..].starts_with(|c: char| c.is_ascii_digit()))
        {
            return number(rest, start);
        }
        if "()[].,=}".contains(first) {
            return Ok((Token::Punct(first), start..start + 1));
        }
        Err(SubstError::new(
            codes::SYNTAX,
            format!("`{first}` is not part of the substitution language"),
            start..start + first.len_utf8(),
        ))
    }

    fn next(&mut self) -> Result<(Token, Range<usize>), SubstError> {
        let (token, range) = self.peek()?;
        self.pos = range.end;
        Ok((token, range))
    }

    fn unexpected(&mut self, expected: &str) -> SubstError {
        match self.peek() {
            Ok((token, range)) => SubstError::new(
                codes::SYNTAX,
                format!("expected {expected}, found {}", token.describe()),
                range,
            ),
            Err(error) => error,
        }
    }

    /// Consumes `punct` (one of the punctuation tokens) when it comes
    /// next. Looked for as a character: tokenizing what comes instead
    /// copied every name it was asked after. What is not `punct` is left
    /// for the next token read, which reports it if it does not lex.
    fn eat(&mut self, punct: char) -> Option<Range<usize>> {
        self.skip_space();
        let start = self.pos;
        self.text[start..].starts_with(punct).then(|| {
            self.pos += punct.len_utf8();
            start..self.pos
        })
    }

    fn expect(&mut self, punct: char, expected: &str) -> Result<Range<usize>, SubstError> {
        match self.eat(punct) {
            Some(range) => Ok(range),
            None => Err(self.unexpected(expected)),
        }
    }

    /// A `${..}` whose `$` is at `start`; the body starts at `self.pos`.
    fn substitution(&mut self, start: usize) -> Result<Substitution, SubstError> {
        if closing_brace(self.text, self.pos).is_none() {
            if let Some(quote) = open_string(self.text, self.pos) {
                return Err(SubstError::new(
                    codes::SYNTAX,
                    "this string literal is not closed: a `\"` is missing",
                    quote..self.text.len(),
                ));
            }
            return Err(SubstError::new(
                codes::UNCLOSED,
                "this `${` is never closed: a `}` is missing",
                start..start + 2,
            ));
        }
        if let (Token::Punct('}'), range) = self.peek()? {
            return Err(SubstError::new(
                codes::EMPTY,
                "`${}` holds no substitution",
                start..range.end,
            ));
        }
        let expr = self.expr()?;
        let end = self.expect('}', "`}` to close the substitution, or an accessor")?;
        Ok(Substitution {
            expr,
            range: start..end.end,
        })
    }

    fn expr(&mut self) -> Result<Expr, SubstError> {
        let (token, range) = self.next()?;
        match token {
            Token::Str(text) => Ok(literal(Literal::String(text), range)),
            Token::Int(value) => Ok(literal(Literal::Int(value), range)),
            Token::Float(value) => Ok(literal(Literal::Float(value), range)),
            Token::Name(name) if name == "true" || name == "false" => {
                Ok(literal(Literal::Bool(name == "true"), range))
            }
            Token::Name(name) => self.named(Name { text: name, range }),
            Token::Punct(_) | Token::End => {
                self.pos = range.start;
                Err(self.unexpected("a function call, a reference or a literal"))
            }
        }
    }

    /// What follows a name: a call, or a reference.
    fn named(&mut self, name: Name) -> Result<Expr, SubstError> {
        if let Some(open) = self.eat('(') {
            return self.call(name, open);
        }
        let start = name.range.start;
        let (mut path, end) = self.accessors(name.range.end)?;
        let range = start..end;
        let reference = match name.text.as_str() {
            "variables" => {
                let variable = take_name(&mut path, &name, "a variable's name")?;
                if let Some(extra) = path.first() {
                    return Err(SubstError::new(
                        codes::REFERENCE,
                        format!(
                            "variables are primitives: `variables.{}` takes no accessor",
                            variable.text
                        ),
                        extra.range().start..end,
                    )
                    .with_help(
                        "to read into a JSON string, use `fromjson(variables.NAME, \"/path\")`",
                    ));
                }
                Reference::Variable { name: variable }
            }
            "values" => {
                let value = take_name(&mut path, &name, "a value's name")?;
                Reference::Value { name: value, path }
            }
            "datasources" => datasource_reference(&name, path, end)?,
            "children" => {
                let child = take_name(&mut path, &name, "an included blueprint's name")?;
                if path.is_empty() {
                    return Err(SubstError::new(
                        codes::REFERENCE,
                        format!(
                            "`children.{}` needs the export to read, as `children.{}.EXPORT`",
                            child.text, child.text
                        ),
                        range,
                    ));
                }
                Reference::Child { name: child, path }
            }
            "resources" => {
                let resource = take_name(&mut path, &name, "a resource's name")?;
                Reference::Resource {
                    name: resource,
                    prefixed: true,
                    path,
                }
            }
            "elem" => Reference::Elem { path },
            "i" => {
                if let Some(extra) = path.first() {
                    return Err(SubstError::new(
                        codes::REFERENCE,
                        "`i` is the index of the current `each` item, an integer: it takes no accessor",
                        extra.range().start..end,
                    ));
                }
                Reference::ElemIndex
            }
            _ if path.is_empty() => {
                return Ok(Expr {
                    kind: ExprKind::Bare(name),
                    range,
                });
            }
            _ => Reference::Resource {
                name,
                prefixed: false,
                path,
            },
        };
        Ok(Expr {
            kind: ExprKind::Reference(reference),
            range,
        })
    }

    fn call(&mut self, function: Name, open: Range<usize>) -> Result<Expr, SubstError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(SubstError::new(
                codes::TOO_DEEP,
                format!("calls are nested more than {MAX_DEPTH} deep"),
                function.range.start..open.end,
            ));
        }
        let mut args = Vec::new();
        let close = match self.eat(')') {
            Some(close) => close,
            None => loop {
                args.push(self.argument()?);
                if self.eat(',').is_none() {
                    break self.expect(')', "`,` or `)` after an argument")?;
                }
            },
        };
        self.depth -= 1;
        args.shrink_to_fit();
        let (path, end) = self.accessors(close.end)?;
        if let (Token::Punct('('), open) = self.peek()? {
            return Err(SubstError::new(
                codes::FUNCTION_VALUE,
                format!(
                    "the result of `{}(..)` cannot be called: a function value is only an argument of a function that takes one (`map`, `filter`, `reduce`, `sort`, `flatmap`, `compose`, `pipe`)",
                    function.text
                ),
                function.range.start..open.end,
            ));
        }
        Ok(Expr {
            range: function.range.start..end,
            kind: ExprKind::Call(Call {
                function,
                args,
                path,
            }),
        })
    }

    fn argument(&mut self) -> Result<Argument, SubstError> {
        let save = self.pos;
        if let (Token::Name(text), range) = self.next()?
            && self.eat('=').is_some()
        {
            let value = self.expr()?;
            return Ok(Argument {
                name: Some(Name { text, range }),
                value,
            });
        }
        self.pos = save;
        Ok(Argument {
            name: None,
            value: self.expr()?,
        })
    }

    /// Accessors, as long as they follow, and where the last one ends
    /// (`end` when there is none): after the `]` of `["quoted"]`, whose
    /// [`Name`] range holds the name alone.
    fn accessors(&mut self, mut end: usize) -> Result<(Vec<Accessor>, usize), SubstError> {
        let mut path = Vec::new();
        loop {
            if self.eat('.').is_some() {
                match self.next()? {
                    (Token::Name(text), range) => {
                        end = range.end;
                        path.push(Accessor::Field(Name { text, range }));
                    }
                    (_, range) => {
                        self.pos = range.start;
                        return Err(self.unexpected("a name after `.`"));
                    }
                }
            } else if let Some(open) = self.eat('[') {
                match self.next()? {
                    (Token::Punct(']'), close) => {
                        end = close.end;
                        path.push(Accessor::Index {
                            index: None,
                            range: open.start..close.end,
                        });
                    }
                    (Token::Int(index), range) => {
                        let index = usize::try_from(index).map_err(|_| {
                            SubstError::new(
                                codes::SYNTAX,
                                "an index is a natural number",
                                range.clone(),
                            )
                        })?;
                        let close = self.expect(']', "`]` after the index")?;
                        end = close.end;
                        path.push(Accessor::Index {
                            index: Some(index),
                            range: open.start..close.end,
                        });
                    }
                    (Token::Str(text), range) => {
                        if text.is_empty() || !text.chars().all(|c| is_name_char(c) || c == '.') {
                            return Err(SubstError::new(
                                codes::SYNTAX,
                                "a quoted name holds letters, digits, `_`, `-` and `.`, at least one",
                                range,
                            ));
                        }
                        end = self.expect(']', "`]` after the quoted name")?.end;
                        path.push(Accessor::Field(Name {
                            text,
                            range: range.start + 1..range.end - 1,
                        }));
                    }
                    (_, range) => {
                        self.pos = range.start;
                        return Err(self.unexpected("an index, a quoted name or `]` after `[`"));
                    }
                }
            } else {
                path.shrink_to_fit();
                return Ok((path, end));
            }
        }
    }
}

fn literal(literal: Literal, range: Range<usize>) -> Expr {
    Expr {
        kind: ExprKind::Literal(literal),
        range,
    }
}

/// `datasources.NAME.FIELD[n]`: the accessors after `datasources`.
fn datasource_reference(
    root: &Name,
    mut path: Vec<Accessor>,
    end: usize,
) -> Result<Reference, SubstError> {
    let datasource = take_name(&mut path, root, "a data source's name")?;
    let field =
        take_name(&mut path, root, "the exported field of the data source").map_err(|error| {
            error.with_help("a data source is referenced as `datasources.NAME.FIELD`")
        })?;
    let mut rest = path.into_iter();
    let index = rest.next();
    if let Some(accessor @ Accessor::Field(_)) = &index {
        return Err(SubstError::new(
            codes::REFERENCE,
            "a data source field takes at most one index accessor (`[n]`), not a field",
            accessor.range(),
        ));
    }
    if let Some(extra) = rest.next() {
        return Err(SubstError::new(
            codes::REFERENCE,
            "a data source field takes at most one index accessor",
            extra.range().start..end,
        ));
    }
    Ok(Reference::Datasource {
        name: datasource,
        field,
        index,
    })
}

/// The name accessor that must come first in `path` (after `root`).
fn take_name(path: &mut Vec<Accessor>, root: &Name, what: &str) -> Result<Name, SubstError> {
    match path.first().cloned() {
        Some(Accessor::Field(name)) => {
            path.remove(0);
            Ok(name)
        }
        Some(index) => Err(SubstError::new(
            codes::REFERENCE,
            format!("`{}` is followed by {what}, not an index", root.text),
            index.range(),
        )),
        None => Err(SubstError::new(
            codes::REFERENCE,
            format!(
                "`{}` must be followed by {what}, as `{}.NAME`",
                root.text, root.text
            ),
            root.range.clone(),
        )),
    }
}

/// A number at the start of `rest` (which starts at `start`).
fn number(rest: &str, start: usize) -> Result<(Token, Range<usize>), SubstError> {
    let sign = usize::from(rest.starts_with('-'));
    let digits = |from: usize| {
        from + rest[from..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - from)
    };
    let int_end = digits(sign);
    let is_float = rest[int_end..].starts_with('.')
        && rest[int_end + 1..].starts_with(|c: char| c.is_ascii_digit());
    let end = if is_float {
        digits(int_end + 1)
    } else {
        int_end
    };
    let text = &rest[..end];
    let range = start..start + end;
    let token = if is_float {
        text.parse()
            .ok()
            .filter(|value: &f64| value.is_finite())
            .map(Token::Float)
    } else {
        text.parse().ok().map(Token::Int)
    };
    token.map(|token| (token, range.clone())).ok_or_else(|| {
        SubstError::new(
            codes::SYNTAX,
            format!("`{text}` does not fit in a 64-bit number"),
            range,
        )
    })
}

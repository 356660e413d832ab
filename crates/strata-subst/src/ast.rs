//! The syntax tree of a field text and its canonical printing.
//!
//! A field text is a [`Template`]: literal text and `${..}` substitutions.
//! Every node keeps its byte range in the text it was parsed from, so a
//! problem found later (a missing variable, a wrong argument) points at the
//! exact characters. Printing ([`fmt::Display`]) writes the canonical form:
//! no whitespace inside a substitution, one space after each comma, names
//! as `.name` unless they need quotes (`["a.b"]`); parsing the printed text
//! gives the same tree (ranges aside).

use std::fmt;
use std::ops::Range;

/// A field text: literal text and substitutions, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// The parts, in order; two text parts are never adjacent.
    pub parts: Vec<Part>,
}

impl Template {
    /// The one substitution, when the text is exactly one `${..}` with
    /// nothing around it: the field then keeps the substitution's type.
    #[must_use]
    pub fn as_single(&self) -> Option<&Substitution> {
        match self.parts.as_slice() {
            [Part::Substitution(substitution)] => Some(substitution),
            _ => None,
        }
    }

    /// Whether the text holds any substitution.
    #[must_use]
    pub fn has_substitutions(&self) -> bool {
        self.substitutions().next().is_some()
    }

    /// The substitutions, in order.
    pub fn substitutions(&self) -> impl Iterator<Item = &Substitution> {
        self.parts.iter().filter_map(|part| match part {
            Part::Substitution(substitution) => Some(substitution),
            Part::Text { .. } => None,
        })
    }
}

impl Template {
    /// Every reference the text makes, in order (inside calls too).
    #[must_use]
    pub fn references(&self) -> Vec<&Reference> {
        let mut found = Vec::new();
        for substitution in self.substitutions() {
            substitution.expr.collect_references(&mut found);
        }
        found
    }
}

impl Expr {
    fn collect_references<'a>(&'a self, found: &mut Vec<&'a Reference>) {
        match &self.kind {
            ExprKind::Reference(reference) => found.push(reference),
            ExprKind::Call(call) => {
                for argument in &call.args {
                    argument.value.collect_references(found);
                }
            }
            ExprKind::Literal(_) | ExprKind::Bare(_) => {}
        }
    }
}

/// A run of literal text or a substitution.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Text as written (it never holds `${`).
    Text {
        /// The text.
        text: String,
        /// Where it was written.
        range: Range<usize>,
    },
    /// A `${..}`.
    Substitution(Substitution),
}

/// One `${..}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Substitution {
    /// What it holds.
    pub expr: Expr,
    /// From `$` to the closing `}`.
    pub range: Range<usize>,
}

/// An expression and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Where it was written.
    pub range: Range<usize>,
}

/// The kinds of expression the grammar has.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `true`, `42`, `-1.5`, `"text"`.
    Literal(Literal),
    /// A reference to something the blueprint defines.
    Reference(Reference),
    /// A bare name without accessors: a resource (valid only as an argument
    /// of `link`) or, where a function is expected, a function (`trim` in
    /// `map(list, trim)`). Which one is decided by where it stands.
    Bare(Name),
    /// `name(args)` followed by accessors.
    Call(Call),
}

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `true` or `false`.
    Bool(bool),
    /// `[-]digits`.
    Int(i64),
    /// `[-]digits.digits`.
    Float(f64),
    /// `"text"`, `\"` for a quote.
    String(String),
}

/// A name and where it was written (without quotes or brackets).
#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    /// The name.
    pub text: String,
    /// Where it was written.
    pub range: Range<usize>,
}

/// `.name`, `["quoted.name"]`, `[3]` or `[]` (the first item).
#[derive(Debug, Clone, PartialEq)]
pub enum Accessor {
    /// A field by name.
    Field(Name),
    /// An item by position; `[]` is `[0]`.
    Index {
        /// The position written, `None` for `[]`.
        index: Option<usize>,
        /// From `[` to `]`.
        range: Range<usize>,
    },
}

impl Accessor {
    /// Where the accessor was written.
    #[must_use]
    pub fn range(&self) -> Range<usize> {
        match self {
            Accessor::Field(name) => name.range.clone(),
            Accessor::Index { range, .. } => range.clone(),
        }
    }
}

/// A function call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The function's name.
    pub function: Name,
    /// The arguments, in order.
    pub args: Vec<Argument>,
    /// Accessors applied to the result.
    pub path: Vec<Accessor>,
}

/// A positional (`x`) or named (`name = x`) argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    /// The name of a named argument.
    pub name: Option<Name>,
    /// The value.
    pub value: Expr,
}

/// A reference, by what it refers to.
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    /// `variables.name`: a primitive, no accessors.
    Variable {
        /// The variable.
        name: Name,
    },
    /// `values.name` and accessors.
    Value {
        /// The value.
        name: Name,
        /// Accessors into it.
        path: Vec<Accessor>,
    },
    /// `datasources.name.field` and at most one index.
    Datasource {
        /// The data source.
        name: Name,
        /// The exported field.
        field: Name,
        /// `[n]` into an array field.
        index: Option<Accessor>,
    },
    /// `children.name` and at least one accessor.
    Child {
        /// The included blueprint.
        name: Name,
        /// Accessors into its exports.
        path: Vec<Accessor>,
    },
    /// `resources.name` or `name`, and accessors.
    Resource {
        /// The resource.
        name: Name,
        /// Whether written with the `resources.` prefix.
        prefixed: bool,
        /// Accessors (`.spec…`, `.state…`, `.metadata…`, `[n]` for an
        /// `each` resource).
        path: Vec<Accessor>,
    },
    /// `elem` and accessors: the current item of `each`.
    Elem {
        /// Accessors into the item.
        path: Vec<Accessor>,
    },
    /// `i`: the current index of `each`.
    ElemIndex,
}

impl Reference {
    /// The accessors after the referenced name.
    #[must_use]
    pub fn path(&self) -> &[Accessor] {
        match self {
            Reference::Value { path, .. }
            | Reference::Child { path, .. }
            | Reference::Resource { path, .. }
            | Reference::Elem { path } => path,
            Reference::Datasource { index, .. } => index.as_slice(),
            Reference::Variable { .. } | Reference::ElemIndex => &[],
        }
    }
}

/// Whether `text` is a name that can be written as `.name`.
#[must_use]
pub fn is_plain_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn write_name_accessor(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    if is_plain_name(name) {
        write!(f, ".{name}")
    } else {
        write!(f, "[\"{name}\"]")
    }
}

fn write_path(f: &mut fmt::Formatter<'_>, path: &[Accessor]) -> fmt::Result {
    path.iter().try_for_each(|accessor| write!(f, "{accessor}"))
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.parts {
            match part {
                Part::Text { text, .. } => f.write_str(text)?,
                Part::Substitution(substitution) => write!(f, "{substitution}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Substitution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${{{}}}", self.expr)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Literal(literal) => write!(f, "{literal}"),
            ExprKind::Reference(reference) => write!(f, "{reference}"),
            ExprKind::Bare(name) => f.write_str(&name.text),
            ExprKind::Call(call) => {
                write!(f, "{}(", call.function.text)?;
                for (index, argument) in call.args.iter().enumerate() {
                    if index > 0 {
                        f.write_str(", ")?;
                    }
                    if let Some(name) = &argument.name {
                        write!(f, "{} = ", name.text)?;
                    }
                    write!(f, "{}", argument.value)?;
                }
                f.write_str(")")?;
                write_path(f, &call.path)
            }
        }
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Bool(value) => write!(f, "{value}"),
            Literal::Int(value) => write!(f, "{value}"),
            Literal::Float(value) if value.fract() == 0.0 => write!(f, "{value:.1}"),
            Literal::Float(value) => write!(f, "{value}"),
            Literal::String(text) => write!(f, "\"{}\"", text.replace('"', "\\\"")),
        }
    }
}

impl fmt::Display for Accessor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Accessor::Field(name) => write_name_accessor(f, &name.text),
            Accessor::Index { index: None, .. } => f.write_str("[]"),
            Accessor::Index {
                index: Some(index), ..
            } => write!(f, "[{index}]"),
        }
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reference::Variable { name } => {
                f.write_str("variables")?;
                write_name_accessor(f, &name.text)
            }
            Reference::Value { name, path } => {
                f.write_str("values")?;
                write_name_accessor(f, &name.text)?;
                write_path(f, path)
            }
            Reference::Datasource { name, field, index } => {
                f.write_str("datasources")?;
                write_name_accessor(f, &name.text)?;
                write_name_accessor(f, &field.text)?;
                write_path(f, index.as_slice())
            }
            Reference::Child { name, path } => {
                f.write_str("children")?;
                write_name_accessor(f, &name.text)?;
                write_path(f, path)
            }
            Reference::Resource {
                name,
                prefixed,
                path,
            } => {
                if *prefixed || !is_plain_name(&name.text) {
                    f.write_str("resources")?;
                    write_name_accessor(f, &name.text)?;
                } else {
                    f.write_str(&name.text)?;
                }
                write_path(f, path)
            }
            Reference::Elem { path } => {
                f.write_str("elem")?;
                write_path(f, path)
            }
            Reference::ElemIndex => f.write_str("i"),
        }
    }
}

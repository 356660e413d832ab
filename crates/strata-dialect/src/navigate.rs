//! What an editor navigates by, as every dialect states it.
//!
//! A dialect's [`Outline`] lists the things its files define ([`Symbol`]s:
//! blueprints, features, components, resources, variables, ...) and every
//! place that names one of them or a file ([`Reference`]s: a `template:`,
//! a `dependsOn` entry, a `${variables.x}`, an `!include`). A reference
//! points at the span of the definition's name, or at the start of the
//! file it names, so "go to definition" follows it and "find references"
//! gathers every reference with the same target. The language server
//! builds outlines, hovers, definitions, references and name completions
//! from this one shape; the dialect only says what it defines and names.
//!
//! [`Dialect::explain`](crate::Dialect::explain) adds what only the dialect
//! knows about a value (where a composed value came from, what it
//! overrode), and [`FunctionDoc`]s document the functions its expressions
//! may call.

use strata_syntax::{Node, SourceDb, Span, Value};

/// What kind of thing a [`Symbol`] is: a dialect's own word for it (a
/// platform `blueprint`, a Windsor `kustomization`, a spec `resource`), and
/// the [`Category`] an editor draws it as. Each dialect declares its kinds
/// as constants; the core knows none of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SymbolKind {
    /// The kind as a person names it: `blueprint`, `Terraform component`.
    pub label: &'static str,
    /// What an editor's outline draws it as.
    pub category: Category,
}

impl SymbolKind {
    /// The kind called `label`, drawn as `category`.
    #[must_use]
    pub const fn new(label: &'static str, category: Category) -> SymbolKind {
        SymbolKind { label, category }
    }
}

/// The families of symbols editors draw (the language server protocol's
/// symbol kinds a dialect's definitions fall into).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Something requested by name and built (a blueprint).
    Class,
    /// Something others build on (a template, a capability).
    Interface,
    /// A unit of several definitions (a feature, a child blueprint).
    Module,
    /// A deployable piece (a Terraform component, a kustomization).
    Package,
    /// A file of its own (a qbec component).
    File,
    /// A scope others run in (an environment).
    Namespace,
    /// A thing deployed (a resource).
    Object,
    /// An input (a variable).
    Variable,
    /// A computed value.
    Constant,
    /// A record read from outside (a data source).
    Struct,
    /// An output (an export).
    Property,
}

/// A thing a file defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// The whole definition.
    pub span: Span,
    /// Where its name is written: what references point at.
    pub name_span: Span,
    /// One line about it (a description, a type), when it has one.
    pub detail: Option<String>,
}

/// A place that names a symbol or a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// Where the name is written.
    pub span: Span,
    /// The [`Symbol::name_span`] of what it names, or the start of the
    /// file it names ([`Span::file_start`]).
    pub target: Span,
}

/// Everything a dialect's files define and name; see the module docs.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    /// The definitions, in the order the files hold them.
    pub symbols: Vec<Symbol>,
    /// The references, in the order the files hold them.
    pub references: Vec<Reference>,
    /// Keys whose values name a symbol, with the kinds they may name
    /// (`template` names a blueprint or a template): where completion
    /// offers those names.
    pub naming_keys: Vec<(&'static str, &'static [SymbolKind])>,
}

impl Outline {
    /// The symbol whose name `target` is.
    #[must_use]
    pub fn symbol_named_at(&self, target: Span) -> Option<&Symbol> {
        self.symbols
            .iter()
            .find(|symbol| symbol.name_span == target)
    }

    /// Where the name of the first symbol called `name` of one of `kinds`
    /// is written: the target of a reference to it.
    #[must_use]
    pub fn target_of(&self, name: &str, kinds: &[SymbolKind]) -> Option<Span> {
        self.symbols
            .iter()
            .find(|symbol| symbol.name == name && kinds.contains(&symbol.kind))
            .map(|symbol| symbol.name_span)
    }
}

/// A function an expression may call, for hovers and completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionDoc {
    /// Its name.
    pub name: String,
    /// `substr(text: string, start: integer, end?: integer) -> string`.
    pub signature: String,
    /// What it does.
    pub summary: String,
}

impl FunctionDoc {
    /// The function `name`, called as `signature`, doing `summary`.
    #[must_use]
    pub fn new(name: &str, signature: impl Into<String>, summary: &str) -> FunctionDoc {
        FunctionDoc {
            name: name.to_owned(),
            signature: signature.into(),
            summary: summary.to_owned(),
        }
    }
}

/// A value in one line for a hover: a scalar as written (cut at 80
/// characters), a tag with its text, a mapping or a list by its size.
#[must_use]
pub fn describe_value(node: &Node) -> String {
    let text = match &node.value {
        Value::Null => "null".to_owned(),
        Value::Bool(value) => value.to_string(),
        Value::Int(value) => value.to_string(),
        Value::Float(value) => value.to_string(),
        Value::String(text) => format!("{text:?}"),
        Value::Seq(items) => return format!("a list of {} items", items.len()),
        Value::Map(entries) => return format!("a mapping of {} keys", entries.len()),
    };
    let mut text = match &node.tag {
        Some(tag) => format!("{} {text}", tag.as_str()),
        None => text,
    };
    if let Some((cut, _)) = text.char_indices().nth(80) {
        text.truncate(cut);
        text.push('…');
    }
    format!("`{text}`")
}

/// `file:line` of `span`, for a hover.
#[must_use]
pub fn place(db: &SourceDb, span: Span) -> String {
    let (file, at) = db.locate(span);
    format!("{file}:{}", at.line)
}

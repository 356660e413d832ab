//! Hover, go to definition, find references and document symbols, read
//! from a checked project's [`View`]: its [`Outline`](strata_dialect::Outline)
//! and the dialect's [`explain`](View::explain).
//!
//! - **Definition**: on a reference (a `template:`, a `dependsOn` entry, a
//!   `${variables.x}`, an `!include`), the place it names.
//! - **References**: on a reference or on a definition's name, every
//!   reference to the same definition (and the definition itself when the
//!   client asks for it).
//! - **Hover**: on a reference or a definition's name, what it is (kind,
//!   name, description or type) and where it is defined; on a function
//!   name followed by `(`, its signature and summary; on any other value,
//!   what the dialect explains (where a composed value came from and what
//!   it overrides, what an expression gives).
//! - **Symbols**: the definitions in the file, in the order written.

use std::fmt::Write as _;

use lsp_types::{DocumentSymbol, Hover, HoverContents, Location, MarkupContent, MarkupKind};
use strata_dialect::{Category, Symbol, SymbolKind, place};
use strata_syntax::Span;

use crate::check::View;

/// The reference written at `at`, if any.
fn reference_at(view: &View, at: Span) -> Option<&strata_dialect::Reference> {
    view.outline
        .references
        .iter()
        .find(|reference| holds(reference.span, at))
}

/// The definition whose name is written at `at`, if any.
fn symbol_named_at(view: &View, at: Span) -> Option<&Symbol> {
    view.outline
        .symbols
        .iter()
        .find(|symbol| holds(symbol.name_span, at))
}

/// Whether `span` holds the offset `at` (its end included, where a cursor
/// after the last character stands).
fn holds(span: Span, at: Span) -> bool {
    span.source == at.source && span.start <= at.start && at.start <= span.end
}

/// Where the reference at `at` leads.
#[must_use]
pub(crate) fn definition(view: &View, at: Span) -> Option<Location> {
    view.location(reference_at(view, at)?.target)
}

/// Every reference to what is named or referred to at `at`, the
/// definition first when `declaration` asks for it.
#[must_use]
pub(crate) fn references(view: &View, at: Span, declaration: bool) -> Vec<Location> {
    let target = reference_at(view, at)
        .map(|reference| reference.target)
        .or_else(|| symbol_named_at(view, at).map(|symbol| symbol.name_span));
    let Some(target) = target else {
        return Vec::new();
    };
    declaration
        .then_some(target)
        .into_iter()
        .chain(
            view.outline
                .references
                .iter()
                .filter(|reference| reference.target == target)
                .map(|reference| reference.span),
        )
        .filter_map(|span| view.location(span))
        .collect()
}

/// What to show on a hover at `at`; `word` is the identifier under the
/// cursor, for function names.
#[must_use]
pub(crate) fn hover(view: &View, at: Span, word: Option<&str>) -> Option<Hover> {
    let (text, span) = if let Some(reference) = reference_at(view, at) {
        let text = match view.outline.symbol_named_at(reference.target) {
            Some(symbol) => describe(view, symbol),
            None => format!("file `{}`", place(&view.sources, reference.target)),
        };
        (text, reference.span)
    } else if let Some(symbol) = symbol_named_at(view, at) {
        let uses = view
            .outline
            .references
            .iter()
            .filter(|reference| reference.target == symbol.name_span)
            .count();
        let mut text = describe(view, symbol);
        let _ = write!(text, "\n\n{uses} references");
        (text, symbol.name_span)
    } else if let Some(function) =
        word.and_then(|word| view.functions.iter().find(|function| function.name == word))
    {
        let text = format!("```\n{}\n```\n{}", function.signature, function.summary);
        (text, at)
    } else {
        (view.explain(at)?, at)
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: (span != at).then(|| view.range(span)),
    })
}

/// A definition in Markdown: kind, name, detail, where it is.
fn describe(view: &View, symbol: &Symbol) -> String {
    let mut text = format!("{} `{}`", symbol.kind.label, symbol.name);
    if let Some(detail) = &symbol.detail {
        let _ = write!(text, ": {detail}");
    }
    let _ = write!(
        text,
        "\n\ndefined at {}",
        place(&view.sources, symbol.name_span)
    );
    text
}

/// The definitions written in `source`, in the order written.
#[must_use]
pub(crate) fn symbols(view: &View, source: strata_syntax::SourceId) -> Vec<DocumentSymbol> {
    let mut symbols: Vec<&Symbol> = view
        .outline
        .symbols
        .iter()
        .filter(|symbol| symbol.span.source == source)
        .collect();
    symbols.sort_by_key(|symbol| symbol.span.start);
    symbols
        .into_iter()
        .map(|symbol| {
            #[expect(
                deprecated,
                reason = "`deprecated` is a required field of lsp-types' struct"
            )]
            DocumentSymbol {
                name: symbol.name.clone(),
                detail: symbol.detail.clone(),
                kind: kind(symbol.kind),
                tags: None,
                deprecated: None,
                range: view.range(symbol.span),
                selection_range: view.range(symbol.name_span),
                children: None,
            }
        })
        .collect()
}

/// The protocol's kind for a symbol's.
fn kind(kind: SymbolKind) -> lsp_types::SymbolKind {
    match kind.category {
        Category::Class => lsp_types::SymbolKind::CLASS,
        Category::Interface => lsp_types::SymbolKind::INTERFACE,
        Category::Module => lsp_types::SymbolKind::MODULE,
        Category::Package => lsp_types::SymbolKind::PACKAGE,
        Category::File => lsp_types::SymbolKind::FILE,
        Category::Namespace => lsp_types::SymbolKind::NAMESPACE,
        Category::Object => lsp_types::SymbolKind::OBJECT,
        Category::Variable => lsp_types::SymbolKind::VARIABLE,
        Category::Constant => lsp_types::SymbolKind::CONSTANT,
        Category::Struct => lsp_types::SymbolKind::STRUCT,
        Category::Property => lsp_types::SymbolKind::PROPERTY,
    }
}

//! The requests the server answers, each from the view of the project the
//! document belongs to ([`View`]); a document outside every project, or
//! not read by its project's check, gets an empty answer (`null`), never
//! an error.

use std::path::Path;

use lsp_server::{ErrorCode, Request};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, References, Request as _,
};
use lsp_types::{
    CompletionParams, DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse,
    HoverParams, Position, ReferenceParams,
};
use serde_json::Value;
use strata_syntax::Span;

use crate::check::{View, offset};
use crate::{complete, navigate};

/// The answer to `request` about `document`, whose open buffer (if it is
/// open) holds `buffer`, or the protocol's error: parameters that do not
/// parse, a method not offered.
pub(crate) fn answer(
    view: Option<&View>,
    document: &Path,
    buffer: Option<&str>,
    request: &Request,
) -> Result<Value, (ErrorCode, String)> {
    let params = request.params.clone();
    let invalid = |error: serde_json::Error| {
        let message = format!("invalid `{}` parameters: {error}", request.method);
        (ErrorCode::InvalidParams, message)
    };
    let result = match request.method.as_str() {
        HoverRequest::METHOD => {
            let params: HoverParams = serde_json::from_value(params).map_err(invalid)?;
            let position = params.text_document_position_params.position;
            at(view, document, position)
                .and_then(|(view, span, text)| {
                    let called = called_at(text, span.start as usize);
                    navigate::hover(view, span, called)
                })
                .map(serde_json::to_value)
        }
        GotoDefinition::METHOD => {
            let params: GotoDefinitionParams = serde_json::from_value(params).map_err(invalid)?;
            let position = params.text_document_position_params.position;
            at(view, document, position)
                .and_then(|(view, span, _)| navigate::definition(view, span))
                .map(|location| serde_json::to_value(GotoDefinitionResponse::Scalar(location)))
        }
        References::METHOD => {
            let params: ReferenceParams = serde_json::from_value(params).map_err(invalid)?;
            let position = params.text_document_position.position;
            at(view, document, position).map(|(view, span, _)| {
                serde_json::to_value(navigate::references(
                    view,
                    span,
                    params.context.include_declaration,
                ))
            })
        }
        DocumentSymbolRequest::METHOD => view.and_then(|view| {
            let source = view.source_of(document)?;
            Some(serde_json::to_value(DocumentSymbolResponse::Nested(
                navigate::symbols(view, source),
            )))
        }),
        Completion::METHOD => {
            let params: CompletionParams = serde_json::from_value(params).map_err(invalid)?;
            let position = params.text_document_position.position;
            // The text as the user sees it now; the view may be older.
            view.and_then(|view| {
                let text = buffer.or_else(|| {
                    let source = view.source_of(document)?;
                    Some(view.sources.get(source).text())
                })?;
                let relative = document.strip_prefix(&view.root).unwrap_or(document);
                let schema = view.schema_of(relative);
                let before = &text[..offset(text, position)];
                Some(serde_json::to_value(complete::complete(
                    view, schema, text, before,
                )))
            })
        }
        method => {
            let message = format!("`{method}` is not offered by this server");
            return Err((ErrorCode::MethodNotFound, message));
        }
    };
    match result {
        None => Ok(Value::Null),
        Some(value) => value.map_err(|error| (ErrorCode::InternalError, error.to_string())),
    }
}

/// The view, the offset of `position` in `document` as a span, and the
/// document's text as the check read it.
fn at<'a>(
    view: Option<&'a View>,
    document: &Path,
    position: Position,
) -> Option<(&'a View, Span, &'a str)> {
    let view = view?;
    let source = view.source_of(document)?;
    let text = view.sources.get(source).text();
    let offset = offset(text, position);
    Some((view, Span::new(source, offset, offset), text))
}

/// The name of the function called at the byte `offset`: the identifier
/// there when a `(` follows it.
fn called_at(text: &str, offset: usize) -> Option<&str> {
    let (start, word) = word_around(text, offset)?;
    text[start + word.len()..]
        .trim_start()
        .starts_with('(')
        .then_some(word)
}

/// The identifier (letters, digits, `_`) around the byte `offset`, with
/// where it starts.
fn word_around(text: &str, offset: usize) -> Option<(usize, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(index, _)| index);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(index, _)| offset + index);
    (start < end).then(|| (start, &text[start..end]))
}

#[cfg(test)]
mod tests {
    use super::{called_at, word_around};

    #[test]
    fn words_are_found_around_the_cursor() {
        let text = "${trim(variables.a_b)}";
        assert_eq!(word_around(text, 3), Some((2, "trim")));
        assert_eq!(word_around(text, 6), Some((2, "trim")));
        assert_eq!(word_around(text, 19), Some((17, "a_b")));
        assert_eq!(word_around(text, 0), None);
        assert_eq!(called_at(text, 3), Some("trim"));
        assert_eq!(called_at(text, 19), None);
        assert_eq!(called_at("size: 10Gi", 1), None);
    }
}

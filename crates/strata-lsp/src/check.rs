//! Checking a project as the editor shows it, and its diagnostics in the
//! protocol's terms.
//!
//! The project is opened through the dialect contract from an
//! [`OverlayFs`]: the editor's open buffers over the files on disk, so
//! what the user sees is what is checked. Opening finds what needs no
//! request (parse and schema errors, unknown keys, broken templates and
//! includes, expressions that do not compile); when it found no error,
//! [`Dialect::check`] renders what the dialect can ask for on its own
//! (each environment, each context), as `strata <dialect> check` does.
//! Every diagnostic is published for the file it points into, with the
//! same code, message, range, related places, field path, notes and help.
//!
//! Ranges are in UTF-16 code units, the protocol's default.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Range,
    Url,
};
use strata_dialect::{Dialect, Files, Limits, Options, SourceDb};
use strata_fs::{MemoryFs, OverlayFs, RootFs};
use strata_syntax::{Diagnostic, Severity, Span};

use crate::project::{DialectKind, Project};

/// Every file's diagnostics, by absolute path.
pub type Published = BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>>;

/// Opens `project` with `buffers` (absolute paths) over its files.
#[must_use]
pub fn check(project: &Project, buffers: &BTreeMap<PathBuf, String>, limits: Limits) -> Published {
    let Ok(base) = RootFs::new(&project.root) else {
        return Published::new();
    };
    let mut memory = MemoryFs::new();
    for (path, text) in buffers {
        if let Some(relative) = path.strip_prefix(&project.root).ok().and_then(Path::to_str) {
            memory = memory.with(relative, text);
        }
    }
    let files: Arc<dyn Files> = Arc::new(OverlayFs::new(Arc::new(base), memory));
    let (sources, diagnostics) = match &project.dialect {
        DialectKind::Platform => open::<strata_platform::Catalogue>(files, limits, None),
        DialectKind::Components => open::<strata_components::Application>(files, limits, None),
        DialectKind::Features => open::<strata_features::Project>(files, limits, None),
        DialectKind::Capabilities => open::<strata_capabilities::Package>(files, limits, None),
        DialectKind::Spec(blueprint) => {
            let settings = strata_spec::Settings {
                path: blueprint.clone(),
                root: Some(project.root.clone()),
            };
            open::<strata_spec::Spec>(files, limits, Some(settings))
        }
    };
    let mut published = Published::new();
    for diagnostic in &diagnostics {
        let Some((path, converted)) = convert(&sources, &project.root, diagnostic) else {
            continue;
        };
        published.entry(path).or_default().push(converted);
    }
    published
}

/// The sources and diagnostics of opening `D` on `files` with `settings`
/// (the dialect's defaults for none), then, when opening found no error,
/// of checking every request it makes on its own ([`Dialect::check`]).
fn open<D: Dialect>(
    files: Arc<dyn Files>,
    limits: Limits,
    settings: Option<D::Settings>,
) -> (SourceDb, Vec<Diagnostic>) {
    let opened = D::open(files, Options::new(limits, settings.unwrap_or_default()));
    let mut db = SourceDb::extending(opened.sources);
    let mut diagnostics = opened.outcome.diagnostics;
    if let Some(dialect) = opened.outcome.value
        && !diagnostics.iter().any(Diagnostic::is_error)
    {
        diagnostics.extend(dialect.check(&mut db));
    }
    (db, diagnostics)
}

/// The absolute path of a source, if it is a file of the project (sources
/// are named as the tree shows them: the root joined).
fn source_path(sources: &SourceDb, span: Span, root: &Path) -> Option<PathBuf> {
    let name = Path::new(sources.get(span.source).name());
    let path = if name.is_absolute() {
        name.to_path_buf()
    } else {
        root.join(name)
    };
    path.starts_with(root).then_some(path)
}

/// `diagnostic` for the protocol, with the file it belongs to.
fn convert(
    sources: &SourceDb,
    root: &Path,
    diagnostic: &Diagnostic,
) -> Option<(PathBuf, lsp_types::Diagnostic)> {
    let path = source_path(sources, diagnostic.primary.span, root)?;
    let related: Vec<DiagnosticRelatedInformation> = diagnostic
        .secondary
        .iter()
        .filter_map(|label| {
            let path = source_path(sources, label.span, root)?;
            Some(DiagnosticRelatedInformation {
                location: Location {
                    uri: Url::from_file_path(&path).ok()?,
                    range: range(sources, label.span),
                },
                message: label.message.clone(),
            })
        })
        .collect();
    let mut message = diagnostic.message.clone();
    if let Some(field) = &diagnostic.path {
        let _ = write!(message, "\nfield: {field}");
    }
    for note in &diagnostic.notes {
        let _ = write!(message, "\nnote: {note}");
    }
    if let Some(help) = &diagnostic.help {
        let _ = write!(message, "\nhelp: {help}");
    }
    let converted = lsp_types::Diagnostic {
        range: range(sources, diagnostic.primary.span),
        severity: Some(match diagnostic.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(diagnostic.code.to_owned())),
        source: Some("strata".to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..lsp_types::Diagnostic::default()
    };
    Some((path, converted))
}

/// `span` as a protocol range.
fn range(sources: &SourceDb, span: Span) -> Range {
    let text = sources.get(span.source).text();
    Range {
        start: position(text, span.start as usize),
        end: position(text, span.end as usize),
    }
}

/// The line and UTF-16 column of the byte `offset` of `text` (clamped to
/// the text and to a character boundary).
#[must_use]
pub fn position(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let line = before.matches('\n').count();
    let character = before[line_start..].encode_utf16().count();
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        character: u32::try_from(character).unwrap_or(u32::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::position;
    use lsp_types::Position;

    #[test]
    fn columns_count_utf16_units() {
        let text = "a: 1\nb: \"é😀x\"\n";
        assert_eq!(position(text, 0), Position::new(0, 0));
        assert_eq!(position(text, 5), Position::new(1, 0));
        // `x` comes after `é` (one unit, two bytes) and `😀` (two units, four bytes).
        let x = text.find('x').unwrap_or_default();
        assert_eq!(position(text, x), Position::new(1, 7));
        // Inside a character: its start.
        assert_eq!(position(text, x - 1), Position::new(1, 5));
        assert_eq!(position(text, 1000), Position::new(2, 0));
    }
}

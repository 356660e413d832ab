//! Checking a project as the editor shows it, and its diagnostics in the
//! protocol's terms.
//!
//! The project is opened through the dialect contract from an
//! [`OverlayFs`]: the editor's open buffers over the files on disk, so
//! what the user sees is what is checked. Opening ([`open`]) finds what
//! needs no request (parse and schema errors, unknown keys, broken
//! templates and includes, expressions that do not compile) and gives the
//! [`View`] the editor's requests read. When it found no error and the
//! dialect's check renders ([`Entry::check_renders`]),
//! [`Project::check`] renders what the dialect can ask for on its own
//! (each environment, each context), as `strata <dialect> check` does:
//! in this process ([`render_checks`]), or, when those renders evaluate
//! Jsonnet, which nothing in a process can stop
//! ([`Entry::check_isolated`]), in a child process that opens the project
//! again ([`evaluate`], through [`crate::isolated`]).
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
use strata_dialect::{
    Cancel, Entry, Files, FunctionDoc, Limits, Opened, Options, Outline, Progress, Registry,
    SourceDb,
};
use strata_fs::{MemoryFs, OverlayFs, RootFs};
use strata_syntax::{Diagnostic, Severity, SourceId, Span};

use crate::project::Project;

/// Every file's diagnostics, by absolute path.
pub type Published = BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>>;

/// A project as opening it found it: what the editor's requests read, the
/// diagnostics of opening, and whether its check renders beyond.
pub struct Opening {
    /// The project as opened.
    pub view: View,
    /// Every file's diagnostics from opening.
    pub published: Published,
    /// Whether the dialect's check renders requests of its own
    /// ([`Entry::check_renders`]) and opening found no error: the rest
    /// of the project's diagnostics come from those renders
    /// ([`render_checks`] here, or [`evaluate`] in a child process).
    pub renders: bool,
}

/// What hovers, definitions, references, symbols and completion read: a
/// checked project's sources and [`Outline`], and the dialect behind them.
pub struct View {
    /// The project's root.
    pub root: PathBuf,
    /// Every source the check read, and those the outline registered.
    pub sources: SourceDb,
    /// What the files define and name.
    pub outline: Outline,
    /// The functions its expressions may call.
    pub functions: Vec<FunctionDoc>,
    /// Its dialect, for the schema of each file (below the root).
    pub entry: Option<Entry>,
    /// The dialect as opened, when opening gave one: it explains values,
    /// renders its checks, and the next check of the project reopens it
    /// ([`strata_dialect::Project::reopen`]).
    pub dialect: Option<Arc<dyn strata_dialect::Project>>,
}

impl View {
    /// The view of a project that could not be opened.
    fn empty(root: PathBuf) -> View {
        View {
            root,
            sources: SourceDb::new(),
            outline: Outline::default(),
            functions: Vec::new(),
            entry: None,
            dialect: None,
        }
    }

    /// What the dialect knows of the value written at `at`.
    #[must_use]
    pub fn explain(&self, at: Span) -> Option<String> {
        self.dialect.as_ref()?.explain(&self.sources, at)
    }

    /// The dialect's schema of the file at `relative` (below the root).
    #[must_use]
    pub fn schema_of(&self, relative: &Path) -> Option<&'static serde_json::Value> {
        self.entry?.schema_of(relative)
    }

    /// The source of the file at `path` (absolute), when the check read it.
    #[must_use]
    pub fn source_of(&self, path: &Path) -> Option<SourceId> {
        let relative = path.strip_prefix(&self.root).ok()?;
        self.sources
            .find(&path.to_string_lossy())
            .or_else(|| self.sources.find(&relative.to_string_lossy()))
    }

    /// The absolute path of the file `span` points into, when it is one of
    /// the project's.
    #[must_use]
    pub fn path_of(&self, span: Span) -> Option<PathBuf> {
        source_path(&self.sources, span, &self.root)
    }

    /// `span` as a protocol location.
    #[must_use]
    pub fn location(&self, span: Span) -> Option<Location> {
        Some(Location {
            uri: Url::from_file_path(self.path_of(span)?).ok()?,
            range: range(&self.sources, span),
        })
    }

    /// `span` as a protocol range.
    #[must_use]
    pub fn range(&self, span: Span) -> Range {
        range(&self.sources, span)
    }
}

/// Opens `project` (one of `registry`'s dialects) with `buffers`
/// (absolute paths) over its files, reopening `previous` (the dialect of
/// its last check) when there is one, and outlines it; stops early, with
/// an incomplete result, once `cancel` is asked. What the check renders is
/// left to [`render_checks`] or [`evaluate`] ([`Opening::renders`]).
#[must_use]
pub fn open(
    registry: &Registry,
    project: &Project,
    buffers: &BTreeMap<PathBuf, String>,
    limits: Limits,
    previous: Option<&dyn strata_dialect::Project>,
    cancel: &Cancel,
) -> Opening {
    let (Some(entry), Some(files)) = (registry.get(&project.dialect), overlay(project, buffers))
    else {
        return Opening {
            view: View::empty(project.root.clone()),
            published: Published::new(),
            renders: false,
        };
    };
    let options = Options::new(limits, project.target())
        .with_cancel(cancel.clone())
        .for_reopening();
    let opened = match previous {
        Some(previous) => previous.reopen(files, options),
        None => entry.open(files, options),
    };
    let mut sources = SourceDb::extending(opened.sources);
    let diagnostics = opened.outcome.diagnostics;
    let mut outline = Outline::default();
    let dialect = opened.outcome.value.map(|dialect| {
        outline = dialect.outline(&mut sources);
        Arc::<dyn strata_dialect::Project>::from(dialect)
    });
    let renders =
        entry.check_renders && dialect.is_some() && !diagnostics.iter().any(Diagnostic::is_error);
    let published = publish(&sources, &project.root, &diagnostics);
    Opening {
        view: View {
            root: project.root.clone(),
            sources,
            outline,
            functions: entry.functions(),
            entry: Some(*entry),
            dialect,
        },
        published,
        renders,
    }
}

/// The diagnostics of the renders of `dialect`'s check, in this process
/// ([`strata_dialect::Project::check`]), for the files below `root`.
#[must_use]
pub fn render_checks(dialect: &dyn strata_dialect::Project, root: &Path) -> Published {
    let mut db = SourceDb::extending(dialect.sources().clone());
    let diagnostics = dialect.check(&mut db);
    publish(&db, root, &diagnostics)
}

/// Opens `project` (one of `registry`'s dialects) with `buffers` over its
/// files (reopening `previous`, the project as its last check opened it,
/// when there is one) and, when opening finds no error, renders its
/// check: the diagnostics of those renders, each step of evaluation told
/// to `progress`, stopping early once `cancel` is asked; and the project
/// as opened, for the next check to reopen. What the child process of an
/// isolated check does ([`crate::isolated`]).
#[must_use]
pub fn evaluate(
    registry: &Registry,
    project: &Project,
    buffers: &BTreeMap<PathBuf, String>,
    limits: Limits,
    progress: Progress,
    cancel: &Cancel,
    previous: Option<&dyn strata_dialect::Project>,
) -> (Published, Option<Arc<dyn strata_dialect::Project>>) {
    let (Some(entry), Some(files)) = (registry.get(&project.dialect), overlay(project, buffers))
    else {
        return (Published::new(), None);
    };
    let options = Options::new(limits, project.target())
        .with_progress(progress)
        .with_cancel(cancel.clone())
        .for_reopening();
    let Opened { sources, outcome } = match previous {
        Some(previous) => previous.reopen(files, options),
        None => entry.open(files, options),
    };
    let mut db = SourceDb::extending(sources);
    let opened_cleanly = !outcome.diagnostics.iter().any(Diagnostic::is_error);
    let dialect = outcome.value.map(Arc::<dyn strata_dialect::Project>::from);
    let diagnostics = match &dialect {
        Some(dialect) if opened_cleanly => dialect.check(&mut db),
        _ => Vec::new(),
    };
    (publish(&db, &project.root, &diagnostics), dialect)
}

/// The editor's buffers below `project`'s root over the files on disk
/// (read for this one check: each folder's real path looked up once);
/// `None` when the root cannot be opened.
fn overlay(project: &Project, buffers: &BTreeMap<PathBuf, String>) -> Option<Arc<dyn Files>> {
    let base = RootFs::for_one_pass(&project.root).ok()?;
    let mut memory = MemoryFs::new();
    for (path, text) in buffers {
        if let Some(relative) = path.strip_prefix(&project.root).ok().and_then(Path::to_str) {
            memory = memory.with(relative, text);
        }
    }
    Some(Arc::new(OverlayFs::new(Arc::new(base), memory)))
}

/// Every diagnostic for the file it points into (one of the project's
/// below `root`).
fn publish(sources: &SourceDb, root: &Path, diagnostics: &[Diagnostic]) -> Published {
    let mut published = Published::new();
    for diagnostic in diagnostics {
        if let Some((path, converted)) = convert(sources, root, diagnostic) {
            published.entry(path).or_default().push(converted);
        }
    }
    published
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
        code: Some(NumberOrString::String(diagnostic.code.to_string())),
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

/// The byte offset of `position` in `text` (a line past the end: the
/// end; a column past the line's end: its end).
#[must_use]
pub fn offset(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(newline) => line_start += newline + 1,
            None => return text.len(),
        }
    }
    let line = text[line_start..].split('\n').next().unwrap_or_default();
    let mut units = 0;
    for (index, character) in line.char_indices() {
        if units >= position.character as usize {
            return line_start + index;
        }
        units += character.len_utf16();
    }
    line_start + line.len()
}

#[cfg(test)]
mod tests {
    use super::{offset, position};
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

    #[test]
    fn offsets_invert_positions() {
        let text = "a: 1\nb: \"é😀x\"\n";
        for at in (0..=text.len()).filter(|at| text.is_char_boundary(*at)) {
            assert_eq!(offset(text, position(text, at)), at);
        }
        assert_eq!(offset(text, Position::new(0, 99)), 4);
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
    }
}

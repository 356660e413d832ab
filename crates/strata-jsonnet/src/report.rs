//! Jsonnet failures and `std.trace` messages as diagnostics: the one place
//! where a [`Failure`]'s frames become spans in a [`SourceDb`].
//!
//! Every file a trace names is registered once per [`TraceSources`] (a
//! file below the root under the name its [`Files`] shows, a virtual
//! source such as `<extvar:x>` under its own), so many failures of one
//! render share their sources.
//!
//! Codes: [`crate::codes`].

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use strata_fs::Files;
use strata_syntax::{Diagnostic, LineCol, SourceDb, SourceId, Span};

use crate::codes;
use crate::vm::{Failure, Frame, Traced};

/// How many trace frames a diagnostic lists.
const MAX_FRAMES: usize = 20;

/// The sources of the traces of one render, registered as they are met.
pub struct TraceSources {
    fs: Arc<dyn Files>,
    max_bytes: usize,
    registered: HashMap<String, SourceId>,
}

impl TraceSources {
    /// Sources read through `fs` (the evaluation's own files), each at
    /// most `max_bytes` long.
    #[must_use]
    pub fn new(fs: Arc<dyn Files>, max_bytes: usize) -> TraceSources {
        TraceSources {
            fs,
            max_bytes,
            registered: HashMap::new(),
        }
    }

    /// The start of the Jsonnet file `path` (below the root), registered
    /// once: where a problem with its output as a whole is reported.
    pub fn file_start(&mut self, db: &mut SourceDb, path: &Path) -> Span {
        self.read_file(db, path).0
    }

    /// [`TraceSources::file_start`], and the text read when this call read
    /// it: an evaluation of the file can then take the text rather than
    /// read the file again (and a file that could not be read is left for
    /// the evaluation to report).
    pub fn read_file(&mut self, db: &mut SourceDb, path: &Path) -> (Span, Option<Arc<str>>) {
        let name = path.display().to_string();
        if let Some(id) = self.registered.get(&name) {
            return (Span::file_start(*id), None);
        }
        let text: Option<Arc<str>> = self.fs.read(path, self.max_bytes).ok().map(Arc::from);
        let id = self.register(db, &name, true, text.clone().unwrap_or_default());
        (Span::file_start(id), text)
    }

    /// The place of a trace frame.
    pub fn frame_span(&mut self, db: &mut SourceDb, frame: &Frame) -> Span {
        let id = match self.registered.get(&frame.file) {
            Some(id) => *id,
            None => self.register(db, &frame.file, frame.on_disk, frame.code.clone()),
        };
        let length = frame.code.len();
        Span::new(id, frame.start.min(length), frame.end.min(length))
    }

    /// A failed evaluation of `what` (a component, say): at the innermost
    /// place of its trace (`fallback` when it has none), every frame in the
    /// notes.
    pub fn failure(
        &mut self,
        db: &mut SourceDb,
        what: &str,
        fallback: Span,
        failure: &Failure,
    ) -> Diagnostic {
        let spans: Vec<(Span, &Frame)> = failure
            .frames
            .iter()
            .map(|frame| (self.frame_span(db, frame), frame))
            .collect();
        let primary = spans.first().map_or(fallback, |(span, _)| *span);
        let mut diagnostic =
            Diagnostic::error(codes::EVAL, format!("{what}: {}", failure.message), primary);
        for (span, frame) in spans.iter().take(MAX_FRAMES) {
            let (file, LineCol { line, column }) = db.locate(*span);
            let description = if frame.description.is_empty() {
                String::new()
            } else {
                format!(" ({})", frame.description)
            };
            diagnostic = diagnostic.with_note(format!("at {file}:{line}:{column}{description}"));
        }
        if spans.len() > MAX_FRAMES {
            diagnostic =
                diagnostic.with_note(format!("... and {} more frames", spans.len() - MAX_FRAMES));
        }
        diagnostic
    }

    /// A `std.trace` message of `what`, where it was called (`fallback` when
    /// the call has no place).
    pub fn trace(
        &mut self,
        db: &mut SourceDb,
        what: &str,
        fallback: Span,
        traced: &Traced,
    ) -> Diagnostic {
        let at = traced
            .at
            .as_ref()
            .map_or(fallback, |frame| self.frame_span(db, frame));
        Diagnostic::note(codes::TRACE, format!("{what}: {}", traced.message), at)
    }

    fn register(
        &mut self,
        db: &mut SourceDb,
        name: &str,
        on_disk: bool,
        text: impl Into<Arc<str>>,
    ) -> SourceId {
        let shown = if on_disk {
            self.fs.display(Path::new(name))
        } else {
            name.to_owned()
        };
        let id = db.add(shown, text);
        self.registered.insert(name.to_owned(), id);
        id
    }
}

#[cfg(test)]
mod tests {
    use strata_fs::MemoryFs;
    use strata_syntax::Limits;

    use super::*;
    use crate::{Setup, Vm};

    #[test]
    fn failures_point_at_the_innermost_frame_and_list_the_trace() {
        let fs: Arc<dyn Files> = Arc::new(
            MemoryFs::new()
                .with("lib.libsonnet", "{ f(x):: error 'bad ' + x }\n")
                .with(
                    "main.jsonnet",
                    "local lib = import 'lib.libsonnet';\nlib.f('input')\n",
                ),
        );
        let setup = Setup {
            fs: fs.clone(),
            lib_paths: Vec::new(),
            ext_vars: Vec::new(),
            limits: Limits::default(),
            data_sources: crate::data::DataSources::new(),
        };
        let vm = Vm::new(&setup);
        let failure = vm
            .evaluate_file(Path::new("main.jsonnet"), &[])
            .unwrap_err();
        let mut db = SourceDb::new();
        let mut sources = TraceSources::new(fs, 1024);
        let fallback = sources.file_start(&mut db, Path::new("main.jsonnet"));
        let diagnostic = sources.failure(&mut db, "component `main`", fallback, &failure);
        let record = diagnostic.record(&db);
        assert_eq!(record.code, "jsonnet/eval");
        assert_eq!(record.message, "component `main`: runtime error: bad input");
        assert_eq!((record.file.as_str(), record.line), ("lib.libsonnet", 1));
        assert!(
            record
                .notes
                .iter()
                .any(|note| note.starts_with("at main.jsonnet:2:"))
        );
        // Each file is registered once, however often it is met.
        let again = sources.failure(&mut db, "again", fallback, &failure);
        assert_eq!(again.primary.span.source, diagnostic.primary.span.source);
        assert_eq!(db.len(), 2);
    }
}

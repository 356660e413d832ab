//! Where a builder's problems are put: at the node of the component's
//! properties they concern (or the nearest one written), with the field
//! path from the document's root.

use serde::de::DeserializeOwned;
use strata_schema::Decoder;
use strata_syntax::{Code, Diagnostic, FieldPath, Node, Severity, Span};

/// The problems found while building one component or trait.
pub(crate) struct Report<'a> {
    /// The properties (as resolved and merged).
    properties: &'a Node,
    /// Their path in the Application (`spec.components[0].properties`).
    base: FieldPath,
    /// What was found.
    pub(crate) problems: Vec<Diagnostic>,
}

impl<'a> Report<'a> {
    /// A report on `properties`, found at `base`.
    pub(crate) fn new(properties: &'a Node, base: FieldPath) -> Report<'a> {
        Report {
            properties,
            base,
            problems: Vec::new(),
        }
    }

    /// The span of the node at `path` (relative to the properties), or of
    /// its nearest written ancestor.
    pub(crate) fn span(&self, path: &FieldPath) -> Span {
        let segments = path.segments();
        (0..=segments.len())
            .rev()
            .find_map(|len| self.properties.at(&segments[..len]))
            .map_or(self.properties.span, |node| node.span)
    }

    /// The path of `path` (relative to the properties) in the document.
    pub(crate) fn full_path(&self, path: &FieldPath) -> FieldPath {
        let segments = self.base.segments().iter().chain(path.segments()).cloned();
        FieldPath::from(segments.collect::<Vec<_>>())
    }

    /// An error at `path`.
    pub(crate) fn error(&mut self, code: Code, path: &FieldPath, message: impl Into<String>) {
        let diagnostic = Diagnostic::error(code, message, self.span(path));
        self.push(diagnostic, path);
    }

    /// A warning at `path`.
    pub(crate) fn warning(&mut self, code: Code, path: &FieldPath, message: impl Into<String>) {
        let diagnostic = Diagnostic::warning(code, message, self.span(path));
        self.push(diagnostic, path);
    }

    /// `diagnostic`, with the document path of `path`.
    pub(crate) fn push(&mut self, diagnostic: Diagnostic, path: &FieldPath) {
        let full = self.full_path(path);
        self.problems.push(diagnostic.with_path(full));
    }

    /// Adds help to the last problem pushed.
    pub(crate) fn help(&mut self, help: impl Into<String>) {
        if let Some(last) = self.problems.pop() {
            self.problems.push(last.with_help(help));
        }
    }

    /// The properties decoded strictly: every problem of the strict
    /// decoder reported, and as much of the value as decodes
    /// ([`Decoder::decode_partial`]), so that the builder's own checks run
    /// on the rest; `None` when the properties are unusable (a required
    /// key missing at the top).
    ///
    /// With `lenient_top`, an unknown top-level property is a warning (an
    /// error with `--strict`): Kure ignores those of most component types,
    /// and Kure's own examples write properties Kure never reads (a
    /// cronjob's `concurrencyPolicy`), so files build unchanged while the
    /// author learns that the property does nothing. Deeper unknown keys,
    /// which Kure mostly refuses, stay errors.
    pub(crate) fn decode<T: DeserializeOwned>(
        &mut self,
        decoder: &Decoder<T>,
        lenient_top: bool,
    ) -> Option<T> {
        let mut problems = Vec::new();
        let value = decoder
            .decode_partial(self.properties)
            .report(&mut problems);
        for mut problem in problems {
            let top = problem
                .path
                .as_ref()
                .is_some_and(|path| path.segments().len() == 1);
            if lenient_top && top && matches!(problem.code, strata_schema::codes::UNKNOWN_KEY) {
                problem.severity = Severity::Warning;
                problem =
                    problem.with_note("Kure ignores it too: it has no effect on the objects built");
            }
            let path = problem.path.clone().unwrap_or_else(FieldPath::root);
            self.push(problem, &path);
        }
        value
    }
}

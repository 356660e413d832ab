//! [`Outcome`]: the one result shape of everything that can fail with
//! diagnostics.
//!
//! A phase returns its value *and* every problem it found, together: loading
//! a catalogue with one broken blueprint still gives the catalogue, a render
//! that fails gives no value but all its diagnostics, and a render that
//! succeeds may still carry warnings and notes. The rule of the value:
//!
//! - loading (`open`) keeps whatever could be built, so a caller can go on
//!   and find more problems;
//! - a render or a decode gives a value only when no diagnostic is an error,
//!   so nothing half-valid is ever emitted ([`Outcome::valid`]).
//!
//! Callers that gather problems from several phases move each outcome's
//! diagnostics into their own list with [`Outcome::report`].

use crate::diagnostic::Diagnostic;

/// A value, when one could be had, and every problem found on the way.
#[derive(Debug, Clone)]
#[must_use = "an outcome carries diagnostics that must be reported"]
pub struct Outcome<T> {
    /// The value; see the module docs for when it is present.
    pub value: Option<T>,
    /// Every problem found, warnings and notes included, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl<T> Outcome<T> {
    /// A value with the problems found while making it.
    pub fn new(value: Option<T>, diagnostics: Vec<Diagnostic>) -> Outcome<T> {
        Outcome { value, diagnostics }
    }

    /// A value and no problem.
    pub fn ok(value: T) -> Outcome<T> {
        Outcome::new(Some(value), Vec::new())
    }

    /// No value, for these problems.
    pub fn failed(diagnostics: Vec<Diagnostic>) -> Outcome<T> {
        Outcome::new(None, diagnostics)
    }

    /// No value, for this one problem.
    pub fn error(diagnostic: Diagnostic) -> Outcome<T> {
        Outcome::failed(vec![diagnostic])
    }

    /// Whether any diagnostic is an error.
    #[must_use]
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The same outcome without a value when any diagnostic is an error.
    pub fn valid(mut self) -> Outcome<T> {
        if self.has_errors() {
            self.value = None;
        }
        self
    }

    /// Moves the diagnostics into `sink` and gives the value.
    pub fn report(self, sink: &mut Vec<Diagnostic>) -> Option<T> {
        sink.extend(self.diagnostics);
        self.value
    }

    /// The value changed by `f`, the diagnostics kept.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        Outcome::new(self.value.map(f), self.diagnostics)
    }

    /// The next phase on the value, when there is one; the diagnostics of
    /// both, in order.
    pub fn and_then<U>(self, f: impl FnOnce(T) -> Outcome<U>) -> Outcome<U> {
        let mut diagnostics = self.diagnostics;
        let value = self
            .value
            .and_then(|value| f(value).report(&mut diagnostics));
        Outcome::new(value, diagnostics)
    }

    /// `Ok` with the value when no diagnostic is an error, else `Err` with
    /// every diagnostic: for callers that only want a verdict.
    pub fn into_result(self) -> Result<T, Vec<Diagnostic>> {
        let has_errors = self.has_errors();
        match self.value {
            Some(value) if !has_errors => Ok(value),
            _ => Err(self.diagnostics),
        }
    }
}

impl<T> From<Result<T, Vec<Diagnostic>>> for Outcome<T> {
    fn from(result: Result<T, Vec<Diagnostic>>) -> Outcome<T> {
        match result {
            Ok(value) => Outcome::ok(value),
            Err(diagnostics) => Outcome::failed(diagnostics),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Span;

    fn warning() -> Diagnostic {
        Diagnostic::warning(crate::Code::new("test/warning"), "careful", Span::default())
    }

    fn error() -> Diagnostic {
        Diagnostic::error(crate::Code::new("test/error"), "broken", Span::default())
    }

    #[test]
    fn valid_drops_the_value_only_for_errors() {
        let warned = Outcome::new(Some(1), vec![warning()]).valid();
        assert_eq!(warned.value, Some(1));
        let broken = Outcome::new(Some(1), vec![warning(), error()]).valid();
        assert_eq!(broken.value, None);
        assert_eq!(broken.diagnostics.len(), 2);
    }

    #[test]
    fn phases_chain_and_keep_every_diagnostic_in_order() {
        let chained = Outcome::new(Some(2), vec![warning()])
            .and_then(|n| Outcome::new(Some(n * 3), vec![error()]));
        assert_eq!(chained.value, Some(6));
        let codes: Vec<&str> = chained
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(codes, ["test/warning", "test/error"]);
        assert!(chained.clone().into_result().is_err());
        let mut sink = Vec::new();
        assert_eq!(chained.report(&mut sink), Some(6));
        assert_eq!(sink.len(), 2);
        let skipped = Outcome::<i32>::error(error()).and_then(|_| Outcome::ok(1));
        assert_eq!((skipped.value, skipped.diagnostics.len()), (None, 1));
        assert_eq!(Outcome::ok(5).map(|n| n + 1).into_result(), Ok(6));
    }
}

//! `strata explain CODE`: what a diagnostic code means, why it fires, how
//! to fix it, and an input that reports it, from the table the code is
//! declared in (`strata_syntax::declare_codes!`); `strata explain --all`
//! lists every code with when it is reported. The tables are the
//! dialects' and their core crates' (`strata_dialects::explanations`),
//! the faces' (`strata-lsp`, `strata-server`) and the binary's own.
//!
//! Text by default; `-o json` or `-o yaml` writes the same fields as a
//! document (a list of them for `--all`). An unknown code is a usage
//! error (exit 2) naming it, with the nearest code.

use std::fmt::Write as _;

use clap::Args;
use strata_dialect::{DocumentFormat, Done, Invocation, Session, Usage};
use strata_syntax::Explanation;

/// `explain` arguments.
#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// The code: `spec/missing-variable`.
    #[arg(value_name = "CODE", required_unless_present = "all")]
    code: Option<String>,
    /// List every code with when it is reported.
    #[arg(long, conflicts_with = "code")]
    all: bool,
}

/// Every code any part of Strata reports, table by table.
pub(crate) fn tables() -> Vec<(&'static str, &'static [Explanation])> {
    let mut tables = strata_dialects::explanations();
    tables.push(("strata-lsp", strata_lsp::codes::TABLE));
    tables.push(("strata-server", strata_server::codes::TABLE));
    tables.push(("strata-cli", crate::codes::TABLE));
    tables
}

pub(crate) fn run(invocation: Invocation, args: &ExplainArgs) -> Result<Done, Usage> {
    let every: Vec<&Explanation> = tables()
        .into_iter()
        .flat_map(|(_, table)| table.iter())
        .collect();
    let chosen: Vec<&Explanation> = match &args.code {
        Some(name) => {
            let found = every
                .iter()
                .find(|explanation| explanation.code.as_str() == name);
            let Some(found) = found else {
                let known = every.iter().map(|explanation| explanation.code.as_str());
                let mut message = format!("no diagnostic code is named `{name}`");
                if let Some(near) = strata_syntax::did_you_mean(name, known) {
                    let _ = write!(message, "; did you mean `{near}`?");
                }
                message.push_str(" (`strata explain --all` lists them)");
                return Err(Usage(message));
            };
            vec![*found]
        }
        None => every,
    };
    let session = Session::new(invocation);
    let format = match invocation.output {
        Some(_) => Some(session.document_format(DocumentFormat::Json)?),
        None => None,
    };
    Ok(session.finish(|session| match format {
        Some(format) => {
            let records: Vec<serde_json::Value> = chosen.iter().map(|e| record(e)).collect();
            let value = match (args.all, records.as_slice()) {
                (false, [one]) => one.clone(),
                _ => serde_json::Value::Array(records),
            };
            session.write_value(&value, format)
        }
        None if args.all => Some(listing(&chosen)),
        None => Some(chosen.iter().map(|e| text(e)).collect()),
    }))
}

/// One code as text: the code and when, then why, the fix, the example.
fn text(explanation: &Explanation) -> String {
    let mut out = format!("{}: {}\n", explanation.code, explanation.when);
    if !explanation.place.is_empty() {
        let _ = writeln!(out, "Reported at: {}", explanation.place);
    }
    for (heading, body) in [("Why", explanation.why), ("How to fix it", explanation.fix)] {
        let _ = write!(out, "\n{heading}\n{}\n", indented(&wrapped(body)));
    }
    let _ = write!(out, "\nExample\n{}\n", indented(explanation.example));
    out
}

/// Every code on a line with when it is reported, aligned.
fn listing(explanations: &[&Explanation]) -> String {
    let width = explanations
        .iter()
        .map(|e| e.code.as_str().len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for explanation in explanations {
        let _ = writeln!(
            out,
            "{:width$}  {}",
            explanation.code.as_str(),
            explanation.when
        );
    }
    out
}

/// The width prose is wrapped to, indentation included.
const WIDTH: usize = 80;

/// `prose` with its words wrapped to lines that fit [`WIDTH`] once
/// indented (a word longer than that stands on a line of its own).
fn wrapped(prose: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in prose.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > WIDTH - 4 {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines.join("\n")
}

/// `body`'s lines, each indented by four spaces (blank lines kept blank).
fn indented(body: &str) -> String {
    body.trim_end()
        .lines()
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("    {line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One code as a document.
fn record(explanation: &Explanation) -> serde_json::Value {
    let mut fields = serde_json::Map::new();
    fields.insert("code".to_owned(), explanation.code.as_str().into());
    fields.insert("when".to_owned(), explanation.when.into());
    if !explanation.place.is_empty() {
        fields.insert("where".to_owned(), explanation.place.into());
    }
    fields.insert("why".to_owned(), explanation.why.into());
    fields.insert("fix".to_owned(), explanation.fix.into());
    fields.insert("example".to_owned(), explanation.example.into());
    serde_json::Value::Object(fields)
}

#[cfg(test)]
mod tests {
    use super::{WIDTH, tables, wrapped};

    #[test]
    fn prose_wraps_at_word_boundaries() {
        let prose = "word ".repeat(40);
        let text = wrapped(&prose);
        assert!(text.lines().all(|line| line.len() <= WIDTH - 4), "{text}");
        assert_eq!(text.split_whitespace().count(), 40);
    }

    #[test]
    fn every_code_is_explained_once() {
        let mut seen = std::collections::BTreeSet::new();
        for (krate, table) in tables() {
            for explanation in table {
                let code = explanation.code.as_str();
                assert!(seen.insert(code), "{krate}: `{code}` is declared twice");
                for (field, text) in [
                    ("when", explanation.when),
                    ("why", explanation.why),
                    ("fix", explanation.fix),
                    ("example", explanation.example),
                ] {
                    assert!(
                        !text.trim().is_empty() && !text.contains("TODO"),
                        "{krate}: `{code}` has no `{field}`"
                    );
                }
            }
        }
        assert!(seen.len() > 170, "{} codes", seen.len());
    }
}

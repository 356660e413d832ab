//! `strata merge FILE... [--strategy PATH=STRATEGY]... [--explain]`: merges
//! plain YAML/JSON files in order, the first the lowest layer. A file with
//! several documents contributes each as a layer, in order.

use std::process::ExitCode;

use clap::Args;
use strata_merge::{Strategies, Strategy};
use strata_syntax::Node;
use strata_syntax::emit::{to_json, to_yaml, to_yaml_annotated};

use crate::session::Session;
use crate::{GlobalArgs, OutputFormat};

/// Merge layered YAML/JSON files, the first as the lowest layer.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// Files to merge, lowest layer first (`-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<String>,
    /// A sequence strategy for a path: append, replace, union,
    /// merge-by-key:FIELD or replace-by-key:FIELD.
    #[arg(long = "strategy", value_name = "PATH=STRATEGY", value_parser = parse_strategy)]
    strategies: Vec<(String, Strategy)>,
    /// Annotate each scalar with the file and line it came from (YAML output only).
    #[arg(long)]
    explain: bool,
}

fn parse_strategy(text: &str) -> Result<(String, Strategy), String> {
    let (path, name) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("expected PATH=STRATEGY, found `{text}`"))?;
    let strategy: Strategy = name.parse().map_err(|error| format!("{error}"))?;
    Ok((path.to_owned(), strategy))
}

pub(crate) fn run(global: &GlobalArgs, args: &MergeArgs) -> ExitCode {
    if let Some(usage) = global.explain_conflict(args.explain) {
        return usage;
    }
    let mut strategies = Strategies::new();
    for (path, strategy) in &args.strategies {
        if let Err(error) = strategies.register(path, strategy.clone()) {
            eprintln!(
                "error: invalid value '{path}={strategy}' for '--strategy <PATH=STRATEGY>': {error}"
            );
            return ExitCode::from(2);
        }
    }
    let mut session = Session::new(global);
    let layers: Vec<Node> = args
        .files
        .iter()
        .flat_map(|file| session.load(file))
        .collect();
    session.finish(|session| {
        // No layers at all (only empty files) merge to `null`.
        let merged = strata_merge::merge_layers(layers, &strategies).unwrap_or_else(|| {
            strata_merge::Merged {
                root: Node::new(strata_syntax::Value::Null, strata_syntax::Span::default()),
                diagnostics: Vec::new(),
            }
        });
        session.diagnostics.extend(merged.diagnostics);
        if session.has_errors() {
            return None;
        }
        match global.output(OutputFormat::Yaml) {
            OutputFormat::Yaml if args.explain => {
                let db = &session.db;
                let annotate = |node: &Node| {
                    let (file, position) = db.locate(node.span);
                    Some(format!("{file}:{}", position.line))
                };
                Some(to_yaml_annotated(&merged.root, &annotate))
            }
            OutputFormat::Yaml => Some(to_yaml(&merged.root)),
            OutputFormat::Json => match to_json(&merged.root) {
                Ok(text) => Some(text),
                Err(diagnostic) => {
                    session.diagnostics.push(diagnostic);
                    None
                }
            },
        }
    })
}

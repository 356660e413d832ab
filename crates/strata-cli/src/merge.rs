//! `strata merge FILE... [--strategy PATH=STRATEGY]... [--explain]`: merges
//! plain YAML/JSON files in order, the first the lowest layer. A file with
//! several documents contributes each as a layer, in order.

use clap::Args;
use strata_dialect::{Done, Expect, Invocation, Session, Usage};
use strata_merge::{Strategies, Strategy};
use strata_syntax::Node;
use strata_syntax::emit::to_yaml_annotated;

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

pub(crate) fn run(invocation: Invocation, args: &MergeArgs) -> Result<Done, Usage> {
    let mut strategies = Strategies::new();
    for (path, strategy) in &args.strategies {
        strategies
            .register(path, strategy.clone())
            .map_err(|error| {
                Usage(format!(
                    "invalid value '{path}={strategy}' for '--strategy <PATH=STRATEGY>': {error}"
                ))
            })?;
    }
    let mut session = Session::new(invocation);
    let format = session.explained_format(args.explain)?;
    let layers: Vec<Node> = args
        .files
        .iter()
        .flat_map(|file| {
            // Every document as far as it parses: a broken file's problems
            // and the merge's are all reported.
            session
                .read(file, Expect::All)
                .report(&mut session.diagnostics)
                .map(|read| read.documents)
                .unwrap_or_default()
        })
        .collect();
    Ok(session.finish(|session| {
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
        if args.explain {
            let db = &session.db;
            let annotate = |node: &Node| {
                let (file, position) = db.locate(node.span);
                Some(format!("{file}:{}", position.line))
            };
            return Some(to_yaml_annotated(&merged.root, &annotate));
        }
        session.write_document(&merged.root, format)
    }))
}

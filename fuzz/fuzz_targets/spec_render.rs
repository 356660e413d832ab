//! Fuzzes the spec dialect past its check: arbitrary bytes (read lossily
//! as UTF-8) as a blueprint beside a child blueprint it may include,
//! opened, rendered with every variable given (the secret ones a token),
//! then graphed and planned against an empty state. Whatever the text:
//! diagnostics or a value, never a panic, never more work than the step
//! budget, and never the secret token in a diagnostic, the rendered
//! blueprint or the plan (unless the text itself holds it).
//!
//! Run from this directory with `cargo fuzz run spec_render` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use std::path::PathBuf;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use strata_fs::{Files, MemoryFs};
use strata_spec::deploy::{CoreProvider, ResourceProvider, graph, plan};
use strata_spec::{Dialect, Given, GivenValue, Inputs, Options, Origin, RenderRequest, Settings, Spec};
use strata_syntax::{Limits, SourceDb, Span, emit};

/// What every secret variable is given.
const TOKEN: &str = "zq7S3CRETk2";

/// A child a fuzzed blueprint may include, with a variable to give.
const CHILD: &str = "version: 2023-04-20\nvariables:\n  mode: {type: string, allowedValues: [a, b]}\nresources:\n  c: {type: aws/sqs/queue, spec: {name: \"${variables.mode}\"}}\nexports:\n  name: {type: string, field: resources.c.spec.name}\n";

/// Tight enough that one input stays fast.
const LIMITS: Limits = Limits {
    max_bytes: 1 << 16,
    max_depth: 64,
    max_alias_nodes: 2_000,
    max_alias_bytes: 1 << 18,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let files: Arc<dyn Files> = Arc::new(
        MemoryFs::new()
            .with("blueprint.yaml", text.as_ref())
            .with("child.yaml", CHILD),
    );
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    let opened = Spec::open(files, Options::new(LIMITS, settings));
    let Some(spec) = opened.outcome.value else {
        return;
    };
    let Some(loaded) = spec.loaded() else {
        return;
    };
    let given = loaded
        .blueprint
        .variables
        .iter()
        .map(|(name, variable)| Given {
            name: name.clone(),
            value: GivenValue::Text(if variable.secret { TOKEN } else { "plain" }.to_owned()),
            span: Span::default(),
            name_span: Span::default(),
            origin: Origin::Flag,
            secret: false,
        })
        .collect();
    let request = RenderRequest {
        inputs: Inputs { given },
        cwd: PathBuf::from("/work"),
        max_steps: Some(100_000),
        ..RenderRequest::default()
    };
    let mut db = SourceDb::extending(spec.sources().clone());
    let rendered = spec.render(&request, &mut db);
    let mut shown = String::new();
    for diagnostic in &rendered.diagnostics {
        shown.push_str(&diagnostic.message);
        shown.extend(diagnostic.help.iter().map(String::as_str));
        shown.extend(diagnostic.notes.iter().map(String::as_str));
    }
    if let Some(resolved) = &rendered.value {
        shown.push_str(&emit::to_yaml(&resolved.to_node(false)));
        let graphed = graph(loaded, resolved, &[]);
        if let Some(graph) = &graphed.value {
            let providers: [Arc<dyn ResourceProvider>; 1] = [Arc::new(CoreProvider)];
            let staged = plan(resolved, graph, None, &providers);
            if let Some(plan) = staged.value {
                shown.push_str(&plan.to_text());
                shown.push_str(&plan.to_json().to_string());
            }
        }
    }
    assert!(
        text.contains(TOKEN) || !shown.contains(TOKEN),
        "a secret is shown:\n{shown}"
    );
});

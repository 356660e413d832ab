//! A project reopened from the one before (as the language server reopens
//! it after each change, reusing each unchanged template file's decoded
//! form and each feature's composition) finds exactly what a fresh opening
//! finds, and composes exactly what it composes, in the same order and at
//! the same places, whatever the sequence of edits.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use strata_features::{Dialect, Options, Project, RenderRequest, Settings};
use strata_fs::{Files, MemoryFs};
use strata_syntax::{Diagnostic, Limits, SourceDb};

/// The files an edit may change, each with the texts it may take (the
/// first is the starting text; an empty text removes the file).
const FILES: &[(&str, &[&str])] = &[
    (
        "windsor.yaml",
        &[
            "version: v1alpha1\ncontexts:\n  local:\n    provider: local\n    workers: 2\n  aws:\n    provider: aws\n    workers: 3\n",
            "version: v1alpha1\ncontexts:\n  local:\n    provider: local\n    workers: 5\n  aws:\n    provider: aws\n",
            "version: v1alpha1\ncontexts:\n  aws:\n    provider: aws\n    workers: 3\n",
        ],
    ),
    (
        "contexts/_template/blueprint.yaml",
        &[
            "kind: Blueprint\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: shop\nterraform:\n  - path: cluster/bootstrap\n    inputs:\n      name: shop\n",
            "kind: Blueprint\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: shop\nterraform:\n  - path: cluster/bootstrap\n    inputs:\n      name: shop2\n      count: ${workers}\nkustomize:\n  - name: base\n    path: base\n",
            "kind: Blueprint\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: shop\nterraform: {not: a list}\n",
        ],
    ),
    (
        "contexts/_template/features/aws.yaml",
        &[
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: aws\nwhen: provider == 'aws'\nterraform:\n  - path: network/vpc\n    inputs:\n      nodes: ${workers * 2}\n  - path: cluster/bootstrap\n    inputs:\n      cloud: aws\n",
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: aws\nwhen: provider == 'aws'\nterraform:\n  - path: network/vpc\n    inputs:\n      nodes: ${workers * nosuch}\n",
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: aws\n  unknownKey: 1\n",
            "kind: Feature\n: [broken\n",
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: aws\nterraform:\n  - path: network/vpc\n    inputs:\n      motd: ${file(\"../motd.txt\")}\n",
        ],
    ),
    ("contexts/_template/motd.txt", &["hello", "goodbye", ""]),
    (
        "contexts/_template/features/local.yaml",
        &[
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: local\nwhen: provider == 'local'\nkustomize:\n  - name: ingress\n    path: ingress/base\n    substitutions:\n      replicas: ${workers}\n",
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: local\nwhen: provider == 'local' && workers > 3\nterraform:\n  - path: cluster/bootstrap\n    strategy: replace\n    inputs:\n      local: true\n",
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: aws\nwhen: true\n",
            "",
        ],
    ),
    (
        "contexts/_template/features/extra/policy.yaml",
        &[
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: policy\nkustomize:\n  - name: ingress\n    when: workers >= 3\n    path: ingress/strict\n    dependsOn: [base]\n",
            "",
            "kind: Feature\napiVersion: blueprints.windsorcli.dev/v1alpha1\nmetadata:\n  name: policy\nwhen: provider ==\n",
        ],
    ),
    (
        "contexts/aws/values.yaml",
        &["", "workers: 7\n", "workers: [not, a, number]\n"],
    ),
];

/// The project's files as text, by path.
fn files(texts: &BTreeMap<&str, &str>) -> Arc<dyn Files> {
    let memory = texts
        .iter()
        .filter(|(_, text)| !text.is_empty())
        .fold(MemoryFs::new(), |memory, (path, text)| {
            memory.with(path, text)
        });
    Arc::new(memory)
}

/// Every diagnostic as it would be shown, in order, with its exact place.
fn shown(diagnostics: &[Diagnostic]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {:?} {:?} {:?}",
                d.code, d.message, d.primary.span, d.secondary, d.notes
            )
        })
        .collect()
}

/// What the project says: opening's problems, the check's (every context
/// composed), and each context's composed blueprint with every node's
/// place and layer.
fn said(opened: &strata_features::Opened<Project>) -> Vec<String> {
    let mut said = shown(&opened.outcome.diagnostics);
    let Some(project) = &opened.outcome.value else {
        return said;
    };
    let mut db = SourceDb::extending(project.sources().clone());
    said.extend(shown(&project.check(&mut db)));
    for context in ["local", "aws"] {
        let request = RenderRequest {
            context: context.to_owned(),
            sets: Vec::new(),
        };
        let rendered = project.render(&request, &mut db);
        said.extend(shown(&rendered.diagnostics));
        if let Some(rendered) = rendered.value {
            said.push(format!("{:?} {:?}", rendered.layers, rendered.blueprint));
        }
    }
    said
}

fn options() -> Options<Settings> {
    Options::new(Limits::default(), Settings::default()).for_reopening()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn a_reopened_project_finds_and_composes_what_a_fresh_one_does(
        edits in prop::collection::vec((0..FILES.len(), 0..5usize), 1..10)
    ) {
        let mut texts: BTreeMap<&str, &str> =
            FILES.iter().map(|(path, texts)| (*path, texts[0])).collect();
        let mut previous = Project::open(files(&texts), options());
        for (file, text) in edits {
            let (path, choices) = FILES[file];
            texts.insert(path, choices[text % choices.len()]);
            let fresh = Project::open(files(&texts), options());
            let reopened = match &previous.outcome.value {
                Some(project) => project.reopen(files(&texts), options()),
                None => Project::open(files(&texts), options()),
            };
            prop_assert_eq!(said(&reopened), said(&fresh), "after {} became {:?}", path, texts[path]);
            previous = reopened;
        }
    }
}

/// A feature that reads a file with `file()` is composed again when only
/// that file changed: its composition depends on more than its own text.
#[test]
fn a_feature_reading_a_file_is_composed_again_when_the_file_changes() {
    let mut texts: BTreeMap<&str, &str> = FILES
        .iter()
        .map(|(path, texts)| (*path, texts[0]))
        .collect();
    texts.insert("contexts/_template/features/aws.yaml", FILES[2].1[4]);
    let first = Project::open(files(&texts), options());
    // Composed once, so the reopened project could take what it kept.
    assert!(said(&first).iter().any(|said| said.contains("hello")));
    let project = first.outcome.value.as_ref().expect("a project");
    texts.insert("contexts/_template/motd.txt", "goodbye");
    let reopened = project.reopen(files(&texts), options());
    let fresh = Project::open(files(&texts), options());
    let said_reopened = said(&reopened);
    assert!(
        said_reopened.iter().any(|said| said.contains("goodbye")),
        "{said_reopened:?}"
    );
    assert_eq!(said_reopened, said(&fresh));
}

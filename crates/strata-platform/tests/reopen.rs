//! A catalogue reopened from the one before (as the language server
//! reopens it after each change, reusing each unchanged file's blueprints,
//! each unchanged chain's resolution and each unchanged tree's checks)
//! finds exactly what a fresh opening finds, in the same order and at the
//! same places, whatever the sequence of edits.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use strata_fs::{Files, MemoryFs};
use strata_platform::{Catalogue, Dialect, Options, Settings};
use strata_syntax::{Diagnostic, Limits, SourceDb};

/// The files an edit may change, each with the texts it may take (the
/// first is the starting text; an empty text removes the file).
const FILES: &[(&str, &[&str])] = &[
    (
        "templates/base.yaml",
        &[
            "name: base\nisTemplate: true\nimage: base\nports: [1]\n",
            "name: base\nisTemplate: true\nimage: base2\nports: [1, 2]\n",
            "name: base\nisTemplate: true\nimage: base\nimagePullPolicy: Sometimes\n",
        ],
    ),
    (
        "templates/web.yaml",
        &[
            "name: web\nisTemplate: true\ntemplate: base\nreplicas: 2\n",
            "name: web\nisTemplate: true\ntemplate: nosuch\nreplicas: 2\n",
            "name: web\nisTemplate: true\ntemplate: base\nreplicas: 3\nresources: !include ../shared/resources.yaml\n",
        ],
    ),
    (
        "blueprints/a.yaml",
        &[
            "name: a\ntemplate: web\nhostname: !cel \"blueprint + '-a'\"\n",
            "name: a\ntemplate: web\nhostname: !cel \"nosuch + '-a'\"\n",
            "name: a\ntemplate: base\nunknownKey: 1\n",
            "blueprints:\n  - name: a\n    template: web\n  - name: b\n    template: base\n",
        ],
    ),
    (
        "blueprints/b.yaml",
        &[
            "name: b\ntemplate: base\nimage: b\n",
            "name: b\ntemplate: web\nimage: b\nresources: !include ../shared/resources.yaml\n",
            "",
        ],
    ),
    (
        "blueprints/c.yaml",
        &[
            "name: c\nimage: c\nhostname: !cel \"env('HOME') == '' ? 'c' : 'c-home'\"\n",
            "name: c\nimage: c\nports: [x]\n",
            "- name: c\n  image: c\n- [not, a, mapping]\n",
        ],
    ),
    (
        "shared/resources.yaml",
        &[
            "limits: {cpu: 100m}\n",
            "limits: {cpu: 200m}\n",
            "- not\n- a mapping\n",
        ],
    ),
    (
        ".strata.yaml",
        &[
            "",
            "cel: {allowEnv: true}\n",
            "mergeStrategies: {ports: append}\n",
        ],
    ),
];

/// The catalogue's files as text, by path.
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
        .map(|d| format!("{} {} {:?}", d.code, d.message, d.primary.span))
        .collect()
}

/// What a catalogue says of itself: each blueprint's chain, and what an
/// editor navigates (the symbols and references, `!include`s among them).
fn listed(catalogue: &Catalogue) -> Vec<String> {
    let mut said: Vec<String> = catalogue
        .list()
        .iter()
        .map(|summary| {
            format!(
                "{} {:?} {}",
                summary.name, summary.chain, summary.is_template
            )
        })
        .collect();
    let outline = Dialect::outline(
        catalogue,
        &mut SourceDb::extending(catalogue.sources().clone()),
    );
    let mut navigation: Vec<String> = outline
        .symbols
        .iter()
        .map(|symbol| format!("{} {:?}", symbol.name, symbol.span))
        .chain(
            outline
                .references
                .iter()
                .map(|reference| format!("{:?} -> {:?}", reference.span, reference.target)),
        )
        .collect();
    navigation.sort();
    said.extend(navigation);
    said
}

fn options() -> Options<Settings> {
    Options::new(Limits::default(), Settings::default())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_reopened_catalogue_finds_what_a_fresh_one_finds(
        edits in prop::collection::vec((0..FILES.len(), 0..4usize), 1..10)
    ) {
        let mut texts: BTreeMap<&str, &str> =
            FILES.iter().map(|(path, texts)| (*path, texts[0])).collect();
        let mut previous = Catalogue::open(files(&texts), options())
            .outcome
            .value
            .expect("a catalogue");
        for (file, text) in edits {
            let (path, choices) = FILES[file];
            texts.insert(path, choices[text % choices.len()]);
            let fresh = Catalogue::open(files(&texts), options()).outcome;
            let reopened = previous.reopen(files(&texts), options()).outcome;
            prop_assert_eq!(shown(&reopened.diagnostics), shown(&fresh.diagnostics), "after {} became {:?}", path, texts[path]);
            let (reopened, fresh) = (
                reopened.value.expect("a catalogue"),
                fresh.value.expect("a catalogue"),
            );
            prop_assert_eq!(listed(&reopened), listed(&fresh));
            previous = reopened;
        }
    }
}

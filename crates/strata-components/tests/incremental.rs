//! An application reopened from the one before (as the language server
//! reopens it after each change) checks and renders exactly as one opened
//! afresh, while evaluating only the components whose files, imports or
//! inputs changed.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use proptest::prelude::*;
use strata_components::{Application, Dialect, Options, RenderRequest};
use strata_dialect::{Progress, Step};
use strata_fs::{Files, MemoryFs};
use strata_syntax::{Limits, SourceDb};

/// The components, each importing the library.
const COMPONENTS: [&str; 4] = ["api", "cache", "db", "web"];

/// A component's texts an edit picks from: fine, another output, failing,
/// importing the second library directly, reading an environment property.
const COMPONENT_TEXTS: [&str; 5] = [
    "local k = import 'k.libsonnet';\nk.config(std.thisFile, 1)\n",
    "local k = import 'k.libsonnet';\nk.config(std.thisFile, 2)\n",
    "local k = import 'k.libsonnet';\nk.config(std.thisFile, 3) + error 'broken'\n",
    "local u = import 'util.libsonnet';\n{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: u.name(std.thisFile)}}\n",
    "local k = import 'k.libsonnet';\nlocal p = std.extVar('qbec.io/envProperties');\nk.config(std.thisFile, p.size)\n",
];

/// The library's texts: `k` imports `util`, which an edit may change.
const UTIL_TEXTS: [&str; 3] = [
    "{ name(file):: std.strReplace(std.split(file, '/')[1], '.jsonnet', '') }\n",
    "{ name(file):: 'x-' + std.strReplace(std.split(file, '/')[1], '.jsonnet', '') }\n",
    "{ name(file):: error 'util is broken' }\n",
];

const K: &str = "local u = import 'util.libsonnet';\n{ config(file, n):: {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: u.name(file)}, data: {n: std.toString(n)}} }\n";

/// `qbec.yaml`'s texts: the `prod` size changes.
fn app_text(size: u32) -> String {
    format!(
        "apiVersion: qbec.io/v1alpha1\nkind: App\nmetadata: {{name: a}}\nspec:\n  libPaths: [lib]\n  baseProperties: {{size: 1}}\n  environments:\n    dev: {{server: https://dev.example.com}}\n    prod: {{server: https://prod.example.com, properties: {{size: {size}}}}}\n"
    )
}

/// One change to the application.
#[derive(Debug, Clone)]
enum Edit {
    Component(usize, usize),
    Util(usize),
    App(u32),
    Nothing,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (0..COMPONENTS.len(), 0..COMPONENT_TEXTS.len()).prop_map(|(c, t)| Edit::Component(c, t)),
        1 => (0..UTIL_TEXTS.len()).prop_map(Edit::Util),
        1 => (1u32..4).prop_map(Edit::App),
        1 => Just(Edit::Nothing),
    ]
}

/// The application's files as text, by path.
#[derive(Clone)]
struct Texts(BTreeMap<String, String>);

impl Texts {
    fn new() -> Texts {
        let mut texts = BTreeMap::from([
            ("qbec.yaml".to_owned(), app_text(1)),
            ("lib/k.libsonnet".to_owned(), K.to_owned()),
            ("lib/util.libsonnet".to_owned(), UTIL_TEXTS[0].to_owned()),
        ]);
        for name in COMPONENTS {
            texts.insert(
                format!("components/{name}.jsonnet"),
                COMPONENT_TEXTS[0].to_owned(),
            );
        }
        Texts(texts)
    }

    fn apply(&mut self, edit: &Edit) {
        match edit {
            Edit::Component(component, text) => {
                let path = format!("components/{}.jsonnet", COMPONENTS[*component]);
                self.0.insert(path, COMPONENT_TEXTS[*text].to_owned());
            }
            Edit::Util(text) => {
                self.0.insert(
                    "lib/util.libsonnet".to_owned(),
                    UTIL_TEXTS[*text].to_owned(),
                );
            }
            Edit::App(size) => {
                self.0.insert("qbec.yaml".to_owned(), app_text(*size));
            }
            Edit::Nothing => {}
        }
    }

    fn files(&self) -> Arc<dyn Files> {
        let memory = self.0.iter().fold(MemoryFs::new(), |memory, (path, text)| {
            memory.with(path, text)
        });
        Arc::new(memory)
    }
}

/// Counts the components evaluated.
#[derive(Clone, Default)]
struct Evaluations(Arc<AtomicUsize>);

impl Evaluations {
    fn options(&self) -> Options<()> {
        let count = self.0.clone();
        Options::new(Limits::default(), ())
            .for_reopening()
            .with_progress(Progress::new(move |step| {
                if let Step::Started { .. } = step {
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }))
    }

    fn take(&self) -> usize {
        self.0.swap(0, Ordering::Relaxed)
    }
}

/// What a check and a render of `dev` give, as text: the diagnostics
/// (code, file, line, message) and the objects.
fn outcome(application: &Application, base: &Arc<SourceDb>) -> (Vec<String>, Option<String>) {
    let mut db = SourceDb::extending(base.clone());
    let mut said: Vec<String> = application
        .check(&mut db)
        .iter()
        .map(|diagnostic| {
            let record = diagnostic.record(&db);
            format!(
                "{} {}:{} {}",
                record.code, record.file, record.line, record.message
            )
        })
        .collect();
    let rendered = application.render(&RenderRequest::new("dev"), &mut db);
    said.extend(rendered.diagnostics.iter().map(|d| d.record(&db).message));
    (said, rendered.value.map(|objects| objects.text()))
}

fn open(
    texts: &Texts,
    options: Options<()>,
    previous: Option<&Application>,
) -> (Application, Arc<SourceDb>) {
    let opened = match previous {
        Some(previous) => previous.reopen(texts.files(), options),
        None => Application::open(texts.files(), options),
    };
    let application = opened.outcome.value.expect("the application opens");
    (application, opened.sources)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_reopened_application_checks_as_a_fresh_one(edits in prop::collection::vec(edit(), 1..8)) {
        let mut texts = Texts::new();
        let evaluations = Evaluations::default();
        let (mut kept, base) = open(&texts, evaluations.options(), None);
        let _ = outcome(&kept, &base);
        for edit in &edits {
            texts.apply(edit);
            let (fresh, fresh_base) = open(&texts, Options::new(Limits::default(), ()), None);
            let (reopened, reopened_base) = open(&texts, evaluations.options(), Some(&kept));
            evaluations.take();
            prop_assert_eq!(outcome(&reopened, &reopened_base), outcome(&fresh, &fresh_base), "after {:?}", edit);
            kept = reopened;
        }
    }
}

/// The components evaluated by each check of a reopened application.
#[test]
fn only_what_an_edit_reaches_is_evaluated_again() {
    let mut texts = Texts::new();
    let evaluations = Evaluations::default();
    let checked = Arc::new(Mutex::new(Vec::new()));
    let check = |texts: &Texts, previous: Option<&Application>| {
        let (application, base) = open(texts, evaluations.options(), previous);
        let mut db = SourceDb::extending(base);
        let _ = application.check(&mut db);
        checked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(evaluations.take());
        application
    };
    let first = check(&texts, None);
    let same = check(&texts, Some(&first));
    texts.apply(&Edit::Component(1, 1));
    let one = check(&texts, Some(&same));
    texts.apply(&Edit::Util(1));
    let library = check(&texts, Some(&one));
    texts.apply(&Edit::App(2));
    let _ = check(&texts, Some(&library));
    // Two environments: every component twice, then nothing, then the
    // edited one twice, then all (they import the library), then all of
    // `prod`'s (its properties changed).
    let counts = checked
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    assert_eq!(counts, [8, 0, 2, 8, 4]);
}

/// An external variable given as code that imports a file: a component
/// reading it depends on that file, and is evaluated again when it changes.
#[test]
fn a_file_that_a_variable_s_code_imports_is_a_dependency() {
    let mut texts = Texts::new();
    texts.0.insert(
        "components/api.jsonnet".to_owned(),
        "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'api'}, data: {size: std.toString(std.extVar('size'))}}\n".to_owned(),
    );
    texts
        .0
        .insert("lib/size.libsonnet".to_owned(), "1\n".to_owned());
    let request = RenderRequest {
        ext_vars: vec![(
            "size".to_owned(),
            strata_components::Input::Code("import 'lib/size.libsonnet'".to_owned()),
        )],
        ..RenderRequest::new("dev")
    };
    let rendered = |application: &Application, base: Arc<SourceDb>| {
        let mut db = SourceDb::extending(base);
        let objects = application.render(&request, &mut db).value;
        objects.map(|objects| objects.text()).unwrap_or_default()
    };
    let evaluations = Evaluations::default();
    let (first, base) = open(&texts, evaluations.options(), None);
    assert!(rendered(&first, base).contains("size: \"1\""));
    texts
        .0
        .insert("lib/size.libsonnet".to_owned(), "2\n".to_owned());
    let (second, base) = open(&texts, evaluations.options(), Some(&first));
    assert!(rendered(&second, base).contains("size: \"2\""));
}

/// A component whose import finds no file fails; once the file is there
/// (beside it or in a library folder searched before the one that had
/// it), the reopened application evaluates it again.
#[test]
fn a_file_appearing_where_an_import_looked_is_seen() {
    let mut texts = Texts::new();
    texts.0.insert(
        "components/api.jsonnet".to_owned(),
        "local n = import 'new.libsonnet';\n{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: n.name}}\n".to_owned(),
    );
    let evaluations = Evaluations::default();
    let (first, base) = open(&texts, evaluations.options(), None);
    let (said, objects) = outcome(&first, &base);
    assert!(objects.is_none(), "{said:?}");
    texts.0.insert(
        "lib/new.libsonnet".to_owned(),
        "{name: 'from-lib'}\n".to_owned(),
    );
    let (second, base) = open(&texts, evaluations.options(), Some(&first));
    let (said, objects) = outcome(&second, &base);
    assert!(
        objects.is_some_and(|text| text.contains("from-lib")),
        "{said:?}"
    );
    // Now one beside the component, looked at before the library folder.
    texts.0.insert(
        "components/new.libsonnet".to_owned(),
        "{name: 'beside'}\n".to_owned(),
    );
    let (third, base) = open(&texts, evaluations.options(), Some(&second));
    let (said, objects) = outcome(&third, &base);
    assert!(
        objects.is_some_and(|text| text.contains("beside")),
        "{said:?}"
    );
}

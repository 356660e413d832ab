//! The platform library API on in-memory and on-disk catalogues.
#![expect(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test stops at the first surprise"
)]

use std::path::PathBuf;

use std::sync::Arc;

use strata_fs::{Files, MemoryFs, RootFs};
use strata_merge::Strategy;
use strata_platform::{Catalogue, Dialect, Options, Refusal, RenderRequest, Settings};
use strata_syntax::{Diagnostic, LayerId, Limits, Node, SourceDb, Span, Value};

fn name(text: &str) -> Node {
    Node::new(Value::String(text.to_owned()), Span::default())
}

/// Opens a catalogue: it and every problem found.
fn load(fs: impl Files + 'static, settings: Settings) -> (Catalogue, Vec<Diagnostic>) {
    let opened = Catalogue::open(Arc::new(fs), Options::new(Limits::default(), settings));
    let catalogue = opened.outcome.value.expect("a catalogue is always opened");
    (catalogue, opened.outcome.diagnostics)
}

/// Renders on the catalogue's own sources.
fn render(
    catalogue: &Catalogue,
    request: &RenderRequest,
) -> Result<strata_platform::Rendered, Vec<Diagnostic>> {
    let mut db = SourceDb::extending(catalogue.sources().clone());
    catalogue.render(request, &mut db).into_result()
}

fn codes(diagnostics: &[strata_syntax::Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code.as_str()).collect()
}

const CHAIN: &str = "blueprints:
  - name: root
    isTemplate: true
    image: root
    ports: [1]
  - name: middle
    isTemplate: true
    template: root
    ports: [2]
  - name: leaf
    template: middle
    ports: [3]
    hostname: !cel \"blueprint + '-ws'\"
";

#[test]
fn chains_resolve_root_first_with_layers_and_without_is_template() {
    let fs = MemoryFs::new().with("all.yaml", &CHAIN.replace("ports", "extFiles_unused"));
    let (catalogue, diagnostics) = load(fs, Settings::default());
    // `extFiles_unused` is not a blueprint key: the test scope check says so.
    assert!(
        codes(&diagnostics)
            .iter()
            .all(|c| *c == "schema/unknown-key"),
        "{diagnostics:?}"
    );
    let leaf = catalogue.resolved("leaf").expect("resolved");
    assert_eq!(leaf.chain.names(), ["root", "middle", "leaf"]);
    assert_eq!((leaf.chain.depth(), leaf.chain.last()), (3, "leaf"));
    assert!(
        leaf.node.get("isTemplate").is_none(),
        "isTemplate is not inherited"
    );
    assert_eq!(leaf.node.get("image").unwrap().layer, Some(LayerId(0)));
    assert_eq!(leaf.node.get("template").unwrap().as_str(), Some("middle"));
    let summaries = catalogue.list();
    let templates: Vec<_> = summaries
        .iter()
        .filter(|s| s.is_template)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(templates, ["middle", "root"]);
}

#[test]
fn library_strategies_are_rust_functions_registered_last() {
    let text = CHAIN
        .replace("ports", "initScripts")
        .replace("[1]", "[{name: a, script: one}]")
        .replace("[2]", "[{name: a, script: two}]")
        .replace("[3]", "[{name: b, script: three}]");
    let fs = MemoryFs::new().with("all.yaml", &text);
    // The default for `initScripts` is replace-by-key:name; a caller's function wins.
    let keep_lower = Strategy::Custom {
        name: "keep-lower".to_owned(),
        function: std::sync::Arc::new(|_, lower, _| lower),
    };
    let settings = Settings {
        strategies: vec![("initScripts".to_owned(), keep_lower)],
    };
    let (catalogue, diagnostics) = load(fs, settings);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let request = RenderRequest {
        blueprint: Some(name("leaf")),
        ..RenderRequest::default()
    };
    let rendered = render(&catalogue, &request).expect("renders");
    assert_eq!(rendered.blueprint.init_scripts.len(), 1);
    assert_eq!(rendered.blueprint.init_scripts[0].script, "one");
    assert_eq!(rendered.blueprint.hostname.as_deref(), Some("leaf-ws"));
    assert_eq!(rendered.layers, ["root", "middle", "leaf"]);
}

#[test]
fn cel_errors_name_the_layer_they_come_from() {
    let fs = MemoryFs::new()
        .with(
            "base.yaml",
            "name: base\nisTemplate: true\nimage: x\nsplash: !cel \"user.nope\"\n",
        )
        .with("child.yaml", "name: child\ntemplate: base\n");
    let (_, diagnostics) = load(fs, Settings::default());
    assert_eq!(codes(&diagnostics), ["cel/eval"]);
    assert!(
        diagnostics[0]
            .notes
            .contains(&"the expression comes from layer `base`".to_owned())
    );
    assert!(
        diagnostics[0]
            .notes
            .contains(&"while rendering `child`".to_owned())
    );
}

fn scratch(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("strata-platform-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(unix)]
#[test]
fn includes_cannot_follow_symlinks_out_of_the_catalogue() {
    let outside = scratch("outside");
    std::fs::write(outside.join("secret.yaml"), "token: hunter2\n").unwrap();
    let root = scratch("root");
    std::os::unix::fs::symlink(outside.join("secret.yaml"), root.join("link.yaml")).unwrap();
    std::fs::create_dir_all(root.join("blueprints")).unwrap();
    std::fs::write(
        root.join("blueprints/a.yaml"),
        "name: a\nimage: x\nenv: !include ../link.yaml\n",
    )
    .unwrap();
    let fs = RootFs::new(&root).unwrap();
    let (catalogue, diagnostics) = load(fs, Settings::default());
    // The link is skipped by the listing, with a warning naming it, and
    // refused where it is included.
    assert_eq!(codes(&diagnostics), ["io/skipped", "io/outside-root"]);
    assert!(diagnostics[0].message.contains("`link.yaml` is skipped"));
    assert!(diagnostics[1].message.contains("outside the root"));
    assert_eq!(catalogue.list().len(), 1);
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&outside);
}

#[test]
fn a_catalogue_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Catalogue>();
    let fs = MemoryFs::new().with(
        "a.yaml",
        "name: a\nimage: x\nhostname: !cel \"user.username + '-ws'\"\n",
    );
    let (catalogue, diagnostics) = load(fs, Settings::default());
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let hostnames: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let request = RenderRequest {
                        blueprint: Some(name("a")),
                        ..RenderRequest::default()
                    };
                    render(&catalogue, &request)
                        .expect("renders")
                        .blueprint
                        .hostname
                        .unwrap_or_default()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("no panic"))
            .collect()
    });
    assert_eq!(hostnames, vec!["strata-test-ws"; 4]);
}

#[test]
fn access_hides_blueprints_the_caller_may_not_use() {
    let fs = MemoryFs::new().with(
        "all.yaml",
        "blueprints:
  - {name: python-data, image: py}
  - {name: python-web, image: py}
  - {name: secret-ops, image: ops}
",
    );
    let (catalogue, diagnostics) = load(fs, Settings::default());
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let may_use = |name: &str| name.starts_with("python-");
    let render = |asked: &str| {
        let request = RenderRequest {
            blueprint: Some(name(asked)),
            ..RenderRequest::default()
        };
        catalogue.render_with_access(&request, &may_use)
    };
    assert!(render("python-web").is_ok());
    // Existing or not, a name the caller may not use gets the same answer,
    // a refusal of its own kind.
    for hidden in ["secret-ops", "secret-opz"] {
        let Err(Refusal::NotAllowed(problem)) = render(hidden) else {
            panic!("`{hidden}` is not refused as not allowed");
        };
        assert_eq!(problem.code, "platform/blueprint-not-allowed");
        assert_eq!(
            problem.message,
            format!("`{hidden}` is not among the blueprints you may use")
        );
    }
    // Suggestions come only from the usable names.
    let Err(Refusal::Invalid(problems)) = render("python-dta") else {
        panic!("an unknown usable name is not refused as invalid");
    };
    assert_eq!(codes(&problems), ["platform/unknown-blueprint"]);
    assert_eq!(
        problems[0].help.as_deref(),
        Some("did you mean `python-data`?")
    );
    let problems = catalogue
        .render_with_access(
            &RenderRequest {
                blueprint: Some(name("python-dta")),
                ..RenderRequest::default()
            },
            &|name| name == "secret-ops",
        )
        .map_err(Refusal::into_diagnostics)
        .unwrap_err();
    assert_eq!(codes(&problems), ["platform/blueprint-not-allowed"]);
}

#[test]
fn a_request_must_name_a_blueprint() {
    let (catalogue, diagnostics) = load(
        MemoryFs::new().with("a.yaml", "name: a\nimage: x\n"),
        Settings::default(),
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let problems = render(&catalogue, &RenderRequest::default()).unwrap_err();
    assert_eq!(codes(&problems), ["platform/no-blueprint"]);
}

#[test]
fn one_structural_error_hides_no_semantic_one() {
    // An enum error in `imagePullPolicy` and a bad quantity elsewhere in the
    // same blueprint: both are reported.
    let fs = MemoryFs::new().with(
        "a.yaml",
        "name: a\nimage: x\nimagePullPolicy: Sometimes\nresources: {cpu: lots}\n",
    );
    let (_, diagnostics) = load(fs, Settings::default());
    assert_eq!(codes(&diagnostics), ["schema/enum", "k8s/invalid-quantity"]);
}

/// Reopening after edits finds what opening the edited files finds, and
/// reuses what did not change: a blueprint fixed, another broken, a
/// template changed under its children, the settings changed.
#[test]
fn reopening_finds_what_opening_finds() {
    let a = "name: a\ntemplate: base\nhostname: !cel \"blueprint + '-ws'\"\n";
    let base = "name: base\nisTemplate: true\nimage: x\n";
    let versions = [
        vec![("a.yaml", a.to_owned()), ("base.yaml", base.to_owned())],
        // `a` breaks: a CEL error.
        vec![
            ("a.yaml", a.replace("blueprint +", "nosuch +")),
            ("base.yaml", base.to_owned()),
        ],
        // `a` fixed; the template breaks both itself and its child.
        vec![
            ("a.yaml", a.to_owned()),
            (
                "base.yaml",
                base.replace("image: x", "image: x\nimagePullPolicy: Sometimes"),
            ),
        ],
        // A new file before the others, so every source moves.
        vec![
            ("0.yaml", "name: zero\nimage: z\n".to_owned()),
            ("a.yaml", a.to_owned()),
            ("base.yaml", base.to_owned()),
        ],
        // The CEL options change.
        vec![
            (".strata.yaml", "cel: {allowEnv: true}\n".to_owned()),
            ("a.yaml", a.to_owned()),
            ("base.yaml", base.to_owned()),
        ],
    ];
    let files = |version: &[(&str, String)]| {
        let mut fs = MemoryFs::new();
        for (path, text) in version {
            fs = fs.with(path, text);
        }
        Arc::new(fs) as Arc<dyn Files>
    };
    let shown = |diagnostics: &[Diagnostic]| -> Vec<String> {
        diagnostics
            .iter()
            .map(|d| format!("{} {} {:?}", d.code, d.message, d.primary.span))
            .collect()
    };
    let options = || Options::new(Limits::default(), Settings::default());
    let mut previous = Catalogue::open(files(&versions[0]), options())
        .outcome
        .value
        .expect("a catalogue");
    let mut found = Vec::new();
    for version in versions.iter().skip(1).chain(&versions[..1]) {
        let fresh = Catalogue::open(files(version), options()).outcome;
        let reopened = previous.reopen(files(version), options()).outcome;
        assert_eq!(shown(&reopened.diagnostics), shown(&fresh.diagnostics));
        found.push(codes(&reopened.diagnostics));
        previous = reopened.value.expect("a catalogue");
    }
    assert_eq!(
        found,
        [
            vec!["cel/eval"],
            vec!["schema/enum"],
            vec![],
            vec![],
            vec![]
        ]
    );
}

/// An opening cancelled before its checks leaves them out, and a reopening
/// after it checks them again instead of reusing what was never checked.
#[test]
fn a_cancelled_opening_is_checked_again_when_reopened() {
    let fs: Arc<dyn Files> = Arc::new(MemoryFs::new().with(
        "a.yaml",
        "name: a\nimage: x\nhostname: !cel \"nosuch + 'x'\"\n",
    ));
    let cancel = strata_dialect::Cancel::new();
    cancel.cancel();
    let cancelled = Catalogue::open(
        fs.clone(),
        Options::new(Limits::default(), Settings::default()).with_cancel(cancel),
    )
    .outcome;
    assert_eq!(codes(&cancelled.diagnostics), Vec::<&str>::new());
    let reopened = cancelled
        .value
        .expect("a catalogue")
        .reopen(fs, Options::new(Limits::default(), Settings::default()))
        .outcome;
    assert_eq!(codes(&reopened.diagnostics), ["cel/eval"]);
}

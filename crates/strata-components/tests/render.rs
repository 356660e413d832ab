//! The components library on the bundled example and on scratch apps.
#![expect(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test stops at the first surprise"
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_components::{Application, Dialect, Input, Options, RenderRequest};
use strata_fs::{Files, RootFs};
use strata_syntax::emit::StreamFormat;
use strata_syntax::{Limits, SourceDb};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/components")
}

fn load(root: &Path) -> (Application, SourceDb) {
    let fs: Arc<dyn Files> = Arc::new(RootFs::new(root).expect("the app folder"));
    let opened = Application::open(fs, Options::new(Limits::default(), ()));
    let diagnostics = &opened.outcome.diagnostics;
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let db = SourceDb::extending(opened.sources.clone());
    (opened.outcome.value.expect("the application"), db)
}

fn render(application: &Application, db: &mut SourceDb, request: &RenderRequest) -> String {
    let rendered = application.render(request, db);
    let errors: Vec<_> = rendered
        .diagnostics
        .iter()
        .map(|d| d.record(db).message)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    rendered.value.expect("the objects").text()
}

/// Writes an application with one environment, `dev`, and `components`
/// (name, Jsonnet text) into `app`.
fn write_app(app: &Path, components: &[(&str, &str)]) {
    std::fs::create_dir_all(app.join("components")).unwrap();
    std::fs::write(
        app.join("qbec.yaml"),
        "apiVersion: qbec.io/v1alpha1\nkind: App\nmetadata: {name: a}\nspec:\n  environments: {dev: {server: https://dev.example.com}}\n",
    )
    .unwrap();
    for (name, text) in components {
        std::fs::write(app.join("components").join(format!("{name}.jsonnet")), text).unwrap();
    }
}

#[test]
fn the_example_renders_the_same_whatever_the_concurrency() {
    let (application, mut db) = load(&example());
    let names: Vec<&str> = application.components.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "api",
            "config",
            "dashboards",
            "debug-tools",
            "policies",
            "worker"
        ]
    );
    let mut outputs = Vec::new();
    for concurrency in [1, 2, 5, 64] {
        let request = RenderRequest {
            concurrency,
            ..RenderRequest::new("dev")
        };
        outputs.push(render(&application, &mut db, &request));
    }
    assert!(outputs.windows(2).all(|pair| pair[0] == pair[1]));
    // dev includes the globally excluded `debug-tools`; prod does not.
    assert!(outputs[0].contains("name: debug-shell"));
    let prod = render(&application, &mut db, &RenderRequest::new("prod"));
    assert!(!prod.contains("debug-shell"));
    assert_eq!(
        prod.lines().filter(|line| *line == "---").count(),
        9,
        "{prod}"
    );
}

#[test]
fn the_output_in_parts_is_the_output() {
    let (application, mut db) = load(&example());
    for format in [StreamFormat::Yaml, StreamFormat::Json] {
        let request = RenderRequest {
            format,
            ..RenderRequest::new("dev")
        };
        let objects = application
            .render(&request, &mut db)
            .value
            .expect("the objects");
        let text = objects.text();
        let parts = objects.into_parts();
        assert_eq!(parts.concat(), text, "{format:?}");
        if format == StreamFormat::Yaml {
            assert!(parts.len() > 1 && parts.iter().all(|part| part.starts_with("---\n")));
        }
    }
}

#[test]
fn variables_and_arguments_reach_the_components() {
    let (application, mut db) = load(&example());
    let request = RenderRequest {
        tag: Some("pr-7".to_owned()),
        components: vec!["api".to_owned()],
        ext_vars: vec![("image_tag".to_owned(), Input::Str("2.0.0".to_owned()))],
        tla_vars: vec![("replicas".to_owned(), Input::Code("2 + 5".to_owned()))],
        ..RenderRequest::new("prod")
    };
    let output = render(&application, &mut db, &request);
    assert!(
        output.contains("image: registry.example.com/shop/api:2.0.0\n"),
        "{output}"
    );
    assert!(output.contains("replicas: 7\n"), "{output}");
    assert!(output.contains("namespace: shop-prod-pr-7\n"), "{output}");
    assert!(output.contains("qbec.io/tag: pr-7\n"), "{output}");
}

#[cfg(unix)]
#[test]
fn imports_cannot_leave_the_application_through_a_symlink() {
    let scratch = tempfile::tempdir().unwrap();
    let app = scratch.path().join("app");
    write_app(
        &app,
        &[(
            "leak",
            "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'leak'}, data: import 'secret.libsonnet'}",
        )],
    );
    std::fs::write(scratch.path().join("secret.libsonnet"), "{ password: 'x' }").unwrap();
    std::os::unix::fs::symlink(
        scratch.path().join("secret.libsonnet"),
        app.join("components/secret.libsonnet"),
    )
    .unwrap();
    let (application, mut db) = load(&app);
    let rendered = application.render(&RenderRequest::new("dev"), &mut db);
    let records: Vec<_> = rendered.diagnostics.iter().map(|d| d.record(&db)).collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].code, "jsonnet/eval");
    assert!(
        records[0].message.contains("secret.libsonnet"),
        "{records:?}"
    );
    assert!(rendered.value.is_none());
}

#[test]
fn runaway_recursion_is_an_error_not_a_crash() {
    let scratch = tempfile::tempdir().unwrap();
    let app = scratch.path();
    write_app(app, &[("loop", "local f(n) = f(n + 1) + 1; f(0)")]);
    let (application, mut db) = load(app);
    let rendered = application.render(&RenderRequest::new("dev"), &mut db);
    assert_eq!(rendered.diagnostics.len(), 1);
    let record = rendered.diagnostics[0].record(&db);
    assert_eq!(record.code, "jsonnet/eval");
    assert!(
        record
            .message
            .contains("stack overflow: calls and imports nest deeper than 500"),
        "{}",
        record.message
    );
}

/// Calls nest as deep as go-jsonnet lets them (500), not jrsonnet's 200:
/// a program qbec evaluates is evaluated here too.
#[test]
fn calls_nest_as_deep_as_go_jsonnet_allows() {
    let scratch = tempfile::tempdir().unwrap();
    let app = scratch.path();
    write_app(
        app,
        &[(
            "deep",
            "local down(n) = if n == 0 then {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'deep'}} else down(n - 1) + {}; down(400)",
        )],
    );
    let (application, mut db) = load(app);
    let rendered = application.render(&RenderRequest::new("dev"), &mut db);
    assert!(
        rendered.diagnostics.is_empty(),
        "{:?}",
        rendered.diagnostics
    );
}

#[test]
fn a_component_that_runs_too_long_is_reported_at_the_deadline() {
    let scratch = tempfile::tempdir().unwrap();
    let app = scratch.path();
    write_app(
        app,
        &[
            (
                "forever",
                "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x'}, data: {n: std.toString(std.foldl(function(a, b) a + b, std.range(0, 2000000000), 0))}}",
            ),
            (
                "quick",
                "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'q'}}",
            ),
        ],
    );
    let (application, mut db) = load(app);
    let request = RenderRequest {
        timeout: Some(std::time::Duration::from_millis(300)),
        ..RenderRequest::new("dev")
    };
    let rendered = application.render(&request, &mut db);
    let records: Vec<_> = rendered.diagnostics.iter().map(|d| d.record(&db)).collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].code, "jsonnet/eval");
    assert_eq!(
        records[0].message,
        "component `forever`: the evaluation did not finish within 300ms"
    );
    assert!(records[0].file.ends_with("forever.jsonnet"));
}

/// A render of an application opened with a cancel stops waiting soon
/// after the cancel is asked, with the unfinished component said to be
/// cancelled, however long that component would run.
#[test]
fn a_cancelled_render_stops_waiting() {
    let scratch = tempfile::tempdir().unwrap();
    let app = scratch.path();
    write_app(
        app,
        &[(
            "forever",
            "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x'}, data: {n: std.toString(std.foldl(function(a, b) a + b, std.range(0, 2000000000), 0))}}",
        )],
    );
    let cancel = strata_dialect::Cancel::new();
    let fs: Arc<dyn Files> = Arc::new(RootFs::new(app).expect("the app folder"));
    let options = Options::new(Limits::default(), ()).with_cancel(cancel.clone());
    let opened = Application::open(fs, options);
    let application = opened.outcome.value.expect("the application");
    let mut db = SourceDb::extending(opened.sources.clone());
    let asker = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        cancel.cancel();
    });
    let started = std::time::Instant::now();
    let rendered = application.render(&RenderRequest::new("dev"), &mut db);
    let waited = started.elapsed();
    asker.join().unwrap();
    assert!(waited < std::time::Duration::from_secs(5), "{waited:?}");
    let records: Vec<_> = rendered.diagnostics.iter().map(|d| d.record(&db)).collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(
        records[0].message,
        "component `forever`: the evaluation was cancelled"
    );
}

/// `check` renders every environment; a problem is noted with the one it
/// is in.
#[test]
fn check_renders_every_environment() {
    let scratch = tempfile::tempdir().unwrap();
    let app = scratch.path();
    std::fs::create_dir_all(app.join("components")).unwrap();
    std::fs::write(
        app.join("qbec.yaml"),
        "apiVersion: qbec.io/v1alpha1\nkind: App\nmetadata: {name: a}\nspec:\n  environments:\n    dev: {server: https://dev.example.com}\n    prod: {server: https://prod.example.com}\n",
    )
    .unwrap();
    std::fs::write(
        app.join("components/a.jsonnet"),
        "if std.extVar('qbec.io/env') == 'prod' then error 'not in prod' else {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'a'}}",
    )
    .unwrap();
    let (application, mut db) = load(app);
    let problems = application.check(&mut db);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].message.contains("not in prod"),
        "{}",
        problems[0].message
    );
    assert_eq!(
        problems[0].notes.last().map(String::as_str),
        Some("in environment `prod`")
    );
}

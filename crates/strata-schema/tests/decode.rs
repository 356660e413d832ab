//! Decoding trees into a small application type: every problem, with its
//! code, path, position and help.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::collections::BTreeMap;
use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::Deserialize;
use strata_schema::{Decoder, rebase};
use strata_syntax::{DiagnosticRecord, FieldPath, Format, Limits, Node, SourceDb, parse};

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct App {
    #[schemars(length(min = 1, max = 40))]
    name: String,
    image: Image,
    pull_policy: Option<PullPolicy>,
    #[serde(default)]
    ports: Vec<Port>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    limits: Option<Limits2>,
    source: Option<Source>,
    replicas: Option<u32>,
    command: Option<Command>,
}

/// An untagged enum: an `anyOf` of a string and a mapping.
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
enum Command {
    Line(String),
    Exec {
        args: Vec<String>,
        shell: Option<bool>,
    },
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Image {
    repository: String,
    tag: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
enum PullPolicy {
    Always,
    Never,
    IfNotPresent,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Port {
    #[schemars(range(min = 1, max = 65535))]
    container_port: u32,
    protocol: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct Limits2 {
    cpu: String,
}

/// An internally tagged enum: a `oneOf` whose branches differ by `kind`.
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Source {
    Git { url: String, depth: Option<u32> },
    Path { path: String },
}

static DECODER: LazyLock<Decoder<App>> = LazyLock::new(Decoder::new);

fn load(db: &mut SourceDb, text: &str) -> Node {
    let id = db.add("app.yaml", text.to_owned());
    let mut parsed = parse(db, id, Format::Yaml, &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.documents.remove(0)
}

/// Decodes `text` expecting failure; gives each diagnostic as
/// `code path line:column message`, and the records for closer looks.
fn errors(text: &str) -> (Vec<String>, Vec<DiagnosticRecord>) {
    let mut db = SourceDb::new();
    let node = load(&mut db, text);
    let diagnostics = DECODER
        .decode(&node)
        .expect_err("the tree should not decode");
    let records: Vec<DiagnosticRecord> = diagnostics.iter().map(|d| d.record(&db)).collect();
    let lines = records
        .iter()
        .map(|r| {
            format!(
                "{} {} {}:{} {}",
                r.code,
                r.path.as_deref().unwrap_or("-"),
                r.line,
                r.column,
                r.message
            )
        })
        .collect();
    (lines, records)
}

fn check(text: &str, expect: &[&str]) -> Vec<DiagnosticRecord> {
    let (lines, records) = errors(text);
    assert_eq!(lines, expect, "for:\n{text}");
    records
}

#[test]
fn a_valid_tree_decodes() {
    let mut db = SourceDb::new();
    let node = load(
        &mut db,
        "name: web\nimage: {repository: nginx, tag: '1.27'}\npullPolicy: IfNotPresent\n\
         ports: [{containerPort: 80}]\nenv: {A: x}\nsource: {kind: git, url: https://x}\n",
    );
    let app = DECODER.decode(&node).unwrap();
    assert_eq!(app.name, "web");
    assert_eq!(app.image.tag.as_deref(), Some("1.27"));
    assert_eq!(app.pull_policy, Some(PullPolicy::IfNotPresent));
    assert_eq!(app.ports[0].container_port, 80);
    assert_eq!(app.env["A"], "x");
    assert_eq!(
        app.source,
        Some(Source::Git {
            url: "https://x".into(),
            depth: None
        })
    );
    assert!(DECODER.validate(&node).is_empty());
}

#[test]
fn unknown_keys_point_at_the_key_with_a_suggestion() {
    let records = check(
        "name: web\nimage:\n  repository: nginx\n  tagg: latest\n",
        &["schema/unknown-key image.tagg 4:3 unknown key `tagg`"],
    );
    assert_eq!(records[0].help.as_deref(), Some("did you mean `tag`?"));
    assert_eq!(records[0].notes, ["allowed keys: `repository`, `tag`"]);
    assert_eq!((records[0].end_line, records[0].end_column), (4, 7));
}

#[test]
fn suggestions_skip_keys_already_present_and_far_names() {
    let records = check(
        "name: web\nimage: {repository: a, tag: b, tags: c}\nzzz: 1\n",
        &[
            "schema/unknown-key image.tags 2:32 unknown key `tags`",
            "schema/unknown-key zzz 3:1 unknown key `zzz`",
        ],
    );
    assert_eq!(records[0].help, None);
    assert_eq!(records[1].help, None);
}

#[test]
fn unknown_keys_inside_sequences_and_options() {
    let records = check(
        "name: web\nimage: {repository: a}\nports:\n  - containerPort: 80\n    protocl: TCP\n\
         limits: {cpus: '1'}\n",
        &[
            "schema/unknown-key ports[0].protocl 5:5 unknown key `protocl`",
            "schema/required limits 6:9 missing required key `cpu`",
            "schema/unknown-key limits.cpus 6:10 unknown key `cpus`",
        ],
    );
    assert_eq!(records[0].help.as_deref(), Some("did you mean `protocol`?"));
    assert_eq!(records[2].help.as_deref(), Some("did you mean `cpu`?"));
}

#[test]
fn wrong_types_say_what_was_expected() {
    check(
        "name: {first: web}\nimage: nginx\nports: [80]\nenv: {A: [1]}\n",
        &[
            "schema/type name 1:7 expected string, found mapping",
            "schema/type image 2:8 expected mapping, found string",
            "schema/type ports[0] 3:9 expected mapping, found integer",
            "schema/type env.A 4:10 expected string, found sequence",
        ],
    );
}

#[test]
fn options_report_the_inner_problem_or_the_types() {
    check(
        "name: web\nimage: {repository: a}\nreplicas: two\nlimits: 5\npullPolicy: 3\n",
        &[
            "schema/type replicas 3:11 expected integer or null, found string",
            "schema/type limits 4:9 expected mapping or null, found integer",
            "schema/type pullPolicy 5:13 expected string or null, found integer",
        ],
    );
}

#[test]
fn missing_keys_point_at_the_mapping() {
    check(
        "name: web\nimage:\n  tag: latest\n",
        &["schema/required image 3:3 missing required key `repository`"],
    );
    check(
        "{}",
        &[
            "schema/required $ 1:1 missing required key `name`",
            "schema/required $ 1:1 missing required key `image`",
        ],
    );
}

#[test]
fn enums_list_the_allowed_values_with_a_suggestion() {
    let records = check(
        "name: web\nimage: {repository: a}\npullPolicy: IfNotPresnt\n",
        &[
            "schema/enum pullPolicy 3:13 `IfNotPresnt` is not one of `Always`, `Never`, `IfNotPresent`",
        ],
    );
    assert_eq!(
        records[0].help.as_deref(),
        Some("did you mean `IfNotPresent`?")
    );
}

#[test]
fn constraints_use_the_validator_message() {
    check(
        "name: ''\nimage: {repository: a}\nports: [{containerPort: 0}, {containerPort: 70000}]\n",
        &[
            "schema/constraint name 1:7 \"\" is shorter than 1 character",
            "schema/constraint ports[0].containerPort 3:25 0 is less than the minimum of 1",
            "schema/constraint ports[1].containerPort 3:45 70000 is greater than the maximum of 65535",
        ],
    );
    let long = "x".repeat(50);
    check(
        &format!("name: {long}\nimage: {{repository: a}}\n"),
        &["schema/constraint name 1:7 the string is longer than 40 characters"],
    );
}

#[test]
fn tagged_enums_report_the_tag_or_the_chosen_variant() {
    check(
        "name: web\nimage: {repository: a}\nsource: {kind: svn, url: x}\n",
        &["schema/enum source.kind 3:16 `svn` is not one of `git`, `path`"],
    );
    let records = check(
        "name: web\nimage: {repository: a}\nsource: {kind: git, url: 5, dept: 1}\n",
        &[
            "schema/type source.url 3:26 expected string, found integer",
            "schema/unknown-key source.dept 3:29 unknown key `dept`",
        ],
    );
    assert_eq!(records[1].help.as_deref(), Some("did you mean `depth`?"));
    check(
        "name: web\nimage: {repository: a}\nsource: {kind: path}\n",
        &["schema/required source 3:9 missing required key `path`"],
    );
}

#[test]
fn untagged_enums_report_the_closest_form() {
    check(
        "name: web\nimage: {repository: a}\ncommand: 5\n",
        &["schema/type command 3:10 expected string, mapping or null, found integer"],
    );
    let records = check(
        "name: web\nimage: {repository: a}\ncommand: {args: run, shel: true}\n",
        &[
            "schema/type command.args 3:17 expected sequence, found string",
            "schema/unknown-key command.shel 3:22 unknown key `shel`",
        ],
    );
    assert_eq!(records[1].help.as_deref(), Some("did you mean `shell`?"));
    let mut db = SourceDb::new();
    let node = load(
        &mut db,
        "name: web\nimage: {repository: a}\ncommand: {args: [run]}\n",
    );
    assert_eq!(
        DECODER.decode(&node).unwrap().command,
        Some(Command::Exec {
            args: vec!["run".into()],
            shell: None
        })
    );
}

#[test]
fn keys_of_another_variant_are_unknown() {
    check(
        "name: web\nimage: {repository: a}\nsource: {kind: path, path: x, url: y}\n",
        &["schema/unknown-key source.url 3:31 unknown key `url`"],
    );
}

#[test]
fn every_problem_is_reported_once_in_document_order() {
    check(
        "nmae: web\nimage: {repository: 3, tga: x}\npullPolicy: Sometimes\nports: [{containerPort: -1}]\n\
         env: {A: 1}\n",
        &[
            "schema/required $ 1:1 missing required key `name`",
            "schema/unknown-key nmae 1:1 unknown key `nmae`",
            "schema/type image.repository 2:21 expected string, found integer",
            "schema/unknown-key image.tga 2:24 unknown key `tga`",
            "schema/enum pullPolicy 3:13 `Sometimes` is not one of `Always`, `Never`, `IfNotPresent`",
            "schema/constraint ports[0].containerPort 4:25 -1 is less than the minimum of 1",
            "schema/type env.A 5:10 expected string, found integer",
        ],
    );
}

#[test]
fn serde_refusals_are_reported_at_the_root() {
    let mut db = SourceDb::new();
    let node = load(
        &mut db,
        "name: web\nimage: {repository: a}\nreplicas: 5000000000\n",
    );
    let diagnostics = DECODER.decode(&node).unwrap_err();
    let record = diagnostics[0].record(&db);
    assert_eq!(
        (record.code.as_str(), record.line, record.column),
        ("schema/decode", 1, 1)
    );
    assert!(record.message.contains("5000000000"), "{}", record.message);
}

#[test]
fn paths_can_be_rebased() {
    let mut db = SourceDb::new();
    let node = load(&mut db, "name: web\nimage: {repository: a, tga: x}\n");
    let mut diagnostics = DECODER.decode(&node).unwrap_err();
    rebase(
        &mut diagnostics,
        &FieldPath::parse("apps.web").expect("a valid path"),
    );
    assert_eq!(
        diagnostics[0].path.as_ref().map(ToString::to_string),
        Some("apps.web.image.tga".to_owned())
    );
}

#[test]
fn the_schema_is_closed_and_decoders_are_shareable() {
    fn shareable<T: Send + Sync>(_: &T) {}
    shareable(&*DECODER);
    let schema = DECODER.schema();
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["$defs"]["Image"]["additionalProperties"], false);
    assert_eq!(
        schema["properties"]["env"]["additionalProperties"]["type"],
        "string"
    );
}

#[test]
fn extra_checks_join_the_schema_diagnostics() {
    let mut db = SourceDb::new();
    let node = load(&mut db, "name: web\nimage: {repository: a, tga: x}\n");
    let diagnostics = DECODER
        .decode_with(&node, |node| {
            let name = node.get("name").expect("a name");
            vec![strata_syntax::Diagnostic::error(
                strata_syntax::Code::new("test/name"),
                "bad name",
                name.span,
            )]
        })
        .unwrap_err();
    let codes: Vec<_> = diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["test/name", "schema/unknown-key"]);
}

/// Variants with docs make schemars write a `oneOf` of constants.
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Documented {
    /// The first.
    First,
    /// The second.
    Second,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct WithDocumented {
    mode: Documented,
}

#[test]
fn documented_enum_variants_are_listed_like_plain_ones() {
    let mut db = SourceDb::new();
    let node = load(&mut db, "mode: secnod\n");
    let decoder = Decoder::<WithDocumented>::new();
    let diagnostics = decoder.decode(&node).expect_err("not a variant");
    let records: Vec<DiagnosticRecord> = diagnostics.iter().map(|d| d.record(&db)).collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].code, "schema/enum");
    assert_eq!(
        records[0].message,
        "`secnod` is not one of `first`, `second`"
    );
    assert_eq!(records[0].help.as_deref(), Some("did you mean `second`?"));
}

/// Decodes `text` as far as it goes.
fn partial(text: &str) -> (Option<App>, Vec<&'static str>) {
    let mut db = SourceDb::new();
    let node = load(&mut db, text);
    let outcome = DECODER.decode_partial(&node);
    let codes = outcome
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    (outcome.value, codes)
}

#[test]
fn partial_decoding_keeps_every_valid_field() {
    // A bad enum, an unknown key, a port out of range and a mapping missing
    // a required key: each is left out, everything else decodes.
    let (app, codes) = partial(
        "name: web\nimage: {repository: r, tga: x}\npullPolicy: Sometimes\nports: [{containerPort: 0}, {containerPort: 80}]\nenv: {A: '1'}\nlimits: {}\n",
    );
    assert_eq!(
        codes,
        [
            "schema/unknown-key",
            "schema/enum",
            "schema/constraint",
            "schema/required"
        ]
    );
    let app = app.expect("the valid fields decode");
    assert_eq!(app.name, "web");
    assert_eq!(app.pull_policy, None);
    assert_eq!(app.limits, None);
    assert_eq!(app.env["A"], "1");
    assert_eq!(
        app.ports,
        [Port {
            container_port: 80,
            protocol: None
        }]
    );
    assert_eq!(app.image.repository, "r");
    // A valid tree decodes whole, with no diagnostics.
    let (app, codes) = partial("name: web\nimage: {repository: r}\n");
    assert!(app.is_some() && codes.is_empty());
    // A key of digits is a key, not an index, when its value is left out.
    let (app, codes) =
        partial("name: web\nimage: {repository: r}\nenv: {'8080': [x], '007': [x], '1': y}\n");
    assert_eq!(codes, ["schema/type", "schema/type"]);
    let env = app.expect("the valid fields decode").env;
    assert_eq!(
        env.into_iter().collect::<Vec<_>>(),
        [("1".to_owned(), "y".to_owned())]
    );
    // A root that misses a required key cannot be had.
    let (app, codes) = partial("name: web\n");
    assert_eq!((app, codes), (None, vec!["schema/required"]));
}

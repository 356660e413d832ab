//! Evaluating `!cel` scalars in trees: results, errors, positions, the
//! cache and the cost bounds.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::sync::Arc;

use strata_cel::{CelOptions, MAX_ITERATIONS, Programs, Scope};
use strata_syntax::emit::to_yaml;
use strata_syntax::{
    Diagnostic, DiagnosticRecord, Format, LayerId, Limits, Node, SourceDb, SourceId, Span, Value,
    parse,
};

/// The scope of a typical request.
const REQUEST: &str = "\
user: {username: ada, uid: 1000, roles: [dev, ops]}
workspaceName: ws-1
metadata: {name: web, repository: {owner: acme, name: shop}}
blueprint: python-dev
";

struct Run {
    db: SourceDb,
    tree: Node,
    diagnostics: Vec<Diagnostic>,
}

impl Run {
    fn records(&self) -> Vec<DiagnosticRecord> {
        self.diagnostics
            .iter()
            .map(|diagnostic| diagnostic.record(&self.db))
            .collect()
    }
}

fn load(db: &SourceDb, id: SourceId) -> Node {
    let parsed = parse(db, id, Format::Yaml, &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    parsed.documents.into_iter().next().expect("one document")
}

fn run(programs: &Programs, yaml: &str, scope_yaml: &str) -> Run {
    let mut db = SourceDb::new();
    let document = db.add("blueprint.yaml", yaml);
    let scope_source = db.add("scope.yaml", scope_yaml);
    let scope = if scope_yaml.trim().is_empty() {
        Scope::new()
    } else {
        Scope::from_mapping(load(&db, scope_source).as_map().expect("a mapping"))
    };
    let (tree, diagnostics) = programs.evaluate_tree(load(&db, document), &scope);
    Run {
        db,
        tree,
        diagnostics,
    }
}

/// A document as it is emitted when nothing in it changes.
fn reemitted(yaml: &str) -> String {
    let mut db = SourceDb::new();
    let id = db.add("unchanged.yaml", yaml);
    to_yaml(&load(&db, id))
}

fn check_with(
    options: CelOptions,
    yaml: &str,
    scope_yaml: &str,
    expected_yaml: &str,
    expected_codes: &[&str],
) -> Run {
    let run = run(&Programs::new(options), yaml, scope_yaml);
    let codes: Vec<_> = run.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, expected_codes, "{:#?}", run.diagnostics);
    assert_eq!(to_yaml(&run.tree), expected_yaml);
    run
}

fn check(yaml: &str, scope_yaml: &str, expected_yaml: &str, expected_codes: &[&str]) -> Run {
    check_with(
        CelOptions::default(),
        yaml,
        scope_yaml,
        expected_yaml,
        expected_codes,
    )
}

/// The message of the only diagnostic of a run.
fn only_message(run: &Run) -> &str {
    assert_eq!(run.diagnostics.len(), 1, "{:#?}", run.diagnostics);
    &run.diagnostics[0].message
}

#[test]
fn the_seed_examples_evaluate() {
    check(
        "hostname: !cel \"user.username + '-' + metadata.name\"\n\
         storages:\n  home:\n    path: !cel \"'/home/' + user.username\"\n",
        REQUEST,
        "hostname: ada-web\nstorages:\n  home:\n    path: /home/ada\n",
        &[],
    );
}

#[test]
fn untagged_scalars_and_other_tags_are_left_alone() {
    check(
        "a: user.username\nb: !other \"1 + 1\"\nc: [1, {d: two}]\n",
        REQUEST,
        "a: user.username\nb: !other 1 + 1\nc:\n  - 1\n  - d: two\n",
        &[],
    );
}

#[test]
fn results_of_every_type_replace_the_scalar() {
    check(
        "string: !cel \"'a' + 'b'\"\n\
         int: !cel user.uid + 1\n\
         float: !cel 1.5 * 2.0\n\
         bool: !cel size(user.roles) == 2\n\
         nothing: !cel 'null'\n\
         uint: !cel 7u\n\
         bytes: !cel \"b'caf\\\\xc3\\\\xa9'\"\n\
         type: !cel type(1)\n\
         present: !cel \"{'a': 1}.?a\"\n\
         absent: !cel user.?email\n",
        REQUEST,
        "string: ab\nint: 1001\nfloat: 3.0\nbool: true\nnothing: null\nuint: 7\n\
         bytes: café\ntype: int\npresent: 1\nabsent: null\n",
        &[],
    );
}

#[test]
fn timestamps_and_durations_become_their_cel_strings() {
    let run = check(
        "at: !cel \"timestamp('2024-01-02T04:04:05.500+01:00')\"\n\
         whole: !cel \"timestamp('2024-01-02T03:04:05Z')\"\n\
         wait: !cel \"duration('1m30s')\"\n\
         back: !cel \"duration('-1.25s')\"\n",
        "",
        "at: \"2024-01-02T03:04:05.5Z\"\nwhole: \"2024-01-02T03:04:05Z\"\nwait: 90s\nback: -1.25s\n",
        &[],
    );
    assert_eq!(
        run.tree.get("at").and_then(Node::as_str),
        Some("2024-01-02T03:04:05.5Z")
    );
}

#[test]
fn lists_and_maps_become_sequences_and_mappings() {
    check(
        "ports: !cel '[80, 443].map(p, p + 8000)'\n\
         labels: !cel \"{'owner': metadata.repository.owner, 'app': metadata.name, 'tier': ['web', 1]}\"\n\
         numbered: !cel \"{2: 'b', 1: 'a', true: 'yes'}\"\n\
         empty: !cel '[]'\n\
         roles: !cel user.roles.filter(r, r != 'ops')\n",
        REQUEST,
        "ports:\n  - 8080\n  - 8443\n\
         labels:\n  app: web\n  owner: acme\n  tier:\n    - web\n    - 1\n\
         numbered:\n  \"1\": a\n  \"2\": b\n  \"true\": \"yes\"\n\
         empty: []\n\
         roles:\n  - dev\n",
        &[],
    );
}

#[test]
fn results_keep_the_span_and_layer_of_the_scalar_and_lose_the_tag() {
    let mut db = SourceDb::new();
    let id = db.add("a.yaml", "x: !cel \"[user.username]\"\n");
    let user = db.add("user.yaml", "username: ada\n");
    let mut tree = load(&db, id);
    tree.stamp_layer(LayerId(3));
    let span = tree.get("x").expect("x").span;
    let scope = Scope::new().with("user", &load(&db, user));
    let (tree, diagnostics) = Programs::new(CelOptions::default()).evaluate_tree(tree, &scope);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let x = tree.get("x").expect("x");
    let item = &x.as_seq().expect("a sequence")[0];
    for node in [x, item] {
        assert_eq!(
            (node.span, node.layer, node.tag.as_ref()),
            (span, Some(LayerId(3)), None)
        );
    }
    assert_eq!(item.as_str(), Some("ada"));
}

#[test]
fn the_string_extensions_and_standard_functions_are_there() {
    check(
        "lower: !cel \"'TacoCat'.lowerAscii()\"\n\
         upper: !cel \"user.username.upperAscii()\"\n\
         replace: !cel \"'a-b-c'.replace('-', '/')\"\n\
         split: !cel \"'a,b'.split(',')\"\n\
         join: !cel \"user.roles.join('+')\"\n\
         trim: !cel \"'  x  '.trim()\"\n\
         tests: !cel \"[blueprint.startsWith('py'), blueprint.endsWith('dev'), blueprint.contains('-'), \
         blueprint.matches('^[a-z-]+$'), size(blueprint)]\"\n\
         lists: !cel \"[[3, 1], [2]].flatten().sort()\"\n\
         extremes: !cel \"[max(1, 5, 3), min([4, 2]), max([]), math.greatest(1, 2)]\"\n\
         quantifiers: !cel \"[user.roles.all(r, size(r) == 3), user.roles.exists(r, r == 'ops'), \
         user.roles.exists_one(r, r.startsWith('d'))]\"\n\
         base64: !cel \"base64.encode(b'hi')\"\n",
        REQUEST,
        "lower: tacocat\nupper: ADA\nreplace: a/b/c\nsplit:\n  - a\n  - b\njoin: dev+ops\ntrim: x\n\
         tests:\n  - true\n  - true\n  - true\n  - true\n  - 10\n\
         lists:\n  - 1\n  - 2\n  - 3\n\
         extremes:\n  - 5\n  - 2\n  - null\n  - 2\n\
         quantifiers:\n  - true\n  - true\n  - true\n\
         base64: aGk=\n",
        &[],
    );
}

#[test]
fn has_tests_for_fields() {
    check(
        "with: !cel has(user.username)\n\
         without: !cel has(user.email)\n\
         fallback: !cel \"has(user.email) ? user.email : user.username + '@example.com'\"\n",
        REQUEST,
        "with: true\nwithout: false\nfallback: ada@example.com\n",
        &[],
    );
}

#[test]
fn a_parse_error_points_at_its_character() {
    let run = check(
        "name: web\nhost: !cel \"user.username + \"\nplain: !cel 1 + )\nsingle: !cel 'a.b('\n",
        REQUEST,
        &reemitted(
            "name: web\nhost: !cel \"user.username + \"\nplain: !cel 1 + )\nsingle: !cel 'a.b('\n",
        ),
        &["cel/parse", "cel/parse", "cel/parse"],
    );
    let at: Vec<_> = run
        .records()
        .iter()
        .map(|r| (r.line, r.column, r.path.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        at,
        [
            // The end of `user.username + `, before the closing quote.
            (2, 29, "host".to_owned()),
            // The `)`.
            (3, 17, "plain".to_owned()),
            // The end of `a.b(`.
            (4, 19, "single".to_owned()),
        ]
    );
    assert!(
        run.diagnostics[1]
            .message
            .starts_with("syntax error: mismatched input ')'")
    );
}

#[test]
fn a_parse_error_in_a_block_scalar_points_at_the_scalar_with_a_note() {
    let run = check(
        "expr: !cel |\n  user.username +\n  + )\n",
        REQUEST,
        &reemitted("expr: !cel |\n  user.username +\n  + )\n"),
        &["cel/parse"],
    );
    let record = &run.records()[0];
    assert_eq!((record.line, record.column), (1, 7));
    // The second `+`, then the `)`.
    assert_eq!(record.notes[0], "at line 2, column 1 of the expression");
    assert!(record.notes[1].ends_with("(line 2, column 3 of the expression)"));
}

#[test]
fn a_missing_key_is_an_eval_error_with_the_field_path() {
    let run = check(
        "spec:\n  hosts:\n    - !cel metadata.name\n    - !cel user.missing\n",
        REQUEST,
        "spec:\n  hosts:\n    - web\n    - !cel user.missing\n",
        &["cel/eval"],
    );
    assert_eq!(only_message(&run), "no such key: missing");
    let record = &run.records()[0];
    assert_eq!(record.path.as_deref(), Some("spec.hosts[1]"));
    assert_eq!((record.line, record.column), (4, 7));
}

#[test]
fn an_unknown_variable_suggests_a_near_name() {
    let run = check(
        "a: !cel usr.username\n",
        REQUEST,
        "a: !cel usr.username\n",
        &["cel/eval"],
    );
    assert_eq!(only_message(&run), "undeclared reference to 'usr'");
    assert_eq!(
        run.diagnostics[0].help.as_deref(),
        Some("did you mean `user`?")
    );
}

#[test]
fn every_error_is_reported_and_failed_scalars_are_kept() {
    let run = check(
        "ok: !cel user.username\n\
         parse: !cel \"1 +\"\n\
         key: !cel user.nope\n\
         types: !cel \"1 + 'a'\"\n\
         function: !cel nope(1)\n\
         zero: !cel 1 / 0\n\
         mapping: !cel {a: !cel user.uid}\n\
         sequence: !cel []\n",
        REQUEST,
        "ok: ada\n\
         parse: !cel 1 +\n\
         key: !cel user.nope\n\
         types: !cel 1 + 'a'\n\
         function: !cel nope(1)\n\
         zero: !cel 1 / 0\n\
         mapping: !cel\n  a: 1000\n\
         sequence: !cel []\n",
        &[
            "cel/parse",
            "cel/eval",
            "cel/eval",
            "cel/eval",
            "cel/eval",
            "cel/not-a-string",
            "cel/not-a-string",
        ],
    );
    let messages: Vec<_> = run.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages[1..],
        [
            "no such key: nope",
            "unsupported binary operator 'add': Int(1), String(\"a\")",
            "undeclared reference to 'nope'",
            "division by zero of Int(1)",
            "`!cel` tags a mapping, not an expression string",
            "`!cel` tags a sequence, not an expression string",
        ]
    );
    let paths: Vec<_> = run.records().into_iter().filter_map(|r| r.path).collect();
    assert_eq!(
        paths,
        [
            "parse", "key", "types", "function", "zero", "mapping", "sequence"
        ]
    );
}

#[test]
fn env_is_disabled_by_default() {
    let run = check(
        "home: !cel \"env('PATH')\"\n",
        "",
        "home: !cel env('PATH')\n",
        &["cel/env-disabled"],
    );
    assert_eq!(only_message(&run), "`env()` is disabled");
    assert_eq!(
        run.diagnostics[0].help.as_deref(),
        Some("enable it with `cel: {allowEnv: true}` in the catalogue's .strata.yaml")
    );
}

#[test]
fn env_reads_the_environment_when_allowed() {
    let path = std::env::var("PATH").expect("tests run with a PATH");
    let run = check_with(
        CelOptions {
            allow_env: true,
            ..CelOptions::default()
        },
        "path: !cel \"env('PATH')\"\n\
         unset: !cel \"env('STRATA_CEL_TEST_NEVER_SET') == null\"\n\
         odd: !cel \"env('A=B') == null\"\n",
        "",
        &format!(
            "path: {}\nunset: true\nodd: true\n",
            to_yaml(&Node::new(Value::String(path.clone()), Span::default())).trim_end()
        ),
        &[],
    );
    assert_eq!(
        run.tree.get("path").and_then(Node::as_str),
        Some(path.as_str())
    );
}

#[test]
fn results_the_tree_cannot_hold_are_reported() {
    let run = check(
        "big: !cel 18446744073709551615u\n\
         bytes: !cel \"b'\\\\xff'\"\n\
         keys: !cel \"{1: 'a', '1': 'b'}\"\n",
        "",
        "big: !cel 18446744073709551615u\n\
         bytes: !cel b'\\xff'\n\
         keys: !cel \"{1: 'a', '1': 'b'}\"\n",
        &["cel/result", "cel/result", "cel/result"],
    );
    let messages: Vec<_> = run.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "the unsigned integer 18446744073709551615 does not fit in a signed 64-bit integer",
            "the bytes are not valid utf-8",
            "the map has two keys written `1`",
        ]
    );
    assert_eq!(
        run.diagnostics[1].help.as_deref(),
        Some("encode them with `base64.encode(...)`")
    );
}

#[test]
fn a_scope_can_be_built_variable_by_variable() {
    let mut db = SourceDb::new();
    let user = db.add("user.yaml", "{username: ada, tags: {a: 1.5, b: ~}}");
    let tree = db.add("t.yaml", "x: !cel \"[name, user.tags.a, user.tags.b]\"\n");
    let mut scope = Scope::new().with("user", &load(&db, user));
    scope.insert(
        "name",
        &Node::new(Value::String("nm".to_owned()), Span::default()),
    );
    assert_eq!(scope.names().collect::<Vec<_>>(), ["name", "user"]);
    let (tree, diagnostics) =
        Programs::new(CelOptions::default()).evaluate_tree(load(&db, tree), &scope);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(to_yaml(&tree), "x:\n  - nm\n  - 1.5\n  - null\n");
}

#[test]
fn the_cache_compiles_each_text_once() {
    let programs = Programs::new(CelOptions::default());
    let span = Span::default();
    let first = programs
        .compile("user.username + '-x'", span)
        .expect("compiles");
    let again = programs
        .compile("user.username + '-x'", span)
        .expect("compiles");
    let other = programs.compile("user.username", span).expect("compiles");
    assert!(Arc::ptr_eq(&first, &again));
    assert!(!Arc::ptr_eq(&first, &other));
    assert_eq!(first.source(), "user.username + '-x'");

    // Failures are cached too, and each placed at the span it is asked for.
    let error = programs.compile("1 +", span).expect_err("does not parse");
    let elsewhere = Span::new(SourceId::default(), 10, 13);
    let moved = programs
        .compile("1 +", elsewhere)
        .expect_err("does not parse");
    assert_eq!(
        (error.code, error.message.clone()),
        (moved.code, moved.message.clone())
    );
    assert_eq!(moved.primary.span, Span::new(SourceId::default(), 13, 13));

    // Evaluating uses the cached program.
    let mut db = SourceDb::new();
    let id = db.add("a.yaml", "a: !cel \"user.username + '-x'\"\n");
    let tree = load(&db, id);
    assert!(programs.compile_tree(&tree).is_empty());
    let cached = programs
        .compile("user.username + '-x'", span)
        .expect("compiles");
    assert!(Arc::ptr_eq(&first, &cached));
}

#[test]
fn compile_tree_checks_without_evaluating() {
    let programs = Programs::new(CelOptions::default());
    let mut db = SourceDb::new();
    let id = db.add(
        "a.yaml",
        "fine: !cel unknown.variable\nbroken: !cel \"(1\"\nlist: !cel [a]\nnot: {cel: 1}\n",
    );
    let diagnostics = programs.compile_tree(&load(&db, id));
    let codes: Vec<_> = diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.path.as_ref().map(ToString::to_string)))
        .collect();
    assert_eq!(
        codes,
        [
            ("cel/parse", Some("broken".to_owned())),
            ("cel/not-a-string", Some("list".to_owned())),
        ]
    );
}

#[test]
fn programs_are_shared_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Programs>();
    send_sync::<Scope>();
    let programs = Programs::new(CelOptions::default());
    std::thread::scope(|threads| {
        for i in 0..4 {
            let programs = &programs;
            threads.spawn(move || {
                let run = run(programs, "v: !cel v * 2\n", &format!("v: {i}\n"));
                assert!(run.diagnostics.is_empty());
                assert_eq!(to_yaml(&run.tree), format!("v: {}\n", i * 2));
            });
        }
    });
}

#[test]
fn deep_nesting_is_refused_not_a_crash() {
    let deep = format!("x: !cel \"{}1{}\"\n", "(".repeat(500), ")".repeat(500));
    let run = check(&deep, "", &reemitted(&deep), &["cel/limit"]);
    assert_eq!(
        only_message(&run),
        "the expression nests more than 64 levels deep"
    );

    let lists = format!("x: !cel \"{}1{}\"\n", "[".repeat(100), "]".repeat(100));
    check(&lists, "", &reemitted(&lists), &["cel/limit"]);
}

#[test]
fn long_chains_are_refused_not_a_crash() {
    let chain = format!("x: !cel \"1{}\"\n", " + 1".repeat(400));
    let run = check(&chain, "", &reemitted(&chain), &["cel/limit"]);
    assert_eq!(
        only_message(&run),
        "the expression nests 401 levels deep, more than the limit of 256"
    );

    // Just within the limit, it evaluates, also on a small caller stack.
    let ok = format!("x: !cel \"1{}\"\n", " + 1".repeat(250));
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || check(&ok, "", "x: 251\n", &[]))
        .expect("a thread")
        .join()
        .expect("no overflow");
    let nested = format!("x: !cel \"{}1{}\"\n", "(".repeat(60), ")".repeat(60));
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || check(&nested, "", "x: 1\n", &[]))
        .expect("a thread")
        .join()
        .expect("no overflow");
}

#[test]
fn very_long_expressions_are_refused() {
    let long = format!("x: !cel \"'{}'\"\n", "a".repeat(9000));
    let run = check(&long, "", &reemitted(&long), &["cel/limit"]);
    assert!(only_message(&run).starts_with("the expression is 9002 bytes long"));
}

#[test]
fn comprehensions_share_an_iteration_budget() {
    let run = check(
        "x: !cel lists.range(1000).map(i, lists.range(1000).map(j, j).size())\n\
         fine: !cel lists.range(1000).map(i, lists.range(10).map(j, j).size()).size()\n",
        "",
        "x: !cel lists.range(1000).map(i, lists.range(1000).map(j, j).size())\nfine: 1000\n",
        &["cel/limit"],
    );
    assert_eq!(
        only_message(&run),
        format!("comprehensions would run more than {MAX_ITERATIONS} iterations")
    );
}

/// Each `replace` makes the string 17 times longer.
const TOO_LARGE: &str = "\
list: !cel lists.range(20000)
text: !cel \"'ab'.replace('', 'xxxxxxxxxxxxxxxx').replace('', 'xxxxxxxxxxxxxxxx')\
.replace('', 'xxxxxxxxxxxxxxxx').replace('', 'xxxxxxxxxxxxxxxx').replace('', 'xxxxxxxxxxxxxxxx')\"
";

#[test]
fn computed_values_are_bounded_in_size() {
    let run = check(
        TOO_LARGE,
        "",
        &reemitted(TOO_LARGE),
        &["cel/limit", "cel/limit"],
    );
    let messages: Vec<_> = run.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages[0],
        "a computed collection holds 20000, more than the limit of 10000"
    );
    assert!(
        messages[1].starts_with("a computed string holds"),
        "{}",
        messages[1]
    );
}

#[test]
fn the_cache_is_bounded_and_keeps_what_it_has() {
    let programs = Programs::new(CelOptions {
        cache_capacity: 8,
        ..CelOptions::default()
    });
    let first = programs
        .compile("1 + 1", Span::default())
        .expect("compiles");
    for i in 0..20 {
        programs
            .compile(&format!("{i}"), Span::default())
            .expect("compiles");
    }
    let again = programs
        .compile("1 + 1", Span::default())
        .expect("compiles");
    assert!(
        Arc::ptr_eq(&first, &again),
        "cached before the cache filled"
    );
    let one = programs.compile("19", Span::default()).expect("compiles");
    let two = programs.compile("19", Span::default()).expect("compiles");
    assert!(
        !Arc::ptr_eq(&one, &two),
        "not cached once the cache is full"
    );
    assert_eq!(strata_cel::MAX_CACHED, CelOptions::default().cache_capacity);
}

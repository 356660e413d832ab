//! Strict decoding of `PersistentVolumeClaimSpec` and quantity checks.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use strata_k8s::{check_quantity, decode_pvc_spec, decode_pvc_spec_at, pvc_spec_decoder};
use strata_syntax::{DiagnosticRecord, FieldPath, Format, Limits, Node, SourceDb, parse};

fn load(db: &mut SourceDb, text: &str) -> Node {
    let id = db.add("claim.yaml", text.to_owned());
    let mut parsed = parse(db, id, Format::Yaml, &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.documents.remove(0)
}

/// Decodes `text` under `base`, expecting failure, and compares each
/// diagnostic as `code path line:column message`.
fn check_at(text: &str, base: &str, expect: &[&str]) -> Vec<DiagnosticRecord> {
    let mut db = SourceDb::new();
    let node = load(&mut db, text);
    let base = FieldPath::parse(base).expect("a valid base path");
    let diagnostics = decode_pvc_spec_at(&node, &base).expect_err("the spec should not decode");
    let records: Vec<DiagnosticRecord> = diagnostics.iter().map(|d| d.record(&db)).collect();
    let lines: Vec<String> = records
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
    assert_eq!(lines, expect, "for:\n{text}");
    records
}

fn check(text: &str, expect: &[&str]) -> Vec<DiagnosticRecord> {
    check_at(text, "$", expect)
}

#[test]
fn a_valid_claim_spec_decodes() {
    let mut db = SourceDb::new();
    let node = load(
        &mut db,
        "accessModes: [ReadWriteOnce, ReadWriteOncePod]\n\
         storageClassName: fast\n\
         volumeMode: Filesystem\n\
         resources:\n  requests: {storage: 10Gi, cpu: 500m}\n  limits: {storage: 20}\n\
         selector:\n  matchLabels: {tier: db}\n  matchExpressions:\n    - {key: zone, operator: In, values: [a]}\n",
    );
    let spec = decode_pvc_spec(&node).unwrap();
    assert_eq!(
        spec.access_modes.as_deref(),
        Some(&["ReadWriteOnce".to_owned(), "ReadWriteOncePod".to_owned()][..])
    );
    assert_eq!(spec.storage_class_name.as_deref(), Some("fast"));
    let resources = spec.resources.unwrap();
    assert_eq!(
        resources.requests.unwrap()["storage"],
        Quantity("10Gi".into())
    );
    assert_eq!(resources.limits.unwrap()["storage"], Quantity("20".into()));
    assert_eq!(
        spec.selector.unwrap().match_expressions.unwrap()[0].key,
        "zone"
    );
}

#[test]
fn null_optional_fields_are_absent() {
    let mut db = SourceDb::new();
    let node = load(
        &mut db,
        "storageClassName:\nresources: null\naccessModes: ~\n",
    );
    let spec = decode_pvc_spec(&node).unwrap();
    assert_eq!(spec.storage_class_name, None);
    assert_eq!(spec.resources, None);
}

#[test]
fn a_misspelt_key_is_unknown_with_a_suggestion() {
    let records = check(
        "accesModes: [ReadWriteOnce]\n",
        &["schema/unknown-key accesModes 1:1 unknown key `accesModes`"],
    );
    assert_eq!(
        records[0].help.as_deref(),
        Some("did you mean `accessModes`?")
    );
    assert_eq!((records[0].end_line, records[0].end_column), (1, 11));
    assert!(records[0].notes[0].starts_with("allowed keys: `accessModes`, "));
}

#[test]
fn nested_unknown_keys_are_found() {
    let records = check(
        "resources:\n  request: {storage: 1Gi}\nselector:\n  matchExpressions:\n    - {key: a, operator: In, valuse: [x]}\n",
        &[
            "schema/unknown-key resources.request 2:3 unknown key `request`",
            "schema/unknown-key selector.matchExpressions[0].valuse 5:30 unknown key `valuse`",
        ],
    );
    assert_eq!(records[0].help.as_deref(), Some("did you mean `requests`?"));
    assert_eq!(records[1].help.as_deref(), Some("did you mean `values`?"));
}

#[test]
fn a_bad_access_mode_lists_the_modes() {
    let records = check(
        "accessModes:\n  - ReadWriteOnce\n  - ReadWriteOnse\n",
        &[
            "schema/enum accessModes[1] 3:5 `ReadWriteOnse` is not one of `ReadWriteOnce`, `ReadOnlyMany`, `ReadWriteMany`, `ReadWriteOncePod`",
        ],
    );
    assert_eq!(
        records[0].help.as_deref(),
        Some("did you mean `ReadWriteOnce`?")
    );
    check(
        "volumeMode: Blok\n",
        &["schema/enum volumeMode 1:13 `Blok` is not one of `Filesystem`, `Block`"],
    );
}

#[test]
fn a_bad_storage_quantity_suggests_valid_ones() {
    let records = check(
        "resources:\n  requests:\n    storage: 10GB\n",
        &[
            "k8s/invalid-quantity resources.requests.storage 3:14 `10GB` is not a valid kubernetes quantity",
        ],
    );
    assert_eq!(
        records[0].help.as_deref(),
        Some("did you mean `10Gi` (powers of 1024) or `10G` (powers of 1000)?")
    );
    assert!(records[0].notes[0].starts_with("valid suffixes are `Ki`"));
    let records = check(
        "resources:\n  limits: {storage: lots}\n",
        &[
            "k8s/invalid-quantity resources.limits.storage 2:21 `lots` is not a valid kubernetes quantity",
        ],
    );
    assert!(
        records[0]
            .help
            .as_deref()
            .unwrap()
            .starts_with("valid suffixes are")
    );
}

#[test]
fn quantities_of_the_wrong_kind_are_invalid() {
    check(
        "resources:\n  requests: {storage: {size: 1}, cpu: .inf, memory: true}\n",
        &[
            "k8s/invalid-quantity resources.requests.storage 2:23 expected a kubernetes quantity, found mapping",
            "k8s/invalid-quantity resources.requests.cpu 2:39 `.inf` is not a valid kubernetes quantity",
            "k8s/invalid-quantity resources.requests.memory 2:53 expected a kubernetes quantity, found boolean",
        ],
    );
}

#[test]
fn wrong_types_are_reported() {
    check(
        "accessModes: ReadWriteOnce\nstorageClassName: [fast]\nresources: 10Gi\n",
        &[
            "schema/type accessModes 1:14 expected sequence or null, found string",
            "schema/type storageClassName 2:19 expected string or null, found sequence",
            "schema/type resources 3:12 expected mapping or null, found string",
        ],
    );
    check(
        "selector:\n  matchExpressions: [{key: a}]\n",
        &["schema/required selector.matchExpressions[0] 2:22 missing required key `operator`"],
    );
}

#[test]
fn several_problems_at_once_with_a_base_path() {
    let records = check_at(
        "accesModes: [ReadWriteOnce]\n\
         volumeMode: Block\n\
         resources:\n  requests:\n    storage: 10GB\n    cpu: 1\n  limits: {memory: 1Gi, storage: 5 Gi}\n\
         storageClassName: 3\n\
         dataSource: {kind: PersistentVolumeClaim}\n",
        "storages.home.claimSpec",
        &[
            "schema/unknown-key storages.home.claimSpec.accesModes 1:1 unknown key `accesModes`",
            "k8s/invalid-quantity storages.home.claimSpec.resources.requests.storage 5:14 `10GB` is not a valid kubernetes quantity",
            "k8s/invalid-quantity storages.home.claimSpec.resources.limits.storage 7:34 `5 Gi` is not a valid kubernetes quantity",
            "schema/type storages.home.claimSpec.storageClassName 8:19 expected string or null, found integer",
            "schema/required storages.home.claimSpec.dataSource 9:13 missing required key `name`",
        ],
    );
    assert_eq!(
        records[0].help.as_deref(),
        Some("did you mean `accessModes`?")
    );
    assert_eq!(records[2].help.as_deref(), Some("did you mean `5Gi`?"));
}

#[test]
fn check_quantity_accepts_numbers_and_strings() {
    let mut db = SourceDb::new();
    let node = load(&mut db, "[10, 1.5, 500m, 1Ei, 1e3, '1e3']");
    let quantities: Vec<String> = node
        .as_seq()
        .unwrap()
        .iter()
        .map(|item| check_quantity(item, FieldPath::root()).unwrap().to_string())
        .collect();
    assert_eq!(quantities, ["10", "1.5", "500m", "1Ei", "1000", "1e3"]);
}

#[test]
fn the_schema_states_the_access_modes() {
    let schema = pvc_spec_decoder().schema();
    let modes = &schema["properties"]["accessModes"]["anyOf"][0]["items"]["enum"];
    assert_eq!(modes[0], "ReadWriteOnce");
    assert_eq!(schema["additionalProperties"], false);
}

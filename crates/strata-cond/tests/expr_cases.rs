//! The expr case table (`expr-cases.yaml`): expr-lang's language
//! definition point by point. Every case must give what the table says;
//! the cases that differ from expr on purpose must be listed in the
//! manual's "Coming from Windsor" page.
#![expect(clippy::unwrap_used, reason = "a test stops at the first surprise")]

use std::path::Path;

use strata_cond::{Host, HostError, evaluate, parse};
use strata_syntax::{Format, Limits, Node, SourceDb};

struct NoFiles;

impl Host for NoFiles {
    fn jsonnet(&self, path: &str) -> Result<Node, HostError> {
        Err(HostError::Call(format!("no file {path}")))
    }

    fn file(&self, path: &str) -> Result<String, HostError> {
        Err(HostError::Call(format!("no file {path}")))
    }
}

/// One case of the table: `error` is found in the error's message, help
/// or notes.
struct Case {
    section: String,
    expr: String,
    value: Option<serde_json::Value>,
    error: Option<String>,
    code: Option<String>,
    differs: Option<String>,
}

fn table() -> (Node, Vec<Case>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expr-cases.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut db = SourceDb::new();
    let id = db.add(path.display().to_string(), text);
    let parsed = strata_syntax::parse(&db, id, Format::Yaml, &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let document = parsed.documents.into_iter().next().unwrap();
    let env = document.get("env").unwrap().clone();
    let mut cases = Vec::new();
    for section in document.get("sections").unwrap().as_seq().unwrap() {
        let name = section.get("section").unwrap().as_str().unwrap();
        for case in section.get("cases").unwrap().as_seq().unwrap() {
            let text = |key: &str| case.get(key).map(|v| v.as_str().unwrap().to_owned());
            cases.push(Case {
                section: name.to_owned(),
                expr: text("expr").unwrap(),
                value: case.get("value").map(Node::to_json_value),
                error: text("error"),
                code: text("code"),
                differs: text("differs"),
            });
        }
    }
    (env, cases)
}

/// What the case gives, or why it is not what the table says.
fn check(case: &Case, env: &Node) -> Result<(), String> {
    let result = parse(&case.expr).and_then(|expr| evaluate(&expr, env, &NoFiles));
    match (&case.value, &case.error, result) {
        (Some(expected), None, Ok(value)) => {
            let got = value.to_json_value();
            if &got == expected {
                Ok(())
            } else {
                Err(format!("gives {got}, the table says {expected}"))
            }
        }
        (None, Some(expected), Err(error)) => {
            let said = format!(
                "{} {} {}",
                error.message,
                error.help.as_deref().unwrap_or_default(),
                error.notes.join(" ")
            );
            if !said.contains(expected.as_str()) {
                return Err(format!(
                    "fails with {:?}, the table says {expected:?}",
                    error.message
                ));
            }
            match &case.code {
                Some(code) if error.code.as_str() != code => Err(format!(
                    "fails as {}, the table says {code}",
                    error.code.as_str()
                )),
                _ => Ok(()),
            }
        }
        (Some(_), None, Err(error)) => Err(format!("fails: {}", error.message)),
        (None, Some(_), Ok(value)) => Err(format!("gives {}", value.to_json_value())),
        _ => Err("the case needs exactly one of `value` and `error`".to_owned()),
    }
}

#[test]
fn the_expr_case_table_passes() {
    let (env, cases) = table();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            check(case, &env)
                .err()
                .map(|why| format!("[{}] `{}` {why}", case.section, case.expr))
        })
        .collect();
    let differing = cases.iter().filter(|case| case.differs.is_some()).count();
    println!(
        "expr case table: {} cases in {} sections, {} pass, {differing} differ from expr on purpose",
        cases.len(),
        {
            let mut sections: Vec<&str> = cases.iter().map(|case| case.section.as_str()).collect();
            sections.dedup();
            sections.len()
        },
        cases.len() - failures.len(),
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases.len() >= 300, "the table covers the language");
}

#[test]
fn every_deliberate_difference_is_in_the_manual() {
    let (_, cases) = table();
    let manual = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/src/features/coming-from-windsor.md");
    let manual = std::fs::read_to_string(manual).unwrap();
    let missing: Vec<&str> = cases
        .iter()
        .filter(|case| case.differs.is_some())
        .map(|case| case.expr.as_str())
        .filter(|expr| !manual.contains(&format!("`{expr}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "not listed in the manual's differences from expr: {missing:?}"
    );
}

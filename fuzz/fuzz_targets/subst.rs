//! Fuzzes the spec dialect's `${..}` substitution language: arbitrary bytes
//! that are UTF-8 are a field text, parsed; a text that parses prints to a
//! text that parses to the same printing, and is checked and evaluated
//! against an environment that answers every reference with a small fixed
//! value; a text that does not parse gives problems whose ranges lie
//! inside it, on character boundaries. Whatever the text: no panic, no
//! abort (a stack overflow is an abort), no hang past libFuzzer's timeout.
//!
//! Known limit: evaluation has no budget, so nested calls that multiply
//! sizes (`replace(replace(s, "", s), "", s)`) may exceed libFuzzer's
//! memory limit on long inputs.
//!
//! Run from this directory with `cargo fuzz run subst` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use std::ops::Range;

use libfuzzer_sys::fuzz_target;
use strata_subst::{
    Env, Lookup, Name, Reference, Scope, Steps, SubstError, Types, Value, check_template,
    evaluate, parse_template,
};

/// Every reference is known: a string, an array, a mapping with an
/// unknown part, an integer; each input evaluates within its own steps.
struct Fixed(Steps);

impl Env for Fixed {
    fn reference(&self, reference: &Reference) -> Lookup {
        let json = match reference {
            Reference::Variable { .. } => serde_json::json!("v"),
            Reference::Datasource { .. } => serde_json::json!(["a", "b"]),
            Reference::ElemIndex => serde_json::json!(0),
            Reference::Value { .. } | Reference::Child { .. } | Reference::Elem { .. } => {
                serde_json::json!({"a": [1, 2.5, "x", null, {"b": true}], "s": "{\"k\": [1]}"})
            }
            Reference::Resource { .. } => {
                let mut resource = Value::from_json(&serde_json::json!({"spec": {"n": 1}}));
                if let Value::Object(fields) = &mut resource {
                    fields.insert("state".to_owned(), Value::Unknown("state".into()));
                }
                return Lookup::Known(resource);
            }
        };
        Lookup::Known(Value::from_json(&json))
    }

    fn steps(&self) -> &Steps {
        &self.0
    }

    fn cwd(&self) -> Result<String, String> {
        Ok("/work".to_owned())
    }

    fn now_unix(&self) -> i64 {
        1_700_000_000
    }
}

/// Every reference may be anything; every resource exists.
struct Open;

impl Scope for Open {
    fn reference(&self, _: &Reference, _: Range<usize>) -> Result<Types, SubstError> {
        Ok(Types::ANY)
    }

    fn resource(&self, _: &Name) -> Result<(), SubstError> {
        Ok(())
    }
}

fn inside(text: &str, error: &SubstError) {
    let Range { start, end } = error.range.clone();
    assert!(start <= end && end <= text.len(), "{error:?}");
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "{error:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_template(text) {
        Ok(template) => {
            let printed = template.to_string();
            let again = parse_template(&printed).expect("printed text parses");
            assert_eq!(again.to_string(), printed);
            let (_, errors) = check_template(&template, &Open);
            for error in &errors {
                inside(text, error);
            }
            if let Err(strata_subst::Failure::Error(error)) = evaluate(&template, &Fixed(Steps::new(1_000_000))) {
                inside(text, &error);
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            for error in &errors {
                inside(text, error);
            }
        }
    }
});

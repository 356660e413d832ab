//! Properties of the parser and printer that hold for any input:
//!
//! - printing a tree and parsing the text gives the tree back (ranges
//!   aside), for trees of every kind of node;
//! - printing is a fixed point: parsing printed text and printing again
//!   gives the same text;
//! - parsing any text never panics, and every problem lies inside the text,
//!   on character boundaries;
//! - checking and evaluating any tree never panics.

use std::ops::Range;

use proptest::prelude::*;
use strata_subst::functions;
use strata_subst::{
    Accessor, Argument, Call, Env, Expr, ExprKind, Literal, Lookup, Name, Part, Reference, Scope,
    SubstError, Substitution, Template, Types, Value, check_template, evaluate, parse_template,
};

/// Evaluation without a step limit: these tests bound values, not work.
static UNLIMITED: strata_subst::Steps = strata_subst::Steps::new(u64::MAX);

// ---------------------------------------------------------------------------
// Ranges aside

fn strip_name(name: &mut Name) {
    name.range = 0..0;
}

fn strip_path(path: &mut [Accessor]) {
    for accessor in path {
        match accessor {
            Accessor::Field(name) => strip_name(name),
            Accessor::Index { range, .. } => *range = 0..0,
        }
    }
}

fn strip_expr(expr: &mut Expr) {
    expr.range = 0..0;
    match &mut expr.kind {
        ExprKind::Literal(_) => {}
        ExprKind::Bare(name) => strip_name(name),
        ExprKind::Reference(reference) => match reference {
            Reference::Variable { name } => strip_name(name),
            Reference::Value { name, path }
            | Reference::Child { name, path }
            | Reference::Resource { name, path, .. } => {
                strip_name(name);
                strip_path(path);
            }
            Reference::Datasource { name, field, index } => {
                strip_name(name);
                strip_name(field);
                if let Some(index) = index {
                    strip_path(std::slice::from_mut(index));
                }
            }
            Reference::Elem { path } => strip_path(path),
            Reference::ElemIndex => {}
        },
        ExprKind::Call(call) => {
            strip_name(&mut call.function);
            for argument in &mut call.args {
                if let Some(name) = &mut argument.name {
                    strip_name(name);
                }
                strip_expr(&mut argument.value);
            }
            strip_path(&mut call.path);
        }
    }
}

/// The template with every range `0..0`.
fn stripped(mut template: Template) -> Template {
    for part in &mut template.parts {
        match part {
            Part::Text { range, .. } => *range = 0..0,
            Part::Substitution(substitution) => {
                substitution.range = 0..0;
                strip_expr(&mut substitution.expr);
            }
        }
    }
    template
}

// ---------------------------------------------------------------------------
// Generators

const KEYWORDS: [&str; 9] = [
    "variables",
    "values",
    "datasources",
    "children",
    "resources",
    "elem",
    "i",
    "true",
    "false",
];

fn name(text: String) -> Name {
    Name { text, range: 0..0 }
}

/// A name that can be written as `.name`.
fn plain_name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_-]{0,6}"
}

/// A name that is not a keyword: a resource's bare name, a function.
fn free_name() -> impl Strategy<Value = String> {
    plain_name().prop_filter("a keyword", |text| !KEYWORDS.contains(&text.as_str()))
}

/// A name as a reference or accessor takes it: plain or quoted.
fn any_name() -> impl Strategy<Value = String> {
    prop_oneof![plain_name(), "[a-zA-Z0-9_.-]{1,8}"]
}

fn index() -> impl Strategy<Value = Accessor> {
    prop_oneof![
        Just(None),
        (0..20usize).prop_map(Some),
        (0..=i64::MAX).prop_map(|index| usize::try_from(index).ok()),
    ]
    .prop_map(|index| Accessor::Index { index, range: 0..0 })
}

fn accessor() -> impl Strategy<Value = Accessor> {
    prop_oneof![
        any_name().prop_map(|text| Accessor::Field(name(text))),
        index()
    ]
}

fn path(size: Range<usize>) -> impl Strategy<Value = Vec<Accessor>> {
    prop::collection::vec(accessor(), size)
}

/// A string literal's text: anything but a final backslash, which the
/// grammar cannot write (`"a\"` is an open string).
fn string_text() -> impl Strategy<Value = String> {
    "[a-z \"\\\\{}$.,()é\n]{0,8}".prop_map(|mut text| {
        if text.ends_with('\\') {
            text.push('x');
        }
        text
    })
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        any::<bool>().prop_map(Literal::Bool),
        any::<i64>().prop_map(Literal::Int),
        (-1000i64..1000).prop_map(Literal::Int),
        any::<f64>()
            .prop_filter("a finite float", |value| value.is_finite())
            .prop_map(Literal::Float),
        (-100i32..100).prop_map(|value| Literal::Float(f64::from(value) / 4.0)),
        string_text().prop_map(Literal::String),
    ]
}

fn reference() -> impl Strategy<Value = Reference> {
    prop_oneof![
        any_name().prop_map(|text| Reference::Variable { name: name(text) }),
        (any_name(), path(0..3)).prop_map(|(text, path)| Reference::Value {
            name: name(text),
            path
        }),
        (any_name(), any_name(), prop::option::of(index())).prop_map(|(text, field, index)| {
            Reference::Datasource {
                name: name(text),
                field: name(field),
                index,
            }
        }),
        (any_name(), path(1..3)).prop_map(|(text, path)| Reference::Child {
            name: name(text),
            path
        }),
        (any_name(), path(0..3)).prop_map(|(text, path)| Reference::Resource {
            name: name(text),
            prefixed: true,
            path
        }),
        (free_name(), path(1..3)).prop_map(|(text, path)| Reference::Resource {
            name: name(text),
            prefixed: false,
            path
        }),
        path(0..3).prop_map(|path| Reference::Elem { path }),
        Just(Reference::ElemIndex),
    ]
}

fn expr_of(kind: ExprKind) -> Expr {
    Expr { kind, range: 0..0 }
}

/// A function's name: mostly a core function, so that evaluation goes
/// deep, sometimes any other.
fn function_name() -> impl Strategy<Value = String> {
    let names: Vec<String> = functions::all()
        .iter()
        .map(|def| def.name.to_owned())
        .collect();
    prop_oneof![3 => prop::sample::select(names), 1 => free_name()]
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        literal().prop_map(|literal| expr_of(ExprKind::Literal(literal))),
        reference().prop_map(|reference| expr_of(ExprKind::Reference(reference))),
        free_name().prop_map(|text| expr_of(ExprKind::Bare(name(text)))),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let argument =
            (prop::option::of(plain_name()), inner).prop_map(|(named, value)| Argument {
                name: named.map(name),
                value,
            });
        (
            function_name(),
            prop::collection::vec(argument, 0..4),
            path(0..2),
        )
            .prop_map(|(function, args, path)| {
                expr_of(ExprKind::Call(Call {
                    function: name(function),
                    args,
                    path,
                }))
            })
    })
}

/// Literal text as a template holds it: never empty, never two runs side
/// by side, never `${` (which always opens a substitution).
fn template() -> impl Strategy<Value = Template> {
    let part = prop_oneof![
        "[a-z $${}\"\\\\é\n]{1,6}".prop_map(|text| Part::Text { text, range: 0..0 }),
        expr().prop_map(|expr| Part::Substitution(Substitution { expr, range: 0..0 })),
    ];
    prop::collection::vec(part, 0..4).prop_map(|parts| {
        let mut merged: Vec<Part> = Vec::new();
        for part in parts {
            match (merged.last_mut(), part) {
                (Some(Part::Text { text, .. }), Part::Text { text: more, .. }) => {
                    text.push_str(&more);
                }
                (Some(Part::Text { text, .. }), substitution) => {
                    if text.ends_with('$') {
                        text.push('x');
                    }
                    merged.push(substitution);
                }
                (_, part) => merged.push(part),
            }
        }
        for part in &mut merged {
            if let Part::Text { text, .. } = part {
                *text = text.replace("${", "$ {");
            }
        }
        Template { parts: merged }
    })
}

// ---------------------------------------------------------------------------
// Environments that answer everything

struct Anything;

impl Env for Anything {
    fn reference(&self, reference: &Reference) -> Lookup {
        match reference {
            Reference::Variable { .. } => Lookup::Known(Value::String("v".into())),
            Reference::Value { .. } => Lookup::Known(Value::from_json(&serde_json::json!({
                "a": [1, "two", {"b": null}], "b": {"c": 1.5}
            }))),
            Reference::Datasource { .. } => Lookup::Known(Value::Array(vec![
                Value::String("x".into()),
                Value::String("y".into()),
            ])),
            Reference::Child { .. } => Lookup::Pending,
            Reference::Resource { .. } => {
                let mut fields = indexmap::IndexMap::new();
                fields.insert("spec".to_owned(), Value::Int(1));
                fields.insert("state".to_owned(), Value::Unknown("state".into()));
                Lookup::Known(Value::Object(fields))
            }
            Reference::Elem { .. } => Lookup::Known(Value::Bool(true)),
            Reference::ElemIndex => Lookup::Known(Value::Int(0)),
        }
    }

    fn steps(&self) -> &strata_subst::Steps {
        &UNLIMITED
    }

    fn cwd(&self) -> Result<String, String> {
        Ok("/".into())
    }

    fn now_unix(&self) -> i64 {
        0
    }
}

struct Everything;

impl Scope for Everything {
    fn reference(&self, reference: &Reference, _: Range<usize>) -> Result<Types, SubstError> {
        Ok(match reference {
            Reference::Variable { .. } => Types::STRING,
            Reference::ElemIndex => Types::INTEGER,
            _ => Types::ANY,
        })
    }

    fn resource(&self, _: &Name) -> Result<(), SubstError> {
        Ok(())
    }
}

/// The problems' ranges lie in `text`, on character boundaries.
fn ranges_inside(text: &str, errors: &[SubstError]) -> Result<(), TestCaseError> {
    for error in errors {
        let Range { start, end } = error.range.clone();
        prop_assert!(start <= end && end <= text.len(), "{error:?} in {text:?}");
        prop_assert!(
            text.is_char_boundary(start) && text.is_char_boundary(end),
            "{error:?} in {text:?}"
        );
    }
    Ok(())
}

/// Texts close to the grammar, so that many parse.
fn near_grammar() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("${".to_owned()),
        Just("$${".to_owned()),
        Just("}".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just(", ".to_owned()),
        Just(".".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("[]".to_owned()),
        Just(" = ".to_owned()),
        Just("\"".to_owned()),
        Just("\\\"".to_owned()),
        Just("-".to_owned()),
        Just(" ".to_owned()),
        Just("\n".to_owned()),
        Just("é".to_owned()),
        Just("variables".to_owned()),
        Just("values".to_owned()),
        Just("datasources".to_owned()),
        Just("children".to_owned()),
        Just("resources".to_owned()),
        Just("elem".to_owned()),
        Just("i".to_owned()),
        Just("true".to_owned()),
        "[0-9]{1,3}",
        "[0-9]{1,2}\\.[0-9]{1,2}",
        "[a-z]{1,4}",
        prop::sample::select(
            functions::all()
                .iter()
                .map(|def| def.name.to_owned())
                .collect::<Vec<_>>()
        ),
    ];
    prop::collection::vec(token, 0..24).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Printing a tree and parsing the text gives the tree, ranges aside.
    #[test]
    fn printed_trees_parse_back(template in template()) {
        let printed = template.to_string();
        let parsed = parse_template(&printed)
            .map_err(|errors| TestCaseError::fail(format!("{printed:?}: {errors:?}")))?;
        prop_assert_eq!(parsed.to_string(), printed.clone());
        prop_assert_eq!(stripped(parsed), template, "{:?}", printed);
    }

    /// Parsed ranges point at what they hold: each substitution's range is
    /// `${..}` with its expression's text inside, which prints the same.
    #[test]
    fn parsed_ranges_hold_their_nodes(template in template()) {
        let printed = template.to_string();
        let parsed = parse_template(&printed)
            .map_err(|errors| TestCaseError::fail(format!("{printed:?}: {errors:?}")))?;
        for part in &parsed.parts {
            match part {
                Part::Text { range, .. } => prop_assert!(range.start < range.end),
                Part::Substitution(substitution) => {
                    let written = &printed[substitution.range.clone()];
                    let braced = written.starts_with("${") && written.ends_with('}');
                    prop_assert!(braced, "{:?} in {:?}", written, printed);
                    let expr = &printed[substitution.expr.range.clone()];
                    prop_assert_eq!(expr, substitution.expr.to_string());
                }
            }
        }
    }

    /// Printing is a fixed point on whatever parses.
    #[test]
    fn printing_is_a_fixed_point(text in near_grammar()) {
        if let Ok(template) = parse_template(&text) {
            let printed = template.to_string();
            let again = parse_template(&printed)
                .map_err(|errors| TestCaseError::fail(format!("{printed:?}: {errors:?}")))?;
            prop_assert_eq!(again.to_string(), printed);
            prop_assert_eq!(stripped(again), stripped(template));
        }
    }

    /// Any text: no panic, every problem inside the text.
    #[test]
    fn parsing_any_text_is_safe(text in any::<String>()) {
        if let Err(errors) = parse_template(&text) {
            prop_assert!(!errors.is_empty());
            ranges_inside(&text, &errors)?;
        }
        let wrapped = format!("${{{text}}}");
        if let Err(errors) = parse_template(&wrapped) {
            ranges_inside(&wrapped, &errors)?;
        }
    }

    /// Texts near the grammar: no panic, every problem inside the text,
    /// whether parsing, checking or evaluating finds it.
    #[test]
    fn texts_near_the_grammar_are_safe(text in near_grammar()) {
        match parse_template(&text) {
            Ok(template) => {
                let (_, errors) = check_template(&template, &Everything);
                ranges_inside(&text, &errors)?;
                if let Err(strata_subst::Failure::Error(error)) = evaluate(&template, &Anything) {
                    ranges_inside(&text, &[error])?;
                }
            }
            Err(errors) => {
                prop_assert!(!errors.is_empty());
                ranges_inside(&text, &errors)?;
            }
        }
    }

    /// Checking and evaluating any tree never panics, and every problem
    /// found in a parsed text lies inside it.
    #[test]
    fn checking_and_evaluating_are_safe(template in template()) {
        let printed = template.to_string();
        let parsed = parse_template(&printed)
            .map_err(|errors| TestCaseError::fail(format!("{printed:?}: {errors:?}")))?;
        let (_, errors) = check_template(&parsed, &Everything);
        ranges_inside(&printed, &errors)?;
        if let Err(strata_subst::Failure::Error(error)) = evaluate(&parsed, &Anything) {
            ranges_inside(&printed, &[error])?;
        }
    }
}

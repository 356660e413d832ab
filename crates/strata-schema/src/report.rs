//! From JSON Schema validation errors to diagnostics on the tree.
//!
//! Each error names the instance it is about by JSON pointer; the pointer is
//! walked down the [`Node`] tree (which the validated JSON was made from) to
//! find the field path and the span. Errors of `anyOf`/`oneOf` are resolved
//! to the branch the value most likely meant (see [`choose`]) before they
//! become diagnostics, and a wrong type hides the other complaints about the
//! same value, so that every problem is reported once.

use std::cmp::Reverse;
use std::collections::HashSet;

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::Value as Json;
use strata_syntax::{Diagnostic, FieldPath, Node, Segment, Span, Value, lowercase_first};

use crate::codes;

/// Up to how many allowed keys an unknown-key diagnostic lists in a note.
const MAX_LISTED_KEYS: usize = 12;

/// Longer values are not quoted in messages.
const MAX_QUOTED_CHARS: usize = 40;

/// How many `$ref`s and branches are followed to list an object's keys.
const MAX_KEY_SEARCH_DEPTH: usize = 16;

/// Keywords whose branches describe the same instance as their parent.
const APPLICATORS: [&str; 3] = ["allOf", "anyOf", "oneOf"];

/// One problem, before it becomes a diagnostic.
enum Issue<'e> {
    /// A validation error as reported.
    Error(&'e ValidationError<'e>),
    /// The value has none of the types the branches of an `anyOf`/`oneOf` accept.
    Types { at: &'e str, expected: Vec<String> },
    /// Every branch that accepts the value's type wants another tag value here.
    Choices { at: &'e str, options: Vec<Json> },
}

impl Issue<'_> {
    /// The JSON pointer of the instance concerned.
    fn at(&self) -> &str {
        match self {
            Issue::Error(error) => error.instance_path().as_str(),
            Issue::Types { at, .. } | Issue::Choices { at, .. } => at,
        }
    }

    /// Whether the issue says the value has the wrong type.
    fn is_type(&self) -> bool {
        match self {
            Issue::Error(error) => matches!(error.kind(), Kind::Type { .. }),
            Issue::Types { .. } => true,
            Issue::Choices { .. } => false,
        }
    }

    /// Whether the issue is about unknown keys of the object at its pointer.
    fn is_unknown_keys(&self) -> bool {
        matches!(
            self,
            Issue::Error(error) if matches!(
                error.kind(),
                Kind::AdditionalProperties { .. } | Kind::UnevaluatedProperties { .. }
            )
        )
    }
}

/// Turns the errors of validating `root` against `schema` into diagnostics.
pub(crate) fn diagnose(
    schema: &Json,
    root: &Node,
    errors: &[ValidationError<'_>],
) -> Vec<Diagnostic> {
    let mut issues = Vec::new();
    for error in errors {
        expand(schema, error, &mut issues);
    }
    // A value of the wrong type fails its `enum`, its lengths, ...: say it once.
    let mistyped: HashSet<String> = issues
        .iter()
        .filter(|issue| issue.is_type())
        .map(|issue| issue.at().to_owned())
        .collect();
    issues.retain(|issue| issue.is_type() || !mistyped.contains(issue.at()));
    let reporter = Reporter {
        schema,
        root,
        issues: &issues,
    };
    let mut diagnostics = Vec::new();
    for issue in &issues {
        reporter.report(issue, &mut diagnostics);
    }
    diagnostics
}

/// Sorts diagnostics into document order (an enclosing span before the
/// spans inside it) and drops repeats.
pub(crate) fn finish(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.sort_by_key(|diagnostic| {
        let span = diagnostic.primary.span;
        (span.source, span.start, Reverse(span.end))
    });
    let mut seen = HashSet::new();
    diagnostics.retain(|diagnostic| {
        seen.insert((
            diagnostic.code,
            diagnostic.primary.span,
            diagnostic.message.clone(),
        ))
    });
    diagnostics
}

/// Adds the issues of `error`, resolving `anyOf`/`oneOf` to one branch.
fn expand<'e>(schema: &Json, error: &'e ValidationError<'e>, out: &mut Vec<Issue<'e>>) {
    match error.kind() {
        Kind::AnyOf { context } | Kind::OneOfNotValid { context } if !context.is_empty() => {
            choose(schema, error.instance_path().as_str(), context, out);
        }
        _ => out.push(Issue::Error(error)),
    }
}

/// Reports a value that matches none of the branches of an `anyOf`/`oneOf`
/// at `at` by what the value most likely meant:
///
/// 1. branches that reject the value's type are out; when all are, the
///    value's type is the problem (`expected string or mapping, found
///    integer`);
/// 2. when every branch left is a constant the value is not (a unit enum
///    whose variants have docs), the value is not one of them;
/// 3. branches whose tag (a `const` on a key of the object, as serde's
///    tagged enums have) differs are out; when all left are, and on the same
///    key, the tag is the problem (`` `C` is not one of `A`, `B` ``);
/// 4. of the branches left, the one with the fewest complaints about the
///    value itself (rather than about what is inside it), then the fewest
///    complaints overall, then the first, is reported as if it were the only
///    one.
fn choose<'e>(
    schema: &Json,
    at: &'e str,
    branches: &'e [Vec<ValidationError<'static>>],
    out: &mut Vec<Issue<'e>>,
) {
    let typed: Vec<&'e [ValidationError<'e>]> = branches
        .iter()
        .map(Vec::as_slice)
        .filter(|branch| !rejects_type(branch, at))
        .collect();
    if typed.is_empty() {
        let mut expected = Vec::new();
        for branch in branches {
            accepted_types(schema, branch, at, &mut expected);
        }
        out.push(Issue::Types { at, expected });
        return;
    }
    // Every branch a constant the value is not (a unit enum whose variants
    // carry docs): the value is not one of them.
    let constants: Vec<&'e ValidationError<'e>> = typed
        .iter()
        .filter_map(|branch| {
            branch.iter().find(|error| {
                error.instance_path().as_str() == at
                    && matches!(error.kind(), Kind::Constant { .. })
            })
        })
        .collect();
    if constants.len() == typed.len() {
        let mut options = Vec::new();
        for error in constants {
            if let Kind::Constant { expected_value } = error.kind()
                && !options.contains(&**expected_value)
            {
                options.push((**expected_value).clone());
            }
        }
        out.push(Issue::Choices { at, options });
        return;
    }
    let matching: Vec<&'e [ValidationError<'e>]> = typed
        .iter()
        .copied()
        .filter(|branch| tag_mismatch(branch, at).is_none())
        .collect();
    if matching.is_empty() {
        let tags: Vec<&'e ValidationError<'e>> = typed
            .iter()
            .filter_map(|branch| tag_mismatch(branch, at))
            .collect();
        let tag_at = tags.first().map(|error| error.instance_path().as_str());
        if let Some(tag_at) = tag_at
            && tags
                .iter()
                .all(|error| error.instance_path().as_str() == tag_at)
        {
            let mut options = Vec::new();
            for error in tags {
                if let Kind::Constant { expected_value } = error.kind()
                    && !options.contains(&**expected_value)
                {
                    options.push((**expected_value).clone());
                }
            }
            out.push(Issue::Choices {
                at: tag_at,
                options,
            });
            return;
        }
    }
    let candidates = if matching.is_empty() { typed } else { matching };
    let best = candidates.into_iter().min_by_key(|branch| {
        let about_value = branch
            .iter()
            .filter(|error| {
                error.instance_path().as_str() == at
                    && !matches!(error.kind(), Kind::UnevaluatedProperties { .. })
            })
            .count();
        (about_value, branch.len())
    });
    for error in best.into_iter().flatten() {
        expand(schema, error, out);
    }
}

/// The error of `branch` saying a key of the object at `at` has the wrong
/// tag (a `const`), when there is one.
fn tag_mismatch<'e>(
    branch: &'e [ValidationError<'e>],
    at: &str,
) -> Option<&'e ValidationError<'e>> {
    branch.iter().find(|error| {
        matches!(error.kind(), Kind::Constant { .. })
            && parent_pointer(error.instance_path().as_str()) == Some(at)
    })
}

/// Whether `branch` rejects the type of the value at `at`, itself or
/// through every branch of an `anyOf`/`oneOf` of its own.
fn rejects_type(branch: &[ValidationError<'_>], at: &str) -> bool {
    branch.iter().any(|error| {
        error.instance_path().as_str() == at
            && match error.kind() {
                Kind::Type { .. } => true,
                Kind::AnyOf { context } | Kind::OneOfNotValid { context } => {
                    !context.is_empty() && context.iter().all(|inner| rejects_type(inner, at))
                }
                _ => false,
            }
    })
}

/// Adds the types that `branch`, which rejects the type of the value at
/// `at`, would accept.
fn accepted_types(schema: &Json, branch: &[ValidationError<'_>], at: &str, out: &mut Vec<String>) {
    for error in branch {
        if error.instance_path().as_str() != at {
            continue;
        }
        match error.kind() {
            Kind::Type { .. } => {
                for name in expected_types(schema, error) {
                    if !out.contains(&name) {
                        out.push(name);
                    }
                }
            }
            Kind::AnyOf { context } | Kind::OneOfNotValid { context } => {
                for inner in context {
                    accepted_types(schema, inner, at, out);
                }
            }
            _ => {}
        }
    }
}

/// The pointer of the parent of the instance at `pointer`.
fn parent_pointer(pointer: &str) -> Option<&str> {
    pointer.rsplit_once('/').map(|(parent, _)| parent)
}

/// The types the failed `type` keyword of `error` accepts, in the tree's words.
fn expected_types(schema: &Json, error: &ValidationError<'_>) -> Vec<String> {
    let names = match schema.pointer(error.schema_path().as_str()) {
        Some(Json::String(name)) => vec![name.as_str()],
        Some(Json::Array(names)) => names.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    };
    names
        .into_iter()
        .map(|name| {
            match name {
                "object" => "mapping",
                "array" => "sequence",
                other => other,
            }
            .to_owned()
        })
        .collect()
}

/// What turns issues into diagnostics.
struct Reporter<'a> {
    schema: &'a Json,
    root: &'a Node,
    issues: &'a [Issue<'a>],
}

impl Reporter<'_> {
    fn report(&self, issue: &Issue<'_>, out: &mut Vec<Diagnostic>) {
        let (path, node) = locate(self.root, issue.at());
        match issue {
            Issue::Types { expected, .. } => out.push(type_mismatch(expected, node, path)),
            Issue::Choices { options, .. } => out.push(not_one_of(options, node, path)),
            Issue::Error(error) => self.report_error(error, node, path, out),
        }
    }

    fn report_error(
        &self,
        error: &ValidationError<'_>,
        node: &Node,
        path: FieldPath,
        out: &mut Vec<Diagnostic>,
    ) {
        let diagnostic = match error.kind() {
            Kind::Type { .. } => type_mismatch(&expected_types(self.schema, error), node, path),
            Kind::Enum { options } => {
                let options = options.as_array().map_or(&[][..], Vec::as_slice);
                not_one_of(options, node, path)
            }
            Kind::Constant { expected_value } => {
                not_one_of(std::slice::from_ref(&**expected_value), node, path)
            }
            Kind::Required { property } => {
                let key = property.as_str().unwrap_or_default();
                Diagnostic::error(
                    codes::REQUIRED,
                    format!("missing required key `{key}`"),
                    node.span,
                )
                .with_path(path)
            }
            Kind::AdditionalProperties { unexpected }
            | Kind::UnevaluatedProperties { unexpected } => {
                self.unknown_keys(error, unexpected, node, &path, out);
                return;
            }
            Kind::PropertyNames { error: inner } => {
                let key = inner.instance().as_str().unwrap_or_default();
                let (span, path) = match node.as_map().and_then(|map| map.get(key)) {
                    Some(entry) => (entry.key_span, path.key(key)),
                    None => (node.span, path),
                };
                constraint(inner, node, span).with_path(path)
            }
            Kind::AnyOf { .. } | Kind::OneOfNotValid { .. } => Diagnostic::error(
                codes::CONSTRAINT,
                "the value matches none of the allowed forms",
                node.span,
            )
            .with_path(path),
            Kind::OneOfMultipleValid { .. } => Diagnostic::error(
                codes::CONSTRAINT,
                "the value matches more than one of the allowed forms",
                node.span,
            )
            .with_path(path),
            _ => constraint(error, node, node.span).with_path(path),
        };
        out.push(diagnostic);
    }

    /// One `schema/unknown-key` per key the object schema does not allow.
    fn unknown_keys(
        &self,
        error: &ValidationError<'_>,
        unexpected: &[String],
        node: &Node,
        path: &FieldPath,
        out: &mut Vec<Diagnostic>,
    ) {
        let at = error.instance_path().as_str();
        let object_schema = parent_pointer(error.schema_path().as_str())
            .and_then(|pointer| self.schema.pointer(pointer));
        let mut known = Vec::new();
        if let Some(object_schema) = object_schema {
            property_names(self.schema, object_schema, 0, &mut known);
        }
        // `unevaluatedProperties` also lists keys of branches that failed
        // for another reason; those are reported there, not as unknown.
        let settled = !matches!(error.kind(), Kind::UnevaluatedProperties { .. })
            || !self.issues.iter().any(|issue| {
                let other = issue.at();
                let below = other
                    .strip_prefix(at)
                    .is_some_and(|rest| rest.starts_with('/'));
                below || (other == at && !issue.is_unknown_keys())
            });
        let map = node.as_map();
        for key in unexpected {
            if !settled && known.contains(key) {
                continue;
            }
            let span = map
                .and_then(|map| map.get(key))
                .map_or(node.span, |entry| entry.key_span);
            let candidates = known
                .iter()
                .map(String::as_str)
                .filter(|name| map.is_none_or(|map| !map.contains_key(*name)));
            let mut diagnostic =
                Diagnostic::error(codes::UNKNOWN_KEY, format!("unknown key `{key}`"), span)
                    .with_path(path.key(key))
                    .with_suggestion(key, candidates);
            if known.is_empty() {
                diagnostic = diagnostic.with_note("no keys are allowed here");
            } else if known.len() <= MAX_LISTED_KEYS {
                diagnostic = diagnostic.with_note(format!("allowed keys: {}", quoted_list(&known)));
            }
            out.push(diagnostic);
        }
    }
}

/// Adds the property names `schema` declares, also through its branches and `$ref`s.
fn property_names(root: &Json, schema: &Json, depth: usize, out: &mut Vec<String>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    if depth > MAX_KEY_SEARCH_DEPTH {
        return;
    }
    if let Some(properties) = object.get("properties").and_then(Json::as_object) {
        for name in properties.keys() {
            if !out.contains(name) {
                out.push(name.clone());
            }
        }
    }
    for keyword in APPLICATORS {
        for branch in object
            .get(keyword)
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            property_names(root, branch, depth + 1, out);
        }
    }
    let target = object
        .get("$ref")
        .and_then(Json::as_str)
        .and_then(|reference| reference.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer));
    if let Some(target) = target {
        property_names(root, target, depth + 1, out);
    }
}

/// The path and node that `pointer` names below `root` (as far as it goes).
pub(crate) fn locate<'n>(root: &'n Node, pointer: &str) -> (FieldPath, &'n Node) {
    let mut path = FieldPath::root();
    let mut node = root;
    for raw in pointer.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        let next = match &node.value {
            Value::Seq(items) => token
                .parse::<usize>()
                .ok()
                .and_then(|index| Some((Segment::Index(index), items.get(index)?))),
            Value::Map(map) => map
                .get(&token)
                .map(|entry| (Segment::Key(token.clone()), &entry.value)),
            _ => None,
        };
        let Some((segment, child)) = next else {
            break;
        };
        path.push(segment);
        node = child;
    }
    (path, node)
}

/// `expected string or null, found mapping`.
fn type_mismatch(expected: &[String], node: &Node, path: FieldPath) -> Diagnostic {
    let found = node.value.kind_name();
    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {}, found {found}", or_list(expected))
    };
    Diagnostic::error(codes::TYPE, message, node.span).with_path(path)
}

/// `` `Sometimes` is not one of `Always`, `Never` ``, with a did-you-mean.
fn not_one_of(options: &[Json], node: &Node, path: FieldPath) -> Diagnostic {
    let found = quote_value(&node.to_json_value());
    let message = if let [only] = options {
        format!("expected `{}`, found `{found}`", quote_value(only))
    } else {
        let names: Vec<String> = options.iter().map(quote_value).collect();
        format!("`{found}` is not one of {}", quoted_list(&names))
    };
    let diagnostic = Diagnostic::error(codes::ENUM, message, node.span).with_path(path);
    match node.as_str() {
        Some(text) => diagnostic.with_suggestion(text, options.iter().filter_map(Json::as_str)),
        None => diagnostic,
    }
}

/// Any other failed keyword, in the validator's words.
fn constraint(error: &ValidationError<'_>, node: &Node, span: Span) -> Diagnostic {
    let short = error.instance().to_string().chars().count() <= MAX_QUOTED_CHARS;
    let message = if short {
        error.to_string()
    } else {
        error
            .masked_with(format!("the {}", node.value.kind_name()))
            .to_string()
    };
    Diagnostic::error(codes::CONSTRAINT, lowercase_first(&message), span)
}

/// A value as it reads in a message: strings bare, the rest as JSON, shortened.
fn quote_value(value: &Json) -> String {
    let text = match value {
        Json::String(text) => text.clone(),
        other => other.to_string(),
    };
    if text.chars().count() <= MAX_QUOTED_CHARS {
        text
    } else {
        let mut short: String = text.chars().take(MAX_QUOTED_CHARS - 3).collect();
        short.push_str("...");
        short
    }
}

/// `` `a`, `b`, `c` ``.
fn quoted_list(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

//! Loading a blueprint file: parse (YAML, or JSON by extension), refuse
//! YAML anchors, aliases and tags, check where substitutions stand, check
//! the structure against the schema, build the typed model and check its
//! rules. Every phase runs on what the earlier ones could read, and every
//! problem is reported. A resource's model depends on its entry alone, so
//! a first reading builds each one on the other cores as soon as the parse
//! has completed its entry, while the rest of the file is read
//! ([`Reader::read_handing_off`]).
//!
//! Reopened after an edit (the language server), a blueprint keeps what
//! the edit cannot have changed: each resource's model when its entry is
//! identical to the byte, or moved whole by the edit, and that resource's
//! check when nothing its references reach changed. The result is the
//! same as a fresh opening's (`tests/reopen.rs` holds it so).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use strata_dialect::{Expect, Place, Read, Reader};
use strata_schema::Decoder;
use strata_syntax::{
    Diagnostic, FieldPath, Format, Node, NodeProperty, Outcome, Segment, SourceDb, Span,
};

use crate::codes;
use crate::model::{
    Blueprint, Builder, BuiltResource, Earlier, Prebuilt, Resources, build_resource, moved_by,
};
use crate::placement;
use crate::schema::BlueprintSchema;
use crate::validate::{EarlierChecks, Element, References, ResourceCheck, reaching, validate};

/// The decoder of the blueprint schema, built once.
pub(crate) static DECODER: LazyLock<Decoder<BlueprintSchema>> = LazyLock::new(Decoder::new);

/// A blueprint read and checked: the model, its references, and the tree
/// it was built from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The typed model.
    pub blueprint: Blueprint,
    /// Every reference, for ordering and cycle checks.
    pub references: References,
    /// The document as parsed.
    pub tree: Node,
    /// Whether the file parsed without a problem, an anchor, an alias or a
    /// tag: a reopening then parses again only the entries an edit
    /// touched ([`Parsed`]).
    pub(crate) parsed_cleanly: bool,
    /// What each entry of the tree's `resources` gave the model, in order,
    /// for a reopening to keep.
    pub(crate) built: Vec<BuiltResource>,
    /// Each resource's check, in the model's order, for a reopening to
    /// keep.
    pub(crate) checks: Vec<ResourceCheck>,
}

/// A blueprint file as it was parsed before, cleanly
/// ([`Loaded::parsed_cleanly`]): its text and what it gave. A reopening
/// parses the new text again only in the entries the edit touched
/// (resources, values, exports...), when the edit lies inside one
/// section's ([`strata_syntax::reparse`]; the tree is then a full parse's,
/// spans included), else in full. It then keeps the model of every
/// resource whose entry is identical, or identical but moved by the edit
/// (its spans moved as far), and the check of every such resource that
/// reads nothing changed ([`EarlierChecks`]).
pub(crate) struct Parsed<'a> {
    /// The text parsed.
    pub(crate) text: &'a str,
    /// What it gave.
    pub(crate) loaded: &'a Loaded,
}

/// Reads and checks the blueprint at `path` (YAML, or JSON by its
/// extension; `-` is standard input, YAML), parsing only what changed
/// since `before` when it is given.
pub(crate) fn read(
    reader: &mut Reader<'_>,
    path: &Path,
    before: Option<Parsed<'_>>,
) -> Outcome<Loaded> {
    let format = format_of(path);
    let (expect, place) = (Expect::OneAsParsed, Place::File);
    let Some(before) = before.filter(|_| format == Format::Yaml) else {
        // A first reading: each resource's model is built, and its
        // placement checked, while the rest of the file is parsed.
        let (read, handed) =
            reader.read_handing_off(path, format, expect, "resources", |db, entry| {
                HandedResource {
                    built: build_resource(entry.key_span, &entry.value),
                    placement: placement::check_resource(&entry.key, &entry.value, db),
                }
            });
        return checked(reader.db(), read, None, handed);
    };
    let read = reader.source(path).and_then(|source| {
        let reparsed = strata_syntax::reparse::reparse_entries(
            before.text,
            &before.loaded.tree,
            reader.db().get(source).text(),
            source,
            &reader.limits(),
        );
        match reparsed {
            Some(tree) => {
                let read = Read {
                    source,
                    documents: vec![tree],
                    properties: Vec::new(),
                };
                reader.expect(read, expect, place)
            }
            None => reader.parse(source, format, expect, place),
        }
    });
    checked(reader.db(), read, Some(before.loaded), Vec::new())
}

/// What a resource entry gave while the rest of the file was parsed: its
/// model, and the substitutions written where they may not be.
struct HandedResource {
    built: BuiltResource,
    placement: Vec<(Diagnostic, Span)>,
}

/// Reads the blueprint at `path` that another one includes at `at`: a
/// file that cannot be read is reported at the include; what it holds, in
/// it.
pub(crate) fn read_included(reader: &mut Reader<'_>, path: &Path, at: Span) -> Outcome<Loaded> {
    let read = reader.read(
        path,
        format_of(path),
        Expect::OneAsParsed,
        Place::UnreadAt(at),
    );
    checked(reader.db(), read, None, Vec::new())
}

/// Checks the blueprint `text` fetched from a remote source, registered
/// under `path` (`KIND:WHERE`; JSON by its extension, else YAML).
pub(crate) fn read_fetched(reader: &mut Reader<'_>, path: &Path, text: &str) -> Outcome<Loaded> {
    let name = path.display().to_string();
    let read = reader.read_text(&name, text, format_of(path), Expect::OneAsParsed);
    checked(reader.db(), read, None, Vec::new())
}

/// JSON by the extension, else YAML (`-`, standard input, is YAML).
fn format_of(path: &Path) -> Format {
    Format::from_name(&path.to_string_lossy())
}

/// Refuses the anchors, aliases and tags of a blueprint read as one
/// document as far as it parses, and checks that document, keeping what
/// still holds of `earlier` (the same file before an edit) and taking
/// what the resource entries `handed` gave as it was parsed (by the span
/// of each entry's value).
fn checked(
    db: &SourceDb,
    read: Outcome<Read>,
    earlier: Option<&Loaded>,
    handed: Vec<(Span, HandedResource)>,
) -> Outcome<Loaded> {
    let mut problems = read.diagnostics;
    let Some(read) = read.value else {
        return Outcome::failed(problems);
    };
    let parsed_cleanly = problems.is_empty() && read.properties.is_empty();
    let refused = read.properties.iter().map(|property| match property {
        NodeProperty::Anchor(span) | NodeProperty::Alias(span) => Diagnostic::error(
            codes::YAML_ALIAS,
            "YAML anchors and aliases are not part of blueprints (v2023-04-20)",
            *span,
        )
        .with_help("write the value out, or compute it once in `values` and reference it with `${values.NAME}`"),
        NodeProperty::Tag(tag, span) => Diagnostic::error(
            codes::YAML_TAG,
            format!("YAML tags are not part of blueprints (v2023-04-20): `{tag}`"),
            *span,
        )
        .with_help("remove the tag; `${..}` substitutions and functions compute values"),
    });
    // After the parse's problems and before a wrong count, which is about
    // the file as a whole.
    let count = problems
        .iter()
        .position(|problem| matches!(problem.code, strata_dialect::codes::DOCUMENT_COUNT))
        .unwrap_or(problems.len());
    problems.splice(count..count, refused);
    let Some(root) = read.into_document() else {
        return Outcome::failed(problems);
    };
    let checked = check_after(&root, db, earlier, handed);
    problems.extend(checked.diagnostics);
    match checked.value {
        Some(Model {
            blueprint,
            references,
            built,
            checks,
        }) => Outcome::new(
            Some(Loaded {
                blueprint,
                references,
                tree: root,
                parsed_cleanly,
                built,
                checks,
            }),
            problems,
        ),
        None => Outcome::failed(problems),
    }
}

/// A checked document's model and references, with what each resource
/// gave them ([`Loaded::built`], [`Loaded::checks`]).
struct Model {
    blueprint: Blueprint,
    references: References,
    built: Vec<BuiltResource>,
    checks: Vec<ResourceCheck>,
}

/// Checks a parsed blueprint document.
pub fn check(root: &Node, db: &SourceDb) -> Outcome<(Blueprint, References)> {
    check_after(root, db, None, Vec::new()).map(|model| (model.blueprint, model.references))
}

/// Checks a parsed blueprint document, keeping what still holds of
/// `earlier`: the model of every resource whose entry is identical (moved
/// or not), and the check of every such resource that reads nothing
/// changed, and taking what the resource entries `handed` gave as the
/// file was parsed. The walks over the document as written (placement but
/// for the entries handed, the schema) run in full.
fn check_after(
    root: &Node,
    db: &SourceDb,
    earlier: Option<&Loaded>,
    handed: Vec<(Span, HandedResource)>,
) -> Outcome<Model> {
    // Handed out in the order written, so sorted by span. Only the
    // entries of this document count: a parse that failed in a later one
    // handed out its entries too.
    let mut apart = Vec::with_capacity(handed.len());
    let mut prebuilt = Prebuilt::with_capacity(handed.len());
    let mut placement = Vec::new();
    let ours = handed
        .into_iter()
        .filter(|(span, _)| root.span.contains(*span));
    for (span, resource) in ours {
        apart.push(span);
        prebuilt.push((span, resource.built));
        placement.extend(resource.placement);
    }
    // The walks over the document as written run beside the model's
    // building and checking, which need none of their findings.
    let ((placement, structural), (model, text_problems, rules)) = strata_dialect::join(
        || {
            placement.extend(placement::check(root, db, |span| {
                apart.binary_search(&span).is_ok()
            }));
            (placement, DECODER.validate(root))
        },
        || {
            let mut text_problems = Vec::new();
            let kept = earlier.and_then(|loaded| {
                Some(Earlier {
                    entries: loaded.tree.get("resources")?.as_map()?,
                    built: &loaded.built,
                })
            });
            let (blueprint, resources) = Builder {
                problems: &mut text_problems,
            }
            .blueprint(root, kept, prebuilt);
            let earlier_checks =
                earlier.and_then(|loaded| earlier_checks(loaded, root, &blueprint, &resources));
            let checked = validate(&blueprint, &defined(root), db, earlier_checks.as_ref());
            let model = Model {
                blueprint,
                references: checked.references,
                built: resources.built,
                checks: checked.resources,
            };
            (model, text_problems, checked.problems)
        },
    );
    // A forbidden `${..}` in a field the schema also constrains (an enum)
    // is reported once, as the placement problem.
    let placed: Vec<Span> = placement.iter().map(|(_, scalar)| *scalar).collect();
    let mut problems: Vec<Diagnostic> = placement.into_iter().map(|(problem, _)| problem).collect();
    // A node with a forbidden `${..}`, a wrong structure or a `${..}` that
    // does not parse is reported once: the rules do not report it again.
    let mut reported: Vec<Span> = placed.clone();
    reported.extend(structural.iter().map(|problem| problem.primary.span));
    problems.extend(
        structural
            .into_iter()
            .filter(|problem| !placed.contains(&problem.primary.span)),
    );
    if root.as_map().is_none() {
        return Outcome::failed(problems);
    }
    if root
        .get("resources")
        .and_then(Node::as_map)
        .is_none_or(indexmap::IndexMap::is_empty)
    {
        let at = root.get("resources").map_or(root.span, |node| node.span);
        problems.push(
            Diagnostic::error(
                codes::NO_RESOURCES,
                "the blueprint defines no resources: version 2023-04-20 requires at least one",
                at,
            )
            .with_help("add a `resources` mapping with at least one resource"),
        );
    }
    problems.extend(condition_shapes(root));
    for (error, node) in text_problems {
        let text = node.as_str().unwrap_or_default();
        let mut problem = error.diagnostic(db, node.span, text);
        if let Some(path) = path_to(root, node.span, &mut FieldPath::root()) {
            problem = problem.with_path(path);
        }
        problems.push(problem);
        reported.push(node.span);
    }
    problems.extend(
        rules
            .into_iter()
            .filter(|problem| !reported.contains(&problem.primary.span)),
    );
    // In the order of the document, whichever phase found them.
    problems.sort_by_key(|problem| (problem.primary.span.source, problem.primary.span.start));
    Outcome::new(Some(model), strata_syntax::dedupe(problems))
}

/// The sections whose entries are elements a resource may read.
const ELEMENT_SECTIONS: [&str; 4] = ["variables", "values", "include", "datasources"];

/// Which of `loaded`'s resource checks hold for `root`, whose model is
/// `blueprint` (its resources kept or built anew as `resources` says), and
/// how far each moved: none when the elements are not the same in the same
/// order, or when a part of the document that is neither a section of
/// elements, the resources nor the exports (which no resource reads)
/// changed; else those of the resources kept whose references reach no
/// changed element, and whose problems and references all lie in their
/// own entry (a problem may also point elsewhere, which moved otherwise).
fn earlier_checks<'a>(
    loaded: &'a Loaded,
    root: &Node,
    blueprint: &Blueprint,
    resources: &Resources,
) -> Option<EarlierChecks<'a>> {
    let (before, now) = (loaded.tree.as_map()?, root.as_map()?);
    if !before.keys().eq(now.keys())
        || !loaded
            .blueprint
            .resources
            .keys()
            .eq(blueprint.resources.keys())
    {
        return None;
    }
    let written = now.get("resources").and_then(|entry| entry.value.as_map());
    let mut changed: Vec<Element> = written
        .into_iter()
        .flat_map(|entries| entries.keys().zip(&resources.moved))
        .filter(|(_, moved)| moved.is_none())
        .map(|(name, _)| Element::Resource(name.clone()))
        .collect();
    for ((key, was), (_, is)) in before.iter().zip(now) {
        if key == "resources" || key == "exports" {
            continue;
        }
        if !ELEMENT_SECTIONS.contains(&key.as_str()) {
            moved_by(was, is.key_span, &is.value)?;
            continue;
        }
        let (was, is) = (was.value.as_map()?, is.value.as_map()?);
        if !was.keys().eq(is.keys()) {
            return None;
        }
        for ((name, was), (_, is)) in was.iter().zip(is) {
            if moved_by(was, is.key_span, &is.value).is_none() {
                changed.push(element(key, name)?);
            }
        }
    }
    let reached = reaching(&loaded.references, changed);
    // How far each resource of the model moved, when it was kept.
    let moved = resources
        .built
        .iter()
        .zip(&resources.moved)
        .filter(|(built, _)| built.model.is_some())
        .map(|(_, moved)| *moved);
    let entries = before.get("resources")?.value.as_map()?;
    let holds = blueprint
        .resources
        .keys()
        .zip(moved)
        .zip(&loaded.checks)
        .map(|((name, moved), check)| {
            let entry = entries.get(name)?;
            let own = Span::new(
                entry.key_span.source,
                entry.key_span.start as usize,
                entry.value.span.end as usize,
            );
            let edges = loaded.references.edges.get(check.edges.clone())?;
            let inside = edges.iter().all(|edge| own.contains(edge.span))
                && check.problems.iter().all(|problem| {
                    std::iter::once(&problem.primary)
                        .chain(&problem.secondary)
                        .all(|label| own.contains(label.span))
                });
            let reads_changed = reached.contains(&Element::Resource(name.clone()));
            moved.filter(|_| inside && !reads_changed)
        })
        .collect();
    Some(EarlierChecks {
        references: &loaded.references,
        resources: &loaded.checks,
        holds,
    })
}

/// The element `name` of the section `section` (one of
/// [`ELEMENT_SECTIONS`], or `resources`).
fn element(section: &str, name: &str) -> Option<Element> {
    let name = name.to_owned();
    match section {
        "variables" => Some(Element::Variable(name)),
        "values" => Some(Element::Value(name)),
        "include" => Some(Element::Child(name)),
        "datasources" => Some(Element::Datasource(name)),
        "resources" => Some(Element::Resource(name)),
        _ => None,
    }
}

/// The path of the node written at `span`, below `node` at `path`.
fn path_to(node: &Node, span: Span, path: &mut FieldPath) -> Option<FieldPath> {
    if node.span == span {
        return Some(path.clone());
    }
    match &node.value {
        strata_syntax::Value::Seq(items) => items.iter().enumerate().find_map(|(index, item)| {
            path.push(Segment::Index(index));
            let found = path_to(item, span, path);
            path.pop();
            found
        }),
        strata_syntax::Value::Map(map) => map.iter().find_map(|(key, entry)| {
            path.push(Segment::Key(key.clone()));
            let found = path_to(&entry.value, span, path);
            path.pop();
            found
        }),
        _ => None,
    }
}

/// Every element the document names, whether or not its definition is
/// well formed: a reference to a malformed definition (reported by the
/// schema) is not also "unknown".
fn defined(root: &Node) -> BTreeSet<Element> {
    ELEMENT_SECTIONS
        .iter()
        .chain(&["resources"])
        .flat_map(|section| {
            let names = root
                .get(section)
                .and_then(Node::as_map)
                .into_iter()
                .flatten();
            names.filter_map(|(name, _)| element(section, name))
        })
        .collect()
}

/// Condition objects with other than exactly one of `and`, `or`, `not`.
fn condition_shapes(root: &Node) -> Vec<Diagnostic> {
    fn walk(node: &Node, path: &FieldPath, found: &mut Vec<Diagnostic>) {
        let Some(map) = node.as_map() else {
            return;
        };
        let operators: Vec<&str> = ["and", "or", "not"]
            .into_iter()
            .filter(|key| map.contains_key(*key))
            .collect();
        if operators.is_empty() {
            found.push(
                Diagnostic::error(
                    codes::CONDITION,
                    "a condition object needs one of `and`, `or`, `not`",
                    node.span,
                )
                .with_path(path.clone()),
            );
        } else if let [first, second, ..] = operators.as_slice() {
            // Pointed at the second operator: the first is the one built.
            let written: Vec<String> = operators.iter().map(|key| format!("`{key}`")).collect();
            let at = map.get(*second).map_or(node.span, |entry| entry.key_span);
            found.push(
                Diagnostic::error(
                    codes::CONDITION,
                    format!(
                        "a condition object takes exactly one of `and`, `or`, `not`; this one has {}",
                        written.join(" and ")
                    ),
                    at,
                )
                .with_secondary(
                    map.get(*first).map_or(node.span, |entry| entry.key_span),
                    "the first",
                )
                .with_help("to combine them, nest one in the other: `and: [..., {or: [...]}]`")
                .with_path(path.clone()),
            );
        }
        for key in operators {
            let path = path.key(key);
            match map.get(key).map(|entry| &entry.value) {
                Some(Node {
                    value: strata_syntax::Value::Seq(items),
                    ..
                }) => {
                    for (index, item) in items.iter().enumerate() {
                        walk(item, &path.index(index), found);
                    }
                }
                Some(inner) => walk(inner, &path, found),
                None => {}
            }
        }
    }
    let mut found = Vec::new();
    for (name, entry) in root
        .get("resources")
        .and_then(Node::as_map)
        .into_iter()
        .flatten()
    {
        if let Some(condition) = entry.value.get("condition") {
            let path = FieldPath::root()
                .key("resources")
                .key(name)
                .key("condition");
            walk(condition, &path, &mut found);
        }
    }
    found
}

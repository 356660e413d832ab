//! Reading a catalogue folder into blueprint definitions.
//!
//! Every `*.yaml` and `*.yml` file below the root is read (hidden files and
//! folders skipped, so a `ConfigMap` mount's `..data` entries are ignored),
//! in sorted order. A file (each document of it) holds one blueprint
//! mapping, or `blueprint: {...}`, or `blueprints: [...]`, or a top-level
//! sequence of blueprints.
//!
//! `!include PATH` on any node is replaced by the single document of that
//! file, resolved against the including file and confined to the root
//! (symlinks included); includes nest, a cycle is an error naming the chain,
//! and each file is parsed once however often it is included. A file that
//! another file includes is a fragment, not a catalogue entry of its own.
//!
//! An included file must hold exactly one document (`io/document-count`,
//! at the `!include`); files that cannot be read are reported with the
//! codes of `strata-fs`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use strata_dialect::{Expect, Listed, Parses, Place, Read};
use strata_fs::Files;
use strata_syntax::{Diagnostic, Format, Limits, Node, SourceDb, Span, Value};

use crate::codes;

/// The file of catalogue settings at the root.
pub const SETTINGS_FILE: &str = ".strata.yaml";

/// One blueprint as written, includes expanded.
#[derive(Debug, Clone)]
pub struct Definition {
    /// Its name.
    pub name: String,
    /// The mapping.
    pub node: Node,
    /// The file it is in, relative to the catalogue root.
    pub file: PathBuf,
    /// False when one of the file's includes failed: its problems are
    /// reported, and the blueprint is not checked further.
    pub complete: bool,
}

/// Reads the catalogue's files (through the shared [`strata_dialect::Reader`]),
/// expanding includes.
pub(crate) struct Reader<'a> {
    pub files: strata_dialect::Reader<'a>,
    pub diagnostics: Vec<Diagnostic>,
    /// Parsed include targets, by path: each is read once.
    included: HashMap<PathBuf, Option<Node>>,
    /// The catalogue's own files, parsed, by path.
    listed: HashMap<PathBuf, Read>,
    /// Every `!include` that found its file: the tag's scalar and the file.
    pub includes: Vec<strata_dialect::Reference>,
    /// The parses of the catalogue opened before, to reuse.
    pub previous: Option<&'a Parses>,
    /// The parses of this reading, for the next to reuse.
    pub parses: Parses,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(fs: &'a dyn Files, db: &'a mut SourceDb, limits: Limits) -> Reader<'a> {
        Reader {
            files: strata_dialect::Reader::new(fs, db, limits),
            diagnostics: Vec::new(),
            included: HashMap::new(),
            listed: HashMap::new(),
            includes: Vec::new(),
            previous: None,
            parses: Parses::default(),
        }
    }

    /// Replaces every `!include` below `node`, read from `file`.
    pub(crate) fn expand(&mut self, node: &mut Node, file: &Path, stack: &mut Vec<PathBuf>) {
        if node
            .tag
            .as_ref()
            .is_some_and(|tag| tag.as_str() == "!include")
        {
            let span = node.span;
            let Some(reference) = node.as_str().map(str::to_owned) else {
                self.diagnostics.push(Diagnostic::error(
                    codes::INCLUDE_INVALID,
                    format!(
                        "`!include` takes a file path, found {}",
                        node.value.kind_name()
                    ),
                    span,
                ));
                return;
            };
            if let Some(content) = self.include(file, &reference, span, stack) {
                self.includes.push(strata_dialect::Reference {
                    span,
                    target: Span::file_start(content.span.source),
                });
                *node = content;
            }
            return;
        }
        match &mut node.value {
            Value::Seq(items) => items
                .iter_mut()
                .for_each(|item| self.expand(item, file, stack)),
            Value::Map(map) => map
                .values_mut()
                .for_each(|entry| self.expand(&mut entry.value, file, stack)),
            _ => {}
        }
    }

    fn include(
        &mut self,
        from: &Path,
        reference: &str,
        span: Span,
        stack: &mut Vec<PathBuf>,
    ) -> Option<Node> {
        let target = match strata_fs::join(from, reference) {
            Ok(target) => target,
            Err(error) => {
                self.diagnostics.push(
                    Diagnostic::error(codes::INCLUDE_ESCAPES, error.to_string(), span)
                        .with_help("includes are confined to the catalogue folder"),
                );
                return None;
            }
        };
        if let Some(position) = stack.iter().position(|path| *path == target) {
            let chain: Vec<String> = stack[position..]
                .iter()
                .chain(std::iter::once(&target))
                .map(|path| path.display().to_string())
                .collect();
            self.diagnostics.push(Diagnostic::error(
                codes::INCLUDE_CYCLE,
                format!("include cycle: {}", chain.join(" -> ")),
                span,
            ));
            return None;
        }
        if let Some(cached) = self.included.get(&target) {
            return cached.clone();
        }
        // A catalogue file was parsed with the others (its parse problems
        // reported then); any other file is read here.
        let place = Place::Reference(span);
        let content = match self.listed.get(&target) {
            Some(read) => self.files.expect(read.clone(), Expect::One, place),
            None => self.files.read(&target, Format::Yaml, Expect::One, place),
        }
        .report(&mut self.diagnostics)
        .and_then(Read::into_document);
        let content = content.map(|mut node| {
            stack.push(target.clone());
            self.expand(&mut node, &target, stack);
            stack.pop();
            node
        });
        self.included.insert(target, content.clone());
        content
    }
}

/// Reads every blueprint of the catalogue, keyed by name in sorted order.
pub(crate) fn definitions(reader: &mut Reader<'_>) -> IndexMap<String, Definition> {
    let Some(files) = reader
        .files
        .list(&["yaml", "yml"], Listed::Folder(Path::new("")))
        .report(&mut reader.diagnostics)
    else {
        return IndexMap::new();
    };
    // Parse every file once first, so that includes of catalogue files reuse
    // the parse, then expand includes.
    // Parses are kept only for a reopening (the language server's), so a
    // one-off opening copies no tree.
    let parsed = reader
        .files
        .all_documents(&files, Format::Yaml, reader.previous);
    for (file, (parsed, kept)) in files.iter().zip(parsed) {
        if let Some(kept) = kept {
            reader.parses.keep(file.clone(), kept);
        }
        if let Some(read) = parsed.report(&mut reader.diagnostics) {
            reader.listed.insert(file.clone(), read);
        }
    }
    let mut expanded = Vec::new();
    for file in files {
        let Some(mut documents) = reader.listed.get(&file).map(|read| read.documents.clone())
        else {
            continue;
        };
        let before = reader.diagnostics.len();
        for document in &mut documents {
            reader.expand(document, &file, &mut vec![file.clone()]);
        }
        let complete = reader.diagnostics.len() == before;
        expanded.push((file, documents, complete));
    }
    let mut found: IndexMap<String, Definition> = IndexMap::new();
    for (file, documents, complete) in expanded {
        // A file some other file includes is a fragment, not an entry.
        if reader.included.contains_key(&file) {
            continue;
        }
        for document in documents {
            for blueprint in split_blueprints(document, &mut reader.diagnostics) {
                let Some(name) = blueprint_name(&blueprint, &mut reader.diagnostics) else {
                    continue;
                };
                if let Some(first) = found.get(&name) {
                    let first_span = first.node.get("name").map_or(first.node.span, |n| n.span);
                    let span = blueprint.get("name").map_or(blueprint.span, |n| n.span);
                    reader.diagnostics.push(
                        Diagnostic::error(
                            codes::DUPLICATE_NAME,
                            format!("two blueprints are named `{name}`"),
                            span,
                        )
                        .with_label(format!("in {}", file.display()))
                        .with_secondary(
                            first_span,
                            format!("first defined in {}", first.file.display()),
                        ),
                    );
                    continue;
                }
                let definition = Definition {
                    name: name.clone(),
                    node: blueprint,
                    file: file.clone(),
                    complete,
                };
                found.insert(name, definition);
            }
        }
    }
    found.sort_keys();
    found
}

/// The blueprints a document holds, by the file shapes the module docs list.
fn split_blueprints(document: Node, diagnostics: &mut Vec<Diagnostic>) -> Vec<Node> {
    match document.value {
        Value::Seq(items) => items,
        Value::Map(mut map) if map.len() == 1 && map.contains_key("blueprint") => map
            .swap_remove("blueprint")
            .map(|entry| entry.value)
            .into_iter()
            .collect(),
        Value::Map(mut map) if map.len() == 1 && map.contains_key("blueprints") => {
            match map.swap_remove("blueprints").map(|entry| entry.value) {
                Some(Node {
                    value: Value::Seq(items),
                    ..
                }) => items,
                Some(other) => {
                    diagnostics.push(Diagnostic::error(
                        codes::INVALID_FILE,
                        format!(
                            "`blueprints` must be a list of blueprints, found {}",
                            other.value.kind_name()
                        ),
                        other.span,
                    ));
                    Vec::new()
                }
                None => Vec::new(),
            }
        }
        value @ Value::Map(_) => vec![Node { value, ..document }],
        other => {
            diagnostics.push(Diagnostic::error(
                codes::INVALID_FILE,
                format!(
                    "a catalogue file holds blueprint mappings, found {}",
                    other.kind_name()
                ),
                document.span,
            ));
            Vec::new()
        }
    }
}

fn blueprint_name(blueprint: &Node, diagnostics: &mut Vec<Diagnostic>) -> Option<String> {
    if blueprint.as_map().is_none() {
        diagnostics.push(Diagnostic::error(
            codes::INVALID_FILE,
            format!(
                "a blueprint must be a mapping, found {}",
                blueprint.value.kind_name()
            ),
            blueprint.span,
        ));
        return None;
    }
    match blueprint.get("name") {
        Some(Node {
            value: Value::String(name),
            ..
        }) if !name.is_empty() => Some(name.clone()),
        Some(other) => {
            diagnostics.push(Diagnostic::error(
                codes::MISSING_NAME,
                "a blueprint's `name` must be a non-empty string",
                other.span,
            ));
            None
        }
        None => {
            diagnostics.push(
                Diagnostic::error(
                    codes::MISSING_NAME,
                    "blueprint has no `name`",
                    blueprint.span,
                )
                .with_help("add `name: ...`; other blueprints refer to it by name"),
            );
            None
        }
    }
}

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

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use strata_dialect::{Expect, Listed, Place, Read};
use strata_fs::Files;
use strata_syntax::{Diagnostic, Format, Limits, Node, Outcome, SourceDb, SourceId, Span, Value};

use crate::codes;

/// The file of catalogue settings at the root.
pub const SETTINGS_FILE: &str = ".strata.yaml";

/// One blueprint as written, includes expanded.
#[derive(Debug, Clone)]
pub struct Definition {
    /// Its name.
    pub name: String,
    /// The mapping (shared with the reopened catalogue that read the same
    /// file again).
    pub node: Arc<Node>,
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
    /// What the catalogue opened before read of each file, to reuse.
    pub previous: Option<&'a FileMemos>,
    /// What this reading read of each file, for the next to reuse, when
    /// the catalogue will be reopened (`keep`).
    pub memos: FileMemos,
    pub keep: bool,
    /// The files the includes of the file being expanded read.
    reading: Vec<PathBuf>,
}

/// What reading one file gave, kept for a reopening to take when the
/// file's text, and the source it is registered as, did not change, nor
/// those of the catalogue files its includes read. Kept for a file whose
/// includes were all found and that no file includes.
#[derive(Debug, Clone)]
pub(crate) struct FileMemo {
    source: SourceId,
    text: Arc<str>,
    /// The catalogue files its includes read, each with its source and
    /// text then.
    reads: Vec<(PathBuf, SourceId, Arc<str>)>,
    /// The `!include`s it made, for navigation.
    references: Vec<strata_dialect::Reference>,
    /// The problems parsing it found.
    parsing: Vec<Diagnostic>,
    /// Its blueprints and the problems finding them found, in order.
    found: Vec<Found>,
}

/// One blueprint of a file, or a problem finding one.
#[derive(Debug, Clone)]
enum Found {
    Blueprint(String, Definition),
    Problem(Diagnostic),
}

/// What reading each file gave, by path.
pub(crate) type FileMemos = HashMap<PathBuf, FileMemo>;

impl<'a> Reader<'a> {
    pub(crate) fn new(fs: &'a dyn Files, db: &'a mut SourceDb, limits: Limits) -> Reader<'a> {
        Reader {
            files: strata_dialect::Reader::new(fs, db, limits),
            diagnostics: Vec::new(),
            included: HashMap::new(),
            listed: HashMap::new(),
            includes: Vec::new(),
            previous: None,
            memos: FileMemos::new(),
            keep: false,
            reading: Vec::new(),
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
        self.reading.push(target.clone());
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

/// How one file of the catalogue was read this time.
enum Entry<'m> {
    /// As the catalogue opened before read it.
    Kept(&'m FileMemo),
    /// Parsed now: its documents (includes expanded), whether every
    /// include of it was found, and what its includes read.
    Parsed(Vec<Node>, bool, Expansion),
    /// Not read (its problem is reported).
    Unread,
}

/// What expanding one file's includes read, and the references it made.
struct Expansion {
    reads: Vec<PathBuf>,
    references: Vec<strata_dialect::Reference>,
}

/// Reads every blueprint of the catalogue, keyed by name in sorted order.
/// Every file's text is read and registered (in order, so each source is
/// where a fresh opening puts it); a file the catalogue opened before
/// read with the same text into the same source gives the blueprints it
/// gave then, unparsed ([`FileMemo`]); the others are parsed on every
/// core, then their includes expanded.
pub(crate) fn definitions(reader: &mut Reader<'_>) -> IndexMap<String, Definition> {
    let Some(files) = reader
        .files
        .list(&["yaml", "yml"], Listed::Folder(Path::new("")))
        .report(&mut reader.diagnostics)
    else {
        return IndexMap::new();
    };
    let sources = reader.files.sources(&files);
    let registered: HashMap<PathBuf, SourceId> = files
        .iter()
        .zip(&sources)
        .filter_map(|(file, source)| Some((file.clone(), source.value?)))
        .collect();
    let previous = reader.previous;
    let mut kept = kept_files(reader.files.db(), previous, &files, &registered);
    // What the includes of kept files read: fragments, as for the files
    // parsed below.
    let kept_reads: HashSet<PathBuf> = kept
        .iter()
        .flatten()
        .flat_map(|memo| memo.reads.iter().map(|(read, _, _)| read.clone()))
        .collect();
    let (parsed, targets) = parse_changed(reader, &files, &sources, &mut kept, &kept_reads);
    let mut parsing = report_parsing(reader, &files, sources, &kept, parsed);
    let entries = expand_all(reader, &files, &kept, &targets);
    let pass = Pass {
        registered,
        targets,
        kept_reads,
    };
    let mut found: IndexMap<String, Definition> = IndexMap::new();
    // Each fragment's text, shared by the memos of the files reading it.
    let mut texts: HashMap<SourceId, Arc<str>> = HashMap::new();
    for (file, entry) in files.iter().zip(entries) {
        // A file some other file includes is a fragment, not an entry.
        if reader.included.contains_key(file) || pass.kept_reads.contains(file) {
            continue;
        }
        let found_in_file = match entry {
            Entry::Kept(memo) => {
                reader.includes.extend(memo.references.iter().copied());
                reader.memos.insert(file.clone(), memo.clone());
                memo.found.clone()
            }
            Entry::Parsed(documents, complete, expansion) => {
                let found_in_file = named_blueprints(file, documents, complete);
                let problems = parsing.remove(file).unwrap_or_default();
                let memo = reader.keep.then(|| {
                    pass.memo(
                        reader,
                        file,
                        complete,
                        expansion,
                        problems,
                        &found_in_file,
                        &mut texts,
                    )
                });
                if let Some(memo) = memo.flatten() {
                    reader.memos.insert(file.clone(), memo);
                }
                found_in_file
            }
            Entry::Unread => continue,
        };
        for item in found_in_file {
            match item {
                Found::Blueprint(name, definition) => {
                    add_definition(&mut found, name, definition, &mut reader.diagnostics);
                }
                Found::Problem(problem) => reader.diagnostics.push(problem),
            }
        }
    }
    found.sort_keys();
    found
}

/// What one reading of the catalogue knows of its files: their sources,
/// the files includes read, and those the includes of kept files read.
struct Pass {
    registered: HashMap<PathBuf, SourceId>,
    targets: HashSet<PathBuf>,
    kept_reads: HashSet<PathBuf>,
}

impl Pass {
    /// The memo of a file parsed now, when it can be kept: its includes all
    /// found and read from catalogue files, and no file includes it.
    #[expect(
        clippy::too_many_arguments,
        reason = "what one file's reading gave, taken apart"
    )]
    fn memo(
        &self,
        reader: &Reader<'_>,
        file: &PathBuf,
        complete: bool,
        expansion: Expansion,
        parsing: Vec<Diagnostic>,
        found: &[Found],
        texts: &mut HashMap<SourceId, Arc<str>>,
    ) -> Option<FileMemo> {
        let source = *self.registered.get(file)?;
        if !complete || self.targets.contains(file) {
            return None;
        }
        let db = reader.files.db();
        let reads = expansion
            .reads
            .into_iter()
            .map(|read| {
                let source = *self.registered.get(&read)?;
                let text = texts
                    .entry(source)
                    .or_insert_with(|| Arc::from(db.get(source).text()))
                    .clone();
                Some((read, source, text))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(FileMemo {
            source,
            text: Arc::from(db.get(source).text()),
            reads,
            references: expansion.references,
            parsing,
            found: found.to_vec(),
        })
    }
}

/// For each file, the memo of the catalogue opened before when it still
/// holds: the file and every file its includes read registered as then,
/// with the same text.
fn kept_files<'m>(
    db: &SourceDb,
    previous: Option<&'m FileMemos>,
    files: &[PathBuf],
    registered: &HashMap<PathBuf, SourceId>,
) -> Vec<Option<&'m FileMemo>> {
    let same = |file: &PathBuf, source: SourceId, text: &str| {
        registered.get(file) == Some(&source) && *db.get(source).text() == *text
    };
    files
        .iter()
        .map(|file| {
            let memo = previous?.get(file)?;
            let unchanged = same(file, memo.source, &memo.text)
                && memo
                    .reads
                    .iter()
                    .all(|(read, source, text)| same(read, *source, text));
            unchanged.then_some(memo)
        })
        .collect()
}

/// Parses every file not kept, and every kept file that one of those (or
/// of the kept ones, `kept_reads`) includes, which is then no longer kept:
/// an include reads a catalogue file from its one source, as a fresh
/// opening does. The parses by file, and every file includes read.
fn parse_changed(
    reader: &Reader<'_>,
    files: &[PathBuf],
    sources: &[Outcome<SourceId>],
    kept: &mut [Option<&FileMemo>],
    kept_reads: &HashSet<PathBuf>,
) -> (HashMap<PathBuf, Outcome<Read>>, HashSet<PathBuf>) {
    let mut parsed: HashMap<PathBuf, Outcome<Read>> = HashMap::new();
    let mut targets = kept_reads.clone();
    loop {
        let batch: Vec<(&PathBuf, SourceId)> = files
            .iter()
            .zip(sources)
            .zip(kept.iter())
            .filter(|((file, _), kept)| kept.is_none() && !parsed.contains_key(*file))
            .filter_map(|((file, source), _)| Some((file, source.value?)))
            .collect();
        if batch.is_empty() {
            return (parsed, targets);
        }
        let ids: Vec<SourceId> = batch.iter().map(|(_, source)| *source).collect();
        for ((file, _), read) in
            batch
                .into_iter()
                .zip(reader.files.parse_all(&ids, Format::Yaml, Expect::All))
        {
            if let Some(read) = &read.value {
                include_targets(file, read, &mut targets);
            }
            parsed.insert(file.clone(), read);
        }
        for (file, kept) in files.iter().zip(kept.iter_mut()) {
            if targets.contains(file) {
                *kept = None;
            }
        }
    }
}

/// Reports the problems reading and parsing found, in file order, as a
/// fresh opening does (a kept file's from its memo), and lists what was
/// parsed; the parse problems by file.
fn report_parsing(
    reader: &mut Reader<'_>,
    files: &[PathBuf],
    sources: Vec<Outcome<SourceId>>,
    kept: &[Option<&FileMemo>],
    mut parsed: HashMap<PathBuf, Outcome<Read>>,
) -> HashMap<PathBuf, Vec<Diagnostic>> {
    let mut parsing = HashMap::new();
    for ((file, source), kept) in files.iter().zip(sources).zip(kept) {
        if let Some(memo) = kept {
            reader.diagnostics.extend(memo.parsing.iter().cloned());
            continue;
        }
        let Some(_) = source.report(&mut reader.diagnostics) else {
            continue;
        };
        let mut problems = Vec::new();
        if let Some(read) = parsed
            .remove(file)
            .and_then(|read| read.report(&mut problems))
        {
            reader.listed.insert(file.clone(), read);
        }
        reader.diagnostics.extend(problems.iter().cloned());
        parsing.insert(file.clone(), problems);
    }
    parsing
}

/// Each file as this reading takes it: kept, or parsed with its includes
/// expanded (a file another one includes is cloned for the expansion of
/// its includer; any other moves).
fn expand_all<'m>(
    reader: &mut Reader<'_>,
    files: &[PathBuf],
    kept: &[Option<&'m FileMemo>],
    targets: &HashSet<PathBuf>,
) -> Vec<Entry<'m>> {
    let mut entries = Vec::new();
    for (file, kept) in files.iter().zip(kept) {
        if let Some(memo) = kept {
            entries.push(Entry::Kept(memo));
            continue;
        }
        let read = if targets.contains(file) {
            reader.listed.get(file).cloned()
        } else {
            reader.listed.remove(file)
        };
        let Some(read) = read else {
            entries.push(Entry::Unread);
            continue;
        };
        let mut documents = read.documents;
        let (before, references) = (reader.diagnostics.len(), reader.includes.len());
        reader.reading.clear();
        for document in &mut documents {
            reader.expand(document, file, &mut vec![file.clone()]);
        }
        let complete = reader.diagnostics.len() == before;
        let read = Expansion {
            reads: std::mem::take(&mut reader.reading),
            references: reader.includes[references..].to_vec(),
        };
        entries.push(Entry::Parsed(documents, complete, read));
    }
    entries
}

/// Adds to `targets` the files `read` (the documents of `file`) includes:
/// what each `!include` names, resolved against `file`.
fn include_targets(file: &Path, read: &Read, targets: &mut HashSet<PathBuf>) {
    fn walk(node: &Node, file: &Path, targets: &mut HashSet<PathBuf>) {
        if node
            .tag
            .as_ref()
            .is_some_and(|tag| tag.as_str() == "!include")
        {
            if let Some(target) = node
                .as_str()
                .and_then(|path| strata_fs::join(file, path).ok())
            {
                targets.insert(target);
            }
            return;
        }
        match &node.value {
            Value::Seq(items) => items.iter().for_each(|item| walk(item, file, targets)),
            Value::Map(map) => map
                .values()
                .for_each(|entry| walk(&entry.value, file, targets)),
            _ => {}
        }
    }
    for document in &read.documents {
        walk(document, file, targets);
    }
}

/// The blueprints of a file's documents (includes expanded), each with
/// its name, and the problems finding them, in order.
fn named_blueprints(file: &Path, documents: Vec<Node>, complete: bool) -> Vec<Found> {
    let mut found = Vec::new();
    for document in documents {
        let mut problems = Vec::new();
        let blueprints = split_blueprints(document, &mut problems);
        found.extend(problems.drain(..).map(Found::Problem));
        for blueprint in blueprints {
            let name = blueprint_name(&blueprint, &mut problems);
            found.extend(problems.drain(..).map(Found::Problem));
            let Some(name) = name else {
                continue;
            };
            let definition = Definition {
                name: name.clone(),
                node: Arc::new(blueprint),
                file: file.to_path_buf(),
                complete,
            };
            found.push(Found::Blueprint(name, definition));
        }
    }
    found
}

/// Adds a blueprint to those `found`; a second of a name is an error
/// naming both.
fn add_definition(
    found: &mut IndexMap<String, Definition>,
    name: String,
    definition: Definition,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if let Some(first) = found.get(&name) {
        let first_span = first.node.get("name").map_or(first.node.span, |n| n.span);
        let span = definition
            .node
            .get("name")
            .map_or(definition.node.span, |n| n.span);
        diagnostics.push(
            Diagnostic::error(
                codes::DUPLICATE_NAME,
                format!("two blueprints are named `{name}`"),
                span,
            )
            .with_label(format!("in {}", definition.file.display()))
            .with_secondary(
                first_span,
                format!("first defined in {}", first.file.display()),
            ),
        );
        return;
    }
    found.insert(name, definition);
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

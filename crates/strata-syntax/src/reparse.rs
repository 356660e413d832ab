//! Parsing a YAML document again after an edit, only where it changed.
//!
//! An editor sends a large file's whole text after every keystroke, and
//! most of the file is as it was. When the old text parsed without a
//! problem and the edit lies inside the entries of one block mapping
//! under the root (a spec blueprint's `resources`, `values`, `exports`),
//! only the entries the edit touches are parsed again, alone, and spliced
//! into the old tree:
//! the entries before them keep their spans, those after move by the
//! edit's length.
//!
//! The result is the tree a full parse of the new text gives, spans
//! included, or nothing: every case where the two could differ falls back
//! to the caller's full parse. The part parsed again runs from the start
//! of the line of the last entry whose key's first character the edit
//! left as it was (what ends the entry before it, where a block scalar
//! ends at the next token, is then unchanged) to the key of the first
//! entry whose line break before it the edit left as it was (or the
//! root's next key, likewise, or the end of the text), and must:
//!
//! - start, after blank and comment lines, with a key at the entries'
//!   column, and hold no other line of content less indented (such a line
//!   would close the mapping, or join an entry before the part);
//! - parse alone without a problem, an anchor, an alias or a tag, into one
//!   mapping of at least one entry, no key of it a merge (`<<`) and none
//!   the same as a key outside it, within the depth limit less the two
//!   levels above it;
//! - not end in an empty block scalar (`script: |` and nothing under it):
//!   alone it runs from its `|` to the part's end, in the whole text it
//!   sits where the next token starts.
//!
//! A block mapping's span runs from its first key to the end of its last
//! entry; the spliced mapping's and the root's are computed so.

use crate::node::{Entry, Mapping, Node, Value};
use crate::source::{SourceDb, SourceId, Span};
use crate::{Format, Limits};

/// The tree of `new_text` (registered as `new_source`), from the tree
/// `old_root` a full parse gave of `old_text` without any problem, when
/// the edit between the two lies inside the entries of a block mapping
/// under one of the root's keys (the last key before the edit's start);
/// `None` otherwise (the module docs say when).
#[must_use]
pub fn reparse_entries(
    old_text: &str,
    old_root: &Node,
    new_text: &str,
    new_source: SourceId,
    limits: &Limits,
) -> Option<Node> {
    if old_text == new_text {
        let same = |span: Span| Span {
            source: new_source,
            ..span
        };
        return Some(Moved::node(old_root, &same));
    }
    let root = old_root.as_map()?;
    let (prefix, suffix) = common_ends(old_text.as_bytes(), new_text.as_bytes());
    let section = root
        .values()
        .rposition(|entry| (entry.key_span.start as usize) < prefix)
        .unwrap_or(0);
    let (_, Entry { value: under, .. }) = root.get_index(section)?;
    let entries = under.as_map()?;
    // Both block mappings: a flow one's entries may also start lines.
    let is_flow = |node: &Node| old_text.as_bytes().get(node.span.start as usize) == Some(&b'{');
    if is_flow(old_root) || is_flow(under) {
        return None;
    }
    let column = entries_column(old_text, entries)?;
    let changed_end = old_text.len() - suffix;
    let key_starts: Vec<usize> = entries
        .values()
        .map(|entry| entry.key_span.start as usize)
        .collect();
    // The first entry the edit touches: the last whose key's first
    // character it left as it was, so what ends the entry before (a block
    // scalar ends where the next token starts) is unchanged.
    let first = key_starts.iter().rposition(|start| *start < prefix)?;
    // The first entry after the edit: the line break before its key
    // unchanged. The part parsed again ends at that key, or at the root's
    // next key, or at the end of the text.
    let after =
        (first + 1..key_starts.len()).find(|index| key_starts[*index] - column > changed_end);
    let end = match after {
        Some(index) => key_starts[index],
        None => next_key(old_text, root, section, changed_end)?,
    };
    let moved = Moved {
        source: new_source,
        part_start: key_starts[first] - column,
        old_end: end,
        new_end: end + new_text.len() - old_text.len(),
    };
    let parsed = parse_part(
        new_text.get(moved.part_start..moved.new_end)?,
        column,
        limits,
    )?;
    let spliced = splice(
        entries,
        first..after.unwrap_or(entries.len()),
        parsed.as_map()?,
        &moved,
    )?;
    let start = if first == 0 {
        moved.in_part(parsed.span).start as usize
    } else {
        under.span.start as usize
    };
    let mut spliced = Some(block_map(spliced, new_source, start));
    let mut new_root = Mapping::with_capacity_and_hasher(root.len(), crate::MapHasher::default());
    for (index, (name, entry)) in root.iter().enumerate() {
        let entry = if index == section {
            Entry {
                key_span: moved.span(entry.key_span),
                value: spliced.take()?,
            }
        } else {
            moved.entry(entry)
        };
        new_root.insert(name.clone(), entry);
    }
    Some(block_map(
        new_root,
        new_source,
        old_root.span.start as usize,
    ))
}

/// The column every entry's key is written at, when each starts its line
/// (a block mapping) at the same column, one or more.
fn entries_column(text: &str, entries: &Mapping) -> Option<usize> {
    let mut column = None;
    for entry in entries.values() {
        let at = entry.key_span.start as usize;
        let indent = text.get(line_start(text, at)?..at)?;
        if !indent.bytes().all(|byte| byte == b' ') || indent.is_empty() {
            return None;
        }
        match column {
            None => column = Some(indent.len()),
            Some(known) if known != indent.len() => return None,
            Some(_) => {}
        }
    }
    column
}

/// The lengths of the longest common prefix and suffix of `old` and
/// `new`, not overlapping in either.
fn common_ends(old: &[u8], new: &[u8]) -> (usize, usize) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    (prefix, suffix)
}

/// Where the entries under the root's key at `section` end at the
/// latest: the root's next key, when the line break before it is after
/// the edit's end (`changed_end`) and nothing else is on its line before
/// it, or the end of the text when there is no next key.
fn next_key(text: &str, root: &Mapping, section: usize, changed_end: usize) -> Option<usize> {
    let Some((_, next)) = root.get_index(section + 1) else {
        return Some(text.len());
    };
    let at = next.key_span.start as usize;
    let line = line_start(text, at)?;
    (line == at && line > changed_end).then_some(at)
}

/// The start of the line holding byte `at` of `text`.
fn line_start(text: &str, at: usize) -> Option<usize> {
    Some(text.get(..at)?.rfind('\n').map_or(0, |newline| newline + 1))
}

/// `part` parsed alone, when its lines keep it inside the mapping and it
/// parses cleanly into one mapping.
fn parse_part(part: &str, column: usize, limits: &Limits) -> Option<Node> {
    let mut first_content = true;
    for line in part.split('\n') {
        let content = line.trim_start_matches(' ');
        if content.trim().is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        let wrong = if first_content {
            indent != column
        } else {
            indent < column
        };
        let merge = indent == column
            && ["<<", "\"<<", "'<<"]
                .iter()
                .any(|merge| content.starts_with(merge));
        if wrong || merge {
            return None;
        }
        first_content = false;
    }
    let mut db = SourceDb::new();
    let source = db.add("part", part);
    let limits = Limits {
        max_depth: limits.max_depth.checked_sub(2)?,
        ..*limits
    };
    let mut parsed = crate::parse(&db, source, Format::Yaml, &limits);
    if !parsed.diagnostics.is_empty() || !parsed.properties.is_empty() {
        return None;
    }
    let node = parsed.documents.pop()?;
    (parsed.documents.is_empty()
        && node.as_map().is_some_and(|map| !map.is_empty())
        && !ends_in_empty_block_scalar(&node, part))
    .then_some(node)
}

/// Whether the part's last value (its last entry's, down the last entry
/// or item of each collection) is a block scalar with nothing in it.
/// Parsed alone, such a scalar starts at its `|` or `>` and runs to the
/// part's end; in the whole text it sits, empty, where the next token
/// starts. A part ending so is left to the full parse.
fn ends_in_empty_block_scalar(node: &Node, part: &str) -> bool {
    let mut at = node;
    loop {
        at = match &at.value {
            Value::Map(map) => match map.last() {
                Some((_, entry)) => &entry.value,
                None => return false,
            },
            Value::Seq(items) => match items.last() {
                Some(item) => item,
                None => return false,
            },
            Value::String(text) => {
                return text.is_empty()
                    && matches!(
                        part.as_bytes().get(at.span.start as usize),
                        Some(b'|' | b'>')
                    );
            }
            _ => return false,
        };
    }
}

/// How a span of the old text or of the part parsed again maps into the
/// new text: the old before the part stays, the old after it moves by the
/// edit's length, the part's starts where the part does.
struct Moved {
    source: SourceId,
    part_start: usize,
    old_end: usize,
    new_end: usize,
}

impl Moved {
    /// An old span outside the part.
    fn span(&self, span: Span) -> Span {
        let at = |offset: u32| {
            let offset = offset as usize;
            if offset >= self.old_end {
                offset - self.old_end + self.new_end
            } else {
                offset
            }
        };
        Span::new(self.source, at(span.start), at(span.end))
    }

    /// A span of the part parsed again.
    fn in_part(&self, span: Span) -> Span {
        Span::new(
            self.source,
            span.start as usize + self.part_start,
            span.end as usize + self.part_start,
        )
    }

    /// An old entry outside the part.
    fn entry(&self, entry: &Entry) -> Entry {
        Moved::mapped_entry(entry, &|span| self.span(span))
    }

    /// `entry` with its key's span and every span of its value mapped by
    /// `map`.
    fn mapped_entry(entry: &Entry, map: &dyn Fn(Span) -> Span) -> Entry {
        Entry {
            key_span: map(entry.key_span),
            value: Moved::node(&entry.value, map),
        }
    }

    /// `node` with every span mapped by `map`.
    fn node(node: &Node, map: &dyn Fn(Span) -> Span) -> Node {
        let value = match &node.value {
            Value::Seq(items) => {
                Value::Seq(items.iter().map(|item| Moved::node(item, map)).collect())
            }
            Value::Map(entries) => Value::Map(
                entries
                    .iter()
                    .map(|(key, entry)| (key.clone(), Moved::mapped_entry(entry, map)))
                    .collect(),
            ),
            scalar => scalar.clone(),
        };
        Node {
            value,
            span: map(node.span),
            tag: node.tag.clone(),
            layer: node.layer,
        }
    }
}

/// The entries of `old` with those at `replaced` exchanged for `part`'s,
/// each span mapped into the new text; `None` when a key of `part` is
/// also one kept (a full parse reports the duplicate).
fn splice(
    old: &Mapping,
    replaced: std::ops::Range<usize>,
    part: &Mapping,
    moved: &Moved,
) -> Option<Mapping> {
    let mut entries = Mapping::with_capacity_and_hasher(
        old.len() - replaced.len() + part.len(),
        crate::MapHasher::default(),
    );
    for (name, entry) in old.iter().take(replaced.start) {
        entries.insert(name.clone(), moved.entry(entry));
    }
    for (name, entry) in part {
        let kept_elsewhere = old
            .get_index_of(name)
            .is_some_and(|index| !replaced.contains(&index));
        if kept_elsewhere {
            return None;
        }
        let entry = Moved::mapped_entry(entry, &|span| moved.in_part(span));
        entries.insert(name.clone(), entry);
    }
    for (name, entry) in old.iter().skip(replaced.end) {
        entries.insert(name.clone(), moved.entry(entry));
    }
    Some(entries)
}

/// A block mapping of `entries` starting at `start`: it ends where the
/// last of its keys and values does.
fn block_map(entries: Mapping, source: SourceId, start: usize) -> Node {
    let end = entries
        .values()
        .map(|entry| entry.key_span.end.max(entry.value.span.end) as usize)
        .max()
        .unwrap_or(start);
    Node::new(Value::Map(entries), Span::new(source, start, end))
}

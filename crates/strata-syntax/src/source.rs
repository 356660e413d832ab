//! Sources and spans.
//!
//! Every byte of input that Strata reads is registered once in a [`SourceDb`]
//! and named by a [`SourceId`]. A [`Span`] is a source id plus a half-open
//! byte range; the database maps it to 1-based line and column numbers
//! (columns count Unicode scalar values, as rustc does). Nothing else in the
//! engine stores positions, so a node, a diagnostic and an embedded
//! expression all point into their file the same way.

use std::fmt;
use std::sync::Arc;

/// Identifies one source registered in a [`SourceDb`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SourceId(u32);

impl SourceId {
    /// The position of the source in its database.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A half-open byte range `start..end` inside one source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    /// The source the range points into.
    pub source: SourceId,
    /// The first byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// A span over `start..end` in `source`.
    #[must_use]
    pub fn new(source: SourceId, start: usize, end: usize) -> Span {
        Span {
            source,
            start: saturate(start),
            end: saturate(end.max(start)),
        }
    }

    /// The empty span at the start of `source`, for problems that concern a
    /// whole file (it could not be read, it is too large).
    #[must_use]
    pub fn file_start(source: SourceId) -> Span {
        Span::new(source, 0, 0)
    }

    /// Whether `other` lies within this span, in the same source.
    #[must_use]
    pub fn contains(self, other: Span) -> bool {
        self.source == other.source && self.start <= other.start && other.end <= self.end
    }

    /// The byte range as `usize`s, for slicing the source text.
    #[must_use]
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// This span `by` bytes later (earlier when negative) in the same
    /// source: where text an edit did not touch lies after the edit, when
    /// the edit before it changed the length by `by`.
    #[must_use]
    pub fn moved(self, by: i64) -> Span {
        let at = |offset: u32| usize::try_from(i64::from(offset) + by).unwrap_or(0);
        Span::new(self.source, at(self.start), at(self.end))
    }
}

fn saturate(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(u32::MAX)
}

/// A 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    /// The line, starting at 1.
    pub line: u32,
    /// The column, starting at 1, in characters.
    pub column: u32,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// One registered input: its display name, its text and a line index.
#[derive(Debug)]
pub struct SourceFile {
    name: String,
    text: Arc<str>,
    line_starts: Vec<u32>,
}

impl SourceFile {
    fn new(name: String, text: Arc<str>) -> SourceFile {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| saturate(i + 1)))
            .collect();
        SourceFile {
            name,
            text,
            line_starts,
        }
    }

    /// The name the source is shown under (a path as the user gave it, or `<stdin>`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The whole text of the source.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The byte offsets at which each line starts.
    #[must_use]
    pub fn line_starts(&self) -> &[u32] {
        &self.line_starts
    }

    /// The 1-based line and column of a byte offset (clamped to the text).
    #[must_use]
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(saturate(self.text.len()));
        let line_index = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let line_start = self.line_starts[line_index] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let column = self.text[line_start..end].chars().count();
        LineCol {
            line: saturate(line_index + 1),
            column: saturate(column + 1),
        }
    }

    /// The byte offset of a 1-based `line` and 0-based character `column`,
    /// clamped to the end of that line. Parsers that count characters (like
    /// the YAML scanner) use this to turn their markers into byte offsets.
    #[must_use]
    pub fn offset_of(&self, line: usize, char_column: usize) -> usize {
        let Some(&line_start) = self.line_starts.get(line.saturating_sub(1)) else {
            return self.text.len();
        };
        let line_start = line_start as usize;
        let rest = &self.text[line_start..];
        let line_text = rest.split_inclusive('\n').next().unwrap_or("");
        if line_text.is_ascii() {
            return line_start + char_column.min(line_text.len());
        }
        line_start
            + line_text
                .char_indices()
                .nth(char_column)
                .map_or(line_text.len(), |(i, _)| i)
    }
}

/// All sources of one run, addressed by [`SourceId`].
///
/// A database can extend a shared, frozen one ([`SourceDb::extending`]):
/// a long-lived catalogue keeps its sources in an `Arc<SourceDb>` and each
/// request registers its own files in a child, whose ids continue after the
/// base's, so spans from both resolve through the child.
#[derive(Debug, Default)]
pub struct SourceDb {
    base: Option<Arc<SourceDb>>,
    first: usize,
    files: Vec<SourceFile>,
}

impl SourceDb {
    /// An empty database.
    #[must_use]
    pub fn new() -> SourceDb {
        SourceDb::default()
    }

    /// An empty database that also resolves every id of `base`.
    #[must_use]
    pub fn extending(base: Arc<SourceDb>) -> SourceDb {
        SourceDb {
            first: base.len(),
            base: Some(base),
            files: Vec::new(),
        }
    }

    /// How many sources resolve here, the base's included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.first + self.files.len()
    }

    /// Whether no source resolves here.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every source that resolves here, the base's first, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &SourceFile> {
        let base: Box<dyn Iterator<Item = &SourceFile>> = match &self.base {
            Some(base) => Box::new(base.iter()),
            None => Box::new(std::iter::empty()),
        };
        base.chain(&self.files)
    }

    /// Registers a source and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> SourceId {
        let id = SourceId(saturate(self.len()));
        self.files.push(SourceFile::new(name.into(), text.into()));
        id
    }

    /// The source behind `id`.
    ///
    /// # Panics
    /// When `id` was not handed out by this database or its base.
    #[must_use]
    pub fn get(&self, id: SourceId) -> &SourceFile {
        match (&self.base, id.index().checked_sub(self.first)) {
            (_, Some(own)) => &self.files[own],
            (Some(base), None) => base.get(id),
            (None, None) => unreachable!("a database without a base starts at id 0"),
        }
    }

    /// The id of the source registered as `name`, the latest when several
    /// are.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<SourceId> {
        let index = self
            .iter()
            .enumerate()
            .filter(|(_, file)| file.name() == name)
            .last()?
            .0;
        Some(SourceId(saturate(index)))
    }

    /// The file name and start position of a span.
    #[must_use]
    pub fn locate(&self, span: Span) -> (&str, LineCol) {
        let file = self.get(span.source);
        (file.name(), file.line_col(span.start))
    }

    /// The span in the file of `range`, byte offsets into `value`, the
    /// string a scalar written at `scalar` stands for: an error inside an
    /// expression can then point at its character.
    ///
    /// Found when the value's text appears in the file as written (a plain
    /// or quoted scalar on one line, a literal block (`|`) whose lines
    /// appear, indented, one per line), or when decoding the written text
    /// gives the value: escapes of double-quoted YAML and JSON strings,
    /// `''` in single quotes, and line folding of quoted and plain scalars
    /// are undone. `None` when the scalar is written otherwise (a folded
    /// block `>`), for the caller to fall back on the whole scalar.
    #[must_use]
    pub fn span_in_scalar(
        &self,
        scalar: Span,
        value: &str,
        range: std::ops::Range<usize>,
    ) -> Option<Span> {
        let raw = self.snippet(scalar);
        if range.start > range.end || range.end > value.len() {
            return None;
        }
        let at = |offset: usize| scalar.start as usize + offset;
        if let Some(offsets) = folded_offsets(raw, value) {
            return Some(Span::new(
                scalar.source,
                at(offsets[range.start]),
                at(offsets[range.end]),
            ));
        }
        if !value.contains('\n') {
            // A plain scalar is its value as written: no search.
            let start = if raw.ends_with(value) {
                raw.len() - value.len()
            } else {
                raw.rfind(value)?
            };
            return Some(Span::new(
                scalar.source,
                at(start + range.start),
                at(start + range.end),
            ));
        }
        // A literal block: each line of the value on a line of its own,
        // indented (the span may or may not include the `|` header line);
        // the range must lie within one line.
        let line = value[..range.start].matches('\n').count();
        let line_start = value[..range.start].rfind('\n').map_or(0, |i| i + 1);
        let line_text = value[line_start..].split('\n').next().unwrap_or_default();
        if range.end > line_start + line_text.len() {
            return None;
        }
        let mut offset = 0;
        let mut raw_lines = raw.split_inclusive('\n').peekable();
        if let Some(header) = raw_lines.next_if(|first| first.trim_start().starts_with(['|', '>']))
        {
            if !header.trim_start().starts_with('|') {
                return None;
            }
            offset += header.len();
        }
        for (index, raw_line) in raw_lines.enumerate() {
            let content = raw_line.trim_end_matches(['\n', '\r']);
            if index == line {
                if !content.ends_with(line_text) {
                    return None;
                }
                let start = offset + content.len() - line_text.len() + (range.start - line_start);
                return Some(Span::new(scalar.source, at(start), at(start + range.len())));
            }
            offset += raw_line.len();
        }
        None
    }

    /// The text a span covers.
    #[must_use]
    pub fn snippet(&self, span: Span) -> &str {
        self.get(span.source)
            .text()
            .get(span.range())
            .unwrap_or_default()
    }
}

/// For a quoted scalar (YAML double- or single-quoted, JSON) or a plain
/// scalar folded over several lines, written as `raw`: the offset in `raw`
/// of each byte of `value` (and one past its end), when decoding `raw`
/// gives `value`. Escapes (`\"`, `\\`, `\u00e9`, `''`) and line folding
/// (a line break is a space, each empty line a `\n`) are undone, so a
/// position inside the value maps to the character written in the file.
fn folded_offsets(raw: &str, value: &str) -> Option<Vec<usize>> {
    let (quote, body_start) = match raw.as_bytes().first() {
        Some(b'"') => (Some('"'), 1),
        Some(b'\'') => (Some('\''), 1),
        // A plain scalar on one line is found as written by the caller.
        _ if raw.contains('\n') => (None, 0),
        _ => return None,
    };
    let body = match quote {
        Some(quote) => raw.get(body_start..raw.rfind(quote).filter(|&end| end > 0)?)?,
        None => raw,
    };
    let mut decoded = String::with_capacity(value.len());
    let mut offsets = Vec::with_capacity(value.len() + 1);
    let push = |decoded: &mut String, offsets: &mut Vec<usize>, ch: char, at: usize| {
        for _ in 0..ch.len_utf8() {
            offsets.push(body_start + at);
        }
        decoded.push(ch);
    };
    let mut chars = body.char_indices().peekable();
    while let Some((at, ch)) = chars.next() {
        match ch {
            '\\' if quote == Some('"') => {
                if let Escaped::Char(decoded_char) = escape(&mut chars)? {
                    push(&mut decoded, &mut offsets, decoded_char, at);
                }
            }
            '\'' if quote == Some('\'') => {
                chars.next_if(|(_, c)| *c == '\'')?;
                push(&mut decoded, &mut offsets, '\'', at);
            }
            '\n' | '\r' => {
                while decoded.ends_with([' ', '\t']) {
                    decoded.pop();
                    offsets.pop();
                }
                let mut empty_lines = 0;
                loop {
                    while chars
                        .next_if(|(_, c)| matches!(c, ' ' | '\t' | '\r'))
                        .is_some()
                    {}
                    if chars.next_if(|(_, c)| *c == '\n').is_none() {
                        break;
                    }
                    empty_lines += 1;
                }
                if empty_lines == 0 {
                    push(&mut decoded, &mut offsets, ' ', at);
                }
                for _ in 0..empty_lines {
                    push(&mut decoded, &mut offsets, '\n', at);
                }
            }
            _ => push(&mut decoded, &mut offsets, ch, at),
        }
    }
    offsets.push(body_start + body.len());
    (decoded == value).then_some(offsets)
}

/// What a double-quoted escape stands for.
enum Escaped {
    /// A character.
    Char(char),
    /// An escaped line break: the lines are joined.
    LineJoin,
}

/// What the escape after a `\\` stands for; `None` when malformed.
fn escape(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) -> Option<Escaped> {
    let (_, escape) = chars.next()?;
    let decoded = match escape {
        'u' | 'x' | 'U' => {
            let digits = match escape {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let mut code = 0u32;
            for _ in 0..digits {
                code = code * 16 + chars.next()?.1.to_digit(16)?;
            }
            if (0xD800..0xDC00).contains(&code) {
                // A JSON surrogate pair: `\uD83D\uDE00`.
                let (_, '\\') = chars.next()? else {
                    return None;
                };
                let (_, 'u') = chars.next()? else {
                    return None;
                };
                let mut low = 0u32;
                for _ in 0..4 {
                    low = low * 16 + chars.next()?.1.to_digit(16)?;
                }
                code = 0x10000 + ((code - 0xD800) << 10) + (low.checked_sub(0xDC00)?);
            }
            char::from_u32(code)?
        }
        'n' => '\n',
        't' | '\t' => '\t',
        'r' => '\r',
        'b' => '\u{8}',
        'f' => '\u{c}',
        '0' => '\0',
        'a' => '\u{7}',
        'v' => '\u{b}',
        'e' => '\u{1b}',
        ' ' => ' ',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        '"' | '\\' | '/' => escape,
        '\n' => {
            while chars.next_if(|(_, c)| matches!(c, ' ' | '\t')).is_some() {}
            return Some(Escaped::LineJoin);
        }
        _ => return None,
    };
    Some(Escaped::Char(decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_from_one() {
        let mut db = SourceDb::new();
        let id = db.add("a.yaml", "ab\nçd: x\n");
        let file = db.get(id);
        assert_eq!(file.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(file.line_col(3), LineCol { line: 2, column: 1 });
        // `d` follows the two-byte `ç`.
        assert_eq!(file.line_col(5), LineCol { line: 2, column: 2 });
        assert_eq!(file.offset_of(2, 1), 5);
        assert_eq!(file.offset_of(9, 0), file.text().len());
    }

    #[test]
    fn a_child_database_resolves_its_base() {
        let mut base = SourceDb::new();
        let shared = base.add("catalogue.yaml", "a: 1\n");
        let mut child = SourceDb::extending(Arc::new(base));
        let own = child.add("request.yaml", "b: 2\n");
        assert_eq!(child.len(), 2);
        assert_eq!(child.get(shared).name(), "catalogue.yaml");
        assert_eq!(child.get(own).name(), "request.yaml");
        let names: Vec<&str> = child.iter().map(SourceFile::name).collect();
        assert_eq!(names, ["catalogue.yaml", "request.yaml"]);
    }

    #[test]
    fn ranges_inside_scalars_map_to_the_file() {
        let mut db = SourceDb::new();
        let text = "a: x + y\nb: 'p ?? q'\nc: |\n  one\n  two ${z}\nd: \"e\\tf\"\n";
        let id = db.add("s.yaml", text);
        let scalar = |needle: &str, len: usize| {
            let start = text.find(needle).unwrap();
            Span::new(id, start, start + len)
        };
        // Plain: `y`.
        let span = db
            .span_in_scalar(scalar("x + y", 5), "x + y", 4..5)
            .unwrap();
        assert_eq!(db.snippet(span), "y");
        // Quoted: `q`.
        let span = db
            .span_in_scalar(scalar("'p ?? q'", 8), "p ?? q", 5..6)
            .unwrap();
        assert_eq!(db.snippet(span), "q");
        // Literal block (the header in the span or not): `z` on the second line.
        let body = scalar("one\n  two", "one\n  two ${z}\n".len());
        let span = db.span_in_scalar(body, "one\ntwo ${z}\n", 10..11).unwrap();
        assert_eq!(db.snippet(span), "z");
        let block = scalar("|\n  one", "|\n  one\n  two ${z}\n".len());
        let value = "one\ntwo ${z}\n";
        let span = db.span_in_scalar(block, value, 10..11).unwrap();
        assert_eq!(db.snippet(span), "z");
        assert_eq!(db.locate(span).1, LineCol { line: 5, column: 9 });
        // Escapes are undone: `f` after `\t`.
        let span = db.span_in_scalar(scalar("\"e", 6), "e\tf", 2..3).unwrap();
        assert_eq!(db.snippet(span), "f");
    }

    #[test]
    fn ranges_inside_escaped_and_folded_scalars_map_to_the_file() {
        let mut db = SourceDb::new();
        let text = concat!(
            "{\"a\": \"${f(\\\"x\\\", \\u00e9, y)}\",\n",
            " \"b\": 'it''s ${z}'}\n",
            "c: ${list(\n    p,\n\n    q)}\n",
        );
        let id = db.add("s.yaml", text);
        let scalar = |needle: &str, end: &str| {
            let start = text.find(needle).unwrap();
            let end = start + text[start..].find(end).unwrap() + end.len();
            Span::new(id, start, end)
        };
        let json = scalar("\"${f", ")}\"");
        let value = "${f(\"x\", \u{e9}, y)}";
        let y = value.find('y').unwrap();
        let span = db.span_in_scalar(json, value, y..y + 1).unwrap();
        assert_eq!(db.snippet(span), "y");
        let e = value.find('\u{e9}').unwrap();
        let span = db.span_in_scalar(json, value, e..e + 2).unwrap();
        assert_eq!(db.snippet(span), "\\u00e9");
        let quoted = scalar("'it''s", "}'");
        let value = "it's ${z}";
        let span = db.span_in_scalar(quoted, value, 7..8).unwrap();
        assert_eq!(db.snippet(span), "z");
        let plain = scalar("${list(\n", "q)}");
        let value = "${list( p,\nq)}";
        let span = db.span_in_scalar(plain, value, 11..12).unwrap();
        assert_eq!(db.snippet(span), "q");
        assert_eq!(db.locate(span).1, LineCol { line: 6, column: 5 });
    }

    #[test]
    fn spans_locate_in_their_file() {
        let mut db = SourceDb::new();
        db.add("first", "x");
        let id = db.add("second", "a: 1\nb: 2\n");
        let span = Span::new(id, 5, 6);
        assert_eq!(db.locate(span), ("second", LineCol { line: 2, column: 1 }));
        assert_eq!(db.snippet(span), "b");
    }
}

//! Field paths: how a node is named in diagnostics and strategy registries.
//!
//! A path is a list of segments: mapping keys and sequence indices. It is
//! written `storages.home.claimSpec.accessModes[0]`; a key that is not a
//! plain identifier (letters, digits, `_`, `-`, `/`, `$`, not empty) is quoted
//! as `["key.with.dots"]` with JSON string escapes. The empty path (the
//! document root) is written `$`.
//!
//! [`FieldPath::parse`] reads the same syntax back, and also accepts `*` as
//! a segment, which strategy registries use as a one-segment wildcard.

use std::fmt;

/// One step of a field path. Segments order keys before indices, indices
/// by number, so paths sort as a tree is walked.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Segment {
    /// A mapping key.
    Key(String),
    /// A sequence index, from 0.
    Index(usize),
    /// `*`: any one key (patterns only).
    Wildcard,
}

/// One step down a tree, borrowed from it. A walk keeps its way down as a
/// trail of steps, pushed and popped, and builds a [`FieldPath`]
/// ([`FieldPath::join`]) only for what it reports: copying a path at every
/// node was a measurable part of walking a large document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStep<'a> {
    /// A mapping key.
    Key(&'a str),
    /// A sequence index, from 0.
    Index(usize),
}

/// A path from a document root to a node; paths order segment by segment.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldPath(Vec<Segment>);

/// Why a path could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathParseError {
    /// Byte offset of the problem in the path text.
    pub offset: usize,
    /// What is wrong, lowercase.
    pub message: String,
}

impl fmt::Display for PathParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.message, self.offset)
    }
}

impl std::error::Error for PathParseError {}

impl FieldPath {
    /// The root path.
    #[must_use]
    pub fn root() -> FieldPath {
        FieldPath(Vec::new())
    }

    /// The segments, root first.
    #[must_use]
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// Appends a segment.
    pub fn push(&mut self, segment: Segment) {
        self.0.push(segment);
    }

    /// Removes the last segment.
    pub fn pop(&mut self) -> Option<Segment> {
        self.0.pop()
    }

    /// A copy with `key` appended.
    #[must_use]
    pub fn key(&self, key: &str) -> FieldPath {
        let mut path = self.clone();
        path.push(Segment::Key(key.to_owned()));
        path
    }

    /// A copy with `index` appended.
    #[must_use]
    pub fn index(&self, index: usize) -> FieldPath {
        let mut path = self.clone();
        path.push(Segment::Index(index));
        path
    }

    /// A copy with `steps` appended.
    #[must_use]
    pub fn join(&self, steps: &[PathStep<'_>]) -> FieldPath {
        let mut path = self.clone();
        path.0.extend(steps.iter().map(|step| match step {
            PathStep::Key(key) => Segment::Key((*key).to_owned()),
            PathStep::Index(index) => Segment::Index(*index),
        }));
        path
    }

    /// Reads a written path (`a.b[0]["c.d"]`, `apps.*.start`).
    pub fn parse(text: &str) -> Result<FieldPath, PathParseError> {
        PathParser { text, pos: 0 }.parse()
    }
}

impl From<Vec<Segment>> for FieldPath {
    fn from(segments: Vec<Segment>) -> FieldPath {
        FieldPath(segments)
    }
}

/// Whether a key can be written bare in a path.
fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key != "*"
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '$'))
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("$");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if is_plain_key(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(key)?;
                }
                Segment::Key(key) => {
                    let quoted = serde_json::to_string(key).map_err(|_| fmt::Error)?;
                    write!(f, "[{quoted}]")?;
                }
                Segment::Index(index) => write!(f, "[{index}]")?,
                Segment::Wildcard => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str("*")?;
                }
            }
        }
        Ok(())
    }
}

struct PathParser<'a> {
    text: &'a str,
    pos: usize,
}

impl PathParser<'_> {
    fn error(&self, message: &str) -> PathParseError {
        PathParseError {
            offset: self.pos,
            message: message.to_owned(),
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn parse(mut self) -> Result<FieldPath, PathParseError> {
        let mut segments = Vec::new();
        if self.text == "$" {
            return Ok(FieldPath(segments));
        }
        if self.text.is_empty() {
            return Err(self.error("empty path"));
        }
        let mut expect_key = true;
        while self.pos < self.text.len() {
            if self.rest().starts_with('[') {
                segments.push(self.bracket()?);
                expect_key = false;
            } else if expect_key {
                segments.push(self.bare_key()?);
                expect_key = false;
            } else if self.rest().starts_with('.') {
                self.pos += 1;
                expect_key = true;
                if self.pos == self.text.len() {
                    return Err(self.error("path ends with `.`"));
                }
            } else {
                return Err(self.error("expected `.` or `[`"));
            }
        }
        Ok(FieldPath(segments))
    }

    fn bare_key(&mut self) -> Result<Segment, PathParseError> {
        let len = self.rest().find(['.', '[']).unwrap_or(self.rest().len());
        let key = self.rest()[..len].to_owned();
        if key.is_empty() {
            return Err(self.error("empty key"));
        }
        self.pos += len;
        Ok(if key == "*" {
            Segment::Wildcard
        } else {
            Segment::Key(key)
        })
    }

    fn bracket(&mut self) -> Result<Segment, PathParseError> {
        self.pos += 1;
        if self.rest().starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(self.rest()).into_iter::<String>();
            let Some(Ok(key)) = stream.next() else {
                return Err(self.error("unterminated or invalid quoted key"));
            };
            self.pos += stream.byte_offset();
            return self.close(Segment::Key(key));
        }
        let len = self.rest().find(']').unwrap_or(self.rest().len());
        let digits = &self.rest()[..len];
        let index = digits
            .parse::<usize>()
            .map_err(|_| self.error("expected an index or a quoted key inside `[]`"))?;
        self.pos += len;
        self.close(Segment::Index(index))
    }

    fn close(&mut self, segment: Segment) -> Result<Segment, PathParseError> {
        if self.rest().starts_with(']') {
            self.pos += 1;
            Ok(segment)
        } else {
            Err(self.error("expected `]`"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(text: &str) {
        let path = FieldPath::parse(text).unwrap();
        assert_eq!(path.to_string(), text);
    }

    #[test]
    fn paths_print_and_parse_back() {
        roundtrip("storages.home.claimSpec.accessModes[0]");
        roundtrip(r#"metadata.annotations["example.com/name"]"#);
        roundtrip(r#"["a \"quoted\" key"][3][4].x"#);
        roundtrip("apps.*.start");
        roundtrip("$");
    }

    #[test]
    fn keys_that_need_quoting_are_quoted() {
        let path = FieldPath::root().key("key.with.dots").index(2).key("*");
        assert_eq!(path.to_string(), r#"["key.with.dots"][2]["*"]"#);
        assert_eq!(FieldPath::parse(&path.to_string()).unwrap(), path);
    }

    #[test]
    fn malformed_paths_are_rejected_with_offsets() {
        assert_eq!(FieldPath::parse("a..b").unwrap_err().offset, 2);
        assert_eq!(FieldPath::parse("a[x]").unwrap_err().offset, 2);
        assert_eq!(FieldPath::parse("a.").unwrap_err().offset, 2);
        assert!(FieldPath::parse(r#"a["b"#).is_err());
        assert!(FieldPath::parse("").is_err());
    }
}

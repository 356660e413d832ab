//! YAML 1.2 loading through `saphyr-parser`'s event API.
//!
//! The parser reports every event with its span, so each node of the tree
//! points at real text. On top of the events this module:
//! - resolves plain scalars by the core schema ([`crate::scalar`]) and keeps
//!   local tags (`!cel`) on the node, unresolved;
//! - expands aliases, counting the nodes and the bytes of text each
//!   expansion adds against [`Limits::max_alias_nodes`] and
//!   [`Limits::max_alias_bytes`], so a "billion laughs", or one long string
//!   referred to a hundred thousand times, is an error before it is built;
//! - applies YAML 1.1 merge keys (`<<: *base`, `<<: [*a, *b]`): the merged
//!   keys come first, in the order of their sources, earlier sources winning,
//!   then the mapping's own keys, which override merged ones in place;
//! - reports duplicate keys with both positions, keeping the first;
//! - bounds nesting by [`Limits::max_depth`] (flow collections are also
//!   capped at 255 levels by the scanner itself);
//! - skips an empty document (`---` followed by nothing), as `kubectl` does;
//! - hands out the entries of one top-level section as each is complete,
//!   when asked ([`Handoff`]), so that work on them starts while the rest
//!   of the file is read.
//!
//! A scanner error ends the stream: the documents completed before it are
//! kept, and every problem found until then is reported.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::ControlFlow;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Span as EventSpan, Tag as EventTag};

use crate::error::{AliasLimit, SyntaxError};
use crate::node::{Entry, Mapping, Node, Tag, Value};
use crate::path::{FieldPath, Segment};
use crate::scalar::{
    Resolved, resolve_float, resolve_int, resolve_null_or_bool, resolve_plain, resolve_plain_1_1,
};
use crate::source::{SourceFile, SourceId, Span};
use crate::{HandedEntry, Handoff, Limits, NodeProperty};

/// The flow nesting bound built into the scanner.
const SCANNER_FLOW_LIMIT: usize = 255;
const CORE_TAG_HANDLE: &str = "tag:yaml.org,2002:";

/// How plain scalars are resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schema {
    /// The YAML 1.2 core schema.
    Core,
    /// YAML 1.1, as go-yaml resolves it.
    Yaml11,
}

/// Parses every document of a YAML stream, handing out the entries
/// `handoff` asks for (each leaves a stand-in in its place).
pub(crate) fn parse(
    file: &SourceFile,
    source: SourceId,
    limits: &Limits,
    schema: Schema,
    handoff: Option<Handoff<'_>>,
) -> (Vec<Node>, Vec<SyntaxError>, Vec<NodeProperty>) {
    let mut builder = Builder {
        schema,
        handoff,
        file,
        source,
        ascii: file.text().is_ascii(),
        limits,
        stack: Vec::new(),
        depth: 0,
        documents: Vec::new(),
        anchors: HashMap::new(),
        alias_nodes: 0,
        alias_bytes: 0,
        errors: Vec::new(),
        properties: Vec::new(),
    };
    let mut parser = Parser::new_from_str(file.text());
    while let Some(next) = parser.next_event() {
        let flow = match next {
            Ok((event, span)) => builder.event(event, span),
            Err(error) => {
                builder.scan_error(error.marker(), error.info());
                ControlFlow::Break(())
            }
        };
        if flow.is_break() {
            break;
        }
    }
    (builder.documents, builder.errors, builder.properties)
}

enum PendingKey {
    Key { name: String, span: Span },
    Merge,
    Discard,
}

enum FrameKind {
    Document(Option<Node>),
    Seq(Vec<Node>),
    Map {
        map: Mapping,
        pending: Option<PendingKey>,
        merges: Vec<Node>,
    },
}

struct Frame {
    kind: FrameKind,
    start: usize,
    last_end: usize,
    tag: Option<Tag>,
    anchor: usize,
}

/// An anchored node with the size and depth an alias to it adds.
struct Anchored {
    node: Node,
    count: usize,
    bytes: usize,
    depth: usize,
}

struct Builder<'a, 'h> {
    schema: Schema,
    handoff: Option<Handoff<'h>>,
    file: &'a SourceFile,
    source: SourceId,
    ascii: bool,
    limits: &'a Limits,
    stack: Vec<Frame>,
    depth: usize,
    documents: Vec<Node>,
    anchors: HashMap<usize, Anchored>,
    alias_nodes: usize,
    alias_bytes: usize,
    errors: Vec<SyntaxError>,
    properties: Vec<NodeProperty>,
}

impl Builder<'_, '_> {
    /// A plain scalar's value under the schema being read.
    fn resolve(&self, text: &str) -> Resolved {
        match self.schema {
            Schema::Core => resolve_plain(text),
            Schema::Yaml11 => resolve_plain_1_1(text),
        }
    }

    fn offset(&self, marker: &Marker) -> usize {
        if self.ascii {
            marker.index()
        } else {
            self.file.offset_of(marker.line(), marker.col())
        }
    }

    fn span(&self, span: &EventSpan) -> Span {
        Span::new(
            self.source,
            self.offset(&span.start),
            self.offset(&span.end),
        )
    }

    fn scan_error(&mut self, marker: &Marker, info: &str) {
        let at = self.offset(marker);
        let span = Span::new(self.source, at, at);
        self.errors.push(if info == "recursion limit exceeded" {
            SyntaxError::TooDeep {
                span,
                limit: self.limits.max_depth.min(SCANNER_FLOW_LIMIT),
            }
        } else {
            SyntaxError::Yaml {
                span,
                message: info.to_owned(),
            }
        });
    }

    fn event(&mut self, event: Event<'_>, event_span: EventSpan) -> ControlFlow<()> {
        let span = self.span(&event_span);
        self.record_properties(&event, span);
        match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd => {}
            Event::DocumentStart(_) => self.open(FrameKind::Document(None), span, None, 0),
            Event::DocumentEnd => {
                if let Some(Frame {
                    kind: FrameKind::Document(Some(root)),
                    ..
                }) = self.stack.pop()
                {
                    self.documents.push(root);
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                if self.expects_key() {
                    // Keys are kept as written, whatever their tag.
                    if anchor != 0 {
                        let node = Node::new(Value::String(text.to_string()), span);
                        let anchored = Anchored {
                            node,
                            count: 1,
                            bytes: text.len(),
                            depth: 0,
                        };
                        self.anchors.insert(anchor, anchored);
                    }
                    self.key(text, style, span);
                } else if text.is_empty()
                    && style == ScalarStyle::Plain
                    && tag.is_none()
                    && matches!(
                        self.stack.last(),
                        Some(Frame {
                            kind: FrameKind::Document(_),
                            ..
                        })
                    )
                {
                    // An empty document: nothing to keep.
                } else {
                    let tag = tag.map(|tag| written_tag(&tag));
                    let node = self.scalar(text, style, tag, span);
                    self.complete(node, anchor);
                }
            }
            Event::Alias(anchor) => return self.alias(anchor, span),
            Event::SequenceStart(anchor, tag) => {
                let tag = collection_tag(tag.as_deref(), "seq");
                return self.open_collection(FrameKind::Seq(Vec::new()), span, tag, anchor);
            }
            Event::MappingStart(anchor, tag) => {
                let tag = collection_tag(tag.as_deref(), "map");
                let kind = FrameKind::Map {
                    map: Mapping::default(),
                    pending: None,
                    merges: Vec::new(),
                };
                return self.open_collection(kind, span, tag, anchor);
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(span),
        }
        ControlFlow::Continue(())
    }

    /// Notes the anchor, tag or alias an event carries, for dialects whose
    /// files may not use them.
    fn record_properties(&mut self, event: &Event<'_>, span: Span) {
        let (anchor, tag) = match event {
            Event::Scalar(_, _, anchor, tag) => (*anchor, tag.as_deref()),
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                (*anchor, tag.as_deref())
            }
            Event::Alias(_) => {
                self.properties.push(NodeProperty::Alias(span));
                return;
            }
            _ => return,
        };
        if anchor != 0 {
            self.properties.push(NodeProperty::Anchor(span));
        }
        if let Some(tag) = tag {
            self.properties
                .push(NodeProperty::Tag(written_tag(tag), span));
        }
    }

    fn open(&mut self, kind: FrameKind, span: Span, tag: Option<Tag>, anchor: usize) {
        let start = span.start as usize;
        self.stack.push(Frame {
            kind,
            start,
            last_end: start,
            tag,
            anchor,
        });
    }

    fn open_collection(
        &mut self,
        kind: FrameKind,
        span: Span,
        tag: Option<Tag>,
        anchor: usize,
    ) -> ControlFlow<()> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            self.errors.push(SyntaxError::TooDeep {
                span,
                limit: self.limits.max_depth,
            });
            return ControlFlow::Break(());
        }
        self.open(kind, span, tag, anchor);
        ControlFlow::Continue(())
    }

    fn close(&mut self, end_span: Span) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        self.depth -= 1;
        // Flow collections end at their bracket; a block collection's end
        // event sits at the next token, possibly lines later, so it ends
        // with its last child instead.
        let end = if end_span.start < end_span.end {
            end_span.end as usize
        } else {
            frame.last_end
        };
        let span = Span::new(self.source, frame.start, end);
        let value = match frame.kind {
            FrameKind::Seq(items) => Value::Seq(items),
            FrameKind::Map { map, merges, .. } => Value::Map(apply_merge_keys(map, merges)),
            FrameKind::Document(_) => return,
        };
        let node = Node::new(value, span).with_tag(frame.tag);
        self.complete(node, frame.anchor);
    }

    fn expects_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                kind: FrameKind::Map { pending: None, .. },
                ..
            })
        )
    }

    /// Records a scalar key of the innermost mapping.
    fn key(&mut self, text: Cow<'_, str>, style: ScalarStyle, span: Span) {
        let pending = if style == ScalarStyle::Plain && text == "<<" {
            PendingKey::Merge
        } else if let Some(first) = self.map_key_span(&text) {
            let mut path = self.path();
            path.push(Segment::Key(text.to_string()));
            self.errors.push(SyntaxError::DuplicateKey {
                key: text.into_owned(),
                first,
                second: span,
                path,
            });
            PendingKey::Discard
        } else {
            PendingKey::Key {
                name: text.into_owned(),
                span,
            }
        };
        if let Some(Frame {
            kind: FrameKind::Map { pending: slot, .. },
            last_end,
            ..
        }) = self.stack.last_mut()
        {
            *slot = Some(pending);
            *last_end = span.end as usize;
        }
    }

    fn map_key_span(&self, key: &str) -> Option<Span> {
        match self.stack.last() {
            Some(Frame {
                kind: FrameKind::Map { map, .. },
                ..
            }) => map.get(key).map(|entry| entry.key_span),
            _ => None,
        }
    }

    fn scalar(
        &mut self,
        text: Cow<'_, str>,
        style: ScalarStyle,
        tag: Option<Tag>,
        span: Span,
    ) -> Node {
        let value = match tag.as_ref().map(Tag::as_str) {
            None if style == ScalarStyle::Plain => match self.resolve(&text) {
                Resolved::Value(value) => value,
                Resolved::IntegerOutOfRange => {
                    let path = self.path();
                    self.errors
                        .push(SyntaxError::IntegerOutOfRange { span, path });
                    Value::String(text.into_owned())
                }
            },
            None | Some("!" | "!!str") => Value::String(text.into_owned()),
            Some(core @ ("!!int" | "!!float" | "!!bool" | "!!null")) => {
                if let Some(value) = resolve_core(core, &text) {
                    value
                } else {
                    let path = self.path();
                    self.errors.push(SyntaxError::InvalidTaggedValue {
                        span,
                        tag: core.to_owned(),
                        text: text.to_string(),
                        path,
                    });
                    Value::String(text.into_owned())
                }
            }
            Some(_) => {
                return Node::new(Value::String(text.into_owned()), span).with_tag(tag);
            }
        };
        Node::new(value, span)
    }

    fn alias(&mut self, anchor: usize, span: Span) -> ControlFlow<()> {
        let Some(anchored) = self.anchors.get(&anchor) else {
            self.errors.push(SyntaxError::Yaml {
                span,
                message: "unknown anchor".to_owned(),
            });
            return ControlFlow::Break(());
        };
        self.alias_nodes = self.alias_nodes.saturating_add(anchored.count);
        self.alias_bytes = self.alias_bytes.saturating_add(anchored.bytes);
        let crossed = if self.alias_nodes > self.limits.max_alias_nodes {
            Some(AliasLimit::Nodes(self.limits.max_alias_nodes))
        } else if self.alias_bytes > self.limits.max_alias_bytes {
            Some(AliasLimit::Bytes(self.limits.max_alias_bytes))
        } else {
            None
        };
        if let Some(limit) = crossed {
            self.errors
                .push(SyntaxError::AliasExpansion { span, limit });
            return ControlFlow::Break(());
        }
        // Aliases nest anchored trees inside each other: the depth bound
        // holds for the expanded tree, not only for the text.
        if self.depth + anchored.depth > self.limits.max_depth {
            self.errors.push(SyntaxError::TooDeep {
                span,
                limit: self.limits.max_depth,
            });
            return ControlFlow::Break(());
        }
        let node = anchored.node.clone();
        if self.expects_key() {
            match scalar_key_text(&node.value) {
                Some(text) => self.key(Cow::Owned(text), ScalarStyle::DoubleQuoted, span),
                None => self.complete(node, 0),
            }
        } else {
            self.complete(node, 0);
        }
        ControlFlow::Continue(())
    }

    /// Attaches a finished node to the innermost open collection.
    fn complete(&mut self, node: Node, anchor: usize) {
        if anchor != 0 {
            let anchored = Anchored {
                node: node.clone(),
                count: node.count(),
                bytes: node.text_bytes(),
                depth: node.depth(),
            };
            self.anchors.insert(anchor, anchored);
        }
        let path = match self.stack.last() {
            Some(Frame {
                kind: FrameKind::Map { pending, .. },
                ..
            }) if !matches!(pending, Some(PendingKey::Key { .. } | PendingKey::Discard)) => {
                Some(self.path())
            }
            _ => None,
        };
        let hands_off = self.hands_off();
        let Some(frame) = self.stack.last_mut() else {
            return;
        };
        frame.last_end = frame.last_end.max(node.span.end as usize);
        match &mut frame.kind {
            FrameKind::Document(slot) => *slot = Some(node),
            FrameKind::Seq(items) => items.push(node),
            FrameKind::Map {
                map,
                pending,
                merges,
            } => match pending.take() {
                None => {
                    // Only a collection reaches here as a key: scalars go through `key`.
                    *pending = Some(PendingKey::Discard);
                    self.errors.push(SyntaxError::ComplexKey {
                        span: node.span,
                        path: path.unwrap_or_default(),
                    });
                }
                Some(PendingKey::Key { name, span }) => {
                    let value = match self.handoff.as_mut() {
                        Some(handoff) if hands_off => {
                            let stand_in = Node::new(Value::Null, node.span);
                            (handoff.give)(HandedEntry {
                                key: name.clone(),
                                key_span: span,
                                value: node,
                            });
                            stand_in
                        }
                        _ => node,
                    };
                    map.insert(
                        name,
                        Entry {
                            key_span: span,
                            value,
                        },
                    );
                }
                Some(PendingKey::Merge) => match node.value {
                    Value::Map(_) => merges.push(node),
                    Value::Seq(items) if items.iter().all(|item| item.as_map().is_some()) => {
                        merges.extend(items);
                    }
                    ref other => self.errors.push(SyntaxError::InvalidMergeKey {
                        span: node.span,
                        found: other.kind_name(),
                        path: path.unwrap_or_default(),
                    }),
                },
                Some(PendingKey::Discard) => {}
            },
        }
    }

    /// Whether the node being completed is the value of an entry of the
    /// section [`Handoff`] asks for: a key of the mapping under that key of
    /// a document's top-level mapping, neither mapping anchored (an alias
    /// to one would copy the stand-ins).
    fn hands_off(&self) -> bool {
        let Some(handoff) = &self.handoff else {
            return false;
        };
        matches!(
            self.stack.as_slice(),
            [
                Frame {
                    kind: FrameKind::Document(_),
                    ..
                },
                Frame {
                    kind: FrameKind::Map {
                        pending: Some(PendingKey::Key { name, .. }),
                        ..
                    },
                    anchor: 0,
                    ..
                },
                Frame {
                    kind: FrameKind::Map {
                        pending: Some(PendingKey::Key { .. }),
                        ..
                    },
                    anchor: 0,
                    ..
                },
            ] if name == handoff.section
        )
    }

    /// The path of the node being built.
    fn path(&self) -> FieldPath {
        let mut path = FieldPath::root();
        for frame in &self.stack {
            match &frame.kind {
                FrameKind::Seq(items) => path.push(Segment::Index(items.len())),
                FrameKind::Map {
                    pending: Some(PendingKey::Key { name, .. }),
                    ..
                } => path.push(Segment::Key(name.clone())),
                _ => {}
            }
        }
        path
    }
}

/// Merged keys first (earlier sources win), then the mapping's own keys,
/// which replace merged values in place.
fn apply_merge_keys(own: Mapping, merges: Vec<Node>) -> Mapping {
    if merges.is_empty() {
        return own;
    }
    let mut result = Mapping::default();
    for source in merges {
        if let Value::Map(map) = source.value {
            for (key, entry) in map {
                result.entry(key).or_insert(entry);
            }
        }
    }
    for (key, entry) in own {
        result.insert(key, entry);
    }
    result
}

fn resolve_core(tag: &str, text: &str) -> Option<Value> {
    match tag {
        "!!int" => match resolve_int(text)? {
            Resolved::Value(value) => Some(value),
            Resolved::IntegerOutOfRange => None,
        },
        // `!!float 1` is 1.0; the text is read as a float directly, not through an integer.
        "!!float" => resolve_float(text)
            .or_else(|| resolve_int(text).and_then(|_| text.parse().ok()))
            .map(Value::Float),
        _ => resolve_null_or_bool(text).filter(|value| match tag {
            "!!bool" => matches!(value, Value::Bool(_)),
            _ => matches!(value, Value::Null),
        }),
    }
}

/// The text a scalar alias stands for when used as a key.
fn scalar_key_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => Some("null".to_owned()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::String(s) => Some(s.clone()),
        Value::Seq(_) | Value::Map(_) => None,
    }
}

/// A tag in its written form: `!cel`, `!!binary`, or `!<...>` when verbatim.
/// The scanner decodes `%XX` escapes; they are re-encoded so the tag can be
/// written back as it was.
fn written_tag(tag: &EventTag) -> Tag {
    match tag.handle.as_str() {
        CORE_TAG_HANDLE => Tag::new(&format!("!!{}", escape_tag(&tag.suffix, false))),
        "!" => Tag::new(&format!("!{}", escape_tag(&tag.suffix, false))),
        handle => Tag::new(&format!(
            "!<{}>",
            escape_tag(&format!("{handle}{}", tag.suffix), true)
        )),
    }
}

/// `%XX`-encodes what a tag may not hold literally: anything outside the URI
/// characters, and in a shorthand tag also `!`, `,`, `[`, `]`, `{`, `}`.
fn escape_tag(text: &str, verbatim: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        let uri_char = c.is_ascii_alphanumeric() || "-#;/?:@&=+$_.~*'()".contains(c);
        let flow_or_bang = "!,[]{}".contains(c);
        if uri_char || (verbatim && flow_or_bang) {
            escaped.push(c);
        } else {
            let mut buffer = [0; 4];
            for byte in c.encode_utf8(&mut buffer).bytes() {
                let _ = write!(escaped, "%{byte:02X}");
            }
        }
    }
    escaped
}

/// A collection's tag, dropping the core `!!seq`/`!!map` that add nothing.
fn collection_tag(tag: Option<&EventTag>, core: &str) -> Option<Tag> {
    let tag = tag?;
    if (tag.handle == CORE_TAG_HANDLE && tag.suffix == core)
        || (tag.handle == "!" && tag.suffix.is_empty())
    {
        None
    } else {
        Some(written_tag(tag))
    }
}

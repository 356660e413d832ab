//! The protocol's messages over a byte stream, read within a bound.
//!
//! **Framing.** A message is headers (`Content-Length: N`, others
//! ignored), each ended by `\r\n` (a bare `\n` is taken too), an empty
//! line, then `N` bytes of body. The headers of one message may hold
//! [`MAX_HEADER_BYTES`] at most, and `N` may not pass the session's
//! bound ([`DEFAULT_MAX_MESSAGE_BYTES`] unless the caller sets another):
//! a longer announcement is refused before any byte of its body is read.
//! The body is read as it arrives, never allocated at its announced
//! length, so a client that announces much and sends little costs what it
//! sent. A header that breaks these rules, or a stream that ends inside
//! a message, leaves no way to find the next message: it is a
//! [`FramingError`], and the session ends.
//!
//! **Bodies.** Any body that is framed is answered, and the session goes
//! on, as JSON-RPC says:
//!
//! | the body | the answer |
//! |---|---|
//! | not JSON (invalid UTF-8 included) | `-32700` Parse error, `id: null` |
//! | JSON, not an object (`42`, `null`, a string) | `-32600` Invalid Request, `id: null` |
//! | an array (a batch; the protocol has none) | `-32600` Invalid Request, `id: null` |
//! | an object that is no request, notification or response | `-32600` Invalid Request, with its `id` when it has a usable one |
//! | a response that is not valid | nothing: it is dropped ([`Incoming::Dropped`]), an answer is never answered |
//! | a request, a notification, a response | passed on ([`Incoming::Message`]) |
//!
//! A `\uXXXX` escape of a lone UTF-16 surrogate (what JavaScript's
//! `JSON.stringify` writes for a broken surrogate pair, in a buffer's
//! text say) is read as U+FFFD, the replacement character: one UTF-16
//! unit for one, so the positions the client sends later still match
//! the text the server holds.
//!
//! [`stdio`] runs this on standard input and output with a reader and a
//! writer thread, as `lsp_server::Connection::stdio` does, without its
//! trust in the header.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead, Read, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{Exit, Notification as _};
use serde_json::Value;

/// The largest message body read by default: 64 MiB, far above what an
/// editor sends (a whole buffer's text in one change).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 64 << 20;

/// The most bytes the headers of one message may hold.
pub const MAX_HEADER_BYTES: usize = 8 << 10;

/// A stream on which the next message cannot be found: the session ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramingError(String);

impl fmt::Display for FramingError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for FramingError {}

fn broken(message: impl Into<String>) -> FramingError {
    FramingError(message.into())
}

/// One framed body, read.
#[derive(Debug)]
pub enum Incoming {
    /// A request, a notification or a response.
    Message(Message),
    /// A body that is none: the error response it gets.
    Refused(Refusal),
    /// A response that is not valid: answering it would answer an answer
    /// (JSON-RPC's loop between two peers), so it is dropped.
    Dropped,
}

/// The error response to a body that is no message: JSON-RPC's, whose
/// `id` may be `null` (which `lsp_server::Response` cannot say).
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The request's `id` when it had one that can be echoed, else `null`.
    pub id: Value,
    /// `-32700` or `-32600`.
    pub code: i32,
    /// What was wrong.
    pub message: String,
}

impl Refusal {
    fn new(id: Value, code: ErrorCode, message: String) -> Refusal {
        Refusal {
            id,
            code: code as i32,
            message,
        }
    }

    /// The response as JSON text.
    fn to_json(&self) -> String {
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
        .to_string()
    }
}

/// Reads the next message of `input`, its body at most `max_bytes`:
/// `None` when the stream ends between messages.
pub fn read(input: &mut impl BufRead, max_bytes: usize) -> Result<Option<Incoming>, FramingError> {
    let Some(length) = read_headers(input, max_bytes)? else {
        return Ok(None);
    };
    let mut body = Vec::new();
    // `take` grows the buffer as bytes arrive: never the announced length
    // up front.
    let read = input
        .by_ref()
        .take(length as u64)
        .read_to_end(&mut body)
        .map_err(|error| broken(format!("reading a message failed: {error}")))?;
    if read < length {
        return Err(broken(format!(
            "the stream ended {read} bytes into a message of {length} bytes"
        )));
    }
    Ok(Some(decode(&body)))
}

/// Reads one message's headers: the body's length, or `None` at the end
/// of the stream.
fn read_headers(input: &mut impl BufRead, max_bytes: usize) -> Result<Option<usize>, FramingError> {
    let mut length = None;
    let mut left = MAX_HEADER_BYTES;
    let mut first = true;
    loop {
        let mut line = Vec::new();
        input
            .by_ref()
            .take(left as u64)
            .read_until(b'\n', &mut line)
            .map_err(|error| broken(format!("reading a header failed: {error}")))?;
        if line.is_empty() && first {
            return Ok(None);
        }
        first = false;
        left -= line.len();
        if line.pop() != Some(b'\n') {
            return Err(if left == 0 {
                broken(format!(
                    "a message's headers are longer than {MAX_HEADER_BYTES} bytes"
                ))
            } else {
                broken("the stream ended inside a message's headers")
            });
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.is_empty() {
            break;
        }
        let line = String::from_utf8(line).map_err(|_| broken("a header is not UTF-8"))?;
        let Some((name, value)) = line.split_once(':') else {
            return Err(broken(format!("`{}` is not a header", line.escape_debug())));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            length = Some(content_length(value.trim(), max_bytes)?);
        }
    }
    length
        .map(Some)
        .ok_or_else(|| broken("a message has no `Content-Length` header"))
}

/// The value of `Content-Length`, within `max_bytes`.
fn content_length(value: &str, max_bytes: usize) -> Result<usize, FramingError> {
    let not_a_length = || {
        broken(format!(
            "`Content-Length: {}` is not a length",
            value.escape_debug()
        ))
    };
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(not_a_length());
    }
    let too_long = || {
        broken(format!(
            "a message of {value} bytes is longer than the limit of {max_bytes} bytes \
             (`--max-message-bytes`)"
        ))
    };
    // All digits: a number too large to count is too long.
    let length: usize = value.parse().map_err(|_| too_long())?;
    if length > max_bytes {
        return Err(too_long());
    }
    Ok(length)
}

/// A body as the message it is, or the answer it gets.
fn decode(body: &[u8]) -> Incoming {
    let body = replace_lone_surrogates(body);
    let value: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(error) => {
            return Incoming::Refused(Refusal::new(
                Value::Null,
                ErrorCode::ParseError,
                format!("the message is not JSON: {error}"),
            ));
        }
    };
    let invalid = |id: Value, message: String| {
        Incoming::Refused(Refusal::new(id, ErrorCode::InvalidRequest, message))
    };
    let fields = match &value {
        Value::Object(fields) => fields,
        Value::Array(_) => {
            return invalid(
                Value::Null,
                "a batch (an array of messages) is not part of the protocol".to_owned(),
            );
        }
        _ => return invalid(Value::Null, "a message is a JSON object".to_owned()),
    };
    // The `id` an error can echo: a number, a string or `null`.
    let id = fields
        .get("id")
        .filter(|id| id.is_number() || id.is_string())
        .cloned()
        .unwrap_or(Value::Null);
    let is_response = fields.contains_key("result") || fields.contains_key("error");
    let decoded = if fields.contains_key("method") {
        if fields.contains_key("id") {
            serde_json::from_value::<Request>(value).map(Message::Request)
        } else {
            serde_json::from_value::<Notification>(value).map(Message::Notification)
        }
    } else if is_response {
        return serde_json::from_value::<Response>(value).map_or(Incoming::Dropped, |response| {
            Incoming::Message(Message::Response(response))
        });
    } else {
        return invalid(
            id,
            "a message has a `method`, or a `result` or an `error`".to_owned(),
        );
    };
    match decoded {
        Ok(message) => Incoming::Message(message),
        Err(error) => invalid(id, format!("the message is not a valid request: {error}")),
    }
}

/// `body` with every `\uXXXX` escape of a lone surrogate replaced by
/// `\uFFFD`: borrowed when there is none.
fn replace_lone_surrogates(body: &[u8]) -> Cow<'_, [u8]> {
    /// The UTF-16 unit of a `\uXXXX` escape starting at `at`.
    fn unit(body: &[u8], at: usize) -> Option<u16> {
        let escape = body.get(at..at + 6)?;
        if escape[..2] != *b"\\u" {
            return None;
        }
        let hex = std::str::from_utf8(&escape[2..]).ok()?;
        u16::from_str_radix(hex, 16).ok()
    }
    let high = |unit: u16| (0xD800..0xDC00).contains(&unit);
    let low = |unit: u16| (0xDC00..0xE000).contains(&unit);
    let mut repaired: Option<Vec<u8>> = None;
    let mut at = 0;
    let mut copied = 0;
    while at < body.len() {
        if body[at] != b'\\' {
            at += 1;
            continue;
        }
        match unit(body, at) {
            Some(first) if high(first) && unit(body, at + 6).is_some_and(low) => at += 12,
            Some(first) if high(first) || low(first) => {
                let out = repaired.get_or_insert_with(|| Vec::with_capacity(body.len()));
                out.extend_from_slice(&body[copied..at]);
                out.extend_from_slice(b"\\uFFFD");
                at += 6;
                copied = at;
            }
            // Any other escape, `\\` included, is two bytes or more, and
            // none of them starts another.
            _ => at += 2,
        }
    }
    match repaired {
        Some(mut out) => {
            out.extend_from_slice(&body[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(body),
    }
}

/// Writes `message`, framed.
pub fn write(output: &mut impl Write, message: &Message) -> io::Result<()> {
    message.write(output)
}

/// Writes the error response `refusal`, framed.
pub fn write_refusal(output: &mut impl Write, refusal: &Refusal) -> io::Result<()> {
    let text = refusal.to_json();
    write!(output, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    output.flush()
}

/// The threads that move messages between standard input and output and a
/// [`Connection`].
pub struct IoThreads {
    writer: JoinHandle<io::Result<()>>,
    /// Where the reader says why the stream broke, before the session
    /// learns that it stopped.
    broken: Receiver<FramingError>,
}

impl IoThreads {
    /// Waits for the writer to send what the session left (the session's
    /// connection dropped), and gives what ended the stream: a
    /// [`FramingError`], or a broken output. A reader still waiting for
    /// input (the session ended on its own) is not waited for.
    pub fn join(self) -> Result<(), String> {
        let written = self
            .writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
        if let Ok(error) = self.broken.try_recv() {
            return Err(error.to_string());
        }
        written.map_err(|error| format!("writing a message failed: {error}"))
    }
}

/// A connection over standard input and output: messages of at most
/// `max_bytes` read on one thread, written on another; a body that is no
/// message is answered there and then. The reader stops after `exit`, at
/// the end of input, or at a [`FramingError`] (then the session's
/// receiver is disconnected, and [`IoThreads::join`] says why).
#[must_use]
pub fn stdio(max_bytes: usize) -> (Connection, IoThreads) {
    let (to_session, from_client) = crossbeam_channel::bounded::<Message>(0);
    let (to_client, from_session) = crossbeam_channel::bounded::<Message>(0);
    let (refuse, refusals) = crossbeam_channel::unbounded::<Refusal>();
    let (broke, broken) = crossbeam_channel::bounded(1);
    std::thread::spawn(move || {
        let mut input = io::stdin().lock();
        if let Err(error) = read_into(&mut input, max_bytes, &to_session, &refuse) {
            let _ = broke.send(error);
        }
        // Only now is the session's receiver disconnected.
        drop(to_session);
    });
    let writer = std::thread::spawn(move || {
        let mut output = io::stdout().lock();
        write_from(&mut output, &from_session, &refusals)
    });
    let connection = Connection {
        sender: to_client,
        receiver: from_client,
    };
    (connection, IoThreads { writer, broken })
}

/// Reads `input` until it ends, `exit` comes or the session is gone,
/// passing messages to `session` and refusals to `refuse`.
fn read_into(
    input: &mut impl BufRead,
    max_bytes: usize,
    session: &Sender<Message>,
    refuse: &Sender<Refusal>,
) -> Result<(), FramingError> {
    while let Some(incoming) = read(input, max_bytes)? {
        match incoming {
            Incoming::Message(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == Exit::METHOD);
                if session.send(message).is_err() || exit {
                    return Ok(());
                }
            }
            Incoming::Refused(refusal) => {
                if refuse.send(refusal).is_err() {
                    return Ok(());
                }
            }
            Incoming::Dropped => {}
        }
    }
    Ok(())
}

/// Writes what the session sends and the reader refuses, until the
/// session's side is dropped.
fn write_from(
    output: &mut impl Write,
    session: &Receiver<Message>,
    refusals: &Receiver<Refusal>,
) -> io::Result<()> {
    let mut refusals_open = true;
    loop {
        if refusals_open {
            crossbeam_channel::select! {
                recv(session) -> message => match message {
                    Ok(message) => write(output, &message)?,
                    Err(_) => return Ok(()),
                },
                recv(refusals) -> refusal => match refusal {
                    Ok(refusal) => write_refusal(output, &refusal)?,
                    Err(_) => refusals_open = false,
                },
            }
        } else {
            match session.recv() {
                Ok(message) => write(output, &message)?,
                Err(_) => return Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8], max: usize) -> (Vec<Incoming>, Option<FramingError>) {
        let mut input = bytes;
        let mut read_messages = Vec::new();
        loop {
            match read(&mut input, max) {
                Ok(Some(incoming)) => read_messages.push(incoming),
                Ok(None) => return (read_messages, None),
                Err(error) => return (read_messages, Some(error)),
            }
        }
    }

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    fn refusal(incoming: &Incoming) -> Option<(i32, &Value)> {
        match incoming {
            Incoming::Refused(refusal) => Some((refusal.code, &refusal.id)),
            Incoming::Message(_) | Incoming::Dropped => None,
        }
    }

    #[test]
    fn messages_are_read_in_turn() {
        let stream = framed(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#)
            + &framed(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#)
            + "content-length:  2\nContent-Type: x\n\n{}";
        let (read_messages, error) = read_all(stream.as_bytes(), 1000);
        assert_eq!(error, None);
        assert_eq!(read_messages.len(), 3);
        assert!(
            matches!(&read_messages[0], Incoming::Message(Message::Request(r)) if r.method == "initialize")
        );
        assert!(matches!(
            &read_messages[1],
            Incoming::Message(Message::Notification(_))
        ));
        // `{}` is neither a request, a notification nor a response.
        assert_eq!(refusal(&read_messages[2]), Some((-32600, &Value::Null)));
    }

    #[test]
    fn bodies_that_are_no_message_are_refused() {
        let cases: [(&[u8], i32, Value); 9] = [
            (b"{not json", -32700, Value::Null),
            (b"[]", -32600, Value::Null),
            (
                b"[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]",
                -32600,
                Value::Null,
            ),
            (b"42", -32600, Value::Null),
            (b"null", -32600, Value::Null),
            (b"{\"id\":\"\xff\",\"method\":\"x\"}", -32700, Value::Null),
            (b"{\"id\":7,\"method\":42}", -32600, Value::from(7)),
            (b"{\"id\":1.5,\"method\":\"x\"}", -32600, Value::from(1.5)),
            (b"{\"id\":3}", -32600, Value::from(3)),
        ];
        for (body, code, id) in cases {
            let incoming = decode(body);
            assert_eq!(
                refusal(&incoming),
                Some((code, &id)),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn lone_surrogates_read_as_the_replacement_character() {
        let body = br#"{"jsonrpc":"2.0","method":"x","params":["\ud83d","\ud83d\ude00","\\ud83d","\udc00a"]}"#;
        let Incoming::Message(Message::Notification(notification)) = decode(body) else {
            panic!("a notification");
        };
        assert_eq!(
            notification.params,
            serde_json::json!(["\u{fffd}", "😀", "\\ud83d", "\u{fffd}a"])
        );
        assert!(matches!(
            replace_lone_surrogates(br#""\ud83d\ude00""#),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn broken_headers_end_the_stream() {
        let cases = [
            (
                "Content-Length: 9223372036854775807\r\n\r\n",
                "longer than the limit",
            ),
            (
                "Content-Length: 99999999999999999999999\r\n\r\n",
                "longer than the limit",
            ),
            ("Content-Length: 1001\r\n\r\n", "longer than the limit"),
            ("Content-Length: -1\r\n\r\n", "is not a length"),
            ("Content-Length: +1\r\n\r\n", "is not a length"),
            ("Content-Type: x\r\n\r\n{}", "no `Content-Length`"),
            ("Content-Length 2\r\n\r\n{}", "is not a header"),
            (
                "Content-Length: 10\r\n\r\n{}",
                "the stream ended 2 bytes into",
            ),
            ("Content-Length: 10\r\n", "inside a message's headers"),
        ];
        for (stream, expected) in cases {
            let (read_messages, error) = read_all(stream.as_bytes(), 1000);
            assert!(read_messages.is_empty(), "{stream}");
            assert!(
                error.as_ref().is_some_and(|e| e.0.contains(expected)),
                "{stream}: {error:?}"
            );
        }
        let long = format!("X-Long: {}\r\n", "a".repeat(MAX_HEADER_BYTES));
        let (_, error) = read_all(long.as_bytes(), 1000);
        assert!(error.is_some_and(|e| e.0.contains("headers are longer")));
        assert_eq!(read_all(b"", 1000).1, None);
    }

    #[test]
    fn what_is_written_reads_back() {
        let message = Message::Notification(Notification::new(
            "x".to_owned(),
            serde_json::json!({"a": "é"}),
        ));
        let mut out = Vec::new();
        write(&mut out, &message).unwrap_or_default();
        let refused = Refusal::new(Value::Null, ErrorCode::ParseError, "bad".to_owned());
        write_refusal(&mut out, &refused).unwrap_or_default();
        let (read_messages, error) = read_all(&out, 1000);
        assert_eq!(error, None);
        assert!(
            matches!(&read_messages[0], Incoming::Message(Message::Notification(n)) if n.params["a"] == "é")
        );
        // An error response with a `null` id: no response to this server,
        // and never answered.
        assert!(matches!(&read_messages[1], Incoming::Dropped));
    }
}

//! Fuzzes the language server's side of the protocol: arbitrary bytes are
//! what a client writes on the server's standard input. They are read by
//! the framing (`strata_lsp::transport::read`, bodies of at most 1 MiB)
//! until they end or break, and every message read is dispatched by a
//! session (`strata_lsp::serve`) on an in-memory connection; everything the
//! session sends, and every refusal of a body that is no message, is
//! written framed and read back. No input panics, hangs or breaks the
//! framing of what the server writes.
//!
//! Run from this directory with `cargo fuzz run lsp` (nightly, or
//! `RUSTC_BOOTSTRAP=1` on stable).

#![no_main]

use libfuzzer_sys::fuzz_target;
use lsp_server::{Connection, Message};
use strata_lsp::transport::{self, Incoming};

/// The bound on one body: small, so that an input announcing more breaks
/// the framing rather than waiting for bytes that never come.
const MAX_BYTES: usize = 1 << 20;

/// `message` framed, then read back: the same message.
fn round_trip(message: &Message) {
    let mut framed = Vec::new();
    transport::write(&mut framed, message).expect("written to memory");
    let read = transport::read(&mut framed.as_slice(), usize::MAX);
    assert!(
        matches!(read, Ok(Some(Incoming::Message(_)))),
        "what the server writes reads back: {read:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut input = data;
    let mut messages = Vec::new();
    while let Ok(Some(incoming)) = transport::read(&mut input, MAX_BYTES) {
        match incoming {
            Incoming::Message(message) => messages.push(message),
            Incoming::Refused(refusal) => {
                let mut framed = Vec::new();
                transport::write_refusal(&mut framed, &refusal).expect("written to memory");
                let read = transport::read(&mut framed.as_slice(), usize::MAX);
                // An error response whose id may be null: dropped, or read
                // as a response; never a broken frame.
                assert!(matches!(read, Ok(Some(_))), "{read:?}");
            }
            Incoming::Dropped => {}
        }
    }
    let (client, server) = Connection::memory();
    for message in messages {
        client.sender.send(message).expect("the session's side is open");
    }
    let Connection { sender, receiver } = client;
    // The client has said all it will: the session ends once it has read it.
    drop(sender);
    let _ = strata_lsp::serve(&server, &strata_lsp::Settings {
                registry: strata_dialects::registry(),
                ..strata_lsp::Settings::default()
            });
    for message in receiver.try_iter() {
        round_trip(&message);
    }
});

//! The Rust reference core: a complete BabelQueue SDK core.
//!
//! This module knows nothing of manifests, findings, results or the CLI: the suite tooling
//! depends on it, never the reverse. Each submodule states the contract rules it keeps.

pub mod bindings;
pub mod dead_letter;
pub mod envelope;
pub mod idempotency;
pub mod json;
pub mod payload_schema;
pub mod poison;
pub mod redis;
pub mod retry;
pub mod strict;
pub mod text;
pub mod traceparent;

/// Lowercase hexadecimal of `bytes` (trace ids, Redis tokens, checksums).
pub fn lower_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

//! The records the Redis transport appends to its dead-letter list.
//!
//! Invariants: a message the core decodes is dead-lettered as the ADR-0009 move
//! ([`crate::core::dead_letter`]) of the body as it was delivered (attempts unchanged), encoded
//! by the core; a poison body (one the reserve script or the core could not decode) becomes
//! the ADR-0035 record of [`crate::core::poison`] (decisions R13: a byte-level splice, or the
//! `{raw, raw_encoding?}` wrapper), so it is never re-encoded and nothing in it is rounded,
//! nulled or collapsed.

use crate::core::dead_letter::{self, Cause};
use crate::core::envelope::{self, EncodeError, Envelope};
use crate::core::poison::{self, Poison};

/// The dead-letter record of a decoded message.
pub fn message_record(env: &Envelope, cause: &Cause<'_>) -> Result<String, EncodeError> {
    envelope::encode(&dead_letter::dead_letter(env, cause))
}

/// The ADR-0035 dead-letter record of a poison body ([`crate::core::poison`], R13).
pub fn poison_record(raw: &[u8], error: &str, original_queue: &str, failed_at_ms: u64) -> Vec<u8> {
    poison::record(raw, &Poison { original_queue, failed_at_ms, error: Some(error) }).text.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn parse(b: &[u8]) -> Value {
        serde_json::from_slice(b).unwrap()
    }

    #[test]
    fn strict_object_is_spliced_byte_for_byte() {
        let raw = br#"{"job":"urn:x","attempts":"1","n":1e400}"#;
        let rec = poison_record(raw, "bad", "orders", 7);
        let text = String::from_utf8(rec).unwrap();
        assert!(
            text.starts_with(r#"{"job":"urn:x","attempts":"1","n":1e400,"dead_letter":{"reason":"poison""#),
            "{text}"
        );
        assert!(text.ends_with(r#""original_queue":"orders","attempts":0,"lang":"rust"}}"#), "{text}");
    }

    #[test]
    fn empty_object_gets_no_comma() {
        let rec = poison_record(b" { } ", "e", "q", 1);
        let v = parse(&rec);
        assert_eq!(v.as_object().unwrap().len(), 1);
        assert_eq!(v["dead_letter"]["reason"], "poison");
    }

    #[test]
    fn non_strict_bodies_are_wrapped() {
        for raw in [&b"{\"a\":NaN}"[..], b"[1]", b"", b"{\"dead_letter\":1}", b"{\"a\":1} x"] {
            let v = parse(&poison_record(raw, "e", "q", 1));
            assert_eq!(v["raw"], Value::from(std::str::from_utf8(raw).unwrap()), "{raw:?}");
            assert!(v.get("raw_encoding").is_none());
            assert_eq!(v["dead_letter"]["attempts"], 0);
        }
        let v = parse(&poison_record(b"\xff\xfe", "e", "q", 1));
        assert_eq!(v["raw"], "//4=");
        assert_eq!(v["raw_encoding"], "base64");
    }
}

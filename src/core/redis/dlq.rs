//! The records the Redis transport appends to its dead-letter list.
//!
//! Invariants: a message the core decodes is dead-lettered as the ADR-0009 move
//! ([`crate::core::dead_letter`]) of the body as it was delivered (attempts unchanged), encoded
//! by the core; a poison body (one the reserve script or the core could not decode) becomes
//! the ADR-0035 record with `dead_letter = {reason: "poison", error, exception: null,
//! failed_at, original_queue, attempts: 0, lang}` (decisions R13): a byte-level splice of
//! `,"dead_letter":{…}` before the final `}` when the body is one strict RFC 8259 object
//! without a top-level `dead_letter` member, otherwise the wrapper `{raw, dead_letter}` with
//! `raw` the body text (or its padded standard base64 plus `raw_encoding: "base64"` when the
//! body is not UTF-8). A poison body is never re-encoded, so nothing in it is rounded, nulled
//! or collapsed.

use std::fmt;

use base64::Engine as _;
use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::core::dead_letter::{self, Cause, Reason};
use crate::core::envelope::{self, EncodeError, Envelope};
use crate::core::strict::strict_object;

/// The dead-letter record of a decoded message.
pub fn message_record(env: &Envelope, cause: &Cause<'_>) -> Result<String, EncodeError> {
    envelope::encode(&dead_letter::dead_letter(env, cause))
}

/// The ADR-0035 dead-letter record of a poison body.
pub fn poison_record(raw: &[u8], error: &str, original_queue: &str, failed_at_ms: u64) -> Vec<u8> {
    let cause = Cause { reason: Reason::Poison, error: Some(error), exception: None, original_queue, failed_at_ms };
    let block = Value::Object(dead_letter::block(&cause, 0)).to_string();
    if strict_object(raw).is_ok() && !has_top_level_member(raw, "dead_letter") {
        return splice(raw, &block);
    }
    let mut wrapper = Map::new();
    match std::str::from_utf8(raw) {
        Ok(text) => {
            wrapper.insert("raw".into(), Value::from(text));
        }
        Err(_) => {
            wrapper.insert("raw".into(), Value::from(base64::engine::general_purpose::STANDARD.encode(raw)));
            wrapper.insert("raw_encoding".into(), Value::from("base64"));
        }
    }
    let mut out = Value::Object(wrapper).to_string();
    out.pop(); // the closing brace
    out.push_str(",\"dead_letter\":");
    out.push_str(&block);
    out.push('}');
    out.into_bytes()
}

/// Insert `"dead_letter":<block>` before the final `}` of a strict object's text.
fn splice(raw: &[u8], block: &str) -> Vec<u8> {
    let close = raw.iter().rposition(|&b| b == b'}').expect("a strict object ends with '}'");
    let open = raw.iter().position(|&b| b == b'{').expect("a strict object starts with '{'");
    let empty = raw[open + 1..close].iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    let mut out = Vec::with_capacity(raw.len() + block.len() + 16);
    out.extend_from_slice(&raw[..close]);
    if !empty {
        out.push(b',');
    }
    out.extend_from_slice(b"\"dead_letter\":");
    out.extend_from_slice(block.as_bytes());
    out.extend_from_slice(&raw[close..]);
    out
}

/// Does the strict object `raw` have a top-level member named `name`? Reads member names only
/// (values are skipped without building them, so depth and number range do not matter).
fn has_top_level_member(raw: &[u8], name: &str) -> bool {
    struct Finder<'n>(&'n str);
    impl<'de> Visitor<'de> for Finder<'_> {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut found = false;
            while let Some(key) = map.next_key::<String>()? {
                found |= key == self.0;
                map.next_value::<IgnoredAny>()?;
            }
            Ok(found)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(raw);
    // A body that does not scan is treated as already carrying the member: the wrapper is the
    // safe record for anything the splice cannot prove sound.
    de.deserialize_map(Finder(name)).unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn escaped_member_names_are_read_as_names() {
        assert!(has_top_level_member(br#"{"dead\u005fletter":1}"#, "dead_letter"));
        assert!(!has_top_level_member(br#"{"x":{"dead_letter":1}}"#, "dead_letter"));
    }
}

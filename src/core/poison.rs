//! The dead-letter record of a poison body (ADR-0035, error-handling §6; decisions R13).
//!
//! A poison body is one a consumer cannot process as an envelope. Its DLQ record keeps the body
//! losslessly, in one of two shapes:
//!
//! * **splice** — the body is valid UTF-8, exactly one strict RFC 8259 JSON object
//!   ([`super::strict::strict_object`]) and has no top-level member named `dead_letter`: the
//!   record is the body's own bytes with `,"dead_letter":{…}` inserted before its final `}` (no
//!   comma for an empty object). Nothing else changes: no byte of the body is re-encoded,
//!   rounded, nulled, unescaped or collapsed, whatever its numbers (`1e400`, 30-digit
//!   integers), nesting depth or repeated member names.
//! * **wrapper** — everything else (empty, not JSON, not an object, trailing data, a leading
//!   BOM, a NaN / Infinity literal, a lone surrogate escape, an object that already carries a
//!   top-level `dead_letter`, invalid UTF-8): `{"raw": <body>, "dead_letter": {…}}` where `raw`
//!   is the body text for valid UTF-8, or the standard padded base64 of the bytes together with
//!   `"raw_encoding": "base64"` for invalid UTF-8. `raw_encoding` is never written otherwise
//!   (never `"utf8"`), and invalid bytes are never replaced by U+FFFD.
//!
//! The `dead_letter` block is [`super::dead_letter::block`] with reason `poison`, the error text,
//! `exception` null, `failed_at`, the consumed queue as `original_queue`, `attempts` 0 and
//! `lang` `rust`. Member names are compared after JSON unescaping (`"dead\u005fletter"` is
//! `dead_letter`). The writer never fails and never recurses into the body, so no depth or size
//! of body can crash it.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::dead_letter::{Cause, Reason, block};
use super::strict::{NotStrict, strict_object};
use crate::fault::{self, Fault};

/// The member name of the block.
pub const DEAD_LETTER: &str = "dead_letter";

/// Which of the two record shapes was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Splice,
    Wrapper,
}

/// Why a body cannot be spliced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WrapReason {
    /// Not one strict JSON object in valid UTF-8.
    NotStrict(NotStrict),
    /// A strict object that already has a top-level `dead_letter`.
    HasDeadLetter,
}

impl fmt::Display for WrapReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotStrict(e) => write!(f, "{e}"),
            Self::HasDeadLetter => f.write_str("the object already carries a top-level dead_letter"),
        }
    }
}

/// What the consumer knows when it dead-letters a poison body.
#[derive(Debug, Clone, PartialEq)]
pub struct Poison<'a> {
    /// The queue (or topic) the body was consumed from.
    pub original_queue: &'a str,
    pub failed_at_ms: u64,
    /// The consumer's own reason, when it has one (e.g. a decode error of a strict object);
    /// otherwise the record carries the writer's classification.
    pub error: Option<&'a str>,
}

/// A poison DLQ record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub shape: Shape,
    /// Why the body was wrapped (`None` for a splice).
    pub wrapped: Option<WrapReason>,
    /// The record: UTF-8 JSON text.
    pub text: String,
}

/// Write the DLQ record of `body`.
pub fn record(body: &[u8], poison: &Poison<'_>) -> Record {
    match classify(body) {
        Ok(text) => splice(text, poison),
        Err(why) => wrapper(body, why, poison),
    }
}

/// The body as text when it can be spliced, else why not.
pub fn classify(body: &[u8]) -> Result<&str, WrapReason> {
    strict_object(body).map_err(WrapReason::NotStrict)?;
    // strict_object checked UTF-8 and the JSON syntax, so both steps below succeed; the
    // fallbacks only keep the writer total.
    let text = std::str::from_utf8(body).map_err(|e| WrapReason::NotStrict(NotStrict::NotUtf8(e.valid_up_to())))?;
    match top_level_names(text) {
        Ok(names) if names.iter().all(|k| k != DEAD_LETTER) => Ok(text),
        Ok(_) => Err(WrapReason::HasDeadLetter),
        Err(e) => Err(WrapReason::NotStrict(NotStrict::NotJson(e.to_string()))),
    }
}

fn block_of(poison: &Poison<'_>, default_error: &str) -> Value {
    Value::Object(block(
        &Cause {
            reason: Reason::Poison,
            error: Some(poison.error.unwrap_or(default_error)),
            exception: None,
            original_queue: poison.original_queue,
            failed_at_ms: poison.failed_at_ms,
        },
        0,
    ))
}

fn splice(text: &str, poison: &Poison<'_>) -> Record {
    let dl = block_of(poison, "not a conformant envelope");
    if fault::active(Fault::PoisonReEncode) {
        return match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(mut obj)) => {
                obj.insert(DEAD_LETTER.into(), dl);
                Record { shape: Shape::Splice, wrapped: None, text: Value::Object(obj).to_string() }
            }
            Ok(_) => wrapper(text.as_bytes(), WrapReason::NotStrict(NotStrict::NotAnObject), poison),
            Err(e) => wrapper(text.as_bytes(), WrapReason::NotStrict(NotStrict::NotJson(e.to_string())), poison),
        };
    }
    const WS: [char; 4] = [' ', '\t', '\n', '\r'];
    // The final `}`: the last byte that is not JSON whitespace (strict_object guarantees it).
    let close = text.trim_end_matches(WS).len() - 1;
    let empty = text[..close].trim_matches(WS) == "{";
    let mut out = String::with_capacity(text.len() + 200);
    out.push_str(&text[..close]);
    if !empty {
        out.push(',');
    }
    out.push('"');
    out.push_str(DEAD_LETTER);
    out.push_str("\":");
    out.push_str(&dl.to_string());
    out.push_str(&text[close..]);
    Record { shape: Shape::Splice, wrapped: None, text: out }
}

fn wrapper(body: &[u8], why: WrapReason, poison: &Poison<'_>) -> Record {
    let mut m = Map::new();
    match std::str::from_utf8(body) {
        Ok(text) => {
            m.insert("raw".into(), Value::from(text));
        }
        Err(_) => {
            m.insert("raw".into(), Value::from(STANDARD.encode(body)));
            m.insert("raw_encoding".into(), Value::from("base64"));
        }
    }
    m.insert(DEAD_LETTER.into(), block_of(poison, &why.to_string()));
    Record { shape: Shape::Wrapper, wrapped: Some(why), text: Value::Object(m).to_string() }
}

/// The member names of a JSON object text at its top level, in order, repeats kept. Values
/// are skipped without being built (no depth limit, no number conversion), so the writer can
/// look for `dead_letter` in bodies a value parser could not hold.
fn top_level_names(text: &str) -> Result<Vec<String>, serde_json::Error> {
    struct Names;
    impl<'de> Visitor<'de> for Names {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((name, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                out.push(name);
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let names = (&mut de).deserialize_map(Names)?;
    de.end()?;
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, with};
    use serde_json::json;

    const P: Poison<'static> = Poison { original_queue: "orders", failed_at_ms: 1_749_132_730_000, error: None };
    const BLOCK: &str = r#""dead_letter":{"reason":"poison","error":"not a conformant envelope","exception":null,"failed_at":1749132730000,"original_queue":"orders","attempts":0,"lang":"rust"}"#;

    /// The record is the body with exactly `,<BLOCK>` (or `<BLOCK>`) before the final `}`.
    fn assert_byte_splice(body: &str, comma: bool) {
        let r = record(body.as_bytes(), &P);
        assert_eq!(r.shape, Shape::Splice, "{body}");
        let close = body.trim_end().len() - 1;
        let expected = format!("{}{}{BLOCK}{}", &body[..close], if comma { "," } else { "" }, &body[close..]);
        assert_eq!(r.text, expected);
    }

    #[test]
    fn splices_are_byte_level() {
        assert_byte_splice(r#"{"job":"urn:x","data":{"price":1.50,"s":"\u00e9\/"}}"#, true);
        assert_byte_splice("{}", false);
        assert_byte_splice(" { \n } \n", false);
        assert_byte_splice(" {\"a\":{}} \n", true);
        assert_byte_splice(r#"{"data":{"dead_letter":1}}"#, true);
    }

    #[test]
    fn bodies_a_re_encoder_would_damage_are_kept_byte_for_byte() {
        for body in [
            r#"{"v":1e400}"#.to_owned(),
            r#"{"v":-1e400,"w":1e-400}"#.to_owned(),
            r#"{"v":123456789012345678901234567890,"w":0.1000000000000000055511151231257827}"#.to_owned(),
            r#"{"data":{"a":1},"data":{"b":2},"n":{"k":1,"k":2}}"#.to_owned(),
            format!("{{\"d\":{}1.0{}}}", "[".repeat(599), "]".repeat(599)),
            format!("{{\"d\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000)),
        ] {
            assert_byte_splice(&body, true);
        }
    }

    #[test]
    fn everything_else_is_wrapped_with_the_raw_body() {
        for body in [
            "",
            "not json",
            "[1,2]",
            "\"s\"",
            "{\"a\":1} {}",
            "\u{FEFF}{\"a\":1}",
            r#"{"job":"urn:x","dead_letter":{"reason":"failed"}}"#,
            r#"{"dead\u005fletter":1}"#,
            r#"{"v":NaN}"#,
            r#"{"v":Infinity}"#,
            r#"{"v":-Infinity}"#,
            r#"{"\ud800":1}"#,
            r#"{"k":"\udc00"}"#,
        ] {
            let r = record(body.as_bytes(), &P);
            assert_eq!(r.shape, Shape::Wrapper, "{body:?}");
            let v: Value = serde_json::from_str(&r.text).unwrap();
            assert_eq!(v["raw"], json!(body));
            assert!(v.get("raw_encoding").is_none());
            assert_eq!(v["dead_letter"]["reason"], json!("poison"));
            assert_eq!(v["dead_letter"]["original_queue"], json!("orders"));
            assert!(v["dead_letter"]["error"].as_str().is_some_and(|e| !e.is_empty()));
        }
    }

    #[test]
    fn invalid_utf8_is_base64_never_replacement_characters() {
        let body = b"{\"a\":\"\xff\xfe\"}";
        let r = record(body, &P);
        assert_eq!(r.shape, Shape::Wrapper);
        assert!(!r.text.contains('\u{FFFD}') && !r.text.contains("\\ufffd"));
        let v: Value = serde_json::from_str(&r.text).unwrap();
        assert_eq!(v["raw_encoding"], json!("base64"));
        assert_eq!(STANDARD.decode(v["raw"].as_str().unwrap()).unwrap(), body);
    }

    #[test]
    fn the_consumers_error_text_wins() {
        let r = record(br#"{"job":5}"#, &Poison { error: Some("no usable identity"), ..P });
        let v: Value = serde_json::from_str(&r.text).unwrap();
        assert_eq!(v["dead_letter"]["error"], json!("no usable identity"));
    }

    #[test]
    fn the_scanner_keeps_repeats_and_reads_any_depth() {
        let deep = format!("{{\"a\":1,\"d\":{}{},\"a\":1e400}}", "[".repeat(5000), "]".repeat(5000));
        assert_eq!(top_level_names(&deep).unwrap(), ["a", "d", "a"]);
        assert!(top_level_names("[1]").is_err());
        assert!(top_level_names("{} x").is_err());
    }

    #[test]
    fn the_broken_variant_re_encodes() {
        with(Fault::PoisonReEncode, || {
            let r = record(br#"{"v":1e-400}"#, &P);
            assert_eq!(r.shape, Shape::Splice);
            assert!(!r.text.contains("1e-400"));
        });
    }
}

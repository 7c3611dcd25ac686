//! Is a body exactly one strict RFC 8259 JSON object in valid UTF-8?
//!
//! Consumers classify a body before they trust it (poison DLQ records, Kafka poison triggers).
//! Invariants: the check never builds a value tree, so it has no depth limit, keeps no numbers
//! (1e400 and 30-digit integers are fine: RFC 8259 allows them) and cannot overflow the stack;
//! it refuses, in this order: an empty body, invalid UTF-8, a leading byte-order mark, text that
//! is not JSON (including the non-standard NaN / Infinity / -Infinity literals), a lone surrogate
//! escape in any string (key or value), a value that is not an object, and trailing data.

use std::fmt;

use serde::de::IgnoredAny;

/// Why a body is not one strict JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotStrict {
    Empty,
    /// Invalid UTF-8 at this byte offset.
    NotUtf8(usize),
    Bom,
    /// Not JSON text (the parser's message, e.g. a NaN literal or trailing characters).
    NotJson(String),
    /// A `\uD800`–`\uDFFF` escape that is not part of a surrogate pair, at this byte offset.
    LoneSurrogate(usize),
    /// JSON, but its value is not an object.
    NotAnObject,
}

impl fmt::Display for NotStrict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("empty body"),
            Self::NotUtf8(at) => write!(f, "not valid UTF-8 (byte {at})"),
            Self::Bom => f.write_str("starts with a byte-order mark"),
            Self::NotJson(e) => write!(f, "not JSON: {e}"),
            Self::LoneSurrogate(at) => write!(f, "lone surrogate escape at byte {at}"),
            Self::NotAnObject => f.write_str("JSON, but not an object"),
        }
    }
}

impl std::error::Error for NotStrict {}

/// Check that `body` is one strict JSON object (surrounding JSON whitespace allowed).
pub fn strict_object(body: &[u8]) -> Result<(), NotStrict> {
    if body.is_empty() {
        return Err(NotStrict::Empty);
    }
    let text = std::str::from_utf8(body).map_err(|e| NotStrict::NotUtf8(e.valid_up_to()))?;
    if text.starts_with('\u{FEFF}') {
        return Err(NotStrict::Bom);
    }
    serde_json::from_str::<IgnoredAny>(text).map_err(|e| NotStrict::NotJson(e.to_string()))?;
    if let Some(at) = lone_surrogate(text) {
        return Err(NotStrict::LoneSurrogate(at));
    }
    if text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{') { Ok(()) } else { Err(NotStrict::NotAnObject) }
}

/// Byte offset of the first lone surrogate escape in JSON text, if any.
///
/// `text` must already have parsed as JSON (as in [`strict_object`]): there every backslash is
/// inside a string literal and starts an escape, `\\` and `\"` included, and every `\u` has
/// four hex digits, so the scan needs no string state and an escaped backslash followed by `u` is
/// skipped as the escape it is. Text without `\ud` / `\uD` anywhere has no surrogate escape and
/// is not walked.
fn lone_surrogate(text: &str) -> Option<usize> {
    if !(text.contains("\\ud") || text.contains("\\uD")) {
        return None;
    }
    let b = text.as_bytes();
    let hex = |at: usize| text.get(at..at + 4).and_then(|s| u16::from_str_radix(s, 16).ok());
    let mut i = 0usize;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let u = hex(i + 2)?;
        if (0xDC00..=0xDFFF).contains(&u) {
            return Some(i);
        }
        if (0xD800..=0xDBFF).contains(&u) {
            let paired = b.get(i + 6) == Some(&b'\\')
                && b.get(i + 7) == Some(&b'u')
                && hex(i + 8).is_some_and(|l| (0xDC00..=0xDFFF).contains(&l));
            if !paired {
                return Some(i);
            }
            i += 12;
            continue;
        }
        i += 6;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_objects_pass_whatever_their_numbers_and_depth() {
        for ok in [
            r#"{}"#,
            " {\"a\":1} \n",
            r#"{"v":1e400,"w":-1e400,"x":1e-400,"y":123456789012345678901234567890}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"s":"\ud83d\ude00","t":"\\ud800"}"#,
        ] {
            assert_eq!(strict_object(ok.as_bytes()), Ok(()), "{ok}");
        }
        let deep = format!("{{\"d\":{}{}}}", "[".repeat(600), "]".repeat(600));
        assert_eq!(strict_object(deep.as_bytes()), Ok(()));
    }

    #[test]
    fn everything_else_is_refused_with_its_reason() {
        assert_eq!(strict_object(b""), Err(NotStrict::Empty));
        assert_eq!(strict_object(b"{\"a\":\"\xff\"}"), Err(NotStrict::NotUtf8(6)));
        assert_eq!(strict_object("\u{FEFF}{}".as_bytes()), Err(NotStrict::Bom));
        assert_eq!(strict_object(br#"[1]"#), Err(NotStrict::NotAnObject));
        assert_eq!(strict_object(br#""s""#), Err(NotStrict::NotAnObject));
        assert_eq!(strict_object(br#"{"a":"\ud800"}"#), Err(NotStrict::LoneSurrogate(6)));
        assert_eq!(strict_object(br#"{"\udc00":1}"#), Err(NotStrict::LoneSurrogate(2)));
        for bad in [&br#"{"v":NaN}"#[..], br#"{"v":Infinity}"#, br#"{"v":-Infinity}"#, b"{} {}", b"{", b"not json"] {
            assert!(matches!(strict_object(bad), Err(NotStrict::NotJson(_))), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn lone_surrogates_are_found_pairs_are_not() {
        assert_eq!(lone_surrogate(r#"{"a":"\ud83d\ude00"}"#), None);
        assert_eq!(lone_surrogate(r#"{"a":"\\ud800"}"#), None);
        assert_eq!(lone_surrogate(r#"{"a":"x\ud800"}"#), Some(7));
        assert_eq!(lone_surrogate(r#"{"a":"\ud800\u0041"}"#), Some(6));
        assert_eq!(lone_surrogate(r#"{"a":"\uD800"}"#), Some(6));
        // Escaped quotes and backslashes are skipped as escapes, whatever string they sit in.
        assert_eq!(lone_surrogate(r#"{"a":"\"\ud800"}"#), Some(8));
        assert_eq!(lone_surrogate(r#"{"a":"\\","\udc00":1}"#), Some(11));
        assert_eq!(lone_surrogate(r#"{"\\ud800":"\\\\udc00"}"#), None);
    }
}

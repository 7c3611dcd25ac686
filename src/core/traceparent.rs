//! W3C `traceparent` extraction on the consumer side (ADR-0028 / ADR-0025; decisions R15).
//!
//! Rules it keeps:
//!
//! * A header with the structure `00-<32 lowercase hex>-<16 lowercase hex>-<2 lowercase hex>`
//!   — exactly 55 bytes, nothing before or after — is the parent: its trace id, parent span id
//!   and flags are used as they are. The reference core also refuses an all-zero trace or span
//!   id, which W3C declares invalid; the suite does not case that finer rule.
//! * Anything else — no header, an empty one, wrong lengths, non-hex or uppercase digits,
//!   missing or extra parts, other separators, surrounding whitespace — falls back to the
//!   parent derived from the envelope's `trace_id`:
//!   - trace id: remove every `-` and lowercase; when that is exactly 32 hex digits and not all
//!     zero, it is the trace id; otherwise the first 16 bytes of SHA-256 over the UTF-8
//!     `trace_id`, as lowercase hex;
//!   - span id: the first 8 bytes of SHA-256 over `"babelqueue-span:" + trace_id`, with an
//!     all-zero result replaced by `0000000000000001`; flags `01` (sampled).
//! * Extraction never fails and never panics, whatever the header bytes are.

use sha2::{Digest, Sha256};

use crate::fault::{self, Fault};

/// Where the parent context came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A structurally valid `traceparent` header.
    Header,
    /// Derived from the envelope's `trace_id`.
    Fallback,
}

/// The parent span context a consumer continues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parent {
    /// 32 lowercase hex digits.
    pub trace_id: String,
    /// 16 lowercase hex digits.
    pub span_id: String,
    /// 2 lowercase hex digits.
    pub flags: String,
    pub source: Source,
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn all_zero(s: &str) -> bool {
    s.bytes().all(|b| b == b'0')
}

/// Parse a header of the pinned structure; `None` when it does not have it.
pub fn parse(header: &str) -> Option<Parent> {
    let parts: Vec<&str> = header.split('-').collect();
    let trace_len = if fault::active(Fault::TraceparentAccepts31Hex) { 31..=32 } else { 32..=32 };
    let [version, trace, span, flags] = parts[..] else { return None };
    let shaped = version == "00"
        && trace_len.contains(&trace.len())
        && span.len() == 16
        && flags.len() == 2
        && [trace, span, flags].iter().all(|p| is_lower_hex(p));
    (shaped && !all_zero(trace) && !all_zero(span)).then(|| Parent {
        trace_id: trace.to_owned(),
        span_id: span.to_owned(),
        flags: flags.to_owned(),
        source: Source::Header,
    })
}

fn sha256_hex(input: &str, bytes: usize) -> String {
    super::lower_hex(&Sha256::digest(input.as_bytes())[..bytes])
}

/// The 32-hex trace id derived from an envelope `trace_id`.
pub fn fallback_trace_id(trace_id: &str) -> String {
    let stripped: String = trace_id.chars().filter(|&c| c != '-').map(|c| c.to_ascii_lowercase()).collect();
    if stripped.len() == 32 && is_lower_hex(&stripped) && !all_zero(&stripped) {
        stripped
    } else {
        sha256_hex(trace_id, 16)
    }
}

/// The 16-hex parent span id derived from an envelope `trace_id`.
pub fn fallback_span_id(trace_id: &str) -> String {
    let s = sha256_hex(&format!("babelqueue-span:{trace_id}"), 8);
    if all_zero(&s) { "0000000000000001".to_owned() } else { s }
}

/// The parent for a delivery: the header when it has the pinned structure, else the fallback.
pub fn extract(header: Option<&str>, trace_id: &str) -> Parent {
    let Some(mut parent) = header.and_then(parse) else {
        return Parent {
            trace_id: fallback_trace_id(trace_id),
            span_id: fallback_span_id(trace_id),
            flags: "01".to_owned(),
            source: Source::Fallback,
        };
    };
    if fault::active(Fault::TraceparentFallbackSpanId) {
        parent.span_id = fallback_span_id(trace_id);
    }
    if fault::active(Fault::TraceparentFlagsAlwaysSampled) {
        parent.flags = "01".to_owned();
    }
    parent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, with};

    const HEADER: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const UUID: &str = "7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b";

    #[test]
    fn worked_fallback_values() {
        assert_eq!(fallback_trace_id(UUID), "7b3f9c2ae41d4f889b2a1c0d5e6f7a8b");
        assert_eq!(fallback_span_id(UUID), "980c512d6f4a8fba");
        assert_eq!(fallback_trace_id(&UUID.to_uppercase()), "7b3f9c2ae41d4f889b2a1c0d5e6f7a8b");
        assert_eq!(fallback_span_id(&UUID.to_uppercase()), "4a4e192d74806026");
        assert_eq!(fallback_trace_id("not-a-uuid"), "2184a32a3bae6ad756d745ec8678ad6a");
        assert_eq!(fallback_trace_id(""), "e3b0c44298fc1c149afbf4c8996fb924");
        assert_eq!(fallback_trace_id("00000000-0000-0000-0000-000000000000"), "12b9377cbe7e5c94e8a70d9d23929523");
    }

    #[test]
    fn a_valid_header_wins() {
        let p = extract(Some(HEADER), UUID);
        assert_eq!(p.source, Source::Header);
        assert_eq!(
            (p.trace_id.as_str(), p.span_id.as_str(), p.flags.as_str()),
            ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", "01")
        );
    }

    #[test]
    fn anything_else_falls_back_without_panicking() {
        let bad = [
            "",
            " ",
            "00",
            "garbage",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e47366-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "00-4bf92f3577b34da6a3ce929d0e0e4736--00f067aa0ba902b7-01",
            " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473é-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e47é-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        ];
        for h in bad {
            let p = extract(Some(h), UUID);
            assert_eq!(p.source, Source::Fallback, "{h:?}");
            assert_eq!(p.trace_id, "7b3f9c2ae41d4f889b2a1c0d5e6f7a8b");
            assert_eq!(p.flags, "01");
        }
        assert_eq!(extract(None, UUID).source, Source::Fallback);
    }

    #[test]
    fn the_broken_variant_takes_31_hex() {
        let h = "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01";
        with(Fault::TraceparentAccepts31Hex, || assert_eq!(extract(Some(h), UUID).source, Source::Header));
    }
}

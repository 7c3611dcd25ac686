//! Apache Kafka (broker-bindings §6): record headers, attempts, the gate, the retry tiers
//! ([`retry`]) and the poison classification ([`poison`]).
//!
//! Rules:
//!
//! * **Projection**: headers are bytes; BabelQueue writes the UTF-8 text of `bq-job`,
//!   `bq-trace-id`, `bq-message-id`, `bq-schema-version` (`"1"`), `bq-source-lang` and
//!   `bq-attempts` (decimal, always written). The record value is the envelope and the record
//!   timestamp is `meta.created_at` in Unix milliseconds.
//! * **Headers** keep Kafka's model: an ordered list in which a key may repeat and a value may be
//!   null. A reader takes the **last** header of a key (Kafka's `lastHeader`, and the same
//!   last-wins rule as repeated JSON keys). A header written with a null value stays null on the
//!   wire — it is never the text `"null"`.
//! * **Reconciliation**: the `bq-attempts` header is authoritative when present — not a max: a
//!   header lower than the body wins. A header that is absent, null, or not a plain ASCII
//!   decimal falls back to the body's attempts.
//! * **Gate**: header `bq-schema-version`; a null value decodes like an absent header; bytes that
//!   are not UTF-8 are not a string and reject.

pub mod poison;
pub mod retry;

use super::{ConsumeError, Consumed, Native, parse_count, string_properties};
use crate::core::envelope::{self, EncodeError, Envelope};
use crate::fault::{self, Fault};

/// The schema-version header.
pub const SCHEMA_VERSION: &str = "bq-schema-version";
/// The attempts header.
pub const ATTEMPTS: &str = "bq-attempts";

/// One record header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub key: String,
    /// `None` is a header present with a null value.
    pub value: Option<Vec<u8>>,
}

/// A record's headers, in order; keys may repeat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers(Vec<Header>);

impl Headers {
    /// No headers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Append a header; `None` writes a header with a null value.
    pub fn add(&mut self, key: impl Into<String>, value: Option<&[u8]>) {
        let value = match value {
            None if fault::active(Fault::KafkaHeaderNullStringified) => Some(b"null".to_vec()),
            v => v.map(<[u8]>::to_vec),
        };
        self.0.push(Header { key: key.into(), value });
    }

    /// Append a header holding the UTF-8 bytes of `value`.
    pub fn add_str(&mut self, key: impl Into<String>, value: &str) {
        self.add(key, Some(value.as_bytes()));
    }

    /// The last header with `key`.
    pub fn last(&self, key: &str) -> Option<&Header> {
        self.0.iter().rev().find(|h| h.key == key)
    }

    /// Every header, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Header> {
        self.0.iter()
    }
}

/// A record to produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerRecord {
    pub topic: String,
    pub value: Vec<u8>,
    pub headers: Headers,
    /// Unix milliseconds.
    pub timestamp: Option<i64>,
}

/// A consumed record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerRecord {
    pub topic: String,
    /// `None` is a tombstone.
    pub value: Option<Vec<u8>>,
    pub headers: Headers,
    pub timestamp: i64,
}

/// The BabelQueue headers for `env`.
pub fn headers(env: &Envelope) -> Headers {
    let mut h = Headers::new();
    for (key, value) in string_properties(env) {
        h.add_str(key, &value);
    }
    h
}

/// The record that publishes `env` on `topic`.
pub fn record(env: &Envelope, topic: &str) -> Result<ProducerRecord, EncodeError> {
    Ok(ProducerRecord {
        topic: topic.to_owned(),
        value: envelope::encode(env)?.into_bytes(),
        headers: headers(env),
        timestamp: env.meta.created_at().and_then(|n| i64::try_from(n).ok()),
    })
}

/// The last `key` header as text: `None` when absent, null or not UTF-8.
pub fn header_text<'h>(headers: &'h Headers, key: &str) -> Option<&'h str> {
    headers.last(key)?.value.as_deref().and_then(|b| std::str::from_utf8(b).ok())
}

/// The `bq-attempts` header when present and parseable, else the body's attempts.
pub fn reconcile_attempts(body_attempts: u64, headers: &Headers) -> u64 {
    match header_text(headers, ATTEMPTS).and_then(parse_count) {
        Some(n) if fault::active(Fault::KafkaAttemptsMax) => body_attempts.max(n),
        Some(n) => n,
        None => body_attempts,
    }
}

/// What the gate sees of the schema-version header.
pub fn gate_input(headers: &Headers) -> Native<'_> {
    match headers.last(SCHEMA_VERSION) {
        None => Native::Absent,
        Some(Header { value: None, .. }) => Native::Null,
        Some(Header { value: Some(bytes), .. }) => {
            std::str::from_utf8(bytes).map_or(Native::Other("bytes that are not UTF-8"), Native::Text)
        }
    }
}

/// Consume a record: gate, decode, reconcile.
pub fn consume(rec: &ConsumerRecord) -> Result<Consumed, ConsumeError> {
    super::consume(gate_input(&rec.headers), rec.value.as_deref().unwrap_or_default(), |a| {
        reconcile_attempts(a, &rec.headers)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, with};

    pub(super) const ORDER: &str = r#"{"job":"urn:babel:orders:created","trace_id":"7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b","data":{"order_id":1042},"meta":{"id":"f1e2d3c4-b5a6-4789-90ab-cdef01234567","queue":"orders","lang":"php","schema_version":1,"created_at":1749132727000},"attempts":0}"#;

    fn consumed(headers: Headers) -> ConsumerRecord {
        ConsumerRecord { topic: "orders".into(), value: Some(ORDER.as_bytes().to_vec()), headers, timestamp: 0 }
    }

    #[test]
    fn projection_is_utf8_headers_and_the_created_at_timestamp() {
        let env = envelope::decode(ORDER.as_bytes()).unwrap().envelope;
        let r = record(&env, "orders").unwrap();
        assert_eq!(r.timestamp, Some(1_749_132_727_000));
        assert_eq!(header_text(&r.headers, "bq-attempts"), Some("0"));
        assert_eq!(header_text(&r.headers, "bq-schema-version"), Some("1"));
        assert_eq!(r.headers.iter().count(), 6);
        assert_eq!(r.value, ORDER.as_bytes());
    }

    #[test]
    fn the_header_is_authoritative_and_the_last_one_wins() {
        let mut h = Headers::new();
        assert_eq!(reconcile_attempts(3, &h), 3);
        h.add_str(ATTEMPTS, "5");
        h.add_str(ATTEMPTS, "1");
        assert_eq!(reconcile_attempts(4, &h), 1);
        with(Fault::KafkaAttemptsMax, || assert_eq!(reconcile_attempts(4, &h), 4));
        for fallback in [None, Some(&b"x"[..]), Some(&b" 2"[..]), Some(&b"\xff"[..])] {
            let mut h = Headers::new();
            h.add(ATTEMPTS, fallback);
            assert_eq!(reconcile_attempts(4, &h), 4, "{fallback:?}");
        }
    }

    #[test]
    fn a_null_header_stays_null_and_decodes_like_absent() {
        let mut h = Headers::new();
        h.add(SCHEMA_VERSION, None);
        assert_eq!(h.last(SCHEMA_VERSION).unwrap().value, None);
        assert!(consume(&consumed(h.clone())).is_ok());
        with(Fault::KafkaHeaderNullStringified, || {
            let mut h = Headers::new();
            h.add(SCHEMA_VERSION, None);
            assert!(matches!(consume(&consumed(h)), Err(ConsumeError::Gate(_))));
        });
        let mut h = Headers::new();
        h.add(SCHEMA_VERSION, Some(b"\xff"));
        assert!(matches!(consume(&consumed(h)), Err(ConsumeError::Gate(_))));
    }
}

//! Apache Pulsar (broker-bindings §5): string properties, attempts reconciliation and the gate.
//!
//! Rules:
//!
//! * **Projection**: Pulsar properties map strings to strings, so every value is text:
//!   `bq-job`, `bq-trace-id`, `bq-message-id`, `bq-schema-version` (`"1"`), `bq-source-lang` and
//!   `bq-attempts` (decimal, always written). The payload is the envelope; the broker's publish
//!   time is broker-set and not written here.
//! * **Reconciliation**: `attempts = max(body attempts, RedeliveryCount)`. RedeliveryCount is
//!   0-based, so there is no −1.
//! * **Gate**: property `bq-schema-version`; a property cannot be null.

use std::collections::BTreeMap;

use super::{ConsumeError, Consumed, Native, string_properties};
use crate::core::envelope::{self, EncodeError, Envelope};

/// The schema-version property.
pub const SCHEMA_VERSION: &str = "bq-schema-version";

/// Message properties.
pub type Properties = BTreeMap<String, String>;

/// A message to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    pub payload: Vec<u8>,
    pub properties: Properties,
}

/// A received message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedMessage {
    pub payload: Vec<u8>,
    pub properties: Properties,
    /// 0 on the first delivery.
    pub redelivery_count: u32,
}

/// The produce-side projection of `env`.
pub fn message(env: &Envelope) -> Result<OutgoingMessage, EncodeError> {
    Ok(OutgoingMessage {
        payload: envelope::encode(env)?.into_bytes(),
        properties: string_properties(env).into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
    })
}

/// `max(body attempts, redelivery_count)`.
pub fn reconcile_attempts(body_attempts: u64, redelivery_count: u32) -> u64 {
    body_attempts.max(u64::from(redelivery_count))
}

/// Consume a received message: gate, decode, reconcile.
pub fn consume(msg: &ReceivedMessage) -> Result<Consumed, ConsumeError> {
    let version = msg.properties.get(SCHEMA_VERSION).map_or(Native::Absent, |s| Native::Text(s));
    super::consume(version, &msg.payload, |a| reconcile_attempts(a, msg.redelivery_count))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER: &str = r#"{"job":"urn:babel:orders:created","trace_id":"7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b","data":{"order_id":1042},"meta":{"id":"f1e2d3c4-b5a6-4789-90ab-cdef01234567","queue":"orders","lang":"php","schema_version":1,"created_at":1749132727000},"attempts":0}"#;

    #[test]
    fn projection_and_consume() {
        let env = envelope::decode(ORDER.as_bytes()).unwrap().envelope;
        let out = message(&env).unwrap();
        assert_eq!(out.properties["bq-schema-version"], "1");
        assert_eq!(out.properties["bq-attempts"], "0");
        assert_eq!(out.properties.len(), 6);
        let mut msg = ReceivedMessage { payload: out.payload, properties: out.properties, redelivery_count: 2 };
        assert_eq!(consume(&msg).unwrap().envelope.attempts, 2);
        msg.properties.insert(SCHEMA_VERSION.into(), "1 ".into());
        assert!(matches!(consume(&msg), Err(ConsumeError::Gate(_))));
    }

    #[test]
    fn reconciliation_has_no_minus_one() {
        assert_eq!(reconcile_attempts(0, 0), 0);
        assert_eq!(reconcile_attempts(2, 5), 5);
        assert_eq!(reconcile_attempts(5, 1), 5);
    }
}

//! Apache ActiveMQ Artemis over AMQP 1.0 (broker-bindings §7): the slots a JMS peer reads, string
//! application properties, attempts reconciliation and the gate.
//!
//! Rules:
//!
//! * **Projection**: the message annotation `x-opt-jms-type` (JMSType) = the URN,
//!   `correlation-id` (JMSCorrelationID) = `trace_id`, `creation-time` (JMSTimestamp) =
//!   `meta.created_at`, `content-type` = `application/json`; string application properties with
//!   underscore names (JMS property names must be Java identifiers, ADR-0017): `bq_schema_version`
//!   (`"1"`), `bq_source_lang`, `bq_attempts` (decimal, always written) and `bq_app_id`
//!   (`"babelqueue"`, always written). The URN, `trace_id` and `meta.id` are not `bq_` properties.
//! * **Reconciliation**: `attempts = max(body attempts, delivery-count)`; the AMQP header
//!   delivery-count is 0-based, so there is no −1.
//! * **Gate**: application property `bq_schema_version`; a property present with a null value
//!   decodes like an absent one.

use std::collections::BTreeMap;

use super::{APP_ID, CONTENT_TYPE, ConsumeError, Consumed, Native, Source};
use crate::core::envelope::{self, EncodeError, Envelope};

/// The schema-version application property.
pub const SCHEMA_VERSION: &str = "bq_schema_version";
/// The message annotation that carries JMSType.
pub const JMS_TYPE: &str = "x-opt-jms-type";

/// Application properties: string values, which a peer may set to null.
pub type ApplicationProperties = BTreeMap<String, Option<String>>;

/// An AMQP 1.0 message as BabelQueue reads and writes it on Artemis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtemisMessage {
    pub body: Vec<u8>,
    pub message_annotations: BTreeMap<String, String>,
    pub correlation_id: Option<String>,
    /// Unix milliseconds.
    pub creation_time: Option<i64>,
    pub content_type: Option<String>,
    pub application_properties: ApplicationProperties,
    /// The AMQP header delivery-count: 0 on the first delivery.
    pub delivery_count: u32,
}

/// The produce-side projection of `env`.
pub fn message(env: &Envelope) -> Result<ArtemisMessage, EncodeError> {
    let src = Source::of(env);
    let mut props = ApplicationProperties::new();
    let mut put = |k: &str, v: String| {
        props.insert(k.to_owned(), Some(v));
    };
    put(SCHEMA_VERSION, envelope::SCHEMA_VERSION.to_string());
    if let Some(lang) = src.lang {
        put("bq_source_lang", lang.to_owned());
    }
    put("bq_attempts", src.attempts.to_string());
    put("bq_app_id", APP_ID.to_owned());
    Ok(ArtemisMessage {
        body: envelope::encode(env)?.into_bytes(),
        message_annotations: BTreeMap::from([(JMS_TYPE.to_owned(), src.urn.to_owned())]),
        correlation_id: src.trace_id.map(str::to_owned),
        creation_time: src.created_at,
        content_type: Some(CONTENT_TYPE.to_owned()),
        application_properties: props,
        delivery_count: 0,
    })
}

/// `max(body attempts, delivery_count)`.
pub fn reconcile_attempts(body_attempts: u64, delivery_count: u32) -> u64 {
    body_attempts.max(u64::from(delivery_count))
}

/// What the gate sees of an application property.
pub fn gate_input(value: Option<&Option<String>>) -> Native<'_> {
    match value {
        None => Native::Absent,
        Some(None) => Native::Null,
        Some(Some(s)) => Native::Text(s),
    }
}

/// Consume a received message: gate, decode, reconcile.
pub fn consume(msg: &ArtemisMessage) -> Result<Consumed, ConsumeError> {
    super::consume(gate_input(msg.application_properties.get(SCHEMA_VERSION)), &msg.body, |a| {
        reconcile_attempts(a, msg.delivery_count)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER: &str = r#"{"job":"urn:babel:orders:created","trace_id":"7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b","data":{"order_id":1042},"meta":{"id":"f1e2d3c4-b5a6-4789-90ab-cdef01234567","queue":"orders","lang":"php","schema_version":1,"created_at":1749132727000},"attempts":0}"#;

    #[test]
    fn projection_gate_and_reconciliation() {
        let mut m = message(&envelope::decode(ORDER.as_bytes()).unwrap().envelope).unwrap();
        assert_eq!(m.message_annotations[JMS_TYPE], "urn:babel:orders:created");
        assert_eq!(m.application_properties["bq_app_id"].as_deref(), Some("babelqueue"));
        assert_eq!(m.creation_time, Some(1_749_132_727_000));
        m.delivery_count = 3;
        assert_eq!(consume(&m).unwrap().envelope.attempts, 3);
        m.application_properties.insert(SCHEMA_VERSION.into(), None);
        assert!(consume(&m).is_ok());
        m.application_properties.insert(SCHEMA_VERSION.into(), Some("\u{85}".into()));
        assert!(matches!(consume(&m), Err(ConsumeError::Gate(_))));
        assert_eq!(reconcile_attempts(5, 1), 5);
    }
}

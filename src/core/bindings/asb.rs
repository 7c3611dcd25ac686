//! Azure Service Bus (broker-bindings §4): message fields, AMQP-typed application properties,
//! attempts reconciliation and the typed schema-version gate.
//!
//! Rules:
//!
//! * **Projection**: `subject` = the URN, `correlation_id` = `trace_id`, `message_id` =
//!   `meta.id`, `content_type` = `application/json`; application properties `bq-schema-version`
//!   (AMQP `int` 1), `bq-source-lang` (string) and `bq-created-at` (AMQP `long`, epoch ms). Numbers
//!   stay AMQP integers: a float 1.0 would be refused by every consumer's gate.
//! * **Reconciliation**: `attempts = max(body attempts, DeliveryCount − 1)`. DeliveryCount is
//!   1-based, so a first delivery reads 0 and a count of 0 or 1 leaves the body as it is.
//! * **Gate**: application property `bq-schema-version`, read as an AMQP value: an integer of any
//!   width equal to 1 decodes, any other integer rejects; a string follows the string rule of
//!   [`super::gate`]; null decodes like an absent property; every other type — a `float` or
//!   `double` 1.0 included — rejects.

use std::collections::BTreeMap;

use super::{AmqpValue, CONTENT_TYPE, ConsumeError, Consumed, Native, Source};
use crate::core::envelope::{self, EncodeError, Envelope};
use crate::fault::{self, Fault};

/// The schema-version application property.
pub const SCHEMA_VERSION: &str = "bq-schema-version";

/// Application properties by name.
pub type ApplicationProperties = BTreeMap<String, AmqpValue>;

/// A message to send (the fields BabelQueue sets).
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceBusMessage {
    pub body: Vec<u8>,
    pub subject: Option<String>,
    pub correlation_id: Option<String>,
    pub message_id: Option<String>,
    pub content_type: Option<String>,
    pub application_properties: ApplicationProperties,
}

/// A received message: the sent fields plus the broker's 1-based delivery count.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceBusReceivedMessage {
    pub message: ServiceBusMessage,
    pub delivery_count: u32,
}

/// The produce-side projection of `env`.
pub fn message(env: &Envelope) -> Result<ServiceBusMessage, EncodeError> {
    let src = Source::of(env);
    let mut props = ApplicationProperties::new();
    props.insert(SCHEMA_VERSION.to_owned(), AmqpValue::Int(1));
    if let Some(lang) = src.lang {
        props.insert("bq-source-lang".to_owned(), AmqpValue::String(lang.to_owned()));
    }
    if let Some(ms) = src.created_at {
        props.insert("bq-created-at".to_owned(), AmqpValue::Long(ms));
    }
    Ok(ServiceBusMessage {
        body: envelope::encode(env)?.into_bytes(),
        subject: Some(src.urn.to_owned()),
        correlation_id: src.trace_id.map(str::to_owned),
        message_id: src.message_id.map(str::to_owned),
        content_type: Some(CONTENT_TYPE.to_owned()),
        application_properties: props,
    })
}

/// `max(body attempts, delivery_count − 1)`.
pub fn reconcile_attempts(body_attempts: u64, delivery_count: u32) -> u64 {
    body_attempts.max(u64::from(delivery_count).saturating_sub(1))
}

/// What the gate sees of an application property.
pub fn gate_input(value: Option<&AmqpValue>) -> Native<'_> {
    let Some(value) = value else {
        return Native::Absent;
    };
    if let Some(n) = value.integral() {
        return Native::Integral(n);
    }
    match value {
        AmqpValue::Null => Native::Null,
        AmqpValue::String(s) => Native::Text(s),
        AmqpValue::Float(x) if *x == 1.0 && fault::active(Fault::AsbFloatOneIsIntegral) => Native::Integral(1),
        AmqpValue::Double(x) if *x == 1.0 && fault::active(Fault::AsbFloatOneIsIntegral) => Native::Integral(1),
        other => Native::Other(other.type_name()),
    }
}

/// Consume a received message: gate, decode, reconcile.
pub fn consume(msg: &ServiceBusReceivedMessage) -> Result<Consumed, ConsumeError> {
    let m = &msg.message;
    super::consume(gate_input(m.application_properties.get(SCHEMA_VERSION)), &m.body, |a| {
        reconcile_attempts(a, msg.delivery_count)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER: &str = r#"{"job":"urn:babel:orders:created","trace_id":"7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b","data":{"order_id":1042},"meta":{"id":"f1e2d3c4-b5a6-4789-90ab-cdef01234567","queue":"orders","lang":"php","schema_version":1,"created_at":1749132727000},"attempts":0}"#;

    fn received(version: Option<AmqpValue>, delivery_count: u32) -> ServiceBusReceivedMessage {
        let env = envelope::decode(ORDER.as_bytes()).unwrap().envelope;
        let mut message = message(&env).unwrap();
        message.application_properties.remove(SCHEMA_VERSION);
        if let Some(v) = version {
            message.application_properties.insert(SCHEMA_VERSION.into(), v);
        }
        ServiceBusReceivedMessage { message, delivery_count }
    }

    #[test]
    fn projection_keeps_numbers_integral() {
        let m = message(&envelope::decode(ORDER.as_bytes()).unwrap().envelope).unwrap();
        assert_eq!(m.application_properties[SCHEMA_VERSION], AmqpValue::Int(1));
        assert_eq!(m.application_properties["bq-created-at"], AmqpValue::Long(1_749_132_727_000));
        assert_eq!(m.subject.as_deref(), Some("urn:babel:orders:created"));
        assert_eq!(m.body, ORDER.as_bytes());
    }

    #[test]
    fn integral_one_of_every_width_decodes_and_nothing_else_numeric_does() {
        for one in super::super::amqp_value::one_of_every_integer_width() {
            assert!(consume(&received(Some(one.clone()), 1)).is_ok(), "{one}");
        }
        for bad in [
            AmqpValue::Int(2),
            AmqpValue::Long(0),
            AmqpValue::Float(1.0),
            AmqpValue::Double(1.0),
            AmqpValue::Double(1.5),
            AmqpValue::Bool(true),
            AmqpValue::Symbol("1".into()),
            AmqpValue::Char('1'),
        ] {
            assert!(matches!(consume(&received(Some(bad.clone()), 1)), Err(ConsumeError::Gate(_))), "{bad}");
        }
        assert!(consume(&received(Some(AmqpValue::Null), 1)).is_ok());
        assert!(consume(&received(None, 1)).is_ok());
    }

    #[test]
    fn reconciliation_uses_the_one_based_delivery_count() {
        assert_eq!(reconcile_attempts(0, 1), 0);
        assert_eq!(reconcile_attempts(3, 0), 3);
        assert_eq!(reconcile_attempts(0, 3), 2);
        assert_eq!(consume(&received(None, 5)).unwrap().envelope.attempts, 4);
    }
}

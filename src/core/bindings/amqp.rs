//! RabbitMQ / AMQP 0-9-1 (broker-bindings §2): basic properties and natively typed headers.
//!
//! Rules: the message properties are `type` = the URN, `correlation_id` = `trace_id`,
//! `message_id` = `meta.id`, `app_id` = `babelqueue`, `content_type` = `application/json` and
//! `delivery_mode` = 2 (persistent); the headers field table holds `x-schema-version` (AMQP
//! `int` 1), `x-source-lang` (string) and `x-attempts` (an AMQP `long`, always written) — typed
//! values, never their text. Consume-side attempts handling differs between runtimes and is not
//! part of the binding.

use std::collections::BTreeMap;

use super::{APP_ID, AmqpValue, CONTENT_TYPE, Source};
use crate::core::envelope::{self, EncodeError, Envelope};

/// `delivery_mode` for a persistent message.
pub const PERSISTENT: u8 = 2;

/// A header field table.
pub type FieldTable = BTreeMap<String, AmqpValue>;

/// The AMQP 0-9-1 basic properties BabelQueue sets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BasicProperties {
    pub content_type: Option<String>,
    pub headers: FieldTable,
    pub delivery_mode: Option<u8>,
    pub correlation_id: Option<String>,
    pub message_id: Option<String>,
    /// The `type` property.
    pub message_type: Option<String>,
    pub app_id: Option<String>,
}

/// A message to publish.
#[derive(Debug, Clone, PartialEq)]
pub struct Publish {
    pub body: Vec<u8>,
    pub properties: BasicProperties,
}

/// The produce-side projection of `env`.
pub fn publish(env: &Envelope) -> Result<Publish, EncodeError> {
    let src = Source::of(env);
    let mut headers = FieldTable::new();
    headers.insert("x-schema-version".to_owned(), AmqpValue::Int(1));
    if let Some(lang) = src.lang {
        headers.insert("x-source-lang".to_owned(), AmqpValue::String(lang.to_owned()));
    }
    headers.insert("x-attempts".to_owned(), AmqpValue::counter(src.attempts));
    Ok(Publish {
        body: envelope::encode(env)?.into_bytes(),
        properties: BasicProperties {
            content_type: Some(CONTENT_TYPE.to_owned()),
            headers,
            delivery_mode: Some(PERSISTENT),
            correlation_id: src.trace_id.map(str::to_owned),
            message_id: src.message_id.map(str::to_owned),
            message_type: Some(src.urn.to_owned()),
            app_id: Some(APP_ID.to_owned()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_typed() {
        let body = br#"{"job":"urn:x","trace_id":"t","data":{},"meta":{"id":"i","lang":"go","schema_version":1},"attempts":3}"#;
        let p = publish(&envelope::decode(body).unwrap().envelope).unwrap();
        assert_eq!(p.properties.headers["x-schema-version"], AmqpValue::Int(1));
        assert_eq!(p.properties.headers["x-attempts"], AmqpValue::Long(3));
        assert_eq!(p.properties.message_type.as_deref(), Some("urn:x"));
        assert_eq!(p.properties.delivery_mode, Some(2));
    }
}

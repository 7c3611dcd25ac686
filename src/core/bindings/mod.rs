//! The broker bindings: the native metadata each transport writes beside the unchanged envelope
//! body, and what it reads back on consume.
//!
//! Invariants every binding keeps (broker-bindings §1–§7):
//!
//! * **The body is the envelope.** A binding never wraps or changes the body: what it sends is
//!   [`crate::core::envelope::encode`] of the message, and native metadata is a redundant
//!   projection of it, never a replacement. A projected key whose source is missing or empty is
//!   omitted; the attempts key (where a binding has one) and constant keys are always written.
//! * **Native types are real types.** SQS attributes are `{DataType, StringValue}` values, Azure
//!   Service Bus and RabbitMQ carry [`AmqpValue`]s (an integer stays an integer of a given width,
//!   a float stays a float), Kafka headers are bytes with an optional value, Pulsar properties are
//!   strings, Artemis application properties are strings that may be present with a null value.
//!   Nothing is stringified on the way in or out.
//! * **Consume = gate, decode, reconcile.** Every consumer first runs the one schema-version
//!   gate ([`gate`]) on the native property, without looking at the body; only a message the gate
//!   lets through is decoded; the decoded `attempts` is then reconciled with the broker's own
//!   delivery count by the binding's rule. A gate reject never decodes the body.

pub mod amqp;
pub mod amqp_value;
pub mod artemis;
pub mod asb;
pub mod gate;
pub mod kafka;
pub mod pulsar;
pub mod sqs;

use std::fmt;

pub use amqp_value::AmqpValue;
pub use gate::{GateRejection, Native};

use super::envelope::{self, DecodeError, Envelope, Warning};

/// The content type every binding that has the slot writes.
pub const CONTENT_TYPE: &str = "application/json";
/// The constant application id (RabbitMQ `app_id`, Artemis `bq_app_id`).
pub const APP_ID: &str = "babelqueue";

/// A message a consumer accepted: the decoded envelope with its reconciled attempts.
#[derive(Debug, Clone, PartialEq)]
pub struct Consumed {
    pub envelope: Envelope,
    /// What decode ignored on the way (forbidden keys, a non-string `job`, …).
    pub warnings: Vec<Warning>,
}

/// Why a consumer did not hand a message to a handler.
#[derive(Debug, Clone, PartialEq)]
pub enum ConsumeError {
    /// The schema-version gate rejected the native property; the body was not decoded.
    Gate(GateRejection),
    /// The gate let the message through, but the body is not an acceptable envelope.
    Body(DecodeError),
}

impl fmt::Display for ConsumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Gate(g) => write!(f, "schema-version gate: {g}"),
            Self::Body(e) => write!(f, "body: {e}"),
        }
    }
}

impl std::error::Error for ConsumeError {}

/// The shared consume path: gate on `version`, then decode `body`, then reconcile `attempts`.
fn consume(version: Native<'_>, body: &[u8], reconcile: impl FnOnce(u64) -> u64) -> Result<Consumed, ConsumeError> {
    gate::check(version).map_err(ConsumeError::Gate)?;
    let decoded = envelope::decode(body).map_err(ConsumeError::Body)?;
    let mut env = decoded.envelope;
    env.attempts = reconcile(env.attempts);
    Ok(Consumed { envelope: env, warnings: decoded.warnings })
}

/// The envelope values a binding projects, with missing or empty sources left out.
#[derive(Debug, Clone, PartialEq)]
struct Source<'a> {
    urn: &'a str,
    trace_id: Option<&'a str>,
    message_id: Option<&'a str>,
    lang: Option<&'a str>,
    created_at: Option<i64>,
    attempts: u64,
}

impl<'a> Source<'a> {
    fn of(env: &'a Envelope) -> Self {
        let non_empty = |s: &'a str| (!s.is_empty()).then_some(s);
        Source {
            urn: &env.job,
            trace_id: non_empty(&env.trace_id),
            message_id: env.meta.id().and_then(non_empty),
            lang: env.meta.lang().and_then(non_empty),
            created_at: env.meta.created_at().and_then(|n| i64::try_from(n).ok()),
            attempts: env.attempts,
        }
    }
}

/// The string-valued projection Pulsar properties and Kafka headers share, in write order:
/// `bq-job`, `bq-trace-id`, `bq-message-id`, `bq-schema-version`, `bq-source-lang`, `bq-attempts`
/// (the attempts key is always written).
fn string_properties(env: &Envelope) -> Vec<(&'static str, String)> {
    let src = Source::of(env);
    let mut out = vec![("bq-job", src.urn.to_owned())];
    if let Some(t) = src.trace_id {
        out.push(("bq-trace-id", t.to_owned()));
    }
    if let Some(id) = src.message_id {
        out.push(("bq-message-id", id.to_owned()));
    }
    out.push(("bq-schema-version", envelope::SCHEMA_VERSION.to_string()));
    if let Some(lang) = src.lang {
        out.push(("bq-source-lang", lang.to_owned()));
    }
    out.push(("bq-attempts", src.attempts.to_string()));
    out
}

/// Parse a native delivery count or attempts header: ASCII decimal digits only (no sign, no
/// whitespace, no fraction). Anything else is unparseable and the caller ignores it.
fn parse_count(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_plain_ascii_decimals() {
        assert_eq!(parse_count("0"), Some(0));
        assert_eq!(parse_count("007"), Some(7));
        assert_eq!(parse_count("18446744073709551615"), Some(u64::MAX));
        for bad in ["", " 1", "1 ", "+1", "-1", "1.0", "1e2", "x", "١", "18446744073709551616"] {
            assert_eq!(parse_count(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_gate_reject_never_decodes_the_body() {
        let err = consume(Native::Text("2"), b"not json", |a| a).unwrap_err();
        assert!(matches!(err, ConsumeError::Gate(_)), "{err}");
        let err = consume(Native::Text("1"), b"not json", |a| a).unwrap_err();
        assert!(matches!(err, ConsumeError::Body(_)), "{err}");
    }
}

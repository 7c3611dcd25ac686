//! Amazon SQS (broker-bindings §3): message attributes, attempts reconciliation, the
//! schema-version gate, per-message delay and release.
//!
//! Rules:
//!
//! * **Projection** (§3): `bq-job`, `bq-trace-id`, `bq-message-id`, `bq-source-lang` as DataType
//!   `String`; `bq-schema-version` and `bq-created-at` as DataType `Number` whose StringValue is
//!   the decimal text. SQS has no attempts attribute.
//! * **Reconciliation**: `attempts = max(body attempts, ApproximateReceiveCount − 1)`. A count
//!   that is absent or not a plain ASCII decimal is ignored; a count of 0 or 1 leaves the body's
//!   attempts as they are; the body's count is never lowered.
//! * **Gate**: the StringValue of attribute `bq-schema-version`, whatever its DataType; a Binary
//!   attribute is not a string and rejects.
//! * **Send delay** (§3.4, decisions R10): on a standard queue a delay `d` with
//!   `0 < d ≤ 900` s sets `DelaySeconds = ceil(d)`; `d ≤ 0` sets no DelaySeconds; `d > 900` is an
//!   error (never clamped). On a FIFO queue (which has no per-message timers) any `d > 0` is an
//!   error and `d ≤ 0` sends normally. FIFO sends carry `MessageGroupId` (the queue name) and
//!   `MessageDeduplicationId` (`meta.id`).
//! * **Release** (§3.5, R10): a failed message is never deleted; it is released with
//!   `ChangeMessageVisibility(VisibilityTimeout = ceil(d))` for `0 ≤ ceil(d) ≤ 43200` s, the same
//!   on both queue kinds. `d ≤ 0` releases at once (0: the same "no delay" reading as a send);
//!   `d > 43200` is an error. A delay that is not a finite number is an error everywhere.
//!
//! The errors here are this core's `BabelQueueException`: they stop the send or release, and no
//! request is produced.

use std::collections::BTreeMap;
use std::fmt;

use super::{ConsumeError, Consumed, Native, Source, parse_count};
use crate::core::envelope::{self, EncodeError, Envelope};
use crate::fault::{self, Fault};

/// The largest per-message delay SQS allows, in seconds.
pub const MAX_DELAY_SECONDS: u32 = 900;
/// The largest visibility timeout SQS allows, in seconds (12 hours).
pub const MAX_VISIBILITY_TIMEOUT: u32 = 43_200;
/// The schema-version attribute.
pub const SCHEMA_VERSION: &str = "bq-schema-version";

/// An SQS message attribute's DataType.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    String,
    Number,
    Binary,
}

impl DataType {
    /// The API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::String => "String",
            Self::Number => "Number",
            Self::Binary => "Binary",
        }
    }
}

/// An SQS message attribute value, shaped like the API's `{DataType, StringValue, BinaryValue}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageAttributeValue {
    pub data_type: DataType,
    pub string_value: Option<String>,
    pub binary_value: Option<Vec<u8>>,
}

impl MessageAttributeValue {
    /// A `String` attribute.
    pub fn string(s: impl Into<String>) -> Self {
        Self { data_type: DataType::String, string_value: Some(s.into()), binary_value: None }
    }

    /// A `Number` attribute: the decimal text of `n`.
    pub fn number(n: impl fmt::Display) -> Self {
        Self { data_type: DataType::Number, string_value: Some(n.to_string()), binary_value: None }
    }

    /// A `Binary` attribute.
    pub fn binary(b: impl Into<Vec<u8>>) -> Self {
        Self { data_type: DataType::Binary, string_value: None, binary_value: Some(b.into()) }
    }
}

/// Message attributes by name.
pub type MessageAttributes = BTreeMap<String, MessageAttributeValue>;

/// Standard or FIFO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    Standard,
    Fifo,
}

/// A queue to send to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqsQueue {
    pub url: String,
    pub kind: QueueKind,
}

impl SqsQueue {
    /// A queue by URL; a name ending in `.fifo` is a FIFO queue (the AWS naming rule).
    pub fn new(url: impl Into<String>) -> Self {
        let url = url.into();
        let kind = if url.ends_with(".fifo") { QueueKind::Fifo } else { QueueKind::Standard };
        Self { url, kind }
    }

    /// The queue name: the last segment of the URL.
    pub fn name(&self) -> &str {
        self.url.trim_end_matches('/').rsplit('/').next().unwrap_or_default()
    }
}

/// A `SendMessage` request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendMessage {
    pub queue_url: String,
    pub message_body: String,
    pub message_attributes: MessageAttributes,
    pub delay_seconds: Option<u32>,
    pub message_group_id: Option<String>,
    pub message_deduplication_id: Option<String>,
}

/// A received message: what a `ReceiveMessage` with `MessageAttributeNames: ["All"]` and the
/// `ApproximateReceiveCount` attribute returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedMessage {
    pub receipt_handle: String,
    pub body: String,
    pub message_attributes: MessageAttributes,
    /// The `ApproximateReceiveCount` system attribute, as the API returns it (text).
    pub approximate_receive_count: Option<String>,
}

/// A `ChangeMessageVisibility` request: how a failed message is released.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeMessageVisibility {
    pub queue_url: String,
    pub receipt_handle: String,
    pub visibility_timeout: u32,
}

/// This core's `BabelQueueException` for SQS: the request is not made.
#[derive(Debug, Clone, PartialEq)]
pub enum SqsError {
    /// A delay above 900 s on a standard queue.
    DelayAboveMax { delay: f64 },
    /// A positive per-message delay on a FIFO queue.
    FifoDelay { delay: f64 },
    /// A release delay above 43200 s.
    VisibilityAboveMax { delay: f64 },
    /// The delay is NaN or infinite.
    NotFinite,
    /// The envelope could not be encoded.
    Encode(EncodeError),
}

impl fmt::Display for SqsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DelayAboveMax { delay } => {
                write!(f, "a delay of {delay} s is above SQS's {MAX_DELAY_SECONDS} s per-message maximum")
            }
            Self::FifoDelay { delay } => {
                write!(f, "FIFO queues have no per-message delay; refusing a delay of {delay} s")
            }
            Self::VisibilityAboveMax { delay } => {
                write!(f, "a release delay of {delay} s is above SQS's {MAX_VISIBILITY_TIMEOUT} s visibility maximum")
            }
            Self::NotFinite => f.write_str("a delay must be a finite number of seconds"),
            Self::Encode(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SqsError {}

/// The produce-side projection: the attributes that go beside the body.
pub fn attributes(env: &Envelope) -> MessageAttributes {
    let src = Source::of(env);
    let mut out = MessageAttributes::new();
    let mut put = |name: &str, value: MessageAttributeValue| {
        out.insert(name.to_owned(), value);
    };
    put("bq-job", MessageAttributeValue::string(src.urn));
    if let Some(t) = src.trace_id {
        put("bq-trace-id", MessageAttributeValue::string(t));
    }
    if let Some(id) = src.message_id {
        put("bq-message-id", MessageAttributeValue::string(id));
    }
    put(SCHEMA_VERSION, MessageAttributeValue::number(envelope::SCHEMA_VERSION));
    if let Some(lang) = src.lang {
        put("bq-source-lang", MessageAttributeValue::string(lang));
    }
    if let Some(ms) = src.created_at {
        put("bq-created-at", MessageAttributeValue::number(ms));
    }
    out
}

/// `DelaySeconds` for a send of `delay` seconds to a queue of `kind` (R10).
pub fn delay_seconds(kind: QueueKind, delay: f64) -> Result<Option<u32>, SqsError> {
    if !delay.is_finite() {
        return Err(SqsError::NotFinite);
    }
    if delay <= 0.0 {
        return Ok(None);
    }
    if kind == QueueKind::Fifo {
        return Err(SqsError::FifoDelay { delay });
    }
    if delay > f64::from(MAX_DELAY_SECONDS) && !fault::active(Fault::SqsDelayClamps) {
        return Err(SqsError::DelayAboveMax { delay });
    }
    Ok(Some(whole_seconds(delay).min(MAX_DELAY_SECONDS)))
}

/// `VisibilityTimeout` for a release after `delay` seconds (R10).
pub fn visibility_timeout(delay: f64) -> Result<u32, SqsError> {
    if !delay.is_finite() {
        return Err(SqsError::NotFinite);
    }
    if delay > f64::from(MAX_VISIBILITY_TIMEOUT) {
        return Err(SqsError::VisibilityAboveMax { delay });
    }
    Ok(if delay <= 0.0 { 0 } else { whole_seconds(delay) })
}

/// `ceil(delay)` for a finite `0 < delay ≤ 43200`.
fn whole_seconds(delay: f64) -> u32 {
    // In range by the callers' checks, so the cast is exact.
    delay.ceil() as u32
}

/// The `SendMessage` request for `env` on `queue`, with an optional delay in seconds.
pub fn send_message(queue: &SqsQueue, env: &Envelope, delay: Option<f64>) -> Result<SendMessage, SqsError> {
    let delay_seconds = match delay {
        Some(d) => delay_seconds(queue.kind, d)?,
        None => None,
    };
    let body = envelope::encode(env).map_err(SqsError::Encode)?;
    let fifo = queue.kind == QueueKind::Fifo;
    Ok(SendMessage {
        queue_url: queue.url.clone(),
        message_body: body,
        message_attributes: attributes(env),
        delay_seconds,
        message_group_id: fifo.then(|| queue.name().to_owned()),
        message_deduplication_id: if fifo { env.meta.id().map(str::to_owned) } else { None },
    })
}

/// The release of a failed message: make it visible again after `delay` seconds.
pub fn release(queue: &SqsQueue, received: &ReceivedMessage, delay: f64) -> Result<ChangeMessageVisibility, SqsError> {
    Ok(ChangeMessageVisibility {
        queue_url: queue.url.clone(),
        receipt_handle: received.receipt_handle.clone(),
        visibility_timeout: visibility_timeout(delay)?,
    })
}

/// `max(body attempts, ApproximateReceiveCount − 1)`; an absent or unparseable count is ignored.
pub fn reconcile_attempts(body_attempts: u64, approximate_receive_count: Option<&str>) -> u64 {
    let Some(count) = approximate_receive_count.and_then(parse_count) else {
        return body_attempts;
    };
    let native = if fault::active(Fault::SqsAttemptsNoMinusOne) { count } else { count.saturating_sub(1) };
    body_attempts.max(native)
}

/// What the gate sees of an attribute.
pub fn gate_input(attr: Option<&MessageAttributeValue>) -> Native<'_> {
    match attr {
        None => Native::Absent,
        Some(a) if a.data_type == DataType::Binary => Native::Other("Binary attribute"),
        Some(a) => a.string_value.as_deref().map_or(Native::Absent, Native::Text),
    }
}

/// Consume a received message: gate, decode, reconcile.
pub fn consume(msg: &ReceivedMessage) -> Result<Consumed, ConsumeError> {
    super::consume(gate_input(msg.message_attributes.get(SCHEMA_VERSION)), msg.body.as_bytes(), |a| {
        reconcile_attempts(a, msg.approximate_receive_count.as_deref())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, with};

    const ORDER: &str = r#"{"job":"urn:babel:orders:created","trace_id":"7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b","data":{"order_id":1042},"meta":{"id":"f1e2d3c4-b5a6-4789-90ab-cdef01234567","queue":"orders","lang":"php","schema_version":1,"created_at":1749132727000},"attempts":2}"#;

    fn order() -> Envelope {
        envelope::decode(ORDER.as_bytes()).unwrap().envelope
    }

    #[test]
    fn projection_is_typed_and_complete() {
        let a = attributes(&order());
        assert_eq!(a["bq-schema-version"], MessageAttributeValue::number(1));
        assert_eq!(a["bq-created-at"].string_value.as_deref(), Some("1749132727000"));
        assert_eq!(a["bq-job"].data_type, DataType::String);
        assert_eq!(a.len(), 6);
        assert!(!a.contains_key("bq-attempts"));
    }

    #[test]
    fn standard_delay_rounds_up_and_never_clamps() {
        let s = QueueKind::Standard;
        assert_eq!(delay_seconds(s, 0.001), Ok(Some(1)));
        assert_eq!(delay_seconds(s, 899.2), Ok(Some(900)));
        assert_eq!(delay_seconds(s, 900.0), Ok(Some(900)));
        assert_eq!(delay_seconds(s, 0.0), Ok(None));
        assert_eq!(delay_seconds(s, -3.0), Ok(None));
        assert!(matches!(delay_seconds(s, 900.01), Err(SqsError::DelayAboveMax { .. })));
        assert_eq!(delay_seconds(s, f64::NAN), Err(SqsError::NotFinite));
        assert_eq!(delay_seconds(s, f64::INFINITY), Err(SqsError::NotFinite));
        with(Fault::SqsDelayClamps, || assert_eq!(delay_seconds(s, 901.0), Ok(Some(900))));
    }

    #[test]
    fn fifo_refuses_positive_delays_and_sends_group_and_dedup_ids() {
        let q = SqsQueue::new("https://sqs.eu-west-1.amazonaws.com/000000000000/orders.fifo");
        assert_eq!((q.kind, q.name()), (QueueKind::Fifo, "orders.fifo"));
        assert!(matches!(send_message(&q, &order(), Some(0.5)), Err(SqsError::FifoDelay { .. })));
        let m = send_message(&q, &order(), Some(0.0)).unwrap();
        assert_eq!(m.delay_seconds, None);
        assert_eq!(m.message_group_id.as_deref(), Some("orders.fifo"));
        assert_eq!(m.message_deduplication_id.as_deref(), Some("f1e2d3c4-b5a6-4789-90ab-cdef01234567"));
        assert_eq!(m.message_body, ORDER);
    }

    #[test]
    fn release_uses_the_visibility_timeout() {
        assert_eq!(visibility_timeout(-1.0), Ok(0));
        assert_eq!(visibility_timeout(2.5), Ok(3));
        assert_eq!(visibility_timeout(43_200.0), Ok(43_200));
        assert!(matches!(visibility_timeout(43_200.5), Err(SqsError::VisibilityAboveMax { .. })));
        let q = SqsQueue::new("https://example/orders");
        let msg = ReceivedMessage {
            receipt_handle: "rh".into(),
            body: ORDER.into(),
            message_attributes: MessageAttributes::new(),
            approximate_receive_count: Some("1".into()),
        };
        assert_eq!(release(&q, &msg, 30.0).unwrap().visibility_timeout, 30);
    }

    #[test]
    fn consume_gates_decodes_and_reconciles() {
        let mut msg = ReceivedMessage {
            receipt_handle: "rh".into(),
            body: ORDER.into(),
            message_attributes: attributes(&order()),
            approximate_receive_count: Some("6".into()),
        };
        assert_eq!(consume(&msg).unwrap().envelope.attempts, 5);
        msg.approximate_receive_count = Some(" 6".into());
        assert_eq!(consume(&msg).unwrap().envelope.attempts, 2);
        msg.message_attributes.insert(SCHEMA_VERSION.into(), MessageAttributeValue::binary(*b"1"));
        assert!(matches!(consume(&msg), Err(ConsumeError::Gate(_))));
    }

    #[test]
    fn reconciliation_subtracts_one() {
        assert_eq!(reconcile_attempts(0, Some("1")), 0);
        assert_eq!(reconcile_attempts(0, Some("0")), 0);
        assert_eq!(reconcile_attempts(0, Some("3")), 2);
        assert_eq!(reconcile_attempts(4, Some("not-a-number")), 4);
        assert_eq!(reconcile_attempts(3, None), 3);
        with(Fault::SqsAttemptsNoMinusOne, || assert_eq!(reconcile_attempts(0, Some("1")), 1));
    }
}

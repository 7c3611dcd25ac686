//! The request and result of every operation of the SDK interface, named in the spec's words.
//!
//! Invariants: a request carries everything the operation needs as plain data (bodies as
//! [`Bytes`], fixtures already read by the caller); a result says what the SDK did, including
//! the outcomes a case may expect — a rejected decode, a refused encode, a raised send, a gate
//! rejection — as ordinary kinds (`"kind": "refused"`), never as an error; optional fields that
//! the spec distinguishes from `null` are modelled so (`Option<Option<_>>` is not needed: where
//! null and absent differ, the map value is an `Option`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::wire::{
    Amqp, Bytes, DeadLetterReason, Entries, KafkaHeader, KafkaRecord, RedisLayout, RedisRole, RedisTarget,
    SqsAttribute, SqsQueueKind, Warning,
};

// ---- the envelope -------------------------------------------------------------------------

/// Decode a body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decode {
    pub body: Bytes,
}

/// A decoded message as the SDK sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DecodedEnvelope {
    /// The resolved URN (`job`, or the `urn` alias).
    pub urn: String,
    pub trace_id: String,
    pub data: Map<String, Value>,
    /// `meta` as decoded: the canonical keys and any unknown ones.
    pub meta: Map<String, Value>,
    pub attempts: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dead_letter: Option<Value>,
}

/// What decode gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecodeOutcome {
    Decoded {
        envelope: Box<DecodedEnvelope>,
        warnings: Vec<Warning>,
    },
    /// Not an acceptable envelope (a decode error).
    Rejected {
        message: String,
    },
}

/// `accepts(body)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Accepts {
    pub body: Bytes,
}

/// Decode a body, add 1 to attempts when asked, and encode it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reemit {
    pub attempts_plus_one: bool,
    pub body: Bytes,
}

/// Decode a body, add 1 to attempts when asked, move it to the dead-letter queue with the
/// SDK's own helper, and encode the dead-letter copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeadLetterMove {
    pub attempts_plus_one: bool,
    pub reason: DeadLetterReason,
    pub original_queue: String,
    /// The error text the worker hands the helper (runner-chosen).
    pub error: Option<String>,
    pub body: Bytes,
}

/// What a re-emit (or a dead-letter move) gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReemitOutcome {
    /// The encoded output, and the warnings of the decode before it.
    Encoded { json: String, warnings: Vec<Warning> },
    /// The body did not decode.
    Rejected { message: String },
    /// Encode refused (a forbidden, colliding or repeated key).
    Refused { message: String },
}

/// The producer API: `make(urn, data, queue, trace_id?, meta entries)` then encode. Entries in
/// `carried_top` / `carried_meta` stand for extras carried over from an inbound message: the
/// SDK places them into its preserved unknown-key container (top level / under `meta`) of the
/// made message, by whatever test access it has, before encoding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Make {
    pub urn: String,
    pub queue: String,
    pub data: Map<String, Value>,
    #[serde(default)]
    pub trace_id: Option<String>,
    /// Entries of the producer meta write API, in order (a vendor block is the whole `ext`).
    #[serde(default)]
    pub meta: Entries,
    #[serde(default)]
    pub carried_top: Entries,
    #[serde(default)]
    pub carried_meta: Entries,
}

impl Make {
    /// `make(urn, data, queue)` with no trace_id, no meta entries and no carried-over extras.
    pub fn new(urn: &str, queue: &str, data: Map<String, Value>) -> Self {
        Self {
            urn: urn.to_owned(),
            queue: queue.to_owned(),
            data,
            trace_id: None,
            meta: Vec::new(),
            carried_top: Vec::new(),
            carried_meta: Vec::new(),
        }
    }
}

/// Where a producer refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Make,
    Encode,
}

/// What make + encode gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MakeOutcome {
    Made { json: String },
    Refused { stage: Stage, message: String },
}

// ---- the core helpers ---------------------------------------------------------------------

/// Validate `data` against a payload schema with the SDK's validator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValidatePayload {
    pub schema: Value,
    pub data: Value,
}

/// The validator's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PayloadOutcome {
    Checked {
        valid: bool,
        violations: Vec<String>,
    },
    /// The validator cannot compile the schema.
    SchemaRefused {
        message: String,
    },
}

/// A handler's result for one delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HandlerOutcome {
    Ok,
    Throw,
}

/// One delivery to a handler wrapped by the idempotency helper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Delivery {
    /// What the wrapped handler does when it runs.
    pub outcome: HandlerOutcome,
    /// Evict this message's id from the store before the delivery.
    #[serde(default)]
    pub forget_before: bool,
    pub body: Bytes,
}

/// Replay deliveries through one wrapped handler backed by one fresh in-memory store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IdempotencyReplay {
    pub deliveries: Vec<Delivery>,
}

/// What one delivery did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DeliveryEffect {
    /// The wrapped handler was invoked.
    pub ran: bool,
    /// The error the wrapped call returned (a handler throw surfaces here).
    pub error: Option<String>,
    /// The ids in the store after the delivery, in any order (the reference core sorts them).
    pub remembered: Vec<String>,
}

/// The effects of a replay, one per delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Replayed {
    pub deliveries: Vec<DeliveryEffect>,
}

/// A retry policy's jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    None,
    Full,
}

/// The most draws one [`RetryDelay`] may ask for. bqsuite's runner asks a few thousand; 2^20
/// delays are a few MiB to hold and already more than an adapter's 8 MiB reply line can carry
/// when they are large, so a request beyond it is refused (an SDK error), never computed: a
/// `draws` near 2^32 would otherwise ask the SDK for tens of GiB.
pub const MAX_DRAWS: u32 = 1 << 20;

/// The delay, in milliseconds, of retry `n` (first retry = 1), drawn `draws` times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RetryDelay {
    pub retry_backoff: u64,
    #[serde(default)]
    pub multiplier: Option<f64>,
    #[serde(default)]
    pub max: Option<u64>,
    pub jitter: Jitter,
    pub n: u32,
    pub draws: u32,
}

/// The dead-letter record of a poison body consumed from `original_queue`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PoisonRecord {
    pub original_queue: String,
    pub body: Bytes,
}

/// Consumer-side extraction of a W3C `traceparent` header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceparentExtract {
    /// `None`: no header.
    pub traceparent: Option<String>,
    /// The envelope's `trace_id`.
    pub trace_id: String,
}

/// Where an extracted parent came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceSource {
    Header,
    Fallback,
}

impl TraceSource {
    /// The protocol's spelling (`header`, `fallback`).
    pub fn as_str(self) -> &'static str {
        match self {
            TraceSource::Header => "header",
            TraceSource::Fallback => "fallback",
        }
    }
}

/// The extracted parent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ParentContext {
    pub source: TraceSource,
    pub trace_id: String,
    pub parent_span_id: String,
    pub trace_flags: String,
}

// ---- the broker bindings ------------------------------------------------------------------

/// What a consumer did with a received message: gate, then decode, then reconcile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConsumeOutcome {
    /// Handed to the handler, with the reconciled attempts.
    Delivered { attempts: u64 },
    /// The schema-version gate refused the native property; the body was not decoded.
    GateRejected { message: String },
    /// The gate let it through, but the body is not an acceptable envelope.
    BodyRejected { message: String },
}

/// Send a body (an envelope) to an SQS queue, optionally with a delay in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SqsSend {
    pub queue: SqsQueueKind,
    pub delay_seconds: Option<f64>,
    pub body: Bytes,
}

/// What an SQS send gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SqsSendOutcome {
    Sent { message_body: String, message_attributes: BTreeMap<String, SqsAttribute>, delay_seconds: Option<u32> },
    Raised { message: String },
}

/// Release a received SQS message (a body with this receipt handle) after a delay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SqsRelease {
    pub receipt_handle: String,
    pub queue: SqsQueueKind,
    pub delay_seconds: f64,
    pub body: Bytes,
}

/// What an SQS release gave: a ChangeMessageVisibility request, or a raise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SqsReleaseOutcome {
    Released { receipt_handle: String, visibility_timeout: u32 },
    Raised { message: String },
}

/// SQS consume-side attempts reconciliation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SqsReconcile {
    pub body_attempts: u64,
    pub approximate_receive_count: Option<String>,
}

/// Consume a received SQS message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SqsConsume {
    pub message_attributes: BTreeMap<String, SqsAttribute>,
    pub approximate_receive_count: Option<String>,
    pub body: Bytes,
}

/// Produce a body (an envelope) on a binding whose projection needs nothing else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Produce {
    pub body: Bytes,
}

/// An Azure Service Bus message as produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AsbMessage {
    pub subject: Option<String>,
    pub correlation_id: Option<String>,
    pub message_id: Option<String>,
    pub content_type: Option<String>,
    pub application_properties: BTreeMap<String, Amqp>,
    pub body: Bytes,
}

/// Reconciliation by a delivery count (ASB: `max(body, count − 1)`; Artemis: `max(body,
/// count)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeliveryCountReconcile {
    pub body_attempts: u64,
    pub delivery_count: u32,
}

/// Consume a received ASB message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AsbConsume {
    pub application_properties: BTreeMap<String, Amqp>,
    pub delivery_count: u32,
    pub body: Bytes,
}

/// A Pulsar message as produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PulsarMessage {
    pub properties: BTreeMap<String, String>,
    pub payload: Bytes,
}

/// Pulsar reconciliation: `max(body, redelivery_count)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PulsarReconcile {
    pub body_attempts: u64,
    pub redelivery_count: u32,
}

/// Consume a received Pulsar message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PulsarConsume {
    pub properties: BTreeMap<String, String>,
    pub redelivery_count: u32,
    pub payload: Bytes,
}

/// Produce a body (an envelope) on a Kafka topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaProduce {
    pub topic: String,
    pub body: Bytes,
}

/// Kafka reconciliation: the `bq-attempts` header when present, else the body's attempts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaReconcile {
    pub body_attempts: u64,
    pub headers: Vec<KafkaHeader>,
}

/// Consume a Kafka record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaConsume {
    pub record: KafkaRecord,
}

/// The retry republish of a consumed record that failed (§6.5), with these tiers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaRetry {
    pub record: KafkaRecord,
    pub tiers_ms: Vec<u64>,
}

/// Publish a body on a topic with a requested delay (§6.4), with these tiers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaDelayed {
    pub topic: String,
    pub delay_ms: i64,
    pub tiers_ms: Vec<u64>,
    pub body: Bytes,
}

/// What a Kafka publish gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KafkaPublishOutcome {
    Published { record: KafkaRecord },
    Raised { message: String },
}

/// The retry topics and the dead-letter topic of a work topic for these tiers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaRetryTopics {
    pub topic: String,
    pub tiers_ms: Vec<u64>,
}

/// One retry topic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RetryTopic {
    pub topic: String,
    pub delay_ms: u64,
}

/// The topics, or a refused configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RetryTopicsOutcome {
    Topics { retry_topics: Vec<RetryTopic>, dlq_topic: String },
    Raised { message: String },
}

/// The tier a retry goes to after `attempts_before` attempts, with these tiers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaRetryTier {
    pub tiers_ms: Vec<u64>,
    pub attempts_before: u64,
}

/// The tier (from 1) and its delay, or a raise (no tier, or a refused configuration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RetryTierOutcome {
    Tier { tier: u64, delay_ms: u64 },
    Raised { message: String },
}

/// The RECOMMENDED tier list the SDK uses when none is configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaDefaultTiers {}

/// Classify a Kafka record value before trusting it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KafkaClassify {
    /// `None` is a tombstone.
    pub value: Option<Bytes>,
}

/// The poison classification of a record value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Classification {
    Ok,
    NoIdentity,
    Poison,
}

impl Classification {
    /// The manifest spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::NoIdentity => "no_identity",
            Self::Poison => "poison",
        }
    }
}

/// An Artemis (AMQP 1.0) message as produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArtemisMessage {
    pub message_annotations: BTreeMap<String, String>,
    pub correlation_id: Option<String>,
    /// Unix milliseconds.
    pub creation_time: Option<i64>,
    pub content_type: Option<String>,
    /// A value of `null` is a property present with a null value.
    pub application_properties: BTreeMap<String, Option<String>>,
    pub body: Bytes,
}

/// Consume a received Artemis message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArtemisConsume {
    pub application_properties: BTreeMap<String, Option<String>>,
    pub delivery_count: u32,
    pub body: Bytes,
}

/// The AMQP 0-9-1 basic properties BabelQueue sets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AmqpProperties {
    /// The `type` property.
    #[serde(rename = "type")]
    pub message_type: Option<String>,
    pub correlation_id: Option<String>,
    pub message_id: Option<String>,
    pub app_id: Option<String>,
    pub content_type: Option<String>,
    pub delivery_mode: Option<u8>,
    pub headers: BTreeMap<String, Amqp>,
}

/// A RabbitMQ message as published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AmqpMessage {
    pub properties: AmqpProperties,
    pub body: Bytes,
}

// ---- Redis --------------------------------------------------------------------------------

/// The key names of a layout for a queue under a prefix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisKeyNames {
    pub layout: RedisLayout,
    pub queue: String,
    pub prefix: String,
}

/// The available-at score of a delayed item (epoch seconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisDelayedScore {
    pub now: f64,
    pub delay: f64,
}

/// Push a body to a queue's ready list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisPush {
    pub target: RedisTarget,
    pub body: Bytes,
}

/// Push a body with a delay in seconds (zset layout).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisPushDelayed {
    pub target: RedisTarget,
    pub delay: f64,
    pub body: Bytes,
}

/// An operation on a queue that needs nothing else (migrate, sweep, reserve).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisQueueOp {
    pub target: RedisTarget,
}

/// What a legacy sweep did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RedisSwept {
    pub moved: u64,
    pub orphaned: u64,
    pub malformed: u64,
}

/// A reservation a reserve made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisReserved {
    /// The SDK's name for the reservation, for a later ack / release / dead-letter.
    pub reservation: String,
    pub poison: bool,
    /// Legacy layout: the 32-hex token of the reservation's deadline member, or null when the
    /// SDK does not expose it (the judge then holds the member to the token's shape only); a
    /// token given must be the member's. Zset layout: null.
    pub token: Option<String>,
    /// The body handed to the handler (or reported as poison), byte for byte.
    pub body: Bytes,
}

/// Ack a reservation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisAck {
    pub target: RedisTarget,
    pub reservation: String,
}

/// Release a reservation for a retry after `delay` seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisRelease {
    pub target: RedisTarget,
    pub reservation: String,
    pub delay: f64,
}

/// Dead-letter a reservation. `reason` (`failed` or `unknown_urn`) is the reason for a body the
/// SDK decoded; a reservation it reported as poison is dead-lettered as poison (the ADR-0035
/// record, reason `poison`) whatever `reason` says, as the SDK's own consumer does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedisDeadLetter {
    pub target: RedisTarget,
    pub reservation: String,
    pub reason: DeadLetterReason,
    pub error: Option<String>,
}

/// The key name of every role of a layout.
pub type KeyNames = BTreeMap<RedisRole, String>;

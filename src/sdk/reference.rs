//! The reference core ([`crate::core`]) behind the SDK interface.
//!
//! This is the tooling side's adapter: the core knows nothing of the interface, and this module
//! only translates — plain data in, a core call, plain data out — without judging anything.
//! Broken variants of the core ([`Broken`], the core's catalogue) are switched on around calls
//! with [`with_broken`]; the adapter itself has no broken behaviour of its own.
//!
//! Invariants: every operation of [`super::OPERATIONS`] is implemented; an outcome the contract
//! names (a rejected decode, a refused encode, a raise, a gate rejection) is a result, and only
//! an unexpected failure (a body that should decode and does not, Redis errors) is an
//! [`SdkError`]; Redis operations connect through [`RedisConnections`] (by default one
//! connection per URL for the adapter's lifetime, opened on first use) and reservations are
//! kept by name until they are acked, released or dead-lettered.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::core::bindings::{AmqpValue, ConsumeError, Consumed, amqp, artemis, asb, kafka, pulsar, sqs};
use crate::core::dead_letter::{self, Cause, Reason};
use crate::core::envelope::{self, Envelope};
use crate::core::idempotency::{self, Effect, MemoryStore, Store};
use crate::core::payload_schema::Schema;
use crate::core::redis as transport;
use crate::core::retry::Backoff;
use crate::core::{poison, traceparent};
use crate::fault;

use super::ops::*;
use super::wire::{
    Amqp, Bytes, DeadLetterReason, KafkaHeader, KafkaRecord, RedisLayout, RedisRole, RedisTarget, SqsAttribute,
    SqsQueueKind, Warning,
};
use super::{Identity, OPERATIONS, Request, Response, Sdk, SdkError};

/// The catalogue of broken variants of the reference core.
pub use crate::fault::Fault as Broken;

/// Run `f` with the broken variant `broken` switched on for the calls it makes on this thread.
pub fn with_broken<R>(broken: Broken, f: impl FnOnce() -> R) -> R {
    fault::with(broken, f)
}

/// The name the reference core reports as (decisions R7).
pub const SDK_NAME: &str = "bqsuite-reference";

/// A queue URL for sends whose queue does not matter beyond its kind.
const STANDARD_QUEUE: &str = "https://sqs.us-east-1.amazonaws.com/000000000000/bqsuite";
const FIFO_QUEUE: &str = "https://sqs.us-east-1.amazonaws.com/000000000000/bqsuite.fifo";
/// The fixed seed of the reproducible half of the retry draws ("bqsuite" in ASCII).
const SEED: u64 = 0x0062_7173_7569_7465;

/// Where an in-process SDK gets its Redis connection for a URL.
pub trait RedisConnections {
    /// Run `f` on the connection to `url` (the same one for every call), or say why there is
    /// none.
    fn with_connection(&self, url: &str, f: &mut dyn FnMut(&mut dyn redis::ConnectionLike)) -> Result<(), String>;
}

/// One connection per URL, opened on first use and kept.
#[derive(Default)]
pub struct OwnConnections {
    open: RefCell<HashMap<String, Result<redis::Connection, String>>>,
}

impl RedisConnections for OwnConnections {
    fn with_connection(&self, url: &str, f: &mut dyn FnMut(&mut dyn redis::ConnectionLike)) -> Result<(), String> {
        let mut open = self.open.borrow_mut();
        let con = open.entry(url.to_owned()).or_insert_with(|| {
            redis::Client::open(url)
                .and_then(|c| c.get_connection())
                .map_err(|e| format!("cannot reach Redis at {}: {e}", crate::diag::redact_url(url)))
        });
        match con {
            Ok(con) => {
                f(con);
                Ok(())
            }
            Err(why) => Err(why.clone()),
        }
    }
}

/// The reference core as an SDK under test.
pub struct ReferenceSdk {
    redis: Rc<dyn RedisConnections>,
    reservations: HashMap<String, transport::Delivery>,
    next_reservation: u64,
    /// Draw every retry delay from the seeded generator (reproducible runs, `validate`).
    deterministic: bool,
}

impl Default for ReferenceSdk {
    fn default() -> Self {
        Self::new()
    }
}

impl ReferenceSdk {
    /// The reference core, with Redis connections of its own.
    pub fn new() -> Self {
        Self::with_redis(Rc::new(OwnConnections::default()))
    }

    /// The reference core, connecting to Redis through `redis`.
    pub fn with_redis(redis: Rc<dyn RedisConnections>) -> Self {
        Self { redis, reservations: HashMap::new(), next_reservation: 0, deterministic: false }
    }

    /// Draw every full-jitter delay from a generator of a fixed seed, so that the same request
    /// always gets the same delays. By default half the draws come from OS entropy.
    pub fn deterministic(mut self) -> Self {
        self.deterministic = true;
        self
    }
}

impl Sdk for ReferenceSdk {
    fn hello(&self) -> Identity {
        Identity {
            sdk: SDK_NAME.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            language: envelope::LANG.to_owned(),
            // Every binding of the contract (decisions R7).
            bindings: super::BINDINGS.iter().map(|s| (*s).to_owned()).collect(),
            operations: OPERATIONS.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn call(&mut self, request: &Request) -> Result<Response, SdkError> {
        Ok(match request {
            Request::Decode(r) => Response::Decode(decode(&r.body)),
            Request::Accepts(r) => Response::Accepts(envelope::accepts(r.body.as_slice())),
            Request::Reemit(r) => Response::Reemit(reemit(&r.body, r.attempts_plus_one, None)),
            Request::DeadLetterMove(r) => Response::DeadLetterMove(reemit(&r.body, r.attempts_plus_one, Some(r))),
            Request::Make(r) => Response::Make(make(r)),
            Request::ValidatePayload(r) => Response::ValidatePayload(validate_payload(r)),
            Request::IdempotencyReplay(r) => Response::IdempotencyReplay(replay(r)?),
            Request::RetryDelay(r) => Response::RetryDelay(retry_delay(r, self.deterministic)?),
            Request::PoisonRecord(r) => Response::PoisonRecord(poison_record(r)),
            Request::TraceparentExtract(r) => Response::TraceparentExtract(extract(r)),
            Request::SqsSend(r) => Response::SqsSend(sqs_send(r)?),
            Request::SqsRelease(r) => Response::SqsRelease(sqs_release(r)?),
            Request::SqsReconcile(r) => {
                Response::SqsReconcile(sqs::reconcile_attempts(r.body_attempts, r.approximate_receive_count.as_deref()))
            }
            Request::SqsConsume(r) => Response::SqsConsume(sqs_consume(r)),
            Request::AsbProduce(r) => Response::AsbProduce(asb_produce(&r.body)?),
            Request::AsbReconcile(r) => {
                Response::AsbReconcile(asb::reconcile_attempts(r.body_attempts, r.delivery_count))
            }
            Request::AsbConsume(r) => Response::AsbConsume(asb_consume(r)),
            Request::PulsarProduce(r) => Response::PulsarProduce(pulsar_produce(&r.body)?),
            Request::PulsarReconcile(r) => {
                Response::PulsarReconcile(pulsar::reconcile_attempts(r.body_attempts, r.redelivery_count))
            }
            Request::PulsarConsume(r) => Response::PulsarConsume(consumed(pulsar::consume(&pulsar::ReceivedMessage {
                payload: r.payload.0.clone(),
                properties: r.properties.clone(),
                redelivery_count: r.redelivery_count,
            }))),
            Request::KafkaProduce(r) => Response::KafkaProduce(kafka_produce(r)?),
            Request::KafkaReconcile(r) => {
                Response::KafkaReconcile(kafka::reconcile_attempts(r.body_attempts, &headers_in(&r.headers)))
            }
            Request::KafkaConsume(r) => Response::KafkaConsume(consumed(kafka::consume(&record_in(&r.record)))),
            Request::KafkaRetry(r) => Response::KafkaRetry(kafka_retry(r)?),
            Request::KafkaDelayed(r) => Response::KafkaDelayed(kafka_delayed(r)?),
            Request::KafkaRetryTopics(r) => Response::KafkaRetryTopics(retry_topics(r)),
            Request::KafkaRetryTier(r) => Response::KafkaRetryTier(retry_tier(r)),
            Request::KafkaDefaultTiers(_) => Response::KafkaDefaultTiers(
                kafka::retry::RetryTiers::recommended().tiers().map(|t| t.delay_ms).collect(),
            ),
            Request::KafkaClassify(r) => Response::KafkaClassify(classify(r)),
            Request::ArtemisProduce(r) => Response::ArtemisProduce(artemis_produce(&r.body)?),
            Request::ArtemisReconcile(r) => {
                Response::ArtemisReconcile(artemis::reconcile_attempts(r.body_attempts, r.delivery_count))
            }
            Request::ArtemisConsume(r) => {
                Response::ArtemisConsume(consumed(artemis::consume(&artemis::ArtemisMessage {
                    body: r.body.0.clone(),
                    message_annotations: BTreeMap::new(),
                    correlation_id: None,
                    creation_time: None,
                    content_type: None,
                    application_properties: r.application_properties.clone(),
                    delivery_count: r.delivery_count,
                })))
            }
            Request::AmqpPublish(r) => Response::AmqpPublish(amqp_publish(&r.body)?),
            Request::RedisKeyNames(r) => Response::RedisKeyNames(key_names(r)),
            Request::RedisDelayedScore(r) => {
                Response::RedisDelayedScore(transport::available_at(r.now, r.delay).map_err(SdkError::sdk)?)
            }
            Request::RedisPush(r) => Response::RedisPush(self.on(&r.target, |q, con| q.push(con, r.body.as_slice()))?),
            Request::RedisPushDelayed(r) => Response::RedisPushDelayed(
                self.on(&r.target, |q, con| q.push_delayed(con, r.body.as_slice(), r.delay))?,
            ),
            Request::RedisMigrate(r) => Response::RedisMigrate(self.on(&r.target, |q, con| q.migrate(con))?),
            Request::RedisSweep(r) => {
                let s = self.on(&r.target, |q, con| q.sweep(con))?;
                Response::RedisSweep(RedisSwept { moved: s.moved, orphaned: s.orphaned, malformed: s.malformed })
            }
            Request::RedisReserve(r) => Response::RedisReserve(self.reserve(&r.target)?),
            Request::RedisAck(r) => {
                let d = self.reservation(&r.reservation)?;
                Response::RedisAck(self.on(&r.target, |q, con| q.ack(con, &d))?)
            }
            Request::RedisRelease(r) => {
                let transport::Delivery::Message(m) = self.reservation(&r.reservation)? else {
                    return Err(SdkError::sdk("a poison reservation can only be acked or dead-lettered"));
                };
                Response::RedisRelease(self.on(&r.target, |q, con| q.release(con, &m, r.delay))?)
            }
            Request::RedisDeadLetter(r) => {
                let d = self.reservation(&r.reservation)?;
                let reason = reason(r.reason);
                Response::RedisDeadLetter(
                    self.on(&r.target, |q, con| q.dead_letter(con, &d, reason, r.error.as_deref()))?,
                )
            }
        })
    }
}

fn warnings(list: Vec<envelope::Warning>) -> Vec<Warning> {
    list.into_iter().map(|w| Warning { pointer: w.pointer, message: w.message }).collect()
}

/// The decoded envelope as plain data.
fn view(env: &Envelope) -> DecodedEnvelope {
    let mut meta = Map::new();
    let m = &env.meta;
    let version = Some(Value::from(envelope::SCHEMA_VERSION));
    for (k, v) in [
        ("id", &m.id),
        ("queue", &m.queue),
        ("lang", &m.lang),
        ("schema_version", &version),
        ("created_at", &m.created_at),
    ] {
        if let Some(v) = v {
            meta.insert(k.to_owned(), v.clone());
        }
    }
    for (k, v) in env.meta.extras.iter() {
        meta.insert(k.to_owned(), v.clone());
    }
    DecodedEnvelope {
        urn: env.job.clone(),
        trace_id: env.trace_id.clone(),
        data: env.data.clone(),
        meta,
        attempts: env.attempts,
        dead_letter: env.dead_letter.clone(),
    }
}

fn decode(body: &Bytes) -> DecodeOutcome {
    match envelope::decode(body.as_slice()) {
        Ok(d) => DecodeOutcome::Decoded { envelope: Box::new(view(&d.envelope)), warnings: warnings(d.warnings) },
        Err(e) => DecodeOutcome::Rejected { message: e.to_string() },
    }
}

/// Decode `body`, or an SDK failure: for operations whose input the caller says is an envelope.
fn envelope_of(body: &Bytes) -> Result<Envelope, SdkError> {
    envelope::decode(body.as_slice())
        .map(|d| d.envelope)
        .map_err(|e| SdkError::sdk(format!("the body does not decode: {e}")))
}

fn reason(r: DeadLetterReason) -> Reason {
    match r {
        DeadLetterReason::Failed => Reason::Failed,
        DeadLetterReason::UnknownUrn => Reason::UnknownUrn,
        DeadLetterReason::Poison => Reason::Poison,
    }
}

fn reemit(body: &Bytes, attempts_plus_one: bool, dead_letter_move: Option<&DeadLetterMove>) -> ReemitOutcome {
    let d = match envelope::decode(body.as_slice()) {
        Ok(d) => d,
        Err(e) => return ReemitOutcome::Rejected { message: e.to_string() },
    };
    let mut env = d.envelope;
    if attempts_plus_one {
        let Some(next) = env.attempts.checked_add(1) else {
            return ReemitOutcome::Refused { message: "attempts + 1 overflows".into() };
        };
        env.attempts = next;
    }
    if let Some(m) = dead_letter_move {
        let cause = Cause {
            reason: reason(m.reason),
            error: m.error.as_deref(),
            exception: None,
            original_queue: &m.original_queue,
            failed_at_ms: envelope::now_ms(),
        };
        env = dead_letter::dead_letter(&env, &cause);
    }
    match envelope::encode(&env) {
        Ok(json) => ReemitOutcome::Encoded { json, warnings: warnings(d.warnings) },
        Err(e) => ReemitOutcome::Refused { message: e.to_string() },
    }
}

fn make(r: &Make) -> MakeOutcome {
    let refused = |stage, e: &dyn std::fmt::Display| MakeOutcome::Refused { stage, message: e.to_string() };
    let made = match envelope::make(&r.urn, r.data.clone(), &r.queue, r.trace_id.as_deref(), r.meta.clone()) {
        Ok(env) => env,
        Err(e) => return refused(Stage::Make, &e),
    };
    let env = if r.carried_top.is_empty() && r.carried_meta.is_empty() {
        made
    } else {
        // Carried-over extras: the made message goes out and comes back in, and the extras are
        // placed into the decoded message's preserved unknown-key containers.
        let text = match envelope::encode(&made) {
            Ok(t) => t,
            Err(e) => return refused(Stage::Encode, &e),
        };
        let mut env = match envelope::decode(text.as_bytes()) {
            Ok(d) => d.envelope,
            Err(e) => return refused(Stage::Make, &e),
        };
        for (k, v) in &r.carried_top {
            env.extras.push(k.clone(), v.clone());
        }
        for (k, v) in &r.carried_meta {
            env.meta.extras.push(k.clone(), v.clone());
        }
        env
    };
    match envelope::encode(&env) {
        Ok(json) => MakeOutcome::Made { json },
        Err(e) => refused(Stage::Encode, &e),
    }
}

fn validate_payload(r: &ValidatePayload) -> PayloadOutcome {
    match Schema::compile(&r.schema) {
        Ok(s) => {
            let violations: Vec<String> = s.violations(&r.data).iter().map(ToString::to_string).collect();
            PayloadOutcome::Checked { valid: violations.is_empty(), violations }
        }
        Err(e) => PayloadOutcome::SchemaRefused { message: e.to_string() },
    }
}

fn replay(r: &IdempotencyReplay) -> Result<Replayed, SdkError> {
    let calls = std::cell::Cell::new(0u64);
    let throw = std::cell::Cell::new(false);
    let store = MemoryStore::new();
    let mut h = idempotency::wrap(
        |_: &Envelope| {
            calls.set(calls.get() + 1);
            if throw.get() { Err("handler threw") } else { Ok(()) }
        },
        &store,
    );
    let mut out = Vec::with_capacity(r.deliveries.len());
    for d in &r.deliveries {
        let env = envelope_of(&d.body)?;
        if d.forget_before {
            h.store().forget(idempotency::key(&env).unwrap_or_default()).map_err(SdkError::sdk)?;
        }
        throw.set(d.outcome == HandlerOutcome::Throw);
        let before = calls.get();
        let error = match h.handle(&env) {
            Ok(Effect::Run { remember: Err(e) }) => Some(e.to_string()),
            Ok(_) => None,
            Err(e) => Some(e.to_string()),
        };
        out.push(DeliveryEffect { ran: calls.get() > before, error, remembered: store.ids() });
    }
    Ok(Replayed { deliveries: out })
}

/// The reference SDK's jitter generator: the contract pins full jitter's bound, never its
/// distribution, so which generator draws is the SDK's choice, made here and not in the core.
impl crate::core::retry::Rng for fastrand::Rng {
    fn up_to(&mut self, max: u64) -> u64 {
        self.u64(0..=max)
    }
}

fn retry_delay(r: &RetryDelay, deterministic: bool) -> Result<Vec<u64>, SdkError> {
    let mut policy = Backoff::new(r.retry_backoff);
    if let Some(m) = r.multiplier {
        policy = policy.multiplier(m).map_err(SdkError::sdk)?;
    }
    if let Some(max) = r.max {
        policy = policy.max(max);
    }
    let jitter = match r.jitter {
        Jitter::None => crate::core::retry::Jitter::None,
        Jitter::Full => crate::core::retry::Jitter::Full,
    };
    let policy = policy.jitter(jitter);
    let mut seeded = fastrand::Rng::with_seed(SEED);
    let mut entropy = (!deterministic).then(fastrand::Rng::new);
    // Every draw of one request is of the same retry: its ceiling is computed once (and not at
    // all for no draws, which an invalid retry number does not fail either).
    if r.draws == 0 {
        return Ok(Vec::new());
    }
    if r.draws > super::ops::MAX_DRAWS {
        return Err(SdkError::sdk(format!(
            "{} draws: at most {} are drawn for one request",
            r.draws,
            super::ops::MAX_DRAWS
        )));
    }
    let ceiling = policy.ceiling(r.n).map_err(SdkError::sdk)?;
    Ok((0..r.draws)
        .map(|i| {
            let rng = match entropy.as_mut() {
                Some(e) if i % 2 == 1 => e,
                _ => &mut seeded,
            };
            policy.jittered(ceiling, rng)
        })
        .collect())
}

fn poison_record(r: &PoisonRecord) -> Bytes {
    let p = poison::Poison { original_queue: &r.original_queue, failed_at_ms: envelope::now_ms(), error: None };
    Bytes(poison::record(r.body.as_slice(), &p).text.into_bytes())
}

fn extract(r: &TraceparentExtract) -> ParentContext {
    let p = traceparent::extract(r.traceparent.as_deref(), &r.trace_id);
    ParentContext {
        source: match p.source {
            traceparent::Source::Header => TraceSource::Header,
            traceparent::Source::Fallback => TraceSource::Fallback,
        },
        trace_id: p.trace_id,
        parent_span_id: p.span_id,
        trace_flags: p.flags,
    }
}

fn consumed(result: Result<Consumed, ConsumeError>) -> ConsumeOutcome {
    match result {
        Ok(c) => ConsumeOutcome::Delivered { attempts: c.envelope.attempts },
        Err(ConsumeError::Gate(g)) => ConsumeOutcome::GateRejected { message: g.to_string() },
        Err(ConsumeError::Body(e)) => ConsumeOutcome::BodyRejected { message: e.to_string() },
    }
}

fn sqs_queue(kind: SqsQueueKind) -> sqs::SqsQueue {
    match kind {
        SqsQueueKind::Standard => sqs::SqsQueue { url: STANDARD_QUEUE.into(), kind: sqs::QueueKind::Standard },
        SqsQueueKind::Fifo => sqs::SqsQueue { url: FIFO_QUEUE.into(), kind: sqs::QueueKind::Fifo },
    }
}

fn attribute_out(a: &sqs::MessageAttributeValue) -> SqsAttribute {
    SqsAttribute {
        data_type: a.data_type.as_str().to_owned(),
        string_value: a.string_value.clone(),
        binary_value: a.binary_value.clone().map(Bytes),
    }
}

fn attribute_in(a: &SqsAttribute) -> Option<sqs::MessageAttributeValue> {
    let data_type = match a.data_type.as_str() {
        "String" => sqs::DataType::String,
        "Number" => sqs::DataType::Number,
        "Binary" => sqs::DataType::Binary,
        _ => return None,
    };
    Some(sqs::MessageAttributeValue {
        data_type,
        string_value: a.string_value.clone(),
        binary_value: a.binary_value.as_ref().map(|b| b.0.clone()),
    })
}

fn sqs_send(r: &SqsSend) -> Result<SqsSendOutcome, SdkError> {
    let env = envelope_of(&r.body)?;
    Ok(match sqs::send_message(&sqs_queue(r.queue), &env, r.delay_seconds) {
        Ok(req) => SqsSendOutcome::Sent {
            message_body: req.message_body,
            message_attributes: req.message_attributes.iter().map(|(k, v)| (k.clone(), attribute_out(v))).collect(),
            delay_seconds: req.delay_seconds,
        },
        Err(e) => SqsSendOutcome::Raised { message: e.to_string() },
    })
}

fn sqs_release(r: &SqsRelease) -> Result<SqsReleaseOutcome, SdkError> {
    let body = String::from_utf8(r.body.0.clone()).map_err(|_| SdkError::sdk("an SQS body is UTF-8 text"))?;
    let received = sqs::ReceivedMessage {
        receipt_handle: r.receipt_handle.clone(),
        body,
        message_attributes: sqs::MessageAttributes::new(),
        approximate_receive_count: Some("1".into()),
    };
    Ok(match sqs::release(&sqs_queue(r.queue), &received, r.delay_seconds) {
        Ok(req) => SqsReleaseOutcome::Released {
            receipt_handle: req.receipt_handle,
            visibility_timeout: req.visibility_timeout,
        },
        Err(e) => SqsReleaseOutcome::Raised { message: e.to_string() },
    })
}

fn sqs_consume(r: &SqsConsume) -> ConsumeOutcome {
    let Ok(body) = String::from_utf8(r.body.0.clone()) else {
        return ConsumeOutcome::BodyRejected { message: "an SQS body is UTF-8 text".into() };
    };
    let mut attributes = sqs::MessageAttributes::new();
    for (k, a) in &r.message_attributes {
        match attribute_in(a) {
            Some(v) => {
                attributes.insert(k.clone(), v);
            }
            None => return ConsumeOutcome::GateRejected { message: format!("unknown DataType {:?}", a.data_type) },
        }
    }
    consumed(sqs::consume(&sqs::ReceivedMessage {
        receipt_handle: "receipt-1".into(),
        body,
        message_attributes: attributes,
        approximate_receive_count: r.approximate_receive_count.clone(),
    }))
}

fn amqp_out(v: &AmqpValue) -> Amqp {
    match v {
        AmqpValue::Null => Amqp::Null,
        AmqpValue::Bool(b) => Amqp::Boolean(*b),
        AmqpValue::UByte(n) => Amqp::Ubyte(*n),
        AmqpValue::UShort(n) => Amqp::Ushort(*n),
        AmqpValue::UInt(n) => Amqp::Uint(*n),
        AmqpValue::ULong(n) => Amqp::Ulong(*n),
        AmqpValue::Byte(n) => Amqp::Byte(*n),
        AmqpValue::Short(n) => Amqp::Short(*n),
        AmqpValue::Int(n) => Amqp::Int(*n),
        AmqpValue::Long(n) => Amqp::Long(*n),
        AmqpValue::Float(x) => Amqp::Float(*x),
        AmqpValue::Double(x) => Amqp::Double(*x),
        AmqpValue::Char(c) => Amqp::Char(*c),
        AmqpValue::Timestamp(t) => Amqp::Timestamp(*t),
        AmqpValue::Uuid(u) => Amqp::Uuid(crate::core::lower_hex(u)),
        AmqpValue::Binary(b) => Amqp::Binary(Bytes(b.clone())),
        AmqpValue::String(s) => Amqp::String(s.clone()),
        AmqpValue::Symbol(s) => Amqp::Symbol(s.clone()),
    }
}

fn amqp_in(v: &Amqp) -> AmqpValue {
    match v {
        Amqp::Null => AmqpValue::Null,
        Amqp::Boolean(b) => AmqpValue::Bool(*b),
        Amqp::Ubyte(n) => AmqpValue::UByte(*n),
        Amqp::Ushort(n) => AmqpValue::UShort(*n),
        Amqp::Uint(n) => AmqpValue::UInt(*n),
        Amqp::Ulong(n) => AmqpValue::ULong(*n),
        Amqp::Byte(n) => AmqpValue::Byte(*n),
        Amqp::Short(n) => AmqpValue::Short(*n),
        Amqp::Int(n) => AmqpValue::Int(*n),
        Amqp::Long(n) => AmqpValue::Long(*n),
        Amqp::Float(x) => AmqpValue::Float(*x),
        Amqp::Double(x) => AmqpValue::Double(*x),
        Amqp::Char(c) => AmqpValue::Char(*c),
        Amqp::Timestamp(t) => AmqpValue::Timestamp(*t),
        Amqp::Uuid(hex) => {
            let mut u = [0u8; 16];
            for (i, b) in u.iter_mut().enumerate() {
                *b = hex.get(2 * i..2 * i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or_default();
            }
            AmqpValue::Uuid(u)
        }
        Amqp::Binary(b) => AmqpValue::Binary(b.0.clone()),
        Amqp::String(s) => AmqpValue::String(s.clone()),
        Amqp::Symbol(s) => AmqpValue::Symbol(s.clone()),
    }
}

fn asb_produce(body: &Bytes) -> Result<AsbMessage, SdkError> {
    let m = asb::message(&envelope_of(body)?).map_err(SdkError::sdk)?;
    Ok(AsbMessage {
        subject: m.subject,
        correlation_id: m.correlation_id,
        message_id: m.message_id,
        content_type: m.content_type,
        application_properties: m.application_properties.iter().map(|(k, v)| (k.clone(), amqp_out(v))).collect(),
        body: Bytes(m.body),
    })
}

fn asb_consume(r: &AsbConsume) -> ConsumeOutcome {
    let message = asb::ServiceBusMessage {
        body: r.body.0.clone(),
        subject: None,
        correlation_id: None,
        message_id: None,
        content_type: None,
        application_properties: r.application_properties.iter().map(|(k, v)| (k.clone(), amqp_in(v))).collect(),
    };
    consumed(asb::consume(&asb::ServiceBusReceivedMessage { message, delivery_count: r.delivery_count }))
}

fn pulsar_produce(body: &Bytes) -> Result<PulsarMessage, SdkError> {
    let m = pulsar::message(&envelope_of(body)?).map_err(SdkError::sdk)?;
    Ok(PulsarMessage { properties: m.properties, payload: Bytes(m.payload) })
}

fn headers_in(list: &[KafkaHeader]) -> kafka::Headers {
    let mut h = kafka::Headers::new();
    for x in list {
        h.add(x.key.clone(), x.value.as_ref().map(Bytes::as_slice));
    }
    h
}

fn headers_out(h: &kafka::Headers) -> Vec<KafkaHeader> {
    h.iter().map(|x| KafkaHeader { key: x.key.clone(), value: x.value.clone().map(Bytes) }).collect()
}

fn record_in(r: &KafkaRecord) -> kafka::ConsumerRecord {
    kafka::ConsumerRecord {
        topic: r.topic.clone(),
        value: r.value.as_ref().map(|b| b.0.clone()),
        headers: headers_in(&r.headers),
        timestamp: r.timestamp.unwrap_or_default(),
    }
}

fn record_out(r: kafka::ProducerRecord) -> KafkaRecord {
    KafkaRecord {
        topic: r.topic,
        value: Some(Bytes(r.value)),
        headers: headers_out(&r.headers),
        timestamp: r.timestamp,
    }
}

fn kafka_produce(r: &KafkaProduce) -> Result<KafkaRecord, SdkError> {
    kafka::record(&envelope_of(&r.body)?, &r.topic).map(record_out).map_err(SdkError::sdk)
}

fn now_ms() -> i64 {
    i64::try_from(envelope::now_ms()).unwrap_or(i64::MAX)
}

fn tiers(list: &[u64]) -> Result<kafka::retry::RetryTiers, String> {
    kafka::retry::RetryTiers::new(list.iter().copied()).map_err(|e| format!("the tier list was refused: {e}"))
}

fn published(result: Result<kafka::ProducerRecord, kafka::retry::RetryError>) -> KafkaPublishOutcome {
    match result {
        Ok(r) => KafkaPublishOutcome::Published { record: record_out(r) },
        Err(e) => KafkaPublishOutcome::Raised { message: e.to_string() },
    }
}

fn kafka_retry(r: &KafkaRetry) -> Result<KafkaPublishOutcome, SdkError> {
    let rec = record_in(&r.record);
    let consumed = kafka::consume(&rec).map_err(|e| SdkError::sdk(format!("the consumed record was refused: {e}")))?;
    let tiers = match tiers(&r.tiers_ms) {
        Ok(t) => t,
        Err(message) => return Ok(KafkaPublishOutcome::Raised { message }),
    };
    Ok(published(kafka::retry::retry_record(&rec, &consumed.envelope, &tiers, now_ms())))
}

fn kafka_delayed(r: &KafkaDelayed) -> Result<KafkaPublishOutcome, SdkError> {
    let env = envelope_of(&r.body)?;
    let tiers = match tiers(&r.tiers_ms) {
        Ok(t) => t,
        Err(message) => return Ok(KafkaPublishOutcome::Raised { message }),
    };
    Ok(published(kafka::retry::delayed_record(&env, &r.topic, r.delay_ms, &tiers, now_ms())))
}

fn retry_topics(r: &KafkaRetryTopics) -> RetryTopicsOutcome {
    match tiers(&r.tiers_ms) {
        Ok(t) => RetryTopicsOutcome::Topics {
            retry_topics: t.tiers().map(|x| RetryTopic { topic: x.topic(&r.topic), delay_ms: x.delay_ms }).collect(),
            dlq_topic: kafka::retry::dlq_topic(&r.topic),
        },
        Err(message) => RetryTopicsOutcome::Raised { message },
    }
}

fn retry_tier(r: &KafkaRetryTier) -> RetryTierOutcome {
    match tiers(&r.tiers_ms).map(|t| t.for_retry(r.attempts_before)) {
        Ok(Some(t)) => RetryTierOutcome::Tier { tier: t.n as u64, delay_ms: t.delay_ms },
        Ok(None) => {
            RetryTierOutcome::Raised { message: "no tiers are configured: there is no tier to retry to".into() }
        }
        Err(message) => RetryTierOutcome::Raised { message },
    }
}

fn classify(r: &KafkaClassify) -> Classification {
    use kafka::poison::Classification as C;
    match kafka::poison::classify(r.value.as_ref().map(Bytes::as_slice)) {
        C::Ok(_) => Classification::Ok,
        C::NoIdentity => Classification::NoIdentity,
        C::Poison(_) => Classification::Poison,
    }
}

fn artemis_produce(body: &Bytes) -> Result<ArtemisMessage, SdkError> {
    let m = artemis::message(&envelope_of(body)?).map_err(SdkError::sdk)?;
    Ok(ArtemisMessage {
        message_annotations: m.message_annotations,
        correlation_id: m.correlation_id,
        creation_time: m.creation_time,
        content_type: m.content_type,
        application_properties: m.application_properties,
        body: Bytes(m.body),
    })
}

fn amqp_publish(body: &Bytes) -> Result<AmqpMessage, SdkError> {
    let p = amqp::publish(&envelope_of(body)?).map_err(SdkError::sdk)?;
    let props = p.properties;
    Ok(AmqpMessage {
        properties: AmqpProperties {
            message_type: props.message_type,
            correlation_id: props.correlation_id,
            message_id: props.message_id,
            app_id: props.app_id,
            content_type: props.content_type,
            delivery_mode: props.delivery_mode,
            headers: props.headers.iter().map(|(k, v)| (k.clone(), amqp_out(v))).collect(),
        },
        body: Bytes(p.body),
    })
}

fn layout(l: RedisLayout) -> transport::LayoutKind {
    match l {
        RedisLayout::Zset => transport::LayoutKind::Zset,
        RedisLayout::Processing => transport::LayoutKind::Processing,
    }
}

fn role(r: transport::Role) -> RedisRole {
    match r {
        transport::Role::Ready => RedisRole::Ready,
        transport::Role::Delayed => RedisRole::Delayed,
        transport::Role::Reserved => RedisRole::Reserved,
        transport::Role::Notify => RedisRole::Notify,
        transport::Role::Processing => RedisRole::Processing,
        transport::Role::Deadlines => RedisRole::Deadlines,
        transport::Role::Dlq => RedisRole::Dlq,
    }
}

fn key_names(r: &RedisKeyNames) -> KeyNames {
    transport::Keys::new(layout(r.layout), &r.prefix, &r.queue).all().into_iter().map(|(k, n)| (role(k), n)).collect()
}

impl ReferenceSdk {
    /// Run `op` on the queue `target` names, over the connection to its Redis.
    fn on<T>(
        &self,
        target: &RedisTarget,
        op: impl FnOnce(&transport::Queue, &mut dyn redis::ConnectionLike) -> Result<T, transport::Error>,
    ) -> Result<T, SdkError> {
        let clock: Arc<dyn transport::Clock> = match target.now {
            Some(now) => Arc::new(transport::ManualClock::new(now)),
            None => Arc::new(transport::SystemClock),
        };
        let retry_after = target.retry_after.map_or(transport::RetryAfter::Never, transport::RetryAfter::Seconds);
        let keys = transport::Keys::new(layout(target.layout), &target.prefix, &target.queue);
        let queue = transport::Queue::new(keys, retry_after, clock);
        let mut op = Some(op);
        let mut result = None;
        self.redis
            .with_connection(&target.url, &mut |con| result = op.take().map(|op| op(&queue, con)))
            .map_err(|message| SdkError::Transport { message })?;
        result.ok_or_else(|| SdkError::sdk("the Redis connection was not handed over"))?.map_err(SdkError::sdk)
    }

    fn reserve(&mut self, target: &RedisTarget) -> Result<Option<RedisReserved>, SdkError> {
        let Some(d) = self.on(target, |q, con| q.reserve(con))? else {
            return Ok(None);
        };
        self.next_reservation += 1;
        let name = format!("r{}", self.next_reservation);
        let out = RedisReserved {
            reservation: name.clone(),
            body: Bytes(d.body().to_vec()),
            poison: d.is_poison(),
            token: d.token().map(str::to_owned),
        };
        self.reservations.insert(name, d);
        Ok(Some(out))
    }

    fn reservation(&self, name: &str) -> Result<transport::Delivery, SdkError> {
        self.reservations.get(name).cloned().ok_or_else(|| SdkError::sdk(format!("no reservation named {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Calls;
    use super::*;

    #[test]
    fn the_reference_implements_every_operation_of_the_interface() {
        let sdk = ReferenceSdk::new();
        assert_eq!(sdk.hello().operations, OPERATIONS);
        assert_eq!(sdk.hello().sdk, SDK_NAME);
    }

    #[test]
    fn outcomes_the_contract_names_are_results_not_errors() {
        let mut sdk = ReferenceSdk::new();
        let refused = sdk.make(Make {
            urn: "urn:x".into(),
            queue: "q".into(),
            data: Map::new(),
            trace_id: None,
            meta: vec![("ts".into(), Value::from(1))],
            carried_top: vec![],
            carried_meta: vec![],
        });
        assert!(matches!(refused, Ok(MakeOutcome::Refused { stage: Stage::Encode, .. })), "{refused:?}");
        let rejected = sdk.decode(Decode { body: Bytes::from("[]") }).unwrap();
        assert!(matches!(rejected, DecodeOutcome::Rejected { .. }));
        let raised = sdk.sqs_send(SqsSend {
            body: Bytes::from(r#"{"job":"urn:x","trace_id":"t","data":{},"meta":{"schema_version":1},"attempts":0}"#),
            queue: SqsQueueKind::Fifo,
            delay_seconds: Some(1.0),
        });
        assert!(matches!(raised, Ok(SqsSendOutcome::Raised { .. })), "{raised:?}");
    }

    #[test]
    fn a_broken_variant_changes_the_answer() {
        let mut sdk = ReferenceSdk::new();
        let count = || SqsReconcile { body_attempts: 0, approximate_receive_count: Some("1".into()) };
        assert_eq!(sdk.sqs_reconcile(count()), Ok(0));
        assert_eq!(with_broken(Broken::SqsAttemptsNoMinusOne, || sdk.sqs_reconcile(count())), Ok(1));
    }
}

//! The SDK interface: the operations an SDK under test exposes, as plain data in and out.
//!
//! Every section runs against this interface and nothing else; the reference core is one
//! implementation of it ([`reference::ReferenceSdk`]), and an adapter speaking it over a process
//! boundary is another. The interface performs operations and reports what the SDK did; it never
//! judges (comparisons, pointer checks, the Redis case language and splice checks stay with the
//! sections).
//!
//! Invariants: one [`Request`] per operation, tagged by the operation's name (`{"op":
//! "decode", …}`), answered by exactly one [`Response`] of the same name (`{"op": "decode",
//! "result": …}`); requests and results are serde data that mean the same in process and on a
//! wire ([`wire`]); [`Sdk`] is object safe; an [`SdkError`] is never a case outcome — a case's
//! expected rejection, refusal or raise is an ordinary result kind — but says the operation is
//! not implemented, the SDK failed with a message, or the transport to it failed.

pub mod ops;
pub mod reference;
pub mod wire;

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use ops::*;
use wire::{Bytes, KafkaRecord};

/// Every binding of the contract, spelled as the results schema's `bindings` enum spells them:
/// the only names an [`Identity`] may carry (an adapter's hello naming another is refused).
pub const BINDINGS: [&str; 8] = ["redis", "amqp", "sqs", "asb", "pulsar", "kafka", "artemis", "otel"];

/// The operations that act on a broker (a Redis queue: each names its queue as `target`).
/// Every other operation's answer depends on its request alone (apart from the per-message
/// fields `make` stamps), whenever and however often it runs.
pub const BROKER_OPERATIONS: [&str; 8] = [
    "redis_push",
    "redis_push_delayed",
    "redis_migrate",
    "redis_sweep",
    "redis_reserve",
    "redis_ack",
    "redis_release",
    "redis_dead_letter",
];

impl Request {
    /// Does the operation act on a broker ([`BROKER_OPERATIONS`])?
    pub fn touches_broker(&self) -> bool {
        BROKER_OPERATIONS.contains(&self.operation())
    }
}

/// Who the SDK under test is (the results file's `sdk`, `version` and `bindings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Identity {
    pub sdk: String,
    pub version: String,
    /// The language family (`rust`, `php`, `python`, …).
    pub language: String,
    /// Every binding the package carries, `otel` included (the results file's meaning).
    pub bindings: Vec<String>,
    /// The operations it implements ([`OPERATIONS`] names).
    pub operations: Vec<String>,
}

/// Why an operation gave no result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SdkError {
    /// The SDK does not implement the operation.
    NotImplemented { operation: String },
    /// The SDK failed (an unexpected error, with its message).
    Sdk { message: String },
    /// Talking to the SDK failed (no answer, a malformed or mismatched answer).
    Transport { message: String },
}

impl SdkError {
    /// An SDK-level failure.
    pub fn sdk(message: impl fmt::Display) -> Self {
        SdkError::Sdk { message: message.to_string() }
    }
}

impl fmt::Display for SdkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SdkError::NotImplemented { operation } => write!(f, "{operation} is not implemented by the SDK"),
            SdkError::Sdk { message } => write!(f, "the SDK failed: {message}"),
            SdkError::Transport { message } => write!(f, "transport: {message}"),
        }
    }
}

impl std::error::Error for SdkError {}

/// An SDK under test.
pub trait Sdk {
    /// Who it is and what it implements.
    fn hello(&self) -> Identity;
    /// Perform one operation.
    fn call(&mut self, request: &Request) -> Result<Response, SdkError>;
}

macro_rules! operations {
    ($($(#[$doc:meta])* $variant:ident($req:ty) -> $res:ty = $method:ident;)*) => {
        /// One operation with its input.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "op", rename_all = "snake_case")]
        pub enum Request {
            $($(#[$doc])* $variant($req),)*
        }

        /// One operation's result.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "op", content = "result", rename_all = "snake_case")]
        pub enum Response {
            $($(#[$doc])* $variant($res),)*
        }

        /// Every operation's name, in interface order.
        pub const OPERATIONS: &[&str] = &[$(stringify!($method)),*];

        impl Request {
            /// The operation's name.
            pub fn operation(&self) -> &'static str {
                match self {
                    $(Request::$variant(_) => stringify!($method),)*
                }
            }
        }

        impl Response {
            /// The operation's name.
            pub fn operation(&self) -> &'static str {
                match self {
                    $(Response::$variant(_) => stringify!($method),)*
                }
            }
        }

        /// Typed calls: one method per operation, over [`Sdk::call`].
        pub trait Calls: Sdk {
            $(
                $(#[$doc])*
                fn $method(&mut self, request: $req) -> Result<$res, SdkError> {
                    match self.call(&Request::$variant(request))? {
                        Response::$variant(result) => Ok(result),
                        other => Err(SdkError::Transport {
                            message: format!(
                                "asked for {}, answered {}", stringify!($method), other.operation()
                            ),
                        }),
                    }
                }
            )*
        }

        impl<T: Sdk + ?Sized> Calls for T {}
    };
}

operations! {
    /// Decode a body (warnings included).
    Decode(Decode) -> DecodeOutcome = decode;
    /// `accepts(body)`.
    Accepts(Accepts) -> bool = accepts;
    /// Decode, attempts + 1 when asked, encode.
    Reemit(Reemit) -> ReemitOutcome = reemit;
    /// Decode, attempts + 1 when asked, dead-letter move, encode the copy.
    DeadLetterMove(DeadLetterMove) -> ReemitOutcome = dead_letter_move;
    /// Make with meta / meta entries / carried-over extras, then encode.
    Make(Make) -> MakeOutcome = make;
    /// Payload-schema validation.
    ValidatePayload(ValidatePayload) -> PayloadOutcome = validate_payload;
    /// Idempotency replay.
    IdempotencyReplay(IdempotencyReplay) -> Replayed = idempotency_replay;
    /// The retry delay of retry n.
    RetryDelay(RetryDelay) -> Vec<u64> = retry_delay;
    /// The dead-letter record of a poison body.
    PoisonRecord(PoisonRecord) -> Bytes = poison_record;
    /// Traceparent extraction.
    TraceparentExtract(TraceparentExtract) -> ParentContext = traceparent_extract;
    /// SQS: send (projection and DelaySeconds).
    SqsSend(SqsSend) -> SqsSendOutcome = sqs_send;
    /// SQS: release (ChangeMessageVisibility).
    SqsRelease(SqsRelease) -> SqsReleaseOutcome = sqs_release;
    /// SQS: attempts reconciliation.
    SqsReconcile(SqsReconcile) -> u64 = sqs_reconcile;
    /// SQS: consume (the schema-version gate).
    SqsConsume(SqsConsume) -> ConsumeOutcome = sqs_consume;
    /// Azure Service Bus: the produced message.
    AsbProduce(Produce) -> AsbMessage = asb_produce;
    /// Azure Service Bus: attempts reconciliation.
    AsbReconcile(DeliveryCountReconcile) -> u64 = asb_reconcile;
    /// Azure Service Bus: consume (the schema-version gate over AMQP-typed values).
    AsbConsume(AsbConsume) -> ConsumeOutcome = asb_consume;
    /// Pulsar: the produced message.
    PulsarProduce(Produce) -> PulsarMessage = pulsar_produce;
    /// Pulsar: attempts reconciliation.
    PulsarReconcile(PulsarReconcile) -> u64 = pulsar_reconcile;
    /// Pulsar: consume.
    PulsarConsume(PulsarConsume) -> ConsumeOutcome = pulsar_consume;
    /// Kafka: the produced record.
    KafkaProduce(KafkaProduce) -> KafkaRecord = kafka_produce;
    /// Kafka: attempts reconciliation.
    KafkaReconcile(KafkaReconcile) -> u64 = kafka_reconcile;
    /// Kafka: consume.
    KafkaConsume(KafkaConsume) -> ConsumeOutcome = kafka_consume;
    /// Kafka: the retry republish of a failed record (§6.5).
    KafkaRetry(KafkaRetry) -> KafkaPublishOutcome = kafka_retry;
    /// Kafka: a publish with a requested delay (§6.4).
    KafkaDelayed(KafkaDelayed) -> KafkaPublishOutcome = kafka_delayed;
    /// Kafka: retry and dead-letter topic names.
    KafkaRetryTopics(KafkaRetryTopics) -> RetryTopicsOutcome = kafka_retry_topics;
    /// Kafka: the tier of a retry.
    KafkaRetryTier(KafkaRetryTier) -> RetryTierOutcome = kafka_retry_tier;
    /// Kafka: the RECOMMENDED tiers.
    KafkaDefaultTiers(KafkaDefaultTiers) -> Vec<u64> = kafka_default_tiers;
    /// Kafka: poison classification.
    KafkaClassify(KafkaClassify) -> Classification = kafka_classify;
    /// Artemis: the produced message.
    ArtemisProduce(Produce) -> ArtemisMessage = artemis_produce;
    /// Artemis: attempts reconciliation.
    ArtemisReconcile(DeliveryCountReconcile) -> u64 = artemis_reconcile;
    /// Artemis: consume.
    ArtemisConsume(ArtemisConsume) -> ConsumeOutcome = artemis_consume;
    /// RabbitMQ: the published message.
    AmqpPublish(Produce) -> AmqpMessage = amqp_publish;
    /// Redis: the key names of a layout.
    RedisKeyNames(RedisKeyNames) -> KeyNames = redis_key_names;
    /// Redis: the delayed score.
    RedisDelayedScore(RedisDelayedScore) -> i64 = redis_delayed_score;
    /// Redis: push.
    RedisPush(RedisPush) -> () = redis_push;
    /// Redis: push with a delay.
    RedisPushDelayed(RedisPushDelayed) -> () = redis_push_delayed;
    /// Redis: migrate (zset layout).
    RedisMigrate(RedisQueueOp) -> u64 = redis_migrate;
    /// Redis: sweep (legacy layout).
    RedisSweep(RedisQueueOp) -> RedisSwept = redis_sweep;
    /// Redis: reserve.
    RedisReserve(RedisQueueOp) -> Option<RedisReserved> = redis_reserve;
    /// Redis: ack.
    RedisAck(RedisAck) -> bool = redis_ack;
    /// Redis: release.
    RedisRelease(RedisRelease) -> bool = redis_release;
    /// Redis: dead-letter.
    RedisDeadLetter(RedisDeadLetter) -> bool = redis_dead_letter;
}

#[cfg(test)]
mod tests {
    use super::wire::Bytes;
    use super::*;
    use serde_json::json;

    #[test]
    fn the_contract_bindings_are_the_results_schemas_enum() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/results.schema.json");
        let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(schema["properties"]["bindings"]["items"]["enum"], json!(BINDINGS));
    }

    #[test]
    fn requests_and_responses_are_tagged_by_the_operation_name() {
        let r = Request::Accepts(Accepts { body: Bytes::from("{}") });
        assert_eq!(serde_json::to_value(&r).unwrap(), json!({"op": "accepts", "body": "e30="}));
        assert_eq!(r.operation(), "accepts");
        let r = Request::KafkaDefaultTiers(KafkaDefaultTiers {});
        assert_eq!(serde_json::to_value(&r).unwrap(), json!({"op": "kafka_default_tiers"}));
        let out = Response::Make(MakeOutcome::Refused { stage: Stage::Encode, message: "ts".into() });
        assert_eq!(
            serde_json::to_value(&out).unwrap(),
            json!({"op": "make", "result": {"kind": "refused", "stage": "encode", "message": "ts"}})
        );
        let back: Response = serde_json::from_value(json!({"op": "redis_reserve", "result": null})).unwrap();
        assert_eq!(back, Response::RedisReserve(None));
        assert!(OPERATIONS.contains(&"dead_letter_move"));
    }

    #[test]
    fn the_broker_operations_are_exactly_those_that_name_a_queue() {
        // From the request types themselves: an operation whose request has a `target` (a
        // Redis queue) acts on a broker.
        let schema = serde_json::to_value(schemars::schema_for!(Request)).unwrap();
        let mut named = Vec::new();
        for variant in schema["oneOf"].as_array().expect("one schema per operation") {
            let op = variant["properties"]["op"]["const"].as_str().expect("each variant names its op");
            let input = variant["$ref"].as_str().and_then(|r| r.strip_prefix("#/$defs/")).expect("its input type");
            if schema["$defs"][input]["properties"].get("target").is_some() {
                named.push(op);
            }
        }
        named.sort_unstable();
        let mut listed = BROKER_OPERATIONS.to_vec();
        listed.sort_unstable();
        assert_eq!(named, listed);
        assert!(
            Request::RedisReserve(
                serde_json::from_value(json!({"target": {"url": "redis://h/", "prefix": "p",
            "queue": "q", "layout": "zset", "retry_after": null, "now": null}}))
                .unwrap()
            )
            .touches_broker()
        );
        assert!(!Request::Accepts(Accepts { body: Bytes::from("{}") }).touches_broker());
    }

    #[test]
    fn every_operation_name_is_its_serde_tag() {
        for op in OPERATIONS {
            let parsed: Result<Request, _> = serde_json::from_value(json!({"op": op}));
            // Every request of the interface has fields, except kafka_default_tiers; a missing
            // field error (rather than an unknown variant) proves the tag is known.
            let known = match parsed {
                Ok(r) => r.operation() == *op,
                Err(e) => !e.to_string().contains("unknown variant"),
            };
            assert!(known, "{op} is not a serde tag of Request");
        }
    }
}

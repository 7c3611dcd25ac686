//! Section `backoff` (scope kafka, broker-bindings §6.3–§6.5, ADR-0034 §9, decisions R9).
//!
//! * `topic_names/*` `{name, topic, tiers_ms, expect: ok | reject, expect_retry_topics?,
//!   expect_dlq_topic?}`: the retry topics (each with its delay) and the dead-letter topic of
//!   `topic` for `tiers_ms`; `reject`: the tier list is refused.
//! * `retry_attempt_tier/*` `{name, tiers_ms, attempts_before, expect, expect_tier?,
//!   expect_delay_ms?}`: the tier a retry goes to; `reject`: there is none.
//! * `default_tiers` `{expect_tiers_ms}`: the RECOMMENDED tier list.
//! * `retry_republish/*` `{name, topic, original_topic_header: string | null, attempts_before,
//!   tiers_ms, expect, expect_topic?, expect_headers?, expect_body_attempts?}` (block:
//!   `envelope_file`): the SDK is handed a consumed record of `topic` whose body is the fixture
//!   with `attempts = attempts_before` and whose `bq-attempts` header says the same, with a
//!   `bq-original-topic` header when `original_topic_header` is a string, and republishes it
//!   for a retry.
//! * `requested_delay/*` `{name, topic, tiers_ms, delay_ms, expect, expect_topic?,
//!   expect_headers?, expect_absent_headers?, expect_body_attempts?}` (block: `envelope_file`):
//!   publish the fixture on `topic` with a requested delay.
//!
//! A produced record is checked against `expect_topic`, `expect_headers` (each written once,
//! with that text), `expect_absent_headers` and `expect_body_attempts`, and its `bq-attempts`
//! header must be in sync with the body's attempts.

use serde_json::{Map, Value, json};

use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{
    KafkaDefaultTiers, KafkaDelayed, KafkaPublishOutcome, KafkaRetry, KafkaRetryTier, KafkaRetryTopics,
    RetryTierOutcome, RetryTopicsOutcome,
};
use crate::sdk::reference::Broken;
use crate::sdk::wire::{Bytes, KafkaHeader, KafkaRecord};
use crate::sections::judge::{encoded_text, same_value};
use crate::sections::{Block, Catch, Check, Contract, Definition, Field, Fixture, Place, Reader, RunCx, Version, catch_only, ensure, quoted, quoted_or};
use crate::suite::Scope;

use super::kafka::ATTEMPTS;
use super::shared::contract::{DESCRIPTION, REPORT};

/// The header naming the work topic of a retry record.
const ORIGINAL_TOPIC: &str = "bq-original-topic";

/// The `backoff` section.
pub struct Backoff;

/// What a produced record must look like.
pub struct RecordExpect<'s> {
    topic: &'s str,
    headers: Option<&'s Map<String, Value>>,
    absent: Vec<&'s str>,
    body_attempts: u64,
}

/// A backoff case.
pub enum Case<'s> {
    TopicNames {
        topic: &'s str,
        tiers: Vec<u64>,
        expect: Option<(&'s Value, &'s str)>,
    },
    AttemptTier {
        tiers: Vec<u64>,
        attempts_before: u64,
        expect: Option<(u64, u64)>,
    },
    DefaultTiers {
        want: Vec<u64>,
    },
    Republish {
        fixture: Fixture<'s>,
        topic: &'s str,
        original: Option<&'s str>,
        attempts_before: u64,
        tiers: Vec<u64>,
        expect: Option<RecordExpect<'s>>,
    },
    RequestedDelay {
        fixture: Fixture<'s>,
        topic: &'s str,
        tiers: Vec<u64>,
        delay_ms: i64,
        expect: Option<RecordExpect<'s>>,
    },
}

/// `expect`: `ok` (`true`) or `reject`; an `ok` case's expectation fields are read by `then`.
fn ok_or_reject<'s, T>(
    r: &mut Reader<'s>,
    at: &Place<'s>,
    claim: impl FnOnce() -> Value,
    then: impl FnOnce(&mut Reader<'s>) -> Option<T>,
) -> Option<Option<T>> {
    match r.one_of(at, "expect", &[("ok", true), ("reject", false)])? {
        false => {
            // The wrong expectation of a refusal: the case claiming an outcome (`claim`).
            r.slot_case(at, || {
                let mut patch = claim();
                patch["expect"] = Value::from("ok");
                patch
            });
            Some(None)
        }
        true => {
            r.expects_other(at, "expect", &["ok", "reject"]);
            then(r).map(Some)
        }
    }
}

fn record_expect<'s>(r: &mut Reader<'s>, at: &Place<'s>, absent: bool) -> Option<RecordExpect<'s>> {
    let topic = r.str(at, "expect_topic");
    r.expects(at, "expect_topic");
    let headers = match r.opt(at, "expect_headers") {
        None if !absent => r.map(at, "expect_headers").map(Some),
        None => Some(None),
        Some(p) => {
            r.expects_map_entry(at, "expect_headers");
            let m = r.map(at, "expect_headers");
            for (k, v) in m.into_iter().flatten() {
                if !v.is_string() {
                    r.problem(
                        crate::diag::Code::CASE_SHAPE,
                        crate::suite::pointer::join(&p.pointer, k),
                        format!("must be a string, found {v}"),
                    );
                }
            }
            m.map(Some)
        }
    };
    let absent = if absent {
        match r.opt(at, "expect_absent_headers") {
            None => Some(Vec::new()),
            Some(p) => {
                p.value.as_array().and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<_>>>()).or_else(|| {
                    r.problem(crate::diag::Code::CASE_SHAPE, &p.pointer, "must be a list of header names");
                    None
                })
            }
        }
    } else {
        Some(Vec::new())
    };
    let body_attempts = r.u64(at, "expect_body_attempts");
    r.expects(at, "expect_body_attempts");
    Some(RecordExpect { topic: topic?, headers: headers?, absent: absent?, body_attempts: body_attempts? })
}

impl Definition for Backoff {
    const NAME: &'static str = "backoff";
    const SINCE: Version = (1, 5, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("topic_names", (1, 6, 0)),
        Block::new("retry_attempt_tier", (1, 6, 0)),
        Block::new("default_tiers", (1, 6, 0)),
        Block::new("retry_republish", (1, 5, 0)),
        Block::new("requested_delay", (1, 5, 0)),
    ];
    const SCOPE: Scope = Scope::Kafka;
    const CATCHES: &'static [Catch] = &[
        // The §6.4 rule only: the §6.5 retry rule is separate.
        catch_only(
            Broken::KafkaRequestedDelayUsesTier,
            &[
                "requested_delay/below-first-tier",
                "requested_delay/between-tiers-next-tier-up",
                "requested_delay/unsorted-tiers-by-delay",
            ],
        ),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field {
                name: "name",
                ty: "string",
                meaning: "Names the case: its id is `<block>/<name>`.",
            },
            DESCRIPTION,
            Field {
                name: "topic",
                ty: "string",
                meaning: "The work topic: the topic the application consumes (`topic_names`, `retry_republish`: the consumed record's topic) or publishes to (`requested_delay`).",
            },
            Field {
                name: "tiers_ms",
                ty: "array of integers",
                meaning: "The configured tier list handed to the SDK, delays in milliseconds, in the order listed (not necessarily ascending; tier n is the n-th smallest delay).",
            },
            Field {
                name: "expect",
                ty: "string: `ok` or `reject`",
                meaning: "`reject`: the SDK refuses (raises): a tier list with a 0 ms tier or a repeated delay (`topic_names`), no tiers to retry to (`retry_attempt_tier`, `retry_republish`), a delay above the largest tier or positive with no tiers (`requested_delay`). `ok`: the expectations below hold.",
            },
            Field {
                name: "expect_retry_topics",
                ty: "array of `{topic, delay_ms}` (`topic_names`)",
                meaning: "The retry topics, in tier order (ascending delay), each `<topic>.retry.<n>` with its delay; exactly these, none more.",
            },
            Field {
                name: "expect_dlq_topic",
                ty: "string (`topic_names`)",
                meaning: "The dead-letter topic, `<topic>.dlq`.",
            },
            Field {
                name: "attempts_before",
                ty: "integer (`retry_attempt_tier`, `retry_republish`)",
                meaning: "The record's attempts before this failure.",
            },
            Field {
                name: "expect_tier",
                ty: "integer (`retry_attempt_tier`)",
                meaning: "The tier the retry goes to, from 1: min(`attempts_before`, N − 1) + 1 for N tiers.",
            },
            Field {
                name: "expect_delay_ms",
                ty: "integer (`retry_attempt_tier`)",
                meaning: "That tier's delay in milliseconds.",
            },
            Field {
                name: "expect_tiers_ms",
                ty: "array of integers (`default_tiers`)",
                meaning: "The RECOMMENDED tier list an SDK uses when the application configures none: exactly these delays, in this order.",
            },
            Field {
                name: "original_topic_header",
                ty: "string or null (`retry_republish`)",
                meaning: "The consumed record's `bq-original-topic` header (null: it has none, the record was consumed from the work topic itself).",
            },
            Field {
                name: "expect_topic",
                ty: "string (`retry_republish`, `requested_delay`)",
                meaning: "The topic of the record the SDK produces.",
            },
            Field {
                name: "expect_headers",
                ty: "object: header key → string (`retry_republish`, `requested_delay`)",
                meaning: "Each header the produced record must carry exactly once, with those UTF-8 bytes (numbers as decimal text); other headers are not compared.",
            },
            Field {
                name: "expect_body_attempts",
                ty: "integer (`retry_republish`, `requested_delay`)",
                meaning: "The `attempts` of the produced record's body; its `bq-attempts` header must say the same.",
            },
            Field {
                name: "delay_ms",
                ty: "integer (`requested_delay`)",
                meaning: "The delay the application asks for when publishing, in milliseconds.",
            },
            Field {
                name: "expect_absent_headers",
                ty: "array of header keys (`requested_delay`)",
                meaning: "Headers the produced record must not carry at all (a delay of zero or less is a normal publish, without `bq-delay` or `bq-original-topic`).",
            },
        ],
        steps: &[
            "No broker is needed: each block calls one function of the SDK's Kafka retry code and checks what it returns or the record it would produce. Kafka does not use the retry_backoff formula: its delays are the tiers.",
            "`topic_names/<name>`: ask for the retry topics and the dead-letter topic of `topic` under `tiers_ms`. `ok`: the retry topics, with their delays, equal `expect_retry_topics` in order, and the dead-letter topic is `expect_dlq_topic` (no tiers: no retry topics); `reject`: the tier list is refused.",
            "`retry_attempt_tier/<name>`: ask which tier a retry goes to for `tiers_ms` and `attempts_before`. `ok`: tier `expect_tier` with delay `expect_delay_ms`; `reject`: it raises (no tiers).",
            "`default_tiers`: the SDK's recommended tier list equals `expect_tiers_ms`, in order.",
            "`retry_republish/<name>`: hand the SDK's retry a consumed record of `topic` whose value is the block's `envelope_file` with `attempts` set to `attempts_before`, with the headers `bq-schema-version` = `1`, `bq-attempts` = `attempts_before` and, when `original_topic_header` is a string, `bq-original-topic` = it; it returns the record it republishes for a retry with `tiers_ms`. `ok`: the record goes to `expect_topic` (the tier of retry_attempt_tier on the work topic, which is the incoming `bq-original-topic` when there is one, else `topic`), carries each `expect_headers` header exactly once with that value (`bq-delay` = the tier's delay, `bq-attempts` = `attempts_before` + 1), and its body's attempts equal `expect_body_attempts` and its `bq-attempts` header; `reject`: the retry raises.",
            "`requested_delay/<name>`: publish `envelope_file` on `topic` with a requested delay of `delay_ms` and tiers `tiers_ms`. A positive delay goes to the smallest tier whose delay is at least `delay_ms`, with `bq-delay` = the requested delay itself and `bq-original-topic` = `topic`; a delay of zero or less is a normal publish to `topic` without those headers (even with no tiers). `ok`: the record's topic is `expect_topic`, its headers match `expect_headers`, none of `expect_absent_headers` is present, and its body's attempts equal `expect_body_attempts` and its `bq-attempts` header; `reject`: the publish raises, never clamped or dropped.",
            REPORT,
        ],
        operations: &["kafka_retry", "kafka_delayed", "kafka_retry_topics", "kafka_retry_tier", "kafka_default_tiers"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let which = r.block_name();
        let at = r.root();
        r.object(&at)?;
        if which == "default_tiers" {
            r.expects(&at, "expect_tiers_ms");
            return r.u64_list(&at, "expect_tiers_ms").map(|want| Case::DefaultTiers { want });
        }
        r.row()?;
        let name = r.str(&at, "name");
        let tiers = r.u64_list(&at, "tiers_ms");
        let case = match which {
            "topic_names" => {
                let topic = r.str(&at, "topic");
                let claim = || json!({"expect_retry_topics": [], "expect_dlq_topic": "bqsuite-wrong"});
                let expect = ok_or_reject(r, &at, claim, |r| {
                    let topics = r.array(&at, "expect_retry_topics").map(|p| p.value);
                    r.expects(&at, "expect_retry_topics");
                    let dlq = r.str(&at, "expect_dlq_topic");
                    r.expects(&at, "expect_dlq_topic");
                    topics.zip(dlq)
                });
                Case::TopicNames { topic: topic?, tiers: tiers?, expect: expect? }
            }
            "retry_attempt_tier" => {
                let attempts_before = r.u64(&at, "attempts_before");
                let claim = || json!({"expect_tier": 1, "expect_delay_ms": 0});
                let expect = ok_or_reject(r, &at, claim, |r| {
                    r.expects(&at, "expect_tier");
                    r.expects(&at, "expect_delay_ms");
                    r.u64(&at, "expect_tier").zip(r.u64(&at, "expect_delay_ms"))
                });
                Case::AttemptTier { tiers: tiers?, attempts_before: attempts_before?, expect: expect? }
            }
            _ => {
                let block = r.block_place();
                let fixture = r.file(&block, "envelope_file");
                let topic = r.str(&at, "topic");
                if which == "retry_republish" {
                    let original =
                        r.field(&at, "original_topic_header", "a string or null").and_then(|p| match p.value {
                            Value::Null => Some(None),
                            Value::String(s) => Some(Some(s.as_str())),
                            other => {
                                r.problem(
                                    crate::diag::Code::CASE_SHAPE,
                                    &p.pointer,
                                    format!("must be a string or null, found {other}"),
                                );
                                None
                            }
                        });
                    let attempts_before = r.u64(&at, "attempts_before");
                    let claim =
                        || json!({"expect_topic": "bqsuite-wrong", "expect_headers": {}, "expect_body_attempts": 0});
                    let expect = ok_or_reject(r, &at, claim, |r| record_expect(r, &at, false));
                    Case::Republish {
                        fixture: fixture?,
                        topic: topic?,
                        original: original?,
                        attempts_before: attempts_before?,
                        tiers: tiers?,
                        expect: expect?,
                    }
                } else {
                    let delay_ms = r.i64(&at, "delay_ms");
                    let claim = || json!({"expect_topic": "bqsuite-wrong", "expect_body_attempts": 0});
                    let expect = ok_or_reject(r, &at, claim, |r| record_expect(r, &at, true));
                    Case::RequestedDelay {
                        fixture: fixture?,
                        topic: topic?,
                        tiers: tiers?,
                        delay_ms: delay_ms?,
                        expect: expect?,
                    }
                }
            }
        };
        name?;
        Some(case)
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::TopicNames { topic, tiers, expect } => topic_names(cx, topic, tiers, *expect),
            Case::AttemptTier { tiers, attempts_before, expect } => attempt_tier(cx, tiers, *attempts_before, *expect),
            Case::DefaultTiers { want } => default_tiers(cx, want),
            Case::Republish { fixture, topic, original, attempts_before, tiers, expect } => {
                republish(cx, fixture, topic, *original, *attempts_before, tiers, expect.as_ref())
            }
            Case::RequestedDelay { fixture, topic, tiers, delay_ms, expect } => {
                let request = KafkaDelayed {
                    body: Bytes::from(fixture.bytes),
                    topic: (*topic).to_owned(),
                    delay_ms: *delay_ms,
                    tiers_ms: tiers.clone(),
                };
                cx.sdk
                    .kafka_delayed(request)
                    .map_err(|e| e.to_string())
                    .and_then(|out| published(out, expect.as_ref(), "publish", fixture.json))
            }
        }
        .into()
    }
}

fn topic_names(cx: &mut RunCx<'_>, topic: &str, tiers: &[u64], expect: Option<(&Value, &str)>) -> Check {
    let request = KafkaRetryTopics { topic: topic.to_owned(), tiers_ms: tiers.to_vec() };
    match (expect, cx.sdk.kafka_retry_topics(request).map_err(|e| e.to_string())?) {
        (None, RetryTopicsOutcome::Raised { .. }) => Ok(()),
        (None, RetryTopicsOutcome::Topics { .. }) => {
            Err(format!("expected the tier list {tiers:?} to be refused, but it was accepted"))
        }
        (Some(_), RetryTopicsOutcome::Raised { message }) => Err(format!("the tier list was refused: {message}")),
        (Some((want, want_dlq)), RetryTopicsOutcome::Topics { retry_topics, dlq_topic }) => {
            let got =
                Value::Array(retry_topics.iter().map(|t| json!({"topic": t.topic, "delay_ms": t.delay_ms})).collect());
            ensure(same_value(want, &got), || format!("retry topics {got}, expected {want}"))?;
            ensure(dlq_topic == want_dlq, || format!("DLQ topic {}, expected {}", quoted(&dlq_topic), quoted(want_dlq)))
        }
    }
}

fn attempt_tier(cx: &mut RunCx<'_>, tiers: &[u64], attempts_before: u64, expect: Option<(u64, u64)>) -> Check {
    let request = KafkaRetryTier { tiers_ms: tiers.to_vec(), attempts_before };
    match (expect, cx.sdk.kafka_retry_tier(request).map_err(|e| e.to_string())?) {
        (None, RetryTierOutcome::Raised { .. }) => Ok(()),
        (None, RetryTierOutcome::Tier { tier, delay_ms }) => {
            Err(format!("expected no tier, got tier {tier} ({delay_ms} ms)"))
        }
        (Some(_), RetryTierOutcome::Raised { message }) => Err(format!("no tier, expected one: {message}")),
        (Some((n, ms)), RetryTierOutcome::Tier { tier, delay_ms }) => {
            ensure(tier == n && delay_ms == ms, || format!("tier {tier} ({delay_ms} ms), expected tier {n} ({ms} ms)"))
        }
    }
}

fn default_tiers(cx: &mut RunCx<'_>, want: &[u64]) -> Check {
    let got = cx.sdk.kafka_default_tiers(KafkaDefaultTiers {}).map_err(|e| e.to_string())?;
    ensure(got == want, || format!("the recommended tier list is {got:?}, expected {want:?}"))
}

fn header_text<'r>(rec: &'r KafkaRecord, key: &str) -> Option<&'r str> {
    rec.headers.iter().rev().find(|h| h.key == key)?.value.as_ref().and_then(|b| std::str::from_utf8(b.as_slice()).ok())
}

fn republish(
    cx: &mut RunCx<'_>,
    fixture: &Fixture<'_>,
    topic: &str,
    original: Option<&str>,
    attempts_before: u64,
    tiers: &[u64],
    expect: Option<&RecordExpect<'_>>,
) -> Check {
    let mut body = fixture.json.clone();
    body["attempts"] = Value::from(attempts_before);
    let mut headers =
        vec![KafkaHeader::text("bq-schema-version", "1"), KafkaHeader::text(ATTEMPTS, &attempts_before.to_string())];
    if let Some(o) = original {
        headers.push(KafkaHeader::text(ORIGINAL_TOPIC, o));
    }
    let record = KafkaRecord {
        topic: topic.to_owned(),
        value: Some(Bytes(body.to_string().into_bytes())),
        headers,
        timestamp: Some(0),
    };
    let out = cx.sdk.kafka_retry(KafkaRetry { record, tiers_ms: tiers.to_vec() }).map_err(|e| e.to_string())?;
    published(out, expect, "retry", &body)
}

/// `given`: the envelope the SDK was handed, whose integers its record keeps as integers.
fn published(out: KafkaPublishOutcome, expect: Option<&RecordExpect<'_>>, what: &str, given: &Value) -> Check {
    match (expect, out) {
        (None, KafkaPublishOutcome::Raised { .. }) => Ok(()),
        (None, KafkaPublishOutcome::Published { record }) => {
            Err(format!("expected the {what} to raise, but it went to {}", quoted(&record.topic)))
        }
        (Some(_), KafkaPublishOutcome::Raised { message }) => {
            Err(format!("expected a record, but the {what} raised: {message}"))
        }
        (Some(want), KafkaPublishOutcome::Published { record }) => check_record(want, &record, given),
    }
}

/// Compare a produced record with its expectations.
fn check_record(want: &RecordExpect<'_>, rec: &KafkaRecord, given: &Value) -> Check {
    ensure(rec.topic == want.topic, || format!("topic {}, expected {}", quoted(&rec.topic), quoted(want.topic)))?;
    for (key, value) in want.headers.into_iter().flatten() {
        let value = value.as_str().unwrap_or_default();
        let got = header_text(rec, key);
        ensure(got == Some(value), || format!("header {} is {}, expected {}", quoted(key), quoted_or(got, "absent"), quoted(value)))?;
        let copies = rec.headers.iter().filter(|h| &h.key == key).count();
        ensure(copies == 1, || format!("header {} is written {copies} times", quoted(key)))?;
    }
    for key in &want.absent {
        ensure(rec.headers.iter().all(|h| h.key != *key), || format!("header {} is present, expected none", quoted(key)))?;
    }
    let value = rec.value.as_ref().ok_or("the record is a tombstone")?;
    let body: Value =
        serde_json::from_slice(value.as_slice()).map_err(|e| format!("the record value is not JSON: {e}"))?;
    let text = std::str::from_utf8(value.as_slice()).map_err(|e| format!("the record value is not UTF-8: {e}"))?;
    encoded_text(text, &[("", given)], None).map_err(|e| format!("the record value: {e}"))?;
    let attempts = body.get("attempts");
    ensure(attempts.and_then(Value::as_u64) == Some(want.body_attempts), || match attempts {
        Some(got) => format!("the body's attempts is {got}, expected {}", want.body_attempts),
        None => format!("the body has no attempts, expected {}", want.body_attempts),
    })?;
    let header = header_text(rec, ATTEMPTS);
    ensure(header == Some(want.body_attempts.to_string().as_str()), || {
        format!(
            "header bq-attempts {} is not in sync with the body's attempts {}",
            quoted_or(header, "absent"),
            want.body_attempts
        )
    })
}

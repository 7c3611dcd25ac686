//! Section `backoff` (broker-bindings §6.3–§6.5, ADR-0034 §9, decisions R9, scope kafka): the
//! Kafka retry tiers of the reference core. `tiers_ms` is always the configured list as given.
//!
//! * `topic_names/*`: `expect: "ok"` — the retry topics, in tier order with their delays, are
//!   `expect_retry_topics` and the DLQ topic is `expect_dlq_topic`; `"reject"` — the tier list is
//!   refused.
//! * `retry_attempt_tier/*`: the tier of a retry after `attempts_before` attempts is
//!   `expect_tier` with `expect_delay_ms` (`"reject"`: there is none).
//! * `default_tiers`: the RECOMMENDED tiers are `expect_tiers_ms`.
//! * `retry_republish/*`: consume a record of `topic` (body `envelope_file` with
//!   `attempts_before`, a matching `bq-attempts` header, and `bq-original-topic` =
//!   `original_topic_header` unless null), then build its retry record: topic `expect_topic`,
//!   headers `expect_headers`, body attempts `expect_body_attempts` in sync with `bq-attempts`
//!   (`"reject"`: the retry fails).
//! * `requested_delay/*`: publish `envelope_file` on `topic` with `delay_ms`: topic
//!   `expect_topic`, headers `expect_headers`, none of `expect_absent_headers`, body attempts
//!   `expect_body_attempts` (`"reject"`: the publish fails).

use serde_json::{Map, Value, json};

use crate::core::bindings::kafka::retry::{self, DEFAULT_TIERS_MS, ORIGINAL_TOPIC, RetryTiers};
use crate::core::bindings::kafka::{self, ATTEMPTS, ConsumerRecord, ProducerRecord, header_text};
use crate::core::envelope::{self, now_ms};
use crate::sections::judge::same_value;
use crate::suite::CaseRef;

use super::binding::{block, block_envelope};
use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The `backoff` runner.
pub struct Backoff;

impl SectionRunner for Backoff {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        let c = case.value;
        match case.sub {
            Some("topic_names") => topic_names(c).into(),
            Some("retry_attempt_tier") => attempt_tier(c).into(),
            Some("default_tiers") => default_tiers(c).into(),
            Some("retry_republish") => republish(cx, block(cx, case), c).into(),
            Some("requested_delay") => requested_delay(cx, block(cx, case), c).into(),
            other => {
                Outcome::fail(format!("block {other:?} of section backoff is not implemented by the reference core"))
            }
        }
    }
}

/// `expect` as "ok" (true) or "reject" (false).
fn expect_ok(case: &Value) -> Result<bool, String> {
    match fields::str(case, "expect")? {
        "ok" => Ok(true),
        "reject" => Ok(false),
        other => Err(format!("unknown expect {other:?} (ok or reject)")),
    }
}

/// The configured tiers; a refused configuration is a failure of the case.
fn tiers(case: &Value) -> Result<RetryTiers, String> {
    RetryTiers::new(fields::u64_list(case, "tiers_ms")?).map_err(|e| format!("the tier list was refused: {e}"))
}

fn topic_names(case: &Value) -> Check {
    let topic = fields::str(case, "topic")?;
    let result = RetryTiers::new(fields::u64_list(case, "tiers_ms")?);
    let t = match (expect_ok(case)?, result) {
        (false, Err(_)) => return Ok(()),
        (false, Ok(_)) => return Err("expected the tier list to be refused, but it was accepted".into()),
        (true, Err(e)) => return Err(format!("the tier list was refused: {e}")),
        (true, Ok(t)) => t,
    };
    let got: Vec<Value> = t.tiers().map(|x| json!({"topic": x.topic(topic), "delay_ms": x.delay_ms})).collect();
    let got = Value::Array(got);
    let want = fields::req(case, "expect_retry_topics")?;
    ensure(same_value(want, &got), || format!("retry topics {got}, expected {want}"))?;
    let want_dlq = fields::str(case, "expect_dlq_topic")?;
    let dlq = retry::dlq_topic(topic);
    ensure(dlq == want_dlq, || format!("DLQ topic {dlq:?}, expected {want_dlq:?}"))
}

fn attempt_tier(case: &Value) -> Check {
    let got = tiers(case)?.for_retry(fields::u64(case, "attempts_before")?);
    match (expect_ok(case)?, got) {
        (false, None) => Ok(()),
        (false, Some(t)) => Err(format!("expected no tier, got tier {} ({} ms)", t.n, t.delay_ms)),
        (true, None) => Err("no tier, expected one".into()),
        (true, Some(t)) => {
            let (n, ms) = (fields::u64(case, "expect_tier")?, fields::u64(case, "expect_delay_ms")?);
            ensure(t.n as u64 == n && t.delay_ms == ms, || {
                format!("tier {} ({} ms), expected tier {n} ({ms} ms)", t.n, t.delay_ms)
            })
        }
    }
}

fn default_tiers(block: &Value) -> Check {
    let want = fields::u64_list(block, "expect_tiers_ms")?;
    ensure(DEFAULT_TIERS_MS[..] == want[..], || format!("default tiers {DEFAULT_TIERS_MS:?}, expected {want:?}"))?;
    let listed: Vec<u64> = RetryTiers::recommended().tiers().map(|t| t.delay_ms).collect();
    ensure(listed == want, || format!("the recommended tier list is {listed:?}, expected {want:?}"))
}

/// Compare a produced record with a case's `expect_topic`, `expect_headers`,
/// `expect_absent_headers` and `expect_body_attempts`.
fn check_record(case: &Value, rec: &ProducerRecord) -> Check {
    let want_topic = fields::str(case, "expect_topic")?;
    ensure(rec.topic == want_topic, || format!("topic {:?}, expected {want_topic:?}", rec.topic))?;
    let empty = Map::new();
    let want_headers =
        if case.get("expect_headers").is_some() { fields::object(case, "expect_headers")? } else { &empty };
    for (key, want) in want_headers {
        let want = want.as_str().ok_or_else(|| format!("expect_headers.{key} is not a string"))?;
        let got = header_text(&rec.headers, key);
        ensure(got == Some(want), || format!("header {key:?} is {got:?}, expected {want:?}"))?;
        let copies = rec.headers.iter().filter(|h| &h.key == key).count();
        ensure(copies == 1, || format!("header {key:?} is written {copies} times"))?;
    }
    for absent in case.get("expect_absent_headers").and_then(Value::as_array).into_iter().flatten() {
        let key = absent.as_str().ok_or("expect_absent_headers holds a non-string")?;
        ensure(rec.headers.last(key).is_none(), || format!("header {key:?} is present, expected none"))?;
    }
    let body = envelope::decode(&rec.value).map_err(|e| format!("the record value does not decode: {e}"))?.envelope;
    let want = fields::u64(case, "expect_body_attempts")?;
    ensure(body.attempts == want, || format!("body attempts {}, expected {want}", body.attempts))?;
    let header = header_text(&rec.headers, ATTEMPTS);
    ensure(header == Some(body.attempts.to_string().as_str()), || {
        format!("header bq-attempts {header:?} is not in sync with the body's attempts {}", body.attempts)
    })
}

fn republish(cx: &RunCx<'_>, block: &Value, case: &Value) -> Check {
    let mut env = block_envelope(cx, block)?;
    env.attempts = fields::u64(case, "attempts_before")?;
    let topic = fields::str(case, "topic")?;
    let produced = kafka::record(&env, topic).map_err(|e| e.to_string())?;
    let mut headers = produced.headers;
    if let Some(original) = fields::opt_str(case, "original_topic_header")? {
        headers.add_str(ORIGINAL_TOPIC, original);
    }
    let consumed_rec = ConsumerRecord { topic: topic.to_owned(), value: Some(produced.value), headers, timestamp: 0 };
    let consumed = kafka::consume(&consumed_rec).map_err(|e| format!("the consumed record was refused: {e}"))?;
    let tiers = tiers(case)?;
    match (expect_ok(case)?, retry::retry_record(&consumed_rec, &consumed.envelope, &tiers, now_ms_i64())) {
        (false, Err(_)) => Ok(()),
        (false, Ok(r)) => Err(format!("expected the retry to raise, but it republished to {:?}", r.topic)),
        (true, Err(e)) => Err(format!("expected a retry record, but it raised: {e}")),
        (true, Ok(r)) => check_record(case, &r),
    }
}

fn requested_delay(cx: &RunCx<'_>, block: &Value, case: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let topic = fields::str(case, "topic")?;
    let delay = fields::i64(case, "delay_ms")?;
    let tiers = tiers(case)?;
    match (expect_ok(case)?, retry::delayed_record(&env, topic, delay, &tiers, now_ms_i64())) {
        (false, Err(_)) => Ok(()),
        (false, Ok(r)) => Err(format!("expected the publish to raise, but it went to {:?}", r.topic)),
        (true, Err(e)) => Err(format!("expected a publish, but it raised: {e}")),
        (true, Ok(r)) => check_record(case, &r),
    }
}

fn now_ms_i64() -> i64 {
    i64::try_from(now_ms()).unwrap_or(i64::MAX)
}

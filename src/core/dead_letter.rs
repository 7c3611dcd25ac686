//! The dead-letter move (ADR-0009): the original envelope plus an additive `dead_letter` block.
//!
//! Invariants: a dead-letter move is a re-emit, so everything the decoded message carries —
//! unknown keys at the top level and in `meta`, `data`, `trace_id` — is kept unchanged; only the
//! `dead_letter` block is written. Its keys are written in the order `reason, error, exception,
//! failed_at, original_queue, attempts, lang`, with `error` and `exception` always present
//! (JSON `null` when there is no cause), `attempts` the envelope's attempts at the move, and
//! `lang` this core's tag. A message that already carries a block (a dead letter of a dead
//! letter) gets the new block in its place: the latest move is what a DLQ consumer acts on.

use serde_json::{Map, Value};

use super::envelope::{Envelope, Extras, LANG};
use crate::fault::{self, Fault};

/// Why a message was dead-lettered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The handler kept failing until retries ran out.
    Failed,
    /// No handler for the URN.
    UnknownUrn,
    /// The body could not be decoded or is not a conformant envelope.
    Poison,
}

impl Reason {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Failed => "failed",
            Self::UnknownUrn => "unknown_urn",
            Self::Poison => "poison",
        }
    }
}

/// What the worker knows when it dead-letters a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause<'a> {
    pub reason: Reason,
    pub error: Option<&'a str>,
    pub exception: Option<&'a str>,
    pub original_queue: &'a str,
    pub failed_at_ms: u64,
}

/// The `dead_letter` block for a message with `attempts` attempts.
pub fn block(cause: &Cause<'_>, attempts: u64) -> Map<String, Value> {
    let opt = |s: Option<&str>| s.map_or(Value::Null, |s| Value::String(s.to_owned()));
    let mut m = Map::new();
    m.insert("reason".into(), Value::from(cause.reason.as_str()));
    m.insert("error".into(), opt(cause.error));
    m.insert("exception".into(), opt(cause.exception));
    m.insert("failed_at".into(), Value::from(cause.failed_at_ms));
    m.insert("original_queue".into(), Value::from(cause.original_queue));
    m.insert("attempts".into(), Value::from(attempts));
    m.insert("lang".into(), Value::from(LANG));
    m
}

/// Move a decoded message to the dead-letter queue: the copy to publish there.
pub fn dead_letter(env: &Envelope, cause: &Cause<'_>) -> Envelope {
    let mut out = env.clone();
    out.dead_letter = Some(Value::Object(block(cause, env.attempts)));
    if fault::active(Fault::DeadLetterDropsExtras) {
        out.extras = Extras::default();
        out.meta.extras = Extras::default();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::envelope::{decode, encode};
    use serde_json::json;

    #[test]
    fn dead_letter_keeps_everything_and_adds_the_block() {
        let body = br#"{"job":"urn:x","trace_id":"t","data":{"a":[]},"meta":{"id":"i","schema_version":1,"vendor":1},"attempts":2,"extra_top":{}}"#;
        let env = decode(body).unwrap().envelope;
        let cause = Cause {
            reason: Reason::Failed,
            error: Some("boom"),
            exception: None,
            original_queue: "orders",
            failed_at_ms: 5,
        };
        let out: Value = serde_json::from_str(&encode(&dead_letter(&env, &cause)).unwrap()).unwrap();
        assert_eq!(out["extra_top"], json!({}));
        assert_eq!(out["meta"]["vendor"], json!(1));
        assert_eq!(out["data"], json!({"a": []}));
        assert_eq!(
            out["dead_letter"],
            json!({"reason":"failed","error":"boom","exception":null,"failed_at":5,
                   "original_queue":"orders","attempts":2,"lang":"rust"})
        );
        let keys: Vec<_> = out["dead_letter"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["reason", "error", "exception", "failed_at", "original_queue", "attempts", "lang"]);
    }

    #[test]
    fn reasons_have_their_wire_spellings() {
        let spelled = [Reason::Failed, Reason::UnknownUrn, Reason::Poison].map(Reason::as_str);
        assert_eq!(spelled, ["failed", "unknown_urn", "poison"]);
    }
}

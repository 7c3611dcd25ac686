//! Section `kafka_poison` (broker-bindings §6, ADR-0034 §10, decisions R16, scope kafka).
//!
//! Each case's value (`body`, the exact text, or `body_base64`, the exact bytes) is classified by
//! the reference Kafka consumer; the verdict (`ok`, `no_identity` or `poison`) must equal
//! `expect`.

use base64::Engine as _;
use serde_json::Value;

use crate::core::bindings::kafka::poison::classify;
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, SectionRunner, fields};

/// The `kafka_poison` runner.
pub struct KafkaPoison;

impl SectionRunner for KafkaPoison {
    fn run_case(&mut self, _cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        check(case.value).into()
    }
}

/// The exact bytes a case stands for.
pub(super) fn body_bytes(case: &Value) -> Result<Vec<u8>, String> {
    match (case.get("body"), case.get("body_base64")) {
        (Some(Value::String(s)), None) => Ok(s.as_bytes().to_vec()),
        (None, Some(Value::String(b))) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| format!("body_base64 is not standard padded base64: {e}")),
        _ => Err("a case needs exactly one of \"body\" (a string) and \"body_base64\" (a string)".into()),
    }
}

fn check(case: &Value) -> Check {
    let body = body_bytes(case)?;
    let want = fields::str(case, "expect")?;
    let got = classify(Some(&body));
    if got.as_str() == want { Ok(()) } else { Err(format!("classified as {got}, expected {want}")) }
}

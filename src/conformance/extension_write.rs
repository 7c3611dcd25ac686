//! Section `extension_write`: the producer meta write API (ADR-0031 (b)).
//!
//! Runner: `make(urn, data, queue, meta entries in order)` → encode → parse → every
//! `expect_envelope` pointer holds its value; then decode that output (it must be accepted),
//! attempts + 1, encode, parse, and check the same pointers plus `/attempts == 1`.

use serde_json::Value;

use crate::core::envelope;
use crate::sections::judge::same_value;
use crate::suite::CaseRef;

use super::envelope_checks::{encode_parsed, entries, pointers_hold};
use super::{Check, RunCx, SectionRunner, ensure, fields};

/// The `extension_write` runner.
pub struct ExtensionWrite;

impl SectionRunner for ExtensionWrite {
    fn run_case(&mut self, _cx: &RunCx<'_>, case: &CaseRef<'_>) -> super::Outcome {
        check(case.value).into()
    }
}

fn check(case: &Value) -> Check {
    let meta = entries(fields::req(case, "meta")?, "meta")?;
    let data = fields::object(case, "data")?.clone();
    fields::object(case, "expect_envelope")?;
    let env = envelope::make(fields::str(case, "urn")?, data, fields::str(case, "queue")?, None, meta)
        .map_err(|e| format!("make failed: {e}"))?;
    let (text, first) = encode_parsed(&env)?;
    pointers_hold(&first, case, "expect_envelope").map_err(|e| format!("after make: {e}"))?;

    let mut hop =
        envelope::decode(text.as_bytes()).map_err(|e| format!("the made message was rejected: {e}"))?.envelope;
    hop.attempts += 1;
    let (_, second) = encode_parsed(&hop)?;
    pointers_hold(&second, case, "expect_envelope").map_err(|e| format!("after a retry hop: {e}"))?;
    let attempts = second.get("attempts").unwrap_or(&Value::Null);
    ensure(same_value(attempts, &Value::from(1)), || format!("after a retry hop attempts is {attempts}, expected 1"))
}

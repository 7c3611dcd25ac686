//! Section `roundtrip`: unknown keys survive a re-emit (message-envelope §4, §8; GR-5).
//!
//! Runner (spec "roundtrip — unknown keys survive re-emit"): decode `file` — it must be accepted
//! and must not warn — add 1 to attempts, then encode (or, with `apply_dead_letter`, move the
//! message with the reference core's own dead-letter helper and encode that copy), parse the
//! output and check `expect_attempts`, every `expect_preserved` and `expect_after_reencode`
//! pointer, every `expect_absent_after_reencode` pointer, and the `expect_dead_letter`
//! sub-fields of the copy's `dead_letter` block.

use serde_json::Value;

use crate::core::dead_letter::{self, Cause, Reason};
use crate::core::envelope::{self, now_ms};
use crate::sections::judge::same_value;
use crate::suite::CaseRef;

use super::envelope_checks::{encode_parsed, named, reemit_checks};
use super::{Check, RunCx, SectionRunner, ensure, fields};

/// The `error` text the runner hands the dead-letter helper (runner-chosen, not asserted).
const DEAD_LETTER_ERROR: &str = "bqsuite roundtrip runner: apply_dead_letter";

/// The `roundtrip` runner.
pub struct Roundtrip;

impl SectionRunner for Roundtrip {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> super::Outcome {
        check(cx, case.value).into()
    }
}

fn check(cx: &RunCx<'_>, case: &Value) -> Check {
    let file = fields::str(case, "file")?;
    let d = envelope::decode(cx.bytes(file)?).map_err(|e| format!("{file} was rejected: {e}"))?;
    ensure(d.warnings.is_empty(), || {
        format!("decoding {file} warned ({}); a roundtrip decode must not", named(&d.warnings))
    })?;
    let mut env = d.envelope;
    env.attempts = env.attempts.checked_add(1).ok_or("attempts + 1 overflows")?;
    if let Some(apply) = fields::opt_object(case, "apply_dead_letter")? {
        let apply = Value::Object(apply.clone());
        let reason = fields::str(&apply, "reason")?;
        let reason = Reason::parse(reason)
            .ok_or_else(|| format!("apply_dead_letter.reason {reason:?} is not a dead-letter reason"))?;
        let original_queue = fields::str(&apply, "original_queue")?;
        let cause =
            Cause { reason, error: Some(DEAD_LETTER_ERROR), exception: None, original_queue, failed_at_ms: now_ms() };
        env = dead_letter::dead_letter(&env, &cause);
    }
    let (_, out) = encode_parsed(&env)?;
    let want = fields::req(case, "expect_attempts")?;
    let got = out.get("attempts").unwrap_or(&Value::Null);
    ensure(same_value(want, got), || format!("attempts is {got}, expected {want}"))?;
    reemit_checks(&out, case)?;
    if case.get("expect_dead_letter").is_some() {
        let want = fields::object(case, "expect_dead_letter")?;
        let block =
            out.get("dead_letter").and_then(Value::as_object).ok_or("the output carries no dead_letter object")?;
        for (key, value) in want {
            let got = block.get(key);
            ensure(got.is_some_and(|g| same_value(value, g)), || {
                format!("dead_letter.{key} is {}, expected {value}", got.map_or("absent".to_owned(), Value::to_string))
            })?;
        }
    }
    Ok(())
}

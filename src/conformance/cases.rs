//! Section `cases`: decode each fixture with the core and compare with `expect`.
//!
//! Runner (spec "What an SDK must do"): `valid: true` — the fixture decodes (accepts is true),
//! the resolved URN equals `expect.urn`, `data`, `attempts`, `meta.lang` and
//! `meta.schema_version` equal their `expect` values (same value, R4), every sub-field of
//! `expect.dead_letter` matches the message's block, and the per-message fields are present with
//! their shape (`trace_id` a non-blank string, `meta.id` a non-empty string, `meta.created_at` a
//! non-negative integer). `valid: false` — decode refuses the fixture.

use serde_json::Value;

use crate::core::envelope::{self, SCHEMA_VERSION};
use crate::sections::judge::same_value;
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The `cases` runner.
pub struct Cases;

impl SectionRunner for Cases {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        check(cx, case.value).into()
    }
}

fn check(cx: &RunCx<'_>, case: &Value) -> Check {
    let file = fields::req(case, "file")?.as_str().ok_or("\"file\" is not a string")?;
    let valid = fields::req(case, "valid")?.as_bool().ok_or("\"valid\" is not a boolean")?;
    let decoded = envelope::decode(cx.bytes(file)?);
    let d = match (valid, decoded) {
        (false, Err(_)) => return Ok(()),
        (false, Ok(_)) => {
            return Err(format!("{file} was accepted, but the case says it must be rejected"));
        }
        (true, Err(e)) => return Err(format!("{file} was rejected: {e}")),
        (true, Ok(d)) => d,
    };
    let env = &d.envelope;
    let expect = fields::req(case, "expect")?;
    let same = |key: &str, actual: &Value| -> Check {
        match expect.get(key) {
            None => Ok(()),
            Some(want) => ensure(same_value(want, actual), || format!("{key}: expected {want}, got {actual}")),
        }
    };
    same("urn", &Value::String(env.job.clone()))?;
    same("data", &Value::Object(env.data.clone()))?;
    same("attempts", &Value::from(env.attempts))?;
    same("lang", env.meta.lang.as_ref().unwrap_or(&Value::Null))?;
    same("schema_version", &Value::from(SCHEMA_VERSION))?;
    if let Some(want) = expect.get("dead_letter").and_then(Value::as_object) {
        let block =
            env.dead_letter.as_ref().and_then(Value::as_object).ok_or("expected a dead_letter block, found none")?;
        for (k, v) in want {
            let got = block.get(k).unwrap_or(&Value::Null);
            ensure(block.get(k).is_some_and(|g| same_value(v, g)), || {
                format!("dead_letter.{k}: expected {v}, got {got}")
            })?;
        }
    }
    ensure(env.meta.id().is_some_and(|s| !s.is_empty()), || "meta.id is not a non-empty string".into())?;
    ensure(env.meta.created_at().is_some_and(|n| n >= 0), || "meta.created_at is not a non-negative integer".into())
}

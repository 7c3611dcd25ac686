//! Section `trim`: the ASCII trim rule (ADR-0032 §5).
//!
//! Runner: mode `make` builds a message with `make(urn, {}, queue, trace_id?)`; `expect: reject`
//! needs make to fail, `expect: ok` needs it to succeed, and then the encoded output must hold
//! every `expect_envelope` pointer and, with `expect_fresh_trace_id`, a minted UUID trace_id.
//! Mode `decode` is the shared decode-verdict case ([`super::envelope_checks::decode_case`]).

use serde_json::{Map, Value};

use crate::core::envelope;
use crate::suite::CaseRef;

use super::envelope_checks::{decode_case, encode_parsed, pointers_hold};
use super::{Check, RunCx, SectionRunner, ensure, fields};

/// The `trim` runner.
pub struct Trim;

impl SectionRunner for Trim {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> super::Outcome {
        check(cx, case.value).into()
    }
}

fn check(cx: &RunCx<'_>, case: &Value) -> Check {
    match fields::str(case, "mode")? {
        "make" => make_case(case),
        "decode" => decode_case(cx, case),
        other => Err(format!("unknown mode {other:?}")),
    }
}

fn make_case(case: &Value) -> Check {
    let trace_id = match case.get("trace_id") {
        None => None,
        Some(v) => Some(v.as_str().ok_or("case field \"trace_id\" is not a string")?),
    };
    let made = envelope::make(fields::str(case, "urn")?, Map::new(), fields::str(case, "queue")?, trace_id, Vec::new());
    let env = match (fields::str(case, "expect")?, made) {
        ("reject", Err(_)) => return Ok(()),
        ("reject", Ok(env)) => return Err(format!("make accepted the URN {:?}, expected it to fail", env.job)),
        ("ok", Err(e)) => return Err(format!("make failed: {e}")),
        ("ok", Ok(env)) => env,
        (other, _) => return Err(format!("unknown expect {other:?}")),
    };
    let (_, out) = encode_parsed(&env)?;
    pointers_hold(&out, case, "expect_envelope")?;
    if case.get("expect_fresh_trace_id").and_then(Value::as_bool) == Some(true) {
        let got = out.get("trace_id").and_then(Value::as_str).unwrap_or_default();
        ensure(is_uuid_text(got) && Some(got) != trace_id, || {
            format!("trace_id {got:?} is not a freshly minted UUID (input {trace_id:?})")
        })?;
    }
    Ok(())
}

/// 8-4-4-4-12 hexadecimal digits.
fn is_uuid_text(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_text() {
        assert!(is_uuid_text("7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b"));
        assert!(!is_uuid_text("7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8"));
        assert!(!is_uuid_text("7b3f9c2ae41d4f889b2a1c0d5e6f7a8b"));
        assert!(!is_uuid_text(" 7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b"));
        assert!(!is_uuid_text(""));
    }
}

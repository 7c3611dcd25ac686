//! Section `encode_reject`: encode refuses forbidden and colliding keys (ADR-0031 (b), (c)).
//!
//! Runner: build the message from `urn`, `queue`, `data` and the case's one input — `meta` /
//! `meta_entries` through the producer meta write API of `make`; `extras_top` / `extras_meta`
//! placed, through the test access [`crate::core::envelope::Extras::push`], into the preserved
//! extras of a decoded message (made, encoded and decoded again) — then encode: it must fail,
//! produce no JSON, and its error must name `offending_key`. A build (`make`) that already
//! refuses the entry passes too, when its error names the key (the section's ruling).

use serde_json::Value;

use crate::core::envelope;
use crate::suite::{CaseRef, ENCODE_REJECT_INPUTS as INPUTS};

use super::envelope_checks::entries;
use super::{Check, RunCx, SectionRunner, ensure, fields};

/// The `encode_reject` runner.
pub struct EncodeReject;

impl SectionRunner for EncodeReject {
    fn run_case(&mut self, _cx: &RunCx<'_>, case: &CaseRef<'_>) -> super::Outcome {
        check(case.value).into()
    }
}

fn check(case: &Value) -> Check {
    let expect = fields::str(case, "expect")?;
    ensure(expect == "reject", || format!("unknown expect {expect:?} (only \"reject\" is defined)"))?;
    let offending = fields::str(case, "offending_key")?;
    let present: Vec<&str> = INPUTS.into_iter().filter(|k| case.get(k).is_some()).collect();
    let [input] = present.as_slice() else {
        return Err(format!("a case carries exactly one of {INPUTS:?}, this one {present:?}"));
    };
    let pairs = entries(&case[*input], input)?;
    let (urn, queue) = (fields::str(case, "urn")?, fields::str(case, "queue")?);
    let data = fields::object(case, "data")?.clone();

    let env = match *input {
        "meta" | "meta_entries" => match envelope::make(urn, data, queue, None, pairs) {
            Ok(env) => env,
            // Refusing already at build time satisfies the case (the section's ruling), when the
            // error names the key.
            Err(e) => return named_in(&e, offending),
        },
        _ => {
            let made = envelope::make(urn, data, queue, None, Vec::new()).map_err(|e| format!("make failed: {e}"))?;
            let text = envelope::encode(&made).map_err(|e| format!("encoding the plain message failed: {e}"))?;
            let mut env = envelope::decode(text.as_bytes()).map_err(|e| format!("decoding it failed: {e}"))?.envelope;
            let extras = if *input == "extras_top" { &mut env.extras } else { &mut env.meta.extras };
            for (key, value) in pairs {
                extras.push(key, value);
            }
            env
        }
    };
    match envelope::encode(&env) {
        Ok(json) => Err(format!("encode produced an envelope instead of refusing {offending:?}: {json}")),
        Err(e) => named_in(&e, offending),
    }
}

/// The refusal names the offending key.
fn named_in(e: &dyn std::fmt::Display, offending: &str) -> Check {
    let text = e.to_string();
    ensure(text.contains(offending), || format!("refused, but the error does not name {offending:?}: {text}"))
}

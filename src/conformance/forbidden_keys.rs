//! Section `forbidden_keys`: warn on decode, never emit (message-envelope §10, K-15, ADR-0031 (c)).
//!
//! Runner: decode `file` — it must succeed with at least one warning naming `forbidden_key` —
//! re-encode the decoded message unchanged, parse the output and check that no
//! `expect_absent_after_reencode` pointer exists and every `expect_preserved` pointer (when the
//! case has them) holds its value. A forbidden key captured into the preserved extras would make
//! the reference encode refuse the message, so that bug fails the case too.

use serde_json::Value;

use crate::core::envelope;
use crate::suite::CaseRef;

use super::envelope_checks::{encode_parsed, named, reemit_checks};
use super::{Check, RunCx, SectionRunner, ensure, fields};

/// The `forbidden_keys` runner.
pub struct ForbiddenKeys;

impl SectionRunner for ForbiddenKeys {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> super::Outcome {
        check(cx, case.value).into()
    }
}

fn check(cx: &RunCx<'_>, case: &Value) -> Check {
    let file = fields::str(case, "file")?;
    let key = fields::str(case, "forbidden_key")?;
    let expect = fields::str(case, "expect")?;
    ensure(expect == "warn", || format!("unknown expect {expect:?} (only \"warn\" is defined)"))?;
    let d = envelope::decode(cx.bytes(file)?).map_err(|e| format!("{file} was rejected: {e}"))?;
    ensure(d.warnings.iter().any(|w| w.pointer == key), || {
        format!("decode raised no warning naming {key} (warnings: {})", named(&d.warnings))
    })?;
    let (_, out) = encode_parsed(&d.envelope)?;
    reemit_checks(&out, case)
}

//! Section `job_type`: only a string `job` can be the identity (ADR-0032 §6).
//!
//! Runner: the shared decode-verdict case ([`super::envelope_checks::decode_case`]): `accepts`
//! and decode give `valid`; for a valid case the resolved URN, the warnings and the re-emit.

use crate::suite::CaseRef;

use super::envelope_checks::decode_case;
use super::{Outcome, RunCx, SectionRunner};

/// The `job_type` runner.
pub struct JobType;

impl SectionRunner for JobType {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        decode_case(cx, case.value).into()
    }
}

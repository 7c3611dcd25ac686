//! Section `traceparent` (scope otel): consumer-side W3C traceparent extraction (ADR-0028).
//!
//! Runner: extract the parent from the case's `traceparent` header (absent or `null` = no
//! header) and its envelope `trace_id`; `expect.source` (`header` | `fallback`) and
//! `expect.trace_id` must match, and `expect.parent_span_id` / `expect.trace_flags` when the case
//! carries them. Extraction cannot fail; a panic would fail the case.

use serde_json::Value;

use crate::core::traceparent;
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The `traceparent` runner.
pub struct Traceparent;

impl SectionRunner for Traceparent {
    fn run_case(&mut self, _: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        check(case.value).into()
    }
}

fn check(case: &Value) -> Check {
    let header = fields::opt_str(case, "traceparent")?;
    let parent = traceparent::extract(header, fields::str(case, "trace_id")?);
    let expect = fields::req(case, "expect")?;
    let got = [
        ("source", parent.source.as_str()),
        ("trace_id", parent.trace_id.as_str()),
        ("parent_span_id", parent.span_id.as_str()),
        ("trace_flags", parent.flags.as_str()),
    ];
    fields::str(expect, "source")?;
    fields::str(expect, "trace_id")?;
    for (key, actual) in got {
        if let Some(want) = fields::opt_str(expect, key)? {
            ensure(want == actual, || format!("{key}: expected {want:?}, got {actual:?} (header {header:?})"))?;
        }
    }
    Ok(())
}

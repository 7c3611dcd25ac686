//! Section `traceparent` (scope otel): consumer-side W3C traceparent extraction (ADR-0028).
//!
//! Case: `{name, trace_id, traceparent?: string | null, expect: {source: header | fallback,
//! trace_id, parent_span_id?, trace_flags?}}`.
//!
//! Runner: extract the parent from the case's `traceparent` header (absent or `null` = no
//! header) and its envelope `trace_id`; `expect.source` and `expect.trace_id` must match, and
//! `expect.parent_span_id` / `expect.trace_flags` when the case carries them.

use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{TraceSource, TraceparentExtract};
use crate::sdk::reference::Broken;
use crate::sections::{Block, Catch, Check, Contract, Definition, Field, Reader, RunCx, Version, catch, ensure, quoted, quoted_or};
use crate::suite::Scope;

/// The `traceparent` section.
pub struct Traceparent;

/// A traceparent case.
pub struct Case<'s> {
    header: Option<&'s str>,
    trace_id: &'s str,
    source: TraceSource,
    expect: Vec<(&'static str, &'s str)>,
}

impl Definition for Traceparent {
    const NAME: &'static str = "traceparent";
    const SINCE: Version = (1, 5, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 5, 0))];
    const SCOPE: Scope = Scope::Otel;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::TraceparentAccepts31Hex, &["trace-id-31-hex"]),
        catch(
            Broken::TraceparentFallbackSpanId,
            &["valid-header-wins", "valid-header-unsampled-flags", "valid-header-wins-over-non-uuid-trace-id"],
        ),
        catch(Broken::TraceparentFlagsAlwaysSampled, &["valid-header-unsampled-flags"]),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field { name: "name", ty: "string", meaning: "The case id." },
            Field {
                name: "trace_id",
                ty: "string",
                meaning: "The envelope's `trace_id` of the consumed message (often a UUID with dashes, sometimes not a UUID at all), the input of the fallback.",
            },
            Field {
                name: "traceparent",
                ty: "string or null (optional)",
                meaning: "The value of the message's `traceparent` header, exactly as given (absent or null: the message has no such header).",
            },
            Field {
                name: "expect",
                ty: "object `{source, trace_id, parent_span_id?, trace_flags?}`",
                meaning: "The parent span context extraction must give. `source`: `header` (the header was used) or `fallback` (it was ignored and the trace id derived from `trace_id`). `trace_id`: the parent's trace id, 32 lowercase hex digits, always compared. `parent_span_id` (16 hex digits) and `trace_flags` (2 hex digits): compared only when present, which is only for `header`; a fallback's span id and flags are the SDK's.",
            },
        ],
        steps: &[
            "Call the SDK's consumer-side traceparent extraction (its OpenTelemetry propagation code, ADR-0028) with the header value `traceparent` (or no header) and the envelope's `trace_id`, without a broker. Extraction must never raise, whatever the header: an error or exception fails the case with its text.",
            "The header is used (`header`) only when it has exactly the structure `00-<32 lowercase hex>-<16 lowercase hex>-<2 hex>`, with nothing before or after it; then the parent's trace id, span id and flags are the header's three fields. Anything else (absent, empty, wrong lengths, non-hex or uppercase digits, missing parts, other separators) is ignored (`fallback`).",
            "The fallback trace id (decisions R15): remove every `-` from `trace_id` and lowercase it; when the result is exactly 32 hex digits and not all zero, that is the trace id; otherwise it is the first 16 bytes of SHA-256 over the UTF-8 bytes of `trace_id`, as 32 lowercase hex digits.",
            "The case passes when the source equals `expect.source` and the trace id equals `expect.trace_id`, and, when the case has them, the span id equals `parent_span_id` and the flags equal `trace_flags` (each compared as exact text). Otherwise `fail`, with the first difference as `reason`.",
        ],
        operations: &["traceparent_extract"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        let header = r.opt_str(&at, "traceparent");
        let trace_id = r.str(&at, "trace_id");
        let expect = r.field(&at, "expect", "an object")?;
        r.object(&expect)?;
        let source =
            r.one_of(&expect, "source", &[("header", TraceSource::Header), ("fallback", TraceSource::Fallback)]);
        r.expects_other(&expect, "source", &["header", "fallback"]);
        let mut wanted = Vec::new();
        let mut ok = r.str(&expect, "trace_id").map(|t| wanted.push(("trace_id", t))).is_some();
        for key in ["trace_id", "parent_span_id", "trace_flags"] {
            r.expects(&expect, key);
            if key != "trace_id" {
                match r.opt_str(&expect, key) {
                    Ok(Some(v)) => wanted.push((key, v)),
                    Ok(None) => {}
                    Err(_) => ok = false,
                }
            }
        }
        ok.then_some(())?;
        Some(Case { header: header.ok()?, trace_id: trace_id?, source: source?, expect: wanted })
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        check(cx, case).into()
    }
}

fn check(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let request =
        TraceparentExtract { traceparent: case.header.map(str::to_owned), trace_id: case.trace_id.to_owned() };
    let p = cx.sdk.traceparent_extract(request).map_err(|e| e.to_string())?;
    ensure(p.source == case.source, || {
        format!(
            "source: expected {}, got {} (header {})",
            case.source.as_str(),
            p.source.as_str(),
            quoted_or(case.header, "absent")
        )
    })?;
    for (key, want) in &case.expect {
        let got = match *key {
            "trace_id" => &p.trace_id,
            "parent_span_id" => &p.parent_span_id,
            _ => &p.trace_flags,
        };
        ensure(got == want, || {
            format!("{key}: expected {}, got {} (header {})", quoted(want), quoted(got), quoted_or(case.header, "absent"))
        })?;
    }
    Ok(())
}

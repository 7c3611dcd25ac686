//! Section `extension_write` (scope core): the producer meta write API (ADR-0031 (b)).
//!
//! Case: `{name, description, urn, queue, data, meta: {<key>: <value>}, expect_envelope:
//! {<pointer>: <value>}}`.
//!
//! Runner: `make(urn, data, queue, meta entries in order)` → encode → parse → every
//! `expect_envelope` pointer holds its value; then decode that output (it must be accepted),
//! attempts + 1, encode, parse, and check the same pointers plus `/attempts == 1`; then make
//! a second message from the same inputs in the first's trace, whose `meta.id` must differ from
//! the first's.

use serde_json::{Map, Value};

use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Make, MakeOutcome};
use crate::sdk::reference::Broken;
use crate::sections::judge::{encoded_text, same_value};
use crate::sections::{Block, Catch, Check, Contract, Definition, Field, Reader, RunCx, Version, catch, ensure};
use crate::suite::{Scope, pointer};

use super::shared::fields::{DATA, DESCRIPTION, NAME, QUEUE, URN};
use super::shared::{parsed, per_message_fields, pointers_hold, reemit};

/// The `extension_write` section.
pub struct ExtensionWrite;

/// An extension_write case.
pub struct Case<'s> {
    urn: &'s str,
    queue: &'s str,
    data: &'s Map<String, Value>,
    meta: Vec<(String, Value)>,
    expect: Vec<(&'s str, &'s Value)>,
}

impl Definition for ExtensionWrite {
    const NAME: &'static str = "extension_write";
    const SINCE: Version = (1, 4, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 4, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[catch(Broken::DropUnknownKeys, &["flat-scalar-key", "two-vendors-in-one-ext"])];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            NAME,
            DESCRIPTION,
            URN,
            QUEUE,
            DATA,
            Field {
                name: "meta",
                ty: "object: key → any JSON value",
                meaning: "The extension entries handed to the producer's meta write API, one per member, in the order listed (a vendor block such as `ext` is one entry whose value is the whole object). There is no write API for top-level keys.",
            },
            Field {
                name: "expect_envelope",
                ty: "object: JSON pointer → value",
                meaning: "Each pointer holds that value in the produced envelope, and again after a retry hop. It never names `/attempts` or the per-message fields (`/meta/id`, `/trace_id`, `/meta/created_at`).",
            },
        ],
        steps: &[
            "Build a message with the SDK's producer API from `urn`, `queue`, `data` and the `meta` entries, in order, through its meta write API (Go `WithMeta(key, value)`, Python `make(meta=)`, Node `MakeOptions.meta`, PHP `make(meta:)`, Java `make(urn, data, queue, traceId, Map meta)`, .NET `Make(meta:)`), and encode it. A refusal fails the case.",
            "Parse the output as JSON: every `expect_envelope` pointer must hold the same value (values compare as parsed JSON, so `\\uXXXX` escaping of non-ASCII text, key order and whitespace are free).",
            "The retry hop: decode that output with the SDK's consumer (it must be accepted), add 1 to attempts, encode again and parse: every `expect_envelope` pointer must still hold its value, and `/attempts` must be 1.",
            "Make a second message from the same inputs, passing the first's `trace_id` (a message forwarded in the same trace): its `meta.id` must differ from the first's (every message has its own idempotency key; an id that is constant, or derived from the trace id, would make consumers drop every message after the first as a duplicate).",
            super::shared::fields::PER_MESSAGE_MADE,
            super::shared::fields::PER_MESSAGE_REENCODED,
            "Report `pass`, or `fail` with the first difference as `reason`, saying whether it was after make or after the retry hop.",
        ],
        operations: &["reemit", "make"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        let (urn, queue, data) = (r.str(&at, "urn"), r.str(&at, "queue"), r.map(&at, "data"));
        let meta = r.entries(&at, "meta", false);
        r.field(&at, "expect_envelope", "an object of pointer → value");
        let expect = r.pointer_map(&at, "expect_envelope").ok();
        r.expects_map_entry(&at, "expect_envelope");
        Some(Case { urn: urn?, queue: queue?, data: data?, meta: meta?, expect: expect? })
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        check(cx, case).into()
    }
}

/// The envelope the SDK makes from the case's inputs (and `trace_id`, when given), as text.
fn make(cx: &mut RunCx<'_>, case: &Case<'_>, trace_id: Option<String>) -> Result<String, String> {
    let make = Make { meta: case.meta.clone(), trace_id, ..Make::new(case.urn, case.queue, case.data.clone()) };
    match cx.sdk.make(make).map_err(|e| e.to_string())? {
        MakeOutcome::Made { json } => Ok(json),
        MakeOutcome::Refused { message, .. } => Err(format!("make refused: {message}")),
    }
}

fn check(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let text = make(cx, case, None)?;
    let first = parsed(&text).map_err(|e| format!("after make: {e}"))?;
    // What the producer API was handed keeps its integers too.
    let data = Value::Object(case.data.clone());
    let meta: Vec<(String, &Value)> = case.meta.iter().map(|(k, v)| (pointer::join("/meta", k), v)).collect();
    let given: Vec<(&str, &Value)> =
        std::iter::once(("/data", &data)).chain(meta.iter().map(|(at, v)| (at.as_str(), *v))).collect();
    encoded_text(&text, &given, None).map_err(|e| format!("after make: {e}"))?;
    per_message_fields(&first, None).map_err(|e| format!("after make: {e}"))?;
    pointers_hold(&first, &case.expect, "expect_envelope").map_err(|e| format!("after make: {e}"))?;
    let (second, _) = reemit(cx.sdk, text.as_bytes(), &first, true).map_err(|e| format!("the retry hop: {e}"))?;
    pointers_hold(&second, &case.expect, "expect_envelope").map_err(|e| format!("after a retry hop: {e}"))?;
    let attempts = second.get("attempts").unwrap_or(&Value::Null);
    ensure(same_value(attempts, &Value::from(1)), || format!("after a retry hop attempts is {attempts}, expected 1"))?;
    // Two messages made from the same inputs, the second in the first's trace (a service
    // forwards the trace id it consumed, GR-4), are two messages: the idempotency key, meta.id,
    // tells them apart, or a consumer would drop the second as a duplicate.
    let trace = first.get("trace_id").and_then(Value::as_str).map(str::to_owned);
    let again = parsed(&make(cx, case, trace).map_err(|e| format!("the second make: {e}"))?)
        .map_err(|e| format!("the second make: {e}"))?;
    let (id, other) = (first.pointer("/meta/id"), again.pointer("/meta/id"));
    ensure(id != other, || {
        format!(
            "a second make from the same inputs, in the same trace, wrote the same meta.id {}: every message needs its own",
            id.unwrap_or(&Value::Null)
        )
    })
}

//! Section `idempotency` (scope core): the consumer-side dedupe helper (ADR-0022).
//!
//! Blocks: `dedup_key` `{description, envelope_file, key_field, expected_key}` (one case) and
//! `sequences` `{cases: [{name, deliveries: [{meta_id, expect_effect: run | skip, outcome?: ok |
//! throw, forget_before?}], expected_effects}]}`.
//!
//! Runner (spec "Idempotency conformance"), through the SDK's replay of deliveries into one
//! wrapped handler backed by one fresh store:
//!
//! * `dedup_key` — deliver `envelope_file`, the same message again, then the same message with
//!   another `meta.id`: effects run, skip, run; after the first delivery the store holds exactly
//!   `expected_key` (two deliveries with the same `meta.id` are one message, a shared `trace_id`
//!   does not make two messages one).
//! * `sequences/<name>` — each delivery is a message with that `meta_id` (absent: no `meta.id`;
//!   an empty one is kept empty: fail open) and one `trace_id` shared by the whole sequence, so
//!   only `meta.id` tells deliveries apart; the handler throws when `outcome` is `throw`. Each
//!   delivery's effect (run = the handler was invoked) must equal `expect_effect`, a throw must
//!   surface as an error, and the number of handler invocations must equal `expected_effects`
//!   (decisions R6: every run counts, whatever its outcome).
//!
//! Cross-checks: an `outcome` only on a `run`, and every `run` has one (BQ826);
//! `expected_effects` is the number of `run` deliveries (BQ827); each `expect_effect` is what
//! the seen-set rule gives after the deliveries before it (BQ828).

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Delivery, HandlerOutcome, IdempotencyReplay};
use crate::sdk::reference::Broken;
use crate::sdk::wire::Bytes;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch, ensure, quoted, quoted_list, quoted_or};
use crate::suite::{MANIFEST, Scope, pointer};

/// The trace_id every delivery of a sequence shares.
const SEQUENCE_TRACE_ID: &str = "0d1f2e3c-4b5a-4697-8877-665544332211";

/// The `idempotency` section.
pub struct Idempotency;

/// One delivery of a sequence.
pub struct Step<'s> {
    meta_id: Option<&'s str>,
    run: bool,
    outcome: Option<HandlerOutcome>,
    forget_before: bool,
}

/// An idempotency case.
pub enum Case<'s> {
    DedupKey { fixture: Fixture<'s>, expected_key: &'s str },
    Sequence { deliveries: Vec<Step<'s>>, expected_effects: u64 },
}

impl Definition for Idempotency {
    const NAME: &'static str = "idempotency";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[Block::new("dedup_key", (1, 0, 0)), Block::new("sequences", (1, 0, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[catch(
        Broken::IdempotencyTraceIdKey,
        &["dedup_key", "sequences/distinct-ids-each-run", "sequences/missing-id-fails-open"],
    )];
    const EARLY: bool = true;
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field { name: "description", ty: "string", meaning: "What the case pins, for people; not compared." },
            Field {
                name: "envelope_file",
                ty: "string: a suite-relative path, `fixtures/…` (`dedup_key`)",
                meaning: "The message delivered: exactly the bytes of that file.",
            },
            Field {
                name: "key_field",
                ty: "string (`dedup_key`)",
                meaning: "The envelope field the store is keyed on (`meta.id`), for people: the runner checks the key itself, through `expected_key`.",
            },
            Field {
                name: "expected_key",
                ty: "string (`dedup_key`)",
                meaning: "The one key the store must hold after the first delivery: the fixture's `meta.id`, exactly as it appears.",
            },
            Field { name: "name", ty: "string (`sequences`)", meaning: "Names the case: its id is `sequences/<name>`." },
            Field {
                name: "deliveries",
                ty: "array of objects (`sequences`)",
                meaning: "The deliveries, in order, each `{meta_id?, expect_effect, outcome?, forget_before?}`: `meta_id` (string) the message's `meta.id` (absent: the message has no `meta.id`; empty: kept empty); `expect_effect` `run` (the handler is invoked) or `skip` (it is not, and the delivery is acked); `outcome` (on a `run` only) `ok` or `throw` (the handler raises); `forget_before` (boolean) evict the id from the store before this delivery.",
            },
            Field {
                name: "expected_effects",
                ty: "integer (`sequences`)",
                meaning: "How many times the handler is invoked over the whole sequence: every `run`, a `throw` included.",
            },
        ],
        steps: &[
            "Each case gets one fresh store and one handler wrapped by the SDK's idempotency helper; the runner delivers messages to the wrapped handler in order and records, per delivery, whether the handler ran.",
            "`dedup_key`: deliver `envelope_file`, then the same bytes again, then the same message with another `meta.id` (same `trace_id`). The first runs and leaves exactly `expected_key` in the store; the second is skipped; the third runs (a shared `trace_id` does not make two messages one).",
            "`sequences/<name>`: each delivery is an envelope with that `meta_id` as `meta.id` and one `trace_id` shared by the whole sequence (so only `meta.id` tells deliveries apart); before it, evict the id when `forget_before` is true; the handler returns normally on `ok` and raises on `throw`, and a raise must surface from the wrapper as an error.",
            "A sequence passes when every delivery's effect equals its `expect_effect` and the number of handler invocations equals `expected_effects`; otherwise `fail`, naming the first delivery that differs.",
        ],
        operations: &["idempotency_replay"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        match r.block_name() {
            "dedup_key" => {
                let fixture = r.file(&at, "envelope_file");
                let key = r.str(&at, "expected_key");
                r.expects(&at, "expected_key");
                Some(Case::DedupKey { fixture: fixture?, expected_key: key? })
            }
            _ => {
                r.row()?;
                let list = r.array(&at, "deliveries");
                let expected_effects = r.u64(&at, "expected_effects");
                r.expects(&at, "expected_effects");
                let mut deliveries = Vec::new();
                for (i, d) in list.map(|l| l.elements()).unwrap_or_default().into_iter().enumerate() {
                    if r.object(&d).is_none() {
                        continue;
                    }
                    let meta_id = r.opt_str(&d, "meta_id");
                    let run = r.one_of(&d, "expect_effect", &[("run", true), ("skip", false)]);
                    if i == 0 {
                        r.expects_other(&d, "expect_effect", &["run", "skip"]);
                    }
                    let outcome = match r.opt(&d, "outcome") {
                        None => Some(None),
                        Some(_) => r
                            .one_of(&d, "outcome", &[("ok", HandlerOutcome::Ok), ("throw", HandlerOutcome::Throw)])
                            .map(Some),
                    };
                    let forget = r.opt_typed(&d, "forget_before", "a boolean", false, Value::as_bool);
                    if let (Ok(meta_id), Some(run), Some(outcome), Ok(forget)) = (meta_id, run, outcome, forget) {
                        deliveries.push(Step { meta_id, run, outcome, forget_before: forget == Some(true) });
                    }
                }
                Some(Case::Sequence { deliveries, expected_effects: expected_effects? })
            }
        }
    }

    fn check<'s>(_cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        for e in cases {
            if let Some(Case::Sequence { deliveries, expected_effects }) = &e.typed {
                sequence_rules(&e.case.pointer, &e.case.id, deliveries, *expected_effects, out);
            }
        }
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::DedupKey { fixture, expected_key } => dedup_key(cx, fixture, expected_key).into(),
            Case::Sequence { deliveries, expected_effects } => sequence(cx, deliveries, *expected_effects).into(),
        }
    }
}

fn finding(code: Code, msg: impl Into<String>, ptr: &str) -> Finding {
    Finding::error(code, msg).in_file(MANIFEST).at(ptr)
}

fn sequence_rules(ptr: &str, id: &str, deliveries: &[Step<'_>], expected: u64, out: &mut Vec<Finding>) {
    let mut seen = HashSet::new();
    let mut runs = 0u64;
    for (i, d) in deliveries.iter().enumerate() {
        let dptr = format!("{ptr}/deliveries/{i}");
        let id_of = d.meta_id.unwrap_or_default();
        match (d.run, d.outcome) {
            (false, Some(_)) => out.push(finding(
                Code::IDEMPOTENCY_OUTCOME,
                "an outcome on a skipped delivery: the handler does not run",
                &pointer::join(&dptr, "outcome"),
            )),
            (true, None) => {
                out.push(finding(Code::IDEMPOTENCY_OUTCOME, "a run delivery needs outcome \"ok\" or \"throw\"", &dptr))
            }
            _ => {}
        }
        if d.forget_before {
            seen.remove(id_of);
        }
        let derived = id_of.is_empty() || !seen.contains(id_of);
        if d.run != derived {
            let word = |b: bool| if b { "run" } else { "skip" };
            out.push(finding(
                Code::IDEMPOTENCY_EFFECT,
                format!(
                    "delivery {i} of {id:?} expects {:?}, the seen-set rule gives {:?}",
                    word(d.run),
                    word(derived)
                ),
                &pointer::join(&dptr, "expect_effect"),
            ));
        }
        if d.run {
            runs += 1;
        }
        if derived && d.outcome == Some(HandlerOutcome::Ok) && !id_of.is_empty() {
            seen.insert(id_of);
        }
    }
    if expected != runs {
        out.push(finding(
            Code::IDEMPOTENCY_EFFECTS,
            format!("expected_effects is {expected}, but {runs} deliveries run (every run counts, R6)"),
            &pointer::join(ptr, "expected_effects"),
        ));
    }
}

fn dedup_key(cx: &mut RunCx<'_>, fixture: &Fixture<'_>, expected: &str) -> Check {
    let mut other = fixture.json.clone();
    other["meta"]["id"] = Value::from(format!("{expected}-other"));
    let other = serde_json::to_vec(&other).map_err(|e| e.to_string())?;
    let delivery =
        |body: &[u8]| Delivery { body: Bytes::from(body), outcome: HandlerOutcome::Ok, forget_before: false };
    let deliveries = vec![delivery(fixture.bytes), delivery(fixture.bytes), delivery(&other)];
    let replayed = cx.sdk.idempotency_replay(IdempotencyReplay { deliveries }).map_err(|e| e.to_string())?;
    let [first, again, other] = &replayed.deliveries[..] else {
        return Err(format!("the SDK answered {} deliveries, expected 3", replayed.deliveries.len()));
    };
    ensure(first.ran && first.error.is_none(), || "the first delivery did not run".into())?;
    ensure(first.remembered == [expected], || {
        format!("the store keyed the message on {}, expected [{}]", quoted_list(&first.remembered), quoted(expected))
    })?;
    ensure(!again.ran, || "a redelivery of the same message was not skipped".into())?;
    ensure(other.ran, || "a message with the same trace_id but another meta.id was skipped".into())
}

fn sequence(cx: &mut RunCx<'_>, steps: &[Step<'_>], expected_effects: u64) -> Check {
    let deliveries = steps
        .iter()
        .map(|s| {
            let mut meta = json!({"queue": "conformance", "lang": "php", "schema_version": 1, "created_at": 1_749_132_727_000u64});
            if let Some(id) = s.meta_id {
                meta["id"] = Value::from(id);
            }
            let body = json!({"job": "urn:babel:conformance:idempotency", "trace_id": SEQUENCE_TRACE_ID, "data": {}, "meta": meta, "attempts": 0});
            Delivery {
                body: Bytes(body.to_string().into_bytes()),
                outcome: s.outcome.unwrap_or(HandlerOutcome::Ok),
                forget_before: s.forget_before,
            }
        })
        .collect();
    let replayed = cx.sdk.idempotency_replay(IdempotencyReplay { deliveries }).map_err(|e| e.to_string())?;
    ensure(replayed.deliveries.len() == steps.len(), || {
        format!("the SDK answered {} deliveries, expected {}", replayed.deliveries.len(), steps.len())
    })?;
    for (i, (step, got)) in steps.iter().zip(&replayed.deliveries).enumerate() {
        let word = |b: bool| if b { "run" } else { "skip" };
        ensure(got.ran == step.run, || {
            format!(
                "delivery {i} (meta_id {}): expected {}, the helper did {}",
                step.meta_id.map_or_else(|| "none".to_owned(), quoted),
                word(step.run),
                word(got.ran)
            )
        })?;
        let threw = step.outcome == Some(HandlerOutcome::Throw);
        ensure(!got.ran || got.error.is_some() == threw, || {
            format!(
                "delivery {i}: the handler {}, but the helper reported the error {}",
                if threw { "threw" } else { "succeeded" },
                quoted_or(got.error.as_deref(), "null")
            )
        })?;
    }
    let invocations = replayed.deliveries.iter().filter(|d| d.ran).count() as u64;
    ensure(invocations == expected_effects, || {
        format!("{invocations} handler invocations, expected_effects is {expected_effects}")
    })
}

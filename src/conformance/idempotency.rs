//! Section `idempotency`: the consumer-side dedupe helper (ADR-0022).
//!
//! Runner (spec "Idempotency conformance"):
//!
//! * `dedup_key` — decode `envelope_file`, deliver it through a handler wrapped with an empty
//!   in-memory store: the handler runs and the store then holds exactly `expected_key`; a
//!   redelivery of the same message is skipped; a message with the same `trace_id` but another
//!   `meta.id` runs (it is a different message).
//! * `sequences/<name>` — one wrapped handler and one store per case; each delivery is a message
//!   with that `meta_id` (an empty one is kept empty: fail open) and one `trace_id` shared by
//!   the whole sequence, so only `meta.id` tells deliveries apart. `forget_before` evicts the id
//!   first. The handler fails when the delivery's `outcome` is `throw`. Each delivery's effect
//!   (`run` = the handler was invoked, `skip` = it was not) must equal `expect_effect`, a throw
//!   must surface as the handler's error, and the number of handler invocations must equal
//!   `expected_effects` (decisions R6: every run counts, whatever its outcome).

use std::cell::Cell;

use serde_json::{Map, Value};

use crate::core::envelope::{self, Envelope};
use crate::core::idempotency::{self, Effect, Error, MemoryStore, Store};
use crate::suite::CaseRef;

use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The `idempotency` runner.
pub struct Idempotency;

impl SectionRunner for Idempotency {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        match case.sub {
            Some("dedup_key") => dedup_key(cx, case.value).into(),
            Some("sequences") => sequence(case.value).into(),
            _ => Outcome::fail(format!("no idempotency runner for case {:?}", case.id)),
        }
    }
}

/// A handler that counts its invocations and fails while `throw` is set.
struct Handler<'a> {
    calls: &'a Cell<u64>,
    throw: &'a Cell<bool>,
}

impl Handler<'_> {
    fn call(&self) -> impl FnMut(&Envelope) -> Result<(), &'static str> + '_ {
        |_| {
            self.calls.set(self.calls.get() + 1);
            if self.throw.get() { Err("handler threw") } else { Ok(()) }
        }
    }
}

fn dedup_key(cx: &RunCx<'_>, case: &Value) -> Check {
    let file = fields::str(case, "envelope_file")?;
    let expected = fields::str(case, "expected_key")?;
    let env = envelope::decode(cx.bytes(file)?).map_err(|e| format!("{file} does not decode: {e}"))?.envelope;
    let (calls, throw) = (Cell::new(0), Cell::new(false));
    let handler = Handler { calls: &calls, throw: &throw };
    let store = MemoryStore::new();
    let mut h = idempotency::wrap(handler.call(), &store);
    ensure(matches!(h.handle(&env), Ok(Effect::Run { remember: Ok(()) })), || "the first delivery did not run".into())?;
    let ids = store.ids();
    ensure(ids == [expected], || format!("the store keyed the message on {ids:?}, expected [{expected:?}]"))?;
    ensure(h.handle(&env) == Ok(Effect::Skip), || "a redelivery of the same message was not skipped".into())?;
    let mut other = env.clone();
    other.meta.id = Some(Value::String(format!("{expected}-other")));
    ensure(matches!(h.handle(&other), Ok(Effect::Run { .. })), || {
        "a message with the same trace_id but another meta.id was skipped".into()
    })?;
    ensure(calls.get() == 2, || format!("{} handler invocations, expected 2", calls.get()))
}

fn sequence(case: &Value) -> Check {
    let deliveries = fields::array(case, "deliveries")?;
    let expected_effects = fields::u64(case, "expected_effects")?;
    let base = envelope::make("urn:babel:conformance:idempotency", Map::new(), "conformance", None, Vec::new())
        .map_err(|e| e.to_string())?;
    let (calls, throw) = (Cell::new(0), Cell::new(false));
    let handler = Handler { calls: &calls, throw: &throw };
    let store = MemoryStore::new();
    let mut h = idempotency::wrap(handler.call(), &store);
    for (i, d) in deliveries.iter().enumerate() {
        let meta_id = fields::opt_str(d, "meta_id")?;
        let expect_effect = fields::str(d, "expect_effect")?;
        let outcome = fields::opt_str(d, "outcome")?;
        if d.get("forget_before").and_then(Value::as_bool) == Some(true) {
            h.store().forget(meta_id.unwrap_or_default()).map_err(|e| e.to_string())?;
        }
        throw.set(match outcome {
            None | Some("ok") => false,
            Some("throw") => true,
            Some(other) => return Err(format!("delivery {i}: unknown outcome {other:?}")),
        });
        let mut env = base.clone();
        env.meta.id = meta_id.map(|s| Value::String(s.to_owned()));
        let before = calls.get();
        let result = h.handle(&env);
        let effect = if calls.get() > before { "run" } else { "skip" };
        ensure(effect == expect_effect, || {
            format!("delivery {i} (meta_id {meta_id:?}): expected {expect_effect}, the helper did {effect}")
        })?;
        let consistent = matches!(
            (effect, throw.get(), &result),
            ("run", true, Err(Error::Handler(_)))
                | ("run", false, Ok(Effect::Run { .. }))
                | ("skip", _, Ok(Effect::Skip))
        );
        ensure(consistent, || format!("delivery {i}: the helper returned {result:?} for a {effect}"))?;
    }
    ensure(calls.get() == expected_effects, || {
        format!("{} handler invocations, expected_effects is {expected_effects}", calls.get())
    })
}

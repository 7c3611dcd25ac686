//! Section `pulsar` (scope pulsar, broker-bindings §5): the Pulsar transport.
//!
//! * `property_projection` `{envelope_file, properties}`: produce the fixture; the message
//!   properties equal `properties` exactly and the payload is the envelope.
//! * `attempts_reconciliation/*` `{name, body_attempts, redelivery_count, expected_attempts}`.
//! * `schema_version_gate/*`: each row as a string property named `property` (absent: none).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::diag::Finding;
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Produce, PulsarConsume, PulsarReconcile};
use crate::sdk::reference::Broken;
use crate::sdk::wire::Bytes;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch};
use crate::suite::Scope;

use super::shared::contract::{
    ABSENT, BODY_ATTEMPTS, DESCRIPTION, ENVELOPE_FILE, EXPECT, EXPECTED_ATTEMPTS, GATE, GATE_RULE, NAME, PROJECTION_BODY,
    RECONCILE, REPORT, value,
};
use super::BindingCase;
use super::shared::{Carries, body_is_envelope, exact_map, golden, projection_fixture, text_only};

/// The `pulsar` section.
pub struct Pulsar;

/// The projection block: the fixture and the golden `properties`.
pub struct Projection<'s> {
    fixture: Fixture<'s>,
    properties: &'s Map<String, Value>,
}

/// A pulsar case (the count is `redelivery_count`).
pub type Case<'s> = BindingCase<'s, Projection<'s>, u32>;

/// Pulsar properties are string → string.
const CARRIES: Carries = Carries { null: false, numbers: false };

impl Definition for Pulsar {
    const NAME: &'static str = "pulsar";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("property_projection", (1, 0, 0)),
        Block::new("attempts_reconciliation", (1, 0, 0)),
        Block::new("schema_version_gate", (1, 1, 0)),
    ];
    const SCOPE: Scope = Scope::Pulsar;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::GateTrims, &["schema_version_gate/9"]),
        catch(Broken::GateUnicodeBlank, &["schema_version_gate/12", "schema_version_gate/14"]),
    ];
    const EARLY: bool = true;
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            DESCRIPTION,
            ENVELOPE_FILE,
            Field {
                name: "properties",
                ty: "object: name → string (`property_projection`)",
                meaning: "The message properties the produced message must carry, exactly; numbers as their decimal text (Pulsar properties map strings to strings). The broker's publish time is not compared.",
            },
            NAME,
            BODY_ATTEMPTS,
            Field {
                name: "redelivery_count",
                ty: "integer (`attempts_reconciliation`)",
                meaning: "The message's RedeliveryCount as the Pulsar client reports it (0 on the first delivery).",
            },
            EXPECTED_ATTEMPTS,
            value(CARRIES),
            ABSENT,
            EXPECT,
        ],
        steps: &[
            "`property_projection`: hand `envelope_file` to the SDK's Pulsar producer and take the message it would send (no broker needed). Its properties must equal `properties`.",
            PROJECTION_BODY,
            RECONCILE,
            "The Pulsar rule: attempts = max(`body_attempts`, `redelivery_count`), with no −1 (RedeliveryCount starts at 0), so 0 leaves the body's count and a raised count is never lowered.",
            GATE,
            "For Pulsar the gate reads a string message property; Pulsar cannot carry a null, so the table has no null row (the RedeliveryCount beside it is 0).",
            GATE_RULE,
            REPORT,
        ],
        operations: &["pulsar_produce", "pulsar_reconcile", "pulsar_consume"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let projection = |r: &mut Reader<'s>| {
            let (at, fixture) = projection_fixture(r)?;
            Some(Projection { fixture, properties: golden(r, &at, "properties")? })
        };
        Case::read(r, projection, |r, at| r.u32(at, "redelivery_count"))
    }

    fn check<'s>(cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        Case::check(cx, Self::NAME, CARRIES, cases, out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::Projection(p) => projection(cx, p.fixture, p.properties).into(),
            Case::Reconciliation(c) => c.verdict(
                cx.sdk.pulsar_reconcile(PulsarReconcile { body_attempts: c.body_attempts, redelivery_count: c.count }),
            ),
            Case::Gate(row) => row.run(cx, |cx, property, value, body| {
                let mut properties = BTreeMap::new();
                let text = text_only("Pulsar", value)?;
                let how = if text.is_some() { "string property" } else { "no property" };
                if let Some(text) = text {
                    properties.insert(property.to_owned(), text.to_owned());
                }
                let request = PulsarConsume { payload: Bytes::from(body), properties, redelivery_count: 0 };
                Ok(vec![(how.into(), cx.sdk.pulsar_consume(request).map_err(|e| e.to_string())?)])
            }),
        }
    }
}

fn projection(cx: &mut RunCx<'_>, fixture: Fixture<'_>, want: &Map<String, Value>) -> Check {
    let msg = cx.sdk.pulsar_produce(Produce { body: Bytes::from(fixture.bytes) }).map_err(|e| e.to_string())?;
    let got: Map<String, Value> = msg.properties.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect();
    exact_map("properties", want, &got)?;
    body_is_envelope("payload", &fixture, msg.payload.as_slice())
}

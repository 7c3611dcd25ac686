//! Section `asb` (scope asb, broker-bindings §4): the Azure Service Bus transport.
//!
//! * `property_projection` `{envelope_file, message, application_properties}`: produce the
//!   fixture; the message fields `subject`, `correlation_id`, `message_id`, `content_type` equal
//!   `message` exactly and the application properties equal `application_properties` exactly as
//!   AMQP-typed values (a JSON integer is an AMQP integer of any width, never a float or a
//!   string); the body is the envelope.
//! * `attempts_reconciliation/*` `{name, body_attempts, delivery_count, expected_attempts}`.
//! * `schema_version_gate/*`: each row as an AMQP application property named `property`: a
//!   string row as an AMQP string; an integral number at every integer width that holds it
//!   (byte, short, int, long and their unsigned forms — always including int and long); a
//!   `value_type: "float"` row or a number with a fraction as a real `float` and a real
//!   `double`, never an integer; `null` as the key present with AMQP null; `absent: true` as no
//!   key.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::diag::Finding;
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{AsbConsume, ConsumeOutcome, DeliveryCountReconcile, Produce};
use crate::sdk::reference::Broken;
use crate::sdk::wire::{Amqp, Bytes};
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch, catch_only, ensure};
use crate::suite::Scope;

use super::shared::contract::{
    ABSENT, BODY_ATTEMPTS, DESCRIPTION, ENVELOPE_FILE, EXPECT, EXPECTED_ATTEMPTS, GATE, GATE_RULE, NAME, PROJECTION_BODY,
    RECONCILE, REPORT, value,
};
use super::BindingCase;
use super::shared::{
    Carries, RowValue, body_is_envelope, exact_amqp_map, exact_map, golden, integer_forms, projection_fixture,
    set_strings,
};

/// The `asb` section.
pub struct Asb;

/// The projection block: the fixture, the golden `message` fields and application properties.
pub struct Projection<'s> {
    fixture: Fixture<'s>,
    message: &'s Map<String, Value>,
    properties: &'s Map<String, Value>,
}

/// An asb case (the count is `delivery_count`).
pub type Case<'s> = BindingCase<'s, Projection<'s>, u32>;

/// ASB application properties are AMQP-typed: numbers and null travel natively.
const CARRIES: Carries = Carries { null: true, numbers: true };

impl Definition for Asb {
    const NAME: &'static str = "asb";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("property_projection", (1, 0, 0)),
        Block::new("attempts_reconciliation", (1, 0, 0)),
        Block::new("schema_version_gate", (1, 1, 0)),
    ];
    const SCOPE: Scope = Scope::Asb;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::GateTrims, &["schema_version_gate/9"]),
        catch(Broken::GateUnicodeBlank, &["schema_version_gate/12", "schema_version_gate/14"]),
        catch_only(Broken::AsbFloatOneIsIntegral, &["schema_version_gate/22"]),
    ];
    const EARLY: bool = true;
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            DESCRIPTION,
            ENVELOPE_FILE,
            Field {
                name: "message",
                ty: "object: field → string (`property_projection`)",
                meaning: "The message fields the produced message must set, exactly, among `subject`, `correlation_id`, `message_id` and `content_type` (the URN, `trace_id`, `meta.id`, `application/json`).",
            },
            Field {
                name: "application_properties",
                ty: "object: name → value (`property_projection`)",
                meaning: "The application properties the message must carry, exactly, as native AMQP values: a JSON string is an AMQP string; a JSON integer is an AMQP integer of any width (byte, short, int or long, signed or unsigned) with that value, never a float or double, not even 1.0, and never a string.",
            },
            NAME,
            BODY_ATTEMPTS,
            Field {
                name: "delivery_count",
                ty: "integer (`attempts_reconciliation`)",
                meaning: "The message's DeliveryCount as Service Bus reports it (1-based: 1 on the first delivery).",
            },
            EXPECTED_ATTEMPTS,
            value(CARRIES),
            ABSENT,
            EXPECT,
            Field {
                name: "value_type",
                ty: "string: `float` (`schema_version_gate`, optional)",
                meaning: "The row's number is a floating-point value: hand it to the gate as a real float (32-bit and 64-bit where the language has both), never as an integer; 1.0 as a float is not integral 1 and rejects.",
            },
        ],
        steps: &[
            "`property_projection`: hand `envelope_file` to the SDK's Service Bus producer and take the message it would send (no broker needed). Its set message fields must equal `message` and its application properties `application_properties`.",
            PROJECTION_BODY,
            RECONCILE,
            "The ASB rule: attempts = max(`body_attempts`, `delivery_count` − 1); DeliveryCount is 1-based, so a first delivery reads 0, a count of 1 or less leaves the body's count, and a raised count is never lowered.",
            GATE,
            "For ASB the property is AMQP-typed: a string `value` is an AMQP string; a JSON integer stands for every AMQP integer width that holds it (hand each over, at least 32-bit and 64-bit, and every one must get the same verdict), where only integral 1 decodes; a number with a fraction, or a `value_type: float` row, is a real float and double; null is the key set with a null value (treated as absent). A language with a single number type may skip the float row (skip rule `single-number-type`), and one that cannot carry a null property the null row (`no-null-property`), both citing ADR-0032.",
            GATE_RULE,
            REPORT,
        ],
        operations: &["asb_produce", "asb_reconcile", "asb_consume"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let projection = |r: &mut Reader<'s>| {
            let (at, fixture) = projection_fixture(r)?;
            let message = golden(r, &at, "message");
            let properties = golden(r, &at, "application_properties");
            Some(Projection { fixture, message: message?, properties: properties? })
        };
        Case::read(r, projection, |r, at| r.u32(at, "delivery_count"))
    }

    fn check<'s>(cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        Case::check(cx, Self::NAME, CARRIES, cases, out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::Projection(p) => projection(cx, p).into(),
            Case::Reconciliation(c) => c.verdict(
                cx.sdk
                    .asb_reconcile(DeliveryCountReconcile { body_attempts: c.body_attempts, delivery_count: c.count }),
            ),
            Case::Gate(row) => row.run(cx, gate_messages),
        }
    }
}

fn projection(cx: &mut RunCx<'_>, p: &Projection<'_>) -> Check {
    let msg = cx.sdk.asb_produce(Produce { body: Bytes::from(p.fixture.bytes) }).map_err(|e| e.to_string())?;
    let fields = set_strings([
        ("subject", &msg.subject),
        ("correlation_id", &msg.correlation_id),
        ("message_id", &msg.message_id),
        ("content_type", &msg.content_type),
    ]);
    exact_map("message", p.message, &fields)?;
    exact_amqp_map("application_properties", p.properties, &msg.application_properties)?;
    body_is_envelope("body", &p.fixture, msg.body.as_slice())
}

/// Every native AMQP form of a gate row's value (`None`: the key is absent).
fn native_forms(value: &RowValue) -> Result<Vec<Option<Amqp>>, String> {
    Ok(match value {
        RowValue::Absent => vec![None],
        RowValue::Null => vec![Some(Amqp::Null)],
        RowValue::Text(s) => vec![Some(Amqp::String(s.clone()))],
        // A float row is only ever handed over as floats (the f32 form of the row's value).
        RowValue::Float(x) => vec![Some(Amqp::Float(*x as f32)), Some(Amqp::Double(*x))],
        RowValue::Integer(n) => integer_forms(*n).into_iter().map(Some).collect(),
        RowValue::Other(v) => return Err(format!("an AMQP property cannot carry {v}")),
    })
}

fn gate_messages(
    cx: &mut RunCx<'_>,
    property: &str,
    value: &RowValue,
    body: &[u8],
) -> Result<Vec<(String, ConsumeOutcome)>, String> {
    let forms = native_forms(value)?;
    if let RowValue::Integer(n) = value {
        let has = |t: &str| forms.iter().flatten().any(|v| v.type_name() == t);
        ensure(has("int") && has("long"), || format!("{n} does not fit both a 32-bit and a 64-bit integer"))?;
    }
    forms
        .into_iter()
        .map(|form| {
            let how = form.as_ref().map_or_else(|| "absent property".to_owned(), |v| format!("AMQP {}", v.type_name()));
            let mut application_properties = BTreeMap::new();
            if let Some(v) = form {
                application_properties.insert(property.to_owned(), v);
            }
            let request = AsbConsume { body: Bytes::from(body), application_properties, delivery_count: 1 };
            Ok((how, cx.sdk.asb_consume(request).map_err(|e| e.to_string())?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_go_out_only_as_floats() {
        let names =
            |v: &RowValue| native_forms(v).unwrap().into_iter().flatten().map(|v| v.type_name()).collect::<Vec<_>>();
        assert_eq!(names(&RowValue::Float(1.0)), ["float", "double"]);
        assert_eq!(native_forms(&RowValue::Absent).unwrap(), vec![None]);
        assert_eq!(native_forms(&RowValue::Null).unwrap(), vec![Some(Amqp::Null)]);
    }
}

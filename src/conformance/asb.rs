//! Section `asb` (broker-bindings §4): the Azure Service Bus transport of the reference core.
//!
//! * `property_projection`: produce `envelope_file`; the message fields `subject`,
//!   `correlation_id`, `message_id`, `content_type` equal `message` exactly and the application
//!   properties equal `application_properties` exactly as AMQP-typed values (a JSON integer is an
//!   AMQP integer of any width, never a float or a string); the body is the envelope.
//! * `attempts_reconciliation/*`: reconcile `body_attempts` with `delivery_count`.
//! * `schema_version_gate/*`: each row as an AMQP application property named `property`: a string
//!   row as an AMQP string; an integral number at every integer width that holds it (byte, short,
//!   int, long and their unsigned forms — always including int and long); a `value_type: "float"`
//!   row or a number with a fraction as a real `float` and a real `double`, never an integer;
//!   `null` as the key present with AMQP null; `absent: true` as no key.

use serde_json::Value;

use crate::core::bindings::AmqpValue;
use crate::core::bindings::asb::{self, ApplicationProperties, ServiceBusMessage, ServiceBusReceivedMessage};
use crate::suite::CaseRef;

use super::binding::{
    Attempt, RowValue, block, block_envelope, body_is_envelope, exact_amqp_map, exact_map, gate_row, reconciliation,
    set_strings,
};
use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The `asb` runner.
pub struct Asb;

impl SectionRunner for Asb {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        match case.sub {
            Some("property_projection") => projection(cx, block(cx, case)).into(),
            Some("attempts_reconciliation") => {
                reconciliation(case.value, "delivery_count", asb::reconcile_attempts).into()
            }
            Some("schema_version_gate") => gate_row(cx, case, gate_messages),
            other => Outcome::fail(format!("block {other:?} of section asb is not implemented by the reference core")),
        }
    }
}

fn projection(cx: &RunCx<'_>, block: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let msg = asb::message(&env).map_err(|e| e.to_string())?;
    let fields = set_strings([
        ("subject", &msg.subject),
        ("correlation_id", &msg.correlation_id),
        ("message_id", &msg.message_id),
        ("content_type", &msg.content_type),
    ]);
    exact_map("message", fields::object(block, "message")?, &fields)?;
    exact_amqp_map(
        "application_properties",
        fields::object(block, "application_properties")?,
        &msg.application_properties,
    )?;
    body_is_envelope("body", &env, &msg.body)
}

/// Every native AMQP form of a gate row's value (`None`: the key is absent).
fn native_forms(value: &RowValue) -> Vec<Option<AmqpValue>> {
    match value {
        RowValue::Absent => vec![None],
        RowValue::Null => vec![Some(AmqpValue::Null)],
        RowValue::Text(s) => vec![Some(AmqpValue::String(s.clone()))],
        // A float row is only ever handed over as floats (the f32 form of the row's value).
        RowValue::Float(x) => vec![Some(AmqpValue::Float(*x as f32)), Some(AmqpValue::Double(*x))],
        RowValue::Integer(n) => AmqpValue::integer_forms(*n).into_iter().map(Some).collect(),
    }
}

fn gate_messages(property: &str, value: &RowValue, body: &[u8]) -> Result<Vec<Attempt>, String> {
    let forms = native_forms(value);
    if let RowValue::Integer(n) = value {
        let has = |t: &str| forms.iter().flatten().any(|v| v.type_name() == t);
        ensure(has("int") && has("long"), || format!("{n} does not fit both a 32-bit and a 64-bit integer"))?;
    }
    Ok(forms
        .into_iter()
        .map(|form| {
            let how = form.as_ref().map_or_else(|| "absent property".to_owned(), |v| format!("AMQP {}", v.type_name()));
            let mut props = ApplicationProperties::new();
            if let Some(v) = form {
                props.insert(property.to_owned(), v);
            }
            let message = ServiceBusMessage {
                body: body.to_vec(),
                subject: None,
                correlation_id: None,
                message_id: None,
                content_type: None,
                application_properties: props,
            };
            (how, asb::consume(&ServiceBusReceivedMessage { message, delivery_count: 1 }))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_go_out_at_every_width_and_floats_only_as_floats() {
        let names = |v: &RowValue| native_forms(v).into_iter().flatten().map(|v| v.type_name()).collect::<Vec<_>>();
        assert_eq!(names(&RowValue::Integer(1)), ["byte", "short", "int", "long", "ubyte", "ushort", "uint", "ulong"]);
        assert_eq!(names(&RowValue::Integer(-1)), ["byte", "short", "int", "long"]);
        assert_eq!(names(&RowValue::Float(1.0)), ["float", "double"]);
        assert_eq!(native_forms(&RowValue::Absent), vec![None]);
        assert_eq!(native_forms(&RowValue::Null), vec![Some(AmqpValue::Null)]);
    }
}

//! Section `pulsar` (broker-bindings §5): the Pulsar transport of the reference core.
//!
//! * `property_projection`: produce `envelope_file` and compare the message properties with
//!   `properties` exactly; the payload is the envelope.
//! * `attempts_reconciliation/*`: reconcile `body_attempts` with `redelivery_count`.
//! * `schema_version_gate/*`: each row as a string property named `property` (absent: none).

use serde_json::{Map, Value};

use crate::core::bindings::pulsar::{self, Properties, ReceivedMessage};
use crate::suite::CaseRef;

use super::binding::{block, block_envelope, body_is_envelope, exact_map, gate_row, reconciliation, text_only};
use super::{Check, Outcome, RunCx, SectionRunner, fields};

/// The `pulsar` runner.
pub struct Pulsar;

impl SectionRunner for Pulsar {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        match case.sub {
            Some("property_projection") => projection(cx, block(cx, case)).into(),
            Some("attempts_reconciliation") => {
                reconciliation(case.value, "redelivery_count", pulsar::reconcile_attempts).into()
            }
            Some("schema_version_gate") => gate_row(cx, case, |property, value, body| {
                let mut properties = Properties::new();
                if let Some(text) = text_only("Pulsar", value)? {
                    properties.insert(property.to_owned(), text.to_owned());
                }
                let msg = ReceivedMessage { payload: body.to_vec(), properties, redelivery_count: 0 };
                Ok(vec![("string property".into(), pulsar::consume(&msg))])
            }),
            other => {
                Outcome::fail(format!("block {other:?} of section pulsar is not implemented by the reference core"))
            }
        }
    }
}

fn projection(cx: &RunCx<'_>, block: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let msg = pulsar::message(&env).map_err(|e| e.to_string())?;
    let got: Map<String, Value> = msg.properties.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect();
    exact_map("properties", fields::object(block, "properties")?, &got)?;
    body_is_envelope("payload", &env, &msg.payload)
}

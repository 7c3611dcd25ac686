//! Section `artemis` (broker-bindings §7): the Artemis (AMQP 1.0) transport of the reference core.
//!
//! * `property_projection`: produce `envelope_file`; the message annotation named
//!   `jms_type_annotation` holds `jms_type`, the correlation-id is `correlation_id`, the string
//!   application properties equal `properties` exactly, the creation-time is the fixture's
//!   `meta.created_at` and the body is the envelope.
//! * `attempts_reconciliation/*`: reconcile `body_attempts` with `delivery_count`.
//! * `schema_version_gate/*`: each row as an application property named `property`: a string as
//!   itself, `null` as the key present with a null value, `absent: true` as no key.

use serde_json::{Map, Value};

use crate::core::bindings::artemis::{self, ApplicationProperties, ArtemisMessage};
use crate::suite::CaseRef;

use super::binding::{RowValue, block, block_envelope, body_is_envelope, exact_map, gate_row, reconciliation};
use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The `artemis` runner.
pub struct Artemis;

impl SectionRunner for Artemis {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        match case.sub {
            Some("property_projection") => projection(cx, block(cx, case)).into(),
            Some("attempts_reconciliation") => {
                reconciliation(case.value, "delivery_count", artemis::reconcile_attempts).into()
            }
            Some("schema_version_gate") => gate_row(cx, case, |property, value, body| {
                let mut props = ApplicationProperties::new();
                let how = match value {
                    RowValue::Absent => "no property",
                    RowValue::Null => {
                        props.insert(property.to_owned(), None);
                        "property with a null value"
                    }
                    RowValue::Text(s) => {
                        props.insert(property.to_owned(), Some(s.clone()));
                        "string property"
                    }
                    other => return Err(format!("an Artemis string property cannot carry {other:?}")),
                };
                let msg = ArtemisMessage {
                    body: body.to_vec(),
                    message_annotations: Default::default(),
                    correlation_id: None,
                    creation_time: None,
                    content_type: None,
                    application_properties: props,
                    delivery_count: 0,
                };
                Ok(vec![(how.into(), artemis::consume(&msg))])
            }),
            other => {
                Outcome::fail(format!("block {other:?} of section artemis is not implemented by the reference core"))
            }
        }
    }
}

fn projection(cx: &RunCx<'_>, block: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let msg = artemis::message(&env).map_err(|e| e.to_string())?;
    let annotation = fields::str(block, "jms_type_annotation")?;
    let want_type = fields::str(block, "jms_type")?;
    let got_type = msg.message_annotations.get(annotation);
    ensure(got_type.map(String::as_str) == Some(want_type), || {
        format!("annotation {annotation:?} is {got_type:?}, expected {want_type:?}")
    })?;
    let want_corr = fields::str(block, "correlation_id")?;
    ensure(msg.correlation_id.as_deref() == Some(want_corr), || {
        format!("correlation-id {:?}, expected {want_corr:?}", msg.correlation_id)
    })?;
    let got: Map<String, Value> = msg
        .application_properties
        .iter()
        .map(|(k, v)| (k.clone(), v.as_deref().map_or(Value::Null, Value::from)))
        .collect();
    exact_map("application properties", fields::object(block, "properties")?, &got)?;
    let created = env.meta.created_at().and_then(|n| i64::try_from(n).ok());
    ensure(msg.creation_time == created, || {
        format!("creation-time {:?}, expected meta.created_at {created:?}", msg.creation_time)
    })?;
    body_is_envelope("body", &env, &msg.body)
}

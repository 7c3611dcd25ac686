//! Section `rabbitmq` (broker-bindings §2, scope amqp): the AMQP 0-9-1 transport of the reference
//! core.
//!
//! * `property_projection`: publish `envelope_file`; the string-valued basic properties (`type`,
//!   `correlation_id`, `message_id`, `app_id`, `content_type`) equal `properties` exactly and the
//!   header field table equals `headers` exactly as AMQP-typed values (a JSON integer is an AMQP
//!   integer of any width, never its text); the body is the envelope. `delivery_mode` is an octet,
//!   not one of the string properties, and is not part of the golden map.

use serde_json::Value;

use crate::core::bindings::amqp;
use crate::suite::CaseRef;

use super::binding::{block, block_envelope, body_is_envelope, exact_amqp_map, exact_map, set_strings};
use super::{Check, Outcome, RunCx, SectionRunner, fields};

/// The `rabbitmq` runner.
pub struct Rabbitmq;

impl SectionRunner for Rabbitmq {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        match case.sub {
            Some("property_projection") => projection(cx, block(cx, case)).into(),
            other => {
                Outcome::fail(format!("block {other:?} of section rabbitmq is not implemented by the reference core"))
            }
        }
    }
}

fn projection(cx: &RunCx<'_>, block: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let p = amqp::publish(&env).map_err(|e| e.to_string())?;
    let props = &p.properties;
    let got = set_strings([
        ("type", &props.message_type),
        ("correlation_id", &props.correlation_id),
        ("message_id", &props.message_id),
        ("app_id", &props.app_id),
        ("content_type", &props.content_type),
    ]);
    exact_map("properties", fields::object(block, "properties")?, &got)?;
    exact_amqp_map("headers", fields::object(block, "headers")?, &props.headers)?;
    body_is_envelope("body", &env, &p.body)
}

//! Section `rabbitmq` (scope amqp, broker-bindings §2): the AMQP 0-9-1 transport.
//!
//! * `property_projection` `{envelope_file, properties, headers}`: publish the fixture; the
//!   string-valued basic properties (`type`, `correlation_id`, `message_id`, `app_id`,
//!   `content_type`) equal `properties` exactly and the header field table equals `headers`
//!   exactly as AMQP-typed values (a JSON integer is an AMQP integer of any width, never its
//!   text); the body is the envelope. `delivery_mode` is an octet, not one of the string
//!   properties, and is not part of the golden map.

use serde_json::{Map, Value};

use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::Produce;
use crate::sdk::wire::Bytes;
use crate::sections::{Check, Definition, Fixture, Reader, RunCx};
use crate::suite::Scope;

use super::shared::{body_is_envelope, exact_amqp_map, exact_map, golden, projection_fixture, set_strings};

/// The `rabbitmq` section.
pub struct Rabbitmq;

/// The rabbitmq case.
pub struct Case<'s> {
    fixture: Fixture<'s>,
    properties: &'s Map<String, Value>,
    headers: &'s Map<String, Value>,
}

impl Definition for Rabbitmq {
    const NAME: &'static str = "rabbitmq";
    const SCOPE: Scope = Scope::Amqp;
    const EARLY: bool = true;
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        super::block(r, &["property_projection"])?;
        let (at, fixture) = projection_fixture(r)?;
        let properties = golden(r, &at, "properties");
        let headers = golden(r, &at, "headers");
        Some(Case { fixture, properties: properties?, headers: headers? })
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        check(cx, case).into()
    }
}

fn check(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let msg = cx.sdk.amqp_publish(Produce { body: Bytes::from(case.fixture.bytes) }).map_err(|e| e.to_string())?;
    let p = &msg.properties;
    let got = set_strings([
        ("type", &p.message_type),
        ("correlation_id", &p.correlation_id),
        ("message_id", &p.message_id),
        ("app_id", &p.app_id),
        ("content_type", &p.content_type),
    ]);
    exact_map("properties", case.properties, &got)?;
    exact_amqp_map("headers", case.headers, &p.headers)?;
    body_is_envelope("body", &case.fixture, msg.body.as_slice())
}

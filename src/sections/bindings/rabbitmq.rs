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
use crate::sections::{Block, Check, Contract, Definition, Field, Fixture, Reader, RunCx, Version};
use crate::suite::Scope;

use super::shared::contract::{DESCRIPTION, ENVELOPE_FILE, PROJECTION_BODY, REPORT};
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
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("property_projection", (1, 0, 0)),
    ];
    const SCOPE: Scope = Scope::Amqp;
    const EARLY: bool = true;
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            DESCRIPTION,
            ENVELOPE_FILE,
            Field {
                name: "properties",
                ty: "object: basic property → string",
                meaning: "The string-valued basic properties the published message must set, exactly: `type` (the URN), `correlation_id` (`trace_id`), `message_id` (`meta.id`), `app_id`, `content_type`; `delivery_mode` (an octet) is not part of the map.",
            },
            Field {
                name: "headers",
                ty: "object: header → value",
                meaning: "The headers the published message must carry, exactly, as native AMQP field-table values: a JSON string is a string; a JSON integer is an integer of any width with that value, never a string or a float (`x-schema-version`, `x-attempts`).",
            },
        ],
        steps: &[
            "Hand `envelope_file` to the SDK's RabbitMQ (AMQP 0-9-1) publisher and take the message it would publish (no broker needed).",
            "Its set string basic properties must equal `properties`, and its headers must equal `headers`, AMQP-typed as described. Consume-side attempts handling is not pinned in this section.",
            PROJECTION_BODY,
            REPORT,
        ],
        operations: &["amqp_publish"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
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

//! Section `artemis` (scope artemis, broker-bindings §7): the Artemis (AMQP 1.0) transport.
//!
//! * `property_projection` `{envelope_file, jms_type_annotation, jms_type, correlation_id,
//!   properties}`: produce the fixture; the message annotation named `jms_type_annotation` holds
//!   `jms_type`, the correlation-id is `correlation_id`, the string application properties
//!   equal `properties` exactly, the creation-time is the fixture's `meta.created_at` and the
//!   body is the envelope.
//! * `attempts_reconciliation/*` `{name, body_attempts, delivery_count, expected_attempts}`.
//! * `schema_version_gate/*`: each row as an application property named `property`: a string as
//!   itself, `null` as the key present with a null value, `absent: true` as no key.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::diag::Finding;
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{ArtemisConsume, DeliveryCountReconcile, Produce};
use crate::sdk::reference::Broken;
use crate::sdk::wire::Bytes;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch, ensure, quoted, quoted_or, shown_or};
use crate::suite::Scope;

use super::shared::contract::{
    ABSENT, BODY_ATTEMPTS, DESCRIPTION, ENVELOPE_FILE, EXPECT, EXPECTED_ATTEMPTS, GATE, GATE_RULE, NAME, PROJECTION_BODY,
    RECONCILE, REPORT, value,
};
use super::BindingCase;
use super::shared::{Carries, RowValue, body_is_envelope, exact_map, golden, projection_fixture};

/// The `artemis` section.
pub struct Artemis;

/// The projection's expectations.
pub struct Projection<'s> {
    fixture: Fixture<'s>,
    annotation: &'s str,
    jms_type: &'s str,
    correlation_id: &'s str,
    properties: &'s Map<String, Value>,
}

/// An artemis case (the count is `delivery_count`).
pub type Case<'s> = BindingCase<'s, Projection<'s>, u32>;

/// Artemis properties are strings that may be null.
const CARRIES: Carries = Carries { null: true, numbers: false };

impl Definition for Artemis {
    const NAME: &'static str = "artemis";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("property_projection", (1, 0, 0)),
        Block::new("attempts_reconciliation", (1, 0, 0)),
        Block::new("schema_version_gate", (1, 1, 0)),
    ];
    const SCOPE: Scope = Scope::Artemis;
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
                name: "jms_type_annotation",
                ty: "string (`property_projection`)",
                meaning: "The name of the message annotation that carries JMSType (`x-opt-jms-type`).",
            },
            Field {
                name: "jms_type",
                ty: "string (`property_projection`)",
                meaning: "The value that annotation must have: the URN.",
            },
            Field {
                name: "correlation_id",
                ty: "string (`property_projection`)",
                meaning: "The AMQP correlation-id the message must have (JMSCorrelationID): the fixture's `trace_id`.",
            },
            Field {
                name: "properties",
                ty: "object: name → string (`property_projection`)",
                meaning: "The application properties the message must carry, exactly, all strings; their names use underscores (`bq_schema_version`) because JMS property names must be Java identifiers (ADR-0017).",
            },
            NAME,
            BODY_ATTEMPTS,
            Field {
                name: "delivery_count",
                ty: "integer (`attempts_reconciliation`)",
                meaning: "The AMQP header's delivery-count (0 on the first delivery; a JMS client reading the 1-based JMSXDeliveryCount subtracts 1 to get it).",
            },
            EXPECTED_ATTEMPTS,
            value(CARRIES),
            ABSENT,
            EXPECT,
        ],
        steps: &[
            "`property_projection`: hand `envelope_file` to the SDK's Artemis (AMQP 1.0) producer and take the message it would send (no broker needed). The annotation `jms_type_annotation` must be `jms_type`, the correlation-id `correlation_id`, the creation-time the fixture's `meta.created_at`, and its application properties must equal `properties`.",
            PROJECTION_BODY,
            RECONCILE,
            "The Artemis rule: attempts = max(`body_attempts`, `delivery_count`), with no −1 (delivery-count starts at 0), so 0 leaves the body's count and a raised count is never lowered.",
            GATE,
            "For Artemis the gate reads the string application property `bq_schema_version`; null is the property set with a null value (treated as absent). A JMS client that cannot set a null property may skip that row (skip rule `no-null-property`, citing ADR-0032).",
            GATE_RULE,
            REPORT,
        ],
        operations: &["artemis_produce", "artemis_reconcile", "artemis_consume"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let projection = |r: &mut Reader<'s>| {
            let (at, fixture) = projection_fixture(r)?;
            let annotation = r.str(&at, "jms_type_annotation");
            let jms_type = r.str(&at, "jms_type");
            r.expects(&at, "jms_type");
            let correlation_id = r.str(&at, "correlation_id");
            r.expects(&at, "correlation_id");
            let properties = golden(r, &at, "properties");
            Some(Projection {
                fixture,
                annotation: annotation?,
                jms_type: jms_type?,
                correlation_id: correlation_id?,
                properties: properties?,
            })
        };
        Case::read(r, projection, |r, at| r.u32(at, "delivery_count"))
    }

    fn check<'s>(cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        Case::check(cx, Self::NAME, CARRIES, cases, out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::Projection(p) => projection(cx, p).into(),
            Case::Reconciliation(c) => {
                c.verdict(cx.sdk.artemis_reconcile(DeliveryCountReconcile {
                    body_attempts: c.body_attempts,
                    delivery_count: c.count,
                }))
            }
            Case::Gate(row) => row.run(cx, |cx, property, value, body| {
                let mut application_properties = BTreeMap::new();
                let how = match value {
                    RowValue::Absent => "no property",
                    RowValue::Null => {
                        application_properties.insert(property.to_owned(), None);
                        "property with a null value"
                    }
                    RowValue::Text(s) => {
                        application_properties.insert(property.to_owned(), Some(s.clone()));
                        "string property"
                    }
                    other => return Err(format!("an Artemis string property cannot carry {}", other.described())),
                };
                let request = ArtemisConsume { body: Bytes::from(body), application_properties, delivery_count: 0 };
                Ok(vec![(how.into(), cx.sdk.artemis_consume(request).map_err(|e| e.to_string())?)])
            }),
        }
    }
}

fn projection(cx: &mut RunCx<'_>, p: &Projection<'_>) -> Check {
    let msg = cx.sdk.artemis_produce(Produce { body: Bytes::from(p.fixture.bytes) }).map_err(|e| e.to_string())?;
    let got_type = msg.message_annotations.get(p.annotation);
    ensure(got_type.map(String::as_str) == Some(p.jms_type), || {
        format!(
            "annotation {} is {}, expected {}",
            quoted(p.annotation),
            quoted_or(got_type.map(String::as_str), "absent"),
            quoted(p.jms_type)
        )
    })?;
    ensure(msg.correlation_id.as_deref() == Some(p.correlation_id), || {
        format!(
            "correlation-id {}, expected {}",
            quoted_or(msg.correlation_id.as_deref(), "absent"),
            quoted(p.correlation_id)
        )
    })?;
    let got: Map<String, Value> = msg
        .application_properties
        .iter()
        .map(|(k, v)| (k.clone(), v.as_deref().map_or(Value::Null, Value::from)))
        .collect();
    exact_map("application properties", p.properties, &got)?;
    let created = p.fixture.json.pointer("/meta/created_at").and_then(Value::as_i64);
    ensure(msg.creation_time == created, || {
        format!(
            "creation-time {}, expected meta.created_at {}",
            shown_or(msg.creation_time, "absent"),
            shown_or(created, "absent")
        )
    })?;
    body_is_envelope("body", &p.fixture, msg.body.as_slice())
}

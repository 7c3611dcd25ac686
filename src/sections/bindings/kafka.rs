//! Section `kafka` (scope kafka, broker-bindings §6): the Kafka transport.
//!
//! * `property_projection` `{envelope_file, headers}`: produce the fixture on its `meta.queue`;
//!   each header read as UTF-8 text, the headers equal `headers` exactly (a repeated or null
//!   header fails); the record value is the envelope and the record timestamp is the fixture's
//!   `meta.created_at`.
//! * `attempts_reconciliation/*` `{name, body_attempts, header_attempts: integer | null,
//!   expected_attempts}`: a record whose `bq-attempts` header holds `header_attempts` (null: no
//!   such header) and whose body has `body_attempts`.
//! * `schema_version_gate/*`: each row as a header named `property`: a string as its UTF-8
//!   bytes, `null` as a header present with a null value, `absent: true` as no header.

use serde_json::{Map, Value};

use crate::diag::Finding;
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{KafkaConsume, KafkaProduce, KafkaReconcile};
use crate::sdk::reference::Broken;
use crate::sdk::wire::{Bytes, KafkaHeader, KafkaRecord};
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch, catch_only, ensure, quoted, shown_or};
use crate::suite::Scope;

use super::shared::contract::{
    ABSENT, BODY_ATTEMPTS, DESCRIPTION, ENVELOPE_FILE, EXPECT, EXPECTED_ATTEMPTS, GATE, GATE_RULE, NAME, PROJECTION_BODY,
    RECONCILE, REPORT, value,
};
use super::BindingCase;
use super::shared::{Carries, RowValue, body_is_envelope, exact_map, golden, projection_fixture};

/// The attempts header.
pub(crate) const ATTEMPTS: &str = "bq-attempts";

/// The `kafka` section.
pub struct Kafka;

/// The projection block: the fixture and the golden `headers`.
pub struct Projection<'s> {
    fixture: Fixture<'s>,
    headers: &'s Map<String, Value>,
}

/// A kafka case (the count is `header_attempts`, or null).
pub type Case<'s> = BindingCase<'s, Projection<'s>, Option<u64>>;

/// Kafka headers are bytes that may be null; numbers are not carried natively.
const CARRIES: Carries = Carries { null: true, numbers: false };

impl Definition for Kafka {
    const NAME: &'static str = "kafka";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("property_projection", (1, 0, 0)),
        Block::new("attempts_reconciliation", (1, 0, 0)),
        Block::new("schema_version_gate", (1, 1, 0)),
    ];
    const SCOPE: Scope = Scope::Kafka;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::GateTrims, &["schema_version_gate/9"]),
        catch(Broken::GateUnicodeBlank, &["schema_version_gate/12", "schema_version_gate/14"]),
        catch_only(Broken::KafkaAttemptsMax, &["attempts_reconciliation/header-authoritative-overrides"]),
        catch_only(Broken::KafkaHeaderNullStringified, &["schema_version_gate/18"]),
    ];
    const EARLY: bool = true;
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            DESCRIPTION,
            ENVELOPE_FILE,
            Field {
                name: "headers",
                ty: "object: header key → string (`property_projection`)",
                meaning: "The record headers the produced record must carry, exactly, each the UTF-8 bytes of the string shown (numbers as decimal text); no header repeated, none with a null value.",
            },
            NAME,
            BODY_ATTEMPTS,
            Field {
                name: "header_attempts",
                ty: "integer or null (`attempts_reconciliation`)",
                meaning: "The record's `bq-attempts` header, whose bytes are this number's decimal text (null: the record has no such header).",
            },
            EXPECTED_ATTEMPTS,
            value(CARRIES),
            ABSENT,
            EXPECT,
        ],
        steps: &[
            "`property_projection`: hand `envelope_file` to the SDK's Kafka producer for the topic `meta.queue` and take the record it would send (no broker needed). Its headers, read as UTF-8 text, must equal `headers`, and its timestamp must be the fixture's `meta.created_at` (Unix milliseconds).",
            PROJECTION_BODY,
            RECONCILE,
            "The Kafka rule: attempts = the `bq-attempts` header when the record has it, else `body_attempts`. Kafka has no delivery count of its own, so the header is authoritative: it is not a max, and a header lower than the body wins.",
            GATE,
            "For Kafka the gate reads a record header: a string `value` is a header with those UTF-8 bytes, null a header present with a null value (which the gate treats as absent; a writer must never turn it into the text `null`). A message API that cannot carry a null header may skip that row (skip rule `no-null-property`, citing ADR-0032).",
            GATE_RULE,
            REPORT,
        ],
        operations: &["kafka_produce", "kafka_reconcile", "kafka_consume"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let projection = |r: &mut Reader<'s>| {
            let (at, fixture) = projection_fixture(r)?;
            Some(Projection { fixture, headers: golden(r, &at, "headers")? })
        };
        Case::read(r, projection, |r, at| r.u64_or_null(at, "header_attempts"))
    }

    fn check<'s>(cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        Case::check(cx, Self::NAME, CARRIES, cases, out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::Projection(p) => projection(cx, p.fixture, p.headers).into(),
            Case::Reconciliation(c) => {
                let headers = c.count.map(|n| KafkaHeader::text(ATTEMPTS, &n.to_string())).into_iter().collect();
                c.verdict(cx.sdk.kafka_reconcile(KafkaReconcile { body_attempts: c.body_attempts, headers }))
            }
            Case::Gate(row) => row.run(cx, |cx, property, value, body| {
                let (how, headers) = match value {
                    RowValue::Absent => ("no header", vec![]),
                    RowValue::Null => {
                        ("header with a null value", vec![KafkaHeader { key: property.to_owned(), value: None }])
                    }
                    RowValue::Text(s) => ("UTF-8 header", vec![KafkaHeader::text(property, s)]),
                    other => return Err(format!("a Kafka header cannot carry {}", other.described())),
                };
                let record =
                    KafkaRecord { topic: "orders".into(), value: Some(Bytes::from(body)), headers, timestamp: Some(0) };
                Ok(vec![(how.into(), cx.sdk.kafka_consume(KafkaConsume { record }).map_err(|e| e.to_string())?)])
            }),
        }
    }
}

fn projection(cx: &mut RunCx<'_>, fixture: Fixture<'_>, want: &Map<String, Value>) -> Check {
    let topic = fixture.json.pointer("/meta/queue").and_then(Value::as_str).unwrap_or("default");
    let rec = cx
        .sdk
        .kafka_produce(KafkaProduce { body: Bytes::from(fixture.bytes), topic: topic.to_owned() })
        .map_err(|e| e.to_string())?;
    let mut got = Map::new();
    for h in &rec.headers {
        let bytes = h.value.as_ref().ok_or_else(|| format!("header {} has a null value", quoted(&h.key)))?;
        let text = std::str::from_utf8(bytes.as_slice()).map_err(|_| format!("header {} is not UTF-8", quoted(&h.key)))?;
        ensure(got.insert(h.key.clone(), Value::from(text)).is_none(), || format!("header {} is repeated", quoted(&h.key)))?;
    }
    exact_map("headers", want, &got)?;
    let value = rec.value.as_ref().ok_or("the record is a tombstone")?;
    body_is_envelope("record value", &fixture, value.as_slice())?;
    let created = fixture.json.pointer("/meta/created_at").and_then(Value::as_i64);
    ensure(rec.timestamp == created, || {
        format!(
            "record timestamp {}, expected meta.created_at {}",
            shown_or(rec.timestamp, "absent"),
            shown_or(created, "absent")
        )
    })
}

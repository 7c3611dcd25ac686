//! Section `kafka` (broker-bindings §6): the Kafka transport of the reference core.
//!
//! * `property_projection`: produce `envelope_file`; each header is read as UTF-8 text, and the
//!   headers equal `headers` exactly (a repeated or null header fails); the record value is the
//!   envelope and the record timestamp is the fixture's `meta.created_at`.
//! * `attempts_reconciliation/*`: a record whose `bq-attempts` header holds `header_attempts`
//!   (null: no such header) and whose body has `body_attempts`; compare with
//!   `expected_attempts`.
//! * `schema_version_gate/*`: each row as a header named `property`, written through the core's
//!   header writer: a string as its UTF-8 bytes, `null` as a header present with a null value,
//!   `absent: true` as no header.

use serde_json::{Map, Value};

use crate::core::bindings::kafka::{self, ATTEMPTS, ConsumerRecord, Headers};
use crate::suite::CaseRef;

use super::binding::{RowValue, block, block_envelope, body_is_envelope, exact_map, gate_row};
use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The `kafka` runner.
pub struct Kafka;

impl SectionRunner for Kafka {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        match case.sub {
            Some("property_projection") => projection(cx, block(cx, case)).into(),
            Some("attempts_reconciliation") => reconciliation(case.value).into(),
            Some("schema_version_gate") => gate_row(cx, case, |property, value, body| {
                let mut headers = Headers::new();
                let how = match value {
                    RowValue::Absent => "no header",
                    RowValue::Null => {
                        headers.add(property, None);
                        "header with a null value"
                    }
                    RowValue::Text(s) => {
                        headers.add_str(property, s);
                        "UTF-8 header"
                    }
                    other => return Err(format!("a Kafka header cannot carry {other:?}")),
                };
                let rec = ConsumerRecord { topic: "orders".into(), value: Some(body.to_vec()), headers, timestamp: 0 };
                Ok(vec![(how.into(), kafka::consume(&rec))])
            }),
            other => {
                Outcome::fail(format!("block {other:?} of section kafka is not implemented by the reference core"))
            }
        }
    }
}

fn projection(cx: &RunCx<'_>, block: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let topic = env.meta.queue().unwrap_or("default").to_owned();
    let rec = kafka::record(&env, &topic).map_err(|e| e.to_string())?;
    let mut got = Map::new();
    for h in rec.headers.iter() {
        let bytes = h.value.as_deref().ok_or_else(|| format!("header {:?} has a null value", h.key))?;
        let text = std::str::from_utf8(bytes).map_err(|_| format!("header {:?} is not UTF-8", h.key))?;
        ensure(got.insert(h.key.clone(), Value::from(text)).is_none(), || format!("header {:?} is repeated", h.key))?;
    }
    exact_map("headers", fields::object(block, "headers")?, &got)?;
    body_is_envelope("record value", &env, &rec.value)?;
    let created = env.meta.created_at().and_then(|n| i64::try_from(n).ok());
    ensure(rec.timestamp == created, || {
        format!("record timestamp {:?}, expected meta.created_at {created:?}", rec.timestamp)
    })
}

fn reconciliation(case: &Value) -> Check {
    let body = fields::u64(case, "body_attempts")?;
    let mut headers = Headers::new();
    match fields::req(case, "header_attempts")? {
        Value::Null => {}
        v => headers.add_str(ATTEMPTS, &v.as_u64().ok_or("header_attempts is not an integer or null")?.to_string()),
    }
    let want = fields::u64(case, "expected_attempts")?;
    let got = kafka::reconcile_attempts(body, &headers);
    ensure(got == want, || format!("attempts {got}, expected {want}"))
}

//! Section `sqs` (broker-bindings §3): the SQS transport of the reference core.
//!
//! * `attribute_projection`: send `envelope_file` and compare the request's MessageAttributes,
//!   as `{DataType, StringValue}`, with `message_attributes` exactly; the body is the envelope.
//! * `attempts_reconciliation/*`: reconcile `body_attempts` with the text
//!   `approximate_receive_count` (null = absent) and compare with `expected_attempts`.
//! * `schema_version_gate/*`: each row as a String attribute named `property` (absent: none),
//!   consumed with the `fixture` as body (see [`super::binding`]).

use serde_json::{Map, Value};

use crate::core::bindings::sqs::{self, MessageAttributeValue, MessageAttributes, ReceivedMessage, SqsQueue};
use crate::suite::CaseRef;

use super::binding::{block, block_envelope, body_is_envelope, exact_map, gate_row, text_only};
use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// A queue URL for requests whose queue does not matter to the case.
pub(super) const STANDARD_QUEUE: &str = "https://sqs.us-east-1.amazonaws.com/000000000000/bqsuite";
/// The FIFO counterpart of [`STANDARD_QUEUE`].
pub(super) const FIFO_QUEUE: &str = "https://sqs.us-east-1.amazonaws.com/000000000000/bqsuite.fifo";

/// The `sqs` runner.
pub struct Sqs;

impl SectionRunner for Sqs {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        match case.sub {
            Some("attribute_projection") => projection(cx, block(cx, case)).into(),
            Some("attempts_reconciliation") => reconciliation(case.value).into(),
            Some("schema_version_gate") => gate_row(cx, case, |property, value, body| {
                let mut attributes = MessageAttributes::new();
                if let Some(text) = text_only("SQS", value)? {
                    attributes.insert(property.to_owned(), MessageAttributeValue::string(text));
                }
                let msg = ReceivedMessage {
                    receipt_handle: "receipt-1".into(),
                    body: String::from_utf8(body.to_vec()).map_err(|_| "the fixture is not UTF-8")?,
                    message_attributes: attributes,
                    approximate_receive_count: Some("1".into()),
                };
                Ok(vec![("String attribute".into(), sqs::consume(&msg))])
            }),
            other => Outcome::fail(format!("block {other:?} of section sqs is not implemented by the reference core")),
        }
    }
}

/// An attribute as the manifest writes it.
fn attribute_json(a: &MessageAttributeValue) -> Value {
    let mut m = Map::new();
    m.insert("DataType".into(), a.data_type.as_str().into());
    if let Some(s) = &a.string_value {
        m.insert("StringValue".into(), s.as_str().into());
    }
    if let Some(b) = &a.binary_value {
        use base64::Engine as _;
        m.insert("BinaryValue".into(), base64::engine::general_purpose::STANDARD.encode(b).into());
    }
    Value::Object(m)
}

fn projection(cx: &RunCx<'_>, block: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let want = fields::object(block, "message_attributes")?;
    let req = sqs::send_message(&SqsQueue::new(STANDARD_QUEUE), &env, None).map_err(|e| e.to_string())?;
    let got: Map<String, Value> = req.message_attributes.iter().map(|(k, v)| (k.clone(), attribute_json(v))).collect();
    exact_map("MessageAttributes", want, &got)?;
    body_is_envelope("message body", &env, req.message_body.as_bytes())
}

fn reconciliation(case: &Value) -> Check {
    let body = fields::u64(case, "body_attempts")?;
    let count = fields::opt_str(case, "approximate_receive_count")?;
    let want = fields::u64(case, "expected_attempts")?;
    let got = sqs::reconcile_attempts(body, count);
    ensure(got == want, || format!("attempts {got}, expected {want}"))
}

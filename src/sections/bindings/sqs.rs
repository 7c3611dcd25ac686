//! Section `sqs` (scope sqs, broker-bindings §3): the SQS transport.
//!
//! * `attribute_projection` `{envelope_file, message_attributes}`: send the fixture; the
//!   request's MessageAttributes, as `{DataType, StringValue}`, equal `message_attributes`
//!   exactly, and the body is the envelope.
//! * `attempts_reconciliation/*` `{name, body_attempts, approximate_receive_count: string |
//!   null, expected_attempts}`: the reconciled attempts equal `expected_attempts`.
//! * `schema_version_gate/*`: each row as a String attribute named `property` (absent: none),
//!   consumed with the `fixture` as body.

use serde_json::{Map, Value};

use crate::diag::Finding;
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{SqsConsume, SqsReconcile, SqsSend, SqsSendOutcome};
use crate::sdk::reference::Broken;
use crate::sdk::wire::{Bytes, SqsAttribute, SqsQueueKind};
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch};
use crate::suite::Scope;

use super::shared::contract::{
    ABSENT, BODY_ATTEMPTS, DESCRIPTION, ENVELOPE_FILE, EXPECT, EXPECTED_ATTEMPTS, GATE, GATE_RULE, NAME, PROJECTION_BODY,
    RECONCILE, REPORT, value,
};
use super::BindingCase;
use super::shared::{Carries, body_is_envelope, exact_map, golden, projection_fixture, text_only};

/// The `sqs` section.
pub struct Sqs;

/// The projection block: the fixture and the golden `message_attributes`.
pub struct Projection<'s> {
    fixture: Fixture<'s>,
    attributes: &'s Map<String, Value>,
}

/// An sqs case (the count is the text `approximate_receive_count`, or null).
pub type Case<'s> = BindingCase<'s, Projection<'s>, Option<&'s str>>;

/// What the SQS schema-version attribute can carry: strings only.
const CARRIES: Carries = Carries { null: false, numbers: false };

impl Definition for Sqs {
    const NAME: &'static str = "sqs";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[
        Block::new("attribute_projection", (1, 0, 0)),
        Block::new("attempts_reconciliation", (1, 0, 0)),
        Block::new("schema_version_gate", (1, 1, 0)),
    ];
    const SCOPE: Scope = Scope::Sqs;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::GateTrims, &["schema_version_gate/9"]),
        catch(Broken::GateUnicodeBlank, &["schema_version_gate/12", "schema_version_gate/14"]),
        catch(
            Broken::SqsAttemptsNoMinusOne,
            &["attempts_reconciliation/first-delivery", "attempts_reconciliation/third-delivery"],
        ),
    ];
    const EARLY: bool = true;
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            DESCRIPTION,
            ENVELOPE_FILE,
            Field {
                name: "message_attributes",
                ty: "object: attribute name → `{DataType, StringValue}` (`attribute_projection`)",
                meaning: "The MessageAttributes the send request must carry, exactly: identifiers and strings with DataType `String`, counters with DataType `Number` whose StringValue is the decimal text.",
            },
            NAME,
            BODY_ATTEMPTS,
            Field {
                name: "approximate_receive_count",
                ty: "string or null (`attempts_reconciliation`)",
                meaning: "The message's ApproximateReceiveCount attribute as SQS delivers it, as text (null: absent).",
            },
            EXPECTED_ATTEMPTS,
            value(CARRIES),
            ABSENT,
            EXPECT,
        ],
        steps: &[
            "`attribute_projection`: hand `envelope_file` to the SDK's SQS producer for a standard queue without delay and take the SendMessage request it builds (no broker needed). Its MessageAttributes, each as `{DataType, StringValue}`, must equal `message_attributes`.",
            PROJECTION_BODY,
            RECONCILE,
            "The SQS rule: attempts = max(`body_attempts`, ApproximateReceiveCount − 1), so a first delivery (count `1`) reads 0; a null or unparseable count is ignored (attempts = `body_attempts`), and a count already raised in the body is never lowered. A drop-in driver that reports the broker's own count instead may skip these rows (skip rule `native-receive-count`, citing ADR-0032).",
            GATE,
            "For SQS the gate reads a String message attribute, so every row's `value` is handed over as a String attribute (an ApproximateReceiveCount of `1` beside it).",
            GATE_RULE,
            REPORT,
        ],
        operations: &["sqs_send", "sqs_reconcile", "sqs_consume"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let projection = |r: &mut Reader<'s>| {
            let (at, fixture) = projection_fixture(r)?;
            Some(Projection { fixture, attributes: golden(r, &at, "message_attributes")? })
        };
        Case::read(r, projection, |r, at| r.str_or_null(at, "approximate_receive_count"))
    }

    fn check<'s>(cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        Case::check(cx, Self::NAME, CARRIES, cases, out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::Projection(p) => projection(cx, p.fixture, p.attributes).into(),
            Case::Reconciliation(c) => c.verdict(cx.sdk.sqs_reconcile(SqsReconcile {
                body_attempts: c.body_attempts,
                approximate_receive_count: c.count.map(str::to_owned),
            })),
            Case::Gate(row) => row.run(cx, |cx, property, value, body| {
                let mut message_attributes = std::collections::BTreeMap::new();
                let text = text_only("SQS", value)?;
                let how = if text.is_some() { "String attribute" } else { "no attribute" };
                if let Some(text) = text {
                    message_attributes.insert(property.to_owned(), SqsAttribute::string(text));
                }
                let request = SqsConsume {
                    body: Bytes::from(body),
                    message_attributes,
                    approximate_receive_count: Some("1".into()),
                };
                Ok(vec![(how.into(), cx.sdk.sqs_consume(request).map_err(|e| e.to_string())?)])
            }),
        }
    }
}

fn projection(cx: &mut RunCx<'_>, fixture: Fixture<'_>, want: &Map<String, Value>) -> Check {
    let request = SqsSend { body: Bytes::from(fixture.bytes), queue: SqsQueueKind::Standard, delay_seconds: None };
    let (body, attributes) = match cx.sdk.sqs_send(request).map_err(|e| e.to_string())? {
        SqsSendOutcome::Sent { message_body, message_attributes, .. } => (message_body, message_attributes),
        SqsSendOutcome::Raised { message } => return Err(format!("the send raised: {message}")),
    };
    let got: Map<String, Value> =
        attributes.iter().map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null))).collect();
    exact_map("MessageAttributes", want, &got)?;
    body_is_envelope("message body", &fixture, body.as_bytes())
}

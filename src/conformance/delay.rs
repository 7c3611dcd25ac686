//! Section `delay` (broker-bindings §3.4–§3.5, decisions R10, scope sqs).
//!
//! * `send/*`: send the block's `envelope_file` to a `queue` (`standard` or `fifo`) with a delay
//!   of `delay_seconds`. `expect: "send"` — the request's DelaySeconds is `expect_delay_seconds`
//!   (null: none) and the body is the envelope; `expect: "raise"` — the send fails.
//! * `release/*`: release a received message of the block's `envelope_file` on `queue` after
//!   `delay_seconds`. `expect: "release"` — ChangeMessageVisibility with VisibilityTimeout
//!   `expect_visibility_timeout`; `expect: "raise"` — the release fails.

use serde_json::Value;

use crate::core::bindings::sqs::{self, MessageAttributes, QueueKind, ReceivedMessage, SqsQueue};
use crate::core::envelope;
use crate::suite::CaseRef;

use super::binding::{block, block_envelope, body_is_envelope};
use super::sqs::{FIFO_QUEUE, STANDARD_QUEUE};
use super::{Check, Outcome, RunCx, SectionRunner, ensure, fields};

/// The `delay` runner.
pub struct Delay;

impl SectionRunner for Delay {
    fn run_case(&mut self, cx: &RunCx<'_>, case: &CaseRef<'_>) -> Outcome {
        match case.sub {
            Some("send") => send(cx, block(cx, case), case.value).into(),
            Some("release") => release(cx, block(cx, case), case.value).into(),
            other => {
                Outcome::fail(format!("block {other:?} of section delay is not implemented by the reference core"))
            }
        }
    }
}

fn queue(case: &Value) -> Result<SqsQueue, String> {
    let (url, kind) = match fields::str(case, "queue")? {
        "standard" => (STANDARD_QUEUE, QueueKind::Standard),
        "fifo" => (FIFO_QUEUE, QueueKind::Fifo),
        other => return Err(format!("unknown queue kind {other:?} (standard or fifo)")),
    };
    Ok(SqsQueue { url: url.to_owned(), kind })
}

fn send(cx: &RunCx<'_>, block: &Value, case: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let delay = fields::f64(case, "delay_seconds")?;
    let result = sqs::send_message(&queue(case)?, &env, Some(delay));
    match (fields::str(case, "expect")?, result) {
        ("raise", Err(_)) => Ok(()),
        ("raise", Ok(req)) => {
            Err(format!("expected the send to raise, but it sent DelaySeconds {:?}", req.delay_seconds))
        }
        ("send", Err(e)) => Err(format!("expected a send, but it raised: {e}")),
        ("send", Ok(req)) => {
            let want = match fields::req(case, "expect_delay_seconds")? {
                Value::Null => None,
                v => Some(v.as_u64().ok_or("expect_delay_seconds is not a non-negative integer or null")?),
            };
            let got = req.delay_seconds.map(u64::from);
            ensure(got == want, || format!("DelaySeconds {got:?}, expected {want:?}"))?;
            body_is_envelope("message body", &env, req.message_body.as_bytes())
        }
        (other, _) => Err(format!("unknown expect {other:?} (send or raise)")),
    }
}

fn release(cx: &RunCx<'_>, block: &Value, case: &Value) -> Check {
    let env = block_envelope(cx, block)?;
    let received = ReceivedMessage {
        receipt_handle: "receipt-1".into(),
        body: envelope::encode(&env).map_err(|e| e.to_string())?,
        message_attributes: MessageAttributes::new(),
        approximate_receive_count: Some("1".into()),
    };
    let delay = fields::f64(case, "delay_seconds")?;
    let result = sqs::release(&queue(case)?, &received, delay);
    match (fields::str(case, "expect")?, result) {
        ("raise", Err(_)) => Ok(()),
        ("raise", Ok(req)) => {
            Err(format!("expected the release to raise, but it set VisibilityTimeout {}", req.visibility_timeout))
        }
        ("release", Err(e)) => Err(format!("expected a release, but it raised: {e}")),
        ("release", Ok(req)) => {
            let want = fields::u64(case, "expect_visibility_timeout")?;
            let got = u64::from(req.visibility_timeout);
            ensure(got == want, || format!("VisibilityTimeout {got}, expected {want}"))?;
            ensure(req.receipt_handle == received.receipt_handle, || "the release names another message".into())
        }
        (other, _) => Err(format!("unknown expect {other:?} (release or raise)")),
    }
}

//! Section `delay` (scope sqs, broker-bindings §3.4–§3.5, decisions R10).
//!
//! * `send/*` `{name, queue: standard | fifo, delay_seconds, expect: send | raise,
//!   expect_delay_seconds?: integer | null}` (block: `envelope_file`): send the envelope to a
//!   queue of that kind with a delay of `delay_seconds`. `expect: "send"` — the request's
//!   DelaySeconds is `expect_delay_seconds` (null: none) and the body is the envelope; `expect:
//!   "raise"` — the send raises.
//! * `release/*` `{name, queue, delay_seconds, expect: release | raise,
//!   expect_visibility_timeout?}`: release a received message of the envelope after
//!   `delay_seconds`. `expect: "release"` — ChangeMessageVisibility of that message with
//!   VisibilityTimeout `expect_visibility_timeout`; `expect: "raise"` — the release raises.

use serde_json::Value;

use crate::diag::Code;
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{SqsRelease, SqsReleaseOutcome, SqsSend, SqsSendOutcome};
use crate::sdk::reference::Broken;
use crate::sdk::wire::{Bytes, SqsQueueKind};
use crate::sections::{Block, Catch, Check, Contract, Definition, Field, Fixture, Reader, RunCx, Version, catch, ensure, shown_or};
use crate::suite::Scope;

use super::shared::body_is_envelope;
use super::shared::contract::{PROJECTION_BODY, REPORT};

/// The receipt handle of the message the runner says it received.
const RECEIPT: &str = "receipt-1";

/// The `delay` section.
pub struct Delay;

/// What a case expects.
pub enum Expect {
    Raise,
    /// send: the DelaySeconds (`None`: no DelaySeconds); release: the VisibilityTimeout.
    Done(Option<u64>),
}

/// A delay case.
pub struct Case<'s> {
    release: bool,
    fixture: Fixture<'s>,
    queue: SqsQueueKind,
    delay_seconds: f64,
    expect: Expect,
}

impl Definition for Delay {
    const NAME: &'static str = "delay";
    const SINCE: Version = (1, 5, 0);
    const BLOCKS: &'static [Block] = &[Block::new("send", (1, 5, 0)), Block::new("release", (1, 5, 0))];
    const SCOPE: Scope = Scope::Sqs;
    const CATCHES: &'static [Catch] = &[catch(Broken::SqsDelayClamps, &["send/standard-901-raises"])];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field {
                name: "name",
                ty: "string",
                meaning: "Names the case: its id is `send/<name>` or `release/<name>`.",
            },
            Field {
                name: "queue",
                ty: "string: `standard` or `fifo`",
                meaning: "The kind of SQS queue the transport sends to or releases on.",
            },
            Field {
                name: "delay_seconds",
                ty: "number (may be fractional or negative)",
                meaning: "The delay the application asks for, in seconds, handed to the transport as it is.",
            },
            Field {
                name: "expect",
                ty: "string: `send` or `raise` (`send`), `release` or `raise` (`release`)",
                meaning: "`raise`: the call raises the SDK's error (BabelQueueException) before any request is made. `send` / `release`: the request is made, with the delay below.",
            },
            Field {
                name: "expect_delay_seconds",
                ty: "integer or null (`send`, when `expect` is `send`)",
                meaning: "The SendMessage request's DelaySeconds; null: the request carries no DelaySeconds at all (not 0).",
            },
            Field {
                name: "expect_visibility_timeout",
                ty: "integer (`release`, when `expect` is `release`)",
                meaning: "The VisibilityTimeout of the ChangeMessageVisibility request that releases the message.",
            },
        ],
        steps: &[
            "`send/<name>`: hand the block's `envelope_file` to the SDK's SQS transport to send to a `queue` queue with a delay of `delay_seconds`, and take the SendMessage request it builds (no broker needed). `expect: raise` passes only when the send raises and builds no request. `expect: send` passes when the request's DelaySeconds equals `expect_delay_seconds` (absent for null).",
            "The send rule (decisions R10): standard queue, DelaySeconds = ceil(d) for 0 < d ≤ 900 (a fraction rounds up), none for d ≤ 0, and d > 900 raises (never clamped); FIFO queue, any d > 0 raises (a fraction included), d ≤ 0 sends with no DelaySeconds.",
            PROJECTION_BODY,
            "`release/<name>`: hand the transport a received message of `envelope_file` (with a receipt handle of the runner's choice) on a `queue` queue and ask it to release the message after `delay_seconds`, as after a failed attempt. `expect: raise` passes only when it raises and makes no request. `expect: release` passes when it makes a ChangeMessageVisibility request for that receipt handle (never a delete) with VisibilityTimeout = `expect_visibility_timeout`.",
            "The release rule, the same on both queue kinds: VisibilityTimeout = ceil(d) for 0 < d ≤ 43200 (SQS's 12 hours), 0 for d ≤ 0 (released at once), and d > 43200 raises (never clamped).",
            REPORT,
        ],
        operations: &["sqs_send", "sqs_release"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let release = r.block_name() == "release";
        r.row()?;
        let block = r.block_place();
        let fixture = r.file(&block, "envelope_file");
        let at = r.root();
        r.object(&at)?;
        let name = r.str(&at, "name");
        let queue = r.one_of(&at, "queue", &[("standard", SqsQueueKind::Standard), ("fifo", SqsQueueKind::Fifo)]);
        let delay_seconds = r.f64(&at, "delay_seconds");
        let done = if release { "release" } else { "send" };
        let expect = match r.one_of(&at, "expect", &[(done, true), ("raise", false)]) {
            Some(false) => {
                let claim = if release { "expect_visibility_timeout" } else { "expect_delay_seconds" };
                r.slot_case(&at, || {
                    let mut patch = serde_json::json!({ "expect": done });
                    patch[claim] = Value::from(0);
                    patch
                });
                Some(Expect::Raise)
            }
            Some(true) if release => {
                r.expects(&at, "expect_visibility_timeout");
                r.u64(&at, "expect_visibility_timeout").map(|n| Expect::Done(Some(n)))
            }
            Some(true) => {
                if let Some(p) = r.opt(&at, "expect_delay_seconds") {
                    r.slot(&p, || Value::from(p.value.as_u64().map_or(1, |n| n + 1)));
                }
                let p = r.field(&at, "expect_delay_seconds", "a non-negative integer or null");
                match p.as_ref().map(|p| p.value) {
                    Some(Value::Null) => Some(Expect::Done(None)),
                    Some(v) if v.as_u64().is_some() => Some(Expect::Done(v.as_u64())),
                    Some(v) => {
                        let at = p.map(|p| p.pointer).unwrap_or_default();
                        r.problem(Code::CASE_SHAPE, at, format!("must be a non-negative integer or null, found {v}"));
                        None
                    }
                    None => None,
                }
            }
            None => None,
        };
        if matches!(expect, Some(Expect::Done(_))) {
            r.expects_other(&at, "expect", &[done, "raise"]);
        }
        name?;
        Some(Case { release, fixture: fixture?, queue: queue?, delay_seconds: delay_seconds?, expect: expect? })
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        if case.release { release(cx, case) } else { send(cx, case) }.into()
    }
}

fn send(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let request =
        SqsSend { body: Bytes::from(case.fixture.bytes), queue: case.queue, delay_seconds: Some(case.delay_seconds) };
    match (&case.expect, cx.sdk.sqs_send(request).map_err(|e| e.to_string())?) {
        (Expect::Raise, SqsSendOutcome::Raised { .. }) => Ok(()),
        (Expect::Raise, SqsSendOutcome::Sent { delay_seconds, .. }) => {
            Err(format!("expected the send to raise, but it sent DelaySeconds {}", shown_or(delay_seconds, "none")))
        }
        (Expect::Done(_), SqsSendOutcome::Raised { message }) => {
            Err(format!("expected a send, but it raised: {message}"))
        }
        (Expect::Done(want), SqsSendOutcome::Sent { delay_seconds, message_body, .. }) => {
            let got = delay_seconds.map(u64::from);
            ensure(got == *want, || format!("DelaySeconds {}, expected {}", shown_or(got, "none"), shown_or(*want, "none")))?;
            body_is_envelope("message body", &case.fixture, message_body.as_bytes())
        }
    }
}

fn release(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let request = SqsRelease {
        body: Bytes::from(case.fixture.bytes),
        receipt_handle: RECEIPT.into(),
        queue: case.queue,
        delay_seconds: case.delay_seconds,
    };
    match (&case.expect, cx.sdk.sqs_release(request).map_err(|e| e.to_string())?) {
        (Expect::Raise, SqsReleaseOutcome::Raised { .. }) => Ok(()),
        (Expect::Raise, SqsReleaseOutcome::Released { visibility_timeout, .. }) => {
            Err(format!("expected the release to raise, but it set VisibilityTimeout {visibility_timeout}"))
        }
        (Expect::Done(_), SqsReleaseOutcome::Raised { message }) => {
            Err(format!("expected a release, but it raised: {message}"))
        }
        (Expect::Done(want), SqsReleaseOutcome::Released { receipt_handle, visibility_timeout }) => {
            let got = Some(u64::from(visibility_timeout));
            ensure(got == *want, || format!("VisibilityTimeout {visibility_timeout}, expected {}", shown_or(*want, "none")))?;
            ensure(receipt_handle == RECEIPT, || "the release names another message".into())
        }
    }
}

//! Section `kafka_poison` (scope kafka, broker-bindings §6, ADR-0034 §10, decisions R16).
//!
//! Case: `{name, body | body_base64, expect: ok | no_identity | poison}` — exactly one of `body`
//! (the exact text) and `body_base64` (the exact bytes, standard padded base64). The SDK's
//! Kafka consumer classifies the record value; the verdict must equal `expect`.

use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Classification, KafkaClassify};
use crate::sdk::reference::Broken;
use crate::sdk::wire::Bytes;
use crate::sections::read::body_fields::{BODY, BODY_BASE64};
use crate::sections::{Block, Catch, Check, Contract, Definition, Field, Reader, RunCx, Version, catch, ensure};
use crate::suite::Scope;

/// The `kafka_poison` section.
pub struct KafkaPoison;

/// A kafka_poison case.
pub struct Case {
    body: Vec<u8>,
    expect: Classification,
}

const VERDICTS: [(&str, Classification); 3] =
    [("ok", Classification::Ok), ("no_identity", Classification::NoIdentity), ("poison", Classification::Poison)];

impl Definition for KafkaPoison {
    const NAME: &'static str = "kafka_poison";
    const SINCE: Version = (1, 6, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 6, 0))];
    const SCOPE: Scope = Scope::Kafka;
    const CATCHES: &'static [Catch] = &[catch(Broken::UnicodeWhitespace, &["unicode-space-job-is-an-identity"])];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field {
                name: "name",
                ty: "string, unique in the section",
                meaning: "The case id: the key of the case's outcome in the results file.",
            },
            BODY,
            BODY_BASE64,
            Field {
                name: "expect",
                ty: "string: `ok`, `no_identity` or `poison`",
                meaning: "The classification the SDK's Kafka consumer must reach for that value (defined under What an SDK must do).",
            },
        ],
        steps: &[
            "The record value is the case's body: take its bytes, `body` encoded as UTF-8 or `body_base64` decoded. Nothing else of a Kafka record is involved: no key, no headers, no topic.",
            "Hand exactly those bytes to the SDK's Kafka consumer at the point where it classifies a record value before trusting it, the step that routes poison to the dead-letter topic (broker-bindings §6); a runner calls that classification directly, no broker is needed.",
            "The verdict is `poison`, `no_identity` or `ok`; map the SDK's own names to these. The case passes when the verdict equals `expect`, exactly. Any other verdict is a `fail` whose `reason` names the verdict it got and the one expected (for example \"classified as poison, expected ok\"); an error or exception raised by the classification is a `fail` too, and as it gives no verdict its `reason` is the error's own text.",
            "`ok` is only this classification: do not go on to decode or accept the body (a later rejection of an `ok` body is not this section's concern).",
            "Report every case under `sections.kafka_poison.<name>` as `pass` or `fail`; the skip policy allows no skip in this section.",
        ],
        operations: &["kafka_classify"],
    };
    type Case<'s> = Case;

    fn read(r: &mut Reader<'_>) -> Option<Case> {
        let at = r.root();
        r.object(&at)?;
        let name = r.str(&at, "name");
        let body = r.body(&at);
        let expect = r.one_of(&at, "expect", &VERDICTS);
        r.expects_other(&at, "expect", &["poison", "ok"]);
        name?;
        Some(Case { body: body?, expect: expect? })
    }

    fn run(cx: &mut RunCx<'_>, case: &Case) -> Outcome {
        let mut check = || -> Check {
            let got = cx
                .sdk
                .kafka_classify(KafkaClassify { value: Some(Bytes(case.body.clone())) })
                .map_err(|e| e.to_string())?;
            ensure(got == case.expect, || format!("classified as {}, expected {}", got.as_str(), case.expect.as_str()))
        };
        check().into()
    }
}

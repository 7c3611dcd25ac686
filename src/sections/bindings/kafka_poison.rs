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
use crate::sections::{Catch, Check, Definition, Reader, RunCx, catch, ensure};
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
    const SCOPE: Scope = Scope::Kafka;
    const CATCHES: &'static [Catch] = &[catch(Broken::UnicodeWhitespace, &["unicode-space-job-is-an-identity"])];
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

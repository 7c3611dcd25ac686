//! Section `trim` (scope core): the ASCII trim rule (ADR-0032 §5).
//!
//! Case: mode `make` `{name, description, mode, urn, queue, trace_id?, expect: ok | reject,
//! expect_envelope?, expect_fresh_trace_id?}`, or mode `decode` (the shared decode-verdict
//! case).
//!
//! Runner: mode `make` builds a message with `make(urn, {}, queue, trace_id?)`; `expect:
//! reject` needs make to refuse, `expect: ok` needs it to succeed, and then the encoded output
//! must hold every `expect_envelope` pointer and, with `expect_fresh_trace_id`, a minted UUID
//! trace_id.

use serde_json::{Map, Value};

use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Make, MakeOutcome, Stage};
use crate::sdk::reference::Broken;
use crate::sections::judge::encoded_text;
use crate::sections::{Block, Catch, Check, Contract, Definition, Field, Reader, RunCx, Version, catch, ensure, quoted, quoted_or};
use crate::suite::Scope;

use super::shared::fields::{
    DESCRIPTION, EXPECT_ABSENT_AFTER_REENCODE, EXPECT_AFTER_REENCODE, EXPECT_PRESERVED, EXPECT_URN, EXPECT_WARNINGS,
    FILE, NAME, PER_MESSAGE_MADE, QUEUE, REASON, STEPS, VALID,
};
use super::shared::{DecodeCase, is_uuid_text, parsed, per_message_fields, pointers_hold};

/// The `trim` section.
pub struct Trim;

/// A make case.
pub struct MakeCase<'s> {
    urn: &'s str,
    queue: &'s str,
    trace_id: Option<&'s str>,
    ok: bool,
    expect: Vec<(&'s str, &'s Value)>,
    fresh_trace_id: bool,
}

/// A trim case.
pub enum Case<'s> {
    Make(MakeCase<'s>),
    Decode(DecodeCase<'s>),
}

#[derive(Clone, Copy)]
enum Mode {
    Make,
    Decode,
}

impl Definition for Trim {
    const NAME: &'static str = "trim";
    const SINCE: Version = (1, 5, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 5, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[
        catch(
            Broken::UnicodeWhitespace,
            &[
                "trim-make-nbsp-padded-urn-kept",
                "trim-make-em-space-urn-accepted",
                "trim-make-ideographic-space-padded-trace-id-kept",
                "trim-make-mixed-padding-keeps-non-ascii",
                "trim-decode-nbsp-job-is-not-blank",
                "trim-decode-em-space-urn-is-not-blank",
                "trim-decode-ideographic-space-trace-id-is-not-blank",
            ],
        ),
        catch(
            Broken::NoUrnAlias,
            &["trim-decode-blank-job-space-falls-back-to-urn", "trim-decode-em-space-urn-is-not-blank"],
        ),
        catch(Broken::ReemitTrims, &["trim-decode-padded-job-and-trace-id-reemitted-verbatim"]),
        // Each of the nine characters is pinned on both paths: a make case and a decode case.
        catch(
            Broken::WhitespaceWithoutSpace,
            &["trim-make-urn-space-padded", "trim-decode-blank-job-space-falls-back-to-urn"],
        ),
        catch(
            Broken::WhitespaceWithoutTab,
            &["trim-make-urn-tab-padded", "trim-decode-blank-job-tab-falls-back-to-urn"],
        ),
        catch(Broken::WhitespaceWithoutLf, &["trim-make-urn-lf-padded", "trim-decode-blank-urn-lf-rejected"]),
        catch(Broken::WhitespaceWithoutVt, &["trim-make-trace-id-vt-padded", "trim-decode-blank-trace-id-vt-rejected"]),
        catch(
            Broken::WhitespaceWithoutFf,
            &["trim-make-trace-id-ff-padded", "trim-decode-blank-job-ff-falls-back-to-urn"],
        ),
        catch(Broken::WhitespaceWithoutCr, &["trim-make-trace-id-cr-padded", "trim-decode-blank-trace-id-cr-rejected"]),
        catch(Broken::WhitespaceWithNbsp, &["trim-make-nbsp-padded-urn-kept", "trim-decode-nbsp-job-is-not-blank"]),
        catch(
            Broken::WhitespaceWithEmSpace,
            &["trim-make-em-space-urn-accepted", "trim-decode-em-space-urn-is-not-blank"],
        ),
        catch(
            Broken::WhitespaceWithIdeographicSpace,
            &[
                "trim-make-ideographic-space-padded-trace-id-kept",
                "trim-decode-ideographic-space-trace-id-is-not-blank",
            ],
        ),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            NAME,
            DESCRIPTION,
            Field {
                name: "mode",
                ty: "string: `make` or `decode`",
                meaning: "`make`: build a message with the producer; `decode`: a decode-verdict case on a fixture (the fields `file` to `expect_absent_after_reencode`).",
            },
            Field {
                name: "urn",
                ty: "string (`make`)",
                meaning: "The URN handed to the producer API exactly as written, padding included: make trims the six ASCII whitespace characters from both ends, and only those.",
            },
            QUEUE,
            Field {
                name: "trace_id",
                ty: "string (`make`, optional)",
                meaning: "The trace_id handed to the producer API, padding included (absent: none is passed). Make trims it like the URN; when it is blank, make mints a new one.",
            },
            Field {
                name: "expect",
                ty: "string: `ok` or `reject` (`make`)",
                meaning: "`reject`: the URN is blank, and building the message (make itself, not a later encode) must fail. `ok`: make succeeds.",
            },
            Field {
                name: "expect_envelope",
                ty: "object: JSON pointer → value (`make`, optional)",
                meaning: "For an `ok` case, each pointer holds that value in the encoded, parsed message (such as `/job` the trimmed URN, or a URN padded with non-ASCII spaces kept as it is).",
            },
            Field {
                name: "expect_fresh_trace_id",
                ty: "boolean (`make`, optional)",
                meaning: "`true`: the trace_id input was blank, so the output's trace_id must be a newly minted UUID, 8-4-4-4-12 hexadecimal digits, different from the input; its value is not compared.",
            },
            FILE,
            VALID,
            REASON,
            EXPECT_URN,
            EXPECT_WARNINGS,
            EXPECT_PRESERVED,
            EXPECT_AFTER_REENCODE,
            EXPECT_ABSENT_AFTER_REENCODE,
        ],
        steps: TRIM_STEPS,
        operations: &["decode", "accepts", "reemit", "make"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        match r.one_of(&at, "mode", &[("make", Mode::Make), ("decode", Mode::Decode)])? {
            Mode::Decode => DecodeCase::read(r, &at).map(Case::Decode),
            Mode::Make => {
                let (urn, queue) = (r.str(&at, "urn"), r.str(&at, "queue"));
                let trace_id = r.opt_typed(&at, "trace_id", "a string", false, Value::as_str);
                let ok = r.one_of(&at, "expect", &[("ok", true), ("reject", false)]);
                if ok == Some(false) {
                    r.slot_case(&at, || serde_json::json!({"expect": "ok"}));
                }
                let expect = r.pointer_map(&at, "expect_envelope");
                r.expects_map_entry(&at, "expect_envelope");
                let fresh = r.opt_typed(&at, "expect_fresh_trace_id", "a boolean", false, Value::as_bool);
                Some(Case::Make(MakeCase {
                    urn: urn?,
                    queue: queue?,
                    trace_id: trace_id.ok()?,
                    ok: ok?,
                    expect: expect.ok()?,
                    fresh_trace_id: fresh.ok()? == Some(true),
                }))
            }
        }
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        match case {
            Case::Make(m) => make(cx, m).into(),
            Case::Decode(d) => d.run(cx.sdk).into(),
        }
    }
}

fn make(cx: &mut RunCx<'_>, case: &MakeCase<'_>) -> Check {
    let request = Make { trace_id: case.trace_id.map(str::to_owned), ..Make::new(case.urn, case.queue, Map::new()) };
    let made = cx.sdk.make(request).map_err(|e| e.to_string())?;
    let json = match (case.ok, made) {
        (false, MakeOutcome::Refused { stage: Stage::Make, .. }) => return Ok(()),
        (false, MakeOutcome::Refused { stage: Stage::Encode, message }) => {
            return Err(format!(
                "make accepted the URN {} (encode refused: {message}), expected make to refuse it",
                quoted(case.urn)
            ));
        }
        (false, MakeOutcome::Made { json }) => {
            return Err(format!("make accepted the URN {}, expected it to fail: {json}", quoted(case.urn)));
        }
        (true, MakeOutcome::Refused { message, .. }) => return Err(format!("make failed: {message}")),
        (true, MakeOutcome::Made { json }) => json,
    };
    let out = parsed(&json)?;
    encoded_text(&json, &[], None)?;
    per_message_fields(&out, None)?;
    pointers_hold(&out, &case.expect, "expect_envelope")?;
    if case.fresh_trace_id {
        let got = out.get("trace_id").and_then(Value::as_str).unwrap_or_default();
        ensure(is_uuid_text(got) && Some(got) != case.trace_id, || {
            format!("trace_id {} is not a freshly minted UUID (input {})", quoted(got), quoted_or(case.trace_id, "none"))
        })?;
    }
    Ok(())
}

/// How a trim case runs: the make steps, then the shared decode-verdict steps.
const TRIM_STEPS: &[&str] = &[
    "`make`: call the SDK's producer API with `urn`, `queue`, empty `data` and, when the case has it, `trace_id`. For `expect: reject` the case passes when make refuses (an error or exception while building the message); make succeeding, or only the later encode refusing, fails it.",
    "`make`, `expect: ok`: make must succeed; encode the message, parse the output as JSON and check that every `expect_envelope` pointer holds the same value, and, with `expect_fresh_trace_id`, that `trace_id` is a UUID in 8-4-4-4-12 hexadecimal form other than the input.",
    PER_MESSAGE_MADE,
    "`decode` cases run as steps 5 to 9. Blank means empty or made only of the six ASCII whitespace characters: a blank `job` counts as absent (the identity falls back to `urn`), a blank `urn` is no identity, a blank `trace_id` makes the message invalid. Re-emit never trims: a non-blank `job` or `trace_id` is written back exactly as it came.",
    STEPS[0],
    STEPS[1],
    STEPS[2],
    STEPS[3],
    STEPS[4],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_text() {
        assert!(is_uuid_text("7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b"));
        assert!(!is_uuid_text("7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8"));
        assert!(!is_uuid_text("7b3f9c2ae41d4f889b2a1c0d5e6f7a8b"));
        assert!(!is_uuid_text(" 7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b"));
        assert!(!is_uuid_text(""));
    }
}

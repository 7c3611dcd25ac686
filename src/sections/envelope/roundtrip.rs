//! Section `roundtrip` (scope core): unknown keys survive a re-emit (message-envelope §4, §8;
//! GR-5).
//!
//! Case: `{name, file, expect_attempts, expect_preserved?, expect_after_reencode?,
//! expect_absent_after_reencode?, producer_schema_valid?, apply_dead_letter?: {reason,
//! original_queue}, expect_dead_letter?}`.
//!
//! Runner (spec "roundtrip — unknown keys survive re-emit"): decode `file` — it must be accepted
//! and must not warn — add 1 to attempts, then encode (or, with `apply_dead_letter`, move the
//! message with the SDK's own dead-letter helper and encode that copy), parse the output and
//! check `expect_attempts`, every `expect_preserved` and `expect_after_reencode` pointer, every
//! `expect_absent_after_reencode` pointer, and the `expect_dead_letter` sub-fields of the
//! copy's `dead_letter` block.
//!
//! Reading: `expect_attempts` is a non-negative integer literal (BQ305; R20.3: the published
//! runners read it as an integer, so `1.0` is a retype, not the same value).
//!
//! Cross-checks: the pointer fields against the fixture (BQ805–BQ809), the fixture against the
//! producer schema (BQ801, BQ802).

use serde_json::{Map, Value};

use crate::diag::Finding;
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{DeadLetterMove, ReemitOutcome};
use crate::sdk::reference::Broken;
use crate::sdk::wire::{Bytes, DeadLetterReason};
use crate::sections::judge::{dead_letter_block, encoded_text, same_value};
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch, catch_only, ensure};
use crate::suite::Scope;

use super::shared::fields::{DESCRIPTION, EXPECT_ABSENT_AFTER_REENCODE, EXPECT_AFTER_REENCODE, FILE, NAME};
use super::shared::{ReemitChecks, against_fixture, flagged, named, parsed, producer_schema, reemit, reemitted_fields};

/// The `error` text the runner hands the dead-letter helper (runner-chosen, not asserted).
const DEAD_LETTER_ERROR: &str = "bqsuite roundtrip runner: apply_dead_letter";

/// The `roundtrip` section.
pub struct Roundtrip;

/// A roundtrip case.
pub struct Case<'s> {
    fixture: Fixture<'s>,
    expect_attempts: &'s Value,
    checks: ReemitChecks<'s>,
    flagged: bool,
    /// `apply_dead_letter`: reason and original queue.
    dead_letter: Option<(DeadLetterReason, &'s str)>,
    expect_dead_letter: Option<&'s Map<String, Value>>,
}

const REASONS: [(&str, DeadLetterReason); 3] = [
    ("failed", DeadLetterReason::Failed),
    ("unknown_urn", DeadLetterReason::UnknownUrn),
    ("poison", DeadLetterReason::Poison),
];

impl Definition for Roundtrip {
    const NAME: &'static str = "roundtrip";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 0, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[
        catch(
            Broken::DropUnknownKeys,
            &[
                "unknown-meta-roundtrip",
                "unknown-toplevel-roundtrip",
                "wrong-case-keys-roundtrip",
                "meta-ext-vendor-roundtrip",
                "dead-letter-roundtrip",
            ],
        ),
        catch(Broken::NoUrnAlias, &["urn-only-roundtrip", "blank-ascii-job-urn-fallback"]),
        catch(Broken::EmptyDataAsArray, &["empty-data-roundtrip"]),
        catch_only(Broken::DeadLetterDropsExtras, &["dead-letter-roundtrip"]),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            NAME,
            DESCRIPTION,
            FILE,
            Field {
                name: "expect_attempts",
                ty: "integer",
                meaning: "The `attempts` of the re-emitted output: the fixture's `attempts` plus one, the same number.",
            },
            Field {
                name: "expect_preserved",
                ty: "object: JSON pointer → value",
                meaning: "Each pointer exists in the re-emitted output and holds that value, unchanged from the fixture (an unknown key, a vendor `meta` key, a wrong-case key): a re-emit keeps every key it does not own.",
            },
            EXPECT_AFTER_REENCODE,
            EXPECT_ABSENT_AFTER_REENCODE,
            Field {
                name: "producer_schema_valid",
                ty: "boolean (optional, only `false`)",
                meaning: "`false` marks a consumer-tolerance fixture (such as `urn` without `job`) that fails the producer schema on purpose; the runner treats it like any other case: it must still be accepted and re-emitted. Not compared.",
            },
            Field {
                name: "apply_dead_letter",
                ty: "object `{reason, original_queue}` (optional)",
                meaning: "Instead of a plain encode, move the decoded message (attempts already plus one) with the SDK's own dead-letter helper, the path its worker takes when retries run out, with `reason` (`failed`, `unknown_urn` or `poison`), `original_queue` and an error text of the runner's choice, and run every check on that dead-lettered copy.",
            },
            Field {
                name: "expect_dead_letter",
                ty: "object: `dead_letter` member → value (optional)",
                meaning: "The dead-lettered copy has a `dead_letter` object, and each member named here has that value; its other members (`error`, `exception`, `failed_at`, `attempts`, `lang`) are the SDK's and not compared, but the block has the producer schema's shape (`reason`, `failed_at`, `original_queue` and `attempts` present, `failed_at` and `attempts` integers ≥ 0; `error` and `exception` a string or null and `lang` a string when written).",
            },
        ],
        steps: &[
            "Read the fixture's bytes and decode them with the SDK's consumer: the message must be accepted, and the SDK's decode warnings (its hook for forbidden or dropped keys) must stay silent; a rejection or any warning fails the case.",
            "Add 1 to the message's attempts, as a consumer does before it re-publishes a message.",
            "Encode it with the SDK's producer, or, when the case has `apply_dead_letter`, move it with the SDK's dead-letter helper (with that `reason` and `original_queue`) and encode that copy. An encode that refuses the message fails the case.",
            "Parse the output as JSON. `attempts` must equal `expect_attempts`; every `expect_preserved` and `expect_after_reencode` pointer must hold the same value; no `expect_absent_after_reencode` pointer may exist; with `expect_dead_letter`, the output's `dead_letter` object holds each of its members with the same value. Key order and whitespace of the output are free.",
            super::shared::fields::PER_MESSAGE_REENCODED,
            "Report `pass`, or `fail` with the first difference as `reason` (for example \"attempts is 1, expected 2\").",
        ],
        operations: &["reemit", "dead_letter_move"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        let fixture = r.file(&at, "file");
        let expect_attempts = r.field(&at, "expect_attempts", "the attempts after the re-emit");
        if let Some(p) = &expect_attempts {
            r.expectation(p);
        }
        // An integer literal (R20.3): the published runners read it as an integer.
        let expect_attempts =
            expect_attempts.filter(|_| r.req(&at, "expect_attempts", "a non-negative integer literal", Value::as_u64).is_some());
        let checks = ReemitChecks::read(r, &at);
        let flagged = flagged(r, &at);
        let dead_letter = match r.opt(&at, "apply_dead_letter") {
            None => Some(None),
            Some(p) => {
                r.object(&p);
                let reason = r.one_of(&p, "reason", &REASONS);
                let queue = r.str(&p, "original_queue");
                reason.zip(queue).map(Some)
            }
        };
        let expect_dead_letter = match r.opt(&at, "expect_dead_letter") {
            None => Some(None),
            Some(_) => {
                r.expects_map_entry(&at, "expect_dead_letter");
                r.map(&at, "expect_dead_letter").map(Some)
            }
        };
        Some(Case {
            fixture: fixture?,
            expect_attempts: expect_attempts?.value,
            checks: checks?,
            flagged: flagged?,
            dead_letter: dead_letter?,
            expect_dead_letter: expect_dead_letter?,
        })
    }

    fn check<'s>(cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        for e in cases {
            if let Some(c) = &e.typed {
                against_fixture(&e.case.pointer, &c.fixture, &c.checks, None, out);
            }
        }
        producer_schema(cx, cases, |c| (&c.fixture, c.flagged), out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        check(cx, case).into()
    }
}

fn check(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let file = case.fixture.rel;
    let (out, warnings) = match case.dead_letter {
        None => reemit(cx.sdk, case.fixture.bytes, case.fixture.json, true)?,
        Some((reason, original_queue)) => {
            let moved = cx
                .sdk
                .dead_letter_move(DeadLetterMove {
                    body: Bytes::from(case.fixture.bytes),
                    attempts_plus_one: true,
                    reason,
                    original_queue: original_queue.to_owned(),
                    error: Some(DEAD_LETTER_ERROR.to_owned()),
                })
                .map_err(|e| e.to_string())?;
            match moved {
                ReemitOutcome::Encoded { json, warnings } => {
                    let out = parsed(&json).map_err(|e| format!("the dead-letter copy: {e}"))?;
                    encoded_text(&json, &[("", case.fixture.json)], Some(case.fixture.bytes))
                        .map_err(|e| format!("the dead-letter copy: {e}"))?;
                    reemitted_fields(&out, case.fixture.json).map_err(|e| format!("the dead-letter copy: {e}"))?;
                    dead_letter_block(out.get("dead_letter").unwrap_or(&Value::Null), None)
                        .map_err(|e| format!("the dead-letter copy: {e}"))?;
                    (out, warnings)
                }
                ReemitOutcome::Rejected { message } => return Err(format!("{file} was rejected: {message}")),
                ReemitOutcome::Refused { message } => {
                    return Err(format!("encode refused the dead-letter copy: {message}"));
                }
            }
        }
    };
    ensure(warnings.is_empty(), || {
        format!("decoding {file} warned ({}); a roundtrip decode must not", named(&warnings))
    })?;
    let want = case.expect_attempts;
    let got = out.get("attempts").unwrap_or(&Value::Null);
    ensure(same_value(want, got), || format!("attempts is {got}, expected {want}"))?;
    case.checks.check(&out)?;
    if let Some(want) = case.expect_dead_letter {
        let block =
            out.get("dead_letter").and_then(Value::as_object).ok_or("the output carries no dead_letter object")?;
        for (key, value) in want {
            let got = block.get(key);
            ensure(got.is_some_and(|g| same_value(value, g)), || {
                format!("dead_letter.{key} is {}, expected {value}", got.map_or("absent".to_owned(), Value::to_string))
            })?;
        }
    }
    Ok(())
}

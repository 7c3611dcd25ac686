//! Section `forbidden_keys` (scope core): warn on decode, never emit (message-envelope §10,
//! K-15, ADR-0031 (c)).
//!
//! Case: `{name, file, forbidden_key: <pointer>, expect: "warn", expect_absent_after_reencode,
//! expect_preserved?}`.
//!
//! Runner: decode `file` — it must succeed with at least one warning naming `forbidden_key` —
//! re-encode the decoded message unchanged, parse the output and check that no
//! `expect_absent_after_reencode` pointer exists and every `expect_preserved` pointer (when the
//! case has them) holds its value. A forbidden key captured into the preserved extras would make
//! the SDK's encode refuse the message, so that bug fails the case too.
//!
//! Cross-checks: the pointer fields against the fixture (BQ805–BQ809), the fixture against the
//! producer schema (BQ801, BQ802).

use crate::diag::Finding;
use crate::results::Outcome;
use crate::sdk::reference::Broken;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch, catch_only, ensure};
use crate::suite::Scope;

use super::shared::fields::{DESCRIPTION, EXPECT_ABSENT_AFTER_REENCODE, EXPECT_PRESERVED, FILE, NAME};
use super::shared::{ReemitChecks, against_fixture, flagged, named, producer_schema, reemit};

/// The `forbidden_keys` section.
pub struct ForbiddenKeys;

/// A forbidden_keys case.
pub struct Case<'s> {
    fixture: Fixture<'s>,
    key: &'s str,
    checks: ReemitChecks<'s>,
    flagged: bool,
}

impl Definition for ForbiddenKeys {
    const NAME: &'static str = "forbidden_keys";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 0, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::EmitForbiddenKeys, &["forbidden-key-timestamp", "forbidden-key-meta-ts"]),
        catch_only(
            Broken::SilentForbiddenKeys,
            &[
                "forbidden-key-timestamp",
                "forbidden-key-meta-max-retries",
                "forbidden-key-meta-attempts",
                "forbidden-key-meta-source",
                "forbidden-key-meta-ts",
                "forbidden-key-job-and-urn",
                "forbidden-key-job-nonascii-space-and-urn",
            ],
        ),
        catch(Broken::UnicodeWhitespace, &["forbidden-key-job-nonascii-space-and-urn"]),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            NAME,
            DESCRIPTION,
            FILE,
            Field {
                name: "forbidden_key",
                ty: "string: a JSON pointer",
                meaning: "The non-canonical key the fixture carries (`/timestamp`, `/meta/ts`, or `/urn` beside a usable `job`, …): decode must raise a warning naming exactly this pointer.",
            },
            Field {
                name: "expect",
                ty: "string: always `warn`",
                meaning: "Decode is lenient: it succeeds and warns; it never rejects the message for this key.",
            },
            EXPECT_ABSENT_AFTER_REENCODE,
            EXPECT_PRESERVED,
        ],
        steps: &[
            "Read the fixture's bytes and decode them with the SDK's consumer. Decode must succeed (a rejection fails the case) and raise at least one warning, through the SDK's logger or warning hook, that names the pointer the case's `forbidden_key` holds (a warning whose pointer is exactly `/timestamp`, say; the word `forbidden_key` need not appear); other warnings may be there too. A runner captures the warnings with the hook the SDK offers for it.",
            "Re-encode the decoded message unchanged (no attempt added) with the SDK's producer and parse the output as JSON. An SDK that kept the forbidden key with the unknown keys and so refuses to encode fails the case.",
            "No pointer of `expect_absent_after_reencode` may exist in the output, and each `expect_preserved` pointer, when the case has them, holds the same value (for `/urn` beside `job`: `job` wins and stays).",
            super::shared::fields::PER_MESSAGE_REENCODED,
            "Report `pass`, or `fail` with the first difference as `reason` (for example \"decode raised no warning naming /timestamp\").",
        ],
        operations: &["reemit"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        let fixture = r.file(&at, "file");
        let key = r.field(&at, "forbidden_key", "a pointer").and_then(|p| r.pointer_text(&p));
        let expect = r.one_of(&at, "expect", &[("warn", ())]);
        let checks = ReemitChecks::read(r, &at);
        let flagged = flagged(r, &at);
        expect?;
        Some(Case { fixture: fixture?, key: key?, checks: checks?, flagged: flagged? })
    }

    fn check<'s>(cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        for e in cases {
            if let Some(c) = &e.typed {
                against_fixture(&e.case.pointer, &c.fixture, &c.checks, Some(c.key), out);
            }
        }
        producer_schema(cx, cases, |c| (&c.fixture, c.flagged), out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        check(cx, case).into()
    }
}

fn check(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let (out, warnings) = reemit(cx.sdk, case.fixture.bytes, case.fixture.json, false)?;
    ensure(warnings.iter().any(|w| w.pointer == case.key), || {
        format!("decode raised no warning naming {} (warnings: {})", case.key, named(&warnings))
    })?;
    case.checks.check(&out)
}

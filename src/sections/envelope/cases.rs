//! Section `cases` (scope core): decode each fixture and compare with `expect`.
//!
//! Case: `{name, file, valid, expect?, reason?}` — a valid case carries an `expect` object
//! (BQ302 otherwise), an invalid one a `reason` string (BQ303).
//!
//! Runner (spec "What an SDK must do"): `valid: true` — `accepts` is true, the fixture decodes,
//! the resolved URN equals `expect.urn`, `data`, `attempts`, `meta.lang` and
//! `meta.schema_version` equal their `expect` values (same value, R4), every sub-field of
//! `expect.dead_letter` matches the message's block, and the per-message fields are present
//! with their shape (`meta.id` a non-empty string, `trace_id` not blank, `meta.created_at` a
//! non-negative integer).
//! `valid: false` — `accepts` is false and decode refuses the fixture.
//!
//! Reading: `expect.attempts` and `expect.schema_version` are non-negative integer literals
//! (BQ305; R20.3: the runners decode them into integers, and `0.0` aborts the Go runner).
//!
//! Cross-checks (decisions R20.5, R20.10, what the real SDK runners read): at least six cases
//! (BQ509); every valid case's `expect` has the five fields the runners read (BQ501); every
//! fixture is a non-empty JSON object (BQ502), a valid one with a non-empty `trace_id`,
//! `meta.id` and a non-zero `meta.created_at` (BQ510).

use serde_json::{Map, Value};

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::sdk::Calls;
use crate::sdk::ops::{Accepts, Decode, DecodeOutcome};
use crate::sdk::reference::Broken;
use crate::sdk::wire::Bytes;
use crate::sections::envelope::shared::is_ascii_blank;
use crate::sections::judge::same_value;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Fixture, Reader, RunCx, Version, catch, ensure};
use crate::suite::{MANIFEST, Scope, pointer};

/// The `expect` fields every real SDK runner reads (R20.5).
const EXPECT_FIELDS: [&str; 5] = ["urn", "data", "attempts", "lang", "schema_version"];
/// The `expect` fields the real runners read as integers (R20.3: integer literals, never `1.0`).
const INTEGER_FIELDS: [&str; 2] = ["attempts", "schema_version"];
/// The real runners need at least this many top-level cases (R20.10).
const MIN_CASES: usize = 6;

/// The `cases` section.
pub struct Cases;

/// A top-level case.
pub struct Case<'s> {
    fixture: Fixture<'s>,
    valid: bool,
    expect: Option<&'s Map<String, Value>>,
}

impl Definition for Cases {
    const NAME: &'static str = "cases";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[];
    const SCOPE: Scope = Scope::Core;
    const EARLY: bool = true;
    const CATCHES: &'static [Catch] = &[
        catch(Broken::IgnoreSchemaVersion, &["invalid-unknown-schema-version"]),
        catch(Broken::NoUrnAlias, &["urn-alias"]),
        catch(Broken::DecodeFirstKeyWins, &["duplicate-keys-last-wins"]),
        catch(Broken::DecodeKeysIgnoreCase, &["invalid-wrong-case-job"]),
        catch(Broken::DecodeBytesAsLatin1, &["unicode-and-numbers"]),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            Field { name: "name", ty: "string", meaning: "The case id." },
            Field {
                name: "file",
                ty: "string: a suite-relative path, `fixtures/…`",
                meaning: "The fixture: the message body, exactly the bytes of that file (read them, do not re-serialise them).",
            },
            Field {
                name: "valid",
                ty: "boolean",
                meaning: "`true`: the SDK must accept and decode the fixture; `false`: it must reject it.",
            },
            Field {
                name: "expect",
                ty: "object (when `valid` is true)",
                meaning: "What the consumer derives: `urn` (the resolved identity), `data`, `attempts`, `lang` and `schema_version` (of `meta`), and optionally `dead_letter` (members the message's `dead_letter` block must hold).",
            },
            Field {
                name: "reason",
                ty: "string (when `valid` is false)",
                meaning: "Why the fixture must be rejected, for people; not compared.",
            },
            Field { name: "description", ty: "string", meaning: "What the case pins, for people; not compared." },
        ],
        steps: &[
            "Read the fixture's bytes and ask the SDK's consumer whether it accepts them; that answer must equal `valid`.",
            "Decode the bytes with the SDK's core. A `valid: false` case passes when decode rejects them (and `accepts` said false); decoding them is a fail.",
            "For `valid: true`, decode must succeed, and each of `expect.urn`, `expect.data`, `expect.attempts`, `expect.lang` (against `meta.lang`) and `expect.schema_version` (against `meta.schema_version`) must be the same value as what the decoded message holds; a key absent from `expect` is not compared.",
            "When `expect.dead_letter` is present, the message must carry a `dead_letter` object holding every one of its members with the same value (other members may be there too).",
            "The per-message fields are checked for presence and shape only, not value (the spec: \"asserted for presence/shape, not value\"): `meta.id` a non-empty string, `trace_id` a string that is not blank (not empty nor only the ASCII whitespace of the trim rule), `meta.created_at` a non-negative integer. The message carries them, so no range is asked of `created_at` here; the epoch-milliseconds range of other sections applies to a value an SDK stamps itself.",
            "Report every case under `sections.cases.<name>`: `pass`, or `fail` with the first difference as `reason`. No case of this section may be skipped.",
        ],
        operations: &["decode", "accepts"],
    };
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        let at = r.root();
        r.object(&at)?;
        let name = r.str(&at, "name");
        let fixture = r.file(&at, "file");
        let valid = r.bool(&at, "valid");
        let mut expect = None;
        match valid {
            Some(true) => match r.opt(&at, "expect").filter(|p| p.value.is_object()) {
                Some(p) => {
                    for key in EXPECT_FIELDS {
                        r.expects(&p, key);
                    }
                    // The published runners decode these into integer fields: `0.0` or `1.0`
                    // aborts the Go runner's whole test (R20.3), so they are integer literals.
                    for key in INTEGER_FIELDS {
                        let _ = r.opt_typed(&p, key, "a non-negative integer literal", false, Value::as_u64);
                    }
                    // Any other type would compare nothing (and break the runners that read it).
                    let _ = r.opt_typed(&p, "dead_letter", "an object", false, Value::as_object);
                    r.expects_map_entry(&p, "dead_letter");
                    // A misspelt member (`atempts`) is compared by no runner, so the case would
                    // pin less than it says with nothing failing: the case-field lint, one level in.
                    let known = || EXPECT_FIELDS.into_iter().chain(["dead_letter"]);
                    for key in p.value.as_object().into_iter().flat_map(|o| o.keys()) {
                        if !known().any(|k| k == key.as_str()) {
                            let hint = crate::sections::did_you_mean(key, known());
                            r.lint(
                                Code::CASE_SHAPE,
                                pointer::join(&p.pointer, key),
                                format!("{key:?} is not a member of \"expect\": runners compare only {}, so nothing it says is checked{hint}", known().collect::<Vec<_>>().join(", ")),
                            );
                        }
                    }
                    expect = p.value.as_object();
                }
                None => r.problem(
                    Code::VALID_WITHOUT_EXPECT,
                    &at.pointer,
                    format!("valid case {:?} has no \"expect\" object", r.id),
                ),
            },
            Some(false) if r.opt(&at, "reason").is_none_or(|p| !p.value.is_string()) => r.problem(
                Code::INVALID_WITHOUT_REASON,
                &at.pointer,
                format!("invalid case {:?} has no \"reason\" string", r.id),
            ),
            Some(false) => {
                // The wrong expectation of a rejected fixture: claiming it valid (with an
                // expectation that still reads and is not empty, which BQ308 refuses).
                r.slot(&at, || {
                    let mut wrong = at.value.clone();
                    wrong["valid"] = Value::Bool(true);
                    wrong["expect"] = Value::Object(Map::from_iter([("attempts".to_owned(), Value::from(0))]));
                    wrong
                });
            }
            _ => {}
        }
        name?;
        Some(Case { fixture: fixture?, valid: valid?, expect })
    }

    fn check<'s>(_cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        if cases.len() < MIN_CASES {
            out.push(
                Finding::error(
                    Code::COMPAT_TOO_FEW_CASES,
                    format!("{} top-level cases; keep at least six", cases.len()),
                )
                .in_file(MANIFEST)
                .at("/cases"),
            );
        }
        for e in cases {
            if let Some(c) = &e.typed {
                compat(&e.case.pointer, c, out);
            }
        }
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        check(cx, case).into()
    }
}

fn compat(ptr: &str, c: &Case<'_>, out: &mut Vec<Finding>) {
    for field in EXPECT_FIELDS {
        if c.expect.is_some_and(|e| !e.contains_key(field)) {
            out.push(
                Finding::error(
                    Code::COMPAT_CASE_FIELDS,
                    format!("expect lacks {field:?}, which every SDK runner reads"),
                )
                .in_file(MANIFEST)
                .at(pointer::join(ptr, "expect")),
            );
        }
    }
    let (file, fixture) = (c.fixture.rel, c.fixture.json);
    if fixture.as_object().is_none_or(|o| o.is_empty()) {
        out.push(
            Finding::error(Code::COMPAT_FIXTURE_OBJECT, "a top-level case fixture must be a non-empty JSON object, even when invalid; other shapes belong in newer sections")
                .in_file(file)
                .at(""),
        );
        return;
    }
    if c.valid {
        let non_empty = |p: &str| pointer::get(fixture, p).and_then(Value::as_str).is_some_and(|s| !s.is_empty());
        let created = pointer::get(fixture, "/meta/created_at").and_then(Value::as_f64).is_some_and(|n| n != 0.0);
        for (p, ok) in
            [("/trace_id", non_empty("/trace_id")), ("/meta/id", non_empty("/meta/id")), ("/meta/created_at", created)]
        {
            if !ok {
                let at = if pointer::get(fixture, p).is_some() { p } else { "" };
                out.push(
                    Finding::error(
                        Code::COMPAT_PER_MESSAGE_FIELDS,
                        format!("a valid fixture needs a non-empty, non-zero {p}"),
                    )
                    .in_file(file)
                    .at(at),
                );
            }
        }
    }
}

fn check(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let file = case.fixture.rel;
    let body = Bytes::from(case.fixture.bytes);
    let accepted = cx.sdk.accepts(Accepts { body: body.clone() }).map_err(|e| e.to_string())?;
    ensure(accepted == case.valid, || format!("accepts({file}) is {accepted}, the case says valid: {}", case.valid))?;
    let env = match (case.valid, cx.sdk.decode(Decode { body }).map_err(|e| e.to_string())?) {
        (false, DecodeOutcome::Rejected { .. }) => return Ok(()),
        (false, DecodeOutcome::Decoded { .. }) => {
            return Err(format!("{file} was accepted, but the case says it must be rejected"));
        }
        (true, DecodeOutcome::Rejected { message }) => return Err(format!("{file} was rejected: {message}")),
        (true, DecodeOutcome::Decoded { envelope, .. }) => envelope,
    };
    let expect = case.expect.ok_or("a valid case has an expect object")?;
    let same = |key: &str, actual: &Value| -> Check {
        match expect.get(key) {
            None => Ok(()),
            Some(want) => ensure(same_value(want, actual), || format!("{key}: expected {want}, got {actual}")),
        }
    };
    let meta = |k: &str| env.meta.get(k).cloned().unwrap_or(Value::Null);
    same("urn", &Value::String(env.urn.clone()))?;
    same("data", &Value::Object(env.data.clone()))?;
    same("attempts", &Value::from(env.attempts))?;
    same("lang", &meta("lang"))?;
    same("schema_version", &meta("schema_version"))?;
    if let Some(want) = expect.get("dead_letter").and_then(Value::as_object) {
        let block =
            env.dead_letter.as_ref().and_then(Value::as_object).ok_or("expected a dead_letter block, found none")?;
        for (k, v) in want {
            let got = block.get(k).unwrap_or(&Value::Null);
            ensure(block.get(k).is_some_and(|g| same_value(v, g)), || {
                format!("dead_letter.{k}: expected {v}, got {got}")
            })?;
        }
    }
    // "asserted for presence/shape, not value": what the message carries, so a value the SDK
    // did not stamp itself is held to no range (unlike make's, per_message_fields).
    let shown = |key: &str| env.meta.get(key).map_or_else(|| "absent".to_owned(), Value::to_string);
    let id = meta("id");
    ensure(id.as_str().is_some_and(|s| !s.is_empty()), || format!("meta.id is {}, expected a non-empty string", shown("id")))?;
    ensure(!is_ascii_blank(&env.trace_id), || {
        format!("trace_id is {}, expected a string that is not blank", crate::sections::quoted(&env.trace_id))
    })?;
    let created = meta("created_at");
    ensure(created.as_u64().is_some() || created.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0), || {
        format!("meta.created_at is {}, expected a non-negative integer", shown("created_at"))
    })
}

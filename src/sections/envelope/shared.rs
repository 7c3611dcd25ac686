//! What the envelope behaviour sections share: reading the re-emit checks and the decode
//! verdict case, judging a re-encoded output, and the cross-checks against a case's fixture
//! and the producer schema.
//!
//! Invariants: every expected value comes from the case (or its fixture), never from here;
//! pointers are RFC 6901 and resolved with [`crate::suite::pointer`]; values compare under the
//! contract's "same value" rule ([`same_value`], R4); an optional field is evaluated only when
//! the case carries it; output of the SDK is always checked as parsed JSON, never as bytes (key
//! order and whitespace are free).

use std::collections::HashSet;

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::sdk::ops::{Accepts, Decode, DecodeOutcome, Reemit, ReemitOutcome};
use crate::sdk::wire::{Bytes, Warning};
use crate::sdk::{Calls, Sdk};
use crate::sections::judge::{EPOCH_MS, encoded_text, same_value};
use crate::sections::{Check, CheckCx, Entry, Fixture, Place, Reader, ensure, quoted};
use crate::suite::{MANIFEST, pointer};

/// The pointers named by the warnings, for failure messages.
pub(crate) fn named(warnings: &[Warning]) -> String {
    if warnings.is_empty() {
        return "no warning".to_owned();
    }
    warnings.iter().map(|w| w.pointer.as_str()).collect::<Vec<_>>().join(", ")
}

/// Parse an envelope the SDK wrote. (Its text is judged beyond its value by
/// [`encoded_text`], with what the SDK was given.)
pub(crate) fn parsed(json: &str) -> Result<Value, String> {
    serde_json::from_str(json).map_err(|e| format!("the SDK wrote text that is not JSON ({e}): {json}"))
}

/// The optional pointer fields a re-emit is checked against.
#[derive(Debug, Clone, Default)]
pub struct ReemitChecks<'s> {
    /// `expect_preserved`: each pointer holds the value, unchanged from the fixture.
    pub preserved: Vec<(&'s str, &'s Value)>,
    /// `expect_after_reencode`: each pointer holds the value the re-emit derives.
    pub after: Vec<(&'s str, &'s Value)>,
    /// `expect_absent_after_reencode`: none of these pointers exists.
    pub absent: Vec<&'s str>,
}

impl<'s> ReemitChecks<'s> {
    /// Read the three optional fields of the case at `at`, recording them as expectations.
    pub fn read(r: &mut Reader<'s>, at: &Place<'s>) -> Option<Self> {
        let preserved = r.pointer_map(at, "expect_preserved");
        let after = r.pointer_map(at, "expect_after_reencode");
        let absent = r.pointer_list(at, "expect_absent_after_reencode");
        r.expects_map_entry(at, "expect_preserved");
        r.expects_map_entry(at, "expect_after_reencode");
        if let Some(p) = r.opt(at, "expect_absent_after_reencode") {
            // `/job` is always in a re-emitted envelope, so expecting it absent is wrong.
            r.slot(&p, || {
                let mut wrong = p.value.as_array().cloned().unwrap_or_default();
                wrong.push(Value::from("/job"));
                Value::Array(wrong)
            });
        }
        Some(Self { preserved: preserved.ok()?, after: after.ok()?, absent: absent.ok()?.unwrap_or_default() })
    }

    /// Check a re-emitted output.
    pub fn check(&self, doc: &Value) -> Check {
        pointers_hold(doc, &self.preserved, "expect_preserved")?;
        pointers_hold(doc, &self.after, "expect_after_reencode")?;
        for ptr in &self.absent {
            if let Some(got) = pointer::get(doc, ptr) {
                return Err(format!("expect_absent_after_reencode: {ptr} exists in the output (value {got})"));
            }
        }
        Ok(())
    }
}

/// Every pointer of `want` holds the same value in `doc`.
pub(crate) fn pointers_hold(doc: &Value, want: &[(&str, &Value)], what: &str) -> Check {
    for (ptr, value) in want {
        match pointer::get(doc, ptr) {
            None => return Err(format!("{what}: {ptr} is missing from the output")),
            Some(got) => ensure(same_value(value, got), || format!("{what}: {ptr} is {got}, expected {value}"))?,
        }
    }
    Ok(())
}

/// The non-canonical keys (message-envelope §10, K-15: the `forbidden_keys` section's) that an
/// envelope `make` produces never carries: the fresh envelope has its `job`, so a `urn` beside
/// it is one of them too.
pub(crate) const NON_CANONICAL: [&str; 6] =
    ["/timestamp", "/meta/max_retries", "/meta/attempts", "/meta/source", "/meta/ts", "/urn"];

/// The per-message fields of an envelope an SDK produced (1.6.0: "Per-message fields (meta.id,
/// trace_id, meta.created_at) are intrinsically unique and are asserted for presence/shape, not
/// value"). The shape is the suite's ruling, stated in the descriptions of the sections that
/// produce envelopes: `meta.id` is a non-empty string; `trace_id` is a string that is not blank
/// (empty or only the ASCII six, the decode rule); `meta.created_at` is an integer count of Unix
/// epoch milliseconds at least 10^12 and below 10^13 (2001-09-09 to 2286-11-20), so a count of
/// seconds, 0, a small constant, or a count of microseconds or nanoseconds is not a production
/// time.
///
/// `input` is `None` for `make`: all three must be there in shape; besides, `meta.id` is a UUID
/// in 8-4-4-4-12 hexadecimal form (the producer schema's `format: uuid`) and not the
/// `trace_id` (the idempotency key is "distinct from trace_id": every message of one trace
/// would collapse into one) and `meta.lang` is a non-empty string (the producer schema requires
/// it; its value, the SDK's language, is not compared); and it carries none of the
/// [`NON_CANONICAL`] keys.
///
/// `input` is the parsed input of a re-encode or dead-letter move otherwise: then each field the
/// input carries in shape is written with the input's value (meta is immutable and the trace id
/// is forwarded unchanged, so a re-encode mints none of them), and a field the input lacks, or
/// carries out of shape, is not required.
pub(crate) fn per_message_fields(doc: &Value, input: Option<&Value>) -> Check {
    type Shape = fn(&Value) -> bool;
    let fields: [(&str, Shape, &str); 3] = [
        ("/meta/id", |v| v.as_str().is_some_and(|s| !s.is_empty()), "a non-empty string"),
        ("/trace_id", |v| v.as_str().is_some_and(|s| !is_ascii_blank(s)), "a string that is not blank"),
        (
            "/meta/created_at",
            |v| v.as_u64().is_some_and(|n| EPOCH_MS.contains(&n)),
            "an integer of epoch milliseconds >= 10^12 and < 10^13",
        ),
    ];
    for (ptr, shape, what) in fields {
        let kept = match input {
            None => None,
            Some(i) => match pointer::get(i, ptr).filter(|v| shape(v)) {
                None => continue,
                Some(v) => Some(v),
            },
        };
        let got =
            pointer::get(doc, ptr).ok_or_else(|| format!("per-message field {ptr} is missing from the output"))?;
        match kept {
            None => ensure(shape(got), || format!("per-message field {ptr} is {got}, expected {what}"))?,
            Some(want) => ensure(same_value(want, got), || {
                format!(
                    "per-message field {ptr} is {got}, not the input's {want}: a re-encode keeps the message's own value"
                )
            })?,
        }
    }
    if input.is_none() {
        // K-15: "encoding never emits the key"; every consumer would warn on every message.
        if let Some(k) = NON_CANONICAL.iter().find(|k| pointer::get(doc, k).is_some()) {
            return Err(format!("the made envelope carries {k}, a non-canonical key that encoding never emits (K-15)"));
        }
        let (id, trace) = (pointer::get(doc, "/meta/id"), pointer::get(doc, "/trace_id"));
        ensure(id != trace, || "meta.id is the trace_id: the per-message id must be the message's own".to_owned())?;
        // The producer schema's `format: uuid`, as every published SDK mints it.
        let id = id.and_then(Value::as_str).unwrap_or_default();
        ensure(is_uuid_text(id), || {
            format!("meta.id is {}, expected a UUID (8-4-4-4-12 hexadecimal digits)", quoted(id))
        })?;
        let lang = pointer::get(doc, "/meta/lang");
        ensure(lang.and_then(Value::as_str).is_some_and(|s| !s.is_empty()), || match lang {
            None => "meta.lang is missing from the output".to_owned(),
            Some(v) => format!("meta.lang is {v}, expected a non-empty string"),
        })?;
    }
    Ok(())
}

/// 8-4-4-4-12 hexadecimal digits.
pub(crate) fn is_uuid_text(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Empty or only the contract's ASCII whitespace (space, \t, \n, \v, \f, \r).
pub(crate) fn is_ascii_blank(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
}

/// Re-emit checks for a body: [`per_message_fields`] against `input`, the body as parsed JSON
/// (a fixture's value as the suite parsed it, which is serde_json's value of those bytes; the
/// caller hands it over, so no body is parsed twice). An input without a field in shape
/// requires none (`Value::Null` requires nothing).
pub(crate) fn reemitted_fields(doc: &Value, input: &Value) -> Check {
    per_message_fields(doc, Some(input))
}

/// Read `expect_warnings` (optional): the pointers each warning must name; empty = silent.
pub(crate) fn read_warnings<'s>(r: &mut Reader<'s>, at: &Place<'s>) -> Option<Option<Vec<&'s str>>> {
    let list = r.pointer_list(at, "expect_warnings").ok()?;
    if let Some(p) = r.opt(at, "expect_warnings") {
        let silent = list.as_ref().is_some_and(Vec::is_empty);
        r.slot(&p, || if silent { serde_json::json!(["/bqsuite-wrong"]) } else { serde_json::json!([]) });
    }
    Some(list)
}

/// `expect_warnings`, when present: each listed pointer is named by at least one warning; an
/// empty list means no warning at all.
pub(crate) fn expected_warnings(warnings: &[Warning], want: Option<&[&str]>) -> Check {
    let Some(list) = want else { return Ok(()) };
    if list.is_empty() {
        return ensure(warnings.is_empty(), || format!("decode warned ({}), expected no warning", named(warnings)));
    }
    for ptr in list {
        ensure(warnings.iter().any(|w| w.pointer == *ptr), || {
            format!("decode raised no warning naming {ptr} (warnings: {})", named(warnings))
        })?;
    }
    Ok(())
}

/// Re-emit a body through the SDK (decode, attempts + 1 when asked, encode), parse it and check
/// its per-message fields against the body's ([`reemitted_fields`]; `input` is the body as
/// parsed JSON).
pub(crate) fn reemit(
    sdk: &mut dyn Sdk,
    body: &[u8],
    input: &Value,
    attempts_plus_one: bool,
) -> Result<(Value, Vec<Warning>), String> {
    match sdk.reemit(Reemit { body: Bytes::from(body), attempts_plus_one }).map_err(|e| e.to_string())? {
        ReemitOutcome::Encoded { json, warnings } => {
            let out = parsed(&json)?;
            encoded_text(&json, &[("", input)], Some(body))?;
            reemitted_fields(&out, input)?;
            Ok((out, warnings))
        }
        ReemitOutcome::Rejected { message } => Err(format!("the body was rejected: {message}")),
        ReemitOutcome::Refused { message } => Err(format!("encode refused: {message}")),
    }
}

/// The fields of the decode-verdict case, for the runner contracts of the sections that use it.
pub mod fields {
    use crate::sections::Field;

    pub const NAME: Field = Field { name: "name", ty: "string", meaning: "The case id." };
    pub const DESCRIPTION: Field =
        Field { name: "description", ty: "string", meaning: "What the case pins, for people; not compared." };
    pub const FILE: Field = Field {
        name: "file",
        ty: "string: a suite-relative path, `fixtures/…`",
        meaning: "The fixture: the message body, exactly the bytes of that file.",
    };
    pub const VALID: Field = Field {
        name: "valid",
        ty: "boolean",
        meaning: "The verdict: `true`, the SDK's `accepts` is true and decode succeeds; `false`, `accepts` is false and decode rejects the body.",
    };
    pub const REASON: Field = Field {
        name: "reason",
        ty: "string (when `valid` is false)",
        meaning: "Why it is rejected, for people; not compared.",
    };
    pub const EXPECT_URN: Field = Field {
        name: "expect_urn",
        ty: "string (optional)",
        meaning: "The identity the decoded message resolves to (from `job`, or from `urn` as its alias); the same string exactly.",
    };
    pub const EXPECT_WARNINGS: Field = Field {
        name: "expect_warnings",
        ty: "array of JSON pointers (optional)",
        meaning: "Each pointer must be named by at least one warning decode raises (other warnings may be there too); an empty array means decode raises no warning at all. Absent: warnings are not checked.",
    };
    pub const EXPECT_PRESERVED: Field = Field {
        name: "expect_preserved",
        ty: "object: JSON pointer → value (optional)",
        meaning: "After re-encoding the decoded message unchanged and parsing the output, each pointer holds that value, as it was in the fixture.",
    };
    pub const EXPECT_AFTER_REENCODE: Field = Field {
        name: "expect_after_reencode",
        ty: "object: JSON pointer → value (optional)",
        meaning: "In the same re-encoded output, each pointer holds that value (one the re-emit derives, such as `/job` written from `urn`).",
    };
    pub const EXPECT_ABSENT_AFTER_REENCODE: Field = Field {
        name: "expect_absent_after_reencode",
        ty: "array of JSON pointers (optional)",
        meaning: "None of these pointers exists in the re-encoded output (a dropped key is never re-emitted).",
    };

    pub const URN: Field =
        Field { name: "urn", ty: "string", meaning: "The job type handed to the producer API (it becomes `job`)." };
    pub const QUEUE: Field = Field {
        name: "queue",
        ty: "string",
        meaning: "The queue name handed to the producer API (it becomes `meta.queue`).",
    };
    pub const DATA: Field = Field {
        name: "data",
        ty: "object",
        meaning: "The payload handed to the producer API, as the language's map or dictionary type.",
    };

    /// How a decode-verdict case runs.
    pub const STEPS: &[&str] = &[
        "Read the fixture's bytes. Ask the SDK's consumer whether it accepts them, and decode them with its core: both must give the verdict `valid` (a `valid: false` case passes when `accepts` is false and decode rejects the body, and ends there).",
        "For a valid case, compare the resolved identity with `expect_urn` and the decode warnings with `expect_warnings`, each only when the case has it. A warning names the JSON pointer of the key it is about (`/job`, `/urn`).",
        "Then re-encode the decoded message unchanged (no attempt added), parse the output as JSON and check `expect_preserved`, `expect_after_reencode` (same value at each pointer) and `expect_absent_after_reencode` (no such pointer). Key order and whitespace of the output are free.",
        PER_MESSAGE_REENCODED,
        "Report the case `pass`, or `fail` with the first difference as `reason`.",
    ];

    /// The per-message check of every envelope the SDK makes (see `per_message_fields`).
    pub const PER_MESSAGE_MADE: &str = "Every envelope the SDK makes carries the per-message fields, judged for presence and shape, never value: `meta.id` a UUID in 8-4-4-4-12 hexadecimal form (the schema's `format: uuid`) that is not the `trace_id`, `trace_id` a string that is not blank, `meta.created_at` an integer count of Unix epoch milliseconds of at least 10^12 and below 10^13 (a count of seconds, 0, a small constant, or a count of microseconds or nanoseconds fails); and `meta.lang`, which the producer schema requires, a non-empty string (its value is not compared). It carries none of the non-canonical keys (`/timestamp`, `/meta/max_retries`, `/meta/attempts`, `/meta/source`, `/meta/ts`, `/urn`: K-15, encoding never emits them).";

    /// The per-message check of every re-encode and dead-letter copy (see `per_message_fields`).
    pub const PER_MESSAGE_REENCODED: &str = "Every re-encoded envelope (a dead-letter copy too) carries each per-message field that its input carries well-shaped (`meta.id` a non-empty string, `trace_id` not blank, `meta.created_at` integer epoch milliseconds of at least 10^12 and below 10^13) with the input's value: meta is immutable and the trace id is forwarded unchanged, so a re-encode writes the message's own fields and mints none.";
}

/// The decode-verdict case shared by data_shape (mode `decode`), trim (mode `decode`) and
/// job_type: `accepts` and decode of `file` both give `valid`; for a valid case `expect_urn`,
/// `expect_warnings`, then the re-emit checks on the message re-encoded unchanged.
#[derive(Debug, Clone)]
pub struct DecodeCase<'s> {
    pub fixture: Fixture<'s>,
    pub valid: bool,
    pub expect_urn: Option<&'s Value>,
    pub warnings: Option<Vec<&'s str>>,
    pub reemit: ReemitChecks<'s>,
}

impl<'s> DecodeCase<'s> {
    /// Read a decode-verdict case: `file`, `valid`, a `reason` when invalid, and the optional
    /// expectations.
    pub fn read(r: &mut Reader<'s>, at: &Place<'s>) -> Option<Self> {
        let fixture = r.file(at, "file");
        let valid = r.bool(at, "valid");
        if valid == Some(false) && r.opt(at, "reason").is_none_or(|p| !p.value.is_string()) {
            r.problem(
                Code::INVALID_WITHOUT_REASON,
                &at.pointer,
                format!("invalid case {:?} has no \"reason\" string", r.id),
            );
        }
        if valid == Some(false) {
            // Claiming a rejected fixture valid is wrong and still reads (a valid case needs
            // nothing more).
            r.slot_case(at, || serde_json::json!({"valid": true}));
        }
        let expect_urn = r.opt(at, "expect_urn").map(|p| {
            r.expectation(&p);
            p.value
        });
        let warnings = read_warnings(r, at);
        let reemit = ReemitChecks::read(r, at);
        Some(Self { fixture: fixture?, valid: valid?, expect_urn, warnings: warnings?, reemit: reemit? })
    }

    /// Run it.
    pub fn run(&self, sdk: &mut dyn Sdk) -> Check {
        let file = self.fixture.rel;
        let body = Bytes::from(self.fixture.bytes);
        let accepted = sdk.accepts(Accepts { body: body.clone() }).map_err(|e| e.to_string())?;
        ensure(accepted == self.valid, || {
            format!("accepts({file}) is {accepted}, the case says valid: {}", self.valid)
        })?;
        let decoded = sdk.decode(Decode { body }).map_err(|e| e.to_string())?;
        let (env, warnings) = match (self.valid, decoded) {
            (false, DecodeOutcome::Rejected { .. }) => return Ok(()),
            (false, DecodeOutcome::Decoded { .. }) => {
                return Err(format!("{file} decoded, but the case says it must be rejected"));
            }
            (true, DecodeOutcome::Rejected { message }) => return Err(format!("{file} was rejected: {message}")),
            (true, DecodeOutcome::Decoded { envelope, warnings }) => (envelope, warnings),
        };
        if let Some(want) = self.expect_urn {
            let got = Value::from(env.urn.as_str());
            ensure(same_value(want, &got), || format!("resolved URN is {got}, expected {want}"))?;
        }
        expected_warnings(&warnings, self.warnings.as_deref())?;
        let (out, _) = reemit(sdk, self.fixture.bytes, self.fixture.json, false)?;
        self.reemit.check(&out)
    }
}

fn in_manifest(code: Code, msg: String, ptr: String) -> Finding {
    Finding::error(code, msg).in_file(MANIFEST).at(ptr)
}

/// The pointer fields of a case checked against its fixture: every `expect_preserved` pointer
/// exists (BQ805) with that very value (BQ806); `forbidden_key` exists (BQ807) and is listed in
/// `expect_absent_after_reencode` (BQ808); every `expect_absent_after_reencode` pointer exists,
/// or its check could never fail (BQ809).
pub(crate) fn against_fixture(
    case_pointer: &str,
    fixture: &Fixture<'_>,
    checks: &ReemitChecks<'_>,
    forbidden_key: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let (file, doc) = (fixture.rel, fixture.json);
    let at = |field: &str| pointer::join(case_pointer, field);
    for (p, want) in &checks.preserved {
        let ptr = pointer::join(&at("expect_preserved"), p);
        match pointer::get(doc, p) {
            None => out.push(in_manifest(
                Code::PRESERVED_POINTER_MISSING,
                format!("{p} does not exist in {file}: a preserved value must be in the fixture (a derived one goes in expect_after_reencode)"),
                ptr,
            )),
            Some(got) if !same_value(want, got) => out.push(in_manifest(
                Code::PRESERVED_VALUE_DIFFERS,
                format!("{p} is {got} in {file}, but the case expects it preserved as {want}"),
                ptr,
            )),
            _ => {}
        }
    }
    for (i, p) in checks.absent.iter().enumerate() {
        if pointer::get(doc, p).is_none() {
            out.push(in_manifest(
                Code::ABSENT_POINTER_MISSING,
                format!("{p} does not exist in {file}, so checking that the re-emit lacks it proves nothing"),
                format!("{}/{i}", at("expect_absent_after_reencode")),
            ));
        }
    }
    if let Some(key) = forbidden_key {
        if pointer::get(doc, key).is_none() {
            out.push(in_manifest(
                Code::FORBIDDEN_KEY_MISSING,
                format!("forbidden_key {key} does not exist in {file}"),
                at("forbidden_key"),
            ));
        }
        if !checks.absent.contains(&key) {
            out.push(in_manifest(
                Code::FORBIDDEN_KEY_NOT_ABSENT,
                format!("forbidden_key {key} is not listed in expect_absent_after_reencode"),
                at("forbidden_key"),
            ));
        }
    }
}

/// A roundtrip or forbidden_keys fixture is producer output: it passes the producer schema, one
/// finding per violation at the violating pointer of the fixture (BQ801), and writes every
/// member the schema types integer as an integer literal ([`PRODUCER_INTEGERS`]; `7.0` passes
/// Draft-07 but is a float to most SDKs' JSON readers), unless its case says
/// `producer_schema_valid: false` — then it must fail the schema, so the flag cannot lie
/// (BQ802). Each (fixture, flag) pair is checked once.
pub(crate) fn producer_schema<'s, C>(
    cx: &CheckCx<'_>,
    cases: &[Entry<'s, C>],
    fields: impl Fn(&C) -> (&Fixture<'s>, bool),
    out: &mut Vec<Finding>,
) {
    let Some(schema) = cx.envelope_schema else { return };
    let mut checked = HashSet::new();
    for e in cases {
        let Some(typed) = &e.typed else { continue };
        let (fixture, flagged) = fields(typed);
        if !checked.insert((fixture.rel, flagged)) {
            continue;
        }
        // A member the schema types integer written as a float is not producer output either,
        // though Draft-07 lets it pass: the flag may say so.
        let float_integer = || PRODUCER_INTEGERS.iter().any(|at| fixture.json.pointer(at).is_some_and(Value::is_f64));
        if flagged {
            if schema.is_valid(fixture.json) && !float_integer() {
                out.push(in_manifest(
                    Code::PRODUCER_SCHEMA_FLAG_LIES,
                    format!(
                        "case {:?} says producer_schema_valid: false, but {} passes the producer schema and writes its integers as integers",
                        e.case.id, fixture.rel
                    ),
                    pointer::join(&e.case.pointer, "producer_schema_valid"),
                ));
            }
            continue;
        }
        for err in schema.iter_errors(fixture.json) {
            out.push(
                Finding::error(
                    Code::PRODUCER_SCHEMA_FAILS,
                    format!(
                        "fails the producer schema ({err}); case {:?} does not say producer_schema_valid: false",
                        e.case.id
                    ),
                )
                .in_file(fixture.rel)
                .at(err.instance_path().as_str()),
            );
        }
        for at in PRODUCER_INTEGERS {
            let Some(Value::Number(n)) = fixture.json.pointer(at) else { continue };
            if n.is_f64() {
                out.push(
                    Finding::error(
                        Code::PRODUCER_SCHEMA_FAILS,
                        format!(
                            "writes {at} as {n}, a number with a fraction or an exponent, where the producer schema \
                             types it integer and a producer writes an integer literal (Draft-07 lets an integral \
                             float pass; Go refuses it into an int, and PHP and Python read a float and write it \
                             back as one); case {:?} does not say producer_schema_valid: false",
                            e.case.id
                        ),
                    )
                    .in_file(fixture.rel)
                    .at(at),
                );
            }
        }
    }
}

/// The members the producer schema types `integer`: producer output writes them as integer
/// literals (no fraction, no exponent), which Draft-07's `integer` alone does not require. The
/// same members an SDK's encoded text is held to ([`crate::sections::judge::encoded_text`]).
const PRODUCER_INTEGERS: [&str; 5] = crate::sections::judge::ENVELOPE_INTEGERS;

/// Read `producer_schema_valid` (optional boolean; `false` flags a consumer-tolerance fixture).
pub(crate) fn flagged<'s>(r: &mut Reader<'s>, at: &Place<'s>) -> Option<bool> {
    match r.opt_typed(at, "producer_schema_valid", "a boolean", false, Value::as_bool) {
        Ok(v) => Some(v == Some(false)),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn made(id: Value, trace: Value, created: Value) -> Value {
        json!({"job": "urn:x", "trace_id": trace, "data": {}, "meta": {"id": id, "lang": "rust", "created_at": created}})
    }

    #[test]
    fn a_made_envelope_needs_all_three_fields_in_shape() {
        const ID: &str = "f1e2d3c4-b5a6-4789-90ab-cdef01234567";
        let ok = made(json!(ID), json!("t"), json!(1_749_132_727_000_u64));
        assert_eq!(per_message_fields(&ok, None), Ok(()));
        assert_eq!(
            per_message_fields(&made(json!("i"), json!("t"), json!(1_749_132_727_000_u64)), None).unwrap_err(),
            "meta.id is \"i\", expected a UUID (8-4-4-4-12 hexadecimal digits)"
        );
        for bad in [
            made(json!(""), json!("t"), json!(1_749_132_727_000_u64)),
            made(json!(7), json!("t"), json!(1_749_132_727_000_u64)),
            made(json!(ID), json!(" \t"), json!(1_749_132_727_000_u64)),
            made(json!(ID), json!("t"), json!(1_749_132_727_u64)),
            made(json!(ID), json!("t"), json!(0)),
            made(json!(ID), json!("t"), json!(1_749_132_727_000.0)),
            made(json!(ID), json!("t"), json!("1749132727000")),
            // Microseconds and nanoseconds are not epoch milliseconds.
            made(json!(ID), json!("t"), json!(1_749_132_727_000_000_u64)),
            made(json!(ID), json!("t"), json!(1_749_132_727_000_000_000_u64)),
            // The idempotency key is not the trace id.
            made(json!("t"), json!("t"), json!(1_749_132_727_000_u64)),
        ] {
            assert!(per_message_fields(&bad, None).is_err(), "{bad}");
        }
        let mut missing = ok.clone();
        missing["meta"].as_object_mut().unwrap().remove("created_at");
        assert!(per_message_fields(&missing, None).unwrap_err().contains("/meta/created_at is missing"));
        assert_eq!(per_message_fields(&made(json!(ID), json!("t"), json!(9_999_999_999_999_u64)), None), Ok(()));
        for lang in [json!(""), json!(null), json!(3)] {
            let mut bad = ok.clone();
            bad["meta"]["lang"] = lang;
            assert!(per_message_fields(&bad, None).unwrap_err().starts_with("meta.lang is "), "{bad}");
        }
        for k in NON_CANONICAL {
            let mut bad = ok.clone();
            let (parent, last) = k.rsplit_once('/').unwrap();
            bad.pointer_mut(if parent.is_empty() { "" } else { parent }).unwrap()[last] = json!(1);
            let e = per_message_fields(&bad, None).unwrap_err();
            assert_eq!(
                e,
                format!("the made envelope carries {k}, a non-canonical key that encoding never emits (K-15)")
            );
        }
        let mut no_lang = ok.clone();
        no_lang["meta"].as_object_mut().unwrap().remove("lang");
        assert_eq!(per_message_fields(&no_lang, None).unwrap_err(), "meta.lang is missing from the output");
    }

    #[test]
    fn a_reencode_needs_the_fields_its_input_carries_in_shape() {
        let input = made(json!("i"), json!("t"), json!(1_749_132_727_000_u64));
        let mut out = input.clone();
        assert_eq!(reemitted_fields(&out, &input), Ok(()));
        out["meta"].as_object_mut().unwrap().remove("id");
        assert!(reemitted_fields(&out, &input).is_err());
        // An input without meta.id (or with one out of shape) requires none in the output.
        let mut odd = input.clone();
        odd["meta"]["id"] = json!(5);
        assert_eq!(reemitted_fields(&out, &odd), Ok(()));
        assert_eq!(reemitted_fields(&out, &Value::Null), Ok(()));
    }

    #[test]
    fn a_reencode_keeps_the_values_its_input_carries() {
        let input = made(json!("i"), json!("t"), json!(1_749_132_727_000_u64));
        for (ptr, other) in
            [("/meta/id", json!("j")), ("/trace_id", json!("u")), ("/meta/created_at", json!(1_749_132_727_001_u64))]
        {
            let mut out = input.clone();
            *out.pointer_mut(ptr).unwrap() = other;
            let e = reemitted_fields(&out, &input).unwrap_err();
            assert!(e.starts_with(&format!("per-message field {ptr} is ")) && e.contains("not the input's"), "{e}");
        }
        // A re-encode needs neither lang nor a meta.id distinct from the trace id: it keeps what
        // it was given.
        let same = made(json!("t"), json!("t"), json!(1_749_132_727_000_u64));
        let mut out = same.clone();
        out["meta"].as_object_mut().unwrap().remove("lang");
        assert_eq!(reemitted_fields(&out, &same), Ok(()));
    }
}

//! Sections `payload_schema` and `payload_schema_unicode` (scope core): the SDK-side payload
//! validator.
//!
//! Block: `{description, schema, cases: [{name, data, valid}]}`.
//!
//! Runner (spec "payload_schema_unicode — Same shape and runner as payload_schema"): validate
//! each case's `data` against the section's `schema` with the SDK's validator; the verdict must
//! equal the case's `valid`. A schema the validator refuses fails the case, naming why.
//!
//! Cross-checks: the schema is compiled once per section with the `jsonschema` crate (Draft-07,
//! formats not asserted) and must compile (BQ821); every case's `valid` must equal its verdict
//! on `data` (BQ820) — an oracle independent of the SDK's own validator.

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::results::Outcome;
use crate::schema::draft7;
use crate::sdk::Calls;
use crate::sdk::ops::{PayloadOutcome, ValidatePayload};
use crate::sdk::reference::Broken;
use crate::sections::{Block, Catch, Check, CheckCx, Contract, Definition, Entry, Field, Reader, RunCx, Version, catch, ensure};
use crate::suite::{MANIFEST, Scope, pointer};

/// The runner contract both payload-schema sections share (one shape, one runner).
const CONTRACT: Contract = Contract {
    fields: &[
        Field { name: "name", ty: "string", meaning: "The case id." },
        Field {
            name: "data",
            ty: "any JSON value (an object in every case so far)",
            meaning: "The payload validated against the section's `schema` (the block member beside `cases`, shown above), as it would be the `data` of an envelope; only it is validated, no envelope is built.",
        },
        Field {
            name: "valid",
            ty: "boolean",
            meaning: "The verdict the SDK's payload validator must reach: `true`, `data` satisfies the schema; `false`, it violates it.",
        },
    ],
    steps: &[
        "Hand the section's `schema` and the case's `data` to the SDK's payload validator (its optional per-URN schema check, ADR-0024), parsed into the language's JSON types. The validator implements the Draft-07 keywords `type`, `required`, `properties`, `additionalProperties`, `items`, `enum`, `const`, `minLength` and `minimum`, and ignores keywords it does not know (`$schema` among them).",
        "Keyword meanings: `integer` is a number without a fraction (1.0 counts), a boolean is never a number, `minimum` is inclusive, `minLength` counts Unicode code points (not UTF-8 bytes, UTF-16 code units or grapheme clusters: an emoji outside the BMP is one), and `enum` / `const` compare by the suite's same value.",
        "The case passes when the verdict equals `valid`. A validator that refuses the schema itself (a supported keyword with a value of the wrong shape makes a schema unusable, never ignored) fails every case, naming why; the two sections' schemas are usable.",
        "Report `pass`, or `fail` with `reason` (for example \"expected invalid, the validator accepted it\", or the violations it reported for a case expected valid).",
    ],
        operations: &["validate_payload"],
};

/// The `payload_schema` section (an early section: its schema and seven cases are published).
pub struct PayloadSchema;

/// The `payload_schema_unicode` section: same shape and runner.
pub struct PayloadSchemaUnicode;

/// A payload-schema case.
pub struct Case<'s> {
    schema: &'s Value,
    data: &'s Value,
    valid: bool,
}

fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
    let block = r.block_place();
    let schema = r.field(&block, "schema", "the payload schema");
    let at = r.root();
    r.object(&at)?;
    let data = r.field(&at, "data", "the payload to validate");
    let valid = r.bool(&at, "valid");
    r.expects(&at, "valid");
    Some(Case { schema: schema?.value, data: data?.value, valid: valid? })
}

fn check<'s>(section: &str, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
    let Some(schema) = cases.iter().find_map(|e| e.typed.as_ref()).map(|c| c.schema) else { return };
    let validator = match draft7(schema) {
        Ok(v) => v,
        Err(e) => {
            out.push(
                Finding::error(Code::PAYLOAD_SCHEMA_CASE, format!("the schema does not compile: {e}"))
                    .in_file(MANIFEST)
                    .at(pointer::join(&pointer::join("", section), "schema")),
            );
            return;
        }
    };
    for e in cases {
        let Some(c) = &e.typed else { continue };
        let verdict = validator.is_valid(c.data);
        if verdict != c.valid {
            let why = validator.iter_errors(c.data).map(|e| e.to_string()).collect::<Vec<_>>().join("; ");
            out.push(
                Finding::error(
                    Code::PAYLOAD_SCHEMA_VERDICT,
                    format!(
                        "case {:?} says valid: {}, but a Draft-07 validator says {verdict}{}",
                        e.case.id,
                        c.valid,
                        if why.is_empty() { String::new() } else { format!(" ({why})") }
                    ),
                )
                .in_file(MANIFEST)
                .at(pointer::join(&e.case.pointer, "valid")),
            );
        }
    }
}

fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Check {
    let request = ValidatePayload { schema: case.schema.clone(), data: case.data.clone() };
    match cx.sdk.validate_payload(request).map_err(|e| e.to_string())? {
        PayloadOutcome::SchemaRefused { message } => {
            Err(format!("the validator refused the section schema: {message}"))
        }
        PayloadOutcome::Checked { valid, violations } => ensure(valid == case.valid, || {
            if case.valid {
                format!("expected valid, the validator rejected it: {}", violations.join("; "))
            } else {
                "expected invalid, the validator accepted it".into()
            }
        }),
    }
}

impl Definition for PayloadSchema {
    const NAME: &'static str = "payload_schema";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 0, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[catch(Broken::PayloadSchemaIgnoreAdditional, &["invalid-additional-property"])];
    const EARLY: bool = true;
    const CONTRACT: &'static Contract = &CONTRACT;
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        read(r)
    }

    fn check<'s>(_cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        check(Self::NAME, cases, out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        run(cx, case).into()
    }
}

impl Definition for PayloadSchemaUnicode {
    const NAME: &'static str = "payload_schema_unicode";
    const SINCE: Version = (1, 0, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 0, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] =
        &[catch(Broken::PayloadSchemaByteLength, &["turkish-2cp-min3", "emoji-1cp-min2", "emoji-plus-ascii-2cp-min3"])];
    const CONTRACT: &'static Contract = &CONTRACT;
    type Case<'s> = Case<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<Case<'s>> {
        read(r)
    }

    fn check<'s>(_cx: &mut CheckCx<'_>, cases: &[Entry<'s, Case<'s>>], out: &mut Vec<Finding>) {
        check(Self::NAME, cases, out);
    }

    fn run(cx: &mut RunCx<'_>, case: &Case<'_>) -> Outcome {
        run(cx, case).into()
    }
}

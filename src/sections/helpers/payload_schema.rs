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
use crate::sections::{Catch, Check, CheckCx, Definition, Entry, Reader, RunCx, catch, ensure};
use crate::suite::{MANIFEST, Scope, pointer};

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
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[catch(Broken::PayloadSchemaIgnoreAdditional, &["invalid-additional-property"])];
    const EARLY: bool = true;
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
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] =
        &[catch(Broken::PayloadSchemaByteLength, &["turkish-2cp-min3", "emoji-1cp-min2", "emoji-plus-ascii-2cp-min3"])];
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

//! Schemas: each declares its draft and is a valid schema of it; the results example validates.
//!
//! Rules: `schema/message-envelope.schema.json` is Draft-07, `schema/results.schema.json` is
//! Draft 2020-12, every `schema` object embedded in a manifest section is Draft-07; each one is
//! valid against its draft's meta-schema; the two schema files also compile (a `$ref` that
//! resolves to nothing, or a `pattern` that is no regex, passes a meta-schema, and then every
//! `results check` stops and the producer-schema cross-checks are skipped; an embedded schema
//! that does not compile is its section's finding); `schema/results.example.json` validates
//! against the results schema, one finding per violation at the violating pointer.

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::suite::{self, MANIFEST, pointer};

use super::Ctx;
use crate::schema::{draft7, draft202012};

const DRAFT7: &str = "http://json-schema.org/draft-07/schema#";
const DRAFT202012: &str = "https://json-schema.org/draft/2020-12/schema";

fn meta_check(schema: &Value, draft7: bool) -> Result<(), String> {
    let r = if draft7 {
        jsonschema::draft7::meta::validate(schema)
    } else {
        jsonschema::draft202012::meta::validate(schema)
    };
    r.map_err(|e| format!("{e} (at {})", e.instance_path()))
}

fn check_schema(out: &mut Vec<Finding>, file: &str, ptr: &str, schema: &Value, draft7: bool) {
    let want = if draft7 { DRAFT7 } else { DRAFT202012 };
    let declared = schema.get("$schema");
    if declared.and_then(Value::as_str) != Some(want) {
        out.push(
            Finding::error(
                Code::SCHEMA_DRAFT,
                match declared {
                    Some(found) => format!("\"$schema\" must be {want:?}, found {found}"),
                    None => format!("\"$schema\" must be {want:?}, and it is missing"),
                },
            )
            .in_file(file)
            .at(if declared.is_some() { pointer::join(ptr, "$schema") } else { ptr.to_owned() }),
        );
    }
    if let Err(e) = meta_check(schema, draft7) {
        out.push(
            Finding::error(Code::INVALID_SCHEMA, format!("not a valid schema of its draft: {e}")).in_file(file).at(ptr),
        );
    }
}

/// A schema file that passed its meta-schema but does not compile (BQ402).
fn check_compiles(out: &mut Vec<Finding>, file: &str, compiled: Result<(), String>) {
    if let (Err(e), false) =
        (compiled, out.iter().any(|f| f.code == Code::INVALID_SCHEMA && f.file.as_deref() == Some(file)))
    {
        out.push(
            Finding::error(Code::INVALID_SCHEMA, format!("the schema does not compile: {e}")).in_file(file).at(""),
        );
    }
}

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(s) = cx.suite.json(suite::ENVELOPE_SCHEMA) {
        check_schema(&mut out, suite::ENVELOPE_SCHEMA, "", s, true);
        // Compiled once, for the cross-checks; compiled again only to say why it failed.
        if cx.envelope_schema().is_none() {
            check_compiles(&mut out, suite::ENVELOPE_SCHEMA, draft7(s).map(drop));
        }
    }
    for s in cx.suite.sections() {
        if let Some(schema) = s.block.get("schema") {
            check_schema(&mut out, MANIFEST, &pointer::join(&pointer::join("", s.name), "schema"), schema, true);
        }
    }
    let Some(results_schema) = cx.suite.json(suite::RESULTS_SCHEMA) else {
        return out;
    };
    check_schema(&mut out, suite::RESULTS_SCHEMA, "", results_schema, false);
    let validator = match draft202012(results_schema) {
        Ok(v) => v,
        Err(e) => {
            check_compiles(&mut out, suite::RESULTS_SCHEMA, Err(e));
            return out;
        }
    };
    if let Some(example) = cx.suite.json(suite::RESULTS_EXAMPLE) {
        for e in validator.iter_errors(example) {
            out.push(
                Finding::error(Code::RESULTS_EXAMPLE_INVALID, format!("violates the results schema: {e}"))
                    .in_file(suite::RESULTS_EXAMPLE)
                    .at(e.instance_path().as_str()),
            );
        }
    }
    out
}

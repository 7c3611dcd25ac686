//! Envelope behaviour sections: the cross-checks of the spec's CI paragraph, and the ones that
//! keep the optional case fields honest.
//!
//! Rules (roundtrip, data_shape, forbidden_keys, extension_write, encode_reject, trim,
//! job_type):
//!
//! * every roundtrip and forbidden_keys fixture passes the Draft-07 producer schema, one finding
//!   per violation at the violating pointer of the fixture (BQ801), unless its case says
//!   `producer_schema_valid: false` — then the fixture must fail the schema, so the flag cannot
//!   lie (BQ802);
//! * a data_shape `decode` case with `valid: false` (data-array-rejected) uses a fixture that
//!   fails the producer schema (BQ803);
//! * every pointer — the keys of `expect_preserved`, `expect_after_reencode` and
//!   `expect_envelope`, the entries of `expect_absent_after_reencode` and `expect_warnings`, and
//!   `forbidden_key` — is a string holding a valid RFC 6901 pointer (BQ804);
//! * against the case's fixture: every `expect_preserved` pointer exists (BQ805) with that very
//!   value (BQ806, "preserved" means unchanged; a value the SDK derives belongs in
//!   `expect_after_reencode`); `forbidden_key` exists (BQ807) and is listed in
//!   `expect_absent_after_reencode` (BQ808); every `expect_absent_after_reencode` pointer exists,
//!   or its check could never fail (BQ809);
//! * an encode_reject case carries exactly one input field of the right shape (BQ810), and its
//!   `offending_key` is one of that input's keys (BQ811).
//!
//! The producer schema is the suite's own, compiled once ([`Ctx::envelope_schema`]); without a
//! usable schema the schema rules are left to the schema family's findings.

use std::collections::HashSet;

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::sections::judge::same_value;
use crate::suite::{CaseRef, ENCODE_REJECT_INPUTS, MANIFEST, pointer};

use super::Ctx;

/// The sections whose fixtures are producer output (apart from `producer_schema_valid: false`).
const SCHEMA_SECTIONS: [&str; 2] = ["roundtrip", "forbidden_keys"];
/// The sections this family reads.
const SECTIONS: [&str; 7] =
    ["roundtrip", "data_shape", "forbidden_keys", "extension_write", "encode_reject", "trim", "job_type"];
/// Case fields that map pointers to values.
const POINTER_MAPS: [&str; 3] = ["expect_preserved", "expect_after_reencode", "expect_envelope"];
/// Case fields that list pointers.
const POINTER_LISTS: [&str; 2] = ["expect_absent_after_reencode", "expect_warnings"];

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut schema_checked = HashSet::new();
    for s in cx.suite.sections().into_iter().filter(|s| SECTIONS.contains(&s.name)) {
        for case in cx.cases(s.name) {
            if !case.value.is_object() {
                continue;
            }
            pointer_syntax(case, &mut out);
            if s.name == "encode_reject" {
                encode_reject_input(case, &mut out);
            }
            let Some(file) = case.value.get("file").and_then(Value::as_str) else {
                continue;
            };
            let Some(fixture) = cx.suite.json(file) else {
                continue;
            };
            against_fixture(case, file, fixture, &mut out);
            if SCHEMA_SECTIONS.contains(&s.name) {
                producer_schema(cx, case, file, fixture, &mut schema_checked, &mut out);
            }
            if s.name == "data_shape" {
                rejected_fixture(cx, case, file, fixture, &mut out);
            }
        }
    }
    out
}

fn in_manifest(code: Code, msg: String, ptr: String) -> Finding {
    Finding::error(code, msg).in_file(MANIFEST).at(ptr)
}

/// Every pointer the case carries, with where it sits in the manifest: `Ok(text)`, or
/// `Err(value)` for an entry that is not a string.
fn case_pointers<'v>(case: &CaseRef<'v>) -> Vec<(String, Result<&'v str, &'v Value>)> {
    let mut found = Vec::new();
    let at = |field: &str| pointer::join(&case.pointer, field);
    let text = |v: &'v Value| v.as_str().ok_or(v);
    for field in POINTER_MAPS {
        if let Some(map) = case.value.get(field).and_then(Value::as_object) {
            found.extend(map.keys().map(|k| (pointer::join(&at(field), k), Ok(k.as_str()))));
        }
    }
    for field in POINTER_LISTS {
        if let Some(list) = case.value.get(field).and_then(Value::as_array) {
            found.extend(list.iter().enumerate().map(|(i, p)| (format!("{}/{i}", at(field)), text(p))));
        }
    }
    if let Some(p) = case.value.get("forbidden_key") {
        found.push((at("forbidden_key"), text(p)));
    }
    found
}

fn pointer_syntax(case: &CaseRef<'_>, out: &mut Vec<Finding>) {
    for (at, text) in case_pointers(case) {
        let problem = match text {
            Err(value) => format!("{value} is not a string pointer"),
            Ok(p) => match pointer::parse(p) {
                Ok(_) => continue,
                Err(e) => format!("not an RFC 6901 pointer: {e}"),
            },
        };
        out.push(in_manifest(Code::BAD_POINTER, problem, at));
    }
}

fn against_fixture(case: &CaseRef<'_>, file: &str, fixture: &Value, out: &mut Vec<Finding>) {
    let at = |field: &str| pointer::join(&case.pointer, field);
    if let Some(map) = case.value.get("expect_preserved").and_then(Value::as_object) {
        for (p, want) in map {
            let ptr = pointer::join(&at("expect_preserved"), p);
            match pointer::get(fixture, p) {
                None if pointer::parse(p).is_ok() => out.push(in_manifest(
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
    }
    let absent: Vec<&str> = case
        .value
        .get("expect_absent_after_reencode")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (i, p) in absent.iter().enumerate() {
        if pointer::parse(p).is_ok() && pointer::get(fixture, p).is_none() {
            out.push(in_manifest(
                Code::ABSENT_POINTER_MISSING,
                format!("{p} does not exist in {file}, so checking that the re-emit lacks it proves nothing"),
                format!("{}/{i}", at("expect_absent_after_reencode")),
            ));
        }
    }
    if let Some(key) = case.value.get("forbidden_key").and_then(Value::as_str) {
        if pointer::parse(key).is_ok() && pointer::get(fixture, key).is_none() {
            out.push(in_manifest(
                Code::FORBIDDEN_KEY_MISSING,
                format!("forbidden_key {key} does not exist in {file}"),
                at("forbidden_key"),
            ));
        }
        if !absent.contains(&key) {
            out.push(in_manifest(
                Code::FORBIDDEN_KEY_NOT_ABSENT,
                format!("forbidden_key {key} is not listed in expect_absent_after_reencode"),
                at("forbidden_key"),
            ));
        }
    }
}

fn producer_schema(
    cx: &Ctx<'_>,
    case: &CaseRef<'_>,
    file: &str,
    fixture: &Value,
    checked: &mut HashSet<(String, bool)>,
    out: &mut Vec<Finding>,
) {
    let Some(schema) = cx.envelope_schema() else {
        return;
    };
    let flagged = case.value.get("producer_schema_valid").and_then(Value::as_bool) == Some(false);
    if !checked.insert((file.to_owned(), flagged)) {
        return;
    }
    if flagged {
        if schema.is_valid(fixture) {
            out.push(in_manifest(
                Code::PRODUCER_SCHEMA_FLAG_LIES,
                format!("case {:?} says producer_schema_valid: false, but {file} passes the producer schema", case.id),
                pointer::join(&case.pointer, "producer_schema_valid"),
            ));
        }
        return;
    }
    for e in schema.iter_errors(fixture) {
        out.push(
            Finding::error(
                Code::PRODUCER_SCHEMA_FAILS,
                format!(
                    "fails the producer schema ({e}); case {:?} does not say producer_schema_valid: false",
                    case.id
                ),
            )
            .in_file(file)
            .at(e.instance_path().as_str()),
        );
    }
}

fn rejected_fixture(cx: &Ctx<'_>, case: &CaseRef<'_>, file: &str, fixture: &Value, out: &mut Vec<Finding>) {
    let decode = case.value.get("mode").and_then(Value::as_str) == Some("decode");
    let invalid = case.value.get("valid").and_then(Value::as_bool) == Some(false);
    if decode && invalid && cx.envelope_schema().is_some_and(|s| s.is_valid(fixture)) {
        out.push(in_manifest(
            Code::REJECTED_FIXTURE_PASSES_SCHEMA,
            format!("case {:?} must be rejected, but {file} passes the producer schema", case.id),
            pointer::join(&case.pointer, "valid"),
        ));
    }
}

fn encode_reject_input(case: &CaseRef<'_>, out: &mut Vec<Finding>) {
    let present: Vec<&str> = ENCODE_REJECT_INPUTS.into_iter().filter(|k| case.value.get(k).is_some()).collect();
    let [input] = present.as_slice() else {
        out.push(in_manifest(
            Code::ENCODE_REJECT_INPUT,
            format!("case {:?} must carry exactly one of {ENCODE_REJECT_INPUTS:?}; it has {present:?}", case.id),
            case.pointer.clone(),
        ));
        return;
    };
    let value = &case.value[*input];
    let keys: Option<Vec<&str>> = match value {
        Value::Object(m) if *input != "meta_entries" => Some(m.keys().map(String::as_str).collect()),
        Value::Array(list) if *input == "meta_entries" => list
            .iter()
            .map(|pair| match pair.as_array().map(Vec::as_slice) {
                Some([Value::String(k), _]) => Some(k.as_str()),
                _ => None,
            })
            .collect(),
        _ => None,
    };
    let at = pointer::join(&case.pointer, input);
    let Some(keys) = keys else {
        let want = if *input == "meta_entries" { "a list of [key, value] pairs" } else { "an object" };
        out.push(in_manifest(Code::ENCODE_REJECT_INPUT, format!("{input} must be {want}"), at));
        return;
    };
    if let Some(key) = case.value.get("offending_key").and_then(Value::as_str)
        && !keys.contains(&key)
    {
        out.push(in_manifest(
            Code::OFFENDING_KEY_NOT_IN_INPUT,
            format!("offending_key {key:?} is not a key of {input} ({keys:?})"),
            pointer::join(&case.pointer, "offending_key"),
        ));
    }
}

//! Schemas: each declares its draft and is a valid schema of it; the results example validates.
//!
//! Rules: `schema/message-envelope.schema.json` is Draft-07, `schema/results.schema.json` is
//! Draft 2020-12, every `schema` object embedded in a manifest section is Draft-07; each one is
//! valid against its draft's meta-schema; the two schema files also compile (a `$ref` that
//! resolves to nothing, or a `pattern` that is no regex, passes a meta-schema, and then every
//! `results check` stops and the producer-schema cross-checks are skipped; an embedded schema
//! that does not compile is its section's finding); `schema/results.example.json` validates
//! against the results schema, one finding per violation at the violating pointer.
//!
//! The producer schema is frozen (decisions R7, R20.8; byte-identical in every vendored copy
//! and in php-sdk's bundled copy): its bytes' SHA-256 must be the one [`FROZEN_ENVELOPE_SCHEMA`]
//! records for the suite's MAJOR (BQ404). `schema/results.schema.json` is not pinned across
//! versions: it may evolve (on the recorded version itself the recording pins both schema
//! files' bytes, BQ320, [`super::registry`]), but it must reject every malformed results file of a built-in corpus, each one change
//! to the results example (BQ406, [`super::results_format`]). The
//! results example agrees with the suite it ships in (BQ405): its `conformance_version` is
//! `CONFORMANCE_VERSION` (a pre-release's example says the pre-release, as its `run` writes),
//! and every section it reports is one of the manifest's. Its case ids are not compared: the
//! example is abbreviated, and `results check` judges ids. `schema/` holds those three files
//! and nothing else (BQ407): a fourth would be checked by no rule and shipped in the release
//! beside them (the spec's layout names the three).

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::diag::{Code, Finding};
use crate::suite::{self, MANIFEST, pointer};

use super::Ctx;
use crate::schema::{draft7, draft202012};

/// The SHA-256 (lowercase hex) of `schema/message-envelope.schema.json`'s bytes, frozen per
/// suite MAJOR: the producer schema changes only in a MAJOR release (decisions R7, R20.8).
///
/// To change it, in a MAJOR release only: edit the schema, add a row `(<new major>, "<sha256sum
/// of the new file>")` here (keep the old rows: they document what each MAJOR froze), and name
/// the schema change in that version's CHANGELOG entry. A suite whose MAJOR has no row is a
/// finding until the row is added.
pub const FROZEN_ENVELOPE_SCHEMA: &[(u64, &str)] =
    &[(1, "f50f4c5868d586091f9894586ba1156c74de9407885565c07599b95b96e398c2")];

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

/// BQ404: the producer schema's bytes are the ones frozen for the suite's MAJOR.
fn frozen(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let (Some(file), Some(version)) =
        (cx.suite.file(suite::ENVELOPE_SCHEMA), cx.suite.version().and_then(|v| semver::Version::parse(v).ok()))
    else {
        return;
    };
    if !matches!(file.content, suite::Content::Text(_) | suite::Content::Json { .. }) {
        return; // not read: the files family says why
    }
    let hex: String = Sha256::digest(file.bytes()).iter().map(|b| format!("{b:02x}")).collect();
    let major = version.major;
    let message = match FROZEN_ENVELOPE_SCHEMA.iter().find(|(m, _)| *m == major) {
        Some((_, want)) if *want == hex => return,
        Some((_, want)) => format!(
            "differs from the producer schema frozen for {major}.x (sha256 {hex}, frozen {want}): it changes only in a \
             MAJOR release (decisions R7, R20.8), because every vendored copy and php-sdk's bundled schema are \
             byte-identical to it; restore the frozen bytes"
        ),
        None => format!(
            "no producer schema is frozen for MAJOR {major} (this file's sha256 is {hex}): a MAJOR release records its \
             schema's hash in bqsuite's FROZEN_ENVELOPE_SCHEMA"
        ),
    };
    out.push(Finding::error(Code::ENVELOPE_SCHEMA_CHANGED, message).in_file(suite::ENVELOPE_SCHEMA));
}

/// BQ405: the results example is of this suite: its version, and sections the manifest has.
fn example_agrees(cx: &Ctx<'_>, example: &Value, out: &mut Vec<Finding>) {
    let at = |msg: String, ptr: String| {
        Finding::error(Code::RESULTS_EXAMPLE_MISMATCH, msg).in_file(suite::RESULTS_EXAMPLE).at(ptr)
    };
    // Against a version that is one (BQ102 says when it is not).
    let version = cx.suite.version().filter(|v| semver::Version::parse(v).is_ok());
    if let (Some(v), Some(version)) = (example.get("conformance_version").and_then(Value::as_str), version)
        && v != version
    {
        out.push(at(
            format!("conformance_version is {v:?}, but the suite is {version:?}: the example shows a results file of this suite"),
            "/conformance_version".into(),
        ));
    }
    if cx.suite.manifest().is_none() {
        return;
    }
    let Some(sections) = example.get("sections").and_then(Value::as_object) else { return };
    for name in sections.keys() {
        if cx.suite.section(name).is_none() {
            out.push(at(
                format!("section {name:?} is not a section of the manifest"),
                pointer::join("/sections", name),
            ));
        }
    }
}

/// The files `schema/` holds: the producer schema, the results schema and its example.
pub const SCHEMA_FILES: [&str; 3] = [suite::ENVELOPE_SCHEMA, suite::RESULTS_SCHEMA, suite::RESULTS_EXAMPLE];

/// BQ407: `schema/` holds the suite's three files and nothing else (a stray or hidden file is
/// BQ006's).
fn unknown_files(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for f in cx.suite.files() {
        if f.rel.starts_with("schema/") && !SCHEMA_FILES.contains(&f.rel.as_str()) && !super::files::is_stray(&f.rel) {
            out.push(
                Finding::error(
                    Code::UNKNOWN_SCHEMA_FILE,
                    format!(
                        "schema/ holds the suite's {} and nothing else: no rule checks this file, and a release would \
                         ship it beside them as if it were part of the contract; move or delete it",
                        SCHEMA_FILES.map(|p| p.trim_start_matches("schema/")).join(", ")
                    ),
                )
                .in_file(f.rel.clone()),
            );
        }
    }
}

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    frozen(cx, &mut out);
    unknown_files(cx, &mut out);
    if let Some(example) = cx.suite.json(suite::RESULTS_EXAMPLE) {
        example_agrees(cx, example, &mut out);
    }
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
        let before = out.len();
        for e in validator.iter_errors(example) {
            out.push(
                Finding::error(Code::RESULTS_EXAMPLE_INVALID, format!("violates the results schema: {e}"))
                    .in_file(suite::RESULTS_EXAMPLE)
                    .at(e.instance_path().as_str()),
            );
        }
        // The corpus judges a valid schema that accepts the example, each malformation against it.
        let invalid =
            out.iter().any(|f| f.code == Code::INVALID_SCHEMA && f.file.as_deref() == Some(suite::RESULTS_SCHEMA));
        if out.len() == before && !invalid {
            out.extend(super::results_format::check(results_schema, &validator, example));
        }
    }
    out
}

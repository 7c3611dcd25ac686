//! `bqsuite validate`: every check of the canonical suite, reported all at once.
//!
//! Invariants: each rule family lives in its own file and only *returns* findings; no rule stops
//! another from running (a broken manifest still gets its fixtures checked); every finding names
//! a file and, where one exists, a JSON pointer, and this module fills in line:column from the
//! loaded text once at the end; findings come out in a stable order. Schemas are compiled once
//! per run ([`Ctx`]), never per case.

mod behaviour;
mod bindings;
mod cases;
mod compat;
mod core_helpers;
mod files;
mod manifest;
mod redis;
mod schemas;
mod sections;
pub mod sync_targets;

use std::cell::OnceCell;

use serde_json::Value;

use crate::diag::Finding;
use crate::suite::{self, Suite};

/// Everything a rule may read: the suite, plus compiled schemas shared across rules.
pub struct Ctx<'a> {
    pub suite: &'a Suite,
    envelope: OnceCell<Option<jsonschema::Validator>>,
}

impl<'a> Ctx<'a> {
    /// A context over a loaded suite.
    pub fn new(suite: &'a Suite) -> Self {
        Self { suite, envelope: OnceCell::new() }
    }

    /// The producer envelope schema (Draft-07, formats not asserted, as the spec's reference
    /// validator, Python `jsonschema` without a FormatChecker, does), compiled once.
    pub fn envelope_schema(&self) -> Option<&jsonschema::Validator> {
        self.envelope.get_or_init(|| self.suite.json(suite::ENVELOPE_SCHEMA).and_then(|s| draft7(s).ok())).as_ref()
    }
}

/// Compile a Draft-07 schema the way the suite's cross-checks use it (no format assertion).
pub fn draft7(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft7::options().should_validate_formats(false).build(schema).map_err(|e| e.to_string())
}

/// Compile a Draft 2020-12 schema (no format assertion, the draft's default).
pub fn draft202012(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft202012::options().should_validate_formats(false).build(schema).map_err(|e| e.to_string())
}

/// A rule family.
type Rule = fn(&Ctx<'_>) -> Vec<Finding>;

/// Every rule family, in the order their findings are produced.
const RULES: &[Rule] = &[
    files::check,
    manifest::check,
    sections::check,
    cases::check,
    schemas::check,
    compat::check,
    behaviour::check,
    bindings::check,
    core_helpers::check,
    redis::check,
    sync_targets::check,
];

/// Validate a loaded suite: all findings, located and sorted.
pub fn validate(suite: &Suite) -> Vec<Finding> {
    let cx = Ctx::new(suite);
    let mut findings: Vec<Finding> = RULES.iter().flat_map(|rule| rule(&cx)).collect();
    for f in &mut findings {
        if let (None, Some(file), Some(pointer)) = (f.span, &f.file, &f.pointer) {
            f.span = suite.locate(file, pointer);
        }
        if let Some(file) = &mut f.file {
            *file = suite.display_path(file);
        }
    }
    Finding::sort(&mut findings);
    findings.dedup();
    findings
}

/// Every string value under a key in `keys`, anywhere in `value`, with its pointer.
pub(crate) fn string_refs<'v>(value: &'v Value, keys: &[&str]) -> Vec<(String, &'v str)> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), value)];
    while let Some((at, v)) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let p = suite::pointer::join(&at, k);
                    match child {
                        Value::String(s) if keys.contains(&k.as_str()) => out.push((p, s.as_str())),
                        _ => stack.push((p, child)),
                    }
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    stack.push((format!("{at}/{i}"), child));
                }
            }
            _ => {}
        }
    }
    out.sort();
    out
}

/// The keys whose string values name a suite file.
pub(crate) const FILE_REF_KEYS: [&str; 3] = ["file", "envelope_file", "fixture"];

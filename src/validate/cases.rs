//! File references and fixtures.
//!
//! Rules: every `file`, `envelope_file` and `fixture` reference anywhere in the manifest names a
//! loaded file under `fixtures/` (BQ301: decisions R3; `LICENSE` and `sync-targets.json` are
//! read with the suite but reach no vendored copy, and neither they nor `CONFORMANCE_VERSION`
//! are fixtures a case could run on); every file under `fixtures/` is referenced by some case
//! (no orphans, BQ304). The shape of each case is its section's business ([`super::registry`]),
//! except one rule every section shares: a case field that lists what must hold after the run
//! ([`VACUOUS_WHEN_EMPTY`]: `expect`, `expect_preserved`, `expect_envelope`, …, `deliveries`;
//! and `expect.dead_letter`) is never an empty object or array (BQ308), since an empty one pins nothing and every SDK passes it.
//! Fields where empty is itself the expectation (`expect_warnings: []`, no warnings;
//! `expect_retry_topics: []`, none) are not among them.

use std::collections::HashSet;

use crate::diag::{Code, Finding};
use crate::sections::read::missing_file_message;
use crate::suite::{MANIFEST, pointer};

use super::Ctx;

/// Case fields that say what must hold after the run, each an object or array of things that
/// must: empty, the case pins nothing (an SDK with any bug passes it).
const VACUOUS_WHEN_EMPTY: [&str; 8] = [
    "expect",
    "expect_preserved",
    "expect_envelope",
    "expect_after_reencode",
    "expect_absent_after_reencode",
    "expect_absent_headers",
    "expect_dead_letter",
    "deliveries",
];

/// The same inside `expect`: `expect.dead_letter` lists the dead-letter sub-fields the copy must
/// carry ("if expect.dead_letter is present, the message carries a matching dead_letter block").
const VACUOUS_IN_EXPECT: [&str; 1] = ["dead_letter"];

/// The fields of `case` among [`VACUOUS_WHEN_EMPTY`] and (as `expect/…`) [`VACUOUS_IN_EXPECT`]
/// that are empty, as pointers relative to the case.
pub(super) fn vacuous(case: &serde_json::Value) -> impl Iterator<Item = String> + '_ {
    let empty = |v: Option<&serde_json::Value>| match v {
        Some(serde_json::Value::Object(o)) => o.is_empty(),
        Some(serde_json::Value::Array(a)) => a.is_empty(),
        _ => false,
    };
    let top = VACUOUS_WHEN_EMPTY.into_iter().filter(move |key| empty(case.get(key))).map(str::to_owned);
    let inner = VACUOUS_IN_EXPECT
        .into_iter()
        .filter(move |key| empty(case.get("expect").and_then(|e| e.get(key))))
        .map(|key| format!("expect/{key}"));
    top.chain(inner)
}

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    // A manifest that is missing, does not parse or is no object is its own finding (BQ003,
    // BQ001, BQ104): no case can be read, so every fixture would look unreferenced.
    if cx.suite.manifest().is_none() {
        return out;
    }
    for section in cx.suite.sections() {
        for case in cx.cases(section.name) {
            for key in vacuous(case.value) {
                {
                    out.push(
                        Finding::error(
                            Code::CASE_BAD_VALUE,
                            format!(
                                "{key} of {}/{} is empty: it pins nothing, so an SDK with any bug passes the case; \
                                 list what must hold, or remove the case",
                                section.name, case.id
                            ),
                        )
                        .in_file(MANIFEST)
                        .at(key.split('/').fold(case.pointer.clone(), |at, step| pointer::join(&at, step))),
                    );
                }
            }
        }
    }
    let refs = cx.file_refs();
    let referenced: HashSet<&str> = refs.iter().map(|(_, f)| *f).collect();
    for (ptr, file) in refs {
        let message = if cx.suite.file(file).is_none() {
            missing_file_message(file)
        } else if !file.starts_with("fixtures/") {
            format!(
                "{file} is not a fixture: a case's file must lie under fixtures/, which every vendored copy carries"
            )
        } else {
            continue;
        };
        out.push(Finding::error(Code::MISSING_FIXTURE, message).in_file(MANIFEST).at(ptr.clone()));
    }
    for f in cx.suite.files() {
        if f.rel.starts_with("fixtures/") && f.rel.ends_with(".json") && !referenced.contains(f.rel.as_str()) {
            out.push(
                Finding::error(Code::ORPHAN_FIXTURE, "no case references this fixture; reference it or delete it")
                    .in_file(f.rel.clone()),
            );
        }
    }
    out
}

//! File references and fixtures.
//!
//! Rules: every `file`, `envelope_file` and `fixture` reference anywhere in the manifest names a
//! loaded file under `fixtures/` (BQ301: decisions R3; `LICENSE` and `sync-targets.json` are
//! read with the suite but reach no vendored copy, and neither they nor `CONFORMANCE_VERSION`
//! are fixtures a case could run on); every file under `fixtures/` is referenced by some case
//! (no orphans, BQ304). The shape of each case is its section's business ([`super::registry`]).

use std::collections::HashSet;

use crate::diag::{Code, Finding};
use crate::sections::read::missing_file_message;
use crate::suite::MANIFEST;

use super::Ctx;

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    if cx.suite.json(MANIFEST).is_none() {
        return out;
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

//! File references and fixtures.
//!
//! Rules: every `file`, `envelope_file` and `fixture` reference anywhere in the manifest names a
//! loaded suite file (BQ301); every file under `fixtures/` is referenced by some case (no
//! orphans, BQ304). The shape of each case is its section's business ([`super::registry`]).

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
        if cx.suite.file(file).is_none() {
            out.push(
                Finding::error(Code::MISSING_FIXTURE, missing_file_message(file)).in_file(MANIFEST).at(ptr.clone()),
            );
        }
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

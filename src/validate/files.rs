//! Files: the required ones exist, every file is readable UTF-8, every `.json` parses, nothing
//! but `.json` files (and directories) lives under `schema/` and `fixtures/`.
//!
//! The last rule is what keeps editor backups, `.DS_Store` and stray notes out of a release:
//! `release` refuses to build while `validate` has findings.

use crate::diag::{Code, Finding};
use crate::suite::{self, Content};

use super::Ctx;

const REQUIRED: [&str; 5] =
    [suite::MANIFEST, suite::VERSION_FILE, suite::ENVELOPE_SCHEMA, suite::RESULTS_SCHEMA, suite::RESULTS_EXAMPLE];

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for rel in REQUIRED {
        if cx.suite.file(rel).is_none() {
            out.push(Finding::error(Code::MISSING_FILE, format!("{rel} is missing: every suite has it")).in_file(rel));
        }
    }
    for rel in &cx.suite.irregular {
        out.push(
            Finding::error(
                Code::IRREGULAR_FILE,
                "not a regular file or directory (symlinks and special files are not allowed in a suite)",
            )
            .in_file(rel.clone()),
        );
    }
    for f in cx.suite.files() {
        let in_suite_dir = suite::SUITE_DIRS.iter().any(|d| f.rel.starts_with(&format!("{d}/")));
        if in_suite_dir && !f.rel.ends_with(".json") {
            out.push(
                Finding::error(
                    Code::STRAY_FILE,
                    "only .json files belong under schema/ and fixtures/; move or delete this file",
                )
                .in_file(f.rel.clone()),
            );
        }
        if f.bytes.starts_with(b"\xEF\xBB\xBF") {
            out.push(
                Finding::error(Code::COMPAT_BOM, "file starts with a UTF-8 byte-order mark; strict JSON parsers (PHP json_decode, serde_json) refuse it")
                    .in_file(f.rel.clone()),
            );
        }
        match &f.content {
            Content::Unreadable(e) => {
                out.push(Finding::error(Code::UNREADABLE_FILE, format!("cannot read: {e}")).in_file(f.rel.clone()))
            }
            Content::NotUtf8(at) => out.push(
                Finding::error(Code::NOT_UTF8, format!("not valid UTF-8 (first bad byte at offset {at})"))
                    .in_file(f.rel.clone()),
            ),
            Content::Json { parsed: Err(e), .. } => out.push(
                Finding::error(Code::INVALID_JSON, format!("does not parse as JSON: {}", e.message))
                    .in_file(f.rel.clone())
                    .with_span(e.span),
            ),
            _ => {}
        }
    }
    out
}

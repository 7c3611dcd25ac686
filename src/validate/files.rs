//! Files: the required ones exist (`LICENSE`, which every release asset ships, not empty, though
//! a released copy as `sync` vendors one may leave it out; and
//! `CHANGELOG.md`, whose entry for the version [`super::manifest`] requires, except in a
//! released copy of a version that can have been released, which never has one:
//! [`suite::Suite::is_released_copy`], no pre-release, none later than the recorded version),
//! every file is a readable regular file within the size caps
//! and UTF-8, every `.json` parses (nesting within the parser's limit) with no repeated key
//! outside `fixtures/`, nothing but `.json` files (and directories) lives under `schema/` and
//! `fixtures/` and nothing there is hidden (no name starting with `.`), and every path is portable (BQ011, the portable rule of [`suite::paths`]: what
//! `release` would refuse to build, and more, is reported here, in the pull request).
//!
//! Fixtures are exempt from the repeated-key rule because several repeat keys on purpose (the
//! last-wins cases are part of the contract). A repeated key elsewhere is reported at its
//! repeated occurrence, and the message names the first. The stray-file rule is what keeps
//! editor backups, `.DS_Store`, a tool's hidden `.cache/` and stray notes out of a release: `release` refuses to build
//! while `validate` has findings. A file in UTF-16 (with a byte-order mark or without, which
//! is valid UTF-8 but not JSON) is one BQ002 saying so, not a bad byte or a parse error.

use crate::diag::{Code, Finding};
use crate::fsutil::human_size;
use crate::suite::json::Foreign;
use crate::suite::{self, Content, JsonErrorKind, paths};

use super::Ctx;

const REQUIRED: [&str; 6] = [
    suite::MANIFEST,
    suite::VERSION_FILE,
    suite::LICENSE,
    suite::ENVELOPE_SCHEMA,
    suite::RESULTS_SCHEMA,
    suite::RESULTS_EXAMPLE,
];

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    // A released copy as `sync` vendors one need not hold the LICENSE: a vendored copy is the
    // four entries of `crate::vendored`, and the licence beside them is the SDK repository's
    // business (`sync` neither writes nor deletes it). `release` still refuses to build without.
    let released_copy = cx.suite.is_released_copy();
    for rel in REQUIRED {
        if cx.suite.file(rel).is_none() && !(rel == suite::LICENSE && released_copy) {
            out.push(Finding::error(Code::MISSING_FILE, format!("{rel} is missing: every suite has it")).in_file(rel));
        }
    }
    // The licence every release asset ships: `release` refuses without one, so validate says so
    // first; one that holds nothing licenses nothing.
    if let Some(text) = cx.suite.file(suite::LICENSE).and_then(|f| f.text())
        && text.trim().is_empty()
    {
        out.push(
            Finding::error(Code::MISSING_FILE, "LICENSE is empty: the release asset ships it as the suite's licence")
                .in_file(suite::LICENSE),
        );
    }
    // A released copy (fetched or vendored) has exactly the asset's files, never CHANGELOG.md.
    if cx.suite.changelog().is_none() && !released_copy {
        out.push(
            Finding::error(
                Code::MISSING_FILE,
                format!(
                    "{} is missing: every suite version has an entry there, which the release gate and the release \
                     notes read",
                    suite::CHANGELOG
                ),
            )
            .in_file(suite::CHANGELOG),
        );
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
    out.extend(names(cx));
    // The changelog is read like a suite file (and reported like one when it cannot be), but it
    // is Markdown: no JSON rule applies to it.
    for f in cx.suite.files().chain(cx.suite.changelog()) {
        if is_stray(&f.rel) {
            let message = if f.rel.ends_with(".json") {
                "hidden files and directories (a name starting with '.', a tool's: .cache/, .idea/, macOS's ._ \
                 twins) do not belong under schema/ and fixtures/; move or delete this file"
            } else {
                "only .json files belong under schema/ and fixtures/; move or delete this file"
            };
            out.push(Finding::error(Code::STRAY_FILE, message).in_file(f.rel.clone()));
        }
        if f.bytes().starts_with(b"\xEF\xBB\xBF") && f.rel != suite::CHANGELOG {
            out.push(
                Finding::error(Code::COMPAT_BOM, "file starts with a UTF-8 byte-order mark; strict JSON parsers (PHP json_decode, serde_json) refuse it")
                    .in_file(f.rel.clone()),
            );
        }
        let utf16 = || {
            Finding::error(
                Code::NOT_UTF8,
                "is UTF-16, not UTF-8 (Notepad's \"Unicode\", PowerShell 5's >): save it as UTF-8 without a \
                 byte-order mark",
            )
            .in_file(f.rel.clone())
        };
        let is_utf16 = || Foreign::sniff(f.bytes()) == Some(Foreign::Utf16);
        match &f.content {
            Content::NotUtf8(_) | Content::Json { parsed: Err(_), .. } if is_utf16() => out.push(utf16()),
            Content::Unreadable(e) => {
                out.push(Finding::error(Code::UNREADABLE_FILE, format!("cannot read: {e}")).in_file(f.rel.clone()))
            }
            Content::NotUtf8(at) => out.push(
                Finding::error(Code::NOT_UTF8, format!("not valid UTF-8 (first bad byte at offset {at})"))
                    .in_file(f.rel.clone()),
            ),
            Content::NotRegular(what) => out.push(
                Finding::error(
                    Code::NOT_REGULAR_FILE,
                    format!("not read: it is {what}, and only regular files are read"),
                )
                .in_file(f.rel.clone()),
            ),
            Content::TooLarge { size, cap, whole_suite } => out.push(
                Finding::error(
                    Code::FILE_TOO_LARGE,
                    if *whole_suite {
                        format!(
                            "not read: its {size} bytes would take the suite past the {} it may hold in all",
                            human_size(suite::SUITE_CAP)
                        )
                    } else {
                        format!("not read: {size} bytes, more than the {} a suite file may have", human_size(*cap))
                    },
                )
                .in_file(f.rel.clone()),
            ),
            Content::Json { parsed: Err(e), .. } => {
                let code = if e.kind == JsonErrorKind::TooDeep { Code::JSON_TOO_DEEP } else { Code::INVALID_JSON };
                let message = if e.kind == JsonErrorKind::TooDeep {
                    e.message.clone()
                } else {
                    format!("does not parse as JSON: {}", e.message)
                };
                out.push(Finding::error(code, message).in_file(f.rel.clone()).with_span(e.span));
            }
            _ => {}
        }
        if !f.is_fixture() {
            for d in f.duplicates() {
                out.push(
                    Finding::error(Code::DUPLICATE_KEY, format!("{d}; the last value would win silently"))
                        .in_file(f.rel.clone())
                        .at(d.pointer.clone())
                        .with_span(Some(d.again)),
                );
            }
        }
    }
    out
}

pub(super) use crate::suite::is_stray;

/// BQ011: each path that breaks the portable rule, and each path equal to an earlier one (files
/// and the directories they lie in) when letter case is ignored. A stray file (BQ006) or an
/// irregular one (BQ005) is not looked at: it must go whatever its name.
fn names(cx: &Ctx<'_>) -> Vec<Finding> {
    let files: Vec<&str> = cx.suite.files().map(|f| f.rel.as_str()).filter(|rel| !is_stray(rel)).collect();
    let dirs = paths::parents(files.iter().copied());
    let mut out = Vec::new();
    // A directory is reported once, not again in each path under it.
    let mut bad_dirs: Vec<&str> = Vec::new();
    for rel in dirs.iter().chain(&files) {
        if bad_dirs.iter().any(|d| rel.strip_prefix(d).is_some_and(|r| r.starts_with('/'))) {
            continue;
        }
        if let Err(why) = paths::check_portable(rel) {
            out.push(Finding::error(Code::UNPORTABLE_NAME, format!("not a portable name: {why}")).in_file(*rel));
            if dirs.contains(rel) {
                bad_dirs.push(rel);
            }
        }
    }
    for (first, again) in paths::case_collisions(dirs.iter().copied().chain(files.iter().copied())) {
        out.push(
            Finding::error(
                Code::UNPORTABLE_NAME,
                format!("differs from {first} only in letter case: on Windows and macOS one would overwrite the other"),
            )
            .in_file(again),
        );
    }
    out
}

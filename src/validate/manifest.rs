//! The manifest's top level and the suite version.
//!
//! Rules: the manifest is a JSON object with `schema_version` the integer literal 1 (R20.1: not
//! `1.0`, not `"1"`), a string `description`, a SemVer `conformance_version`, an object
//! `sections` and an array `exceptions`; `CONFORMANCE_VERSION` holds one SemVer version (a
//! `-pre` suffix marks an untagged suite) of at most [`MAX_VERSION_LEN`] characters, equal to
//! `conformance_version`; `CHANGELOG.md` has a non-empty entry for that version (BQ105), found
//! by the one CHANGELOG reader ([`crate::suite::changelog::entry_text`], what the release notes
//! print and the release gate reads): a `## X.Y.Z` heading for `X.Y.Z`; for a pre-release
//! `X.Y.Z-pre`, its own `## X.Y.Z-pre` heading or, failing that, the `## X.Y.Z` heading of the
//! release it becomes (the entry is written as the version is developed, under the heading it
//! will be released with). A missing or unreadable CHANGELOG is the files family's (BQ003,
//! BQ002, BQ004), not repeated here.

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::suite::{CHANGELOG, MANIFEST, VERSION_FILE, changelog};

use super::Ctx;

/// The longest version a suite may have: `babelqueue-conformance-<version>` is the release's
/// root directory, the prefix of every path in the asset's ustar headers (155 bytes at most,
/// with the portable suite paths of at most 100 bytes beneath it).
pub const MAX_VERSION_LEN: usize = 64;

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let at = |code, msg: String, ptr: &str| Finding::error(code, msg).in_file(MANIFEST).at(ptr);

    if let Some(text) = cx.suite.file(VERSION_FILE).and_then(|f| f.text()) {
        let v = text.trim();
        if let Err(e) = semver::Version::parse(v) {
            out.push(
                Finding::error(
                    Code::VERSION_NOT_SEMVER,
                    format!("{v:?} is not a SemVer version, MAJOR.MINOR.PATCH such as 1.6.0 ({e})"),
                )
                .in_file(VERSION_FILE),
            );
        } else if v.len() > MAX_VERSION_LEN {
            out.push(
                Finding::error(
                    Code::VERSION_NOT_SEMVER,
                    format!(
                        "the version is {} characters long, more than {MAX_VERSION_LEN}: it names the release's \
                         root directory and asset (babelqueue-conformance-<version>), which a ustar header and every \
                         platform must hold",
                        v.len()
                    ),
                )
                .in_file(VERSION_FILE),
            );
        } else if text != format!("{v}\n") && text != v {
            out.push(
                Finding::error(
                    Code::VERSION_NOT_SEMVER,
                    format!(
                        "the version file must hold the version alone on one line, and at most a newline after it; it \
                         holds {:?}",
                        text.chars().take(64).collect::<String>()
                    ),
                )
                .in_file(VERSION_FILE),
            );
        }
    }

    if let (Some(v), Some(text)) =
        (cx.suite.version().filter(|v| semver::Version::parse(v).is_ok()), cx.suite.changelog().and_then(|f| f.text()))
        && changelog::entry_text(text, v).is_none()
    {
        let base = v.split(['-', '+']).next().unwrap_or(v);
        let heading = if base == v { format!("\"## {v}\"") } else { format!("\"## {v}\" or \"## {base}\"") };
        let written = changelog::headings(text).into_iter().find(|h| h == v || h == base);
        let message = match written {
            Some(h) => format!(
                "{CHANGELOG} has a heading \"## {h}\" but nothing under it: say what this version changes there (the \
                 release notes are that entry)"
            ),
            None => {
                // A heading that names the version another way (`## v1.7.0`, `### 1.7.0`, `##
                // Version 1.7.0`) is the likely slip: say which line, and the form an entry has.
                let near = text.lines().enumerate().find(|(_, l)| l.trim_start().starts_with('#') && l.contains(base));
                let hint = near.map_or_else(String::new, |(n, l)| {
                    format!(
                        "; line {} ({:?}) names it, but an entry's heading is the version alone at level 2",
                        n + 1,
                        l.trim().chars().take(80).collect::<String>()
                    )
                });
                format!(
                    "{CHANGELOG} has no entry for {v}: add a {heading} heading with what this version changes (the \
                     release notes are that entry){hint}"
                )
            }
        };
        out.push(Finding::error(Code::CHANGELOG_NO_ENTRY, message).in_file(CHANGELOG));
    }

    let Some(json) = cx.suite.json(MANIFEST) else {
        return out;
    };
    let Some(m) = json.as_object() else {
        out.push(at(Code::MANIFEST_SHAPE, "the manifest must be a JSON object".into(), ""));
        return out;
    };

    match m.get("schema_version") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        Some(other) => out.push(at(
            Code::SCHEMA_VERSION,
            format!("schema_version must be the integer 1, found {other}"),
            "/schema_version",
        )),
        None => out.push(at(Code::SCHEMA_VERSION, "schema_version is missing (it must be the integer 1)".into(), "")),
    }

    for (key, kind, ok) in [
        ("description", "a string", m.get("description").is_some_and(Value::is_string)),
        ("conformance_version", "a string", m.get("conformance_version").is_some_and(Value::is_string)),
        ("sections", "an object", m.get("sections").is_some_and(Value::is_object)),
        ("exceptions", "an array", m.get("exceptions").is_some_and(Value::is_array)),
    ] {
        if !ok {
            let ptr = if m.contains_key(key) { format!("/{key}") } else { String::new() };
            out.push(at(Code::MANIFEST_SHAPE, format!("top-level {key:?} must be {kind}"), &ptr));
        }
    }

    if let Some(mv) = m.get("conformance_version").and_then(Value::as_str) {
        if let Err(e) = semver::Version::parse(mv) {
            out.push(at(
                Code::VERSION_NOT_SEMVER,
                format!("conformance_version {mv:?} is not SemVer ({e})"),
                "/conformance_version",
            ));
        }
        if let Some(fv) = cx.suite.version()
            && fv != mv
        {
            out.push(at(
                Code::VERSION_MISMATCH,
                format!(
                    "conformance_version is {mv:?} but {VERSION_FILE} says {fv:?}; the version is said in three \
                     places, bumped together: {}",
                    crate::suite::VERSION_PLACES
                ),
                "/conformance_version",
            ));
        }
    }
    out
}

//! Compatibility with the real SDK runners (decisions R20) — the rules a program can check.
//!
//! Real SDKs vendor the suite and read its early sections by name, with parsers that are
//! stricter or looser than ours. Rules (the ones about the top-level `cases` live with that
//! section, [`crate::sections::envelope::cases`]): every file reference a plain relative path (no `..`, leading `/`, `\`, `#`, `?`, `%`, empty or `.`
//! components); the manifest nests at most 511 levels (PHP `json_decode` depth 512); no lone
//! surrogate escape in the manifest or any fixture; case names non-empty without `/`; no key in
//! a runner-mapped object that differs from a mapped key only in letter case (Go's decoder would
//! read it into the mapped field).

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::sections::judge::lone_surrogate;
use crate::suite::{MANIFEST, pointer, span};

use super::{Ctx, walk_objects};

/// PHP `json_decode`'s default depth is 512: a document may nest 511 levels.
const MAX_DEPTH: usize = 511;
// Why the depth scan may skip a manifest that parses.
const _: () = assert!(crate::suite::json::MAX_DEPTH < MAX_DEPTH);
/// Objects under these keys are free-form payloads, not runner-mapped structures.
const FREE_FORM: [&str; 9] = [
    "data",
    "schema",
    "expect_preserved",
    "expect_after_reencode",
    "expect_envelope",
    "meta",
    "meta_entries",
    "extras_top",
    "extras_meta",
];
/// Field keys the published runners map by name (R20.5) even when the manifest lacks them;
/// the early sections they map by name (R20.2) come from the registry
/// ([`crate::sections::Section::is_early`]).
const MAPPED: [&str; 6] = ["schema_version", "description", "name", "file", "valid", "expect"];

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let at = |code, msg: String, ptr: &str| Finding::error(code, msg).in_file(MANIFEST).at(ptr);

    // Text-level rules run even when the manifest does not parse. A manifest that parses nests
    // at most `suite::json::MAX_DEPTH` (127) levels, so only one that does not is scanned.
    if let (Some(text), None) = (cx.suite.file(MANIFEST).and_then(|f| f.text()), cx.suite.json(MANIFEST)) {
        let depth = max_depth(text);
        if depth > MAX_DEPTH {
            out.push(
                Finding::error(
                    Code::COMPAT_DEPTH,
                    format!("the manifest nests {depth} levels; PHP json_decode stops at {MAX_DEPTH}"),
                )
                .in_file(MANIFEST),
            );
        }
    }
    // A file that parses has no lone surrogate escape (the parser refuses one in any string or
    // key: `lone_surrogates_do_not_parse`), so only the ones that do not are scanned.
    for f in cx.suite.files() {
        if let (true, Some(text), None) = (f.rel.ends_with(".json"), f.text(), f.json())
            && let Some(offset) = lone_surrogate(text)
        {
            out.push(
                    Finding::error(Code::COMPAT_LONE_SURROGATE, "lone surrogate escape: strict JSON parsers refuse the file; carry such bodies as a string or base64")
                        .in_file(f.rel.clone())
                        .with_span(Some(span::span_at(text, offset))),
                );
        }
    }

    let Some(m) = cx.suite.json(MANIFEST) else {
        return out;
    };

    for (ptr, file) in cx.file_refs() {
        if let Err(why) = plain_relative(file) {
            out.push(at(Code::COMPAT_PATH, format!("{file:?} is not a plain relative path: {why}"), ptr));
        }
    }

    for s in cx.suite.sections() {
        for case in cx.cases(s.name) {
            if let Some(name) = case.value.get("name") {
                match name.as_str() {
                    Some(n) if !n.is_empty() && !n.contains('/') => {}
                    _ => out.push(at(
                        Code::COMPAT_CASE_NAME,
                        format!("case name {name} must be a non-empty string without '/'"),
                        &pointer::join(&case.pointer, "name"),
                    )),
                }
            }
        }
    }

    key_case(m, &mut out);
    out
}

/// Why `p` is not a plain relative path, if it is not.
pub(crate) fn plain_relative(p: &str) -> Result<(), &'static str> {
    if p.is_empty() {
        return Err("empty");
    }
    if p.starts_with('/') {
        return Err("absolute");
    }
    if let Some(c) = p.chars().find(|c| matches!(c, '\\' | '#' | '?' | '%') || c.is_control()) {
        return Err(match c {
            '\\' => "backslash",
            '#' | '?' | '%' => "'#', '?' and '%' break URL-based loaders",
            _ => "control character",
        });
    }
    for comp in p.split('/') {
        match comp {
            "" => return Err("empty path component"),
            "." => return Err("'.' component"),
            ".." => return Err("'..' component"),
            _ => {}
        }
    }
    Ok(())
}

/// Maximum nesting depth of JSON text (brackets outside strings).
fn max_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The early sections the real runners map by name (R20.2).
fn early() -> impl Iterator<Item = &'static str> + 'static {
    crate::sections::registry().filter(|s| s.is_early()).map(|s| s.name())
}

/// Keys that differ from a mapped key only in letter case.
///
/// The vocabulary is every key without an upper-case letter of the runner-mapped objects plus
/// [`MAPPED`]; a key is reported against the first vocabulary word (in byte order) that is not
/// the key and equals it ignoring ASCII case. Each distinct key is looked up once, and the
/// manifest is walked a second time (for pointers) only when some key matched.
fn key_case(manifest: &Value, out: &mut Vec<Finding>) {
    let skip = |k: &str| FREE_FORM.contains(&k);
    let mut keys: HashSet<&str> = HashSet::new();
    walk_objects(manifest, &skip, &mut |_, m| keys.extend(m.keys().map(String::as_str)));
    let mut keys: Vec<&str> = keys.into_iter().collect();
    keys.sort_unstable();
    let vocab: BTreeSet<&str> = keys
        .iter()
        .copied()
        .filter(|k| !k.bytes().any(|b| b.is_ascii_uppercase()))
        .chain(MAPPED)
        .chain(early().map(|s| -> &str { s }))
        .collect();
    let mut by_fold: HashMap<String, Vec<&str>> = HashMap::new();
    for v in &vocab {
        by_fold.entry(v.to_ascii_lowercase()).or_default().push(v);
    }
    let mapped: HashMap<&str, &str> = keys
        .iter()
        .filter_map(|k| Some((*k, *by_fold.get(&k.to_ascii_lowercase())?.iter().find(|v| *v != k)?)))
        .collect();
    if mapped.is_empty() {
        return;
    }
    walk_objects(manifest, &skip, &mut |at, m| {
        for k in m.keys() {
            if let Some(mapped) = mapped.get(k.as_str()) {
                out.push(
                    Finding::error(Code::COMPAT_KEY_CASE, format!("key {k:?} differs from the mapped key {mapped:?} only in letter case; Go's decoder would read it as {mapped:?}"))
                        .in_file(MANIFEST)
                        .at(at.join(k)),
                );
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(max_depth(r#"{"a":[[1]],"b":"[[[["}"#), 3);
    }

    #[test]
    fn key_case_reports_twins_once_with_escaped_pointers_and_skips_free_form_objects() {
        let m = serde_json::json!({
            "cases": [{"name": "a", "Name": "b"}],
            "sec": {"x/y": {"Cases": [], "cases": []}, "data": {"NAME": 1}, "list": [[{"FILE": "f"}]]},
            "Unmatched": 1
        });
        let mut out = Vec::new();
        key_case(&m, &mut out);
        let mut got: Vec<_> = out.iter().map(|f| (f.code.id, f.pointer.clone().unwrap_or_default())).collect();
        got.sort();
        let want = [("BQ508", "/cases/0/Name"), ("BQ508", "/sec/list/0/0/FILE"), ("BQ508", "/sec/x~1y/Cases")];
        assert_eq!(got, want.map(|(c, p)| (c, p.to_owned())));
        assert!(out[0].message.contains("only in letter case"));

        // An early section's name is in the vocabulary even where the manifest lacks the
        // section: a runner maps `SQS` to its `sqs` field all the same.
        let mut out = Vec::new();
        key_case(&serde_json::json!({"SQS": {}, "Mystery": {}}), &mut out);
        let got: Vec<_> = out.iter().map(|f| (f.code.id, f.pointer.clone().unwrap_or_default())).collect();
        assert_eq!(got, [("BQ508", "/SQS".to_owned())]);
        assert!(out[0].message.contains("the mapped key \"sqs\""), "{}", out[0].message);
    }

    #[test]
    fn lone_surrogates_do_not_parse() {
        for text in [r#"["\ud800"]"#, r#"["\udc00"]"#, r#"{"\udbff":1}"#, r#"["\ud800\u0041"]"#, r#"["x\uD800"]"#] {
            assert!(lone_surrogate(text).is_some(), "{text}");
            assert!(crate::suite::json::parse(text).is_err(), "{text}");
        }
        assert!(crate::suite::json::parse(r#"["\ud83d\ude00", "\\ud800"]"#).is_ok());
    }

    #[test]
    fn plain_relative_paths() {
        assert!(plain_relative("fixtures/a.json").is_ok());
        let url = "'#', '?' and '%' break URL-based loaders";
        for (bad, why) in [
            ("", "empty"),
            ("/abs", "absolute"),
            ("a/../b", "'..' component"),
            ("./a", "'.' component"),
            ("a//b", "empty path component"),
            ("a/", "empty path component"),
            ("a\\b", "backslash"),
            ("a#b", url),
            ("a?b", url),
            ("a%20b", url),
            ("a\nb", "control character"),
            ("a\u{7f}b", "control character"),
        ] {
            assert_eq!(plain_relative(bad), Err(why), "{bad:?}");
        }
    }
}

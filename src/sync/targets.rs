//! The sync targets: where each SDK repository keeps its vendored copy (decisions R19).
//!
//! Invariants: targets come only from data — the suite's `sync-targets.json` (read once, with
//! the suite) or a `--targets FILE` — and are accepted only when the one shape rule that
//! `validate` applies ([`crate::validate::sync_targets::shape`]) finds nothing; so every
//! accepted `repo` is one plain directory name and every `path` a plain relative path without
//! `..` or `.git` components, and no two targets of one repository nest. A target is named by
//! `<repo>/<path>`; `--only` takes such a name or a repository name (all its targets).

use std::path::Path;

use serde_json::Value;

use crate::diag::Finding;
use crate::suite::{self, Suite};
use crate::validate::sync_targets::shape;

/// One vendored copy: an SDK repository (a directory under the sync root) and the directory
/// inside it that holds the copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub repo: String,
    pub path: String,
}

impl Target {
    /// `<repo>/<path>`: the target's name, and its place relative to the sync root.
    pub fn id(&self) -> String {
        format!("{}/{}", self.repo, self.path)
    }
}

/// The targets of a sync-targets document, or why it is refused (`file` names it in the text).
pub fn from_json(doc: &Value, file: &str) -> Result<Vec<Target>, String> {
    let findings = shape(doc, file);
    if !findings.is_empty() {
        return Err(refusal(file, &findings));
    }
    let list = doc["targets"].as_array().map(Vec::as_slice).unwrap_or_default();
    Ok(list
        .iter()
        .map(|t| Target {
            repo: t["repo"].as_str().unwrap_or_default().into(),
            path: t["path"].as_str().unwrap_or_default().into(),
        })
        .collect())
}

/// The targets of the suite's own `sync-targets.json`.
pub fn from_suite(suite: &Suite) -> Result<Vec<Target>, String> {
    let shown = suite.display_path(suite::SYNC_TARGETS);
    let file = suite
        .file(suite::SYNC_TARGETS)
        .ok_or_else(|| format!("{shown} does not exist; add it or pass --targets FILE"))?;
    parsed(file.text(), &shown)
}

/// The targets of a targets file given on the command line.
pub fn from_file(path: &Path) -> Result<Vec<Target>, String> {
    let shown = path.display().to_string();
    let bytes = crate::fsutil::read_bounded(path, suite::FILE_CAP).map_err(|e| format!("cannot read {shown}: {e}"))?;
    parsed(std::str::from_utf8(&bytes).ok(), &shown)
}

fn parsed(text: Option<&str>, shown: &str) -> Result<Vec<Target>, String> {
    let text = text.ok_or_else(|| format!("{shown} is not readable UTF-8 text"))?;
    let doc = suite::parse_json(text).map_err(|e| format!("{shown} does not parse as JSON: {}", e.message))?;
    from_json(&doc, shown)
}

fn refusal(file: &str, findings: &[Finding]) -> String {
    let mut s = format!("{file} is not a valid targets file:");
    for f in findings {
        let at = f.pointer.as_deref().filter(|p| !p.is_empty()).unwrap_or("document root");
        s.push_str(&format!("\n  [{}] at {at}: {}", f.code, f.message));
    }
    s
}

/// The targets `only` names (all targets when empty), in file order; an unknown name is an
/// error.
pub fn select(targets: &[Target], only: &[String]) -> Result<Vec<Target>, String> {
    if only.is_empty() {
        return Ok(targets.to_vec());
    }
    let named = |t: &Target, n: &str| t.repo == n || t.id() == n.trim_end_matches('/');
    if let Some(unknown) = only.iter().find(|n| !targets.iter().any(|t| named(t, n))) {
        return Err(format!(
            "--only {unknown:?} names no sync target (name a repository, or a target as <repo>/<path>)"
        ));
    }
    Ok(targets.iter().filter(|t| only.iter().any(|n| named(t, n))).cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_selects_by_repository_or_by_id_in_file_order() {
        let doc = json!({"schema_version": 1, "targets": [
            {"repo": "a", "path": "x"}, {"repo": "b", "path": "y"}, {"repo": "a", "path": "z"}]});
        let all = from_json(&doc, "t.json").unwrap();
        let ids = |v: Vec<Target>| v.iter().map(Target::id).collect::<Vec<_>>();
        assert_eq!(ids(select(&all, &[]).unwrap()), ["a/x", "b/y", "a/z"]);
        assert_eq!(ids(select(&all, &["a".into()]).unwrap()), ["a/x", "a/z"]);
        assert_eq!(ids(select(&all, &["a/z".into(), "b".into()]).unwrap()), ["b/y", "a/z"]);
        assert!(select(&all, &["c".into()]).unwrap_err().contains("\"c\""));
    }

    #[test]
    fn a_bad_document_is_refused_with_every_finding() {
        let doc = json!({"schema_version": 2, "targets": [{"repo": "a", "path": "../x"}]});
        let e = from_json(&doc, "t.json").unwrap_err();
        assert!(e.starts_with("t.json is not a valid targets file:"), "{e}");
        assert!(e.contains("[BQ701 sync-targets-shape] at /schema_version"), "{e}");
        assert!(e.contains("[BQ704 sync-target-path] at /targets/0/path"), "{e}");
    }
}

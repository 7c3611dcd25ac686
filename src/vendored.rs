//! A vendored copy of the suite: reading it from disk and comparing it, byte for byte, with a
//! canonical set of files. One home for the comparison `sync --check` and `fetch --check` share.
//!
//! Invariants: reading never follows a symlink (a symlink or special file is recorded as
//! irregular, never read through); differences are reported from the copy's side — `added` is
//! only in the copy (a directory holding nothing canonical is one entry ending in `/`),
//! `removed` is canonical and missing from the copy, `modified` differs in bytes or is an
//! irregular entry where a file belongs — each list sorted; a unified diff (canonical → copy)
//! accompanies a modified file when both sides are UTF-8 text. Nothing is written.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::Path;

/// How a copy differs from the canonical suite.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drift {
    /// Entries only the copy has (a directory ends in `/`).
    pub added: Vec<String>,
    /// Canonical files the copy lacks.
    pub removed: Vec<String>,
    pub modified: Vec<Modified>,
}

/// One file whose bytes differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modified {
    pub file: String,
    /// The unified diff from the canonical file to the copy; `None` when either side is not
    /// UTF-8 text or not a regular file.
    pub diff: Option<String>,
}

/// What a vendored directory holds.
#[derive(Debug, Default)]
pub struct Tree {
    /// Regular files by relative path.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Symlinks and special files (never followed).
    pub irregular: BTreeSet<String>,
    /// Directories.
    pub dirs: BTreeSet<String>,
}

/// Read every entry under `dir` (a real directory), following no symlink.
pub fn read_tree(dir: &Path) -> io::Result<Tree> {
    let mut tree = Tree::default();
    for entry in walkdir::WalkDir::new(dir).follow_links(false).min_depth(1).sort_by_file_name() {
        let entry = entry.map_err(io::Error::other)?;
        let rel = crate::fsutil::slash_relative(dir, entry.path());
        let kind = entry.file_type();
        if kind.is_file() {
            let bytes = crate::fsutil::read_bounded(entry.path(), crate::suite::FILE_CAP).map_err(|e| match e {
                crate::fsutil::ReadError::Io(e) => e,
                other => io::Error::other(format!("{}: {other}", entry.path().display())),
            })?;
            tree.files.insert(rel, bytes);
        } else if kind.is_dir() {
            tree.dirs.insert(rel);
        } else {
            tree.irregular.insert(rel);
        }
    }
    Ok(tree)
}

/// How the copy `tree` differs from `canonical`; `None` when it does not. `labels` name the two
/// sides in diff headers.
pub fn compare(canonical: &BTreeMap<&str, &[u8]>, tree: &Tree, labels: (&str, &str)) -> Option<Drift> {
    let mut drift = Drift::default();
    for (rel, want) in canonical {
        match tree.files.get(*rel) {
            Some(have) if have.as_slice() == *want => {}
            Some(have) => {
                drift.modified.push(Modified { file: (*rel).to_owned(), diff: unified_diff(rel, want, have, labels) })
            }
            None if tree.irregular.contains(*rel) => {
                drift.modified.push(Modified { file: (*rel).to_owned(), diff: None });
            }
            None => drift.removed.push((*rel).to_owned()),
        }
    }
    let extra = tree.files.keys().chain(&tree.irregular).filter(|rel| !canonical.contains_key(rel.as_str()));
    let mut added: BTreeSet<String> = extra.cloned().collect();
    for dir in &tree.dirs {
        let prefix = format!("{dir}/");
        let holds = |rel: &&str| rel.starts_with(&prefix);
        if !canonical.keys().any(holds) && !added.iter().map(String::as_str).any(|r| holds(&r)) {
            added.insert(prefix);
        }
    }
    drift.added = added.into_iter().collect();
    let same = drift.added.is_empty() && drift.removed.is_empty() && drift.modified.is_empty();
    (!same).then_some(drift)
}

/// A unified diff (3 lines of context) from the canonical bytes to the copy's, when both are
/// UTF-8; the headers are `<labels.0>/<rel>` and `<labels.1>/<rel>`.
pub fn unified_diff(rel: &str, canonical: &[u8], copy: &[u8], labels: (&str, &str)) -> Option<String> {
    let (a, b) = (std::str::from_utf8(canonical).ok()?, std::str::from_utf8(copy).ok()?);
    Some(
        similar::TextDiff::from_lines(a, b)
            .unified_diff()
            .context_radius(3)
            .header(&format!("{}/{rel}", labels.0), &format!("{}/{rel}", labels.1))
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LABELS: (&str, &str) = ("canonical", "vendored");

    fn tree(files: &[(&str, &str)], irregular: &[&str], dirs: &[&str]) -> Tree {
        Tree {
            files: files.iter().map(|(k, v)| ((*k).to_owned(), v.as_bytes().to_vec())).collect(),
            irregular: irregular.iter().map(|s| (*s).to_owned()).collect(),
            dirs: dirs.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn compare_reports_every_kind_of_drift_from_the_copys_side() {
        let canonical: BTreeMap<&str, &[u8]> = [
            ("CONFORMANCE_VERSION", &b"1.6.0\n"[..]),
            ("fixtures/a.json", b"{\n  \"a\": 1\n}\n"),
            ("fixtures/b.json", b"{}"),
        ]
        .into();
        let same = tree(
            &[("CONFORMANCE_VERSION", "1.6.0\n"), ("fixtures/a.json", "{\n  \"a\": 1\n}\n"), ("fixtures/b.json", "{}")],
            &[],
            &["fixtures"],
        );
        assert_eq!(compare(&canonical, &same, LABELS), None);
        let drifted = tree(
            &[("CONFORMANCE_VERSION", "1.6.0\n"), ("fixtures/a.json", "{\n  \"a\": 2\n}\n"), ("LICENSE", "MIT")],
            &["fixtures/b.json", "schema/link"],
            &["fixtures", "schema", "old", "old/deeper"],
        );
        let d = compare(&canonical, &drifted, LABELS).unwrap();
        assert_eq!(d.added, ["LICENSE", "old/", "old/deeper/", "schema/link"]);
        assert!(d.removed.is_empty());
        assert_eq!(d.modified.len(), 2);
        assert_eq!(d.modified[0].file, "fixtures/a.json");
        let diff = d.modified[0].diff.as_deref().unwrap();
        assert!(diff.starts_with("--- canonical/fixtures/a.json\n+++ vendored/fixtures/a.json\n@@"), "{diff}");
        assert!(diff.contains("\n-  \"a\": 1\n+  \"a\": 2\n"), "{diff}");
        assert_eq!(d.modified[1], Modified { file: "fixtures/b.json".into(), diff: None });
        let d = compare(&canonical, &tree(&[("fixtures/a.json", "x")], &[], &[]), LABELS).unwrap();
        assert_eq!(d.removed, ["CONFORMANCE_VERSION", "fixtures/b.json"]);
    }

    #[test]
    fn binary_files_get_no_text_diff() {
        assert_eq!(unified_diff("x", b"\xff", b"a", LABELS), None);
        assert!(unified_diff("x", b"a", b"b", LABELS).is_some());
    }
}

//! `fetch --check`: compare a vendored copy on disk with a release's tree in memory.
//!
//! Rules: every path under the copy is compared byte for byte with the release; the copy's
//! top-level `LICENSE` and the release's are ignored (the release ships one, copies do not
//! vendor it). A file only in the copy is *added*, a file only in the release is *removed*, a
//! file in both with different bytes is *modified* (with a unified diff when both sides are
//! UTF-8 text). Symlinks and special files in the copy are never followed: such an entry is
//! added, or modified when the release has a file there. A directory only in the copy is
//! reported (as added, `dir/`) when no file beneath it already is. Nothing is written.

use std::collections::BTreeSet;
use std::path::Path;

use super::{FetchError, Node, Tree};
use crate::suite::LICENSE;

/// How a path differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DriftKind {
    /// Only in the vendored copy.
    Added,
    /// Only in the release.
    Removed,
    /// In both, different.
    Modified,
}

/// One difference between the copy and the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// Path inside the copy / the release root (directories end with `/`).
    pub path: String,
    pub kind: DriftKind,
    /// What differs, in words.
    pub detail: String,
    /// A unified diff (release → copy) when both sides are text.
    pub diff: Option<String>,
}

/// Compare the copy at `dir` with `tree`. Differences come out sorted by path.
pub fn compare(tree: &Tree, dir: &Path) -> Result<Vec<Drift>, FetchError> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut copy_dirs = Vec::new();
    let walk = walkdir::WalkDir::new(dir).min_depth(1).follow_links(false).sort_by_file_name();
    for entry in walk {
        let entry = entry.map_err(|e| FetchError::could_not_run(format!("cannot read {}: {e}", dir.display())))?;
        let rel = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let kind = entry.file_type();
        if rel == LICENSE && !kind.is_dir() {
            continue;
        }
        if kind.is_dir() {
            if tree.entries.get(&rel) != Some(&Node::Dir) {
                copy_dirs.push(rel);
            }
            continue;
        }
        seen.insert(rel.clone());
        let release = match tree.entries.get(&rel) {
            Some(Node::File(b)) => Some(b),
            _ => None,
        };
        let drift = |kind, detail: &str, diff| Drift { path: rel.clone(), kind, detail: detail.to_owned(), diff };
        if !kind.is_file() {
            let what = if kind.is_symlink() { "a symlink" } else { "a special file" };
            match release {
                Some(_) => out.push(drift(
                    DriftKind::Modified,
                    &format!("{what} in the copy, a regular file in the release"),
                    None,
                )),
                None => out.push(drift(DriftKind::Added, &format!("{what} that is not in the release"), None)),
            }
            continue;
        }
        let Some(expected) = release else {
            out.push(drift(DriftKind::Added, "not in the release", None));
            continue;
        };
        let actual = std::fs::read(entry.path())
            .map_err(|e| FetchError::could_not_run(format!("cannot read {}: {e}", entry.path().display())))?;
        if actual != *expected {
            let diff = match (std::str::from_utf8(expected), std::str::from_utf8(&actual)) {
                (Ok(a), Ok(b)) => Some(
                    similar::TextDiff::from_lines(a, b)
                        .unified_diff()
                        .context_radius(3)
                        .header(&format!("{}/{rel}", tree.root), &format!("{}/{rel}", dir.display()))
                        .to_string(),
                ),
                _ => None,
            };
            let detail =
                if diff.is_some() { "differs from the release" } else { "binary content differs from the release" };
            out.push(drift(DriftKind::Modified, detail, diff));
        }
    }
    for d in copy_dirs {
        let prefix = format!("{d}/");
        let under = |p: &String| p.starts_with(&prefix);
        if !seen.iter().any(under) && !tree.entries.keys().any(under) {
            out.push(Drift {
                path: prefix,
                kind: DriftKind::Added,
                detail: "a directory not in the release".into(),
                diff: None,
            });
        }
    }
    for (rel, _) in tree.files() {
        if rel != LICENSE && !seen.contains(rel) {
            out.push(Drift {
                path: rel.to_owned(),
                kind: DriftKind::Removed,
                detail: "in the release, missing from the copy".into(),
                diff: None,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

impl Drift {
    /// This difference as a finding on the copy at `dir` (codes BQ900–BQ902).
    pub fn finding(&self, dir: &Path) -> crate::diag::Finding {
        use crate::diag::{Code, Finding};
        let code = match self.kind {
            DriftKind::Added => Code::DRIFT_ADDED,
            DriftKind::Removed => Code::DRIFT_REMOVED,
            DriftKind::Modified => Code::DRIFT_MODIFIED,
        };
        let shown = dir.display().to_string();
        Finding::error(code, self.detail.clone()).in_file(format!("{}/{}", shown.trim_end_matches('/'), self.path))
    }
}

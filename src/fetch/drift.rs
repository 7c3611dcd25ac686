//! `fetch --check`: compare a vendored copy on disk with a release's tree in memory, through
//! the comparison `sync --check` uses too ([`crate::vendored`]).
//!
//! Rules: the release's files that make a vendored copy ([`vendored::is_part`], the definition
//! `sync --check` uses) are compared byte for byte with every path under the copy; the copy's
//! top-level `LICENSE` is never looked at and the release's is not part of a copy. A file only
//! in the copy is *added*, a file only in the release is *removed*, a file in both with
//! different bytes is *modified* (with a unified diff when both sides are UTF-8 text, or, when
//! the copy only has CR LF for LF, a note saying so). Symlinks and special files in the copy
//! are never followed: such an entry is added, or modified when the release has a file there.
//! A directory only in the copy is reported (as added, `dir/`) when no file beneath it already
//! is. The copy's own `CONFORMANCE_VERSION` is returned beside the drift ([`Compared`]), so that
//! a copy of another release is said as such rather than only as modified files. Nothing is
//! written.

use std::path::Path;

use super::{FetchError, Tree};
use crate::vendored;

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
    /// Modified in its line endings only (CR LF for LF): reported once for the copy
    /// ([`findings`]), not per file.
    pub crlf: bool,
}

/// What comparing a copy with the release found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compared {
    /// The differences, sorted by path.
    pub drift: Vec<Drift>,
    /// The version the copy says it is (its `CONFORMANCE_VERSION`, trimmed), when it has one:
    /// a copy of another release shows as modified files, and this says why.
    pub copy_version: Option<String>,
}

/// Compare the copy at `dir` (its real path; `shown`: as the command line gave it) with `tree`.
/// Differences come out sorted by path.
/// `rewrite` is the command that makes the copy the release (the line-endings note names it).
pub fn compare(tree: &Tree, dir: &Path, shown_dir: &Path, rewrite: &str) -> Result<Compared, FetchError> {
    let copy = vendored::read_tree(dir)
        .map_err(|e| FetchError::could_not_run(format!("cannot read {}: {e}", shown_dir.display())))?;
    let copy_version = copy.version();
    let canonical = vendored::canonical(tree.files());
    let shown = shown_dir.display().to_string();
    let Some(d) = vendored::compare(&canonical, &copy, (&tree.root, shown.trim_end_matches('/'))) else {
        return Ok(Compared { drift: Vec::new(), copy_version });
    };
    let irregular = |p: &str| copy.irregular.contains(p);
    let mut out = Vec::new();
    for path in d.added {
        let detail = if path.ends_with('/') {
            "a directory not in the release"
        } else if irregular(&path) {
            "a symlink or special file that is not in the release"
        } else {
            "not in the release"
        };
        out.push(Drift { path, kind: DriftKind::Added, detail: detail.into(), diff: None, crlf: false });
    }
    for path in d.removed {
        out.push(Drift {
            path,
            kind: DriftKind::Removed,
            detail: "in the release, missing from the copy".into(),
            diff: None,
            crlf: false,
        });
    }
    for m in d.modified {
        let detail = if irregular(&m.file) {
            "a symlink or special file in the copy, a regular file in the release".into()
        } else if m.crlf {
            // The pattern is the copy's path in its repository, not the path as given here
            // (outside a repository that path means nothing to git: the note names the shape).
            let at = vendored::path_in_repository(dir);
            format!("differs from the release: {}", vendored::crlf_note(at.as_deref(), rewrite))
        } else if m.diff.is_some() {
            "differs from the release".into()
        } else {
            "binary content differs from the release".into()
        };
        out.push(Drift { path: m.file, kind: DriftKind::Modified, detail, diff: m.diff, crlf: m.crlf });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Compared { drift: out, copy_version })
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

/// The findings of a comparison with the copy at `dir`: one per difference, except the files
/// whose line endings alone differ (a CR LF checkout changes every text file at once), which
/// are one finding for the copy, naming how many, with the note once.
pub fn findings(drift: &[Drift], dir: &Path) -> Vec<crate::diag::Finding> {
    use crate::diag::{Code, Finding};
    let mut out: Vec<Finding> = drift.iter().filter(|d| !d.crlf).map(|d| d.finding(dir)).collect();
    let crlf: Vec<&Drift> = drift.iter().filter(|d| d.crlf).collect();
    if let Some(first) = crlf.first() {
        let files: Vec<String> = crlf.iter().map(|d| d.path.clone()).collect();
        let note = first.detail.strip_prefix("differs from the release: ").unwrap_or(&first.detail);
        let shown = dir.display().to_string();
        out.push(
            Finding::error(
                Code::DRIFT_MODIFIED,
                format!(
                    "{} from the release only in line endings ({}): {note}",
                    if files.len() == 1 { "1 file differs" } else { "files differ" },
                    crate::diag::listed(&files)
                ),
            )
            .in_file(shown.trim_end_matches('/').to_owned()),
        );
    }
    out
}

/// The finding on what a copy at `dir` that states another release holds against that release
/// (BQ723 when it holds local edits, an error; BQ724 when that could not be told, a warning;
/// none when it is exactly that release). `version` is the release checked against and
/// `update` the whole command that moves the copy to it.
pub fn local_edits_finding(
    edits: &crate::vendored::edits::LocalEdits,
    dir: &Path,
    version: &str,
    update: &str,
) -> Option<crate::diag::Finding> {
    use crate::diag::{Code, Finding};
    use crate::vendored::edits::Verdict;
    let shown = dir.display().to_string();
    let (file, theirs) = (shown.trim_end_matches('/').to_owned(), &edits.version);
    let f = match &edits.verdict {
        Verdict::Exact => return None,
        Verdict::Edited(_) => Finding::error(
            Code::COPY_EDITED,
            format!(
                "the copy states {theirs} but is release {theirs} with {}: moving it to {version} discards them; to \
                 keep them, record them upstream first (a pull request or an issue on the suite, so that a release \
                 carries them), since the copy can only be a release; to discard them, `{update}`",
                edits.edits_said()
            ),
        ),
        Verdict::Unknown(why) => Finding::warning(
            Code::COPY_EDITS_UNKNOWN,
            format!(
                "cannot tell whether the copy, which states {theirs}, is exactly release {theirs} or holds local edits: {why}"
            ),
        ),
    };
    Some(f.in_file(file))
}

/// The clause the note on a copy of another release adds about its own release, when that was
/// told: exactly it, or local edits (which BQ723 names); empty otherwise.
pub fn own_release_clause(edits: Option<&crate::vendored::edits::LocalEdits>) -> String {
    use crate::vendored::edits::Verdict;
    match edits {
        Some(e) if e.verdict == Verdict::Exact => {
            format!(" (it is exactly release {0}: no local edits, checked against {0}'s asset)", e.version)
        }
        Some(e) if matches!(e.verdict, Verdict::Edited(_)) => {
            format!(" beside its local edits against {} (below)", e.version)
        }
        _ => String::new(),
    }
}

//! Asking git about the repository that holds a directory: the one home for running `git`.
//!
//! Invariants:
//! - Every command runs as `git -C DIR` with the variables that point git at another repository
//!   cleared ([`REPOSITORY_VARS`]; a hook sets some of them), so an answer is always about the
//!   repository holding DIR, and with `GIT_OPTIONAL_LOCKS=0`, so that asking (`git status`
//!   refreshes the index when it may) never takes a lock another git process could trip over.
//! - Every command reads the objects the repository really holds: replace refs are off
//!   (`GIT_NO_REPLACE_OBJECTS=1`, and [`REPOSITORY_VARS`] clears `GIT_REPLACE_REF_BASE`), so a
//!   `git replace` of a tag's blob (a graft, or a fetched `refs/replace/*`) cannot stand in for
//!   the bytes a tag or commit names (BQ956, BQ959); and configuration given through the
//!   environment (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`) is cleared, so what a caller asks
//!   with `-c` is the only configuration added to the repository's own.
//! - Nothing here writes: the callers read objects, refs and the work tree's state, never
//!   change them.
//! - git's own error text is kept (trimmed) for the caller's message; a git that cannot be
//!   started says so.
//!
//! [`changes`] is what `sync` and `fetch --update` ask before they replace a vendored copy: the
//! uncommitted changes under it, which the replacement would lose beyond git's reach.

use std::path::Path;
use std::process::{Command, Stdio};

/// The environment variables that make git read another repository than the one holding the
/// directory `-C` names, other objects than those it holds (replace refs under another base),
/// or with configuration the repository does not have: cleared, so the answer is always about
/// that repository's own objects.
const REPOSITORY_VARS: [&str; 11] = [
    "GIT_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_REPLACE_REF_BASE",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
];

/// `git -C dir`, with [`REPOSITORY_VARS`] cleared, replace refs and optional locks off.
pub fn command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    for var in REPOSITORY_VARS {
        cmd.env_remove(var);
    }
    cmd.env("GIT_NO_REPLACE_OBJECTS", "1");
    cmd.env("GIT_OPTIONAL_LOCKS", "0");
    cmd.arg("-C").arg(dir);
    cmd
}

/// Run `git -C dir ARGS`: its stdout, or git's error text.
pub fn run(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = command(dir).args(args).stdin(Stdio::null()).output().map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        Err(if err.is_empty() { format!("git {} failed", args.join(" ")) } else { err })
    }
}

/// git's output as trimmed text.
pub fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim().to_owned()
}

/// The uncommitted state of a directory in its git work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changes {
    /// No directory from it up holds `.git`: there is no committed state to compare with.
    NoRepository,
    /// Nothing under it differs from `HEAD`: no modified, staged, deleted or untracked file
    /// (ignored files do not count).
    Clean,
    /// The paths under it with uncommitted changes, relative to it, sorted.
    Uncommitted(Vec<String>),
    /// A `.git` is there, but git could not answer: it is not installed, it refuses the
    /// repository (another user's, `safe.directory`), a worktree's link is broken, it sees no
    /// work tree (`core.bare`), or `git status` failed. Its error.
    Unknown(String),
}

/// What `git status` says of everything under `dir` (which must exist): modified, staged,
/// deleted, renamed and untracked files each count; ignored files do not. Paths are relative to
/// `dir`. Whether there is a repository at all is decided without git (a `.git` in `dir` or a
/// directory above it, a file or a link as much as a directory), so that a git that cannot be
/// run, or refuses the repository, is an unknown answer, never "no repository".
pub fn changes(dir: &Path) -> Changes {
    let abs = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    if !abs.ancestors().any(|a| std::fs::symlink_metadata(a.join(".git")).is_ok()) {
        return Changes::NoRepository;
    }
    let prefix = match run(dir, &["rev-parse", "--is-inside-work-tree", "--show-prefix"]) {
        Ok(out) => match String::from_utf8_lossy(&out).split_once('\n') {
            Some(("true", prefix)) => prefix.trim_end_matches('\n').to_owned(),
            // A `.git` is there, yet git sees no work tree (`core.bare` set on it): it cannot
            // say what is committed.
            Some(("false", _)) => {
                return Changes::Unknown("git says it is not in a work tree, though a .git is there".into());
            }
            _ => return Changes::Unknown(format!("git rev-parse answered {:?}", text(out))),
        },
        Err(e) => return Changes::Unknown(e),
    };
    // No file system monitor: a hook that answers "nothing changed" would hide an edit.
    let args = [
        "-c",
        "core.fsmonitor=false",
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--ignore-submodules=none",
        "--",
        ".",
    ];
    let out = match run(dir, &args) {
        Ok(out) => out,
        Err(e) => return Changes::Unknown(e),
    };
    let mut paths = porcelain_paths(&out);
    // A file marked assume-unchanged or skip-worktree is one whose changes git does not look
    // at, so `status` never lists them: whether it changed is unknown, and it counts.
    match run(dir, &["ls-files", "-v", "-z", "--full-name", "--", "."]) {
        Ok(out) => paths.extend(unwatched_paths(&out)),
        Err(e) => return Changes::Unknown(e),
    }
    // Both lists' paths are the repository root's; those under `dir` start with its prefix.
    let mut paths: Vec<String> = paths
        .into_iter()
        .map(|p| match p.strip_prefix(prefix.as_str()) {
            Some(rel) => rel.to_owned(),
            None => p,
        })
        .collect();
    paths.sort();
    paths.dedup();
    if paths.is_empty() { Changes::Clean } else { Changes::Uncommitted(paths) }
}

/// The paths of `git status --porcelain=v1 -z` output: each record is `XY PATH`, and a
/// rename or copy (`R` or `C` in either column) is followed by a record holding its source path,
/// which is not listed (the change is the new path's).
fn porcelain_paths(out: &[u8]) -> Vec<String> {
    let mut paths = Vec::new();
    let mut records = out.split(|b| *b == 0).filter(|r| !r.is_empty());
    while let Some(record) = records.next() {
        let Some((status, path)) = record.split_at_checked(3) else { continue };
        paths.push(String::from_utf8_lossy(path).into_owned());
        if status[..2].iter().any(|c| matches!(c, b'R' | b'C')) {
            records.next();
        }
    }
    paths
}

/// The paths of `git ls-files -v -z` output marked assume-unchanged (a lower-case tag) or
/// skip-worktree (`S`, or `s` when both).
fn unwatched_paths(out: &[u8]) -> Vec<String> {
    out.split(|b| *b == 0)
        .filter_map(|r| r.split_at_checked(2))
        .filter(|(tag, _)| tag[1] == b' ' && (tag[0].is_ascii_lowercase() || tag[0] == b'S'))
        .map(|(_, path)| String::from_utf8_lossy(path).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_the_real_objects_with_the_repositorys_own_configuration() {
        let cmd = command(Path::new("."));
        let envs: Vec<(String, Option<String>)> = cmd
            .get_envs()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_string_lossy().into_owned())))
            .collect();
        let set = |k: &str| envs.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
        assert_eq!(set("GIT_NO_REPLACE_OBJECTS"), Some(Some("1".into())), "replace refs off");
        for var in ["GIT_REPLACE_REF_BASE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_DIR"] {
            assert_eq!(set(var), Some(None), "{var} cleared");
        }
    }

    #[test]
    fn porcelain_records_and_renames() {
        let out = b" M t/c/manifest.json\0?? t/c/fixtures/new.json\0R  t/c/b.json\0t/c/a.json\0D  t/c/gone.json\0";
        assert_eq!(
            porcelain_paths(out),
            ["t/c/manifest.json", "t/c/fixtures/new.json", "t/c/b.json", "t/c/gone.json"].map(String::from)
        );
        assert!(porcelain_paths(b"").is_empty());
    }

    #[test]
    fn files_git_does_not_watch_count() {
        let out = b"H t/c/manifest.json\0h t/c/a.json\0S t/c/b.json\0s t/c/c.json\0M t/c/d.json\0";
        assert_eq!(unwatched_paths(out), ["t/c/a.json", "t/c/b.json", "t/c/c.json"].map(String::from));
    }
}

//! The file system side of sync: finding a vendored directory without leaving its repository,
//! reading a copy, and replacing a copy atomically.
//!
//! Invariants:
//! - The repository directory (`<root>/<repo>`, itself possibly a symlink) is the boundary.
//!   Below it, every existing component of the target path is checked before it is used: a
//!   symlink is resolved and must stay strictly inside the repository and out of `.git`, a
//!   dangling symlink is refused, and every component must be a directory. The resolved real
//!   path is what later steps read and write, so a symlink is never written through blindly.
//! - Reading a copy never follows a symlink: links and special files are reported as entries
//!   of their own.
//! - Writing stages the complete new copy in a fresh directory beside the old one (same parent,
//!   so the renames stay on one file system; named and registered by [`crate::staging`]),
//!   carries the old copy's ignored `LICENSE` over, then swaps. On Linux the swap is one
//!   `renameat2(RENAME_EXCHANGE)`, so the vendored directory never stops existing; elsewhere
//!   (or on a file system without it) it is two renames, old → aside (kind `old`) and staged →
//!   in place, and a run killed between them leaves the vendored directory missing and one
//!   `old` sibling, which [`recover`] moves back on the next sync. The old copy is removed
//!   last. A failure before the swap removes the stage and leaves the old copy; a failure
//!   during it puts the old copy back. The whole replacement is one critical step, so SIGINT
//!   or SIGTERM waits for it and then finds nothing to clean. Nothing outside the vendored
//!   directory is touched except its staging siblings and, for a new copy, its missing parent
//!   directories. Directories get mode 0755 and files 0644; the files are not fsynced (a copy
//!   is cheap to redo with `sync`).
//! - Leftovers ([`leftovers`]) are the staging siblings named for the vendored directory, of
//!   any kind; [`recover`] removes them, restoring a lone `old` copy when the directory is
//!   missing.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, ErrorKind};
use std::path::{Component, Path, PathBuf};

use crate::staging::{self, Kind, Staged};
use crate::vendored;

/// Why a target cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Problem {
    /// Following the path would leave the repository, or a component is not a directory.
    Unsafe(String),
    /// The file system said no.
    Io(String),
}

/// Where a target's copy lives.
#[derive(Debug, Clone)]
pub(super) struct Location {
    /// The repository's real path.
    pub repo: PathBuf,
    /// The vendored directory's real path (its missing tail appended as given).
    pub dir: PathBuf,
    /// Does the vendored directory exist?
    pub exists: bool,
}

/// Find `<root>/<repo>/<path>`: `Ok(None)` when the repository does not exist.
pub(super) fn locate(root: &Path, repo: &str, path: &str) -> Result<Option<Location>, Problem> {
    let repo_path = root.join(repo);
    match fs::symlink_metadata(&repo_path) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Problem::Io(format!("cannot read {repo}: {e}"))),
        Ok(_) => {}
    }
    let real = match fs::canonicalize(&repo_path) {
        Ok(r) => r,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(Problem::Unsafe(format!("{repo} is a symlink that leads nowhere")));
        }
        Err(e) => return Err(Problem::Io(format!("cannot resolve {repo}: {e}"))),
    };
    if !real.is_dir() {
        return Err(Problem::Unsafe(format!("{repo} is not a directory")));
    }
    let (dir, exists) = resolve_inside(&real, path, repo)?;
    Ok(Some(Location { repo: real, dir, exists }))
}

/// Resolve `rel` under the real directory `repo` without ever leaving it; `shown` prefixes the
/// path in messages. Returns the real path and whether it exists.
pub(super) fn resolve_inside(repo: &Path, rel: &str, shown: &str) -> Result<(PathBuf, bool), Problem> {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut cur = repo.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        let here = format!("{shown}/{}", parts[..=i].join("/"));
        let next = cur.join(part);
        let meta = match fs::symlink_metadata(&next) {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Ok((parts[i..].iter().fold(cur, |p, c| p.join(c)), false));
            }
            Err(e) => return Err(Problem::Io(format!("cannot read {here}: {e}"))),
        };
        if meta.file_type().is_symlink() {
            let target = match fs::canonicalize(&next) {
                Ok(t) => t,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    return Err(Problem::Unsafe(format!("{here} is a symlink that leads nowhere")));
                }
                Err(e) => return Err(Problem::Io(format!("cannot resolve {here}: {e}"))),
            };
            let why = match target.strip_prefix(repo) {
                Err(_) => Some(format!("a symlink to {}, outside the repository", target.display())),
                Ok(r) if r.components().next().is_none() => Some("a symlink to the repository's root".to_owned()),
                Ok(r)
                    if r.components().any(|c| matches!(c, Component::Normal(n) if n.eq_ignore_ascii_case(".git"))) =>
                {
                    Some("a symlink into the repository's .git".to_owned())
                }
                Ok(_) => None,
            };
            if let Some(why) = why {
                return Err(Problem::Unsafe(format!("{here} is {why}: not followed")));
            }
            cur = target;
        } else {
            cur = next;
        }
        if !fs::metadata(&cur).map(|m| m.is_dir()).unwrap_or(false) {
            return Err(Problem::Unsafe(format!("{here} is not a directory")));
        }
    }
    Ok((cur, true))
}

/// Make `dir` hold exactly `files` (relative path → bytes) and keep its ignored `LICENSE`:
/// stage beside it, then swap (see the module invariants).
pub(crate) fn replace(dir: &Path, files: &BTreeMap<&str, &[u8]>) -> io::Result<()> {
    let Some(parent) = dir.parent() else {
        return Err(io::Error::other("the vendored directory has no parent"));
    };
    fs::create_dir_all(parent)?;
    staging::critical(|| {
        let stage = Staged::dir(dir, Kind::Stage)?;
        fill(stage.path(), files)?;
        match fs::symlink_metadata(dir) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                fs::rename(stage.path(), dir)?;
                stage.disarm();
                Ok(())
            }
            Err(e) => Err(e),
            Ok(_) => {
                carry_ignored(dir, stage.path())?;
                swap(dir, stage)
            }
        }
    })
}

/// Put the filled `stage` in the place of the existing `dir` and remove the old copy.
fn swap(dir: &Path, stage: Staged) -> io::Result<()> {
    let old_left = |e: io::Error| {
        io::Error::other(format!(
            "the new copy is in place, but the old one could not be removed ({e}); `bqsuite sync` removes it"
        ))
    };
    if staging::exchange(stage.path(), dir)? {
        // The stage's name now holds the old copy: removing it is all that is left.
        let old = stage.path().to_path_buf();
        stage.disarm();
        let old = Staged::register(old);
        return fs::remove_dir_all(old.path()).map_err(old_left);
    }
    let aside = staging::sibling(dir, Kind::Old);
    fs::rename(dir, &aside)?;
    if let Err(e) = fs::rename(stage.path(), dir) {
        fs::rename(&aside, dir)?;
        return Err(e);
    }
    stage.disarm();
    let aside = Staged::register(aside);
    fs::remove_dir_all(aside.path()).map_err(old_left)
}

/// Copy the ignored top-level entry (`LICENSE`) of the old copy, whatever it is, into the
/// stage, so a sync neither writes nor deletes it.
fn carry_ignored(dir: &Path, stage: &Path) -> io::Result<()> {
    let from = dir.join(vendored::IGNORED);
    match fs::symlink_metadata(&from) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(_) => copy_entry(&from, &stage.join(vendored::IGNORED)),
    }
}

/// Copy a file, a symlink (as a symlink) or a directory tree, following no symlink.
fn copy_entry(from: &Path, to: &Path) -> io::Result<()> {
    let kind = fs::symlink_metadata(from)?.file_type();
    if kind.is_symlink() {
        #[cfg(unix)]
        return std::os::unix::fs::symlink(fs::read_link(from)?, to);
        #[cfg(not(unix))]
        return Ok(());
    }
    if kind.is_dir() {
        fs::create_dir(to)?;
        fs::set_permissions(to, fs::metadata(from)?.permissions())?;
        for entry in fs::read_dir(from)? {
            let entry = entry?;
            copy_entry(&entry.path(), &to.join(entry.file_name()))?;
        }
        return Ok(());
    }
    fs::copy(from, to).map(drop)
}

fn fill(stage: &Path, files: &BTreeMap<&str, &[u8]>) -> io::Result<()> {
    for (rel, bytes) in files {
        let path = stage.join(rel);
        let mut dir = path.parent();
        let mut missing = Vec::new();
        while let Some(d) = dir.filter(|d| *d != stage && !d.exists()) {
            missing.push(d);
            dir = d.parent();
        }
        for d in missing.into_iter().rev() {
            fs::create_dir(d)?;
            staging::set_mode(d, 0o755)?;
        }
        fs::write(&path, bytes)?;
        staging::set_mode(&path, 0o644)?;
    }
    Ok(())
}

/// A staging area an interrupted run left beside a vendored directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// Its file name (it sits beside the vendored directory).
    pub name: String,
    pub kind: Kind,
}

/// The staging areas beside `dir` that were made for it (any kind), in name order.
pub(crate) fn leftovers(dir: &Path) -> io::Result<Vec<Leftover>> {
    let (Some(parent), Some(target)) = (dir.parent(), dir.file_name()) else { return Ok(Vec::new()) };
    let target = target.to_string_lossy();
    let entries = match fs::read_dir(parent) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        other => other?,
    };
    let mut found = Vec::new();
    for entry in entries {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some((_, kind)) = staging::parse(&name).filter(|(dest, _)| *dest == target) {
            found.push(Leftover { name, kind });
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// What a run did with one leftover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovered {
    /// Nothing (`--check`, `--dry-run`).
    Found,
    /// Removed.
    Removed,
    /// An old copy moved aside while the vendored directory was missing: moved back.
    Restored,
    /// It could not be removed or restored.
    Failed(String),
}

/// Clean up after an interrupted run: when `dir` is missing and exactly one old copy was moved
/// aside, put it back; remove every other leftover. Each step is critical.
pub(crate) fn recover(dir: &Path, found: &[Leftover]) -> Vec<(Leftover, Recovered)> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    let missing = matches!(fs::symlink_metadata(dir), Err(e) if e.kind() == ErrorKind::NotFound);
    let olds = found.iter().filter(|l| l.kind == Kind::Old).count();
    found
        .iter()
        .map(|l| {
            let path = parent.join(&l.name);
            let done = staging::critical(|| {
                if missing && olds == 1 && l.kind == Kind::Old {
                    fs::rename(&path, dir).map(|()| Recovered::Restored)
                } else {
                    let meta = fs::symlink_metadata(&path)?;
                    let r = if meta.is_dir() { fs::remove_dir_all(&path) } else { fs::remove_file(&path) };
                    r.map(|()| Recovered::Removed)
                }
            });
            (l.clone(), done.unwrap_or_else(|e| Recovered::Failed(e.to_string())))
        })
        .collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::vendored::read_tree;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("repo/tests/real")).unwrap();
        fs::create_dir_all(root.join("outside")).unwrap();
        (t, root)
    }

    fn unsafe_reason(r: Result<Option<Location>, Problem>) -> String {
        match r {
            Err(Problem::Unsafe(why)) => why,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_missing_repository_is_none_and_a_missing_copy_is_located() {
        let (_t, root) = setup();
        assert!(locate(&root, "nope", "tests/conformance").unwrap().is_none());
        let loc = locate(&root, "repo", "tests/new/conformance").unwrap().unwrap();
        assert!(!loc.exists);
        assert_eq!(loc.dir, root.join("repo/tests/new/conformance"));
    }

    #[test]
    fn symlinks_inside_the_repository_are_resolved() {
        let (_t, root) = setup();
        symlink("real", root.join("repo/tests/conformance")).unwrap();
        let loc = locate(&root, "repo", "tests/conformance").unwrap().unwrap();
        assert!(loc.exists);
        assert_eq!(loc.dir, root.join("repo/tests/real"));
    }

    #[test]
    fn symlinks_out_of_the_repository_are_refused_at_any_depth() {
        let (_t, root) = setup();
        symlink(root.join("outside"), root.join("repo/tests/conformance")).unwrap();
        let why = unsafe_reason(locate(&root, "repo", "tests/conformance"));
        assert!(why.starts_with("repo/tests/conformance is a symlink to "), "{why}");
        symlink("../outside", root.join("repo/up")).unwrap();
        let why = unsafe_reason(locate(&root, "repo", "up/x/conformance"));
        assert!(why.starts_with("repo/up is a symlink to "), "{why}");
        symlink(".", root.join("repo/self")).unwrap();
        unsafe_reason(locate(&root, "repo", "self"));
        fs::create_dir(root.join("repo/.git")).unwrap();
        symlink(".git", root.join("repo/meta")).unwrap();
        unsafe_reason(locate(&root, "repo", "meta/conformance"));
        symlink("gone", root.join("repo/dangling")).unwrap();
        assert!(unsafe_reason(locate(&root, "repo", "dangling/c")).contains("leads nowhere"));
        fs::write(root.join("repo/file"), "x").unwrap();
        assert!(unsafe_reason(locate(&root, "repo", "file/c")).contains("is not a directory"));
    }

    #[test]
    fn replace_swaps_in_exactly_the_given_files_and_leaves_no_temporaries() {
        let (_t, root) = setup();
        let dir = root.join("repo/tests/real");
        fs::create_dir_all(dir.join("fixtures/old")).unwrap();
        fs::write(dir.join("fixtures/stale.json"), "{}").unwrap();
        symlink(root.join("outside"), dir.join("link")).unwrap();
        fs::write(root.join("outside/keep"), "keep").unwrap();
        let files: BTreeMap<&str, &[u8]> = [("a", &b"1"[..]), ("fixtures/b.json", &b"2"[..])].into();
        replace(&dir, &files).unwrap();
        let tree = read_tree(&dir).unwrap();
        assert_eq!(tree.files.keys().collect::<Vec<_>>(), ["a", "fixtures/b.json"]);
        assert!(tree.irregular.is_empty());
        assert_eq!(fs::read(root.join("outside/keep")).unwrap(), b"keep");
        let siblings: Vec<_> = fs::read_dir(root.join("repo/tests")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(siblings, ["real"]);
        replace(&root.join("repo/new/deep/conformance"), &files).unwrap();
        assert_eq!(fs::read(root.join("repo/new/deep/conformance/fixtures/b.json")).unwrap(), b"2");
    }
}

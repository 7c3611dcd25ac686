//! The file system side of sync: finding a vendored directory without leaving its repository.
//!
//! Invariants:
//! - The repository directory (`<root>/<repo>`, itself possibly a symlink) is the boundary.
//!   Below it, every existing component of the target path is checked before it is used: a
//!   symlink is resolved and must stay strictly inside the repository and out of `.git`, a
//!   dangling symlink is refused, and every component must be a directory. The resolved real
//!   path is what later steps read and write, so a symlink is never written through blindly.
//! - Reading a copy never follows a symlink: links and special files are reported as entries
//!   of their own.
//! - Writing a copy, and cleaning up after an interrupted write, is [`crate::vendored`]'s.
//! - A directory given on the command line (`fetch --check DIR`, `fetch --update DIR`) is held
//!   to the same rule ([`resolve_given`]): inside a git repository (the nearest directory above
//!   it holding `.git`), its path below the repository is resolved exactly as a target's, so a
//!   copy that is a symlink out of its repository is refused by `fetch` as by `sync`, and one
//!   that stays inside it is followed by both. Outside any repository there is no boundary to
//!   keep, so a DIR that is itself a symlink is refused: the real directory is to be given.

use std::fs;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// Why a target cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Problem {
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

/// Where a directory given on the command line really is ([`resolve_given`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Given {
    /// Its real path.
    pub dir: PathBuf,
    /// Does it exist?
    pub exists: bool,
}

/// Resolve `dir`, a path given on the command line, by the rule of a sync target (see the
/// module invariants): inside the git repository that holds it, each component below the
/// repository as [`resolve_inside`] does; outside any, as it is, refusing a `dir` that is
/// itself a symlink. A path with a `..` below its repository is resolved as the file system
/// resolves it, and must then still lie inside that repository.
pub(crate) fn resolve_given(dir: &Path) -> Result<Given, Problem> {
    let shown = dir.display().to_string();
    let abs = std::path::absolute(dir).map_err(|e| Problem::Io(format!("cannot resolve {shown}: {e}")))?;
    let repo = abs.ancestors().skip(1).find(|a| fs::symlink_metadata(a.join(".git")).is_ok());
    let Some(repo) = repo else {
        return match fs::symlink_metadata(dir) {
            Ok(m) if m.file_type().is_symlink() => Err(Problem::Unsafe(format!(
                "{shown} is a symlink outside any git repository: not followed (give the real directory)"
            ))),
            Ok(_) => Ok(Given { dir: dir.to_path_buf(), exists: true }),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(Given { dir: dir.to_path_buf(), exists: false }),
            Err(e) => Err(Problem::Io(format!("cannot read {shown}: {e}"))),
        };
    };
    let real_repo = fs::canonicalize(repo).map_err(|e| Problem::Io(format!("cannot resolve {shown}: {e}")))?;
    let rel = abs.strip_prefix(repo).unwrap_or(Path::new(""));
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            Component::CurDir => {}
            _ => {
                // `..` below the repository: where the file system takes it, still inside.
                return match fs::canonicalize(dir) {
                    Ok(real) if real.starts_with(&real_repo) && real != real_repo => {
                        Ok(Given { dir: real, exists: true })
                    }
                    Ok(real) => Err(Problem::Unsafe(format!(
                        "{shown} leads to {}, not a directory inside the repository {}: not followed",
                        real.display(),
                        repo.display()
                    ))),
                    Err(e) => Err(Problem::Io(format!("cannot resolve {shown}: {e}"))),
                };
            }
        }
    }
    // How the repository is named in messages: the part of `dir` as given that leads to it.
    let below = parts.len();
    let given: Vec<_> = dir.components().collect();
    let prefix: PathBuf = given[..given.len().saturating_sub(below)].iter().collect();
    let prefix = prefix.display().to_string();
    let prefix = if prefix.is_empty() { ".".to_owned() } else { prefix.trim_end_matches('/').to_owned() };
    let (dir, exists) = resolve_inside(&real_repo, &parts.join("/"), &prefix)?;
    Ok(Given { dir, exists })
}

/// Resolve `rel` under the real directory `repo` without ever leaving it; `shown` prefixes the
/// path in messages. Returns the real path and whether it exists.
pub(crate) fn resolve_inside(repo: &Path, rel: &str, shown: &str) -> Result<(PathBuf, bool), Problem> {
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::vendored::{read_tree, replace};
    use std::collections::BTreeMap;
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

    /// A directory given on the command line (`fetch --check DIR`): `.` and `..` below its
    /// repository, a missing directory, and one outside any repository, itself a symlink or not.
    #[test]
    fn a_given_directory_is_held_to_its_repository() {
        let (_t, root) = setup();
        fs::create_dir_all(root.join("repo/.git")).unwrap();
        let repo = root.join("repo");
        let given = |p: &Path| resolve_given(p).map(|g| (g.dir, g.exists));
        // `.` is no step: a missing copy below it is still a missing copy, not an error.
        assert_eq!(given(&repo.join("./tests/missing")), Ok((repo.join("tests/missing"), false)));
        // `..` that stays inside is followed where the file system takes it.
        assert_eq!(given(&repo.join("tests/real/../real")), Ok((repo.join("tests/real"), true)));
        // `..` to the repository itself, or out of it, is refused.
        for p in ["tests/..", "tests/../../outside"] {
            match given(&repo.join(p)) {
                Err(Problem::Unsafe(why)) => assert!(why.contains("not a directory inside the repository"), "{why}"),
                other => panic!("{p}: {other:?}"),
            }
        }
        // Outside any repository: a directory as it is, a missing one, a symlink refused.
        let outside = root.join("outside");
        assert_eq!(given(&outside), Ok((outside.clone(), true)));
        assert_eq!(given(&outside.join("missing")), Ok((outside.join("missing"), false)));
        symlink(&outside, root.join("link")).unwrap();
        match given(&root.join("link")) {
            Err(Problem::Unsafe(why)) => assert!(why.contains("a symlink outside any git repository"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A repository that is a symlink leading nowhere is refused as unsafe, not as unreadable.
        symlink(root.join("gone"), root.join("dangling")).unwrap();
        assert_eq!(unsafe_reason(locate(&root, "dangling", "x")), "dangling is a symlink that leads nowhere");
        // Any other error is the file system's, said as such: a symlink loop, a path through a
        // regular file (not "no such repository").
        symlink(root.join("loop"), root.join("loop")).unwrap();
        fs::write(root.join("plain"), "").unwrap();
        symlink(repo.join("tests/loop"), repo.join("tests/loop")).unwrap();
        for (repo, path, said) in [
            ("loop", "x", "cannot resolve loop: "),
            ("plain/repo", "x", "cannot read plain/repo: "),
            ("repo", "tests/loop/x", "cannot resolve repo/tests/loop: "),
        ] {
            match locate(&root, repo, path) {
                Err(Problem::Io(why)) => assert!(why.starts_with(said), "{why}"),
                other => panic!("{repo}: {other:?}"),
            }
        }
        match resolve_given(&root.join("plain/copy")) {
            Err(Problem::Io(why)) => assert!(why.starts_with("cannot read "), "{why}"),
            other => panic!("a directory under a regular file: {other:?}"),
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

    #[test]
    fn the_two_rename_fallback_swaps_the_same_way_and_keeps_the_licence() {
        let (_t, root) = setup();
        let dir = root.join("repo/tests/real");
        fs::write(dir.join("stale.json"), "{}").unwrap();
        fs::write(dir.join("LICENSE"), "MIT").unwrap();
        let files: BTreeMap<&str, &[u8]> = [("a", &b"1"[..])].into();
        crate::staging::pretend_no_exchange(true);
        let done = replace(&dir, &files);
        crate::staging::pretend_no_exchange(false);
        done.unwrap();
        assert_eq!(fs::read(dir.join("a")).unwrap(), b"1");
        assert_eq!(fs::read(dir.join("LICENSE")).unwrap(), b"MIT", "LICENSE neither written nor deleted");
        assert!(!dir.join("stale.json").exists());
        let siblings: Vec<_> = fs::read_dir(root.join("repo/tests")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(siblings, ["real"]);
    }
}

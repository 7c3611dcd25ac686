//! Reading the suite of a git revision (`git:REV`) straight from the object database, through
//! the `git` command line, and listing the repository's tags.
//!
//! Invariants:
//! - Nothing but `git rev-parse`, `git ls-tree`, `git cat-file` and `git tag --list` is run: the work tree, the index, `HEAD` and the refs are never touched, so a diff against a
//!   revision works in a checkout with uncommitted edits and leaves it exactly as it was.
//! - The repository read is the one holding the directory asked about: every command runs
//!   through [`crate::git`], which clears `GIT_DIR` and the other variables that point git
//!   elsewhere.
//! - The suite is read at the same path inside the revision as the directory it is asked from
//!   has inside its work tree (`git rev-parse --show-prefix`), so a suite in a subdirectory of a
//!   repository compares with itself; [`Revision::prefix`] says which path that was, for the
//!   messages. Which directory is asked from is the caller's choice
//!   ([`super::source::git_dir_for`]).
//! - A revision that is empty or starts with `-` is refused before git sees it (it would be read
//!   as an option); one that does not name a commit is an error naming it.
//! - Blobs are read only for the paths the suite loader keeps ([`crate::suite::is_suite_file`])
//!   and CHANGELOG.md, and within caps ([`crate::fetch::Limits`]: per file and in total) checked
//!   from `ls-tree`'s sizes before anything is read. Symlinks and submodules under `schema/` and
//!   `fixtures/`, in their place, or in a top-level suite file's, are reported as irregular
//!   entries (never read), as [`crate::suite::Suite::load`] reports them on disk.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;

use crate::fetch::Limits;
use crate::git::{command, run as git, text};
use crate::suite::{SUITE_DIRS, in_suite_dirs, is_suite_file};

/// The file beside the suite that holds its changelog.
pub const CHANGELOG: &str = crate::suite::CHANGELOG;

/// The suite files of one revision.
#[derive(Debug, Clone, Default)]
pub struct Revision {
    /// The commit the revision names (40 hex digits).
    pub commit: String,
    /// Suite-relative path → bytes (CHANGELOG.md included when the revision has one).
    pub files: Vec<(String, Vec<u8>)>,
    /// Entries under the suite directories that are not regular files.
    pub irregular: Vec<String>,
    /// The path inside the revision the suite was read at (`tests/conformance/`; empty: the
    /// repository's root).
    pub prefix: String,
}

/// The top directory of the work tree holding `dir`, canonical; `None` outside one.
pub fn work_tree(dir: &Path) -> Option<std::path::PathBuf> {
    let top = text(git(dir, &["rev-parse", "--show-toplevel"]).ok()?);
    std::fs::canonicalize(top).ok()
}

/// `dir`'s path inside the work tree of its repository, as git names it (`sdk/conformance/`;
/// empty at the top); `None` outside a repository.
pub fn prefix(dir: &Path) -> Option<String> {
    Some(text(git(dir, &["rev-parse", "--show-prefix"]).ok()?))
}

/// The `CONFORMANCE_VERSION` that revision `rev` holds at `dir`'s path, trimmed; `None` when it
/// has none there (or it is larger than a version can be, or not UTF-8, or `rev` names nothing).
pub fn version_at(dir: &Path, rev: &str) -> Option<String> {
    if !is_revision(rev) {
        return None;
    }
    let prefix = prefix(dir)?;
    let object = format!("{rev}:{prefix}{}", crate::suite::VERSION_FILE);
    let size: u64 = text(git(dir, &["cat-file", "-s", "--end-of-options", &object]).ok()?).parse().ok()?;
    if size > 1024 {
        return None;
    }
    let bytes = git(dir, &["cat-file", "blob", "--end-of-options", &object]).ok()?;
    String::from_utf8(bytes).ok().map(|v| v.trim().to_owned())
}

/// The suite of revision `rev` of the repository holding `dir`, at `dir`'s path in it.
pub fn read(dir: &Path, rev: &str, limits: &Limits) -> Result<Revision, String> {
    if !is_revision(rev) {
        return Err(format!("{rev:?} is not a git revision"));
    }
    let prefix = text(
        git(dir, &["rev-parse", "--show-prefix"])
            .map_err(|e| format!("{}: not inside a git repository ({e})", dir.display()))?,
    );
    let commit = commit_of(dir, rev)
        .ok_or_else(|| format!("git revision {rev:?} does not name a commit in the repository of {}", dir.display()))?;
    let listing = git(dir, &["ls-tree", "-r", "-z", "-l", "--full-tree", &commit])?;
    let mut wanted: Vec<(String, String)> = Vec::new();
    let mut irregular = Vec::new();
    let mut total = 0u64;
    for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let Some((meta, path)) = record.split_once('\t') else { continue };
        let Some(rel) = path.strip_prefix(prefix.as_str()) else { continue };
        let [mode, kind, object, size] = meta.split_whitespace().collect::<Vec<_>>()[..] else { continue };
        let keep = is_suite_file(rel) || rel == CHANGELOG;
        if kind == "blob" && (mode == "100644" || mode == "100755") {
            if !keep {
                continue;
            }
            let size: u64 = size.parse().unwrap_or(u64::MAX);
            if size > limits.max_file {
                return Err(format!("{rev}:{path} is {size} bytes, more than the {}-byte cap", limits.max_file));
            }
            total += size;
            if total > limits.max_total {
                return Err(format!("the suite files of {rev} add up to more than the {}-byte cap", limits.max_total));
            }
            wanted.push((rel.to_owned(), object.to_owned()));
        } else if in_suite_dirs(rel) || keep || SUITE_DIRS.contains(&rel) {
            irregular.push(rel.to_owned());
        }
    }
    let blobs = cat_blobs(dir, wanted.iter().map(|(_, o)| o.as_str()))?;
    let files = wanted.into_iter().map(|(rel, _)| rel).zip(blobs).collect();
    Ok(Revision { commit, files, irregular, prefix })
}

/// The contents of `objects` (blob ids), in order, through one `git cat-file --batch`.
fn cat_blobs<'a>(dir: &Path, objects: impl Iterator<Item = &'a str>) -> Result<Vec<Vec<u8>>, String> {
    let request: String = objects.map(|o| format!("{o}\n")).collect();
    let mut child = command(dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Written from a second thread: git answers while it reads, and both pipes are bounded.
    let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
    let mut out = Vec::new();
    child.stdout.take().expect("stdout is piped").read_to_end(&mut out).map_err(|e| format!("git cat-file: {e}"))?;
    let status = child.wait().map_err(|e| format!("git cat-file: {e}"))?;
    writer
        .join()
        .map_err(|_| "git cat-file: the request writer panicked".to_owned())?
        .map_err(|e| format!("git cat-file: {e}"))?;
    if !status.success() {
        return Err(format!("git cat-file --batch failed ({status})"));
    }
    let mut blobs = Vec::new();
    let mut rest = out.as_slice();
    while !rest.is_empty() {
        let nl = rest.iter().position(|b| *b == b'\n').ok_or("git cat-file: truncated answer")?;
        let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
        let size: usize = match header.split(' ').collect::<Vec<_>>()[..] {
            [_, "blob", size] => size.parse().map_err(|_| format!("git cat-file: bad header {header:?}"))?,
            _ => return Err(format!("git cat-file: {header}")),
        };
        let body = rest.get(nl + 1..nl + 1 + size).ok_or("git cat-file: truncated answer")?;
        blobs.push(body.to_vec());
        rest = rest.get(nl + 2 + size..).unwrap_or_default();
    }
    Ok(blobs)
}

/// Is the repository holding `dir` a shallow clone (`git rev-parse --is-shallow-repository`)?
/// `false` outside a repository, or where git cannot tell.
pub fn is_shallow(dir: &Path) -> bool {
    git(dir, &["rev-parse", "--is-shallow-repository"]).is_ok_and(|out| text(out) == "true")
}

/// The commit `rev` names in the repository holding `dir` (`git rev-parse --verify`), if any.
pub fn commit_of(dir: &Path, rev: &str) -> Option<String> {
    if !is_revision(rev) {
        return None;
    }
    git(dir, &["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")]).ok().map(text)
}

/// May `rev` be given to git as a revision? Not empty, and not starting with `-`, which git
/// would read as an option.
fn is_revision(rev: &str) -> bool {
    !rev.is_empty() && !rev.starts_with('-')
}

/// The tags of the repository holding `dir` that match `pattern` (`git tag --list`).
pub fn tags(dir: &Path, pattern: &str) -> Result<Vec<String>, String> {
    let out =
        git(dir, &["tag", "--list", pattern]).map_err(|e| format!("{}: cannot list the tags ({e})", dir.display()))?;
    Ok(String::from_utf8_lossy(&out).lines().map(str::to_owned).collect())
}

//! Where a side of a diff comes from, and loading it through the one suite loader.
//!
//! A side is written as one argument, read in this order:
//!
//! 1. `git:REV` — revision REV of the repository holding the current suite directory, read from
//!    git objects ([`super::git`]) at the path, inside the revision, of the other side when that
//!    is a directory in the same work tree (`git:HEAD tests/conformance`: the committed copy
//!    against the working one), else of the current suite directory ([`git_dir_for`]); when no
//!    manifest is there, the error names the path read and how to read another;
//! 2. a path ending in `.tar.gz` that is a file — a release asset, read in memory with fetch's
//!    safe reader ([`crate::fetch::archive::read`]: every rule `fetch` applies, caps included).
//!    Its name must be the released one, `babelqueue-conformance-<version>.tar.gz`, since the
//!    version names the archive's root directory; when a `SHA256SUMS` with a line for it lies
//!    beside it, the checksum must match;
//! 3. a directory — a suite checkout or an unpacked release, loaded with
//!    [`Suite::load`];
//! 4. a SemVer version — the published release, downloaded and verified exactly as
//!    `bqsuite fetch` does (`BQ_CONFORMANCE_BASE_URL` / `--base-url`, `SHA256SUMS`).
//!
//! Anything else is a usage error. Every side becomes a [`Suite`] with [`Suite::load`] or
//! [`Suite::from_files`], so all four obey the same file rules. A directory or revision also
//! gives its `CHANGELOG.md` (read within the per-file cap); a release asset has none.

use std::path::{Path, PathBuf};

use super::git::{self, CHANGELOG};
use crate::fetch::{self, Limits};
use crate::release::layout;
use crate::suite::Suite;

/// One side, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Git(String),
    Asset(PathBuf),
    Dir(PathBuf),
    Version(String),
}

impl Source {
    /// Read an argument (the order of the module doc).
    pub fn parse(arg: &str) -> Result<Source, String> {
        if let Some(rev) = arg.strip_prefix("git:") {
            return Ok(Source::Git(rev.to_owned()));
        }
        let path = Path::new(arg);
        if arg.ends_with(".tar.gz") && path.is_file() {
            return Ok(Source::Asset(path.to_path_buf()));
        }
        if path.is_dir() {
            return Ok(Source::Dir(path.to_path_buf()));
        }
        if semver::Version::parse(arg).is_ok_and(|v| v.to_string() == arg) {
            return Ok(Source::Version(arg.to_owned()));
        }
        Err(Source::why_not(arg, path))
    }

    /// Why `arg` is none of the four: what the argument was taken for, and what is wrong with it.
    fn why_not(arg: &str, path: &Path) -> String {
        let shown = crate::diag::terminal_safe(arg);
        let written_as_version = arg
            .strip_prefix(['v', 'V'])
            .filter(|rest| semver::Version::parse(rest).is_ok_and(|v| v.to_string() == *rest));
        match (path.symlink_metadata(), written_as_version) {
            (Ok(m), _) if m.is_file() && !arg.ends_with(".tar.gz") => {
                format!("{shown:?} is a file, but a release asset's name ends in .tar.gz")
            }
            (Ok(_), _) if !path.exists() => format!("{shown:?} is a symlink to nothing"),
            (Ok(_), _) => format!("{shown:?} is neither a suite directory nor a release asset (.tar.gz)"),
            (Err(_), Some(version)) => format!("{shown:?} is no version: write it without the v, {version}"),
            (Err(_), None) if arg.ends_with(".tar.gz") || arg.contains(['/', '\\']) || arg.starts_with('.') => {
                format!("{shown:?} does not exist (a suite directory or a release asset was expected)")
            }
            (Err(_), None) => format!(
                "{shown:?} is neither git:REV, a release asset (.tar.gz), a suite directory nor a version such as 1.5.0"
            ),
        }
    }
}

/// How to load sides.
#[derive(Debug, Clone)]
pub struct Options {
    /// The directory whose repository `git:REV` reads (the current suite directory).
    pub repo: PathBuf,
    /// `BQ_CONFORMANCE_BASE_URL` / `--base-url` for versions.
    pub base_url: Option<String>,
    pub limits: Limits,
}

/// A loaded side.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// How reports name it.
    pub label: String,
    pub suite: Suite,
    /// (where, text) of its CHANGELOG.md, when it has one.
    pub changelog: Option<(String, String)>,
    /// For a revision: where inside it the suite was read, and how to read another place, for
    /// an error about its manifest.
    pub read_at: Option<String>,
}

/// The directory whose path inside the repository `git:REV` is read at, when the other side
/// is `other` and the current suite directory (or the current directory) is `current`: the
/// other side's directory when it lies in the same git work tree as `current` (so
/// `bqsuite diff git:HEAD tests/conformance` from an SDK's root compares the committed copy with
/// the working one), else `current`.
pub fn git_dir_for(other: &Source, current: &Path) -> PathBuf {
    match other {
        Source::Dir(dir) if git::work_tree(dir).is_some_and(|t| Some(t) == git::work_tree(current)) => dir.clone(),
        _ => current.to_path_buf(),
    }
}

/// Read a regular file within a size cap (a FIFO or device is refused, never read).
fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    crate::fsutil::read_bounded(path, cap).map_err(|e| match e {
        crate::fsutil::ReadError::TooLarge { .. } => format!("{}: larger than the {cap}-byte cap", path.display()),
        e => format!("cannot read {}: {e}", path.display()),
    })
}

fn changelog_text(shown: String, bytes: Vec<u8>) -> Result<(String, String), String> {
    String::from_utf8(bytes).map(|t| (shown.clone(), t)).map_err(|_| format!("{shown}: not UTF-8 text"))
}

/// The CHANGELOG a `--changelog FILE` names, read as the suite's own is (regular file, per-file
/// cap, UTF-8): (path shown, text).
pub fn changelog_file(path: &Path, limits: &Limits) -> Result<(String, String), String> {
    changelog_text(path.display().to_string(), read_capped(path, limits.max_file)?)
}

/// The CHANGELOG.md beside a suite loaded from disk, when there is one: (path shown, text).
pub fn changelog_of(suite: &Suite, limits: &Limits) -> Result<Option<(String, String)>, String> {
    let path = suite.root.join(CHANGELOG);
    if !path.is_file() {
        return Ok(None);
    }
    changelog_text(suite.display_path(CHANGELOG), read_capped(&path, limits.max_file)?).map(Some)
}

/// Load one side.
pub fn load(source: &Source, opts: &Options) -> Result<Loaded, String> {
    match source {
        Source::Dir(dir) => {
            let suite = Suite::load(dir).map_err(|e| format!("cannot load suite: {e}"))?;
            let changelog = changelog_of(&suite, &opts.limits)?;
            Ok(Loaded { label: dir.display().to_string(), suite, changelog, read_at: None })
        }
        Source::Git(rev) => {
            let r = git::read(&opts.repo, rev, &opts.limits)?;
            let label = format!("git:{rev}");
            let mut changelog = None;
            let mut files = Vec::new();
            for (rel, bytes) in r.files {
                if rel == CHANGELOG {
                    changelog = Some(changelog_text(format!("{label}:{CHANGELOG}"), bytes)?);
                } else {
                    files.push((rel, bytes));
                }
            }
            let path = format!("{rev}:{}{}", r.prefix, crate::suite::MANIFEST);
            let read_at = format!(
                "read at {path}, the path {} has in its work tree; for a suite elsewhere in the repository, give its \
                 directory as the other side (bqsuite diff git:{rev} path/to/suite) or run bqsuite from it",
                opts.repo.display()
            );
            Ok(Loaded {
                suite: Suite::from_files(&label, files, r.irregular),
                label,
                changelog,
                read_at: Some(read_at),
            })
        }
        Source::Asset(path) => {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let version = name
                .strip_prefix("babelqueue-conformance-")
                .and_then(|v| v.strip_suffix(".tar.gz"))
                .filter(|v| semver::Version::parse(v).is_ok())
                .ok_or_else(|| {
                    format!("{}: a release asset is named babelqueue-conformance-<version>.tar.gz", path.display())
                })?;
            let bytes = read_capped(path, opts.limits.max_download)?;
            let sums = path.with_file_name(layout::SHA256SUMS);
            if sums.is_file() {
                let text = read_capped(&sums, opts.limits.max_download)?;
                if let Ok(expected) = fetch::source::sha256_for(&text, &name, &sums.display().to_string()) {
                    let actual = crate::release::sha256_hex(&bytes);
                    if actual != expected {
                        return Err(format!(
                            "{}: sha256 is {actual}, {} says {expected}; refusing the asset",
                            path.display(),
                            sums.display()
                        ));
                    }
                }
            }
            let tree = fetch::archive::read(&bytes, version, &opts.limits)
                .map_err(|e| format!("{}: {e}; refusing the asset", path.display()))?;
            let label = path.display().to_string();
            let files = tree.files().map(|(p, b)| (p.to_owned(), b.to_vec())).collect::<Vec<_>>();
            Ok(Loaded { suite: Suite::from_files(&label, files, Vec::new()), label, changelog: None, read_at: None })
        }
        Source::Version(version) => {
            let mut req = fetch::Request::new(version, opts.base_url.as_deref(), None).map_err(|e| e.message)?;
            req.limits = opts.limits;
            let verified = fetch::open(&req).map_err(|e| e.message)?;
            let label = format!("{version} (release {})", req.base.describe(&verified.name));
            let files = verified.tree.files().map(|(p, b)| (p.to_owned(), b.to_vec())).collect::<Vec<_>>();
            Ok(Loaded { suite: Suite::from_files(version, files, Vec::new()), label, changelog: None, read_at: None })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(arg: &str) -> String {
        Source::parse(arg).expect_err(arg)
    }

    #[test]
    fn an_argument_that_is_none_of_the_four_says_what_is_wrong_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("suite.zip");
        std::fs::write(&file, b"x").unwrap();
        let file = file.to_str().unwrap();
        assert!(refused(file).ends_with("is a file, but a release asset's name ends in .tar.gz"), "{}", refused(file));
        let missing = dir.path().join("gone");
        let missing = missing.to_str().unwrap();
        assert!(refused(missing).ends_with("does not exist (a suite directory or a release asset was expected)"));
        assert!(refused("old.tar.gz").contains("does not exist"), "{}", refused("old.tar.gz"));
        assert_eq!(refused("v1.5.0"), "\"v1.5.0\" is no version: write it without the v, 1.5.0");
        assert!(refused("1.5").contains("is neither git:REV"), "{}", refused("1.5"));
        #[cfg(unix)]
        {
            let link = dir.path().join("dangling");
            std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
            assert!(refused(link.to_str().unwrap()).ends_with("is a symlink to nothing"));
        }
        assert!(matches!(Source::parse(dir.path().to_str().unwrap()), Ok(Source::Dir(_))));
        assert!(matches!(Source::parse("1.5.0"), Ok(Source::Version(_))));
    }
}

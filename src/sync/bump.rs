//! `--bump-pins` (`sync` and `fetch --update`): after a copy is written, or found already at
//! its version, rewrite the CI pins of its repository ([`super::pin`]) to the copy's tag, so
//! that the copy and the pin land in one commit.
//!
//! Rules:
//! - The pins are those [`pin::read`] reports: the same workflow files (regular `*.yml` /
//!   `*.yaml` directly in `.github/workflows/`, never through a symlink out of the repository),
//!   the same grammar. Each file is read again just before it is rewritten, so a pin is
//!   rewritten where it is now, never at a stale position.
//! - Only the tag's text at each pin's span changes (`v1.6.0` → `v1.7.0`; a bare `1.6.0` in a
//!   SHA pin's comment stays bare); every other byte of the file is kept. A file is replaced
//!   whole and atomically (a temporary beside it, then a rename) with its permissions kept; a
//!   file that cannot be written is left as it was and named ([`Outcome::failed`]).
//! - A pin already at the tag is left alone, and is not listed.
//! - A pin by commit SHA (`@<sha> # v1.6.0`) is never bumped by its comment alone, since a
//!   comment that disagrees with its SHA lies to every reader and to Dependabot. When the
//!   caller can resolve the new tag's commit (`sync`, run in the suite's own repository,
//!   which holds its release tags: `git rev-parse refs/tags/vX.Y.Z^{commit}`), the SHA and the
//!   comment are both rewritten; otherwise (`fetch --update`: an SDK repository holds no suite
//!   tag, and a tag of its own of that name is another commit) the pin is left and listed with
//!   the reason ([`Left`]).
//! - A `-pre` version is never tagged (the release workflow refuses it): no pin is bumped to
//!   it; every stale pin is left and listed.
//! - Several different tags in one repository (a conflict) are all bumped to the copy's tag:
//!   every pin is a CI check of the repository's copy, so after the write any pin at another
//!   tag is a check that fails.
//! - Whether a repository's pins may be bumped at all (the copy written, or already at the
//!   version; never after a refused, failed or dirty copy) is the caller's rule, which this
//!   module does not see: `sync` bumps only a repository whose every target is at the new
//!   version ([`super::run`]), `fetch --update` only once its copy is.

use std::fs;
use std::io::{self, Write as _};
use std::path::Path;

use crate::diag::Span;
use crate::staging::{self, Kind, Staged};

use super::pin::{self, Found, Pin};

/// One pin rewritten (or, in a dry run, to be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bumped {
    /// The workflow file, relative to the repository.
    pub file: String,
    /// Where the tag starts (before the rewrite: the same line and column after it).
    pub span: Span,
    /// The tag it named, e.g. `v1.6.0`.
    pub from: String,
    /// The tag it names now, e.g. `v1.7.0`.
    pub to: String,
    /// A pin by commit SHA: the SHA it had and the one written with the tag.
    pub sha: Option<(String, String)>,
}

/// A pin that names another tag than the copy's and was not bumped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Left {
    pub pin: Pin,
    pub reason: String,
}

/// What bumping a repository's pins did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub bumped: Vec<Bumped>,
    pub left: Vec<Left>,
    /// Workflow files that could not be rewritten (relative to the repository), and why: each
    /// was left exactly as it was, and its pins are in `left`.
    pub failed: Vec<(String, String)>,
}

/// Resolves a tag (`v1.7.0`) to its commit's full SHA, or says why it cannot.
pub type Resolve<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// Why a stale SHA pin is left when no resolver is given.
pub fn sha_unresolved(tag: &str) -> String {
    format!(
        "a pin by commit SHA: bqsuite cannot tell {tag}'s commit here, and a comment that disagrees with its SHA is \
         never written; point the SHA at {tag}'s commit and the comment at {tag} (Dependabot and Renovate do both)"
    )
}

/// Every pin of the repository at `repo` (a real path) that names another tag than
/// `v{version}`, each left with `reason` (a caller that may not bump them says why).
pub fn leave_all(repo: &Path, version: &str, reason: &str) -> Outcome {
    let tag = format!("v{version}");
    let left = pin::read(repo)
        .into_iter()
        .filter(|p| p.tag != tag)
        .map(|pin| Left { pin, reason: reason.to_owned() })
        .collect();
    Outcome { left, ..Outcome::default() }
}

/// Bump every pin of the repository at `repo` (a real path) to `v{version}`; with `write`
/// false, say what would change and write nothing. `resolve` finds a tag's commit for pins by
/// commit SHA (none: those are left).
pub fn bump(repo: &Path, version: &str, resolve: Option<Resolve<'_>>, write: bool) -> Outcome {
    let tag = format!("v{version}");
    if version.ends_with("-pre") {
        return leave_all(repo, version, &format!("{tag} is a -pre version, never tagged: CI cannot clone it"));
    }
    let mut out = Outcome::default();
    // Resolved once per run, whatever the number of SHA pins.
    let mut resolved: Option<Result<String, String>> = None;
    for (file, path) in pin::workflow_files(repo) {
        let Ok(text) = fs::read_to_string(&path) else { continue };
        // (offset, old length, new text) of every edit, and the pins they bump.
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        let mut bumped = Vec::new();
        for found in pin::scan(&text).into_iter().filter(|f| f.tag != tag) {
            let pin = Pin { tag: found.tag.clone(), file: file.clone(), span: found.span, by_sha: found.by_sha };
            let Some((len, new)) = tag_edit(&text, &found, version) else {
                out.left.push(Left { pin, reason: "its text is not the tag bqsuite read".into() });
                continue;
            };
            let mut sha = None;
            if found.by_sha {
                let Some(resolve) = resolve else {
                    out.left.push(Left { pin, reason: sha_unresolved(&tag) });
                    continue;
                };
                let Some(sha_at) = sha_before(&text, found.offset) else {
                    out.left.push(Left { pin, reason: "no commit SHA found before its comment".into() });
                    continue;
                };
                let new_sha = match resolved.get_or_insert_with(|| resolve(&tag)) {
                    Ok(s) => s.clone(),
                    Err(e) => {
                        let why = format!(
                            "a pin by commit SHA, and {tag}'s commit is unknown ({e}); a comment that disagrees with \
                             its SHA is never written: point the SHA at {tag}'s commit and the comment at {tag}"
                        );
                        out.left.push(Left { pin, reason: why });
                        continue;
                    }
                };
                let old_sha = text[sha_at..sha_at + 40].to_owned();
                edits.push((sha_at, 40, new_sha.clone()));
                sha = Some((old_sha, new_sha));
            }
            edits.push((found.offset, len, new));
            bumped.push(Bumped { file: file.clone(), span: found.span, from: found.tag, to: tag.clone(), sha });
        }
        if edits.is_empty() {
            continue;
        }
        let mut new_text = text.clone();
        edits.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        for (at, len, with) in edits {
            new_text.replace_range(at..at + len, &with);
        }
        if write && let Err(e) = replace_file(&path, new_text.as_bytes()) {
            out.failed.push((file.clone(), e.to_string()));
            out.left.extend(bumped.into_iter().map(|b| Left {
                pin: Pin { tag: b.from, file: b.file, span: b.span, by_sha: b.sha.is_some() },
                reason: format!("the file could not be rewritten ({e}): left as it was"),
            }));
            continue;
        }
        out.bumped.extend(bumped);
    }
    out
}

/// The length of the tag's text at `found` and what replaces it: `v{version}`, or the bare
/// version where the comment wrote the tag bare. `None` when the text there is not the tag.
fn tag_edit(text: &str, found: &Found, version: &str) -> Option<(usize, String)> {
    let at = text.get(found.offset..)?;
    if at.starts_with(&found.tag) {
        Some((found.tag.len(), format!("v{version}")))
    } else if at.starts_with(&found.tag[1..]) {
        Some((found.tag.len() - 1, version.to_owned()))
    } else {
        None
    }
}

/// The offset of the 40-hex commit SHA of the pin whose comment names its tag at `offset`: after
/// the last `@` before that line's comment ([`pin::comment_start`]'s rule; the comment may
/// hold an `@` of its own, Renovate's `# pin @v1.6.0`).
fn sha_before(text: &str, offset: usize) -> Option<usize> {
    let line_start = text[..offset].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[line_start..offset];
    let code = &line[..pin::comment_start(line)?];
    let at = line_start + code.rfind('@')? + 1;
    let sha = text.get(at..at + 40)?;
    sha.bytes().all(|b| b.is_ascii_hexdigit()).then_some(at)
}

/// Replace the file at `path` with `bytes` atomically (a temporary beside it, then a rename),
/// keeping its permissions.
fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let permissions = fs::metadata(path)?.permissions();
    staging::critical(|| {
        let tmp = Staged::register(staging::sibling(path, Kind::Tmp));
        let mut f = fs::OpenOptions::new().write(true).create_new(true).open(tmp.path())?;
        f.write_all(bytes)?;
        fs::set_permissions(tmp.path(), permissions)?;
        f.sync_all()?;
        fs::rename(tmp.path(), path)?;
        tmp.disarm();
        Ok(())
    })
}

/// The commit of the release tag `tag` in the suite's own repository at `suite_dir` (a real
/// path): only when `suite_dir` is the top of its git work tree, so that a suite directory
/// inside another repository (an SDK's, whose tags are its own) is never asked.
pub fn resolve_in_suite(suite_dir: &Path, tag: &str) -> Result<String, String> {
    let top = crate::git::run(suite_dir, &["rev-parse", "--show-toplevel"]).map(crate::git::text)?;
    let top = Path::new(&top).canonicalize().map_err(|e| format!("cannot read {top}: {e}"))?;
    if top != suite_dir {
        return Err(format!("the suite at {} is not the top of its git repository", suite_dir.display()));
    }
    let spec = format!("refs/tags/{tag}^{{commit}}");
    let sha = crate::git::run(suite_dir, &["rev-parse", "--verify", "--quiet", &spec])
        .map(crate::git::text)
        .map_err(|_| format!("the suite's repository has no tag {tag}"))?;
    if sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(sha)
    } else {
        Err(format!("the suite's repository has no tag {tag}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_tag_and_a_sha_pin_s_sha_change() {
        let (old, new) = ("a".repeat(40), "b".repeat(40));
        let text = format!(
            "# keep: --branch v1.5.0 in a comment\r\nsteps:\r\n  - run: git clone -b 'v1.5.0' https://x.test/babelqueue/conformance.git\r\n  - uses: BabelQueue/conformance@{old} # 1.5.0\r\n  - uses: BabelQueue/conformance@v1.6.0\r\n"
        );
        let (_dir, repo) = repo_with(&text);
        let path = repo.join(pin::WORKFLOWS).join("ci.yml");
        let resolve = |t: &str| if t == "v1.6.0" { Ok("b".repeat(40)) } else { Err("no".into()) };
        let dry = bump(&repo, "1.6.0", Some(&resolve), false);
        assert_eq!(fs::read_to_string(&path).unwrap(), text, "a dry run writes nothing");
        let out = bump(&repo, "1.6.0", Some(&resolve), true);
        assert_eq!(out, dry);
        assert_eq!(out.bumped.len(), 2);
        assert_eq!(out.bumped[1].sha, Some((old.clone(), new.clone())));
        let want =
            text.replacen("'v1.5.0'", "'v1.6.0'", 1).replace(&format!("{old} # 1.5.0"), &format!("{new} # 1.6.0"));
        assert_eq!(fs::read_to_string(&path).unwrap(), want);
        // Without a resolver the SHA pin is left, never its comment alone.
        fs::write(&path, &text).unwrap();
        let out = bump(&repo, "1.6.0", None, true);
        assert_eq!(out.bumped.len(), 1);
        assert_eq!(out.left.len(), 1);
        assert!(fs::read_to_string(&path).unwrap().contains(&format!("{old} # 1.5.0")));
    }

    fn repo_with(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().canonicalize().unwrap();
        pin::write_workflow(&repo, "ci.yml", text);
        (dir, repo)
    }

    /// Every comment form `pin::scan` reads beside a commit SHA is bumped with its SHA: before,
    /// the SHA was looked for after the last `@` before the tag, which in Renovate's
    /// `# pin @v1.5.0` is the comment's own, so that pin was always left ("no commit SHA").
    #[test]
    fn a_sha_pin_is_bumped_whatever_form_its_comment_takes() {
        let (old, new) = ("a".repeat(40), "b".repeat(40));
        let resolve = |t: &str| if t == "v1.6.0" { Ok("b".repeat(40)) } else { Err("no".into()) };
        for comment in ["v1.5.0", "1.5.0", "tag=v1.5.0", "renovate: tag=v1.5.0", "pin @v1.5.0"] {
            let text = format!("steps:\n  - uses: BabelQueue/conformance@{old} # {comment}\n  - run: echo done\n");
            let (_dir, repo) = repo_with(&text);
            let out = bump(&repo, "1.6.0", Some(&resolve), true);
            assert!(out.left.is_empty(), "{comment}: {:?}", out.left);
            let want = text.replace(&old, &new).replace("1.5.0", "1.6.0");
            assert_eq!(fs::read_to_string(repo.join(pin::WORKFLOWS).join("ci.yml")).unwrap(), want, "{comment}");
        }
    }

    /// Edits are made from the end of the file back, so a tag of another length (`v1.10.0`)
    /// moves no later edit; a `-pre` version bumps nothing and leaves every stale pin.
    #[test]
    fn tags_of_another_length_and_pre_versions() {
        let text = "steps:\n  - run: git clone --branch v1.9.0 x\n  - run: git clone --branch v1.9.0 y\n";
        let (_dir, repo) = repo_with(text);
        let out = bump(&repo, "1.10.0", None, true);
        assert_eq!(out.bumped.len(), 2);
        let path = repo.join(pin::WORKFLOWS).join("ci.yml");
        assert_eq!(fs::read_to_string(&path).unwrap(), text.replace("v1.9.0", "v1.10.0"));
        let out = bump(&repo, "1.11.0-pre", None, true);
        assert!(out.bumped.is_empty());
        assert_eq!(out.left.len(), 2);
        assert!(out.left.iter().all(|l| l.reason.contains("-pre")), "{:?}", out.left);
        assert_eq!(fs::read_to_string(&path).unwrap(), text.replace("v1.9.0", "v1.10.0"));
    }
}

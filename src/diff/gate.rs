//! The release gate: what `bqsuite release` refuses on and `bqsuite validate --against` reports,
//! as findings (BQ950–BQ955, BQ957, BQ958) over a [`Diff`] from the previous release to the suite, the
//! released-version check (BQ956) over the suite and its own release tag, and, where no tag
//! vouches for the release files, the committed-bytes check (BQ959) over the suite and `HEAD`.
//!
//! Invariants:
//! - The suite is compared with one previous release: given explicitly (`--previous`,
//!   `--against`), or by default the highest tag `v<SemVer>` of the suite's repository whose
//!   version is a release (no pre-release part) below `CONFORMANCE_VERSION` ([`previous_tag`];
//!   other tags are ignored). A release candidate is never the default: it promises nothing,
//!   and bumps are measured between releases, so 1.7.0 after v1.7.0-rc.1 is compared with the
//!   release before it. No such tag is BQ955 (pass `--previous`, or `--no-previous` for the
//!   very first release).
//! - The checks: the version is above the previous one, or equal to it when nothing changed
//!   (BQ954); its bump over the previous version is at least the bump the changes need under
//!   the SemVer rule of [`super`] (BQ950); every correction is named in the version's CHANGELOG
//!   entry (BQ951, one per correction, at the case in manifest.json); when anything changed,
//!   CHANGELOG.md has an entry for the version (BQ952) that names every added section (BQ953)
//!   and every case or block added to an existing section (BQ957), as
//!   [`crate::suite::changelog`] reads a naming. And, when the reference core could not run
//!   the cases that need a live Redis (no Redis given), none of them is new or changed since
//!   the previous release (BQ958, [`unrun_redis`]): the gate has not checked what such a case
//!   expects, and a release must not ship an expectation nothing ran (red team F5, stop 49).
//!   Unchanged ones were checked when the previous release was built.
//! - The findings are errors, or warnings when `CONFORMANCE_VERSION` has a pre-release part
//!   (`1.7.0-pre`: not yet tagged), so work in progress is told, not stopped.
//! - A `CONFORMANCE_VERSION` that is not SemVer gives no gate finding (validate reports it,
//!   BQ102); a previous release without a SemVer version cannot be compared (an error, exit 2).
//! - **A released version never changes** ([`released_changed`], BQ956). When the suite's
//!   repository has a tag for `CONFORMANCE_VERSION` itself ([`own_tag`]: `v<SemVer>` of the same
//!   precedence, build metadata ignored; a release candidate's tag freezes that candidate), every
//!   release file ([`layout::in_release`]) must have exactly the bytes the tag holds, and the two
//!   must hold the same files. Anything else would publish a second, different suite under a
//!   version SDKs already pinned (and every vendored copy would then fail `fetch --check`), so it
//!   is always an error, pre-release or not. Files outside the asset (CHANGELOG.md, README.md,
//!   `sync-targets.json`) may change. No such tag is nothing to check; a directory outside a
//!   git repository cannot be checked, which the caller says; a tag that cannot be read is an
//!   error (exit 2).
//! - **A shallow clone cannot say "no tag"** ([`tags_unreliable`]): CI's default checkout has
//!   neither the tags nor the commits they name, so there a missing previous release or own tag
//!   is an error (exit 2) asking for the tags, never a skipped check or BQ955 (a `-pre` version
//!   is never tagged, so its own tag is not asked for; and a shallow clone holding a tag of a
//!   commit other than `HEAD`'s had its tags fetched, so it is believed). A clone made with
//!   `--no-tags` cannot be told from a repository without releases; the README says so.
//! - **A release is built from committed bytes** ([`committed`], BQ959, `release` only). Where
//!   BQ956 was not checked (no tag of the version, or only tags that hold no suite of it at the
//!   suite's path: a `--no-tags` clone, a checkout of a commit's SHA, a suite in a repository of
//!   its own without tags), every release file must have exactly the bytes the commit at `HEAD`
//!   holds at the suite's path, read from the object database as a tag is, and the two must hold
//!   the same files; else anyone checking that commit out would build another asset. An error, a
//!   warning for a pre-release version (never tagged nor published, so a local build is told,
//!   not stopped); `release --allow-dirty` skips it for a build nobody publishes. Outside a
//!   repository (a `git archive` export) there is no commit to compare with, which the caller
//!   says; a repository whose `HEAD` cannot be read is an error (exit 2). Where BQ956 was
//!   checked and found nothing, the release files are the tag's, bytes a commit holds.
//! - A tag counts, as the previous release or as the version's own, only where it releases this
//!   suite: the suite's `CONFORMANCE_VERSION` at that tag names the tag's version (the release
//!   workflow tags nothing else). So in an SDK repository, whose `v*` tags are the SDK's own
//!   releases over a vendored copy of another suite version (or none), those tags are ignored.
//! - The same rule gives `sync` the files of an older release ([`released_copy`]), to tell a
//!   vendored copy of it exact or locally edited: only the tag that releases it, read without
//!   network; a shallow clone, no tag, no repository or a `-pre` version is a reason, never a
//!   guess.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{Bump, Class, Diff, Kind, render};
use crate::diag::{Code, Finding, Severity};
use crate::release::layout;
use crate::suite::{MANIFEST, Suite, VERSION_FILE};

/// Where a version bump is written: every place `validate` holds to one version.
pub const BUMPED: &str = crate::suite::VERSION_PLACES;

/// The version a `v<SemVer>` tag names (`v1.6.0` → 1.6.0), if it names one.
fn tag_version(tag: &str) -> Option<semver::Version> {
    semver::Version::parse(tag.strip_prefix('v')?).ok()
}

/// The highest `v<SemVer>` release tag (no pre-release part) of the repository holding `dir`
/// below `version` that releases this suite ([`releases_the_suite`]), if any.
pub fn previous_tag(dir: &Path, version: &str) -> Result<Option<String>, String> {
    let current = semver::Version::parse(version).map_err(|e| format!("CONFORMANCE_VERSION {version:?}: {e}"))?;
    let tags = super::git::tags(dir, "v*")?;
    let mut below: Vec<(semver::Version, String)> = tags
        .into_iter()
        .filter_map(|t| Some((tag_version(&t)?, t)))
        .filter(|(v, _)| v.pre.is_empty() && *v < current)
        .collect();
    below.sort();
    Ok(below.into_iter().rev().find(|(v, t)| releases_the_suite(dir, t, v)).map(|(_, t)| t))
}

/// Is tag `tag` (of version `version`) a release of the suite at `dir`: does the suite's
/// `CONFORMANCE_VERSION` at that tag, at `dir`'s path, name the tag's version (same precedence)?
/// The release workflow tags only such commits. In an SDK repository a `v*` tag is the SDK's
/// own release, and the vendored suite it holds, if any, is usually of another version: such a
/// tag is neither the suite's previous release nor its own.
fn releases_the_suite(dir: &Path, tag: &str, version: &semver::Version) -> bool {
    super::git::version_at(dir, tag)
        .and_then(|v| semver::Version::parse(&v).ok())
        .is_some_and(|v| v.cmp_precedence(version).is_eq())
}

/// Whether `version` was released in the repository holding a suite ([`own_tag`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnTag {
    /// The tag that released it.
    Tag(String),
    /// No tag released it (or `version` is not SemVer): nothing to check.
    Untagged,
    /// The suite is not in a git repository, so no tag can be looked for: why.
    NoRepository(String),
    /// Tags of the version exist but hold no suite of it at the suite's path (an SDK
    /// repository's own releases, or a suite that moved within its repository): which, and
    /// that path in words ([`elsewhere`]).
    Elsewhere { tags: Vec<String>, at: String },
}

/// What [`OwnTag::Elsewhere`] found, in the words every caller starts with: "v1.6.0 names 1.6.0
/// but holds no suite 1.6.0 at `sdk/conformance/` (an SDK's own release, or the suite moved)".
pub fn elsewhere(tags: &[String], at: &str, version: &str) -> String {
    format!(
        "{} names {version} but holds no suite {version} {at} (an SDK's own release, or the suite moved)",
        tags.join(", ")
    )
}

/// The tag that released `version` itself in the repository holding `dir`, if any: a
/// `v<SemVer>` tag of the same precedence (build metadata ignored), `v<version>` first, that
/// releases this suite ([`releases_the_suite`]). `Err` when there is none but the repository is
/// a shallow clone, which cannot tell ([`tags_unreliable`]).
pub fn own_tag(dir: &Path, version: &str) -> Result<OwnTag, String> {
    let Ok(current) = semver::Version::parse(version) else { return Ok(OwnTag::Untagged) };
    // Only no `.git` at or above the suite is no repository: git refusing one (dubious ownership
    // in a CI container), a broken one (no HEAD, a `.git` file naming a gone directory) or a
    // missing git cannot tell whether the version was released.
    let tags = match super::git::tags(dir, "v*") {
        Ok(tags) => tags,
        Err(_) if !has_git_dir(dir) => {
            return Ok(OwnTag::NoRepository(format!("{} is not in a git repository", dir.display())));
        }
        Err(why) => return Err(format!("cannot tell whether {version} was released already (BQ956): {why}")),
    };
    let exact = format!("v{version}");
    let mut same: Vec<String> =
        tags.into_iter().filter(|t| tag_version(t).is_some_and(|v| v.cmp_precedence(&current).is_eq())).collect();
    same.sort_by_key(|t| (*t != exact, t.clone()));
    if let Some(tag) = same.iter().find(|t| releases_the_suite(dir, t, &current)) {
        return Ok(OwnTag::Tag(tag.clone()));
    }
    // A `-pre` version is never released (the release workflow refuses its tag), so a shallow
    // clone need not prove it untagged.
    match tags_unreliable(dir) {
        Some(why) if !version.ends_with("-pre") => Err(why),
        _ if same.is_empty() => Ok(OwnTag::Untagged),
        _ => {
            // Where the tags were read: the suite's path in its repository, as git names it.
            let at = match super::git::prefix(dir) {
                Some(p) if !p.is_empty() => format!("at `{p}`"),
                Some(_) => "at the repository's top".to_owned(),
                None => format!("where the repository holds {}", dir.display()),
            };
            Ok(OwnTag::Elsewhere { tags: same, at })
        }
    }
}

/// The copy files of release `version` ([`crate::vendored::is_part`]) as the canonical suite's
/// repository (the one holding `suite_dir`, read at its path) tagged it, without network: only
/// a tag that releases the suite ([`own_tag`]). `Err`: why they cannot be read, said so that
/// the reader knows what to do (fetch the tags, or check against the asset). What `sync` judges
/// a copy of an older release against ([`crate::vendored::edits`]).
pub fn released_copy(suite_dir: &Path, version: &str) -> Result<std::collections::BTreeMap<String, Vec<u8>>, String> {
    // A release candidate may be tagged (its tag counts, as for BQ956); a -pre version never is.
    if version.ends_with("-pre") {
        return Err(format!(
            "{version} is a -pre version, which is never tagged, so there is no release to compare with"
        ));
    }
    // own_tag's own words are the release gate's; here the question is another.
    let tag = match own_tag(suite_dir, version).map_err(|e| e.replace(" already (BQ956)", ""))? {
        OwnTag::Tag(tag) => tag,
        OwnTag::Untagged => {
            return Err(format!(
                "the suite's repository has no tag v{version} (fetch its tags, `git fetch --tags`, in {}; or {version} \
                 was never released)",
                suite_dir.display()
            ));
        }
        OwnTag::NoRepository(why) => return Err(format!("{why}, so no release tag can be read")),
        OwnTag::Elsewhere { tags, at } => {
            return Err(format!("{}, so it is not taken as the release", elsewhere(&tags, &at, version)));
        }
    };
    let rev = super::git::read(suite_dir, &format!("refs/tags/{tag}"), &crate::fetch::Limits::default())
        .map_err(|e| format!("cannot read tag {tag}: {e}"))?;
    Ok(rev.files.into_iter().filter(|(rel, _)| crate::vendored::is_part(rel)).collect())
}

/// Is there a `.git` (a directory, or the file of a worktree or submodule) in `dir` or above
/// it? Where git cannot run at all, that is the only sign of a repository.
fn has_git_dir(dir: &Path) -> bool {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().any(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
}

/// Why the tags of the repository holding `dir` cannot answer "there is no such tag", if they
/// cannot: it is a shallow clone (CI's default checkout), which may lack the tags and the
/// commits they name, and no release tag in it (`v` and a SemVer version without a pre-release
/// part) names a commit other than `HEAD`'s. A shallow clone fetches only the tags of the
/// commits it fetches; one that holds a release tag of another commit had its tags fetched
/// (`git fetch --depth 1 origin '+refs/tags/*:refs/tags/*'`). A release candidate's tag or
/// another `v*` tag a `--depth 2` clone happens to reach is no such sign.
pub fn tags_unreliable(dir: &Path) -> Option<String> {
    use super::git::{commit_of, is_shallow, tags};
    let fetched = || {
        let head = commit_of(dir, "HEAD");
        tags(dir, "v*")
            .unwrap_or_default()
            .iter()
            .filter(|t| tag_version(t).is_some_and(|v| v.pre.is_empty()))
            .any(|t| commit_of(dir, t).is_some_and(|c| Some(c) != head))
    };
    (is_shallow(dir) && !fetched()).then(|| {
        format!(
            "{} is in a shallow clone, which may lack the suite's release tags: fetch them \
             (`git fetch --unshallow --tags`; with actions/checkout, `fetch-depth: 0`)",
            dir.display()
        )
    })
}

/// BQ956: one finding per release file of `current` that differs from, or is missing in, or is
/// new since `released`, the suite as its own release tag `tag` holds it. Empty when the release
/// files are byte for byte those of the tag.
pub fn released_changed(current: &Suite, released: &Suite, tag: &str) -> Vec<Finding> {
    let (now, then) = (release_files(current), release_files(released));
    let version = current.version().unwrap_or("?");
    if now == then {
        return Vec::new();
    }
    // The smallest version the changes since the release need, as BQ954 says it. The new
    // version has no CHANGELOG entry yet: a correction needs MINOR once the entry names it with
    // its ADR, MAJOR otherwise, and both are said.
    let bump = match (semver::Version::parse(version), Diff::between((released, tag), (current, "."), None)) {
        (Ok(v), Ok(diff)) if diff.needed() > Bump::None => {
            let (needed, least) = (diff.needed(), diff.needed_if_named());
            if least < needed {
                format!(
                    "to at least {} (a {} bump, if the new version's CHANGELOG entry names each correction with its \
                     ADR; else {}, a {} bump: {})",
                    least.apply(&v),
                    least.as_str(),
                    needed.apply(&v),
                    needed.as_str(),
                    reasons(&diff, needed)
                )
            } else {
                format!("to at least {} (a {} bump: {})", needed.apply(&v), needed.as_str(), reasons(&diff, needed))
            }
        }
        _ => String::new(),
    };
    differing(&now, &then)
        .into_iter()
        .map(|(rel, what)| {
            let restore = format!("git checkout {tag} -- {}", current.display_path(rel));
            let message = match (now.get(rel), then.get(rel)) {
                // An editor's doing (CR LF, a final newline, trailing spaces), most likely: say so,
                // and how to undo it, before the bump advice.
                (Some(a), Some(b)) if same_but_whitespace(a, b) => format!(
                    "{version} is already released (tag {tag}), and {rel} differs from that release only in \
                     whitespace or line endings: restore it (`{restore}`); a released version never changes, so \
                     keeping the change needs a version bump{}{bump} ({BUMPED}, with its CHANGELOG entry)",
                    if bump.is_empty() { "" } else { " " }
                ),
                _ => format!(
                    "{version} is already released (tag {tag}), and {rel} {what} that release: a released version \
                     never changes; bump the version{}{bump} ({BUMPED}, with its CHANGELOG entry) for this change, or \
                     {}",
                    if bump.is_empty() { "" } else { " " },
                    if what == "is not in" {
                        "remove it".to_owned()
                    } else {
                        format!("restore the file from {tag} (`{restore}`)")
                    }
                ),
            };
            let file = if now.contains_key(rel) { rel } else { VERSION_FILE };
            Finding::error(Code::RELEASED_VERSION_CHANGED, message).in_file(current.display_path(file))
        })
        .collect()
}

/// Do `a` and `b` hold the same bytes once every ASCII whitespace byte (spaces, tabs, CR, LF,
/// form feeds, and vertical tabs, which `is_ascii_whitespace` leaves out) is left out? Then only
/// whitespace or line endings tell them apart.
fn same_but_whitespace(a: &[u8], b: &[u8]) -> bool {
    let visible =
        |s: &[u8]| s.iter().copied().filter(|c| !c.is_ascii_whitespace() && *c != b'\x0b').collect::<Vec<_>>();
    visible(a) == visible(b)
}

/// The release files of a suite ([`layout::in_release`]): path → bytes.
fn release_files(s: &Suite) -> BTreeMap<String, Vec<u8>> {
    s.files().filter(|f| layout::in_release(&f.rel)).map(|f| (f.rel.clone(), f.bytes().to_vec())).collect()
}

/// The paths whose bytes differ between `now` and `then`, sorted, each with how it differs as a
/// message says it, before "that release" or "the commit": "differs from", "is not in" (new in
/// `now`), "is missing, but it is in" (only in `then`).
fn differing<'a>(
    now: &'a BTreeMap<String, Vec<u8>>,
    then: &'a BTreeMap<String, Vec<u8>>,
) -> Vec<(&'a str, &'static str)> {
    let paths: BTreeSet<&String> = now.keys().chain(then.keys()).collect();
    paths
        .into_iter()
        .filter_map(|rel| {
            let what = match (then.get(rel), now.get(rel)) {
                (Some(a), Some(b)) if a == b => return None,
                (Some(_), Some(_)) => "differs from",
                (None, _) => "is not in",
                (_, None) => "is missing, but it is in",
            };
            Some((rel.as_str(), what))
        })
        .collect()
}

/// What the release files were built from when no tag of the version could vouch for them
/// (BQ956 not checked): the commit at `HEAD`, or no repository at all ([`committed`]).
#[derive(Debug)]
pub enum Committed {
    /// The commit `HEAD` names (40 hex digits), and one BQ959 finding per release file whose
    /// bytes it does not hold (none: the asset is exactly that commit's).
    Head(String, Vec<Finding>),
    /// No `.git` at or above the suite (a `git archive` export, a copied directory): no commit
    /// to compare with.
    NoRepository,
}

/// BQ959: compare the release files of `current` on disk with those the commit at `HEAD` holds
/// at the suite's path (read from the object database, as BQ956 reads a tag: no index, no
/// `git status`, so an ignored, assume-unchanged or skip-worktree file is compared like any
/// other). `Err`: there is a repository, but `HEAD` cannot be read (no commit yet, git refuses
/// the repository or is missing).
pub fn committed(current: &Suite) -> Result<Committed, String> {
    if !has_git_dir(&current.root) {
        return Ok(Committed::NoRepository);
    }
    let rev = super::git::read(&current.root, "HEAD", &crate::fetch::Limits::default())
        .map_err(|e| format!("cannot compare the release files with HEAD: {e}"))?;
    let head: BTreeMap<String, Vec<u8>> = rev.files.into_iter().filter(|(rel, _)| layout::in_release(rel)).collect();
    let now = release_files(current);
    let short = &rev.commit[..rev.commit.len().min(12)];
    if head.is_empty() {
        // A suite copied into a directory git does not track: one finding, not one per file.
        let at = if rev.prefix.is_empty() { "the repository's root".to_owned() } else { rev.prefix.clone() };
        let message = format!(
            "the commit HEAD names ({short}) holds no release file at {at}, where the suite is: a release is built \
             only from bytes a commit holds; commit the suite, or pass --allow-dirty for a build nobody publishes"
        );
        let f = finding(current, Code::RELEASE_FILE_UNCOMMITTED, message).in_file(current.display_path(VERSION_FILE));
        return Ok(Committed::Head(rev.commit, vec![f]));
    }
    let findings = differing(&now, &head)
        .into_iter()
        .map(|(rel, what)| {
            let fix = match what {
                "is not in" => format!("commit it (git add {rel}) or remove it"),
                _ => format!("commit the change, or restore the file (git checkout HEAD -- {rel})"),
            };
            let message = format!(
                "{rel} {what} the commit HEAD names ({short}): a release is built only from bytes a commit holds, \
                 so anyone who checks that commit out builds the same asset; {fix}, or pass --allow-dirty for a \
                 build nobody publishes"
            );
            let file = if now.contains_key(rel) { rel } else { VERSION_FILE };
            finding(current, Code::RELEASE_FILE_UNCOMMITTED, message).in_file(current.display_path(file))
        })
        .collect();
    Ok(Committed::Head(rev.commit, findings))
}

/// Is `version` a pre-release (its findings are warnings)?
pub fn is_pre(version: Option<&str>) -> bool {
    version.and_then(|v| semver::Version::parse(v).ok()).is_some_and(|v| !v.pre.is_empty())
}

fn severity(current: &Suite) -> Severity {
    if is_pre(current.version()) { Severity::Warning } else { Severity::Error }
}

fn finding(current: &Suite, code: Code, message: String) -> Finding {
    Finding { severity: severity(current), ..Finding::error(code, message) }
}

/// BQ958: the cases that need a live Redis and are new or changed since the previous release
/// (not by prose alone: a case, block or section added or changed, a fixture they read
/// changed), when the reference core did not run the Redis cases; `None` when there are none.
pub fn unrun_redis(diff: &Diff, current: &Suite) -> Option<Finding> {
    // Section → the ids of its cases the changes touch (all of them for a block or section
    // changed as a whole).
    let mut touched: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for c in diff.changes.iter().filter(|c| c.class != Class::Editorial) {
        match (&c.section, &c.file) {
            (Some(section), _) if !c.ids.is_empty() => {
                touched.entry(section).or_default().extend(c.ids.iter().cloned());
            }
            (Some(section), _) => {
                let Some(s) = current.section(section) else { continue };
                let in_block = s.cases().into_iter().filter(|k| c.block.is_none() || k.sub == c.block.as_deref());
                touched.entry(section).or_default().extend(in_block.map(|k| k.id));
            }
            // A fixture's readers, as `section.id`.
            (None, Some(_)) => {
                for (section, id) in c.ids.iter().filter_map(|r| r.split_once('.')) {
                    touched.entry(section).or_default().insert(id.to_owned());
                }
            }
            (None, None) => {}
        }
    }
    let unrun: Vec<String> = touched
        .into_iter()
        .flat_map(|(section, ids)| {
            let redis = crate::sections::redis_cases(current, section);
            redis.into_iter().filter(move |id| ids.contains(id)).map(move |id| format!("{section}.{id}"))
        })
        .collect();
    let named = named(&unrun)?;
    let (cases, need, them, they) = if unrun.len() == 1 {
        ("1 case".to_owned(), "needs", "it", "it expects")
    } else {
        (format!("{} cases", unrun.len()), "need", "them", "they expect")
    };
    let message = format!(
        "{cases} new or changed since {} {need} a live Redis, and the reference core did not run {them} \
         ({named}): nothing has checked what {they}; give a Redis (--redis-url or BQ_REDIS_URL)",
        diff.old.version.as_deref().unwrap_or("the previous release"),
    );
    Some(finding(current, Code::REDIS_CASE_NOT_RUN, message).in_file(current.display_path(MANIFEST)))
}

/// The cases a message names, as code: the first, then the second or how many more (`` `a` ``,
/// `` `a` and `b` ``, `` `a` and 2 more ``: "and 1 more" could have named it, the rule of
/// [`crate::diag::shown`]); `None` for none.
fn named(cases: &[String]) -> Option<String> {
    let (first, rest) = cases.split_first()?;
    Some(match rest {
        [] => format!("`{first}`"),
        [second] => format!("`{first}` and `{second}`"),
        _ => format!("`{first}` and {} more", rest.len()),
    })
}

/// BQ955: there is no previous release to compare with (`why` says what was looked for).
pub fn no_previous(current: &Suite, why: &str) -> Finding {
    // Outside a repository there are no tags to fetch: say that first, not git's complaint.
    let message = if has_git_dir(&current.root) {
        format!(
            "no previous release to compare with: {why}; if the suite was released before, this checkout \
             lacks its tags (`git fetch --tags`); else pass --previous DIR|ASSET|VERSION|git:REV (the last \
             release), or --no-previous for the very first release"
        )
    } else {
        format!(
            "no previous release to compare with: {} is not in a git repository, so there are no release tags \
             to find the last release by; pass --previous DIR|ASSET|VERSION|git:REV (the last release), or \
             --no-previous for the very first release",
            current.root.display()
        )
    };
    finding(current, Code::NO_PREVIOUS_RELEASE, message).in_file(current.display_path(VERSION_FILE))
}

/// Why the changes need `needed`: the changes that need it, by class, the first few named.
fn reasons(diff: &Diff, needed: Bump) -> String {
    let list = |changes: Vec<&super::Change>, what: &str| -> Option<String> {
        let n = changes.len();
        let mut shown: Vec<String> = changes.iter().take(3).map(|c| render::title(c)).collect();
        if n > 3 {
            shown.push("…".into());
        }
        (n > 0).then(|| format!("{n} {what} ({})", shown.join("; ")))
    };
    let driving: Vec<&super::Change> = diff.changes.iter().filter(|c| c.needs() == needed).collect();
    // A correction the entry names needs MINOR, one it does not name MAJOR: told apart.
    let parts: Vec<String> = [
        (Class::Breaking, None, "breaking change(s)"),
        (Class::Correction, Some(false), "correction(s) the CHANGELOG entry does not name"),
        (Class::Correction, Some(true), "correction(s) the CHANGELOG entry names"),
        (Class::Additive, None, "additive change(s)"),
        (Class::Editorial, None, "editorial change(s)"),
    ]
    .into_iter()
    .filter_map(|(class, named, what)| {
        let of = |c: &&super::Change| c.class == class && named.is_none_or(|n| c.named.is_some() == n);
        list(driving.iter().copied().filter(of).collect(), what)
    })
    .collect();
    parts.join("; ")
}

/// The gate's findings for `diff`, whose new side is `current`. `Err` when the previous side
/// has no SemVer version.
pub fn check(diff: &Diff, current: &Suite) -> Result<Vec<Finding>, String> {
    let Some(cur) = current.version().and_then(|v| semver::Version::parse(v).ok()) else {
        return Ok(Vec::new());
    };
    let prev = diff
        .old
        .version
        .as_deref()
        .and_then(|v| semver::Version::parse(v).ok())
        .ok_or_else(|| format!("{}: the previous release has no SemVer CONFORMANCE_VERSION", diff.old.source))?;
    let mut out = Vec::new();
    let needed = diff.needed();
    let version_file = current.display_path(VERSION_FILE);
    let against = format!("the previous release {prev} ({})", diff.old.source);
    let at_manifest = |f: Finding, pointer: &Option<String>| match pointer {
        Some(p) => f.in_file(current.display_path(MANIFEST)).at(p.clone()).with_span(current.locate(MANIFEST, p)),
        None => f.in_file(current.display_path(MANIFEST)),
    };
    match Bump::between(&prev, &cur) {
        // By SemVer precedence: build metadata makes no other version.
        _ if cur.cmp_precedence(&prev).is_lt() || (cur.cmp_precedence(&prev).is_eq() && needed > Bump::None) => {
            let since = if needed > Bump::None {
                format!(
                    ", and the suite changed since: bump it to at least {} (a {} bump: {}), in {BUMPED}",
                    needed.apply(&prev),
                    needed.as_str(),
                    reasons(diff, needed)
                )
            } else {
                String::new()
            };
            out.push(
                finding(
                    current,
                    Code::VERSION_NOT_ABOVE_PREVIOUS,
                    format!("CONFORMANCE_VERSION {cur} is not above {against}{since}"),
                )
                .in_file(version_file.clone()),
            );
        }
        Some(actual) if actual < needed => {
            out.push(
                finding(
                    current,
                    Code::BUMP_TOO_SMALL,
                    format!(
                        "CONFORMANCE_VERSION {cur} is a {} bump over {against}, but the changes need {} (at least {}): {}",
                        actual.as_str(),
                        needed.as_str(),
                        needed.apply(&prev),
                        reasons(diff, needed)
                    ),
                )
                .in_file(version_file.clone()),
            );
        }
        _ => {}
    }
    for c in diff.unnamed_corrections() {
        let reference = c.reference();
        let message = format!(
            "{}: the CHANGELOG entry for {cur} does not name this correction; add an item that cites the ADR \
             that justifies it, with a sentence that says it is a correction and names `{reference}` (or its \
             block), such as \"Correction (ADR-NNNN): `{reference}` now …\"",
            render::title(c)
        );
        out.push(at_manifest(finding(current, Code::CORRECTION_NOT_NAMED, message), &c.pointer));
    }
    if needed > Bump::None {
        let changelog = current.display_path(super::git::CHANGELOG);
        match (&diff.changelog.source, &diff.entry) {
            (None, _) => out.push(
                finding(
                    current,
                    Code::CHANGELOG_ENTRY_MISSING,
                    format!("there is no {changelog} to say what changed since {prev}"),
                )
                .in_file(changelog),
            ),
            (Some(source), None) => out.push(
                finding(
                    current,
                    Code::CHANGELOG_ENTRY_MISSING,
                    format!("{source} has no entry `## {cur}` for what changed since {prev}"),
                )
                .in_file(source.clone()),
            ),
            (Some(_), Some(entry)) => {
                for c in diff.changes.iter().filter(|c| c.kind == Kind::SectionAdded) {
                    let name = c.section.as_deref().unwrap_or_default();
                    if !entry.names_section(name) {
                        let message = format!(
                            "section `{name}` is new since {prev}, but the CHANGELOG entry `## {}` does not name it (as `{name}`, in a sentence that says it is new, such as \"New section `{name}`\")",
                            entry.heading
                        );
                        out.push(at_manifest(finding(current, Code::SECTION_NOT_IN_CHANGELOG, message), &c.pointer));
                    }
                }
                for c in diff.changes.iter().filter(|c| matches!(c.kind, Kind::CaseAdded | Kind::BlockAdded)) {
                    let (reference, section) = (c.reference(), c.section.as_deref().unwrap_or_default());
                    if !entry.names_addition(&reference, section) {
                        let what = if c.kind == Kind::CaseAdded { "case" } else { "block" };
                        let or_block = match (&c.block, c.kind) {
                            (Some(block), Kind::CaseAdded) => format!(" (or its block `{section}.{block}`)"),
                            _ => String::new(),
                        };
                        let message = format!(
                            "{what} `{reference}` is new since {prev}, but the CHANGELOG entry `## {}` does not name it: \
                             add a sentence that says it is new and names `{reference}`{or_block}, such as \
                             \"New {what} `{reference}`.\" (a question, a negation of the word or a word in \
                             parentheses does not say it)",
                            entry.heading
                        );
                        out.push(at_manifest(finding(current, Code::ADDITION_NOT_IN_CHANGELOG, message), &c.pointer));
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{Change, ChangelogInfo, Naming, SideInfo};
    use super::*;

    #[test]
    fn a_second_case_is_named_not_counted() {
        let cases = |n: usize| (0..n).map(|i| format!("redis_layout.c{i}")).collect::<Vec<_>>();
        assert_eq!(named(&cases(0)), None);
        assert_eq!(named(&cases(1)).unwrap(), "`redis_layout.c0`");
        assert_eq!(named(&cases(2)).unwrap(), "`redis_layout.c0` and `redis_layout.c1`");
        assert_eq!(named(&cases(3)).unwrap(), "`redis_layout.c0` and 2 more");
    }

    /// A change of one case of `trim`, of `class`, named in the CHANGELOG entry or not.
    fn case(class: Class, id: &str, named: bool) -> Change {
        let mut c = Change::new(Kind::CaseChanged, class);
        c.section = Some("trim".into());
        c.ids = vec![id.into()];
        c.named = named.then(|| Naming { line: 3, adrs: vec!["ADR-0034".into()] });
        c
    }

    /// A diff from 1.6.0 to 1.6.0 of `changes`, checked against no CHANGELOG.
    fn diff_of(changes: Vec<Change>) -> Diff {
        let side = |source: &str| SideInfo { source: source.into(), version: Some("1.6.0".into()) };
        Diff {
            old: side("OLD"),
            new: side("NEW"),
            changelog: ChangelogInfo { source: None, entry: None },
            changes,
            entry: None,
        }
    }

    /// BQ950, BQ954 and BQ956 quote the changes that drive the bump: up to three by their title,
    /// then "…" for the rest, the count always whole.
    #[test]
    fn reasons_quote_three_changes_then_an_ellipsis() {
        let corrections =
            |n: usize| diff_of((1..=n).map(|i| case(Class::Correction, &format!("c{i}"), false)).collect());
        let title = |i: usize| format!("case `trim.c{i}`: expectation changed");
        let unnamed = "correction(s) the CHANGELOG entry does not name";
        assert_eq!(reasons(&corrections(1), Bump::Major), format!("1 {unnamed} ({})", title(1)));
        assert_eq!(
            reasons(&corrections(3), Bump::Major),
            format!("3 {unnamed} ({}; {}; {})", title(1), title(2), title(3))
        );
        assert_eq!(
            reasons(&corrections(4), Bump::Major),
            format!("4 {unnamed} ({}; {}; {}; …)", title(1), title(2), title(3))
        );
    }

    /// Only the changes that need the bump are reasons, by class in a fixed order (breaking,
    /// corrections the entry does not name, those it names, additive, editorial); a class with
    /// none is left out.
    #[test]
    fn reasons_are_the_changes_that_need_the_bump_by_class() {
        let all = diff_of(vec![
            case(Class::Editorial, "e", false),
            Change { kind: Kind::CaseAdded, ..case(Class::Additive, "a", false) },
            case(Class::Correction, "named", true),
            case(Class::Correction, "unnamed", false),
            case(Class::Breaking, "b", false),
        ]);
        assert_eq!(
            reasons(&all, Bump::Major),
            "1 breaking change(s) (case `trim.b`: changed incompatibly); 1 correction(s) the CHANGELOG entry does \
             not name (case `trim.unnamed`: expectation changed)"
        );
        assert_eq!(
            reasons(&all, Bump::Minor),
            "1 correction(s) the CHANGELOG entry names (case `trim.named`: expectation changed); 1 additive \
             change(s) (case `trim.a` added)"
        );
        assert_eq!(reasons(&all, Bump::Patch), "1 editorial change(s) (case `trim.e`: prose changed)");
        assert_eq!(reasons(&all, Bump::None), "");
    }

    /// A change of `redis_layout` (of `block`, if any; of the case `id` in it, if any).
    fn redis_change(kind: Kind, class: Class, block: Option<&str>, id: Option<&str>) -> Change {
        let mut c = Change::new(kind, class);
        c.section = Some("redis_layout".into());
        c.block = block.map(str::to_owned);
        c.ids = id.map(str::to_owned).into_iter().collect();
        c
    }

    /// BQ958 names the Redis cases a change touches, no more: a case change its case, a change of
    /// a block's shared fields (no ids) every case of that block, one of the section's every case
    /// of the section; a prose change none.
    #[test]
    fn unrun_redis_names_the_cases_a_change_touches() {
        let current = Suite::load(env!("CARGO_MANIFEST_DIR")).expect("the canonical suite loads");
        let mut diff = diff_of(Vec::new());
        diff.old.version = Some("1.5.0".into());
        let message = |diff: &Diff| unrun_redis(diff, &current).map(|f| f.message);
        assert_eq!(message(&diff), None);

        let one = "late_ack/timely-ack-removes-member-and-body";
        diff.changes = vec![redis_change(Kind::CaseChanged, Class::Editorial, Some("late_ack"), Some(one))];
        assert_eq!(message(&diff), None, "prose alone");
        diff.changes = vec![redis_change(Kind::CaseChanged, Class::Correction, Some("late_ack"), Some(one))];
        assert_eq!(
            message(&diff).unwrap(),
            "1 case new or changed since 1.5.0 needs a live Redis, and the reference core did not run it \
             (`redis_layout.late_ack/timely-ack-removes-member-and-body`): nothing has checked what it expects; \
             give a Redis (--redis-url or BQ_REDIS_URL)"
        );

        diff.changes = vec![redis_change(Kind::FieldsChanged, Class::Correction, Some("late_ack"), None)];
        let block = crate::sections::redis_cases(&current, "redis_layout")
            .into_iter()
            .filter(|id| id.starts_with("late_ack/"))
            .collect::<Vec<_>>();
        assert_eq!(block.len(), 3, "{block:?}");
        assert_eq!(
            message(&diff).unwrap(),
            format!(
                "3 cases new or changed since 1.5.0 need a live Redis, and the reference core did not run them \
                 (`redis_layout.{}` and 2 more): nothing has checked what they expect; give a Redis (--redis-url \
                 or BQ_REDIS_URL)",
                block[0]
            )
        );

        diff.changes = vec![redis_change(Kind::FieldsChanged, Class::Correction, None, None)];
        let section = crate::sections::redis_cases(&current, "redis_layout");
        assert!(section.len() > block.len() + 3, "{section:?}");
        assert!(
            message(&diff).unwrap().starts_with(&format!("{} cases new or changed since 1.5.0", section.len())),
            "{:?}",
            message(&diff)
        );
    }

    /// A `-pre` version is never tagged: no repository is asked, and the reason says so.
    /// BQ956 says "only whitespace or line endings" for every ASCII white space, the vertical
    /// tab too; any other byte is a difference.
    #[test]
    fn whitespace_is_every_ascii_space_the_vertical_tab_included() {
        assert!(same_but_whitespace(b"{\"a\": 1}\n", b"{\"a\":\t1}\r\n\x0b\x0c"));
        assert!(!same_but_whitespace(b"{\"a\": 1}", b"{\"a\": 1}\x00"));
        assert!(!same_but_whitespace(b"{\"a\": 1}", b"{\"a\": 1}\xc2\xa0"), "a no-break space is not ASCII");
    }

    #[test]
    fn a_pre_release_s_copy_files_are_never_looked_for() {
        let why = released_copy(Path::new("/nonexistent"), "1.6.0-pre").unwrap_err();
        assert!(why.contains("a -pre version, which is never tagged"), "{why}");
    }
}

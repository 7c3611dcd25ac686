//! A vendored copy of the suite: what it is, reading it from disk and comparing it, byte for
//! byte, with a canonical set of files. The one definition `sync`, `sync --check`, `fetch
//! --check` and `fetch --update` share.
//!
//! What a copy is ([`is_part`]): exactly `CONFORMANCE_VERSION`, `manifest.json` and the files
//! under `schema/` and `fixtures/`. A top-level `LICENSE` in the vendored directory (file,
//! symlink or directory) is not part of a copy and is never looked at ([`IGNORED`]): its
//! presence or absence is no drift, `read_tree` does not read it, and writers neither create
//! nor delete it (the release ships a `LICENSE`; copies need not vendor it, as `fetch.sh
//! --check` ignored it). Anything else in the vendored directory is drift.
//!
//! Writing ([`replace`]):
//! - It stages the complete new copy in a fresh directory beside the old one (same parent,
//!   so the renames stay on one file system; named and registered by [`crate::staging`]),
//!   carries the old copy's ignored `LICENSE` over (hard-linked, never opened, whatever it is),
//!   then swaps. On Linux the swap is one `renameat2(RENAME_EXCHANGE)`, so the vendored
//!   directory never stops existing; elsewhere
//!   (or on a file system without it) it is two renames, old → aside (kind `old`) and staged →
//!   in place, and a run killed between them leaves the vendored directory missing and one
//!   `old` sibling, which [`recover`] moves back on the next sync. The old copy is removed
//!   last, under an `old` name either way (after the exchange it is renamed from the stage's),
//!   so a copy whose removal fails (a file made immutable) is left as what it is, the old copy,
//!   and [`replace`] says so: the new copy is in place ([`Replaced::OldKept`], naming the
//!   entry that resisted; every removal names it, [`crate::staging::remove_tree`]). A failure before the swap removes the stage and leaves the old copy; a failure
//!   during it puts the old copy back. The whole replacement is one critical step, so SIGINT
//!   or SIGTERM waits for it and then finds nothing to clean. Nothing outside the vendored
//!   directory is touched except its staging siblings and, for a new copy, its missing parent
//!   directories. Directories get mode 0755 and files 0644; the files are not fsynced (a copy
//!   is cheap to redo with `sync`).
//! - A writer replaces only a directory that is a copy ([`not_a_copy`]): never one holding
//!   `.git`, and, where the directory's identity comes from anything but reviewed data (a path
//!   typed on the command line, a symlink inside an SDK's repository), never one holding an
//!   entry a copy never holds or stating no version.
//! - What a replacement would lose beyond git's reach ([`uncommitted`]): the uncommitted
//!   changes under the vendored directory in its repository's git work tree, the ignored
//!   `LICENSE` left out (the writers carry it over). `sync` and `fetch --update` refuse to
//!   replace a copy that has any, unless told to (BQ720).
//! - Leftovers ([`leftovers`]) are the staging siblings named for the vendored directory, of
//!   any kind; [`recover`] removes them, restoring a lone `old` copy when the directory is
//!   missing.
//!
//! Judging a copy that states another release against that release's own files, to tell it
//! exact from locally edited, is [`edits`].
//!
//! Invariants: reading never follows a symlink (a symlink or special file is recorded as
//! irregular, never read through) and stays within a suite's caps, per file and in all, so a
//! wrong or stuffed directory cannot exhaust memory ([`read_tree`]); differences are reported from the copy's side — `added` is
//! only in the copy (a directory holding nothing canonical is one entry ending in `/`),
//! `removed` is canonical and missing from the copy, `modified` differs in bytes or is an
//! irregular entry where a file belongs — each list sorted; a unified diff (canonical → copy)
//! accompanies a modified file when both sides are UTF-8 text, except a file whose only change
//! is CR LF for LF (git's `core.autocrlf` on Windows), which is said as such instead of a diff
//! of every line. Only [`replace`] and [`recover`]
//! write.

pub mod edits;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

use crate::staging::{self, Kind, Staged};
use crate::suite::{FILE_CAP, LICENSE, MANIFEST, SUITE_CAP, SUITE_DIRS, VERSION_FILE, in_suite_dirs};

/// The top-level entry of a vendored directory that no check looks at and no writer touches.
pub const IGNORED: &str = LICENSE;

/// Why the copy `subject` names is kept: it holds the uncommitted changes `paths` (the one
/// sentence of `sync`'s BQ720 and `fetch --update`'s refusal); `command` is the whole command
/// that replaced it (`bqsuite sync --only php-sdk/tests/conformance`), said with the
/// `--allow-dirty` that replaces them. When every change is a file that is the suite's with CR
/// LF line endings ([`line_endings_only`]: what git sees once `.gitattributes` says `-text` of
/// a `core.autocrlf` checkout), it says so: replacing them loses nothing.
pub fn kept_uncommitted(subject: &str, paths: &[String], line_endings_only: bool, command: &str) -> String {
    if line_endings_only {
        return format!(
            "{subject} holds uncommitted changes ({}) that are line endings only: each file is the suite's with CR LF \
             (git's core.autocrlf checkout, seen as a change once .gitattributes says -text), so replacing them \
             loses nothing: run `{command} --allow-dirty`, then commit the copy with the .gitattributes line",
            crate::diag::listed(paths)
        );
    }
    format!(
        "{subject} holds uncommitted changes ({}): not replaced, so that they are not lost; commit or stash them, or \
         run `{command} --allow-dirty` to replace them",
        crate::diag::listed(paths)
    )
}

/// Are the uncommitted `paths` under a copy all files whose only difference from the suite is
/// CR LF line endings (`drift` is the copy's)? Then replacing them loses nothing.
pub fn line_endings_only(paths: &[String], drift: &Drift) -> bool {
    !paths.is_empty() && paths.iter().all(|p| drift.modified.iter().any(|m| m.crlf && &m.file == p))
}

/// Why the copy `subject` names is kept: git could not say whether it holds uncommitted
/// changes (`why`, git's error).
pub fn kept_unknown(subject: &str, why: &str) -> String {
    format!(
        "cannot tell whether {subject} holds uncommitted changes ({why}): not replaced (--allow-dirty replaces it anyway)"
    )
}

/// The uncommitted changes under the vendored directory `dir` in its git work tree that
/// replacing it would lose: every one `git status` lists ([`crate::git::changes`]) but those of
/// the ignored top-level entry, which a writer carries over.
pub fn uncommitted(dir: &Path) -> crate::git::Changes {
    match crate::git::changes(dir) {
        crate::git::Changes::Uncommitted(mut paths) => {
            paths.retain(|p| p != IGNORED && !p.starts_with(&format!("{IGNORED}/")));
            if paths.is_empty() { crate::git::Changes::Clean } else { crate::git::Changes::Uncommitted(paths) }
        }
        other => other,
    }
}

/// Is the suite-relative file `rel` part of a vendored copy?
pub fn is_part(rel: &str) -> bool {
    rel == MANIFEST || rel == VERSION_FILE || in_suite_dirs(rel)
}

/// The canonical files of a copy, chosen from suite-relative `files` by [`is_part`].
pub fn canonical<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> BTreeMap<&'a str, &'a [u8]> {
    files.into_iter().filter(|(rel, _)| is_part(rel)).collect()
}

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
    /// UTF-8 text or not a regular file, or when only the line endings differ.
    pub diff: Option<String>,
    /// The copy is the canonical file with its line feeds turned into CR LF, and nothing else:
    /// what git's `core.autocrlf` does to a text file on a Windows checkout ([`crlf_note`]).
    pub crlf: bool,
}

/// Is `copy` exactly `canonical` with every LF written as CR LF (and `canonical` had no CR LF)?
pub fn only_crlf(canonical: &[u8], copy: &[u8]) -> bool {
    let lf = canonical.iter().filter(|&&b| b == b'\n').count();
    if lf == 0 || copy.len() != canonical.len() + lf || canonical.windows(2).any(|w| w == b"\r\n") {
        return false;
    }
    let mut c = copy.iter();
    canonical
        .iter()
        .all(|&b| if b == b'\n' { c.next() == Some(&b'\r') && c.next() == Some(&b'\n') } else { c.next() == Some(&b) })
}

/// What to say about a copy whose files only gained CR LF line endings, `dir` being the copy's
/// path in its repository (`tests/conformance`; `""`: the repository's root), or `None` when
/// that is not known (outside a repository, or an absolute path): the note then names the
/// pattern's shape instead. On Windows a `\` separator becomes `/`. `rewrite` is the command
/// that rewrites the copy with the suite's bytes: the note gives the whole sequence (the
/// `.gitattributes` line, that command, the commit), since the line alone leaves the CR LF
/// files in place, and git then sees them as changed.
pub fn crlf_note(dir: Option<&str>, rewrite: &str) -> String {
    let dir = dir.map(|d| if cfg!(windows) { d.replace('\\', "/") } else { d.to_owned() });
    let pattern = match dir.as_deref().map(|d| d.trim_end_matches('/')) {
        Some(d) if !Path::new(d).is_absolute() => gitattributes_pattern(d),
        _ => "<the copy's path in the repository>/**".to_owned(),
    };
    format!(
        "only the line endings differ (CR LF in the copy, as git's core.autocrlf writes them on a Windows checkout, \
         or an editor); to keep the suite's bytes, add `{pattern} -text` to the repository's .gitattributes, rewrite \
         the copy with `{rewrite}` (git then sees its files as changed: if that refuses them, it says they are line \
         endings only, which --allow-dirty replaces losing nothing), and commit both"
    )
}

/// The `.gitattributes` pattern of everything under `dir` (relative to the repository's root;
/// `""`: the root itself, `**`): git's glob characters (`\`, `[`, `]`, `*`, `?`) are escaped,
/// a leading `#` or `!` too, and a pattern holding white space, a quote or a character outside
/// printable ASCII is written in git's C-style quotes, where a backslash is doubled. So the
/// pattern git reads is the directory, whatever its name (`"tests/my conf\\[1\\]/**"`).
pub fn gitattributes_pattern(dir: &str) -> String {
    let mut glob = String::with_capacity(dir.len() + 4);
    for (i, c) in dir.chars().enumerate() {
        if matches!(c, '\\' | '[' | ']' | '*' | '?') || (i == 0 && matches!(c, '#' | '!')) {
            glob.push('\\');
        }
        glob.push(c);
    }
    glob.push_str(if dir.is_empty() { "**" } else { "/**" });
    if glob.chars().all(|c| c.is_ascii_graphic() && c != '"') {
        return glob;
    }
    let mut quoted = String::from('"');
    for c in glob.chars() {
        match c {
            '\\' => quoted.push_str("\\\\"),
            '"' => quoted.push_str("\\\""),
            c if c.is_control() => quoted.push_str(&format!("\\{:03o}", u32::from(c))),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// The path of `dir` inside the git repository that holds it (`tests/conformance`), `/`
/// separated, for a `.gitattributes` pattern: a path given relative to where the command ran
/// (`conformance`, from `tests/`) is no pattern of the repository's. `""` when `dir` is the
/// repository's root; `None` outside a repository, or when `dir` cannot be resolved.
pub fn path_in_repository(dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let repo = dir.ancestors().find(|a| a.join(".git").exists())?;
    let rel = dir.strip_prefix(repo).ok()?;
    let parts: Vec<&str> = rel.components().map(|c| c.as_os_str().to_str()).collect::<Option<_>>()?;
    Some(parts.join("/"))
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

impl Tree {
    /// The version the copy says it is: its `CONFORMANCE_VERSION`, trimmed (`None` when it has
    /// none, or one that is not UTF-8 or is blank).
    pub fn version(&self) -> Option<String> {
        self.files
            .get(crate::suite::VERSION_FILE)
            .and_then(|b| std::str::from_utf8(b).ok())
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }
}

/// Read every entry under `dir` (a real directory) but the ignored `LICENSE`, following no
/// symlink, within the caps of a suite: a file larger than [`FILE_CAP`], or files adding up to
/// more than [`SUITE_CAP`] (more than any suite, so never a copy), are an error naming the file,
/// never read to the end.
pub fn read_tree(dir: &Path) -> io::Result<Tree> {
    use crate::fsutil::{ReadError, human_size, read_bounded};
    let mut tree = Tree::default();
    let mut total = 0u64;
    let walk = walkdir::WalkDir::new(dir).follow_links(false).min_depth(1).sort_by_file_name();
    for entry in walk.into_iter().filter_entry(|e| !(e.depth() == 1 && e.file_name() == IGNORED)) {
        let entry = entry.map_err(io::Error::other)?;
        let rel = crate::fsutil::slash_relative(dir, entry.path());
        let kind = entry.file_type();
        if kind.is_file() {
            let room = SUITE_CAP - total;
            let bytes = read_bounded(entry.path(), FILE_CAP.min(room)).map_err(|e| match e {
                ReadError::Io(e) => e,
                ReadError::TooLarge { .. } if room < FILE_CAP => io::Error::other(format!(
                    "{}: the copy holds more than the {} a suite may hold in all (not a vendored copy); not read further",
                    entry.path().display(),
                    human_size(SUITE_CAP)
                )),
                other => io::Error::other(format!("{}: {other}", entry.path().display())),
            })?;
            total += bytes.len() as u64;
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
            Some(have) if only_crlf(want, have) => {
                drift.modified.push(Modified { file: (*rel).to_owned(), diff: None, crlf: true })
            }
            Some(have) => drift.modified.push(Modified {
                file: (*rel).to_owned(),
                diff: unified_diff(rel, want, have, labels),
                crlf: false,
            }),
            None if tree.irregular.contains(*rel) => {
                drift.modified.push(Modified { file: (*rel).to_owned(), diff: None, crlf: false });
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

/// What [`replace`] did, once the new copy is in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replaced {
    /// The new copy is in place and the old one is gone.
    Whole,
    /// The new copy is in place, but the old one, moved aside beside it under `name` (an `old`
    /// staging name), could not be removed: `why` names the entry that resisted.
    OldKept { name: String, why: String },
}

/// Make `dir` hold exactly `files` (relative path → bytes) and keep its ignored `LICENSE`:
/// stage beside it, then swap (see the module invariants). `Ok` once the new copy is in place,
/// whether or not the old one could then be removed ([`Replaced`]).
pub fn replace(dir: &Path, files: &BTreeMap<&str, &[u8]>) -> io::Result<Replaced> {
    let Some(parent) = dir.parent() else {
        return Err(io::Error::other("the vendored directory has no parent"));
    };
    fs::create_dir_all(parent)?;
    staging::critical(|| {
        let stage = Staged::dir(dir, Kind::Stage)?;
        fill(stage.path(), files)?;
        let done = match fs::symlink_metadata(dir) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                fs::rename(stage.path(), dir)?;
                stage.disarm();
                Ok(Replaced::Whole)
            }
            Err(e) => Err(e),
            Ok(_) => {
                carry_ignored(dir, stage.path())?;
                swap(dir, stage)
            }
        };
        // Still inside the critical step: an interruption waits for it, then says this copy.
        if done.is_ok() {
            staging::completed(dir);
        }
        done
    })
}

/// Is `e` a refusal to write (permissions, or a read-only file system)?
pub fn is_unwritable(e: &io::Error) -> bool {
    matches!(e.kind(), ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem)
}

/// The directory a [`replace`] of the copy at `dir` needed to write in and could not, after it
/// failed with [`is_unwritable`]: of the nearest existing directory above `dir` (where its
/// parents are made and its stage is created, and the copy renamed), then `dir` itself (what
/// it carries over is moved out of it), the first that takes no new file. `None` when every one
/// does (the failure lay elsewhere): then the caller names the copy, as before.
pub fn unwritable_dir(dir: &Path) -> Option<PathBuf> {
    let above = dir.parent().and_then(|p| p.ancestors().find(|a| a.is_dir())).map(Path::to_path_buf);
    above
        .into_iter()
        .chain(dir.is_dir().then(|| dir.to_path_buf()))
        .find(|d| crate::fsutil::check_writable(&d.join(".bqsuite-probe")).is_err())
}

/// Put the filled `stage` in the place of the existing `dir` and remove the old copy. The old
/// copy waits for its removal under an `old` name, whichever way it was swapped, so that what a
/// failed removal leaves is named for what it is (an old copy, not a stage).
fn swap(dir: &Path, stage: Staged) -> io::Result<Replaced> {
    let aside = staging::sibling(dir, Kind::Old);
    if staging::exchange(stage.path(), dir)? {
        // The stage's name now holds the old copy: renamed to an `old` name, then removed.
        let at_stage = stage.path().to_path_buf();
        stage.disarm();
        let old = if fs::rename(&at_stage, &aside).is_ok() { aside } else { at_stage };
        return Ok(remove_old(Staged::register(old)));
    }
    fs::rename(dir, &aside)?;
    if let Err(e) = fs::rename(stage.path(), dir) {
        fs::rename(&aside, dir)?;
        return Err(e);
    }
    stage.disarm();
    Ok(remove_old(Staged::register(aside)))
}

/// Remove the old copy moved aside; what resists stays, named ([`Replaced::OldKept`]).
fn remove_old(old: Staged) -> Replaced {
    match staging::remove_tree(old.path()) {
        Ok(()) => Replaced::Whole,
        Err(e) => {
            let name = old.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            // What is left must stay findable by its name: not removed again on drop.
            old.disarm();
            Replaced::OldKept { name, why: e.to_string() }
        }
    }
}

/// Carry the ignored top-level entry (`LICENSE`) of the old copy, whatever it is, into the
/// stage, so a sync neither writes nor deletes it.
fn carry_ignored(dir: &Path, stage: &Path) -> io::Result<()> {
    let from = dir.join(IGNORED);
    match fs::symlink_metadata(&from) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(_) => carry(&from, &stage.join(IGNORED)),
    }
}

/// Carry a file, a symlink (as a symlink) or a directory tree, following no symlink and
/// opening no file: anything but a directory or a symlink is hard-linked (the stage is a
/// sibling, on the same file system), so a FIFO is never opened (which would block inside the
/// critical step, where not even SIGINT ends it) and a device never read. Where the file system
/// refuses the link, a regular file is copied and anything else is an error naming it.
fn carry(from: &Path, to: &Path) -> io::Result<()> {
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
            carry(&entry.path(), &to.join(entry.file_name()))?;
        }
        return Ok(());
    }
    match fs::hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(_) if kind.is_file() => fs::copy(from, to).map(drop),
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!("{}: not a regular file, and it cannot be carried over unread ({e})", from.display()),
        )),
    }
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

/// Why an existing directory is not a vendored copy that a writer may replace ([`not_a_copy`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotACopy {
    /// Its top level holds `.git` (this name): a repository, worktree or submodule.
    Repository(String),
    /// Its top level holds entries a copy never holds (sorted); `versioned`: it also holds
    /// `CONFORMANCE_VERSION` or `manifest.json`, so it is a copy with foreign entries beside it
    /// (drift to a check), not some other directory.
    Foreign { entries: Vec<String>, versioned: bool },
    /// It holds something but neither `CONFORMANCE_VERSION` nor a suite's `manifest.json`
    /// ([`suite_manifest`]).
    Unversioned,
}

impl NotACopy {
    /// Is the directory no copy at all (a repository, or one stating no version), rather than a
    /// copy with foreign entries beside it? A check refuses the former as a writer does; the
    /// latter it reports as drift.
    pub fn at_all(&self) -> bool {
        !matches!(self, NotACopy::Foreign { versioned: true, .. })
    }

    /// The reason, as a clause after the directory's name.
    pub fn why(&self) -> String {
        match self {
            NotACopy::Repository(git) => {
                format!("holds {git}: a git repository, worktree or submodule is never a vendored copy")
            }
            NotACopy::Foreign { entries, .. } => {
                let shown =
                    if entries.len() > 5 { format!("{}, …", entries[..5].join(", ")) } else { entries.join(", ") };
                format!(
                    "holds {shown}, which a vendored copy never holds (a copy is {VERSION_FILE}, {MANIFEST}, schema/ \
                     and fixtures/, and perhaps a {IGNORED}), and replacing it would delete {}",
                    if entries.len() == 1 { "it" } else { "them" }
                )
            }
            NotACopy::Unversioned => format!(
                "holds neither {VERSION_FILE} nor a suite's {MANIFEST} (a regular file, a JSON object with a \
                 `sections` object), and replacing it would delete what it holds"
            ),
        }
    }
}

/// Why the existing directory `dir` is not a vendored copy that a writer may replace, if it is
/// not: its top level holds `.git` (a repository, worktree or submodule is never a copy); or,
/// when `strict`, an entry a copy never holds (anything but `CONFORMANCE_VERSION`,
/// `manifest.json`, `schema`, `fixtures` and the ignored `LICENSE`), or, holding anything but
/// a `LICENSE`, neither `CONFORMANCE_VERSION` nor a suite's `manifest.json` ([`suite_manifest`]:
/// a directory of an SDK's own that happens to hold a `manifest.json`, `schema/` and
/// `fixtures/` is no copy, and replacing it would delete its files). Stale entries under
/// `schema/` and `fixtures/` never make a directory foreign: they are what an update removes.
/// Does `dir` hold a suite's `manifest.json`: a regular file (never through a link) of at most
/// [`FILE_CAP`] bytes that parses as a JSON object whose `sections` is an object? Only then does
/// a `manifest.json` without a `CONFORMANCE_VERSION` beside it make a directory a copy.
fn suite_manifest(dir: &Path) -> bool {
    let path = dir.join(MANIFEST);
    crate::fsutil::read_own(&path, FILE_CAP)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|v| v.get("sections").is_some_and(serde_json::Value::is_object))
}

/// The one rule `sync`, `fetch --update` and `fetch --check` apply (the check refuses only what
/// is no copy at all, [`NotACopy::at_all`]).
pub fn not_a_copy(dir: &Path, strict: bool) -> io::Result<Option<NotACopy>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    if let Some(git) = names.iter().find(|n| n.eq_ignore_ascii_case(".git")) {
        return Ok(Some(NotACopy::Repository(git.clone())));
    }
    if !strict {
        return Ok(None);
    }
    let versioned =
        names.iter().any(|n| n == VERSION_FILE) || (names.iter().any(|n| n == MANIFEST) && suite_manifest(dir));
    let of_a_copy = |n: &str| n == VERSION_FILE || n == MANIFEST || n == IGNORED || SUITE_DIRS.contains(&n);
    let foreign: Vec<String> = names.iter().filter(|n| !of_a_copy(n)).cloned().collect();
    if !foreign.is_empty() {
        return Ok(Some(NotACopy::Foreign { entries: foreign, versioned }));
    }
    if !versioned && names.iter().any(|n| n != IGNORED) {
        return Ok(Some(NotACopy::Unversioned));
    }
    Ok(None)
}

/// The directories under `repo` (a real directory) that hold a copy — a regular
/// `CONFORMANCE_VERSION` and `manifest.json` side by side — as `/`-separated paths relative to
/// it, sorted. The walk follows no symlink, skips `.git`, hidden directories and `node_modules`,
/// goes no deeper than 8 levels, stops below a copy and after 20 000 entries: a search for a
/// repository's copy, never a walk of everything.
pub fn copies_in(repo: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut walk = walkdir::WalkDir::new(repo).follow_links(false).max_depth(8).sort_by_file_name().into_iter();
    let mut seen = 0usize;
    while let Some(entry) = walk.next() {
        let Ok(entry) = entry else { continue };
        seen += 1;
        if seen > 20_000 {
            break;
        }
        if !entry.file_type().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        if entry.depth() > 0 && (name.starts_with('.') || name == "node_modules") {
            walk.skip_current_dir();
            continue;
        }
        let regular = |f: &str| fs::symlink_metadata(entry.path().join(f)).is_ok_and(|m| m.is_file());
        if regular(VERSION_FILE) && regular(MANIFEST) {
            found.push(crate::fsutil::slash_relative(repo, entry.path()));
            walk.skip_current_dir();
        }
    }
    found
}

/// A staging area an interrupted run left beside a vendored directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// Its file name (it sits beside the vendored directory).
    pub name: String,
    pub kind: Kind,
}

/// The staging areas beside `dir` that were made for it (any kind), in name order.
pub fn leftovers(dir: &Path) -> io::Result<Vec<Leftover>> {
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
    /// An old copy left in place: the vendored directory is missing and more than one old copy
    /// lies beside it ([`olds_to_choose`]), so which one to restore is the user's choice.
    Kept,
    /// It could not be removed or restored.
    Failed(String),
}

/// Is `dir` missing (not there at all, not even as a link)?
fn missing(dir: &Path) -> bool {
    matches!(fs::symlink_metadata(dir), Err(e) if e.kind() == ErrorKind::NotFound)
}

/// The old copies among `found` that are the user's to choose between, by name: all of them
/// when `dir` is missing and more than one was moved aside, none otherwise. One run leaves at
/// most one old copy; two are left only by runs that overlapped or by a hand that moved things,
/// and their names are random, so nothing tells which is the one to keep. [`recover`] leaves
/// them in place and `sync` writes no copy there until one is moved back (or all removed).
pub fn olds_to_choose(dir: &Path, found: &[Leftover]) -> Vec<String> {
    let olds: Vec<String> = found.iter().filter(|l| l.kind == Kind::Old).map(|l| l.name.clone()).collect();
    if olds.len() > 1 && missing(dir) { olds } else { Vec::new() }
}

/// Clean up after an interrupted run: when `dir` is missing and exactly one old copy was moved
/// aside, put it back; when it is missing and several were, keep them all
/// ([`olds_to_choose`]); remove every other leftover. Each step is critical.
pub fn recover(dir: &Path, found: &[Leftover]) -> Vec<(Leftover, Recovered)> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    let missing = missing(dir);
    let olds = found.iter().filter(|l| l.kind == Kind::Old).count();
    found
        .iter()
        .map(|l| {
            let path = parent.join(&l.name);
            let done = staging::critical(|| {
                if missing && l.kind == Kind::Old {
                    if olds == 1 { fs::rename(&path, dir).map(|()| Recovered::Restored) } else { Ok(Recovered::Kept) }
                } else {
                    let meta = fs::symlink_metadata(&path)?;
                    let r = if meta.is_dir() { staging::remove_tree(&path) } else { fs::remove_file(&path) };
                    r.map(|()| Recovered::Removed)
                }
            });
            (l.clone(), done.unwrap_or_else(|e| Recovered::Failed(e.to_string())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `manifest.json` without a `CONFORMANCE_VERSION` makes a directory a copy only when it
    /// is a suite's: an SDK directory holding its own `manifest.json`, `schema/` and `fixtures/`
    /// is no copy to replace, nor is one whose manifest is a link.
    #[test]
    fn only_a_suites_manifest_makes_a_directory_without_a_version_file_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir_all(d.join("fixtures")).unwrap();
        fs::create_dir_all(d.join("schema")).unwrap();
        fs::write(d.join("fixtures/sdk-own.yaml"), "a: 1").unwrap();
        fs::write(d.join(MANIFEST), r#"{"name": "sdk-plugin", "version": "2.0.0"}"#).unwrap();
        assert_eq!(not_a_copy(d, true).unwrap(), Some(NotACopy::Unversioned));
        assert!(NotACopy::Unversioned.why().contains("a suite's manifest.json"));
        fs::write(d.join(MANIFEST), "not json").unwrap();
        assert_eq!(not_a_copy(d, true).unwrap(), Some(NotACopy::Unversioned));
        fs::write(d.join("fixtures/elsewhere.json"), r#"{"sections": {}}"#).unwrap();
        fs::remove_file(d.join(MANIFEST)).unwrap();
        std::os::unix::fs::symlink("fixtures/elsewhere.json", d.join(MANIFEST)).unwrap();
        assert_eq!(not_a_copy(d, true).unwrap(), Some(NotACopy::Unversioned), "never through a link");
        fs::remove_file(d.join(MANIFEST)).unwrap();
        fs::write(d.join(MANIFEST), r#"{"conformance_version": "1.0.0", "sections": {}}"#).unwrap();
        assert_eq!(not_a_copy(d, true).unwrap(), None, "an old copy stating its version in its manifest alone");
        fs::remove_file(d.join(MANIFEST)).unwrap();
        fs::write(d.join(VERSION_FILE), "1.6.0\n").unwrap();
        assert_eq!(not_a_copy(d, true).unwrap(), None);
    }

    /// A failed write names the directory that refused it: the nearest existing one above the
    /// copy (its parents missing), never the copy; none when every one takes a file. (Root
    /// writes anywhere a mode forbids, so the refusal here is a directory no one can add to.)
    #[cfg(target_os = "linux")]
    #[test]
    fn the_unwritable_directory_is_the_one_that_refuses_a_file() {
        let at = Path::new("/proc/self/fdinfo/tests/conformance");
        assert_eq!(unwritable_dir(at), Some(PathBuf::from("/proc/self/fdinfo")));
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("tests/conformance");
        assert_eq!(unwritable_dir(&copy), None);
        fs::create_dir_all(&copy).unwrap();
        assert_eq!(unwritable_dir(&copy), None);
        assert!(fs::read_dir(dir.path().join("tests")).unwrap().count() == 1, "the probe is removed");
    }

    /// Replacing uncommitted changes loses nothing only when every one of them is a file the
    /// copy's drift has as the suite's with CR LF: that file itself, not another one, and not a
    /// file with any other edit.
    #[test]
    fn line_endings_only_when_every_uncommitted_path_is_a_crlf_file() {
        let m = |file: &str, crlf: bool| Modified { file: file.into(), diff: None, crlf };
        let drift = |modified: Vec<Modified>| Drift { modified, ..Drift::default() };
        let paths = |p: &[&str]| p.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>();
        assert!(line_endings_only(&paths(&["manifest.json"]), &drift(vec![m("manifest.json", true)])));
        assert!(line_endings_only(
            &paths(&["a.json", "manifest.json"]),
            &drift(vec![m("a.json", true), m("manifest.json", true)])
        ));
        assert!(
            !line_endings_only(&paths(&["fixtures/draft.json"]), &drift(vec![m("manifest.json", true)])),
            "another file's line endings say nothing of this one"
        );
        assert!(
            !line_endings_only(&paths(&["manifest.json"]), &drift(vec![m("manifest.json", false)])),
            "an edit that is not line endings"
        );
        assert!(!line_endings_only(&[], &drift(vec![m("manifest.json", true)])), "no change at all is not one");
    }

    /// A file larger than a file may be is refused as such, naming it; only when what remains of
    /// the suite's cap is less than a file may be is the refusal the suite's cap (a file that
    /// is too large when exactly a file's worth remains is too large by itself).
    #[test]
    fn a_file_too_large_by_itself_is_said_as_such_not_as_the_suites_cap() {
        let dir = tempfile::tempdir().unwrap();
        let big = |name: &str, len: u64| fs::File::create(dir.path().join(name)).unwrap().set_len(len).unwrap();
        big("z-big.json", FILE_CAP + 1);
        let alone = read_tree(dir.path()).unwrap_err().to_string();
        assert!(alone.contains("z-big.json") && alone.contains("this file may have"), "{alone}");
        assert!(!alone.contains("in all"), "{alone}");
        // Exactly a file's worth of the suite's cap left when the big file is reached.
        let files = usize::try_from((SUITE_CAP - FILE_CAP) / FILE_CAP).unwrap();
        for i in 0..files {
            big(&format!("a-{i}.json"), FILE_CAP);
        }
        let at_the_edge = read_tree(dir.path()).unwrap_err().to_string();
        assert!(at_the_edge.contains("z-big.json") && at_the_edge.contains("this file may have"), "{at_the_edge}");
        assert!(!at_the_edge.contains("in all"), "{at_the_edge}");
    }

    /// What a repository's copies are: a directory holding a regular `CONFORMANCE_VERSION` and
    /// `manifest.json` side by side (one of them alone is not one), none below a copy, none under
    /// a hidden directory or `node_modules` (but a repository whose own name is hidden is searched).
    #[test]
    fn copies_in_finds_copies_and_nothing_it_promises_to_skip() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join(".sdk");
        let copy = |rel: &str| {
            fs::create_dir_all(repo.join(rel)).unwrap();
            fs::write(repo.join(rel).join(VERSION_FILE), "1.6.0\n").unwrap();
            fs::write(repo.join(rel).join(MANIFEST), "{}").unwrap();
        };
        copy("tests/conformance");
        copy("tests/conformance/fixtures/inner");
        copy(".cache/conformance");
        copy("node_modules/suite/conformance");
        for (rel, file) in [("half/manifest", MANIFEST), ("half/version", VERSION_FILE)] {
            fs::create_dir_all(repo.join(rel)).unwrap();
            fs::write(repo.join(rel).join(file), "{}").unwrap();
        }
        assert_eq!(copies_in(&repo), ["tests/conformance"]);
    }

    /// The search stops after 20 000 entries: a copy that is the 20 000th entry (the repository
    /// itself the first) is found, one that is the 20 001st is not.
    #[test]
    fn copies_in_looks_at_20_000_entries_and_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("sdk");
        fs::create_dir_all(repo.join("a")).unwrap();
        fs::create_dir_all(repo.join("b")).unwrap();
        fs::write(repo.join("b").join(VERSION_FILE), "1.6.0\n").unwrap();
        fs::write(repo.join("b").join(MANIFEST), "{}").unwrap();
        // The repository, `a` and its files, then `b`: the 20 000th.
        for i in 0..19_997 {
            fs::File::create(repo.join(format!("a/{i:05}"))).unwrap();
        }
        assert_eq!(copies_in(&repo), ["b"]);
        fs::File::create(repo.join("a/19997")).unwrap();
        assert!(copies_in(&repo).is_empty());
    }

    /// A regular file where the copy belongs is never replaced: [`replace`] fails and leaves it
    /// (and nothing beside it).
    #[test]
    fn a_file_where_the_copy_belongs_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("conformance");
        fs::write(&at, "an SDK's own file").unwrap();
        let files: BTreeMap<&str, &[u8]> = [(VERSION_FILE, &b"1.6.0\n"[..])].into();
        assert!(replace(&at, &files).is_err());
        assert_eq!(fs::read(&at).unwrap(), b"an SDK's own file");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no stage left beside it");
    }

    /// Leftovers are looked for in the directory that holds the copy: none when it does not
    /// exist yet, an error when it cannot be read (never "none").
    #[test]
    fn leftovers_cannot_be_looked_for_in_a_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(leftovers(&dir.path().join("missing/conformance")).unwrap(), []);
        fs::write(dir.path().join("tests"), "a file").unwrap();
        assert!(leftovers(&dir.path().join("tests/conformance")).is_err());
    }

    /// A copy that only gains a file, or only lacks one, has drifted as much as one with an
    /// edited file: any one kind of difference alone is drift.
    #[test]
    fn one_kind_of_difference_alone_is_drift() {
        let canonical: BTreeMap<&str, &[u8]> =
            [("CONFORMANCE_VERSION", &b"1.6.0\n"[..]), ("fixtures/a.json", b"{}")].into();
        let whole = [("CONFORMANCE_VERSION", "1.6.0\n"), ("fixtures/a.json", "{}")];
        let added = compare(&canonical, &tree(&[whole[0], whole[1], ("fixtures/stale.json", "{}")], &[], &[]), LABELS);
        assert_eq!(added, Some(Drift { added: vec!["fixtures/stale.json".into()], ..Drift::default() }));
        let removed = compare(&canonical, &tree(&[whole[0]], &[], &[]), LABELS);
        assert_eq!(removed, Some(Drift { removed: vec!["fixtures/a.json".into()], ..Drift::default() }));
    }

    /// A directory holding a suite's `manifest.json` and nothing else states its version there:
    /// a copy (of a release older than `CONFORMANCE_VERSION`).
    #[test]
    fn a_suites_manifest_alone_is_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(MANIFEST), r#"{"conformance_version": "1.0.0", "sections": {}}"#).unwrap();
        assert_eq!(not_a_copy(dir.path(), true).unwrap(), None);
    }

    /// The reason names at most five foreign entries, then says there are more; "it" or "them"
    /// as many as there are.
    #[test]
    fn why_names_five_foreign_entries_at_most() {
        let foreign =
            |n: usize| NotACopy::Foreign { entries: (1..=n).map(|i| format!("f{i}")).collect(), versioned: false };
        let five = foreign(5).why();
        assert!(five.starts_with("holds f1, f2, f3, f4, f5, which a vendored copy never holds"), "{five}");
        assert!(five.ends_with("replacing it would delete them"), "{five}");
        let six = foreign(6).why();
        assert!(six.starts_with("holds f1, f2, f3, f4, f5, …, which"), "{six}");
        assert!(!six.contains("f6"), "{six}");
        assert!(foreign(1).why().ends_with("replacing it would delete it"));
    }

    /// After an interrupted run: a lone old copy is put back only where the copy is missing;
    /// beside a copy it is removed like any leftover, and so is a stage beside the one restored.
    #[test]
    fn recover_restores_a_lone_old_copy_only_where_the_copy_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("conformance");
        put(&copy, "1.6.0\n");
        let old = staging::sibling(&copy, Kind::Old);
        put(&old, "1.5.0\n");
        let found = leftovers(&copy).unwrap();
        assert_eq!(recover(&copy, &found), [(Leftover { name: name_of(&old), kind: Kind::Old }, Recovered::Removed)]);
        assert!(!old.exists());
        assert_eq!(fs::read(copy.join(VERSION_FILE)).unwrap(), b"1.6.0\n");

        fs::remove_dir_all(&copy).unwrap();
        put(&old, "1.5.0\n");
        let stage = staging::sibling(&copy, Kind::Stage);
        put(&stage, "1.6.0\n");
        // Two leftovers of other kinds: the one old copy is still the one (counted by kind).
        let tmp = staging::sibling(&copy, Kind::Tmp);
        fs::write(&tmp, "partial").unwrap();
        let found = leftovers(&copy).unwrap();
        let done: BTreeMap<String, Recovered> = recover(&copy, &found).into_iter().map(|(l, r)| (l.name, r)).collect();
        let expected = [
            (name_of(&old), Recovered::Restored),
            (name_of(&stage), Recovered::Removed),
            (name_of(&tmp), Recovered::Removed),
        ];
        assert_eq!(done, expected.into());
        assert_eq!(fs::read(copy.join(VERSION_FILE)).unwrap(), b"1.5.0\n", "the old copy is back");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "nothing else beside it");
    }

    /// Where the copy is missing and two old copies lie beside it, nothing tells which to put
    /// back: both are kept, the rest is cleaned up as ever, and `olds_to_choose` names them.
    /// With the copy there, the same two are only leftovers; with one, it is the one.
    #[test]
    fn recover_keeps_every_old_copy_when_it_cannot_tell_which_to_restore() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("conformance");
        let (a, b) = (staging::sibling(&copy, Kind::Old), staging::sibling(&copy, Kind::Old));
        put(&a, "1.5.0\n");
        put(&b, "1.6.0\n");
        let stage = staging::sibling(&copy, Kind::Stage);
        put(&stage, "1.6.0\n");
        let found = leftovers(&copy).unwrap();
        let mut olds = vec![name_of(&a), name_of(&b)];
        olds.sort();
        assert_eq!(olds_to_choose(&copy, &found), olds);
        let done: BTreeMap<String, Recovered> = recover(&copy, &found).into_iter().map(|(l, r)| (l.name, r)).collect();
        let expected =
            [(name_of(&a), Recovered::Kept), (name_of(&b), Recovered::Kept), (name_of(&stage), Recovered::Removed)];
        assert_eq!(done, expected.into());
        assert!(!copy.exists() && !stage.exists());
        assert_eq!(fs::read(a.join(VERSION_FILE)).unwrap(), b"1.5.0\n");
        assert_eq!(fs::read(b.join(VERSION_FILE)).unwrap(), b"1.6.0\n");

        // One of them moved back by hand: the other is an ordinary leftover again.
        fs::rename(&b, &copy).unwrap();
        let found = leftovers(&copy).unwrap();
        assert!(olds_to_choose(&copy, &found).is_empty());
        assert_eq!(recover(&copy, &found), [(Leftover { name: name_of(&a), kind: Kind::Old }, Recovered::Removed)]);
        // A lone old copy beside a missing one is no choice either: recover restores it.
        fs::rename(&copy, &a).unwrap();
        assert!(olds_to_choose(&copy, &leftovers(&copy).unwrap()).is_empty());
    }

    /// A directory at `at` holding only a `CONFORMANCE_VERSION` of `version`.
    fn put(at: &Path, version: &str) {
        fs::create_dir(at).unwrap();
        fs::write(at.join(VERSION_FILE), version).unwrap();
    }

    fn name_of(p: &Path) -> String {
        p.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// A refusal to write is a permission or a read-only file system, nothing else (then the
    /// failed write names the directory that refused, [`unwritable_dir`]).
    #[test]
    fn only_permissions_and_a_read_only_file_system_are_refusals_to_write() {
        for kind in [ErrorKind::PermissionDenied, ErrorKind::ReadOnlyFilesystem] {
            assert!(is_unwritable(&io::Error::from(kind)), "{kind:?}");
        }
        for kind in [ErrorKind::NotFound, ErrorKind::AlreadyExists, ErrorKind::Other] {
            assert!(!is_unwritable(&io::Error::from(kind)), "{kind:?}");
        }
    }

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
            &[("CONFORMANCE_VERSION", "1.6.0\n"), ("fixtures/a.json", "{\n  \"a\": 2\n}\n"), ("NOTES", "x")],
            &["fixtures/b.json", "schema/link"],
            &["fixtures", "schema", "old", "old/deeper"],
        );
        let d = compare(&canonical, &drifted, LABELS).unwrap();
        assert_eq!(d.added, ["NOTES", "old/", "old/deeper/", "schema/link"]);
        assert!(d.removed.is_empty());
        assert_eq!(d.modified.len(), 2);
        assert_eq!(d.modified[0].file, "fixtures/a.json");
        let diff = d.modified[0].diff.as_deref().unwrap();
        assert!(diff.starts_with("--- canonical/fixtures/a.json\n+++ vendored/fixtures/a.json\n@@"), "{diff}");
        assert!(diff.contains("\n-  \"a\": 1\n+  \"a\": 2\n"), "{diff}");
        assert_eq!(d.modified[1], Modified { file: "fixtures/b.json".into(), diff: None, crlf: false });
        let d = compare(&canonical, &tree(&[("fixtures/a.json", "x")], &[], &[]), LABELS).unwrap();
        assert_eq!(d.removed, ["CONFORMANCE_VERSION", "fixtures/b.json"]);
    }

    #[test]
    fn a_copy_is_the_four_entries_and_license_is_never_read() {
        for rel in ["CONFORMANCE_VERSION", "manifest.json", "schema/s.json", "fixtures/a/b.json"] {
            assert!(is_part(rel), "{rel}");
        }
        for rel in ["LICENSE", "README.md", "fixtures", "fixtures-old/a.json", "sync-targets.json"] {
            assert!(!is_part(rel), "{rel}");
        }
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("fixtures/LICENSE")).unwrap();
        fs::write(dir.path().join("fixtures/LICENSE/x"), "deeper LICENSE is a file like any").unwrap();
        fs::create_dir(dir.path().join("LICENSE")).unwrap();
        fs::write(dir.path().join("LICENSE/inside"), "not read").unwrap();
        let t = read_tree(dir.path()).unwrap();
        assert_eq!(t.files.keys().collect::<Vec<_>>(), ["fixtures/LICENSE/x"]);
        assert!(!t.dirs.contains("LICENSE"));
    }

    #[test]
    fn binary_files_get_no_text_diff() {
        assert_eq!(unified_diff("x", b"\xff", b"a", LABELS), None);
        assert!(unified_diff("x", b"a", b"b", LABELS).is_some());
    }

    #[test]
    fn crlf_for_lf_and_nothing_else() {
        assert!(only_crlf(b"{\n  \"a\": 1\n}\n", b"{\r\n  \"a\": 1\r\n}\r\n"));
        assert!(!only_crlf(b"{\n}\n", b"{\r\n}\n"), "one line left alone is a mixed file, not a checkout");
        assert!(!only_crlf(b"{\n}\n", b"{\r\n]\r\n"), "another byte changed too");
        assert!(!only_crlf(b"{}", b"{}"), "no line feed, nothing to convert");
        assert!(!only_crlf(b"a\r\nb\n", b"a\r\r\nb\r\n"), "the canonical file already had CR LF");
        assert!(!only_crlf(b"a\n", b"a\n\r\n"));
        let canonical: BTreeMap<&str, &[u8]> = [("manifest.json", &b"{\n}\n"[..])].into_iter().collect();
        let mut tree = Tree::default();
        tree.files.insert("manifest.json".into(), b"{\r\n}\r\n".to_vec());
        let d = compare(&canonical, &tree, LABELS).unwrap();
        assert_eq!(d.modified, [Modified { file: "manifest.json".into(), diff: None, crlf: true }]);
        assert!(crlf_note(Some("tests/conformance/"), "x").contains("`tests/conformance/** -text`"));
        assert!(crlf_note(Some(""), "x").contains("`** -text`"), "the repository's root");
        assert!(crlf_note(None, "x").contains("`<the copy's path in the repository>/** -text`"));
        assert_eq!(gitattributes_pattern("tests/my conf[1]"), r#""tests/my conf\\[1\\]/**""#);
        assert_eq!(gitattributes_pattern("tests/x*y?"), r"tests/x\*y\?/**");
        assert_eq!(gitattributes_pattern("#vendor"), r"\#vendor/**");
        assert_eq!(gitattributes_pattern("t/\u{1b}x"), "\"t/\\033x/**\"");
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(repo.path().join(".git")).unwrap();
        std::fs::create_dir_all(repo.path().join("tests/conformance")).unwrap();
        assert_eq!(path_in_repository(&repo.path().join("tests/conformance")).as_deref(), Some("tests/conformance"));
        assert_eq!(path_in_repository(&repo.path().join("tests/./conformance/")).as_deref(), Some("tests/conformance"));
        assert_eq!(path_in_repository(repo.path()).as_deref(), Some(""), "the repository's root");
        assert_eq!(path_in_repository(Path::new("/")), None, "outside a repository");
        assert!(
            crlf_note(Some("/home/ci/sdk/tests/conformance"), "x")
                .contains("`<the copy's path in the repository>/** -text`")
        );
    }
}

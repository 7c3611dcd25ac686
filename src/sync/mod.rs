//! `bqsuite sync`: vendoring the canonical suite into the sibling SDK repositories, and
//! `bqsuite sync --check`: the byte-level drift and pin report (spec "Keeping copies in sync";
//! decisions R19).
//!
//! Invariants:
//! - A vendored copy is exactly the canonical `CONFORMANCE_VERSION`, `manifest.json`,
//!   `schema/` and `fixtures/` ([`vendored_files`], the one definition in [`vendored`]), byte
//!   for byte, taken from the loaded [`Suite`] (read once), never re-read from disk. A
//!   top-level `LICENSE` is not part of a copy: no check looks at it and sync neither writes nor
//!   deletes it. Anything else in a vendored directory (a stale fixture, an empty directory, a
//!   symlink) is drift, and sync removes it, except at its top level, where an entry a copy
//!   never holds makes the directory no copy, which sync refuses (below).
//! - The targets are data (`sync-targets.json`, [`targets`]); their order is the report's.
//! - A missing SDK repository is skipped (a warning; an error under `strict`). A target whose
//!   path leaves its repository through a symlink is refused, never followed ([`place`]). So is
//!   a target whose real directory is the canonical suite's own, lies inside it or holds it (a
//!   repository named like the suite's directory, or a symlink to it): writing that copy would
//!   overwrite or delete the very suite it is copied from. `Sync` and `DryRun` also refuse a
//!   target whose existing directory is not a copy ([`vendored::not_a_copy`], strict: `.git`,
//!   an entry a copy never holds, or no version), whether the targets file names it (`src`,
//!   `.github/workflows`) or a symlink leads there (`conformance -> .` or `-> ../src`):
//!   replacing it would delete the SDK's own files. An empty or missing directory is still
//!   written. No flag overrides this: a maintainer who means it removes the directory by hand.
//!   `Check` reports such a tree's drift as it is.
//! - `Check` and `DryRun` never write. `Sync` refuses to start while `validate` finds an error
//!   in the suite, writes only the copies that differ, one target at a time, each atomically
//!   (stage beside it, swap by renames), and refuses to replace a copy whose version is newer
//!   than the canonical one (a downgrade), or one that holds uncommitted changes in its
//!   repository's git work tree (modified, staged, deleted or untracked files under it, as `git
//!   status` lists them; BQ720) unless `allow_dirty`: replacing it would lose them where git
//!   cannot bring them back. With no `.git` in its directory or above there is no committed
//!   state, and the copy is replaced as before; where git cannot say, the target fails (BQ712).
//!   `DryRun` refuses as `Sync` would, so that it predicts it.
//! - A missing copy is looked for elsewhere in its repository ([`vendored::copies_in`]; another
//!   target's copy is not "elsewhere"): when another directory holds one, `--check` warns
//!   (BQ721), and `Sync` and `DryRun` refuse to create a second copy (BQ721, an error): the
//!   target's path in the targets file is stale, and a second copy would be tested by nothing
//!   while the one CI checks stays old. A located target whose repository's workflows give
//!   the suite's action `vendored:` paths none of which is the target's gets the BQ721 warning
//!   too.
//! - Two targets whose paths resolve to one real directory (a copy symlinked, inside its
//!   repository, to another target's copy) are one copy: the later target gets a BQ722 warning
//!   naming both, and both are still processed as before.
//! - Drift is reported from the copy's side: `added` = in the copy, not in the suite;
//!   `removed` = in the suite, not in the copy; `modified` = bytes differ (with a unified diff
//!   from the canonical file to the copy when both are UTF-8).
//! - A drifted copy whose version is a release older than the canonical one is also compared
//!   with that release's own copy files, read from its tag in the suite's git repository, never
//!   from the network ([`vendored::edits`], read through [`Options::releases`]; once per version, before anything is written):
//!   exactly the release is said on its line, local edits are one BQ723 per copy (an error under
//!   `Check`, a warning from `Sync` and `DryRun`, which say what they do to them), and a release
//!   that cannot be read is one BQ724 warning saying why, never a guess.
//! - Pins ([`pin`]) are reported for every located target, after the command (so after a sync
//!   they describe the new copy), once per repository and finding (the targets of one
//!   repository share its workflows). They are warnings: the exit status of `--check` is the
//!   byte drift, as the old `sync.sh --check` had it.
//! - A run that locates no repository at all (every target skipped) could not run: a root that
//!   holds none of the SDKs is a misconfiguration, never a green check of nothing.
//! - Staging areas left beside a copy by an interrupted run ([`vendored::leftovers`], named by
//!   [`crate::staging`]) are errors under `--check` (a `git add -A` would commit them); `sync`
//!   removes them first (restoring an old copy that a two-rename swap had moved aside when the
//!   copy itself is missing) and says so in a warning. A removal that fails names the entry
//!   inside the leftover that resists (BQ712).
//! - A write whose new copy is in place but whose old copy could not be removed
//!   ([`Action::WrittenOldKept`]) is reported as what is on disk: the copy is updated (its
//!   version and pin status are the new copy's), and the old copy left beside it is a BQ712
//!   error naming it and the entry that resists; `--check` then calls it the old copy, not
//!   removed (BQ719), never the stage of an interrupted sync.

pub mod bump;
pub mod pin;
mod place;
mod report;
pub mod targets;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use semver::Version;

use crate::diag;
use crate::suite::{self, Suite};
use crate::vendored;
use crate::vendored::edits::{self as local_edits, LocalEdits};

pub use crate::vendored::{Drift, Modified};
pub use crate::vendored::{Leftover, Recovered};
pub use pin::{Pin, PinStatus};
pub use targets::Target;

pub(crate) use place::{Given, Problem, resolve_given};

/// What `sync` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Compare only (`--check`).
    Check,
    /// Make every copy exact.
    Sync,
    /// Say what `Sync` would change, write nothing (`--dry-run`).
    DryRun,
}

/// How to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The directory holding the SDK repositories.
    pub root: PathBuf,
    pub mode: Mode,
    /// A missing SDK repository is an error.
    pub strict: bool,
    /// Replace a copy that holds uncommitted changes in its git work tree (`--allow-dirty`).
    pub allow_dirty: bool,
    /// After the copies, rewrite each repository's CI pins to the canonical tag
    /// (`--bump-pins`; [`bump`]). `DryRun` says what it would rewrite; `Check` ignores it.
    pub bump_pins: bool,
    /// How to read the copy files of an older release from the suite's repository (the
    /// suite's directory, the version), to tell a copy of it exact or locally edited
    /// ([`local_edits`]); `None`: not told. The command line gives `diff`'s reader of release
    /// tags, a layer above this one.
    pub releases: Option<ReadRelease>,
}

/// Reads the copy files of release `version` in the repository holding the suite directory
/// (path → bytes), or says why it cannot.
pub type ReadRelease = fn(&Path, &str) -> Result<BTreeMap<String, Vec<u8>>, String>;

/// What was found at a target before anything was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// The SDK repository is not under the root.
    Skipped,
    /// The path leaves the repository, or is not a directory: not touched.
    Refused(String),
    /// Reading the copy failed.
    Failed(String),
    /// The repository has no vendored directory.
    Missing,
    InSync,
    Drifted(Drift),
}

/// What a sync did to a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Nothing to do (or `Check`).
    None,
    /// The copy was replaced (or created).
    Written,
    /// The copy was replaced, but the old copy, moved aside under `name` beside it, could not
    /// be removed (`why` names the entry that resisted): the copy on disk is the new one.
    WrittenOldKept { name: String, why: String },
    /// `DryRun`: the copy would be replaced (or created).
    WouldWrite,
    /// The copy is newer than the canonical suite (its version): left alone.
    RefusedDowngrade(String),
    /// The copy holds uncommitted changes in its repository's git work tree (their paths,
    /// relative to the copy): left alone, since replacing it would lose them.
    RefusedUncommitted(Vec<String>),
    /// The copy is missing, but the repository holds one at these other paths: no second copy
    /// is created (BQ721).
    RefusedElsewhere(Vec<String>),
    /// The copy is missing and these old copies, moved aside by interrupted runs, lie beside it
    /// ([`vendored::olds_to_choose`]): which one to keep is the user's choice, so none is
    /// restored, none removed, and no copy created (BQ719).
    RefusedOldCopies(Vec<String>),
    /// Writing failed; the old copy was kept.
    Failed(String),
}

/// One target's outcome.
#[derive(Debug, Clone)]
pub struct TargetReport {
    pub target: Target,
    pub state: State,
    pub action: Action,
    /// The copy's `CONFORMANCE_VERSION` after the command (`None`: no copy, or no version).
    pub copy_version: Option<String>,
    /// The pins of the SDK's CI (empty when the repository was not located).
    pub pins: Vec<Pin>,
    /// `None` when the repository was not located (skipped, refused, unreadable).
    pub pin_status: Option<PinStatus>,
    /// Staging areas an interrupted run left beside the copy, and what this run did with them.
    pub leftovers: Vec<(Leftover, Recovered)>,
    /// The old copies among `leftovers` that a sync keeps for the user to choose between
    /// ([`vendored::olds_to_choose`], decided before any was touched), by name.
    pub olds_to_choose: Vec<String>,
    /// When the copy is missing: the other directories of the repository that hold a copy
    /// (none of them another target's), relative to it.
    pub elsewhere: Vec<String>,
    /// The paths the repository's workflows give the suite's action as `vendored:` (empty:
    /// none given).
    pub ci_vendored: Vec<String>,
    /// The SDK repository's real directory (`None` when it was not located).
    pub repo_dir: Option<PathBuf>,
    /// The copy's real directory (`None` when the repository was not located).
    pub copy_dir: Option<PathBuf>,
    /// An earlier target (its id) whose path resolves to the same real directory (BQ722).
    pub shared_with: Option<String>,
    /// When the copy, before the command, stated a release older than the canonical suite and
    /// differed from it: whether it is exactly that release or holds local edits, read from the
    /// release's tag in the suite's repository ([`local_edits`]; BQ723, BQ724).
    pub local_edits: Option<LocalEdits>,
    /// A `.git` is in the copy's directory or above it: what a sync replaces stays in history.
    pub in_git: bool,
}

impl TargetReport {
    /// What a target's report says before its repository is located: skipped, nothing found,
    /// nothing done (the one place every field starts from).
    fn skipped(target: &Target) -> Self {
        TargetReport {
            target: target.clone(),
            state: State::Skipped,
            action: Action::None,
            copy_version: None,
            pins: Vec::new(),
            pin_status: None,
            leftovers: Vec::new(),
            olds_to_choose: Vec::new(),
            elsewhere: Vec::new(),
            ci_vendored: Vec::new(),
            repo_dir: None,
            copy_dir: None,
            shared_with: None,
            local_edits: None,
            in_git: false,
        }
    }
}

/// The outcome over all targets.
#[derive(Debug, Clone)]
pub struct Report {
    pub mode: Mode,
    pub strict: bool,
    pub root: PathBuf,
    /// The canonical `CONFORMANCE_VERSION`.
    pub version: Version,
    pub targets: Vec<TargetReport>,
    /// `--bump-pins` (not under `Check`): what became of each located repository's pins, by
    /// repository name, in target order.
    pub bumps: Option<Vec<(String, bump::Outcome)>>,
}

/// The canonical files a vendored copy holds, by suite-relative path ([`vendored::is_part`]).
pub fn vendored_files(suite: &Suite) -> BTreeMap<&str, &[u8]> {
    vendored::canonical(suite.files().map(|f| (f.rel.as_str(), f.bytes())))
}

/// Run over `targets`. An error means nothing ran (no SemVer suite version; or, for a sync,
/// a suite that `validate` does not pass).
pub fn run(suite: &Suite, targets: &[Target], opts: &Options) -> Result<Report, String> {
    let version = suite.version().and_then(|v| Version::parse(v).ok()).ok_or_else(|| {
        format!("the suite's CONFORMANCE_VERSION is missing or not SemVer; run {}", suite.validate_command())
    })?;
    if opts.mode != Mode::Check {
        let errors = crate::validate::validate(suite).iter().filter(|f| f.severity == diag::Severity::Error).count();
        if errors > 0 {
            return Err(format!(
                "the suite has {errors} validate error{}; fix {} before syncing (run {})",
                if errors == 1 { "" } else { "s" },
                if errors == 1 { "it" } else { "them" },
                suite.validate_command()
            ));
        }
    }
    let canonical = vendored_files(suite);
    let suite_dir = suite.root.canonicalize().unwrap_or_else(|_| suite.root.clone());
    // Every target's path, by repository, so that another target's copy is never taken for a
    // copy kept elsewhere (the suite's own list too: `--only` selects fewer).
    let mut known: Vec<Target> = targets::from_suite(suite).unwrap_or_default();
    known.extend(targets.iter().cloned());
    // Each older release's files are read from its tag once, however many copies state it.
    let mut releases = Releases::new();
    let mut targets: Vec<TargetReport> =
        targets.iter().map(|t| one(t, &canonical, &version, &suite_dir, opts, &known, &mut releases)).collect();
    if !targets.is_empty() && targets.iter().all(|t| t.state == State::Skipped) {
        let n = targets.len();
        return Err(format!(
            "none of the {n} target{}' repositories is under the sync root {}, so there is nothing to {}: \
             a root that holds none of the SDKs is a misconfiguration (clone the SDK repositories side by side \
             with this suite, or pass --root DIR)",
            if n == 1 { "" } else { "s" },
            opts.root.display(),
            if opts.mode == Mode::Check { "check" } else { "sync" }
        ));
    }
    // Ruling (stop 73): two targets that are one directory are reported (BQ722), not counted
    // silently as two copies; both are still processed as before (the second write finds the
    // copy exact).
    for i in 0..targets.len() {
        let Some(dir) = targets[i].copy_dir.clone() else { continue };
        targets[i].shared_with = targets[..i].iter().find(|t| t.copy_dir.as_ref() == Some(&dir)).map(|t| t.target.id());
    }
    let bumps = (opts.bump_pins && opts.mode != Mode::Check)
        .then(|| bump_pins(&mut targets, &known, &version, &suite_dir, opts.mode == Mode::Sync));
    Ok(Report { mode: opts.mode, strict: opts.strict, root: opts.root.clone(), version, targets, bumps })
}

/// `--bump-pins`: each located repository's pins, bumped to `version` only when every one of
/// its targets (every target the suite's list names in it, not only those selected) is at
/// `version` after the run: written (or, dry, to be), or already in sync. Otherwise its stale
/// pins are left with the reason: a pin bumped past its copy is the very mismatch the flag
/// exists to prevent. After a write the targets' pins are read again, so the report describes
/// the workflows as they now are.
fn bump_pins(
    targets: &mut [TargetReport],
    known: &[Target],
    version: &Version,
    suite_dir: &Path,
    write: bool,
) -> Vec<(String, bump::Outcome)> {
    let mut out: Vec<(String, bump::Outcome)> = Vec::new();
    let v = version.to_string();
    let resolve = |tag: &str| bump::resolve_in_suite(suite_dir, tag);
    for i in 0..targets.len() {
        let (repo, Some(dir)) = (&targets[i].target.repo, targets[i].repo_dir.clone()) else { continue };
        if out.iter().any(|(r, _)| r == repo) {
            continue;
        }
        let ours: Vec<&TargetReport> = targets.iter().filter(|t| &t.target.repo == repo).collect();
        let unselected = known.iter().find(|k| &k.repo == repo && !ours.iter().any(|t| t.target.path == k.path));
        let not_at = ours.iter().find(|t| {
            let at = matches!(t.action, Action::Written | Action::WrittenOldKept { .. } | Action::WouldWrite)
                || (t.state == State::InSync && t.action == Action::None);
            !at
        });
        let outcome = if let Some(t) = not_at {
            let why = match (&t.state, &t.action) {
                (State::Refused(_), _)
                | (_, Action::RefusedDowngrade(_) | Action::RefusedElsewhere(_) | Action::RefusedOldCopies(_)) => {
                    "refused"
                }
                (_, Action::RefusedUncommitted(_)) => "refused (uncommitted changes)",
                (State::Failed(_), _) | (_, Action::Failed(_)) => "failed",
                _ => "not written",
            };
            let reason = format!(
                "not bumped: {} was {why}, so its copy is not at {v}, and a pin never names a version its copy is not at",
                t.target.id()
            );
            bump::leave_all(&dir, &v, &reason)
        } else if let Some(k) = unselected {
            let reason = format!(
                "not bumped: {}/{} is not in this run (--only), so bqsuite cannot tell that its copy is at {v}",
                k.repo, k.path
            );
            bump::leave_all(&dir, &v, &reason)
        } else {
            bump::bump(&dir, &v, Some(&resolve), write)
        };
        let repo = repo.clone();
        if write && !outcome.bumped.is_empty() {
            for t in targets.iter_mut().filter(|t| t.target.repo == repo) {
                t.pins = pin::read(&dir);
                t.pin_status = Some(pin::classify(t.copy_version.as_deref(), &t.pins, version));
            }
        }
        out.push((repo, outcome));
    }
    out
}

/// The copy files of the older releases copies state, by version, as read from their tags (or
/// why they could not be).
type Releases = BTreeMap<String, Result<BTreeMap<String, Vec<u8>>, String>>;

fn one(
    target: &Target,
    canonical: &BTreeMap<&str, &[u8]>,
    version: &Version,
    suite_dir: &Path,
    opts: &Options,
    known: &[Target],
    releases: &mut Releases,
) -> TargetReport {
    let mut report = TargetReport::skipped(target);
    let mut loc = match place::locate(&opts.root, &target.repo, &target.path) {
        Ok(Some(loc)) => loc,
        Ok(None) => return report,
        Err(place::Problem::Unsafe(why)) => {
            report.state = State::Refused(why);
            return report;
        }
        Err(place::Problem::Io(why)) => {
            report.state = State::Failed(why);
            return report;
        }
    };
    report.repo_dir = Some(loc.repo.clone());
    report.copy_dir = Some(loc.dir.clone());
    if let Some(why) = overlaps_suite(&loc.dir, suite_dir) {
        report.state = State::Refused(format!("{} {why}", target.id()));
        return report;
    }
    if opts.mode != Mode::Check && loc.exists {
        // Only a copy may be replaced: the targets file (a pull request can change it) and a
        // symlink (the SDK repository's choice) alike may name any directory, `src` as well.
        let redirected = loc.dir != loc.repo.join(&target.path);
        match vendored::not_a_copy(&loc.dir, true) {
            Ok(None) => {}
            Ok(Some(not)) => {
                let why = not.why();
                let via = if redirected {
                    format!(" leads through a symlink to {}, and that directory", loc.dir.display())
                } else {
                    String::new()
                };
                report.state = State::Refused(format!("{}{via} {why}: not written", target.id()));
                return report;
            }
            Err(e) => {
                report.state = State::Failed(format!("cannot read {}: {e}", target.id()));
                return report;
            }
        }
    }
    let found = match vendored::leftovers(&loc.dir) {
        Ok(found) => found,
        Err(e) => {
            report.state = State::Failed(format!("cannot read the directory that holds {}: {e}", target.id()));
            return report;
        }
    };
    report.olds_to_choose = vendored::olds_to_choose(&loc.dir, &found);
    report.leftovers = if opts.mode == Mode::Sync {
        vendored::recover(&loc.dir, &found)
    } else {
        found.into_iter().map(|l| (l, Recovered::Found)).collect()
    };
    loc.exists |= report.leftovers.iter().any(|(_, r)| *r == Recovered::Restored);
    let tree = if loc.exists {
        match vendored::read_tree(&loc.dir) {
            Ok(t) => Some(t),
            Err(e) => {
                report.state = State::Failed(format!("cannot read {}: {e}", target.id()));
                return report;
            }
        }
    } else {
        None
    };
    report.copy_version = tree.as_ref().and_then(|t| copy_version(t.files.get(suite::VERSION_FILE)?));
    report.state = match &tree {
        None => State::Missing,
        Some(t) => vendored::compare(canonical, t, ("canonical", "vendored")).map_or(State::InSync, State::Drifted),
    };
    // Ruling (stop 75): only a copy behind the suite is judged against its own release; a newer
    // one is never replaced (BQ713), and its release is not this repository's to know.
    if let (State::Drifted(_), Some(t)) = (&report.state, &tree) {
        let older = local_edits::other_version(report.copy_version.as_deref(), version)
            .filter(|v| Version::parse(v).is_ok_and(|v| v < *version));
        if let (Some(v), Some(read)) = (older, opts.releases) {
            let release = releases.entry(v.to_owned()).or_insert_with(|| read(suite_dir, v));
            report.in_git = vendored::path_in_repository(&loc.dir).is_some();
            report.local_edits = Some(match release {
                Ok(files) => LocalEdits::judge(v, files, t),
                Err(why) => LocalEdits::unknown(v, why.clone()),
            });
        }
    }
    report.ci_vendored = pin::vendored_inputs(&loc.repo);
    if report.state == State::Missing {
        let others = |p: &String| !known.iter().any(|k| k.repo == target.repo && &k.path == p);
        report.elsewhere = vendored::copies_in(&loc.repo).into_iter().filter(others).collect();
    }
    if opts.mode != Mode::Check && report.state != State::InSync {
        let newer = report.copy_version.as_deref().and_then(|v| Version::parse(v).ok()).filter(|v| v > version);
        report.action = if !report.olds_to_choose.is_empty() {
            Action::RefusedOldCopies(report.olds_to_choose.clone())
        } else if let Some(v) = newer {
            Action::RefusedDowngrade(v.to_string())
        } else if !report.elsewhere.is_empty() {
            // Ruling (user study, stop 67): a second copy beside the one the repository keeps
            // would be tested by nothing while that one stays old; the target's path is what
            // is wrong, so sync refuses and says so.
            Action::RefusedElsewhere(report.elsewhere.clone())
        } else if let Some(refusal) = (!opts.allow_dirty && loc.exists).then(|| uncommitted(&loc.dir, target)).flatten()
        {
            refusal
        } else if opts.mode == Mode::DryRun {
            Action::WouldWrite
        } else {
            match vendored::replace(&loc.dir, canonical) {
                Ok(vendored::Replaced::Whole) => Action::Written,
                Ok(vendored::Replaced::OldKept { name, why }) => Action::WrittenOldKept { name, why },
                Err(e) => {
                    Action::Failed(match vendored::unwritable_dir(&loc.dir).filter(|_| vendored::is_unwritable(&e)) {
                        // The directory that refused, not the copy (user study, stop 73: a
                        // read-only repository named the copy, whose own mode was fine).
                        Some(d) => format!(
                            "cannot write {}: the directory {} is not writable ({e}); the old copy is kept",
                            target.id(),
                            match d.strip_prefix(&loc.repo) {
                                Ok(rel) if rel.as_os_str().is_empty() => target.repo.clone(),
                                Ok(rel) => format!("{}/{}", target.repo, rel.display()),
                                Err(_) => d.display().to_string(),
                            }
                        ),
                        None => format!("cannot write {}: {e}", target.id()),
                    })
                }
            }
        };
        if matches!(report.action, Action::Written | Action::WrittenOldKept { .. } | Action::WouldWrite) {
            report.copy_version = Some(version.to_string());
        }
    }
    report.pins = pin::read(&loc.repo);
    report.pin_status = Some(pin::classify(report.copy_version.as_deref(), &report.pins, version));
    report
}

/// What keeps the copy at `dir` from being replaced, when its git work tree holds uncommitted
/// changes under it (or git cannot say whether it does); `None` outside a git work tree, where
/// there is no committed state to lose it against.
fn uncommitted(dir: &Path, target: &Target) -> Option<Action> {
    match vendored::uncommitted(dir) {
        crate::git::Changes::NoRepository | crate::git::Changes::Clean => None,
        crate::git::Changes::Uncommitted(paths) => Some(Action::RefusedUncommitted(paths)),
        crate::git::Changes::Unknown(e) => Some(Action::Failed(vendored::kept_unknown(&target.id(), &e))),
    }
}

/// Why the real vendored directory `dir` may not be written, being the canonical suite's
/// directory `suite_dir` (real path), inside it or above it.
fn overlaps_suite(dir: &Path, suite_dir: &Path) -> Option<String> {
    let shown = suite_dir.display();
    if dir == suite_dir {
        Some(format!("is the canonical suite's own directory {shown}: it is never a vendored copy"))
    } else if dir.starts_with(suite_dir) {
        Some(format!("lies inside the canonical suite's directory {shown}: a copy is never written into it"))
    } else if suite_dir.starts_with(dir) {
        Some(format!("holds the canonical suite's directory {shown}: replacing it would delete the suite"))
    } else {
        None
    }
}

/// The version a copy's `CONFORMANCE_VERSION` holds.
fn copy_version(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes).ok().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A located target of `repo` (its real directory `dir`) with what `one` found and did, its
    /// pins read from `dir` as `one` reads them.
    fn located(repo: &str, dir: &Path, state: State, action: Action) -> TargetReport {
        let copy_version = Some("1.6.0".to_owned());
        let pins = pin::read(dir);
        TargetReport {
            state,
            action,
            pin_status: Some(pin::classify(copy_version.as_deref(), &pins, &Version::new(1, 6, 0))),
            copy_version,
            pins,
            repo_dir: Some(dir.to_path_buf()),
            copy_dir: Some(dir.join("conformance")),
            ..TargetReport::skipped(&Target { repo: repo.into(), path: "conformance".into() })
        }
    }

    /// A repository directory under `root` whose workflow `file` pins `tag`.
    fn repo_pinning(root: &Path, name: &str, file: &str, tag: &str) -> PathBuf {
        let dir = root.join(name);
        pin::write_workflow(&dir, file, &format!("steps:\n  - uses: BabelQueue/conformance@{tag}\n"));
        dir
    }

    /// A repository one of whose targets is not at the version after the run keeps its stale
    /// pins, and the reason names that target and what became of it: a target refused or
    /// failed before anything was done (no action at all) counts as not at the version, as
    /// much as one whose write was refused or failed.
    #[test]
    fn a_repository_with_a_target_not_at_the_version_keeps_its_pins_and_says_why() {
        let tmp = tempfile::tempdir().unwrap();
        let version = Version::new(1, 6, 0);
        let cases = [
            (State::Refused("not a copy".into()), Action::None, "was refused,"),
            (State::Failed("unreadable".into()), Action::None, "was failed,"),
            (State::Drifted(Drift::default()), Action::Failed("unwritable".into()), "was failed,"),
            (State::Drifted(Drift::default()), Action::RefusedDowngrade("1.7.0".into()), "was refused,"),
            (
                State::Drifted(Drift::default()),
                Action::RefusedUncommitted(vec!["x".into()]),
                "was refused (uncommitted",
            ),
            (State::Missing, Action::None, "was not written,"),
        ];
        for (i, (state, action, word)) in cases.into_iter().enumerate() {
            let dir = repo_pinning(tmp.path(), &format!("sdk{i}"), "ci.yml", "v1.5.0");
            let before = std::fs::read_to_string(dir.join(pin::WORKFLOWS).join("ci.yml")).unwrap();
            let mut at = located(&format!("sdk{i}"), &dir, State::InSync, Action::None);
            at.target.path = "other".into();
            let mut targets = vec![at, located(&format!("sdk{i}"), &dir, state.clone(), action.clone())];
            let out = bump_pins(&mut targets, &[], &version, tmp.path(), true);
            let (repo, outcome) = &out[0];
            assert_eq!((repo.as_str(), outcome.bumped.len()), (format!("sdk{i}").as_str(), 0), "{state:?} {action:?}");
            assert_eq!(outcome.left.len(), 1, "{state:?} {action:?}");
            let reason = &outcome.left[0].reason;
            assert!(reason.starts_with(&format!("not bumped: sdk{i}/conformance {word}")), "{state:?}: {reason}");
            assert_eq!(std::fs::read_to_string(dir.join(pin::WORKFLOWS).join("ci.yml")).unwrap(), before);
        }
    }

    /// After a write, the targets of the bumped repository describe its workflows as they now
    /// are (the new tag, in sync), and no other repository's targets are touched.
    #[test]
    fn after_a_bump_its_repository_s_targets_carry_the_new_pins_and_no_other_s() {
        let tmp = tempfile::tempdir().unwrap();
        let version = Version::new(1, 6, 0);
        let a = repo_pinning(tmp.path(), "sdk-a", "ci.yml", "v1.5.0");
        let b = repo_pinning(tmp.path(), "sdk-b", "nightly.yml", "v1.6.0");
        let mut targets = vec![
            located("sdk-a", &a, State::InSync, Action::None),
            located("sdk-b", &b, State::Drifted(Drift::default()), Action::Written),
        ];
        assert_eq!(targets[0].pin_status, Some(PinStatus::Mismatch));
        let b_pins = targets[1].pins.clone();
        let out = bump_pins(&mut targets, &[], &version, tmp.path(), true);
        assert_eq!(
            out.iter().map(|(r, o)| (r.as_str(), o.bumped.len())).collect::<Vec<_>>(),
            [("sdk-a", 1), ("sdk-b", 0)]
        );
        assert_eq!(targets[0].pins.iter().map(|p| p.tag.as_str()).collect::<Vec<_>>(), ["v1.6.0"]);
        assert_eq!(targets[0].pin_status, Some(PinStatus::InSync));
        assert_eq!(targets[1].pins, b_pins);
        assert_eq!(targets[1].pins[0].file, ".github/workflows/nightly.yml");
    }
}

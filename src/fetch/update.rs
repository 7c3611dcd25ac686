//! `fetch --update VERSION DIR`: replace a vendored copy in place with a verified release.
//!
//! Rules:
//! - The release is downloaded and verified exactly as for `fetch` (rules 2–10 of
//!   [`crate::fetch`]); nothing is written before that passes.
//! - DIR must be an existing directory: the copy to update, taken by the rule `--check` applies
//!   too ([`super::given_copy`]): reached through a symlink only where a sync target may be (one
//!   that stays inside its git repository), never a symlink outside any repository. Leftovers
//!   of an interrupted write beside it are cleaned up first ([`vendored::recover`]).
//! - DIR must be a vendored copy, because it comes from the command line (`sync`'s targets are
//!   reviewed data) and the update deletes whatever in it is not the release's: so its top level
//!   holds no `.git` (a repository or a worktree is never a copy), nothing a copy never holds
//!   (anything but `CONFORMANCE_VERSION`, `manifest.json`, `schema`, `fixtures` and the ignored
//!   `LICENSE`: the sign of the repository root, the directory above the copy or a source tree),
//!   and `CONFORMANCE_VERSION` or `manifest.json` unless it holds nothing else at all (so a
//!   directory of the SDK's own `fixtures/` is not one). Otherwise it is refused before anything
//!   is downloaded or written (could not run), naming the entry; stale files under `schema/`
//!   and `fixtures/` are still removed.
//! - The new copy is exactly the release's files that make a vendored copy
//!   ([`vendored::is_part`], the definition `sync` uses), written by [`vendored::replace`]:
//!   staged beside DIR and swapped in atomically; DIR's `LICENSE` is neither written nor
//!   deleted. A copy already exact is left alone.
//! - A copy that differs from the release and holds uncommitted changes in its repository's git
//!   work tree (modified, staged, deleted or untracked files under DIR, as `git status` lists
//!   them) is not replaced unless the caller allows it (`--allow-dirty`), as `sync` refuses it
//!   (BQ720): the update would lose them where git cannot bring them back. With no `.git` in
//!   DIR or above there is nothing committed to lose them against; where git cannot say, the
//!   update does not run.
//! - The copy's `CONFORMANCE_VERSION` says what it was. A copy newer than VERSION is not
//!   downgraded unless the caller allows it; a copy without a readable SemVer version is
//!   replaced (there is nothing to downgrade from).
//! - What changed is reported from the update's side: `added` are release files the old copy
//!   lacked, `removed` are entries of the old copy that are gone, `modified` differ in bytes.
//! - The CI pins are those `sync` reads ([`crate::sync::pin`]), in the git repository that
//!   holds DIR (the nearest ancestor with a `.git`); any pin other than `vVERSION` is reported so
//!   the caller can remind the user to bump it in the same commit.
//! - With `bump_pins` (`--bump-pins`), once the copy is at VERSION (written, or already
//!   exact), every pin of that repository is rewritten to `vVERSION` by the rules of
//!   [`crate::sync::bump`]: a pin by commit SHA is left and named (an SDK repository holds no
//!   suite tag to resolve its commit from), and so is every pin while another copy in the
//!   repository ([`vendored::copies_in`]) states another version, since the pin checks it too.
//!   A refused or failed update bumps nothing. The pins still stale afterwards are the
//!   reminder's.

use std::path::{Path, PathBuf};

use semver::Version;

use super::{FetchError, Request, Verified, open};
use crate::git::Changes;
use crate::sync::bump;
use crate::sync::pin::{self, Pin};
use crate::vendored::{self, Recovered};

/// What an update changed.
#[derive(Debug, Clone)]
pub struct Updated {
    pub verified: Verified,
    /// The copy's version before (`None`: no readable `CONFORMANCE_VERSION`).
    pub from: Option<String>,
    /// Release files the old copy lacked.
    pub added: Vec<String>,
    /// Entries of the old copy that are gone (directories end in `/`).
    pub removed: Vec<String>,
    /// Files whose bytes changed.
    pub modified: Vec<String>,
    /// The git repository holding the copy, when there is one.
    pub repo: Option<PathBuf>,
    /// Its CI pins that do not pin `v<VERSION>` (empty: nothing to bump).
    pub stale_pins: Vec<Pin>,
    /// Did the repository's workflows pin anything at all?
    pub pinned: bool,
    /// The new copy is in place, but the old one could not be removed: why, naming what is left.
    pub old_kept: Option<String>,
    /// `--bump-pins`: what became of the repository's pins (`None`: not asked, or no
    /// repository).
    pub bumps: Option<bump::Outcome>,
}

impl Updated {
    /// Was anything written?
    pub fn changed(&self) -> bool {
        !(self.added.is_empty() && self.removed.is_empty() && self.modified.is_empty())
    }
}

/// Update the copy at `dir` to the release `req` names.
pub fn update(
    req: &Request,
    dir: &Path,
    allow_downgrade: bool,
    allow_dirty: bool,
    bump_pins: bool,
) -> Result<Updated, FetchError> {
    let shown = dir.display();
    // Leftovers beside the real directory (never beside a symlink's target it refuses).
    if let Ok(crate::sync::Given { dir: real, .. }) = crate::sync::resolve_given(dir) {
        let real = crate::staging::real_dest(&real);
        if let Ok(found) = vendored::leftovers(&real) {
            let choose = vendored::olds_to_choose(&real, &found);
            if !choose.is_empty() {
                return Err(FetchError::could_not_run(format!(
                    "{shown} is missing and {} old copies that interrupted runs moved aside lie beside it ({}); \
                     nothing tells which one to keep: move it back to {shown} (or remove them all) and run again",
                    choose.len(),
                    choose.join(", ")
                )));
            }
            for (_, fate) in vendored::recover(&real, &found) {
                if let Recovered::Failed(e) = fate {
                    return Err(FetchError::could_not_run(format!(
                        "{shown}: cannot clean up after an interrupted update: {e}"
                    )));
                }
            }
        }
    }
    let (real, _) = super::given_copy(dir, "update")?;
    let real = crate::staging::real_dest(&real);
    let copy =
        vendored::read_tree(&real).map_err(|e| FetchError::could_not_run(format!("cannot read {shown}: {e}")))?;
    let from = copy.version();
    let target = Version::parse(&req.version).expect("a Request holds canonical SemVer");
    let newer = from.as_deref().and_then(|v| Version::parse(v).ok()).filter(|v| *v > target);
    if let (Some(old), false) = (newer, allow_downgrade) {
        return Err(FetchError::refused(format!(
            "{shown} holds {old}, newer than {target}: not downgraded (pass --allow-downgrade to do it anyway)"
        )));
    }
    let verified = open(req)?;
    let canonical = vendored::canonical(verified.tree.files());
    let drift = vendored::compare(&canonical, &copy, ("release", "copy")).unwrap_or_default();
    let mut old_kept = None;
    if !(drift.added.is_empty() && drift.removed.is_empty() && drift.modified.is_empty()) {
        if !allow_dirty {
            match vendored::uncommitted(&real) {
                Changes::NoRepository | Changes::Clean => {}
                Changes::Uncommitted(paths) => {
                    let eol = vendored::line_endings_only(&paths, &drift);
                    let command = format!(
                        "bqsuite fetch --update {} {}",
                        req.version,
                        crate::diag::path_word(&shown.to_string())
                    );
                    return Err(FetchError::refused(vendored::kept_uncommitted(
                        &shown.to_string(),
                        &paths,
                        eol,
                        &command,
                    )));
                }
                Changes::Unknown(e) => {
                    return Err(FetchError::could_not_run(vendored::kept_unknown(&shown.to_string(), &e)));
                }
            }
        }
        let done = vendored::replace(&real, &canonical).map_err(|e| {
            FetchError::could_not_run(match vendored::unwritable_dir(&real).filter(|_| vendored::is_unwritable(&e)) {
                Some(d) => format!(
                    "cannot write {shown}: the directory {} is not writable ({e}); the old copy is kept",
                    d.display()
                ),
                None => format!("cannot write {shown}: {e}; the old copy is kept"),
            })
        })?;
        if let vendored::Replaced::OldKept { name, why } = done {
            old_kept = Some(format!(
                "the new copy is in place, but the old copy moved aside beside it as {name} could not be removed \
                 ({why}); remove it (the next fetch --update or sync tries again)"
            ));
        }
    }
    let repo =
        real.canonicalize().ok().and_then(|d| d.ancestors().find(|a| a.join(".git").exists()).map(Path::to_path_buf));
    let bumps = repo.as_deref().filter(|_| bump_pins).map(|repo| {
        let this = real.canonicalize().unwrap_or_else(|_| real.clone());
        let other = vendored::copies_in(repo).into_iter().find_map(|rel| {
            let at = repo.join(&rel);
            let v = std::fs::read_to_string(at.join(crate::suite::VERSION_FILE)).ok()?.trim().to_owned();
            (at.canonicalize().ok()? != this && v != req.version).then_some((rel, v))
        });
        match other {
            Some((rel, v)) => bump::leave_all(
                repo,
                &req.version,
                &format!(
                    "not bumped: the repository's other copy {rel} is {v}, and a pin never names a version a copy it                      checks is not at"
                ),
            ),
            None => bump::bump(repo, &req.version, None, true),
        }
    });
    let pins = repo.as_deref().map(pin::read).unwrap_or_default();
    let want = format!("v{}", req.version);
    Ok(Updated {
        verified,
        from,
        // The drift is the old copy's view: what it had extra is what the update removes.
        added: drift.removed,
        removed: drift.added,
        modified: drift.modified.into_iter().map(|m| m.file).collect(),
        repo,
        pinned: !pins.is_empty(),
        old_kept,
        bumps,
        stale_pins: pins.into_iter().filter(|p| p.tag != want).collect(),
    })
}

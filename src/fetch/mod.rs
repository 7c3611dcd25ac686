//! `bqsuite fetch`: download a released suite, verify it, and unpack it safely or compare a
//! vendored copy with it (decisions R18; the spec's "Release asset and fetch.sh").
//!
//! Where the assets are: `<base>/babelqueue-conformance-<version>.tar.gz` and
//! `<base>/SHA256SUMS`. `<base>` is `BQ_CONFORMANCE_BASE_URL` (or `--base-url`) when set, a
//! `file://`, `http://` or `https://` URL in which every `{version}` is replaced by the version
//! fetched (a mirror with one directory per release, as GitHub lays them out, serves every
//! version from one setting; `diff 1.6.0 1.7.0` needs that), and otherwise
//! `https://github.com/BabelQueue/conformance/releases/download/v<version>`. `VERSION` must be a
//! SemVer version written canonically (no leading `v`), since it becomes part of URLs and of the
//! root directory's name.
//!
//! Extraction rules, in the order they apply:
//!
//! 1. **DEST first.** DEST must be absent or an empty directory (not a symlink), and its parent
//!    must exist (fetch makes DEST, never its parents, so a mistyped DEST makes no tree; the
//!    error gives the `mkdir -p` to run); otherwise nothing is downloaded.
//! 2. **Checksum before parsing.** The asset's sha256 must equal its line in `SHA256SUMS`
//!    (`<hex>  <name>` or `<hex> *<name>`), or the hash pinned with `--sha256` (then
//!    `SHA256SUMS` is not consulted: the pin is the authority, and it gives authenticity, which
//!    `SHA256SUMS` published beside the asset cannot). A missing line is "could not run";
//!    a mismatch is a verification failure. Not one byte of the archive is parsed before this.
//! 3. **Bounded decompression.** Exactly one gzip member and nothing after it. The download is
//!    capped, and so is the uncompressed size and the compression ratio (a decompression bomb
//!    stops as soon as the output outgrows the ratio, see [`Limits`]).
//! 4. **Strict ustar** ([`crate::release::ustar`]): correct header checksums, plain octal
//!    numbers, complete data, the two-zero-block end marker and nothing but zeros after it.
//!    Pax and GNU long-name headers are refused, never merged, so no extension can replace an
//!    entry's path, size or link target.
//! 5. **Only regular files and directories.** Symlinks, hardlinks, character and block devices,
//!    FIFOs, contiguous and sparse files, volume labels and unknown types are refused, by name.
//!    Header modes, owners and times must be what `release` writes (rule 10).
//! 6. **One root.** Every entry lies under exactly one root directory named
//!    `babelqueue-conformance-<VERSION>/`, and the root itself, when it has an entry, is a
//!    directory.
//! 7. **Safe names.** Inside the root every path obeys the path rule of
//!    [`crate::suite::paths`]: no absolute path, no `..`, `.` or empty component, no control
//!    character or character Windows refuses (`\ : * ? " < > |`), no Windows device name, no
//!    component ending in a dot or a space. No path appears twice,
//!    none equals another when letter case is ignored, and no entry lies inside a path that is a
//!    file. No file is one `release` refuses to ship ([`crate::suite::is_stray`]: under
//!    `schema/` and `fixtures/` only `.json` files, none hidden), which rule 10 alone would let
//!    through: it proves the bytes are what `release` writes for these files, not that it would
//!    take them.
//! 8. **Caps** on the number of entries and the size of one file. The files' total needs no
//!    cap of its own: every file's bytes lie in the tar stream, which rule 3 caps.
//! 9. **The archive says what it is.** Its `CONFORMANCE_VERSION` must hold `VERSION`, and so
//!    must its `manifest.json`'s `conformance_version` (a manifest that does not parse as
//!    strict JSON, repeats a key or states no version is refused: release's never does); and it
//!    holds the `CONFORMANCE_VERSION`, `manifest.json` and `LICENSE` every release ships.
//! 10. **Reproducible.** The asset is reproducible by construction, so the tar stream is
//!     rebuilt from the files just read with `release`'s own writer ([`crate::release::tar_stream`],
//!     over the files a release holds) and must be byte-identical to the downloaded one.
//!     Anything else (an extra entry, a mode such as setuid, an owner, an mtime, the order, a
//!     header type or field, padding) is a sign of tampering or of a broken publishing pipeline,
//!     and the first difference is named, entry and field ([`crate::release::ustar::first_difference`]).
//!     Then `release`'s gzip of that stream ([`crate::release::gzip`], rule 5 of
//!     [`crate::release`]) must be byte-identical to the downloaded bytes: an asset recompressed
//!     after the build (another level or compressor, a file name, an mtime, another OS byte)
//!     has a sha256 no `bqsuite release` reproduces, and is refused, naming the gzip header
//!     fields that differ (FLG, MTIME, XFL, OS) or, when the header is release's, the deflate
//!     stream.
//! 11. **Two passes.** Rules 2–10 are checked over the whole archive, in memory, before anything
//!     is written. Then the tree is written into a fresh temporary directory beside DEST (files
//!     created exclusively, modes 0644 for files and 0755 for directories) and that directory
//!     is renamed to DEST. On any failure DEST is left as it was.
//!
//! `--check` applies rules 2–10 the same way, writes nothing, and compares the vendored copy with
//! the archive's root ([`drift`]), ignoring the top-level `LICENSE` (the release ships it; copies
//! do not vendor it).
//!
//! A copy that states another release W than VERSION is also compared with W's own copy files
//! when the base is a `file://` mirror (the same base, `{version}` replaced by W, verified as
//! every fetch is): exactly W, or W with local edits (BQ723). No second download is made over
//! `http(s)://`: there, or when the mirror lacks W, it is not told, and BQ724 gives the command
//! that tells it.
//!
//! `--update` replaces a vendored copy in place, and refuses a DIR that is not one ([`update()`]).
//! Both take DIR by one rule ([`given_copy`]): `--check` refuses what `--update` refuses as no
//! copy at all (a repository, a directory stating no version, a symlink out of its repository,
//! the sync target's rule), so that it never checks a tree that is not a copy and then
//! suggests an update that is refused. A copy whose top level holds foreign entries beside its
//! version is drift to `--check` (as to `sync --check`), and the update it suggests says to
//! remove them first, since `--update` refuses them.
//!
//! Failures are of three kinds ([`Failure`]): the command refused (a downgrade; exit 1), the command could not run (bad arguments, DEST not
//! empty, network and HTTP errors, timeouts, a `SHA256SUMS` without the asset's line; exit 2),
//! or verification failed (checksum mismatch, an unsafe or corrupt archive; exit 1).

pub mod archive;
pub mod drift;
mod extract;
pub mod source;
pub mod update;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::release::layout::Limits;
pub use archive::{Node, Tree};
pub use drift::{Compared, Drift, DriftKind};
pub use source::{Base, Progress};
pub use update::{Updated, update};

use crate::release::{layout, sha256_hex};
use crate::vendored::edits::LocalEdits;

/// What went wrong, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The command could not run (exit 2).
    CouldNotRun,
    /// The asset failed verification (exit 1).
    Verification,
    /// The command refused to do what was asked (a downgrade; exit 1).
    Refused,
}

/// A failed fetch: its kind and a message that names the file or URL and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError {
    pub failure: Failure,
    pub message: String,
}

impl FetchError {
    pub(crate) fn could_not_run(message: impl Into<String>) -> Self {
        Self { failure: Failure::CouldNotRun, message: message.into() }
    }

    pub(crate) fn verification(message: impl Into<String>) -> Self {
        Self { failure: Failure::Verification, message: message.into() }
    }

    pub(crate) fn refused(message: impl Into<String>) -> Self {
        Self { failure: Failure::Refused, message: message.into() }
    }
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FetchError {}

/// In a base URL, the version fetched.
pub const VERSION_PLACEHOLDER: &str = "{version}";

/// One fetch: which release, from where, how verified.
#[derive(Debug, Clone)]
pub struct Request {
    /// The suite version (canonical SemVer).
    pub version: String,
    pub base: Base,
    /// The base URL as given (`{version}` not yet replaced; `None`: the default), so that another
    /// release can be asked of the same place ([`check`] asks a `file://` one for the copy's own).
    pub base_url: Option<String>,
    /// A pinned sha256 (lowercase hex); when set, `SHA256SUMS` is not consulted.
    pub sha256: Option<String>,
    /// Give up on one HTTP request after this long.
    pub timeout: Duration,
    /// Called while downloading over HTTP (the CLI passes one only when stderr is a terminal).
    pub progress: Option<Progress>,
    pub limits: Limits,
}

impl Request {
    /// A request for `version` from `base_url` (the default GitHub release when `None` or
    /// empty; every `{version}` in it is replaced by `version`, so one setting serves a mirror
    /// laid out as the GitHub releases are), checked: `version` must be canonical SemVer,
    /// `sha256` 64 hex digits.
    pub fn new(version: &str, base_url: Option<&str>, sha256: Option<&str>) -> Result<Self, FetchError> {
        match semver::Version::parse(version) {
            Ok(v) if v.to_string() == version => {}
            _ => {
                return Err(FetchError::could_not_run(format!(
                    "{version:?} is not a SemVer version such as 1.6.0 (no leading 'v')"
                )));
            }
        }
        let base = match base_url.filter(|u| !u.is_empty()) {
            Some(url) => Base::parse(&url.replace(VERSION_PLACEHOLDER, version)).map_err(FetchError::could_not_run)?,
            None => Base::parse(&source::default_base(version)).expect("the default base URL parses"),
        };
        let sha256 = sha256.map(parse_sha256).transpose().map_err(FetchError::could_not_run)?;
        Ok(Self {
            version: version.to_owned(),
            base,
            base_url: base_url.filter(|u| !u.is_empty()).map(str::to_owned),
            sha256,
            timeout: Duration::from_secs(60),
            progress: None,
            limits: Limits::default(),
        })
    }

    /// The asset's file name.
    pub fn asset_name(&self) -> String {
        layout::asset_name(&self.version)
    }
}

/// Check a `--sha256` value: 64 hex digits; returned in lowercase.
pub fn parse_sha256(hex: &str) -> Result<String, String> {
    if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(hex.to_ascii_lowercase())
    } else {
        Err(format!("{hex:?} is not a sha256 (64 hex digits)"))
    }
}

/// A downloaded asset whose checksum matched.
#[derive(Debug, Clone)]
pub struct Verified {
    pub name: String,
    pub sha256: String,
    /// What the checksum was checked against: `SHA256SUMS` or the pinned hash.
    pub against: &'static str,
    pub tree: Tree,
}

/// Download the asset, verify its checksum (rule 2) and read it strictly (rules 3–10). Writes
/// nothing.
pub fn open(req: &Request) -> Result<Verified, FetchError> {
    let name = req.asset_name();
    let (expected, against) = match &req.sha256 {
        Some(pin) => (pin.clone(), "the pinned --sha256"),
        None => {
            let sums = source::get(req, layout::SHA256SUMS)?;
            (source::sha256_for(&sums, &name, &req.base.describe(layout::SHA256SUMS))?, layout::SHA256SUMS)
        }
    };
    let bytes = source::get(req, &name)?;
    let actual = sha256_hex(&bytes);
    if actual != expected {
        // Rule 2: nothing of a mismatching download is read, so what cut it short (a server
        // without Content-Length that closed early), a stale mirror or tampering cannot be told
        // apart here; the size and the way forward are said.
        let causes = if req.sha256.is_some() {
            "a pin of another version's asset (is --sha256, or the action's sha256 input, the one for this \
             version?), a download cut short, or a changed file"
        } else {
            "a download cut short, a stale mirror or a changed file: fetch again, and if it persists do not use it"
        };
        return Err(FetchError::verification(format!(
            "checksum mismatch for {}: its {} bytes hash to sha256 {actual}, {against} says {expected}; refusing \
             the asset ({causes})",
            req.base.describe(&name),
            bytes.len()
        )));
    }
    let tree = archive::read(&bytes, &req.version, &req.limits)
        .map_err(|e| FetchError::verification(format!("{name}: {e}; refusing the asset")))?;
    Ok(Verified { name, sha256: actual, against, tree })
}

/// What `fetch` unpacked.
#[derive(Debug, Clone)]
pub struct Unpacked {
    pub verified: Verified,
    pub dest: PathBuf,
    /// Number of regular files written.
    pub files: usize,
}

/// `bqsuite fetch VERSION DEST`: verify, then unpack the archive's root into `dest` (rules 1–11).
pub fn unpack(req: &Request, dest: &Path) -> Result<Unpacked, FetchError> {
    extract::check_dest(dest)?;
    let verified = open(req)?;
    let files = extract::write_tree(&verified.tree, dest)?;
    Ok(Unpacked { verified, dest: dest.to_path_buf(), files })
}

/// What `fetch --check` found: the release, the comparison, and what keeps `--update` from
/// replacing the copy as it is (the entries beside it a copy never holds; empty: nothing).
#[derive(Debug, Clone)]
pub struct Checked {
    pub verified: Verified,
    pub compared: Compared,
    /// Top-level entries a copy never holds, beside its version: drift here, and what `--update`
    /// refuses until they are gone ([`crate::vendored::NotACopy::Foreign`]).
    pub foreign: Vec<String>,
    /// When the copy states another release: whether it is exactly that release or holds local
    /// edits ([`own_release`]; BQ723, BQ724).
    pub local_edits: Option<LocalEdits>,
}

/// `bqsuite fetch --check VERSION DIR`: verify, then compare `dir` with the archive in memory.
/// DIR is taken by the rule `--update` applies ([`given_copy`]), before anything is downloaded.
pub fn check(req: &Request, dir: &Path) -> Result<Checked, FetchError> {
    let (real, foreign) = given_copy(dir, "check")?;
    let verified = open(req)?;
    let rewrite =
        format!("bqsuite fetch --update {} {}", req.version, crate::diag::path_word(&dir.display().to_string()));
    let compared = drift::compare(&verified.tree, &real, dir, &rewrite)?;
    let local_edits = own_release(req, &real, dir, compared.copy_version.as_deref());
    Ok(Checked { verified, compared, foreign, local_edits })
}

/// For a copy (at `real`; `dir` as given) that states another release than the request's:
/// that release's own files against the copy, when the request's base is a `file://` mirror
/// (the same place, `{version}` replaced by the copy's version, verified as every fetch is).
/// Ruling (stop 75): no second download is made unasked, so over `http(s)://` the answer is
/// unknown, and says the command that tells it.
fn own_release(req: &Request, real: &Path, dir: &Path, copy_version: Option<&str>) -> Option<LocalEdits> {
    let against = semver::Version::parse(&req.version).ok()?;
    let theirs = crate::vendored::edits::other_version(copy_version, &against)?;
    let command = format!(
        "`bqsuite fetch --check {theirs} {}` (with the same --base-url, if any)",
        crate::diag::path_word(&dir.display().to_string())
    );
    if !matches!(req.base, Base::File(_)) {
        return Some(LocalEdits::unknown(
            theirs,
            format!(
                "that needs release {theirs}'s own asset, a second download, which fetch --check makes only from a \
                 file:// mirror; {command} tells it"
            ),
        ));
    }
    let unknown = |why: String| Some(LocalEdits::unknown(theirs, why));
    let mut own = match Request::new(theirs, req.base_url.as_deref(), None) {
        Ok(r) => r,
        Err(e) => return unknown(format!("release {theirs} cannot be asked of the mirror ({e})")),
    };
    own.limits = req.limits;
    own.timeout = req.timeout;
    let verified = match open(&own) {
        Ok(v) => v,
        Err(e) => {
            return unknown(format!(
                "release {theirs}'s asset could not be read from the mirror ({e}); {command} tells it once it is there"
            ));
        }
    };
    let tree = match crate::vendored::read_tree(real) {
        Ok(t) => t,
        Err(e) => return unknown(format!("cannot read {}: {e}", dir.display())),
    };
    let files = verified.tree.files().map(|(p, b)| (p.to_owned(), b.to_vec())).collect();
    Some(LocalEdits::judge(theirs, &files, &tree))
}

/// The vendored copy a command-line DIR names, for `--check` and `--update` alike (`verb`
/// names the command in messages): its real path, and the foreign entries beside its version
/// that `--update` refuses and `--check` reports as drift. Refused (could not run): a DIR that
/// does not exist or is no directory; one reached through a symlink out of its git repository,
/// or a symlink outside any repository, by the rule of a sync target
/// ([`crate::sync::resolve_given`], so that `sync --check`, `fetch --check` and `fetch --update`
/// give one verdict on one copy); and one that is no copy at all
/// ([`crate::vendored::NotACopy::at_all`]: it holds `.git`, or no version), whose check would
/// only list its own files as drift and suggest an update that is refused.
pub(crate) fn given_copy(dir: &Path, verb: &str) -> Result<(PathBuf, Vec<String>), FetchError> {
    use crate::sync::{Given, resolve_given};
    use crate::vendored::NotACopy;
    let shown = dir.display();
    let real = match resolve_given(dir) {
        Ok(Given { dir, exists: true }) => dir,
        Ok(Given { exists: false, .. }) if verb == "update" => {
            return Err(FetchError::could_not_run(format!(
                "{shown}: no such directory (fetch --update replaces an existing copy; `bqsuite fetch VERSION DEST` \
                 creates one)"
            )));
        }
        Ok(Given { exists: false, .. }) => {
            return Err(FetchError::could_not_run(format!("{shown}: no such directory (the vendored copy to {verb})")));
        }
        Err(crate::sync::Problem::Unsafe(why) | crate::sync::Problem::Io(why)) => {
            return Err(FetchError::could_not_run(format!(
                "{why}; fetch --{verb} takes the vendored copy's own directory"
            )));
        }
    };
    if !real.is_dir() {
        return Err(FetchError::could_not_run(format!("{shown}: not a directory (the vendored copy to {verb})")));
    }
    let refused = |not: &NotACopy| {
        FetchError::could_not_run(format!(
            "{shown}: {}, so it is not the vendored copy's own directory; give that directory (the path \
             sync-targets.json names, e.g. tests/conformance), or `bqsuite fetch VERSION DEST` for a new copy",
            not.why()
        ))
    };
    match crate::vendored::not_a_copy(&real, true) {
        Err(e) => Err(FetchError::could_not_run(format!("cannot read {shown}: {e}"))),
        Ok(None) => Ok((real, Vec::new())),
        Ok(Some(not)) if verb == "update" || not.at_all() => Err(refused(&not)),
        Ok(Some(NotACopy::Foreign { entries, .. })) => Ok((real, entries)),
        Ok(Some(not)) => Err(refused(&not)),
    }
}

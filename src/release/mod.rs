//! `bqsuite release`: the suite's release asset, reproducible by construction (decisions R17).
//!
//! Rules, each kept here and nowhere else:
//!
//! 1. **Nothing is built from a suite `validate` complains about.** Any finding refuses the
//!    build. `validate` refuses non-`.json` files, hidden files (a name or a directory name
//!    starting with `.`) and symlinks under `schema/` and `fixtures/` (BQ005, BQ006): that is the
//!    explicit rule that keeps editor backups, `.DS_Store`, a tool's `.cache/` and stray notes
//!    out of the asset. It refuses a symlink at the top too (a top-level file, `schema/`,
//!    `fixtures/`; BQ005), so nothing outside the suite (`LICENSE -> /proc/self/environ`) is
//!    ever read into the asset.
//! 2. **Exactly the release files.** The archive holds one root directory
//!    `babelqueue-conformance-<version>/` with `CONFORMANCE_VERSION`, `manifest.json`,
//!    `LICENSE`, and the files under `schema/` and `fixtures/` ([`layout::in_release`]).
//!    Anything else in the tree (README, sources, `target/`, untracked files beside the suite)
//!    is ignored by that list. A path that breaks the path rule of [`crate::suite::paths`] (one
//!    a consumer's platform could not create, or two names that differ only in letter case)
//!    refuses the build, so `release` never produces an asset that `fetch` would refuse.
//! 3. **Bytes come from the loaded suite.** The files were read once by [`Suite::load`]; the
//!    tree's mtimes, owners, modes, umask, creation order, directory order and location never
//!    reach the archive.
//! 4. **ustar, written by hand** ([`ustar`]): entries in GNU tar `--sort=name` order (path
//!    compared component by component as bytes; the root first, every directory right before its
//!    contents); a directory entry for the root and for every directory that holds a file,
//!    named with a trailing `/`; mtime 0; uid and gid 0; empty user and group names; mode 0644
//!    for files and 0755 for directories; the stream padded to the 10240-byte record. The
//!    result is byte-identical to GNU tar `--format=ustar --sort=name --mtime=@0 --owner=0
//!    --group=0 --numeric-owner` over the same tree (with those modes), so anyone can check the
//!    content with standard tools.
//! 5. **gzip with fixed parameters**: no file name, no comment, mtime 0, OS byte 3 (Unix, as
//!    `gzip -n` writes), compression level 9, one member; deflate by flate2's pure-Rust backend
//!    (miniz_oxide, asked for alone in `Cargo.toml` and pinned in `Cargo.lock`; a test asserts
//!    both). The deflate bytes are not `gzip`'s, so "same sha256" means "built by bqsuite with
//!    the locked dependencies"; a golden-hash test catches a dependency update that changes them.
//! 6. **`SHA256SUMS`** is one line, `<lowercase hex>  <asset name>\n`, as `sha256sum` writes it.
//!    An existing `SHA256SUMS` in the output directory is replaced whole: the lines it held for
//!    other files (a downloaded release's binaries) are dropped, and [`dropped_sums_lines`]
//!    names them for the caller to say so (never read through a link, checksum lines only).
//! 8. **Within fetch's caps** ([`Limits`], one definition in [`layout`]): an asset `fetch` would
//!    refuse (too many entries, a file, the tar stream or the download too large, a ratio
//!    `fetch` takes for a bomb) is refused here, so `release` never builds what its `fetch`
//!    refuses. (Rule 7 comes last because it is the only one that writes.) `release --file-cap`
//!    ([`build_within`]) raises the per-file cap for one build, for benchmarks on synthetic
//!    suites; the defaults never change.
//! 7. **Written atomically** into the output directory (default `dist/` in the suite, git-ignored;
//!    never `schema/`, `fixtures/` or under them, or a release file's path: [`check_out`]):
//!    the asset first, then `SHA256SUMS`, each through a temporary file and a rename, both in
//!    one critical step once both destinations are known to take a file, so no failure or
//!    interruption leaves a new asset beside an old `SHA256SUMS`.

pub mod layout;
pub mod ustar;

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use layout::Limits;

use crate::diag::Finding;
use crate::suite::{LICENSE, Suite, paths};

/// The gzip OS byte (3 = Unix, what `gzip -n` writes).
const GZIP_OS: u8 = 3;

/// A built release asset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    /// The suite version.
    pub version: String,
    /// `babelqueue-conformance-<version>.tar.gz`.
    pub name: String,
    /// The `.tar.gz` bytes.
    pub bytes: Vec<u8>,
    /// Lowercase hex sha256 of `bytes`.
    pub sha256: String,
}

impl Asset {
    /// The `SHA256SUMS` file for this asset.
    pub fn sha256sums(&self) -> String {
        format!("{}  {}\n", self.sha256, self.name)
    }
}

/// Why nothing was built or written.
#[derive(Debug)]
pub enum ReleaseError {
    /// `validate` has findings (exit 1).
    Findings(Vec<Finding>),
    /// The suite cannot be released as it is (exit 1).
    Unreleasable(String),
    /// Reading or writing failed (exit 2).
    Io(String),
}

impl std::fmt::Display for ReleaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReleaseError::Findings(v) => write!(f, "`bqsuite validate` has {} finding(s); fix them first", v.len()),
            ReleaseError::Unreleasable(m) | ReleaseError::Io(m) => f.write_str(m),
        }
    }
}

/// Build the release asset of a loaded suite (rules 1–6). Writes nothing.
///
/// `validate` runs on a second thread while the asset is assembled (both only read the loaded
/// suite), and an asset is returned only when `validate` found nothing: the outcome, and which
/// error wins, are those of validating first and building after.
pub fn build(suite: &Suite) -> Result<Asset, ReleaseError> {
    build_within(suite, &Limits::default())
}

/// [`build`] under other caps than `fetch`'s defaults (rule 8).
pub fn build_within(suite: &Suite, limits: &Limits) -> Result<Asset, ReleaseError> {
    build_gated(suite, limits, &crate::validate::Options::default()).0
}

/// [`build_within`], its validate gate run with `options` (a live Redis for the cases that need
/// one); also says how many of those cases the gate ran through the reference core.
pub fn build_gated(
    suite: &Suite,
    limits: &Limits,
    options: &crate::validate::Options,
) -> (Result<Asset, ReleaseError>, crate::validate::RedisCoverage) {
    let (validation, built) = std::thread::scope(|s| {
        let validation = std::thread::Builder::new()
            .name("validate".into())
            .stack_size(8 << 20)
            .spawn_scoped(s, || crate::validate::validate_with(suite, options));
        let built = build_unchecked(suite, limits);
        let validation = match validation {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => crate::validate::validate_with(suite, options),
        };
        (validation, built)
    });
    let crate::validate::Validation { findings, redis } = validation;
    if !findings.is_empty() {
        return (Err(ReleaseError::Findings(findings)), redis);
    }
    (built, redis)
}

/// Rules 2–6 and 8 without the validate gate.
fn build_unchecked(suite: &Suite, limits: &Limits) -> Result<Asset, ReleaseError> {
    let version = suite.version().ok_or_else(|| ReleaseError::Unreleasable("CONFORMANCE_VERSION is missing".into()))?;
    if suite.file(LICENSE).is_none() {
        return Err(ReleaseError::Unreleasable(format!(
            "{} is missing: the release asset ships the licence",
            suite.display_path(LICENSE)
        )));
    }
    let files: Vec<(&str, &[u8])> =
        suite.files().filter(|f| layout::in_release(&f.rel)).map(|f| (f.rel.as_str(), f.bytes())).collect();
    assemble_within(version, &files, limits).map_err(ReleaseError::Unreleasable)
}

/// Build the asset from suite-relative paths and their bytes (rules 2, 4–6).
pub fn assemble(version: &str, files: &[(&str, &[u8])]) -> Result<Asset, String> {
    assemble_within(version, files, &NO_CAPS)
}

/// No caps at all.
const NO_CAPS: Limits = Limits {
    max_download: u64::MAX,
    max_entries: usize::MAX,
    max_file: u64::MAX,
    max_total: u64::MAX,
    max_ratio: u64::MAX,
    ratio_floor: u64::MAX,
};

/// [`assemble`], refusing an asset that `fetch` under `limits` would refuse (rule 8).
pub fn assemble_within(version: &str, files: &[(&str, &[u8])], limits: &Limits) -> Result<Asset, String> {
    let tar = tar_stream(version, files)?;
    let bytes = gzip(&tar);
    if *limits != NO_CAPS {
        let entries = ustar::read(&tar, u64::MAX).map_err(|e| e.to_string())?.len();
        let largest = files.iter().map(|(rel, b)| (*rel, b.len() as u64)).max_by_key(|(_, n)| *n);
        if let Some(why) = limits.refusal(bytes.len() as u64, tar.len() as u64, entries, largest) {
            return Err(format!(
                "`bqsuite fetch` would refuse this asset: {why}; a release must stay within fetch's caps"
            ));
        }
    }
    Ok(Asset { version: version.to_owned(), name: layout::asset_name(version), sha256: sha256_hex(&bytes), bytes })
}

/// The uncompressed ustar stream of the release (rules 2 and 4).
pub fn tar_stream(version: &str, files: &[(&str, &[u8])]) -> Result<Vec<u8>, String> {
    semver::Version::parse(version).map_err(|e| format!("CONFORMANCE_VERSION {version:?} is not SemVer: {e}"))?;
    let root = layout::root_name(version);
    for (rel, _) in files {
        paths::check_path(rel).map_err(|e| format!("{rel}: {e}; rename it before releasing"))?;
    }
    let dirs = paths::parents(files.iter().map(|(rel, _)| *rel));
    let all = dirs.iter().copied().chain(files.iter().map(|(rel, _)| *rel));
    if let Some((a, b)) = paths::case_collision(all) {
        return Err(format!("{a} and {b} differ only in letter case (or are the same path); rename one"));
    }
    let mut items: Vec<(&str, u8, &[u8])> = vec![("", ustar::DIRECTORY, b"")];
    items.extend(dirs.iter().map(|d| (*d, ustar::DIRECTORY, &b""[..])));
    items.extend(files.iter().map(|(rel, bytes)| (*rel, ustar::REGULAR, *bytes)));
    items.sort_by(|a, b| layout::path_order(a.0, b.0));
    let paths: Vec<String> = items
        .iter()
        .map(|(rel, kind, _)| match (*rel, *kind) {
            ("", _) => format!("{root}/"),
            (rel, ustar::DIRECTORY) => format!("{root}/{rel}/"),
            (rel, _) => format!("{root}/{rel}"),
        })
        .collect();
    let members: Vec<ustar::Member<'_>> = items
        .iter()
        .zip(&paths)
        .map(|((_, typeflag, data), path)| ustar::Member { path, typeflag: *typeflag, data })
        .collect();
    ustar::write(&members)
}

/// gzip with the fixed parameters of rule 5.
pub fn gzip(tar: &[u8]) -> Vec<u8> {
    let mut enc =
        flate2::GzBuilder::new().mtime(0).operating_system(GZIP_OS).write(Vec::new(), flate2::Compression::best());
    enc.write_all(tar).expect("writing into a Vec cannot fail");
    enc.finish().expect("writing into a Vec cannot fail")
}

/// Lowercase hex sha256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::core::lower_hex(&Sha256::digest(bytes))
}

/// Refuse an output directory that is, or lies under, a path the asset packs (rule 7): the
/// suite's `schema/` or `fixtures/`, or one of its top-level release files. Written there, the
/// asset and `SHA256SUMS` would become files of the suite itself (the next build refuses them,
/// BQ006, but the tree is already dirty). Compared canonically: a symlink to `fixtures/`, a
/// `..` path or a directory not yet created under one are caught alike.
pub fn check_out(suite: &Suite, out: &Path) -> Result<(), ReleaseError> {
    let (Some(root), Some(resolved)) = (suite.root.canonicalize().ok(), resolve(out)) else { return Ok(()) };
    let Ok(rel) = resolved.strip_prefix(&root) else { return Ok(()) };
    let Some(first) = rel.components().next() else { return Ok(()) };
    let first = first.as_os_str().to_string_lossy();
    let packed = crate::suite::SUITE_DIRS.contains(&first.as_ref()) || layout::TOP_FILES.contains(&first.as_ref());
    if packed {
        return Err(ReleaseError::Io(format!(
            "the output directory {} is inside the suite's {first}, which the release asset packs: the asset and \
             SHA256SUMS would become suite files; pass --out DIR outside schema/ and fixtures/ (the default is dist/)",
            out.display()
        )));
    }
    Ok(())
}

/// `path` made absolute with every symlink resolved, also where its last components do not
/// exist yet (the nearest existing ancestor is canonicalised, the rest appended); `None` when
/// not even that resolves.
fn resolve(path: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(path).ok()?;
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let mut at = abs.as_path();
    loop {
        if let Ok(mut real) = at.canonicalize() {
            // `..` after a directory not yet created: create_dir_all would make it, then step back.
            for c in rest.iter().rev() {
                if c == ".." {
                    real.pop();
                } else {
                    real.push(c);
                }
            }
            return Some(real);
        }
        rest.push(at.components().next_back()?.as_os_str().to_owned());
        at = at.parent()?;
    }
}

/// Write the asset and `SHA256SUMS` into `out` (created when missing), each atomically (rule
/// 7). Returns the two paths written.
pub fn write(asset: &Asset, out: &Path) -> Result<[PathBuf; 2], ReleaseError> {
    let io = |what: &Path, e: std::io::Error| ReleaseError::Io(format!("cannot write {}: {e}", what.display()));
    if std::fs::metadata(out).is_ok_and(|m| !m.is_dir()) {
        return Err(ReleaseError::Io(format!(
            "the output directory {} exists and is not a directory; pass --out DIR",
            out.display()
        )));
    }
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let paths = [out.join(&asset.name), out.join(layout::SHA256SUMS)];
    // The two are one release: both destinations are checked before either is written (a
    // SHA256SUMS that is a directory left a new asset beside the old SHA256SUMS), and both are
    // staged in full before either is renamed into place, in one critical step (an
    // interruption, or a full disk while writing SHA256SUMS, did the same).
    for p in &paths {
        crate::fsutil::check_writable(p).map_err(ReleaseError::Io)?;
    }
    let sums = asset.sha256sums();
    crate::fsutil::write_atomic_all(&[(&paths[0], &asset.bytes), (&paths[1], sums.as_bytes())])
        .map_err(|(p, e): (PathBuf, std::io::Error)| io(&p, e))?;
    Ok(paths)
}

/// The lines of the `SHA256SUMS` already in `out` that name another file than `asset`: the
/// ones [`write()`] drops, since the file it writes lists the asset alone (rule 6). Only a
/// regular file is read (never through a link: a committed `dist/SHA256SUMS -> ~/.netrc` would
/// print the file it points at), within fetch's download cap, and only lines of a checksum
/// file's shape are quoted (64 hex digits, white space, a name: anything else in it is no
/// checksum the release drops), at most [`MAX_DROPPED_SHOWN`] of them (all of one more), then how
/// many more.
/// Control characters are escaped for the terminal.
pub fn dropped_sums_lines(asset: &Asset, out: &Path) -> Vec<String> {
    let path = out.join(layout::SHA256SUMS);
    let Ok(bytes) = crate::fsutil::read_own(&path, Limits::default().max_download) else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes);
    let others: Vec<&str> = text
        .lines()
        .filter(|line| {
            let mut words = line.split_whitespace();
            let sum = words.next().unwrap_or("");
            let name = words.next().map(|n| n.trim_start_matches('*'));
            sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit()) && name.is_some_and(|n| n != asset.name)
        })
        .collect();
    // "and 1 more" would hide a line it could have quoted (diag::shown's rule).
    let named = crate::diag::shown(others.len(), MAX_DROPPED_SHOWN);
    let mut shown: Vec<String> =
        others.iter().take(named).map(|line| crate::diag::terminal_safe(line).into_owned()).collect();
    if others.len() > named {
        shown.push(format!("… and {} more", others.len() - named));
    }
    shown
}

/// How many dropped `SHA256SUMS` lines [`dropped_sums_lines`] quotes (a release's checksum file
/// lists a few binaries beside the asset).
pub const MAX_DROPPED_SHOWN: usize = 20;

/// `release --verify`: write a fresh build into a temporary directory and compare it byte for
/// byte with the asset and `SHA256SUMS` in `out`. Returns one line per file that differs
/// (empty when both match); a file missing from `out` is an error (nothing to verify).
pub fn verify(asset: &Asset, out: &Path) -> Result<Vec<String>, ReleaseError> {
    let tmp = tempfile::tempdir().map_err(|e| ReleaseError::Io(format!("cannot create a temporary directory: {e}")))?;
    // Registered, so an interruption removes it too (TempDir's own clean-up runs only on drop).
    let _staged = crate::staging::Staged::register(tmp.path().to_path_buf());
    let fresh = write(asset, tmp.path())?;
    let mut differences = Vec::new();
    for path in fresh {
        let name = path.file_name().expect("written files have names");
        let rebuilt =
            std::fs::read(&path).map_err(|e| ReleaseError::Io(format!("cannot read {}: {e}", path.display())))?;
        let published = out.join(name);
        let existing = std::fs::read(&published).map_err(|e| {
            ReleaseError::Io(format!("cannot read {}: {e} (run `bqsuite release` to build it)", published.display()))
        })?;
        if existing != rebuilt {
            differences.push(format!(
                "{}: sha256 {} ({} bytes), but this tree builds {} ({} bytes)",
                published.display(),
                sha256_hex(&existing),
                existing.len(),
                sha256_hex(&rebuilt),
                rebuilt.len()
            ));
        }
    }
    Ok(differences)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small fixed tree: the golden hashes below pin the tar and the gzip bytes.
    const GOLDEN: [(&str, &[u8]); 6] = [
        ("CONFORMANCE_VERSION", b"9.9.9\n"),
        ("LICENSE", b"MIT\n"),
        ("fixtures/a-b.json", b"{\"job\":\"urn:a\"}\n"),
        ("fixtures/sub/z.json", b"[]\n"),
        ("manifest.json", b"{\"schema_version\":1}\n"),
        ("schema/s.json", b"{}\n"),
    ];

    #[test]
    fn golden_hashes_pin_the_tar_and_gzip_bytes() {
        let tar = tar_stream("9.9.9", &GOLDEN).unwrap();
        assert_eq!(sha256_hex(&tar), "6195a6fb156e4ce5008eccd843da3ee9aa662d9d75ed1daac6e187d421f7c26e");
        let asset = assemble("9.9.9", &GOLDEN).unwrap();
        // A change here means the asset bytes changed (a flate2 / miniz_oxide update, or a
        // change to the writer): every published checksum would stop reproducing.
        assert_eq!(asset.sha256, "e0bb028195ca5a243a8bb751e0b5c58b09f9576040ddefe10396f35cdcc7e54b");
        assert_eq!(asset.name, "babelqueue-conformance-9.9.9.tar.gz");
        assert_eq!(&asset.bytes[..10], b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03", "gzip header: no name, mtime 0");
        assert_eq!(asset.sha256sums(), format!("{}  babelqueue-conformance-9.9.9.tar.gz\n", asset.sha256));
    }

    /// Rule 5's backend, asserted where it is chosen: bqsuite asks flate2 for miniz_oxide alone
    /// (no default features), and the lock holds no C zlib a dependency could switch it to.
    /// (ureq's gzip feature turns flate2's defaults on, which add only `zlib-rs?/std`, a weak
    /// feature of a backend nothing enables: the golden hashes above hold either way.)
    #[test]
    fn the_gzip_backend_is_miniz_oxide() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let line = manifest.lines().find(|l| l.starts_with("flate2 =")).expect("flate2 is a dependency");
        assert!(line.contains("default-features = false") && line.contains(r#"features = ["rust_backend"]"#), "{line}");
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
        for c_zlib in ["libz-sys", "libz-ng-sys", "cloudflare-zlib-sys"] {
            assert!(!lock.contains(&format!("name = \"{c_zlib}\"")), "{c_zlib} is in Cargo.lock");
        }
    }

    #[test]
    fn entries_are_in_gnu_name_order_with_every_directory() {
        let tar = tar_stream("9.9.9", &GOLDEN).unwrap();
        let names: Vec<String> =
            ustar::read(&tar, 1 << 20).unwrap().iter().map(|e| String::from_utf8(e.path.clone()).unwrap()).collect();
        let r = "babelqueue-conformance-9.9.9";
        let expected = [
            "/",
            "/CONFORMANCE_VERSION",
            "/LICENSE",
            "/fixtures/",
            "/fixtures/a-b.json",
            "/fixtures/sub/",
            "/fixtures/sub/z.json",
            "/manifest.json",
            "/schema/",
            "/schema/s.json",
        ]
        .map(|s| format!("{r}{s}"));
        assert_eq!(names, expected);
    }

    #[test]
    fn input_order_does_not_matter_and_bad_paths_refuse() {
        let mut reversed = GOLDEN;
        reversed.reverse();
        assert_eq!(assemble("9.9.9", &reversed).unwrap(), assemble("9.9.9", &GOLDEN).unwrap());
        let e = tar_stream("9.9.9", &[("fixtures/a:b.json", b"{}")]).unwrap_err();
        assert!(e.contains("fixtures/a:b.json") && e.contains("':'"), "{e}");
        let e = tar_stream("9.9.9", &[("fixtures/A.json", b"{}"), ("fixtures/a.json", b"{}")]).unwrap_err();
        assert!(e.contains("differ only in letter case"), "{e}");
        assert!(tar_stream("v9", &GOLDEN).unwrap_err().contains("not SemVer"));
    }
}

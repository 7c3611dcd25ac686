//! `bqsuite release`: reproducible from any copy, equal to GNU tar's ustar stream, exactly the
//! release files, refused while validate has findings, `--verify`.

mod support;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use support::{SuiteCopy, bqsuite, copy_tree, repo, transcript};

/// Every file of the canonical release, suite-relative, sorted.
fn release_files() -> Vec<String> {
    let suite = bqsuite::suite::Suite::load(repo()).unwrap();
    suite.files().filter(|f| bqsuite::release::layout::in_release(&f.rel)).map(|f| f.rel.clone()).collect()
}

/// Copy the release files of the canonical suite into `to`, in reverse order, with private
/// modes (as under umask 077) and an old mtime.
fn scrambled_copy(to: &Path) {
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(978_307_200); // 2001-01-01
    for rel in release_files().iter().rev() {
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(&dest, std::fs::read(repo().join(rel)).unwrap()).unwrap();
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::File::options().write(true).open(&dest).unwrap().set_modified(old).unwrap();
    }
    for dir in ["schema", "fixtures"] {
        std::fs::set_permissions(to.join(dir), std::fs::Permissions::from_mode(0o700)).unwrap();
    }
}

/// Give a copy of the release files the CHANGELOG.md every suite checkout has (validate requires
/// it; no asset ships it).
fn with_changelog(suite: &Path) {
    std::fs::copy(repo().join("CHANGELOG.md"), suite.join("CHANGELOG.md")).unwrap();
}

fn release(suite: &Path, out: &Path) -> std::process::Output {
    // These copies are no git repositories (no tags): each is built as a very first release.
    bqsuite(suite, &["release", "--no-previous", "--suite", suite.to_str().unwrap(), "--out", out.to_str().unwrap()])
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()).read_to_end(&mut tar).unwrap();
    tar
}

#[test]
fn two_copies_with_different_metadata_give_identical_sha256sums() {
    let asset = support::asset();
    let a = SuiteCopy::new();
    let b_root = tempfile::tempdir().unwrap();
    let b = b_root.path().join("deeper/other-name");
    scrambled_copy(&b);
    with_changelog(&b);
    let outs = tempfile::tempdir().unwrap();
    let (out_a, out_b) = (outs.path().join("a"), outs.path().join("b"));
    let ra = release(a.path(), &out_a);
    assert_eq!(ra.status.code(), Some(0), "{}", transcript(&ra));
    let rb = release(&b, &out_b);
    assert_eq!(rb.status.code(), Some(0), "{}", transcript(&rb));
    let sums = std::fs::read_to_string(out_a.join("SHA256SUMS")).unwrap();
    assert_eq!(sums, std::fs::read_to_string(out_b.join("SHA256SUMS")).unwrap());
    assert_eq!(
        std::fs::read(out_a.join(support::asset())).unwrap(),
        std::fs::read(out_b.join(support::asset())).unwrap()
    );
    assert!(sums.ends_with(&format!("  {asset}\n")) && sums.lines().count() == 1, "{sums}");
    assert_eq!(String::from_utf8_lossy(&ra.stdout), sums, "stdout carries the SHA256SUMS line");
    let mode = std::fs::metadata(out_a.join(support::asset())).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
    // `sha256sum -c SHA256SUMS` passes.
    let check = Command::new("sha256sum").arg("-c").arg("SHA256SUMS").current_dir(&out_a).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    assert_eq!(String::from_utf8_lossy(&check.stdout), format!("{asset}: OK\n"));
}

#[test]
fn the_tar_stream_equals_gnu_tar_ustar_output() {
    if !support::gnu_tar() {
        return;
    }
    // The same tree, under the root's name, with the release's modes.
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join(support::asset_root());
    scrambled_copy(&root);
    for e in walk(&root) {
        let mode = if e.is_dir() { 0o755 } else { 0o644 };
        std::fs::set_permissions(&e, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let gnu = Command::new("tar")
        .args(["--format=ustar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner", "-cf", "-"])
        .arg(support::asset_root())
        .current_dir(parent.path())
        .output()
        .unwrap();
    assert!(gnu.status.success(), "{}", String::from_utf8_lossy(&gnu.stderr));
    let out = tempfile::tempdir().unwrap();
    with_changelog(&root); // after GNU tar read the tree: no asset holds it
    let r = release(&root, out.path());
    assert_eq!(r.status.code(), Some(0), "{}", transcript(&r));
    let ours = gunzip(&out.path().join(support::asset()));
    assert!(
        ours == gnu.stdout,
        "the uncompressed asset differs from GNU tar's stream ({} vs {} bytes)",
        ours.len(),
        gnu.stdout.len()
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// The archive's entry names.
fn entry_names(asset: &Path) -> Vec<String> {
    let tar = gunzip(asset);
    bqsuite::release::ustar::read(&tar, u64::MAX)
        .unwrap()
        .iter()
        .map(|e| String::from_utf8(e.path.clone()).unwrap())
        .collect()
}

#[test]
fn only_the_release_files_go_in_and_things_beside_the_suite_are_ignored() {
    let clean = SuiteCopy::new();
    let cluttered = SuiteCopy::new();
    for (rel, body) in [
        ("README.md", "notes"),
        (".DS_Store", "\0\0"),
        ("manifest.json~", "{}"),
        ("src/main.rs", "fn main() {}"),
        ("dist/old.tar.gz", "x"),
        ("fixtures-old/a.json", "{}"),
    ] {
        cluttered.write(rel, body);
    }
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert_eq!(release(clean.path(), a.path()).status.code(), Some(0));
    assert_eq!(release(cluttered.path(), b.path()).status.code(), Some(0));
    assert_eq!(
        std::fs::read(a.path().join(support::asset())).unwrap(),
        std::fs::read(b.path().join(support::asset())).unwrap()
    );
    let names = entry_names(&a.path().join(support::asset()));
    let mut expected: Vec<String> = release_files()
        .iter()
        .map(|r| format!("{}/{r}", support::asset_root()))
        .chain(["", "fixtures/", "schema/"].map(|d| format!("{}/{d}", support::asset_root())))
        .collect();
    expected.sort_by(|x, y| x.trim_end_matches('/').split('/').cmp(y.trim_end_matches('/').split('/')));
    assert_eq!(names, expected);
    assert!(names.iter().any(|n| n.ends_with("/LICENSE")));
}

#[test]
fn stray_files_and_symlinks_in_the_suite_dirs_refuse_the_build() {
    for (rel, code) in
        [("fixtures/.DS_Store", "BQ006"), ("fixtures/order-created.json~", "BQ006"), ("schema/notes.txt", "BQ006")]
    {
        let s = SuiteCopy::new();
        s.write(rel, "x");
        let out = s.path().join("dist");
        let r = bqsuite(s.path(), &["release"]);
        assert_eq!(r.status.code(), Some(1), "{rel}: {}", transcript(&r));
        let text = transcript(&r);
        assert!(text.contains(code) && text.contains(rel) && text.contains("refusing to build"), "{text}");
        assert!(!out.exists(), "{rel}: nothing may be written");
    }
    // Hidden .json files: a dot-directory a tool left (`schema/.cache/`), a dotfile, macOS's
    // AppleDouble `._` twin. Each once went into the asset with validate clean.
    for rel in ["schema/.cache/s.json", "schema/.draft.json", "fixtures/.idea/x.json", "schema/._results.schema.json"] {
        let s = SuiteCopy::new();
        s.write(rel, "{}\n");
        let out = s.path().join("dist");
        let r = bqsuite(s.path(), &["release", "--no-previous"]);
        assert_eq!(r.status.code(), Some(1), "{rel}: {}", transcript(&r));
        let text = transcript(&r);
        assert!(text.contains("BQ006") && text.contains(rel) && text.contains("hidden"), "{text}");
        assert!(!out.exists(), "{rel}: nothing may be written");
    }
    let s = SuiteCopy::new();
    std::os::unix::fs::symlink(s.path().join("LICENSE"), s.path().join("fixtures/link.json")).unwrap();
    let r = bqsuite(s.path(), &["release"]);
    assert_eq!(r.status.code(), Some(1), "{}", transcript(&r));
    assert!(transcript(&r).contains("BQ005"));
}

/// A suite's top-level files and its two directories are never symlinks: `LICENSE ->
/// /proc/self/environ` (or `-> .git/config`, where actions/checkout keeps its token) once
/// passed validate, and release published the building process's environment in the asset.
#[test]
fn a_symlink_anywhere_in_the_suite_refuses_the_build() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "SECRET_TOKEN=hunter2\n").unwrap();
    for rel in ["LICENSE", "manifest.json", "CONFORMANCE_VERSION", "schema", "fixtures"] {
        let s = SuiteCopy::new();
        let real = s.path().join(rel);
        let moved = outside.path().join(rel);
        if real.is_dir() {
            copy_tree(&real, &moved);
            std::fs::remove_dir_all(&real).unwrap();
        } else if rel == "LICENSE" {
            std::fs::remove_file(&real).unwrap();
            std::fs::copy(outside.path().join("secret"), &moved).unwrap();
        } else {
            std::fs::rename(&real, &moved).unwrap();
        }
        std::os::unix::fs::symlink(&moved, &real).unwrap();
        let out = s.path().join("dist");
        let r = bqsuite(s.path(), &["release", "--no-previous"]);
        assert_eq!(r.status.code(), Some(1), "{rel}: {}", transcript(&r));
        let text = transcript(&r);
        assert!(text.contains("BQ005") && text.contains(&format!("--> {rel}")), "{rel}: {text}");
        assert!(!out.exists(), "{rel}: nothing may be written");
    }
}

#[test]
fn any_validate_finding_or_a_missing_licence_refuses_the_build() {
    let s = SuiteCopy::new();
    s.write("CONFORMANCE_VERSION", "1.6\n");
    let r = bqsuite(s.path(), &["release"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(transcript(&r).contains("BQ102"), "{}", transcript(&r));
    assert!(!s.path().join("dist").exists());

    let s = SuiteCopy::new();
    s.remove("LICENSE");
    let r = bqsuite(s.path(), &["release"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(transcript(&r).contains("LICENSE is missing"), "{}", transcript(&r));
    assert!(!s.path().join("dist").exists());
}

#[test]
fn verify_rebuilds_and_compares_bytes() {
    let s = SuiteCopy::new();
    let r = bqsuite(s.path(), &["release", "--no-previous"]);
    assert_eq!(r.status.code(), Some(0), "{}", transcript(&r));
    let dist = s.path().join("dist");
    assert!(dist.join(support::asset()).is_file(), "the default output is dist/ in the suite");
    let before = std::fs::read(dist.join(support::asset())).unwrap();

    let v = bqsuite(s.path(), &["release", "--verify"]);
    assert_eq!(v.status.code(), Some(0), "{}", transcript(&v));
    assert!(transcript(&v).contains("rebuild byte for byte"));

    let mut tampered = before.clone();
    tampered.push(0);
    std::fs::write(dist.join(support::asset()), &tampered).unwrap();
    let v = bqsuite(s.path(), &["release", "--verify"]);
    assert_eq!(v.status.code(), Some(1), "{}", transcript(&v));
    assert!(transcript(&v).contains(&support::asset()), "names the file: {}", transcript(&v));
    assert_eq!(std::fs::read(dist.join(support::asset())).unwrap(), tampered, "--verify writes nothing");

    let v = bqsuite(s.path(), &["release", "--verify", "--out", "nowhere"]);
    assert_eq!(v.status.code(), Some(2), "{}", transcript(&v));
    assert!(transcript(&v).contains("run `bqsuite release`"));
    assert!(!s.path().join("nowhere").exists());
}

#[test]
fn release_refuses_an_asset_its_fetch_would_refuse() {
    // A suite whose manifest is larger than fetch's per-file cap (as a ×100 suite's is).
    let s = SuiteCopy::new();
    s.edit_manifest(|m| m["description"] = serde_json::Value::String("x".repeat(17 << 20)));
    let out = tempfile::tempdir().unwrap();
    let o = release(s.path(), out.path());
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`bqsuite fetch` would refuse this asset: manifest.json is ")
            && err.contains("per-file cap of 16777216"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing written");
}

#[test]
fn release_and_fetch_agree_on_every_cap() {
    use bqsuite::fetch::{Limits, archive};
    let suite = bqsuite::suite::Suite::load(repo()).unwrap();
    let asset = bqsuite::release::build(&suite).unwrap();
    let tar = gunzip_bytes(&asset.bytes);
    let tar_len = tar.len() as u64;
    let gz = asset.bytes.len() as u64;
    let entries = bqsuite::release::ustar::read(&tar, u64::MAX).unwrap();
    let (count, largest) = (entries.len(), entries.iter().map(|e| e.data.len() as u64).max().unwrap());
    // The asset's own expansion ratio, rounded up: the smallest whole cap it stays within.
    let ratio = tar_len.div_ceil(gz);
    let d = Limits::default();
    // Every cap at its boundary (exactly at it is taken, one under it refused), so that a
    // release never refuses what fetch takes, nor builds what fetch refuses.
    let variants = [
        d,
        Limits { max_download: gz - 1, ..d },
        Limits { max_download: gz, ..d },
        Limits { max_entries: count - 1, ..d },
        Limits { max_entries: count, ..d },
        Limits { max_file: largest - 1, ..d },
        Limits { max_file: largest, ..d },
        Limits { max_total: tar_len - 1, ..d },
        Limits { max_total: tar_len, ..d },
        Limits { max_ratio: 2, ratio_floor: 1, ..d },
        Limits { max_ratio: 1000, ratio_floor: 1, ..d },
        Limits { max_ratio: 1, ratio_floor: tar_len - 1, ..d },
        Limits { max_ratio: 1, ratio_floor: tar_len, ..d },
        Limits { max_ratio: ratio - 1, ratio_floor: 1, ..d },
        Limits { max_ratio: ratio, ratio_floor: 1, ..d },
    ];
    let mut accepted = Vec::new();
    for limits in variants {
        let built = bqsuite::release::build_within(&suite, &limits);
        let fetched = archive::read(&asset.bytes, support::version(), &limits);
        assert_eq!(
            built.is_ok(),
            fetched.is_ok(),
            "{limits:?}: release {:?} / fetch {:?}",
            built.err().map(|e| e.to_string()),
            fetched.err()
        );
        accepted.push(built.is_ok());
    }
    assert_eq!(
        accepted,
        [true, false, true, false, true, false, true, false, true, false, true, false, true, false, true]
    );
}

fn gunzip_bytes(gz: &[u8]) -> Vec<u8> {
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(gz).read_to_end(&mut tar).unwrap();
    tar
}

/// The default `dist` is the suite repository's: a link committed there is not followed (red
/// team F7: `dist -> /outside` made release write the asset and SHA256SUMS there).
#[test]
fn a_default_dist_that_is_a_symlink_is_refused() {
    let s = SuiteCopy::new();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), s.path().join("dist")).unwrap();
    let o = bqsuite(s.path(), &["release", "--no-previous", "--suite", s.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("dist is a symbolic link"), "{}", transcript(&o));
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing is written through the link");
}

#[test]
fn release_out_must_be_a_directory() {
    let s = SuiteCopy::new();
    let file = tempfile::NamedTempFile::new().unwrap();
    let o = release(s.path(), file.path());
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("exists and is not a directory"), "{err}");
    assert!(!err.contains("os error 17"), "{err}");
}

#[test]
fn a_sha256sums_that_cannot_be_written_leaves_no_new_asset_either() {
    // The asset was written first, then SHA256SUMS failed: a new asset stood beside the old
    // (here: no) checksum file, with exit 2.
    let s = SuiteCopy::new();
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir(out.path().join("SHA256SUMS")).unwrap();
    let o = release(s.path(), out.path());
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("SHA256SUMS: it is a directory"), "{err}");
    let left: Vec<String> =
        std::fs::read_dir(out.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, ["SHA256SUMS"], "nothing else written");
}

/// Outside any git repository (a `git archive` export) there is no commit to hold the release
/// files to (BQ959): the build goes on, and says plainly that no commit could be checked.
#[test]
fn an_export_outside_git_builds_and_says_no_commit_could_be_checked() {
    let s = SuiteCopy::new();
    let out = tempfile::tempdir().unwrap();
    let o = release(s.path(), out.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("release: no commit could be checked:") && err.contains("is not in a git repository"),
        "{err}"
    );
    assert!(!err.contains("BQ959"), "{err}");
}

/// The audit's F4: `--out fixtures` (or `schema`, a directory under them, a symlink to one, a
/// `..` path through a directory not yet made) wrote the asset and SHA256SUMS into the suite,
/// and the next build was refused (BQ006) with the tree already dirty. Refused before anything
/// is built or written (exit 2); a directory beside them, or named like them elsewhere, is fine.
#[test]
fn an_out_inside_what_the_asset_packs_is_refused() {
    let s = SuiteCopy::new();
    std::os::unix::fs::symlink(s.path().join("fixtures"), s.path().join("link")).unwrap();
    let snapshot = || {
        let mut v = walk(s.path());
        v.sort();
        v
    };
    let before = snapshot();
    for out in [
        "fixtures",
        "schema",
        "fixtures/new/deeper",
        "link",
        "link/sub",
        "./schema/",
        "dist/../fixtures/x/..",
        "LICENSE",
    ] {
        let o = bqsuite(s.path(), &["release", "--no-previous", "--out", out]);
        assert_eq!(o.status.code(), Some(2), "{out}: {}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("the output directory {out} is inside the suite's")), "{out}: {err}");
        assert!(err.contains("which the release asset packs"), "{out}: {err}");
        assert_eq!(snapshot(), before, "{out}: nothing written");
    }
    for out in ["dist", "fixtures-old", "elsewhere/fixtures"] {
        let o = bqsuite(s.path(), &["release", "--no-previous", "--out", out]);
        assert_eq!(o.status.code(), Some(0), "{out}: {}", transcript(&o));
        assert!(s.path().join(out).join(support::asset()).is_file(), "{out}");
    }
}

/// The audit's F5: a SHA256SUMS already in --out (a downloaded release's, listing the binaries)
/// was cut to the asset's line without a word. It still is (the published SHA256SUMS lists the
/// release's asset), and each other line is named on stderr; the asset's own old line is not
/// "dropped", it is replaced.
#[test]
fn a_multi_line_sha256sums_in_out_is_replaced_saying_which_lines_went() {
    let s = SuiteCopy::new();
    let out = tempfile::tempdir().unwrap();
    let asset = support::asset();
    let sums = out.path().join("SHA256SUMS");
    let old = format!(
        "{a}  bqsuite-x86_64-unknown-linux-musl.tar.gz\n{b} *bqsuite-x86_64-pc-windows-msvc.zip\n\n{c}  {asset}\n",
        a = "a".repeat(64),
        b = "b".repeat(64),
        c = "c".repeat(64)
    );
    std::fs::write(&sums, old).unwrap();
    let o = release(s.path(), out.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let written = std::fs::read_to_string(&sums).unwrap();
    assert_eq!(written.lines().count(), 1, "{written}");
    assert!(written.ends_with(&format!("  {asset}\n")) && !written.starts_with("ccc"), "{written}");
    let err = String::from_utf8_lossy(&o.stderr);
    let dropped: Vec<&str> = err.lines().filter(|l| l.starts_with("release: dropped from ")).collect();
    assert_eq!(dropped.len(), 2, "{err}");
    assert!(dropped[0].contains("bqsuite-x86_64-unknown-linux-musl.tar.gz (it lists the asset alone)"), "{err}");
    assert!(dropped[1].contains("*bqsuite-x86_64-pc-windows-msvc.zip"), "{err}");
    // Nothing to say the second time.
    let o = release(s.path(), out.path());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("dropped"), "{}", transcript(&o));
    // At most 20 lines are quoted, then how many more; one more than 20 is quoted, not counted.
    let dropped_of = |n: usize| {
        let lines: String = (0..n).map(|i| format!("{}  other-{i}.tar.gz\n", "e".repeat(64))).collect();
        std::fs::write(&sums, lines).unwrap();
        let o = release(s.path(), out.path());
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        err.lines().filter(|l| l.starts_with("release: dropped from ")).map(str::to_owned).collect::<Vec<_>>()
    };
    let d = dropped_of(21);
    assert_eq!(d.len(), 21, "{d:#?}");
    assert!(d.iter().all(|l| !l.contains("more")), "{d:#?}");
    let d = dropped_of(22);
    assert_eq!(d.len(), 21, "{d:#?}");
    assert!(d[20].contains("… and 2 more"), "{d:#?}");
}

/// A `SHA256SUMS` in `--out` that is a link (`dist/SHA256SUMS -> ~/.netrc`, committed) is never
/// read: nothing it points at reaches stderr, and the link itself is replaced, its target left
/// as it was. Lines of a regular file that are no checksum are not quoted either.
#[test]
fn a_sha256sums_link_in_out_is_replaced_unread_and_only_checksum_lines_are_quoted() {
    let s = SuiteCopy::new();
    let out = tempfile::tempdir().unwrap();
    let secret = out.path().join("netrc");
    let body = format!("{}  looks-like-a-checksum\nmachine example.com password hunter2\n", "d".repeat(64));
    std::fs::write(&secret, &body).unwrap();
    let sums = out.path().join("SHA256SUMS");
    std::os::unix::fs::symlink(&secret, &sums).unwrap();
    let o = release(s.path(), out.path());
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("hunter2") && !err.contains("looks-like-a-checksum"), "{err}");
    assert!(!std::fs::symlink_metadata(&sums).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), body, "the link's target is untouched");

    // A regular file: its checksum lines are quoted, nothing else in it.
    std::fs::write(&sums, &body).unwrap();
    let o = release(s.path(), out.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("looks-like-a-checksum") && !err.contains("hunter2"), "{err}");
}

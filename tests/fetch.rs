//! `bqsuite fetch` and `fetch --check`: byte-for-byte round trip through file:// and a loopback
//! HTTP server, drift reports, and a corpus of hostile archives that must all be refused
//! without writing anything outside a temporary directory.

mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bqsuite::release::{self, ustar};
use support::{repo, transcript};

// The version, root and asset name of the hand-made archives below, which are no release of the
// canonical suite (the tests that fetch that use `support::version()`): any version will do.
const VERSION: &str = "1.6.0";
const ROOT: &str = "babelqueue-conformance-1.6.0";
const ASSET: &str = "babelqueue-conformance-1.6.0.tar.gz";

/// Run the binary with the base URL in the environment (never inherited from the caller).
fn fetch(args: &[&str], base: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bqsuite"));
    cmd.arg("fetch").args(args).env("NO_COLOR", "1").env_remove("BQ_CONFORMANCE_BASE_URL");
    if let Some(b) = base {
        cmd.env("BQ_CONFORMANCE_BASE_URL", b);
    }
    cmd.output().expect("run bqsuite")
}

fn file_url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

/// The canonical suite released into a fresh `dist/`.
fn dist() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let suite = bqsuite::suite::Suite::load(repo()).unwrap();
    let asset = release::build(&suite).unwrap();
    release::write(&asset, dir.path()).unwrap();
    dir
}

/// Every regular file under `dir`, by relative path.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The canonical release files, by suite-relative path.
fn canonical() -> BTreeMap<String, Vec<u8>> {
    let suite = bqsuite::suite::Suite::load(repo()).unwrap();
    suite.files().filter(|f| release::layout::in_release(&f.rel)).map(|f| (f.rel.clone(), f.bytes().to_vec())).collect()
}

#[test]
fn fetch_from_a_file_url_reproduces_the_suite_byte_for_byte() {
    let dist = dist();
    let target = tempfile::tempdir().unwrap();
    let dest = target.path().join("empty");
    std::fs::create_dir(&dest).unwrap();
    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some(&file_url(dist.path())));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(files_under(&dest), canonical());
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("downloading"),
        "no progress line when stderr is not a terminal"
    );
    assert_eq!(std::fs::read_dir(target.path()).unwrap().count(), 1, "no temporary directory left beside DEST");

    // An absent DEST is created; a non-empty one is refused and left alone.
    let fresh = target.path().join("new");
    assert_eq!(
        fetch(&[support::version(), fresh.to_str().unwrap()], Some(&file_url(dist.path()))).status.code(),
        Some(0)
    );
    assert_eq!(files_under(&fresh), canonical());
    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some(&file_url(dist.path())));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("not empty"));
    assert_eq!(files_under(&dest), canonical());

    let link = target.path().join("link");
    std::os::unix::fs::symlink(target.path().join("elsewhere"), &link).unwrap();
    let o = fetch(&[support::version(), link.to_str().unwrap()], Some(&file_url(dist.path())));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("is a symlink"));
    let orphan = target.path().join("no/such/parent");
    let o = fetch(&[support::version(), orphan.to_str().unwrap()], Some(&file_url(dist.path())));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("does not exist"));
    assert!(!target.path().join("elsewhere").exists() && !target.path().join("no").exists());
}

/// DEST written as `.` (the empty current directory) or as `dir/.` names an empty directory
/// like any other: it is filled, not refused with the EBUSY a rename onto `.` gets.
#[test]
fn fetch_into_the_empty_current_directory() {
    let dist = dist();
    let target = tempfile::tempdir().unwrap();
    let here = target.path().join("here");
    std::fs::create_dir(&here).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_bqsuite"))
        .args(["fetch", support::version(), "."])
        .current_dir(&here)
        .env("NO_COLOR", "1")
        .env("BQ_CONFORMANCE_BASE_URL", file_url(dist.path()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(files_under(&here), canonical());
    // The count it says is the files it wrote.
    let said = format!(": {} files into .", canonical().len());
    assert!(String::from_utf8_lossy(&o.stderr).contains(&said), "{said}: {}", transcript(&o));
    let dotted = target.path().join("dotted");
    std::fs::create_dir(&dotted).unwrap();
    let o = fetch(&[support::version(), &format!("{}/.", dotted.display())], Some(&file_url(dist.path())));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(files_under(&dotted), canonical());
    let mut names: Vec<_> = std::fs::read_dir(target.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["dotted", "here"], "no staging area left beside either");
}

/// A base URL with `{version}` serves a mirror laid out as the GitHub releases are (one
/// directory per version) from one setting: `diff 1.6.0 1.7.0` through a mirror needed both
/// assets in one directory and a merged SHA256SUMS before.
/// User report: README's `bqsuite fetch 1.6.0 tests/conformance` in a fresh repository exits 2
/// because `tests` does not exist. fetch keeps its rule (it makes DEST, never its parents), and
/// its error gives the command that makes the parent.
#[test]
fn a_dest_whose_parent_is_missing_is_refused_with_the_mkdir_to_run() {
    let dist = dist();
    let sdk = tempfile::tempdir().unwrap();
    let dest = sdk.path().join("tests/conformance");
    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some(&file_url(dist.path())));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let parent = sdk.path().join("tests");
    assert!(
        err.contains(&format!(
            "its parent directory {0} does not exist (fetch creates DEST, not its parents): `mkdir -p {0}` first",
            parent.display()
        )),
        "{err}"
    );
    assert!(!parent.exists(), "nothing made");
    std::fs::create_dir(&parent).unwrap();
    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some(&file_url(dist.path())));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
}

#[test]
fn a_base_url_with_a_version_placeholder_names_each_versions_directory() {
    let dist = dist();
    let mirror = tempfile::tempdir().unwrap();
    std::fs::rename(dist.path(), mirror.path().join(support::tag())).unwrap();
    let base = format!("{}/v{{version}}", file_url(mirror.path()));
    let target = tempfile::tempdir().unwrap();
    let dest = target.path().join("copy");
    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(files_under(&dest), canonical());
    // Another version reads its own directory (here absent), named in the message.
    let o = fetch(&["1.5.0", target.path().join("old").to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("/v1.5.0/SHA256SUMS"), "{}", transcript(&o));
}

/// A mirror's password is sent, never shown: not in an error, not in `diff`'s labels.
#[test]
fn a_password_in_the_base_url_is_never_shown() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let target = tempfile::tempdir().unwrap();
    for base in [format!("http://user:s3cret@127.0.0.1:{port}/v{{version}}"), "http://user:s3cret@h/x?y".to_owned()] {
        let o = fetch(&[support::version(), target.path().join("copy").to_str().unwrap()], Some(&base));
        assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
        assert!(!transcript(&o).contains("s3cret"), "{}", transcript(&o));
        assert!(transcript(&o).contains("***:***@"), "{}", transcript(&o));
    }
    // diff's labels of released sides, read from a mirror that takes a password (and gets it).
    let dist = dist();
    let url = serve(files_under(dist.path()), Mode::Password).replacen("http://", "http://user:s3cret@", 1);
    for format in ["human", "json", "markdown"] {
        let o = Command::new(env!("CARGO_BIN_EXE_bqsuite"))
            .args(["diff", support::version(), support::version(), "--format", format, "--base-url", &url])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        assert!(!transcript(&o).contains("s3cret"), "{format}: {}", transcript(&o));
        assert!(transcript(&o).contains("***:***@"), "{format}: {}", transcript(&o));
    }
}

/// A release in a fresh `dist`, its file:// base, and a copy fetched from it at
/// `<copy>/conformance`.
fn fetched_copy() -> (tempfile::TempDir, String, tempfile::TempDir, std::path::PathBuf) {
    let dist = dist();
    let base = file_url(dist.path());
    let copy = tempfile::tempdir().unwrap();
    let dir = copy.path().join("conformance");
    assert_eq!(fetch(&[support::version(), dir.to_str().unwrap()], Some(&base)).status.code(), Some(0));
    (dist, base, copy, dir)
}

/// A fetched copy holds exactly the asset's files, and the asset never ships CHANGELOG.md, so
/// `validate` on it reported BQ003 "CHANGELOG.md is missing" and a newcomer could not validate a
/// pristine copy. A released copy is not asked for one; a directory holding anything more (a
/// source repository) still is.
#[test]
fn validate_passes_on_a_fetched_copy_and_asks_a_source_tree_for_its_changelog() {
    // A copy of a version later than the recorded one is a version being made, which needs its
    // CHANGELOG: the released copy is the canonical suite, so the recording must be of it.
    support::assert_recording_current();
    let (_dist, _base, copy, dir) = fetched_copy();
    let o = support::bqsuite(copy.path(), &["validate", "--suite", "conformance"]);
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(!transcript(&o).contains("BQ003"), "{}", transcript(&o));
    std::fs::write(dir.join("README.md"), "notes\n").unwrap();
    let o = support::bqsuite(copy.path(), &["validate", "--suite", "conformance", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("CHANGELOG.md is missing"), "{}", transcript(&o));
}

#[test]
fn a_copy_whose_only_change_is_crlf_line_endings_is_drift_said_as_such() {
    let (_dist, base, copy, dir) = fetched_copy();
    // What git's core.autocrlf does to a text file on a Windows checkout.
    let manifest = dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace('\n', "\r\n")).unwrap();
    let o = fetch(&["--check", support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("BQ902 drift-modified") && out.contains("only the line endings differ (CR LF in the copy,"),
        "{out}"
    );
    assert!(!out.contains("-  \"schema_version\""), "no diff of every line: {out}");
    // The whole sequence, with the command that rewrites this copy (user study, stop 67).
    let rewrite = format!("rewrite the copy with `bqsuite fetch --update {} {}`", support::version(), dir.display());
    assert!(out.contains(&rewrite) && out.contains("and commit both"), "{out}");
    // Outside a repository the path as typed means nothing to git: the note names the shape.
    let o =
        support::bqsuite(copy.path(), &["fetch", "--check", support::version(), "conformance", "--base-url", &base]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("`<the copy's path in the repository>/** -text`"), "{}", transcript(&o));
    // Inside a repository the pattern is the copy's path from the repository's root, wherever
    // the command ran (a newcomer ran it from tests/ and was told `conformance/** -text`, which
    // git never applies to tests/conformance).
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join(".git")).unwrap();
    std::fs::create_dir_all(repo.path().join("tests")).unwrap();
    std::fs::rename(&dir, repo.path().join("tests/conformance")).unwrap();
    let o = support::bqsuite(
        &repo.path().join("tests"),
        &["fetch", "--check", support::version(), "conformance", "--base-url", &base],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("`tests/conformance/** -text`"), "{}", transcript(&o));
    // Red team M3: a name git reads as a glob or splits at its space is escaped and quoted, and
    // a copy that is the repository's root is `**`, not `./**`.
    std::fs::rename(repo.path().join("tests/conformance"), repo.path().join("tests/my conf[1]")).unwrap();
    let o = support::bqsuite(
        repo.path(),
        &["fetch", "--check", support::version(), "tests/my conf[1]", "--base-url", &base],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(r#"`"tests/my conf\\[1\\]/**" -text`"#), "{}", transcript(&o));
    // A copy that is a repository's root holds `.git`: no copy at all, refused by `--check` as
    // by `--update` (user study, stop 67), so no `.gitattributes` advice either.
    let root = tempfile::tempdir().unwrap();
    std::fs::rename(repo.path().join("tests/my conf[1]"), root.path().join("copy")).unwrap();
    std::fs::create_dir_all(root.path().join("copy/.git")).unwrap();
    let o = support::bqsuite(
        &root.path().join("copy"),
        &["fetch", "--check", support::version(), ".", "--base-url", &base],
    );
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds .git"), "{}", transcript(&o));
}

/// A copy holding more than any suite may hold in all is not read into memory to the end:
/// five 60 MiB files (sparse, so cheap here), each within the per-file cap, once took 300 MiB of
/// memory to compare (a `fetch --check` of a wrong directory, or a pull request filling the
/// copy, grew without bound). Refused once the total passes the suite cap, naming the file.
#[test]
fn a_copy_larger_than_any_suite_is_not_read_to_the_end() {
    let (_dist, base, _copy, dir) = fetched_copy();
    for i in 0..5 {
        std::fs::File::create(dir.join(format!("fixtures/big-{i}.json"))).unwrap().set_len(60 << 20).unwrap();
    }
    let o = fetch(&["--check", support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("fixtures/big-4.json") && err.contains("more than the 256 MiB a suite may hold in all"),
        "{err}"
    );
}

#[test]
fn check_passes_on_a_synced_copy_and_names_every_drifted_file() {
    let (_dist, base, copy, dir) = fetched_copy();
    std::fs::remove_file(dir.join("LICENSE")).unwrap(); // copies do not vendor LICENSE
    let o = fetch(&["--check", support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("clean"));

    let edited = dir.join("fixtures/order-created.json");
    let text =
        std::fs::read_to_string(&edited).unwrap().replace("urn:babel:orders:created", "urn:babel:orders:hand-edited");
    std::fs::write(&edited, text).unwrap();
    let o = fetch(&["--check", support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("BQ902 drift-modified") && out.contains("fixtures/order-created.json"), "{out}");
    assert!(
        out.contains("-  \"job\": \"urn:babel:orders:created\",\n+  \"job\": \"urn:babel:orders:hand-edited\","),
        "{out}"
    );
    // Each side of the diff is labelled: the release by its archive's root, the copy as given.
    let release_side = format!("--- babelqueue-conformance-{}/fixtures/order-created.json\n", support::version());
    let copy_side = format!("+++ {}/fixtures/order-created.json\n", dir.display());
    assert!(out.contains(&release_side) && out.contains(&copy_side), "{out}");
    // The diff is in a CI log too, beside the annotation (as `sync --check` prints it there).
    let o = fetch(&["--check", "--format", "github", support::version(), dir.to_str().unwrap()], Some(&base));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("+  \"job\": \"urn:babel:orders:hand-edited\",") && out.contains("::error "), "{out}");
    // ... unless --no-diff leaves it out; the finding still names the file.
    let o = fetch(&["--check", "--no-diff", support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("hand-edited") && out.contains("fixtures/order-created.json"), "{out}");

    std::fs::remove_file(dir.join("schema/results.example.json")).unwrap();
    std::fs::write(dir.join("fixtures/extra.json"), "{}").unwrap();
    std::fs::create_dir(dir.join("empty-dir")).unwrap();
    let o = fetch(&["--check", support::version(), dir.to_str().unwrap(), "--format", "json"], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["file"].as_str().unwrap().rsplit("conformance/").next().unwrap().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("BQ900", "empty-dir/"),
        ("BQ900", "fixtures/extra.json"),
        ("BQ902", "fixtures/order-created.json"),
        ("BQ901", "schema/results.example.json"),
    ];
    assert_eq!(found, expected.map(|(c, f)| (c.to_owned(), f.to_owned())));

    let o = fetch(&["--check", support::version(), copy.path().join("missing").to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
}

/// How the test server answers.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Serve the files by name (404 otherwise).
    Serve,
    /// Answer 302 with the file's location under `/objects/` (as GitHub releases do), and serve
    /// it from there.
    Redirect,
    /// Accept connections and never answer.
    Hang,
    /// Answer every request with a redirect to a file:// URL.
    RedirectToFile,
    /// Serve the files only to a request with `Authorization: Basic` of `user:s3cret` (401
    /// otherwise), as a mirror behind a password does.
    Password,
}

/// A tiny HTTP/1.1 server on a loopback port; returns the base URL.
fn serve(files: BTreeMap<String, Vec<u8>>, mode: Mode) -> String {
    let v = support::version();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            if mode == Mode::Hang {
                held.push(stream);
                continue;
            }
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            let mut authorized = false;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).map_or(true, |n| n == 0) || line == "\r\n" {
                    break;
                }
                // base64("user:s3cret")
                authorized |= line.eq_ignore_ascii_case("authorization: Basic dXNlcjpzM2NyZXQ=\r\n");
            }
            let target = request_line.split(' ').nth(1).unwrap_or("/");
            let name = target.rsplit('/').next().unwrap_or("").to_owned();
            let head = |status: &str, extra: &str, len: usize| {
                format!("HTTP/1.1 {status}\r\nContent-Length: {len}\r\n{extra}Connection: close\r\n\r\n")
            };
            if mode == Mode::RedirectToFile {
                let head = "HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                let _ = stream.write_all(head.as_bytes());
                continue;
            }
            let (head, body) = match files.get(&name) {
                Some(_) if mode == Mode::Password && !authorized => (head("401 Unauthorized", "", 0), Vec::new()),
                Some(_) if mode == Mode::Redirect && !target.starts_with("/objects/") => {
                    (head("302 Found", &format!("Location: http://{addr}/objects/{name}\r\n"), 0), Vec::new())
                }
                Some(b) => (head("200 OK", "", b.len()), b.clone()),
                None => (head("404 Not Found", "", 9), b"not found".to_vec()),
            };
            let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body));
        }
    });
    format!("http://{addr}/releases/v{v}")
}

#[test]
fn fetch_over_http_from_a_loopback_server_that_redirects() {
    let dist = dist();
    let base = serve(files_under(dist.path()), Mode::Redirect);
    let target = tempfile::tempdir().unwrap();
    let dest = target.path().join("dest");
    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert!(transcript(&o).contains("verified against SHA256SUMS"));
    assert_eq!(files_under(&dest), canonical());

    // --check over HTTP with the pinned hash: LICENSE is ignored whether present or not.
    let sha = release::sha256_hex(&std::fs::read(dist.path().join(support::asset())).unwrap());
    for _ in 0..2 {
        let o = fetch(&["--check", support::version(), dest.to_str().unwrap(), "--sha256", &sha], Some(&base));
        assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
        let _ = std::fs::remove_file(dest.join("LICENSE"));
    }
    let o = fetch(&["--check", support::version(), dest.to_str().unwrap(), "--sha256", &"0".repeat(64)], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(transcript(&o).contains("the pinned --sha256 says"), "{}", transcript(&o));
}

/// One progress call: (file name, bytes so far, total, finished).
type Call = (String, u64, Option<u64>, bool);

static PROGRESS: std::sync::Mutex<Vec<Call>> = std::sync::Mutex::new(Vec::new());

fn record(name: &str, got: u64, total: Option<u64>, done: bool) {
    PROGRESS.lock().unwrap().push((name.to_owned(), got, total, done));
}

#[test]
fn downloads_report_progress_to_the_callback() {
    let dist = dist();
    let asset_len = std::fs::metadata(dist.path().join(support::asset())).unwrap().len();
    let base = serve(files_under(dist.path()), Mode::Serve);
    let mut req = bqsuite::fetch::Request::new(support::version(), Some(&base), None).unwrap();
    req.progress = Some(record);
    let verified = bqsuite::fetch::open(&req).unwrap();
    assert_eq!(verified.against, "SHA256SUMS");
    let calls = PROGRESS.lock().unwrap().clone();
    assert!(calls.contains(&(support::asset(), asset_len, Some(asset_len), true)), "{calls:?}");
    assert!(calls.iter().any(|c| c.0 == "SHA256SUMS" && c.3));
}

#[test]
fn http_errors_and_timeouts_cannot_run() {
    let target = tempfile::tempdir().unwrap();
    let dest = target.path().join("dest");
    let base = serve(BTreeMap::new(), Mode::Serve);
    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("SHA256SUMS: HTTP 404"), "{}", transcript(&o));

    let hang = serve(BTreeMap::new(), Mode::Hang);
    let o = fetch(&[support::version(), dest.to_str().unwrap(), "--timeout", "1"], Some(&hang));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("timed out after 1s"), "{}", transcript(&o));

    let to_file = serve(BTreeMap::new(), Mode::RedirectToFile);
    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some(&to_file));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(
        transcript(&o).contains("redirects to file:///etc/passwd; only http:// and https:// redirects are followed"),
        "{}",
        transcript(&o)
    );

    for bad in ["0", "18446744073709551615", "86401", "x"] {
        let o = fetch(&[support::version(), dest.to_str().unwrap(), "--timeout", bad], Some(&base));
        assert_eq!(o.status.code(), Some(2), "--timeout {bad}: {}", transcript(&o));
        assert!(transcript(&o).contains("--timeout"), "{}", transcript(&o));
    }

    let o = fetch(&[support::version(), dest.to_str().unwrap()], Some("ftp://example.test/x"));
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("file://, http:// or https://"));
    assert!(!dest.exists());
}

// ---------------------------------------------------------------------------------------------
// Hostile archives, written header by header.

/// One raw entry: name bytes, type flag, data, link name.
struct Raw<'a> {
    name: &'a [u8],
    typeflag: u8,
    data: &'a [u8],
    link: &'a [u8],
}

fn file<'a>(name: &'a str, data: &'a [u8]) -> Raw<'a> {
    Raw { name: name.as_bytes(), typeflag: ustar::REGULAR, data, link: b"" }
}

fn dir(name: &str) -> Raw<'_> {
    Raw { name: name.as_bytes(), typeflag: ustar::DIRECTORY, data: b"", link: b"" }
}

fn special<'a>(name: &'a str, typeflag: u8, link: &'a str) -> Raw<'a> {
    Raw { name: name.as_bytes(), typeflag, data: b"", link: link.as_bytes() }
}

/// A tar stream of `entries` exactly as given (no normalisation), properly terminated. Every
/// header claims mode 04777 (setuid, world-writable), which extraction must ignore.
fn raw_tar(entries: &[Raw<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        let h = ustar::RawHeader {
            name: e.name,
            prefix: b"",
            mode: 0o4777,
            size: e.data.len() as u64,
            typeflag: e.typeflag,
            linkname: e.link,
        };
        out.extend_from_slice(&h.encode().unwrap());
        out.extend_from_slice(e.data);
        ustar::pad_to(&mut out, ustar::BLOCK);
    }
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// A legitimate root with a version file, then the hostile entries.
fn with_root<'a>(hostile: Vec<Raw<'a>>) -> Vec<Raw<'a>> {
    let mut v = vec![
        dir("babelqueue-conformance-1.6.0/"),
        file("babelqueue-conformance-1.6.0/CONFORMANCE_VERSION", b"1.6.0\n"),
    ];
    v.extend(hostile);
    v
}

/// A sandbox: `assets/` (the base URL), `parent/` (DEST's parent, holding only the empty
/// directory `empty-dest/`), `outside/victim.txt`.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new(asset: &[u8], sums: Option<String>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for d in ["assets", "parent", "parent/empty-dest", "outside"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        std::fs::write(dir.path().join("outside/victim.txt"), "untouched").unwrap();
        std::fs::write(dir.path().join("assets").join(ASSET), asset).unwrap();
        let sums = sums.unwrap_or_else(|| format!("{}  {ASSET}\n", release::sha256_hex(asset)));
        std::fs::write(dir.path().join("assets/SHA256SUMS"), sums).unwrap();
        Self { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Every path in the sandbox (not following symlinks), with file contents.
    fn snapshot(&self) -> Vec<(String, Option<Vec<u8>>)> {
        walkdir::WalkDir::new(self.dir.path())
            .sort_by_file_name()
            .into_iter()
            .map(Result::unwrap)
            .map(|e| {
                let rel = e.path().strip_prefix(self.dir.path()).unwrap().display().to_string();
                (rel, e.file_type().is_file().then(|| std::fs::read(e.path()).unwrap()))
            })
            .collect()
    }

    /// Fetch into the absent `parent/dest` and the empty `parent/empty-dest`, and `--check`
    /// against `parent/empty-dest` (an empty directory is a copy to check; `parent/`, holding
    /// it, is none, and is refused before anything is downloaded); each must fail with `code` and say `why`, and the sandbox must be
    /// exactly as before.
    #[track_caller]
    fn refused(&self, code: i32, why: &str) {
        let before = self.snapshot();
        let base = file_url(&self.path("assets"));
        for dest in ["parent/dest", "parent/empty-dest"] {
            let o = fetch(&[VERSION, self.path(dest).to_str().unwrap()], Some(&base));
            assert_eq!(o.status.code(), Some(code), "{}", transcript(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(why), "expected {why:?} in:\n{err}");
            assert_eq!(self.snapshot(), before, "nothing may be written, not even beside DEST");
        }
        let o = fetch(&["--check", VERSION, self.path("parent/empty-dest").to_str().unwrap()], Some(&base));
        assert_eq!(o.status.code(), Some(code), "--check: {}", transcript(&o));
        assert!(String::from_utf8_lossy(&o.stderr).contains(why), "--check: {}", transcript(&o));
        // In CI (`--format github`) a refused release is an error annotation as well: it has no
        // finding that would show on the job's page.
        let checked = self.path("parent/empty-dest");
        let o = fetch(&["--check", "--format", "github", VERSION, checked.to_str().unwrap()], Some(&base));
        assert_eq!(o.status.code(), Some(code), "--check: {}", transcript(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        if code == 1 {
            let annotation = out.lines().find(|l| l.starts_with("::error title=bqsuite fetch --check "));
            assert!(annotation.is_some_and(|a| a.contains(why)), "{}", transcript(&o));
        }
        assert_eq!(self.snapshot(), before);
    }
}

/// Refused with exit 1 (an unsafe archive) and a message containing `why`.
#[track_caller]
fn unsafe_archive(entries: Vec<Raw<'_>>, why: &str) {
    Sandbox::new(&release::gzip(&raw_tar(&entries)), None).refused(1, why);
}

/// The files of a small release, as `release` would pack them.
const SMALL: [(&str, &[u8]); 4] = [
    ("CONFORMANCE_VERSION", b"1.6.0\n"),
    ("LICENSE", b"MIT\n"),
    ("fixtures/a.json", b"{}"),
    ("manifest.json", b"{\"schema_version\": 1, \"conformance_version\": \"1.6.0\"}\n"),
];

/// One header of a release-like stream: the path inside the root, type, data, mode.
type Member<'a> = (&'a str, u8, &'a [u8], u32);

/// The members `release` writes for [`SMALL`], in its order, with its modes.
fn small_members() -> Vec<Member<'static>> {
    let mut v: Vec<Member<'static>> = vec![("", ustar::DIRECTORY, b"", 0o755)];
    v.push(("CONFORMANCE_VERSION", ustar::REGULAR, SMALL[0].1, 0o644));
    v.push(("LICENSE", ustar::REGULAR, SMALL[1].1, 0o644));
    v.push(("fixtures", ustar::DIRECTORY, b"", 0o755));
    v.push(("fixtures/a.json", ustar::REGULAR, SMALL[2].1, 0o644));
    v.push(("manifest.json", ustar::REGULAR, SMALL[3].1, 0o644));
    v
}

/// A stream of `members` under the root, headers written with the given modes, ended and
/// padded as GNU tar does.
fn release_like(members: &[Member<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (rel, typeflag, data, mode) in members {
        let path = match (*rel, *typeflag) {
            ("", _) => format!("{ROOT}/"),
            (r, ustar::DIRECTORY) => format!("{ROOT}/{r}/"),
            (r, _) => format!("{ROOT}/{r}"),
        };
        let h = ustar::RawHeader {
            mode: *mode,
            ..ustar::RawHeader::for_path(&path, *typeflag, data.len() as u64).unwrap()
        };
        out.extend_from_slice(&h.encode().unwrap());
        out.extend_from_slice(data);
        ustar::pad_to(&mut out, ustar::BLOCK);
    }
    out.extend_from_slice(&[0u8; 1024]);
    ustar::pad_to(&mut out, ustar::RECORD);
    out
}

#[test]
fn an_archive_release_would_build_is_accepted_and_unpacked_with_fixed_modes() {
    let tar = release_like(&small_members());
    assert_eq!(tar, release::tar_stream(VERSION, &SMALL).unwrap(), "the corpus builder writes what release writes");
    let s = Sandbox::new(&release::gzip(&tar), None);
    let dest = s.path("parent/dest");
    let o = fetch(&[VERSION, dest.to_str().unwrap()], Some(&file_url(&s.path("assets"))));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    assert_eq!(std::fs::read(dest.join("fixtures/a.json")).unwrap(), b"{}");
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&dest.join("fixtures/a.json")), 0o644);
    assert_eq!(mode(&dest.join("fixtures")), 0o755);
    assert_eq!(mode(&dest), 0o755);
}

#[test]
fn an_asset_release_could_never_have_built_is_refused() {
    let base = small_members();
    let edit = |f: &dyn Fn(&mut Vec<Member<'static>>)| {
        let mut m = base.clone();
        f(&mut m);
        release::gzip(&release_like(&m))
    };
    let refused = |gz: Vec<u8>, why: &str| Sandbox::new(&gz, None).refused(1, why);
    // An extra file in the root: its path is harmless, but release never writes it.
    refused(
        edit(&|m| m.insert(5, ("NOTES.md", ustar::REGULAR, b"hi", 0o644))),
        r#"entry "babelqueue-conformance-1.6.0/NOTES.md": an extra entry"#,
    );
    // An empty directory: release writes only directories that hold a file.
    refused(edit(&|m| m.insert(5, ("schema", ustar::DIRECTORY, b"", 0o755))), "an extra entry");
    // A setuid file, a world-writable directory.
    refused(edit(&|m| m[4].3 = 0o4755), r#"fixtures/a.json": its mode is "0004755", release writes "0000644""#);
    refused(edit(&|m| m[3].3 = 0o777), r#"fixtures/": its mode is "0000777", release writes "0000755""#);
    // Entries out of release's order.
    refused(edit(&|m| m.swap(1, 2)), r#"entry "babelqueue-conformance-1.6.0/LICENSE": out of order"#);
    // A root without the licence release always ships.
    refused(
        edit(&|m| {
            m.remove(2);
        }),
        "it has no babelqueue-conformance-1.6.0/LICENSE, which every release ships",
    );
    // Fields release writes as zeros: owner, mtime; the GNU magic; the stream's end.
    let mut tar = release_like(&base);
    let header = |t: &mut Vec<u8>, entry: usize, at: usize, value: &[u8]| {
        let start = [0, 512, 1024, 1536, 2048, 2560][entry];
        t[start + at..start + at + value.len()].copy_from_slice(value);
        let sum = ustar::checksum(t[start..start + 512].try_into().unwrap());
        t[start + 148..start + 156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    };
    header(&mut tar, 1, 108, b"0001750\0");
    refused(release::gzip(&tar), r#"CONFORMANCE_VERSION": its owner (uid) is "0001750""#);
    let mut tar = release_like(&base);
    header(&mut tar, 1, 136, b"14712345670\0");
    refused(release::gzip(&tar), r#"its mtime is "14712345670", release writes "00000000000""#);
    let mut tar = release_like(&base);
    header(&mut tar, 1, 257, b"ustar  \0");
    refused(release::gzip(&tar), "its magic is");
    let tar = release_like(&base);
    refused(release::gzip(&tar[..tar.len() - 512]), "the end of the archive");
}

/// The audit's F3: the tar stream `release` writes, gzipped again (level 1, a file name, an
/// mtime, as a mirror or `gzip` might), with a SHA256SUMS that matches it, was "verified". Only
/// `release`'s own gzip bytes are; the message names the header fields, or the deflate stream.
#[test]
fn an_asset_recompressed_after_the_build_is_refused_naming_the_gzip_field() {
    let tar = release::tar_stream(VERSION, &SMALL).unwrap();
    let regzip = |b: flate2::GzBuilder, level: u32| {
        let mut enc = b.write(Vec::new(), flate2::Compression::new(level));
        std::io::Write::write_all(&mut enc, &tar).unwrap();
        enc.finish().unwrap()
    };
    let evil = regzip(flate2::GzBuilder::new().filename("evil-name.tar").mtime(1_234_567_890).operating_system(3), 1);
    Sandbox::new(&evil, None).refused(
        1,
        "its tar stream is what `bqsuite release` builds, but not its gzip bytes (gzip header: FLG 0x08 (FNAME), \
         not 0x00, MTIME 1234567890, not 0, XFL 4, not 2)",
    );
    // `gzip -9n`'s header is release's, its deflate stream not (here: stored blocks in release's header).
    let mut other = regzip(flate2::GzBuilder::new().mtime(0).operating_system(3), 0);
    other[8] = 2;
    Sandbox::new(&other, None).refused(1, "the gzip header is release's, but the deflate stream differs");
    // release's own bytes are accepted.
    let s = Sandbox::new(&release::gzip(&tar), None);
    let o = fetch(&[VERSION, s.path("dest").to_str().unwrap()], Some(&file_url(&s.path("assets"))));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
}

/// An asset whose root and `CONFORMANCE_VERSION` say 1.6.0 but whose manifest is another
/// version's (a release relabelled by hand, or by a broken pipeline): release's writer rebuilds
/// it byte for byte, so only the manifest's own `conformance_version` tells. Once accepted.
#[test]
fn an_asset_whose_manifest_is_another_versions_is_refused() {
    let with_manifest = |manifest: &'static [u8]| {
        let mut files = SMALL;
        files[3] = ("manifest.json", manifest);
        release::gzip(&release::tar_stream(VERSION, &files).unwrap())
    };
    let refused = |manifest: &'static [u8], why: &str| Sandbox::new(&with_manifest(manifest), None).refused(1, why);
    refused(
        b"{\"schema_version\": 1, \"conformance_version\": \"1.5.0\"}\n",
        "its manifest.json says conformance_version \"1.5.0\", not 1.6.0",
    );
    refused(b"{\"schema_version\": 1}\n", "its manifest.json states no conformance_version");
    refused(b"{\"conformance_version\": 1.6}\n", "its manifest.json states no conformance_version");
    refused(
        b"{\"conformance_version\": \"1.6.0\", \"conformance_version\": \"1.5.0\"}\n",
        "its manifest.json does not parse",
    );
    refused(b"[1.6.0]", "its manifest.json does not parse");
}

#[test]
fn traversal_and_absolute_paths() {
    unsafe_archive(with_root(vec![file("babelqueue-conformance-1.6.0/../outside/evil", b"x")]), "'..' path component");
    unsafe_archive(with_root(vec![file("../outside/evil", b"x")]), "outside the single root");
    unsafe_archive(with_root(vec![file("/tmp/evil", b"x")]), "absolute path");
    unsafe_archive(with_root(vec![file("babelqueue-conformance-1.6.0/./x", b"x")]), "'.' path component");
    unsafe_archive(with_root(vec![file("babelqueue-conformance-1.6.0//x", b"x")]), "an empty component");
    unsafe_archive(with_root(vec![file("babelqueue-conformance-1.6.0/a//x", b"x")]), "empty path component");
}

#[test]
fn links_and_special_files() {
    let r = ROOT;
    unsafe_archive(
        with_root(vec![special(&format!("{r}/ln"), b'2', "manifest.json")]),
        "a symlink (to \"manifest.json\")",
    );
    unsafe_archive(with_root(vec![special(&format!("{r}/ln"), b'2', "/etc/passwd")]), "a symlink (to \"/etc/passwd\")");
    // Symlink to outside, then a file written through it.
    unsafe_archive(
        with_root(vec![
            special(&format!("{r}/ln"), b'2', "../../outside"),
            file(&format!("{r}/ln/victim.txt"), b"owned"),
        ]),
        "a symlink",
    );
    unsafe_archive(
        with_root(vec![special(&format!("{r}/h"), b'1', &format!("{r}/CONFORMANCE_VERSION"))]),
        "a hardlink",
    );
    unsafe_archive(with_root(vec![special(&format!("{r}/fifo"), b'6', "")]), "a FIFO");
    unsafe_archive(with_root(vec![special(&format!("{r}/tty"), b'3', "")]), "a character device");
    unsafe_archive(with_root(vec![special(&format!("{r}/blk"), b'4', "")]), "a block device");
    unsafe_archive(with_root(vec![special(&format!("{r}/contig"), b'7', "")]), "a contiguous file");
    unsafe_archive(with_root(vec![special(&format!("{r}/sparse"), b'S', "")]), "a GNU sparse file");
    unsafe_archive(with_root(vec![special(&format!("{r}/label"), b'V', "")]), "a volume label");
    unsafe_archive(with_root(vec![special(&format!("{r}/cont"), b'M', "")]), "a multi-volume continuation");
    unsafe_archive(with_root(vec![special(&format!("{r}/what"), b'Z', "")]), "an entry of unknown type 'Z'");
}

#[test]
fn roots_duplicates_and_names() {
    let r = ROOT;
    unsafe_archive(with_root(vec![dir("other/"), file("other/b", b"x")]), "\"other/\": outside the single root");
    let wrong = vec![
        dir("babelqueue-conformance-1.5.0/"),
        file("babelqueue-conformance-1.5.0/CONFORMANCE_VERSION", b"1.6.0\n"),
    ];
    unsafe_archive(wrong, "outside the single root directory babelqueue-conformance-1.6.0/");
    unsafe_archive(with_root(vec![file(&format!("{r}/CONFORMANCE_VERSION"), b"1.6.0\n")]), "duplicate entry");
    unsafe_archive(with_root(vec![file(&format!("{r}/fixtures\\..\\..\\evil"), b"x")]), "backslash");
    unsafe_archive(
        with_root(vec![file(&format!("{r}/A.json"), b"x"), file(&format!("{r}/a.json"), b"x")]),
        "differ only in letter case",
    );
    unsafe_archive(with_root(vec![file(&format!("{r}/f"), b"x"), file(&format!("{r}/f/g"), b"x")]), "is a file, but");
    unsafe_archive(with_root(vec![file(&format!("{r}/bell\u{7}"), b"x")]), "control character");
    unsafe_archive(with_root(vec![file(&format!("{r}/nul.json"), b"x")]), "Windows device name");
    for c in ['*', '?', '"', '<', '>', '|'] {
        unsafe_archive(with_root(vec![file(&format!("{r}/a{c}b.json"), b"x")]), "Windows refuses it in file names");
    }
    unsafe_archive(
        vec![dir(&format!("{r}/")), file(&format!("{r}/CONFORMANCE_VERSION"), b"1.5.0\n")],
        "says \"1.5.0\", not 1.6.0",
    );
}

#[test]
fn pax_and_gnu_long_name_headers_are_refused_not_merged() {
    let r = ROOT;
    let record = b"30 path=../../outside/evil.txt\n";
    let pax = Raw { name: format!("{r}/PaxHeaders/x").into_bytes().leak(), typeflag: b'x', data: record, link: b"" };
    unsafe_archive(with_root(vec![pax, file(&format!("{r}/x"), b"owned")]), "a pax extended header");
    let global = Raw { name: b"pax_global_header", typeflag: b'g', data: record, link: b"" };
    unsafe_archive(with_root(vec![global]), "a pax global header");
    let long = Raw { name: b"././@LongLink", typeflag: b'L', data: b"../../outside/evil.txt\0", link: b"" };
    unsafe_archive(with_root(vec![long, file(&format!("{r}/x"), b"owned")]), "a GNU long-name header");
}

#[test]
fn a_decompression_bomb() {
    let zeros = vec![0u8; 8 << 20];
    let r = ROOT;
    let names: Vec<String> = (0..4).map(|i| format!("{r}/big-{i}.json")).collect();
    let entries = with_root(names.iter().map(|n| file(n, &zeros)).collect());
    let tar = raw_tar(&entries);
    let gz = release::gzip(&tar);
    assert!(tar.len() > 200 * gz.len(), "the bomb must outgrow the ratio cap");
    Sandbox::new(&gz, None).refused(1, "decompression bomb");
}

#[test]
fn truncated_and_corrupt_archives() {
    let r = ROOT;
    let full = raw_tar(&with_root(vec![file(&format!("{r}/manifest.json"), &[b'x'; 3000])]));
    // Cut in the middle of the data: a complete gzip of an incomplete tar.
    Sandbox::new(&release::gzip(&full[..2048]), None).refused(1, "truncated archive");
    // Cut gzip stream.
    let gz = release::gzip(&full);
    Sandbox::new(&gz[..gz.len() / 2], None).refused(1, "not a valid gzip stream");
    // Garbage after the gzip member.
    let mut trailing = gz.clone();
    trailing.extend_from_slice(b"garbage");
    Sandbox::new(&trailing, None).refused(1, "data after the gzip stream");
    // A header whose checksum does not add up.
    let mut bad = full.clone();
    bad[1536 + 100] = b'1';
    Sandbox::new(&release::gzip(&bad), None).refused(1, "header checksum mismatch");
}

#[test]
fn checksum_mismatch_and_a_sha256sums_without_the_line() {
    let gz = release::gzip(&raw_tar(&with_root(vec![])));
    let wrong = format!("{}  {ASSET}\n", "0".repeat(64));
    Sandbox::new(&gz, Some(wrong)).refused(1, "checksum mismatch");
    let other = format!("{}  babelqueue-conformance-1.5.0.tar.gz\n", release::sha256_hex(&gz));
    Sandbox::new(&gz, Some(other)).refused(2, "has no line for babelqueue-conformance-1.6.0.tar.gz");
}

/// A file:// base whose SHA256SUMS or asset is a FIFO (or another special file): refused at
/// once, naming it, never a read that blocks forever (no timeout covers file://).
#[test]
fn a_fifo_in_a_file_url_base_is_refused_not_read() {
    let dist = tempfile::tempdir().unwrap();
    let mkfifo = |p: &Path| assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
    mkfifo(&dist.path().join("SHA256SUMS"));
    let dest = dist.path().join("dest");
    let base = file_url(dist.path());
    let run = |extra: &[&str]| {
        let mut args = vec!["fetch", VERSION, dest.to_str().unwrap()];
        args.extend_from_slice(extra);
        support::bqsuite_within(dist.path(), &args, &[("BQ_CONFORMANCE_BASE_URL", &base)], 30)
    };
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains("SHA256SUMS: not a regular file (a FIFO)"), "{}", transcript(&o));
    mkfifo(&dist.path().join(ASSET));
    let o = run(&["--sha256", &"a".repeat(64)]);
    assert_eq!(o.status.code(), Some(2), "{}", transcript(&o));
    assert!(transcript(&o).contains(&format!("{ASSET}: not a regular file (a FIFO)")), "{}", transcript(&o));
    assert!(!dest.exists());
}

/// A download that stalls half way, watched on a terminal (`script` gives the child a pty): the
/// progress line is ended before the error message, which starts a line of its own.
#[test]
fn the_progress_line_is_ended_before_an_error() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipping: no `script` (util-linux) to give the child a terminal");
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(4) {
            let Ok(mut s) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(s.try_clone().unwrap());
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
            let _ = s.write_all(&[b'x'; 70_000]);
            let _ = s.flush();
            held.push(s);
        }
        std::thread::sleep(std::time::Duration::from_secs(30));
    });
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "{} fetch {VERSION} {} --sha256 {} --timeout 1 --base-url http://{addr}/r",
        env!("CARGO_BIN_EXE_bqsuite"),
        dir.path().join("dest").display(),
        "a".repeat(64)
    );
    let o = Command::new("script").args(["-qec", &command, "/dev/null"]).env("NO_COLOR", "1").output().unwrap();
    let screen = String::from_utf8_lossy(&o.stdout);
    assert!(screen.contains("downloading babelqueue-conformance-1.6.0.tar.gz: "), "no progress drawn: {screen:?}");
    let error = screen.find("bqsuite: error: ").unwrap_or_else(|| panic!("no error: {screen:?}"));
    assert!(screen[..error].ends_with('\n'), "the error does not start a line: {screen:?}");
}

/// User report: a copy of another release showed as three modified files, and the job summary
/// said only "differs from the release", the `fetch --update` remedy being in the log alone.
/// The copy's version is said first (stderr before the diff; the summary's first note, and a
/// notice), and the summary carries the remedy.
#[test]
fn a_copy_of_another_release_is_said_as_such_and_the_summary_carries_the_remedy() {
    let v = support::version();
    let (_dist, base, copy, dir) = fetched_copy();
    std::fs::write(dir.join("CONFORMANCE_VERSION"), "1.5.0\n").unwrap();
    let o = fetch(&["--check", support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let shown = dir.display();
    let said = format!(
        "fetch --check: your copy is 1.5.0, checked against {v}: the differences are those between the two \
         releases; `bqsuite fetch --update {v} {shown}` moves the copy to {v}, or check it against its own \
         release, 1.5.0\n"
    );
    assert!(err.starts_with(&said), "said first: {err}");

    let summary = copy.path().join("summary.md");
    let o = Command::new(env!("CARGO_BIN_EXE_bqsuite"))
        .args(["fetch", "--check", "--format", "github", support::version(), dir.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .env("BQ_CONFORMANCE_BASE_URL", &base)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("::notice title=fetch --check::your copy is 1.5.0, checked against {v}: ")), "{out}");
    let md = std::fs::read_to_string(&summary).unwrap();
    let note = md.find(&format!("Note: your copy is 1.5.0, checked against {v}: ")).unwrap_or_else(|| panic!("{md}"));
    let remedy = md
        .find(&format!("To make the copy exactly release {v}: `bqsuite fetch --update {v} {shown}` (with the same"))
        .unwrap_or_else(|| panic!("{md}"));
    let table = md.find("| severity |").unwrap_or_else(|| panic!("{md}"));
    assert!(note < remedy && remedy < table, "the version first, then the remedy, then the files: {md}");

    // A copy of this release with an edit: no version said, the remedy still in the summary.
    std::fs::write(dir.join("CONFORMANCE_VERSION"), format!("{v}\n")).unwrap();
    std::fs::write(dir.join("fixtures/extra.json"), "{}").unwrap();
    std::fs::remove_file(&summary).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_bqsuite"))
        .args(["fetch", "--check", "--format", "github", support::version(), dir.to_str().unwrap()])
        .env("BQ_CONFORMANCE_BASE_URL", &base)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(!md.contains("your copy is") && md.contains(&format!("`bqsuite fetch --update {v} ")), "{md}");
    // What the copy says is not a version: nothing said about it (the drift shows it).
    std::fs::write(dir.join("CONFORMANCE_VERSION"), "\u{1b}[2Jlatest\n").unwrap();
    let o = fetch(&["--check", support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("your copy is"), "{}", transcript(&o));
}

/// Red team M4 of stop 44: the closing hint quoted the copy's directory for a shell but printed
/// it raw, so a name holding an escape sequence reached the terminal.
#[test]
fn the_update_hint_of_a_drifted_copy_is_terminal_safe() {
    let (_dist, base, copy, dir) = fetched_copy();
    let evil = copy.path().join("x\u{1b}[31mdir");
    std::fs::rename(&dir, &evil).unwrap();
    std::fs::write(evil.join("fixtures/extra.json"), "{}").unwrap();
    let o = fetch(&["--check", support::version(), evil.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bqsuite fetch --update") && err.contains("x\\u001b[31mdir"), "{err}");
    assert!(!o.stderr.contains(&0x1b) && !o.stdout.contains(&0x1b), "{}", transcript(&o));
}

/// Red team of stop 53: a newer copy's remedy must be a command that runs (fetch --update
/// refuses a downgrade unless asked), and a vendored file's lines, shown as a diff in the log,
/// must not read as workflow commands to a runner, which trims a line's leading space before
/// it looks for `::` and reads the older form `##[command]` anywhere in a line.
#[test]
fn a_newer_copy_is_told_the_downgrade_and_a_diff_commands_nothing() {
    let (_dist, base, _copy, dir) = fetched_copy();
    std::fs::write(dir.join("CONFORMANCE_VERSION"), "9.0.0\n").unwrap();
    let o = fetch(&["--check", VERSION, dir.to_str().unwrap()], Some(&base));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("--update {VERSION} {} --allow-downgrade`", dir.display())), "{err}");
    // The closing remedy too, not only the version note: one command, said the same everywhere.
    assert_eq!(err.matches("--allow-downgrade`").count(), 2, "{err}");

    std::fs::write(dir.join("CONFORMANCE_VERSION"), format!("{VERSION}\n")).unwrap();
    let fixture = dir.join("fixtures/order-created.json");
    let mut text = std::fs::read_to_string(&fixture).unwrap();
    text.push_str(" ::error file=README.md::forged\n##[stop-commands]hidden\nx ##[error]forged too\n");
    std::fs::write(&fixture, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_bqsuite"))
        .args(["fetch", "--check", "--format", "github", VERSION, dir.to_str().unwrap()])
        .env("BQ_CONFORMANCE_BASE_URL", &base)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(all.contains("stop-commands]hidden") && all.contains("forged too"), "the diff is shown: {all}");
    assert!(!all.contains("##["), "{all}");
    for line in all.split(['\n', '\r']) {
        let command = line.trim_start().starts_with("::");
        assert!(!command || (line.starts_with("::") && !line.contains("forged")), "{line:?} in {all}");
    }
}

/// A mirror laid out as the GitHub releases are (`v<version>/`), holding the canonical release
/// and a release 1.5.0 of the same suite (its versions saying 1.5.0, one fixture different);
/// returns the mirror and its base URL with `{version}`.
fn mirror_with_1_5_0() -> (tempfile::TempDir, String) {
    let mirror = tempfile::tempdir().unwrap();
    let dist = dist();
    std::fs::rename(dist.path(), mirror.path().join(support::tag())).unwrap();
    let old = tempfile::tempdir().unwrap();
    for entry in ["CONFORMANCE_VERSION", "manifest.json", "schema", "fixtures", "LICENSE", "CHANGELOG.md"] {
        support::copy_tree(&repo().join(entry), &old.path().join(entry));
    }
    std::fs::write(old.path().join("CONFORMANCE_VERSION"), "1.5.0\n").unwrap();
    let manifest = old.path().join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replacen(
        &format!("\"conformance_version\": \"{}\"", support::version()),
        "\"conformance_version\": \"1.5.0\"",
        1,
    );
    std::fs::write(&manifest, text.replacen("\"description\": \"", "\"description\": \"Older. ", 1)).unwrap();
    // Assembled, not built: a 1.5.0 made from today's suite is no suite `validate` would pass.
    let suite = bqsuite::suite::Suite::load(old.path()).unwrap();
    let files: Vec<(&str, &[u8])> =
        suite.files().filter(|f| release::layout::in_release(&f.rel)).map(|f| (f.rel.as_str(), f.bytes())).collect();
    let asset = release::assemble("1.5.0", &files).unwrap_or_else(|e| panic!("release 1.5.0: {e}"));
    std::fs::create_dir(mirror.path().join("v1.5.0")).unwrap();
    release::write(&asset, &mirror.path().join("v1.5.0")).unwrap();
    let base = format!("{}/v{{version}}", file_url(mirror.path()));
    (mirror, base)
}

/// `fetch --check VERSION DIR` of a copy that states another release W tells, from a file://
/// mirror, whether it is exactly W (said in the note, no finding) or W with local edits (BQ723,
/// naming them); over HTTP, where that would be a second download, it says it did not tell and
/// gives the command that does (BQ724), as it does when the mirror lacks W.
#[test]
fn check_of_a_copy_of_another_release_tells_exact_from_locally_edited() {
    let (_mirror, base) = mirror_with_1_5_0();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("conformance");
    let o = fetch(&["1.5.0", dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    std::fs::remove_file(dir.join("LICENSE")).unwrap();
    let check =
        |format: &str| fetch(&["--check", support::version(), dir.to_str().unwrap(), "--format", format], Some(&base));

    let o = check("human");
    assert_eq!(o.status.code(), Some(1), "a copy of 1.5.0 drifts from the suite: {}", transcript(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("(it is exactly release 1.5.0: no local edits, checked against 1.5.0's asset)"), "{err}");
    assert!(!transcript(&o).contains("BQ723") && !transcript(&o).contains("BQ724"), "{}", transcript(&o));

    let edited = dir.join("fixtures/order-created.json");
    let text =
        std::fs::read_to_string(&edited).unwrap().replace("urn:babel:orders:created", "urn:babel:orders:patched");
    std::fs::write(&edited, text).unwrap();
    let o = check("json");
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let bq723: Vec<&serde_json::Value> =
        report["findings"].as_array().unwrap().iter().filter(|f| f["code"] == "BQ723").collect();
    assert_eq!(bq723.len(), 1, "{report:#}");
    assert_eq!(bq723[0]["severity"], "error");
    assert_eq!(bq723[0]["file"], dir.display().to_string());
    let message = bq723[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the copy states 1.5.0 but is release 1.5.0 with 1 local edit (1 file: fixtures/order-created.json)"
        ),
        "{message}"
    );
    assert!(message.contains("record them upstream") && message.contains("`bqsuite fetch --update "), "{message}");
    let o = check("github");
    assert!(String::from_utf8_lossy(&o.stdout).contains("::error title=BQ723 copy-edited::"), "{}", transcript(&o));

    // The mirror without 1.5.0: not told, and why.
    std::fs::remove_dir_all(_mirror.path().join("v1.5.0")).unwrap();
    let o = check("json");
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let bq724 = report["findings"].as_array().unwrap().iter().find(|f| f["code"] == "BQ724").expect("BQ724");
    assert_eq!(bq724["severity"], "warning");
    let message = bq724["message"].as_str().unwrap();
    assert!(message.contains("release 1.5.0's asset could not be read from the mirror"), "{message}");
    assert!(message.contains(&format!("`bqsuite fetch --check 1.5.0 {}`", dir.display())), "{message}");
}

/// Over HTTP the copy's own release is a second download, which `fetch --check` does not make
/// unasked: BQ724 says so and gives the command.
#[test]
fn over_http_the_copy_s_own_release_is_not_downloaded_unasked() {
    let dist = dist();
    let served: BTreeMap<String, Vec<u8>> = files_under(dist.path());
    let base = serve(served, Mode::Serve);
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("conformance");
    let o = fetch(&[support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(0), "{}", transcript(&o));
    std::fs::write(dir.join("CONFORMANCE_VERSION"), "1.5.0\n").unwrap();
    let o = fetch(&["--check", support::version(), dir.to_str().unwrap()], Some(&base));
    assert_eq!(o.status.code(), Some(1), "{}", transcript(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("warning[BQ724 copy-edits-unknown]"), "{out}");
    assert!(out.contains("a second download, which fetch --check makes only from a file:// mirror"), "{out}");
    assert!(out.contains(&format!("`bqsuite fetch --check 1.5.0 {}`", dir.display())), "{out}");
}

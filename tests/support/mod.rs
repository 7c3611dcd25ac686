//! Shared helpers for the integration tests: copies of the suite to break, the built binary,
//! and a Redis to talk to.
#![allow(dead_code)]

pub mod a11y;
pub mod history;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

/// The repository root (the canonical suite).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The canonical suite's version, as its `CONFORMANCE_VERSION` states it (trimmed): what a test
/// means by "the suite" when it copies, releases or fetches the repository's own suite. A test
/// about one release's content (1.5.0 → 1.6.0, say) keeps that release's literal instead.
pub fn version() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| {
        let text = std::fs::read_to_string(repo().join("CONFORMANCE_VERSION")).expect("CONFORMANCE_VERSION");
        let v = text.trim().to_owned();
        semver::Version::parse(&v).unwrap_or_else(|e| panic!("CONFORMANCE_VERSION {v:?} is not SemVer: {e}"));
        v
    })
}

/// The canonical suite's release tag, `v<version>`.
pub fn tag() -> String {
    format!("v{}", version())
}

/// The canonical suite's release asset, `babelqueue-conformance-<version>.tar.gz`.
pub fn asset() -> String {
    format!("{}.tar.gz", asset_root())
}

/// The single root directory of the canonical suite's release asset.
pub fn asset_root() -> String {
    format!("babelqueue-conformance-{}", version())
}

/// The canonical suite's version with `bump` applied: its next PATCH (`"patch"`), MINOR or MAJOR.
pub fn bumped(bump: &str) -> String {
    let mut v = semver::Version::parse(version()).unwrap();
    v.pre = semver::Prerelease::EMPTY;
    match bump {
        "patch" => v.patch += 1,
        "minor" => (v.minor, v.patch) = (v.minor + 1, 0),
        "major" => (v.major, v.minor, v.patch) = (v.major + 1, 0, 0),
        _ => panic!("no such bump {bump:?}"),
    }
    v.to_string()
}

/// The suite version the power recording (`src/sections/power.json`) was made on.
pub fn recorded_version() -> String {
    bqsuite::sections::power::recorded().suite.to_string()
}

/// Fail, saying what to do, unless the power recording was made on the canonical suite's
/// version: BQ318–BQ320 and `results check`'s refusal of an edited copy hold a suite of the
/// recorded version only, so a test of them on the canonical suite needs the two to agree.
/// After a version bump the recording is redone with a live Redis (it is not edited by hand).
#[track_caller]
pub fn assert_recording_current() {
    if let Some(why) = recording_stale() {
        panic!("{why}");
    }
}

/// Fail, saying what to do, if the power recording pins `version`: for a small made-up suite
/// labelled a fixed version (printed by its snapshots) so that the recording does not hold it to
/// the published skip policy and schemas (BQ319, BQ320).
#[track_caller]
pub fn assert_unpinned(version: &str) {
    assert!(
        !bqsuite::sections::power::recorded().holds(version),
        "src/sections/power.json is now a recording of suite {version}, the version this made-up suite is labelled \
         so that no recording pins it: label it another version (and re-accept the snapshots that print it)"
    );
}

/// Why the power recording does not apply to the canonical suite (it was made on another
/// version), with what to do; `None` when it applies.
pub fn recording_stale() -> Option<String> {
    let recorded = recorded_version();
    (!bqsuite::sections::power::recorded().holds(version())).then(|| {
        format!(
            "src/sections/power.json was recorded on suite {recorded}, the canonical suite is {}: this checks what \
             the recording pins (BQ318–BQ320), which holds a suite of the recorded version only. Record the power \
             again with a live Redis: `bqsuite dev kill-matrix --redis-url URL --record src/sections/power.json`",
            version()
        )
    })
}

/// The files and directories that make up a suite.
pub const SUITE_ENTRIES: [&str; 6] =
    ["CONFORMANCE_VERSION", "manifest.json", "schema", "fixtures", "LICENSE", "CHANGELOG.md"];

/// A throwaway copy of the canonical suite, to break in one way per test.
pub struct SuiteCopy {
    pub dir: tempfile::TempDir,
}

impl SuiteCopy {
    /// Copy the canonical suite into a new temp dir.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for entry in SUITE_ENTRIES {
            copy_tree(&repo().join(entry), &dir.path().join(entry));
        }
        Self { dir }
    }

    /// The suite root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Read a suite file as text.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).expect("read")
    }

    /// Write a suite file (creating directories).
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, contents).expect("write");
    }

    /// Delete a suite file.
    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path().join(rel)).expect("remove");
    }

    /// Parse, edit and rewrite manifest.json (pretty-printed, key order kept).
    pub fn edit_manifest(&self, edit: impl FnOnce(&mut Value)) {
        let mut v: Value = serde_json::from_str(&self.read("manifest.json")).expect("manifest parses");
        edit(&mut v);
        self.write("manifest.json", serde_json::to_string_pretty(&v).unwrap() + "\n");
    }

    /// Load the copy and validate it; file names are suite-relative (so findings snapshot the
    /// same wherever the copy lives).
    pub fn validate(&self) -> Vec<bqsuite::diag::Finding> {
        self.validate_with(&bqsuite::validate::Options::default()).findings
    }

    /// [`SuiteCopy::validate`] with `options` (a live Redis, say), coverage included.
    pub fn validate_with(&self, options: &bqsuite::validate::Options) -> bqsuite::validate::Validation {
        let root = format!("{}/", self.path().display());
        let suite = bqsuite::suite::Suite::load(self.path()).expect("loads");
        let mut v = bqsuite::validate::validate_with(&suite, options);
        for f in &mut v.findings {
            if let Some(rel) = f.file.as_deref().and_then(|p| p.strip_prefix(&root)) {
                f.file = Some(rel.to_owned());
            }
        }
        v
    }
}

/// Move the suite at `dir` to `version` everywhere a suite states it: `CONFORMANCE_VERSION`,
/// the manifest's `conformance_version` and the results example's (validate requires the
/// three to agree). The files are edited as text, so nothing else about them changes.
pub fn set_version(dir: &Path, version: &str) {
    std::fs::write(dir.join("CONFORMANCE_VERSION"), format!("{version}\n")).unwrap();
    for rel in ["manifest.json", "schema/results.example.json"] {
        let path = dir.join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let key = "\"conformance_version\": \"";
        let start = text.find(key).unwrap_or_else(|| panic!("{rel} states no conformance_version")) + key.len();
        let end = start + text[start..].find('"').unwrap();
        std::fs::write(&path, format!("{}{version}{}", &text[..start], &text[end..])).unwrap();
    }
}

/// Validate a suite copy and assert the exact list of findings against the calling test's
/// insta snapshot (so a missing, an extra or a duplicate finding fails); evaluates to the list.
#[macro_export]
macro_rules! findings {
    ($copy:expr) => {{
        let findings = $copy.validate();
        insta::assert_json_snapshot!(findings);
        findings
    }};
}

/// Copy a file or a directory tree.
pub fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy_tree(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// Assert that `findings` has one with `code` (e.g. "BQ301") whose pointer is `pointer` (when
/// given) and whose file ends with `file`; return it.
#[track_caller]
pub fn assert_finding(
    findings: &[bqsuite::diag::Finding],
    code: &str,
    file: &str,
    pointer: Option<&str>,
) -> bqsuite::diag::Finding {
    findings
        .iter()
        .find(|f| {
            f.code.id == code
                && f.file.as_deref().is_some_and(|x| x.ends_with(file))
                && pointer.is_none_or(|p| f.pointer.as_deref() == Some(p))
        })
        .cloned()
        .unwrap_or_else(|| panic!("no {code} in {file} at {pointer:?}; findings: {findings:#?}"))
}

/// The built `bqsuite` binary, run in `dir` with colour off and a fixed clock.
pub fn bqsuite(dir: &Path, args: &[&str]) -> Output {
    bqsuite_env(dir, args, &[])
}

/// [`bqsuite`] with more environment variables.
pub fn bqsuite_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    command(dir, args, env).output().expect("run bqsuite")
}

/// The `bqsuite` command of [`bqsuite_env`], not yet run. Offline unless `env` gives a Redis:
/// the CI's `BQ_REDIS_URL` and `BQ_REQUIRE_REDIS` are not inherited, so what a command prints
/// (`validate` says which Redis cases it did not run) is the same with and without them.
fn command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bqsuite"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", "1764489600")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_WORKSPACE")
        .env_remove("BQ_CONFORMANCE_BASE_URL")
        .env_remove("BQ_REDIS_URL")
        .env_remove("BQ_REQUIRE_REDIS")
        .envs(env.iter().copied());
    cmd
}

/// stdout, stderr and exit code of a run, as one text for snapshots.
pub fn transcript(o: &Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        o.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Is `BQ_REQUIRE_REDIS` set (to anything but empty or 0)?
pub fn redis_required() -> bool {
    flag("BQ_REQUIRE_REDIS")
}

/// Is the environment variable set to anything but empty or `0`?
pub fn flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Headless Chromium for the rendering tests: `BQ_CHROMIUM` when set, else `/usr/bin/chromium`;
/// `None` (after saying so) when it is not installed, and a test failure instead under
/// `BQ_REQUIRE_BROWSER` (which CI sets: a browser test never skips there).
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("BQ_CHROMIUM")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if path.exists() {
        return Some(path);
    }
    assert!(!flag("BQ_REQUIRE_BROWSER"), "BQ_REQUIRE_BROWSER is set but {} is not installed", path.display());
    eprintln!(
        "skipping the Chromium check: {} is not installed (BQ_REQUIRE_BROWSER=1 makes this a failure)",
        path.display()
    );
    None
}

/// Every HTML page of the committed rendering (docs/html), sorted.
pub fn html_pages() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(repo().join("docs/html"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| e.into_path())
        .collect();
    out.sort();
    out
}

/// Run headless Chromium (`browser`, from [`chromium`]) on the file `page` with `args` added to
/// the flags every rendering test uses (a fresh profile, no network of its own, console messages
/// logged): its output, and its stderr log.
pub fn run_chromium(browser: &Path, page: &Path, args: &[&str]) -> (std::process::Output, String) {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let profile = tempfile::tempdir().unwrap();
    let log = profile.path().join("stderr.log");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().join("profile").display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start chromium");
    // A guard against a hung browser, not a timing assertion.
    let deadline = Instant::now() + Duration::from_secs(300);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    (out, std::fs::read_to_string(&log).unwrap_or_default())
}

/// Is `tar` GNU tar? When it is not: `false` after saying so, and a test failure instead under
/// `BQ_REQUIRE_GNU_TAR` (which CI sets).
pub fn gnu_tar() -> bool {
    let version = Command::new("tar").arg("--version").output();
    if version.as_ref().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("GNU tar")) {
        return true;
    }
    assert!(!flag("BQ_REQUIRE_GNU_TAR"), "BQ_REQUIRE_GNU_TAR is set but `tar --version` is not GNU tar");
    eprintln!(
        "skipping: `tar --version` is not GNU tar, so there is no reference stream to compare with (BQ_REQUIRE_GNU_TAR=1 makes this a failure)"
    );
    false
}

/// A Redis for tests: `BQ_REDIS_URL` when set; else a `redis-server` this test process starts
/// on a free loopback port (persistence off; a watchdog stops it when the process ends); else
/// `None`, after printing why. With `BQ_REQUIRE_REDIS` set, `None` is a test failure instead.
pub fn redis_url() -> Option<String> {
    static URL: OnceLock<Option<String>> = OnceLock::new();
    let url = URL
        .get_or_init(|| {
            if let Some(url) = std::env::var("BQ_REDIS_URL").ok().filter(|u| !u.is_empty()) {
                return Some(url);
            }
            spawn_redis()
        })
        .clone();
    if url.is_none() {
        assert!(
            !redis_required(),
            "BQ_REQUIRE_REDIS is set but no Redis is reachable (set BQ_REDIS_URL or install redis-server)"
        );
        eprintln!("skipping: no Redis (BQ_REDIS_URL unset and redis-server not installed)");
    }
    url
}

fn spawn_redis() -> Option<String> {
    Command::new("redis-server").arg("--version").output().ok().filter(|o| o.status.success())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
    let dir = std::env::temp_dir().join(format!("bqsuite-test-redis-{port}"));
    std::fs::create_dir_all(&dir).ok()?;
    // The watchdog shell stops redis-server as soon as this test process is gone.
    let script = format!(
        "redis-server --port {port} --bind 127.0.0.1 --save '' --appendonly no --dir '{dir}' >/dev/null 2>&1 & r=$!; \
         while kill -0 {pid} 2>/dev/null && kill -0 $r 2>/dev/null; do sleep 0.5; done; kill $r 2>/dev/null; rm -rf '{dir}'",
        dir = dir.display(),
        pid = std::process::id()
    );
    Command::new("sh").arg("-c").arg(script).spawn().ok()?;
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(format!("redis://127.0.0.1:{port}/"));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    None
}

/// A complete results file in which every case passes: every core section plus the sections of
/// `bindings`, every case id from the suite's case-id rule.
pub fn passing(suite: &bqsuite::suite::Suite, sdk: &str, bindings: &[&str]) -> Value {
    let mut sections = Map::new();
    for s in suite.sections() {
        let Some(scope) = s.scope else { continue };
        if scope == bqsuite::suite::Scope::Core || bindings.contains(&scope.as_str()) {
            let cases: Map<String, Value> = s.cases().into_iter().map(|c| (c.id, json!({"status": "pass"}))).collect();
            sections.insert(s.name.to_owned(), Value::Object(cases));
        }
    }
    json!({
        "sdk": sdk,
        "version": "2.4.1",
        "conformance_version": suite.version().unwrap(),
        "generated_at": "2026-11-30T09:15:00Z",
        "bindings": bindings,
        "sections": sections,
    })
}

/// A complete results file of an SDK carrying every binding in which every case is a skip
/// with `reason`, and how many cases that is.
pub fn all_skipped(suite: &bqsuite::suite::Suite, reason: &str) -> (Value, usize) {
    let all = ["redis", "amqp", "sqs", "asb", "pulsar", "kafka", "artemis", "otel"];
    let mut v = passing(suite, "babelqueue-python", &all);
    let mut total = 0;
    for cases in v["sections"].as_object_mut().unwrap().values_mut() {
        for outcome in cases.as_object_mut().unwrap().values_mut() {
            *outcome = json!({"status": "skip", "reason": reason});
            total += 1;
        }
    }
    (v, total)
}

/// Run `bqsuite` in `dir` with extra environment, and fail (instead of hanging the test run)
/// when it has not finished within `secs` seconds: for inputs that once made it block forever.
pub fn bqsuite_within(dir: &Path, args: &[&str], env: &[(&str, &str)], secs: u64) -> Output {
    let mut cmd = command(dir, args, env);
    cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("run bqsuite");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(out) => out.expect("output"),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("bqsuite {args:?} did not finish within {secs} s");
        }
    }
}

/// Run git in `dir` with no user or system configuration.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args(["-c", "user.name=bqsuite test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"])
        .args(["-c", "tag.gpgsign=false", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}
